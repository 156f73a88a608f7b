#include "lithify/base/temp_dir.h"
#include "lithify/delta/data_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/delta/test_util.h"
#include "lithify_test_paths.h"

namespace lithify::delta {
namespace {

using parquet::Value;
using Rows = std::vector<std::vector<Value>>;

using testing::Field;
using testing::Prim;
using testing::Struct;

// A fresh temporary directory, removed on destruction.
Metadata MakeMetadata(const std::string& schema, std::vector<std::string> partitions = {},
                      std::map<std::string, std::string> conf = {}) {
  Metadata m;
  m.id = "11111111-2222-4333-8444-555555555555";
  m.schema_string = schema;
  m.partition_columns = std::move(partitions);
  m.configuration = std::move(conf);
  m.created_time = 0;
  return m;
}

WriteContext Context(const Metadata& m) {
  auto c = WriteContext::FromMetadata(m);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

// Writes version 0 by hand (protocol, metadata, adds) so that the table can be loaded.
void CommitByHand(io::FileSystem* fs, const std::string& root, const Metadata& m,
                  const std::vector<AddFile>& adds) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"timestampNtz"};
  p.writer_features = std::vector<std::string>{"timestampNtz"};
  if (m.configuration.count("delta.columnMapping.mode")) {
    p.reader_features->push_back("columnMapping");
    p.writer_features->push_back("columnMapping");
  }
  std::string text = ActionToJson(p) + "\n" + ActionToJson(m) + "\n";
  for (const AddFile& a : adds) text += ActionToJson(a) + "\n";
  ASSERT_TRUE(fs->WriteFile(root + "/_delta_log/00000000000000000000.json",
                            ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()))
                  .ok());
}

