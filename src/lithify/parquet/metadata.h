// Parquet file metadata: C++ mirrors of the Thrift structures in parquet-format's
// parquet.thrift, and their Thrift compact-protocol encoding.
//
// Field names follow parquet.thrift in snake_case; optional Thrift fields are
// std::optional. Only what lithify reads or writes is modelled; unknown fields and
// unknown union members are skipped on parse (forward compatibility) and never written.
// These are plain values: copyable, no invariants beyond what the format states, safe to
// share read-only across threads.
//
// Enum policy on parse (values outside the enumerators never cause UB: every enum has a
// fixed underlying type):
//   - PhysicalType, ConvertedType, Repetition: closed sets; other values are Corruption
//     (Repetition VECTOR = 3, a recent format addition, is NotSupported).
//   - Encoding, CompressionCodec, PageType: newer writers add values, so any
//     non-negative value is kept verbatim. Consumers must treat values they do not list
//     as NotSupported when they actually need them (the *Name functions say "UNKNOWN").
// Validation on parse:
//   - Negative values are Corruption for the counts, sizes and offsets readers compute
//     with (page sizes/counts, ColumnMetaData num_values/sizes/offsets, page/column
//     index and bloom filter locations, RowGroup and FileMetaData num_rows,
//     type_length, num_children, SortingColumn.column_idx). Purely informational
//     fields (RowGroup file_offset/total_*/ordinal, ColumnChunk.file_offset, Statistics
//     counts) are not checked: real writers have emitted wrong values there.
//   - Required fields readers depend on must be present: PageHeader type and sizes and
//     the sub-header matching its type, ColumnMetaData type/codec/num_values/sizes/
//     data_page_offset, RowGroup columns/num_rows, FileMetaData schema/num_rows/
//     row_groups; the schema must be non-empty. Others default (ColumnChunk.file_offset
//     0, level encodings RLE, SchemaElement.name "").
//   - A known field id arriving with a different wire type is skipped like an unknown
//     field (Thrift semantics; an old parquet-mr fork reused an id), so it then counts
//     as absent.
//   - Bytes after the FileMetaData struct are allowed (a plaintext-footer signature).
// Semantic checks (schema tree shape, decimal precision/scale, path_in_schema matching
// the schema, num_rows matching the row groups -- parquet-rs 0.3.0 wrote 0) are left to
// the schema and reader layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"

namespace lithify::parquet {

// parquet.thrift `Type`.
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// parquet.thrift `ConvertedType` (legacy logical annotations).
enum class ConvertedType : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6,
  kTimeMillis = 7, kTimeMicros = 8, kTimestampMillis = 9, kTimestampMicros = 10,
  kUint8 = 11, kUint16 = 12, kUint32 = 13, kUint64 = 14, kInt8 = 15, kInt16 = 16,
  kInt32 = 17, kInt64 = 18, kJson = 19, kBson = 20, kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // Hadoop-framed LZ4 (deprecated in the format; still written by old writers)
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class TimeUnit : int32_t { kMillis, kMicros, kNanos };

// parquet.thrift `LogicalType` union, flattened. kind == kNone means absent.
// kUnknown is the format's UNKNOWN (always-null) type; kUnsupported is a union member
// this build does not know (e.g. VARIANT, GEOMETRY): read as the physical type.
struct LogicalType {
  enum class Kind : int32_t {
    kNone, kString, kMap, kList, kEnum, kDecimal, kDate, kTime, kTimestamp, kInteger,
    kUnknown, kJson, kBson, kUuid, kFloat16, kVariant, kGeometry, kGeography, kUnsupported,
  };
  Kind kind = Kind::kNone;
  int32_t thrift_field_id = 0;  // for kUnsupported: which union member it was
  // kDecimal
  int32_t scale = 0;
  int32_t precision = 0;
  // kTime, kTimestamp
  bool is_adjusted_to_utc = false;
  TimeUnit unit = TimeUnit::kMillis;
  // kInteger
  int8_t bit_width = 0;
  bool is_signed = true;
  bool operator==(const LogicalType&) const = default;
};

// parquet.thrift `Statistics`. Values are PLAIN-encoded (without length prefix for
// BYTE_ARRAY).
struct Statistics {
  std::optional<std::string> max;  // legacy (field 1), signed-comparison order
  std::optional<std::string> min;  // legacy (field 2)
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;  // field 5, column-order aware
  std::optional<std::string> min_value;  // field 6
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  // Field 9 (FLOAT/DOUBLE/FLOAT16 only): NaN values, which min/max leave out; absent
  // means NaN may be present.
  std::optional<int64_t> nan_count;
  bool operator==(const Statistics&) const = default;
};

struct SchemaElement {
  std::optional<PhysicalType> type;          // set for leaves only
  std::optional<int32_t> type_length;        // FIXED_LEN_BYTE_ARRAY width
  std::optional<Repetition> repetition_type; // absent only for the root
  std::string name;
  std::optional<int32_t> num_children;       // set for groups (incl. root)
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  LogicalType logical_type;                  // kind kNone when absent
  bool operator==(const SchemaElement&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;  // thrift default true
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;  // CRC-32 (zlib polynomial) of the page bytes after the header
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;
  bool operator==(const SortingColumn&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
  bool operator==(const PageEncodingStats&) const = default;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kInt32;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool has_crypto_metadata = false;         // field 8 present: column is encrypted
                                            // (serialized as ENCRYPTION_WITH_FOOTER_KEY)
  std::optional<std::string> encrypted_column_metadata;
  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::vector<SortingColumn> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
  bool operator==(const RowGroup&) const = default;
};

// parquet.thrift `ColumnOrder` union: TYPE_ORDER (field 1) or something unknown.
// false (e.g. IEEE_754_TOTAL_ORDER) serializes as an empty union, which readers treat as
// an unknown order, i.e. they ignore min/max.
struct ColumnOrder {
  bool type_defined_order = true;
  bool operator==(const ColumnOrder&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  // depth-first, root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  std::vector<ColumnOrder> column_orders;
  bool has_encryption_algorithm = false;  // plaintext footer of an encrypted file
                                          // (serialized as AES_GCM_V1 without AAD)
  std::optional<std::string> footer_signing_key_metadata;
  bool operator==(const FileMetaData&) const = default;
};

// Parses a Thrift-compact FileMetaData (the footer bytes between the start of the
// footer and the 4-byte length). Corruption on malformed or truncated input; never
// reads outside `bytes`; nesting depth and container sizes are bounded so hostile input
// cannot exhaust memory or the stack (decoded vectors use at most ~192 bytes per input
// byte, 16 MiB minimum). Whatever parses also parses again after SerializeFileMetaData.
Result<FileMetaData> ParseFileMetaData(ByteView bytes);

// Parses one PageHeader at the start of `bytes`; sets *header_size to the number of
// bytes it occupied. Corruption on malformed or truncated input.
Result<PageHeader> ParsePageHeader(ByteView bytes, size_t* header_size);

// Appends the Thrift-compact encoding to `out`.
void SerializeFileMetaData(const FileMetaData& md, Buffer* out);
void SerializePageHeader(const PageHeader& ph, Buffer* out);

// Names for display ("SNAPPY", "RLE_DICTIONARY", "INT64", ...), as parquet.thrift spells them.
const char* PhysicalTypeName(PhysicalType t);
const char* EncodingName(Encoding e);
const char* CodecName(CompressionCodec c);
const char* ConvertedTypeName(ConvertedType c);
const char* PageTypeName(PageType t);
const char* RepetitionName(Repetition r);

}  // namespace lithify::parquet
