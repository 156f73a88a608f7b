// TableScan: one table version prepared for a scan by its format -- the request's
// columns and predicate bound against the version's output schema, and the format's
// planning of which live files a reader of that predicate must open (Delta: partition
// values, then statistics; Iceberg: manifests, partition summaries, column bounds, the
// delete index). The reading is the format-neutral live-rows primitive (live_rows.h);
// commands/scan.h runs one loop over any format's TableScan. Formats open theirs through
// formats/open_table.h.
//
// Order of use: Plan (no data file opened; planning errors come before any output), then
// ForEachFile once. Used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/expr/bound.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/live_rows.h"
#include "lithify/table/version_selector.h"

namespace lithify::table {

// What a scan asks of a table.
struct ScanRequest {
  VersionSelector version;                // latest by default
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  std::string where;                      // predicate text; empty = every row
  std::vector<std::string> columns;       // logical columns ("a", "s.b"); empty = all
  bool count_only = false;                // count rows, render nothing
};

// What a scan does with the rows of every file it reads.
struct LiveScan {
  std::vector<int> leaves;      // output leaves read, in batch order (empty: rows only)
  std::vector<bool> rendered;   // per batch column: handed to the sink (else predicate-only)
  const expr::BoundExpr* predicate = nullptr;
  std::vector<expr::BatchColumn> predicate_columns;  // the predicate's columns in the batch
  bool render = true;            // false: count only
  bool count_row_groups = true;  // add every row group to the row groups read
};

// How many live files the version has and how many planning skipped.
struct ScanFileCounts {
  int64_t files_total = 0;
  int64_t skipped_by_partition = 0;
  int64_t skipped_by_stats = 0;
};

// One file a scan reads: its full path (errors name it) and its live rows.
using OpenLiveRows = std::function<Result<std::unique_ptr<LiveRowsReader>>(const std::vector<int>& leaves)>;

class TableScan {
 public:
  virtual ~TableScan() = default;
  // The output schema; null when the version has no columns (and then no live file: a
  // scan reads nothing and renders nothing).
  virtual const parquet::Schema* schema() const = 0;
  // The top-level output nodes to render, in schema order.
  virtual const std::vector<int>& fields() const = 0;
  // What each read file's rows go through (`render` is the caller's to set).
  virtual const LiveScan& live_scan() const = 0;
  // Plans which files are read (prune = false: every live file, rows filtered only).
  virtual Status Plan(bool prune) = 0;
  // Hands every planned file to `read` in the format's order, until `read` answers false
  // (a limit reached; the format may still finish counting). Fills `counts`.
  virtual Status ForEachFile(const std::function<Result<bool>(const std::string& path, const OpenLiveRows& open)>& read,
                             ScanFileCounts* counts) = 0;
};

}  // namespace lithify::table
