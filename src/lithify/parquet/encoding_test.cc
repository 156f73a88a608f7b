#include "lithify/parquet/encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <type_traits>
#include <string>
#include <vector>

#include "lithify/parquet/codec_test_util.h"

namespace lithify::parquet {
namespace {

std::vector<uint8_t> ToVec(const Buffer& b) { return {b.data(), b.data() + b.size()}; }
ByteView View(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }

template <typename T>
std::vector<uint8_t> AsRaw(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> FromRaw(const uint8_t* p, size_t n) {
  std::vector<T> out(n);
  if (n > 0) std::memcpy(out.data(), p, n * sizeof(T));
  return out;
}

uint64_t MaskFor(int width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

// Values with a mix of long runs and noise, all < 2^width.
std::vector<uint32_t> MixedValues(size_t n, int width, std::mt19937_64& rng) {
  std::vector<uint32_t> v;
  v.reserve(n);
  const uint64_t mask = MaskFor(width);
  while (v.size() < n) {
    const uint32_t value = static_cast<uint32_t>(rng() & mask);
    const size_t run = (rng() % 4 == 0) ? 1 + rng() % 40 : 1;
    for (size_t i = 0; i < run && v.size() < n; ++i) v.push_back(value);
  }
  return v;
}

std::vector<uint8_t> RleEncode(const std::vector<uint32_t>& values, int width) {
  RleBitPackedEncoder enc(width);
  enc.PutMany(values.data(), values.size());
  const size_t estimate = enc.EstimatedSize();
  Buffer out;
  enc.Flush(&out);
  EXPECT_LE(out.size(), estimate);
  return ToVec(out);
}

// ============================================================ BitWidth

TEST(BitWidthTest, Values) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(3), 2);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
  EXPECT_EQ(BitWidth(~uint64_t{0}), 64);
}

// ============================================================ RLE / bit-packed hybrid

TEST(RleTest, RoundTripEveryWidth) {
  std::mt19937_64 rng(42);
  for (int width = 0; width <= 32; ++width) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{100}, size_t{1003},
                     size_t{5000}}) {
      SCOPED_TRACE(testing::Message() << "width " << width << " n " << n);
      std::vector<uint32_t> values = MixedValues(n, width, rng);
      std::vector<uint8_t> bytes = RleEncode(values, width);
      std::vector<uint32_t> back(n + 1, 0xDEADBEEF);
      RleBitPackedDecoder dec(bytes.data(), bytes.size(), width);
      ASSERT_TRUE(dec.Decode(back.data(), n).ok());
      EXPECT_EQ(back.back(), 0xDEADBEEF);  // nothing written past n
      back.pop_back();
      ASSERT_EQ(back, values);
      EXPECT_EQ(dec.position(), bytes.size());
      if (width <= 15) {
        std::vector<int16_t> levels(n);
        RleBitPackedDecoder dec16(bytes.data(), bytes.size(), width);
        ASSERT_TRUE(dec16.Decode(levels.data(), n).ok());
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<uint32_t>(levels[i]), values[i]);
      }
    }
  }
}

TEST(RleTest, EdgePatterns) {
  std::vector<std::vector<uint32_t>> cases;
  cases.push_back({});
  cases.push_back(std::vector<uint32_t>(1, 7));
  cases.push_back(std::vector<uint32_t>(100000, 9));  // all equal, long run
  std::vector<uint32_t> alternating;
  for (int i = 0; i < 1001; ++i) alternating.push_back(i % 2 ? 0xFFFFFFFFu : 0u);
  cases.push_back(alternating);
  // Runs whose boundaries are not multiples of 8, with lengths around the RLE threshold.
  std::vector<uint32_t> odd_runs;
  for (int len : {3, 8, 9, 15, 16, 17, 5, 23, 1, 64, 7, 8}) {
    for (int i = 0; i < len; ++i) odd_runs.push_back(static_cast<uint32_t>(len));
  }
  cases.push_back(odd_runs);
  for (const auto& values : cases) {
    for (int width : {32, 7}) {
      std::vector<uint32_t> masked = values;
      for (auto& v : masked) v &= static_cast<uint32_t>(MaskFor(width));
      std::vector<uint8_t> bytes = RleEncode(masked, width);
      std::vector<uint32_t> back(masked.size());
      RleBitPackedDecoder dec(bytes.data(), bytes.size(), width);
      ASSERT_TRUE(dec.Decode(back.data(), back.size()).ok());
      EXPECT_EQ(back, masked);
    }
  }
}

TEST(RleTest, DecodeInPiecesMatchesOneShot) {
  std::mt19937_64 rng(7);
  for (int width : {1, 3, 8, 13, 32}) {
    std::vector<uint32_t> values = MixedValues(4000, width, rng);
    std::vector<uint8_t> bytes = RleEncode(values, width);
    RleBitPackedDecoder dec(bytes.data(), bytes.size(), width);
    std::vector<uint32_t> back;
    size_t done = 0;
    while (done < values.size()) {
      size_t step = std::min<size_t>(1 + rng() % 37, values.size() - done);
      std::vector<uint32_t> part(step);
      ASSERT_TRUE(dec.Decode(part.data(), step).ok());
      back.insert(back.end(), part.begin(), part.end());
      done += step;
    }
    EXPECT_EQ(back, values);
  }
}

TEST(RleTest, SpecExampleBitPacked) {
  // Encodings.md: 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  std::vector<uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<uint8_t> expect = {0x03, 0x88, 0xC6, 0xFA};  // header: 1 group, bit-packed
  EXPECT_EQ(RleEncode(values, 3), expect);
  std::vector<uint32_t> back(8);
  RleBitPackedDecoder dec(expect.data(), expect.size(), 3);
  ASSERT_TRUE(dec.Decode(back.data(), 8).ok());
  EXPECT_EQ(back, values);
}

TEST(RleTest, SpecRleRun) {
  // 100 copies of 5 at width 3: header varint(100 << 1) = C8 01, value in one byte.
  std::vector<uint8_t> expect = {0xC8, 0x01, 0x05};
  EXPECT_EQ(RleEncode(std::vector<uint32_t>(100, 5), 3), expect);
  // A 17-bit value takes three bytes, little-endian.
  std::vector<uint8_t> wide = {0x10, 0x56, 0x34, 0x01};
  EXPECT_EQ(RleEncode(std::vector<uint32_t>(8, 0x13456), 17), wide);
  std::vector<uint32_t> back(8);
  RleBitPackedDecoder dec(wide.data(), wide.size(), 17);
  ASSERT_TRUE(dec.Decode(back.data(), 8).ok());
  EXPECT_EQ(back, std::vector<uint32_t>(8, 0x13456));
}

