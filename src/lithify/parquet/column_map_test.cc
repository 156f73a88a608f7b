// MapColumns (column_map.h): which schemas of other writers map one to one onto a target
// schema, and RewriteFiles writing such inputs under the target's schema.
#include "lithify/parquet/column_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/rewrite.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::parquet {
namespace {

using F = FieldSpec;
using V = Value;
using CT = ConvertedType;
using LK = LogicalType::Kind;
constexpr auto kReq = Repetition::kRequired;
constexpr auto kOpt = Repetition::kOptional;
constexpr auto kRep = Repetition::kRepeated;

// Schema elements, depth first (the footer form).
SchemaElement Group(const std::string& name, int children, std::optional<Repetition> rep = kOpt,
                    std::optional<CT> ct = std::nullopt) {
  SchemaElement e;
  e.name = name;
  e.num_children = children;
  e.repetition_type = rep;
  e.converted_type = ct;
  if (ct == CT::kList) e.logical_type.kind = LK::kList;
  if (ct == CT::kMap) e.logical_type.kind = LK::kMap;
  return e;
}
SchemaElement Leaf(const std::string& name, PhysicalType t, Repetition rep = kOpt) {
  SchemaElement e;
  e.name = name;
  e.type = t;
  e.repetition_type = rep;
  return e;
}
SchemaElement Converted(SchemaElement e, CT ct) {
  e.converted_type = ct;
  return e;
}
SchemaElement Logical(SchemaElement e, LogicalType l) {
  e.logical_type = l;
  return e;
}
SchemaElement WithId(SchemaElement e, int32_t id) {
  e.field_id = id;
  return e;
}
LogicalType L(LK kind) {
  LogicalType l;
  l.kind = kind;
  return l;
}
LogicalType Ts(TimeUnit unit, bool utc) {
  LogicalType l = L(LK::kTimestamp);
  l.unit = unit;
  l.is_adjusted_to_utc = utc;
  return l;
}
LogicalType Int(int bits, bool is_signed) {
  LogicalType l = L(LK::kInteger);
  l.bit_width = static_cast<int8_t>(bits);
  l.is_signed = is_signed;
  return l;
}
LogicalType Dec(int p, int s) {
  LogicalType l = L(LK::kDecimal);
  l.precision = p;
  l.scale = s;
  return l;
}
SchemaElement ConvertedDecimal(SchemaElement e, int p, int s) {
  e.converted_type = CT::kDecimal;
  e.precision = p;
  e.scale = s;
  return e;
}
SchemaElement Fixed(SchemaElement e, int width) {
  e.type_length = width;
  return e;
}

Schema Make(std::vector<SchemaElement> fields) {
  std::vector<SchemaElement> all{Group("schema", 0, std::nullopt)};
  // The root's children: the top-level entries (a group's descendants follow it).
  int top = 0;
  size_t i = 0;
  std::function<void()> skip = [&] {
    const int n = fields[i++].num_children.value_or(0);
    for (int k = 0; k < n && i < fields.size(); ++k) skip();
  };
  while (i < fields.size()) {
    skip();
    ++top;
  }
  all[0].num_children = top;
  all.insert(all.end(), fields.begin(), fields.end());
  auto s = Schema::FromElements(std::move(all));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : Schema{};
}

Schema Build(const std::vector<FieldSpec>& fields) {
  auto s = BuildSchema(fields, "spark_schema");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : Schema{};
}

// The reason MapColumns gives, or "" when it maps.
std::string Refusal(const Schema& file, const Schema& target, ColumnMapOptions o = {}) {
  auto m = MapColumns(file, target, o);
  if (m.ok()) return "";
  EXPECT_TRUE(m.status().IsNotSupported()) << m.status().ToString();
  return m.status().message();
}

TEST(MapColumnsTest, TheSameSchemaIsTheIdentity) {
  Schema s = Build({F::Long("id", false), F::String("name"), F::List("l", F::Int("element")),
                    F::Map("m", F::String("key"), F::Double("value"))});
  auto m = MapColumns(s, s);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->same_schema);
  EXPECT_TRUE(m->identity_leaves());
}

