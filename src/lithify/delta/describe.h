// Delta's DESCRIBE DETAIL and DESCRIBE HISTORY for one table (the generic `describe`
// command, commands/describe.h, reaches it through formats/describe.h).
//
// DescribeDetail reports one version (latest by default) with the fields of Delta's
// DESCRIBE DETAIL: format, id, name, description, location, createdAt, lastModified (the
// version's commit timestamp), partitionColumns, clusteringColumns (logical names, from
// the `delta.clustering` domain metadata, or the older `delta.liquid` one), numFiles,
// sizeInBytes, properties, minReaderVersion, minWriterVersion and tableFeatures (the
// protocol's feature lists; for legacy protocols the features the versions imply, as
// Delta lists them).
//
// DescribeHistory reads the commitInfo of every commit file still present in the log,
// newest first (a version reachable only through a checkpoint has no history entry, as in
// Delta). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {

struct TableDetail {
  std::string format = "delta";
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::string location;
  std::optional<int64_t> created_at_ms;
  int64_t last_modified_ms = 0;
  int64_t version = 0;
  std::vector<std::string> partition_columns;
  std::vector<std::string> clustering_columns;  // dotted logical paths
  int64_t num_files = 0;
  int64_t size_in_bytes = 0;
  std::map<std::string, std::string> properties;
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::vector<std::string> table_features;  // sorted, unique
};

// Errors: the snapshot's (NotFound for a missing table or version, ...). With `keep`,
// the loaded snapshot is handed to the caller instead of being destroyed here (a process
// about to exit can leave a 1,000,000-file snapshot to the OS rather than free it).
Result<TableDetail> DescribeDetail(io::FileSystem* fs, const std::string& table_root,
                                   VersionSpec version = VersionSpec::Latest(),
                                   std::shared_ptr<const Snapshot>* keep = nullptr);

struct HistoryEntry {
  int64_t version = 0;
  int64_t timestamp_ms = 0;  // inCommitTimestamp, else the monotonized commit file mtime
  std::optional<std::string> commit_info;  // the commitInfo object as JSON text, when present
};

// Newest first; at most `limit` entries (< 0: all). Errors: NotFound when there is no
// Delta log; Corruption naming the commit file for malformed JSON.
Result<std::vector<HistoryEntry>> DescribeHistory(io::FileSystem* fs, const std::string& table_root,
                                                  int64_t limit = -1);

// The features a protocol has: its explicit lists (reader version 3 / writer version 7)
// or the ones implied by legacy versions.
std::vector<std::string> TableFeatures(const Protocol& protocol);

// The JSON of `describe detail|history --json` and of the panel's /api/describe: Delta's
// field names, timestamps as "2024-01-31T12:00:00.123Z". History keeps the commitInfo
// fields DESCRIBE HISTORY shows (operation, operationParameters, operationMetrics, ...).
nlohmann::ordered_json TableDetailToJson(const TableDetail& d);
nlohmann::ordered_json HistoryEntryToJson(const HistoryEntry& e);
// Milliseconds since the epoch as ISO-8601 UTC with milliseconds.
std::string IsoMillisText(int64_t ms);

}  // namespace lithify::delta
