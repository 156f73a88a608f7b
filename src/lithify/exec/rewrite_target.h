// RewriteTarget: what OPTIMIZE, REORG, auto compaction and clustering need of one table
// version, whatever its format (issue 15's seam for maintenance). The command
// (commands/optimize.cc) plans with the shared planner under the target's policy, runs the
// bins over the target's BinIo, and commits what they produced through the target's
// committer with its own batching and abandon-and-retry rule; everything that is the
// format's -- which rewrites the table allows, how --where scopes files, which columns a
// table clusters by and how a clustered output is tagged, the metric names a commit
// records, where a bin's rows come from and go to -- is answered here. Delta's target is
// delta/rewrite_target.h; a format opens its target through formats/open_table.h.
//
// A target is made for one version and one request (the operation and its --where,
// bound when it is opened). It is used by one thread, except bin_io() and Find(), which
// the executor calls from its bin threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/exec/executor.h"
#include "lithify/parquet/schema.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/policy.h"
#include "lithify/table/commit_intent.h"
#include "lithify/table/file_entry.h"

namespace lithify::exec {

// What the command asks of the table, for the format's checks and choices.
struct RewriteRequest {
  std::string operation;  // "OPTIMIZE" or "REORG"
  std::string where;      // the partition predicate as given ("" = whole table)
  std::vector<std::string> zorder_by;  // dotted logical names
  bool full = false;                   // OPTIMIZE FULL
  bool reorg_purge = false;
  bool auto_compaction = false;
};

// How a run clusters its bins: kZOrder or kLiquid with the columns, or kCompaction when it
// does not cluster.
struct ClusteringRequest {
  planner::PlanMode mode = planner::PlanMode::kCompaction;
  std::vector<std::string> columns;             // logical names as recorded (dotted)
  std::vector<std::vector<std::string>> paths;  // logical paths
  bool active() const { return mode == planner::PlanMode::kZOrder || mode == planner::PlanMode::kLiquid; }
};

// How bins read and write (set before the first bin runs).
struct BinIoOptions {
  bool columnar = true;                   // whole-column rewrites where the inputs allow
  int64_t copy_row_group_min_bytes = 0;   // input row groups copied whole from this size
  int64_t row_group_bytes = 0;            // output row group size; 0 = the writer's default
  // Column chunks one bin encodes at once (parquet::RewriteOptions::threads); 0 = the CPU
  // pool's size. Bins that already run side by side on every thread take 1: each leaf
  // then streams its pages instead of holding a compressed chunk per leaf in flight.
  int column_threads = 0;
};

class RewriteTarget {
 public:
  virtual ~RewriteTarget() = default;

  virtual const std::string& root() const = 0;
  virtual int64_t version() const = 0;
  // The live files of the version (the planner's input), in the format's order.
  virtual const std::vector<table::FileEntry>& files() const = 0;
  virtual const planner::TablePolicy& policy() const = 0;
  virtual const std::map<std::string, std::string>& properties() const = 0;
  // Whether the schema has columns (a log-only table may have none).
  virtual bool has_columns() const = 0;
  // Top-level columns, and how many of them the statistics writer indexes.
  virtual int64_t num_table_columns() const = 0;
  virtual int64_t num_table_columns_with_stats() const = 0;

  // The clustering the request and the table call for, or the format's refusal (an
  // InvalidArgument whose message starts with the format's error class).
  virtual Result<ClusteringRequest> ResolveClustering(const RewriteRequest& request) const = 0;
  // Everything the format refuses for this request before anything is written: a --where
  // that is not partition-only, a table lithify cannot write, a rewrite a table feature
  // forbids, row tracking it cannot preserve.
  virtual Status CheckRewrite(const RewriteRequest& request) const = 0;
  // With a --where: the files its partition values keep (pointers into files()).
  virtual Result<std::vector<const table::FileEntry*>> FilesInScope() const = 0;

  // The BinIo every bin of the run reads and writes through (made on the first call;
  // later calls return the same one and ignore `options`).
  virtual Result<BinIo*> bin_io(const BinIoOptions& options) = 0;
  // The schema of the batches bin_io() emits (after bin_io() was made).
  virtual const parquet::Schema& file_schema() const = 0;
  // The leaves of file_schema() that cluster `request`: InvalidArgument naming a column
  // that is not a primitive leaf outside lists and maps.
  virtual Result<std::vector<int>> ClusteringLeaves(const ClusteringRequest& request) const = 0;
  // A plan input's entry in this version (nullptr: not live here).
  virtual const table::FileEntry* Find(const planner::FileRef& ref) const = 0;

  // Marks one clustered bin's outputs as one new cube of `columns` with id `cube_id`.
  virtual void TagClusteredOutputs(const std::vector<std::string>& columns, const std::string& cube_id,
                                   std::vector<table::AddedFile>* adds) const = 0;
  // Whether the commit preserves row ids (the format's row lineage).
  virtual bool row_ids_preserved() const = 0;
  // The commit's metrics, as the format names them.
  virtual std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added,
                                                              const std::vector<const table::FileEntry*>& removed) const = 0;
  virtual table::TableCommitter& committer() = 0;
};

}  // namespace lithify::exec
