#include "lithify/parquet/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace lithify::parquet {
namespace {

// The first 8 bytes of `v` as a big-endian number, missing bytes as 0. Where the prefixes
// of two strings differ, they order the strings as the unsigned byte-wise comparison
// does: at the first differing byte either both strings have it, or the shorter one ends
// there (0 against a non-zero byte) and, being a prefix of the other, is the smaller.
// Equal prefixes decide nothing (a missing byte and a 0 byte look alike).
inline uint64_t OrderPrefix(std::string_view v) {
  uint64_t x = 0;
  if (v.size() >= 8) {
    std::memcpy(&x, v.data(), 8);  // a fixed-size copy: one load
  } else if (!v.empty()) {
    std::memcpy(&x, v.data(), v.size());
  }
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  return x;
}

using Kind = ColumnStatistics::Kind;
using LK = LogicalType::Kind;

SortOrder PhysicalSortOrder(PhysicalType t) {
  switch (t) {
    case PhysicalType::kInt96:
      return SortOrder::kUndefined;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return SortOrder::kUnsigned;
    default:
      return SortOrder::kSigned;
  }
}

// std::nullopt-like: returns false when the converted type says nothing about order.
bool ConvertedSortOrder(ConvertedType c, SortOrder* out) {
  switch (c) {
    case ConvertedType::kUtf8:
    case ConvertedType::kEnum:
    case ConvertedType::kJson:
    case ConvertedType::kBson:
    case ConvertedType::kUint8:
    case ConvertedType::kUint16:
    case ConvertedType::kUint32:
    case ConvertedType::kUint64:
      *out = SortOrder::kUnsigned;
      return true;
    case ConvertedType::kInt8:
    case ConvertedType::kInt16:
    case ConvertedType::kInt32:
    case ConvertedType::kInt64:
    case ConvertedType::kDecimal:
    case ConvertedType::kDate:
    case ConvertedType::kTimeMillis:
    case ConvertedType::kTimeMicros:
    case ConvertedType::kTimestampMillis:
    case ConvertedType::kTimestampMicros:
      *out = SortOrder::kSigned;
      return true;
    case ConvertedType::kInterval:
      *out = SortOrder::kUndefined;
      return true;
    default:
      return false;
  }
}

Kind KindFor(const SchemaElement& e) {
  SortOrder order = LeafSortOrder(e);
  if (order == SortOrder::kUndefined || !e.type) return Kind::kNone;
  bool is_unsigned = order == SortOrder::kUnsigned;
  switch (*e.type) {
    case PhysicalType::kBoolean: return Kind::kBoolean;
    case PhysicalType::kInt32: return is_unsigned ? Kind::kUInt32 : Kind::kInt32;
    case PhysicalType::kInt64: return is_unsigned ? Kind::kUInt64 : Kind::kInt64;
    case PhysicalType::kInt96: return Kind::kNone;
    case PhysicalType::kFloat: return Kind::kFloat;
    case PhysicalType::kDouble: return Kind::kDouble;
    case PhysicalType::kByteArray:
      return is_unsigned ? Kind::kBytesUnsigned : Kind::kBytesSigned;
    case PhysicalType::kFixedLenByteArray:
      if (e.logical_type.kind == LK::kFloat16) {
        return e.type_length.value_or(0) == 2 ? Kind::kFloat16 : Kind::kNone;
      }
      return is_unsigned ? Kind::kBytesUnsigned : Kind::kBytesSigned;
  }
  return Kind::kNone;
}

template <typename T>
T Load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
std::string_view Bytes(const T& v) {
  return {reinterpret_cast<const char*>(&v), sizeof(T)};
}

// Signed big-endian two's-complement comparison of possibly different lengths.
int CompareSignedBigEndian(std::string_view a, std::string_view b) {
  auto byte = [](std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); };
  bool neg_a = !a.empty() && (byte(a, 0) & 0x80);
  bool neg_b = !b.empty() && (byte(b, 0) & 0x80);
  if (neg_a != neg_b) return neg_a ? -1 : 1;
  size_t len = std::max(a.size(), b.size());
  uint8_t pad = neg_a ? 0xFF : 0x00;
  size_t off_a = len - a.size();
  size_t off_b = len - b.size();
  for (size_t i = 0; i < len; ++i) {
    uint8_t x = i < off_a ? pad : byte(a, i - off_a);
    uint8_t y = i < off_b ? pad : byte(b, i - off_b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Min/max of n packed values of arithmetic type T; NaNs skipped and counted into
// *nans. Returns false when no orderable value was seen.
template <typename T>
bool ArithmeticMinMax(const uint8_t* p, int64_t n, T* out_min, T* out_max, int64_t* nans) {
  int64_t i = 0;
  if constexpr (std::is_floating_point_v<T>) {
    while (i < n && std::isnan(Load<T>(p + i * sizeof(T)))) ++i;
    *nans += i;
  }
  if (i == n) return false;
  T lo = Load<T>(p + i * sizeof(T));
  T hi = lo;
  int64_t unordered = 0;
  for (++i; i < n; ++i) {
    T v = Load<T>(p + i * sizeof(T));
    // NaN compares false both ways, so it never replaces lo/hi.
    lo = v < lo ? v : lo;
    hi = hi < v ? v : hi;
    if constexpr (std::is_floating_point_v<T>) unordered += v != v;
  }
  *nans += unordered;
  *out_min = lo;
  *out_max = hi;
  return true;
}

}  // namespace

SortOrder LeafSortOrder(const SchemaElement& e) {
  switch (e.logical_type.kind) {
    case LK::kString: case LK::kEnum: case LK::kJson: case LK::kBson: case LK::kUuid:
      return SortOrder::kUnsigned;
    case LK::kDecimal: case LK::kDate: case LK::kTime: case LK::kTimestamp:
    case LK::kFloat16:
      return SortOrder::kSigned;
    case LK::kInteger:
      return e.logical_type.is_signed ? SortOrder::kSigned : SortOrder::kUnsigned;
    case LK::kVariant: case LK::kGeometry: case LK::kGeography: case LK::kUnsupported:
      return SortOrder::kUndefined;
    case LK::kNone: case LK::kUnknown: case LK::kMap: case LK::kList:
      break;
  }
  SortOrder order;
  if (e.converted_type && ConvertedSortOrder(*e.converted_type, &order)) return order;
  return e.type ? PhysicalSortOrder(*e.type) : SortOrder::kUndefined;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  float magnitude;
  if (exp == 0) {
    magnitude = std::ldexp(static_cast<float>(mant), -24);  // subnormal (or zero)
  } else if (exp == 31) {
    magnitude = mant ? std::numeric_limits<float>::quiet_NaN()
                     : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -magnitude : magnitude;
}

bool IncrementBytes(std::string* s) {
  while (!s->empty()) {
    auto& last = reinterpret_cast<uint8_t&>(s->back());
    if (last != 0xFF) {
      ++last;
      return true;
    }
    s->pop_back();
  }
  return false;
}

int CompareStatValues(Kind kind, std::string_view a, std::string_view b) {
  switch (kind) {
    case Kind::kNone: return 0;
    case Kind::kBoolean: return Cmp<uint8_t>(a[0] != 0, b[0] != 0);
    case Kind::kInt32: return Cmp(Load<int32_t>(a.data()), Load<int32_t>(b.data()));
    case Kind::kUInt32: return Cmp(Load<uint32_t>(a.data()), Load<uint32_t>(b.data()));
    case Kind::kInt64: return Cmp(Load<int64_t>(a.data()), Load<int64_t>(b.data()));
    case Kind::kUInt64: return Cmp(Load<uint64_t>(a.data()), Load<uint64_t>(b.data()));
    case Kind::kFloat: return Cmp(Load<float>(a.data()), Load<float>(b.data()));
    case Kind::kDouble: return Cmp(Load<double>(a.data()), Load<double>(b.data()));
    case Kind::kFloat16:
      return Cmp(HalfToFloat(Load<uint16_t>(a.data())), HalfToFloat(Load<uint16_t>(b.data())));
    case Kind::kBytesUnsigned: {
      int c = a.compare(b);  // char_traits<char> compares as unsigned char
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kBytesSigned: return CompareSignedBigEndian(a, b);
  }
  return 0;
}

ColumnStatistics::ColumnStatistics(const SchemaElement& leaf, int32_t max_statistics_size)
    : kind_(KindFor(leaf)),
      physical_(leaf.type.value_or(PhysicalType::kInt32)),
      type_length_(leaf.type_length.value_or(0)),
      max_size_(max_statistics_size) {
  legacy_compatible_ = kind_ == Kind::kBoolean || kind_ == Kind::kInt32 ||
                       kind_ == Kind::kInt64 || kind_ == Kind::kFloat ||
                       kind_ == Kind::kDouble;
}

void ColumnStatistics::Reset() {
  null_count_ = 0;
  nan_count_ = 0;
  has_min_max_ = false;
  min_.clear();
  max_.clear();
}

void ColumnStatistics::UpdateMinMax(std::string_view lo, std::string_view hi) {
  if (!has_min_max_) {
    min_.assign(lo);
    max_.assign(hi);
    has_min_max_ = true;
    return;
  }
  if (CompareStatValues(kind_, lo, min_) < 0) min_.assign(lo);
  if (CompareStatValues(kind_, hi, max_) > 0) max_.assign(hi);
}

void ColumnStatistics::AddValues(const ColumnValues& values, int64_t begin, int64_t end) {
  if (values.is_dictionary()) {
    // The values gathered (NaNs count per value); a writer that passes dictionaries
    // through adds each entry once where it can (ColumnChunkWriter).
    ColumnValues plain;
    plain.type = values.type;
    plain.type_length = values.type_length;
    plain.AppendGathered(*values.dictionary, values.indices.data() + begin, end - begin);
    AddValues(plain, 0, plain.count);
    return;
  }
  if (values.is_byte_array()) {
    AddByteArrays(values.offsets.data(), values.data.data(), begin, end);
  } else {
    AddFixed(values.fixed.data() + begin * values.width(), end - begin);
  }
}

void ColumnStatistics::AddFixed(const uint8_t* p, int64_t n) {
  if (n <= 0) return;
  switch (kind_) {
    case Kind::kNone:
      return;
    case Kind::kBoolean: {
      uint8_t lo = 1, hi = 0;
      for (int64_t i = 0; i < n; ++i) {
        uint8_t v = p[i] != 0;
        lo &= v;
        hi |= v;
      }
      UpdateMinMax(Bytes(lo), Bytes(hi));
      return;
    }
#define LITHIFY_ARITH_CASE(K, T)                                   \
  case K: {                                                        \
    T lo, hi;                                                      \
    if (ArithmeticMinMax<T>(p, n, &lo, &hi, &nan_count_)) UpdateMinMax(Bytes(lo), Bytes(hi)); \
    return;                                                        \
  }
      LITHIFY_ARITH_CASE(Kind::kInt32, int32_t)
      LITHIFY_ARITH_CASE(Kind::kUInt32, uint32_t)
      LITHIFY_ARITH_CASE(Kind::kInt64, int64_t)
      LITHIFY_ARITH_CASE(Kind::kUInt64, uint64_t)
      LITHIFY_ARITH_CASE(Kind::kFloat, float)
      LITHIFY_ARITH_CASE(Kind::kDouble, double)
#undef LITHIFY_ARITH_CASE
    case Kind::kFloat16: {
      int64_t lo_i = -1, hi_i = -1;
      float lo = 0, hi = 0;
      for (int64_t i = 0; i < n; ++i) {
        float v = HalfToFloat(Load<uint16_t>(p + 2 * i));
        if (std::isnan(v)) {
          ++nan_count_;
          continue;
        }
        if (lo_i < 0 || v < lo) { lo = v; lo_i = i; }
        if (hi_i < 0 || v > hi) { hi = v; hi_i = i; }
      }
      if (lo_i >= 0) {
        UpdateMinMax({reinterpret_cast<const char*>(p + 2 * lo_i), 2},
                     {reinterpret_cast<const char*>(p + 2 * hi_i), 2});
      }
      return;
    }
    case Kind::kBytesUnsigned:
    case Kind::kBytesSigned: {
      const size_t w = static_cast<size_t>(type_length_);
      auto at = [&](int64_t i) {
        return std::string_view(reinterpret_cast<const char*>(p + i * w), w);
      };
      std::string_view lo = at(0), hi = lo;
      for (int64_t i = 1; i < n; ++i) {
        std::string_view v = at(i);
        if (CompareStatValues(kind_, v, lo) < 0) lo = v;
        if (CompareStatValues(kind_, v, hi) > 0) hi = v;
      }
      UpdateMinMax(lo, hi);
      return;
    }
  }
}

void ColumnStatistics::AddByteArrays(const int64_t* offsets, const uint8_t* data,
                                     int64_t begin, int64_t end) {
  if (end <= begin || kind_ == Kind::kNone) return;
  auto at = [&](int64_t i) {
    return std::string_view(reinterpret_cast<const char*>(data) + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  };
  std::string_view lo = at(begin), hi = lo;
  if (kind_ == Kind::kBytesUnsigned) {
    // Most values are neither a new minimum nor a new maximum, and their first 8 bytes
    // already say so: compare those as numbers, the whole strings only on a tie.
    uint64_t lo_prefix = OrderPrefix(lo), hi_prefix = lo_prefix;
    for (int64_t i = begin + 1; i < end; ++i) {
      std::string_view v = at(i);
      const uint64_t prefix = OrderPrefix(v);
      if (prefix < lo_prefix || (prefix == lo_prefix && v < lo)) {
        lo = v;
        lo_prefix = prefix;
      }
      if (prefix > hi_prefix || (prefix == hi_prefix && hi < v)) {
        hi = v;
        hi_prefix = prefix;
      }
    }
  } else {
    for (int64_t i = begin + 1; i < end; ++i) {
      std::string_view v = at(i);
      if (CompareSignedBigEndian(v, lo) < 0) lo = v;
      if (CompareSignedBigEndian(v, hi) > 0) hi = v;
    }
  }
  UpdateMinMax(lo, hi);
}

void ColumnStatistics::Merge(const ColumnStatistics& other) {
  null_count_ += other.null_count_;
  nan_count_ += other.nan_count_;
  if (other.has_min_max_) UpdateMinMax(other.min_, other.max_);
}

Statistics ColumnStatistics::ToThrift() const {
  Statistics s;
  s.null_count = null_count_;
  if (kind_ == Kind::kFloat || kind_ == Kind::kDouble || kind_ == Kind::kFloat16) s.nan_count = nan_count_;
  if (!has_min_max_ || kind_ == Kind::kNone) return s;
  std::string lo = min_, hi = max_;
  bool lo_exact = true, hi_exact = true;
  bool write_lo = true, write_hi = true;
  switch (kind_) {
    case Kind::kFloat:
      // Readers cannot know whether a zero bound came from -0.0 or +0.0, so widen.
      if (Load<float>(lo.data()) == 0.0f) lo.assign(Bytes(-0.0f));
      if (Load<float>(hi.data()) == 0.0f) hi.assign(Bytes(0.0f));
      break;
    case Kind::kDouble:
      if (Load<double>(lo.data()) == 0.0) lo.assign(Bytes(-0.0));
      if (Load<double>(hi.data()) == 0.0) hi.assign(Bytes(0.0));
      break;
    case Kind::kFloat16:
      if (HalfToFloat(Load<uint16_t>(lo.data())) == 0.0f) lo.assign(Bytes<uint16_t>(0x8000));
      if (HalfToFloat(Load<uint16_t>(hi.data())) == 0.0f) hi.assign(Bytes<uint16_t>(0x0000));
      break;
    case Kind::kBytesUnsigned:
      // A truncated FIXED_LEN_BYTE_ARRAY would not be a valid PLAIN value of its type
      // (readers assume type_length bytes), so only BYTE_ARRAY bounds are truncated.
      if (physical_ == PhysicalType::kByteArray) {
        const size_t limit = static_cast<size_t>(std::max(max_size_, 1));
        if (lo.size() > limit) {
          lo.resize(limit);
          lo_exact = false;
        }
        if (hi.size() > limit) {
          hi.resize(limit);
          hi_exact = false;
          write_hi = IncrementBytes(&hi);
        }
      } else if (static_cast<int64_t>(lo.size()) > max_size_) {
        write_lo = write_hi = false;
      }
      break;
    case Kind::kBytesSigned:
      // Truncating a two's-complement number changes its magnitude; omit instead.
      if (static_cast<int64_t>(std::max(lo.size(), hi.size())) > max_size_) {
        write_lo = write_hi = false;
      }
      break;
    default:
      break;
  }
  if (write_lo) {
    s.min_value = lo;
    s.is_min_value_exact = lo_exact;
  }
  if (write_hi) {
    s.max_value = hi;
    s.is_max_value_exact = hi_exact;
  }
  if (legacy_compatible_) {
    s.min = lo;
    s.max = hi;
  }
  return s;
}

}  // namespace lithify::parquet
