#include "lithify/parquet/metadata.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lithify/parquet/thrift_compact.h"
#include "lithify_test_paths.h"

namespace lithify::parquet {
namespace {

namespace fs = std::filesystem;
using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::FieldHeader;
using thrift::ListHeader;
using thrift::MapHeader;
using thrift::WireType;

const fs::path kCorpus = fs::path(LITHIFY_SOURCE_DIR) / ".." / "shared" / "corpus";

std::string ReadWholeFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Footer bytes of a plaintext-footer Parquet file; empty if the file is not one
// (encrypted footer "PARE", or too short).
std::string FooterOf(const std::string& file) {
  if (file.size() < 12 || file.compare(file.size() - 4, 4, "PAR1") != 0) return {};
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  if (len > file.size() - 12) return {};
  return file.substr(file.size() - 8 - len, len);
}

std::string FooterOfFile(const std::string& relative) {
  return FooterOf(ReadWholeFile(kCorpus / relative));
}

ByteView View(const std::string& s) { return AsBytes(s); }

std::string Serialize(const FileMetaData& md) {
  Buffer buf;
  SerializeFileMetaData(md, &buf);
  return std::string(AsStringView(buf.view()));
}

std::string Serialize(const PageHeader& ph) {
  Buffer buf;
  SerializePageHeader(ph, &buf);
  return std::string(AsStringView(buf.view()));
}

// ---------------------------------------------------------------------------------
// Thrift compact protocol

TEST(ThriftCompact, IntegersRoundTripAtTheirLimits) {
  Buffer buf;
  CompactWriter w(&buf);
  const int16_t i16s[] = {0,
                          1,
                          -1,
                          63,
                          -64,
                          64,
                          std::numeric_limits<int16_t>::min(),
                          std::numeric_limits<int16_t>::max()};
  const int32_t i32s[] = {0, -1, 1 << 20, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()};
  const int64_t i64s[] = {0, -1, int64_t{1} << 40, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()};
  for (int16_t v : i16s) w.WriteI16(v);
  for (int32_t v : i32s) w.WriteI32(v);
  for (int64_t v : i64s) w.WriteI64(v);
  w.WriteI8(-128);
  w.WriteDouble(-2.5);

  CompactReader r(buf.view());
  for (int16_t want : i16s) {
    int16_t got;
    ASSERT_TRUE(r.ReadI16(&got).ok());
    EXPECT_EQ(got, want);
  }
  for (int32_t want : i32s) {
    int32_t got;
    ASSERT_TRUE(r.ReadI32(&got).ok());
    EXPECT_EQ(got, want);
  }
  for (int64_t want : i64s) {
    int64_t got;
    ASSERT_TRUE(r.ReadI64(&got).ok());
    EXPECT_EQ(got, want);
  }
  int8_t i8;
  ASSERT_TRUE(r.ReadI8(&i8).ok());
  EXPECT_EQ(i8, -128);
  double d;
  ASSERT_TRUE(r.ReadDouble(&d).ok());
  EXPECT_EQ(d, -2.5);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompact, ZigZagWireBytes) {
  // -1 zigzags to 1, 1 to 2, 64 to 128 = varint 0x80 0x01.
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteI32(-1);
  w.WriteI32(1);
  w.WriteI32(64);
  std::vector<uint8_t> got(buf.data(), buf.data() + buf.size());
  EXPECT_EQ(got, (std::vector<uint8_t>{0x01, 0x02, 0x80, 0x01}));
}

TEST(ThriftCompact, FieldHeadersShortAndLongForm) {
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteStructBegin();
  w.WriteI32Field(1, 7);      // delta 1: short form
  w.WriteI32Field(40, 8);     // delta 39: long form
  w.WriteI32Field(3, 9);      // decreasing id: long form
  w.WriteBoolField(4, true);  // delta 1, bool in type
  w.WriteBoolField(5, false);
  w.WriteStructEnd();
  EXPECT_EQ(buf[0], 0x15);  // delta 1, i32
  EXPECT_EQ(buf[2], 0x05);  // long form: type only, id follows

  CompactReader r(buf.view());
  ASSERT_TRUE(r.ReadStructBegin().ok());
  FieldHeader f;
  int32_t v;
  const std::pair<int16_t, int32_t> want[] = {{1, 7}, {40, 8}, {3, 9}};
  for (auto [id, value] : want) {
    ASSERT_TRUE(r.ReadFieldHeader(&f).ok());
    EXPECT_EQ(f.id, id);
    ASSERT_EQ(f.type, WireType::kI32);
    ASSERT_TRUE(r.ReadI32(&v).ok());
    EXPECT_EQ(v, value);
  }
  ASSERT_TRUE(r.ReadFieldHeader(&f).ok());
  EXPECT_EQ(f.id, 4);
  EXPECT_TRUE(f.is_bool() && f.bool_value());
  ASSERT_TRUE(r.ReadFieldHeader(&f).ok());
  EXPECT_EQ(f.id, 5);
  EXPECT_TRUE(f.is_bool() && !f.bool_value());
  ASSERT_TRUE(r.ReadFieldHeader(&f).ok());
  EXPECT_EQ(f.type, WireType::kStop);
  ASSERT_TRUE(r.ReadStructEnd().ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompact, ListShortAndLongFormAndMaps) {
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteListHeader(WireType::kI32, 3);
  for (int i = 0; i < 3; ++i) w.WriteI32(i);
  w.WriteListHeader(WireType::kBinary, 20);  // long form
  for (int i = 0; i < 20; ++i) w.WriteBinary(std::string(i, 'x'));
  w.WriteMapHeader(WireType::kBinary, WireType::kI64, 2);
  w.WriteBinary("a");
  w.WriteI64(-5);
  w.WriteBinary("b");
  w.WriteI64(6);
  w.WriteMapHeader(WireType::kI32, WireType::kI32, 0);  // empty map: size byte only
  w.WriteListHeader(WireType::kBoolTrue, 2);
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);

  CompactReader r(buf.view());
  ListHeader list;
  ASSERT_TRUE(r.ReadListHeader(&list).ok());
  EXPECT_EQ(list.size, 3u);
  EXPECT_EQ(list.element_type, WireType::kI32);
  for (int i = 0; i < 3; ++i) {
    int32_t v;
    ASSERT_TRUE(r.ReadI32(&v).ok());
    EXPECT_EQ(v, i);
  }
  r.ReadContainerEnd();
  ASSERT_TRUE(r.ReadListHeader(&list).ok());
  EXPECT_EQ(list.size, 20u);
  for (int i = 0; i < 20; ++i) {
    std::string s;
    ASSERT_TRUE(r.ReadBinary(&s).ok());
    EXPECT_EQ(s.size(), static_cast<size_t>(i));
  }
  r.ReadContainerEnd();
  MapHeader map;
  ASSERT_TRUE(r.ReadMapHeader(&map).ok());
  EXPECT_EQ(map.size, 2u);
  EXPECT_EQ(map.key_type, WireType::kBinary);
  EXPECT_EQ(map.value_type, WireType::kI64);
  std::string key;
  int64_t value;
  ASSERT_TRUE(r.ReadBinary(&key).ok());
  ASSERT_TRUE(r.ReadI64(&value).ok());
  EXPECT_EQ(key, "a");
  EXPECT_EQ(value, -5);
  ASSERT_TRUE(r.Skip(WireType::kBinary).ok());
  ASSERT_TRUE(r.Skip(WireType::kI64).ok());
  r.ReadContainerEnd();
  ASSERT_TRUE(r.ReadMapHeader(&map).ok());
  EXPECT_EQ(map.size, 0u);
  r.ReadContainerEnd();
  ASSERT_TRUE(r.ReadListHeader(&list).ok());
  bool b1, b2;
  ASSERT_TRUE(r.ReadBoolElement(&b1).ok());
  ASSERT_TRUE(r.ReadBoolElement(&b2).ok());
  EXPECT_TRUE(b1);
  EXPECT_FALSE(b2);
  r.ReadContainerEnd();
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompact, BoolElementAcceptsZeroAsFalseAndRejectsGarbage) {
  const uint8_t bytes[] = {0, 1, 2, 7};
  CompactReader r(ByteView(bytes, sizeof(bytes)));
  bool v = true;
  ASSERT_TRUE(r.ReadBoolElement(&v).ok());
  EXPECT_FALSE(v);
  ASSERT_TRUE(r.ReadBoolElement(&v).ok());
  EXPECT_TRUE(v);
  ASSERT_TRUE(r.ReadBoolElement(&v).ok());
  EXPECT_FALSE(v);
  EXPECT_TRUE(r.ReadBoolElement(&v).IsCorruption());
}

TEST(ThriftCompact, MalformedPrimitivesAreCorruption) {
  {  // 11-byte varint
    std::vector<uint8_t> b(11, 0x80);
    b.back() = 0x01;
    CompactReader r(ByteView(b.data(), b.size()));
    int64_t v;
    EXPECT_TRUE(r.ReadI64(&v).IsCorruption());
  }
  {  // i32 beyond 32 bits
    const uint8_t b[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    CompactReader r(ByteView(b, sizeof(b)));
    int32_t v;
    EXPECT_TRUE(r.ReadI32(&v).IsCorruption());
  }
  {  // binary longer than the input
    const uint8_t b[] = {0x05, 'a', 'b'};
    CompactReader r(ByteView(b, sizeof(b)));
    std::string s;
    EXPECT_TRUE(r.ReadBinary(&s).IsCorruption());
  }
  {  // list claiming more elements than bytes
    const uint8_t b[] = {0xF5, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};
    CompactReader r(ByteView(b, sizeof(b)));
    ListHeader l;
    EXPECT_TRUE(r.ReadListHeader(&l).IsCorruption());
  }
  {  // list of doubles: 2 claimed, 8 bytes present
    const uint8_t b[] = {0x27, 0, 0, 0, 0, 0, 0, 0, 0};
    CompactReader r(ByteView(b, sizeof(b)));
    ListHeader l;
    EXPECT_TRUE(r.ReadListHeader(&l).IsCorruption());
  }
  {  // invalid wire type 14 in a field header
    const uint8_t b[] = {0x1E};
    CompactReader r(ByteView(b, sizeof(b)));
    ASSERT_TRUE(r.ReadStructBegin().ok());
    FieldHeader f;
    EXPECT_TRUE(r.ReadFieldHeader(&f).IsCorruption());
  }
  {  // empty input
    CompactReader r(ByteView{});
    FieldHeader f;
    ASSERT_TRUE(r.ReadStructBegin().ok());
    EXPECT_TRUE(r.ReadFieldHeader(&f).IsCorruption());
  }
}

TEST(ThriftCompact, SkipsEveryWireType) {
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteStructBegin();
  w.WriteBoolField(1, true);
  w.WriteI8Field(2, 5);
  w.WriteI16Field(3, -300);
  w.WriteI32Field(4, 1 << 30);
  w.WriteI64Field(5, -(int64_t{1} << 50));
  w.WriteDoubleField(6, 1.5);
  w.WriteBinaryField(7, "hello");
  w.WriteFieldHeader(WireType::kList, 8);
  w.WriteListHeader(WireType::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteStructBegin();
    w.WriteBinaryField(1, "x");
    w.WriteStructEnd();
  }
  w.WriteFieldHeader(WireType::kSet, 9);
  w.WriteListHeader(WireType::kBoolTrue, 3);
  for (int i = 0; i < 3; ++i) w.WriteBoolElement(i == 1);
  w.WriteFieldHeader(WireType::kMap, 10);
  w.WriteMapHeader(WireType::kI32, WireType::kList, 1);
  w.WriteI32(3);
  w.WriteListHeader(WireType::kDouble, 1);
  w.WriteDouble(2.0);
  w.WriteFieldHeader(WireType::kUuid, 11);
  for (int i = 0; i < 16; ++i) w.WriteI8(static_cast<int8_t>(i));
  w.WriteStructFieldBegin(12);
  w.WriteStructFieldBegin(1);
  w.WriteI32Field(1, 1);
  w.WriteStructEnd();
  w.WriteStructEnd();
  w.WriteStructEnd();
  const size_t struct_size = buf.size();
  buf.PushBack(0xAA);  // a sentinel after the struct

  CompactReader r(buf.view());
  ASSERT_TRUE(r.Skip(WireType::kStruct).ok());
  EXPECT_EQ(r.position(), struct_size);
}

// A struct nested `depth` deep through field 1.
std::string NestedStructs(int depth) {
  std::string s(depth, '\x1C');  // field delta 1, type struct
  s.append(depth + 1, '\0');     // STOPs
  return s;
}

TEST(ThriftCompact, NestingDepthIsBounded) {
  {
    std::string ok = NestedStructs(thrift::kMaxDepth - 1);
    CompactReader r(View(ok));
    EXPECT_TRUE(r.Skip(WireType::kStruct).ok());
  }
  for (int depth : {thrift::kMaxDepth, 100000}) {
    std::string deep = NestedStructs(depth);
    CompactReader r(View(deep));
    Status st = r.Skip(WireType::kStruct);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find("nesting"), std::string::npos) << st.ToString();
  }
  // Lists of lists of lists...
  std::string lists(100000, '\x19');  // list of 1 element of type list
  CompactReader r(View(lists));
  EXPECT_TRUE(r.Skip(WireType::kList).IsCorruption());
}

TEST(ThriftCompact, ChargeEnforcesBudget) {
  CompactReader r(ByteView{}, 100);
  EXPECT_TRUE(r.Charge(60).ok());
  EXPECT_TRUE(r.Charge(40).ok());
  EXPECT_TRUE(r.Charge(1).IsCorruption());
}

// ---------------------------------------------------------------------------------
// Round trips

Statistics FullStatistics() {
  Statistics s;
  s.max = std::string("\xff\x01", 2);
  s.min = std::string("\0\0", 2);
  s.null_count = 3;
  s.distinct_count = 7;
  s.max_value = "zz";
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  s.nan_count = 2;
  return s;
}

std::vector<LogicalType> AllLogicalTypes() {
  using Kind = LogicalType::Kind;
  std::vector<LogicalType> out;
  for (Kind k : {Kind::kString, Kind::kMap, Kind::kList, Kind::kEnum, Kind::kDate, Kind::kUnknown,
                 Kind::kJson, Kind::kBson, Kind::kUuid, Kind::kFloat16, Kind::kVariant,
                 Kind::kGeometry, Kind::kGeography}) {
    LogicalType lt;
    lt.kind = k;
    out.push_back(lt);
  }
  LogicalType dec;
  dec.kind = Kind::kDecimal;
  dec.precision = 38;
  dec.scale = 9;
  out.push_back(dec);
  for (Kind k : {Kind::kTime, Kind::kTimestamp}) {
    for (TimeUnit u : {TimeUnit::kMillis, TimeUnit::kMicros, TimeUnit::kNanos}) {
      for (bool utc : {false, true}) {
        LogicalType lt;
        lt.kind = k;
        lt.unit = u;
        lt.is_adjusted_to_utc = utc;
        out.push_back(lt);
      }
    }
  }
  for (int8_t bits : {8, 16, 32, 64}) {
    for (bool is_signed : {false, true}) {
      LogicalType lt;
      lt.kind = Kind::kInteger;
      lt.bit_width = bits;
      lt.is_signed = is_signed;
      out.push_back(lt);
    }
  }
  return out;
}

FileMetaData RichFileMetaData() {
  FileMetaData md;
  md.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 0;
  md.schema.push_back(root);
  // One leaf per logical type, plus a fully populated legacy one.
  for (const LogicalType& lt : AllLogicalTypes()) {
    SchemaElement e;
    e.name = "c" + std::to_string(md.schema.size());
    e.type = PhysicalType::kByteArray;
    e.repetition_type = Repetition::kOptional;
    e.logical_type = lt;
    md.schema.push_back(e);
  }
  SchemaElement full;
  full.type = PhysicalType::kFixedLenByteArray;
  full.type_length = 16;
  full.repetition_type = Repetition::kRepeated;
  full.name = "full";
  full.converted_type = ConvertedType::kDecimal;
  full.scale = 2;
  full.precision = 30;
  full.field_id = -7;
  md.schema.push_back(full);
  md.schema[0].num_children = static_cast<int32_t>(md.schema.size() - 1);

  ColumnMetaData cmd;
  cmd.type = PhysicalType::kInt64;
  cmd.encodings = {Encoding::kPlain, Encoding::kRleDictionary, Encoding::kRle,
                   static_cast<Encoding>(42)};  // a future encoding survives
  cmd.path_in_schema = {"a", "b", "c"};
  cmd.codec = CompressionCodec::kZstd;
  cmd.num_values = 1000;
  cmd.total_uncompressed_size = int64_t{1} << 40;
  cmd.total_compressed_size = 12345;
  cmd.key_value_metadata = {{"k1", "v1"}, {"k2", std::nullopt}};
  cmd.data_page_offset = 4;
  cmd.index_page_offset = 5;
  cmd.dictionary_page_offset = 0;
  cmd.statistics = FullStatistics();
  cmd.encoding_stats = {{PageType::kDictionaryPage, Encoding::kPlain, 1},
                        {PageType::kDataPage, Encoding::kRleDictionary, 9}};
  cmd.bloom_filter_offset = 999;
  cmd.bloom_filter_length = 64;

  ColumnChunk full_chunk;
  full_chunk.file_path = "other.parquet";
  full_chunk.file_offset = 77;
  full_chunk.meta_data = cmd;
  full_chunk.offset_index_offset = 1000;
  full_chunk.offset_index_length = 20;
  full_chunk.column_index_offset = 1020;
  full_chunk.column_index_length = 30;
  full_chunk.has_crypto_metadata = true;
  full_chunk.encrypted_column_metadata = std::string("\x01\x02\x00", 3);

  ColumnMetaData minimal_cmd;
  minimal_cmd.data_page_offset = 4;
  ColumnChunk minimal_chunk;
  minimal_chunk.meta_data = minimal_cmd;

  RowGroup g1;
  g1.columns = {full_chunk, minimal_chunk};
  g1.total_byte_size = 5000;
  g1.num_rows = 600;
  g1.sorting_columns = {{0, true, false}, {1, false, true}};
  g1.file_offset = 4;
  g1.total_compressed_size = 4000;
  g1.ordinal = 0;
  RowGroup g2;  // every optional unset, no columns
  g2.num_rows = 400;
  md.row_groups = {g1, g2};
  md.num_rows = 1000;
  md.key_value_metadata = {{"ARROW:schema", std::string(300, 'q')}, {"empty", ""}};
  md.created_by = "lithify version 0.1.0";
  md.column_orders = {ColumnOrder{true}, ColumnOrder{false}};
  md.has_encryption_algorithm = true;
  md.footer_signing_key_metadata = "key";
  return md;
}

TEST(MetadataRoundTrip, RichFileMetaData) {
  FileMetaData md = RichFileMetaData();
  std::string bytes = Serialize(md);
  Result<FileMetaData> parsed = ParseFileMetaData(View(bytes));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, md);
  // Spot checks, in case operator== were ever wrong.
  EXPECT_EQ(parsed->schema.size(), md.schema.size());
  EXPECT_EQ(parsed->row_groups[0].columns[0].meta_data->encodings[3], static_cast<Encoding>(42));
  EXPECT_FALSE(parsed->row_groups[1].file_offset.has_value());
  EXPECT_FALSE(parsed->column_orders[1].type_defined_order);
  EXPECT_EQ(parsed->row_groups[0].columns[0].meta_data->statistics->min_value, "");
}

TEST(MetadataRoundTrip, MinimalFileMetaData) {
  FileMetaData md;
  SchemaElement root;
  root.name = "r";
  md.schema.push_back(root);
  std::string bytes = Serialize(md);
  Result<FileMetaData> parsed = ParseFileMetaData(View(bytes));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, md);
  EXPECT_FALSE(parsed->created_by.has_value());
  EXPECT_TRUE(parsed->row_groups.empty());
}

