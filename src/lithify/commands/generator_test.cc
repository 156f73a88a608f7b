// Tests for the synthetic data generator (generator.h).
#include "lithify/commands/generator.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lithify/base/allocator.h"
#include "lithify/commands/ingest_test_util.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::commands {
namespace {

using namespace ingest_test;  // NOLINT: the shared helpers of the ingest tests

// ---------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------

delta::StructType DemoSchema() {
  return Schema({F("event_time", P("timestamp")), F("event_date", P("date")), F("customer_id", P("long")),
                 F("amount", P("decimal(12,2)")), F("category", P("string")), F("country", P("string")),
                 F("note", P("string"))});
}

Result<Rows> Generate(const delta::StructType& schema, const GeneratorOptions& o, size_t batch = 8192) {
  Rows rows;
  Status st = GenerateRows(schema, o,
                           [&](Rows&& b) {
                             EXPECT_LE(b.size(), batch);
                             for (auto& r : b) rows.push_back(std::move(r));
                             return Status::OK();
                           },
                           batch);
  if (!st.ok()) return st;
  return rows;
}

TEST(GeneratorTest, DemoSchemaDdl) {
  EXPECT_EQ(DemoSchemaDdl(),
            "event_time timestamp, event_date date, customer_id long, amount decimal(12,2), category string, "
            "country string, note string");
}

TEST(GeneratorTest, DeterministicForSeedAndIndependentOfBatching) {
  GeneratorOptions o;
  o.rows = 2000;
  o.seed = 42;
  auto a = Generate(DemoSchema(), o, 8192);
  auto b = Generate(DemoSchema(), o, 7);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 2000u);
  EXPECT_EQ(Show(*a), Show(*b));
  o.seed = 43;
  auto c = Generate(DemoSchema(), o);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(Show(*a), Show(*c));
}

TEST(GeneratorTest, DemoDistributions) {
  GeneratorOptions o;
  o.rows = 100000;
  o.num_customers = 10000;
  auto rows = Generate(DemoSchema(), o);
  ASSERT_TRUE(rows.ok());
  const int64_t start = o.start_time_ms * 1000, end = (o.start_time_ms + o.time_span_ms) * 1000;
  std::map<int64_t, int64_t> per_customer;
  int64_t decreases = 0, notes_null = 0, prev = start;
  std::map<std::string, int64_t> categories;
  for (const auto& r : *rows) {
    ASSERT_EQ(r.size(), 7u);
    const int64_t ts = r[0].int_value();
    ASSERT_GE(ts, start);
    ASSERT_LT(ts, end);
    if (ts < prev) ++decreases;
    prev = ts;
    EXPECT_EQ(r[1].int_value(), FloorDiv(ts, kMicrosPerDay));
    const int64_t id = r[2].int_value();
    ASSERT_GE(id, 1);
    ASSERT_LE(id, o.num_customers);
    ++per_customer[id];
    ASSERT_EQ(r[3].kind(), Value::Kind::kDecimal);
    EXPECT_GT(r[3].decimal(), 0);
    EXPECT_LT(r[3].decimal(), static_cast<__int128>(1000000000000LL));
    ASSERT_EQ(r[4].kind(), Value::Kind::kBytes);
    ++categories[r[4].bytes()];
    ASSERT_EQ(r[5].kind(), Value::Kind::kBytes);
    EXPECT_EQ(r[5].bytes().size(), 2u);
    if (r[6].is_null()) {
      ++notes_null;
    } else {
      EXPECT_LE(r[6].bytes().size(), 200u);
    }
  }
  // Non-decreasing-ish: jitter reorders neighbours only.
  EXPECT_LT(decreases, o.rows / 2);
  EXPECT_GT((*rows).back()[0].int_value() - (*rows).front()[0].int_value(), (end - start) * 9 / 10);
  // Zipf skew: the top 1% of customers hold a large share of rows.
  std::vector<int64_t> counts;
  for (auto& [id, n] : per_customer) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  int64_t top = 0;
  for (int64_t i = 0; i < o.num_customers / 100 && i < static_cast<int64_t>(counts.size()); ++i) top += counts[i];
  EXPECT_GT(top, o.rows * 30 / 100) << "top 1% share " << top;
  // The most frequent customer is not simply id 1 (ranks are permuted).
  EXPECT_LT(per_customer[1], counts[0]);
  EXPECT_GT(notes_null, o.rows / 20);
  EXPECT_LT(notes_null, o.rows / 2);
  EXPECT_GE(categories.size(), 5u);
  EXPECT_LE(categories.size(), 12u);
  EXPECT_GT(categories["electronics"], categories["office"]);
}

// *hash* / *md5* / *sha* strings are 32 hex digits, (practically) all distinct: the
// high-entropy strings of the OPTIMIZE benchmark's mix.
TEST(GeneratorTest, HashColumnsAreDistinctHexDigests) {
  GeneratorOptions o;
  o.rows = 20000;
  auto rows = Generate(Schema({F("row_hash", P("string")), F("md5", P("string")), F("word", P("string"))}), o);
  ASSERT_TRUE(rows.ok());
  std::set<std::string> distinct;
  for (const auto& r : *rows) {
    for (int c = 0; c < 2; ++c) {
      ASSERT_EQ(r[c].kind(), Value::Kind::kBytes);
      const std::string& h = r[c].bytes();
      ASSERT_EQ(h.size(), 32u) << h;
      EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
      distinct.insert(h);
    }
  }
  EXPECT_EQ(distinct.size(), 2 * rows->size());
  // Other strings keep their words.
  EXPECT_NE((*rows)[0][2].bytes().size(), 32u);
}

