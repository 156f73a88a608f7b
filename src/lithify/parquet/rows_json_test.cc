// Tests for canonical row rendering: value formatting per type and record assembly
// from hand-built levels.
#include "lithify/parquet/rows_json.h"

#include <gtest/gtest.h>

#include "lithify/base/macros.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace lithify::parquet {
namespace {

// ---- schema building ----

SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

SchemaElement Group(std::string name, Repetition rep, int children,
                    std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.num_children = children;
  e.converted_type = converted;
  if (converted == ConvertedType::kList) e.logical_type.kind = LogicalType::Kind::kList;
  if (converted == ConvertedType::kMap) e.logical_type.kind = LogicalType::Kind::kMap;
  return e;
}

SchemaElement Leaf(std::string name, Repetition rep, PhysicalType type,
                   std::optional<ConvertedType> converted = std::nullopt,
                   LogicalType logical = {}, int32_t type_length = 0) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.type = type;
  e.converted_type = converted;
  e.logical_type = logical;
  if (type == PhysicalType::kFixedLenByteArray) e.type_length = type_length;
  return e;
}

SchemaElement Utf8(std::string name, Repetition rep) {
  LogicalType lt;
  lt.kind = LogicalType::Kind::kString;
  return Leaf(std::move(name), rep, PhysicalType::kByteArray, ConvertedType::kUtf8, lt);
}

Schema MakeSchema(std::vector<SchemaElement> elements) {
  Result<Schema> s = Schema::FromElements(std::move(elements));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Schema();
}

// A schema with one required leaf `v` described by `leaf`.
Schema OneLeaf(SchemaElement leaf) {
  leaf.name = "v";
  leaf.repetition_type = Repetition::kRequired;
  return MakeSchema({Root(1), leaf});
}

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType lt;
  lt.kind = kind;
  return lt;
}
LogicalType DecimalType(int32_t scale, int32_t precision) {
  LogicalType lt = Logical(LogicalType::Kind::kDecimal);
  lt.scale = scale;
  lt.precision = precision;
  return lt;
}
LogicalType TimeType(LogicalType::Kind kind, TimeUnit unit, bool utc) {
  LogicalType lt = Logical(kind);
  lt.unit = unit;
  lt.is_adjusted_to_utc = utc;
  return lt;
}
LogicalType IntType(int bits, bool is_signed) {
  LogicalType lt = Logical(LogicalType::Kind::kInteger);
  lt.bit_width = static_cast<int8_t>(bits);
  lt.is_signed = is_signed;
  return lt;
}

template <typename T>
std::string Plain(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

std::string Stat(const SchemaElement& leaf, std::string_view bytes) {
  Schema s = OneLeaf(leaf);
  return FormatStatValue(s, 0, bytes);
}

// ---- batch building ----

struct Col {
  int leaf;
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  int64_t num_levels = -1;  // default: def/rep size (or number of values)
};

ColumnData MakeColumn(const Schema& schema, const Col& c) {
  ColumnData d;
  d.leaf_index = c.leaf;
  d.descr = &schema.leaf(c.leaf);
  d.def_levels = c.def;
  d.rep_levels = c.rep;
  d.num_levels = c.num_levels;
  d.values.type = schema.leaf(c.leaf).physical_type;
  d.values.type_length = schema.leaf(c.leaf).type_length;
  return d;
}

template <typename T>
void AddFixed(ColumnData* d, const std::vector<T>& values) {
  for (const T& v : values) d->values.fixed.AppendValue(v);
  d->values.count = static_cast<int64_t>(values.size());
  if (d->num_levels < 0) {
    d->num_levels = d->def_levels.empty() ? d->values.count
                                          : static_cast<int64_t>(d->def_levels.size());
  }
}

void AddBinary(ColumnData* d, const std::vector<std::string>& values) {
  d->values.offsets.push_back(0);
  for (const std::string& v : values) {
    d->values.data.Append(v);
    d->values.offsets.push_back(static_cast<int64_t>(d->values.data.size()));
  }
  d->values.count = static_cast<int64_t>(values.size());
  if (d->num_levels < 0) {
    d->num_levels = d->def_levels.empty() ? d->values.count
                                          : static_cast<int64_t>(d->def_levels.size());
  }
}

ColumnData Int32Column(const Schema& s, Col c, const std::vector<int32_t>& values) {
  ColumnData d = MakeColumn(s, c);
  AddFixed(&d, values);
  return d;
}
ColumnData Int64Column(const Schema& s, Col c, const std::vector<int64_t>& values) {
  ColumnData d = MakeColumn(s, c);
  AddFixed(&d, values);
  return d;
}
ColumnData BinaryColumn(const Schema& s, Col c, const std::vector<std::string>& values) {
  ColumnData d = MakeColumn(s, c);
  AddBinary(&d, values);
  return d;
}

RowBatch Batch(int64_t rows) {
  RowBatch b;
  b.num_rows = rows;
  return b;
}

Result<std::string> Render(const Schema& s, const RowBatch& b,
                           RowFormat format = RowFormat::kJsonLines, int64_t limit = -1,
                           std::vector<int> fields = {}) {
  if (fields.empty()) fields = s.top_level_fields();
  std::string out;
  LITHIFY_RETURN_NOT_OK(RenderRows(s, fields, b, format, limit, &out));
  return out;
}

#define EXPECT_RENDERS(schema, batch, expected)                   \
  do {                                                             \
    Result<std::string> _r = Render(schema, batch);                \
    ASSERT_TRUE(_r.ok()) << _r.status().ToString();                \
    EXPECT_EQ(*_r, expected);                                      \
  } while (false)

#define EXPECT_CORRUPT(schema, batch)                                        \
  do {                                                                       \
    Result<std::string> _r = Render(schema, batch);                          \
    ASSERT_FALSE(_r.ok()) << "rendered: " << *_r;                            \
    EXPECT_TRUE(_r.status().IsCorruption()) << _r.status().ToString();       \
  } while (false)

// =====================================================================================
// Value formatting
// =====================================================================================

TEST(FormatValueTest, Integers) {
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32), Plain<int32_t>(-5)), "-5");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32), Plain<int32_t>(INT32_MIN)), "-2147483648");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64), Plain<int64_t>(INT64_MIN)),
            "-9223372036854775808");
  // Unsigned by logical type and by legacy converted type.
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32, std::nullopt, IntType(8, false)),
                 Plain<int32_t>(200)),
            "200");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32, std::nullopt, IntType(32, false)),
                 Plain<int32_t>(-1)),
            "4294967295");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32, ConvertedType::kUint32), Plain<int32_t>(-1)),
            "4294967295");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, ConvertedType::kUint64), Plain<int64_t>(-1)),
            "18446744073709551615");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, std::nullopt, IntType(64, false)),
                 Plain<int64_t>(-2)),
            "18446744073709551614");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32, ConvertedType::kInt8), Plain<int32_t>(-128)),
            "-128");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, std::nullopt, IntType(64, true)),
                 Plain<int64_t>(INT64_MAX)),
            "9223372036854775807");
}

