// Plan: what a maintenance run will rewrite, as a plain serializable value.
//
// The planner turns a table version's file list (table::FileEntry) into a Plan: bins of
// input files, each rewritten into (normally) one output file, grouped into batches that
// commit separately. A Plan holds no format types and no handles, so it can be printed
// (`optimize --dry-run`), compared in tests, fed to the simulator, or shipped to a worker
// as JSON (PlanToJson / PlanFromJson round-trip exactly). Why each file was or was not
// chosen lives beside it in the DecisionLog (decision_log.h).
//
// Plain value types; thread-safe as any const value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"

namespace lithify::planner {

inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kGiB = int64_t{1} << 30;

// Which maintenance operation produced the plan. Values are stable (they are serialized
// by name). Multi-dimensional modes (Z-order, liquid clustering) arrive with the
// clustering work and will keep single-file bins.
enum class PlanMode {
  kCompaction,      // OPTIMIZE: bin-pack small files and files with many deleted rows
  kReorgPurge,      // REORG ... APPLY (PURGE): rewrite every file with deleted rows
  kAutoCompaction,  // post-commit compaction of the partitions a commit touched
};

// "compaction", "reorg_purge", "auto_compaction".
std::string_view PlanModeName(PlanMode mode);
// Inverse of PlanModeName; InvalidArgument naming the text otherwise.
Result<PlanMode> PlanModeFromName(std::string_view name);

// One input file of a bin: enough to find the live file again ((path, DV id) is the
// reconciliation key) and to account for it.
struct FileRef {
  std::string path;          // relative to the table root
  std::string dv_unique_id;  // "" when the file has no deletion vector
  int64_t size = 0;          // physical bytes
  std::optional<int64_t> num_records;  // physical rows, when recorded
  int64_t deleted_rows = 0;            // deletion-vector cardinality

  friend bool operator==(const FileRef&, const FileRef&) = default;
};

// Files of one partition that are rewritten together.
struct Bin {
  int id = 0;  // index in Plan::bins
  // The partition's values as recorded (nullopt = null); {} for an unpartitioned table.
  std::map<std::string, std::optional<std::string>> partition_values;
  std::vector<FileRef> files;  // ascending size (stable)
  int64_t total_bytes = 0;     // sum of files[i].size

  friend bool operator==(const Bin&, const Bin&) = default;
};

// Bins committed together (one transaction per batch).
struct Batch {
  std::vector<int> bin_ids;
  friend bool operator==(const Batch&, const Batch&) = default;
};

struct Plan {
  PlanMode mode = PlanMode::kCompaction;
  int64_t min_file_size = 0;  // candidate iff size < this
  int64_t max_file_size = 0;  // bin capacity (the target output size)
  double max_deleted_rows_ratio = 0;  // candidate iff deleted/physical rows > this
  // Where max_file_size came from: "--target-file-size", "delta.targetFileSize",
  // "autotune", "default" (target_size.h), or "" when the caller set it directly.
  std::string target_size_source;
  std::vector<Bin> bins;        // kept bins only, ids 0..n-1
  std::vector<Batch> batches;   // every bin in exactly one batch
  int64_t total_considered_files = 0;  // files inside the scope (predicate)
  int64_t total_files_skipped = 0;     // considered files not in any kept bin
  int64_t partitions_optimized = 0;    // distinct partitions among kept bins

  int64_t total_input_files() const;
  int64_t total_input_bytes() const;

  friend bool operator==(const Plan&, const Plan&) = default;
};

// JSON form: {"mode":"compaction","min_file_size":...,"bins":[{"id":0,
// "partition_values":{"date":"2024-01-01","x":null},"files":[{"path":...,"dv_unique_id":...,
// "size":...,"num_records":...|null,"deleted_rows":...}],"total_bytes":...}],
// "batches":[{"bin_ids":[0,1]}], ...}. Integers are exact (int64).
nlohmann::json PlanToJson(const Plan& plan);
// Inverse of PlanToJson. InvalidArgument naming the field for a missing or mistyped
// member, an unknown mode, a bin id that is not its index, or a batch naming a bin that
// does not exist. Never throws.
Result<Plan> PlanFromJson(const nlohmann::json& j);

}  // namespace lithify::planner
