// Logical reading of Delta data files: one output Parquet schema with the table's logical
// column names, and a per-file adapter that turns the file's row groups into batches of
// that schema.
//
// Delta data files are written by many engines over many years, so the Parquet layout
// of one logical column varies from file to file: legacy 2-level lists, decimals stored
// as INT32/INT64/FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY of any width, timestamps as INT96 or
// INT64 millis/micros/nanos, narrower types before type widening, and physical names or
// field ids instead of logical names under column mapping. Rendering must follow the
// Delta logical type, so every file is mapped onto ONE output schema built from the Delta
// schema (parquet::SchemaBuilder, every field nullable so any file's nulls fit):
//
//   * leaves are matched through the Delta type tree: struct fields by name (mapping
//     mode none), by delta.columnMapping.physicalName (name) or by Parquet field_id
//     falling back to the physical name (id); list elements and map keys/values by
//     structure (the file's LIST/MAP compatibility classification);
//   * definition levels are remapped step by step (a required step in the file that is
//     nullable in the output adds a level; a 2-level list gains the element level);
//     repetition levels are kept (each list/map has exactly one repeated step);
//   * values are converted when the physical form differs: INT96 and INT64 millis/nanos
//     -> INT64 micros; dates -> timestamp micros (date -> timestamp_ntz widening); INT32
//     -> INT64 and FLOAT/integers -> DOUBLE (widening); decimals from any physical form
//     and scale -> the output's width and scale; FIXED_LEN_BYTE_ARRAY -> BYTE_ARRAY;
//   * a column absent from the file reads as null (for a struct member, null where the
//     enclosing struct is present: the levels of a sibling leaf capped at that struct);
//   * partition columns are constant columns built from the log's partition values.
//
// Not thread-safe; one FileAdapter per open file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/row_constraints.h"
#include "lithify/delta/schema.h"
#include "lithify/expr/bound.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/value.h"

namespace lithify::delta {

// One leaf of the output schema.
struct OutputLeaf {
  std::vector<std::string> logical_path;  // display names, top level first
  const delta::DataType* type = nullptr;  // the leaf's Delta type (points into the schema)
  int top_field = -1;                      // index into the Delta schema's fields
  bool is_partition = false;               // a partition column (top-level primitive)
  bool repeated = false;                   // inside a list or map
};

// The table's logical schema as Parquet, with per-leaf facts.
class OutputSchema {
 public:
  // Builds from the Delta schema. NotSupported for variant columns.
  static Result<OutputSchema> Build(const delta::StructType& schema,
                                    const std::vector<std::string>& partition_columns);

  const parquet::Schema& schema() const { return schema_; }
  const delta::StructType& delta_schema() const { return *delta_schema_; }
  const std::vector<OutputLeaf>& leaves() const { return leaves_; }
  // Output leaves under top-level field `i` of the Delta schema.
  std::vector<int> LeavesOfField(int i) const;

  // Expression binding vocabulary: every non-repeated primitive leaf, by logical path.
  std::vector<expr::BoundColumn> BindableColumns() const;
  // The output leaf with this logical path (exact); -1 when none.
  int FindLeaf(const std::vector<std::string>& logical_path) const;

 private:
  const delta::StructType* delta_schema_ = nullptr;  // owned by the caller (Snapshot)
  parquet::Schema schema_;
  std::vector<OutputLeaf> leaves_;
};

// Reads one data file as batches of the output schema.
class FileAdapter {
 public:
  // `leaves` are the output leaves wanted, in batch order. `partition_values` are the
  // file's typed values of the partition columns, by Delta top-level field index.
  // Errors name the file: a column whose Parquet shape does not fit its Delta type is
  // Corruption ("x.parquet: column 'a.b': file has a group where the table has int").
  static Result<std::unique_ptr<FileAdapter>> Make(
      const OutputSchema& out, delta::ColumnMappingMode mode, parquet::FileReader* reader,
      std::vector<int> leaves, const std::vector<std::optional<table::Value>>& partition_values);
  ~FileAdapter();

  int num_row_groups() const;
  // Reads row group `rg` converted to the output schema; columns in `leaves` order,
  // first_row_index set from the file.
  Result<parquet::RowBatch> ReadRowGroup(int rg);

 private:
  struct Impl;
  explicit FileAdapter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lithify::delta