// parquet-mr / Spark before logical types: converted types only.
TEST(MapColumnsTest, ConvertedTypesEqualTheirLogicalTypes) {
  Schema file = Make({Converted(Leaf("s", PhysicalType::kByteArray), CT::kUtf8),
                      ConvertedDecimal(Leaf("d32", PhysicalType::kInt32), 9, 2),
                      ConvertedDecimal(Leaf("d64", PhysicalType::kInt64), 18, 4),
                      ConvertedDecimal(Fixed(Leaf("dfix", PhysicalType::kFixedLenByteArray), 16), 38, 10),
                      Converted(Leaf("i", PhysicalType::kInt32), CT::kInt32),
                      Converted(Leaf("l", PhysicalType::kInt64), CT::kInt64),
                      Converted(Leaf("b", PhysicalType::kInt32), CT::kInt8),
                      Converted(Leaf("date", PhysicalType::kInt32), CT::kDate),
                      Converted(Leaf("ts", PhysicalType::kInt64), CT::kTimestampMicros),
                      Converted(Leaf("tms", PhysicalType::kInt64), CT::kTimestampMillis)});
  Schema target = Make({Logical(Leaf("s", PhysicalType::kByteArray), L(LK::kString)),
                        Logical(Leaf("d32", PhysicalType::kInt32), Dec(9, 2)),
                        Logical(Leaf("d64", PhysicalType::kInt64), Dec(18, 4)),
                        Logical(Fixed(Leaf("dfix", PhysicalType::kFixedLenByteArray), 16), Dec(38, 10)),
                        Logical(Leaf("i", PhysicalType::kInt32), Int(32, true)),
                        Leaf("l", PhysicalType::kInt64),
                        Logical(Leaf("b", PhysicalType::kInt32), Int(8, true)),
                        Logical(Leaf("date", PhysicalType::kInt32), L(LK::kDate)),
                        Logical(Leaf("ts", PhysicalType::kInt64), Ts(TimeUnit::kMicros, true)),
                        Logical(Leaf("tms", PhysicalType::kInt64), Ts(TimeUnit::kMillis, true))});
  auto m = MapColumns(file, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->same_schema);
  EXPECT_TRUE(m->identity_leaves());
  // The lithify/Delta data-file schema of the same columns maps too.
  Schema delta = Build({F::String("s"), F::Decimal("d32", 9, 2), F::Decimal("d64", 18, 4), F::Decimal("dfix", 38, 10),
                        F::Int("i"), F::Long("l"), F::Byte("b"), F::Date("date"), F::Timestamp("ts")});
  Schema file9 = Make({Converted(Leaf("s", PhysicalType::kByteArray), CT::kUtf8),
                       ConvertedDecimal(Leaf("d32", PhysicalType::kInt32), 9, 2),
                       ConvertedDecimal(Leaf("d64", PhysicalType::kInt64), 18, 4),
                       ConvertedDecimal(Fixed(Leaf("dfix", PhysicalType::kFixedLenByteArray), 16), 38, 10),
                       Leaf("i", PhysicalType::kInt32), Leaf("l", PhysicalType::kInt64),
                       Converted(Leaf("b", PhysicalType::kInt32), CT::kInt8),
                       Converted(Leaf("date", PhysicalType::kInt32), CT::kDate),
                       Converted(Leaf("ts", PhysicalType::kInt64), CT::kTimestampMicros)});
  EXPECT_EQ(Refusal(file9, delta), "");
}

