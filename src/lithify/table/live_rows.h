// The table-format seam (issue 15): a format-neutral view of one table version and the
// live-rows primitive that every reader of rows (scan, delete, OPTIMIZE's streamed bins,
// clustering) goes through, whatever the format.
//
// Vocabulary:
//   * TableColumn: one leaf of the table's logical schema as the format maps it onto the
//     output Parquet schema (logical path, field id when the format has one, physical
//     path as the files store it, partition column or not).
//   * PartitionKey: typed partition tuple of a file (spec id + one typed value per
//     partition field). Delta has one implicit spec (id 0) whose fields are its partition
//     columns in table order; Iceberg has numbered specs.
//   * DeleteInfo / LiveFile: a live data file with the deletes that apply to it:
//     deletion vectors (both formats) now, Iceberg position and equality delete files.
//     A LiveFile is produced by the format's module, which may derive from it to carry
//     what its reader needs (Delta: its FileEntry; Iceberg: its PlannedFile).
//   * TableVersion: format, location, version, columns, partition fields, properties.
//
// The primitive: LiveRows (one per table version) opens a LiveRowsReader for one live
// file. The reader yields LiveBatch values: the requested output leaves, in request
// order, of the file's rows that are live (every delete of the file applied), partition
// columns filled from the file's partition values, columns the file lacks read as null
// (or the format's default), values converted to the output's types; every batch carries
// the file row index of each of its rows (what DV writing and row tracking need). Memory
// is bounded by one row group of the requested columns plus the file's deletes.
//
// Errors name the data file (or the delete file). A LiveRows is immutable after it is
// built and may open readers from several threads; one reader is used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/value.h"

namespace lithify::table {

// One output leaf of a table version's logical schema.
struct TableColumn {
  std::vector<std::string> logical_path;   // display names, top level first
  std::optional<int32_t> field_id;         // the format's field id of the leaf, if any
  std::vector<std::string> physical_path;  // names as the data files store them
  bool is_partition = false;               // a column whose values come from the partition
  bool repeated = false;                   // inside a list or map
};

// The typed partition tuple of a data file. `values[i]` belongs to partition field i of
// spec `spec_id` (nullopt: null).
struct PartitionKey {
  int32_t spec_id = 0;
  std::vector<std::optional<Value>> values;
  friend bool operator==(const PartitionKey&, const PartitionKey&) = default;
};

enum class DeleteKind { kDeletionVector, kPositionDeletes, kEqualityDeletes };

// One delete that applies to a live data file.
struct DeleteInfo {
  DeleteKind kind = DeleteKind::kDeletionVector;
  std::string path;      // the DV file or delete file ("" for an inline DV)
  int64_t rows = 0;      // rows it deletes (DV cardinality) or holds (delete file records)
};

// A live data file of a table version. The format's module fills it (and may derive
// from it); commands read only these fields.
struct LiveFile {
  virtual ~LiveFile() = default;
  std::string path;                    // full path (table root joined)
  int64_t size_bytes = 0;
  std::optional<int64_t> records;      // physical rows, when recorded
  PartitionKey partition;
  std::vector<DeleteInfo> deletes;
};

struct PartitionField {
  std::string name;      // partition field name (Delta: the column; Iceberg: the spec's)
  std::optional<int32_t> source_field_id;
};

// A table version as the commands see it.
struct TableVersion {
  std::string format;    // "delta" or "iceberg"
  std::string location;  // table root (Delta) or metadata file (Iceberg)
  int64_t version = -1;  // Delta version; Iceberg snapshot id (-1: none)
  std::vector<TableColumn> columns;               // by output leaf
  std::vector<PartitionField> partition_fields;   // of the default spec
  std::map<std::string, std::string> properties;
};

// Rows of one live file. `batch.columns[i]` is the i-th requested leaf;
// `row_index[r]` is the file row index (position in the data file) of row r.
struct LiveBatch {
  parquet::RowBatch batch;
  std::vector<int64_t> row_index;
};

class LiveRowsReader {
 public:
  virtual ~LiveRowsReader() = default;
  // The next row group's live rows (possibly none: every row deleted); false after the
  // last row group.
  virtual Result<bool> Next(LiveBatch* out) = 0;
  // Rows dropped by deletes so far.
  virtual int64_t deleted_rows() const = 0;
};

class LiveRows {
 public:
  virtual ~LiveRows() = default;
  // The output schema every batch's columns belong to (every field optional).
  virtual const parquet::Schema& schema() const = 0;
  // The version these rows belong to; version().columns is indexed by output leaf.
  virtual const TableVersion& version() const = 0;
  const std::vector<TableColumn>& columns() const { return version().columns; }
  // A reader of `file`'s live rows with the output leaves `leaves` (ascending or not;
  // batch columns follow this order). Empty `leaves`: no columns, only the live row
  // count and row indexes (the reader may then read no column data). InvalidArgument
  // when `file` is not one of this format's live files.
  virtual Result<std::unique_ptr<LiveRowsReader>> Open(const LiveFile& file, const std::vector<int>& leaves) const = 0;

  // Resolves columns to output leaves, in request order: by the leaf's field id, or by
  // physical path (exact; a path prefix names every leaf under it, in schema order).
  // NotFound naming the column when no leaf matches.
  Result<std::vector<int>> LeavesByFieldId(const std::vector<int32_t>& ids) const;
  Result<std::vector<int>> LeavesByPhysicalPath(const std::vector<std::vector<std::string>>& paths) const;
};

}  // namespace lithify::table
