// Thrift-compact encoding of the parquet.thrift structures in metadata.h.
//
// Parsing is one pass over the bytes with a struct-per-function layout that mirrors
// parquet.thrift (field ids in the `case` labels). Unknown fields are skipped; errors
// gain "Struct.field[index]" context on the way up so a Corruption names where the
// bytes went wrong.
#include "lithify/parquet/metadata.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/parquet/thrift_compact.h"

namespace lithify::parquet {
namespace {

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::FieldHeader;
using thrift::ListHeader;
using thrift::WireType;

// Decoded structures may use at most this many bytes of vector storage per input byte
// (plus a floor for tiny inputs), so hostile input cannot inflate without bound: a list
// of empty structs costs one input byte per element but sizeof(T) in memory. Real
// footers stay far below (~13x across the shared corpus).
//
// The factor is not arbitrary: it must cover sizeof(T) / (fewest bytes the serializer
// writes for a T) for every charged element type, so that whatever parsed also
// re-parses after SerializeFileMetaData (which drops unknown fields and may shrink the
// input). The tightest case is an empty ColumnChunk, written as file_offset + STOP.
constexpr size_t kBudgetPerInputByte = 192;
constexpr size_t kMinBudget = size_t{16} << 20;
static_assert(sizeof(ColumnChunk) <= kBudgetPerInputByte * 3,
              "ColumnChunk grew: raise kBudgetPerInputByte (see comment)");
static_assert(sizeof(SchemaElement) <= kBudgetPerInputByte * 3 &&
                  sizeof(RowGroup) <= kBudgetPerInputByte * 7 &&
                  sizeof(KeyValue) <= kBudgetPerInputByte * 3 &&
                  sizeof(std::string) <= kBudgetPerInputByte * 1,
              "a metadata struct grew: raise kBudgetPerInputByte (see comment)");

size_t BudgetFor(size_t input_size) {
  return std::max(kMinBudget, input_size * kBudgetPerInputByte);
}

// ---------------------------------------------------------------------------------
// Field-level helpers. Each checks the wire type against what parquet.thrift declares:
// a mismatch means the bytes are not the structure we think they are.

Status ExpectType(const FieldHeader& f, WireType want) {
  if (f.type == want) return Status::OK();
  return Status::Corruption("expected {} but found {}", thrift::WireTypeName(want),
                            thrift::WireTypeName(f.type));
}

Status SkipField(CompactReader& r, const FieldHeader& f) {
  if (f.is_bool()) return Status::OK();  // the value was in the header
  return r.Skip(f.type);
}

Status ReadBool(const FieldHeader& f, bool* v) {
  if (!f.is_bool()) {
    return Status::Corruption("expected bool but found {}", thrift::WireTypeName(f.type));
  }
  *v = f.bool_value();
  return Status::OK();
}

Status ReadI8(CompactReader& r, const FieldHeader& f, int8_t* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kByte));
  return r.ReadI8(v);
}

Status ReadI16(CompactReader& r, const FieldHeader& f, int16_t* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kI16));
  return r.ReadI16(v);
}

Status ReadI32(CompactReader& r, const FieldHeader& f, int32_t* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kI32));
  return r.ReadI32(v);
}

Status ReadI64(CompactReader& r, const FieldHeader& f, int64_t* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kI64));
  return r.ReadI64(v);
}

Status ReadString(CompactReader& r, const FieldHeader& f, std::string* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kBinary));
  return r.ReadBinary(v);
}

template <typename T>
Status ReadOptional(Status (*read)(CompactReader&, const FieldHeader&, T*), CompactReader& r,
                    const FieldHeader& f, std::optional<T>* v) {
  return read(r, f, &v->emplace());
}

Status NonNegative(int64_t v) {
  if (v < 0) return Status::Corruption("negative value {}", v);
  return Status::OK();
}

// i32/i64 fields that are counts, sizes or offsets: negative values would turn into
// huge sizes or out-of-range positions downstream.
Status ReadCount32(CompactReader& r, const FieldHeader& f, int32_t* v) {
  LITHIFY_RETURN_NOT_OK(ReadI32(r, f, v));
  return NonNegative(*v);
}
Status ReadCount64(CompactReader& r, const FieldHeader& f, int64_t* v) {
  LITHIFY_RETURN_NOT_OK(ReadI64(r, f, v));
  return NonNegative(*v);
}

// Enums arrive as i32.
Status ReadPhysicalType(CompactReader& r, const FieldHeader& f, PhysicalType* v) {
  int32_t raw;
  LITHIFY_RETURN_NOT_OK(ReadI32(r, f, &raw));
  if (raw < 0 || raw > static_cast<int32_t>(PhysicalType::kFixedLenByteArray)) {
    return Status::Corruption("invalid physical type {}", raw);
  }
  *v = static_cast<PhysicalType>(raw);
  return Status::OK();
}

Status ReadConvertedType(CompactReader& r, const FieldHeader& f, ConvertedType* v) {
  int32_t raw;
  LITHIFY_RETURN_NOT_OK(ReadI32(r, f, &raw));
  // The format froze this enum (LogicalType supersedes it), so any other value is damage.
  if (raw < 0 || raw > static_cast<int32_t>(ConvertedType::kInterval)) {
    return Status::Corruption("invalid converted type {}", raw);
  }
  *v = static_cast<ConvertedType>(raw);
  return Status::OK();
}

Status ReadRepetition(CompactReader& r, const FieldHeader& f, Repetition* v) {
  constexpr int32_t kVector = 3;
  int32_t raw;
  LITHIFY_RETURN_NOT_OK(ReadI32(r, f, &raw));
  if (raw == kVector) return Status::NotSupported("repetition type VECTOR");
  if (raw < 0 || raw > static_cast<int32_t>(Repetition::kRepeated)) {
    return Status::Corruption("invalid repetition type {}", raw);
  }
  *v = static_cast<Repetition>(raw);
  return Status::OK();
}

// Open enums: newer writers add values, so non-negative values are kept verbatim and
// judged by whoever has to act on them (see metadata.h).
template <typename E>
Status ReadOpenEnumValue(CompactReader& r, E* v) {
  int32_t raw;
  LITHIFY_RETURN_NOT_OK(r.ReadI32(&raw));
  if (raw < 0) return Status::Corruption("invalid enum value {}", raw);
  *v = static_cast<E>(raw);
  return Status::OK();
}

template <typename E>
Status ReadOpenEnum(CompactReader& r, const FieldHeader& f, E* v) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kI32));
  return ReadOpenEnumValue(r, v);
}