TEST(MapColumnsTest, FieldIdsPresentOrAbsentAndMatchingById) {
  Schema target = Make({WithId(Leaf("a", PhysicalType::kInt64), 1), WithId(Leaf("b", PhysicalType::kDouble), 2)});
  // No ids in the file: by name.
  Schema by_name = Make({Leaf("b", PhysicalType::kDouble), Leaf("a", PhysicalType::kInt64)});
  auto m = MapColumns(by_name, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->leaves[0].file_leaf, 1);
  EXPECT_EQ(m->leaves[1].file_leaf, 0);
  EXPECT_FALSE(m->identity_leaves());
  // Ids on both sides: by id, whatever the names (column mapping renames).
  Schema by_id = Make({WithId(Leaf("col-2", PhysicalType::kDouble), 2), WithId(Leaf("col-1", PhysicalType::kInt64), 1)});
  m = MapColumns(by_id, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->leaves[0].file_leaf, 1);
  // Ids matching off: by name, so the renamed columns are missing.
  ColumnMapOptions names;
  names.match_field_ids = false;
  EXPECT_NE(Refusal(by_id, target, names).find("column 'a': missing in the file"), std::string::npos);
  // Ids in the target only: by name.
  Schema plain = Make({Leaf("a", PhysicalType::kInt64), Leaf("b", PhysicalType::kDouble)});
  EXPECT_EQ(Refusal(target, plain), "");
  // A column the target does not have is ignored.
  Schema extra = Make({Leaf("x", PhysicalType::kBoolean), Leaf("a", PhysicalType::kInt64), Leaf("b", PhysicalType::kDouble)});
  m = MapColumns(extra, plain);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->leaves[0].file_leaf, 1);
}

TEST(MapColumnsTest, RequiredWhereTheTargetIsOptionalRemapsDefinitionLevels) {
  Schema file = Make({Leaf("a", PhysicalType::kInt64, kReq), Group("s", 1, kReq), Leaf("x", PhysicalType::kInt32, kOpt)});
  Schema target = Make({Leaf("a", PhysicalType::kInt64, kOpt), Group("s", 1, kOpt), Leaf("x", PhysicalType::kInt32, kOpt)});
  auto m = MapColumns(file, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->leaves[0].def_map, (std::vector<int16_t>{1}));     // never null: level 1
  EXPECT_EQ(m->leaves[1].def_map, (std::vector<int16_t>{1, 2}));  // s always present
  ColumnMapOptions strict;
  strict.allow_required_to_optional = false;
  EXPECT_NE(Refusal(file, target, strict).find("required in the file, optional in the target"), std::string::npos);
  // The other way round: the file may hold nulls.
  EXPECT_NE(Refusal(target, file).find("column 'a': optional in the file, required in the target"), std::string::npos);
  std::vector<int16_t> levels;
  RemapDefLevels(m->leaves[0], 3, &levels);
  EXPECT_EQ(levels, (std::vector<int16_t>{1, 1, 1}));
  levels = {0, 1, 1, 0};
  RemapDefLevels(m->leaves[1], 4, &levels);
  EXPECT_EQ(levels, (std::vector<int16_t>{1, 2, 2, 1}));
}

TEST(MapColumnsTest, LegacyListAndMapShapes) {
  Schema target = Build({F::List("l", F::Int("element", false)), F::List("o", F::Int("element")),
                         F::Map("m", F::String("key"), F::Long("value"))});
  // 2-level lists (parquet-mr's legacy `array`), MAP_KEY_VALUE with parquet-mr's names.
  Schema file = Make({Group("l", 1, kOpt, CT::kList), Leaf("array", PhysicalType::kInt32, kRep),
                      Group("o", 1, kOpt, CT::kList), Leaf("array", PhysicalType::kInt32, kRep),
                      Group("m", 1, kOpt, CT::kMap), Group("map", 2, kRep, CT::kMapKeyValue),
                      Converted(Leaf("key", PhysicalType::kByteArray, kReq), CT::kUtf8),
                      Leaf("value", PhysicalType::kInt64, kOpt)});
  auto m = MapColumns(file, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->leaves[0].def_map.empty());  // same levels: 2-level = 3-level with a required element
  EXPECT_EQ(m->leaves[1].def_map, (std::vector<int16_t>{0, 1, 3}));  // element always present
  EXPECT_TRUE(m->leaves[2].def_map.empty());
  EXPECT_TRUE(m->leaves[3].def_map.empty());
  // Spark's legacy 3-level list (`bag` / `array`) is rule 4: a 2-level list of structs.
  Schema bag = Make({Group("l", 1, kOpt, CT::kList), Group("bag", 1, kRep), Leaf("array", PhysicalType::kInt32, kReq),
                     Group("o", 1, kOpt, CT::kList), Group("list", 1, kRep), Leaf("element", PhysicalType::kInt32),
                     Group("m", 1, kOpt, CT::kMap), Group("key_value", 2, kRep),
                     Converted(Leaf("key", PhysicalType::kByteArray, kReq), CT::kUtf8),
                     Leaf("value", PhysicalType::kInt64)});
  EXPECT_EQ(Refusal(bag, target), "");
}

