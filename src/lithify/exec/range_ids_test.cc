// Tests of exec range ids (Spark RangePartitioner semantics), the order-preserving value
// encoding, and CurveKeyer keys.
#include "lithify/exec/range_ids.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::exec {
namespace {

using parquet::FieldSpec;
using parquet::Value;

std::string Enc(const parquet::ColumnValues& v, int64_t i) {
  std::string s;
  AppendSortableValue(v, i, &s);
  return s;
}

parquet::ColumnValues Doubles(const std::vector<double>& d) {
  parquet::ColumnValues v;
  v.type = parquet::PhysicalType::kDouble;
  v.count = static_cast<int64_t>(d.size());
  v.fixed.Resize(d.size() * 8);
  std::memcpy(v.fixed.data(), d.data(), d.size() * 8);
  return v;
}

TEST(RangeIdsTest, EncodingFollowsSparkOrdering) {
  const double inf = std::numeric_limits<double>::infinity();
  parquet::ColumnValues d = Doubles({-inf, -1.5, -0.0, 0.0, 2.0, inf, std::nan("")});
  EXPECT_LT(Enc(d, 0), Enc(d, 1));
  EXPECT_LT(Enc(d, 1), Enc(d, 2));
  EXPECT_EQ(Enc(d, 2), Enc(d, 3)) << "-0.0 == 0.0";
  EXPECT_LT(Enc(d, 3), Enc(d, 4));
  EXPECT_LT(Enc(d, 4), Enc(d, 5));
  EXPECT_LT(Enc(d, 5), Enc(d, 6)) << "NaN above +inf";

  parquet::ColumnValues l;
  l.type = parquet::PhysicalType::kInt64;
  std::vector<int64_t> ints = {std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()};
  l.count = 5;
  l.fixed.Resize(40);
  std::memcpy(l.fixed.data(), ints.data(), 40);
  for (int i = 1; i < 5; ++i) EXPECT_LT(Enc(l, i - 1), Enc(l, i));

  parquet::ColumnValues s;
  s.type = parquet::PhysicalType::kByteArray;
  s.count = 3;
  s.offsets = {0, 1, 3, 4};
  std::string data = "aab\xff";
  s.data.Resize(data.size());
  std::memcpy(s.data.data(), data.data(), data.size());
  EXPECT_LT(Enc(s, 0), Enc(s, 1));  // "a" < "ab"
  EXPECT_LT(Enc(s, 1), Enc(s, 2));  // "ab" < "\xff": unsigned bytes
}

TEST(RangeIdsTest, BoundsAreSparkRangePartitionerBounds) {
  std::vector<std::string> sample;
  for (int i = 0; i < 10000; ++i) sample.push_back(std::string(1, static_cast<char>(i % 100)) + "x");
  // 100 distinct values, 1000 ids wanted: each distinct value becomes one bound (strictly
  // increasing), so the largest value gets id 99.
  RangeBounds few = RangeBounds::FromSample(sample, 1000);
  EXPECT_EQ(few.bounds().size(), 100u);
  for (size_t i = 1; i < few.bounds().size(); ++i) EXPECT_LT(few.bounds()[i - 1], few.bounds()[i]);

  parquet::ColumnValues l;
  l.type = parquet::PhysicalType::kInt64;
  l.count = 100000;
  l.fixed.Resize(800000);
  std::vector<std::string> enc;
  for (int64_t i = 0; i < 100000; ++i) {
    std::memcpy(l.fixed.data() + i * 8, &i, 8);
    enc.push_back(Enc(l, i));
  }
  RangeBounds b = RangeBounds::FromSample(enc, 1000);
  ASSERT_EQ(b.bounds().size(), 999u);
  // step 100: bounds at the 100th, 200th, ... value (99, 199, ...); id = #bounds < v.
  EXPECT_EQ(b.Id(Enc(l, 0)), 0);
  EXPECT_EQ(b.Id(Enc(l, 99)), 0);
  EXPECT_EQ(b.Id(Enc(l, 100)), 1);
  EXPECT_EQ(b.Id(Enc(l, 99999)), 999);
  EXPECT_EQ(RangeBounds::FromSample({}, 1000).Id("anything"), 0);
}

TEST(RangeIdsTest, SamplerAndKeyerMapNullsToZeroAndOrderRows) {
  auto schema = parquet::BuildSchema({FieldSpec::Long("a"), FieldSpec::String("b")});
  ASSERT_TRUE(schema.ok());
  parquet::RowBatchBuilder bb(*schema);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(bb.Append({i % 10 == 0 ? Value::Null() : Value::Int(i),
                           Value::String(std::string(1, static_cast<char>('a' + i % 26)))})
                    .ok());
  }
  parquet::RowBatch batch = bb.Finish();
  RangeSampler sampler({0, 1}, 500, 7);
  ASSERT_TRUE(sampler.Add(batch).ok());
  std::vector<RangeBounds> bounds = sampler.Bounds(1000);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_LE(bounds[0].bounds().size(), 500u) << "no more bounds than sampled values";
  EXPECT_EQ(bounds[1].bounds().size(), 26u) << "with more ids than letters every letter is a bound";
  auto enc = planner::CurveEncoder::Make(planner::Curve::kZOrder, 2);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto keyer = CurveKeyer::Make(*enc, {0, 1}, bounds);
  ASSERT_TRUE(keyer.ok()) << keyer.status().ToString();
  EXPECT_EQ(keyer->key_width(), 8);
  std::vector<int32_t> ids;
  ASSERT_TRUE(keyer->RangeIds(batch, &ids).ok());
  EXPECT_EQ(ids[0], 0) << "null -> 0";
  EXPECT_EQ(ids[1], 0) << "'a' is the smallest letter";
  for (int i = 12; i < 2000; i += 10) EXPECT_LE(ids[(i - 1) * 2], ids[i * 2]) << "ids are monotone in the value";
  std::string keys;
  ASSERT_TRUE(keyer->Keys(batch, &keys).ok());
  EXPECT_EQ(keys.size(), 2000u * 8);
  auto hil = planner::CurveEncoder::Make(planner::Curve::kHilbert, 2);
  ASSERT_TRUE(hil.ok());
  auto hk = CurveKeyer::Make(*hil, {0, 1}, bounds);
  ASSERT_TRUE(hk.ok());
  EXPECT_EQ(hk->key_width(), 8);
}

