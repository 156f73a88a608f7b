#!/usr/bin/env bash
# The read-side commands on Iceberg tables from the command line (issue 17): the format is
# detected from what the location holds, flags of the other format are usage errors, a
# folder that is neither format says so, and scan / files / describe / diagnose answer on
# corpus tables (read in place under $LITHIFY_CORPUS) with Iceberg's field names.
set -u
source "$(dirname "$0")/lib.sh"
C=${LITHIFY_CORPUS:?LITHIFY_CORPUS must name the corpus}
EQ=$C/duckdb-iceberg/data/persistent/equality_deletes/warehouse/mydb/mytable
MAP=(--location-map "data/persistent/=$C/duckdb-iceberg/data/persistent/")
HIVE=$C/duckdb-iceberg/data/persistent/hive_partitioned_table
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR"' EXIT  # replaces lib.sh's trap

# Neither format: one error that says what was looked for.
mkdir -p "$D/plain" && echo x > "$D/plain/notes.txt"
for c in scan files diagnose "describe detail" "describe history"; do
  run 1 "$c on a plain folder" -- "$LITHIFY" $c "$D/plain"
  expect "$ERR" 'neither a Delta table .* nor an Iceberg table' "$c names both formats"
done

# Maintenance goes through the format seam (formats/open_table.h): an Iceberg table is
# refused naming the format, not reported as a folder without a Delta log, and the
# corpus table is untouched (its listing before and after is the same).
before=$(find "$EQ" -type f | sort | xargs -d '\n' md5sum; find "$EQ" -type d | sort)
for c in optimize "optimize --dry-run" "reorg --purge"; do
  run 1 "$c on an Iceberg table" -- "$LITHIFY" $c "$EQ"
  expect "$ERR" 'of Apache Iceberg tables is not implemented yet' "$c names the format"
  reject "$ERR" '_delta_log' "$c does not speak of a Delta log"
done
# VACUUM is Delta's: an Iceberg table is refused by name (expiry and orphan removal are
# Iceberg's counterparts), nothing listed for deletion, nothing deleted.
for c in vacuum "vacuum --dry-run" "vacuum --retain 0 --disable-retention-check"; do
  run 1 "$c on an Iceberg table" -- "$LITHIFY" $c "$EQ"
  expect "$ERR" "VACUUM is Delta's; Apache Iceberg tables are cleaned by snapshot expiry" "$c names the format"
  expect "$ERR" 'Nothing was deleted' "$c says nothing was deleted"
done
after=$(find "$EQ" -type f | sort | xargs -d '\n' md5sum; find "$EQ" -type d | sort)
[[ $before == "$after" ]] && echo "ok: the Iceberg table is unchanged" || { echo "FAIL: the Iceberg table changed"; fail=1; }

# Equality deletes applied through sequence numbers: 2 live rows of 6 inserted.
run 0 'scan an Iceberg table' -- "$LITHIFY" scan "$EQ" "${MAP[@]}"
[[ $(wc -l < "$OUT") == 2 ]] || { echo "FAIL: scan returned $(wc -l < "$OUT") rows, wanted 2"; fail=1; }
expect "$OUT" '"id":4' 'row 4 is live'
run 0 'scan --count --json' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --count --json
expect "$OUT" '^\{"count":2\}$' 'count of live rows'
run 0 'scan --columns' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --columns name
expect "$OUT" '^\{"name":"d"\}$' 'projection renders only the column'
run 0 'scan --where' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --where "id = 5"
[[ $(wc -l < "$OUT") == 1 ]] || { echo "FAIL: --where id = 5 returned $(wc -l < "$OUT") rows"; fail=1; }
run 2 'scan --where on an unknown column' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --where "nope = 1"
run 2 'scan --columns unknown' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --columns nope
run 0 'scan --limit 1' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --limit 1
[[ $(wc -l < "$OUT") == 1 ]] || { echo "FAIL: --limit 1 returned $(wc -l < "$OUT") rows"; fail=1; }

