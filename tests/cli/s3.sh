#!/usr/bin/env bash
# Tables on S3 through the CLI, against the test server (scripts/servers.sh; ctest label
# s3): every table command on an s3:// table, with the same results as on a local table
# built by the same commands; then concurrent appends racing for the same Delta versions
# (the put-if-absent commit), several rounds, every append committed exactly once.
set -u
source "$(dirname "$0")/lib.sh"
same() {  # same DESCRIPTION -- CMD... : CMD's stdout is the same on the local and the S3 table
  local what=$1; shift 2
  "$@" "$L" >"$OUT.local" 2>"$ERR" || { echo "FAIL: $what (local)"; cat "$ERR"; fail=1; return; }
  "$@" "$S" >"$OUT.s3" 2>"$ERR" || { echo "FAIL: $what (s3)"; cat "$ERR"; fail=1; return; }
  if cmp -s "$OUT.local" "$OUT.s3"; then echo "ok: $what"; else
    echo "FAIL: $what differs between local and s3:"; diff "$OUT.local" "$OUT.s3" | head -20; fail=1
  fi
}
if [[ -z "${LITHIFY_TEST_S3_BUCKET:-}" || -z "${AWS_ENDPOINT_URL:-}" ]]; then
  echo "FAIL: no S3 test server: LITHIFY_TEST_S3_BUCKET / AWS_ENDPOINT_URL are not set (start it with"
  echo "      scripts/servers.sh start and source build/servers/env; or leave it out with ctest -LE s3)"
  exit 1
fi
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR" "$OUT.local" "$OUT.s3"' EXIT
prefix="cli-$$-$RANDOM"
L=$D/local
S="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/t"

# The same commands on both tables.
for t in "$L" "$S"; do
  run 0 "create $t" -- "$LITHIFY" create "$t" --schema "id long, p int, note string" --partitioned-by p
  run 0 "append --generate $t" -- "$LITHIFY" append "$t" --generate 600 --seed 7 --files 6 --no-auto-compact
  printf '{"id":9001,"p":1,"note":"from a file"}\n{"id":9002,"p":2,"note":"b"}\n' >"$D/in.jsonl"
  run 0 "append --from $t" -- "$LITHIFY" append "$t" --from "$D/in.jsonl" --no-auto-compact
  run 0 "delete $t" -- "$LITHIFY" delete "$t" --where "id < 50"
done
run 1 "create over an existing S3 table" -- "$LITHIFY" create "$S" --schema "id long"
same "scan --count" -- "$LITHIFY" scan --count
same "scan (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
same "describe history --json (operations)" -- bash -c '"$LITHIFY" describe history "$0" --json | grep -o "\"operation\":\"[A-Z ]*\"" | sort'
run 0 "files on S3" -- "$LITHIFY" files "$S" --json
expect "$OUT" "s3://|part-" "files lists the S3 table's data files"
run 0 "describe detail on S3" -- "$LITHIFY" describe detail "$S" --json
expect "$OUT" "$prefix" "describe detail names the S3 location"
run 0 "diagnose on S3" -- "$LITHIFY" diagnose "$S" --json
run 0 "optimize --dry-run on S3" -- "$LITHIFY" optimize "$S" --dry-run --json
run 0 "optimize on S3" -- "$LITHIFY" optimize "$S" --json
run 0 "optimize on local" -- "$LITHIFY" optimize "$L" --json
same "scan --count after optimize" -- "$LITHIFY" scan --count
same "scan after optimize (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
run 0 "checkpoint on S3" -- "$LITHIFY" checkpoint "$S"
run 0 "scan after checkpoint" -- "$LITHIFY" scan "$S" --count
run 0 "vacuum --dry-run on S3" -- "$LITHIFY" vacuum "$S" --dry-run --json
run 0 "vacuum --retain 0 on S3" -- "$LITHIFY" vacuum "$S" --retain 0 --disable-retention-check --json
expect "$OUT" '"files_deleted":[1-9]' "vacuum deletes the files OPTIMIZE replaced"
run 0 "vacuum --dry-run again on S3" -- "$LITHIFY" vacuum "$S" --retain 0 --disable-retention-check --dry-run --json
expect "$OUT" '"files_to_delete":0,' "the deleted objects are gone from the bucket"
same "scan --count after vacuum" -- "$LITHIFY" scan --count
run 0 "delete --all on S3" -- "$LITHIFY" delete "$S" --all
run 0 "scan --count after delete --all" -- "$LITHIFY" scan "$S" --count
expect "$OUT" "^0$" "an emptied S3 table counts 0 rows"

