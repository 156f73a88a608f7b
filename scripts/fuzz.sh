#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan+UBSan, build-fuzz/) and runs each for
# a bounded time over a seed corpus made from ../shared/corpus/**/*.parquet.
#
# Usage: scripts/fuzz.sh [target...]           (default: every target)
# Environment:
#   LITHIFY_FUZZ_SECONDS   seconds per target (default 60)
#   LITHIFY_FUZZ_CORPUS    seed source directory (default <repo>/../shared/corpus)
#   LITHIFY_FUZZ_JOBS      build parallelism (default nproc)
# Exits non-zero if any target crashes, leaks, times out or runs out of memory, after
# printing the reproducer path; the last line is "fuzz: N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bdir="$root/build-fuzz"
seconds="${LITHIFY_FUZZ_SECONDS:-60}"
corpus_src="${LITHIFY_FUZZ_CORPUS:-$root/../shared/corpus}"
jobs="${LITHIFY_FUZZ_JOBS:-$(nproc)}"
all_targets=(parquet_reader_fuzz metadata_fuzz)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
# Seeds larger than this slow every mutation down without adding much coverage.
max_seed_bytes=$((1024 * 1024))

for tool in clang-14 clang++-14 cmake ninja; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

echo "== fuzz: configuring $bdir"
if ! CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$bdir" -G Ninja \
       -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLITHIFY_FUZZ=ON -DLITHIFY_TESTS=OFF \
       -DLITHIFY_BENCH=OFF >/dev/null ||
   ! ninja -C "$bdir" -j"$jobs" "${targets[@]}"; then
  echo "fuzz: 0 passed, ${#targets[@]} failed (configure/build failed)"
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/lithify-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
seeds="$work/seeds"
mkdir -p "$seeds"
if [[ -d "$corpus_src" ]]; then
  # Name seeds by content hash: identical files collapse into one.
  while IFS= read -r -d '' f; do
    h="$(sha1sum "$f" | cut -c1-40)"
    cp "$f" "$seeds/$h"
  done < <(find -L "$corpus_src" -type f -name '*.parquet' -size -$((max_seed_bytes + 1))c -print0)
else
  echo "fuzz: warning: no seed corpus at $corpus_src; starting from nothing" >&2
fi
echo "== fuzz: $(find "$seeds" -type f | wc -l) seed files; ${seconds}s per target"

# Reproducers are kept in the build tree (the temp dir is removed on exit).
artifacts="$bdir/fuzz-artifacts"
mkdir -p "$artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

passed=0
failed=0
for t in "${targets[@]}"; do
  exe="$bdir/tests/fuzz/$t"
  [[ -x "$exe" ]] || { echo "fuzz: $t: no binary at $exe" >&2; failed=$((failed + 1)); continue; }
  run_corpus="$work/corpus-$t"
  mkdir -p "$run_corpus" "$artifacts/$t"
  log="$artifacts/$t/last-run.log"
  echo "== fuzz: $t"
  set +e
  # New inputs go to the first (scratch) corpus dir; the seeds are read-only input.
  "$exe" "$run_corpus" "$seeds" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/$t/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  if ((rc == 0)); then
    passed=$((passed + 1))
    grep -E '^stat::number_of_executed_units|^Done ' "$log" | sed "s/^/   $t: /" || true
  else
    failed=$((failed + 1))
    echo "!! fuzz: $t FAILED (exit $rc); log: $log"
    grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:|ALARM|out-of-memory' "$log" | head -5 | sed 's/^/   /' || true
    # libFuzzer names the input it saved ("Test unit written to <path>").
    repro="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")"
    if [[ -n "$repro" ]]; then
      while IFS= read -r a; do
        echo "   reproducer: $a"
        echo "   rerun:      $exe $a"
      done <<<"$repro"
    else
      echo "   (no reproducer written; see the log)"
    fi
    # The report: from the first sanitizer/libFuzzer error line, without shadow dumps.
    awk '/ERROR: |runtime error:|ALARM: |deadly signal|out-of-memory/ {p = 1}
         /Shadow bytes around|Shadow byte legend/ {p = 0}
         p && n < 60 {print; n++}' "$log" | sed 's/^/   | /'
  fi
done

echo "fuzz: $passed passed, $failed failed"
((failed == 0))
