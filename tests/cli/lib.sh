# Shared helpers of the CLI shell tests (source it after `set -u`).
#   run EXPECTED_RC DESCRIPTION -- CMD...   runs CMD, stdout in $OUT, stderr in $ERR
#   expect FILE REGEX DESCRIPTION           FILE matches the extended regex
#   reject FILE REGEX DESCRIPTION           FILE does not match it
# A failed check prints FAIL with the evidence and sets fail=1; the script ends with
# `exit $fail`. $OUT and $ERR are removed on exit.
fail=0
OUT=$(mktemp) ERR=$(mktemp)
trap 'rm -f "$OUT" "$ERR"' EXIT
run() {
  local want=$1 what=$2; shift 3
  "$@" >"$OUT" 2>"$ERR"
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAIL: $what: exit $rc, wanted $want"; head -c 2000 "$ERR"; fail=1
  else
    echo "ok: $what"
  fi
}
expect() {
  grep -Eq -- "$2" "$1" || { echo "FAIL: $3: /$2/ not in $(basename "$1"):"; head -c 2000 "$1"; echo; fail=1; }
}
reject() {
  ! grep -Eq -- "$2" "$1" || { echo "FAIL: $3: /$2/ found"; fail=1; }
}