TEST(MetadataRoundTrip, EveryLogicalTypeKind) {
  for (const LogicalType& lt : AllLogicalTypes()) {
    FileMetaData md;
    SchemaElement e;
    e.name = "x";
    e.logical_type = lt;
    md.schema.push_back(e);
    Result<FileMetaData> parsed = ParseFileMetaData(View(Serialize(md)));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->schema[0].logical_type, lt) << static_cast<int>(lt.kind);
  }
}

TEST(MetadataRoundTrip, UnsupportedLogicalTypeIsNotWritten) {
  FileMetaData md;
  SchemaElement e;
  e.name = "x";
  e.logical_type.kind = LogicalType::Kind::kUnsupported;
  e.logical_type.thrift_field_id = 19;
  md.schema.push_back(e);
  Result<FileMetaData> parsed = ParseFileMetaData(View(Serialize(md)));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->schema[0].logical_type.kind, LogicalType::Kind::kNone);
}

std::vector<PageHeader> SamplePageHeaders() {
  std::vector<PageHeader> out;
  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 100;
  v1.compressed_page_size = 80;
  v1.crc = -123456;
  v1.data_page_header = DataPageHeader{10, Encoding::kRleDictionary, Encoding::kRle,
                                       Encoding::kBitPacked, FullStatistics()};
  out.push_back(v1);
  PageHeader v1_plain = v1;
  v1_plain.crc.reset();
  v1_plain.data_page_header->statistics.reset();
  out.push_back(v1_plain);
  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 40;
  dict.compressed_page_size = 40;
  dict.dictionary_page_header = DictionaryPageHeader{5, Encoding::kPlainDictionary, true};
  out.push_back(dict);
  PageHeader dict_unsorted = dict;
  dict_unsorted.dictionary_page_header->is_sorted.reset();
  out.push_back(dict_unsorted);
  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = std::numeric_limits<int32_t>::max();
  v2.compressed_page_size = 0;
  v2.data_page_header_v2 =
      DataPageHeaderV2{20, 3, 17, Encoding::kDeltaBinaryPacked, 6, 2, false, FullStatistics()};
  out.push_back(v2);
  PageHeader index;
  index.type = PageType::kIndexPage;
  out.push_back(index);
  return out;
}

