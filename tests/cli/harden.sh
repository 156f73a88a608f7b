#!/usr/bin/env bash
# CLI hardening (issue 14): blank paths, URIs, unknown commands, JSON errors under --json,
# property values that would break later commands, --explain as a plan, consistent usage
# errors, empty inputs, the spill directory, short error excerpts, generated partitions.
set -u
source "$(dirname "$0")/lib.sh"
D=$(mktemp -d)
cd "$D" || exit 1   # a blank path would otherwise mean this folder

# Empty or blank paths are usage errors on every command that takes one.
run 2 'create ""' -- "$LITHIFY" create "" --schema "id long"
expect "$ERR" 'TABLE is an empty or blank path' 'create "" names the argument'
[[ ! -e _delta_log ]] || { echo 'FAIL: create "" made a table in the current folder'; fail=1; }
run 2 'create "   "' -- "$LITHIFY" create "   " --schema "id long"
[[ ! -e "   " && ! -e _delta_log ]] || { echo 'FAIL: create "   " made a table'; fail=1; }
for c in scan files checkpoint vacuum diagnose optimize "describe detail" "describe history"; do
  run 2 "$c \"\"" -- "$LITHIFY" $c ""
done
run 2 'scan "   "' -- "$LITHIFY" scan "   "
run 2 'parquet inspect ""' -- "$LITHIFY" parquet inspect ""
run 2 'parquet cat ""' -- "$LITHIFY" parquet cat ""
run 2 'serve --table ""' -- "$LITHIFY" serve --port 0 --table ""
run 2 'simulate ""' -- "$LITHIFY" simulate ""
T=$D/t
run 0 "create" -- "$LITHIFY" create "$T" --schema "id long, p int, note string" --partitioned-by p
run 2 'append --from ""' -- "$LITHIFY" append "$T" --from ""
expect "$ERR" '--from is an empty or blank path' 'append --from "" names the flag'

# URIs of schemes without a storage backend are refused as such (not as "not a Delta
# table"); file: URIs open the local file system; s3:// and the Azure schemes are served
# (tests/cli/s3.sh, tests/cli/azure.sh), and without credentials say so rather than
# treating the URI as a path.
run 0 "scan file://" -- "$LITHIFY" scan "file://$T"
for u in gs://b/t; do
  run 1 "scan $u" -- "$LITHIFY" scan "$u"
  expect "$ERR" "URIs are not supported yet: $u" "scan $u message"
done
noaz=(env -u AZURE_STORAGE_CONNECTION_STRING -u AZURE_STORAGE_ACCOUNT -u AZURE_STORAGE_KEY -u AZURE_STORAGE_ACCOUNT_KEY -u AZURE_STORAGE_SAS_TOKEN)
for u in abfs://c@a.dfs.core.windows.net/t az://c/t; do
  run 1 "scan $u without credentials" -- "${noaz[@]}" "$LITHIFY" scan "$u"
  expect "$ERR" "no Azure (credentials|storage account)" "scan $u without credentials names the settings"
  reject "$ERR" 'not supported yet' "scan $u is served"
done
run 1 "append --from gs://" -- "$LITHIFY" append "$T" --from gs://b/x.csv
expect "$ERR" 'URIs are not supported yet: gs://b/x.csv' 'append --from URI message'
noaws=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_PROFILE HOME="$D" AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_CONFIG_FILE=/nonexistent)
run 1 "scan s3:// without credentials" -- "${noaws[@]}" "$LITHIFY" scan s3://bucket/t
expect "$ERR" 's3://bucket/t.*no S3 credentials' 'scan s3:// without credentials names the URI and the settings'
reject "$ERR" 'not supported yet' 'scan s3:// is served'

# Unknown commands say so; argument errors under --json print a JSON error object.
run 2 "lithify bogus" -- "$LITHIFY" bogus
expect "$ERR" "unknown command 'bogus'" "lithify bogus message"
run 2 "lithify describe bogus" -- "$LITHIFY" describe bogus
expect "$ERR" "unknown command 'bogus' for lithify describe" "describe bogus message"
run 2 "lithify bogus --json" -- "$LITHIFY" bogus --json
expect "$OUT" '^\{"error":\{"code":"Invalid argument","message":"unknown command' "bogus --json error object"
run 2 "scan --json with an unknown flag" -- "$LITHIFY" scan --json --nope "$T"
expect "$OUT" '^\{"error":\{"code":"Invalid argument","message":".*--nope' "CLI11 parse error as JSON"
run 2 "create --json without --schema" -- "$LITHIFY" create "$D/x" --json
expect "$OUT" '"error"' "missing required flag as JSON"
run 2 'scan "" --json' -- "$LITHIFY" scan "" --json
expect "$OUT" '"error"' "blank path as JSON"

