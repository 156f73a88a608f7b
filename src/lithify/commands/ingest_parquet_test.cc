// Tests for Parquet input (ingest_parquet): type conversions, schema matching, nested
// record assembly.
#include "lithify/commands/ingest.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lithify/commands/ingest_test_util.h"
#include "lithify/parquet/metadata.h"

namespace lithify::commands {
namespace {

using namespace ingest_test;  // NOLINT: the shared helpers of the ingest tests

// ---------------------------------------------------------------------------------
// Parquet writing helpers
// ---------------------------------------------------------------------------------
parquet::SchemaElement Root(int children) {
  parquet::SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}
parquet::SchemaElement LeafE(const std::string& name, parquet::PhysicalType t,
                             parquet::Repetition r = parquet::Repetition::kOptional,
                             parquet::LogicalType lt = {}) {
  parquet::SchemaElement e;
  e.name = name;
  e.type = t;
  e.repetition_type = r;
  e.logical_type = lt;
  if (t == parquet::PhysicalType::kInt96) e.type_length = std::nullopt;
  if (lt.kind == parquet::LogicalType::Kind::kDecimal) {
    e.precision = lt.precision;
    e.scale = lt.scale;
    e.converted_type = parquet::ConvertedType::kDecimal;
  }
  if (lt.kind == parquet::LogicalType::Kind::kString) e.converted_type = parquet::ConvertedType::kUtf8;
  return e;
}
parquet::SchemaElement GroupE(const std::string& name, parquet::Repetition r, int children,
                              std::optional<parquet::ConvertedType> ct = std::nullopt) {
  parquet::SchemaElement e;
  e.name = name;
  e.repetition_type = r;
  e.num_children = children;
  e.converted_type = ct;
  if (ct == parquet::ConvertedType::kList) e.logical_type.kind = parquet::LogicalType::Kind::kList;
  if (ct == parquet::ConvertedType::kMap) e.logical_type.kind = parquet::LogicalType::Kind::kMap;
  return e;
}
parquet::LogicalType TsType(parquet::TimeUnit unit, bool utc) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kTimestamp;
  lt.unit = unit;
  lt.is_adjusted_to_utc = utc;
  return lt;
}
parquet::LogicalType DecType(int p, int s) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kDecimal;
  lt.precision = p;
  lt.scale = s;
  return lt;
}
parquet::LogicalType IntType(int bits, bool is_signed) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kInteger;
  lt.bit_width = static_cast<int8_t>(bits);
  lt.is_signed = is_signed;
  return lt;
}
parquet::LogicalType StrType() {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kString;
  return lt;
}

std::string Int96(int64_t julian_day, int64_t nanos_of_day) {
  std::string b(12, '\0');
  std::memcpy(b.data(), &nanos_of_day, 8);
  auto jd = static_cast<uint32_t>(julian_day);
  std::memcpy(b.data() + 8, &jd, 4);
  return b;
}

// ---------------------------------------------------------------------------------
// Parquet input
// ---------------------------------------------------------------------------------

