// StatsJsonFromFooter (delta/stats_writer.h): the Delta statistics of a data file taken
// from its Parquet footer must be the very text StatsCollector gives on the file's rows
// (DataFileWriter computes AddFile.stats that way), and must be refused wherever the
// footer cannot give that answer.
#include "lithify/delta/test_util.h"
#include "lithify/base/temp_dir.h"
#include "lithify/delta/stats_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/delta/data_writer.h"
#include "lithify/parquet/file_reader.h"

namespace lithify::delta {
namespace {

using parquet::Value;
using Rows = std::vector<std::vector<Value>>;

using testing::Field;
using testing::Prim;
using testing::Struct;

WriteContext ContextOf(const std::string& schema, std::map<std::string, std::string> conf = {}) {
  Metadata m;
  m.id = "11111111-2222-4333-8444-555555555555";
  m.schema_string = schema;
  m.configuration = std::move(conf);
  auto c = WriteContext::FromMetadata(m);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : WriteContext{};
}

// Every statistics-eligible type, nested struct leaves, booleans/binary (nullCount
// only) and a column that is always null.
std::string EveryTypeSchema() {
  return Struct({
      Field("b", Prim("boolean")), Field("i8", Prim("byte")), Field("i16", Prim("short")),
      Field("i32", Prim("integer")), Field("i64", Prim("long"), false), Field("f32", Prim("float")),
      Field("f64", Prim("double")), Field("zero", Prim("double")), Field("d5", Prim("decimal(5,2)")),
      Field("d15", Prim("decimal(15,3)")), Field("d30", Prim("decimal(30,4)")), Field("s", Prim("string")),
      Field("bin", Prim("binary")), Field("dt", Prim("date")), Field("ts", Prim("timestamp")),
      Field("tsn", Prim("timestamp_ntz")), Field("never", Prim("string")),
      Field("st", Struct({Field("x", Prim("integer")),
                          Field("in", Struct({Field("y", Prim("string")), Field("z", Prim("double"))}))})),
  });
}

// A string of `n` characters drawn from ASCII, 2-, 3- and 4-byte UTF-8 (and DEL).
std::string RandomText(std::mt19937_64& rng, int n) {
  static const std::vector<std::string> chars = {"a", "z", "M", "0", "~", "\x7f", "é", "ß", "€", "中", "😀", "𝄞"};
  std::string s;
  for (int i = 0; i < n; ++i) s += chars[rng() % chars.size()];
  return s;
}

Rows EveryTypeRows(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  auto maybe = [&](Value v) { return rng() % 6 == 0 ? Value::Null() : v; };
  auto i64 = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  auto dbl = [&]() -> double {
    switch (rng() % 8) {
      case 0: return std::nan("");
      case 1: return -0.0;
      case 2: return 0.0;
      default: return static_cast<double>(i64(-1000000, 1000000)) / 1024.0;
    }
  };
  __int128 big = 1;
  for (int i = 0; i < 28; ++i) big *= 10;
  Rows rows;
  for (int r = 0; r < n; ++r) {
    const double z = rng() % 2 ? -0.0 : 0.0;
    rows.push_back({
        maybe(Value::Bool(rng() % 2 == 0)), maybe(Value::Int(i64(-128, 127))), maybe(Value::Int(i64(-32768, 32767))),
        maybe(Value::Int(i64(INT32_MIN, INT32_MAX))), Value::Int(i64(-(1LL << 50), 1LL << 50)),
        maybe(Value::Double(static_cast<float>(dbl()))), maybe(Value::Double(dbl())), maybe(Value::Double(z)),
        maybe(Value::Decimal(i64(-99999, 99999))), maybe(Value::Decimal(i64(-999999999999999LL, 999999999999999LL))),
        maybe(Value::Decimal(big * i64(-99, 99) + i64(-1000000, 1000000))),
        maybe(Value::String(RandomText(rng, static_cast<int>(i64(0, 70))))),
        maybe(Value::Bytes(RandomText(rng, 3))), maybe(Value::Int(i64(-800000, 800000))),
        // Microseconds with sub-millisecond digits on both sides of the epoch.
        maybe(Value::Int(i64(-2'000'000'000'000'000LL, 2'000'000'000'000'000LL))),
        maybe(Value::Int(i64(-5'000'000, 5'000'000))), Value::Null(),
        maybe(Value::Struct({maybe(Value::Int(i64(-5, 5))),
                             maybe(Value::Struct({maybe(Value::String(RandomText(rng, 40))),
                                                  maybe(Value::Double(dbl()))}))})),
    });
  }
  return rows;
}

struct Written {
  AddFile add;                    // stats computed by StatsCollector on the rows
  parquet::FileMetaData footer;   // of the written file
  std::shared_ptr<const StatsPlan> plan;
};

// Writes `chunks` into one data file of many row groups (a 1-byte row-group target:
// the writer cuts a row group at least per call, in practice per row).
Written WriteChunks(io::FileSystem* fs, const std::string& root, const WriteContext& ctx,
                    const std::vector<Rows>& chunks, int64_t rg_bytes = 1) {
  Written out;
  DataWriterOptions opts;
  opts.parquet.row_group_size_bytes = rg_bytes;
  auto w = DataFileWriter::Open(fs, root, ctx, opts);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return out;
  auto plan = StatsPlan::Make(ctx.schema, ctx.partition_columns, ctx.column_mapping_mode, ctx.configuration,
                              (*w)->file_schema());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (plan.ok()) out.plan = *plan;
  for (const Rows& c : chunks) EXPECT_TRUE((*w)->WriteRows(c).ok());
  auto adds = (*w)->Finish();
  EXPECT_TRUE(adds.ok() && adds->size() == 1u);
  if (!adds.ok() || adds->size() != 1u) return out;
  out.add = (*adds)[0];
  auto rel = DecodeActionPath(out.add.path);
  EXPECT_TRUE(rel.ok());
  auto reader = parquet::FileReader::Open(fs, io::JoinPath(root, rel.ok() ? *rel : ""));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (reader.ok()) out.footer = (*reader)->metadata();
  return out;
}

std::optional<std::string> FromFooter(const Written& w) {
  auto r = StatsJsonFromFooter(w.plan, w.footer);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::nullopt;
}

TEST(StatsJsonFromFooter, EqualsTheCollectorOnEveryEligibleType) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const WriteContext ctx = ContextOf(EveryTypeSchema());
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    // Many row groups, so bounds are merged across them.
    std::vector<Rows> chunks;
    for (int c = 0; c < 4; ++c) chunks.push_back(EveryTypeRows(seed * 100 + c, 5 + 20 * c));
    Written w = WriteChunks(fs.get(), dir.path() + "/t" + std::to_string(seed), ctx, chunks, 8192);
    ASSERT_TRUE(w.plan && w.add.stats);
    ASSERT_GE(w.footer.row_groups.size(), 4u);
    std::optional<std::string> json = FromFooter(w);
    ASSERT_TRUE(json.has_value()) << "seed " << seed;
    EXPECT_EQ(*json, *w.add.stats) << "seed " << seed;
  }
}

