// DecisionLog: why a plan looks the way it does, file by file, bin by bin.
//
// Compaction on a badly laid-out table often does nothing, and the question users ask is
// "why?". The planner therefore records every file it considered (candidate or not, and
// the rule that decided it), every partition with its bins, every bin kept or dropped
// with the reason, and a summary that names the structural cause when nothing can be
// compacted ("every partition receives at most one file; no target size or schedule
// changes this"). Z-order and liquid clustering (clustering.h) use the same log: liquid
// adds the ZCubes it saw (CubeDecision), the verdicts sealed cube / other clustering
// columns / other provider / lone cube, and causes such as "every remaining file belongs
// to a sealed ZCube" or "the only unsealed cube has no new files to merge with". The log
// is built from the same facts the planner used, so it never disagrees with the Plan.
//
// Memory: a file decision holds numbers and its path, not a reason sentence; FileReason
// renders the sentence on demand from the thresholds recorded in the log. A 1,000,000-file
// log therefore costs about one path string per file.
//
// Plain value type; thread-safe as any const value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/planner/plan.h"

namespace lithify::planner {

// "0 B", "512 B", "1.0 KiB", "12.5 MiB", "1.0 GiB", "2.5 TiB".
std::string FormatBytes(int64_t bytes);

enum class FileVerdict {
  kCandidate,            // selected for rewriting (see FileDecision::bin for its fate)
  kTooLarge,             // size >= minFileSize and no deletion vector
  kTooFewDeletedRows,    // size >= minFileSize and deleted-row ratio <= the maximum
  kNoDeletedRows,        // REORG PURGE: nothing to purge
  kOutsidePredicate,     // excluded by the partition predicate (--where)
  kPartitionNotSelected, // auto compaction: its partition did not trigger
  // Liquid clustering (clustering.h):
  kSealedCube,           // its ZCube's estimated size is >= the minimum cube size: complete
  kOtherClusteringKeys,  // built from other clustering columns (kept as is unless FULL)
  kOtherProvider,        // clusteringProvider is set and is not "liquid"
  kLoneCube,             // the only candidates are this one small cube: nothing to merge
};

// "candidate", "too_large", "too_few_deleted_rows", "no_deleted_rows",
// "outside_predicate", "partition_not_selected", "sealed_cube", "other_clustering_keys",
// "other_provider", "lone_cube".
std::string_view FileVerdictName(FileVerdict v);

struct FileDecision {
  std::string path;
  int64_t size = 0;
  std::optional<int64_t> num_records;  // physical rows, when recorded
  int64_t deleted_rows = 0;            // DV cardinality
  bool has_deletion_vector = false;
  int partition = -1;  // index in DecisionLog::partitions
  FileVerdict verdict = FileVerdict::kCandidate;
  int bin = -1;        // index in DecisionLog::bins (candidates only)
  // Set when the caller forced the rewrite (CompactionOptions::must_rewrite).
  bool forced = false;
  int cube = -1;  // liquid: index in DecisionLog::cubes when the file is in a ZCube
};

// Liquid: one ZCube (files with both ZCube tags and one ZCUBE_ID) as the planner saw it.
struct CubeDecision {
  std::string id;        // ZCUBE_ID
  std::string zorder_by; // ZCUBE_ZORDER_BY as recorded
  bool matching = false; // built from the current clustering columns
  int64_t files = 0;
  int64_t bytes = 0;            // physical
  int64_t estimated_bytes = 0;  // estimated logical size (what the sealing rule compares)
  bool sealed = false;          // estimated_bytes >= min_cube_size (matching cubes only)
};

struct PartitionDecision {
  // "date=2024-01-01/hour=03" (values as recorded, null as "null"); "" = unpartitioned.
  std::string partition;
  int64_t files = 0;       // files of the partition inside the scope
  int64_t candidates = 0;
  int64_t candidate_bytes = 0;
  std::vector<int> bins;   // indexes in DecisionLog::bins, in packing order
  int64_t bins_kept = 0;
  int64_t bins_dropped = 0;
  std::string note;        // auto compaction: why the partition was (not) selected
};

struct BinDecision {
  int id = 0;            // index in DecisionLog::bins (every bin formed, kept or not)
  int plan_bin_id = -1;  // index in Plan::bins; -1 when dropped
  int partition = -1;    // index in DecisionLog::partitions
  int64_t files = 0;
  int64_t bytes = 0;
  bool kept = false;
  std::string reason;
};

struct DecisionLog {
  // The rules the planner applied (copied from the Plan).
  PlanMode mode = PlanMode::kCompaction;
  int64_t min_file_size = 0;
  int64_t max_file_size = 0;
  double max_deleted_rows_ratio = 0;
  std::string target_size_source;
  std::string scope_description;  // "" = the whole table
  int64_t min_num_files = 0;      // auto compaction trigger; 0 otherwise
  // Z-order / liquid: the curve's columns; liquid: the cube rules.
  std::vector<std::string> columns;
  int64_t min_cube_size = 0;
  int64_t target_cube_size = 0;
  bool full = false;

  std::vector<FileDecision> files;  // input order
  std::vector<PartitionDecision> partitions;
  std::vector<BinDecision> bins;
  std::vector<CubeDecision> cubes;  // liquid only, in ZCUBE_ID order
  std::vector<std::string> summary;

  // One sentence on why `f` got its verdict, naming the numbers and thresholds, e.g.
  // "candidate: 1.0 MiB < minFileSize 1.0 GiB; bin 3 (kept)".
  std::string FileReason(const FileDecision& f) const;

  // Human-readable report: rules, summary, then per partition its bins and at most
  // `max_files_per_partition` files (a "... N more" line for the rest; < 0 = all).
  std::vector<std::string> ToText(int max_files_per_partition) const;
  // Everything, machine-readable; every file carries its verdict and reason. For writers
  // that stream a large log, a non-empty `files_placeholder` replaces "files" by that
  // string; FileToJson(i) gives item i of "files".
  nlohmann::json ToJson(std::string_view files_placeholder = {}) const;
  nlohmann::json FileToJson(size_t i) const;

  // Recomputes `summary` from the recorded facts: counts, then -- when no bin is kept --
  // the structural cause (per mode). Called by the planner; idempotent.
  void Summarize();
};

}  // namespace lithify::planner
