#include "lithify/planner/curves.h"

#include <gtest/gtest.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

namespace lithify::planner {
namespace {

std::string Bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

TEST(RangeIdBitsTest, MatchesDeltaNumBits) {
  EXPECT_EQ(RangeIdBits(1000), 10);  // Delta's default: 10 bits per column
  EXPECT_EQ(RangeIdBits(1), 1);
  EXPECT_EQ(RangeIdBits(2), 2);
  EXPECT_EQ(RangeIdBits(3), 2);
  EXPECT_EQ(RangeIdBits(512), 10);
  EXPECT_EQ(RangeIdBits(1023), 10);
  EXPECT_EQ(RangeIdBits(1024), 11);  // highestOneBit(1024) = 1024, ntz 10, + 1
}

TEST(InterleaveBitsTest, HandComputedVectors) {
  // One column: the id's 4 bytes, big-endian.
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{0x01020304}), Bytes({1, 2, 3, 4}));
  // Two columns: 64 output bits; bit b of column c lands at position (31 - b) * 2 + c.
  // (1, 0): bit 0 of column 0 -> position 62 -> byte 7, mask 0x80 >> 6 = 0x02.
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{1, 0}), Bytes({0, 0, 0, 0, 0, 0, 0, 0x02}));
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{0, 1}), Bytes({0, 0, 0, 0, 0, 0, 0, 0x01}));
  // (3, 0): positions 60 and 62 -> 0x08 | 0x02.
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{3, 0}), Bytes({0, 0, 0, 0, 0, 0, 0, 0x0A}));
  // (-1, 0): every even position set -> 0xAA everywhere (two's complement, as in Delta).
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{-1, 0}), std::string(8, '\xAA'));
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{0, -1}), std::string(8, '\x55'));
  // Three columns, 12 bytes: (1, 1, 1) -> positions 93, 94, 95 -> last byte 0x07.
  std::string three(12, '\0');
  three[11] = 0x07;
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{1, 1, 1}), three);
  // (999, 0, 0): 999 = 0b1111100111; bit 9 -> position 66 -> byte 8 mask 0x20.
  const std::string k = InterleaveBits(std::vector<int32_t>{999, 0, 0});
  ASSERT_EQ(k.size(), 12u);
  EXPECT_EQ(static_cast<uint8_t>(k[8]), 0x20 | 0x04);  // bits 9 (pos 66) and 8 (pos 69)
  EXPECT_EQ(InterleaveBits(std::vector<int32_t>{}), "");
}

// Every column count (two has a word-arithmetic path of its own) gives Delta's
// interleave_bits: bit b of column c lands at output bit (31 - b) * n + c, MSB first.
TEST(InterleaveBitsTest, EqualsTheBitByBitDefinitionForRandomIds) {
  uint64_t state = 11;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int32_t>(state >> 32);
  };
  for (size_t n = 1; n <= 4; ++n) {
    for (int k = 0; k < 500; ++k) {
      std::vector<int32_t> ids(n);
      for (int32_t& id : ids) id = k % 3 == 0 ? next() : next() & 1023;
      std::string want(4 * n, '\0');
      for (int b = 31; b >= 0; --b) {
        for (size_t c = 0; c < n; ++c) {
          const size_t pos = static_cast<size_t>(31 - b) * n + c;
          if ((static_cast<uint32_t>(ids[c]) >> b) & 1u) want[pos / 8] = static_cast<char>(want[pos / 8] | (0x80 >> (pos % 8)));
        }
      }
      std::string got = "x";
      AppendInterleavedBits(ids, &got);
      ASSERT_EQ(got, "x" + want) << "n " << n << " k " << k;
    }
  }
}

TEST(InterleaveBitsTest, NullInterleavesAsZero) {
  const std::vector<std::optional<int32_t>> with_null = {std::nullopt, 5};
  EXPECT_EQ(InterleaveBits(with_null), InterleaveBits(std::vector<int32_t>{0, 5}));
}