TEST(MapColumnsTest, ValueChangingDifferencesAreRefusedWithTheReason) {
  Schema target = Build({F::Timestamp("ts")});
  // INT96 for a timestamp_ntz column (INT96 means a UTC instant).
  Schema int96 = Make({Leaf("ts", PhysicalType::kInt96)});
  EXPECT_NE(Refusal(int96, Build({F::TimestampNtz("ts")})).find("INT96"), std::string::npos);
  // Nanoseconds (precision would be lost); millis of another UTC meaning.
  Schema nanos = Make({Logical(Leaf("ts", PhysicalType::kInt64), Ts(TimeUnit::kNanos, true))});
  EXPECT_NE(Refusal(nanos, target).find("TIMESTAMP(NANOS,UTC) in the file, INT64 TIMESTAMP(MICROS,UTC)"),
            std::string::npos)
      << Refusal(nanos, target);
  Schema millis_local = Make({Logical(Leaf("ts", PhysicalType::kInt64), Ts(TimeUnit::kMillis, false))});
  EXPECT_NE(Refusal(millis_local, target).find("MILLIS,local"), std::string::npos);
  // Another UTC meaning (timestamp_ntz).
  Schema ntz = Make({Logical(Leaf("ts", PhysicalType::kInt64), Ts(TimeUnit::kMicros, false))});
  EXPECT_NE(Refusal(ntz, target).find("local"), std::string::npos);
  // Another physical type: narrowing, unsigned, a date for a UTC timestamp.
  EXPECT_NE(Refusal(Make({Leaf("x", PhysicalType::kInt64)}), Build({F::Int("x")})).find("INT64"), std::string::npos);
  EXPECT_NE(Refusal(Make({Converted(Leaf("x", PhysicalType::kInt32), CT::kUint32)}), Build({F::Long("x")}))
                .find("INTEGER(32,unsigned)"),
            std::string::npos);
  EXPECT_NE(Refusal(Make({Converted(Leaf("ts", PhysicalType::kInt32), CT::kDate)}), target).find("DATE"),
            std::string::npos);
  EXPECT_NE(Refusal(Make({Leaf("x", PhysicalType::kDouble)}), Build({F::Float("x")})).find("DOUBLE"), std::string::npos);
  // Decimals: another width, another scale.
  Schema d = Build({F::Decimal("d", 20, 2)});
  EXPECT_NE(Refusal(Make({ConvertedDecimal(Fixed(Leaf("d", PhysicalType::kFixedLenByteArray), 16), 20, 2)}), d)
                .find("FIXED_LEN_BYTE_ARRAY(16)"),
            std::string::npos);
  const int w = DecimalByteWidth(20);
  EXPECT_NE(Refusal(Make({ConvertedDecimal(Fixed(Leaf("d", PhysicalType::kFixedLenByteArray), w), 20, 3)}), d)
                .find("DECIMAL(20,3)"),
            std::string::npos);
  EXPECT_NE(Refusal(Make({ConvertedDecimal(Leaf("d", PhysicalType::kInt64), 18, 2)}), Build({F::Decimal("d", 9, 2)}))
                .find("INT64"),
            std::string::npos);
  // A narrower integer annotation (byte) is not an int.
  EXPECT_NE(Refusal(Make({Leaf("b", PhysicalType::kInt32)}), Build({F::Byte("b")})).find("INTEGER(8,signed)"),
            std::string::npos);
  // Unannotated binary is not a string; a missing column; another shape.
  EXPECT_NE(Refusal(Make({Leaf("s", PhysicalType::kByteArray)}), Build({F::String("s")})).find("STRING"),
            std::string::npos);
  EXPECT_EQ(Refusal(Make({Leaf("a", PhysicalType::kInt64)}), Build({F::Long("a"), F::Long("b")})),
            "column 'b': missing in the file");
  EXPECT_NE(Refusal(Make({Leaf("s", PhysicalType::kInt32)}), Build({F::Struct("s", {F::Int("x")})})).find("a primitive in the file, a struct"),
            std::string::npos);
  // A bare repeated field (protobuf style) is not a list of ours.
  EXPECT_NE(Refusal(Make({Leaf("l", PhysicalType::kInt32, kRep)}), Build({F::List("l", F::Int("element", false))}))
                .find("unannotated repeated"),
            std::string::npos);
}

