// OPTIMIZE and REORG ... APPLY (PURGE) on a Delta table: plan, rewrite bins, commit.
//
//   load the latest snapshot -> bind --where (partition columns only, as Delta's
//   verifyPartitionPredicates) -> resolve the target size (planner/target_size.h) ->
//   plan with Delta's bin-packing rules and a decision log (planner/compaction.h) ->
//   [dry run stops here] -> per batch: rewrite its bins on a bounded pool (exec/),
//   each bin streaming its inputs -- deletion vectors applied by row index, files
//   written under older schemas mapped onto the current one (column mapping by id or
//   physical name, missing columns null, dropped columns gone) -- into ONE new file per
//   bin under the current schema with fresh exact statistics -> one commit per batch:
//   RemoveFile per input (dataChange=false, extendedFileMetadata, numRecords-only
//   stats, the input's DV and row-tracking fields) and AddFile per output
//   (dataChange=false), operation OPTIMIZE (or REORG with applyPurge) with Delta's
//   operationParameters and operationMetrics; the Transaction downgrades the isolation
//   to SnapshotIsolation, so concurrent appends never conflict.
//
// Invariant: the live row multiset of the table is unchanged by every commit made here.
//
// Conflicts (delta-maintenance-facts.md §1.8): Delta retries OPTIMIZE with the same
// actions only when every input is still live, and fails otherwise. lithify goes
// further: when a concurrent commit removed an input or gave it a new deletion vector,
// the bins holding such inputs are abandoned (reported with the winner's conflict) and
// the other bins are committed on the latest version; their files are never rewritten
// again. Abandoned bins' output files are deleted (no commit references them). A change
// of the partition columns fails the run. No commit is written for a batch that
// produced no file (so a second OPTIMIZE reports numFilesAdded 0 and writes nothing).
//
// Row tracking (PROTOCOL.md "Row Tracking"): on a table with delta.enableRowTracking=true
// every output file carries the materialized row-id and row-commit-version columns the
// configuration names (each row's materialized value, else its input's baseRowId + its
// physical row index / the input's defaultRowCommitVersion), so row ids and commit
// versions survive the rewrite while the new files get fresh baseRowId values; the
// commit is tagged delta.rowTracking.preserved=true.
//
// Fast path: a compaction / REORG bin whose inputs all carry exactly the current
// data-file schema (physical names, field ids, types, annotations) and need no
// row-tracking materialization is concatenated column by column
// (parquet::RewriteFiles: each input column chunk decoded once, memory about one
// column chunk, deletion vectors as its row filter) instead of streamed row group by
// row group; same output name, writer options, AddFile and statistics (taken from the
// output's footer where exact, else by reading the output back). Counted in
// numBinsRewrittenColumnar. Within it, an input row group of at least
// copy_row_group_min_bytes (compressed) in the output's codec that keeps every row is
// copied without decoding (its chunk bytes and footer statistics, which describe exactly
// those bytes), and PLAIN pages in the output's codec are copied once the output chunk
// is PLAIN (parquet/rewrite.h); counted in numRowGroupsCopied / numPagesCopied.
//
// Clustering (commands/cluster.h): with --zorder-by, or on a liquid-clustered table, the
// plan is Z-order / liquid and each bin is sorted on its curve key (external sort under
// clustering_memory_budget) and written as Bin::output_files files; liquid outputs form
// one new ZCube per bin.
//
// Not implemented (refused with NotSupported, before anything is written): row tracking
// in column mapping mode 'id', REORG and auto compaction on liquid-clustered tables
// (Delta runs clustering there), catalog-managed tables.
//
// Stateless; thread-safe for distinct specs. Memory is bounded by one row group per
// running streamed bin (about one column chunk per fast-path bin) plus the plan and its
// decision log.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/exec/bin_runner.h"
#include "lithify/exec/executor.h"
#include "lithify/exec/external_sort.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/compaction.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/table/commit_intent.h"

