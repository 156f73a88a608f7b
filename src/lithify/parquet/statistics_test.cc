#include "lithify/parquet/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace lithify::parquet {
namespace {

SchemaElement Leaf(PhysicalType t, int32_t type_length = 0) {
  SchemaElement e;
  e.name = "c";
  e.type = t;
  e.repetition_type = Repetition::kOptional;
  if (type_length > 0) e.type_length = type_length;
  return e;
}

template <typename T>
std::string Enc(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
T Dec(const std::string& s) {
  T v;
  EXPECT_EQ(s.size(), sizeof(T));
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

template <typename T>
Statistics StatsOf(const SchemaElement& e, const std::vector<T>& values, int64_t nulls = 0,
                   int32_t max_size = 64) {
  ColumnStatistics s(e, max_size);
  s.AddFixed(reinterpret_cast<const uint8_t*>(values.data()), static_cast<int64_t>(values.size()));
  s.AddNulls(nulls);
  return s.ToThrift();
}

Statistics StringStats(const SchemaElement& e, const std::vector<std::string>& values,
                       int32_t max_size = 64) {
  ColumnValues v;
  v.type = PhysicalType::kByteArray;
  v.offsets.push_back(0);
  for (const auto& s : values) {
    v.data.Append(std::string_view(s));
    v.offsets.push_back(static_cast<int64_t>(v.data.size()));
  }
  v.count = static_cast<int64_t>(values.size());
  ColumnStatistics s(e, max_size);
  s.AddValues(v, 0, v.count);
  return s.ToThrift();
}

TEST(StatisticsTest, SignedInt32WithLegacyMinMax) {
  Statistics s = StatsOf<int32_t>(Leaf(PhysicalType::kInt32), {3, -5, 7, 0}, 2);
  EXPECT_EQ(s.null_count, 2);
  EXPECT_EQ(Dec<int32_t>(*s.min_value), -5);
  EXPECT_EQ(Dec<int32_t>(*s.max_value), 7);
  // Signed order agrees with the legacy fields, so they are written too.
  EXPECT_EQ(s.min, s.min_value);
  EXPECT_EQ(s.max, s.max_value);
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_EQ(s.is_max_value_exact, true);
}

TEST(StatisticsTest, UnsignedInt32FromLogicalType) {
  SchemaElement e = Leaf(PhysicalType::kInt32);
  e.logical_type.kind = LogicalType::Kind::kInteger;
  e.logical_type.bit_width = 32;
  e.logical_type.is_signed = false;
  Statistics s = StatsOf<int32_t>(e, {1, -1, 5});  // -1 is 0xFFFFFFFF unsigned
  EXPECT_EQ(Dec<uint32_t>(*s.min_value), 1u);
  EXPECT_EQ(Dec<uint32_t>(*s.max_value), 0xFFFFFFFFu);
  EXPECT_FALSE(s.min.has_value());  // legacy signed order would disagree
  EXPECT_FALSE(s.max.has_value());
}

TEST(StatisticsTest, UnsignedInt64FromConvertedType) {
  SchemaElement e = Leaf(PhysicalType::kInt64);
  e.converted_type = ConvertedType::kUint64;
  Statistics s = StatsOf<int64_t>(e, {std::numeric_limits<int64_t>::min(), 0, 7});
  EXPECT_EQ(Dec<uint64_t>(*s.min_value), 0u);
  EXPECT_EQ(Dec<uint64_t>(*s.max_value), uint64_t{1} << 63);
}

TEST(StatisticsTest, Int64Extremes) {
  Statistics s = StatsOf<int64_t>(Leaf(PhysicalType::kInt64),
                                  {std::numeric_limits<int64_t>::max(), 0,
                                   std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(Dec<int64_t>(*s.min_value), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Dec<int64_t>(*s.max_value), std::numeric_limits<int64_t>::max());
}

TEST(StatisticsTest, FloatIgnoresNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Statistics s = StatsOf<float>(Leaf(PhysicalType::kFloat), {nan, 1.5f, nan, -2.0f, nan});
  EXPECT_EQ(Dec<float>(*s.min_value), -2.0f);
  EXPECT_EQ(Dec<float>(*s.max_value), 1.5f);
  // ...but counts it (Statistics.nan_count, field 9), so readers know NaN is there.
  EXPECT_EQ(s.nan_count, 3);
}

TEST(StatisticsTest, NanCountOnlyForFloatingTypes) {
  EXPECT_EQ(StatsOf<double>(Leaf(PhysicalType::kDouble), {1.0, -0.0}).nan_count, 0);
  EXPECT_FALSE(StatsOf<int64_t>(Leaf(PhysicalType::kInt64), {1, 2}).nan_count.has_value());
  // Counted across batches and merges.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  SchemaElement e = Leaf(PhysicalType::kDouble);
  ColumnStatistics a(e, 64), b(e, 64);
  const double va[] = {nan, 2.0};
  const double vb[] = {3.0, nan, nan};
  a.AddFixed(reinterpret_cast<const uint8_t*>(va), 2);
  b.AddFixed(reinterpret_cast<const uint8_t*>(vb), 3);
  a.Merge(b);
  EXPECT_EQ(a.nan_count(), 3);
  EXPECT_EQ(a.ToThrift().nan_count, 3);
  a.Reset();
  EXPECT_EQ(a.nan_count(), 0);
}

TEST(StatisticsTest, AllNaNOmitsMinMax) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Statistics s = StatsOf<double>(Leaf(PhysicalType::kDouble), {nan, nan}, 1);
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_FALSE(s.min.has_value());
  EXPECT_EQ(s.null_count, 1);
  EXPECT_EQ(s.nan_count, 2);
}

TEST(StatisticsTest, InfinitiesAreOrdered) {
  const double inf = std::numeric_limits<double>::infinity();
  Statistics s = StatsOf<double>(Leaf(PhysicalType::kDouble), {1.0, -inf, inf});
  EXPECT_EQ(Dec<double>(*s.min_value), -inf);
  EXPECT_EQ(Dec<double>(*s.max_value), inf);
}

TEST(StatisticsTest, ZeroBoundsAreWidenedToSignedZeros) {
  // Only +0.0: min must be -0.0 and max +0.0.
  Statistics s = StatsOf<double>(Leaf(PhysicalType::kDouble), {0.0});
  EXPECT_TRUE(std::signbit(Dec<double>(*s.min_value)));
  EXPECT_FALSE(std::signbit(Dec<double>(*s.max_value)));
  EXPECT_TRUE(std::signbit(Dec<double>(*s.min)));  // the legacy copy too
  // Only -0.0 as max.
  s = StatsOf<double>(Leaf(PhysicalType::kDouble), {-3.0, -0.0});
  EXPECT_EQ(Dec<double>(*s.min_value), -3.0);
  EXPECT_EQ(Dec<double>(*s.max_value), 0.0);
  EXPECT_FALSE(std::signbit(Dec<double>(*s.max_value)));
  // Float: +0.0 as min.
  Statistics f = StatsOf<float>(Leaf(PhysicalType::kFloat), {0.0f, 4.0f});
  EXPECT_TRUE(std::signbit(Dec<float>(*f.min_value)));
  EXPECT_EQ(Dec<float>(*f.max_value), 4.0f);
  // Non-zero bounds are untouched.
  f = StatsOf<float>(Leaf(PhysicalType::kFloat), {1.0f, 4.0f});
  EXPECT_EQ(Dec<float>(*f.min_value), 1.0f);
}

TEST(StatisticsTest, Boolean) {
  Statistics s = StatsOf<uint8_t>(Leaf(PhysicalType::kBoolean), {1, 1});
  EXPECT_EQ(*s.min_value, std::string(1, '\1'));
  EXPECT_EQ(*s.max_value, std::string(1, '\1'));
  s = StatsOf<uint8_t>(Leaf(PhysicalType::kBoolean), {1, 0, 1});
  EXPECT_EQ(*s.min_value, std::string(1, '\0'));
  EXPECT_EQ(*s.max_value, std::string(1, '\1'));
}

TEST(StatisticsTest, StringsCompareAsUnsignedBytes) {
  SchemaElement e = Leaf(PhysicalType::kByteArray);
  e.logical_type.kind = LogicalType::Kind::kString;
  Statistics s = StringStats(e, {"z", "\xC3\xA9", "a", "", "ab"});
  EXPECT_EQ(*s.min_value, "");
  EXPECT_EQ(*s.max_value, "\xC3\xA9");  // 0xC3 > 'z' as unsigned
  EXPECT_FALSE(s.min.has_value());       // never the legacy fields for strings
  EXPECT_FALSE(s.max.has_value());
  EXPECT_EQ(s.is_max_value_exact, true);
}

// The min/max scan compares 8-byte prefixes first; strings that tie there (shared
// prefixes, a short string against the same bytes followed by zero bytes, zero bytes
// inside) must still order exactly as a byte-wise comparison does.
TEST(StatisticsTest, StringMinMaxAgreesWithByteWiseOrderOnPrefixTies) {
  std::mt19937_64 rng(7);
  const std::string alphabet("\x00\x01" "ab\x7F\x80\xFF", 7);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> values;
    const size_t n = 1 + rng() % 40;
    const std::string common(rng() % 12, 'a');
    for (size_t i = 0; i < n; ++i) {
      std::string v = (rng() % 2 == 0) ? common : std::string();
      const size_t extra = rng() % 11;
      for (size_t k = 0; k < extra; ++k) v.push_back(alphabet[rng() % alphabet.size()]);
      values.push_back(v);
    }
    const std::string lo = *std::min_element(values.begin(), values.end());
    const std::string hi = *std::max_element(values.begin(), values.end());
    Statistics st = StringStats(Leaf(PhysicalType::kByteArray), values);
    ASSERT_TRUE(st.min_value.has_value()) << round;
    EXPECT_EQ(*st.min_value, lo) << round;
    EXPECT_EQ(*st.max_value, hi) << round;
  }
}

TEST(StatisticsTest, LongStringsAreTruncated) {
  Statistics s = StringStats(Leaf(PhysicalType::kByteArray), {"abcdef", "abcdzz", "abcdaa"}, 4);
  EXPECT_EQ(*s.min_value, "abcd");
  EXPECT_EQ(s.is_min_value_exact, false);
  EXPECT_EQ(*s.max_value, "abce");  // prefix with the last byte incremented
  EXPECT_EQ(s.is_max_value_exact, false);
}

TEST(StatisticsTest, TruncationCarriesOverFFBytes) {
  Statistics s = StringStats(Leaf(PhysicalType::kByteArray),
                             {"ab\xFF\xFFzz", "aa"}, 4);
  EXPECT_EQ(*s.min_value, "aa");
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_EQ(*s.max_value, "ac");
  EXPECT_EQ(s.is_max_value_exact, false);
}

TEST(StatisticsTest, UnincrementableMaxIsOmitted) {
  Statistics s = StringStats(Leaf(PhysicalType::kByteArray), {"\xFF\xFF\xFF\xFF\xFF", "b"}, 4);
  EXPECT_EQ(*s.min_value, "b");
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_FALSE(s.is_max_value_exact.has_value());
}

TEST(StatisticsTest, ValuesAtTheLimitStayExact) {
  Statistics s = StringStats(Leaf(PhysicalType::kByteArray), {"abcd", "wxyz"}, 4);
  EXPECT_EQ(*s.min_value, "abcd");
  EXPECT_EQ(*s.max_value, "wxyz");
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_EQ(s.is_max_value_exact, true);
}

TEST(StatisticsTest, AllNullColumnHasOnlyNullCount) {
  ColumnStatistics s(Leaf(PhysicalType::kInt64), 64);
  s.AddNulls(5);
  Statistics t = s.ToThrift();
  EXPECT_EQ(t.null_count, 5);
  EXPECT_FALSE(t.min_value.has_value());
  EXPECT_FALSE(t.max_value.has_value());
  EXPECT_FALSE(t.min.has_value());
}

TEST(StatisticsTest, DecimalOnByteArrayIsSigned) {
  SchemaElement e = Leaf(PhysicalType::kByteArray);
  e.logical_type.kind = LogicalType::Kind::kDecimal;
  e.logical_type.precision = 10;
  // 1, -1, 128 (two bytes), -129 (two bytes)
  Statistics s = StringStats(e, {"\x01", "\xFF", std::string("\x00\x80", 2), "\xFF\x7F"});
  EXPECT_EQ(*s.min_value, "\xFF\x7F");
  EXPECT_EQ(*s.max_value, std::string("\x00\x80", 2));
  EXPECT_FALSE(s.min.has_value());  // legacy byte order disagrees with numeric order
}

TEST(StatisticsTest, DecimalOnFixedLenByteArrayIsSigned) {
  SchemaElement e = Leaf(PhysicalType::kFixedLenByteArray, 2);
  e.converted_type = ConvertedType::kDecimal;
  std::vector<uint8_t> v = {0x00, 0x05, 0x80, 0x00, 0x7F, 0xFF, 0xFF, 0xFF};
  ColumnStatistics s(e, 64);
  s.AddFixed(v.data(), 4);
  Statistics t = s.ToThrift();
  EXPECT_EQ(*t.min_value, std::string("\x80\x00", 2));  // -32768
  EXPECT_EQ(*t.max_value, "\x7F\xFF");                  // 32767
}

TEST(StatisticsTest, DecimalOnInt32UsesSignedIntegers) {
  SchemaElement e = Leaf(PhysicalType::kInt32);
  e.logical_type.kind = LogicalType::Kind::kDecimal;
  Statistics s = StatsOf<int32_t>(e, {-999, 999});
  EXPECT_EQ(Dec<int32_t>(*s.min_value), -999);
  EXPECT_EQ(s.min, s.min_value);
}

TEST(StatisticsTest, Int96HasNoOrder) {
  std::vector<uint8_t> v(24, 0x11);
  ColumnStatistics s(Leaf(PhysicalType::kInt96), 64);
  s.AddFixed(v.data(), 2);
  s.AddNulls(3);
  Statistics t = s.ToThrift();
  EXPECT_EQ(t.null_count, 3);
  EXPECT_FALSE(t.min_value.has_value());
  EXPECT_FALSE(t.max_value.has_value());
}

TEST(StatisticsTest, IntervalHasNoOrder) {
  SchemaElement e = Leaf(PhysicalType::kFixedLenByteArray, 12);
  e.converted_type = ConvertedType::kInterval;
  EXPECT_EQ(LeafSortOrder(e), SortOrder::kUndefined);
  std::vector<uint8_t> v(12, 1);
  ColumnStatistics s(e, 64);
  s.AddFixed(v.data(), 1);
  EXPECT_FALSE(s.ToThrift().min_value.has_value());
}

TEST(StatisticsTest, Float16ComparesAsHalfFloats) {
  SchemaElement e = Leaf(PhysicalType::kFixedLenByteArray, 2);
  e.logical_type.kind = LogicalType::Kind::kFloat16;
  // 1.0, -2.0, NaN, 0.5 (bytes little-endian)
  std::vector<uint16_t> v = {0x3C00, 0xC000, 0x7E00, 0x3800};
  Statistics s = StatsOf<uint16_t>(e, v);
  EXPECT_EQ(Dec<uint16_t>(*s.min_value), 0xC000);
  EXPECT_EQ(Dec<uint16_t>(*s.max_value), 0x3C00);
  EXPECT_FALSE(s.min.has_value());
  // Zero bounds become -0 / +0.
  s = StatsOf<uint16_t>(e, {0x0000});
  EXPECT_EQ(Dec<uint16_t>(*s.min_value), 0x8000);
  EXPECT_EQ(Dec<uint16_t>(*s.max_value), 0x0000);
  EXPECT_FLOAT_EQ(HalfToFloat(0x3555), 0.33325195f);
}

TEST(StatisticsTest, FixedLenBinaryIsUnsignedAndNotTruncated) {
  SchemaElement e = Leaf(PhysicalType::kFixedLenByteArray, 3);
  std::vector<uint8_t> v = {0x01, 0x02, 0x03, 0xF0, 0x00, 0x00};
  ColumnStatistics cs(e, 64);
  cs.AddFixed(v.data(), 2);
  Statistics s = cs.ToThrift();
  EXPECT_EQ(*s.min_value, "\x01\x02\x03");
  EXPECT_EQ(*s.max_value, std::string("\xF0\x00\x00", 3));
  // Longer than the limit: omitted (a shorter value is not a valid FLBA of width 3).
  ColumnStatistics small(e, 2);
  small.AddFixed(v.data(), 2);
  EXPECT_FALSE(small.ToThrift().min_value.has_value());
}

TEST(StatisticsTest, MergeCombinesBoundsAndNulls) {
  SchemaElement e = Leaf(PhysicalType::kInt32);
  ColumnStatistics a(e, 64), b(e, 64);
  std::vector<int32_t> va = {5, 9}, vb = {-1, 3};
  a.AddFixed(reinterpret_cast<const uint8_t*>(va.data()), 2);
  a.AddNulls(1);
  b.AddFixed(reinterpret_cast<const uint8_t*>(vb.data()), 2);
  b.AddNulls(2);
  a.Merge(b);
  Statistics t = a.ToThrift();
  EXPECT_EQ(Dec<int32_t>(*t.min_value), -1);
  EXPECT_EQ(Dec<int32_t>(*t.max_value), 9);
  EXPECT_EQ(t.null_count, 3);
}

TEST(StatisticsTest, SortOrders) {
  SchemaElement e = Leaf(PhysicalType::kInt32);
  e.converted_type = ConvertedType::kUint8;
  EXPECT_EQ(LeafSortOrder(e), SortOrder::kUnsigned);
  e.converted_type = ConvertedType::kDate;
  EXPECT_EQ(LeafSortOrder(e), SortOrder::kSigned);
  SchemaElement s = Leaf(PhysicalType::kByteArray);
  EXPECT_EQ(LeafSortOrder(s), SortOrder::kUnsigned);
  s.logical_type.kind = LogicalType::Kind::kDecimal;
  EXPECT_EQ(LeafSortOrder(s), SortOrder::kSigned);
  EXPECT_EQ(LeafSortOrder(Leaf(PhysicalType::kInt96)), SortOrder::kUndefined);
}

TEST(StatisticsTest, IncrementBytes) {
  std::string s = "a\xFF";
  EXPECT_TRUE(IncrementBytes(&s));
  EXPECT_EQ(s, "b");
  s = "\xFF";
  EXPECT_FALSE(IncrementBytes(&s));
  s = "x\x7F";
  EXPECT_TRUE(IncrementBytes(&s));
  EXPECT_EQ(s, "x\x80");
}

}  // namespace
}  // namespace lithify::parquet