// ---------------------------------------------------------------------------------
// Struct and list framing.

// What parquet.thrift declares for a struct: per field id below 32, the wire type
// (kStop for ids this build does not model) and the name used in error messages.
struct FieldSpec {
  int id;
  WireType type;
  const char* name;
};

struct FieldTypes {
  const char* struct_name = "";
  WireType by_id[32] = {};
  const char* names[32] = {};
};

constexpr FieldTypes Fields(const char* struct_name, std::initializer_list<FieldSpec> fields) {
  FieldTypes t;
  t.struct_name = struct_name;
  for (const FieldSpec& f : fields) {
    t.by_id[f.id] = f.type;
    t.names[f.id] = f.name;
  }
  return t;
}

bool WireTypeMatches(WireType got, WireType want) {
  if (got == want) return true;
  auto is_bool = [](WireType t) { return t == WireType::kBoolTrue || t == WireType::kBoolFalse; };
  if (is_bool(want)) return is_bool(got);
  return want == WireType::kList && got == WireType::kSet;  // same encoding
}

// Reads a struct, passing each field to `on_field(field)`, which must consume the value
// (typically `default: return SkipField(r, f);` for ids it does not model); its errors
// gain "Struct.field" context here. A modelled
// field whose wire type differs from `types` is skipped as if unknown, as Thrift's own
// generated readers do: some old writers reused field ids with other types. If such a
// field is required, the caller's CheckRequired reports it. Field ids below 32 that
// were consumed are recorded in *seen.
template <typename OnField>
Status ReadStruct(CompactReader& r, const FieldTypes& types, uint32_t* seen, OnField&& on_field) {
  LITHIFY_RETURN_NOT_OK(r.ReadStructBegin());
  FieldHeader f;
  while (true) {
    LITHIFY_RETURN_NOT_OK(r.ReadFieldHeader(&f));
    if (f.type == WireType::kStop) break;
    const bool low_id = f.id >= 0 && f.id < 32;
    const WireType want = low_id ? types.by_id[f.id] : WireType::kStop;
    if (want != WireType::kStop && !WireTypeMatches(f.type, want)) {
      LITHIFY_RETURN_NOT_OK(SkipField(r, f));
      continue;
    }
    if (Status st = on_field(f); !st.ok()) {
      if (want == WireType::kStop) return st.WithContextF("{} field {}", types.struct_name, f.id);
      return st.WithContextF("{}.{}", types.struct_name, types.names[f.id]);
    }
    if (low_id) *seen |= 1u << f.id;
  }
  return r.ReadStructEnd();
}

// Shorthands for the field tables below.
constexpr WireType kTBool = WireType::kBoolTrue;
constexpr WireType kTI8 = WireType::kByte;
constexpr WireType kTI16 = WireType::kI16;
constexpr WireType kTI32 = WireType::kI32;
constexpr WireType kTI64 = WireType::kI64;
constexpr WireType kTBin = WireType::kBinary;
constexpr WireType kTList = WireType::kList;
constexpr WireType kTStruct = WireType::kStruct;

constexpr FieldTypes kTimeUnitFields =
    Fields("TimeUnit", {{1, kTStruct, "MILLIS"}, {2, kTStruct, "MICROS"}, {3, kTStruct, "NANOS"}});
constexpr FieldTypes kTimeTypeFields =
    Fields("TimeType", {{1, kTBool, "isAdjustedToUTC"}, {2, kTStruct, "unit"}});
constexpr FieldTypes kTimestampTypeFields =
    Fields("TimestampType", {{1, kTBool, "isAdjustedToUTC"}, {2, kTStruct, "unit"}});
constexpr FieldTypes kDecimalTypeFields =
    Fields("DecimalType", {{1, kTI32, "scale"}, {2, kTI32, "precision"}});
constexpr FieldTypes kIntTypeFields =
    Fields("IntType", {{1, kTI8, "bitWidth"}, {2, kTBool, "isSigned"}});
// Every LogicalType member is a struct; unlisted ids still reach the parser (it maps
// them to kUnsupported).
constexpr FieldTypes kLogicalTypeFields = Fields("LogicalType", {{1, kTStruct, "STRING"},
                                                                 {2, kTStruct, "MAP"},
                                                                 {3, kTStruct, "LIST"},
                                                                 {4, kTStruct, "ENUM"},
                                                                 {5, kTStruct, "DECIMAL"},
                                                                 {6, kTStruct, "DATE"},
                                                                 {7, kTStruct, "TIME"},
                                                                 {8, kTStruct, "TIMESTAMP"},
                                                                 {10, kTStruct, "INTEGER"},
                                                                 {11, kTStruct, "UNKNOWN"},
                                                                 {12, kTStruct, "JSON"},
                                                                 {13, kTStruct, "BSON"},
                                                                 {14, kTStruct, "UUID"},
                                                                 {15, kTStruct, "FLOAT16"},
                                                                 {16, kTStruct, "VARIANT"},
                                                                 {17, kTStruct, "GEOMETRY"},
                                                                 {18, kTStruct, "GEOGRAPHY"}});
constexpr FieldTypes kStatisticsFields = Fields("Statistics", {{1, kTBin, "max"},
                                                               {2, kTBin, "min"},
                                                               {3, kTI64, "null_count"},
                                                               {4, kTI64, "distinct_count"},
                                                               {5, kTBin, "max_value"},
                                                               {6, kTBin, "min_value"},
                                                               {7, kTBool, "is_max_value_exact"},
                                                               {8, kTBool, "is_min_value_exact"},
                                                               {9, kTI64, "nan_count"}});
constexpr FieldTypes kSchemaElementFields =
    Fields("SchemaElement", {{1, kTI32, "type"},
                             {2, kTI32, "type_length"},
                             {3, kTI32, "repetition_type"},
                             {4, kTBin, "name"},
                             {5, kTI32, "num_children"},
                             {6, kTI32, "converted_type"},
                             {7, kTI32, "scale"},
                             {8, kTI32, "precision"},
                             {9, kTI32, "field_id"},
                             {10, kTStruct, "logicalType"}});
constexpr FieldTypes kKeyValueFields = Fields("KeyValue", {{1, kTBin, "key"}, {2, kTBin, "value"}});
constexpr FieldTypes kSortingColumnFields =
    Fields("SortingColumn",
           {{1, kTI32, "column_idx"}, {2, kTBool, "descending"}, {3, kTBool, "nulls_first"}});