namespace lithify::commands {

// Where the bins of a run execute (exec/bin_runner.h).
enum class BinRunnerKind {
  kLocal,    // this process's thread pool (the default)
  kProcess,  // each bin a child `runner_program internal run-bin ...` (compaction / REORG bins)
};

struct OptimizeSpec {
  // Partition predicate (expr language, logical names); "" = the whole table.
  std::string where;
  // Bin capacity; unset = delta.targetFileSize, autotune (when asked) or Delta's 1 GiB.
  std::optional<int64_t> target_file_size;
  // Candidate threshold (size < this); unset = the resolved target size (Delta OSS:
  // optimize.minFileSize = optimize.maxFileSize = 1 GiB). Ignored for REORG.
  std::optional<int64_t> min_file_size;
  // Delta optimize.maxDeletedRowsRatio (0.05 when unset). Ignored for REORG.
  std::optional<double> max_deleted_rows_ratio;
  // Bytes per commit batch (Delta optimize.batchSize); unset = one commit.
  std::optional<int64_t> batch_size;
  bool dry_run = false;      // plan only: nothing is written
  bool reorg_purge = false;  // REORG ... APPLY (PURGE) instead of OPTIMIZE
  bool autotune = false;     // size the target by table size (planner/target_size.h)
  int threads = 0;           // bins rewritten at once; 0 = exec::DefaultThreads()
  table::CommitOptions transaction;  // clock, attempts (tests inject a clock)
  // Clustering (commands/cluster.h): OPTIMIZE ... ZORDER BY these columns (dotted logical
  // names); OPTIMIZE FULL on a liquid table; liquid cube sizes (unset = Delta's 100 GiB /
  // 150 GiB); the memory budget of the whole run's clustering sorts (split among running
  // bins; sorted runs spill to temporary files beyond it) and where those go ("" = $TMPDIR;
  // otherwise an existing local directory: a missing one is InvalidArgument, never created).
  std::vector<std::string> zorder_by;
  bool full = false;
  std::optional<int64_t> min_cube_size;
  std::optional<int64_t> target_cube_size;
  int64_t clustering_memory_budget = int64_t{256} << 20;
  std::string spill_dir;
  // Test and fault-injection hook: called after a batch's bins are rewritten and before
  // its first commit attempt, with the batch index. A non-OK status aborts the run.
  std::function<Status(int batch)> before_commit;
  // Auto compaction (commands/auto_compact.h sets these): when set, the plan is
  // planner::PlanAutoCompaction over these touched partitions with `auto_compact`
  // (where / sizes / ratio / batch_size above are ignored), and the commit records
  // operationParameters auto=true and predicate [auto_compact_predicate] ("" = []).
  std::optional<std::vector<planner::PartitionValues>> auto_compact_partitions;
  planner::AutoCompactionOptions auto_compact;
  std::string auto_compact_predicate;
  // lithify: bins whose inputs all have the data-file schema are rewritten column at a
  // time (see "Fast path" above); false streams every bin (tests compare the paths).
  bool columnar_rewrite = true;
  // lithify: on that path, input row groups of at least this many compressed bytes are
  // copied whole (see "Fast path"); 0 = never. Small row groups are always merged.
  int64_t copy_row_group_min_bytes = int64_t{32} << 20;
  // lithify: where bins run (tests compare the runners; the CLI's hidden --runner). The
  // process runner needs a local table path the child can open and the lithify
  // program's path (e.g. /proc/self/exe); at most `threads` children run at once. It
  // refuses Z-order and liquid plans (NotSupported, before anything is written).
  BinRunnerKind runner = BinRunnerKind::kLocal;
  std::string runner_program;
};

// Delta's OptimizeMetrics (delta-maintenance-facts.md §2.3), field names as Delta's.
struct FileSizeMetrics {
  std::optional<int64_t> min;  // none when total_files == 0
  std::optional<int64_t> max;
  double avg = 0;              // total_size / total_files
  int64_t total_files = 0;
  int64_t total_size = 0;
};
struct OptimizeMetrics {
  int64_t num_files_added = 0;
  int64_t num_files_removed = 0;
  FileSizeMetrics files_added;
  FileSizeMetrics files_removed;
  int64_t partitions_optimized = 0;  // distinct partitions among planned bins
  int64_t num_bins = 0;              // planned bins
  int64_t num_batches = 0;
  int64_t total_considered_files = 0;  // files inside --where
  int64_t total_files_skipped = 0;     // considered - removed
  bool preserve_insertion_order = false;
  int64_t num_files_skipped_to_reduce_write_amplification = 0;
  int64_t num_bytes_skipped_to_reduce_write_amplification = 0;
  int64_t start_time_ms = 0;  // when the run started (Delta records it at the end)
  int64_t end_time_ms = 0;
  int64_t total_cluster_parallelism = 0;  // worker threads
  int64_t total_scheduled_tasks = 0;      // bins run
  // Present only when a removed file had a deletion vector.
  std::optional<int64_t> num_deletion_vectors_removed;
  std::optional<int64_t> num_deletion_vector_rows_removed;
  int64_t num_table_columns = 0;
  int64_t num_table_columns_with_stats = 0;
  // lithify extension (not in Delta's metrics; JSON "numBinsRewrittenColumnar", last):
  // bins written by the column-at-a-time fast path rather than streamed row groups.
  int64_t num_bins_rewritten_columnar = 0;
  // lithify extensions too ("numRowGroupsCopied", "numPagesCopied"): what that path
  // copied without re-encoding.
  int64_t num_row_groups_copied = 0;
  int64_t num_pages_copied = 0;
  // Delta's zOrderStats (Z-order runs) / clusteringStats (liquid runs); null otherwise.
  nlohmann::ordered_json zorder_stats;
  nlohmann::ordered_json clustering_stats;
};
// {"numFilesAdded":..,"numFilesRemoved":..,"filesAdded":{"min":..|null,"max":..,"avg":..,
// "totalFiles":..,"totalSize":..},"filesRemoved":{...},"partitionsOptimized":..,...,
// "deletionVectorStats":{...}|null,...} in Delta's field order.
nlohmann::ordered_json OptimizeMetricsToJson(const OptimizeMetrics& m);

// A bin that was rewritten but not committed, and why.
struct AbandonedBin {
  int bin_id = -1;
  std::string reason;  // names the input and the concurrent commit's conflict
};

struct OptimizeResult {
  planner::Plan plan;
  planner::DecisionLog log;
  OptimizeMetrics metrics;
  int64_t read_version = -1;
  std::vector<int64_t> versions;  // one per committed batch, ascending
  std::vector<AbandonedBin> abandoned;
  int64_t orphans_deleted = 0;    // output files of abandoned bins removed again
  bool dry_run = false;
  // Clustering runs: sorted runs spilled, their bytes, and the largest per-bin peak of
  // buffered bytes (exec/external_sort.h).
  exec::SortStats clustering_sort;
};

using ProgressFn = exec::ProgressFn;

// Runs OPTIMIZE / REORG PURGE per the spec (see the header comment). Errors:
//  - InvalidArgument: a --where that does not parse or bind ("predicate: ..."), that
//    references a non-partition column ("OPTIMIZE --where may only reference partition
//    columns; 'x' is not one"), or a non-positive size / negative ratio / threads < 0;
//  - NotSupported: see above, or the protocol blocks writes;
//  - the snapshot's errors; data-file errors naming the file (a null in a NOT NULL
//    column is Corruption); Conflict when a concurrent change cannot be absorbed
//    (partition columns changed, or commit retries exhausted).
// Output files written before a failure stay as orphans no version references.
Result<OptimizeResult> Optimize(io::FileSystem* fs, const std::string& root, const OptimizeSpec& spec,
                                ProgressFn progress = {});

// One bin of a serialized plan, run in this process (`lithify internal run-bin`, the
// child of the process runner): the table at `version` (the plan's read version).
struct RunBinSpec {
  planner::Plan plan;
  int bin_id = -1;
  int64_t version = -1;
  bool columnar_rewrite = true;  // as OptimizeSpec
  int64_t copy_row_group_min_bytes = int64_t{32} << 20;
};
// Writes the bin's output files into the table and returns its result (inputs, outputs
// with their statistics, metrics); commits nothing. Errors: InvalidArgument for a bin id
// not in the plan or an input that is not live at `version`; NotSupported for Z-order /
// liquid plans and what Optimize refuses on the table; the bin's own errors naming the
// file. On error the bin's output is discarded (its writer aborted, a finished fast-path
// output deleted); a process killed mid-bin leaves an orphan no version references.
Result<exec::BinResult> RunPlanBin(io::FileSystem* fs, const std::string& root, const RunBinSpec& spec);

}  // namespace lithify::commands