TEST(MetadataRoundTrip, PageHeadersReportTheirSize) {
  for (const PageHeader& ph : SamplePageHeaders()) {
    std::string bytes = Serialize(ph);
    const size_t header_len = bytes.size();
    bytes += "page payload that follows the header";
    size_t header_size = 0;
    Result<PageHeader> parsed = ParsePageHeader(View(bytes), &header_size);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, ph);
    EXPECT_EQ(header_size, header_len);
  }
}

TEST(MetadataRoundTrip, ManyRowGroupsParse) {
  // Footers with thousands of row groups must parse (and fast: no quadratic work).
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 20;
  md.schema.push_back(root);
  for (int c = 0; c < 20; ++c) {
    SchemaElement e;
    e.name = "col" + std::to_string(c);
    e.type = PhysicalType::kInt64;
    e.repetition_type = Repetition::kRequired;
    md.schema.push_back(e);
  }
  for (int g = 0; g < 5000; ++g) {
    RowGroup rg;
    rg.num_rows = 10;
    for (int c = 0; c < 20; ++c) {
      ColumnChunk cc;
      cc.meta_data.emplace();
      cc.meta_data->type = PhysicalType::kInt64;
      cc.meta_data->encodings = {Encoding::kPlain};
      cc.meta_data->path_in_schema = {md.schema[c + 1].name};
      cc.meta_data->num_values = 10;
      cc.meta_data->data_page_offset = g * 1000 + c;
      rg.columns.push_back(cc);
    }
    md.row_groups.push_back(std::move(rg));
  }
  md.num_rows = 50000;
  std::string bytes = Serialize(md);
  Result<FileMetaData> parsed = ParseFileMetaData(View(bytes));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->row_groups.size(), 5000u);
  EXPECT_EQ(*parsed, md);
}