constexpr FieldTypes kPageEncodingStatsFields = Fields(
    "PageEncodingStats", {{1, kTI32, "page_type"}, {2, kTI32, "encoding"}, {3, kTI32, "count"}});
constexpr FieldTypes kColumnMetaDataFields =
    Fields("ColumnMetaData", {{1, kTI32, "type"},
                              {2, kTList, "encodings"},
                              {3, kTList, "path_in_schema"},
                              {4, kTI32, "codec"},
                              {5, kTI64, "num_values"},
                              {6, kTI64, "total_uncompressed_size"},
                              {7, kTI64, "total_compressed_size"},
                              {8, kTList, "key_value_metadata"},
                              {9, kTI64, "data_page_offset"},
                              {10, kTI64, "index_page_offset"},
                              {11, kTI64, "dictionary_page_offset"},
                              {12, kTStruct, "statistics"},
                              {13, kTList, "encoding_stats"},
                              {14, kTI64, "bloom_filter_offset"},
                              {15, kTI32, "bloom_filter_length"}});
constexpr FieldTypes kColumnChunkFields =
    Fields("ColumnChunk", {{1, kTBin, "file_path"},
                           {2, kTI64, "file_offset"},
                           {3, kTStruct, "meta_data"},
                           {4, kTI64, "offset_index_offset"},
                           {5, kTI32, "offset_index_length"},
                           {6, kTI64, "column_index_offset"},
                           {7, kTI32, "column_index_length"},
                           {8, kTStruct, "crypto_metadata"},
                           {9, kTBin, "encrypted_column_metadata"}});
constexpr FieldTypes kRowGroupFields = Fields("RowGroup", {{1, kTList, "columns"},
                                                           {2, kTI64, "total_byte_size"},
                                                           {3, kTI64, "num_rows"},
                                                           {4, kTList, "sorting_columns"},
                                                           {5, kTI64, "file_offset"},
                                                           {6, kTI64, "total_compressed_size"},
                                                           {7, kTI16, "ordinal"}});
constexpr FieldTypes kColumnOrderFields = Fields("ColumnOrder", {{1, kTStruct, "TYPE_ORDER"}});
constexpr FieldTypes kFileMetaDataFields =
    Fields("FileMetaData", {{1, kTI32, "version"},
                            {2, kTList, "schema"},
                            {3, kTI64, "num_rows"},
                            {4, kTList, "row_groups"},
                            {5, kTList, "key_value_metadata"},
                            {6, kTBin, "created_by"},
                            {7, kTList, "column_orders"},
                            {8, kTStruct, "encryption_algorithm"},
                            {9, kTBin, "footer_signing_key_metadata"}});
constexpr FieldTypes kDataPageHeaderFields =
    Fields("DataPageHeader", {{1, kTI32, "num_values"},
                              {2, kTI32, "encoding"},
                              {3, kTI32, "definition_level_encoding"},
                              {4, kTI32, "repetition_level_encoding"},
                              {5, kTStruct, "statistics"}});
constexpr FieldTypes kDictionaryPageHeaderFields =
    Fields("DictionaryPageHeader",
           {{1, kTI32, "num_values"}, {2, kTI32, "encoding"}, {3, kTBool, "is_sorted"}});
constexpr FieldTypes kDataPageHeaderV2Fields =
    Fields("DataPageHeaderV2", {{1, kTI32, "num_values"},
                                {2, kTI32, "num_nulls"},
                                {3, kTI32, "num_rows"},
                                {4, kTI32, "encoding"},
                                {5, kTI32, "definition_levels_byte_length"},
                                {6, kTI32, "repetition_levels_byte_length"},
                                {7, kTBool, "is_compressed"},
                                {8, kTStruct, "statistics"}});
constexpr FieldTypes kPageHeaderFields =
    Fields("PageHeader", {{1, kTI32, "type"},
                          {2, kTI32, "uncompressed_page_size"},
                          {3, kTI32, "compressed_page_size"},
                          {4, kTI32, "crc"},
                          {5, kTStruct, "data_page_header"},
                          {6, kTStruct, "index_page_header"},
                          {7, kTStruct, "dictionary_page_header"},
                          {8, kTStruct, "data_page_header_v2"}});

// Corruption naming the first of `ids` (required fields) that was not seen.
Status CheckRequired(uint32_t seen, const FieldTypes& fields, std::initializer_list<int> ids) {
  for (int id : ids) {
    if ((seen & (1u << id)) == 0) {
      return Status::Corruption("{}: missing required field {}", fields.struct_name,
                                fields.names[id]);
    }
  }
  return Status::OK();
}

template <typename T, typename ReadElement>
Status ReadList(CompactReader& r, const FieldHeader& f, WireType element_type, std::vector<T>* out,
                ReadElement&& read_element) {
  if (f.type != WireType::kList && f.type != WireType::kSet) {
    return Status::Corruption("expected list but found {}", thrift::WireTypeName(f.type));
  }
  ListHeader list;
  LITHIFY_RETURN_NOT_OK(r.ReadListHeader(&list));
  if (list.size > 0 && !WireTypeMatches(list.element_type, element_type)) {
    return Status::Corruption("expected list<{}> but found list<{}>",
                              thrift::WireTypeName(element_type),
                              thrift::WireTypeName(list.element_type));
  }
  LITHIFY_RETURN_NOT_OK(r.Charge(size_t{list.size} * sizeof(T)));
  out->clear();
  out->reserve(list.size);
  for (uint32_t i = 0; i < list.size; ++i) {
    LITHIFY_RETURN_NOT_OK_CTX(read_element(r, &out->emplace_back()), "[{}]", i);
  }
  r.ReadContainerEnd();
  return Status::OK();
}

Status ReadStringElement(CompactReader& r, std::string* v) { return r.ReadBinary(v); }

template <typename E>
Status ReadOpenEnumElement(CompactReader& r, E* v) {
  return ReadOpenEnumValue(r, v);
}

// Empty marker structs (e.g. StringType): contents, if a newer format adds any, skipped.
Status SkipStruct(CompactReader& r, const FieldHeader& f) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kStruct));
  return r.Skip(WireType::kStruct);
}

// ---------------------------------------------------------------------------------
// Parsers, one per parquet.thrift structure.

// TimeUnit union. Sets *known = false for a unit this build does not know.
Status ReadTimeUnit(CompactReader& r, TimeUnit* unit, bool* known) {
  uint32_t seen = 0;
  *known = false;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: *unit = TimeUnit::kMillis; break;
      case 2: *unit = TimeUnit::kMicros; break;
      case 3: *unit = TimeUnit::kNanos; break;
      default: return SkipField(r, f);
    }
    *known = true;
    return SkipStruct(r, f);
  };
  return ReadStruct(r, kTimeUnitFields, &seen, on_field);
}

