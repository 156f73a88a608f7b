# Shared helpers of the CLI shell tests (source it after `set -u`).
#   run EXPECTED_RC DESCRIPTION -- CMD...   runs CMD, stdout in $OUT, stderr in $ERR
#   expect FILE REGEX DESCRIPTION           FILE matches the extended regex
#   reject FILE REGEX DESCRIPTION           FILE does not match it
# A failed check prints FAIL with the evidence and sets fail=1; the script ends with
# `exit $fail`. $OUT and $ERR are removed on exit.
fail=0
OUT=$(mktemp) ERR=$(mktemp)
trap 'rm -f "$OUT" "$ERR"' EXIT
run() {
  local want=$1 what=$2; shift 3
  "$@" >"$OUT" 2>"$ERR"
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAIL: $what: exit $rc, wanted $want"; head -c 2000 "$ERR"; fail=1
  else
    echo "ok: $what"
  fi
}
expect() {
  grep -Eq -- "$2" "$1" || { echo "FAIL: $3: /$2/ not in $(basename "$1"):"; head -c 2000 "$1"; echo; fail=1; }
}
reject() {
  ! grep -Eq -- "$2" "$1" || { echo "FAIL: $3: /$2/ found"; fail=1; }
}

# ---- Tables on an object store (s3.sh, azure.sh): a local table $L and a remote one $R
# built by the same commands must give the same results. $STORE names the store in the
# descriptions ("S3", "Azure"); the script sets L, R, STORE and D (its temporary folder).
#   same DESCRIPTION -- CMD...        CMD TABLE's stdout is the same for $L and $R
#   same_table_commands SCHEME_RE     the table commands on both, compared
#   vacuum_and_empty GONE_DESCRIPTION VACUUM, then delete --all, on $R
#   lost_replies_writes TABLE VAR=ENDPOINT  create + 2 appends through a reply-losing proxy
#   lost_replies_check TABLE          ... and each append is there once
#   append_race TABLE WRITERS ROUNDS  concurrent appends, every one committed exactly once
#   start_proxy URL FLAG...           tests/cli/fault_proxy.mjs in front of URL: sets $P (its
#                                     endpoint) and $proxy (its pid); stop: kill "$proxy"
#   faults_logged LOG KIND...         the proxy's --log LOG records each KIND at least once
same() {
  local what=$1; shift 2
  "$@" "$L" >"$OUT.local" 2>"$ERR" || { echo "FAIL: $what (local)"; cat "$ERR"; fail=1; return; }
  "$@" "$R" >"$OUT.remote" 2>"$ERR" || { echo "FAIL: $what ($STORE)"; cat "$ERR"; fail=1; return; }
  if cmp -s "$OUT.local" "$OUT.remote"; then echo "ok: $what"; else
    echo "FAIL: $what differs between local and $STORE:"; diff "$OUT.local" "$OUT.remote" | head -20; fail=1
  fi
}
same_table_commands() {
  local t
  for t in "$L" "$R"; do
    run 0 "create $t" -- "$LITHIFY" create "$t" --schema "id long, p int, note string" --partitioned-by p
    run 0 "append --generate $t" -- "$LITHIFY" append "$t" --generate 600 --seed 7 --files 6 --no-auto-compact
    printf '{"id":9001,"p":1,"note":"from a file"}\n{"id":9002,"p":2,"note":"b"}\n' >"$D/in.jsonl"
    run 0 "append --from $t" -- "$LITHIFY" append "$t" --from "$D/in.jsonl" --no-auto-compact
    run 0 "delete $t" -- "$LITHIFY" delete "$t" --where "id < 50"
  done
  run 1 "create over an existing $STORE table" -- "$LITHIFY" create "$R" --schema "id long"
  same "scan --count" -- "$LITHIFY" scan --count
  same "scan (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
  same "describe history --json (operations)" -- bash -c '"$LITHIFY" describe history "$0" --json | grep -o "\"operation\":\"[A-Z ]*\"" | sort'
  run 0 "files on $STORE" -- "$LITHIFY" files "$R" --json
  expect "$OUT" "$1|part-" "files lists the $STORE table's data files"
  run 0 "describe detail on $STORE" -- "$LITHIFY" describe detail "$R" --json
  expect "$OUT" "$prefix" "describe detail names the $STORE location"
  run 0 "diagnose on $STORE" -- "$LITHIFY" diagnose "$R" --json
  run 0 "optimize --dry-run on $STORE" -- "$LITHIFY" optimize "$R" --dry-run --json
  run 0 "optimize on $STORE" -- "$LITHIFY" optimize "$R" --json
  run 0 "optimize on local" -- "$LITHIFY" optimize "$L" --json
  same "scan --count after optimize" -- "$LITHIFY" scan --count
  same "scan after optimize (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
  # ALTER, deletes by deletion vector, REORG PURGE and Z-order on both.
  for t in "$L" "$R"; do
    run 0 "alter --set $t" -- "$LITHIFY" alter "$t" --set delta.enableDeletionVectors=true \
      --set "delta.logRetentionDuration=interval 60 days"
    run 0 "delete with deletion vectors $t" -- "$LITHIFY" delete "$t" --where "id >= 100 AND id < 140" --json
    expect "$OUT" '"numDeletionVectorsAdded":[1-9]' "the delete on $t writes deletion vectors"
  done
  same "describe detail after alter (properties)" -- bash -c '"$LITHIFY" describe detail "$0" --json | grep -o "\"delta\.[A-Za-z.]*\":\"[^\"]*\"" | sort'
  run 0 "reorg --purge on $STORE" -- "$LITHIFY" reorg "$R" --purge --json
  expect "$OUT" '"numDeletionVectorsRemoved":[1-9]' "reorg --purge on $STORE removes the deletion vectors"
  run 0 "reorg --purge on local" -- "$LITHIFY" reorg "$L" --purge --json
  same "scan after reorg --purge (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
  run 0 "optimize --zorder-by on $STORE" -- "$LITHIFY" optimize "$R" --zorder-by id,note --json
  expect "$OUT" '"numFilesAdded":[1-9]' "Z-order on $STORE writes files"
  run 0 "optimize --zorder-by on local" -- "$LITHIFY" optimize "$L" --zorder-by id,note --json
  same "scan after Z-order (rows sorted)" -- bash -c '"$LITHIFY" scan "$0" | sort'
  serve_table "$R"
  run 0 "checkpoint on $STORE" -- "$LITHIFY" checkpoint "$R"
  run 0 "scan after checkpoint" -- "$LITHIFY" scan "$R" --count
}
# The panel on a remote table: `serve --table URI` answers the table's API from the store.
serve_table() {
  local port="" table
  "$LITHIFY" serve --table "$1" --port 0 --json >"$D/serve.out" 2>"$D/serve.err" &
  local pid=$!
  for _ in $(seq 1 100); do
    port=$(grep -o '"port":[0-9]*' "$D/serve.out" 2>/dev/null | cut -d: -f2)
    [[ -n $port ]] && break
    sleep 0.05
  done
  if [[ -z $port ]]; then
    echo "FAIL: serve --table $1 did not start:"; cat "$D/serve.err"; fail=1; kill "$pid" 2>/dev/null; return
  fi
  table=$(node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$1")
  run 0 "serve: /api/describe of the $STORE table" -- curl -sf "http://127.0.0.1:$port/api/describe?table=$table"
  expect "$OUT" '"operation":"OPTIMIZE"' "the panel shows the $STORE table's history"
  run 0 "serve: /api/files of the $STORE table" -- curl -sf "http://127.0.0.1:$port/api/files?table=$table"
  expect "$OUT" 'part-' "the panel lists the $STORE table's files"
  kill "$pid"; wait "$pid" 2>/dev/null
}
vacuum_and_empty() {
  run 0 "vacuum --dry-run on $STORE" -- "$LITHIFY" vacuum "$R" --dry-run --json
  run 0 "vacuum --retain 0 on $STORE" -- "$LITHIFY" vacuum "$R" --retain 0 --disable-retention-check --json
  expect "$OUT" '"files_deleted":[1-9]' "vacuum deletes the files OPTIMIZE replaced"
  run 0 "vacuum --dry-run again on $STORE" -- "$LITHIFY" vacuum "$R" --retain 0 --disable-retention-check --dry-run --json
  expect "$OUT" '"files_to_delete":0,' "$1"
  same "scan --count after vacuum" -- "$LITHIFY" scan --count
  run 0 "delete --all on $STORE" -- "$LITHIFY" delete "$R" --all
  run 0 "scan --count after delete --all" -- "$LITHIFY" scan "$R" --count
  expect "$OUT" "^0$" "an emptied $STORE table counts 0 rows"
}
lost_replies_writes() {
  run 0 "create while PUT replies are lost" -- env "$2" "$LITHIFY" create "$1" --schema "id long"
  run 0 "append while PUT replies are lost" -- env "$2" "$LITHIFY" append "$1" --generate 25 --no-auto-compact
  run 0 "append again while PUT replies are lost" -- env "$2" "$LITHIFY" append "$1" --generate 25 --seed 2 --no-auto-compact
}
lost_replies_check() {
  run 0 "lost replies: rows" -- "$LITHIFY" scan "$1" --count
  expect "$OUT" "^50$" "lost replies: each append's rows once"
  run 0 "lost replies: history" -- "$LITHIFY" describe history "$1" --json
  local n
  n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
  [[ $n == 2 ]] && echo "ok: lost replies: 2 WRITE commits" || { echo "FAIL: lost replies: $n WRITE commits, wanted 2"; fail=1; }
}
append_race() {
  local table=$1 writers=$2 rounds=$3 round w i bad n pids
  run 0 "create race table" -- "$LITHIFY" create "$table" --schema "id long, w int"
  for round in $(seq 1 "$rounds"); do
    pids=()
    for w in $(seq 1 "$writers"); do
      "$LITHIFY" append "$table" --generate 10 --seed "$round$w" --no-auto-compact >"$D/race.$w.out" 2>&1 &
      pids+=($!)
    done
    bad=0
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || { bad=1; cat "$D/race.$((i + 1)).out"; }; done
    [[ $bad == 0 ]] || { echo "FAIL: race round $round: an append failed"; fail=1; }
  done
  run 0 "race: row count" -- "$LITHIFY" scan "$table" --count
  expect "$OUT" "^$((writers * rounds * 10))$" "race: every append's rows are there exactly once"
  run 0 "race: history" -- "$LITHIFY" describe history "$table" --json
  n=$(grep -o '"operation":"WRITE"' "$OUT" | wc -l)
  [[ $n == $((writers * rounds)) ]] && echo "ok: race: $n WRITE commits" ||
    { echo "FAIL: race: $n WRITE commits, wanted $((writers * rounds))"; fail=1; }
}
start_proxy() {
  local url=$1; shift
  rm -f "$D/proxy.port"
  node "$(dirname "${BASH_SOURCE[0]}")/fault_proxy.mjs" "$url" "$@" >"$D/proxy.port" 2>"$D/proxy.err" &
  proxy=$!
  for _ in $(seq 1 100); do [[ -s "$D/proxy.port" ]] && break; sleep 0.05; done
  P="http://127.0.0.1:$(cat "$D/proxy.port")"
}
faults_logged() {
  local log=$1 kind n; shift
  for kind in "$@"; do
    n=$(grep -c "\"fault\":\"$kind\"" "$log" 2>/dev/null)
    [[ ${n:-0} -gt 0 ]] && echo "ok: the proxy injected $kind ($n times)" || { echo "FAIL: the proxy injected no $kind"; fail=1; }
  done
}
