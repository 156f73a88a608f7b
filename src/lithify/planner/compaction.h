// Bin-packing compaction planning: OPTIMIZE, REORG ... APPLY (PURGE), auto compaction.
//
// Pure functions from a table version's live files (table::FileEntry) to a Plan. The
// mechanism is Delta's (delta-maintenance-facts.md §1.3-§1.6, §5.1, §6); which files are
// candidates is the table format's (TablePolicy::CompactionVerdict, policy.h):
//
//  1. Scope: files outside the partition predicate (`in_scope`) are not considered.
//  2. Candidates: the files `must_rewrite` names, and those the policy accepts under the
//     run's thresholds (minFileSize, maxDeletedRowsRatio). REORG PURGE runs the same
//     rule with minFileSize 0 and ratio 0 (Delta asserts exactly those values), which
//     under Delta's policy selects every file with deleted rows.
//  3. Group by partition values. Delta groups by the *typed* (normalized) values; this
//     planner groups by the values as recorded, because it sees no schema. Callers whose
//     writers format one value two ways (timestamps) normalize partition_values first.
//     Groups are visited in ascending order of their values (Delta: hash order), which
//     makes plans reproducible.
//  4. Per group: stable sort ascending by physical size, then the bin loop: a bin is
//     closed when the next file would make it exceed maxFileSize (size + current >
//     max). Delta also closes the (empty) bin when the very first file is larger than
//     the maximum; that empty bin is dropped by rule 5 outside the multi-dimensional
//     modes, so it is not recorded.
//  5. Keep a bin iff it has more than one file, or exactly one and the mode is REORG:
//     rewriting one file into one file changes nothing, so OPTIMIZE skips single-file
//     bins even when the file was chosen for its deleted rows.
//  6. Batches: unset batch size -> one batch with every bin (one commit); set ->
//     BinPackBySize over the bins' total bytes.
//
// Everything here is a pure function of its arguments (no IO, no clock, no globals), safe
// to call concurrently. Cost: O(n log n) in the number of files, one hash lookup per run
// of same-partition files, plus the plan's FileRefs and the optional log (about 0.3 s of
// CPU for 1,000,000 files with the log; see CompactionScaleTest).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/policy.h"
#include "lithify/table/file_entry.h"

namespace lithify::planner {

using PartitionValues = std::map<std::string, std::optional<std::string>>;

struct CompactionOptions {
  // kCompaction or kReorgPurge. (Auto compaction has its own entry point.)
  PlanMode mode = PlanMode::kCompaction;
  // Candidate threshold and bin capacity; Delta OSS defaults (optimize.minFileSize /
  // optimize.maxFileSize = 1 GiB). Ignored for REORG: minFileSize is 0 there.
  int64_t min_file_size = kGiB;
  int64_t max_file_size = kGiB;
  // Ignored for REORG (0 there).
  double max_deleted_rows_ratio = 0.05;
  // Bytes per batch (Delta optimize.batchSize); unset = one batch.
  std::optional<int64_t> batch_size;
  // The partition predicate; empty = every file. Must not throw.
  std::function<bool(const table::FileEntry&)> in_scope;
  // How the scope reads in the log, e.g. "date >= '2024-01-01'"; "" = whole table.
  std::string scope_description;
  // Files that must be rewritten whatever their size (REORG PURGE: files whose footer
  // holds dropped columns, found by the command). Empty = none. Must not throw.
  std::function<bool(const table::FileEntry&)> must_rewrite;
  // Recorded in Plan::target_size_source (see target_size.h).
  std::string target_size_source;
};

// Plans OPTIMIZE (mode kCompaction) or REORG PURGE (mode kReorgPurge) over `files` (the
// live files of one version, any order). Fills `log` when non-null (its previous contents
// are replaced). InvalidArgument for max_file_size <= 0, min_file_size < 0, a negative or
// NaN ratio, batch_size <= 0, or an unsupported mode.
Result<Plan> PlanCompaction(const TablePolicy& policy, const std::vector<table::FileEntry>& files,
                            const CompactionOptions& options, DecisionLog* log);

struct AutoCompactionOptions {
  // autoCompact.maxFileSize (128 MiB): the bin capacity.
  int64_t max_file_size = 128 * kMiB;
  // autoCompact.minFileSize; unset = max_file_size / 2 (64 MiB).
  std::optional<int64_t> min_file_size;
  double max_deleted_rows_ratio = 0.05;
  // autoCompact.minNumFiles: a touched partition qualifies only with this many candidates.
  int64_t min_num_files = 50;
  // autoCompact.maxNumModifiedPartitions.
  int64_t max_num_partitions = 128;
  std::string target_size_source;
};

// Plans the post-commit auto compaction of the partitions a commit added files to
// (`touched_partitions`; {{}} for an unpartitioned table).
//
// Trigger, and how it differs from Delta (§5.1): Delta keeps per-driver, in-memory
// counters of small files added and removed since the process started, so the first
// write to a partition in a fresh driver always triggers, and the outcome depends on
// process history. lithify is stateless across processes, so the trigger is derived from
// the snapshot alone: a touched partition qualifies when it holds at least
// `min_num_files` compaction candidates (files < minFileSize or with too many deleted
// rows, by the policy's rule). This equals Delta's steady-state rule with
// autoCompact.minFileSize set, and gives every process the same answer. When more than `max_num_partitions` qualify,
// Delta samples at random; here the partitions with the most candidates win (ties by
// partition order), so plans are reproducible. Then the OPTIMIZE rules run with
// minFileSize / maxFileSize above, single-file bins dropped, one batch.
// InvalidArgument as for PlanCompaction, or for min_num_files < 1 / max_num_partitions < 1.
Result<Plan> PlanAutoCompaction(const TablePolicy& policy,
                                const std::vector<table::FileEntry>& files,
                                const std::vector<PartitionValues>& touched_partitions,
                                const AutoCompactionOptions& options, DecisionLog* log);

// Delta's BinPackingUtils.binPackBySize, used for OPTIMIZE batches and optimized writes:
// the items sorted by size ascending (stable), a group closed when it is already at or
// over `max` or the next item would take it over `max`. Returns groups of indexes into
// `sizes`; no empty groups; {} for no items. An item larger than `max` ends alone in its
// group. Precondition: max > 0.
std::vector<std::vector<int>> BinPackBySize(const std::vector<int64_t>& sizes, int64_t max);

// The `--where` rule for OPTIMIZE/REORG/auto compaction: the predicate may reference
// partition columns only. `referenced` is expr::ReferencedColumns of the parsed
// predicate; InvalidArgument naming the first offending column and listing the
// partition columns ("... only partition columns (date, hour) may be used").
Status CheckPartitionOnlyPredicate(const std::vector<std::vector<std::string>>& referenced,
                                   const std::vector<std::string>& partition_columns);

// A plan's batches (Delta optimize.batchSize): unset -> one batch holding every bin, even
// when there are none (numBatches = 1); set -> BinPackBySize over the bins' total bytes.
// Shared by every planner. Precondition: batch_size > 0 when set.
std::vector<Batch> MakeBatches(const Plan& plan, const std::optional<int64_t>& batch_size);

// One file as a plan input (FileRef) and as the decision log first records it
// (FileDecision, verdict kCandidate): shared by every planner so both agree on sizes,
// row counts and deleted rows.
FileRef FileRefOf(const table::FileEntry& f);
FileDecision FileDecisionOf(const table::FileEntry& f);

// The display text of a partition: "date=2024-01-01/hour=03", null as "null", "" for {}.
std::string PartitionText(const PartitionValues& values);

}  // namespace lithify::planner
