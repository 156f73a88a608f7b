// Iceberg table metadata: the JSON document a table's current pointer names
// (format/spec.md "Table Metadata", "Snapshots", "Snapshot References", Appendix C).
//
// ParseTableMetadata reads format versions 1, 2 and 3 with each version's required
// fields (v2+ requires table-uuid, last-sequence-number, schemas + current-schema-id,
// partition-specs + default-spec-id, last-partition-id, sort-orders +
// default-sort-order-id; v1 may give only the deprecated `schema` / `partition-spec`),
// checks the references between them (current schema / default spec / default sort order
// / ref and current snapshot ids exist, snapshot sequence numbers do not exceed
// last-sequence-number, parent snapshots have lower sequence numbers) and returns
// Corruption naming the document and the problem. A version above 3 is NotSupported.
// Snapshot selection (current, by id, by timestamp through the snapshot log, by ref) is
// here too.
//
// TableMetadata is a plain value, immutable after parsing; safe to share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/iceberg/schema.h"

namespace lithify::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;  // 0 for v1
  int64_t timestamp_ms = 0;
  std::string manifest_list;           // v2+ (and most v1)
  std::vector<std::string> manifests;  // v1 alternative to a manifest list
  std::map<std::string, std::string> summary;  // incl. "operation"
  std::optional<int32_t> schema_id;
  std::optional<int64_t> first_row_id;  // v3
  std::optional<int64_t> added_rows;    // v3
  std::optional<std::string> key_id;    // v3 encryption
};

struct SnapshotRef {
  int64_t snapshot_id = 0;
  std::string type;  // "branch" | "tag"
  std::optional<int32_t> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;
};

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
};

struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  std::optional<int64_t> file_footer_size_in_bytes;  // absent for partition statistics
  std::vector<std::string> blob_types;
};

struct TableMetadata {
  int format_version = 1;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = 0;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;  // absent (or -1 in v1 files): no snapshot
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, SnapshotRef> refs;  // always holds "main" when there is a current snapshot
  std::vector<StatisticsFile> statistics;
  std::vector<StatisticsFile> partition_statistics;
  std::optional<int64_t> next_row_id;  // v3
  size_t encryption_keys = 0;          // number of entries in `encryption-keys`

  const Schema& current_schema() const;  // validated to exist
  const Schema* FindSchema(int32_t id) const;
  const PartitionSpec* FindSpec(int32_t id) const;
  const Snapshot* FindSnapshot(int64_t id) const;
  // The current snapshot, or nullptr for a table without one.
  const Snapshot* CurrentSnapshot() const;
};

// Parses a metadata document; `path` names it in errors.
Result<TableMetadata> ParseTableMetadata(std::string_view text, const std::string& path);

// Which snapshot a read sees.
struct SnapshotSelector {
  enum class Kind { kCurrent, kId, kTimestamp, kRef };
  Kind kind = Kind::kCurrent;
  int64_t snapshot_id = 0;  // kId
  int64_t timestamp_ms = 0; // kTimestamp: the snapshot current at this time (snapshot log)
  std::string ref;          // kRef: branch or tag name

  static SnapshotSelector Current() { return {}; }
  static SnapshotSelector Id(int64_t id) { SnapshotSelector s; s.kind = Kind::kId; s.snapshot_id = id; return s; }
  static SnapshotSelector AsOf(int64_t ms) { SnapshotSelector s; s.kind = Kind::kTimestamp; s.timestamp_ms = ms; return s; }
  static SnapshotSelector Ref(std::string r) { SnapshotSelector s; s.kind = Kind::kRef; s.ref = std::move(r); return s; }
};

// The selected snapshot; nullptr (OK) for the current snapshot of a table without one.
// NotFound naming the id / ref, or the timestamp before the first logged snapshot.
Result<const Snapshot*> SelectSnapshot(const TableMetadata& m, const SnapshotSelector& s);

}  // namespace lithify::iceberg