// Leaves whose values convert one to one (column_map.h): the conversion is recorded and
// the leaf maps; levels are remapped as for any leaf.
TEST(MapColumnsTest, ConvertibleLeavesMapWithTheirConversion) {
  Schema file = Make({Leaf("a", PhysicalType::kInt96), Converted(Leaf("b", PhysicalType::kInt64), CT::kTimestampMillis),
                      Logical(Leaf("c", PhysicalType::kInt64), Ts(TimeUnit::kMillis, false)),
                      Converted(Leaf("d", PhysicalType::kInt32, kReq), CT::kInt16), Leaf("e", PhysicalType::kInt32),
                      Converted(Leaf("f", PhysicalType::kInt32), CT::kInt8), Leaf("g", PhysicalType::kFloat),
                      Converted(Leaf("h", PhysicalType::kInt32), CT::kDate), Leaf("i", PhysicalType::kInt64)});
  Schema target = Build({F::Timestamp("a"), F::Timestamp("b"), F::TimestampNtz("c"), F::Long("d"), F::Double("e"),
                         F::Double("f"), F::Double("g"), F::TimestampNtz("h"), F::Long("i")});
  auto m = MapColumns(file, target);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  using VC = ValueConversion;
  const std::vector<VC> want = {VC::kInt96ToMicros, VC::kMillisToMicros, VC::kMillisToMicros,
                                VC::kInt32ToInt64,  VC::kInt32ToDouble,  VC::kInt32ToDouble,
                                VC::kFloatToDouble, VC::kDaysToMicros,   VC::kNone};
  for (size_t c = 0; c < want.size(); ++c) {
    SCOPED_TRACE(c);
    EXPECT_EQ(m->leaves[c].file_leaf, static_cast<int>(c));
    EXPECT_EQ(m->leaves[c].conversion, want[c]);
    EXPECT_TRUE(ConversionFits(want[c], file.leaf(static_cast<int>(c)).physical_type,
                               target.leaf(static_cast<int>(c)).physical_type));
  }
  EXPECT_FALSE(m->same_schema);
  EXPECT_FALSE(m->identity_leaves());
  EXPECT_EQ(m->leaves[3].def_map, (std::vector<int16_t>{1}));  // required in the file
  EXPECT_FALSE(ConversionFits(VC::kInt96ToMicros, PhysicalType::kInt64, PhysicalType::kInt64));
}

