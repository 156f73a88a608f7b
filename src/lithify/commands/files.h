// Files: the live data files of a table version of any format, and, with a predicate,
// which of them a scan would read and why the others are skipped. The format answers in
// its own field names (formats/files.h: Delta's path, size, partitionValues, numRecords,
// deletionVectorCardinality, ...; Iceberg's file_path, file_size_in_bytes, record_count,
// deletes, ...); the verdicts, summary and lookupCost are shared. No data file is opened.
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/version_selector.h"

namespace lithify::commands {

struct FilesOptions {
  table::VersionSelector version;         // latest by default
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  std::string where;                      // empty: no predicate (every file kept, no verdicts)
  // The table's format when the caller knows it (else the location is probed).
  std::optional<formats::TableFormat> format;
};

struct FilesListing {
  formats::TableFormat format = formats::TableFormat::kDelta;
  nlohmann::ordered_json document;
};

// Errors: the format's (InvalidArgument "predicate: ..." for a bad predicate; NotFound
// for a missing table or version).
Result<FilesListing> ListTableFiles(io::FileSystem* fs, const std::string& location, const FilesOptions& options);

// "lookup cost: opens 3 of 120 files (2.5%), 4.1 MiB of 160.0 MiB" from a document with a
// predicate (its lookupCost); "" without one.
std::string LookupCostText(const nlohmann::ordered_json& document);

}  // namespace lithify::commands
