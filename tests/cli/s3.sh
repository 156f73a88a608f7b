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

# A shallow clone: a table whose log names another table's data files by absolute URI, as
# Delta's SHALLOW CLONE writes them. Reads follow the URIs; OPTIMIZE writes into the clone's
# own folder; VACUUM of the clone never deletes a file outside its folder (the source table
# still owns them). The clone's log is put with curl's SigV4 signing.
s3put() {  # s3put LOCAL_FILE s3://bucket/key
  curl -sf --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$1" "$AWS_ENDPOINT_URL/${2#s3://}"
}
s3get() {  # s3get s3://bucket/key (to stdout)
  curl -sf --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$AWS_ENDPOINT_URL/${1#s3://}"
}
SRC="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/src" CL="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/clone"
run 0 "create the clone's source" -- "$LITHIFY" create "$SRC" --schema "id long, note string"
run 0 "append to the clone's source" -- "$LITHIFY" append "$SRC" --generate 300 --files 3 --seed 4 --no-auto-compact
{ s3get "$SRC/_delta_log/00000000000000000000.json"; s3get "$SRC/_delta_log/00000000000000000001.json"; } >"$D/src.log" ||
  { echo "FAIL: could not read the source table's log with curl"; fail=1; }
node -e '
  const [log, src] = process.argv.slice(1);
  const out = [];
  for (const line of require("fs").readFileSync(log, "utf8").split("\n").filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.commitInfo) continue;
    if (a.add) a.add.path = src + "/" + a.add.path;  // paths of lithify-written files need no escaping
    out.push(JSON.stringify(a));
  }
  require("fs").writeFileSync(log + ".clone", out.join("\n") + "\n");' "$D/src.log" "$SRC"
s3put "$D/src.log.clone" "$CL/_delta_log/00000000000000000000.json" ||
  { echo "FAIL: could not put the clone's log with curl"; fail=1; }
want=$("$LITHIFY" scan "$SRC" | sort | md5sum) src_rows=$want
run 0 "scan of the clone" -- bash -c '"$LITHIFY" scan "$0" | sort | md5sum' "$CL"
expect "$OUT" "^$want" "the clone reads the source's rows through absolute URIs"
run 0 "files of the clone" -- "$LITHIFY" files "$CL" --json
expect "$OUT" "$SRC/part-" "files names the clone's data files by their absolute URIs"
run 0 "checkpoint the clone" -- "$LITHIFY" checkpoint "$CL"
run 0 "scan of the clone from its checkpoint" -- bash -c '"$LITHIFY" scan "$0" | sort | md5sum' "$CL"
expect "$OUT" "^$want" "the checkpoint keeps the absolute URIs"
run 0 "delete from the clone" -- "$LITHIFY" delete "$CL" --where "id < 10" --json
expect "$OUT" '"numDeletedRows":[1-9]' "a delete from the clone removes rows of the source's files"
run 0 "scan of the source after the clone's delete" -- bash -c '"$LITHIFY" scan "$0" | sort | md5sum' "$SRC"
expect "$OUT" "^$want" "a delete from the clone leaves the source's rows"
want=$("$LITHIFY" scan "$CL" | sort | md5sum)
run 0 "optimize the clone" -- "$LITHIFY" optimize "$CL" --json
expect "$OUT" '"numFilesAdded":1,' "OPTIMIZE of the clone writes one file"
run 0 "files of the clone after optimize" -- "$LITHIFY" files "$CL" --json
reject "$OUT" "$SRC/" "after OPTIMIZE the clone references no source file"
run 0 "scan of the clone after optimize" -- bash -c '"$LITHIFY" scan "$0" | sort | md5sum' "$CL"
expect "$OUT" "^$want" "OPTIMIZE of the clone keeps its rows"
run 0 "vacuum --dry-run of the clone" -- "$LITHIFY" vacuum "$CL" --retain 0 --disable-retention-check --dry-run --json
expect "$OUT" '"files_to_delete":[1-9]' "VACUUM of the clone finds the clone's own replaced files"
reject "$OUT" "$SRC|/src/" "VACUUM of the clone plans to delete no file of the source table"
run 0 "vacuum the clone" -- "$LITHIFY" vacuum "$CL" --retain 0 --disable-retention-check --json
run 0 "scan of the source after the clone's vacuum" -- bash -c '"$LITHIFY" scan "$0" | sort | md5sum' "$SRC"
expect "$OUT" "^$src_rows" "the source table keeps every row after the clone's VACUUM"

# Bad input names the URI and the server's message.
run 1 "scan of a missing bucket" -- "$LITHIFY" scan "s3://lithify-no-such-bucket-$$/t"
expect "$ERR" "lithify-no-such-bucket-$$" "missing bucket is named"
run 1 "scan with a wrong secret" -- env AWS_SECRET_ACCESS_KEY=wrong "$LITHIFY" scan "$R"
expect "$ERR" "SignatureDoesNotMatch" "a wrong secret gives the server's code"
run 1 "scan without credentials" -- env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$D" "$LITHIFY" scan "$R"
expect "$ERR" "no S3 credentials" "missing credentials are named"
# A malformed region is refused naming its setting; a well-formed unknown one is the server's
# to refuse (RGW serves any region name in the signature's scope, so none to test here).
run 1 "scan with a malformed region" -- env AWS_REGION="eu west/1" "$LITHIFY" scan "$R" --count
expect "$ERR" "AWS_REGION 'eu west/1': not a region name" "a malformed region names AWS_REGION"
# A key that is a "directory": a folder of objects that is not a table, a folder read as a
# file, a data-file folder read as a table. Each fails at once naming the URI.
run 1 "scan of a folder that is not a table" -- "$LITHIFY" scan "s3://$LITHIFY_TEST_S3_BUCKET/$prefix"
expect "$ERR" "s3://$LITHIFY_TEST_S3_BUCKET/$prefix: not a table" "a folder of objects is not a table, named"
run 1 "parquet cat of a directory key" -- "$LITHIFY" parquet cat "$R/_delta_log"
expect "$ERR" "$R/_delta_log: is a directory \\(there are objects below this key\\), not an object" "a directory key is named as one"
run 1 "files of a directory inside a table" -- "$LITHIFY" files "$R/_delta_log"
expect "$ERR" "$R/_delta_log: not a table" "the directory is named"

# Misbehaving servers, through tests/cli/fault_proxy.mjs (start_proxy in lib.sh sets $P,
# its endpoint, and $proxy, its pid).
if command -v node >/dev/null; then
  # A server that ignores If-None-Match (refused conditional PUTs answered 200) is detected
  # before the first commit: commits are refused unless LITHIFY_S3_UNSAFE_COMMITS=1.
  start_proxy "$AWS_ENDPOINT_URL" --ignore-condition
  U="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/unsafe"
  run 1 "create through a server ignoring If-None-Match" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" create "$U" --schema "id long"
  expect "$ERR" "ignores If-None-Match.*LITHIFY_S3_UNSAFE_COMMITS=1" "the refusal names the problem and the override"
  run 1 "scan: nothing was committed" -- "$LITHIFY" scan "$U" --count
  run 0 "create with LITHIFY_S3_UNSAFE_COMMITS=1" -- env AWS_ENDPOINT_URL="$P" LITHIFY_S3_UNSAFE_COMMITS=1 "$LITHIFY" create "$U" --schema "id long"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  # Answers of AWS that RGW cannot give (no session tokens without STS; any region name
  # accepted), as AWS words them: each fails at once (no retry loop, no hang), naming the
  # URI and the server's code and message.
  start_proxy "$AWS_ENDPOINT_URL" --reply "400:ExpiredToken:The provided token has expired." --log "$D/reply.log"
  run 1 "scan with expired credentials" -- env AWS_ENDPOINT_URL="$P" AWS_SESSION_TOKEN=expired "$LITHIFY" scan "$R" --count
  expect "$ERR" "$R" "expired credentials: the URI is named"
  expect "$ERR" "ExpiredToken.*The provided token has expired" "expired credentials: the server's code and message"
  n=$(grep -c '"fault":"reply"' "$D/reply.log")
  [[ $n -le 3 ]] && echo "ok: expired credentials: $n request(s), not retried" || { echo "FAIL: expired credentials: $n requests (retried?)"; fail=1; }
  kill "$proxy"; wait "$proxy" 2>/dev/null
  start_proxy "$AWS_ENDPOINT_URL" --reply "400:AuthorizationHeaderMalformed:The authorization header is malformed; the region 'eu-south-9' is wrong; expecting 'us-east-1'"
  run 1 "scan in a region the bucket is not in" -- env AWS_ENDPOINT_URL="$P" AWS_REGION=eu-south-9 "$LITHIFY" scan "$R" --count
  expect "$ERR" "$R" "wrong region: the URI is named"
  expect "$ERR" "AuthorizationHeaderMalformed.*expecting 'us-east-1'" "wrong region: the server's code and message"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  # Every successful PUT's reply is lost: the retried commit meets its own object and reads
  # it back (the same bytes: the commit is ours), so create and appends succeed once each.
  start_proxy "$AWS_ENDPOINT_URL" --lose-put 1 --once-per-key
  LR="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/lost"
  lost_replies_writes "$LR" AWS_ENDPOINT_URL="$P"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  lost_replies_check "$LR"
  # Every kind of fault at once (seeded): 500s, 503 SlowDown, delays, connections cut before
  # and after the server applied the request. Each command retries through them; the table
  # ends with each acknowledged write once.
  start_proxy "$AWS_ENDPOINT_URL" --seed 3 --strip "$prefix" --error 0.1 --slowdown 0.1 --delay 0.1 --delay-ms 50 \
    --drop-before 0.1 --drop-after 0.1 --log "$D/faults.log"
  FT="s3://$LITHIFY_TEST_S3_BUCKET/$prefix/faults"
  lost_replies_writes "$FT" AWS_ENDPOINT_URL="$P"
  run 0 "delete through the faulty proxy" -- env AWS_ENDPOINT_URL="$P" "$LITHIFY" delete "$FT" --where "id < 5"
  kill "$proxy"; wait "$proxy" 2>/dev/null
  faults_logged "$D/faults.log" error slowdown delay drop-before drop-after
  # The same writes on a local table give the rows to expect.
  lost_replies_writes "$D/faults-local" X=1 >/dev/null
  "$LITHIFY" delete "$D/faults-local" --where "id < 5" >/dev/null
  want=$("$LITHIFY" scan "$D/faults-local" --count)
  run 0 "faults: rows" -- "$LITHIFY" scan "$FT" --count
  expect "$OUT" "^$want$" "faults: each acknowledged write's rows once ($want)"
  run 0 "faults: history" -- "$LITHIFY" describe history "$FT" --json
  n="$(grep -o '"operation":"WRITE"' "$OUT" | wc -l) $(grep -o '"operation":"DELETE"' "$OUT" | wc -l)"
  [[ $n == "2 1" ]] && echo "ok: faults: 2 WRITE and 1 DELETE commits" || { echo "FAIL: faults: WRITE and DELETE commits $n, wanted 2 1"; fail=1; }
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
