#!/usr/bin/env bash
# Tables on Azure Blob through the CLI, against the test server (Azurite from
# scripts/servers.sh; ctest labels s3 and azure): every table command on an abfss:// table,
# with the same results as on a local table built by the same commands; the az:// and
# https:// spellings of it; lost replies of successful PUTs; bad input; then the
# put-if-absent races: concurrent creates of one table (exactly one winner per round) and
# concurrent appends (every append committed exactly once).
set -u
source "$(dirname "$0")/lib.sh"
if [[ -z "${LITHIFY_TEST_AZURE_CONTAINER:-}" || -z "${LITHIFY_AZURE_BLOB_ENDPOINT:-}" ]]; then
  echo "FAIL: no Azure test server: LITHIFY_TEST_AZURE_CONTAINER / LITHIFY_AZURE_BLOB_ENDPOINT are not set (start"
  echo "      it with scripts/servers.sh start and source build/servers/env; or leave it out with ctest -LE s3)"
  exit 1
fi
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR" "$OUT.local" "$OUT.remote"' EXIT
prefix="cli-$$-$RANDOM"
C=$LITHIFY_TEST_AZURE_CONTAINER
acct=$AZURE_STORAGE_ACCOUNT
L=$D/local
R="abfss://$C@$acct.dfs.core.windows.net/$prefix/t" STORE=Azure

# The same commands on both tables.
same_table_commands "abfss://"
# The same table by its other spellings.
run 0 "scan --count by az://" -- "$LITHIFY" scan "az://$C/$prefix/t" --count
cp "$OUT" "$D/count.az"
run 0 "scan --count by https://" -- "$LITHIFY" scan "https://$acct.blob.core.windows.net/$C/$prefix/t" --count
cmp -s "$OUT" "$D/count.az" && echo "ok: az:// and https:// count the same rows" || { echo "FAIL: az:// and https:// differ"; fail=1; }
vacuum_and_empty "the deleted blobs are gone from the container"

# Bad input names the URI and the server's message.
# A name that is a "directory": a folder of blobs that is not a table, a folder read as a file.
run 1 "scan of a folder that is not a table" -- "$LITHIFY" scan "az://$C/$prefix"
expect "$ERR" "az://$C/$prefix: not a table" "a folder of blobs is not a table, named"
run 1 "parquet cat of a directory name" -- "$LITHIFY" parquet cat "az://$C/$prefix/t/_delta_log"
expect "$ERR" "az://$C/$prefix/t/_delta_log: is a directory \\(there are blobs below this name\\), not a blob" "a directory name is named as one"
run 1 "scan of a missing container" -- "$LITHIFY" scan "az://lithify-no-such-container-$$/t"
expect "$ERR" "lithify-no-such-container-$$" "missing container is named"
expect "$ERR" "ContainerNotFound" "missing container: the server's code"
run 1 "create in a missing container" -- "$LITHIFY" create "az://lithify-no-such-container-$$/t" --schema "id long"
expect "$ERR" "ContainerNotFound" "create in a missing container: the server's code"
wrong_key=$(printf 'not the account key, 32 bytes..' | base64)
run 1 "scan with a wrong key" -- env AZURE_STORAGE_KEY="$wrong_key" "$LITHIFY" scan "$R"
expect "$ERR" "AuthenticationFailed|AuthorizationFailure" "a wrong key gives the server's code"
expect "$ERR" "$prefix" "a wrong key: the URI is named"
run 1 "scan with a key that is not Base64" -- env AZURE_STORAGE_KEY='not base64!' "$LITHIFY" scan "$R"
expect "$ERR" "AZURE_STORAGE_KEY.*Base64" "a malformed key is named"
run 1 "scan of another account" -- "$LITHIFY" scan "abfss://$C@lithifynosuchacct.dfs.core.windows.net/t"
expect "$ERR" "lithifynosuchacct" "an account other than the configured one is named"
run 1 "scan without credentials" -- env -u AZURE_STORAGE_KEY -u AZURE_STORAGE_ACCOUNT_KEY -u AZURE_STORAGE_SAS_TOKEN \
  -u AZURE_STORAGE_CONNECTION_STRING "$LITHIFY" scan "$R"
expect "$ERR" "no Azure credentials" "missing credentials are named"
run 1 "abfss:// without an account" -- "$LITHIFY" scan "abfss://$C/t"
expect "$ERR" "<container>@<account>" "the expected abfss form is shown"
# The emulator by a connection string, as Azure's tools take it.
conn="DefaultEndpointsProtocol=http;AccountName=$acct;AccountKey=$AZURE_STORAGE_KEY;BlobEndpoint=$LITHIFY_AZURE_BLOB_ENDPOINT;"
run 0 "scan by AZURE_STORAGE_CONNECTION_STRING" -- env -u AZURE_STORAGE_ACCOUNT -u AZURE_STORAGE_KEY \
  -u LITHIFY_AZURE_BLOB_ENDPOINT AZURE_STORAGE_CONNECTION_STRING="$conn" "$LITHIFY" scan "$R" --count
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
# Expired credentials: a correctly signed SAS token whose expiry has passed.
expired=$(node "$(dirname "$0")/../azurite/account-sas.mjs" "$acct" "$AZURE_STORAGE_KEY" 2001-01-01T00:00:00Z)
run 1 "scan with an expired SAS token" -- env -u AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN="$expired" "$LITHIFY" scan "$ST" --count
expect "$ERR" "$ST" "an expired SAS token: the URI is named"
expect "$ERR" "AuthenticationFailed|AuthorizationFailure|expired" "an expired SAS token: the server's refusal is shown"

# Every successful PUT's reply is lost (tests/cli/fault_proxy.mjs in front of Azurite): the
# retried commit meets its own blob and reads it back (the same bytes: the commit is
# ours), so create and appends succeed once each.
if command -v node >/dev/null; then
  endpoint_host=${LITHIFY_AZURE_BLOB_ENDPOINT%/*}
  start_proxy "$endpoint_host" --lose-put 1 --once-per-key
  P="$P/$acct"
  LR="az://$C/$prefix/lost"
  lost_replies_writes "$LR" LITHIFY_AZURE_BLOB_ENDPOINT="$P"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  lost_replies_check "$LR"
else
  echo "FAIL: node not found (scripts/install-deps.sh installs it)"; fail=1
fi

# The conditional-create race: W processes create the same new table at once, R rounds
# (a new table each round). Version 0 is a put-if-absent: exactly one create may win.
W=${LITHIFY_AZURE_RACE_WRITERS:-4} rounds=${LITHIFY_AZURE_RACE_ROUNDS:-8}
for round in $(seq 1 "$rounds"); do
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
R2=${LITHIFY_AZURE_APPEND_ROUNDS:-4}
append_race "az://$C/$prefix/race" "$W" "$R2"

exit $fail