TEST(FormatValueTest, BooleanAndMalformedWidth) {
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kBoolean), std::string(1, '\1')), "true");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kBoolean), std::string(1, '\0')), "false");
  // A statistic of the wrong size never reads past its bytes.
  std::string bad = Stat(Leaf("", {}, PhysicalType::kInt64), "abc");
  EXPECT_EQ(bad.rfind("\"<malformed", 0), 0u) << bad;
}

TEST(FormatValueTest, FloatsAreShortestRoundTrip) {
  auto f = [](float v) { return Stat(Leaf("", {}, PhysicalType::kFloat), Plain(v)); };
  auto d = [](double v) { return Stat(Leaf("", {}, PhysicalType::kDouble), Plain(v)); };
  EXPECT_EQ(f(0.1f), "0.1");  // not 0.10000000149011612
  EXPECT_EQ(f(1.5f), "1.5");
  EXPECT_EQ(f(3.0f), "3");
  EXPECT_EQ(f(-0.0f), "-0");
  EXPECT_EQ(f(16777216.0f), "16777216");
  EXPECT_EQ(d(0.1), "0.1");
  EXPECT_EQ(d(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(d(1e300), "1e+300");
  EXPECT_EQ(d(5e-324), "5e-324");
  EXPECT_EQ(f(std::nanf("")), "\"NaN\"");
  EXPECT_EQ(d(INFINITY), "\"Infinity\"");
  EXPECT_EQ(d(-INFINITY), "\"-Infinity\"");
  // Round trip of an awkward float.
  float awkward = 3.4028235e38f;
  EXPECT_EQ(std::strtof(f(awkward).c_str(), nullptr), awkward);
}

TEST(FormatValueTest, Float16) {
  SchemaElement leaf = Leaf("", {}, PhysicalType::kFixedLenByteArray, std::nullopt,
                            Logical(LogicalType::Kind::kFloat16), 2);
  auto h = [&](uint16_t bits) { return Stat(leaf, Plain(bits)); };
  EXPECT_EQ(h(0x3C00), "1");
  EXPECT_EQ(h(0xC000), "-2");
  EXPECT_EQ(h(0x3800), "0.5");
  EXPECT_EQ(h(0x0000), "0");
  EXPECT_EQ(h(0x8000), "-0");
  EXPECT_EQ(h(0x7BFF), "65504");
  EXPECT_EQ(h(0x7C00), "\"Infinity\"");
  EXPECT_EQ(h(0xFC00), "\"-Infinity\"");
  EXPECT_EQ(h(0x7E00), "\"NaN\"");
  // Smallest subnormal 2^-24 and 1/3-ish: printed text parses back to the exact value.
  EXPECT_EQ(std::strtof(h(0x0001).c_str(), nullptr), std::ldexp(1.0f, -24));
  EXPECT_EQ(std::strtof(h(0x3555).c_str(), nullptr), 0.333251953125f);
}

TEST(FormatValueTest, StringsAreEscaped) {
  SchemaElement s = Utf8("", {});
  EXPECT_EQ(Stat(s, "plain"), "\"plain\"");
  EXPECT_EQ(Stat(s, ""), "\"\"");
  EXPECT_EQ(Stat(s, "a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Stat(s, "\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(Stat(s, std::string("\x01\x1f\x00z", 4)), "\"\\u0001\\u001f\\u0000z\"");
  EXPECT_EQ(Stat(s, "\x7f/"), "\"\x7f/\"");  // DEL and '/' need no escape
  EXPECT_EQ(Stat(s, "h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");  // é € 😀 pass through
}

TEST(FormatValueTest, InvalidUtf8BecomesReplacementCharacters) {
  SchemaElement s = Utf8("", {});
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(Stat(s, "a\xFFz"), "\"a" + fffd + "z\"");
  // A truncated sequence is one maximal subpart: one replacement.
  EXPECT_EQ(Stat(s, "a\xE2\x82"), "\"a" + fffd + "\"");
  EXPECT_EQ(Stat(s, "\xF0\x9F\x98z"), "\"" + fffd + "z\"");
  // Encoded surrogates and overlongs are not prefixes of anything valid: one per byte.
  EXPECT_EQ(Stat(s, "\xED\xA0\x80"), "\"" + fffd + fffd + fffd + "\"");
  EXPECT_EQ(Stat(s, "\xC0\xAF"), "\"" + fffd + fffd + "\"");
  EXPECT_EQ(Stat(s, "\xF4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");
  // A lone continuation byte before a quote still leaves the quote escaped.
  EXPECT_EQ(Stat(s, "\x80\""), "\"" + fffd + "\\\"\"");
}

TEST(FormatValueTest, TextAnnotations) {
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kByteArray, ConvertedType::kEnum), "RED"), "\"RED\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kByteArray, std::nullopt,
                      Logical(LogicalType::Kind::kJson)),
                 "{\"a\":1}"),
            "\"{\\\"a\\\":1}\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kByteArray, std::nullopt,
                      Logical(LogicalType::Kind::kBson)),
                 "foo"),
            "\"Zm9v\"");
  // An annotation unknown to this build falls back to the converted type, then physical.
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kByteArray, ConvertedType::kUtf8,
                      Logical(LogicalType::Kind::kUnsupported)),
                 "x"),
            "\"x\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kByteArray, std::nullopt,
                      Logical(LogicalType::Kind::kVariant)),
                 "x"),
            "\"eA==\"");
}