// TimeType and TimestampType share their layout.
Status ReadTimeLike(CompactReader& r, LogicalType* lt) {
  uint32_t seen = 0;
  bool unit_known = false;
  const FieldTypes& fields =
      lt->kind == LogicalType::Kind::kTime ? kTimeTypeFields : kTimestampTypeFields;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadBool(f, &lt->is_adjusted_to_utc);
      case 2:
        LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kStruct));
        return ReadTimeUnit(r, &lt->unit, &unit_known);
      default: return SkipField(r, f);
    }
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, fields, &seen, on_field));
  LITHIFY_RETURN_NOT_OK(CheckRequired(seen, fields, {1, 2}));
  if (!unit_known) {
    // A unit from a newer format: the column can still be read as its physical type.
    int32_t id = lt->kind == LogicalType::Kind::kTime ? 7 : 8;
    *lt = LogicalType{};
    lt->kind = LogicalType::Kind::kUnsupported;
    lt->thrift_field_id = id;
  }
  return Status::OK();
}

Status ReadDecimalType(CompactReader& r, LogicalType* lt) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadI32(r, f, &lt->scale);
      case 2: return ReadI32(r, f, &lt->precision);
      default: return SkipField(r, f);
    }
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kDecimalTypeFields, &seen, on_field));
  return CheckRequired(seen, kDecimalTypeFields, {1, 2});
}

Status ReadIntType(CompactReader& r, LogicalType* lt) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadI8(r, f, &lt->bit_width);
      case 2: return ReadBool(f, &lt->is_signed);
      default: return SkipField(r, f);
    }
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kIntTypeFields, &seen, on_field));
  LITHIFY_RETURN_NOT_OK(CheckRequired(seen, kIntTypeFields, {1, 2}));
  switch (lt->bit_width) {
    case 8:
    case 16:
    case 32:
    case 64: return Status::OK();
    default: return Status::Corruption("IntType: invalid bitWidth {}", lt->bit_width);
  }
}

// Union member id <-> kind for the members whose payload carries nothing lithify keeps.
struct MarkerKind {
  int16_t id;
  LogicalType::Kind kind;
};
constexpr MarkerKind kMarkerKinds[] = {
    {1, LogicalType::Kind::kString},
    {2, LogicalType::Kind::kMap},
    {3, LogicalType::Kind::kList},
    {4, LogicalType::Kind::kEnum},
    {6, LogicalType::Kind::kDate},
    {11, LogicalType::Kind::kUnknown},
    {12, LogicalType::Kind::kJson},
    {13, LogicalType::Kind::kBson},
    {14, LogicalType::Kind::kUuid},
    {15, LogicalType::Kind::kFloat16},
    // VARIANT's specification_version and the geo types' CRS / edge algorithm are not
    // modelled; these kinds are read as their physical type.
    {16, LogicalType::Kind::kVariant},
    {17, LogicalType::Kind::kGeometry},
    {18, LogicalType::Kind::kGeography},
};

Status ReadLogicalType(CompactReader& r, LogicalType* lt) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    // Every member is a struct; an unknown id with another type is not a member we
    // could ever interpret, so it is skipped like any unknown field.
    if (f.type != WireType::kStruct) return SkipField(r, f);
    *lt = LogicalType{};
    switch (f.id) {
      case 5: lt->kind = LogicalType::Kind::kDecimal; return ReadDecimalType(r, lt);
      case 7: lt->kind = LogicalType::Kind::kTime; return ReadTimeLike(r, lt);
      case 8: lt->kind = LogicalType::Kind::kTimestamp; return ReadTimeLike(r, lt);
      case 10: lt->kind = LogicalType::Kind::kInteger; return ReadIntType(r, lt);
      default: break;
    }
    for (const MarkerKind& m : kMarkerKinds) {
      if (m.id == f.id) {
        lt->kind = m.kind;
        return r.Skip(WireType::kStruct);
      }
    }
    lt->kind = LogicalType::Kind::kUnsupported;
    lt->thrift_field_id = f.id;
    return r.Skip(WireType::kStruct);
  };
  return ReadStruct(r, kLogicalTypeFields, &seen, on_field);
}

Status ReadStatistics(CompactReader& r, Statistics* s) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadOptional(ReadString, r, f, &s->max);
      case 2: return ReadOptional(ReadString, r, f, &s->min);
      case 3: return ReadOptional(ReadI64, r, f, &s->null_count);
      case 4: return ReadOptional(ReadI64, r, f, &s->distinct_count);
      case 5: return ReadOptional(ReadString, r, f, &s->max_value);
      case 6: return ReadOptional(ReadString, r, f, &s->min_value);
      case 7: return ReadBool(f, &s->is_max_value_exact.emplace());
      case 8: return ReadBool(f, &s->is_min_value_exact.emplace());
      case 9: return ReadOptional(ReadI64, r, f, &s->nan_count);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  return ReadStruct(r, kStatisticsFields, &seen, on_field);
}

Status ReadStatisticsField(CompactReader& r, const FieldHeader& f, std::optional<Statistics>* s) {
  LITHIFY_RETURN_NOT_OK(ExpectType(f, WireType::kStruct));
  return ReadStatistics(r, &s->emplace());
}

Status ReadSchemaElement(CompactReader& r, SchemaElement* e) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadPhysicalType(r, f, &e->type.emplace());
      case 2: return ReadOptional(ReadCount32, r, f, &e->type_length);
      case 3: return ReadRepetition(r, f, &e->repetition_type.emplace());
      case 4: return ReadString(r, f, &e->name);
      case 5: return ReadOptional(ReadCount32, r, f, &e->num_children);
      case 6: return ReadConvertedType(r, f, &e->converted_type.emplace());
      case 7: return ReadOptional(ReadI32, r, f, &e->scale);
      case 8: return ReadOptional(ReadI32, r, f, &e->precision);
      case 9: return ReadOptional(ReadI32, r, f, &e->field_id);
      case 10: return ReadLogicalType(r, &e->logical_type);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kSchemaElementFields, &seen, on_field));
  // `name` is required by the format, but an unnamed element is still structurally
  // usable (paths just contain ""), so its absence is tolerated.
  return Status::OK();
}

Status ReadKeyValue(CompactReader& r, KeyValue* kv) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadString(r, f, &kv->key);
      case 2: return ReadOptional(ReadString, r, f, &kv->value);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  return ReadStruct(r, kKeyValueFields, &seen, on_field);
}

