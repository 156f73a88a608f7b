#!/usr/bin/env bash
# CLI contract: --help and --version exit 0, usage errors exit 2, failures exit 1.
set -u
fail=0
check() {  # check EXPECTED_RC DESCRIPTION -- CMD...
  local want=$1 what=$2; shift 3
  "$@" >/tmp/lithify_smoke.out 2>/tmp/lithify_smoke.err
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAIL: $what: exit $rc, wanted $want"; cat /tmp/lithify_smoke.err; fail=1
  else
    echo "ok: $what"
  fi
}
check 0 "--help" -- "$LITHIFY" --help
check 0 "--version" -- "$LITHIFY" --version
grep -q "lithify 0" /tmp/lithify_smoke.out || { echo "FAIL: version text"; fail=1; }
check 2 "no command" -- "$LITHIFY"
check 2 "unknown command" -- "$LITHIFY" frobnicate
check 2 "unknown flag" -- "$LITHIFY" parquet inspect --no-such-flag x
check 1 "missing file" -- "$LITHIFY" parquet inspect /nonexistent/file.parquet
grep -q "/nonexistent/file.parquet" /tmp/lithify_smoke.err || { echo "FAIL: error names the file"; fail=1; }
check 1 "missing file --json" -- "$LITHIFY" parquet inspect /nonexistent/file.parquet --json
grep -q '"error"' /tmp/lithify_smoke.out || { echo "FAIL: --json error object"; fail=1; }

# Write side and maintenance: a small end-to-end flow and the usage errors.
T=$(mktemp -d)/t
for c in create alter append delete checkpoint optimize reorg vacuum; do
  check 0 "$c --help" -- "$LITHIFY" $c --help
done
check 2 "create without --schema" -- "$LITHIFY" create "$T"
check 2 "bad schema DDL" -- "$LITHIFY" create "$T" --schema "id lung"
check 0 "create" -- "$LITHIFY" create "$T" --schema "id long, day date, note string" --partitioned-by day \
  --property delta.enableDeletionVectors=true
check 1 "create over an existing table" -- "$LITHIFY" create "$T" --schema "id long"
check 0 "append --generate" -- "$LITHIFY" append "$T" --generate 500 --seed 3 --files 4
check 0 "append --generate again" -- "$LITHIFY" append "$T" --generate 500 --seed 4 --files 4
check 2 "delete without --where or --all" -- "$LITHIFY" delete "$T"
check 0 "delete" -- "$LITHIFY" delete "$T" --where "id < 10"
check 2 "optimize --where on a data column" -- "$LITHIFY" optimize "$T" --where "id = 1"
check 0 "optimize --dry-run --json" -- "$LITHIFY" optimize "$T" --dry-run --json
# The document is streamed (file lists written item by item): it must still be one valid
# JSON document listing every file of the table in the decision log and each planned
# file in its bin.
node -e '
  const d = JSON.parse(require("fs").readFileSync("/tmp/lithify_smoke.out", "utf8"));
  const planned = d.plan.bins.reduce((n, b) => n + b.files.length, 0);
  const inLog = d.decisionLog.files.filter(f => f.path).length;
  if (inLog !== 8 || planned < 2 || planned > 8 || !d.plan.bins.every(b => b.files.every(f => f.path && f.size > 0))) {
    console.error(`planned ${planned}, in log ${inLog}`); process.exit(1);
  }' || { echo "FAIL: optimize --dry-run --json document"; fail=1; }
check 0 "optimize" -- "$LITHIFY" optimize "$T" --json
grep -q '"numFilesAdded"' /tmp/lithify_smoke.out || { echo "FAIL: optimize metrics"; fail=1; }
check 2 "reorg without --purge" -- "$LITHIFY" reorg "$T"
check 0 "checkpoint" -- "$LITHIFY" checkpoint "$T"
check 2 "vacuum negative retention" -- "$LITHIFY" vacuum "$T" --retain -1
check 1 "vacuum below the table's retention" -- "$LITHIFY" vacuum "$T" --retain 1
check 0 "vacuum --dry-run" -- "$LITHIFY" vacuum "$T" --dry-run --json
check 0 "scan --count after maintenance" -- "$LITHIFY" scan "$T" --count