TEST(RleTest, EncoderUsesRleForRepeats) {
  // 8 distinct values then a long run: one literal group + one RLE run.
  std::vector<uint32_t> values = {1, 2, 3, 4, 5, 6, 7, 0};
  values.insert(values.end(), 1000, 6);
  std::vector<uint8_t> bytes = RleEncode(values, 3);
  std::vector<uint8_t> expect = {0x03, 0xD1, 0x58, 0x1F, 0xD0, 0x0F, 0x06};
  EXPECT_EQ(bytes, expect);
  // A run starting mid-group still becomes RLE once the open group is completed.
  std::vector<uint32_t> shifted = {1, 2, 3};
  shifted.insert(shifted.end(), 500, 4);
  EXPECT_LE(RleEncode(shifted, 3).size(), 8u);
  // Width 0: everything is a single run with no value bytes.
  EXPECT_EQ(RleEncode(std::vector<uint32_t>(64, 0), 0), (std::vector<uint8_t>{0x80, 0x01}));
}

TEST(RleTest, EncoderMasksOversizedValues) {
  std::vector<uint8_t> bytes = RleEncode({0xFF, 1, 2, 3, 4, 5, 6, 7}, 3);
  std::vector<uint32_t> back(8);
  RleBitPackedDecoder dec(bytes.data(), bytes.size(), 3);
  ASSERT_TRUE(dec.Decode(back.data(), 8).ok());
  EXPECT_EQ(back, (std::vector<uint32_t>{7, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RleTest, PutLevelsAndPutAgree) {
  std::vector<int16_t> levels = {0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0, 0, 3};
  RleBitPackedEncoder enc(2);
  enc.PutLevels(levels.data(), levels.size());
  Buffer out;
  enc.Flush(&out);
  std::vector<int16_t> back(levels.size());
  RleBitPackedDecoder dec(out.data(), out.size(), 2);
  ASSERT_TRUE(dec.Decode(back.data(), back.size()).ok());
  EXPECT_EQ(back, levels);
  // The encoder is reset by Flush and can be reused.
  enc.Put(3);
  Buffer again;
  enc.Flush(&again);
  uint32_t v = 0;
  RleBitPackedDecoder dec2(again.data(), again.size(), 2);
  ASSERT_TRUE(dec2.Decode(&v, 1).ok());
  EXPECT_EQ(v, 3u);
}

// PutMany and PutLevels (runs counted and literal stretches buffered at once) write the
// very bytes of Put called value by value, however the values are split between calls:
// literal stretches longer than the 512-value buffer, runs of every length around the
// 8-value RLE threshold, long runs, and stretches ending at a call's end.
TEST(RleTest, BulkPutsWriteTheBytesOfPutOneByOne) {
  std::mt19937 rng(7);
  for (int width : {1, 3, 9, 16}) {
    const uint32_t mask = (uint32_t{1} << width) - 1;
    std::vector<uint32_t> values;
    for (int stretch = 0; stretch < 60; ++stretch) {
      const int kind = static_cast<int>(rng() % 4);
      const size_t len = kind == 0 ? 1 + rng() % 1500 : kind == 1 ? 1 + rng() % 12 : kind == 2 ? 1 + rng() % 3000 : 8;
      if (kind == 0) {
        for (size_t k = 0; k < len; ++k) values.push_back(values.empty() ? 0 : (values.back() + 1 + rng() % 5) & mask);
      } else {
        const uint32_t v = rng() & mask;
        values.insert(values.end(), len, v);
      }
    }
    RleBitPackedEncoder one(width);
    for (uint32_t v : values) one.Put(v);
    Buffer want;
    one.Flush(&want);
    for (size_t piece : {size_t{1}, size_t{7}, size_t{513}, size_t{100000}}) {
      RleBitPackedEncoder many(width), levels(width);
      for (size_t at = 0; at < values.size(); at += piece) {
        const size_t n = std::min(piece, values.size() - at);
        many.PutMany(values.data() + at, n);
        if (width <= 15) {
          std::vector<int16_t> l(values.begin() + at, values.begin() + at + n);
          levels.PutLevels(l.data(), n);
        }
      }
      Buffer got, got_levels;
      many.Flush(&got);
      levels.Flush(&got_levels);
      EXPECT_TRUE(AsStringView(got.view()) == AsStringView(want.view())) << "width " << width << " piece " << piece;
      if (width <= 15) EXPECT_TRUE(AsStringView(got_levels.view()) == AsStringView(want.view())) << "width " << width << " piece " << piece;
    }
  }
}

TEST(RleTest, TruncatedInputIsCorruption) {
  std::mt19937_64 rng(9);
  for (int width : {1, 5, 16, 32}) {
    std::vector<uint32_t> values = MixedValues(300, width, rng);
    std::vector<uint8_t> bytes = RleEncode(values, width);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + cut);
      std::vector<uint32_t> back(values.size());
      RleBitPackedDecoder dec(prefix.data(), prefix.size(), width);
      Status st = dec.Decode(back.data(), back.size());
      // A cut inside the final group's padding may still hold every value.
      if (st.ok()) {
        EXPECT_EQ(back, values) << cut;
      } else {
        EXPECT_TRUE(st.IsCorruption()) << cut << st.ToString();
      }
      if (cut * 8 < values.size() * static_cast<size_t>(width) / 64) {
        EXPECT_FALSE(st.ok()) << cut;
      }
    }
  }
  RleBitPackedDecoder empty(nullptr, 0, 3);
  uint32_t v;
  EXPECT_TRUE(empty.Decode(&v, 1).IsCorruption());
  EXPECT_TRUE(empty.Decode(&v, 0).ok());
}

TEST(RleTest, TruncatedFinalBitPackedRunIsReadLeniently) {
  // Header claims 2 groups of 8-bit values but only 3 bytes follow.
  std::vector<uint8_t> bytes = {0x05, 10, 20, 30};
  std::vector<uint32_t> back(3);
  RleBitPackedDecoder dec(bytes.data(), bytes.size(), 8);
  ASSERT_TRUE(dec.Decode(back.data(), 3).ok());
  EXPECT_EQ(back, (std::vector<uint32_t>{10, 20, 30}));
  std::vector<uint32_t> more(4);
  RleBitPackedDecoder dec2(bytes.data(), bytes.size(), 8);
  EXPECT_TRUE(dec2.Decode(more.data(), 4).IsCorruption());
}

TEST(RleTest, InvalidWidthAndHeaders) {
  std::vector<uint8_t> bytes = {0x02, 0x01};
  uint32_t v;
  RleBitPackedDecoder wide(bytes.data(), bytes.size(), 33);
  EXPECT_TRUE(wide.Decode(&v, 1).IsCorruption());
  RleBitPackedDecoder negative(bytes.data(), bytes.size(), -1);
  EXPECT_TRUE(negative.Decode(&v, 1).IsCorruption());
  // Over-long varint header.
  std::vector<uint8_t> varint(11, 0xFF);
  RleBitPackedDecoder bad(varint.data(), varint.size(), 4);
  EXPECT_TRUE(bad.Decode(&v, 1).IsCorruption());
  // A huge RLE run count is fine: only the requested values are produced.
  std::vector<uint8_t> huge = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x03};
  std::vector<uint32_t> out(1000);
  RleBitPackedDecoder big(huge.data(), huge.size(), 2);
  ASSERT_TRUE(big.Decode(out.data(), out.size()).ok());
  EXPECT_EQ(out, std::vector<uint32_t>(1000, 3));
  // A huge bit-packed group count with little data yields only what is present.
  std::vector<uint8_t> packed = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xAA, 0xAA};
  RleBitPackedDecoder pk(packed.data(), packed.size(), 1);
  ASSERT_TRUE(pk.Decode(out.data(), 16).ok());
  EXPECT_TRUE(pk.Decode(out.data(), 1).IsCorruption());
}

