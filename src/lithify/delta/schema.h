// Delta table schema (Appendix "Schema Serialization Format"), column mapping
// (PROTOCOL.md "Column Mapping") and typed partition values (Appendix "Partition Value
// Serialization").
//
// ParseSchema turns `metaData.schemaString` into a tree of DataType / StructField.
// Column mapping decides which name (or Parquet field id) a logical column has inside
// data files and in the log's partitionValues / statistics: in `none` mode the display
// name, in `name` and `id` modes the `delta.columnMapping.physicalName` (plus the
// `delta.columnMapping.id` field id, used for lookup in `id` mode). ParsePartitionValue
// types a partition value string by its column type.
//
// Values are immutable after parsing and safe to share across threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/table/value.h"

namespace lithify::delta {

struct StructField;

// One Delta data type. Primitive kinds carry only `kind` (and precision/scale for
// decimals); containers carry their children.
struct DataType {
  enum class Kind {
    kBoolean, kByte, kShort, kInteger, kLong, kFloat, kDouble, kDecimal, kString, kBinary,
    kDate, kTimestamp, kTimestampNtz, kVariant, kVoid,
    kStruct, kArray, kMap,
  };
  Kind kind = Kind::kString;
  int precision = 0;  // kDecimal
  int scale = 0;      // kDecimal
  std::vector<StructField> fields;            // kStruct
  std::shared_ptr<const DataType> element;    // kArray
  bool contains_null = true;                  // kArray
  std::shared_ptr<const DataType> key;        // kMap
  std::shared_ptr<const DataType> value;      // kMap
  bool value_contains_null = true;            // kMap

  bool is_primitive() const { return kind < Kind::kStruct; }
  // The schema-string spelling: "integer", "decimal(10,2)", "struct", ...
  std::string ToString() const;
};

struct StructField {
  std::string name;
  DataType type;
  bool nullable = true;
  // Field metadata: key -> the value's JSON text (e.g. "5", "\"col-1a2b\"").
  std::map<std::string, std::string> metadata;

  // delta.columnMapping.physicalName, when present.
  std::optional<std::string> physical_name() const;
  // delta.columnMapping.id, when present and an integer.
  std::optional<int64_t> field_id() const;
};

// The top-level schema: a struct type.
using StructType = DataType;

// Parses a schemaString. Corruption for malformed JSON, an unknown type name, a
// decimal outside 1..38 / scale outside 0..precision, or a missing required key.
// `variant` and `void` parse (the protocol gate decides whether they are readable).
Result<StructType> ParseSchema(std::string_view schema_string);

// The schemaString Delta writes: {"type":"struct","fields":[{"name","type","nullable",
// "metadata"}]} with arrays {"type":"array","elementType","containsNull"} and maps
// {"type":"map","keyType","valueType","valueContainsNull"}. ParseSchema(SchemaToJson(s))
// equals s (metadata values are JSON texts and are embedded as JSON; a value that is
// not valid JSON is written as a JSON string).
std::string SchemaToJson(const StructType& schema);

// Structural equality of two types (names, nullability, metadata, children).
bool SameType(const DataType& a, const DataType& b);

enum class ColumnMappingMode { kNone, kId, kName };

std::string_view ColumnMappingModeName(ColumnMappingMode mode);

// The name a field's column has in data files: its logical name in kNone mode, else its
// delta.columnMapping.physicalName (Corruption naming the field when it has none).
Result<std::string> PhysicalName(const StructField& f, ColumnMappingMode mode);

// `delta.columnMapping.mode` from the configuration ("none" when absent). Corruption
// for an unknown mode. Callers apply it only when the protocol supports column mapping
// (Snapshot does this).
Result<ColumnMappingMode> ParseColumnMappingMode(const std::map<std::string, std::string>& configuration);

// The physical location of a logical column in data files.
struct PhysicalColumn {
  std::vector<std::string> path;     // physical names from the top level down
  std::vector<int64_t> field_ids;    // per level, -1 when absent (ids are required in id mode)
  const StructField* field = nullptr;  // the logical field (points into the schema)
};

// Resolves a logical path (top-level name first; names match exactly, then
// case-insensitively as Spark does when unique) through nested structs. In kNone mode
// physical names are the logical names; in kName/kId modes each level must carry
// delta.columnMapping.physicalName (and .id in kId mode), else Corruption.
// NotFound naming the column when the path does not exist.
Result<PhysicalColumn> ResolvePhysicalColumn(const StructType& schema,
                                             const std::vector<std::string>& logical_path,
                                             ColumnMappingMode mode);

// Types one partition value as stored in `add.partitionValues` (Appendix "Partition
// Value Serialization"): nullopt or "" -> null (for every type, including string);
// numbers in decimal text; boolean "true"/"false"; date "YYYY-MM-DD"; timestamp
// "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC) or ISO-8601 with 'T' and optional "Z";
// timestamp_ntz the same without zone; decimal as plain decimal text; binary as the
// raw string bytes. Corruption naming the value and type when unparseable;
// NotSupported for container types.
Result<table::Value> ParsePartitionValue(const DataType& type,
                                         const std::optional<std::string>& text);

}  // namespace lithify::delta
