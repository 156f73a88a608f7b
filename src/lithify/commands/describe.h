// Describe: DESCRIBE DETAIL and DESCRIBE HISTORY of a table of any format, each in the
// format's own field names (Delta: format, id, location, numFiles, sizeInBytes,
// tableFeatures, ... and the commitInfo of each commit; Iceberg: format-version,
// table-uuid, current-snapshot-id, ... and its snapshots). The format answers
// (formats/describe.h); only metadata is read. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/version_selector.h"

namespace lithify::commands {

struct DescribeOptions {
  table::VersionSelector version;         // detail: latest by default
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  // The table's format when the caller knows it (else the location is probed).
  std::optional<formats::TableFormat> format;
  int64_t limit = -1;            // history: at most this many entries (< 0: all)
  bool keep_until_exit = false;  // the caller exits next: leave what was loaded to the OS
};

struct Description {
  formats::TableFormat format = formats::TableFormat::kDelta;
  nlohmann::ordered_json document;  // detail: an object; history: an array, newest first
};

// Errors: the format's (NotFound for a missing table or version, Corruption naming a
// malformed log or metadata file, ...).
Result<Description> DescribeTableDetail(io::FileSystem* fs, const std::string& location,
                                        const DescribeOptions& options);
Result<Description> DescribeTableHistory(io::FileSystem* fs, const std::string& location,
                                         const DescribeOptions& options);

}  // namespace lithify::commands
