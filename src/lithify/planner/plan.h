// Plan: what a maintenance run will rewrite, as a plain serializable value.
//
// The planner turns a table version's file list (table::FileEntry) into a Plan: bins of
// input files, each rewritten into (normally) one output file -- Z-order and liquid
// clustering bins into Bin::output_files files -- grouped into batches that commit
// separately. A Plan holds no format types and no handles, so it can be printed
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
// by name). The multi-dimensional modes (Z-order, liquid clustering) keep single-file
// bins and may write several files per bin (Bin::output_files).
enum class PlanMode {
  kCompaction,      // OPTIMIZE: bin-pack small files and files with many deleted rows
  kReorgPurge,      // REORG ... APPLY (PURGE): rewrite every file with deleted rows
  kAutoCompaction,  // post-commit compaction of the partitions a commit touched
  kZOrder,          // OPTIMIZE ... ZORDER BY: every file of a partition, sorted by Z-order
  kLiquid,          // OPTIMIZE on a liquid-clustered table: merge small ZCubes (Hilbert)
};

// "compaction", "reorg_purge", "auto_compaction", "zorder", "liquid".
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
  // Compaction / REORG / Z-order: ascending size (stable). Liquid: ZCUBE_ID order
  // (files of no cube first), as Delta packs them.
  std::vector<FileRef> files;
  int64_t total_bytes = 0;     // sum of files[i].size
  // Files the bin is written as (>= 1). Z-order and liquid: Delta's
  // max(1, total_bytes / max_file_size) (integer division); 1 otherwise. Liquid: all of
  // them form one new ZCube.
  int output_files = 1;

  friend bool operator==(const Bin&, const Bin&) = default;
};

// Bins committed together (one transaction per batch).
struct Batch {
  std::vector<int> bin_ids;
  friend bool operator==(const Batch&, const Batch&) = default;
};

// Delta's clusteringStats (OptimizeStats / ZCubeFileStatsCollector) of a liquid plan; all
// zero for other modes. The input counts cover every file the planner considered (all
// live files, any provider); a "matching cube" file carries both ZCube tags and was built
// from the current clustering columns (with FULL: from any columns).
struct ClusteringInputStats {
  int64_t input_zcube_files = 0;   // files of a matching cube (physical bytes below)
  int64_t input_zcube_bytes = 0;
  int64_t input_other_files = 0;   // every other considered file
  int64_t input_other_bytes = 0;
  int64_t input_num_zcubes = 0;    // runs of one ZCUBE_ID in ZCUBE_ID order (= distinct ids)
  int64_t merged_files = 0;        // files surviving the cube filters (= the plan's inputs)
  int64_t merged_bytes = 0;
  int64_t num_output_zcubes = 0;   // = number of bins

  friend bool operator==(const ClusteringInputStats&, const ClusteringInputStats&) = default;
};

struct Plan {
  PlanMode mode = PlanMode::kCompaction;
  int64_t min_file_size = 0;  // candidate iff size < this
  // Compaction modes: the bin capacity (the target output size). Z-order / liquid: the
  // output file size (a bin is written as max(1, bytes / max_file_size) files).
  int64_t max_file_size = 0;
  double max_deleted_rows_ratio = 0;  // candidate iff deleted/physical rows > this
  // Where max_file_size came from: "--target-file-size", "delta.targetFileSize",
  // "autotune", "default" (target_size.h), or "" when the caller set it directly.
  std::string target_size_source;
  std::vector<Bin> bins;        // kept bins only, ids 0..n-1
  std::vector<Batch> batches;   // every bin in exactly one batch
  int64_t total_considered_files = 0;  // files inside the scope (predicate)
  int64_t total_files_skipped = 0;     // considered files not in any kept bin
  int64_t partitions_optimized = 0;    // distinct partitions among kept bins

  // Z-order and liquid only (empty / zero / false otherwise):
  // the curve's columns as the user names them (ZORDER BY columns; liquid: the logical
  // clustering columns, which also make up the ZCUBE_ZORDER_BY tag of the outputs).
  std::vector<std::string> columns;
  int64_t min_cube_size = 0;     // liquid: a ZCube this large (estimated) is sealed
  int64_t target_cube_size = 0;  // liquid: bin capacity, max(target, min) as in Delta
  bool full = false;             // liquid: OPTIMIZE ... FULL
  ClusteringInputStats clustering;

  int64_t total_input_files() const;
  int64_t total_input_bytes() const;

  friend bool operator==(const Plan&, const Plan&) = default;
};

// JSON form: {"mode":"compaction","min_file_size":...,"bins":[{"id":0,
// "partition_values":{"date":"2024-01-01","x":null},"files":[{"path":...,"dv_unique_id":...,
// "size":...,"num_records":...|null,"deleted_rows":...}],"total_bytes":...,
// "output_files":1}], "batches":[{"bin_ids":[0,1]}], "columns":[...], "min_cube_size":...,
// "target_cube_size":..., "full":false, "clustering":{"input_zcube_files":...,...}, ...}.
// Integers are exact (int64). The clustering members and "output_files" may be absent on
// input (plans written before they existed): defaults as above.
// For writers that stream a large plan, a non-empty `files_placeholder` replaces every
// bin's "files" by the string `files_placeholder` + the bin's index; FileRefToJson gives
// one item of "files".
nlohmann::json PlanToJson(const Plan& plan, std::string_view files_placeholder = {});
nlohmann::json FileRefToJson(const FileRef& f);
// Inverse of PlanToJson. InvalidArgument naming the field for a missing or mistyped
// member, an unknown mode, a bin id that is not its index, or a batch naming a bin that
// does not exist. Never throws.
Result<Plan> PlanFromJson(const nlohmann::json& j);

}  // namespace lithify::planner