// Every row of a data file as canonical JSON lines (lithify's reader).
std::vector<std::string> ReadLines(io::FileSystem* fs, const std::string& path) {
  std::vector<std::string> lines;
  auto r = parquet::FileReader::Open(fs, path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return lines;
  const auto& schema = (*r)->schema();
  for (int rg = 0; rg < (*r)->num_row_groups(); ++rg) {
    auto batch = (*r)->ReadRowGroup(rg, {});
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    std::string out;
    EXPECT_TRUE(parquet::RenderRows(schema, schema.top_level_fields(), *batch,
                                    parquet::RowFormat::kJsonLines, -1, &out)
                    .ok());
    size_t start = 0;
    while (start < out.size()) {
      size_t nl = out.find('\n', start);
      lines.push_back(out.substr(start, nl - start));
      start = nl + 1;
    }
  }
  return lines;
}

// DuckDB's canonical JSON lines of a data file (tests/oracle/duckdb-cat.mjs); nullopt
// when node or the DuckDB package is not available.
std::optional<std::vector<std::string>> DuckDbLines(const std::string& path) {
  const std::string script = std::string(LITHIFY_SOURCE_DIR) + "/tests/oracle/duckdb-cat.mjs";
  if (!std::filesystem::exists(std::string(LITHIFY_SOURCE_DIR) +
                               "/tests/oracle/node_modules/@duckdb/node-api")) {
    return std::nullopt;
  }
  FILE* p = popen(("node " + script + " '" + path + "' 2>/dev/null").c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) return std::nullopt;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

nlohmann::json Stats(const AddFile& a) {
  EXPECT_TRUE(a.stats.has_value());
  return nlohmann::json::parse(a.stats.value_or("{}"));
}

Result<std::vector<AddFile>> WriteAll(io::FileSystem* fs, const std::string& root,
                                      const WriteContext& ctx, const Rows& rows,
                                      DataWriterOptions opts = {}) {
  LITHIFY_ASSIGN_OR_RETURN(auto w, DataFileWriter::Open(fs, root, ctx, opts));
  LITHIFY_RETURN_NOT_OK(w->WriteRows(rows));
  return w->Finish();
}

// ---------------------------------------------------------------- building blocks

TEST(DataWriterPaths, HiveEscapingMatchesSpark) {
  EXPECT_EQ(EscapePartitionPathValue("a b"), "a b");
  EXPECT_EQ(EscapePartitionPathValue("100%"), "100%25");
  EXPECT_EQ(EscapePartitionPathValue("a/b=c:d"), "a%2Fb%3Dc%3Ad");
  EXPECT_EQ(EscapePartitionPathValue("#?*"), "%23%3F%2A");
  EXPECT_EQ(EscapePartitionPathValue("tab\there"), "tab%09here");
  EXPECT_EQ(EscapePartitionPathValue("ü€"), "ü€");
  EXPECT_EQ(PartitionDirectory({"p", "q"}, {std::string("x=1"), std::nullopt}),
            "p=x%3D1/q=__HIVE_DEFAULT_PARTITION__/");
  EXPECT_EQ(PartitionDirectory({"p"}, {std::string("")}), "p=__HIVE_DEFAULT_PARTITION__/");
}

TEST(DataWriterPaths, ActionPathEncodingRoundTrips) {
  // Delta writes the Hive-escaped directory URI-encoded: '%' becomes %25.
  EXPECT_EQ(EncodeActionPath("p=a%3Db/part-1.parquet"), "p=a%253Db/part-1.parquet");
  EXPECT_EQ(EncodeActionPath("p=a b/x#y"), "p=a%20b/x%23y");
  for (std::string s : {"p=a b/f", "p=%25/f", "p=ü€ 😀/f", "p=#{}[]|^`<>\"/f", "a/b/c"}) {
    auto back = DecodeActionPath(EncodeActionPath(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
}

TEST(DataWriterPaths, CodecTagsAsSpark) {
  EXPECT_EQ(CodecFileNameTag(parquet::CompressionCodec::kZstd), "zstd");
  EXPECT_EQ(CodecFileNameTag(parquet::CompressionCodec::kSnappy), "snappy");
  EXPECT_EQ(CodecFileNameTag(parquet::CompressionCodec::kGzip), "gz");
  EXPECT_EQ(CodecFileNameTag(parquet::CompressionCodec::kUncompressed), "");
}

TEST(DataWriterPartitionValues, SerializedPerProtocol) {
  auto ser = [](const std::string& type, const Value& v) {
    auto t = ParseSchema(Struct({Field("c", type)}));
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    auto r = SerializePartitionValue(t->fields[0].type, v);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->value_or("<null>") : "<error>";
  };
  EXPECT_EQ(ser(Prim("timestamp"), Value::Int(0)), "1970-01-01 00:00:00");
  EXPECT_EQ(ser(Prim("timestamp"), Value::Int(1'000'000'000'123'456)), "2001-09-09 01:46:40.123456");
  EXPECT_EQ(ser(Prim("timestamp_ntz"), Value::Int(-1)), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(ser(Prim("date"), Value::Int(19000)), "2022-01-08");
  EXPECT_EQ(ser(Prim("decimal(10,2)"), Value::Decimal(-5)), "-0.05");
  EXPECT_EQ(ser(Prim("decimal(38,0)"), Value::Decimal(12)), "12");
  EXPECT_EQ(ser(Prim("boolean"), Value::Bool(true)), "true");
  EXPECT_EQ(ser(Prim("double"), Value::Double(1.5)), "1.5");
  EXPECT_EQ(ser(Prim("double"), Value::Double(2)), "2.0");
  EXPECT_EQ(ser(Prim("long"), Value::Int(-7)), "-7");
  EXPECT_EQ(ser(Prim("string"), Value::String("")), "<null>");
  EXPECT_EQ(ser(Prim("string"), Value::Null()), "<null>");
  // Each serialized value types back to the written value.
  auto t = ParseSchema(Struct({Field("c", Prim("timestamp"))}));
  auto typed = ParsePartitionValue(t->fields[0].type, std::string("2001-09-09 01:46:40.123456"));
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  auto wrong = SerializePartitionValue(t->fields[0].type, Value::String("x"));
  EXPECT_TRUE(wrong.status().IsInvalidArgument());
}

TEST(StatsWriter, StringTruncationFollowsDelta) {
  const std::string a40(40, 'a');
  EXPECT_EQ(TruncateStatsMin(a40), std::string(32, 'a'));
  EXPECT_EQ(TruncateStatsMax(a40), std::string(32, 'a') + "\x7F");
  EXPECT_EQ(TruncateStatsMin("short"), "short");
  EXPECT_EQ(TruncateStatsMax("short"), "short");
  // Multi-byte characters count as one UTF-16 unit each.
  std::string e40;
  for (int i = 0; i < 40; ++i) e40 += "é";
  std::string e32;
  for (int i = 0; i < 32; ++i) e32 += "é";
  EXPECT_EQ(TruncateStatsMin(e40), e32);
  EXPECT_EQ(TruncateStatsMax(e40), e32 + "\xF4\x8F\xBF\xBF");
  // A supplementary character straddling the limit is kept whole (2 units).
  std::string s = std::string(31, 'x') + "😀" + "yyyy";
  EXPECT_EQ(TruncateStatsMin(s), std::string(31, 'x') + "😀");
  EXPECT_EQ(TruncateStatsMax(s), std::string(31, 'x') + "😀" + "\x7F");
  // U+10FFFF right after the prefix is skipped over (the tie-breaker cannot exceed it).
  std::string m = std::string(32, 'x') + "\xF4\x8F\xBF\xBF" + "z";
  EXPECT_EQ(TruncateStatsMax(m), std::string(32, 'x') + "\xF4\x8F\xBF\xBF" + "\x7F");
  // Nothing but U+10FFFF past the prefix for too long: no bound.
  std::string all_max = std::string(32, 'x');
  for (int i = 0; i < 20; ++i) all_max += "\xF4\x8F\xBF\xBF";
  EXPECT_FALSE(TruncateStatsMax(all_max).has_value());
}

TEST(StatsWriter, TruncatedBoundsHoldInByteOrder) {
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"a", "z", "\x7F", "é", "€", "😀", "\xF4\x8F\xBF\xBF", " "};
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s;
    int len = 20 + static_cast<int>(rng() % 60);
    for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    std::string lo = TruncateStatsMin(s);
    EXPECT_LE(lo, s);
    auto hi = TruncateStatsMax(s);
    if (hi) EXPECT_GE(*hi, s) << s;
  }
}

TEST(StatsWriter, TimestampBoundsInMilliseconds) {
  EXPECT_EQ(FormatStatsTimestamp(1'500, true), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(FormatStatsTimestamp(2'000, true), "1970-01-01T00:00:00.002Z");
  EXPECT_EQ(FormatStatsTimestamp(-1, false), "1969-12-31T23:59:59.999");
  // The type's extremes stay in range (truncation never carries into year 10000).
  EXPECT_EQ(FormatStatsTimestamp(253402300799999999, true), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatStatsTimestamp(-62135596800000000, false), "0001-01-01T00:00:00.000");
  EXPECT_EQ(DecimalText(-123, 5), "-0.00123");
  EXPECT_EQ(DecimalText(123, 0), "123");
}

// ---------------------------------------------------------------- all types

std::string AllTypesSchema() {
  return Struct({
      Field("b", Prim("boolean")), Field("i8", Prim("byte")), Field("i16", Prim("short")),
      Field("i32", Prim("integer")), Field("i64", Prim("long"), false), Field("f32", Prim("float")),
      Field("f64", Prim("double")), Field("d5", Prim("decimal(5,2)")),
      Field("d15", Prim("decimal(15,3)")), Field("d30", Prim("decimal(30,4)")),
      Field("s", Prim("string")), Field("bin", Prim("binary")), Field("dt", Prim("date")),
      Field("ts", Prim("timestamp")), Field("tsn", Prim("timestamp_ntz")),
      Field("st", Struct({Field("x", Prim("integer")), Field("y", Prim("string"))})),
      Field("arr", R"({"type":"array","elementType":"long","containsNull":true})"),
      Field("m", R"({"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true})"),
  });
}

Rows AllTypesRows() {
  __int128 big = 1;
  for (int i = 0; i < 29; ++i) big *= 10;  // 30 digits with the leading 1... (10^29)
  Rows rows;
  rows.push_back({Value::Bool(true), Value::Int(-128), Value::Int(32767), Value::Int(-5),
                  Value::Int(1LL << 40), Value::Double(1.5), Value::Double(-2.25),
                  Value::Decimal(-99999), Value::Decimal(123456789012345LL), Value::Decimal(big),
                  Value::String("héllo"), Value::Bytes(std::string("\x00\xff", 2)), Value::Int(19000),
                  Value::Int(1'700'000'000'123'456), Value::Int(-1'500),
                  Value::Struct({Value::Int(1), Value::String("a")}),
                  Value::List({Value::Int(1), Value::Null(), Value::Int(3)}),
                  Value::Map({{Value::String("k"), Value::Int(1)}, {Value::String("n"), Value::Null()}})});
  rows.push_back({Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Int(-3),
                  Value::Null(), Value::Double(std::nan("")), Value::Null(), Value::Null(),
                  Value::Decimal(-big), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null(), Value::Null(), Value::Null()});
  rows.push_back({Value::Bool(false), Value::Int(127), Value::Int(-32768), Value::Int(7),
                  Value::Int(0), Value::Double(-0.1), Value::Double(10), Value::Decimal(99999),
                  Value::Decimal(-1), Value::Decimal(5), Value::String("abc"), Value::Bytes("x"),
                  Value::Int(-1), Value::Int(0), Value::Int(86'400'000'000),
                  Value::Struct({Value::Null(), Value::String("zz")}), Value::List({}),
                  Value::Map({})});
  return rows;
}

TEST(DataFileWriter, AllTypesRoundTripWithExactStats) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.path() + "/t";
  Metadata m = MakeMetadata(AllTypesSchema());
  auto adds = WriteAll(fs.get(), root, Context(m), AllTypesRows());
  ASSERT_TRUE(adds.ok()) << adds.status().ToString();
  ASSERT_EQ(adds->size(), 1u);
  const AddFile& a = (*adds)[0];
  EXPECT_TRUE(a.path.starts_with("part-00000-")) << a.path;
  EXPECT_TRUE(a.path.ends_with("-c000.zstd.parquet")) << a.path;
  EXPECT_TRUE(a.data_change);
  EXPECT_GT(a.modification_time, 0);
  auto head = fs->Head(root + "/" + a.path);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(static_cast<int64_t>(head->size), a.size);

  // Physical types as Delta writes them.
  auto reader = parquet::FileReader::Open(fs.get(), root + "/" + a.path);
  ASSERT_TRUE(reader.ok());
  const parquet::Schema& s = (*reader)->schema();
  auto leaf = [&](const std::string& dotted) -> const parquet::ColumnDescriptor& {
    for (int i = 0; i < s.num_leaves(); ++i) {
      if (s.leaf(i).dotted_path == dotted) return s.leaf(i);
    }
    ADD_FAILURE() << "no leaf " << dotted;
    return s.leaf(0);
  };
  EXPECT_EQ(leaf("d5").physical_type, parquet::PhysicalType::kInt32);
  EXPECT_EQ(leaf("d15").physical_type, parquet::PhysicalType::kInt64);
  EXPECT_EQ(leaf("d30").physical_type, parquet::PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(leaf("dt").physical_type, parquet::PhysicalType::kInt32);
  EXPECT_TRUE(leaf("ts").element->logical_type.is_adjusted_to_utc);
  EXPECT_FALSE(leaf("tsn").element->logical_type.is_adjusted_to_utc);
  EXPECT_EQ(leaf("i64").element->repetition_type, parquet::Repetition::kRequired);

  // lithify and DuckDB read the same rows.
  std::vector<std::string> mine = ReadLines(fs.get(), root + "/" + a.path);
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_NE(mine[0].find("héllo"), std::string::npos) << mine[0];
  auto duck = DuckDbLines(root + "/" + a.path);
  if (duck) {
    EXPECT_EQ(*duck, mine);
  } else {
    ADD_FAILURE() << "DuckDB oracle (node tests/oracle/duckdb-cat.mjs) unavailable";
  }

  // Stats: exact, by Delta's rules.
  nlohmann::json st = Stats(a);
  EXPECT_EQ(st["numRecords"], 3);
  EXPECT_FALSE(st.contains("tightBounds"));
  const auto& mn = st["minValues"];
  const auto& mx = st["maxValues"];
  const auto& nc = st["nullCount"];
  EXPECT_FALSE(mn.contains("b"));
  EXPECT_FALSE(mn.contains("bin"));
  EXPECT_FALSE(mn.contains("arr"));
  EXPECT_FALSE(mn.contains("m"));
  EXPECT_EQ(mn["i8"], -128);
  EXPECT_EQ(mx["i8"], 127);
  EXPECT_EQ(mn["i64"], -3);
  EXPECT_EQ(mx["i64"], 1LL << 40);
  // f64 holds a NaN: no bounds (an engine ordering NaN last would skip on max 10).
  EXPECT_FALSE(mn.contains("f64"));
  EXPECT_FALSE(mx.contains("f64"));
  EXPECT_DOUBLE_EQ(mn["f32"].get<double>(), static_cast<double>(-0.1f));
  EXPECT_EQ(mn["d5"].dump(), "-999.99");
  EXPECT_EQ(mx["d5"].dump(), "999.99");
  EXPECT_EQ(mx["d15"].dump(), "123456789012.345");
  EXPECT_EQ(mn["dt"], "1969-12-31");
  EXPECT_EQ(mx["dt"], "2022-01-08");
  EXPECT_EQ(mn["ts"], "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(mx["ts"], "2023-11-14T22:13:20.123Z");  // .123456 truncated, as PROTOCOL.md says
  EXPECT_EQ(mn["tsn"], "1969-12-31T23:59:59.998");
  EXPECT_EQ(mx["tsn"], "1970-01-02T00:00:00.000");
  EXPECT_EQ(mn["s"], "abc");
  EXPECT_EQ(mx["s"], "héllo");
  EXPECT_EQ(mn["st"]["x"], 1);
  EXPECT_EQ(mx["st"]["y"], "zz");
  EXPECT_EQ(nc["b"], 1);
  EXPECT_EQ(nc["i64"], 0);
  EXPECT_EQ(nc["f64"], 0);  // NaN is not null
  EXPECT_EQ(nc["st"]["x"], 2);  // null struct and null field
  EXPECT_EQ(nc["st"]["y"], 1);
  EXPECT_EQ(nc["arr"], 1);  // the null array, not the null element nor the empty array
  EXPECT_EQ(nc["m"], 1);
  EXPECT_EQ(nc["bin"], 1);
  // The raw text keeps a 30-digit decimal exact.
  EXPECT_NE(a.stats->find("\"d30\":-10000000000000000000000000.0000"), std::string::npos) << *a.stats;
}

// ---------------------------------------------------------------- partitions

TEST(DataFileWriter, AwkwardPartitionValuesReadBack) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.path() + "/t";
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long")), Field("p", Prim("string")),
                                    Field("d", Prim("date"))}),
                            {"p", "d"});
  const std::vector<std::optional<std::string>> values = {
      "a b", "100%", "x/y", "k=v", "ü€😀", "#1", std::nullopt, ":colon", "", "%25", "__HIVE_"};
  Rows rows;
  for (size_t i = 0; i < values.size(); ++i) {
    rows.push_back({Value::Int(static_cast<int64_t>(i)),
                    values[i] ? Value::String(*values[i]) : Value::Null(),
                    i % 2 ? Value::Null() : Value::Int(100)});
  }
  auto adds = WriteAll(fs.get(), root, Context(m), rows);
  ASSERT_TRUE(adds.ok()) << adds.status().ToString();
  // "" and null (rows 6 and 8, same date) are one partition.
  ASSERT_EQ(adds->size(), values.size() - 1);
  CommitByHand(fs.get(), root, m, *adds);
  auto snap = Snapshot::Load(fs.get(), root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  std::set<std::optional<std::string>> seen;
  for (const table::FileEntry& f : (*snap)->files()) {
    // The decoded path names a real file inside its Hive directory.
    EXPECT_TRUE(fs->Head(root + "/" + f.path).ok()) << f.path;
    auto p = f.partition_values.at("p");
    seen.insert(p);
    auto lines = ReadLines(fs.get(), root + "/" + f.path);
    ASSERT_EQ(lines.size(), p ? 1u : 2u) << f.path;
    for (const std::string& line : lines) {
      const int64_t id = nlohmann::json::parse(line)["id"];
      const auto& want = values[id];
      EXPECT_EQ(p, want && !want->empty() ? want : std::nullopt) << f.path;
      EXPECT_EQ(f.partition_values.at("d"),
                id % 2 ? std::nullopt : std::optional<std::string>("1970-04-11"));
      const std::string expect_dir =
          "p=" + (want && !want->empty() ? EscapePartitionPathValue(*want) : "__HIVE_DEFAULT_PARTITION__") +
          "/d=" + (id % 2 ? "__HIVE_DEFAULT_PARTITION__" : "1970-04-11") + "/";
      EXPECT_TRUE(f.path.starts_with(expect_dir)) << f.path << " vs " << expect_dir;
      // Partition columns are not in the data file and not in the stats.
      EXPECT_EQ(line, fmt::format("{{\"id\":{}}}", id));
    }
    EXPECT_FALSE(f.stats->raw.find("\"p\"") != std::string::npos) << f.stats->raw;
  }
  EXPECT_EQ(seen.size(), values.size() - 1);
}

TEST(DataFileWriter, BoundedOpenFilesEvictsAndKeepsEveryRow) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long")), Field("p", Prim("integer"))}), {"p"});
  DataWriterOptions opts;
  opts.max_open_files = 2;
  auto w = DataFileWriter::Open(fs.get(), "/t", Context(m), opts);
  ASSERT_TRUE(w.ok());
  int64_t id = 0;
  for (int round = 0; round < 3; ++round) {
    Rows rows;
    for (int p = 0; p < 5; ++p) rows.push_back({Value::Int(id++), Value::Int(p)});
    ASSERT_TRUE((*w)->WriteRows(rows).ok());
  }
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok());
  EXPECT_GT(adds->size(), 5u);  // partitions were closed early and reopened
  int64_t total = 0;
  for (const AddFile& a : *adds) total += Stats(a)["numRecords"].get<int64_t>();
  EXPECT_EQ(total, 15);
}

// ---------------------------------------------------------------- stats columns

TEST(DataFileWriter, IndexedColumnLimitCountsLeaves) {
  auto fs = io::NewMemoryFileSystem();
  std::string schema = Struct({Field("p", Prim("integer")), Field("a", Prim("long")),
                               Field("s", Struct({Field("x", Prim("long")), Field("y", Prim("long"))})),
                               Field("arr", R"({"type":"array","elementType":"long","containsNull":true})"),
                               Field("z", Prim("long"))});
  Rows rows = {{Value::Int(1), Value::Int(5), Value::Struct({Value::Int(6), Value::Int(7)}),
                Value::List({Value::Int(1)}), Value::Int(9)}};
  {  // 3 leaves: a, s.x, s.y (partition column p excluded)
    Metadata m = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingNumIndexedCols", "3"}});
    auto adds = WriteAll(fs.get(), "/t1", Context(m), rows);
    ASSERT_TRUE(adds.ok()) << adds.status().ToString();
    auto st = Stats((*adds)[0]);
    EXPECT_EQ(st["minValues"].dump(), R"({"a":5,"s":{"x":6,"y":7}})");
    EXPECT_EQ(st["nullCount"].dump(), R"({"a":0,"s":{"x":0,"y":0}})");
  }
  {  // 4: the array counts as one leaf (null count only)
    Metadata m = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingNumIndexedCols", "4"}});
    auto adds = WriteAll(fs.get(), "/t2", Context(m), rows);
    auto st = Stats((*adds)[0]);
    EXPECT_EQ(st["nullCount"].dump(), R"({"a":0,"arr":0,"s":{"x":0,"y":0}})");
    EXPECT_FALSE(st["maxValues"].contains("z"));
  }
  {  // -1: all; 0: none
    Metadata m = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingNumIndexedCols", "-1"}});
    auto adds = WriteAll(fs.get(), "/t3", Context(m), rows);
    EXPECT_EQ(Stats((*adds)[0])["maxValues"]["z"], 9);
    Metadata m0 = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingNumIndexedCols", "0"}});
    auto adds0 = WriteAll(fs.get(), "/t4", Context(m0), rows);
    EXPECT_EQ(*(*adds0)[0].stats, R"({"numRecords":1})");
  }
  {  // an explicit column list wins over the count, in schema order
    Metadata m = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingNumIndexedCols", "1"},
                                              {"delta.dataSkippingStatsColumns", "z, s.y"}});
    auto adds = WriteAll(fs.get(), "/t5", Context(m), rows);
    ASSERT_TRUE(adds.ok()) << adds.status().ToString();
    EXPECT_EQ(Stats((*adds)[0])["maxValues"].dump(), R"({"s":{"y":7},"z":9})");
    // A struct stands for all its leaves; names match case-insensitively, backquotes quote.
    Metadata st = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingStatsColumns", "`S`,arr"}});
    auto adds_st = WriteAll(fs.get(), "/t7", Context(st), rows);
    ASSERT_TRUE(adds_st.ok()) << adds_st.status().ToString();
    EXPECT_EQ(Stats((*adds_st)[0])["nullCount"].dump(), R"({"arr":0,"s":{"x":0,"y":0}})");
    Metadata bad = MakeMetadata(schema, {"p"}, {{"delta.dataSkippingStatsColumns", "nope"}});
    auto w = DataFileWriter::Open(fs.get(), "/t6", Context(bad));
    EXPECT_TRUE(w.status().IsInvalidArgument());
    EXPECT_NE(w.status().message().find("nope"), std::string::npos);
  }
}

TEST(DataFileWriter, LongStringsTruncatedInStats) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("s", Prim("string"))}));
  std::string lo = std::string(40, 'b');
  std::string hi;
  for (int i = 0; i < 40; ++i) hi += "ж";
  auto adds = WriteAll(fs.get(), "/t", Context(m), {{Value::String(hi)}, {Value::String(lo)}});
  ASSERT_TRUE(adds.ok());
  auto st = Stats((*adds)[0]);
  EXPECT_EQ(st["minValues"]["s"], std::string(32, 'b'));
  std::string hi32;
  for (int i = 0; i < 32; ++i) hi32 += "ж";
  EXPECT_EQ(st["maxValues"]["s"], hi32 + "\xF4\x8F\xBF\xBF");
}

