// DESCRIBE DETAIL and DESCRIBE HISTORY for a table of any format, each in its format's
// own field names (Delta's: delta/describe.h; Iceberg's: iceberg/describe.h). Only
// metadata is read. Stateless; thread-safe.
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

namespace lithify::formats {

struct DescribeRequest {
  table::VersionSelector version;         // detail: which version (latest by default)
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
  int64_t limit = -1;                     // history: at most this many entries (< 0: all)
  // A process about to exit: what the detail loaded (a Delta snapshot of a million files
  // is hundreds of MB) is left to the OS instead of being freed.
  bool keep_until_exit = false;
};

// The detail document of the version `request` selects. Errors: the format's.
Result<nlohmann::ordered_json> DescribeDetail(io::FileSystem* fs, const std::string& location,
                                              const DescribeRequest& request, TableFormat format);

// The history document (an array, newest first). Errors: the format's.
Result<nlohmann::ordered_json> DescribeHistory(io::FileSystem* fs, const std::string& location,
                                               const DescribeRequest& request, TableFormat format);

}  // namespace lithify::formats
