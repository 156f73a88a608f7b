#!/usr/bin/env bash
# End to end: `lithify checkpoint` on copies of corpus tables, then the Delta log
# validator (delta_validate) and DuckDB (the independent oracle) on the result.
# Env: LITHIFY, DELTA_VALIDATE, LITHIFY_CORPUS.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
: "${LITHIFY:?}" "${DELTA_VALIDATE:?}" "${LITHIFY_CORPUS:?}"
WORK="$(mktemp -d /tmp/lithify-cli-checkpoint-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
fail=0
check() {  # check NAME CONDITION-RESULT MESSAGE
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=1; else echo "ok   $1"; fi
}
have_duckdb=0
if command -v node > /dev/null && [ -d "$HERE/../oracle/node_modules/@duckdb/node-api" ]; then
  have_duckdb=1
else
  echo "FAIL: node or the DuckDB oracle is missing (scripts/install-deps.sh)"; fail=1
fi

for rel in delta-kernel-rs/kernel/tests/data/basic_partitioned \
           delta-kernel-rs/kernel/tests/data/table-with-dv-small \
           delta-rs/crates/test/tests/data/delta-0.8.0-special-partition \
           delta-rs/crates/test/tests/data/table_with_liquid_clustering; do
  name="$(basename "$rel")"
  t="$WORK/$name"
  cp -r "$LITHIFY_CORPUS/$rel" "$t" && chmod -R u+w "$t"
  out="$("$LITHIFY" checkpoint --json "$t")"; rc=$?
  check "$name: checkpoint exits 0" $rc "exit $rc: $out"
  [ $rc -eq 0 ] || continue
  version="$(printf '%s' "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.version)})')"
  adds="$(printf '%s' "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.addFiles)})')"
  ckpt="$t/_delta_log/$(printf '%020d' "$version").checkpoint.parquet"
  [ -f "$ckpt" ]; check "$name: checkpoint file exists" $? "$ckpt missing"
  grep -q "\"version\":$version" "$t/_delta_log/_last_checkpoint"
  check "$name: _last_checkpoint names version $version" $? "$(cat "$t/_delta_log/_last_checkpoint")"
  vout="$("$DELTA_VALIDATE" "$t" 2>&1)"; check "$name: delta_validate" $? "$vout"
  # The checkpoint alone (commit files removed) still validates and loads.
  rm -f "$t"/_delta_log/*.json
  vout="$("$DELTA_VALIDATE" "$t" 2>&1)"; check "$name: delta_validate without commits" $? "$vout"
  "$LITHIFY" files "$t" > /dev/null 2>&1; check "$name: files from the checkpoint alone" $? "lithify files failed"
  if [ $have_duckdb -eq 1 ]; then
    dout="$(node "$HERE/duckdb_checkpoint.mjs" "$ckpt" 2>&1)"; rc=$?
    check "$name: DuckDB reads the checkpoint" $rc "$dout"
    dadds="$(printf '%s' "$dout" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{console.log(JSON.parse(s).adds)})' 2>/dev/null)"
    [ "$dadds" = "$adds" ]; check "$name: DuckDB counts $adds add rows" $? "DuckDB counted '$dadds'"
  fi
done

# Human output.
t="$WORK/human"
cp -r "$LITHIFY_CORPUS/delta-kernel-rs/kernel/tests/data/basic_partitioned" "$t" && chmod -R u+w "$t"
out="$("$LITHIFY" checkpoint "$t")"; rc=$?
check "human output exit 0" $rc "$out"
printf '%s' "$out" | grep -q "^version *1$"; check "human output names the version" $? "$out"
printf '%s' "$out" | grep -q "checkpoint.parquet"; check "human output names the path" $? "$out"

# Not a table: exit 1 with a clear error (JSON error object with --json).
mkdir -p "$WORK/empty"
out="$("$LITHIFY" checkpoint "$WORK/empty" 2>&1)"; rc=$?
[ $rc -eq 1 ]; check "non-table exits 1" $? "exit $rc: $out"
printf '%s' "$out" | grep -qi "delta"; check "non-table error is clear" $? "$out"
out="$("$LITHIFY" checkpoint --json "$WORK/empty" 2>&1)"; rc=$?
[ $rc -eq 1 ]; check "non-table --json exits 1" $? "exit $rc: $out"
"$LITHIFY" checkpoint > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ]; check "missing TABLE is a usage error" $? "exit $rc"

exit $fail