# Table properties are validated with the parsers that read them.
run 1 "alter: a retention that overflows" -- "$LITHIFY" alter "$T" \
  --set "delta.deletedFileRetentionDuration=interval 1000000000000 days"
expect "$ERR" "DELTA_INVALID_INTERVAL: property 'delta.deletedFileRetentionDuration': interval 'interval 1000000000000 days' is out of range" \
  "overflowing retention refused naming property and value"
run 0 "vacuum still works" -- "$LITHIFY" vacuum "$T" --dry-run
run 0 "checkpoint still works" -- "$LITHIFY" checkpoint "$T"
run 0 "diagnose still works" -- "$LITHIFY" diagnose "$T"
run 1 "create: a retention that overflows" -- "$LITHIFY" create "$D/r" --schema "id long" \
  --property "delta.logRetentionDuration=interval 9999999999999 hours"
[[ ! -e "$D/r/_delta_log" ]] || { echo "FAIL: create committed a bad retention"; fail=1; }
run 1 "alter: a target size over 2^63" -- "$LITHIFY" alter "$T" --set "delta.targetFileSize=99999999999 pb"
run 0 "optimize still plans" -- "$LITHIFY" optimize "$T" --dry-run
run 1 "alter: checkpointInterval beyond Delta's int" -- "$LITHIFY" alter "$T" --set delta.checkpointInterval=99999999999
run 1 "alter: dataSkippingNumIndexedCols beyond the stats writer" -- "$LITHIFY" alter "$T" \
  --set delta.dataSkippingNumIndexedCols=2000000000
run 1 "alter: stats columns naming a partition column" -- "$LITHIFY" alter "$T" --set delta.dataSkippingStatsColumns=p
run 0 "append still works" -- "$LITHIFY" append "$T" --generate 100 --seed 2 --no-auto-compact
run 0 "alter: a fractional target size the reader accepts" -- "$LITHIFY" alter "$T" --set delta.targetFileSize=1.5gb
run 1 "alter: unknown delta. key" -- "$LITHIFY" alter "$T" --set delta.bogusKey=1
expect "$ERR" "DELTA_UNKNOWN_CONFIGURATION" "unknown key error class"

# Generated partition values come from a small domain; --files N gives N files.
parts=$(ls -d "$T"/p=* | wc -l)
(( parts >= 2 && parts <= 8 )) || { echo "FAIL: --generate on an int partition made $parts partitions"; fail=1; }
U=$D/u
run 0 "create unpartitioned" -- "$LITHIFY" create "$U" --schema "id long, note string"
run 0 "append --generate 5 --files 4" -- "$LITHIFY" append "$U" --generate 5 --files 4 --json --no-auto-compact
expect "$OUT" '"numFiles":4,' "--files 4 writes 4 files"
run 0 "append --generate 10 --files 3" -- "$LITHIFY" append "$U" --generate 10 --files 3 --json --no-auto-compact
expect "$OUT" '"numFiles":3,' "--files 3 writes 3 files"

# optimize --explain is a plan: nothing is written.
run 0 "optimize --explain" -- "$LITHIFY" optimize "$U" --explain --json
expect "$OUT" '"dryRun":true' "--explain implies --dry-run"
run 0 "describe history after --explain" -- "$LITHIFY" describe history "$U" --json
reject "$OUT" '"operation":"OPTIMIZE"' "--explain committed an OPTIMIZE"
run 0 "optimize --help" -- "$LITHIFY" optimize --help
expect "$OUT" 'implies --dry-run' "--help says --explain implies --dry-run"

# Unknown --columns and unknown --where columns are both usage errors.
run 2 "scan --columns unknown" -- "$LITHIFY" scan "$U" --columns nope
expect "$ERR" "--columns: .*column 'nope' is not in the table schema" "--columns message"
run 2 "scan --where unknown column" -- "$LITHIFY" scan "$U" --where "nope = 1"
run 2 'scan --where ""' -- "$LITHIFY" scan "$U" --where ""
run 2 'files --where "  "' -- "$LITHIFY" files "$U" --where "  "
run 2 'optimize --where ""' -- "$LITHIFY" optimize "$U" --where ""
run 2 'delete --where "  "' -- "$LITHIFY" delete "$U" --where "  "

# Time travel errors show timestamps, not epoch milliseconds.
run 1 "scan --timestamp before the first commit" -- "$LITHIFY" scan "$U" --timestamp "2000-01-01"
expect "$ERR" "timestamp 2000-01-01T00:00:00.000Z is before the earliest commit \(version 0 at 20[0-9-]+T" "ISO timestamps"
reject "$ERR" "946684800000" "epoch milliseconds"
run 1 "scan --timestamp after the last commit" -- "$LITHIFY" scan "$U" --timestamp "2999-01-01"
expect "$ERR" "timestamp 2999-01-01T00:00:00.000Z is after the latest commit \(version [0-9]+ at 20" "ISO after"

