#!/usr/bin/env bash
# The main job: build lithify, then show the small-file problem and what to do about it.
#
#  1. a realistic streaming table: micro-batches appended every five minutes into
#     five-minute partitions (the layout many streaming jobs produce), plus deletes;
#  2. its twin with the same data, liquid-clustered instead of partitioned;
#  3. `lithify diagnose` on both: what is wrong, why, what to do;
#  4. OPTIMIZE on both, with the decision log: what happened and why;
#  5. how to open the web panel on the two tables.
# The tables are kept in build/demo/ for the panel. Takes about a minute after the build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" lithify
bin="$root/build/tools/cli/lithify"
demo="$root/build/demo"
rm -rf "$demo"
mkdir -p "$demo/batches"
step() { echo; echo "== $*"; }

"$bin" --version
step "lithify reads tables written by other engines: a Spark table from the corpus"
"$bin" describe detail "$root/../shared/corpus/delta-kernel-rs/kernel/tests/golden_data/dv-partitioned-with-checkpoint/delta" |
  grep -E "^(location|partitionColumns|numFiles|sizeInBytes|tableFeatures) "

# Three hours of a streaming job: a micro-batch every five minutes, each written by 3 tasks
# (3 files of 100 rows), as JSON Lines the append command ingests.
batches=36
tasks=3
awk -v batches="$batches" -v tasks="$tasks" -v dir="$demo/batches" 'BEGIN {
  srand(42)
  split("books home electronics groceries toys sports refund", cats, " ")
  for (b = 0; b < batches; b++) {
    hh = int(b * 5 / 60); mm = (b * 5) % 60
    for (t = 0; t < tasks; t++) {
      f = sprintf("%s/b%02d-t%d.jsonl", dir, b, t)
      for (i = 0; i < 100; i++) {
        s = b * 300 + int(rand() * 300)
        printf "{\"event_time\":\"2026-01-01T%02d:%02d:%02dZ\",\"window_start\":\"2026-01-01T%02d:%02d\",\"customer_id\":%d,\"amount\":%.2f,\"category\":\"%s\"}\n",
          int(s / 3600), int(s % 3600 / 60), s % 60, hh, mm, 1 + int(rand() * rand() * 100000), rand() * 400, cats[1 + int(rand() * 7)] > f
      }
      close(f)
    }
  }
}'
schema="event_time timestamp, window_start string, customer_id long, amount double, category string"

p="$demo/events_5min"
c="$demo/events_clustered"
step "lithify create: events partitioned by five-minute window, and a twin clustered by customer_id"
"$bin" create "$p" --schema "$schema" --partitioned-by window_start --property delta.enableDeletionVectors=true | sed -n "1,1p"
"$bin" create "$c" --schema "$schema" --cluster-by customer_id --property delta.enableDeletionVectors=true | sed -n "1,1p"

step "$batches streaming-style appends to each (one micro-batch every 5 minutes, $tasks files each)"
for b in $(seq -f "%02g" 0 $((batches - 1))); do
  "$bin" append "$p" --from "$demo"/batches/b"$b"-t*.jsonl >/dev/null
  "$bin" append "$c" --from "$demo"/batches/b"$b"-t*.jsonl >/dev/null
done
for t in "$p" "$c"; do
  echo "$(basename "$t"): $("$bin" describe detail "$t" --json |
    sed -n 's/.*"numFiles":\([0-9]*\),"sizeInBytes":\([0-9]*\).*/\1 files, \2 bytes/p')"
done
step "a DELETE on both: deletion vectors mark the rows, no file is rewritten"
"$bin" delete "$p" --where "category = 'refund'" | sed -n "1,2p"
"$bin" delete "$c" --where "category = 'refund'" | sed -n "1,2p"

step "lithify diagnose events_5min: what is wrong with this layout, and why"
"$bin" diagnose "$p"
step "lithify diagnose events_clustered"
"$bin" diagnose "$c"

step "lithify optimize --dry-run --explain events_5min: the decision for every partition and bin"
"$bin" optimize "$p" --dry-run --explain | sed -n "1,16p"
step "lithify optimize events_5min: each partition can only shrink to one file"
"$bin" optimize "$p"
step "lithify optimize events_clustered: liquid clustering merges everything into ZCubes"
"$bin" optimize "$c"

step "after OPTIMIZE: the partitioned table still has one tiny file per five minutes"
for t in "$p" "$c"; do
  echo "$(basename "$t"): $("$bin" describe detail "$t" --json |
    sed -n 's/.*"numFiles":\([0-9]*\),"sizeInBytes":\([0-9]*\).*/\1 files, \2 bytes/p')"
done
"$bin" diagnose "$p" | sed -n '/^findings:/,$p' | sed -n "1,8p"
step "rows are unchanged by maintenance (scan --count before OPTIMIZE and now)"
for t in "$p" "$c"; do
  v=$("$bin" describe detail "$t" --json | sed -n 's/.*"version":\([0-9]*\).*/\1/p')
  echo "$(basename "$t"): before $("$bin" scan "$t" --count --version $((v - 1)))  now $("$bin" scan "$t" --count)"
done

echo
echo "== Open the panel on these two tables (then browse http://127.0.0.1:8080/):"
echo "   $bin serve --table $p --table $c"
echo "More: lithify --help"