TEST(RleTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    int width = static_cast<int>(rng() % 34);
    std::vector<uint32_t> out(rng() % 200);
    RleBitPackedDecoder dec(bytes.data(), bytes.size(), width);
    Status st = dec.Decode(out.data(), out.size());
    EXPECT_TRUE(st.ok() || st.IsCorruption());
    if (st.ok() && width < 32) {
      for (uint32_t v : out) ASSERT_LE(v, MaskFor(width));
    }
  }
}

// ============================================================ legacy BIT_PACKED

TEST(BitPackedLegacyTest, SpecExample) {
  std::vector<uint8_t> bytes = {0x05, 0x39, 0x77};  // 0..7 at width 3, MSB-first
  std::vector<int16_t> out(8);
  ASSERT_TRUE(DecodeBitPackedLevelsLegacy(bytes.data(), bytes.size(), 3, out.data(), 8).ok());
  EXPECT_EQ(out, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(DecodeBitPackedLevelsLegacy(bytes.data(), 2, 3, out.data(), 8).IsCorruption());
  // 5 values need 15 bits = 2 bytes.
  ASSERT_TRUE(DecodeBitPackedLevelsLegacy(bytes.data(), 2, 3, out.data(), 5).ok());
  EXPECT_EQ(out[4], 4);
  EXPECT_TRUE(DecodeBitPackedLevelsLegacy(bytes.data(), 3, 17, out.data(), 1).IsCorruption());
  ASSERT_TRUE(DecodeBitPackedLevelsLegacy(nullptr, 0, 0, out.data(), 8).ok());
  EXPECT_EQ(out, std::vector<int16_t>(8, 0));
}

TEST(BitPackedLegacyTest, WidthSixteen) {
  std::vector<uint8_t> bytes = {0x12, 0x34, 0x7F, 0xFF};
  std::vector<int16_t> out(2);
  ASSERT_TRUE(DecodeBitPackedLevelsLegacy(bytes.data(), bytes.size(), 16, out.data(), 2).ok());
  EXPECT_EQ(out, (std::vector<int16_t>{0x1234, 0x7FFF}));
}

// ============================================================ PLAIN

TEST(PlainTest, FixedWidthRoundTrip) {
  std::mt19937_64 rng(13);
  struct Case { PhysicalType type; int32_t type_length; size_t width; };
  for (Case c : {Case{PhysicalType::kInt32, 0, 4}, Case{PhysicalType::kInt64, 0, 8},
                 Case{PhysicalType::kInt96, 0, 12}, Case{PhysicalType::kFloat, 0, 4},
                 Case{PhysicalType::kDouble, 0, 8},
                 Case{PhysicalType::kFixedLenByteArray, 5, 5}}) {
    std::vector<uint8_t> values(37 * c.width);
    for (auto& b : values) b = static_cast<uint8_t>(rng());
    Buffer encoded;
    EncodePlainFixed(c.type, c.type_length, values.data(), 37, &encoded);
    EXPECT_EQ(ToVec(encoded), values);
    Buffer fixed;
    fixed.Append(std::string_view("xy"));  // decoding appends
    Result<size_t> used =
        DecodePlain(c.type, c.type_length, encoded.view(), 37, &fixed, nullptr, nullptr);
    ASSERT_TRUE(used.ok());
    EXPECT_EQ(*used, values.size());
    EXPECT_EQ(std::vector<uint8_t>(fixed.data() + 2, fixed.data() + fixed.size()), values);
    // One byte short.
    Result<size_t> bad = DecodePlain(c.type, c.type_length, encoded.view().first(values.size() - 1),
                                     37, &fixed, nullptr, nullptr);
    EXPECT_TRUE(bad.status().IsCorruption());
  }
  Buffer fixed;
  EXPECT_TRUE(DecodePlain(PhysicalType::kFixedLenByteArray, 0, AsBytes("abc"), 1, &fixed,
                          nullptr, nullptr).status().IsCorruption());
  // A count whose byte size would overflow size_t.
  EXPECT_TRUE(DecodePlain(PhysicalType::kInt64, 0, AsBytes("abcdefgh"),
                          std::numeric_limits<size_t>::max() / 4, &fixed, nullptr, nullptr)
                  .status().IsCorruption());
}

TEST(PlainTest, BooleanIsBitPackedLsbFirst) {
  std::vector<uint8_t> bools = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  Buffer encoded;
  EncodePlainFixed(PhysicalType::kBoolean, 0, bools.data(), bools.size(), &encoded);
  EXPECT_EQ(ToVec(encoded), (std::vector<uint8_t>{0x0D, 0x03}));
  Buffer fixed;
  Result<size_t> used =
      DecodePlain(PhysicalType::kBoolean, 0, encoded.view(), bools.size(), &fixed, nullptr, nullptr);
  ASSERT_TRUE(used.ok());
  EXPECT_EQ(*used, 2u);
  EXPECT_EQ(ToVec(fixed), bools);
  EXPECT_TRUE(DecodePlain(PhysicalType::kBoolean, 0, encoded.view(), 17, &fixed, nullptr, nullptr)
                  .status().IsCorruption());
}

TEST(PlainTest, ByteArrayRoundTrip) {
  std::vector<std::string> strings = {"", "a", "hello", std::string(300, 'z'), ""};
  std::vector<int64_t> offsets = {0};
  std::string data;
  for (const auto& s : strings) {
    data += s;
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  Buffer encoded;
  EncodePlainByteArray(offsets.data(), reinterpret_cast<const uint8_t*>(data.data()),
                       strings.size(), &encoded);
  EXPECT_EQ(encoded.size(), 4 * strings.size() + data.size());
  std::vector<int64_t> out_offsets = {0};
  Buffer out_data;
  Result<size_t> used = DecodePlain(PhysicalType::kByteArray, 0, encoded.view(), strings.size(),
                                    nullptr, &out_offsets, &out_data);
  ASSERT_TRUE(used.ok());
  EXPECT_EQ(*used, encoded.size());
  EXPECT_EQ(out_offsets, offsets);
  EXPECT_EQ(std::string(AsStringView(out_data.view())), data);
  // Every truncation fails.
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    std::vector<int64_t> o = {0};
    Buffer d;
    Result<size_t> r = DecodePlain(PhysicalType::kByteArray, 0, encoded.view().first(cut),
                                   strings.size(), nullptr, &o, &d);
    EXPECT_TRUE(r.status().IsCorruption()) << cut;
  }
  // A length field larger than the page.
  std::vector<uint8_t> lying = {0xFF, 0xFF, 0xFF, 0x7F, 'a'};
  std::vector<int64_t> o = {0};
  Buffer d;
  EXPECT_TRUE(DecodePlain(PhysicalType::kByteArray, 0, View(lying), 1, nullptr, &o, &d)
                  .status().IsCorruption());
}

// ============================================================ DELTA_BINARY_PACKED

// Values whose consecutive deltas need about `width` bits.
template <typename T>
std::vector<T> DeltaValues(size_t n, int width, std::mt19937_64& rng) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> v(n);
  U cur = static_cast<U>(rng());
  const uint64_t mask = MaskFor(width);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(cur);
    cur = static_cast<U>(cur + static_cast<U>(rng() & mask));
  }
  return v;
}

