#!/usr/bin/env bash
# Tables on S3 through the CLI, against the test server (scripts/servers.sh; ctest label
# s3): every table command on an s3:// table, with the same results as on a local table
# built by the same commands; then concurrent appends racing for the same Delta versions
# (the put-if-absent commit), several rounds, every append committed exactly once.
set -u
source "$(dirname "$0")/lib.sh"
if [[ -z "${LITHIFY_TEST_S3_BUCKET:-}" || -z "${AWS_ENDPOINT_URL:-}" ]]; then
  echo "FAIL: no S3 test server: LITHIFY_TEST_S3_BUCKET / AWS_ENDPOINT_URL are not set (start it with"
  echo "      scripts/servers.sh start and source build/servers/env; or leave it out with ctest -LE s3)"
  exit 1
fi
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR" "$OUT.local" "$OUT.remote"' EXIT
prefix="cli-$$-$RANDOM"
L=$D/local
R="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/t" STORE=S3

# The same commands on both tables.
same_table_commands "s3://"
vacuum_and_empty "the deleted objects are gone from the bucket"

# Bad input names the URI and the server's message.
run 1 "scan of a missing bucket" -- "$LITHIFY" scan "s3://lithify-no-such-bucket-$$/t"
expect "$ERR" "lithify-no-such-bucket-$$" "missing bucket is named"
run 1 "scan with a wrong secret" -- env AWS_SECRET_ACCESS_KEY=wrong "$LITHIFY" scan "$R"
expect "$ERR" "SignatureDoesNotMatch" "a wrong secret gives the server's code"
run 1 "scan without credentials" -- env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$D" "$LITHIFY" scan "$R"
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
  lost_replies_writes "$LR" AWS_ENDPOINT_URL="$P"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  lost_replies_check "$LR"
else
  echo "FAIL: node not found (scripts/install-deps.sh installs it)"; fail=1
fi

# The commit race: W processes append to one table at once, R rounds. Each append is one
# commit; lost put-if-absent races are retried at the next version. Every round must end
# with exactly W more commits and W * rows more rows (a commit written over another's
# would lose rows or a version).
W=${LITHIFY_S3_RACE_WRITERS:-4} rounds=${LITHIFY_S3_RACE_ROUNDS:-5}
append_race "s3://$LITHIFY_TEST_S3_BUCKET/$prefix/race" "$W" "$rounds"

exit $fail
