// Files: the live data files of a Delta table version, and, with a predicate, which of
// them a scan would read and why the others are skipped.
//
// Every file is reported with its path, size, partition values (by logical column name),
// numRecords, deletion-vector cardinality, tags and clustering provider. With `where`,
// each file carries the verdict of PlanScan (scan.h): kept, skipped by partition values
// or skipped by statistics, with the evaluator's reason; the summary counts them. No data
// file is opened. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/commands/scan.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

// Delta's scan planning (delta/scan_plan.h) explains every file.
using delta::FileDecision;
using delta::PlanScan;
using delta::PrepareScan;
using delta::ScanContext;
using table::FileVerdict;
using table::FileVerdictName;

struct FilesOptions {
  delta::VersionSpec version;
  std::string where;  // empty: no predicate (every file kept, no verdicts shown)
};

struct FileReportRow {
  const table::FileEntry* file = nullptr;  // points into `snapshot`
  // Logical partition column -> value text (nullopt = null), in schema order.
  std::vector<std::pair<std::string, std::optional<std::string>>> partition_values;
  FileVerdict verdict = FileVerdict::kKept;
  std::string reason;
};

struct FilesReport {
  std::shared_ptr<const delta::Snapshot> snapshot;
  std::optional<std::string> predicate;  // canonical text of the bound predicate
  std::vector<FileReportRow> files;      // snapshot order (by path)
  int64_t files_total = 0;
  int64_t skipped_by_partition = 0;
  int64_t skipped_by_stats = 0;
  int64_t kept = 0;
  // Lookup cost: what a scan with the predicate opens after skipping (the kept files) out
  // of the whole version -- e.g. for a point lookup `customer_id = 42`, the number of
  // files a reader must open, which clustering on customer_id drives down.
  int64_t bytes_total = 0;
  int64_t bytes_kept = 0;
  int64_t rows_kept = 0;  // physical rows of the kept files (recorded counts)
};

// "lookup cost: opens 3 of 120 files (2.5%), 4.1 MiB of 160.0 MiB" for a report with a
// predicate; "" without one.
std::string LookupCostText(const FilesReport& report);

// Errors: as PrepareScan (InvalidArgument "predicate: ..." for a bad predicate).
Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& table_root,
                              const FilesOptions& options);

}  // namespace lithify::commands
