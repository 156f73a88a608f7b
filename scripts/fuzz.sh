#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan+UBSan, build-fuzz/) and runs each for
# a bounded time over a seed corpus made at run time from ../shared/corpus:
#   parquet_reader_fuzz, metadata_fuzz   **/*.parquet
#   delta_actions_fuzz                   commit files **/_delta_log/<20 digits>.json
#   deletion_vector_fuzz                 **/deletion_vector_*.bin
#   iceberg_avro_fuzz                    **/*.avro (Iceberg manifest lists and manifests)
#   iceberg_metadata_fuzz                **/*.metadata.json
# and from the repository's own small seeds (tests/fuzz/seeds/<kind>/):
#   predicate_fuzz                       tests/fuzz/seeds/predicate (--where texts)
#   ddl_fuzz                             tests/fuzz/seeds/ddl (DDL and schema strings)
#   scenario_fuzz                        tests/fuzz/seeds/scenario + docs/scenarios/*.json
#
# Usage: scripts/fuzz.sh [target...]           (default: every target)
# Environment:
#   LITHIFY_FUZZ_SECONDS   seconds per target (default 20: nine targets stay near three
#                          minutes of fuzzing in CI; raise it for a deeper local run)
#   LITHIFY_FUZZ_CORPUS    seed source directory (default <repo>/../shared/corpus)
#   LITHIFY_FUZZ_JOBS      build parallelism (default nproc)
#   LITHIFY_FUZZ_BUILD_DIR build directory (default <repo>/build-fuzz)
# Exits non-zero if any target crashes, leaks, times out or runs out of memory, after
# printing the reproducer path; the last line is "fuzz: N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bdir="${LITHIFY_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${LITHIFY_FUZZ_SECONDS:-20}"
corpus_src="${LITHIFY_FUZZ_CORPUS:-$root/../shared/corpus}"
jobs="${LITHIFY_FUZZ_JOBS:-$(nproc)}"
all_targets=(parquet_reader_fuzz metadata_fuzz delta_actions_fuzz deletion_vector_fuzz iceberg_avro_fuzz
             iceberg_metadata_fuzz predicate_fuzz ddl_fuzz scenario_fuzz)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
# Seeds larger than this slow every mutation down without adding much coverage.
max_seed_bytes=$((1024 * 1024))

for tool in clang-14 clang++-14 cmake ninja; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

echo "== fuzz: configuring $bdir"
# shellcheck source=scripts/ccache.sh
source "$root/scripts/ccache.sh"
if ! CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$bdir" -G Ninja \
       -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLITHIFY_FUZZ=ON -DLITHIFY_TESTS=OFF \
       -DLITHIFY_BENCH=OFF "${ccache_args[@]}" >/dev/null ||
   ! ninja -C "$bdir" -j"$jobs" "${targets[@]}"; then
  echo "fuzz: 0 passed, ${#targets[@]} failed (configure/build failed)"
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/lithify-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# One seed directory per input kind; each target reads the kind it parses.
seed_kind() {
  case "$1" in
    delta_actions_fuzz) echo delta-commits ;;
    deletion_vector_fuzz) echo delta-dvs ;;
    iceberg_avro_fuzz) echo iceberg-avro ;;
    iceberg_metadata_fuzz) echo iceberg-metadata ;;
    predicate_fuzz) echo predicate ;;
    ddl_fuzz) echo ddl ;;
    scenario_fuzz) echo scenario ;;
    *) echo parquet ;;
  esac
}
# find(1) predicates selecting the seed files of a kind, into the array find_args.
set_find_args() {
  case "$1" in
    delta-commits) find_args=(-regextype posix-extended -regex '.*/_delta_log/[0-9]{20}\.json') ;;
    delta-dvs) find_args=(-name 'deletion_vector_*.bin') ;;
    iceberg-avro) find_args=(-name '*.avro') ;;
    iceberg-metadata) find_args=(-name '*.metadata.json') ;;
    *) find_args=(-name '*.parquet') ;;
  esac
}
if [[ ! -d "$corpus_src" ]]; then
  echo "fuzz: warning: no seed corpus at $corpus_src; starting from nothing" >&2
fi
declare -A seeds_made=()
for t in "${targets[@]}"; do
  kind="$(seed_kind "$t")"
  [[ -n "${seeds_made[$kind]:-}" ]] && continue
  seeds_made[$kind]=1
  mkdir -p "$work/seeds-$kind"
  # Kinds with committed seeds (text inputs the shared corpus does not hold).
  if [[ -d "$root/tests/fuzz/seeds/$kind" ]]; then
    cp "$root/tests/fuzz/seeds/$kind"/* "$work/seeds-$kind/"
    [[ $kind == scenario ]] && cp "$root"/docs/scenarios/*.json "$work/seeds-$kind/"
    echo "== fuzz: $(find "$work/seeds-$kind" -type f | wc -l) $kind seed files"
    continue
  fi
  [[ -d "$corpus_src" ]] || continue
  # Name seeds by content hash: identical files collapse into one.
  set_find_args "$kind"
  while IFS= read -r -d '' f; do
    h="$(sha1sum "$f" | cut -c1-40)"
    cp "$f" "$work/seeds-$kind/$h"
  done < <(find -L "$corpus_src" -type f "${find_args[@]}" -size -$((max_seed_bytes + 1))c -print0)
  echo "== fuzz: $(find "$work/seeds-$kind" -type f | wc -l) $kind seed files"
done
echo "== fuzz: ${seconds}s per target"

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
  "$exe" "$run_corpus" "$work/seeds-$(seed_kind "$t")" \
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