TEST_F(IngestTest, ParquetTypeConversionsAndMissingColumns) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  auto schema = parquet::Schema::FromElements({
      Root(9),
      LeafE("A_LONG", PT::kInt32, R::kRequired),
      LeafE("f", PT::kFloat),
      LeafE("ts_ms", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kMillis, true)),
      LeafE("ts_ns", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kNanos, true)),
      LeafE("ts96", PT::kInt96),
      LeafE("dec", PT::kInt32, R::kOptional, DecType(5, 1)),
      LeafE("u32", PT::kInt32, R::kOptional, IntType(32, false)),
      LeafE("ntz", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kMicros, false)),
      LeafE("raw", PT::kByteArray),
  });
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const int64_t t = Micros(2024, 5, 6, 7, 8, 9, 123000);
  Rows rg1 = {{Value::Int(-7), Value::Double(static_cast<double>(0.1f)), Value::Int(t / 1000), Value::Int(t * 1000),
               Value::Bytes(Int96(kJulianDayOfEpoch + FloorDiv(t, kMicrosPerDay), FloorMod(t, kMicrosPerDay) * 1000)),
               Value::Decimal(-12345), Value::Int(4294967295LL), Value::Int(t), Value::Bytes("caf\xC3\xA9")}};
  Rows rg2 = {{Value::Int(2147483647), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
               Value::Null(), Value::Null(), Value::Null()}};
  ASSERT_TRUE(WriteParquet(fs_.get(), "conv.parquet", *schema, {rg1, rg2}).ok());
  auto table = Schema({F("a_long", P("long"), false), F("f", P("double")), F("ts_ms", P("timestamp")),
                       F("ts_ns", P("timestamp")), F("ts96", P("timestamp")), F("dec", P("decimal(10,3)")),
                       F("u32", P("long")), F("ntz", P("timestamp_ntz")), F("raw", P("string")),
                       F("extra_nullable", P("string"))});
  auto rows = Read("conv.parquet", InputFormat::kParquet, table);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Show(*rows),
            (std::vector<std::string>{
                fmt::format("(i-7, d{}, i{}, i{}, i{}, dec-1234500, i4294967295, i{}, 'café', null)",
                            static_cast<double>(0.1f), t, t, t, t),
                "(i2147483647, null, null, null, null, null, null, null, null, null)"}));
}

TEST_F(IngestTest, ParquetIncompatibleOrMissingColumns) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  auto schema = parquet::Schema::FromElements({
      Root(4),
      LeafE("id", PT::kInt64, R::kRequired),
      LeafE("name", PT::kByteArray, R::kOptional, StrType()),
      LeafE("ts_ns", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kNanos, true)),
      LeafE("dec", PT::kInt64, R::kOptional, DecType(12, 3)),
  });
  ASSERT_TRUE(schema.ok());
  ASSERT_TRUE(WriteParquet(fs_.get(), "in.parquet", *schema,
                           {{{Value::Int(300), Value::Null(), Value::Int(2000), Value::Decimal(1001)}}})
                  .ok());
  auto err = [&](const delta::StructType& table) {
    auto r = Read("in.parquet", InputFormat::kParquet, table);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string ok_rest = "";
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)")), F("must", P("string"), false)})),
            "in.parquet: column 'must': missing from the file, and the column is NOT NULL");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("ts_ns", P("timestamp")), F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'name': not in the table schema");
  EXPECT_EQ(err(Schema({F("id", P("date")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'id': the file has INT64, which cannot be read as date");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp_ntz")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'ts_ns': the file has INT64 TIMESTAMP(NANOS, UTC), which cannot be read as "
            "timestamp_ntz");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", StructT({F("a", P("string"))})), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'name': the file has BYTE_ARRAY STRING, which cannot be read as struct");
  // Per-value checks name the row.
  EXPECT_EQ(err(Schema({F("id", P("byte")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet row 1: column 'id': 300 is out of range for byte");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string"), false), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet row 1: column 'name': null is not allowed (the column is NOT NULL)");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,2)"))})),
            "in.parquet row 1: column 'dec': 1.001 has more digits after the point than decimal(12,2) allows");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(3,3)"))})),
            "in.parquet row 1: column 'dec': 1.001 has more digits than decimal(3,3) allows");
  // Exact narrowing and rescaling are fine.
  auto ok = Read("in.parquet", InputFormat::kParquet,
                 Schema({F("ID", P("short")), F("name", P("string")), F("ts_ns", P("timestamp")),
                         F("dec", P("decimal(20,5)"))}));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Show(*ok), (std::vector<std::string>{"(i300, null, i2, dec100100)"}));
  // Nanoseconds that are not whole microseconds cannot be stored.
  ASSERT_TRUE(WriteParquet(fs_.get(), "ns.parquet", *schema,
                           {{{Value::Int(1), Value::Null(), Value::Int(1501), Value::Null()}}})
                  .ok());
  auto ns = Read("ns.parquet", InputFormat::kParquet,
                 Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                         F("dec", P("decimal(12,3)"))}));
  ASSERT_FALSE(ns.ok());
  EXPECT_EQ(ns.status().message(),
            "ns.parquet row 1: column 'ts_ns': 1501 nanoseconds has sub-microsecond digits; timestamp stores "
            "microseconds");
  // Not a Parquet file.
  Write("junk.parquet", "this is not parquet");
  auto junk = Read("junk.parquet", InputFormat::kParquet, Schema({F("id", P("long"))}));
  ASSERT_FALSE(junk.ok());
  EXPECT_TRUE(junk.status().IsCorruption()) << junk.status().ToString();
}