# Time travel: the first snapshot held 4 rows; a ref; flags of the other format.
run 0 'describe history --json' -- "$LITHIFY" describe history "$EQ" "${MAP[@]}" --json
expect "$OUT" '"snapshot-id":' 'history has snapshot ids'
expect "$OUT" '"operation":"append"' 'history has operations'
first=$(grep -o '"snapshot-id":[0-9]*,"parent-snapshot-id":null' "$OUT" | head -1 | grep -o '[0-9]*' | head -1)
run 0 'scan --snapshot-id of the first snapshot' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --snapshot-id "$first"
[[ $(wc -l < "$OUT") == 4 ]] || { echo "FAIL: first snapshot has $(wc -l < "$OUT") rows, wanted 4"; fail=1; }
run 0 'scan --ref main' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --ref main --count
expect "$OUT" '^2$' 'main is the current snapshot'
run 1 'scan --snapshot-id unknown' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --snapshot-id 42
expect "$ERR" '42' 'the unknown snapshot is named'
run 2 '--version on an Iceberg table' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --version 1
expect "$ERR" 'use --snapshot-id' 'says which flag fits'
run 2 '--snapshot-id with --ref' -- "$LITHIFY" scan "$EQ" "${MAP[@]}" --snapshot-id "$first" --ref main
mkdir -p "$D/delta" && "$LITHIFY" create "$D/delta" --schema "id long" >/dev/null
run 2 '--snapshot-id on a Delta table' -- "$LITHIFY" scan "$D/delta" --snapshot-id 1
expect "$ERR" 'use --version' 'says which flag fits'
run 2 '--location-map on a Delta table' -- "$LITHIFY" files "$D/delta" --location-map a=b
run 2 'a malformed --location-map' -- "$LITHIFY" scan "$EQ" --location-map nothing

# files and describe in Iceberg's words.
run 0 'files --json' -- "$LITHIFY" files "$EQ" "${MAP[@]}" --json
expect "$OUT" '"file_path":' 'files uses Iceberg field names'
expect "$OUT" '"content":"equality_deletes"' 'files lists the delete files that apply'
run 0 'files (text)' -- "$LITHIFY" files "$EQ" "${MAP[@]}"
expect "$OUT" 'delete files' 'text summary'
run 0 'describe detail --json' -- "$LITHIFY" describe detail "$EQ" "${MAP[@]}" --json
expect "$OUT" '"format":"iceberg","format-version":2' 'detail names the format and version'
expect "$OUT" '"current-snapshot-id":[0-9]' 'detail has the current snapshot'
expect "$OUT" '"partition-specs":\[' 'detail has the partition specs'
run 0 'describe detail of a metadata file named directly' -- \
  "$LITHIFY" describe detail "$EQ/metadata/v7.metadata.json" "${MAP[@]}" --json
expect "$OUT" '"located-by":"named directly"' 'the metadata file named directly is used'

# Partition skipping explained: the evolved spec of hive_partitioned_table.
run 0 'files --where on a partition column' -- "$LITHIFY" files "$HIVE" "${MAP[@]}" --where "event_type = 'click'" --json
expect "$OUT" '"verdict":"skipped-stats"' 'some files are skipped'
expect "$OUT" '"verdict":"kept"' 'some files are kept'

# diagnose: delete files and snapshots awaiting expiry (the corpus snapshots are old).
run 0 'diagnose --json' -- "$LITHIFY" diagnose "$EQ" "${MAP[@]}" --json
expect "$OUT" '"code":"iceberg_delete_files"' 'delete files are a finding'
expect "$OUT" '"code":"iceberg_snapshots_awaiting_expiry"' 'old snapshots are a finding'
expect "$OUT" '"deleteFiles":4' 'four equality delete files apply'
run 0 'diagnose (text)' -- "$LITHIFY" diagnose "$EQ" "${MAP[@]}"
expect "$OUT" 'Iceberg v2' 'text names the format'
run 2 'diagnose --autotune on Iceberg' -- "$LITHIFY" diagnose "$EQ" "${MAP[@]}" --autotune

exit $fail