TEST(StatsJsonFromFooter, ZeroBoundsDoNotDependOnRowOrder) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const WriteContext ctx = ContextOf(Struct({Field("f", Prim("float")), Field("d", Prim("double"))}));
  // -0.0 first in one file, +0.0 first in the other: the same text, from rows and footer.
  Written neg = WriteChunks(fs.get(), dir.path() + "/a", ctx,
                            {{{Value::Double(-0.0), Value::Double(-0.0)}, {Value::Double(0.0), Value::Double(0.0)}}});
  Written pos = WriteChunks(fs.get(), dir.path() + "/b", ctx,
                            {{{Value::Double(0.0), Value::Double(0.0)}, {Value::Double(-0.0), Value::Double(-0.0)}}});
  ASSERT_TRUE(neg.add.stats && pos.add.stats);
  EXPECT_EQ(*neg.add.stats, *pos.add.stats);
  EXPECT_EQ(*neg.add.stats,
            R"({"numRecords":2,"minValues":{"f":0,"d":0},"maxValues":{"f":0,"d":0},"nullCount":{"f":0,"d":0}})");
  EXPECT_EQ(FromFooter(neg), neg.add.stats);
  EXPECT_EQ(FromFooter(pos), pos.add.stats);
}

TEST(StatsJsonFromFooter, ArraysAmongTheStatsColumnsAreRefused) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string schema =
      Struct({Field("id", Prim("long")), Field("arr", R"({"type":"array","elementType":"long","containsNull":true})")});
  const Rows rows = {{Value::Int(1), Value::List({Value::Int(1), Value::Null()})},
                     {Value::Int(2), Value::Null()}};
  // nullCount of an array counts null arrays, not null elements: the footer cannot say.
  Written all = WriteChunks(fs.get(), dir.path() + "/a", ContextOf(schema), {rows});
  EXPECT_EQ(FromFooter(all), std::nullopt);
  // With only `id` indexed, the footer is exact again.
  Written first = WriteChunks(fs.get(), dir.path() + "/b",
                              ContextOf(schema, {{"delta.dataSkippingNumIndexedCols", "1"}}), {rows});
  ASSERT_TRUE(first.add.stats);
  EXPECT_EQ(FromFooter(first), first.add.stats);
}

