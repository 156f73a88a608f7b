#!/usr/bin/env bash
# CLI contract on damaged Delta tables (acceptance 4): `lithify scan` and
# `lithify describe detail` exit 1 (not a crash, not 0) with a message on stderr that
# names the damaged file and the problem. Copies corpus tables to a temp dir.
# Env: LITHIFY (the built binary), LITHIFY_CORPUS (the shared corpus).
set -u
: "${LITHIFY:?}" "${LITHIFY_CORPUS:?}"
work="$(mktemp -d "${TMPDIR:-/tmp}/lithify-malformed.XXXXXX")"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

copy() {  # copy SRC NAME -> prints the writable copy's path
  cp -r "$1" "$work/$2" && chmod -R u+w "$work/$2" && echo "$work/$2"
}
# expect_fail DESCRIPTION NEEDLE... -- CMD...: exit 1 and every needle on stderr.
expect_fail() {
  local what=$1; shift
  local needles=()
  while [[ $1 != "--" ]]; do needles+=("$1"); shift; done
  shift
  "$@" >"$work/out" 2>"$work/err"
  local rc=$? ok=1
  [[ $rc == 1 ]] || { echo "FAIL: $what: exit $rc, wanted 1"; ok=0; }
  for n in "${needles[@]}"; do
    grep -qF -- "$n" "$work/err" || { echo "FAIL: $what: stderr lacks '$n'"; ok=0; }
  done
  if ((ok)); then
    echo "ok: $what"; passed=$((passed + 1))
  else
    sed 's/^/   | /' "$work/err" | head -5; failed=$((failed + 1))
  fi
}

simple="$LITHIFY_CORPUS/delta-rs/crates/test/tests/data/simple_table"
dv_small="$LITHIFY_CORPUS/delta-kernel-rs/kernel/tests/data/table-with-dv-small"

# A commit whose last line was cut short by a crashed writer.
t="$(copy "$simple" truncated)"
c="$t/_delta_log/00000000000000000004.json"
head -c $(( $(stat -c %s "$c") - 40 )) "$c" >"$c.tmp" && mv "$c.tmp" "$c"
expect_fail "scan: truncated commit line" "00000000000000000004.json line 4" "malformed JSON" -- \
  "$LITHIFY" scan "$t"
expect_fail "describe detail: truncated commit line" "00000000000000000004.json line 4" -- \
  "$LITHIFY" describe detail "$t"

# A gap in the log.
t="$(copy "$simple" gap)"
rm "$t/_delta_log/00000000000000000002.json"
expect_fail "scan: missing commit" "commit 2" -- "$LITHIFY" scan "$t"

# An add escaping the table root.
t="$(copy "$simple" escape)"
echo '{"add":{"path":"../outside.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}' \
  >"$t/_delta_log/00000000000000000005.json"
expect_fail "describe detail: add path escapes the root" "../outside.parquet" "escapes the table root" -- \
  "$LITHIFY" describe detail "$t"

# A deletion vector whose checksum no longer matches: the snapshot loads, the scan fails.
t="$(copy "$dv_small" dv_crc)"
dv="$t/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"
printf '\x00' | dd of="$dv" bs=1 seek=21 conv=notrunc status=none  # was 0x3a (roaring cookie)
expect_fail "scan: DV checksum mismatch" "deletion_vector_61d16c75" "checksum mismatch" -- \
  "$LITHIFY" scan "$t"

echo "cli_malformed: $passed passed, $failed failed"
((failed == 0))
