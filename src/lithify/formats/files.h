// `files` for a table of any format: the live data files of a version and, with a
// predicate, which of them a scan reads and why the others are skipped, as the format's
// document in its own field names (Delta's: delta/files_report.h; Iceberg's:
// iceberg/files_report.h). Only metadata is read. Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/version_selector.h"

namespace lithify::formats {

struct FilesRequest {
  table::VersionSelector version;         // latest by default
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  std::string where;                      // empty: no predicate, no verdicts
};

// Both formats' documents have table, predicate (with one), files (with verdict and
// reason when there is a predicate), summary {files, kept, skippedByStats, ...} and, with
// a predicate, lookupCost {filesOpened, filesTotal, bytesOpened, bytesTotal,
// rowsInOpenedFiles}. Errors: the format's (InvalidArgument "predicate: ..." for a bad
// predicate).
Result<nlohmann::ordered_json> ListFiles(io::FileSystem* fs, const std::string& location, const FilesRequest& request,
                                         TableFormat format);

}  // namespace lithify::formats
