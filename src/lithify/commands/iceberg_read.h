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

struct IcebergReadOptions {
  iceberg::SnapshotSelector snapshot;    // current by default
  std::vector<std::string> location_map; // "FROM=TO" entries
};

// Opens the table at `location` (a folder or a metadata file). `fs` must outlive the
// table. Errors name the metadata file; a bad --location-map entry is a usage error.
Result<std::shared_ptr<const iceberg::IcebergTable>> OpenIcebergTable(io::FileSystem* fs,
                                                                      const std::string& location,
                                                                      const std::vector<std::string>& location_map);

struct IcebergFileRow {
  iceberg::PlannedFile file;
  bool kept = true;
  std::string reason;  // why it is skipped
};

struct IcebergFilesReport {
  std::string metadata_path;
  std::optional<int64_t> snapshot_id;  // none: the table has no snapshot
  std::optional<std::string> predicate;
  std::vector<IcebergFileRow> files;  // in manifest order
  int64_t files_total = 0, kept = 0, skipped_by_stats = 0;
  int64_t bytes_total = 0, bytes_kept = 0, rows_kept = 0;
  int64_t delete_files = 0;  // distinct live delete files and DVs
};

// The live data files of the selected snapshot, and with `where` which a scan reads.
// No data file is opened.
Result<IcebergFilesReport> ListIcebergFiles(io::FileSystem* fs, const std::string& location,
                                            const IcebergReadOptions& options, const std::string& where);
nlohmann::ordered_json IcebergFilesToJson(const iceberg::IcebergTable& table, const IcebergFilesReport& r);

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