// ---------------------------------------------------------------- rolling

TEST(DataFileWriter, RollsBySizeAndRows) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long")), Field("s", Prim("string"))}));
  Rows rows;
  for (int i = 0; i < 2000; ++i) {
    rows.push_back({Value::Int(i), Value::String(fmt::format("{:0>60}", i * 7919))});
  }
  DataWriterOptions opts;
  opts.target_file_size_bytes = 4096;
  opts.parquet.row_group_size_bytes = 2048;
  opts.parquet.enable_dictionary = false;
  auto w = DataFileWriter::Open(fs.get(), "/t", Context(m), opts);
  ASSERT_TRUE(w.ok());
  for (size_t i = 0; i < rows.size(); i += 50) {
    Rows part(rows.begin() + i, rows.begin() + i + 50);
    ASSERT_TRUE((*w)->WriteRows(part).ok());
  }
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok());
  EXPECT_GT(adds->size(), 5u);
  int64_t total = 0, expect_min = 0;
  for (const AddFile& a : *adds) {
    auto st = Stats(a);
    total += st["numRecords"].get<int64_t>();
    EXPECT_EQ(st["minValues"]["id"], expect_min);  // files hold consecutive ranges
    expect_min = st["maxValues"]["id"].get<int64_t>() + 1;
    EXPECT_LT(a.size, 4096 + 8192) << "a file overshoots its target by more than a batch";
  }
  EXPECT_EQ(total, 2000);

  DataWriterOptions by_rows;
  by_rows.max_rows_per_file = 300;
  auto adds2 = WriteAll(fs.get(), "/t2", Context(m), rows, by_rows);
  ASSERT_TRUE(adds2.ok());
  ASSERT_EQ(adds2->size(), 7u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(Stats((*adds2)[i])["numRecords"], 300);
  EXPECT_EQ(Stats((*adds2)[6])["numRecords"], 200);
}