Status ReadKeyValueList(CompactReader& r, const FieldHeader& f, std::vector<KeyValue>* out) {
  return ReadList(r, f, WireType::kStruct, out, ReadKeyValue);
}

Status ReadSortingColumn(CompactReader& r, SortingColumn* s) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadCount32(r, f, &s->column_idx);
      case 2: return ReadBool(f, &s->descending);
      case 3: return ReadBool(f, &s->nulls_first);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kSortingColumnFields, &seen, on_field));
  return CheckRequired(seen, kSortingColumnFields, {1});
}

Status ReadPageEncodingStats(CompactReader& r, PageEncodingStats* s) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadOpenEnum(r, f, &s->page_type);
      case 2: return ReadOpenEnum(r, f, &s->encoding);
      case 3: return ReadCount32(r, f, &s->count);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kPageEncodingStatsFields, &seen, on_field));
  return CheckRequired(seen, kPageEncodingStatsFields, {1, 2, 3});
}

Status ReadColumnMetaData(CompactReader& r, ColumnMetaData* m) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadPhysicalType(r, f, &m->type);
      case 2: {
        // Unknown encodings are kept (open enum): this list only summarizes the pages,
        // and a newer writer's encoding must not make the whole file unreadable.
        return ReadList(r, f, WireType::kI32, &m->encodings, ReadOpenEnumElement<Encoding>);
      }
      case 3: return ReadList(r, f, WireType::kBinary, &m->path_in_schema, ReadStringElement);
      case 4: return ReadOpenEnum(r, f, &m->codec);
      case 5: return ReadCount64(r, f, &m->num_values);
      case 6: return ReadCount64(r, f, &m->total_uncompressed_size);
      case 7: return ReadCount64(r, f, &m->total_compressed_size);
      case 8: return ReadKeyValueList(r, f, &m->key_value_metadata);
      case 9: return ReadCount64(r, f, &m->data_page_offset);
      case 10: return ReadOptional(ReadCount64, r, f, &m->index_page_offset);
      case 11: return ReadOptional(ReadCount64, r, f, &m->dictionary_page_offset);
      case 12: return ReadStatisticsField(r, f, &m->statistics);
      case 13: return ReadList(r, f, WireType::kStruct, &m->encoding_stats, ReadPageEncodingStats);
      case 14: return ReadOptional(ReadCount64, r, f, &m->bloom_filter_offset);
      case 15: return ReadOptional(ReadCount32, r, f, &m->bloom_filter_length);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kColumnMetaDataFields, &seen, on_field));
  return CheckRequired(seen, kColumnMetaDataFields, {1, 4, 5, 6, 7, 9});
}

Status ReadColumnChunk(CompactReader& r, ColumnChunk* c) {
  uint32_t seen = 0;
  // file_offset (2) is required by the format but deprecated and unused; its absence is
  // tolerated. meta_data is absent for columns encrypted with a column key.
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadOptional(ReadString, r, f, &c->file_path);
      case 2: return ReadI64(r, f, &c->file_offset);
      case 3: return ReadColumnMetaData(r, &c->meta_data.emplace());
      case 4: return ReadOptional(ReadCount64, r, f, &c->offset_index_offset);
      case 5: return ReadOptional(ReadCount32, r, f, &c->offset_index_length);
      case 6: return ReadOptional(ReadCount64, r, f, &c->column_index_offset);
      case 7: return ReadOptional(ReadCount32, r, f, &c->column_index_length);
      case 8: {
        // ColumnCryptoMetaData: only its presence matters to lithify (it cannot decrypt).
        LITHIFY_RETURN_NOT_OK(SkipStruct(r, f));
        c->has_crypto_metadata = true;
        break;
      }
      case 9: return ReadOptional(ReadString, r, f, &c->encrypted_column_metadata);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  return ReadStruct(r, kColumnChunkFields, &seen, on_field);
}

Status ReadRowGroup(CompactReader& r, RowGroup* g) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadList(r, f, WireType::kStruct, &g->columns, ReadColumnChunk);
      case 2: return ReadI64(r, f, &g->total_byte_size);
      case 3: return ReadCount64(r, f, &g->num_rows);
      case 4: return ReadList(r, f, WireType::kStruct, &g->sorting_columns, ReadSortingColumn);
      // file_offset, total_compressed_size and ordinal are informational; known writers
      // have emitted wrong values (ordinal overflows past 32767 row groups), so they are
      // not validated.
      case 5: return ReadOptional(ReadI64, r, f, &g->file_offset);
      case 6: return ReadOptional(ReadI64, r, f, &g->total_compressed_size);
      case 7: return ReadOptional(ReadI16, r, f, &g->ordinal);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kRowGroupFields, &seen, on_field));
  return CheckRequired(seen, kRowGroupFields, {1, 3});
}

Status ReadColumnOrder(CompactReader& r, ColumnOrder* o) {
  uint32_t seen = 0;
  o->type_defined_order = false;  // an empty or unknown union member: undefined order
  auto on_field = [&](const FieldHeader& f) -> Status {
    if (f.id == 1) {
      o->type_defined_order = true;
      return SkipStruct(r, f);
    }
    return SkipField(r, f);
  };
  return ReadStruct(r, kColumnOrderFields, &seen, on_field);
}

Status ReadFileMetaData(CompactReader& r, FileMetaData* md) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadI32(r, f, &md->version);
      case 2: return ReadList(r, f, WireType::kStruct, &md->schema, ReadSchemaElement);
      case 3: return ReadCount64(r, f, &md->num_rows);
      case 4: return ReadList(r, f, WireType::kStruct, &md->row_groups, ReadRowGroup);
      case 5: return ReadKeyValueList(r, f, &md->key_value_metadata);
      case 6: return ReadOptional(ReadString, r, f, &md->created_by);
      case 7: return ReadList(r, f, WireType::kStruct, &md->column_orders, ReadColumnOrder);
      case 8: {
        LITHIFY_RETURN_NOT_OK(SkipStruct(r, f));
        md->has_encryption_algorithm = true;
        break;
      }
      case 9: return ReadOptional(ReadString, r, f, &md->footer_signing_key_metadata);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kFileMetaDataFields, &seen, on_field));
  LITHIFY_RETURN_NOT_OK(CheckRequired(seen, kFileMetaDataFields, {2, 3, 4}));
  // Every consumer starts at schema[0] (the root); an empty schema is not a file.
  if (md->schema.empty()) return Status::Corruption("FileMetaData: empty schema");
  return Status::OK();
}