TEST(StatsJsonFromFooter, FootersWithoutExactAnswersAreRefused) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const WriteContext ctx = ContextOf(Struct({Field("s", Prim("string")), Field("d", Prim("double"))}));
  Written w = WriteChunks(fs.get(), dir.path() + "/a", ctx,
                          {{{Value::String("b"), Value::Double(1)}}, {{Value::String("a"), Value::Double(2)}}});
  ASSERT_TRUE(w.add.stats);
  ASSERT_EQ(FromFooter(w), w.add.stats);
  auto refused = [&](auto mutate) {
    Written m = w;
    mutate(m.footer);
    return FromFooter(m) == std::nullopt;
  };
  auto stats = [](parquet::FileMetaData& f, int rg, int col) -> parquet::Statistics& {
    return *f.row_groups[rg].columns[col].meta_data->statistics;
  };
  EXPECT_TRUE(refused([](parquet::FileMetaData& f) { f.row_groups[1].columns[0].meta_data->statistics.reset(); }));
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) { stats(f, 0, 1).null_count.reset(); }));
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) { stats(f, 0, 0).is_max_value_exact = false; }));
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) { stats(f, 1, 0).is_min_value_exact.reset(); }));
  // Only the deprecated min/max: never trusted.
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) {
    stats(f, 1, 1).min = stats(f, 1, 1).min_value;
    stats(f, 1, 1).min_value.reset();
  }));
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    stats(f, 0, 1).max_value = std::string(reinterpret_cast<const char*>(&nan), sizeof nan);
  }));
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) { stats(f, 0, 1).min_value = std::string(4, '\0'); }));

  // A double chunk without nan_count (another writer's): NaN may hide behind min/max.
  EXPECT_TRUE(refused([&](parquet::FileMetaData& f) { stats(f, 1, 1).nan_count.reset(); }));

  // A double column of only NaNs has no min_value; its nan_count says why: no bounds.
  Written nans = WriteChunks(fs.get(), dir.path() + "/b", ctx,
                             {{{Value::String("x"), Value::Double(std::nan(""))}}});
  ASSERT_TRUE(nans.add.stats);
  EXPECT_FALSE(nlohmann::json::parse(*nans.add.stats)["minValues"].contains("d")) << *nans.add.stats;
  EXPECT_EQ(FromFooter(nans), nans.add.stats);
}

// A NaN in any row group of a float/double column takes the column's min/max away (and
// only that column's), from the rows and from the footer alike.
TEST(StatsJsonFromFooter, NaNDropsTheColumnsBounds) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const WriteContext ctx = ContextOf(Struct({Field("f", Prim("float")), Field("d", Prim("double")),
                                             Field("n", Prim("long"))}));
  const double nan = std::nan("");
  Written w = WriteChunks(fs.get(), dir.path() + "/a", ctx,
                          {{{Value::Double(1.5), Value::Double(-2), Value::Int(3)}},
                           {{Value::Double(nan), Value::Double(7), Value::Int(-1)}},
                           {{Value::Null(), Value::Double(0.5), Value::Null()}}});
  ASSERT_TRUE(w.add.stats);
  EXPECT_EQ(*w.add.stats,
            R"({"numRecords":3,"minValues":{"d":-2,"n":-1},"maxValues":{"d":7,"n":3},)"
            R"("nullCount":{"f":1,"d":0,"n":1}})");
  ASSERT_GE(w.footer.row_groups.size(), 3u);
  EXPECT_EQ(FromFooter(w), w.add.stats);
}

TEST(StatsJsonFromFooter, AllNullColumnsAndNoRowGroups) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const WriteContext ctx = ContextOf(Struct({Field("s", Prim("string")), Field("n", Prim("long"))}));
  Written w = WriteChunks(fs.get(), dir.path() + "/a", ctx, {{{Value::Null(), Value::Null()}}, {{Value::Null(), Value::Null()}}});
  ASSERT_TRUE(w.add.stats);
  EXPECT_EQ(*w.add.stats, R"({"numRecords":2,"nullCount":{"s":2,"n":2}})");
  EXPECT_EQ(FromFooter(w), w.add.stats);
  parquet::FileMetaData empty = w.footer;
  empty.row_groups.clear();
  auto r = StatsJsonFromFooter(w.plan, empty);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::optional<std::string>(R"({"numRecords":0,"nullCount":{"s":0,"n":0}})"));
}

}  // namespace
}  // namespace lithify::delta
