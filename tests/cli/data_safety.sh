#!/usr/bin/env bash
# Issue 14's data-safety defects, end to end through the built `lithify`:
#  1  create refuses a non-empty folder; VACUUM refuses to empty a folder's own files
#  6  VACUUM removes temporaries of killed writers (and --dry-run shows them)
#  7  a committed write whose output fails exits 3 and says what was committed
#  8  append checks every input before writing, and leaves no data file on failure
#  14 diagnose does not report files VACUUM already deleted
# Every check here failed before its fix.
set -u
fail=0
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
out=$W/out err=$W/err
run() {  # run EXPECTED_RC DESCRIPTION -- CMD...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAIL: $what: exit $rc, wanted $want"; cat "$err"; fail=1
  else
    echo "ok: $what"
  fi
}
expect() {  # expect FILE PATTERN DESCRIPTION
  grep -q -- "$2" "$1" || { echo "FAIL: $3 (no '$2' in $(basename "$1"))"; cat "$1"; fail=1; }
}
# Sets a file's modification time 30 days into the past.
age() { touch -d "@$(( $(date +%s) - 30 * 86400 ))" "$@"; }
data_files() { find "$1" -path "$1/_delta_log" -prune -o -type f -print | sort; }

# ---- 1: a folder holding files never becomes a table ----
H=$W/home
mkdir -p "$H/Documents" && echo "chapter 1" >"$H/Documents/thesis.docx"
run 1 "create over a non-empty folder" -- "$LITHIFY" create "$H" --schema "id long"
expect "$err" DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION "create names Delta's error"
[[ ! -e $H/_delta_log ]] || { echo "FAIL: create wrote a log into the folder"; fail=1; }
run 0 "create in an empty folder" -- "$LITHIFY" create "$W/empty-ok" --schema "id long"

# A table whose root later received a folder's content: VACUUM refuses to empty it.
T=$W/t
run 0 "create" -- "$LITHIFY" create "$T" --schema "id long, note string"
run 0 "append" -- "$LITHIFY" append "$T" --generate 20 --no-auto-compact  # one live file
mkdir -p "$T/Documents" && echo "chapter 1" >"$T/Documents/thesis.docx" && echo a >"$T/notes.txt"
echo b >"$T/todo.txt"
age "$T/Documents/thesis.docx" "$T/notes.txt" "$T/todo.txt"
run 0 "vacuum --help lists --allow-foreign-files" -- "$LITHIFY" vacuum --help
expect "$out" "--allow-foreign-files" "vacuum --help"
run 1 "vacuum refuses foreign files" -- "$LITHIFY" vacuum "$T"
expect "$err" LITHIFY_VACUUM_FOREIGN_FILES "vacuum names the refusal"
expect "$err" "Documents/thesis.docx" "vacuum names a foreign file"
[[ -f $T/Documents/thesis.docx ]] || { echo "FAIL: vacuum deleted the thesis"; fail=1; }
run 0 "vacuum --dry-run shows the refusal" -- "$LITHIFY" vacuum "$T" --dry-run
expect "$out" "a real run would be refused" "dry run warns"
run 0 "vacuum --allow-foreign-files" -- "$LITHIFY" vacuum "$T" --allow-foreign-files --json
[[ ! -e $T/notes.txt ]] || { echo "FAIL: --allow-foreign-files kept notes.txt"; fail=1; }

# ---- 6: temporaries of killed writers ----
part=$(find "$T" -name 'part-*.parquet' | head -1)
tmp="$(dirname "$part")/.$(basename "$part").tmp-0123456789abcdef"
head -c 1000 "$part" >"$tmp" && age "$tmp"
young="$(dirname "$part")/.$(basename "$part").tmp-00000000000000ff"
head -c 10 "$part" >"$young"
run 0 "vacuum --dry-run lists the old temporary" -- "$LITHIFY" vacuum "$T" --dry-run --json
expect "$out" '"reason":"abandoned_temporary"' "dry run shows the temporary"
expect "$out" '"temporaries_to_delete":1,' "dry run counts the temporary"
run 0 "vacuum removes the old temporary" -- "$LITHIFY" vacuum "$T"
expect "$out" "of which 1 temporary file(s) of killed writers" "vacuum text counts temporaries"
[[ ! -e $tmp ]] || { echo "FAIL: the old temporary is still there"; fail=1; }
[[ -e $young ]] || { echo "FAIL: a young temporary (a writer may be writing it) was deleted"; fail=1; }
run 0 "history" -- "$LITHIFY" --json describe history "$T"
expect "$out" '"numTemporaryFilesToDelete":"1"' "VACUUM START counts the temporary"

