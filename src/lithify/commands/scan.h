// Scan: the rows of a table version, filtered by a predicate, in logical form, for any
// format (issue 15's seam):
//
//   open the format's TableScan (formats/open_table.h; Delta's delta/table_scan.h,
//   Iceberg's iceberg/table_scan.h): the version selected, the columns and the
//   predicate bound
//   -> plan: which live files a reader of the predicate must open (the format's skipping;
//      no data file is opened)
//   -> per planned file, one row group at a time: the live rows of the needed leaves from
//      the live-rows primitive (table/live_rows.h: deletes applied, partition values
//      filled, columns mapped), the predicate applied to them, the batch handed to the
//      sink (ScanLiveFile: the per-file loop).
// Memory is bounded by one row group of the needed columns of one file (plus what the
// format's planning holds: Delta's compact store, Iceberg's delete index and one
// manifest block). Stateless; thread-safe for distinct sinks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/live_rows.h"
#include "lithify/table/table_scan.h"
#include "lithify/table/version_selector.h"

namespace lithify::commands {

struct ScanOptions {
  table::VersionSelector version;         // latest by default
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  // The table's format when the caller knows it (else the location is probed).
  std::optional<formats::TableFormat> format;
  std::string where;                 // predicate text; empty = every row
  std::vector<std::string> columns;  // logical columns ("a", "s.b"); empty = all
  int64_t limit = -1;                // < 0: no limit
  bool count_only = false;           // count rows, render nothing
  // false: read every live file and filter rows only (the pushdown oracle in tests).
  bool prune_files = true;
};

// Receives the output. Begin is called once before any Rows call.
class ScanSink {
 public:
  virtual ~ScanSink() = default;
  // `fields` are the top-level output fields to render (nodes of `schema`).
  virtual Status Begin(const parquet::Schema& schema, const std::vector<int>& fields) = 0;
  // Rows [0, n) of `batch` are output (n <= batch.num_rows; n is below num_rows only when
  // the limit is reached).
  virtual Status Rows(const parquet::RowBatch& batch, int64_t n) = 0;
};

// A sink that renders canonical JSON lines or CSV (with a header line) and passes the
// text to `write` one batch at a time.
std::unique_ptr<ScanSink> NewRenderSink(parquet::RowFormat format,
                                        std::function<Status(std::string_view)> write);

struct ScanResult {
  int64_t rows = 0;             // rows output (or counted)
  int64_t files_total = 0;
  int64_t files_skipped_partition = 0;
  int64_t files_skipped_stats = 0;
  int64_t files_read = 0;
  int64_t row_groups_read = 0;
};

using table::LiveScan;

// Reads the live rows of one file through `reader` (either format's), applies the
// predicate, drops predicate-only columns and hands at most `*remaining` rows (< 0:
// unlimited; decremented) to `sink` (when rendering); adds to result->rows and
// row_groups_read. Errors name `path`, and the row group where there is one.
Status ScanLiveFile(table::LiveRowsReader* reader, const std::string& path, const LiveScan& scan,
                    int64_t* remaining, ScanSink* sink, ScanResult* result);

// Runs the scan (see the header comment) over a prepared TableScan. `sink` may be null
// for count_only (then nothing is rendered).
Result<ScanResult> Scan(table::TableScan& scan, const ScanOptions& options, ScanSink* sink);

// Opens the table at `location` (formats::OpenTableScan) and runs the scan. Errors name
// the table or the data file; an unknown or ambiguous --columns entry is InvalidArgument
// prefixed "columns: " naming the column (as a bad predicate is "predicate: ": both are
// mistakes in the request, which the CLI reports as usage errors).
Result<ScanResult> Scan(io::FileSystem* fs, const std::string& location, const ScanOptions& options, ScanSink* sink);

}  // namespace lithify::commands
