#!/usr/bin/env bash
# The main job: build lithify, then show it at work on real data written by other engines
# (from ../shared/corpus): Parquet files from Impala, parquet-mr and Arrow; Delta tables from
# Spark and delta-rs, with checkpoints, deletion vectors and partitions.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" lithify
bin="$root/build/tools/cli/lithify"
corpus="$root/../shared/corpus"
pq="$corpus/parquet-testing/data"
golden="$corpus/delta-kernel-rs/kernel/tests/golden_data"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
step() { echo; echo "== $*"; }

"$bin" --version
step "lithify parquet inspect alltypes_plain.parquet   (written by Impala; INT96 timestamps)"
"$bin" parquet inspect "$pq/alltypes_plain.parquet" | head -40
step "lithify parquet cat --limit 3 alltypes_plain.parquet"
"$bin" parquet cat --limit 3 "$pq/alltypes_plain.parquet"
step "lithify parquet cat --limit 2 nested_lists.snappy.parquet   (nested lists, snappy)"
"$bin" parquet cat --limit 2 "$pq/nested_lists.snappy.parquet"
step "lithify parquet rewrite: compact 3 files written by DuckDB/pyarrow into one (zstd)"
dd="$corpus/duckdb/data/parquet-testing/compression/generated"
"$bin" parquet rewrite "$out/compacted.parquet" \
  "$dd/data_page=1_SNAPPY.parquet" "$dd/data_page=1_GZIP.parquet" "$dd/data_page=2_ZSTD.parquet"
step "a corrupt file gives a clear error, never a crash (exit code 1)"
"$bin" parquet cat "$pq/datapage_v1-corrupt-checksum.parquet" >/dev/null || echo "(exit code $?)"

tbl="$golden/dv-partitioned-with-checkpoint/delta"
step "lithify describe detail   (Spark table with deletion vectors, partitions, checkpoint)"
"$bin" describe detail "$tbl"
step "lithify describe history --limit 3"
"$bin" describe history "$tbl" --limit 3
step "lithify files --where   (which files a predicate skips, and why)"
"$bin" files "$golden/data-skipping-partition-and-data-column/delta" --where "part = 1 AND id > 5" | tail -8
step "lithify scan --count, and the first rows"
"$bin" scan "$tbl" --count
"$bin" scan "$tbl" --limit 3

# The small-file problem, and what lithify does about it.
t="$out/events"
step "lithify create: a table partitioned by day, with deletion vectors"
"$bin" create "$t" --schema "event_time timestamp, event_date date, customer_id long, amount decimal(12,2), category string, country string, note string" \
  --partitioned-by event_date --property delta.enableDeletionVectors=true
step "12 streaming-style appends of 2,000 rows over 3 days, 8 files each (small files)"
for i in $(seq 1 12); do
  "$bin" append "$t" --generate 2000 --seed "$i" --files 8 --span 3d >/dev/null
done
"$bin" describe detail "$t" | grep -E "numFiles|sizeInBytes"
step "lithify delete --where: deletion vectors, no rewrite"
"$bin" delete "$t" --where "category = 'refund' OR amount < 1"
step "lithify optimize --dry-run --explain: what OPTIMIZE would do, file by file"
"$bin" optimize "$t" --dry-run --explain | head -25
step "lithify optimize: bins rewritten, deletion vectors applied, one commit"
"$bin" optimize "$t"
step "a second OPTIMIZE has nothing to do, and says why"
"$bin" optimize "$t"
step "lithify describe history --limit 4"
"$bin" describe history "$t" --limit 4
step "lithify vacuum --dry-run: the replaced files are protected until the retention expires"
"$bin" vacuum "$t" --dry-run | head -12
step "rows are unchanged by maintenance: scan --count at the version before OPTIMIZE and now"
v=$("$bin" describe detail "$t" --json | sed -n 's/.*"version":\([0-9]*\).*/\1/p')
echo "before: $("$bin" scan "$t" --count --version $((v - 1)))   now: $("$bin" scan "$t" --count)"
echo
echo "More: lithify --help"