TEST(FormatValueTest, BinaryIsBase64) {
  SchemaElement b = Leaf("", {}, PhysicalType::kByteArray);
  EXPECT_EQ(Stat(b, ""), "\"\"");
  EXPECT_EQ(Stat(b, "f"), "\"Zg==\"");
  EXPECT_EQ(Stat(b, "fo"), "\"Zm8=\"");
  EXPECT_EQ(Stat(b, "foo"), "\"Zm9v\"");
  EXPECT_EQ(Stat(b, "foobar"), "\"Zm9vYmFy\"");
  EXPECT_EQ(Stat(b, std::string("\xff\xfe\x00", 3)), "\"//4A\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kFixedLenByteArray, std::nullopt, {}, 3), "abc"),
            "\"YWJj\"");
  // INTERVAL has no canonical text: base64 of its 12 bytes.
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kFixedLenByteArray, ConvertedType::kInterval, {}, 12),
                 std::string(12, '\0')),
            "\"AAAAAAAAAAAAAAAA\"");
}

TEST(FormatValueTest, Uuid) {
  SchemaElement u = Leaf("", {}, PhysicalType::kFixedLenByteArray, std::nullopt,
                         Logical(LogicalType::Kind::kUuid), 16);
  EXPECT_EQ(Stat(u, std::string("\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17\x40\x00", 16)),
            "\"123e4567-e89b-12d3-a456-426614174000\"");
  EXPECT_EQ(Stat(u, std::string(16, '\xff')), "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"");
}

TEST(FormatValueTest, DecimalOnIntegers) {
  auto i32 = [](int32_t v, int scale) {
    return Stat(Leaf("", {}, PhysicalType::kInt32, std::nullopt, DecimalType(scale, 9)), Plain(v));
  };
  auto i64 = [](int64_t v, int scale) {
    return Stat(Leaf("", {}, PhysicalType::kInt64, std::nullopt, DecimalType(scale, 18)),
                Plain(v));
  };
  EXPECT_EQ(i32(1230, 2), "\"12.30\"");
  EXPECT_EQ(i32(-1230, 2), "\"-12.30\"");
  EXPECT_EQ(i32(5, 3), "\"0.005\"");
  EXPECT_EQ(i32(-5, 3), "\"-0.005\"");
  EXPECT_EQ(i32(0, 2), "\"0.00\"");
  EXPECT_EQ(i32(42, 0), "\"42\"");
  EXPECT_EQ(i32(100, 2), "\"1.00\"");
  EXPECT_EQ(i64(INT64_MIN, 0), "\"-9223372036854775808\"");
  EXPECT_EQ(i64(INT64_MIN, 4), "\"-922337203685477.5808\"");
  EXPECT_EQ(i64(1, 20), "\"0.00000000000000000001\"");
}

TEST(FormatValueTest, DecimalLegacyConvertedUsesElementScale) {
  SchemaElement e = Leaf("", {}, PhysicalType::kInt32, ConvertedType::kDecimal);
  e.scale = 2;
  e.precision = 4;
  EXPECT_EQ(Stat(e, Plain<int32_t>(2400)), "\"24.00\"");
  e.scale = -1;  // against the format
  Schema s = OneLeaf(e);
  RowBatch b = Batch(1);
  b.columns.push_back(Int32Column(s, {0, {}, {}}, {1}));
  Result<std::string> r = Render(s, b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

TEST(FormatValueTest, DecimalOnBinaryTwosComplement) {
  auto flba = [](std::string bytes, int scale) {
    return Stat(Leaf("", {}, PhysicalType::kFixedLenByteArray, std::nullopt,
                     DecimalType(scale, 38), static_cast<int32_t>(bytes.size())),
                bytes);
  };
  auto ba = [](std::string bytes, int scale) {
    return Stat(Leaf("", {}, PhysicalType::kByteArray, std::nullopt, DecimalType(scale, 38)),
                bytes);
  };
  EXPECT_EQ(ba(std::string("\x04\xD2", 2), 2), "\"12.34\"");
  EXPECT_EQ(ba(std::string("\xFB\x2E", 2), 2), "\"-12.34\"");
  EXPECT_EQ(ba(std::string("\xFF", 1), 0), "\"-1\"");
  EXPECT_EQ(ba(std::string("\x80", 1), 0), "\"-128\"");
  EXPECT_EQ(ba("", 2), "\"0.00\"");
  EXPECT_EQ(flba(std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x64", 10), 2), "\"1.00\"");
  // 2^127 - 1 and -2^127 in 16 bytes (beyond 64 bits).
  std::string max16 = "\x7F" + std::string(15, '\xFF');
  std::string min16 = "\x80" + std::string(15, '\0');
  EXPECT_EQ(flba(max16, 0), "\"170141183460469231731687303715884105727\"");
  EXPECT_EQ(flba(min16, 0), "\"-170141183460469231731687303715884105728\"");
  EXPECT_EQ(flba(max16, 38), "\"1.70141183460469231731687303715884105727\"");
  EXPECT_EQ(flba(min16, 40), "\"-0.0170141183460469231731687303715884105728\"");
  // -1 as 16 bytes of 0xFF; 2^64 exactly (needs the big path).
  EXPECT_EQ(flba(std::string(16, '\xFF'), 3), "\"-0.001\"");
  EXPECT_EQ(flba(std::string("\x01", 1) + std::string(8, '\0'), 0), "\"18446744073709551616\"");
  // 2^255 - 1 in 32 bytes.
  EXPECT_EQ(flba("\x7F" + std::string(31, '\xFF'), 0),
            "\"578960446186580977117854925043439539266349923328202820197287920039565648199"
            "67\"");
  // -(10^20) with 10^9 chunk boundaries containing zeros.
  // 10^20 = 0x56BC75E2D63100000; negate in 9 bytes.
  std::string ten20 = std::string("\x05\x6B\xC7\x5E\x2D\x63\x10\x00\x00", 9);
  EXPECT_EQ(flba(ten20, 0), "\"100000000000000000000\"");
  EXPECT_EQ(flba(ten20, 20), "\"1.00000000000000000000\"");
}

TEST(FormatValueTest, Dates) {
  auto date = [](int32_t days) {
    return Stat(Leaf("", {}, PhysicalType::kInt32, std::nullopt, Logical(LogicalType::Kind::kDate)),
                Plain(days));
  };
  EXPECT_EQ(date(0), "\"1970-01-01\"");
  EXPECT_EQ(date(-1), "\"1969-12-31\"");
  EXPECT_EQ(date(19723), "\"2024-01-01\"");
  EXPECT_EQ(date(11016), "\"2000-02-29\"");
  EXPECT_EQ(date(-141427), "\"1582-10-15\"");  // proleptic Gregorian, no Julian switch
  EXPECT_EQ(date(-719528), "\"0000-01-01\"");
  EXPECT_EQ(date(2932896), "\"9999-12-31\"");
  // Legacy DATE converted type.
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt32, ConvertedType::kDate), Plain<int32_t>(365)),
            "\"1971-01-01\"");
}

TEST(FormatValueTest, Times) {
  auto t32 = [](int32_t v) {
    return Stat(Leaf("", {}, PhysicalType::kInt32, std::nullopt,
                     TimeType(LogicalType::Kind::kTime, TimeUnit::kMillis, true)),
                Plain(v));
  };
  auto t64 = [](int64_t v, TimeUnit unit) {
    return Stat(Leaf("", {}, PhysicalType::kInt64, std::nullopt,
                     TimeType(LogicalType::Kind::kTime, unit, false)),
                Plain(v));
  };
  EXPECT_EQ(t32(45296789), "\"12:34:56.789000\"");
  EXPECT_EQ(t32(0), "\"00:00:00.000000\"");
  EXPECT_EQ(t64(86399999999, TimeUnit::kMicros), "\"23:59:59.999999\"");
  EXPECT_EQ(t64(45296789012345, TimeUnit::kNanos), "\"12:34:56.789012345\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, ConvertedType::kTimeMicros),
                 Plain<int64_t>(1000001)),
            "\"00:00:01.000001\"");
  // Out-of-day values are printed faithfully rather than rejected.
  EXPECT_EQ(t32(-1000), "\"-00:00:01.000000\"");
  EXPECT_EQ(t32(360000000), "\"100:00:00.000000\"");
  EXPECT_EQ(t64(INT64_MIN, TimeUnit::kNanos), "\"-2562047:47:16.854775808\"");
}

