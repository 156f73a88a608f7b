#!/usr/bin/env bash
# Issue 15 acceptance 2: writes on tables with data-constraining table features (CHECK
# constraints, invariants, generated and identity columns, append-only), lithify-created
# (the feature written into the log as a Spark writer records it) and the corpus's Spark
# table with an identity column (copied to a temporary directory): each write honours the
# feature (identity values generated past the high-water mark) or refuses naming it, with nothing committed and no data file left behind on
# refusal; delete and maintenance keep rows exactly.
set -u
source "$(dirname "$0")/lib.sh"
D=$(mktemp -d)
trap 'rm -rf "$D" "$OUT" "$ERR"' EXIT
CORPUS=${LITHIFY_CORPUS:-$(dirname "$0")/../../../shared/corpus}

latest() { ls "$1/_delta_log" | grep -E '^[0-9]{20}\.json$' | sort | tail -1; }
datafiles() { find "$1" -path "$1/_delta_log" -prune -o -type f -print | wc -l; }
rows() { "$LITHIFY" scan "$1" | sort; }
# unchanged TABLE LATEST_COMMIT FILES WHAT: nothing was committed and no file was left.
unchanged() {
  [[ $(latest "$1") == "$2" ]] || { echo "FAIL: $4: a version was committed ($(latest "$1"))"; fail=1; }
  [[ $(datafiles "$1") == "$3" ]] || { echo "FAIL: $4: $(datafiles "$1") files outside the log, wanted $3"; fail=1; }
}
# feature_commit TABLE VERSION PROTOCOL SCHEMA_STRING CONFIGURATION: writes commit VERSION
# changing protocol and metadata, as Spark's ADD CONSTRAINT / CREATE TABLE would record it.
feature_commit() {
  local id
  id=$(grep -o '"metaData":{"id":"[^"]*"' "$1/_delta_log/00000000000000000000.json" | sed 's/.*"id":"//; s/"$//')
  printf '%s\n%s\n%s\n' \
    '{"commitInfo":{"timestamp":1700000000000,"operation":"SET TBLPROPERTIES","operationParameters":{}}}' \
    "{\"protocol\":$3}" \
    "{\"metaData\":{\"id\":\"$id\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"$4\",\"partitionColumns\":[],\"configuration\":$5,\"createdTime\":1}}" \
    >"$1/_delta_log/$(printf '%020d' "$2").json"
}

# --- CHECK constraint (the issue's reproduction) ---------------------------------------
C=$D/constraint
run 0 "create constraint table" -- "$LITHIFY" create "$C" --schema "x long, s string"
feature_commit "$C" 1 '{"minReaderVersion":1,"minWriterVersion":3}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"s\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}' \
  '{"delta.constraints.positive":"x > 0"}'
echo '{"x":-5}' >"$D/bad.jsonl"
run 1 "append a row violating x > 0" -- "$LITHIFY" append "$C" --from "$D/bad.jsonl"
expect "$ERR" 'DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint positive \(x > 0\) violated by row 1 with values: x : -5' \
  "violation names constraint, expression and values"
