#!/usr/bin/env bash
# Tables on Azure Blob through the CLI, against the test server (Azurite from
# scripts/servers.sh; ctest labels s3 and azure): every table command on an abfss:// table,
# with the same results as on a local table built by the same commands; the az:// and
# https:// spellings of it; lost replies of successful PUTs; bad input; then the
# put-if-absent races: concurrent creates of one table (exactly one winner per round) and
# concurrent appends (every append committed exactly once).
set -u
source "$(dirname "$0")/lib.sh"
same() {  # same DESCRIPTION -- CMD... : CMD's stdout is the same on the local and the Azure table
  local what=$1; shift 2
  "$@" "$L" >"$OUT.local" 2>"$ERR" || { echo "FAIL: $what (local)"; cat "$ERR"; fail=1; return; }
  "$@" "$A" >"$OUT.az" 2>"$ERR" || { echo "FAIL: $what (azure)"; cat "$ERR"; fail=1; return; }
  if cmp -s "$OUT.local" "$OUT.az"; then echo "ok: $what"; else
    echo "FAIL: $what differs between local and azure:"; diff "$OUT.local" "$OUT.az" | head -20; fail=1
  fi
}
if [[ -z "${LITHIFY_TEST_AZURE_CONTAINER:-}" || -z "${LITHIFY_AZURE_BLOB_ENDPOINT:-}" ]]; then
  echo "FAIL: no Azure test server: LITHIFY_TEST_AZURE_CONTAINER / LITHIFY_AZURE_BLOB_ENDPOINT are not set (start"
  echo "      it with scripts/servers.sh start and source build/servers/env; or leave it out with ctest -LE s3)"
  exit 1
fi
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR" "$OUT.local" "$OUT.az"' EXIT
prefix="cli-$$-$RANDOM"
C=$LITHIFY_TEST_AZURE_CONTAINER
acct=$AZURE_STORAGE_ACCOUNT
L=$D/local
A="abfss://$C@$acct.dfs.core.windows.net/$prefix/t"

# The same commands on both tables.
for t in "$L" "$A"; do
  run 0 "create $t" -- "$LITHIFY" create "$t" --schema "id long, p int, note string" --partitioned-by p
  run 0 "append --generate $t" -- "$LITHIFY" append "$t" --generate 600 --seed 7 --files 6 --no-auto-compact
  printf '{"id":9001,"p":1,"note":"from a file"}\n{"id":9002,"p":2,"note":"b"}\n' >"$D/in.jsonl"
  run 0 "append --from $t" -- "$LITHIFY" append "$t" --from "$D/in.jsonl" --no-auto-compact
  run 0 "delete $t" -- "$LITHIFY" delete "$t" --where "id < 50"
done
run 1 "create over an existing Azure table" -- "$LITHIFY" create "$A" --schema "id long"
same "scan --count" -- "$LITHIFY" scan --count
same "scan (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
same "describe history --json (operations)" -- bash -c '"$LITHIFY" describe history "$0" --json | grep -o "\"operation\":\"[A-Z ]*\"" | sort'
run 0 "files on Azure" -- "$LITHIFY" files "$A" --json
expect "$OUT" "abfss://|part-" "files lists the Azure table's data files"
run 0 "describe detail on Azure" -- "$LITHIFY" describe detail "$A" --json
expect "$OUT" "$prefix" "describe detail names the Azure location"
run 0 "diagnose on Azure" -- "$LITHIFY" diagnose "$A" --json
run 0 "optimize --dry-run on Azure" -- "$LITHIFY" optimize "$A" --dry-run --json
run 0 "optimize on Azure" -- "$LITHIFY" optimize "$A" --json
run 0 "optimize on local" -- "$LITHIFY" optimize "$L" --json
same "scan --count after optimize" -- "$LITHIFY" scan --count
same "scan after optimize (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
run 0 "checkpoint on Azure" -- "$LITHIFY" checkpoint "$A"
run 0 "scan after checkpoint" -- "$LITHIFY" scan "$A" --count
# The same table by its other spellings.
run 0 "scan --count by az://" -- "$LITHIFY" scan "az://$C/$prefix/t" --count
cp "$OUT" "$D/count.az"
run 0 "scan --count by https://" -- "$LITHIFY" scan "https://$acct.blob.core.windows.net/$C/$prefix/t" --count
cmp -s "$OUT" "$D/count.az" && echo "ok: az:// and https:// count the same rows" || { echo "FAIL: az:// and https:// differ"; fail=1; }
run 0 "vacuum --dry-run on Azure" -- "$LITHIFY" vacuum "$A" --dry-run --json
run 0 "vacuum --retain 0 on Azure" -- "$LITHIFY" vacuum "$A" --retain 0 --disable-retention-check --json
expect "$OUT" '"files_deleted":[1-9]' "vacuum deletes the files OPTIMIZE replaced"
run 0 "vacuum --dry-run again on Azure" -- "$LITHIFY" vacuum "$A" --retain 0 --disable-retention-check --dry-run --json
expect "$OUT" '"files_to_delete":0,' "the deleted blobs are gone from the container"
same "scan --count after vacuum" -- "$LITHIFY" scan --count
run 0 "delete --all on Azure" -- "$LITHIFY" delete "$A" --all
run 0 "scan --count after delete --all" -- "$LITHIFY" scan "$A" --count
expect "$OUT" "^0$" "an emptied Azure table counts 0 rows"

