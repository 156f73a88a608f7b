// Target file size: which size OPTIMIZE packs bins to, and where that number came from.
//
// Precedence (first present wins):
//   1. `--target-file-size` on the command line            source "--target-file-size"
//   2. the table property named by the policy              source: the property's name
//      (TablePolicy::TargetFileSizeProperty; Delta: delta.targetFileSize)
//   3. autotune by table size, only when asked for         source "autotune"
//   4. the open-source default, 1 GiB                       source "default"
//
// Why 1 GiB is the default: it is what open-source Delta's OPTIMIZE does
// (spark.databricks.delta.optimize.maxFileSize, delta-maintenance-facts.md §0/§10), so a
// table compacted by lithify looks like one compacted by Spark OSS, and the decision log
// can be checked against Delta's documentation. `delta.targetFileSize` and autotune are
// Databricks features (not in OSS); lithify honours the property because users set it
// for exactly this purpose, and offers autotune as an opt-in because its numbers come
// from Databricks' documentation rather than from code we can read.
//
// Autotune (Databricks "autotune file size based on table size"): 256 MiB for tables
// below 2.56 TB, growing linearly to 1 GiB at 10 TB, 1 GiB above. Breakpoints used here:
// table sizes in decimal terabytes (2.56e12 and 1e13 bytes; Databricks writes "TB"),
// file sizes in binary units (268435456 and 1073741824 bytes; Delta's size settings are
// binary, e.g. "100mb" = 104857600). The facts sheet marks these numbers as recalled from
// the public docs; they are named constants below so a correction is one line.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "lithify/base/byte_size.h"
#include "lithify/base/result.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/policy.h"

namespace lithify::planner {

inline constexpr int64_t kDefaultTargetFileSize = kGiB;          // Delta OSS optimize.maxFileSize
inline constexpr int64_t kAutotuneMinTarget = 256 * kMiB;
inline constexpr int64_t kAutotuneMaxTarget = kGiB;
inline constexpr int64_t kAutotuneLowTableBytes = 2'560'000'000'000;  // 2.56 TB
inline constexpr int64_t kAutotuneHighTableBytes = 10'000'000'000'000;  // 10 TB

// ParseByteSize (base/byte_size.h) is the parser of every size flag and of the
// target-size table property; table properties are validated with it when they are set.
using ::lithify::ParseByteSize;

struct TargetSizeInputs {
  std::optional<int64_t> explicit_bytes;       // --target-file-size
  std::optional<std::string> table_property;   // the policy's target-size property text
  bool autotune = false;                       // opt-in
  int64_t table_bytes = 0;                     // live data bytes (for autotune)
};

// The autotuned target for a table of `table_bytes` (see the header comment).
// Precondition: table_bytes >= 0.
int64_t AutotuneTargetFileSize(int64_t table_bytes);

// The target size and its source (one of the four above). InvalidArgument when the
// winning input is not a positive size (naming "--target-file-size" or the property and
// the text), or table_bytes < 0 with autotune.
Result<std::pair<int64_t, std::string>> ResolveTargetFileSize(const TablePolicy& policy,
                                                              const TargetSizeInputs& in);

}  // namespace lithify::planner