unchanged "$C" 00000000000000000001.json 0 "violating append"
run 1 "append --json a violating row" -- "$LITHIFY" append "$C" --from "$D/bad.jsonl" --json
expect "$OUT" '"error":\{.*DELTA_VIOLATE_CONSTRAINT_WITH_VALUES' "JSON error object names the constraint"
# Two inputs, the second violating: the first input's file was written, then deleted.
printf '{"x":1,"s":"a"}\n{"x":2,"s":"b"}\n' >"$D/good.jsonl"
printf '{"x":3}\n{"x":0}\n' >"$D/late.jsonl"
run 1 "append two inputs, the second violating" -- "$LITHIFY" append "$C" --from "$D/good.jsonl" "$D/late.jsonl"
expect "$ERR" 'late.jsonl: .*row 2 with values: x : 0' "violation names the input and row"
unchanged "$C" 00000000000000000001.json 0 "late violation"
run 0 "append valid rows (NULL passes a CHECK constraint)" -- "$LITHIFY" append "$C" --from "$D/good.jsonl"
printf '{"x":null,"s":"n"}\n{"x":4,"s":"d"}\n' >"$D/more.jsonl"
run 0 "append a NULL and a valid row" -- "$LITHIFY" append "$C" --from "$D/more.jsonl"
before=$(rows "$C")
[[ $(echo "$before" | wc -l) == 4 ]] || { echo "FAIL: wanted 4 rows, got: $before"; fail=1; }
run 1 "alter cannot add a constraint as a property" -- "$LITHIFY" alter "$C" --set "delta.constraints.small=x < 10"
expect "$ERR" 'DELTA_ADD_CONSTRAINTS' "alter refusal names Delta's error"
run 1 "create cannot add a constraint as a property" -- "$LITHIFY" create "$D/c2" --schema "x long" --property "delta.constraints.p=x > 0"
[[ ! -e "$D/c2/_delta_log/00000000000000000000.json" ]] || { echo "FAIL: create committed a constraint"; fail=1; }
# Delete and maintenance create no values: allowed, rows exactly as expected.
run 0 "delete on the constraint table" -- "$LITHIFY" delete "$C" --where "x = 2"
after_delete=$(rows "$C")
[[ "$after_delete" == "$(echo "$before" | grep -v '"x":2,')" ]] || { echo "FAIL: delete changed other rows"; fail=1; }
run 0 "optimize on the constraint table" -- "$LITHIFY" optimize "$C"
[[ "$(rows "$C")" == "$after_delete" ]] || { echo "FAIL: optimize changed rows"; fail=1; }
run 0 "optimize --zorder-by on the constraint table" -- "$LITHIFY" optimize "$C" --zorder-by x,s
[[ "$(rows "$C")" == "$after_delete" ]] || { echo "FAIL: z-order changed rows"; fail=1; }
run 0 "checkpoint on the constraint table" -- "$LITHIFY" checkpoint "$C"
[[ "$(rows "$C")" == "$after_delete" ]] || { echo "FAIL: checkpoint changed rows"; fail=1; }
echo '{"x":-1}' >"$D/bad2.jsonl"
n=$(datafiles "$C") v=$(latest "$C")
run 1 "the constraint still holds after maintenance" -- "$LITHIFY" append "$C" --from "$D/bad2.jsonl"
unchanged "$C" "$v" "$n" "violating append after maintenance"

# --- deletion vectors + REORG PURGE on a constraint table -------------------------------
V=$D/dv
run 0 "create DV table" -- "$LITHIFY" create "$V" --schema "x long" --property delta.enableDeletionVectors=true
feature_commit "$V" 1 '{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors","checkConstraints"]}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}' \
  '{"delta.enableDeletionVectors":"true","delta.constraints.positive":"x > 0"}'
printf '{"x":1}\n{"x":2}\n{"x":3}\n' >"$D/three.jsonl"
run 0 "append to the DV constraint table" -- "$LITHIFY" append "$V" --from "$D/three.jsonl"
run 0 "DV delete" -- "$LITHIFY" delete "$V" --where "x = 2"
ls "$V"/deletion_vector_*.bin >/dev/null 2>&1 || { echo "FAIL: the delete wrote no deletion vector"; fail=1; }
want=$(printf '{"x":1}\n{"x":3}')
[[ "$(rows "$V")" == "$want" ]] || { echo "FAIL: DV delete rows: $(rows "$V")"; fail=1; }
run 0 "reorg --purge" -- "$LITHIFY" reorg "$V" --purge
[[ "$(rows "$V")" == "$want" ]] || { echo "FAIL: reorg changed rows: $(rows "$V")"; fail=1; }

# --- column invariant ------------------------------------------------------------------
I=$D/invariant
run 0 "create invariant table" -- "$LITHIFY" create "$I" --schema "x int"
feature_commit "$I" 1 '{"minReaderVersion":1,"minWriterVersion":2}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"x > 3\\\"}}\"}}]}' \
  '{}'
echo '{"x":3}' >"$D/three_only.jsonl"
run 1 "append violating an invariant" -- "$LITHIFY" append "$I" --from "$D/three_only.jsonl"
expect "$ERR" 'DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: invariant on column x \(x > 3\) violated by row 1 with values: x : 3' "invariant violation"
unchanged "$I" 00000000000000000001.json 0 "invariant violation"
echo '{"x":4}' >"$D/four.jsonl"
run 0 "append satisfying the invariant" -- "$LITHIFY" append "$I" --from "$D/four.jsonl"