template <typename T>
void CheckDeltaRoundTrip(const std::vector<T>& values) {
  constexpr bool kIs64 = sizeof(T) == 8;
  Buffer encoded;
  encoded.Append(std::string_view("pre"));  // encoders append
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(values.data()), values.size(), kIs64,
                          &encoded);
  ByteView stream = encoded.view().subspan(3);
  Result<uint64_t> count = DeltaBinaryPackedCount(stream);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, values.size());
  std::vector<uint8_t> out(values.size() * sizeof(T) + 1, 0xAB);
  Result<size_t> used = DecodeDeltaBinaryPacked(stream, values.size(), kIs64, out.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, stream.size());
  EXPECT_EQ(out.back(), 0xAB);
  ASSERT_EQ(FromRaw<T>(out.data(), values.size()), values);
  // Decoding a prefix of the values still reports the whole stream consumed.
  if (values.size() > 1) {
    size_t half = values.size() / 2;
    Result<size_t> part = DecodeDeltaBinaryPacked(stream, half, kIs64, out.data());
    ASSERT_TRUE(part.ok());
    EXPECT_EQ(*part, stream.size());
    EXPECT_EQ(FromRaw<T>(out.data(), half), std::vector<T>(values.begin(), values.begin() + half));
  }
  EXPECT_TRUE(DecodeDeltaBinaryPacked(stream, values.size() + 1, kIs64, out.data())
                  .status().IsCorruption());
}

TEST(DeltaBinaryPackedTest, RoundTripEveryWidth64) {
  std::mt19937_64 rng(17);
  for (int width = 0; width <= 64; ++width) {
    SCOPED_TRACE(width);
    for (size_t n : {size_t{2}, size_t{33}, size_t{129}, size_t{1000}}) {
      CheckDeltaRoundTrip(DeltaValues<int64_t>(n, width, rng));
    }
  }
}

TEST(DeltaBinaryPackedTest, RoundTripEveryWidth32) {
  std::mt19937_64 rng(19);
  for (int width = 0; width <= 32; ++width) {
    SCOPED_TRACE(width);
    for (size_t n : {size_t{2}, size_t{31}, size_t{128}, size_t{129}, size_t{777}}) {
      CheckDeltaRoundTrip(DeltaValues<int32_t>(n, width, rng));
    }
  }
}

TEST(DeltaBinaryPackedTest, EdgeCases) {
  CheckDeltaRoundTrip(std::vector<int32_t>{});
  CheckDeltaRoundTrip(std::vector<int32_t>{-5});
  CheckDeltaRoundTrip(std::vector<int64_t>{});
  CheckDeltaRoundTrip(std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  CheckDeltaRoundTrip(std::vector<int32_t>(1000, 12345));
  std::vector<int64_t> extremes;
  std::vector<int32_t> extremes32;
  for (int i = 0; i < 300; ++i) {
    extremes.push_back(i % 2 ? std::numeric_limits<int64_t>::max()
                             : std::numeric_limits<int64_t>::min());
    extremes32.push_back(i % 3 == 0   ? std::numeric_limits<int32_t>::max()
                         : i % 3 == 1 ? std::numeric_limits<int32_t>::min()
                                      : 0);
  }
  CheckDeltaRoundTrip(extremes);
  CheckDeltaRoundTrip(extremes32);
  std::vector<int64_t> descending;
  for (int i = 0; i < 500; ++i) descending.push_back(1000000 - 7 * i);
  CheckDeltaRoundTrip(descending);
}

TEST(DeltaBinaryPackedTest, Int32NeverUsesMoreThan32Bits) {
  std::vector<int32_t> values = {std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int32_t>::max(), 0};
  Buffer encoded;
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(values.data()), values.size(), false,
                          &encoded);
  // Header (4 varints) + min delta varint, then the first miniblock width byte.
  std::vector<uint8_t> bytes = ToVec(encoded);
  size_t pos = 0;
  for (int i = 0; i < 5; ++i) {
    while (bytes[pos] & 0x80) ++pos;
    ++pos;
  }
  EXPECT_LE(bytes[pos], 32);
}

