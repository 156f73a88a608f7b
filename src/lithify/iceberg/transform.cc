#include "lithify/iceberg/transform.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"

namespace lithify::iceberg {

namespace {

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t Mix(uint32_t k) {
  k *= 0xcc9e2d51u;
  k = Rotl(k, 15);
  return k * 0x1b873593u;
}

std::string LongBytes(int64_t v) {
  std::string b(8, '\0');
  std::memcpy(b.data(), &v, 8);  // little-endian host
  return b;
}

// Minimal two's complement big-endian bytes of an unscaled decimal.
std::string MinBigEndian(__int128 v) {
  std::string b;
  for (int i = 0; i < 16; ++i) b.insert(b.begin(), static_cast<char>(static_cast<uint8_t>(v >> (8 * i))));
  size_t start = 0;
  while (start + 1 < b.size()) {
    const uint8_t cur = static_cast<uint8_t>(b[start]);
    const uint8_t next = static_cast<uint8_t>(b[start + 1]);
    if ((cur == 0x00 && !(next & 0x80)) || (cur == 0xFF && (next & 0x80))) ++start;
    else break;
  }
  return b.substr(start);
}

bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

// Microseconds of a temporal value (dates as midnight).
int64_t Micros(const Type& source, const table::Value& v) {
  if (source.id == TypeId::kDate) return v.int64() * kMicrosPerDay;
  return IsNanos(source.id) ? FloorDiv(v.int64(), 1000) : v.int64();
}

}  // namespace

int32_t Murmur3Hash32(std::string_view data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const size_t n = data.size();
  uint32_t h = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t k;
    std::memcpy(&k, p + i, 4);
    h ^= Mix(k);
    h = Rotl(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3: k ^= uint32_t{p[i + 2]} << 16; [[fallthrough]];
    case 2: k ^= uint32_t{p[i + 1]} << 8; [[fallthrough]];
    case 1: k ^= p[i]; h ^= Mix(k);
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

Result<int32_t> BucketHash(const Type& type, const table::Value& v) {
  switch (type.id) {
    case TypeId::kInt: case TypeId::kLong: case TypeId::kTime: return Murmur3Hash32(LongBytes(v.int64()));
    // The spec's hashInt is Java's, which widens to long first (Appendix B's date and
    // boolean test values are those of the 8-byte form).
    case TypeId::kDate: return Murmur3Hash32(LongBytes(v.int64()));
    case TypeId::kTimestamp: case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: case TypeId::kTimestampTzNs: return Murmur3Hash32(LongBytes(Micros(type, v)));
    case TypeId::kDecimal: return Murmur3Hash32(MinBigEndian(v.unscaled()));
    case TypeId::kString: case TypeId::kUuid: case TypeId::kFixed: case TypeId::kBinary:
      return Murmur3Hash32(v.str());
    case TypeId::kBoolean: return Murmur3Hash32(LongBytes(v.boolean() ? 1 : 0));
    case TypeId::kFloat: case TypeId::kDouble: {
      double d = v.dbl();
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      if (d == 0) d = 0;  // -0.0 hashes as 0.0
      int64_t bits;
      std::memcpy(&bits, &d, 8);
      if (std::isnan(d)) bits = 0x7ff8000000000000LL;
      return Murmur3Hash32(LongBytes(bits));
    }
    default: return Status::InvalidArgument("no 32-bit hash for type {}", type.ToString());
  }
}

Result<table::Value> ApplyTransform(const Transform& t, const Type& source, const table::Value& v) {
  using K = Transform::Kind;
  if (v.is_null() || t.kind == K::kVoid) return table::Value::Null();
  LITHIFY_ASSIGN_OR_RETURN(Type result, t.ResultType(source));
  switch (t.kind) {
    case K::kIdentity: return v;
    case K::kBucket: {
      LITHIFY_ASSIGN_OR_RETURN(int32_t h, BucketHash(source, v));
      return table::Value::Int64((h & std::numeric_limits<int32_t>::max()) % t.param);
    }
    case K::kTruncate:
      switch (source.id) {
        case TypeId::kInt: case TypeId::kLong: {
          const int64_t w = t.param;
          return table::Value::Int64(v.int64() - FloorMod(v.int64(), w));
        }
        case TypeId::kDecimal: {
          const __int128 w = t.param;
          __int128 r = v.unscaled() % w;
          if (r < 0) r += w;
          return table::Value::Decimal(v.unscaled() - r, source.precision, source.scale);
        }
        case TypeId::kString: {
          // The first W code points (UTF-8 lead bytes start code points).
          const std::string& s = v.str();
          size_t at = 0;
          for (int32_t cps = 0; at < s.size(); ++at) {
            if ((static_cast<uint8_t>(s[at]) & 0xC0) != 0x80 && cps++ == t.param) break;
          }
          return table::Value::String(s.substr(0, at));
        }
        case TypeId::kBinary: return table::Value::Binary(v.str().substr(0, static_cast<size_t>(t.param)));
        default: break;
      }
      break;
    case K::kYear: case K::kMonth: case K::kDay: case K::kHour: {
      const int64_t micros = Micros(source, v);
      const int64_t days = FloorDiv(micros, kMicrosPerDay);
      if (t.kind == K::kHour) return table::Value::Int64(FloorDiv(micros, int64_t{3600} * 1000000));
      if (t.kind == K::kDay) return table::Value::Date(days);
      const CivilDate c = CivilFromDays(days);
      if (t.kind == K::kYear) return table::Value::Int64(c.year - 1970);
      return table::Value::Int64((c.year - 1970) * 12 + static_cast<int64_t>(c.month) - 1);
    }
    default: break;
  }
  return Status::NotSupported("transform '{}' on type {}", t.text, source.ToString());
}

}  // namespace lithify::iceberg
