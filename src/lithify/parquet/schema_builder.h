// SchemaBuilder: Parquet schemas for the Delta Lake data types.
//
// A FieldSpec tree describes fields in Delta terms (boolean, byte, short, int, long,
// float, double, string, binary, decimal(p,s), date, timestamp, timestamp_ntz, struct,
// array, map; nullable or not; optional field ids); BuildSchema maps it to the Parquet
// representation Delta writers use:
//   byte/short      INT32 + INTEGER(8|16, signed) + INT_8|INT_16
//   decimal(p,s)    INT32 (p <= 9), INT64 (p <= 18), else FIXED_LEN_BYTE_ARRAY of the
//                   minimal width; DECIMAL logical + converted type
//   date            INT32 DATE
//   timestamp       INT64 TIMESTAMP(MICROS, UTC) + TIMESTAMP_MICROS
//   timestamp_ntz   INT64 TIMESTAMP(MICROS, not UTC), no converted type
//   array           <opt> group name (LIST) { repeated group list { <opt> element } }
//   map             <opt> group name (MAP) { repeated group key_value { required key;
//                                                                       <opt> value } }
// FieldSpecs are plain values; BuildSchema is stateless and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

enum class FieldType {
  kBoolean, kByte, kShort, kInt, kLong, kFloat, kDouble, kString, kBinary, kDecimal,
  kDate, kTimestamp, kTimestampNtz, kStruct, kList, kMap,
};

struct FieldSpec {
  std::string name;
  FieldType type = FieldType::kLong;
  bool nullable = true;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;      // kDecimal
  std::optional<int32_t> field_id;
  // kStruct: the fields; kList: {element}; kMap: {key, value}. A list element's and a
  // map entry's names are fixed by the format ("element", "key", "value"); a map key
  // is always required.
  std::vector<FieldSpec> children;

  FieldSpec& WithFieldId(int32_t id) & { field_id = id; return *this; }
  FieldSpec&& WithFieldId(int32_t id) && { field_id = id; return std::move(*this); }

  static FieldSpec Primitive(std::string name, FieldType type, bool nullable = true);
  static FieldSpec Boolean(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kBoolean, nullable); }
  static FieldSpec Byte(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kByte, nullable); }
  static FieldSpec Short(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kShort, nullable); }
  static FieldSpec Int(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kInt, nullable); }
  static FieldSpec Long(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kLong, nullable); }
  static FieldSpec Float(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kFloat, nullable); }
  static FieldSpec Double(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kDouble, nullable); }
  static FieldSpec String(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kString, nullable); }
  static FieldSpec Binary(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kBinary, nullable); }
  static FieldSpec Date(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kDate, nullable); }
  static FieldSpec Timestamp(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kTimestamp, nullable); }
  static FieldSpec TimestampNtz(std::string name, bool nullable = true) { return Primitive(std::move(name), FieldType::kTimestampNtz, nullable); }
  static FieldSpec Decimal(std::string name, int32_t precision, int32_t scale, bool nullable = true);
  static FieldSpec Struct(std::string name, std::vector<FieldSpec> fields, bool nullable = true);
  // `element`'s name is ignored; its nullability is the array's containsNull.
  static FieldSpec List(std::string name, FieldSpec element, bool nullable = true);
  // `key`'s and `value`'s names are ignored; the key is made required.
  static FieldSpec Map(std::string name, FieldSpec key, FieldSpec value, bool nullable = true);
};

// Bytes of the FIXED_LEN_BYTE_ARRAY holding any unscaled decimal of `precision` digits.
int32_t DecimalByteWidth(int32_t precision);

// The footer form (depth-first, root first) of a schema with `fields` at top level.
// InvalidArgument for an empty field list, empty or duplicate sibling names, decimal
// precision outside 1..38 or scale outside 0..precision, or a struct without fields.
Result<std::vector<SchemaElement>> BuildSchemaElements(const std::vector<FieldSpec>& fields,
                                                       const std::string& root_name = "schema");
// BuildSchemaElements + Schema::FromElements.
Result<Schema> BuildSchema(const std::vector<FieldSpec>& fields,
                           const std::string& root_name = "schema");

// Convenience accumulator.
class SchemaBuilder {
 public:
  SchemaBuilder& Add(FieldSpec field) {
    fields_.push_back(std::move(field));
    return *this;
  }
  const std::vector<FieldSpec>& fields() const { return fields_; }
  Result<Schema> Build(const std::string& root_name = "schema") const {
    return BuildSchema(fields_, root_name);
  }

 private:
  std::vector<FieldSpec> fields_;
};

}  // namespace lithify::parquet