TEST(FormatValueTest, Timestamps) {
  auto ts = [](int64_t v, TimeUnit unit, bool utc) {
    return Stat(Leaf("", {}, PhysicalType::kInt64, std::nullopt,
                     TimeType(LogicalType::Kind::kTimestamp, unit, utc)),
                Plain(v));
  };
  EXPECT_EQ(ts(1704141296123456, TimeUnit::kMicros, true), "\"2024-01-01T20:34:56.123456Z\"");
  EXPECT_EQ(ts(1704141296123456, TimeUnit::kMicros, false), "\"2024-01-01T20:34:56.123456\"");
  EXPECT_EQ(ts(1704141296123, TimeUnit::kMillis, true), "\"2024-01-01T20:34:56.123000Z\"");
  EXPECT_EQ(ts(1704141296123456789, TimeUnit::kNanos, true),
            "\"2024-01-01T20:34:56.123456789Z\"");
  EXPECT_EQ(ts(-1, TimeUnit::kMillis, true), "\"1969-12-31T23:59:59.999000Z\"");
  EXPECT_EQ(ts(-1, TimeUnit::kNanos, false), "\"1969-12-31T23:59:59.999999999\"");
  EXPECT_EQ(ts(INT64_MAX, TimeUnit::kMicros, true), "\"294247-01-10T04:00:54.775807Z\"");
  EXPECT_EQ(ts(INT64_MIN, TimeUnit::kMicros, true), "\"-290308-12-21T19:59:05.224192Z\"");
  // Legacy converted timestamps are UTC instants.
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, ConvertedType::kTimestampMillis),
                 Plain<int64_t>(0)),
            "\"1970-01-01T00:00:00.000000Z\"");
  EXPECT_EQ(Stat(Leaf("", {}, PhysicalType::kInt64, ConvertedType::kTimestampMicros),
                 Plain<int64_t>(-86400000000)),
            "\"1969-12-31T00:00:00.000000Z\"");
}

std::string Int96(int64_t nanos_of_day, uint32_t julian_day) {
  return Plain(nanos_of_day) + Plain(julian_day);
}

TEST(FormatValueTest, Int96) {
  SchemaElement leaf = Leaf("", {}, PhysicalType::kInt96);
  EXPECT_EQ(Stat(leaf, Int96(74096123456000, 2440588 + 19723)),
            "\"2024-01-01T20:34:56.123456000Z\"");
  EXPECT_EQ(Stat(leaf, Int96(0, 2440588)), "\"1970-01-01T00:00:00.000000000Z\"");
  EXPECT_EQ(Stat(leaf, Int96(1, 2440587)), "\"1969-12-31T00:00:00.000000001Z\"");
  // Far outside the int64-nanosecond range (year 9999) still renders.
  EXPECT_EQ(Stat(leaf, Int96(0, 2440588 + 2932896)), "\"9999-12-31T00:00:00.000000000Z\"");
  // Nanoseconds beyond one day carry into the date (and negative ones borrow).
  EXPECT_EQ(Stat(leaf, Int96(int64_t{86400} * 1000000000 + 5, 2440588)),
            "\"1970-01-02T00:00:00.000000005Z\"");
  EXPECT_EQ(Stat(leaf, Int96(-1, 2440588)), "\"1969-12-31T23:59:59.999999999Z\"");
  // Julian day 0 is 4714-11-24 BC (proleptic Gregorian), astronomical year -4713.
  EXPECT_EQ(Stat(leaf, Int96(0, 0)), "\"-4713-11-24T00:00:00.000000000Z\"");
}