// ---------------------------------------------------------------------------------
// Validation

// Builds FileMetaData bytes by hand so tests can write what SerializeFileMetaData never
// would.
class FooterBuilder {
 public:
  FooterBuilder() : w_(&buf_) { w_.WriteStructBegin(); }
  CompactWriter& w() { return w_; }
  void MinimalSchema() {
    w_.WriteFieldHeader(WireType::kList, 2);
    w_.WriteListHeader(WireType::kStruct, 1);
    w_.WriteStructBegin();
    w_.WriteBinaryField(4, "root");
    w_.WriteStructEnd();
  }
  std::string Finish() {
    w_.WriteStructEnd();
    return std::string(AsStringView(buf_.view()));
  }

 private:
  Buffer buf_;
  CompactWriter w_;
};

TEST(MetadataValidation, UnknownFieldsAreSkipped) {
  FooterBuilder b;
  b.w().WriteI32Field(1, 1);
  b.MinimalSchema();
  b.w().WriteI64Field(3, 0);
  b.w().WriteFieldHeader(WireType::kList, 4);
  b.w().WriteListHeader(WireType::kStruct, 0);
  // Fields from a "future" format version, of assorted types.
  b.w().WriteFieldHeader(WireType::kMap, 50);
  b.w().WriteMapHeader(WireType::kBinary, WireType::kStruct, 1);
  b.w().WriteBinary("k");
  b.w().WriteStructBegin();
  b.w().WriteDoubleField(3, 1.0);
  b.w().WriteStructEnd();
  b.w().WriteBoolField(51, true);
  b.w().WriteBinaryField(1000, "future");
  std::string bytes = b.Finish();
  Result<FileMetaData> md = ParseFileMetaData(View(bytes));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->schema[0].name, "root");
}

