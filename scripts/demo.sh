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
echo
echo "More: lithify --help"