TEST(InterleaveBitsTest, OrdersAsUnsignedBytes) {
  // The high bit of column 0 makes the first byte 0x80: greater than 0x55... as unsigned
  // bytes, smaller as signed chars. std::string must order it as Delta's binary does.
  const std::string high = InterleaveBits(std::vector<int32_t>{INT_MIN, 0});
  const std::string low = InterleaveBits(std::vector<int32_t>{0, -1});
  EXPECT_EQ(static_cast<uint8_t>(high[0]), 0x80);
  EXPECT_LT(low, high);
  // Column 0's bit outranks column 1's at the same level, and a higher level beats all
  // lower ones: (512, 0) > (0, 512) > (511, 511).
  const std::string a = InterleaveBits(std::vector<int32_t>{512, 0});
  const std::string b = InterleaveBits(std::vector<int32_t>{0, 512});
  const std::string c = InterleaveBits(std::vector<int32_t>{511, 511});
  EXPECT_LT(b, a);
  EXPECT_LT(c, b);
}

TEST(InterleaveBitsTest, AppendsWithoutClearing) {
  std::string out = "x";
  AppendInterleavedBits(std::vector<int32_t>{1}, &out);
  EXPECT_EQ(out, Bytes({'x', 0, 0, 0, 1}));
}

TEST(HilbertCurveTest, RejectsUnsupportedShapes) {
  EXPECT_TRUE(HilbertCurve::Make(1, 10).status().IsInvalidArgument());
  EXPECT_TRUE(HilbertCurve::Make(10, 2).status().IsInvalidArgument());
  EXPECT_TRUE(HilbertCurve::Make(2, 0).status().IsInvalidArgument());
  EXPECT_TRUE(HilbertCurve::Make(7, 10).status().IsInvalidArgument());  // 70 bits
  EXPECT_TRUE(HilbertCurve::Make(2, 32).status().IsInvalidArgument());  // 64 bits
  EXPECT_TRUE(HilbertCurve::Make(6, 10).ok());                          // 60 bits
  EXPECT_TRUE(HilbertCurve::Make(9, 7).ok());                           // 63 bits
}

// Delta's orientation, derived by hand from the generation rules (facts §4.3) for n = 2:
//  X2 Gray codes: order 1 = [0,1,0,1]; order 2: base [0,1,0,1] with its last element set
//  to 0 + 2 -> [0,1,0,2], mirrored with ^2 -> [0,1,0,2,0,2,3,2].
//  Rows i = 0..3 (x21, x22 = x2s[2i], x2s[2i+1]; dy = 1 - ntz(x21 ^ x22); x1 = gray(i)):
//   i=0: (0,1) dy 1 -> M(0,1), x1 0      i=1: (0,2) dy 0 -> M(0,0) = I, x1 1
//   i=2: (0,2) dy 0 -> I, x1 3           i=3: (3,2) dy 1 -> M(3,1), x1 2
//  State 0 (identity): x1 0 -> y 0 (next: new state 1 = M(0,1)), x1 1 -> y 1 (state 0),
//  x1 3 -> y 2 (state 0), x1 2 -> y 3 (new state 2 = M(3,1)).
//  State 1 = M(0,1): transform(i) = rotl(i, 1): i 0,1,2,3 -> j 0,2,1,3 -> y 0,3,1,2;
//  next = M_row(y) * M(0,1): y0: M(0,1)*M(0,1) = M(0,0) = state 0; y3: M(3,1)*M(0,1) =
//  M(3,0) = new state 3; y1, y2: I*M(0,1) = state 1. So x1 0->y0, 2->y1, 3->y2, 1->y3.
//  State 2 = M(3,1): transform(i) = rotl(i ^ 3, 1): i 0,1,2,3 -> j 3,1,2,0 -> y 2,1,3,0.
//  x1 3->y0 (state 3), 1->y1 (state 2), 0->y2 (state 2), 2->y3 (state 0).
//  With z = (bit of x << 1) | bit of y, the 4x4 grid is visited in the order below.
TEST(HilbertCurveTest, DeltaOrientationTwoDimensionsByHand) {
  auto h = HilbertCurve::Make(2, 2);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  const std::array<std::array<int32_t, 2>, 16> order = {{{0, 0}, {1, 0}, {1, 1}, {0, 1},
                                                         {0, 2}, {0, 3}, {1, 3}, {1, 2},
                                                         {2, 2}, {2, 3}, {3, 3}, {3, 2},
                                                         {3, 1}, {2, 1}, {2, 0}, {3, 0}}};
  for (size_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(h->Key(order[k]), k) << "point (" << order[k][0] << "," << order[k][1] << ")";
  }
  // State 0's row of the compact table: entry [x1] = (y << 32) | next.
  const std::span<const uint64_t> t = h->StateTable();
  EXPECT_EQ(t[0], (uint64_t{0} << 32) | 1);
  EXPECT_EQ(t[1], (uint64_t{1} << 32) | 0);
  EXPECT_EQ(t[3], (uint64_t{2} << 32) | 0);
  EXPECT_EQ(t[2], (uint64_t{3} << 32) | 2);
  // State 1 and 2 as derived above.
  EXPECT_EQ(t[4 + 0], (uint64_t{0} << 32) | 0);
  EXPECT_EQ(t[4 + 1], (uint64_t{3} << 32) | 3);
  EXPECT_EQ(t[4 + 2], (uint64_t{1} << 32) | 1);
  EXPECT_EQ(t[4 + 3], (uint64_t{2} << 32) | 1);
  EXPECT_EQ(t[8 + 3], (uint64_t{0} << 32) | 3);
  EXPECT_EQ(t[8 + 2], (uint64_t{3} << 32) | 0);
}