Status ReadDataPageHeader(CompactReader& r, DataPageHeader* h) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadCount32(r, f, &h->num_values);
      case 2: return ReadOpenEnum(r, f, &h->encoding);
      case 3: return ReadOpenEnum(r, f, &h->definition_level_encoding);
      case 4: return ReadOpenEnum(r, f, &h->repetition_level_encoding);
      case 5: return ReadStatisticsField(r, f, &h->statistics);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kDataPageHeaderFields, &seen, on_field));
  // The level encodings default to RLE when absent (lenient: they are redundant for
  // columns without levels).
  return CheckRequired(seen, kDataPageHeaderFields, {1, 2});
}

Status ReadDictionaryPageHeader(CompactReader& r, DictionaryPageHeader* h) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadCount32(r, f, &h->num_values);
      case 2: return ReadOpenEnum(r, f, &h->encoding);
      case 3: return ReadBool(f, &h->is_sorted.emplace());
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kDictionaryPageHeaderFields, &seen, on_field));
  return CheckRequired(seen, kDictionaryPageHeaderFields, {1});
}

Status ReadDataPageHeaderV2(CompactReader& r, DataPageHeaderV2* h) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadCount32(r, f, &h->num_values);
      case 2: return ReadCount32(r, f, &h->num_nulls);
      case 3: return ReadCount32(r, f, &h->num_rows);
      case 4: return ReadOpenEnum(r, f, &h->encoding);
      case 5: return ReadCount32(r, f, &h->definition_levels_byte_length);
      case 6: return ReadCount32(r, f, &h->repetition_levels_byte_length);
      case 7: return ReadBool(f, &h->is_compressed);
      case 8: return ReadStatisticsField(r, f, &h->statistics);
      default: return SkipField(r, f);
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kDataPageHeaderV2Fields, &seen, on_field));
  return CheckRequired(seen, kDataPageHeaderV2Fields, {1, 2, 3, 4, 5, 6});
}