// ---------------------------------------------------------------- column mapping

TEST(DataFileWriter, ColumnMappingPhysicalNamesAndFieldIds) {
  for (std::string mode : {"name", "id"}) {
    auto fs = io::NewMemoryFileSystem();
    auto meta = [](int id, const std::string& phys) {
      return fmt::format(R"({{"delta.columnMapping.id":{},"delta.columnMapping.physicalName":"{}"}})",
                         id, phys);
    };
    std::string schema = Struct({
        Field("Id", Prim("long"), true, meta(1, "col-id")),
        Field("part", Prim("string"), true, meta(2, "col-part")),
        Field("nested", Struct({Field("inner", Prim("integer"), true, meta(4, "col-inner"))}), true,
              meta(3, "col-nested")),
    });
    Metadata m = MakeMetadata(schema, {"part"},
                              {{"delta.columnMapping.mode", mode},
                               {"delta.columnMapping.maxColumnId", "4"}});
    auto adds = WriteAll(fs.get(), "/t", Context(m),
                         {{Value::Int(7), Value::String("p1"), Value::Struct({Value::Int(3)})}});
    ASSERT_TRUE(adds.ok()) << adds.status().ToString();
    const AddFile& a = (*adds)[0];
    EXPECT_TRUE(a.path.starts_with("col-part=p1/")) << a.path;
    EXPECT_EQ(a.partition_values.at("col-part"), "p1");
    EXPECT_EQ(Stats(a)["maxValues"].dump(), R"({"col-id":7,"col-nested":{"col-inner":3}})");
    auto r = parquet::FileReader::Open(fs.get(), "/t/" + a.path);
    ASSERT_TRUE(r.ok());
    const auto& s = (*r)->schema();
    ASSERT_EQ(s.num_leaves(), 2);
    EXPECT_EQ(s.leaf(0).dotted_path, "col-id");
    EXPECT_EQ(s.leaf(0).element->field_id, 1);
    EXPECT_EQ(s.leaf(1).dotted_path, "col-nested.col-inner");
    EXPECT_EQ(s.leaf(1).element->field_id, 4);
    auto nested = s.FindNode("col-nested");
    ASSERT_TRUE(nested.ok());
    EXPECT_EQ(s.node(*nested).element.field_id, 3);
    // The table reads back through the snapshot with logical names.
    Protocol p;
    CommitByHand(fs.get(), "/t", m, *adds);
    auto snap = Snapshot::Load(fs.get(), "/t");
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ((*snap)->files().size(), 1u);
  }
}