# --- a constraint lithify cannot evaluate ------------------------------------------------
U=$D/unevaluable
run 0 "create table" -- "$LITHIFY" create "$U" --schema "x long"
feature_commit "$U" 1 '{"minReaderVersion":1,"minWriterVersion":3}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}' \
  '{"delta.constraints.even":"x % 2 = 0"}'
echo '{"x":2}' >"$D/two.jsonl"
run 1 "append under a constraint lithify cannot evaluate" -- "$LITHIFY" append "$U" --from "$D/two.jsonl"
expect "$ERR" 'DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature checkConstraints: CHECK constraint even \(x % 2 = 0\) cannot be evaluated' \
  "refusal names the constraint and expression"
unchanged "$U" 00000000000000000001.json 0 "unevaluable constraint"

# --- generated column --------------------------------------------------------------------
# b GENERATED ALWAYS AS (a + 1): computed where the input leaves it out, checked where it
# gives it (b <=> a + 1), a mismatch refused with nothing committed or left behind.
G=$D/generated
run 0 "create generated-column table" -- "$LITHIFY" create "$G" --schema "a long, b long"
feature_commit "$G" 1 '{"minReaderVersion":1,"minWriterVersion":4}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"b\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.generationExpression\":\"a + 1\"}}]}' \
  '{}'
printf '{"a":1,"b":2}\n{"a":41}\n' >"$D/ab.jsonl"
run 0 "append to a generated-column table" -- "$LITHIFY" append "$G" --from "$D/ab.jsonl"
[[ "$(rows "$G")" == "$(printf '{"a":1,"b":2}\n{"a":41,"b":42}')" ]] ||
  { echo "FAIL: generated column values: $(rows "$G" | tr '\n' ' ')"; fail=1; }
echo '{"a":1,"b":5}' >"$D/ab_bad.jsonl"
run 1 "append a value that is not the generation expression's" -- "$LITHIFY" append "$G" --from "$D/ab_bad.jsonl"
expect "$ERR" 'DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint Generated Column \(b <=> a \+ 1\) violated by row 1 with values: b : 5, a : 1' \
  "refusal names the generated column and the values"
