// Iceberg's DESCRIBE DETAIL and DESCRIBE HISTORY, in Iceberg's own field names (the
// generic `describe` command, commands/describe.h, reaches them through
// formats/describe.h). Only the metadata file is read, plus the manifests for the live
// file count of the detail. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/iceberg/metadata.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg {

// format, format-version, table-uuid, location, current-snapshot-id, last-sequence-number,
// last-updated-ms, schema (current, with field ids), partition-specs, default-spec-id,
// sort-orders, properties, refs, and the live data file count and bytes of the selected
// snapshot (read from the manifests). Errors name the metadata file, the id or the ref.
Result<nlohmann::ordered_json> DescribeDetail(io::FileSystem* fs, const std::string& location,
                                              const SnapshotSelector& snapshot,
                                              const std::vector<std::string>& location_map);

// The snapshots, newest first (at most `limit` when >= 0), each with snapshot-id,
// parent-snapshot-id, sequence-number, timestamp-ms, timestamp, operation, summary,
// manifest-list and is-current-ancestor; refs pointing at it.
Result<nlohmann::ordered_json> DescribeHistory(io::FileSystem* fs, const std::string& location,
                                               const std::vector<std::string>& location_map, int64_t limit);

}  // namespace lithify::iceberg
