// Tests for ingest across the formats: format names, canonical scan output read back
// (JSONL, CSV), Parquet input against canonical JSON on corpus files, damaged input, the
// local file system. Per-format tests: ingest_{jsonl,csv,parquet}_test.cc.
#include "lithify/commands/ingest.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "lithify/commands/ingest_test_util.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema_builder.h"
#include "lithify_test_paths.h"

namespace lithify::commands {
namespace {

using namespace ingest_test;  // NOLINT: the shared helpers of the ingest tests

// ---------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------

TEST(InputFormatTest, ByNameAndPath) {
  EXPECT_EQ(*InputFormatFromName("parquet"), InputFormat::kParquet);
  EXPECT_EQ(*InputFormatFromName("JSONL"), InputFormat::kJsonl);
  EXPECT_EQ(*InputFormatFromName("ndjson"), InputFormat::kJsonl);
  EXPECT_EQ(*InputFormatFromName("csv"), InputFormat::kCsv);
  auto bad = InputFormatFromName("xlsx");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("xlsx"), std::string::npos);
  EXPECT_EQ(InputFormatFromPath("/a/b.jsonl"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("b.JSON"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("x.ndjson"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("data.csv"), InputFormat::kCsv);
  EXPECT_EQ(InputFormatFromPath("part-0.snappy.parquet"), InputFormat::kParquet);
  EXPECT_EQ(InputFormatFromPath("dir.csv/file"), InputFormat::kParquet);
  EXPECT_EQ(InputFormatFromPath("noext"), InputFormat::kParquet);
}

// ---------------------------------------------------------------------------------
// Round trip of canonical scan output
// ---------------------------------------------------------------------------------

std::vector<parquet::FieldSpec> RoundTripSpecs() {
  using parquet::FieldSpec;
  return {FieldSpec::Boolean("b"), FieldSpec::Byte("y"), FieldSpec::Short("sh"), FieldSpec::Int("i"),
          FieldSpec::Long("l", false), FieldSpec::Float("f"), FieldSpec::Double("d"), FieldSpec::String("s"),
          FieldSpec::Binary("bin"), FieldSpec::Decimal("dec", 12, 2), FieldSpec::Decimal("dec38", 38, 10),
          FieldSpec::Date("dt"), FieldSpec::Timestamp("ts"), FieldSpec::TimestampNtz("ntz"),
          FieldSpec::Struct("st", {FieldSpec::Int("a"), FieldSpec::List("b", FieldSpec::String("e"))}),
          FieldSpec::List("arr", FieldSpec::Struct("e", {FieldSpec::Double("x")})),
          FieldSpec::Map("m", FieldSpec::String("k"), FieldSpec::List("v", FieldSpec::Int("e")))};
}
delta::StructType RoundTripSchema() {
  return Schema({F("b", P("boolean")), F("y", P("byte")), F("sh", P("short")), F("i", P("integer")),
                 F("l", P("long"), false), F("f", P("float")), F("d", P("double")), F("s", P("string")),
                 F("bin", P("binary")), F("dec", P("decimal(12,2)")), F("dec38", P("decimal(38,10)")),
                 F("dt", P("date")), F("ts", P("timestamp")), F("ntz", P("timestamp_ntz")),
                 F("st", StructT({F("a", P("integer")), F("b", ArrayT(P("string")))})),
                 F("arr", ArrayT(StructT({F("x", P("double"))}))),
                 F("m", MapT(P("string"), ArrayT(P("integer"))))});
}
Rows RoundTripRows() {
  const double inf = std::numeric_limits<double>::infinity();
  Rows rows;
  rows.push_back({Value::Bool(true), Value::Int(-128), Value::Int(-32768), Value::Int(2147483647),
                  Value::Int(std::numeric_limits<int64_t>::min()), Value::Double(static_cast<double>(0.1f)),
                  Value::Double(-0.0), Value::String("h\xC3\xA9 \"q\" \\ \n\t\x01 \xF0\x9F\x98\x80"),
                  Value::Bytes(std::string("\x00\xFF\x10" "abc", 6)), Value::Decimal(-5),
                  Value::Decimal(static_cast<__int128>(123456789012345678LL) * 1000000000000LL + 7),
                  Value::Int(-719528 /* 0000-01-01 */), Value::Int(Micros(1969, 12, 31, 23, 59, 59, 999999)),
                  Value::Int(Micros(2024, 2, 29, 12, 34, 56, 789012)),
                  Value::Struct({Value::Int(1), Value::List({Value::String("x"), Value::Null()})}),
                  Value::List({Value::Struct({Value::Double(1.5)}), Value::Null(), Value::Struct({Value::Null()})}),
                  Value::Map({{Value::String("k"), Value::List({Value::Int(1), Value::Null()})},
                              {Value::String("e"), Value::Null()}})});
  rows.push_back({Value::Bool(false), Value::Int(127), Value::Int(32767), Value::Int(-2147483648LL),
                  Value::Int(std::numeric_limits<int64_t>::max()), Value::Double(3.4028234663852886e+38),
                  Value::Double(5e-324), Value::String(""), Value::Bytes(""), Value::Decimal(999999999999LL),
                  Value::Decimal(-1), Value::Int(2932896 /* 9999-12-31 */), Value::Int(0), Value::Int(-1),
                  Value::Struct({Value::Null(), Value::List({})}), Value::List({}), Value::Map({})});
  rows.push_back({Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Int(0),
                  Value::Double(std::nan("")), Value::Double(-inf), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null()});
  rows.push_back({Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Int(1),
                  Value::Double(inf), Value::Double(1.7976931348623157e308), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null()});
  return rows;
}

TEST_F(IngestTest, CanonicalJsonlRoundTrip) {
  auto pq_schema = parquet::BuildSchema(RoundTripSpecs());
  ASSERT_TRUE(pq_schema.ok()) << pq_schema.status().ToString();
  const Rows rows = RoundTripRows();
  ASSERT_TRUE(WriteParquet(fs_.get(), "rt.parquet", *pq_schema, {rows}).ok());
  auto reader = parquet::FileReader::Open(fs_.get(), "rt.parquet");
  ASSERT_TRUE(reader.ok());
  auto batch = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok());
  std::string text;
  const auto& fields = (*reader)->schema().top_level_fields();
  ASSERT_TRUE(parquet::RenderRows((*reader)->schema(), fields, *batch, parquet::RowFormat::kJsonLines, -1, &text).ok());
  auto back = ReadText("rt.jsonl", text, RoundTripSchema());
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  EXPECT_EQ(Show(*back), Show(rows)) << text;
  // The Parquet reader path gives the same rows.
  auto direct = Read("rt.parquet", InputFormat::kParquet, RoundTripSchema(), 3);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(Show(*direct), Show(rows));
}

TEST_F(IngestTest, CanonicalCsvRoundTrip) {
  std::vector<parquet::FieldSpec> specs = RoundTripSpecs();
  specs.resize(14);  // primitives only
  auto pq_schema = parquet::BuildSchema(specs);
  ASSERT_TRUE(pq_schema.ok());
  Rows rows = RoundTripRows();
  for (auto& r : rows) r.resize(14);
  ASSERT_TRUE(WriteParquet(fs_.get(), "rt.parquet", *pq_schema, {rows}).ok());
  auto reader = parquet::FileReader::Open(fs_.get(), "rt.parquet");
  ASSERT_TRUE(reader.ok());
  auto batch = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok());
  const auto& fields = (*reader)->schema().top_level_fields();
  std::string text = parquet::CsvHeader((*reader)->schema(), fields);
  ASSERT_TRUE(parquet::RenderRows((*reader)->schema(), fields, *batch, parquet::RowFormat::kCsv, -1, &text).ok());
  delta::StructType schema = RoundTripSchema();
  schema.fields.resize(14);
  auto back = ReadText("rt.csv", text, schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  EXPECT_EQ(Show(*back), Show(rows)) << text;
}

// The Delta type a Parquet node reads as (test helper for the corpus cross-check).
Result<std::string> DeltaTypeOf(const parquet::Schema& s, int node, bool once) {
  using LK = parquet::LogicalType::Kind;
  using PT = parquet::PhysicalType;
  const parquet::SchemaNode& n = s.node(node);
  if (n.is_leaf() && (once || n.kind == parquet::NodeKind::kPrimitive)) {
    const auto& e = n.element;
    const auto& lt = e.logical_type;
    const auto ct = e.converted_type;
    if (lt.kind == LK::kDecimal || ct == parquet::ConvertedType::kDecimal) {
      int p = lt.kind == LK::kDecimal ? lt.precision : e.precision.value_or(0);
      int sc = lt.kind == LK::kDecimal ? lt.scale : e.scale.value_or(0);
      return P(fmt::format("decimal({},{})", p, sc));
    }
    switch (*e.type) {
      case PT::kBoolean: return P("boolean");
      case PT::kFloat: return P("float");
      case PT::kDouble: return P("double");
      case PT::kInt96: return P("timestamp");
      case PT::kInt32:
        if (lt.kind == LK::kDate || ct == parquet::ConvertedType::kDate) return P("date");
        if (lt.kind == LK::kInteger && lt.bit_width == 8 && lt.is_signed) return P("byte");
        if (lt.kind == LK::kInteger && lt.bit_width == 16 && lt.is_signed) return P("short");
        if (lt.kind == LK::kInteger && !lt.is_signed) return P("long");
        if (lt.kind != LK::kNone && lt.kind != LK::kInteger) return Status::NotSupported("leaf type");
        return P("integer");
      case PT::kInt64:
        if (lt.kind == LK::kTimestamp) return P(lt.is_adjusted_to_utc ? "timestamp" : "timestamp_ntz");
        if (ct == parquet::ConvertedType::kTimestampMicros || ct == parquet::ConvertedType::kTimestampMillis) {
          return P("timestamp");
        }
        if (lt.kind != LK::kNone && !(lt.kind == LK::kInteger && lt.is_signed)) return Status::NotSupported("leaf");
        return P("long");
      case PT::kByteArray:
        if (lt.kind == LK::kString || ct == parquet::ConvertedType::kUtf8) return P("string");
        if (lt.kind != LK::kNone) return Status::NotSupported("leaf");
        return P("binary");
      case PT::kFixedLenByteArray:
        if (lt.kind != LK::kNone) return Status::NotSupported("leaf");
        return P("binary");
    }
  }
  auto optional = [&](int c) { return s.node(c).repetition == parquet::Repetition::kOptional; };
  if (!n.is_leaf() && (once || n.kind == parquet::NodeKind::kStruct)) {
    std::vector<std::string> fields;
    for (int c : n.children) {
      LITHIFY_ASSIGN_OR_RETURN(std::string t, DeltaTypeOf(s, c, false));
      fields.push_back(F(s.node(c).name, t, optional(c)));
    }
    return StructT(fields);
  }
  if (n.kind == parquet::NodeKind::kList) {
    const bool elem_once = n.element_node == n.repeated_node;
    LITHIFY_ASSIGN_OR_RETURN(std::string t, DeltaTypeOf(s, n.element_node, elem_once));
    return ArrayT(t, !elem_once && optional(n.element_node));
  }
  if (n.kind == parquet::NodeKind::kMap && n.value_node >= 0) {
    LITHIFY_ASSIGN_OR_RETURN(std::string k, DeltaTypeOf(s, n.key_node, false));
    LITHIFY_ASSIGN_OR_RETURN(std::string v, DeltaTypeOf(s, n.value_node, false));
    return MapT(k, v, optional(n.value_node));
  }
  return Status::NotSupported("node shape");
}

// Two independent assemblies must agree on real files: ReadInput(parquet) (this module's
// record assembler) and rows_json's canonical text read back through ReadInput(jsonl).
TEST(IngestCorpusTest, ParquetInputAgreesWithCanonicalJsonOfCorpusFiles) {
  const std::string dir = std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/parquet-testing/data/";
  auto local = io::NewLocalFileSystem();
  auto mem = io::NewMemoryFileSystem();
  int compared = 0;
  for (const char* name : {"nested_lists.snappy.parquet", "null_list.parquet", "repeated_primitive_no_list.parquet",
                           "nested_structs.rust.parquet", "nested_maps.snappy.parquet", "old_list_structure.parquet",
                           "repeated_no_annotation.parquet", "list_columns.parquet", "alltypes_plain.parquet",
                           "alltypes_plain.snappy.parquet", "datapage_v2.snappy.parquet", "nonnullable.impala.parquet",
                           "nullable.impala.parquet", "int32_decimal.parquet", "byte_array_decimal.parquet",
                           "fixed_length_decimal.parquet", "int64_decimal.parquet"}) {
    const std::string path = dir + name;
    if (!local->Head(path).ok()) continue;
    auto reader = parquet::FileReader::Open(local.get(), path);
    ASSERT_TRUE(reader.ok()) << name;
    const parquet::Schema& ps = (*reader)->schema();
    std::vector<std::string> fields;
    bool supported = true;
    for (int c : ps.top_level_fields()) {
      auto t = DeltaTypeOf(ps, c, false);
      if (!t.ok()) {
        supported = false;
        break;
      }
      fields.push_back(F(ps.node(c).name, *t, ps.node(c).repetition != parquet::Repetition::kRequired));
    }
    if (!supported) continue;
    auto schema = delta::ParseSchema(StructT(fields));
    ASSERT_TRUE(schema.ok()) << name << ": " << schema.status().ToString();
    std::string text;
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      auto batch = (*reader)->ReadRowGroup(rg, {});
      ASSERT_TRUE(batch.ok()) << name;
      ASSERT_TRUE(parquet::RenderRows(ps, ps.top_level_fields(), *batch, parquet::RowFormat::kJsonLines, -1, &text).ok());
    }
    ASSERT_TRUE(mem->WriteFile("x.jsonl", AsBytes(text)).ok());
    Rows from_parquet, from_json;
    auto collect = [](Rows* out) {
      return [out](Rows&& b) {
        for (auto& r : b) out->push_back(std::move(r));
        return Status::OK();
      };
    };
    Status a = ReadInput(local.get(), path, InputFormat::kParquet, *schema, collect(&from_parquet), 5);
    Status b = ReadInput(mem.get(), "x.jsonl", InputFormat::kJsonl, *schema, collect(&from_json));
    ASSERT_EQ(a.ok(), b.ok()) << name << ": " << a.ToString() << " vs " << b.ToString();
    if (!a.ok()) continue;
    EXPECT_EQ(Show(from_parquet), Show(from_json)) << name;
    ++compared;
  }
  EXPECT_GE(compared, 8);
  std::printf("compared %d corpus files\n", compared);
}

// Damaged input of every format gives an error status, never a crash.
TEST_F(IngestTest, MutatedInputNeverCrashes) {
  const std::string jsonl =
      R"({"id":1,"s":{"a":7,"b":["x",null]},"arr":[{"x":1.5},null],"m":[{"key":"k","value":[1]}],"mi":[]})";
  const std::string csv = "a,b,c\n1,\"x\"\"y\",2024-01-01\n";
  auto csv_schema = Schema({F("a", P("long")), F("b", P("string")), F("c", P("date"))});
  auto pq_schema = parquet::BuildSchema(RoundTripSpecs());
  ASSERT_TRUE(pq_schema.ok());
  ASSERT_TRUE(WriteParquet(fs_.get(), "good.parquet", *pq_schema, {RoundTripRows()}).ok());
  auto good = fs_->ReadFile("good.parquet");
  ASSERT_TRUE(good.ok());
  const std::string pq(AsStringView(good->view()));
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  auto mutate = [&](std::string text) {
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) text[next() % text.size()] = static_cast<char>(next());
    return text;
  };
  int errors = 0;
  for (int i = 0; i < 300; ++i) {
    auto j = ReadText("m.jsonl", mutate(jsonl), NestedSchema());
    auto c = ReadText("m.csv", mutate(csv), csv_schema);
    Write("m.parquet", mutate(pq));
    auto q = Read("m.parquet", InputFormat::kParquet, RoundTripSchema());
    for (const Status& st : {j.status(), c.status(), q.status()}) {
      if (st.ok()) continue;
      ++errors;
      EXPECT_TRUE(st.IsInvalidArgument() || st.IsCorruption() || st.IsNotSupported()) << st.ToString();
    }
  }
  EXPECT_GT(errors, 100);
}

TEST(IngestLocalFsTest, ReadsFromTheLocalFileSystem) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("lithify_ingest_{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto fs = io::NewLocalFileSystem();
  const std::string path = (dir / "x.csv").string();
  ASSERT_TRUE(fs->WriteFile(path, AsBytes("a\n1\n2\n")).ok());
  Rows rows;
  Status st = ReadInput(fs.get(), path, InputFormatFromPath(path), Schema({F("a", P("long"))}),
                        [&](Rows&& b) {
                          for (auto& r : b) rows.push_back(std::move(r));
                          return Status::OK();
                        });
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Show(rows), (std::vector<std::string>{"(i1)", "(i2)"}));
}

}  // namespace
}  // namespace lithify::commands