TEST(DeltaBinaryPackedTest, SpecExamples) {
  // Example 1 (block size 8, as in Encodings.md): 1..5.
  std::vector<uint8_t> ex1 = {8, 1, 5, 2, /*min delta*/ 2, /*width*/ 0};
  std::vector<uint8_t> out(5 * 4);
  Result<size_t> used = DecodeDeltaBinaryPacked(View(ex1), 5, false, out.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, ex1.size());
  EXPECT_EQ(FromRaw<int32_t>(out.data(), 5), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  // Example 2: 7,5,3,1,2,3,4,5: min delta -2, relative 0,0,0,3,3,3,3 (+1 pad) at 2 bits.
  std::vector<uint8_t> ex2 = {8, 1, 8, 14, 3, 2, 0xC0, 0x3F};
  std::vector<uint8_t> out2(8 * 8);
  used = DecodeDeltaBinaryPacked(View(ex2), 8, true, out2.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, ex2.size());
  EXPECT_EQ(FromRaw<int64_t>(out2.data(), 8), (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
}

TEST(DeltaBinaryPackedTest, KnownEncoderOutput) {
  // 1..5 with the standard 128/4 layout: header 80 01 | 04 | 05 | 02, block: min delta 1
  // (zigzag 02) and four zero widths; no miniblock data.
  std::vector<int32_t> values = {1, 2, 3, 4, 5};
  Buffer encoded;
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(values.data()), 5, false, &encoded);
  EXPECT_EQ(ToVec(encoded), (std::vector<uint8_t>{0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0}));
}

TEST(DeltaBinaryPackedTest, ArbitraryUnusedWidthsAndPaddingAreAccepted) {
  // Block 128 / 4 miniblocks, 3 values: first 10, deltas +1,+3 -> min 1, relative 0,2.
  // Miniblock 0 at width 2 (8 bytes incl. padding full of garbage); unused widths 0xFF.
  std::vector<uint8_t> bytes = {0x80, 0x01, 4, 3, 20, 2, 2, 0xFF, 0xFF, 0xFF,
                                0x08 | 0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  std::vector<uint8_t> out(3 * 4);
  Result<size_t> used = DecodeDeltaBinaryPacked(View(bytes), 3, false, out.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, bytes.size());
  EXPECT_EQ(FromRaw<int32_t>(out.data(), 3), (std::vector<int32_t>{10, 11, 14}));
}

TEST(DeltaBinaryPackedTest, MalformedHeadersAndWidths) {
  std::vector<uint8_t> out(64 * 8);
  auto decode = [&](std::vector<uint8_t> bytes, size_t n) {
    return DecodeDeltaBinaryPacked(View(bytes), n, true, out.data()).status();
  };
  EXPECT_TRUE(decode({0, 1, 2, 0}, 2).IsCorruption());           // block size 0
  EXPECT_TRUE(decode({8, 0, 2, 0}, 2).IsCorruption());           // no miniblocks
  EXPECT_TRUE(decode({8, 3, 2, 0}, 2).IsCorruption());           // not a divisor
  EXPECT_TRUE(decode({12, 1, 2, 0}, 2).IsCorruption());          // miniblock of 12 values
  EXPECT_TRUE(decode({8, 1, 2, 0, 0, 65}, 2).IsCorruption());    // width 65
  EXPECT_TRUE(decode({8, 1, 2, 0, 0, 64}, 2).IsCorruption());    // width 64, no data
  EXPECT_TRUE(decode({}, 1).IsCorruption());
  EXPECT_TRUE(DeltaBinaryPackedCount(AsBytes("\x80")).status().IsCorruption());
  // 10-byte varint with bits beyond 64.
  EXPECT_TRUE(decode({8, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 1)
                  .IsCorruption());
  // Width 64 with full data decodes with wrapping arithmetic.
  std::vector<uint8_t> w64 = {8, 1, 2, 0, 0, 64};
  w64.insert(w64.end(), 64, 0xFF);
  ASSERT_TRUE(decode(w64, 2).ok());
  EXPECT_EQ(FromRaw<int64_t>(out.data(), 2), (std::vector<int64_t>{0, -1}));
  // Huge declared total with a tiny body: decoding beyond the data fails cleanly.
  std::vector<uint8_t> huge = {8, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 2, 1, 0xAA};
  EXPECT_TRUE(decode(huge, 64).IsCorruption());
}

TEST(DeltaBinaryPackedTest, EveryTruncationIsCorruption) {
  std::mt19937_64 rng(23);
  for (int width : {0, 5, 33, 64}) {
    std::vector<int64_t> values = DeltaValues<int64_t>(300, width, rng);
    Buffer encoded;
    EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(values.data()), values.size(), true,
                            &encoded);
    std::vector<uint8_t> out(values.size() * 8);
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      Result<size_t> r =
          DecodeDeltaBinaryPacked(encoded.view().first(cut), values.size(), true, out.data());
      EXPECT_TRUE(r.status().IsCorruption()) << width << " " << cut;
    }
  }
}

TEST(DeltaBinaryPackedTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(29);
  std::vector<uint8_t> out(300 * 8);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> bytes(rng() % 48);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % 8 : rng());
    Result<size_t> r = DecodeDeltaBinaryPacked(View(bytes), rng() % 300, rng() % 2, out.data());
    EXPECT_TRUE(r.ok() || r.status().IsCorruption());
    if (r.ok()) {
      EXPECT_LE(*r, bytes.size());
    }
  }
}

// ============================================================ DELTA_LENGTH_BYTE_ARRAY

struct Strings {
  std::vector<int64_t> offsets{0};
  std::string data;
  void Add(std::string_view s) {
    data += s;
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  size_t size() const { return offsets.size() - 1; }
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(data.data()); }
};

Strings RandomStrings(size_t n, std::mt19937_64& rng) {
  Strings s;
  std::string prev;
  for (size_t i = 0; i < n; ++i) {
    // Shares a prefix with the previous value half the time, like sorted keys.
    std::string v = (rng() % 2) ? prev.substr(0, rng() % (prev.size() + 1)) : std::string();
    size_t extra = rng() % 20;
    for (size_t j = 0; j < extra; ++j) v.push_back(static_cast<char>('a' + rng() % 26));
    s.Add(v);
    prev = v;
  }
  return s;
}

TEST(DeltaLengthByteArrayTest, SpecExampleAndRoundTrip) {
  Strings s;
  for (const char* v : {"Hello", "World", "Foobar", "ABCDEF"}) s.Add(v);
  Buffer encoded;
  EncodeDeltaLengthByteArray(s.offsets.data(), s.bytes(), s.size(), &encoded);
  std::string tail(AsStringView(encoded.view().last(22)));
  EXPECT_EQ(tail, "HelloWorldFoobarABCDEF");
  // The lengths stream decodes to 5, 5, 6, 6.
  std::vector<uint8_t> lens(16);
  ASSERT_TRUE(DecodeDeltaBinaryPacked(encoded.view(), 4, false, lens.data()).ok());
  EXPECT_EQ(FromRaw<int32_t>(lens.data(), 4), (std::vector<int32_t>{5, 5, 6, 6}));

  std::mt19937_64 rng(31);
  for (size_t n : {size_t{0}, size_t{1}, size_t{127}, size_t{1000}}) {
    Strings in = RandomStrings(n, rng);
    Buffer enc;
    EncodeDeltaLengthByteArray(in.offsets.data(), in.bytes(), in.size(), &enc);
    std::vector<int64_t> offsets = {0};
    Buffer data;
    Result<size_t> used = DecodeDeltaLengthByteArray(enc.view(), n, &offsets, &data);
    ASSERT_TRUE(used.ok()) << used.status().ToString();
    EXPECT_EQ(*used, enc.size());
    EXPECT_EQ(offsets, in.offsets);
    EXPECT_EQ(std::string(AsStringView(data.view())), in.data);
  }
}

TEST(DeltaLengthByteArrayTest, PartialDecodeAndOffsetsContinue) {
  Strings s;
  for (const char* v : {"ab", "", "cde", "f"}) s.Add(v);
  Buffer enc;
  EncodeDeltaLengthByteArray(s.offsets.data(), s.bytes(), s.size(), &enc);
  std::vector<int64_t> offsets = {0, 3};
  Buffer data;
  data.Append(std::string_view("xyz"));  // values from an earlier page
  ASSERT_TRUE(DecodeDeltaLengthByteArray(enc.view(), 3, &offsets, &data).ok());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 5, 5, 8}));
  EXPECT_EQ(std::string(AsStringView(data.view())), "xyzabcde");
}

