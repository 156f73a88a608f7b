// Iceberg's answer to `files`: the live data files of a snapshot with their delete files,
// and, with a predicate, which of them a scan would read (the generic `files` command,
// commands/files.h, reaches it through formats/files.h). Iceberg's own field names
// (file_path, file_size_in_bytes, record_count, spec_id, partition, sequence numbers,
// deletes); the verdicts, summary and lookupCost share Delta's neutral vocabulary ("kept",
// "skipped-stats"). No data file is opened. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/iceberg/table.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg {

struct FileRow {
  PlannedFile file;
  bool kept = true;
  std::string reason;  // why it is skipped
};

struct FilesReport {
  std::shared_ptr<const IcebergTable> table;
  std::optional<int64_t> snapshot_id;  // none: the table has no snapshot
  std::optional<std::string> predicate;
  std::vector<FileRow> files;  // by path
  int64_t files_total = 0, kept = 0, skipped_by_stats = 0;
  int64_t bytes_total = 0, bytes_kept = 0, rows_kept = 0;
  int64_t delete_files = 0;  // distinct live delete files and DVs
};

// The live data files of the selected snapshot, and with `where` which a scan reads.
// Errors name the metadata file, the snapshot id or ref; a bad predicate is
// InvalidArgument "predicate: ...".
Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& location, const SnapshotSelector& snapshot,
                              const std::vector<std::string>& location_map, const std::string& where);

// table, format, metadata-file, snapshot-id, predicate (with one), files, summary (files,
// kept, skippedByStats, deleteFiles) and, with a predicate, lookupCost.
nlohmann::ordered_json FilesReportToJson(const FilesReport& report);

// "position_deletes", "deletion_vector" or "equality_deletes": a delete file's content as
// the files and diagnose documents name it.
std::string_view DeleteKindName(DeleteFile::Kind kind);

// What makes a live delete file distinct when the documents count them: its path and,
// for a deletion vector (several share one Puffin file), its content offset.
std::string DeleteFileKey(const DeleteFile& d);

}  // namespace lithify::iceberg
