// Iceberg's diagnose (the generic `diagnose` command, commands/diagnose.h, reaches it
// through formats/diagnose.h), in Iceberg's own field names (format-version,
// current-snapshot-id, metadata-file) with a summary and findings. Reads the metadata
// file and the manifests of the current snapshot, never a data file. Memory: one small
// record per partition and per live delete file. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg {

struct DiagnoseOptions {
  std::vector<std::string> location_map;    // "FROM=TO" rewrites of recorded paths
  int64_t now_ms = 0;                       // 0: the system clock
  std::optional<int64_t> target_file_size;  // else write.target-file-size-bytes, 512 MiB
};

// Layout of the current snapshot (files per partition, small files by Iceberg's
// rewrite rule: below min-file-size-bytes = 75% of the target), delete files per data
// file and the deleted-row ratio they imply, and snapshots awaiting expiry (older than
// history.expire.max-snapshot-age-ms, beyond history.expire.min-snapshots-to-keep,
// referenced by no branch or tag); findings with stable codes (docs/diagnose.md).
// Errors name the metadata file.
Result<nlohmann::ordered_json> Diagnose(io::FileSystem* fs, const std::string& location,
                                        const DiagnoseOptions& options);

}  // namespace lithify::iceberg
