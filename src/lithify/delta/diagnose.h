// Delta's diagnose (the generic `diagnose` command, commands/diagnose.h, reaches it
// through formats/diagnose.h): what is wrong with a Delta table's layout, why, and what to
// do about it.
//
// Reads the latest snapshot (metadata only: the log, never a data file; the commits back
// to the latest completed VACUUM for its horizon) and reports
//  - the layout: file count, bytes, average file size, the files-per-partition histogram,
//    the partitions that can never compact (at most one file), Spark's scan-task count;
//  - the target file size in force and where it came from (planner/target_size.h, the
//    same resolution as `lithify optimize`);
//  - what OPTIMIZE would do now: the real planner (planner::PlanCompaction, or the
//    clustering planner on a clustered table) in dry-run form -- never a re-implementation;
//  - whether auto compaction can ever trigger (planner::PlanAutoCompaction over every
//    partition, as if a commit had touched it);
//  - for clustered tables: ZCubes by their ZCUBE_ID tag, sealed (>= min cube size) and
//    open cubes with the bytes a nightly OPTIMIZE would rewrite, files built from other
//    clustering keys (ZCUBE_ZORDER_BY differs from the current columns);
//  - tombstones awaiting VACUUM and their bytes (files the latest completed VACUUM
//    deleted, as its VACUUM START / END commits record, are not awaiting it);
//  - deleted rows held by deletion vectors;
// and turns those facts into Findings, most important first. Each finding has a stable
// snake_case `code` (docs/diagnose.md lists them), a severity, a one-line title, a detail
// sentence with the numbers, a recommendation and, where possible, an `effect`: the
// outcome of running the real planners on the table as it is, or on a modified file list
// (e.g. partition values cleared: "without partition columns, OPTIMIZE would turn these
// 288 files into about 1"). Findings also say when compaction is the wrong answer (few
// small files, partitions already at size, a rewrite that doubles storage until VACUUM).
//
// Scan tasks use Spark's file-split arithmetic: ceil(sum(size + openCostInBytes) /
// maxPartitionBytes) with 4 MiB and 128 MiB (DiagnoseOptions), a proxy for the per-file
// overhead compaction saves.
//
// Errors: the snapshot's (NotFound "no Delta log" for a path that is not a table,
// Corruption, NotSupported); InvalidArgument for bad options or a malformed
// delta.targetFileSize. Nothing is written.
//
// Stateless; thread-safe for distinct calls. Memory: the snapshot's file list plus a few
// planner runs over it (each O(files)); no data file is opened.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/plan.h"