TEST(MetadataValidation, MissingRequiredFieldsAreCorruption) {
  FooterBuilder b;
  b.MinimalSchema();  // no num_rows, no row_groups
  Result<FileMetaData> md = ParseFileMetaData(View(b.Finish()));
  ASSERT_TRUE(md.status().IsCorruption());
  EXPECT_NE(md.status().message().find("num_rows"), std::string::npos) << md.status().ToString();

  FooterBuilder empty_schema;
  empty_schema.w().WriteFieldHeader(WireType::kList, 2);
  empty_schema.w().WriteListHeader(WireType::kStruct, 0);
  empty_schema.w().WriteI64Field(3, 0);
  empty_schema.w().WriteFieldHeader(WireType::kList, 4);
  empty_schema.w().WriteListHeader(WireType::kStruct, 0);
  md = ParseFileMetaData(View(empty_schema.Finish()));
  ASSERT_TRUE(md.status().IsCorruption());
  EXPECT_NE(md.status().message().find("empty schema"), std::string::npos);
}

TEST(MetadataValidation, NegativeCountsAndBadEnumsAreRejected) {
  {  // negative num_rows
    FooterBuilder b;
    b.MinimalSchema();
    b.w().WriteI64Field(3, -1);
    Result<FileMetaData> md = ParseFileMetaData(View(b.Finish()));
    ASSERT_TRUE(md.status().IsCorruption());
    EXPECT_NE(md.status().message().find("FileMetaData.num_rows"), std::string::npos);
  }
  {  // physical type 8
    FileMetaData md;
    md.schema.emplace_back();
    md.schema[0].type = static_cast<PhysicalType>(8);
    Result<FileMetaData> parsed = ParseFileMetaData(View(Serialize(md)));
    ASSERT_TRUE(parsed.status().IsCorruption());
    EXPECT_NE(parsed.status().message().find("SchemaElement.type"), std::string::npos);
  }
  {  // converted type 22 (enum frozen at 21)
    FileMetaData md;
    md.schema.emplace_back();
    md.schema[0].converted_type = static_cast<ConvertedType>(22);
    EXPECT_TRUE(ParseFileMetaData(View(Serialize(md))).status().IsCorruption());
  }
  {  // VECTOR repetition: valid in newer formats, not implemented
    FileMetaData md;
    md.schema.emplace_back();
    md.schema[0].repetition_type = static_cast<Repetition>(3);
    Status st = ParseFileMetaData(View(Serialize(md))).status();
    ASSERT_TRUE(st.IsNotSupported()) << st.ToString();
    EXPECT_NE(st.message().find("VECTOR"), std::string::npos);
  }
  {  // negative type_length
    FileMetaData md;
    md.schema.emplace_back();
    md.schema[0].type_length = -4;
    EXPECT_TRUE(ParseFileMetaData(View(Serialize(md))).status().IsCorruption());
  }
  {  // invalid IntType width
    FileMetaData md;
    md.schema.emplace_back();
    md.schema[0].logical_type.kind = LogicalType::Kind::kInteger;
    md.schema[0].logical_type.bit_width = 12;
    EXPECT_TRUE(ParseFileMetaData(View(Serialize(md))).status().IsCorruption());
  }
  {  // unknown codec is kept; negative codec is not
    FileMetaData md = RichFileMetaData();
    md.row_groups[0].columns[1].meta_data->codec = static_cast<CompressionCodec>(99);
    Result<FileMetaData> parsed = ParseFileMetaData(View(Serialize(md)));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->row_groups[0].columns[1].meta_data->codec, static_cast<CompressionCodec>(99));
    EXPECT_STREQ(CodecName(parsed->row_groups[0].columns[1].meta_data->codec), "UNKNOWN");
    md.row_groups[0].columns[1].meta_data->codec = static_cast<CompressionCodec>(-1);
    EXPECT_TRUE(ParseFileMetaData(View(Serialize(md))).status().IsCorruption());
  }
  {  // negative page sizes
    PageHeader ph = SamplePageHeaders()[0];
    ph.compressed_page_size = -1;
    size_t n;
    Status st = ParsePageHeader(View(Serialize(ph)), &n).status();
    ASSERT_TRUE(st.IsCorruption());
    EXPECT_NE(st.message().find("compressed_page_size"), std::string::npos) << st.ToString();
  }
}

TEST(MetadataValidation, PageHeaderMustCarryItsSubHeader) {
  PageHeader ph = SamplePageHeaders()[0];
  ph.data_page_header.reset();
  size_t n;
  EXPECT_TRUE(ParsePageHeader(View(Serialize(ph)), &n).status().IsCorruption());
  ph.type = PageType::kDictionaryPage;
  EXPECT_TRUE(ParsePageHeader(View(Serialize(ph)), &n).status().IsCorruption());
  ph.type = static_cast<PageType>(17);  // unknown page type: kept, no sub-header needed
  Result<PageHeader> parsed = ParsePageHeader(View(Serialize(ph)), &n);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->type, static_cast<PageType>(17));
}

TEST(MetadataValidation, MismatchedWireTypeIsSkippedLikeAnUnknownField) {
  // Thrift semantics (and real files: an old parquet-mr fork reused ColumnMetaData id 15
  // for a list): a known id with another wire type is skipped.
  FooterBuilder b;
  b.w().WriteBinaryField(1, "not an i32");
  b.MinimalSchema();
  b.w().WriteI64Field(3, 5);
  b.w().WriteFieldHeader(WireType::kList, 4);
  b.w().WriteListHeader(WireType::kStruct, 0);
  Result<FileMetaData> md = ParseFileMetaData(View(b.Finish()));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 1);
  EXPECT_EQ(md->num_rows, 5);

  // ...but a required field of the wrong type counts as missing.
  FooterBuilder bad;
  bad.MinimalSchema();
  bad.w().WriteBinaryField(3, "not an i64");
  bad.w().WriteFieldHeader(WireType::kList, 4);
  bad.w().WriteListHeader(WireType::kStruct, 0);
  Status st = ParseFileMetaData(View(bad.Finish())).status();
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("num_rows"), std::string::npos) << st.ToString();
}