# Empty inputs are refused naming the file, like an empty CSV; no version is committed.
: >"$D/empty.jsonl"; printf '\n  \n' >"$D/blank.jsonl"; printf 'id,note\n' >"$D/header.csv"; : >"$D/none.csv"
v_before=$("$LITHIFY" describe detail "$U" --json | grep -o '"version":[0-9]*')
for f in empty.jsonl blank.jsonl header.csv none.csv; do
  run 1 "append $f" -- "$LITHIFY" append "$U" --from "$D/$f"
  expect "$ERR" "$D/$f: " "append $f names the file"
done
v_after=$("$LITHIFY" describe detail "$U" --json | grep -o '"version":[0-9]*')
[[ "$v_before" == "$v_after" ]] || { echo "FAIL: an empty input committed ($v_before -> $v_after)"; fail=1; }

# A missing --spill-dir is refused, and not created.
run 1 "optimize --spill-dir missing" -- "$LITHIFY" optimize "$U" --zorder-by id --spill-dir "$D/no/such/dir"
expect "$ERR" "$D/no/such/dir" "spill dir named"
[[ ! -e "$D/no" ]] || { echo "FAIL: --spill-dir was created"; fail=1; }

# Errors echo a short excerpt of long input.
long=$(head -c 60000 /dev/zero | tr '\0' 'x')
run 2 "simulate a 60 KB value" -- "$LITHIFY" simulate --days "$long"
expect "$ERR" '\(600[0-9]{2} bytes\)' "excerpt says how long the value was"
(( $(wc -c <"$ERR") < 2000 )) || { echo "FAIL: simulate echoed $(wc -c <"$ERR") bytes"; fail=1; }
printf '{"%s": 1}' "$long" >"$D/long-key.json"
run 2 "simulate a 60 KB key" -- "$LITHIFY" simulate "$D/long-key.json"
(( $(wc -c <"$ERR") < 4000 )) || { echo "FAIL: simulate echoed a long key ($(wc -c <"$ERR") bytes)"; fail=1; }

# parquet rewrite --row-group-size splits a row group larger than the target.
G=$D/g
run 0 "create for rewrite" -- "$LITHIFY" create "$G" --schema "id long, note string"
run 0 "one file, one row group" -- "$LITHIFY" append "$G" --generate 20000 --no-auto-compact
IN=$(ls "$G"/*.parquet | head -1)
run 0 "parquet rewrite at the default size" -- "$LITHIFY" parquet rewrite "$D/whole.parquet" "$IN" --json
expect "$OUT" '"row_groups":1[,}]' "the input is one row group"
run 0 "parquet rewrite --row-group-size 64kb" -- "$LITHIFY" parquet rewrite "$D/split.parquet" "$IN" \
  --row-group-size 64kb --json
rgs=$(grep -o '"row_groups":[0-9]*' "$OUT" | cut -d: -f2)
(( rgs >= 2 )) || { echo "FAIL: --row-group-size 64kb wrote $rgs row group(s)"; fail=1; }
"$LITHIFY" parquet cat "$IN" >"$D/in.jsonl" && "$LITHIFY" parquet cat "$D/split.parquet" >"$D/split.jsonl"
cmp -s "$D/in.jsonl" "$D/split.jsonl" || { echo "FAIL: the split rewrite changed the rows"; fail=1; }

# scan --where parses the statistics of only the files the partition values keep: a file
# whose stats text is malformed is pruned by a partition predicate without being parsed,
# and reading its partition names it.
P=$D/p
run 0 "create partitioned" -- "$LITHIFY" create "$P" --schema "id long, day string" --partitioned-by day
printf '{"id":1,"day":"a"}\n{"id":2,"day":"b"}\n' >"$D/p.jsonl"
run 0 "append two partitions" -- "$LITHIFY" append "$P" --from "$D/p.jsonl" --no-auto-compact
commit=$(ls "$P"/_delta_log/*.json | tail -1)
python3 - "$commit" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines()
out = []
for line in lines:
    a = json.loads(line)
    if "add" in a and a["add"]["partitionValues"].get("day") == "b":
        a["add"]["stats"] = '{"numRecords":'  # malformed
    out.append(json.dumps(a))
open(path, "w").write("\n".join(out) + "\n")
PY
run 0 "scan a partition beside malformed stats" -- "$LITHIFY" scan "$P" --where "day = 'a' AND id > 0"
expect "$OUT" '"id":1' "the kept partition's row"
run 1 "scan the partition with malformed stats" -- "$LITHIFY" scan "$P" --where "day = 'b' AND id > 0"
expect "$ERR" "day=b.*stats|stats.*day=b" "the error names the file and its stats"

cd / && rm -rf "$D" "$OUT" "$ERR"
exit $fail
