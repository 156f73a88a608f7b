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
exit $fail