# Auto compaction, optimized writes, OPTIMIZE --batch-size.
A=$(dirname "$T")/ac
check 0 "create with auto compaction" -- "$LITHIFY" create "$A" --schema "id long, note string" \
  --property delta.autoOptimize.autoCompact=true
check 0 "append --no-auto-compact" -- "$LITHIFY" append "$A" --generate 500 --files 50 --no-auto-compact --json
grep -q '"autoCompaction":null' /tmp/lithify_smoke.out || { echo "FAIL: --no-auto-compact ran it"; fail=1; }
check 0 "append triggers auto compaction" -- "$LITHIFY" append "$A" --generate 10 --json
grep -q '"numFilesRemoved":51' /tmp/lithify_smoke.out || { echo "FAIL: auto compaction of 51 files"; fail=1; }
check 0 "delete with auto compaction" -- "$LITHIFY" delete "$A" --where "id = 3"
grep -q "^auto compaction: nothing to do" /tmp/lithify_smoke.out || { echo "FAIL: delete auto compaction line"; fail=1; }
printf '{"id":1,"note":"a"}\n' >"$A.1.jsonl"; printf '{"id":2,"note":"b"}\n' >"$A.2.jsonl"
printf '{"id":3,"note":"c"}\n' >"$A.3.jsonl"
check 0 "append 3 inputs" -- "$LITHIFY" append "$A" --from "$A.1.jsonl" "$A.2.jsonl" "$A.3.jsonl" --no-auto-compact --json
grep -q '"numFiles":3' /tmp/lithify_smoke.out || { echo "FAIL: one file per input"; fail=1; }
check 0 "append --optimize-write" -- "$LITHIFY" append "$A" --from "$A.1.jsonl" "$A.2.jsonl" "$A.3.jsonl" \
  --optimize-write --no-auto-compact --json
grep -q '"numFiles":1,' /tmp/lithify_smoke.out || { echo "FAIL: --optimize-write bins the inputs"; fail=1; }
B=$(dirname "$T")/batches
check 0 "create partitioned" -- "$LITHIFY" create "$B" --schema "id long, p int" --partitioned-by p
printf '{"id":1,"p":1}\n{"id":2,"p":2}\n' >"$B.jsonl"
check 0 "append 2 inputs to 2 partitions" -- "$LITHIFY" append "$B" --from "$B.jsonl" "$B.jsonl"
check 2 "optimize --batch-size 0" -- "$LITHIFY" optimize "$B" --batch-size 0
check 2 "optimize --batch-size junk" -- "$LITHIFY" optimize "$B" --batch-size lots
check 0 "optimize --batch-size" -- "$LITHIFY" optimize "$B" --batch-size 1 --json
grep -q '"numBatches":2,' /tmp/lithify_smoke.out || { echo "FAIL: --batch-size gives several commits"; fail=1; }
# Clustering: OPTIMIZE --zorder-by, liquid OPTIMIZE, Delta's error classes, lookup cost.
Z=$(dirname "$T")/zorder
check 0 "create for zorder" -- "$LITHIFY" create "$Z" --schema "customer_id long, amount double, note string"
check 0 "append for zorder" -- "$LITHIFY" append "$Z" --generate 2000 --files 4 --no-auto-compact
check 1 "optimize --zorder-by unknown column" -- "$LITHIFY" optimize "$Z" --zorder-by nope
grep -q "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST" /tmp/lithify_smoke.err || { echo "FAIL: zorder error class"; fail=1; }
check 1 "optimize --full on an unclustered table" -- "$LITHIFY" optimize "$Z" --full
check 2 "optimize --memory-budget junk" -- "$LITHIFY" optimize "$Z" --zorder-by customer_id --memory-budget lots
check 0 "optimize --zorder-by" -- "$LITHIFY" optimize "$Z" --zorder-by customer_id --json
grep -q '"zOrderBy":\["customer_id"\]\|"zOrderStats":{"strategyName":"all"' /tmp/lithify_smoke.out ||
  { echo "FAIL: zOrderStats"; fail=1; }