TEST(RangeIdsTest, RepeatedColumnsAreRefused) {
  auto schema = parquet::BuildSchema({FieldSpec::List("l", FieldSpec::Int("e"))});
  ASSERT_TRUE(schema.ok());
  parquet::RowBatchBuilder bb(*schema);
  ASSERT_TRUE(bb.Append({Value::List({Value::Int(1)})}).ok());
  parquet::RowBatch batch = bb.Finish();
  RangeSampler sampler({0});
  Status st = sampler.Add(batch);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("'l"), std::string::npos) << st.ToString();
}


// Id counts the bounds strictly below a value in memcmp order, whether the bounds are
// searched as big-endian words (all of one length <= 8) or as strings (any other
// bounds, and values of another length): random bytes of lengths 0..9 against both.
TEST(RangeIdsTest, IdIsTheCountOfSmallerBoundsForEveryWidth) {
  uint64_t state = 7;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(state >> 56);
  };
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    // Few distinct bytes, so equal prefixes and equal values are common.
    for (char& c : s) c = static_cast<char>(next() % 4 == 0 ? 0xff : next() % 3);
    return s;
  };
  for (size_t len : {1u, 4u, 8u, 9u}) {
    for (bool mixed : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "len " << len << (mixed ? " mixed" : ""));
      std::vector<std::string> bounds;
      for (int i = 0; i < 40; ++i) bounds.push_back(random_bytes(mixed && i % 5 == 0 ? len + 1 : len));
      std::sort(bounds.begin(), bounds.end());
      bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
      const RangeBounds rb(bounds);
      for (int k = 0; k < 2000; ++k) {
        const std::string v = random_bytes(k % 7 == 0 ? static_cast<size_t>(next() % 10) : len);
        const auto want = static_cast<int32_t>(
            std::count_if(bounds.begin(), bounds.end(), [&](const std::string& b) { return b < v; }));
        ASSERT_EQ(rb.Id(v), want);
      }
    }
  }
}

}  // namespace
}  // namespace lithify::exec