# Bad input names the URI and the server's message.
run 1 "scan of a missing container" -- "$LITHIFY" scan "az://lithify-no-such-container-$$/t"
expect "$ERR" "lithify-no-such-container-$$" "missing container is named"
expect "$ERR" "ContainerNotFound" "missing container: the server's code"
run 1 "create in a missing container" -- "$LITHIFY" create "az://lithify-no-such-container-$$/t" --schema "id long"
expect "$ERR" "ContainerNotFound" "create in a missing container: the server's code"
wrong_key=$(printf 'not the account key, 32 bytes..' | base64)
run 1 "scan with a wrong key" -- env AZURE_STORAGE_KEY="$wrong_key" "$LITHIFY" scan "$A"
expect "$ERR" "AuthenticationFailed|AuthorizationFailure" "a wrong key gives the server's code"
expect "$ERR" "$prefix" "a wrong key: the URI is named"
run 1 "scan with a key that is not Base64" -- env AZURE_STORAGE_KEY='not base64!' "$LITHIFY" scan "$A"
expect "$ERR" "AZURE_STORAGE_KEY.*Base64" "a malformed key is named"
run 1 "scan of another account" -- "$LITHIFY" scan "abfss://$C@lithifynosuchacct.dfs.core.windows.net/t"
expect "$ERR" "lithifynosuchacct" "an account other than the configured one is named"
run 1 "scan without credentials" -- env -u AZURE_STORAGE_KEY -u AZURE_STORAGE_ACCOUNT_KEY -u AZURE_STORAGE_SAS_TOKEN \
  -u AZURE_STORAGE_CONNECTION_STRING "$LITHIFY" scan "$A"
expect "$ERR" "no Azure credentials" "missing credentials are named"
run 1 "abfss:// without an account" -- "$LITHIFY" scan "abfss://$C/t"
expect "$ERR" "<container>@<account>" "the expected abfss form is shown"
# The emulator by a connection string, as Azure's tools take it.
conn="DefaultEndpointsProtocol=http;AccountName=$acct;AccountKey=$AZURE_STORAGE_KEY;BlobEndpoint=$LITHIFY_AZURE_BLOB_ENDPOINT;"
run 0 "scan by AZURE_STORAGE_CONNECTION_STRING" -- env -u AZURE_STORAGE_ACCOUNT -u AZURE_STORAGE_KEY \
  -u LITHIFY_AZURE_BLOB_ENDPOINT AZURE_STORAGE_CONNECTION_STRING="$conn" "$LITHIFY" scan "$A" --count
expect "$OUT" "^0$" "the connection string reaches the same table"
# A SAS token instead of the key (an account SAS signed by tests/azurite/account-sas.mjs).
sas=$(node "$(dirname "$0")/../azurite/account-sas.mjs" "$acct" "$AZURE_STORAGE_KEY")
ST="az://$C/$prefix/sas"
run 0 "create with a SAS token" -- env -u AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN="$sas" "$LITHIFY" create "$ST" --schema "id long"
run 0 "append with a SAS token" -- env -u AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN="?$sas" "$LITHIFY" append "$ST" --generate 10 --no-auto-compact
run 0 "scan with a SAS token" -- env -u AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN="$sas" "$LITHIFY" scan "$ST" --count
expect "$OUT" "^10$" "a SAS token reads what it wrote"
run 1 "scan with a forged SAS token" -- env -u AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN="sv=2021-08-06&ss=b&srt=sco&sp=rl&se=2099-01-01T00%3A00%3A00Z&sig=Zm9yZ2Vk" "$LITHIFY" scan "$ST" --count
expect "$ERR" "access denied" "a forged SAS token is refused by the server"

