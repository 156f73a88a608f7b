// Live rows of one Iceberg data file in the table's current schema.
//
// OutputSchema maps the current Iceberg schema to one Parquet schema (every field
// optional, so any file's nulls fit; types in Iceberg's Parquet mapping: uuid as
// FIXED_LEN_BYTE_ARRAY(16) UUID, time as TIME(MICROS), timestamps as TIMESTAMP(MICROS |
// NANOS) with the zone flag, lists and maps in 3-level form) and remembers the field id
// of every node. Rows render canonically with parquet::RenderRows.
//
// LiveRowsReader opens one planned data file with lithify's own Parquet reader and, per
// row group, produces a batch of the output schema:
//   * columns are matched by Parquet field id; a file without field ids is matched through
//     the table's schema.name-mapping.default (names -> ids, nested too), else by name;
//   * values are converted where the file's physical form differs (int -> long, float ->
//     double, decimal widening and any decimal storage, date -> timestamp, timestamp units
//     and INT96, fixed <-> binary);
//   * a column missing from the file reads as its identity partition value from the
//     manifest, else its `initial-default`, else null (nested members too, under their
//     present parent); a missing struct is null unless its initial-default is {} (the
//     only non-null struct default the spec allows; others are Corruption), then its
//     members take their own defaults, recursively; a non-null list or map default is
//     NotSupported;
//   * deletes are applied: the deletion vector (Puffin blob: length, magic, CRC checked),
//     position delete files (rows whose file_path is this file's recorded path), and
//     equality delete files (a row is deleted when its values equal a delete row's on
//     every equality field, NULL equal to NULL); each batch carries the file row index of
//     every row it keeps. An equality field the current schema dropped is resolved in the
//     newest schema that has it and read from data and delete files by field id without
//     being output (NotSupported when no schema has it or it sits in a list or map).
// Memory: one row group of the projected columns at a time, plus this file's deleted
// positions and the key sets of the equality deletes that apply to it.
// Errors name the data (or delete) file. Not thread-safe; one reader per file.
//
// Row lineage (v3): the metadata columns `_row_id` and `_last_updated_sequence_number`
// (reserved field ids below) are read when asked for (WithRowLineage): a value the data
// file stores is kept; a null or a column the file lacks is inherited: `_row_id` =
// the file's first_row_id + the row's position in the file (counted before deletes; null
// when the file has no first_row_id), `_last_updated_sequence_number` = the file's data
// sequence number.
//
// IcebergLiveRows is Iceberg's side of the live-rows primitive (table/live_rows.h): the
// output schema and the table version's neutral view, opening a LiveRowsReader for an
// IcebergLiveFile (a planned file in neutral terms).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/iceberg/table.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/live_rows.h"

namespace lithify::iceberg {

inline constexpr int32_t kRowIdFieldId = 2147483540;
inline constexpr int32_t kLastUpdatedSequenceNumberFieldId = 2147483539;
inline constexpr const char* kRowIdColumn = "_row_id";
inline constexpr const char* kLastUpdatedSequenceNumberColumn = "_last_updated_sequence_number";

// `schema` with the two row-lineage columns appended (optional longs with the reserved
// ids); a column of that name the schema already has is left as it is.
Schema WithRowLineage(const Schema& schema);

class OutputSchema {
 public:
  // NotSupported naming a column of a type lithify cannot read (variant, geometry,
  // geography); InvalidArgument for a schema without columns.
  static Result<OutputSchema> Build(const Schema& schema);

  const parquet::Schema& schema() const { return schema_; }
  const Schema& iceberg_schema() const { return iceberg_; }
  // The Iceberg field of output node `node` (nullptr for the root and for the repeated
  // middle groups of lists and maps).
  const NestedField* field(int node) const { return node_fields_[node]; }
  // Top-level node indices, for RenderRows.
  std::vector<int> top_level_fields() const { return schema_.top_level_fields(); }
  // Output leaves whose field ids are in `ids` (all leaves when empty).
  std::vector<int> LeavesFor(const std::vector<int32_t>& ids) const;

 private:
  Schema iceberg_;
  parquet::Schema schema_;
  std::vector<const NestedField*> node_fields_;
};

// Columns: the reader's leaves, in order; row_index: the file row index of every row.
using LiveBatch = table::LiveBatch;

class LiveRowsReader final : public table::LiveRowsReader {
 public:
  // `leaves` are output leaves (empty: all, unless `rows_only`: then batches carry no
  // columns, only the live rows). Reads the deletes of `file` now.
  static Result<std::unique_ptr<LiveRowsReader>> Open(const IcebergTable& table, const OutputSchema& out,
                                                      const PlannedFile& file, std::vector<int> leaves = {},
                                                      bool rows_only = false);
  ~LiveRowsReader() override;
  // The next row group's live rows (possibly none); false after the last row group.
  Result<bool> Next(LiveBatch* out) override;
  int64_t deleted_rows() const override;

 private:
  struct Impl;
  explicit LiveRowsReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A planned data file with its deletes, in neutral terms (partition: the manifest's
// spec id and tuple).
struct IcebergLiveFile : table::LiveFile {
  PlannedFile planned;
};

class IcebergLiveRows final : public table::LiveRows {
 public:
  // The live rows of `snapshot` (nullptr: a table without one) in the current schema,
  // plus the row-lineage columns when `row_lineage` (InvalidArgument below format
  // version 3). Errors as OutputSchema::Build's. `table` must stay alive (it is shared).
  static Result<std::unique_ptr<IcebergLiveRows>> Make(std::shared_ptr<const IcebergTable> table,
                                                       const Snapshot* snapshot, bool row_lineage = false);

  const parquet::Schema& schema() const override { return out_.schema(); }
  const table::TableVersion& version() const override { return version_; }
  // InvalidArgument unless `file` is an IcebergLiveFile.
  Result<std::unique_ptr<table::LiveRowsReader>> Open(const table::LiveFile& file,
                                                      const std::vector<int>& leaves) const override;

  const OutputSchema& output() const { return out_; }
  IcebergLiveFile Describe(PlannedFile file) const;

 private:
  IcebergLiveRows(std::shared_ptr<const IcebergTable> table, OutputSchema out)
      : table_(std::move(table)), out_(std::move(out)) {}
  std::shared_ptr<const IcebergTable> table_;
  OutputSchema out_;
  table::TableVersion version_;
};

}  // namespace lithify::iceberg
