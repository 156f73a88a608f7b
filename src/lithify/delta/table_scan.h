// Delta's TableScan (table/table_scan.h): a Delta version prepared for a scan.
//
//   open     the snapshot (latest / version / timestamp; a ref is refused), statistics
//            kept as text and parsed per file after partition pruning (a partition
//            predicate on a large table never parses the stats of the files it prunes);
//            --columns matched level by level, exactly, then case-insensitively when
//            unique; the predicate bound against the logical schema (scan_plan.h).
//   plan     PlanKeptFiles: every file judged on the snapshot's compact store.
//   read     one FileEntry at a time: the kept files are read, never held together.
//
// A table with data files but no columns is NotSupported; one with neither reads empty.
#pragma once

#include <memory>
#include <string>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/table_scan.h"

namespace lithify::delta {

// Errors: the snapshot's, a bad predicate InvalidArgument prefixed "predicate: ", an
// unknown or ambiguous column "columns: " (both usage errors at the CLI).
Result<std::unique_ptr<table::TableScan>> OpenDeltaTableScan(io::FileSystem* fs, const std::string& root,
                                                             const table::ScanRequest& request);

}  // namespace lithify::delta
