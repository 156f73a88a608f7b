// Delta's answer to `files`: the live data files of a table version, and, with a
// predicate, which of them a scan would read and why the others are skipped (the generic
// `files` command, commands/files.h, reaches it through formats/files.h).
//
// Every file is reported with its path, size, partition values (by logical column name),
// numRecords, deletion-vector cardinality, tags and clustering provider. With `where`,
// each file carries the verdict of PlanScan (delta/scan_plan.h): kept, skipped by
// partition values or skipped by statistics, with the evaluator's reason; the summary
// counts them. No data file is opened. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/file_verdict.h"

namespace lithify::delta {

struct FilesOptions {
  VersionSpec version;
  std::string where;  // empty: no predicate (every file kept, no verdicts shown)
};

struct FileReportRow {
  const table::FileEntry* file = nullptr;  // points into `snapshot`
  // Logical partition column -> value text (nullopt = null), in schema order.
  std::vector<std::pair<std::string, std::optional<std::string>>> partition_values;
  table::FileVerdict verdict = table::FileVerdict::kKept;
  std::string reason;
};

struct FilesReport {
  std::shared_ptr<const Snapshot> snapshot;
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

// Errors: as PrepareScan (InvalidArgument "predicate: ..." for a bad predicate).
Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& table_root, const FilesOptions& options);

// The report in Delta's field names: table, version, predicate (with one), files (path,
// size, partitionValues, numRecords, deletionVectorCardinality, tags,
// clusteringProvider, and with a predicate verdict and reason), summary (files, kept,
// skippedByPartition, skippedByStats) and, with a predicate, lookupCost (filesOpened,
// filesTotal, bytesOpened, bytesTotal, rowsInOpenedFiles).
nlohmann::ordered_json FilesReportToJson(const FilesReport& report);

}  // namespace lithify::delta
