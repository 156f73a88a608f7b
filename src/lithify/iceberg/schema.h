// Iceberg schemas, partition specs, sort orders and name mappings (format/spec.md
// "Schemas and Data Types", "Partitioning", "Sorting", Appendix C).
//
// A Type is a tree: primitives carry their parameters (decimal precision/scale, fixed
// length), a struct its fields, a list its one element field and a map its key and value
// fields; every field has the id Iceberg projects by. Field defaults (v3 `initial-default`
// / `write-default`) are kept as their JSON single-value form and typed on use
// (values.h). Parsing validates the shape (known type names, unique field ids, decimal
// precision 1..38) and returns Corruption naming what is wrong; types lithify cannot read
// (variant, geometry, geography) parse, and reading a column of them is refused
// (NotSupported) where it happens.
//
// Plain values; immutable after parsing and safe to share across threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/iceberg/json.h"

namespace lithify::iceberg {

enum class TypeId {
  kUnknown, kBoolean, kInt, kLong, kFloat, kDouble, kDecimal, kDate, kTime, kTimestamp,
  kTimestampTz, kTimestampNs, kTimestampTzNs, kString, kUuid, kFixed, kBinary,
  kVariant, kGeometry, kGeography,
  kStruct, kList, kMap,
};

struct NestedField;

struct Type {
  // Special members are defined after NestedField is complete (clang 14, which builds
  // the fuzzers, instantiates vector<NestedField>'s members eagerly otherwise).
  Type();
  ~Type();
  Type(const Type&);
  Type(Type&&) noexcept;
  Type& operator=(const Type&);
  Type& operator=(Type&&) noexcept;

  TypeId id = TypeId::kUnknown;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;      // kDecimal
  int32_t length = 0;     // kFixed
  std::string text;       // geometry/geography parameters as written (display only)
  // kStruct: the fields; kList: {element}; kMap: {key, value}.
  std::vector<NestedField> fields;

  bool is_primitive() const { return id < TypeId::kStruct; }
  bool is_nested() const { return !is_primitive(); }
  // Spec spelling: "long", "decimal(9,2)", "fixed[16]", "struct<1: a: int>", ...
  std::string ToString() const;
  static Type Primitive(TypeId id);
};

struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  Type type;
  std::string doc;
  std::optional<json::Json> initial_default;  // absent = null
  std::optional<json::Json> write_default;
};

inline Type::Type() = default;
inline Type::~Type() = default;
inline Type::Type(const Type&) = default;
inline Type::Type(Type&&) noexcept = default;
inline Type& Type::operator=(const Type&) = default;
inline Type& Type::operator=(Type&&) noexcept = default;
inline Type Type::Primitive(TypeId id) {
  Type t;
  t.id = id;
  return t;
}

struct Schema {
  int32_t schema_id = 0;
  std::vector<NestedField> fields;
  std::vector<int32_t> identifier_field_ids;
};

// Every field of `schema` at any depth by id (pointers into `schema`, valid while it lives
// unchanged), and each field's parent chain for names.
class SchemaIndex {
 public:
  explicit SchemaIndex(const Schema& schema);
  const NestedField* Find(int32_t id) const;
  // Dotted display name of a field ("a.b"; list elements and map entries by their names
  // "element", "key", "value"); empty for an unknown id.
  std::string Name(int32_t id) const;
  // True when the field sits inside a list or map.
  bool Repeated(int32_t id) const;

 private:
  struct Entry {
    const NestedField* field = nullptr;
    int32_t parent = -1;
    bool repeated = false;
  };
  void Add(const NestedField& f, int32_t parent, bool repeated);
  std::unordered_map<int32_t, Entry> by_id_;
};

// A partition (or sort) transform: identity, bucket[N], truncate[W], year, month, day,
// hour, void; anything else is kUnknown (kept by name; ignored for filtering, as v3
// requires).
struct Transform {
  enum class Kind { kIdentity, kBucket, kTruncate, kYear, kMonth, kDay, kHour, kVoid, kUnknown };
  Kind kind = Kind::kIdentity;
  int32_t param = 0;  // N for bucket, W for truncate
  std::string text;   // as written

  static Result<Transform> Parse(std::string_view text);
  // The partition value type for a source column of `source` type. InvalidArgument when
  // the transform does not apply to the type; kUnknown transforms yield kUnknown.
  Result<Type> ResultType(const Type& source) const;
};

struct PartitionField {
  int32_t source_id = 0;
  std::vector<int32_t> source_ids;  // v3 multi-argument transforms (refused on read)
  int32_t field_id = 0;
  std::string name;
  Transform transform;
};

struct PartitionSpec {
  int32_t spec_id = 0;
  std::vector<PartitionField> fields;
  // No field, or only void transforms: a delete with this spec applies globally.
  bool unpartitioned() const;
};

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  std::string direction;   // "asc" | "desc"
  std::string null_order;  // "nulls-first" | "nulls-last"
};

struct SortOrder {
  int32_t order_id = 0;
  std::vector<SortField> fields;
};

// schema.name-mapping.default (Appendix C "Name Mapping Serialization").
struct NameMapping {
  struct Field {
    std::vector<std::string> names;
    std::optional<int32_t> field_id;
    std::vector<Field> fields;
  };
  std::vector<Field> fields;
  static Result<NameMapping> Parse(std::string_view json_text);
};

// JSON parsers (Appendix C). `format_version` selects v1 leniency (partition field ids
// assigned from 1000 when absent).
Result<Type> ParseType(const json::Json& j, int depth = 0);
Result<Schema> ParseSchema(const json::Json& j);
Result<PartitionSpec> ParsePartitionSpec(const json::Json& j, int format_version);
// A bare field list (v1 `partition-spec`, manifest key-value metadata); spec id given.
Result<PartitionSpec> ParsePartitionFields(const json::Json& fields, int32_t spec_id,
                                           int format_version);
Result<SortOrder> ParseSortOrder(const json::Json& j);

}  // namespace lithify::iceberg