// With one bit per dimension only state 0 is used, whose row for key digit y is the Gray
// code of y: the key of a corner is the inverse Gray code of its bits (column 0 first).
TEST(HilbertCurveTest, OneBitIsInverseGrayCodeInEveryDimension) {
  for (int n = 2; n <= 9; ++n) {
    auto h = HilbertCurve::Make(n, 1);
    ASSERT_TRUE(h.ok());
    for (uint32_t y = 0; y < (1u << n); ++y) {
      const uint32_t gray = y ^ (y >> 1);
      std::vector<int32_t> point(n);
      for (int j = 0; j < n; ++j) point[j] = (gray >> (n - 1 - j)) & 1;
      EXPECT_EQ(h->Key(point), y) << n << " dims, key " << y;
    }
  }
}

// Enumerates the whole grid: keys are a bijection onto [0, 2^(n*bits)) and consecutive
// keys are adjacent cells (exactly one coordinate differs, by one): a Hilbert curve.
void ExpectHilbertCurve(int n, int bits) {
  SCOPED_TRACE(::testing::Message() << n << " dims, " << bits << " bits");
  auto h = HilbertCurve::Make(n, bits);
  ASSERT_TRUE(h.ok());
  const uint64_t cells = uint64_t{1} << (n * bits);
  const uint32_t side_mask = (1u << bits) - 1;
  std::vector<uint32_t> inverse(cells, UINT32_MAX);  // key -> cell index
  std::vector<int32_t> point(n);
  for (uint64_t cell = 0; cell < cells; ++cell) {
    for (int j = 0; j < n; ++j) point[j] = static_cast<int32_t>((cell >> (j * bits)) & side_mask);
    const uint64_t key = h->Key(point);
    ASSERT_LT(key, cells);
    ASSERT_EQ(inverse[key], UINT32_MAX) << "key " << key << " reached twice";
    inverse[key] = static_cast<uint32_t>(cell);
  }
  EXPECT_EQ(inverse[0], 0u) << "the curve starts at the origin";
  for (uint64_t k = 0; k + 1 < cells; ++k) {
    int moved = 0, distance = 0;
    for (int j = 0; j < n; ++j) {
      const int a = static_cast<int>((inverse[k] >> (j * bits)) & side_mask);
      const int b = static_cast<int>((inverse[k + 1] >> (j * bits)) & side_mask);
      if (a != b) ++moved;
      distance += std::abs(a - b);
    }
    ASSERT_TRUE(moved == 1 && distance == 1) << "keys " << k << " and " << k + 1;
  }
}

TEST(HilbertCurveTest, TwoDimensionsTenBitsIsAHilbertCurve) { ExpectHilbertCurve(2, 10); }
TEST(HilbertCurveTest, ThreeDimensionsIsAHilbertCurve) { ExpectHilbertCurve(3, 6); }
TEST(HilbertCurveTest, FourDimensionsIsAHilbertCurve) { ExpectHilbertCurve(4, 5); }
TEST(HilbertCurveTest, FiveToNineDimensionsAreHilbertCurves) {
  ExpectHilbertCurve(5, 3);
  ExpectHilbertCurve(6, 2);
  ExpectHilbertCurve(7, 2);
  ExpectHilbertCurve(8, 2);
  ExpectHilbertCurve(9, 2);
}