Status ReadPageHeader(CompactReader& r, PageHeader* h) {
  uint32_t seen = 0;
  auto on_field = [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: return ReadOpenEnum(r, f, &h->type);
      case 2: return ReadCount32(r, f, &h->uncompressed_page_size);
      case 3: return ReadCount32(r, f, &h->compressed_page_size);
      case 4: return ReadOptional(ReadI32, r, f, &h->crc);
      case 5: return ReadDataPageHeader(r, &h->data_page_header.emplace());
      case 7: return ReadDictionaryPageHeader(r, &h->dictionary_page_header.emplace());
      case 8: return ReadDataPageHeaderV2(r, &h->data_page_header_v2.emplace());
      default: return SkipField(r, f);  // incl. 6: index_page_header (empty, unused)
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(ReadStruct(r, kPageHeaderFields, &seen, on_field));
  LITHIFY_RETURN_NOT_OK(CheckRequired(seen, kPageHeaderFields, {1, 2, 3}));
  // Readers dereference the sub-header that matches the type; guarantee it exists.
  switch (h->type) {
    case PageType::kDataPage:
      if (!h->data_page_header)
        return Status::Corruption("PageHeader: DATA_PAGE without data_page_header");
      break;
    case PageType::kDictionaryPage:
      if (!h->dictionary_page_header)
        return Status::Corruption("PageHeader: DICTIONARY_PAGE without dictionary_page_header");
      break;
    case PageType::kDataPageV2:
      if (!h->data_page_header_v2)
        return Status::Corruption("PageHeader: DATA_PAGE_V2 without data_page_header_v2");
      break;
    default: break;  // index pages and unknown page types carry nothing lithify reads
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------
// Serializers. Optional fields are written only when set; union members lithify does
// not model (kUnsupported logical types) are never written.

void WriteStatistics(CompactWriter& w, const Statistics& s) {
  if (s.max) w.WriteBinaryField(1, *s.max);
  if (s.min) w.WriteBinaryField(2, *s.min);
  if (s.null_count) w.WriteI64Field(3, *s.null_count);
  if (s.distinct_count) w.WriteI64Field(4, *s.distinct_count);
  if (s.max_value) w.WriteBinaryField(5, *s.max_value);
  if (s.min_value) w.WriteBinaryField(6, *s.min_value);
  if (s.is_max_value_exact) w.WriteBoolField(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.WriteBoolField(8, *s.is_min_value_exact);
  if (s.nan_count) w.WriteI64Field(9, *s.nan_count);
}

void WriteStatisticsField(CompactWriter& w, int16_t id, const Statistics& s) {
  w.WriteStructFieldBegin(id);
  WriteStatistics(w, s);
  w.WriteStructEnd();
}

void WriteTimeLike(CompactWriter& w, const LogicalType& lt) {
  w.WriteBoolField(1, lt.is_adjusted_to_utc);
  w.WriteStructFieldBegin(2);
  switch (lt.unit) {
    case TimeUnit::kMillis: w.WriteEmptyStructField(1); break;
    case TimeUnit::kMicros: w.WriteEmptyStructField(2); break;
    case TimeUnit::kNanos: w.WriteEmptyStructField(3); break;
  }
  w.WriteStructEnd();
}

// Returns false when `lt` has nothing to write (kNone, kUnsupported).
bool WriteLogicalTypeField(CompactWriter& w, int16_t id, const LogicalType& lt) {
  using Kind = LogicalType::Kind;
  int16_t member = 0;
  switch (lt.kind) {
    case Kind::kNone:
    case Kind::kUnsupported: return false;
    case Kind::kDecimal: member = 5; break;
    case Kind::kTime: member = 7; break;
    case Kind::kTimestamp: member = 8; break;
    case Kind::kInteger: member = 10; break;
    default:
      for (const MarkerKind& m : kMarkerKinds) {
        if (m.kind == lt.kind) member = m.id;
      }
      break;
  }
  if (member == 0) return false;
  w.WriteStructFieldBegin(id);
  w.WriteStructFieldBegin(member);
  switch (lt.kind) {
    case Kind::kDecimal:
      w.WriteI32Field(1, lt.scale);
      w.WriteI32Field(2, lt.precision);
      break;
    case Kind::kTime:
    case Kind::kTimestamp: WriteTimeLike(w, lt); break;
    case Kind::kInteger:
      w.WriteI8Field(1, lt.bit_width);
      w.WriteBoolField(2, lt.is_signed);
      break;
    default: break;  // marker struct: empty
  }
  w.WriteStructEnd();
  w.WriteStructEnd();
  return true;
}

void WriteSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.WriteStructBegin();
  if (e.type) w.WriteI32Field(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.WriteI32Field(2, *e.type_length);
  if (e.repetition_type) w.WriteI32Field(3, static_cast<int32_t>(*e.repetition_type));
  w.WriteBinaryField(4, e.name);
  if (e.num_children) w.WriteI32Field(5, *e.num_children);
  if (e.converted_type) w.WriteI32Field(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.WriteI32Field(7, *e.scale);
  if (e.precision) w.WriteI32Field(8, *e.precision);
  if (e.field_id) w.WriteI32Field(9, *e.field_id);
  WriteLogicalTypeField(w, 10, e.logical_type);
  w.WriteStructEnd();
}

void WriteKeyValues(CompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  w.WriteFieldHeader(WireType::kList, id);
  w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    w.WriteStructBegin();
    w.WriteBinaryField(1, kv.key);
    if (kv.value) w.WriteBinaryField(2, *kv.value);
    w.WriteStructEnd();
  }
}

void WriteColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.WriteI32Field(1, static_cast<int32_t>(m.type));
  w.WriteFieldHeader(WireType::kList, 2);
  w.WriteListHeader(WireType::kI32, static_cast<uint32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.WriteI32(static_cast<int32_t>(e));
  w.WriteFieldHeader(WireType::kList, 3);
  w.WriteListHeader(WireType::kBinary, static_cast<uint32_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) w.WriteBinary(p);
  w.WriteI32Field(4, static_cast<int32_t>(m.codec));
  w.WriteI64Field(5, m.num_values);
  w.WriteI64Field(6, m.total_uncompressed_size);
  w.WriteI64Field(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteKeyValues(w, 8, m.key_value_metadata);
  w.WriteI64Field(9, m.data_page_offset);
  if (m.index_page_offset) w.WriteI64Field(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.WriteI64Field(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatisticsField(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) {
    w.WriteFieldHeader(WireType::kList, 13);
    w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(m.encoding_stats.size()));
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.WriteStructBegin();
      w.WriteI32Field(1, static_cast<int32_t>(s.page_type));
      w.WriteI32Field(2, static_cast<int32_t>(s.encoding));
      w.WriteI32Field(3, s.count);
      w.WriteStructEnd();
    }
  }
  if (m.bloom_filter_offset) w.WriteI64Field(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.WriteI32Field(15, *m.bloom_filter_length);
}

void WriteColumnChunk(CompactWriter& w, const ColumnChunk& c) {
  w.WriteStructBegin();
  if (c.file_path) w.WriteBinaryField(1, *c.file_path);
  w.WriteI64Field(2, c.file_offset);
  if (c.meta_data) {
    w.WriteStructFieldBegin(3);
    WriteColumnMetaData(w, *c.meta_data);
    w.WriteStructEnd();
  }
  if (c.offset_index_offset) w.WriteI64Field(4, *c.offset_index_offset);
  if (c.offset_index_length) w.WriteI32Field(5, *c.offset_index_length);
  if (c.column_index_offset) w.WriteI64Field(6, *c.column_index_offset);
  if (c.column_index_length) w.WriteI32Field(7, *c.column_index_length);
  if (c.has_crypto_metadata) {
    // Only the flag is modelled; ENCRYPTION_WITH_FOOTER_KEY is the member without
    // payload, so this keeps the flag through a round trip without inventing keys.
    w.WriteStructFieldBegin(8);
    w.WriteEmptyStructField(1);
    w.WriteStructEnd();
  }
  if (c.encrypted_column_metadata) w.WriteBinaryField(9, *c.encrypted_column_metadata);
  w.WriteStructEnd();
}

void WriteRowGroup(CompactWriter& w, const RowGroup& g) {
  w.WriteStructBegin();
  w.WriteFieldHeader(WireType::kList, 1);
  w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(g.columns.size()));
  for (const ColumnChunk& c : g.columns) WriteColumnChunk(w, c);
  w.WriteI64Field(2, g.total_byte_size);
  w.WriteI64Field(3, g.num_rows);
  if (!g.sorting_columns.empty()) {
    w.WriteFieldHeader(WireType::kList, 4);
    w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(g.sorting_columns.size()));
    for (const SortingColumn& s : g.sorting_columns) {
      w.WriteStructBegin();
      w.WriteI32Field(1, s.column_idx);
      w.WriteBoolField(2, s.descending);
      w.WriteBoolField(3, s.nulls_first);
      w.WriteStructEnd();
    }
  }
  if (g.file_offset) w.WriteI64Field(5, *g.file_offset);
  if (g.total_compressed_size) w.WriteI64Field(6, *g.total_compressed_size);
  if (g.ordinal) w.WriteI16Field(7, *g.ordinal);
  w.WriteStructEnd();
}

void WriteFileMetaData(CompactWriter& w, const FileMetaData& md) {
  w.WriteStructBegin();
  w.WriteI32Field(1, md.version);
  w.WriteFieldHeader(WireType::kList, 2);
  w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(md.schema.size()));
  for (const SchemaElement& e : md.schema) WriteSchemaElement(w, e);
  w.WriteI64Field(3, md.num_rows);
  w.WriteFieldHeader(WireType::kList, 4);
  w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(md.row_groups.size()));
  for (const RowGroup& g : md.row_groups) WriteRowGroup(w, g);
  if (!md.key_value_metadata.empty()) WriteKeyValues(w, 5, md.key_value_metadata);
  if (md.created_by) w.WriteBinaryField(6, *md.created_by);
  if (!md.column_orders.empty()) {
    w.WriteFieldHeader(WireType::kList, 7);
    w.WriteListHeader(WireType::kStruct, static_cast<uint32_t>(md.column_orders.size()));
    for (const ColumnOrder& o : md.column_orders) {
      w.WriteStructBegin();
      // A non-type-defined order is written as an empty union, which readers treat as
      // an unknown order (ignore min/max) -- exactly what the flag means.
      if (o.type_defined_order) w.WriteEmptyStructField(1);
      w.WriteStructEnd();
    }
  }
  if (md.has_encryption_algorithm) {
    // Only the flag is modelled: written as AES_GCM_V1 with no AAD fields.
    w.WriteStructFieldBegin(8);
    w.WriteEmptyStructField(1);
    w.WriteStructEnd();
  }
  if (md.footer_signing_key_metadata) w.WriteBinaryField(9, *md.footer_signing_key_metadata);
  w.WriteStructEnd();
}

void WriteDataPageHeader(CompactWriter& w, const DataPageHeader& h) {
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, static_cast<int32_t>(h.encoding));
  w.WriteI32Field(3, static_cast<int32_t>(h.definition_level_encoding));
  w.WriteI32Field(4, static_cast<int32_t>(h.repetition_level_encoding));
  if (h.statistics) WriteStatisticsField(w, 5, *h.statistics);
}

void WriteDictionaryPageHeader(CompactWriter& w, const DictionaryPageHeader& h) {
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, static_cast<int32_t>(h.encoding));
  if (h.is_sorted) w.WriteBoolField(3, *h.is_sorted);
}