TEST(DeltaLengthByteArrayTest, MalformedIsCorruption) {
  Strings s;
  for (const char* v : {"alpha", "beta", "gamma"}) s.Add(v);
  Buffer enc;
  EncodeDeltaLengthByteArray(s.offsets.data(), s.bytes(), s.size(), &enc);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    std::vector<int64_t> offsets = {0};
    Buffer data;
    EXPECT_TRUE(DecodeDeltaLengthByteArray(enc.view().first(cut), 3, &offsets, &data)
                    .status().IsCorruption())
        << cut;
  }
  // Negative length.
  std::vector<int32_t> lens = {3, -1};
  Buffer neg;
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(lens.data()), 2, false, &neg);
  neg.Append(std::string_view("abcdef"));
  std::vector<int64_t> offsets = {0};
  Buffer data;
  EXPECT_TRUE(DecodeDeltaLengthByteArray(neg.view(), 2, &offsets, &data).status().IsCorruption());
}

// ============================================================ DELTA_BYTE_ARRAY

TEST(DeltaByteArrayTest, SpecExample) {
  Strings s;
  for (const char* v : {"axis", "axle", "babble", "babyhood"}) s.Add(v);
  Buffer enc;
  EncodeDeltaByteArray(s.offsets.data(), s.bytes(), s.size(), &enc);
  std::vector<uint8_t> prefixes(16);
  Result<size_t> prefix_end = DecodeDeltaBinaryPacked(enc.view(), 4, false, prefixes.data());
  ASSERT_TRUE(prefix_end.ok());
  EXPECT_EQ(FromRaw<int32_t>(prefixes.data(), 4), (std::vector<int32_t>{0, 2, 0, 3}));
  std::vector<uint8_t> suffixes(16);
  ByteView rest = enc.view().subspan(*prefix_end);
  Result<size_t> suffix_end = DecodeDeltaBinaryPacked(rest, 4, false, suffixes.data());
  ASSERT_TRUE(suffix_end.ok());
  EXPECT_EQ(FromRaw<int32_t>(suffixes.data(), 4), (std::vector<int32_t>{4, 2, 6, 5}));
  EXPECT_EQ(std::string(AsStringView(rest.subspan(*suffix_end))), "axislebabbleyhood");

  std::vector<int64_t> offsets = {0};
  Buffer data;
  Result<size_t> used = DecodeDeltaByteArray(PhysicalType::kByteArray, 0, enc.view(), 4, nullptr,
                                             &offsets, &data);
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, enc.size());
  EXPECT_EQ(offsets, s.offsets);
  EXPECT_EQ(std::string(AsStringView(data.view())), s.data);
}

TEST(DeltaByteArrayTest, RoundTripRandom) {
  std::mt19937_64 rng(37);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{129}, size_t{2000}}) {
    Strings in = RandomStrings(n, rng);
    Buffer enc;
    EncodeDeltaByteArray(in.offsets.data(), in.bytes(), in.size(), &enc);
    std::vector<int64_t> offsets = {0};
    Buffer data;
    Result<size_t> used = DecodeDeltaByteArray(PhysicalType::kByteArray, 0, enc.view(), n,
                                               nullptr, &offsets, &data);
    ASSERT_TRUE(used.ok()) << used.status().ToString();
    EXPECT_EQ(*used, enc.size());
    EXPECT_EQ(offsets, in.offsets);
    EXPECT_EQ(std::string(AsStringView(data.view())), in.data);
    if (n > 2) {  // a prefix of the values
      std::vector<int64_t> o = {0};
      Buffer d;
      ASSERT_TRUE(DecodeDeltaByteArray(PhysicalType::kByteArray, 0, enc.view(), n / 2, nullptr,
                                       &o, &d).ok());
      EXPECT_EQ(o, std::vector<int64_t>(in.offsets.begin(), in.offsets.begin() + n / 2 + 1));
    }
  }
}

TEST(DeltaByteArrayTest, FixedLenByteArray) {
  Strings s;
  for (const char* v : {"abcd", "abce", "abce", "zzzz", "zzaa"}) s.Add(v);
  Buffer enc;
  EncodeDeltaByteArray(s.offsets.data(), s.bytes(), s.size(), &enc);
  Buffer fixed;
  Result<size_t> used = DecodeDeltaByteArray(PhysicalType::kFixedLenByteArray, 4, enc.view(), 5,
                                             &fixed, nullptr, nullptr);
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(std::string(AsStringView(fixed.view())), s.data);
  Buffer wrong;
  EXPECT_TRUE(DecodeDeltaByteArray(PhysicalType::kFixedLenByteArray, 3, enc.view(), 5, &wrong,
                                   nullptr, nullptr).status().IsCorruption());
}

TEST(DeltaByteArrayTest, MalformedIsCorruption) {
  Strings s;
  for (const char* v : {"prefix1", "prefix2", "prefix33"}) s.Add(v);
  Buffer enc;
  EncodeDeltaByteArray(s.offsets.data(), s.bytes(), s.size(), &enc);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    std::vector<int64_t> offsets = {0};
    Buffer data;
    EXPECT_TRUE(DecodeDeltaByteArray(PhysicalType::kByteArray, 0, enc.view().first(cut), 3,
                                     nullptr, &offsets, &data).status().IsCorruption())
        << cut;
  }
  // Prefix longer than the previous value (first value has no previous value).
  std::vector<int32_t> prefixes = {2, 0};
  std::vector<int32_t> suffixes = {1, 1};
  Buffer bad;
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(prefixes.data()), 2, false, &bad);
  EncodeDeltaBinaryPacked(reinterpret_cast<const uint8_t*>(suffixes.data()), 2, false, &bad);
  bad.Append(std::string_view("ab"));
  std::vector<int64_t> offsets = {0};
  Buffer data;
  EXPECT_TRUE(DecodeDeltaByteArray(PhysicalType::kByteArray, 0, bad.view(), 2, nullptr, &offsets,
                                   &data).status().IsCorruption());
}

TEST(DeltaByteArrayTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(41);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % 8 : rng());
    size_t n = rng() % 50;
    std::vector<int64_t> offsets = {0};
    Buffer data, fixed;
    Result<size_t> a = DecodeDeltaByteArray(PhysicalType::kByteArray, 0, View(bytes), n, nullptr,
                                            &offsets, &data);
    EXPECT_TRUE(a.ok() || a.status().IsCorruption());
    Result<size_t> b = DecodeDeltaLengthByteArray(View(bytes), n, &offsets, &data);
    EXPECT_TRUE(b.ok() || b.status().IsCorruption());
    Result<size_t> c = DecodeDeltaByteArray(PhysicalType::kFixedLenByteArray, 3, View(bytes), n,
                                            &fixed, nullptr, nullptr);
    EXPECT_TRUE(c.ok() || c.status().IsCorruption());
  }
}

// ============================================================ BYTE_STREAM_SPLIT

TEST(ByteStreamSplitTest, SpecExample) {
  std::vector<uint8_t> values = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
                                 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
  std::vector<uint8_t> expect = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
                                 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
  Buffer enc;
  EncodeByteStreamSplit(values.data(), 3, 4, &enc);
  EXPECT_EQ(ToVec(enc), expect);
  Buffer dec;
  ASSERT_TRUE(DecodeByteStreamSplit(enc.view(), 4, 3, 3, &dec).ok());
  EXPECT_EQ(ToVec(dec), values);
  Buffer part;
  ASSERT_TRUE(DecodeByteStreamSplit(enc.view(), 4, 3, 2, &part).ok());
  EXPECT_EQ(ToVec(part), std::vector<uint8_t>(values.begin(), values.begin() + 8));
}

