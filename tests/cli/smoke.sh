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
check 0 "optimize" -- "$LITHIFY" optimize "$T" --json
grep -q '"numFilesAdded"' /tmp/lithify_smoke.out || { echo "FAIL: optimize metrics"; fail=1; }
check 2 "reorg without --purge" -- "$LITHIFY" reorg "$T"
check 0 "checkpoint" -- "$LITHIFY" checkpoint "$T"
check 2 "vacuum negative retention" -- "$LITHIFY" vacuum "$T" --retain -1
check 1 "vacuum below the table's retention" -- "$LITHIFY" vacuum "$T" --retain 1
check 0 "vacuum --dry-run" -- "$LITHIFY" vacuum "$T" --dry-run --json
check 0 "scan --count after maintenance" -- "$LITHIFY" scan "$T" --count
rm -rf "$(dirname "$T")"
exit $fail
