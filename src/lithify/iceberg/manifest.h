// Manifest lists and manifests (format/spec.md "Manifests", "Manifest Lists", "Sequence
// Number Inheritance", "First Row ID Inheritance"), v1 to v3.
//
// ReadManifestList returns a snapshot's manifests with v1 defaults applied (content data,
// sequence numbers 0). ReadManifest streams a manifest's entries to a sink, one at a time
// (memory bounded by one Avro block), with:
//   * fields found by field id (names only as a fallback), so any writer's field order
//     and extra fields are fine;
//   * sequence numbers inherited from the manifest list entry when null and the entry is
//     ADDED (v1 manifests read as 0), and checked: a data sequence number above its
//     manifest's, or a manifest's above its snapshot's, is Corruption ("going
//     backwards");
//   * first_row_id inherited from the manifest's first_row_id plus the record counts of
//     the earlier files without one;
//   * the partition tuple typed by the manifest's partition spec (its result types from
//     the source columns' types), one table::Value per spec field;
//   * column statistics maps by field id; bounds kept as their serialized bytes (typed
//     on use with values.h, against the reading schema);
//   * every recorded path mapped through the LocationMap (the recorded form is kept too:
//     position deletes and deletion vectors name data files by it).
// Errors name the manifest (list) file. Encryption (`key_metadata`) and manifests of
// other content than data/deletes are NotSupported.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/iceberg/location.h"
#include "lithify/iceberg/metadata.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/value.h"

namespace lithify::iceberg {

struct FieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound, upper_bound;  // serialized
};

struct ManifestFile {
  std::string path;           // mapped
  std::string recorded_path;  // as in the manifest list
  int64_t length = 0;
  int32_t spec_id = 0;
  int32_t content = 0;        // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  std::optional<int32_t> added_files_count, existing_files_count, deleted_files_count;
  std::optional<int64_t> added_rows_count, existing_rows_count, deleted_rows_count;
  std::vector<FieldSummary> partitions;
  std::optional<int64_t> first_row_id;
};

enum class FileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
std::string_view FileContentName(FileContent c);

struct DataFile {
  FileContent content = FileContent::kData;
  std::string path;           // mapped
  std::string recorded_path;  // as in the manifest
  std::string file_format;    // upper case: PARQUET, AVRO, ORC, PUFFIN
  std::vector<table::Value> partition;  // per field of the manifest's spec
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes, value_counts, null_value_counts, nan_value_counts;
  std::map<int32_t, std::string> lower_bounds, upper_bounds;
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  std::optional<int64_t> first_row_id;
  std::optional<std::string> referenced_data_file;  // as recorded
  std::optional<int64_t> content_offset, content_size_in_bytes;
};

struct ManifestEntry {
  int32_t status = 1;  // 0 EXISTING, 1 ADDED, 2 DELETED
  std::optional<int64_t> snapshot_id;
  int64_t sequence_number = 0;       // data sequence number, after inheritance
  int64_t file_sequence_number = 0;  // after inheritance
  int32_t spec_id = 0;
  DataFile file;
};

// The snapshot's manifests (its manifest list, or v1's inline `manifests`).
Result<std::vector<ManifestFile>> ReadManifests(io::FileSystem* fs, const TableMetadata& m,
                                                const Snapshot& snapshot, const LocationMap& map);

// Which column statistics ReadManifest decodes into DataFile. Most of an entry's bytes are
// its statistics maps, and planning needs only the bounds and null counts of the columns
// its predicate names: the rest is stepped over (still checked), not decoded.
struct StatsSelection {
  bool all = true;                 // every map, every column
  std::vector<int32_t> field_ids;  // when !all: lower/upper bounds and null counts of these
                                   // columns only; column sizes, value and NaN counts none
  static StatsSelection All() { return {}; }
  static StatsSelection Columns(std::vector<int32_t> ids) { return {false, std::move(ids)}; }
};

// How entries are decoded: straight from the bytes into ManifestEntry by a decoder compiled
// from the writer schema (the default; writer schemas of shapes it does not know fall back
// to the Value tree), or always through the generic Value tree (tests compare the two).
enum class ManifestDecoding { kDirect, kValueTree };

// Streams the entries of `manifest` to `sink` (a sink error stops the read and is
// returned as is), with the statistics `stats` selects.
Status ReadManifest(io::FileSystem* fs, const TableMetadata& m, const Snapshot& snapshot,
                    const ManifestFile& manifest, const LocationMap& map,
                    const std::function<Status(ManifestEntry&&)>& sink,
                    const StatsSelection& stats = StatsSelection::All(),
                    ManifestDecoding decoding = ManifestDecoding::kDirect);

}  // namespace lithify::iceberg