// ---------------------------------------------------------------- errors and batches

TEST(DataFileWriter, BadRowRefusedAndNothingOfTheCallWritten) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long"), false), Field("s", Prim("string"))}));
  auto w = DataFileWriter::Open(fs.get(), "/t", Context(m));
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->WriteRows({{Value::Int(1), Value::String("a")}}).ok());
  Status st = (*w)->WriteRows({{Value::Int(2), Value::String("b")}, {Value::Null(), Value::String("c")}});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("row 3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("id"), std::string::npos) << st.message();
  st = (*w)->WriteRows({{Value::Int(2)}});
  EXPECT_NE(st.message().find("has 1 values"), std::string::npos) << st.message();
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok());
  ASSERT_EQ(adds->size(), 1u);
  EXPECT_EQ(Stats((*adds)[0])["numRecords"], 1);
}

TEST(DataFileWriter, AbortLeavesNoOpenFileBehind) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long"))}));
  {
    auto w = DataFileWriter::Open(fs.get(), "/t", Context(m));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->WriteRows({{Value::Int(1)}}).ok());
    (*w)->Abort();
  }
  auto list = fs->ListRecursive("/t");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
}

TEST(DataFileWriter, WriteBatchCopiesColumnsIntoPartition) {
  auto fs = io::NewMemoryFileSystem();
  Metadata m = MakeMetadata(Struct({Field("id", Prim("long")), Field("p", Prim("string"))}), {"p"});
  DataWriterOptions opts;
  opts.max_rows_per_file = 2;  // forces a batch split
  auto w = DataFileWriter::Open(fs.get(), "/t", Context(m), opts);
  ASSERT_TRUE(w.ok());
  parquet::RowBatchBuilder b((*w)->file_schema());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(b.Append({Value::Int(i * 10)}).ok());
  parquet::RowBatch batch = b.Finish();
  ASSERT_TRUE((*w)->WriteBatch({{"p", std::string("x y")}}, batch).ok());
  EXPECT_TRUE((*w)->WriteBatch({{"q", std::string("x")}}, batch).IsInvalidArgument());
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok());
  ASSERT_EQ(adds->size(), 2u);
  EXPECT_TRUE((*adds)[0].path.starts_with("p=x%20y/")) << (*adds)[0].path;
  EXPECT_EQ(Stats((*adds)[0])["maxValues"]["id"], 10);
  EXPECT_EQ(Stats((*adds)[1])["minValues"]["id"], 20);
  auto decoded = DecodeActionPath((*adds)[1].path);
  EXPECT_EQ(ReadLines(fs.get(), "/t/" + *decoded), std::vector<std::string>{R"({"id":20})"});
}

}  // namespace
}  // namespace lithify::delta