# ---- 7: a committed write whose output fails ----
C=$W/c
committed() {  # committed DESCRIPTION -- CMD...: exit 3, says it was committed
  local what=$1; shift 2
  "$@" >/dev/full 2>"$err"
  local rc=$?
  if [[ $rc != 3 ]]; then echo "FAIL: $what > /dev/full: exit $rc, wanted 3"; cat "$err"; fail=1; return; fi
  if ! grep -q "was committed" "$err"; then echo "FAIL: $what: does not say it was committed"; cat "$err"; fail=1; return; fi
  echo "ok: $what > /dev/full exits 3"
}
committed "create" -- "$LITHIFY" create "$C" --schema "id long, note string"
expect "$err" "version 0 of $C was committed" "create names the version"
committed "alter" -- "$LITHIFY" alter "$C" --set delta.enableDeletionVectors=true
committed "append" -- "$LITHIFY" append "$C" --generate 100 --files 3 --no-auto-compact
expect "$err" "version 2 of $C was committed" "append names the version"
committed "append --json" -- "$LITHIFY" --json append "$C" --generate 100 --files 3 --no-auto-compact
run 0 "count after the appends" -- "$LITHIFY" scan "$C" --count
expect "$out" "^200$" "each append happened exactly once"
"$LITHIFY" scan "$C" --where "id < 5" --count >"$W/matching"
committed "delete" -- "$LITHIFY" delete "$C" --where "id < 5"
committed "reorg" -- "$LITHIFY" reorg "$C" --purge
committed "optimize" -- "$LITHIFY" optimize "$C"
committed "checkpoint" -- "$LITHIFY" checkpoint "$C"
committed "vacuum" -- "$LITHIFY" vacuum "$C"
run 0 "count after the /dev/full runs" -- "$LITHIFY" scan "$C" --count
[[ $(cat "$out") == $(( 200 - $(cat "$W/matching") )) ]] || { echo "FAIL: rows after delete and maintenance"; fail=1; }
run 0 "history" -- "$LITHIFY" --json describe history "$C"
[[ $(grep -o '"version":' "$out" | wc -l) == 9 ]] || { echo "FAIL: 9 commits expected (each write once)"; cat "$out"; fail=1; }
"$LITHIFY" vacuum "$C" --dry-run >/dev/full 2>"$err"; rc=$?
[[ $rc == 1 ]] || { echo "FAIL: vacuum --dry-run > /dev/full: exit $rc, wanted 1 (nothing committed)"; fail=1; }
run 0 "--help documents exit 3" -- "$LITHIFY" --help
expect "$out" "3 committed but the output failed" "--help exit codes"

# ---- 8: append checks every input first and leaves nothing on failure ----
A=$W/a
run 0 "create for append" -- "$LITHIFY" create "$A" --schema "id long, note string"
printf 'id,note\n1,x\n2,y\n' >"$W/a.csv"
run 1 "append with a missing input" -- "$LITHIFY" append "$A" --from "$W/a.csv" "$W/a.csv" "$W/missing.csv"
expect "$err" "missing.csv" "the error names the missing input"
[[ -z $(data_files "$A") ]] || { echo "FAIL: data files left behind:"; data_files "$A"; fail=1; }
printf 'id,note\n3,z\nfour,w\n' >"$W/late-bad.csv"
run 1 "append with a bad row late" -- "$LITHIFY" append "$A" --from "$W/a.csv" "$W/late-bad.csv"
[[ -z $(data_files "$A") ]] || { echo "FAIL: data files left behind:"; data_files "$A"; fail=1; }
run 0 "nothing was committed" -- "$LITHIFY" scan "$A" --count
expect "$out" "^0$" "no rows"

# ---- 14: diagnose after VACUUM ----
D=$W/d
run 0 "create for diagnose" -- "$LITHIFY" create "$D" --schema "id long"
run 0 "append 1" -- "$LITHIFY" append "$D" --generate 100 --no-auto-compact
run 0 "append 2" -- "$LITHIFY" append "$D" --generate 100 --no-auto-compact
run 0 "optimize" -- "$LITHIFY" optimize "$D"
run 0 "vacuum --retain 0" -- "$LITHIFY" vacuum "$D" --retain 0 --disable-retention-check
run 0 "diagnose --json after vacuum" -- "$LITHIFY" --json diagnose "$D"
expect "$out" '"vacuum":{"tombstones":0,' "no tombstone awaits VACUUM"
expect "$out" '"vacuumed":2,' "the vacuumed files are counted as such"
if grep -q tombstones_awaiting_vacuum "$out"; then echo "FAIL: diagnose still reports files awaiting VACUUM"; fail=1; fi
exit $fail