TEST(MetadataValidation, WrongListElementTypeIsCorruption) {
  FooterBuilder b;
  b.w().WriteFieldHeader(WireType::kList, 2);
  b.w().WriteListHeader(WireType::kI32, 1);
  b.w().WriteI32(0);
  Status st = ParseFileMetaData(View(b.Finish())).status();
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("FileMetaData.schema"), std::string::npos) << st.ToString();
}

TEST(MetadataValidation, UnknownLogicalTypeMembers) {
  // A logical type union member from a newer format (19 = VECTOR, 40 = invented) and a
  // TIMESTAMP with an unknown time unit.
  for (int16_t member : {19, 40}) {
    FooterBuilder b;
    b.w().WriteFieldHeader(WireType::kList, 2);
    b.w().WriteListHeader(WireType::kStruct, 1);
    b.w().WriteStructBegin();
    b.w().WriteBinaryField(4, "v");
    b.w().WriteStructFieldBegin(10);
    b.w().WriteStructFieldBegin(member);
    b.w().WriteI32Field(1, 3);
    b.w().WriteStructEnd();
    b.w().WriteStructEnd();
    b.w().WriteStructEnd();
    b.w().WriteI64Field(3, 0);
    b.w().WriteFieldHeader(WireType::kList, 4);
    b.w().WriteListHeader(WireType::kStruct, 0);
    Result<FileMetaData> md = ParseFileMetaData(View(b.Finish()));
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    EXPECT_EQ(md->schema[0].logical_type.kind, LogicalType::Kind::kUnsupported);
    EXPECT_EQ(md->schema[0].logical_type.thrift_field_id, member);
  }
  FooterBuilder b;
  b.w().WriteFieldHeader(WireType::kList, 2);
  b.w().WriteListHeader(WireType::kStruct, 1);
  b.w().WriteStructBegin();
  b.w().WriteBinaryField(4, "ts");
  b.w().WriteStructFieldBegin(10);
  b.w().WriteStructFieldBegin(8);  // TIMESTAMP
  b.w().WriteBoolField(1, true);
  b.w().WriteStructFieldBegin(2);  // unit
  b.w().WriteEmptyStructField(9);  // unknown unit
  b.w().WriteStructEnd();
  b.w().WriteStructEnd();
  b.w().WriteStructEnd();
  b.w().WriteStructEnd();
  b.w().WriteI64Field(3, 0);
  b.w().WriteFieldHeader(WireType::kList, 4);
  b.w().WriteListHeader(WireType::kStruct, 0);
  Result<FileMetaData> md = ParseFileMetaData(View(b.Finish()));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->schema[0].logical_type.kind, LogicalType::Kind::kUnsupported);
  EXPECT_EQ(md->schema[0].logical_type.thrift_field_id, 8);
}

TEST(MetadataValidation, DeepNestingBombIsCorruption) {
  // schema element with an unknown field nesting structs 100000 deep.
  FooterBuilder b;
  b.w().WriteFieldHeader(WireType::kList, 2);
  b.w().WriteListHeader(WireType::kStruct, 1);
  std::string bytes = b.Finish();
  bytes.pop_back();                // drop the outer STOP written by Finish; we append our own tail
  bytes += '\xFC';                 // SchemaElement field 15 (unknown), a struct...
  bytes += NestedStructs(100000);  // ...holding a tower of structs
  Status st = ParseFileMetaData(View(bytes)).status();
  ASSERT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("nesting"), std::string::npos) << st.ToString();

  std::string top = "\xFC" + NestedStructs(100000);  // unknown FileMetaData field 15
  st = ParseFileMetaData(View(top)).status();
  ASSERT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("nesting"), std::string::npos) << st.ToString();
}

TEST(MetadataValidation, ClaimedSizesCannotExhaustMemory) {
  {  // schema list claiming 2^31-1 elements in a few bytes
    const uint8_t bytes[] = {0x29, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00};
    EXPECT_TRUE(ParseFileMetaData(ByteView(bytes, sizeof(bytes))).status().IsCorruption());
  }
  {  // 4M empty ColumnChunks (1 byte each) would decode to gigabytes
    constexpr uint32_t kChunks = 4u << 20;
    FooterBuilder b;
    b.MinimalSchema();
    b.w().WriteI64Field(3, 0);
    b.w().WriteFieldHeader(WireType::kList, 4);
    b.w().WriteListHeader(WireType::kStruct, 1);
    b.w().WriteStructBegin();
    b.w().WriteFieldHeader(WireType::kList, 1);
    b.w().WriteListHeader(WireType::kStruct, kChunks);
    std::string bytes = b.Finish();
    bytes.pop_back();
    bytes.append(kChunks, '\0');                  // empty ColumnChunk structs
    bytes += std::string("\x26\x00\x00\x00", 4);  // RowGroup.num_rows = 0; two STOPs
    Status st = ParseFileMetaData(View(bytes)).status();
    ASSERT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find("more structure"), std::string::npos) << st.ToString();
  }
}

TEST(MetadataValidation, WhatParsesReparsesAfterSerialize) {
  // Many empty ColumnChunks (1 byte each) padded with a large unknown field: the
  // serializer drops the padding, so the re-parse has fewer bytes to justify the same
  // structure. The memory budget is sized so this still parses (the fuzzer checks it).
  constexpr uint32_t kChunks = 40000;
  FooterBuilder b;
  b.w().WriteBinaryField(20, std::string(300000, 'p'));  // unknown field
  b.MinimalSchema();
  b.w().WriteI64Field(3, 0);
  b.w().WriteFieldHeader(WireType::kList, 4);
  b.w().WriteListHeader(WireType::kStruct, 1);
  b.w().WriteStructBegin();
  b.w().WriteFieldHeader(WireType::kList, 1);
  b.w().WriteListHeader(WireType::kStruct, kChunks);
  std::string bytes = b.Finish();
  bytes.pop_back();
  bytes.append(kChunks, '\0');
  bytes += std::string("\x26\x00\x00\x00", 4);  // RowGroup.num_rows = 0; two STOPs
  Result<FileMetaData> md = ParseFileMetaData(View(bytes));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ(md->row_groups[0].columns.size(), kChunks);
  std::string again = Serialize(*md);
  EXPECT_LT(again.size(), bytes.size() / 2);
  Result<FileMetaData> reparsed = ParseFileMetaData(View(again));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString();
  EXPECT_EQ(*reparsed, *md);
}

// ---------------------------------------------------------------------------------
// Real footers from the shared corpus