TEST_F(IngestTest, ParquetNestedAssembly) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  using CT = parquet::ConvertedType;
  // s: struct<a int, tags list<string>>; legacy: 2-level list of structs; m: map<string,int>;
  // bare: repeated int32 (a required list of required elements).
  auto schema = parquet::Schema::FromElements({
      Root(4),
      GroupE("s", R::kOptional, 2),
      LeafE("a", PT::kInt32),
      GroupE("tags", R::kOptional, 1, CT::kList),
      GroupE("list", R::kRepeated, 1),
      LeafE("element", PT::kByteArray, R::kOptional, StrType()),
      GroupE("legacy", R::kOptional, 1, CT::kList),
      GroupE("array", R::kRepeated, 2),
      LeafE("x", PT::kInt64, R::kRequired),
      LeafE("y", PT::kDouble, R::kOptional),
      GroupE("m", R::kOptional, 1, CT::kMap),
      GroupE("key_value", R::kRepeated, 2),
      LeafE("key", PT::kByteArray, R::kRequired, StrType()),
      LeafE("value", PT::kInt32, R::kOptional),
      LeafE("bare", PT::kInt32, R::kRepeated),
  });
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  Rows rows = {
      {Value::Struct({Value::Int(1), Value::List({Value::String("a"), Value::Null(), Value::String("b")})}),
       Value::List({Value::Struct({Value::Int(1), Value::Double(0.5)}), Value::Struct({Value::Int(2), Value::Null()})}),
       Value::Map({{Value::String("k"), Value::Int(1)}, {Value::String("n"), Value::Null()}}),
       Value::List({Value::Int(4), Value::Int(5)})},
      {Value::Null(), Value::Null(), Value::Null(), Value::List({})},
      {Value::Struct({Value::Null(), Value::Null()}), Value::List({}), Value::Map({}), Value::List({Value::Int(6)})},
      {Value::Struct({Value::Int(2), Value::List({})}), Value::List({Value::Struct({Value::Int(3), Value::Double(1)})}),
       Value::Null(), Value::List({})},
  };
  ASSERT_TRUE(WriteParquet(fs_.get(), "nested.parquet", *schema, {rows, rows}).ok());
  auto table = Schema({F("s", StructT({F("a", P("long")), F("tags", ArrayT(P("string"))), F("missing", P("date"))})),
                       F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                       F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer"), false))});
  for (size_t batch : {1, 2, 8192}) {
    auto got = Read("nested.parquet", InputFormat::kParquet, table, batch);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<std::string> expected = {
        "({i1,['a',null,'b'],null}, [{i1,d0.5},{i2,null}], map['k':i1,'n':null], [i4,i5])",
        "(null, null, null, [])",
        "({null,null,null}, [], map[], [i6])",
        "({i2,[],null}, [{i3,d1}], null, [])"};
    const std::vector<std::string> once = expected;
    expected.insert(expected.end(), once.begin(), once.end());
    EXPECT_EQ(Show(*got), expected) << "batch " << batch;
  }
  // Type mismatches inside nested columns name the nested path.
  auto bad = Read("nested.parquet", InputFormat::kParquet,
                  Schema({F("s", StructT({F("a", P("long")), F("tags", ArrayT(P("long")))})),
                          F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                          F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer")))}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "nested.parquet: column 's.tags.element': the file has BYTE_ARRAY STRING, which cannot be read as long");
  auto extra = Read("nested.parquet", InputFormat::kParquet,
                    Schema({F("s", StructT({F("tags", ArrayT(P("string")))})),
                            F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                            F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer")))}));
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(), "nested.parquet: column 's.a': not in the table schema");
}


}  // namespace
}  // namespace lithify::commands