check 0 "files lookup cost" -- "$LITHIFY" files "$Z" --where "customer_id = 42"
grep -q "^lookup cost: opens [0-9]* of [0-9]* files" /tmp/lithify_smoke.out || { echo "FAIL: lookup cost line"; fail=1; }
L=$(dirname "$T")/liquid
check 0 "create clustered" -- "$LITHIFY" create "$L" --schema "customer_id long, amount double" --cluster-by customer_id
check 0 "append to clustered" -- "$LITHIFY" append "$L" --generate 1000 --files 3 --no-auto-compact
check 1 "liquid optimize --where" -- "$LITHIFY" optimize "$L" --where "customer_id = 1"
grep -q "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE" /tmp/lithify_smoke.err || { echo "FAIL: liquid --where class"; fail=1; }
check 1 "liquid optimize --zorder-by" -- "$LITHIFY" optimize "$L" --zorder-by amount
check 0 "liquid optimize" -- "$LITHIFY" optimize "$L" --json
grep -q '"clusteringStats":{"inputZCubeFiles"' /tmp/lithify_smoke.out || { echo "FAIL: clusteringStats"; fail=1; }
check 0 "liquid optimize again is a no-op" -- "$LITHIFY" optimize "$L"
grep -q "^nothing to do" /tmp/lithify_smoke.out || { echo "FAIL: second liquid optimize rewrote"; fail=1; }
# diagnose: one file per daily partition is named as the first finding.
D=$(dirname "$T")/diag
check 0 "diagnose --help" -- "$LITHIFY" diagnose --help
check 0 "create daily partitions" -- "$LITHIFY" create "$D" --schema "event_time timestamp, event_date date, id long" \
  --partitioned-by event_date
check 0 "append one file per day" -- "$LITHIFY" append "$D" --generate 300 --span 10d
check 0 "diagnose" -- "$LITHIFY" diagnose "$D"
grep -q '^1\. \[critical\] .*(partitions_never_compact)$' /tmp/lithify_smoke.out || { echo "FAIL: diagnose first finding"; fail=1; }
check 0 "diagnose --json" -- "$LITHIFY" diagnose "$D" --json
grep -q '"findings":\[{"code":"partitions_never_compact"' /tmp/lithify_smoke.out || { echo "FAIL: diagnose --json"; fail=1; }
check 1 "diagnose a directory that is not a table" -- "$LITHIFY" diagnose "$(dirname "$T")"
check 2 "diagnose --target-file-size junk" -- "$LITHIFY" diagnose "$D" --target-file-size lots
# simulate: the issue's micro-batch figures, flags for every key, key errors.
S=$(cd "$(dirname "$0")/../../docs/scenarios" && pwd)
check 0 "simulate --help" -- "$LITHIFY" simulate --help
grep -q -- "--batches-per-hour" /tmp/lithify_smoke.out || { echo "FAIL: simulate --help lists the keys"; fail=1; }
check 0 "simulate a scenario file --json" -- "$LITHIFY" simulate "$S/hourly-micro-batches.json" --json
for want in '"files_before":11520,' '"files_after":48,' '"scan_tasks_before":454,' '"scan_tasks_after":96,'; do
  grep -q "$want" /tmp/lithify_smoke.out || { echo "FAIL: simulate totals $want"; fail=1; }
done
check 0 "simulate with flags only" -- "$LITHIFY" simulate --days 1 --partition-by 5min --batches-per-hour 12 \
  --maintenance optimize
grep -q "bins 0 kept, 288 dropped; numFilesAdded 0" /tmp/lithify_smoke.out || { echo "FAIL: simulate 5min text"; fail=1; }
check 2 "simulate out-of-range key" -- "$LITHIFY" simulate --days 0
grep -q "'days': must be an integer in \[1, 3650\]" /tmp/lithify_smoke.err || { echo "FAIL: simulate names the key"; fail=1; }
printf '{"dayz": 3}' >"$(dirname "$T")/bad-scenario.json"
check 2 "simulate unknown key in a file" -- "$LITHIFY" simulate "$(dirname "$T")/bad-scenario.json" --json
grep -q "unknown scenario key 'dayz'" /tmp/lithify_smoke.out || { echo "FAIL: simulate --json error"; fail=1; }
check 1 "simulate a missing file" -- "$LITHIFY" simulate /nonexistent/scenario.json
rm -rf "$(dirname "$T")"
exit $fail