namespace lithify::delta {

struct DiagnoseOptions {
  // The clock (ms since the epoch) for retention and partition-age arithmetic; 0 = the
  // system clock (tests inject).
  int64_t now_ms = 0;
  // As `optimize --target-file-size`; unset = delta.targetFileSize or Delta's 1 GiB.
  std::optional<int64_t> target_file_size;
  bool autotune = false;  // as `optimize --autotune`
  // Liquid clustering: a ZCube is sealed at or above this estimated logical size (Delta
  // minCubeSize.threshold, 100 GiB); clustering bins are packed to target_cube_size.
  int64_t min_cube_size = 100 * planner::kGiB;
  int64_t target_cube_size = 150 * planner::kGiB;
  // Spark's split arithmetic for the scan-task count.
  int64_t open_cost_bytes = 4 * planner::kMiB;       // spark.sql.files.openCostInBytes
  int64_t max_partition_bytes = 128 * planner::kMiB;  // spark.sql.files.maxPartitionBytes
  // A partition whose newest file is older than this is "old" (no longer written to).
  int64_t old_partition_age_ms = int64_t{7} * 24 * 3600 * 1000;
};

enum class Severity { kInfo, kWarning, kCritical };
// "info", "warning", "critical".
std::string_view SeverityName(Severity s);

// What a recommended action does, computed by a real planner: on the table as it is
// (`simulated` false) or on a modified file list (`simulated` true, e.g. partition
// values cleared).
struct FindingEffect {
  std::string description;  // one sentence with the numbers
  bool simulated = false;
  int64_t files_before = 0;       // live files the action looks at
  int64_t files_after = 0;        // estimated live files afterwards
  int64_t bytes_rewritten = 0;    // input bytes of the planned bins
  int64_t scan_tasks_before = 0;  // Spark scan tasks over files_before
  int64_t scan_tasks_after = 0;
};

struct Finding {
  std::string code;  // stable snake_case, e.g. "partitions_never_compact"
  Severity severity = Severity::kInfo;
  std::string title;           // one line
  std::string detail;          // the facts, with numbers
  std::string recommendation;  // what to do (a lithify command where there is one)
  std::optional<FindingEffect> effect;
  // The numbers behind `detail`, machine-readable (keys are stable per code).
  nlohmann::ordered_json numbers = nlohmann::ordered_json::object();
};

// Partitions grouped by how many files they hold.
struct PartitionHistogramBucket {
  std::string label;      // "1", "2-4", "5-9", "10-49", "50-99", "100+"
  int64_t min_files = 0;  // inclusive
  int64_t max_files = 0;  // inclusive; -1 = unbounded
  int64_t partitions = 0;
  int64_t files = 0;
  int64_t bytes = 0;
};

// OPTIMIZE now, in dry-run form (the real planner's plan, summarized).
struct OptimizeSummary {
  std::string mode;  // planner::PlanModeName ("compaction", "liquid", ...)
  int64_t bins = 0;
  int64_t input_files = 0;
  int64_t input_bytes = 0;
  int64_t output_files = 0;  // estimated: sum of bins' output files
  int64_t partitions = 0;    // distinct partitions among bins
  std::vector<std::string> summary;  // the decision log's summary lines
};

struct AutoCompactionStatus {
  bool enabled = false;  // delta.autoOptimize.autoCompact / delta.autoOptimize
  std::string enabled_source;  // the property that decided, or "default"
  bool can_trigger = false;    // some partition qualifies, or could as it is written to
  int64_t qualifying_partitions = 0;  // partitions that qualify now
  int64_t min_num_files = 50;
  int64_t max_candidates_in_a_partition = 0;  // small files in the fullest partition
  std::string reason;  // why it can or cannot trigger
};

struct ClusteringStatus {
  std::vector<std::string> columns;  // current clustering columns, logical names
  int64_t zcubes = 0;
  int64_t sealed_zcubes = 0;
  int64_t sealed_bytes = 0;
  int64_t open_zcubes = 0;
  int64_t open_bytes = 0;
  int64_t stale_files = 0;  // built from other clustering keys (ZCUBE_ZORDER_BY differs)
  int64_t stale_bytes = 0;
  std::vector<std::string> stale_keys;  // the distinct other keys, as tagged
  int64_t unclustered_files = 0;  // no ZCube tags
  int64_t unclustered_bytes = 0;
  // Bytes a nightly OPTIMIZE would rewrite (open cubes + unclustered files it merges).
  int64_t projected_nightly_rewrite_bytes = 0;
};

struct VacuumStatus {
  // Removed files still recorded in the log, no longer live (a remove that only retired
  // an older deletion vector of a live file is not counted) and not yet deleted by a
  // VACUUM: awaiting one.
  int64_t tombstones = 0;
  int64_t tombstone_bytes = 0;
  int64_t expired = 0;  // past the retention: a VACUUM now would delete them
  int64_t expired_bytes = 0;
  int64_t retention_ms = 0;  // delta.deletedFileRetentionDuration
  // Removed files the latest completed VACUUM (its VACUUM START / END commits,
  // FindLastCompletedVacuum, vacuum.h) already deleted: removed before its horizon.
  int64_t vacuumed = 0;
  int64_t vacuumed_bytes = 0;
  std::optional<int64_t> last_vacuum_version;  // its VACUUM END
};

struct Diagnosis {
  std::string table_root;
  int64_t version = -1;
  int64_t num_files = 0;
  int64_t total_bytes = 0;
  int64_t avg_file_size = 0;  // total_bytes / num_files; 0 for no files
  int64_t scan_tasks = 0;     // Spark's split arithmetic over every live file
  std::vector<std::string> partition_columns;  // logical names
  int64_t num_partitions = 0;  // distinct partition values (1 when unpartitioned and non-empty)
  std::vector<PartitionHistogramBucket> files_per_partition;
  int64_t partitions_never_compact = 0;  // partitions with exactly one file
  int64_t target_file_size = 0;
  std::string target_size_source;  // "--target-file-size", "delta.targetFileSize", "autotune", "default"
  OptimizeSummary optimize;
  AutoCompactionStatus auto_compaction;
  std::optional<ClusteringStatus> clustering;  // set for clustered tables
  VacuumStatus vacuum;
  int64_t files_with_deletion_vectors = 0;
  int64_t deleted_rows = 0;  // sum of DV cardinalities
  std::vector<Finding> findings;  // most important first
};

// Diagnoses the table at `root` (see the header comment for what and the errors).
Result<Diagnosis> Diagnose(io::FileSystem* fs, const std::string& root, const DiagnoseOptions& options);

// {"table":..,"version":..,"num_files":..,...,"findings":[{"code":..,"severity":..,
// "title":..,"detail":..,"recommendation":..,"effect":{...}|null,"numbers":{...}}]}.
nlohmann::ordered_json DiagnosisToJson(const Diagnosis& d);

}  // namespace lithify::delta