unchanged "$G" 00000000000000000002.json 1 "generated column mismatch"
run 0 "append --generate to a generated-column table" -- "$LITHIFY" append "$G" --generate 10
bad=$(rows "$G" | grep -cvE '^\{"a":(null,"b":null|(-?[0-9]+),"b":-?[0-9]+)\}$')
[[ $bad == 0 ]] || { echo "FAIL: unexpected generated rows"; fail=1; }
while IFS= read -r line; do
  [[ $line =~ ^\{\"a\":(-?[0-9]+),\"b\":(-?[0-9]+)\}$ ]] || continue
  (( BASH_REMATCH[2] == BASH_REMATCH[1] + 1 )) || { echo "FAIL: generated row $line has b != a + 1"; fail=1; }
done < <(rows "$G")
[[ $(rows "$G" | wc -l) == 12 ]] || { echo "FAIL: $(rows "$G" | wc -l) rows after --generate 10, wanted 12"; fail=1; }

# A generation expression lithify does not compute (%): refused naming the column.
GU=$D/generated_unsupported
run 0 "create table" -- "$LITHIFY" create "$GU" --schema "a long, b long"
feature_commit "$GU" 1 '{"minReaderVersion":1,"minWriterVersion":4}' \
  '{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"b\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.generationExpression\":\"a % 10\"}}]}' \
  '{}'
run 1 "append under a generation expression lithify cannot compute" -- "$LITHIFY" append "$GU" --from "$D/ab.jsonl"
expect "$ERR" 'DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature generatedColumns \(column b GENERATED ALWAYS AS \(a % 10\)\)' \
  "refusal names the generated column"
unchanged "$GU" 00000000000000000001.json 0 "unsupported generated column"
run 1 "append --generate under it" -- "$LITHIFY" append "$GU" --generate 10
unchanged "$GU" 00000000000000000001.json 0 "unsupported generated column, generated rows"

# --- append-only -------------------------------------------------------------------------
A=$D/appendonly
run 0 "create append-only table" -- "$LITHIFY" create "$A" --schema "x long" --property delta.appendOnly=true
run 0 "append to the append-only table" -- "$LITHIFY" append "$A" --from "$D/three.jsonl"
run 0 "append again" -- "$LITHIFY" append "$A" --from "$D/four.jsonl"
n=$(datafiles "$A")
run 1 "delete from the append-only table" -- "$LITHIFY" delete "$A" --where "x = 1"
expect "$ERR" 'DELTA_CANNOT_MODIFY_APPEND_ONLY' "append-only refusal"
unchanged "$A" 00000000000000000002.json "$n" "append-only delete"
run 0 "optimize the append-only table" -- "$LITHIFY" optimize "$A"
[[ "$(rows "$A")" == "$(printf '{"x":1}\n{"x":2}\n{"x":3}\n{"x":4}')" ]] || { echo "FAIL: optimize changed rows"; fail=1; }

# --- the corpus's Spark table with an identity column (copied; never written in place) --
SRC=$CORPUS/delta-rs/crates/test/tests/data/checkpoint-v2-table
if [[ -d $SRC ]]; then
  S=$D/identity
  cp -r "$SRC" "$S" && chmod -R u+w "$S"
  v=$(latest "$S") n=$(datafiles "$S")
  before=$(rows "$S")
  # GENERATED ALWAYS: an explicit id is refused, nothing committed or left behind.
  echo '{"id":1,"name":"explicit"}' >"$D/explicit.jsonl"
  run 1 "append an explicit id to the Spark identity-column table" -- "$LITHIFY" append "$S" --from "$D/explicit.jsonl"
  expect "$ERR" 'DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED: .*column id' "refusal names the identity column"
  unchanged "$S" "$v" "$n" "identity append with an explicit id"
  [[ "$(rows "$S")" == "$before" ]] || { echo "FAIL: the refused append changed rows"; fail=1; }
  # Without one, lithify generates the next value after Databricks' high-water mark (44)
  # and records the new mark in the same commit.
  echo '{"name":"new"}' >"$D/name.jsonl"
  run 0 "append to the Spark identity-column table" -- "$LITHIFY" append "$S" --from "$D/name.jsonl"
  rows "$S" | grep -q '"id":45,"name":"new"' || { echo "FAIL: the appended row did not get id 45"; fail=1; }
  grep -q 'delta.identity.highWaterMark\\":45' "$S/_delta_log/$(latest "$S")" ||
    { echo "FAIL: the append's commit does not record highWaterMark 45"; fail=1; }
  before=$(rows "$S")
  run 0 "optimize the Spark identity-column table" -- "$LITHIFY" optimize "$S"
  [[ "$(rows "$S")" == "$before" ]] || { echo "FAIL: optimize changed the identity table's rows"; fail=1; }
else
  echo "FAIL: corpus table missing: $SRC"; fail=1
fi

# --- a Spark table whose protocol supports the features without using them -------------
# (delta-rs table_with_partitioning_mapping lists checkConstraints, generatedColumns,
# invariants, appendOnly: nothing is in use, so appends and deletes go through.)
SRC=$CORPUS/delta-rs/crates/test/tests/data/table_with_partitioning_mapping
if [[ -d $SRC ]]; then
  P=$D/supported
  cp -r "$SRC" "$P" && chmod -R u+w "$P"
  before=$(rows "$P")
  echo '{"newid":9,"description":"z"}' >"$D/pm.jsonl"
  run 0 "append to a table whose protocol merely supports the features" -- "$LITHIFY" append "$P" --from "$D/pm.jsonl"
  rows "$P" | grep -q '"newid":9' || { echo "FAIL: the appended row is missing"; fail=1; }
  run 0 "delete on that table" -- "$LITHIFY" delete "$P" --where "newid = 9"
  [[ "$(rows "$P")" == "$before" ]] || { echo "FAIL: delete changed other rows"; fail=1; }
else
  echo "FAIL: corpus table missing: $SRC"; fail=1
fi

exit $fail