TEST(ByteStreamSplitTest, RoundTripAnyWidth) {
  std::mt19937_64 rng(43);
  for (size_t width = 1; width <= 17; ++width) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{1000}}) {
      std::vector<uint8_t> values(width * n);
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      Buffer enc;
      EncodeByteStreamSplit(values.data(), n, width, &enc);
      ASSERT_EQ(enc.size(), values.size());
      Buffer dec;
      ASSERT_TRUE(DecodeByteStreamSplit(enc.view(), width, n, n, &dec).ok());
      EXPECT_EQ(ToVec(dec), values) << width << " " << n;
    }
  }
}

TEST(ByteStreamSplitTest, SizeMismatchIsCorruption) {
  std::vector<uint8_t> bytes(13);
  Buffer out;
  EXPECT_TRUE(DecodeByteStreamSplit(View(bytes), 4, 3, 3, &out).IsCorruption());
  EXPECT_TRUE(DecodeByteStreamSplit(View(bytes), 4, 4, 3, &out).IsCorruption());
  EXPECT_TRUE(DecodeByteStreamSplit(View(bytes).first(12), 4, 3, 4, &out).IsCorruption());
  EXPECT_TRUE(DecodeByteStreamSplit(View(bytes), 8, std::numeric_limits<size_t>::max() / 4, 1,
                                    &out).IsCorruption());
  EXPECT_FALSE(DecodeByteStreamSplit(View(bytes), 0, 0, 0, &out).ok());
}

// ============================================================ corpus files

using testing_util::CorpusPath;
using testing_util::DecodedPage;
using testing_util::ReadChunkPages;
using testing_util::ReadFooter;
using testing_util::ReadWholeFile;

struct FlatColumn {
  std::string name;
  PhysicalType type;
  int32_t type_length;
  int max_def;
  std::vector<DecodedPage> pages;
};

// Reads every column of a flat (non-nested) file, single row group.
std::vector<FlatColumn> ReadFlatColumns(const std::string& rel) {
  std::vector<FlatColumn> out;
  std::vector<uint8_t> file = ReadWholeFile(CorpusPath(rel));
  Result<FileMetaData> md = ReadFooter(file);
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  if (!md.ok()) return out;
  EXPECT_EQ(md->row_groups.size(), 1u);
  const auto& cols = md->row_groups[0].columns;
  EXPECT_EQ(md->schema.size(), cols.size() + 1);  // flat
  for (size_t i = 0; i < cols.size() && i + 1 < md->schema.size(); ++i) {
    const SchemaElement& se = md->schema[i + 1];
    FlatColumn c{se.name, se.type.value_or(PhysicalType::kInt32), se.type_length.value_or(0),
                 se.repetition_type == Repetition::kOptional ? 1 : 0, {}};
    Result<std::vector<DecodedPage>> pages = ReadChunkPages(file, *cols[i].meta_data);
    EXPECT_TRUE(pages.ok()) << pages.status().ToString();
    if (pages.ok()) c.pages = std::move(*pages);
    out.push_back(std::move(c));
  }
  return out;
}

// A data page's value section and its definition levels (empty when required).
struct PageValues {
  Encoding encoding = Encoding::kPlain;
  std::vector<int16_t> defs;
  size_t num_values = 0;  // incl. nulls
  size_t non_null = 0;
  ByteView values;
};

bool SplitDataPage(const DecodedPage& page, int max_def, PageValues* out) {
  const uint8_t* body = page.body.data();
  const size_t size = page.body.size();
  size_t def_pos = 0, def_len = 0, values_pos = 0;
  if (page.header.data_page_header) {
    out->encoding = page.header.data_page_header->encoding;
    out->num_values = static_cast<size_t>(page.header.data_page_header->num_values);
    if (max_def > 0) {
      uint32_t len;
      EXPECT_GE(size, 4u);
      std::memcpy(&len, body, 4);
      def_pos = 4;
      def_len = len;
    }
    values_pos = def_pos + def_len;
  } else if (page.header.data_page_header_v2) {
    const auto& v2 = *page.header.data_page_header_v2;
    out->encoding = v2.encoding;
    out->num_values = static_cast<size_t>(v2.num_values);
    def_pos = static_cast<size_t>(v2.repetition_levels_byte_length);
    def_len = static_cast<size_t>(v2.definition_levels_byte_length);
    values_pos = def_pos + def_len;
  } else {
    return false;  // dictionary or index page
  }
  EXPECT_LE(values_pos, size);
  out->defs.assign(out->num_values, static_cast<int16_t>(max_def));
  if (max_def > 0) {
    RleBitPackedDecoder dec(body + def_pos, def_len, BitWidth(static_cast<uint64_t>(max_def)));
    EXPECT_TRUE(dec.Decode(out->defs.data(), out->num_values).ok());
  }
  out->non_null = 0;
  for (int16_t d : out->defs) out->non_null += d == max_def;
  out->values = ByteView(body + values_pos, size - values_pos);
  return true;
}

std::vector<std::vector<std::string>> ReadCsv(const std::string& rel) {
  std::ifstream in(CorpusPath(rel));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        fields.emplace_back();
      } else if (ch != '\r') {
        fields.back().push_back(ch);
      }
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

TEST(CorpusEncodingTest, DeltaBinaryPackedEveryBitWidth) {
  auto cols = ReadFlatColumns("parquet-testing/data/delta_binary_packed.parquet");
  auto csv = ReadCsv("parquet-testing/data/delta_binary_packed_expect.csv");
  ASSERT_EQ(csv.size(), 201u);
  ASSERT_EQ(cols.size(), csv[0].size());
  for (size_t c = 0; c < cols.size(); ++c) {
    SCOPED_TRACE(cols[c].name);
    ASSERT_EQ(cols[c].name, csv[0][c]);
    const bool is_64 = cols[c].type == PhysicalType::kInt64;
    std::vector<int64_t> got;
    for (const DecodedPage& page : cols[c].pages) {
      PageValues pv;
      if (!SplitDataPage(page, cols[c].max_def, &pv)) continue;
      ASSERT_EQ(pv.encoding, Encoding::kDeltaBinaryPacked);
      ASSERT_EQ(pv.non_null, pv.num_values);  // no nulls in this file
      std::vector<uint8_t> raw(pv.non_null * 8);
      Result<size_t> used = DecodeDeltaBinaryPacked(pv.values, pv.non_null, is_64, raw.data());
      ASSERT_TRUE(used.ok()) << used.status().ToString();
      EXPECT_EQ(*used, pv.values.size());
      for (size_t i = 0; i < pv.non_null; ++i) {
        got.push_back(is_64 ? FromRaw<int64_t>(raw.data() + i * 8, 1)[0]
                            : FromRaw<int32_t>(raw.data() + i * 4, 1)[0]);
      }
    }
    ASSERT_EQ(got.size(), 200u);
    for (size_t r = 0; r < 200; ++r) ASSERT_EQ(got[r], std::stoll(csv[r + 1][c])) << r;
  }
}