// The converted values are the logical reader's (base/civil_time.h), edge values
// included: INT96 nanoseconds of a day before the epoch, millis that saturate, the
// smallest int32, float NaN and -0.0, dates before 1970.
TEST(MapColumnsTest, ConvertLeafValuesConvertsEveryKind) {
  auto convert = [](ValueConversion c, PhysicalType type, int32_t width, const void* bytes, int64_t n) {
    ColumnValues v;
    v.type = type;
    v.type_length = width;
    v.count = n;
    v.fixed.Append(bytes, static_cast<size_t>(n * width));
    LeafMap m;
    m.conversion = c;
    Buffer scratch;
    ConvertLeafValues(m, &v, &scratch);
    EXPECT_EQ(v.fixed.size(), static_cast<size_t>(n * 8));
    return v;
  };
  // INT96: 1969-12-31 23:59:59.999999999 (Julian day 2440587) and 2024-01-01 00:00:00.000001500.
  uint8_t int96[24];
  const int64_t nanos0 = 86'399'999'999'999, nanos1 = 1'500;
  const uint32_t day0 = 2440587, day1 = 2440588 + 19723;
  std::memcpy(int96, &nanos0, 8);
  std::memcpy(int96 + 8, &day0, 4);
  std::memcpy(int96 + 12, &nanos1, 8);
  std::memcpy(int96 + 20, &day1, 4);
  ColumnValues v = convert(ValueConversion::kInt96ToMicros, PhysicalType::kInt96, 12, int96, 2);
  EXPECT_EQ(v.type, PhysicalType::kInt64);
  EXPECT_EQ(v.value<int64_t>(0), -1);
  EXPECT_EQ(v.value<int64_t>(1), int64_t{19723} * 86'400'000'000 + 1);
  const int64_t millis[] = {-1, INT64_MAX / 1000 + 1, INT64_MIN};
  v = convert(ValueConversion::kMillisToMicros, PhysicalType::kInt64, 8, millis, 3);
  EXPECT_EQ(v.value<int64_t>(0), -1000);
  EXPECT_EQ(v.value<int64_t>(1), INT64_MAX);
  EXPECT_EQ(v.value<int64_t>(2), INT64_MIN);
  const int32_t ints[] = {INT32_MIN, -1, 7};
  v = convert(ValueConversion::kInt32ToInt64, PhysicalType::kInt32, 4, ints, 3);
  EXPECT_EQ(v.value<int64_t>(0), INT32_MIN);
  EXPECT_EQ(v.value<int64_t>(1), -1);
  v = convert(ValueConversion::kInt32ToDouble, PhysicalType::kInt32, 4, ints, 3);
  EXPECT_EQ(v.type, PhysicalType::kDouble);
  EXPECT_EQ(v.value<double>(0), -2147483648.0);
  EXPECT_EQ(v.value<double>(2), 7.0);
  v = convert(ValueConversion::kDaysToMicros, PhysicalType::kInt32, 4, ints, 3);
  EXPECT_EQ(v.value<int64_t>(1), -86'400'000'000);
  const float floats[] = {3.4f, -0.0f, std::numeric_limits<float>::quiet_NaN()};
  v = convert(ValueConversion::kFloatToDouble, PhysicalType::kFloat, 4, floats, 3);
  EXPECT_EQ(v.value<double>(0), static_cast<double>(3.4f));
  EXPECT_TRUE(std::signbit(v.value<double>(1)));
  EXPECT_TRUE(std::isnan(v.value<double>(2)));
}

// RewriteFiles through conversions: an INT96 and a millisecond column of PLAIN pages in
// the output's codec (pages that would be copied were the types the same) are decoded,
// converted and written as microseconds, with statistics of the converted values, on
// one thread and on several.
TEST(MapColumnsTest, RewriteConvertsAndNeverCopiesConvertedPages) {
  auto fs = io::NewMemoryFileSystem();
  Schema file = Make({Leaf("a", PhysicalType::kInt96), Converted(Leaf("b", PhysicalType::kInt64), CT::kTimestampMillis),
                      Leaf("c", PhysicalType::kInt64)});
  Schema target = Build({F::Timestamp("a"), F::Timestamp("b"), F::Long("c")});
  WriterOptions wo;
  wo.codec = CompressionCodec::kSnappy;
  wo.enable_dictionary = false;
  wo.page_size_bytes = 4096;
  auto out = fs->Create("in.parquet");
  ASSERT_TRUE(out.ok());
  auto w = FileWriter::Open(std::move(*out), file, wo);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  RowBatchBuilder b(file);
  constexpr int kRows = 5000;
  for (int i = 0; i < kRows; ++i) {
    std::string int96(12, '\0');
    const int64_t nanos = int64_t{i} * 1'000'001;
    const uint32_t julian = 2440588 + static_cast<uint32_t>(i % 3);
    std::memcpy(int96.data(), &nanos, 8);
    std::memcpy(int96.data() + 8, &julian, 4);
    ASSERT_TRUE(b.Append({i % 9 == 0 ? V::Null() : V::Bytes(int96), V::Int(i - 2500), V::Int(i)}).ok());
  }
  ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
  ASSERT_TRUE((*w)->Close().ok());
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    RewriteOptions ro;
    ro.output_schema = target;
    ro.threads = threads;
    ro.copy_plain_pages = true;
    ro.writer = wo;
    auto res = RewriteFiles(fs.get(), {"in.parquet"}, "out.parquet", ro);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_GT(res->pages_copied, 0);  // column c's pages
    auto r = FileReader::Open(fs.get(), "out.parquet");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(CompareSchemas(target, "target", (*r)->schema(), "out").ok());
    auto batch = (*r)->ReadRowGroup(0, {});
    ASSERT_TRUE(batch.ok());
    ASSERT_EQ(batch->num_rows, kRows);
    const ColumnValues& a = batch->columns[0].values;
    const ColumnValues& bv = batch->columns[1].values;
    int64_t k = 0;
    int64_t min_a = INT64_MAX, max_a = INT64_MIN;
    for (int i = 0; i < kRows; ++i) {
      EXPECT_EQ(bv.value<int64_t>(i), (int64_t{i} - 2500) * 1000);
      if (i % 9 == 0) continue;
      const int64_t want = int64_t{i % 3} * 86'400'000'000 + int64_t{i} * 1'000'001 / 1000;
      EXPECT_EQ(a.value<int64_t>(k++), want) << i;
      min_a = std::min(min_a, want);
      max_a = std::max(max_a, want);
    }
    // Statistics are of the microseconds written.
    const ColumnMetaData& md = *res->footer.row_groups[0].columns[0].meta_data;
    ASSERT_TRUE(md.statistics && md.statistics->min_value && md.statistics->max_value);
    int64_t smin, smax;
    std::memcpy(&smin, md.statistics->min_value->data(), 8);
    std::memcpy(&smax, md.statistics->max_value->data(), 8);
    EXPECT_EQ(smin, min_a);
    EXPECT_EQ(smax, max_a);
    EXPECT_EQ(md.statistics->null_count.value_or(-1), (kRows + 8) / 9);
    ASSERT_TRUE(fs->Delete("out.parquet").ok());
  }
}

// RewriteFiles with an output schema: a parquet-mr-shaped input (converted types only,
// required fields, a 2-level list, MAP_KEY_VALUE) written under the table's schema.
TEST(MapColumnsTest, RewriteWritesTheOutputSchemaWithTheSameRows) {
  auto fs = io::NewMemoryFileSystem();
  Schema file = Make({Leaf("id", PhysicalType::kInt64, kReq), Converted(Leaf("name", PhysicalType::kByteArray), CT::kUtf8),
                      Group("l", 1, kOpt, CT::kList), Leaf("array", PhysicalType::kInt32, kRep),
                      Group("m", 1, kOpt, CT::kMap), Group("map", 2, kRep, CT::kMapKeyValue),
                      Converted(Leaf("key", PhysicalType::kByteArray, kReq), CT::kUtf8),
                      Leaf("value", PhysicalType::kInt64, kOpt),
                      Converted(Leaf("ts", PhysicalType::kInt64), CT::kTimestampMicros)});
  Schema target = Build({F::Long("id"), F::String("name"), F::List("l", F::Int("element")),
                         F::Map("m", F::String("key"), F::Long("value")), F::Timestamp("ts")});
  std::vector<std::string> inputs;
  for (int k = 0; k < 2; ++k) {
    inputs.push_back("in" + std::to_string(k) + ".parquet");
    auto out = fs->Create(inputs.back());
    ASSERT_TRUE(out.ok());
    WriterOptions wo;
    wo.codec = CompressionCodec::kSnappy;
    wo.key_value_metadata = {{"org.apache.spark.sql.parquet.row.metadata", std::string("{}")}};
    auto w = FileWriter::Open(std::move(*out), file, wo);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    RowBatchBuilder b(file);
    for (int i = 0; i < 300; ++i) {
      std::vector<Value> l;
      for (int j = 0; j < i % 4; ++j) l.push_back(V::Int(i * j));
      std::vector<std::pair<Value, Value>> m;
      for (int j = 0; j < i % 3; ++j) m.emplace_back(V::String("k" + std::to_string(j)), j == 1 ? V::Null() : V::Int(j));
      ASSERT_TRUE(b.Append({V::Int(k * 1000 + i), i % 7 == 0 ? V::Null() : V::String("n" + std::to_string(i % 13)),
                            i % 5 == 0 ? V::Null() : V::List(std::move(l)), i % 6 == 0 ? V::Null() : V::Map(std::move(m)),
                            V::Int(1700000000000000 + i)})
                      .ok());
    }
    ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto render = [&](const std::vector<std::string>& files) {
    std::string all;
    for (const std::string& f : files) {
      auto r = FileReader::Open(fs.get(), f);
      EXPECT_TRUE(r.ok());
      for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
        auto batch = (*r)->ReadRowGroup(rg, {});
        EXPECT_TRUE(batch.ok());
        EXPECT_TRUE(RenderRows((*r)->schema(), (*r)->schema().top_level_fields(), *batch, RowFormat::kJsonLines, -1, &all).ok());
      }
    }
    return all;
  };
  for (bool page_copy : {true, false}) {
    SCOPED_TRACE(page_copy);
    RewriteOptions ro;
    ro.output_schema = target;
    ro.copy_plain_pages = page_copy;
    ro.copy_row_group_min_bytes = 1;  // never for a mapped input
    ro.writer.codec = CompressionCodec::kSnappy;
    ro.writer.enable_dictionary = !page_copy;
    auto res = RewriteFiles(fs.get(), inputs, "out.parquet", ro);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->rows, 600);
    EXPECT_EQ(res->row_groups_copied, 0);
    auto r = FileReader::Open(fs.get(), "out.parquet");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(CompareSchemas(target, "target", (*r)->schema(), "out").ok());
    EXPECT_TRUE((*r)->metadata().key_value_metadata.empty());  // Spark's schema is the input's
    EXPECT_EQ(render({"out.parquet"}), render(inputs));
    // Statistics come from the values under the output's annotations.
    const ColumnMetaData& id = *res->footer.row_groups[0].columns[0].meta_data;
    ASSERT_TRUE(id.statistics && id.statistics->null_count);
    EXPECT_EQ(*id.statistics->null_count, 0);
    ASSERT_TRUE(fs->Delete("out.parquet").ok());
  }
  // An input that does not map is refused naming it and the column.
  Schema other = Build({F::Long("id"), F::Double("name")});
  RewriteOptions ro;
  ro.output_schema = other;
  auto res = RewriteFiles(fs.get(), inputs, "out.parquet", ro);
  ASSERT_FALSE(res.ok());
  EXPECT_TRUE(res.status().IsInvalidArgument());
  EXPECT_NE(res.status().message().find("in0.parquet: does not map onto the output schema: column 'name'"), std::string::npos)
      << res.status().ToString();
}

}  // namespace
}  // namespace lithify::parquet