// 3 and 4 dimensions at Delta's 10 bits: the grid is too large to enumerate, so check at
// random points that the successor key is held by exactly one grid neighbour.
TEST(HilbertCurveTest, TenBitSpotChecksInThreeAndFourDimensions) {
  std::mt19937_64 rng(20261130);
  for (int n : {3, 4}) {
    auto h = HilbertCurve::Make(n, 10);
    ASSERT_TRUE(h.ok());
    const uint64_t last = (uint64_t{1} << (10 * n)) - 1;
    std::uniform_int_distribution<int32_t> coord(0, 1023);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<int32_t> p(n);
      for (int32_t& c : p) c = coord(rng);
      const uint64_t key = h->Key(p);
      ASSERT_LE(key, last);
      int successors = 0, predecessors = 0;
      for (int j = 0; j < n; ++j) {
        for (int d : {-1, 1}) {
          std::vector<int32_t> q = p;
          q[j] += d;
          if (q[j] < 0 || q[j] > 1023) continue;
          const uint64_t kq = h->Key(q);
          ASSERT_NE(kq, key);
          successors += kq == key + 1;
          predecessors += key > 0 && kq == key - 1;
        }
      }
      EXPECT_EQ(successors, key < last ? 1 : 0) << "key " << key;
      EXPECT_EQ(predecessors, key > 0 ? 1 : 0) << "key " << key;
    }
    // Only the low 10 bits of a coordinate count, as in Delta.
    std::vector<int32_t> p(n, 5), q(n, 5);
    q[0] += 1024;
    EXPECT_EQ(h->Key(p), h->Key(q));
  }
}

TEST(HilbertCurveTest, TablesAreSharedAndThreadSafe) {
  std::vector<uint64_t> keys(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &keys] {
      auto h = HilbertCurve::Make(5, 10);
      keys[t] = h.ok() ? h->Key(std::vector<int32_t>{1, 2, 3, 4, 999}) : 0;
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_NE(keys[0], 0u);
  for (uint64_t k : keys) EXPECT_EQ(k, keys[0]);
  auto a = HilbertCurve::Make(3, 10);
  auto b = HilbertCurve::Make(3, 4);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->StateTable().data(), b->StateTable().data());
  EXPECT_EQ(a->StateTable().size(), static_cast<size_t>(a->NumStates()) << 3);
}

TEST(CurveEncoderTest, RendersEitherCurveAsOrderedBytes) {
  auto z = CurveEncoder::Make(Curve::kZOrder, 2);
  ASSERT_TRUE(z.ok());
  std::string out = "stale";
  z->Key(std::vector<int32_t>{3, 0}, &out);
  EXPECT_EQ(out, InterleaveBits(std::vector<int32_t>{3, 0}));

  auto hc = CurveEncoder::Make(Curve::kHilbert, 2);  // 1000 range ids -> 10 bits
  ASSERT_TRUE(hc.ok());
  auto h = HilbertCurve::Make(2, 10);
  ASSERT_TRUE(h.ok());
  const std::vector<int32_t> p = {700, 3}, q = {3, 700};
  std::string kp, kq;
  hc->Key(p, &kp);
  hc->Key(q, &kq);
  ASSERT_EQ(kp.size(), 8u);
  uint64_t decoded = 0;
  for (char c : kp) decoded = (decoded << 8) | static_cast<uint8_t>(c);
  EXPECT_EQ(decoded, h->Key(p));
  EXPECT_EQ(kp < kq, h->Key(p) < h->Key(q));

  EXPECT_TRUE(CurveEncoder::Make(Curve::kHilbert, 1).status().IsInvalidArgument());
  EXPECT_TRUE(CurveEncoder::Make(Curve::kHilbert, 7).status().IsInvalidArgument());
  EXPECT_TRUE(CurveEncoder::Make(Curve::kZOrder, 0).status().IsInvalidArgument());
  EXPECT_EQ(CurveName(Curve::kHilbert), "hilbert");
  EXPECT_EQ(CurveName(Curve::kZOrder), "zorder");
}

}  // namespace
}  // namespace lithify::planner