std::vector<fs::path> CorpusParquetFiles() {
  std::vector<fs::path> out;
  for (const char* dir : {"parquet-testing/data", "duckdb"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kCorpus / dir)) {
      if (!entry.is_regular_file()) continue;
      std::string name = entry.path().filename().string();
      if (name.find(".parquet") == std::string::npos || name.ends_with(".json")) continue;
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Parse -> Serialize -> Parse must be stable, modulo union members lithify does not write.
void ExpectReserializes(const FileMetaData& md, const std::string& label) {
  FileMetaData expected = md;
  for (SchemaElement& e : expected.schema) {
    if (e.logical_type.kind == LogicalType::Kind::kUnsupported) e.logical_type = LogicalType{};
  }
  Result<FileMetaData> again = ParseFileMetaData(View(Serialize(md)));
  ASSERT_TRUE(again.ok()) << label << ": " << again.status().ToString();
  EXPECT_EQ(*again, expected) << label;
}

TEST(MetadataCorpus, EveryFooterParses) {
  int parsed = 0, encrypted = 0;
  for (const fs::path& path : CorpusParquetFiles()) {
    std::string file = ReadWholeFile(path);
    const std::string label = path.lexically_relative(kCorpus).string();
    ASSERT_GE(file.size(), 12u) << label;
    if (file.compare(file.size() - 4, 4, "PARE") == 0) {
      ++encrypted;
      continue;
    }
    std::string footer = FooterOf(file);
    ASSERT_FALSE(footer.empty()) << label;
    Result<FileMetaData> md = ParseFileMetaData(View(footer));
    ASSERT_TRUE(md.ok()) << label << ": " << md.status().ToString();
    int64_t sum = 0;
    for (const RowGroup& g : md->row_groups) sum += g.num_rows;
    if (label.ends_with("repeated_no_annotation.parquet")) {
      // Known writer bug (parquet-rs 0.3.0): footer num_rows 0, row groups hold 6.
      EXPECT_EQ(md->num_rows, 0) << label;
      EXPECT_EQ(sum, 6) << label;
    } else {
      EXPECT_EQ(md->num_rows, sum) << label;
    }
    ExpectReserializes(*md, label);
    ++parsed;
  }
  EXPECT_GE(parsed, 70);
  EXPECT_GE(encrypted, 1);
}

TEST(MetadataCorpus, AlltypesPlainKnownValues) {
  Result<FileMetaData> md =
      ParseFileMetaData(View(FooterOfFile("parquet-testing/data/alltypes_plain.parquet")));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 8);
  // The corpus README quotes the version; the footer adds the build hash.
  ASSERT_TRUE(md->created_by.has_value());
  EXPECT_TRUE(md->created_by->starts_with("impala version 1.3.0-INTERNAL")) << *md->created_by;
  ASSERT_EQ(md->schema.size(), 12u);
  EXPECT_EQ(md->schema[0].num_children, 11);
  EXPECT_EQ(md->schema[1].name, "id");
  ASSERT_EQ(md->row_groups.size(), 1u);
  ASSERT_EQ(md->row_groups[0].columns.size(), 11u);
  const ColumnMetaData& id = *md->row_groups[0].columns[0].meta_data;
  EXPECT_EQ(id.path_in_schema, std::vector<std::string>{"id"});
  EXPECT_EQ(id.codec, CompressionCodec::kUncompressed);
  EXPECT_EQ(id.num_values, 8);
  // The timestamp column is INT96.
  bool has_int96 = false;
  for (const SchemaElement& e : md->schema) has_int96 |= e.type == PhysicalType::kInt96;
  EXPECT_TRUE(has_int96);
}

TEST(MetadataCorpus, KnownValuesFromOtherWriters) {
  {
    Result<FileMetaData> md =
        ParseFileMetaData(View(FooterOfFile("parquet-testing/data/sort_columns.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 6);
    EXPECT_EQ(md->created_by, "parquet-cpp-arrow version 16.1.0");
    ASSERT_EQ(md->row_groups.size(), 2u);
    EXPECT_FALSE(md->row_groups[0].sorting_columns.empty());
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(
        View(FooterOfFile("parquet-testing/data/data_index_bloom_encoding_with_length.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 14);
    const ColumnMetaData& c = *md->row_groups[0].columns[0].meta_data;
    EXPECT_TRUE(c.bloom_filter_offset.has_value());
    EXPECT_TRUE(c.bloom_filter_length.has_value());
  }
  {
    Result<FileMetaData> md =
        ParseFileMetaData(View(FooterOfFile("parquet-testing/data/unknown-logical-type.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 3);
    bool unsupported = false;
    for (const SchemaElement& e : md->schema) {
      unsupported |= e.logical_type.kind == LogicalType::Kind::kUnsupported;
    }
    EXPECT_TRUE(unsupported);
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(
        View(FooterOfFile("parquet-testing/data/float16_nonzeros_and_nans.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 8);
    EXPECT_EQ(md->schema.back().logical_type.kind, LogicalType::Kind::kFloat16);
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(
        View(FooterOfFile("parquet-testing/data/column_chunk_key_value_metadata.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 0);
    bool any = false;
    for (const RowGroup& g : md->row_groups) {
      for (const ColumnChunk& c : g.columns) any |= !c.meta_data->key_value_metadata.empty();
    }
    EXPECT_TRUE(any);
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(
        View(FooterOfFile("parquet-testing/data/binary_truncated_min_max.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 12);
    bool exact_flag = false;
    for (const ColumnChunk& c : md->row_groups[0].columns) {
      exact_flag |=
          c.meta_data->statistics && c.meta_data->statistics->is_max_value_exact.has_value();
    }
    EXPECT_TRUE(exact_flag);
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(View(
        FooterOfFile("parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted")));
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    EXPECT_TRUE(md->has_encryption_algorithm);
    bool crypto = false;
    for (const ColumnChunk& c : md->row_groups[0].columns) crypto |= c.has_crypto_metadata;
    EXPECT_TRUE(crypto);
  }
  {
    Result<FileMetaData> md = ParseFileMetaData(View(FooterOfFile(
        "duckdb/data/parquet-testing/compression/generated/data_page=1_NONE.parquet")));
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->num_rows, 30);
  }
}

TEST(MetadataCorpus, FirstPageHeaderOfARealFile) {
  std::string file = ReadWholeFile(kCorpus / "parquet-testing/data/alltypes_plain.parquet");
  Result<FileMetaData> md = ParseFileMetaData(View(FooterOf(file)));
  ASSERT_TRUE(md.ok());
  const ColumnMetaData& c = *md->row_groups[0].columns[0].meta_data;
  int64_t start = c.dictionary_page_offset.value_or(c.data_page_offset);
  ASSERT_LT(static_cast<size_t>(start), file.size());
  size_t header_size = 0;
  Result<PageHeader> ph =
      ParsePageHeader(View(file).subspan(static_cast<size_t>(start)), &header_size);
  ASSERT_TRUE(ph.ok()) << ph.status().ToString();
  EXPECT_GT(header_size, 0u);
  // Impala writes a dictionary page first for every column.
  EXPECT_EQ(ph->type, PageType::kDictionaryPage);
  ASSERT_TRUE(ph->dictionary_page_header.has_value());
  EXPECT_EQ(ph->dictionary_page_header->num_values, 8);
}

// ---------------------------------------------------------------------------------
// Hostile input

bool AcceptableFailure(const Status& st) {
  // NotSupported only for the one valid-but-unimplemented value a flip can produce.
  return st.ok() || st.IsCorruption() ||
         (st.IsNotSupported() && st.message().find("VECTOR") != std::string::npos);
}

TEST(MetadataHostile, EveryTruncationOfRealFootersIsCorruption) {
  for (const char* name : {"parquet-testing/data/alltypes_plain.parquet",
                           "parquet-testing/data/data_index_bloom_encoding_stats.parquet",
                           "parquet-testing/data/nested_maps.snappy.parquet"}) {
    std::string footer = FooterOfFile(name);
    ASSERT_FALSE(footer.empty()) << name;
    for (size_t n = 0; n < footer.size(); ++n) {
      // Copy so ASan sees exactly n readable bytes.
      std::vector<uint8_t> prefix(footer.begin(), footer.begin() + n);
      Status st = ParseFileMetaData(ByteView(prefix.data(), prefix.size())).status();
      ASSERT_TRUE(st.IsCorruption()) << name << " prefix " << n << ": " << st.ToString();
    }
  }
}

TEST(MetadataHostile, EveryTruncationOfPageHeadersIsCorruption) {
  for (const PageHeader& ph : SamplePageHeaders()) {
    std::string bytes = Serialize(ph);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
      size_t header_size;
      Status st = ParsePageHeader(ByteView(prefix.data(), prefix.size()), &header_size).status();
      ASSERT_TRUE(st.IsCorruption()) << "prefix " << n << ": " << st.ToString();
    }
  }
}

TEST(MetadataHostile, RandomByteFlipsNeverCrash) {
  std::mt19937 rng(12345);
  for (const char* name : {"parquet-testing/data/alltypes_plain.parquet",
                           "parquet-testing/data/nested_structs.rust.parquet",
                           "parquet-testing/data/data_index_bloom_encoding_with_length.parquet",
                           "parquet-testing/data/byte_stream_split_extended.gzip.parquet"}) {
    std::string footer = FooterOfFile(name);
    ASSERT_FALSE(footer.empty()) << name;
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 1500; ++iter) {
      std::vector<uint8_t> mutated(footer.begin(), footer.end());
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) {
        size_t pos = rng() % mutated.size();
        if (rng() % 2) {
          mutated[pos] ^= static_cast<uint8_t>(1u << (rng() % 8));
        } else {
          mutated[pos] = static_cast<uint8_t>(rng());
        }
      }
      Result<FileMetaData> md = ParseFileMetaData(ByteView(mutated.data(), mutated.size()));
      ASSERT_TRUE(AcceptableFailure(md.status())) << name << ": " << md.status().ToString();
      (md.ok() ? ok : failed)++;
    }
    // Both outcomes must occur, or the mutation is not exercising anything.
    EXPECT_GT(failed, 0) << name;
    EXPECT_GT(ok, 0) << name;
  }
}

TEST(MetadataHostile, RandomPageHeaderBytesNeverCrash) {
  std::mt19937 rng(777);
  std::vector<PageHeader> samples = SamplePageHeaders();
  for (int iter = 0; iter < 5000; ++iter) {
    std::string bytes = Serialize(samples[iter % samples.size()]);
    std::vector<uint8_t> mutated(bytes.begin(), bytes.end());
    mutated[rng() % mutated.size()] = static_cast<uint8_t>(rng());
    size_t header_size = 0;
    Result<PageHeader> ph = ParsePageHeader(ByteView(mutated.data(), mutated.size()), &header_size);
    ASSERT_TRUE(ph.ok() || ph.status().IsCorruption()) << ph.status().ToString();
    if (ph.ok()) {
      EXPECT_LE(header_size, mutated.size());
      EXPECT_GE(ph->compressed_page_size, 0);
      EXPECT_GE(ph->uncompressed_page_size, 0);
    }
  }
}

TEST(MetadataHostile, BadDataFootersFailCleanly) {
  for (const auto& entry : fs::directory_iterator(kCorpus / "parquet-testing/bad_data")) {
    std::string footer = FooterOf(ReadWholeFile(entry.path()));
    if (footer.empty()) continue;
    Status st = ParseFileMetaData(View(footer)).status();
    EXPECT_TRUE(AcceptableFailure(st)) << entry.path() << ": " << st.ToString();
  }
}

// ---------------------------------------------------------------------------------
// Names

TEST(MetadataNames, SpelledAsInParquetThrift) {
  EXPECT_STREQ(PhysicalTypeName(PhysicalType::kFixedLenByteArray), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_STREQ(PhysicalTypeName(PhysicalType::kInt64), "INT64");
  EXPECT_STREQ(EncodingName(Encoding::kRleDictionary), "RLE_DICTIONARY");
  EXPECT_STREQ(EncodingName(Encoding::kByteStreamSplit), "BYTE_STREAM_SPLIT");
  EXPECT_STREQ(EncodingName(static_cast<Encoding>(1)), "UNKNOWN");
  EXPECT_STREQ(CodecName(CompressionCodec::kSnappy), "SNAPPY");
  EXPECT_STREQ(CodecName(CompressionCodec::kLz4Raw), "LZ4_RAW");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::kTimestampMicros), "TIMESTAMP_MICROS");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::kUint8), "UINT_8");
  EXPECT_STREQ(PageTypeName(PageType::kDataPageV2), "DATA_PAGE_V2");
  EXPECT_STREQ(RepetitionName(Repetition::kRepeated), "REPEATED");
  EXPECT_STREQ(RepetitionName(static_cast<Repetition>(7)), "UNKNOWN");
}

}  // namespace
}  // namespace lithify::parquet
