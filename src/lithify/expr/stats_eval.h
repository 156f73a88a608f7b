// File skipping: deciding from per-file column statistics (min, max, null count, record
// count) that no row of a file can satisfy a bound predicate.
//
// The answer is conservative: CanSkip says "skip" only when it can prove that the
// predicate is FALSE or NULL for every row; missing statistics, incomparable values and
// column-vs-column comparisons never skip. The rules, per leaf of the (NOT-free) bound
// tree, are:
//
//   * numRecords == 0 skips everything; a column with nullCount == numRecords is all
//     NULL, so every comparison / IN on it is NULL and skips, and IS NOT NULL skips.
//   * IS NULL skips when nullCount == 0.
//   * Comparisons and IN use [lower, upper] bounds: a = v skips when v is outside them,
//     a < v when min >= v, a <= v when min > v, a > v when upper <= v, a >= v when
//     upper < v, a <> v when min == max == v, IN when every listed value is outside,
//     NOT IN when min == max is listed or the list holds NULL (never TRUE).
//   * AND skips when any child skips; OR when every child skips.
//
// Bounds are derived from min/max with the Delta protocol in mind (PROTOCOL.md,
// "Per-file Statistics"): with `tightBounds` false (after deletion vectors) min/max are
// still valid bounds and nullCount is only meaningful when it is 0 or numRecords, which
// are the only two nullCount facts used above, so the same rules hold for both. Writers
// also truncate, and the evaluator accounts for that (each behaviour is switchable in
// ColumnStats for statistics known to be exact):
//   * strings/binary: a truncated min is a prefix, so still a lower bound; a truncated
//     max M is NOT an upper bound (the true max may be M + more bytes; Delta appends a
//     tie-breaker character, other writers may not). The rule applied: every value v
//     satisfies v <= M or has M as a prefix, hence v < PrefixSuccessor(M) (M without
//     trailing 0xFF bytes, last byte + 1); that exclusive bound is used instead of M.
//   * timestamps: Delta stats are truncated to milliseconds, so the upper bound is
//     max + 999 microseconds (min truncated down stays a lower bound).
//   * floats: under lithify's total order NaN sorts above everything, but Parquet
//     writers leave NaN out of min/max, so max is not an upper bound unless the stats
//     say NaN is included; a NaN min or max disables the column's bounds entirely.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "lithify/expr/bound.h"
#include "lithify/expr/value.h"

namespace lithify::expr {

// Statistics of one column of one file. Values are of the column's type (DATE as
// days, timestamps as microseconds); any member may be absent.
struct ColumnStats {
  std::optional<Value> min;
  std::optional<Value> max;
  std::optional<int64_t> null_count;
  // STRING/BINARY: max may be a truncated prefix of the true maximum (Delta, Parquet
  // with is_max_value_exact false). Set false only for exact maxima.
  bool max_may_be_truncated = true;
  // TIMESTAMP/TIMESTAMP_NTZ: min/max truncated down to milliseconds (Delta stats).
  bool timestamps_truncated_to_millis = true;
  // FLOAT32/FLOAT64: NaN values may exist above max (Parquet leaves NaN out of min/max;
  // Spark-written Delta stats include it). Set false when max accounts for NaN.
  bool max_may_exclude_nan = true;
};

struct FileStats {
  std::optional<int64_t> num_records;  // physical records in the file
  // Delta `stats.tightBounds` (absent means true). The rules above are valid for both
  // values; it is reported in explanations.
  bool tight_bounds = true;
};

struct SkipDecision {
  bool skip = false;
  // When skip: why, e.g. "a > 10: max(a) = 7"; OR joins its branches with "; ".
  std::string reason;
};

// Decides whether a file can be skipped. `columns[i]` holds the statistics of
// e.columns()[i]; a shorter span means no statistics for the remaining columns.
SkipDecision CanSkip(const BoundExpr& e, std::span<const ColumnStats> columns,
                     const FileStats& file);

// The smallest byte string greater than every string that has `s` as a prefix; nullopt
// when none exists (s empty or all 0xFF bytes).
std::optional<std::string> PrefixSuccessor(std::string_view s);

}  // namespace lithify::expr
