// The read-side commands on Apache Iceberg tables that are still Iceberg's own: files
// and diagnose, over the iceberg/ module (metadata, manifests, planning with deletes).
// Scan and describe are no longer here: commands/scan.h runs one scan for both formats
// over table::TableScan (Iceberg's: iceberg/table_scan.h), commands/describe.h one
// describe through formats/describe.h (Iceberg's: iceberg/describe.h).
//
// These are the Iceberg halves of commands whose Delta halves live in files.h and
// diagnose.h; the CLI picks one by DetectTableFormat (formats/table_format.h).
// They share the output vocabulary with Delta where it is neutral (the files verdicts
// "kept" / "skipped-stats") and use Iceberg's own field names where Iceberg has them
// (format-version, current-snapshot-id, file_path, record_count, ...). This file is the
// only place commands/ speaks Iceberg.
//
// Snapshot selection: current, by snapshot id, by ref (branch or tag) or as of a time
// (the snapshot log). Every path the metadata records goes through the location map
// ("FROM=TO" rewrites, iceberg/location.h).
//
// Memory: files and diagnose hold one small record per live data file. No command
// writes anything.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/iceberg/table.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

struct IcebergDiagnoseOptions {
  std::vector<std::string> location_map;
  int64_t now_ms = 0;                          // 0: the system clock
  std::optional<int64_t> target_file_size;     // else write.target-file-size-bytes, 512 MiB
};

// Layout of the current snapshot (files per partition, small files by Iceberg's
// rewrite rule: below min-file-size-bytes = 75% of the target), delete files per data
// file and the deleted-row ratio they imply, and snapshots awaiting expiry (older than
// history.expire.max-snapshot-age-ms, beyond history.expire.min-snapshots-to-keep,
// referenced by no branch or tag); findings with stable codes (docs/diagnose.md).
Result<nlohmann::ordered_json> DiagnoseIceberg(io::FileSystem* fs, const std::string& location,
                                               const IcebergDiagnoseOptions& options);

}  // namespace lithify::commands