// =====================================================================================
// Record assembly
// =====================================================================================

TEST(RenderRowsTest, FlatColumnsWithNulls) {
  Schema s = MakeSchema({Root(3), Leaf("id", Repetition::kRequired, PhysicalType::kInt64),
                         Utf8("name", Repetition::kOptional),
                         Leaf("ok", Repetition::kOptional, PhysicalType::kBoolean)});
  RowBatch b = Batch(3);
  b.columns.push_back(Int64Column(s, {0, {}, {}}, {1, 2, 3}));
  b.columns.push_back(BinaryColumn(s, {1, {1, 0, 1}, {}}, {"a", "b\"c"}));
  b.columns.push_back(Int32Column(s, {2, {0, 1, 1}, {}}, {}));
  // booleans are one byte per value
  b.columns[2].values.fixed.Clear();
  b.columns[2].values.fixed.PushBack(1);
  b.columns[2].values.fixed.PushBack(0);
  b.columns[2].values.count = 2;
  EXPECT_RENDERS(s, b,
                 "{\"id\":1,\"name\":\"a\",\"ok\":null}\n"
                 "{\"id\":2,\"name\":null,\"ok\":true}\n"
                 "{\"id\":3,\"name\":\"b\\\"c\",\"ok\":false}\n");
  Result<std::string> two = Render(s, b, RowFormat::kJsonLines, 2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(*two,
            "{\"id\":1,\"name\":\"a\",\"ok\":null}\n"
            "{\"id\":2,\"name\":null,\"ok\":true}\n");
  // Field order follows `fields`.
  Result<std::string> reordered = Render(s, b, RowFormat::kJsonLines, 1, {2, 1});
  ASSERT_TRUE(reordered.ok()) << reordered.status().ToString();
  EXPECT_EQ(*reordered, "{\"name\":\"a\",\"id\":1}\n");
}

// optional group items (LIST) { repeated group list { optional group element {
//   required int32 a; optional binary b (UTF8) } } }
Schema ListOfStructSchema() {
  return MakeSchema({Root(1), Group("items", Repetition::kOptional, 1, ConvertedType::kList),
                     Group("list", Repetition::kRepeated, 1),
                     Group("element", Repetition::kOptional, 2),
                     Leaf("a", Repetition::kRequired, PhysicalType::kInt32),
                     Utf8("b", Repetition::kOptional)});
}

TEST(RenderRowsTest, ListOfStructNullVsEmptyVsNullElement) {
  Schema s = ListOfStructSchema();
  // Levels: items def 1, list def 2 rep 1, element def 3, a def 3, b def 4.
  RowBatch b = Batch(4);
  b.columns.push_back(Int32Column(s, {0, {3, 3, 0, 1, 2}, {0, 1, 0, 0, 0}}, {1, 2}));
  b.columns.push_back(BinaryColumn(s, {1, {4, 3, 0, 1, 2}, {0, 1, 0, 0, 0}}, {"x"}));
  EXPECT_RENDERS(s, b,
                 "{\"items\":[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"b\":null}]}\n"
                 "{\"items\":null}\n"
                 "{\"items\":[]}\n"
                 "{\"items\":[null]}\n");
}

TEST(RenderRowsTest, ProjectionKeepsOnlyPresentMembers) {
  Schema s = ListOfStructSchema();
  RowBatch b = Batch(2);
  b.columns.push_back(BinaryColumn(s, {1, {4, 3, 1}, {0, 1, 0}}, {"x"}));
  EXPECT_RENDERS(s, b, "{\"items\":[{\"b\":\"x\"},{\"b\":null}]}\n{\"items\":[]}\n");
  // A field without any leaf in the batch is a caller error.
  RowBatch none = Batch(1);
  Result<std::string> r = Render(s, none);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
}

// optional group m (MAP) { repeated group key_value { required binary key (UTF8);
//   optional group value (LIST) { repeated group list { optional int32 element } } } }
TEST(RenderRowsTest, MapOfLists) {
  Schema s = MakeSchema({Root(1), Group("m", Repetition::kOptional, 1, ConvertedType::kMap),
                         Group("key_value", Repetition::kRepeated, 2),
                         Utf8("key", Repetition::kRequired),
                         Group("value", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("list", Repetition::kRepeated, 1),
                         Leaf("element", Repetition::kOptional, PhysicalType::kInt32)});
  // Levels: m 1; key_value def 2 rep 1; key 2; value 3; list def 4 rep 2; element 5.
  RowBatch b = Batch(3);
  b.columns.push_back(BinaryColumn(s, {0, {2, 2, 2, 0, 1}, {0, 1, 1, 0, 0}}, {"a", "b", "c"}));
  b.columns.push_back(Int32Column(s, {1, {5, 4, 2, 3, 0, 1}, {0, 2, 1, 1, 0, 0}}, {1}));
  EXPECT_RENDERS(s, b,
                 "{\"m\":[{\"key\":\"a\",\"value\":[1,null]},{\"key\":\"b\",\"value\":null},"
                 "{\"key\":\"c\",\"value\":[]}]}\n"
                 "{\"m\":null}\n"
                 "{\"m\":[]}\n");
}

TEST(RenderRowsTest, KeyOnlyMap) {
  Schema s = MakeSchema({Root(1), Group("m", Repetition::kRequired, 1, ConvertedType::kMap),
                         Group("key_value", Repetition::kRepeated, 1),
                         Leaf("key", Repetition::kRequired, PhysicalType::kInt32)});
  RowBatch b = Batch(2);
  b.columns.push_back(Int32Column(s, {0, {1, 1, 0}, {0, 1, 0}}, {3, 4}));
  EXPECT_RENDERS(s, b, "{\"m\":[{\"key\":3},{\"key\":4}]}\n{\"m\":[]}\n");
}

TEST(RenderRowsTest, TwoLevelLegacyList) {
  // optional group l (LIST) { repeated int32 element }: the repeated field is the element.
  Schema s = MakeSchema({Root(1), Group("l", Repetition::kOptional, 1, ConvertedType::kList),
                         Leaf("element", Repetition::kRepeated, PhysicalType::kInt32)});
  RowBatch b = Batch(3);
  b.columns.push_back(Int32Column(s, {0, {2, 2, 0, 1}, {0, 1, 0, 0}}, {1, 2}));
  EXPECT_RENDERS(s, b, "{\"l\":[1,2]}\n{\"l\":null}\n{\"l\":[]}\n");
}

TEST(RenderRowsTest, TwoLevelListOfLists) {
  // parquet-mr's old layout (old_list_structure.parquet): elements are required lists.
  Schema s = MakeSchema({Root(1), Group("a", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("array", Repetition::kRepeated, 1, ConvertedType::kList),
                         Leaf("array", Repetition::kRepeated, PhysicalType::kInt32)});
  RowBatch b = Batch(1);
  b.columns.push_back(Int32Column(s, {0, {3, 3, 3, 3}, {0, 2, 1, 2}}, {1, 2, 3, 4}));
  EXPECT_RENDERS(s, b, "{\"a\":[[1,2],[3,4]]}\n");
}

TEST(RenderRowsTest, RepeatedFieldsWithoutListAnnotation) {
  // required int32 id; repeated int32 r; repeated group g { required int32 x }
  Schema s = MakeSchema({Root(3), Leaf("id", Repetition::kRequired, PhysicalType::kInt32),
                         Leaf("r", Repetition::kRepeated, PhysicalType::kInt32),
                         Group("g", Repetition::kRepeated, 1),
                         Leaf("x", Repetition::kRequired, PhysicalType::kInt32)});
  RowBatch b = Batch(2);
  b.columns.push_back(Int32Column(s, {0, {}, {}}, {7, 8}));
  b.columns.push_back(Int32Column(s, {1, {1, 1, 1, 0}, {0, 1, 1, 0}}, {1, 2, 3}));
  b.columns.push_back(Int32Column(s, {2, {0, 1}, {0, 0}}, {9}));
  EXPECT_RENDERS(s, b, "{\"id\":7,\"r\":[1,2,3],\"g\":[]}\n{\"id\":8,\"r\":[],\"g\":[{\"x\":9}]}\n");
}

TEST(RenderRowsTest, ThreeNestedLists) {
  // LIST<LIST<LIST<int32>>>, all levels optional (3-level form).
  Schema s = MakeSchema({Root(1), Group("a", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("list", Repetition::kRepeated, 1),
                         Group("element", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("list", Repetition::kRepeated, 1),
                         Group("element", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("list", Repetition::kRepeated, 1),
                         Leaf("element", Repetition::kOptional, PhysicalType::kInt32)});
  // defs: a1 list2 element3 list4 element5 list6 element7; reps 1, 2, 3.
  RowBatch b = Batch(2);
  b.columns.push_back(Int32Column(
      s, {0, {7, 7, 7, 5, 4, 2, 6}, {0, 3, 2, 1, 2, 1, 0}}, {1, 2, 3}));
  EXPECT_RENDERS(s, b, "{\"a\":[[[1,2],[3]],[[],null],null]}\n{\"a\":[[[null]]]}\n");
}

TEST(RenderRowsTest, NestedStructsDepthThree) {
  Schema s = MakeSchema({Root(1), Group("s1", Repetition::kOptional, 1),
                         Group("s2", Repetition::kOptional, 2),
                         Group("s3", Repetition::kOptional, 1),
                         Leaf("x", Repetition::kOptional, PhysicalType::kInt32),
                         Leaf("y", Repetition::kRequired, PhysicalType::kInt64)});
  // defs: s1 1, s2 2, s3 3, x 4, y 2.
  RowBatch b = Batch(5);
  b.columns.push_back(Int32Column(s, {0, {4, 2, 1, 0, 3}, {}}, {5}));
  b.columns.push_back(Int64Column(s, {1, {2, 2, 1, 0, 2}, {}}, {10, 20, 30}));
  EXPECT_RENDERS(s, b,
                 "{\"s1\":{\"s2\":{\"s3\":{\"x\":5},\"y\":10}}}\n"
                 "{\"s1\":{\"s2\":{\"s3\":null,\"y\":20}}}\n"
                 "{\"s1\":{\"s2\":null}}\n"
                 "{\"s1\":null}\n"
                 "{\"s1\":{\"s2\":{\"s3\":{\"x\":null},\"y\":30}}}\n");
}

TEST(RenderRowsTest, KeysAreEscaped) {
  Schema s = MakeSchema({Root(1), Leaf("we\"ird\n", Repetition::kRequired, PhysicalType::kInt32)});
  RowBatch b = Batch(1);
  b.columns.push_back(Int32Column(s, {0, {}, {}}, {1}));
  EXPECT_RENDERS(s, b, "{\"we\\\"ird\\n\":1}\n");
}

// ---- hostile batches: Corruption, never a crash ----

TEST(RenderRowsTest, InconsistentLevelsAreCorruption) {
  Schema s = ListOfStructSchema();
  {  // siblings disagree on whether the element exists
    RowBatch b = Batch(1);
    b.columns.push_back(Int32Column(s, {0, {3}, {0}}, {1}));
    b.columns.push_back(BinaryColumn(s, {1, {1}, {0}}, {}));
    EXPECT_CORRUPT(s, b);
  }
  {  // a row that starts with a non-zero rep level
    RowBatch b = Batch(1);
    b.columns.push_back(Int32Column(s, {0, {3}, {1}}, {1}));
    EXPECT_CORRUPT(s, b);
  }
  {  // def level beyond the leaf's max
    RowBatch b = Batch(1);
    b.columns.push_back(Int32Column(s, {0, {9}, {0}}, {1}));
    EXPECT_CORRUPT(s, b);
  }
  {  // more defined entries than values
    RowBatch b = Batch(2);
    b.columns.push_back(Int32Column(s, {0, {3, 3}, {0, 0}}, {1}));
    EXPECT_CORRUPT(s, b);
  }
  {  // fewer level entries than rows
    RowBatch b = Batch(3);
    b.columns.push_back(Int32Column(s, {0, {3}, {0}}, {1}));
    EXPECT_CORRUPT(s, b);
  }
  {  // leftover levels after the last row
    RowBatch b = Batch(1);
    b.columns.push_back(Int32Column(s, {0, {3, 3}, {0, 0}}, {1, 2}));
    EXPECT_CORRUPT(s, b);
  }
  {  // def and rep arrays shorter than num_levels
    RowBatch b = Batch(2);
    b.columns.push_back(Int32Column(s, {0, {3}, {0}, 2}, {1}));
    EXPECT_CORRUPT(s, b);
  }
  {  // a rep level deeper than the schema allows
    RowBatch b = Batch(1);
    b.columns.push_back(Int32Column(s, {0, {3, 3}, {0, 2}}, {1, 2}));
    EXPECT_CORRUPT(s, b);
  }
}

// Random rows of MAP<string, LIST<int32>> plus a flat column, shredded into levels here
// and rendered back: valid batches must render exactly as the rows were built; mutated
// batches (a level, a value count or an entry changed) must render or fail with
// Corruption, never crash (this test also runs under ASan/UBSan).
struct RandomBatch {
  RowBatch batch;
  std::string expected;
};

RandomBatch RandomMapBatch(const Schema& s, std::mt19937& rng) {
  std::vector<int16_t> kd, kr, ed, er, fd;
  std::vector<std::string> keys;
  std::vector<int32_t> elements;
  std::vector<int64_t> flats;
  std::string expected;
  const int64_t rows = rng() % 4;
  for (int64_t r = 0; r < rows; ++r) {
    std::string m;
    const int shape = static_cast<int>(rng() % 4);  // null, empty, 1 or 2 entries
    if (shape == 0) {
      kd.push_back(0), kr.push_back(0), ed.push_back(0), er.push_back(0);
      m = "null";
    } else if (shape == 1) {
      kd.push_back(1), kr.push_back(0), ed.push_back(1), er.push_back(0);
      m = "[]";
    } else {
      m = "[";
      for (int e = 0; e < shape - 1; ++e) {
        const int16_t rep = e == 0 ? 0 : 1;
        const std::string key = "k" + std::to_string(rng() % 10);
        kd.push_back(2), kr.push_back(rep), keys.push_back(key);
        m += (e > 0 ? ",{\"key\":\"" : "{\"key\":\"") + key + "\",\"value\":";
        const int list = static_cast<int>(rng() % 4);  // null, empty, 1 or 2 elements
        if (list == 0) {
          ed.push_back(2), er.push_back(rep), m += "null";
        } else if (list == 1) {
          ed.push_back(3), er.push_back(rep), m += "[]";
        } else {
          m += "[";
          for (int i = 0; i < list - 1; ++i) {
            er.push_back(i == 0 ? rep : 2);
            if (i > 0) m += ",";
            if (rng() % 3 == 0) {
              ed.push_back(4), m += "null";
            } else {
              const int32_t v = static_cast<int32_t>(rng() % 100) - 50;
              ed.push_back(5), elements.push_back(v), m += std::to_string(v);
            }
          }
          m += "]";
        }
        m += "}";
      }
      m += "]";
    }
    std::string flat = "null";
    if (rng() % 2 == 0) {
      fd.push_back(0);
    } else {
      const int64_t v = static_cast<int64_t>(rng()) - (int64_t{1} << 31);
      fd.push_back(1), flats.push_back(v), flat = std::to_string(v);
    }
    expected += "{\"m\":" + m + ",\"flat\":" + flat + "}\n";
  }
  RandomBatch out;
  out.batch = Batch(rows);
  out.batch.columns.push_back(BinaryColumn(s, {0, kd, kr}, keys));
  out.batch.columns.push_back(Int32Column(s, {1, ed, er}, elements));
  out.batch.columns.push_back(Int64Column(s, {2, fd, {}}, flats));
  out.expected = std::move(expected);
  return out;
}

void Mutate(RowBatch* b, std::mt19937& rng) {
  ColumnData& c = b->columns[rng() % b->columns.size()];
  const int64_t n = c.num_levels;
  switch (rng() % 5) {
    case 0:
      if (n > 0 && !c.def_levels.empty()) c.def_levels[rng() % n] = static_cast<int16_t>(rng() % 7);
      break;
    case 1:
      if (n > 0 && !c.rep_levels.empty()) c.rep_levels[rng() % n] = static_cast<int16_t>(rng() % 4);
      break;
    case 2:  // one value too few
      if (c.values.count > 0) --c.values.count;
      if (c.values.is_byte_array() && !c.values.offsets.empty()) c.values.offsets.pop_back();
      break;
    case 3:  // one level entry too few (def/rep arrays stay longer)
      if (n > 0) --c.num_levels;
      break;
    case 4:  // one more row than the levels describe
      ++b->num_rows;
      break;
  }
}

TEST(RenderRowsTest, RandomNestedRowsRenderExactlyAndMutationsNeverCrash) {
  Schema s = MakeSchema({Root(2), Group("m", Repetition::kOptional, 1, ConvertedType::kMap),
                         Group("key_value", Repetition::kRepeated, 2),
                         Utf8("key", Repetition::kRequired),
                         Group("value", Repetition::kOptional, 1, ConvertedType::kList),
                         Group("list", Repetition::kRepeated, 1),
                         Leaf("element", Repetition::kOptional, PhysicalType::kInt32),
                         Leaf("flat", Repetition::kOptional, PhysicalType::kInt64)});
  std::mt19937 rng(12345);
  int rendered = 0;
  int corrupt = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    RandomBatch rb = RandomMapBatch(s, rng);
    Result<std::string> valid = Render(s, rb.batch);
    ASSERT_TRUE(valid.ok()) << valid.status().ToString();
    ASSERT_EQ(*valid, rb.expected);
    Mutate(&rb.batch, rng);
    for (RowFormat format : {RowFormat::kJsonLines, RowFormat::kCsv}) {
      std::string out;
      Status st = RenderRows(s, s.top_level_fields(), rb.batch, format, -1, &out);
      if (st.ok()) {
        ++rendered;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), rb.batch.num_rows) << out;
      } else {
        ++corrupt;
        EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      }
    }
  }
  // Both outcomes must occur for the mutation half to mean anything.
  EXPECT_GT(rendered, 100);
  EXPECT_GT(corrupt, 100);
}

TEST(RenderRowsTest, BadValuesAreCorruption) {
  Schema s = MakeSchema({Root(1), Utf8("s", Repetition::kRequired)});
  {  // offsets past the data
    RowBatch b = Batch(1);
    b.columns.push_back(BinaryColumn(s, {0, {}, {}}, {"abc"}));
    b.columns[0].values.offsets[1] = 1000;
    EXPECT_CORRUPT(s, b);
  }
  {  // decreasing offsets
    RowBatch b = Batch(2);
    b.columns.push_back(BinaryColumn(s, {0, {}, {}}, {"abc", "d"}));
    b.columns[0].values.offsets[1] = -1;
    EXPECT_CORRUPT(s, b);
  }
  {  // missing offsets
    RowBatch b = Batch(1);
    b.columns.push_back(BinaryColumn(s, {0, {}, {}}, {"abc"}));
    b.columns[0].values.offsets.clear();
    EXPECT_CORRUPT(s, b);
  }
  Schema i = MakeSchema({Root(1), Leaf("i", Repetition::kRequired, PhysicalType::kInt64)});
  {  // fixed buffer shorter than count * width
    RowBatch b = Batch(2);
    b.columns.push_back(Int64Column(i, {0, {}, {}}, {1, 2}));
    b.columns[0].values.fixed.Resize(12);
    EXPECT_CORRUPT(i, b);
  }
  {  // values of the wrong physical type
    RowBatch b = Batch(1);
    b.columns.push_back(Int64Column(i, {0, {}, {}}, {1}));
    b.columns[0].values.type = PhysicalType::kInt32;
    EXPECT_CORRUPT(i, b);
  }
}

TEST(RenderRowsTest, BadFieldsAreInvalidArgument) {
  Schema s = ListOfStructSchema();
  RowBatch b = Batch(0);
  std::string out;
  EXPECT_TRUE(RenderRows(s, {3}, b, RowFormat::kJsonLines, -1, &out).IsInvalidArgument());
  EXPECT_TRUE(RenderRows(s, {99}, b, RowFormat::kJsonLines, -1, &out).IsInvalidArgument());
  EXPECT_TRUE(RenderRows(s, {-1}, b, RowFormat::kJsonLines, -1, &out).IsInvalidArgument());
}

// ---- CSV ----

TEST(RenderRowsTest, CsvQuotingNullsAndNestedValues) {
  Schema s = MakeSchema({Root(3), Leaf("id", Repetition::kRequired, PhysicalType::kInt32),
                         Utf8("text", Repetition::kOptional),
                         Group("tags", Repetition::kOptional, 1, ConvertedType::kList),
                         Leaf("element", Repetition::kRepeated, PhysicalType::kInt32)});
  // "tags" is at node 3 (root 0, id 1, text 2).
  ASSERT_EQ(s.top_level_fields().size(), 3u);
  RowBatch b = Batch(4);
  b.columns.push_back(Int32Column(s, {0, {}, {}}, {1, 2, 3, 4}));
  b.columns.push_back(
      BinaryColumn(s, {1, {1, 1, 0, 1}, {}}, {"plain", "a,\"b\"\nc", ""}));
  b.columns.push_back(Int32Column(s, {2, {2, 2, 0, 1, 2}, {0, 1, 0, 0, 0}}, {5, 6, 7}));
  Result<std::string> csv = Render(s, b, RowFormat::kCsv);
  ASSERT_TRUE(csv.ok()) << csv.status().ToString();
  EXPECT_EQ(*csv,
            "1,plain,\"[5,6]\"\n"
            "2,\"a,\"\"b\"\"\nc\",\n"
            "3,,[]\n"
            "4,\"\",[7]\n");
  EXPECT_EQ(CsvHeader(s, s.top_level_fields()), "id,text,tags\n");
}

TEST(RenderRowsTest, CsvPrimitivesAreUnquotedCanonicalText) {
  LogicalType ts = TimeType(LogicalType::Kind::kTimestamp, TimeUnit::kMicros, true);
  Schema s = MakeSchema({Root(3), Leaf("d", Repetition::kRequired, PhysicalType::kInt32,
                                       std::nullopt, DecimalType(2, 9)),
                         Leaf("t", Repetition::kRequired, PhysicalType::kInt64, std::nullopt, ts),
                         Leaf("f", Repetition::kRequired, PhysicalType::kDouble)});
  RowBatch b = Batch(1);
  b.columns.push_back(Int32Column(s, {0, {}, {}}, {-1230}));
  b.columns.push_back(Int64Column(s, {1, {}, {}}, {0}));
  ColumnData f = MakeColumn(s, {2, {}, {}});
  AddFixed<double>(&f, {NAN});
  b.columns.push_back(std::move(f));
  Result<std::string> csv = Render(s, b, RowFormat::kCsv);
  ASSERT_TRUE(csv.ok()) << csv.status().ToString();
  EXPECT_EQ(*csv, "-12.30,1970-01-01T00:00:00.000000Z,NaN\n");
  Result<std::string> json = Render(s, b);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(*json, "{\"d\":\"-12.30\",\"t\":\"1970-01-01T00:00:00.000000Z\",\"f\":\"NaN\"}\n");
}

TEST(CsvHeaderTest, QuotesNamesThatNeedIt) {
  Schema s = MakeSchema({Root(3), Leaf("a,b", Repetition::kRequired, PhysicalType::kInt32),
                         Leaf("q\"", Repetition::kRequired, PhysicalType::kInt32),
                         Leaf("plain", Repetition::kRequired, PhysicalType::kInt32)});
  EXPECT_EQ(CsvHeader(s, s.top_level_fields()), "\"a,b\",\"q\"\"\",plain\n");
}

}  // namespace
}  // namespace lithify::parquet