# Bad input names the URI and the server's message.
run 1 "scan of a missing bucket" -- "$LITHIFY" scan "s3://lithify-no-such-bucket-$$/t"
expect "$ERR" "lithify-no-such-bucket-$$" "missing bucket is named"
run 1 "scan with a wrong secret" -- env AWS_SECRET_ACCESS_KEY=wrong "$LITHIFY" scan "$S"
expect "$ERR" "SignatureDoesNotMatch" "a wrong secret gives the server's code"
run 1 "scan without credentials" -- env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$D" "$LITHIFY" scan "$S"
expect "$ERR" "no S3 credentials" "missing credentials are named"

# Misbehaving servers, through tests/cli/s3_proxy.mjs. proxy MODE starts one and sets
# $P (its endpoint) and $proxy (its pid).
proxy() {
  rm -f "$D/proxy.port"
  node "$(dirname "$0")/s3_proxy.mjs" "$AWS_ENDPOINT_URL" "$1" >"$D/proxy.port" 2>"$D/proxy.err" &
  proxy=$!
  for _ in $(seq 1 100); do [[ -s "$D/proxy.port" ]] && break; sleep 0.05; done
  P="http://127.0.0.1:$(cat "$D/proxy.port")"
}
if command -v node >/dev/null; then
  # A server that ignores If-None-Match (refused conditional PUTs answered 200) is detected
  # before the first commit: commits are refused unless LITHIFY_S3_UNSAFE_COMMITS=1.
  proxy ignore-condition
  U="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/unsafe"
  run 1 "create through a server ignoring If-None-Match" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" create "$U" --schema "id long"
  expect "$ERR" "ignores If-None-Match.*LITHIFY_S3_UNSAFE_COMMITS=1" "the refusal names the problem and the override"
  run 1 "scan: nothing was committed" -- "$LITHIFY" scan "$U" --count
  run 0 "create with LITHIFY_S3_UNSAFE_COMMITS=1" -- env AWS_ENDPOINT_URL="$P" LITHIFY_S3_UNSAFE_COMMITS=1 "$LITHIFY" create "$U" --schema "id long"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  # Every successful PUT's reply is lost: the retried commit meets its own object and reads
  # it back (the same bytes: the commit is ours), so create and appends succeed once each.
  proxy lose-replies
  LR="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/lost"
  run 0 "create while PUT replies are lost" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" create "$LR" --schema "id long"
  run 0 "append while PUT replies are lost" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" append "$LR" --generate 25 --no-auto-compact
  run 0 "append again while PUT replies are lost" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" append "$LR" --generate 25 --seed 2 --no-auto-compact
  kill "$proxy"; wait "$proxy" 2>/dev/null
  run 0 "lost replies: rows" -- "$LITHIFY" scan "$LR" --count
  expect "$OUT" "^50$" "lost replies: each append's rows once"
  run 0 "lost replies: history" -- "$LITHIFY" describe history "$LR" --json
  n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
  [[ $n == 2 ]] && echo "ok: lost replies: 2 WRITE commits" || { echo "FAIL: lost replies: $n WRITE commits, wanted 2"; fail=1; }
else
  echo "FAIL: node not found (scripts/install-deps.sh installs it)"; fail=1
fi

# The commit race: W processes append to one table at once, R rounds. Each append is one
# commit; lost put-if-absent races are retried at the next version. Every round must end
# with exactly W more commits and W * rows more rows (a commit written over another's
# would lose rows or a version).
C="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/race"
W=${LITHIFY_S3_RACE_WRITERS:-4} R=${LITHIFY_S3_RACE_ROUNDS:-5}
run 0 "create race table" -- "$LITHIFY" create "$C" --schema "id long, w int"
for round in $(seq 1 "$R"); do
  pids=()
  for w in $(seq 1 "$W"); do
    "$LITHIFY" append "$C" --generate 10 --seed "$round$w" --no-auto-compact >"$D/race.$w.out" 2>&1 &
    pids+=($!)
  done
  bad=0
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { bad=1; cat "$D/race.$((i + 1)).out"; }; done
  [[ $bad == 0 ]] || { echo "FAIL: race round $round: an append failed"; fail=1; }
done
run 0 "race: row count" -- "$LITHIFY" scan "$C" --count
expect "$OUT" "^$((W * R * 10))$" "race: every append's rows are there exactly once"
run 0 "race: history" -- "$LITHIFY" describe history "$C" --json
n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
[[ $n == $((W * R)) ]] && echo "ok: race: $n WRITE commits" || { echo "FAIL: race: $n WRITE commits, wanted $((W * R))"; fail=1; }

exit $fail
