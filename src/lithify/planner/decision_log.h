// DecisionLog: why a plan looks the way it does, file by file, bin by bin.
//
// Compaction on a badly laid-out table often does nothing, and the question users ask is
// "why?". The planner therefore records every file it considered (candidate or not, and
// the rule that decided it), every partition with its bins, every bin kept or dropped
// with the reason, and a summary that names the structural cause when nothing can be
// compacted ("every partition receives at most one file; no target size or schedule
// changes this"). The log is built from the same facts the planner used, so it never
// disagrees with the Plan.
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
};

// "candidate", "too_large", "too_few_deleted_rows", "no_deleted_rows",
// "outside_predicate", "partition_not_selected".
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

  std::vector<FileDecision> files;  // input order
  std::vector<PartitionDecision> partitions;
  std::vector<BinDecision> bins;
  std::vector<std::string> summary;

  // One sentence on why `f` got its verdict, naming the numbers and thresholds, e.g.
  // "candidate: 1.0 MiB < minFileSize 1.0 GiB; bin 3 (kept)".
  std::string FileReason(const FileDecision& f) const;

  // Human-readable report: rules, summary, then per partition its bins and at most
  // `max_files_per_partition` files (a "... N more" line for the rest; < 0 = all).
  std::vector<std::string> ToText(int max_files_per_partition) const;
  // Everything, machine-readable; every file carries its verdict and reason.
  nlohmann::json ToJson() const;

  // Recomputes `summary` from the recorded facts: counts, then -- when no bin is kept --
  // the structural cause. Called by the planner; idempotent.
  void Summarize();
};

}  // namespace lithify::planner