# Every successful PUT's reply is lost (tests/cli/s3_proxy.mjs in front of Azurite): the
# retried commit meets its own blob and reads it back (the same bytes: the commit is
# ours), so create and appends succeed once each.
if command -v node >/dev/null; then
  endpoint_host=${LITHIFY_AZURE_BLOB_ENDPOINT%/*}
  node "$(dirname "$0")/s3_proxy.mjs" "$endpoint_host" lose-replies >"$D/proxy.port" 2>"$D/proxy.err" &
  proxy=$!
  for _ in $(seq 1 100); do [[ -s "$D/proxy.port" ]] && break; sleep 0.05; done
  P="http://127.0.0.1:$(cat "$D/proxy.port")/$acct"
  LR="az://$C/$prefix/lost"
  run 0 "create while PUT replies are lost" -- env LITHIFY_AZURE_BLOB_ENDPOINT="$P" "$LITHIFY" create "$LR" --schema "id long"
  run 0 "append while PUT replies are lost" -- env LITHIFY_AZURE_BLOB_ENDPOINT="$P" "$LITHIFY" append "$LR" --generate 25 --no-auto-compact
  run 0 "append again while PUT replies are lost" -- env LITHIFY_AZURE_BLOB_ENDPOINT="$P" "$LITHIFY" append "$LR" --generate 25 --seed 2 --no-auto-compact
  kill "$proxy"; wait "$proxy" 2>/dev/null
  run 0 "lost replies: rows" -- "$LITHIFY" scan "$LR" --count
  expect "$OUT" "^50$" "lost replies: each append's rows once"
  run 0 "lost replies: history" -- "$LITHIFY" describe history "$LR" --json
  n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
  [[ $n == 2 ]] && echo "ok: lost replies: 2 WRITE commits" || { echo "FAIL: lost replies: $n WRITE commits, wanted 2"; fail=1; }
else
  echo "FAIL: node not found (scripts/install-deps.sh installs it)"; fail=1
fi

# The conditional-create race: W processes create the same new table at once, R rounds
# (a new table each round). Version 0 is a put-if-absent: exactly one create may win.
W=${LITHIFY_AZURE_RACE_WRITERS:-4} R=${LITHIFY_AZURE_RACE_ROUNDS:-8}
for round in $(seq 1 "$R"); do
  T="az://$C/$prefix/create-race-$round"
  pids=()
  for w in $(seq 1 "$W"); do
    "$LITHIFY" create "$T" --schema "id long, w$w int" >"$D/create.$w.out" 2>&1 &
    pids+=($!)
  done
  wins=0 others=0
  for i in "${!pids[@]}"; do
    # A loser fails at the commit (the version exists) or, when it looks while the winner
    # commits, at the check that the location is empty.
    if wait "${pids[$i]}"; then wins=$((wins + 1)); elif grep -qiE "exist|not empty" "$D/create.$((i + 1)).out"; then :; else
      others=$((others + 1)); cat "$D/create.$((i + 1)).out"; fi
  done
  if [[ $wins == 1 && $others == 0 ]]; then echo "ok: create race round $round: one winner"; else
    echo "FAIL: create race round $round: $wins winners, $others unexpected failures"; fail=1; fi
  # The table is the winner's alone: one commit, version 0.
  "$LITHIFY" describe history "$T" --json >"$D/create.history" 2>&1 || { cat "$D/create.history"; fail=1; }
  n=$(grep -o '"version":[0-9]*' "$D/create.history" | sort -u | wc -l)
  [[ $n == 1 ]] || { echo "FAIL: create race round $round: $n versions after the race"; fail=1; }
done

# The commit race: W processes append to one table at once, R rounds. Every round must end
# with exactly W more commits and W * rows more rows.
RT="az://$C/$prefix/race"
R2=${LITHIFY_AZURE_APPEND_ROUNDS:-4}
run 0 "create race table" -- "$LITHIFY" create "$RT" --schema "id long, w int"
for round in $(seq 1 "$R2"); do
  pids=()
  for w in $(seq 1 "$W"); do
    "$LITHIFY" append "$RT" --generate 10 --seed "$round$w" --no-auto-compact >"$D/race.$w.out" 2>&1 &
    pids+=($!)
  done
  bad=0
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { bad=1; cat "$D/race.$((i + 1)).out"; }; done
  [[ $bad == 0 ]] || { echo "FAIL: race round $round: an append failed"; fail=1; }
done
run 0 "race: row count" -- "$LITHIFY" scan "$RT" --count
expect "$OUT" "^$((W * R2 * 10))$" "race: every append's rows are there exactly once"
run 0 "race: history" -- "$LITHIFY" describe history "$RT" --json
n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
[[ $n == $((W * R2)) ]] && echo "ok: race: $n WRITE commits" || { echo "FAIL: race: $n WRITE commits, wanted $((W * R2))"; fail=1; }

exit $fail