void WriteDataPageHeaderV2(CompactWriter& w, const DataPageHeaderV2& h) {
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, h.num_nulls);
  w.WriteI32Field(3, h.num_rows);
  w.WriteI32Field(4, static_cast<int32_t>(h.encoding));
  w.WriteI32Field(5, h.definition_levels_byte_length);
  w.WriteI32Field(6, h.repetition_levels_byte_length);
  w.WriteBoolField(7, h.is_compressed);
  if (h.statistics) WriteStatisticsField(w, 8, *h.statistics);
}

}  // namespace

Result<FileMetaData> ParseFileMetaData(ByteView bytes) {
  CompactReader r(bytes, BudgetFor(bytes.size()));
  FileMetaData md;
  // Bytes after the struct are allowed: encrypted files with a plaintext footer append
  // a signature there.
  LITHIFY_RETURN_NOT_OK_CTX(ReadFileMetaData(r, &md), "parquet footer");
  return md;
}

Result<PageHeader> ParsePageHeader(ByteView bytes, size_t* header_size) {
  CompactReader r(bytes, BudgetFor(bytes.size()));
  PageHeader ph;
  LITHIFY_RETURN_NOT_OK_CTX(ReadPageHeader(r, &ph), "page header");
  *header_size = r.position();
  return ph;
}

void SerializeFileMetaData(const FileMetaData& md, Buffer* out) {
  CompactWriter w(out);
  WriteFileMetaData(w, md);
}

void SerializePageHeader(const PageHeader& ph, Buffer* out) {
  CompactWriter w(out);
  w.WriteStructBegin();
  w.WriteI32Field(1, static_cast<int32_t>(ph.type));
  w.WriteI32Field(2, ph.uncompressed_page_size);
  w.WriteI32Field(3, ph.compressed_page_size);
  if (ph.crc) w.WriteI32Field(4, *ph.crc);
  if (ph.data_page_header) {
    w.WriteStructFieldBegin(5);
    WriteDataPageHeader(w, *ph.data_page_header);
    w.WriteStructEnd();
  }
  if (ph.dictionary_page_header) {
    w.WriteStructFieldBegin(7);
    WriteDictionaryPageHeader(w, *ph.dictionary_page_header);
    w.WriteStructEnd();
  }
  if (ph.data_page_header_v2) {
    w.WriteStructFieldBegin(8);
    WriteDataPageHeaderV2(w, *ph.data_page_header_v2);
    w.WriteStructEnd();
  }
  w.WriteStructEnd();
}

// ---------------------------------------------------------------------------------
// Names, spelled as in parquet.thrift.

const char* PhysicalTypeName(PhysicalType t) {
  switch (t) {
    case PhysicalType::kBoolean: return "BOOLEAN";
    case PhysicalType::kInt32: return "INT32";
    case PhysicalType::kInt64: return "INT64";
    case PhysicalType::kInt96: return "INT96";
    case PhysicalType::kFloat: return "FLOAT";
    case PhysicalType::kDouble: return "DOUBLE";
    case PhysicalType::kByteArray: return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPlain: return "PLAIN";
    case Encoding::kPlainDictionary: return "PLAIN_DICTIONARY";
    case Encoding::kRle: return "RLE";
    case Encoding::kBitPacked: return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked: return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray: return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary: return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit: return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

const char* CodecName(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::kUncompressed: return "UNCOMPRESSED";
    case CompressionCodec::kSnappy: return "SNAPPY";
    case CompressionCodec::kGzip: return "GZIP";
    case CompressionCodec::kLzo: return "LZO";
    case CompressionCodec::kBrotli: return "BROTLI";
    case CompressionCodec::kLz4: return "LZ4";
    case CompressionCodec::kZstd: return "ZSTD";
    case CompressionCodec::kLz4Raw: return "LZ4_RAW";
  }
  return "UNKNOWN";
}

const char* ConvertedTypeName(ConvertedType c) {
  switch (c) {
    case ConvertedType::kUtf8: return "UTF8";
    case ConvertedType::kMap: return "MAP";
    case ConvertedType::kMapKeyValue: return "MAP_KEY_VALUE";
    case ConvertedType::kList: return "LIST";
    case ConvertedType::kEnum: return "ENUM";
    case ConvertedType::kDecimal: return "DECIMAL";
    case ConvertedType::kDate: return "DATE";
    case ConvertedType::kTimeMillis: return "TIME_MILLIS";
    case ConvertedType::kTimeMicros: return "TIME_MICROS";
    case ConvertedType::kTimestampMillis: return "TIMESTAMP_MILLIS";
    case ConvertedType::kTimestampMicros: return "TIMESTAMP_MICROS";
    case ConvertedType::kUint8: return "UINT_8";
    case ConvertedType::kUint16: return "UINT_16";
    case ConvertedType::kUint32: return "UINT_32";
    case ConvertedType::kUint64: return "UINT_64";
    case ConvertedType::kInt8: return "INT_8";
    case ConvertedType::kInt16: return "INT_16";
    case ConvertedType::kInt32: return "INT_32";
    case ConvertedType::kInt64: return "INT_64";
    case ConvertedType::kJson: return "JSON";
    case ConvertedType::kBson: return "BSON";
    case ConvertedType::kInterval: return "INTERVAL";
  }
  return "UNKNOWN";
}

const char* PageTypeName(PageType t) {
  switch (t) {
    case PageType::kDataPage: return "DATA_PAGE";
    case PageType::kIndexPage: return "INDEX_PAGE";
    case PageType::kDictionaryPage: return "DICTIONARY_PAGE";
    case PageType::kDataPageV2: return "DATA_PAGE_V2";
  }
  return "UNKNOWN";
}

const char* RepetitionName(Repetition r) {
  switch (r) {
    case Repetition::kRequired: return "REQUIRED";
    case Repetition::kOptional: return "OPTIONAL";
    case Repetition::kRepeated: return "REPEATED";
  }
  return "UNKNOWN";
}

}  // namespace lithify::parquet