TEST(CorpusEncodingTest, DeltaByteArrayStrings) {
  auto cols = ReadFlatColumns("parquet-testing/data/delta_byte_array.parquet");
  auto csv = ReadCsv("parquet-testing/data/delta_byte_array_expect.csv");
  ASSERT_EQ(csv.size(), 1001u);
  ASSERT_EQ(cols.size(), csv[0].size());
  for (size_t c = 0; c < cols.size(); ++c) {
    SCOPED_TRACE(cols[c].name);
    std::vector<std::string> got;  // "" for null, as in the CSV
    for (const DecodedPage& page : cols[c].pages) {
      PageValues pv;
      if (!SplitDataPage(page, cols[c].max_def, &pv)) continue;
      ASSERT_EQ(pv.encoding, Encoding::kDeltaByteArray);
      std::vector<int64_t> offsets = {0};
      Buffer data;
      Result<size_t> used = DecodeDeltaByteArray(PhysicalType::kByteArray, 0, pv.values,
                                                 pv.non_null, nullptr, &offsets, &data);
      ASSERT_TRUE(used.ok()) << used.status().ToString();
      EXPECT_EQ(*used, pv.values.size());
      size_t k = 0;
      for (int16_t d : pv.defs) {
        if (d < cols[c].max_def) {
          got.emplace_back();
          continue;
        }
        got.emplace_back(reinterpret_cast<const char*>(data.data()) + offsets[k],
                         static_cast<size_t>(offsets[k + 1] - offsets[k]));
        ++k;
      }
    }
    ASSERT_EQ(got.size(), 1000u);
    for (size_t r = 0; r < 1000; ++r) ASSERT_EQ(got[r], csv[r + 1][c]) << r;
  }
}

TEST(CorpusEncodingTest, DeltaLengthByteArrayDecodesWholePages) {
  auto cols = ReadFlatColumns("parquet-testing/data/delta_length_byte_array.parquet");
  ASSERT_EQ(cols.size(), 1u);
  size_t total = 0;
  for (const DecodedPage& page : cols[0].pages) {
    PageValues pv;
    if (!SplitDataPage(page, cols[0].max_def, &pv)) continue;
    ASSERT_EQ(pv.encoding, Encoding::kDeltaLengthByteArray);
    std::vector<int64_t> offsets = {0};
    Buffer data;
    Result<size_t> used = DecodeDeltaLengthByteArray(pv.values, pv.non_null, &offsets, &data);
    ASSERT_TRUE(used.ok()) << used.status().ToString();
    EXPECT_EQ(*used, pv.values.size());
    total += pv.non_null;
  }
  EXPECT_EQ(total, 1000u);
}

// Each BYTE_STREAM_SPLIT column has a PLAIN twin holding the same values.
TEST(CorpusEncodingTest, ByteStreamSplitMatchesPlainTwins) {
  auto cols = ReadFlatColumns("parquet-testing/data/byte_stream_split_extended.gzip.parquet");
  std::map<std::string, std::vector<uint8_t>> plain, split;
  for (const FlatColumn& col : cols) {
    size_t width = 0;
    switch (col.type) {
      case PhysicalType::kInt32: case PhysicalType::kFloat: width = 4; break;
      case PhysicalType::kInt64: case PhysicalType::kDouble: width = 8; break;
      case PhysicalType::kFixedLenByteArray: width = static_cast<size_t>(col.type_length); break;
      default: FAIL() << col.name;
    }
    std::vector<uint8_t> values;
    for (const DecodedPage& page : col.pages) {
      PageValues pv;
      if (!SplitDataPage(page, col.max_def, &pv)) continue;
      Buffer out;
      if (pv.encoding == Encoding::kByteStreamSplit) {
        ASSERT_EQ(pv.values.size() % width, 0u);
        ASSERT_TRUE(DecodeByteStreamSplit(pv.values, width, pv.values.size() / width, pv.non_null,
                                          &out).ok());
      } else {
        ASSERT_EQ(pv.encoding, Encoding::kPlain) << col.name;
        Result<size_t> used = DecodePlain(col.type, col.type_length, pv.values, pv.non_null, &out,
                                          nullptr, nullptr);
        ASSERT_TRUE(used.ok());
      }
      values.insert(values.end(), out.data(), out.data() + out.size());
    }
    // Names are "<kind>_plain" / "<kind>_byte_stream_split".
    const size_t cut = col.name.rfind("_plain");
    if (cut != std::string::npos && cut + 6 == col.name.size()) {
      plain[col.name.substr(0, cut)] = values;
    } else {
      const size_t bss = col.name.rfind("_byte_stream_split");
      ASSERT_NE(bss, std::string::npos) << col.name;
      split[col.name.substr(0, bss)] = values;
    }
  }
  ASSERT_GE(split.size(), 5u);
  for (const auto& [kind, values] : split) {
    SCOPED_TRACE(kind);
    ASSERT_TRUE(plain.count(kind));
    EXPECT_FALSE(values.empty());
    EXPECT_EQ(values, plain[kind]);
  }
}

// PutMany and PutLevels step over runs a word at a time; the bytes must be exactly those
// of one Put per value (runs of every length around the word size, at every alignment).
TEST(RleTest, BulkPutsEqualOnePutPerValue) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 400; ++round) {
    const int width = 1 + static_cast<int>(rng() % 16);
    std::vector<uint32_t> values;
    const size_t n = rng() % 3000;
    while (values.size() < n) {
      const uint32_t v = static_cast<uint32_t>(rng() & MaskFor(width));
      const size_t run = (rng() % 3 == 0) ? 1 + rng() % 700 : 1 + rng() % 9;
      for (size_t i = 0; i < run && values.size() < n; ++i) values.push_back(v);
    }
    std::vector<int16_t> levels(values.begin(), values.end());
    RleBitPackedEncoder one(width), many(width), lv(width);
    for (uint32_t v : values) one.Put(v);
    // Split the bulk calls at random points so runs also continue across calls.
    for (size_t i = 0; i < values.size();) {
      const size_t len = std::min(values.size() - i, 1 + static_cast<size_t>(rng() % 500));
      many.PutMany(values.data() + i, len);
      lv.PutLevels(levels.data() + i, len);
      i += len;
    }
    Buffer a, b, c;
    one.Flush(&a);
    many.Flush(&b);
    lv.Flush(&c);
    ASSERT_EQ(ToVec(a), ToVec(b)) << round;
    ASSERT_EQ(ToVec(a), ToVec(c)) << round;
  }
}

}  // namespace
}  // namespace lithify::parquet