TEST(GeneratorTest, EveryTypeNestedAndNullsOnlyWhereNullable) {
  auto schema = Schema({F("b", P("boolean"), false), F("y", P("byte")), F("sh", P("short"), false),
                        F("i", P("integer")), F("l", P("long"), false), F("f", P("float")), F("d", P("double")),
                        F("dec", P("decimal(38,10)"), false), F("s", P("string"), false), F("bin", P("binary")),
                        F("dt", P("date"), false), F("ntz", P("timestamp_ntz"), false),
                        F("st", StructT({F("a", P("integer"), false), F("b", ArrayT(P("string"), false))}), false),
                        F("m", MapT(P("string"), P("long"), false)), F("mb", MapT(P("boolean"), P("long"))),
                        F("item_id", P("short"), false)});
  GeneratorOptions o;
  o.rows = 3000;
  o.num_customers = 100000;  // above short's range: ids stay in range
  auto rows = Generate(schema, o);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  int64_t nulls = 0;
  for (const auto& r : *rows) {
    for (size_t c = 0; c < r.size(); ++c) {
      if (r[c].is_null()) {
        EXPECT_TRUE(schema.fields[c].nullable) << schema.fields[c].name;
        ++nulls;
      }
    }
    EXPECT_GE(r[2].int_value(), -32768);
    EXPECT_LE(r[2].int_value(), 32767);
    ASSERT_EQ(r[12].kind(), Value::Kind::kStruct);
    EXPECT_FALSE(r[12].items()[0].is_null());
    if (!r[12].items()[1].is_null()) {
      ASSERT_EQ(r[12].items()[1].kind(), Value::Kind::kList);
      for (const Value& e : r[12].items()[1].items()) EXPECT_FALSE(e.is_null());
    }
    if (!r[13].is_null()) {
      std::set<std::string> keys;
      for (size_t k = 0; k < r[13].map_size(); ++k) {
        EXPECT_FALSE(r[13].map_value(k).is_null());
        keys.insert(r[13].map_key(k).bytes());
      }
      EXPECT_EQ(keys.size(), r[13].map_size());
    }
    if (!r[14].is_null()) {
      EXPECT_LE(r[14].map_size(), 2u);
    }
    EXPECT_GE(r[15].int_value(), 1);
    EXPECT_LE(r[15].int_value(), 32767);
  }
  EXPECT_GT(nulls, 0);
  // Every generated row is accepted by the Parquet row builder for the matching schema.
  using parquet::FieldSpec;
  auto pq = parquet::BuildSchema(
      {FieldSpec::Boolean("b", false), FieldSpec::Byte("y"), FieldSpec::Short("sh", false), FieldSpec::Int("i"),
       FieldSpec::Long("l", false), FieldSpec::Float("f"), FieldSpec::Double("d"),
       FieldSpec::Decimal("dec", 38, 10, false), FieldSpec::String("s", false), FieldSpec::Binary("bin"),
       FieldSpec::Date("dt", false), FieldSpec::TimestampNtz("ntz", false),
       FieldSpec::Struct("st", {FieldSpec::Int("a", false), FieldSpec::List("b", FieldSpec::String("e", false))},
                         false),
       FieldSpec::Map("m", FieldSpec::String("k"), FieldSpec::Long("v", false)),
       FieldSpec::Map("mb", FieldSpec::Boolean("k"), FieldSpec::Long("v")), FieldSpec::Short("item_id", false)});
  ASSERT_TRUE(pq.ok()) << pq.status().ToString();
  parquet::RowBatchBuilder builder(*pq);
  for (const auto& r : *rows) ASSERT_TRUE(builder.Append(r).ok()) << Show(r);
}

TEST(GeneratorTest, InvalidOptionsAndSinkErrors) {
  GeneratorOptions o;
  o.rows = -1;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.num_customers = 0;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.customer_skew = 0;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.rows = 10;
  auto v = Generate(Schema({F("v", P("void"), false)}), o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "column 'v': cannot generate values of type void (NOT NULL)");
  Status st = GenerateRows(DemoSchema(), o, [](Rows&&) { return Status::Cancelled("enough"); });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  o.rows = 0;
  auto none = Generate(DemoSchema(), o);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  // Skew 1 (the log form of rejection-inversion) and a single customer work.
  o.rows = 100;
  o.customer_skew = 1.0;
  o.num_customers = 1;
  auto one = Generate(DemoSchema(), o);
  ASSERT_TRUE(one.ok());
  for (const auto& r : *one) EXPECT_EQ(r[2].int_value(), 1);
}

// Reports throughput (no assertion on time). LITHIFY_GEN_BENCH_ROWS overrides the count.
TEST(GeneratorTest, ThroughputReport) {
  TuneAllocatorForStreaming();  // as the CLI does
  GeneratorOptions o;
  o.rows = 200000;
  if (const char* env = std::getenv("LITHIFY_GEN_BENCH_ROWS")) o.rows = std::atoll(env);
  int64_t seen = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  Status st = GenerateRows(DemoSchema(), o, [&](Rows&& b) {
    seen += static_cast<int64_t>(b.size());
    return Status::OK();
  });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(seen, o.rows);
  // CPU time is the fairer figure on a shared machine.
  std::printf("generator: %lld demo rows in %.3f s wall, %.3f s CPU = %.2f M rows per CPU-second\n",
              static_cast<long long>(seen), secs, cpu, static_cast<double>(seen) / cpu / 1e6);
}

}  // namespace
}  // namespace lithify::commands
