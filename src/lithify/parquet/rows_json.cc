// Canonical row rendering: value formatting and record assembly from levels.
//
// Record assembly walks a small "plan" (the projected schema tree, with LIST/MAP
// annotations already resolved into arrays) once per row, with one cursor per leaf
// over its def/rep levels and dense values. Every level read is checked against the
// schema's expectation, so inconsistent levels from a hostile file are Corruption
// rather than an out-of-range read. Output is appended to one std::string; no per-value
// heap allocation happens after the plan is built.
#include "lithify/parquet/rows_json.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

#include "lithify/base/base64.h"
#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::parquet {
namespace {

// ---------------------------------------------------------------------------------
// Value formats
// ---------------------------------------------------------------------------------

enum class ValueKind : uint8_t {
  kBoolean, kInt32, kUInt32, kInt64, kUInt64, kFloat, kDouble, kFloat16,
  kString,  // UTF-8 text (STRING, ENUM, JSON)
  kBinary,  // base64
  kUuid, kDecimal, kDate, kTime, kTimestamp, kInt96Timestamp,
};

struct ValueFormat {
  ValueKind kind = ValueKind::kBinary;
  PhysicalType physical = PhysicalType::kByteArray;
  size_t width = 0;  // bytes per value for fixed-width types; 0 for BYTE_ARRAY
  int32_t scale = 0;
  TimeUnit unit = TimeUnit::kMillis;
  bool utc = false;
};

// A scale beyond this cannot come from a sensible writer and would make every value
// of the column megabytes long.
constexpr int32_t kMaxDecimalScale = 1000;
// Significant bytes of a binary DECIMAL we convert (about 1200 decimal digits).
constexpr size_t kMaxDecimalBytes = 512;

ValueFormat PhysicalFormat(PhysicalType t, int32_t type_length) {
  ValueFormat f;
  f.physical = t;
  f.width = PhysicalTypeWidth(t, type_length);
  switch (t) {
    case PhysicalType::kBoolean: f.kind = ValueKind::kBoolean; break;
    case PhysicalType::kInt32: f.kind = ValueKind::kInt32; break;
    case PhysicalType::kInt64: f.kind = ValueKind::kInt64; break;
    // INT96 has no annotation; by universal convention it is an Impala/Hive/Spark
    // timestamp.
    case PhysicalType::kInt96: f.kind = ValueKind::kInt96Timestamp; f.utc = true; break;
    case PhysicalType::kFloat: f.kind = ValueKind::kFloat; break;
    case PhysicalType::kDouble: f.kind = ValueKind::kDouble; break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: f.kind = ValueKind::kBinary; break;
  }
  return f;
}

bool IsBinary(PhysicalType t) {
  return t == PhysicalType::kByteArray || t == PhysicalType::kFixedLenByteArray;
}
bool IsDecimalCarrier(PhysicalType t) {
  return t == PhysicalType::kInt32 || t == PhysicalType::kInt64 || IsBinary(t);
}

Status CheckDecimalScale(int32_t scale) {
  if (scale < 0) return Status::Corruption("DECIMAL scale {} is negative", scale);
  if (scale > kMaxDecimalScale) {
    return Status::NotSupported("DECIMAL scale {} (above {})", scale, kMaxDecimalScale);
  }
  return Status::OK();
}

// The format a LogicalType gives to `base`'s physical type; nullopt when the annotation
// does not apply (unknown future types, or an annotation on the wrong physical type).
Result<std::optional<ValueFormat>> FromLogical(const LogicalType& lt, ValueFormat f) {
  using K = LogicalType::Kind;
  const PhysicalType t = f.physical;
  switch (lt.kind) {
    case K::kString:
    case K::kEnum:
    case K::kJson:
      if (!IsBinary(t)) return std::optional<ValueFormat>();
      f.kind = ValueKind::kString;
      return std::optional(f);
    case K::kBson:
      if (!IsBinary(t)) return std::optional<ValueFormat>();
      f.kind = ValueKind::kBinary;
      return std::optional(f);
    case K::kUuid:
      if (t != PhysicalType::kFixedLenByteArray || f.width != 16) return std::optional<ValueFormat>();
      f.kind = ValueKind::kUuid;
      return std::optional(f);
    case K::kFloat16:
      if (t != PhysicalType::kFixedLenByteArray || f.width != 2) return std::optional<ValueFormat>();
      f.kind = ValueKind::kFloat16;
      return std::optional(f);
    case K::kDecimal:
      if (!IsDecimalCarrier(t)) return std::optional<ValueFormat>();
      LITHIFY_RETURN_NOT_OK(CheckDecimalScale(lt.scale));
      f.kind = ValueKind::kDecimal;
      f.scale = lt.scale;
      return std::optional(f);
    case K::kDate:
      if (t != PhysicalType::kInt32) return std::optional<ValueFormat>();
      f.kind = ValueKind::kDate;
      return std::optional(f);
    case K::kTime: {
      bool ok = lt.unit == TimeUnit::kMillis ? t == PhysicalType::kInt32 : t == PhysicalType::kInt64;
      if (!ok) return std::optional<ValueFormat>();
      f.kind = ValueKind::kTime;
      f.unit = lt.unit;
      f.utc = lt.is_adjusted_to_utc;
      return std::optional(f);
    }
    case K::kTimestamp:
      if (t != PhysicalType::kInt64) return std::optional<ValueFormat>();
      f.kind = ValueKind::kTimestamp;
      f.unit = lt.unit;
      f.utc = lt.is_adjusted_to_utc;
      return std::optional(f);
    case K::kInteger:
      if (t == PhysicalType::kInt32) {
        f.kind = lt.is_signed ? ValueKind::kInt32 : ValueKind::kUInt32;
      } else if (t == PhysicalType::kInt64) {
        f.kind = lt.is_signed ? ValueKind::kInt64 : ValueKind::kUInt64;
      } else {
        return std::optional<ValueFormat>();
      }
      return std::optional(f);
    case K::kUnknown:  // always null; any value present renders physically
      return std::optional(f);
    default:  // none, MAP/LIST on a leaf, VARIANT, GEOMETRY, GEOGRAPHY, future types
      return std::optional<ValueFormat>();
  }
}

// The same for the legacy ConvertedType annotation.
Result<std::optional<ValueFormat>> FromConverted(const SchemaElement& e, ValueFormat f) {
  if (!e.converted_type) return std::optional<ValueFormat>();
  const PhysicalType t = f.physical;
  auto with = [&](ValueKind k, bool applies) {
    if (!applies) return std::optional<ValueFormat>();
    f.kind = k;
    return std::optional(f);
  };
  switch (*e.converted_type) {
    case ConvertedType::kUtf8:
    case ConvertedType::kEnum:
    case ConvertedType::kJson: return with(ValueKind::kString, IsBinary(t));
    case ConvertedType::kBson:
    case ConvertedType::kInterval:  // 3 little-endian uint32s: no canonical text form
      return with(ValueKind::kBinary, IsBinary(t));
    case ConvertedType::kDecimal: {
      if (!IsDecimalCarrier(t)) return std::optional<ValueFormat>();
      int32_t scale = e.scale.value_or(0);
      LITHIFY_RETURN_NOT_OK(CheckDecimalScale(scale));
      f.scale = scale;
      return with(ValueKind::kDecimal, true);
    }
    case ConvertedType::kDate: return with(ValueKind::kDate, t == PhysicalType::kInt32);
    case ConvertedType::kTimeMillis:
      f.unit = TimeUnit::kMillis;
      f.utc = true;
      return with(ValueKind::kTime, t == PhysicalType::kInt32);
    case ConvertedType::kTimeMicros:
      f.unit = TimeUnit::kMicros;
      f.utc = true;
      return with(ValueKind::kTime, t == PhysicalType::kInt64);
    case ConvertedType::kTimestampMillis:
    case ConvertedType::kTimestampMicros:
      f.unit = *e.converted_type == ConvertedType::kTimestampMillis ? TimeUnit::kMillis
                                                                    : TimeUnit::kMicros;
      f.utc = true;  // the legacy annotations are defined as UTC instants
      return with(ValueKind::kTimestamp, t == PhysicalType::kInt64);
    case ConvertedType::kUint8:
    case ConvertedType::kUint16:
    case ConvertedType::kUint32: return with(ValueKind::kUInt32, t == PhysicalType::kInt32);
    case ConvertedType::kUint64: return with(ValueKind::kUInt64, t == PhysicalType::kInt64);
    case ConvertedType::kInt8:
    case ConvertedType::kInt16:
    case ConvertedType::kInt32: return with(ValueKind::kInt32, t == PhysicalType::kInt32);
    case ConvertedType::kInt64: return with(ValueKind::kInt64, t == PhysicalType::kInt64);
    default: return std::optional<ValueFormat>();
  }
}

// Logical type first; the converted type when the logical type is absent, unknown to
// this build or inapplicable; else the physical type.
Result<ValueFormat> ClassifyLeaf(const SchemaElement& e, PhysicalType physical,
                                 int32_t type_length) {
  ValueFormat base = PhysicalFormat(physical, type_length);
  LITHIFY_ASSIGN_OR_RETURN(std::optional<ValueFormat> logical, FromLogical(e.logical_type, base));
  if (logical) return *logical;
  LITHIFY_ASSIGN_OR_RETURN(std::optional<ValueFormat> converted, FromConverted(e, base));
  if (converted) return *converted;
  return base;
}

// ---------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// Length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80), or 0 with
// *skip set to the length of its maximal invalid subpart (>= 1): the bytes that are a
// prefix of some valid sequence, which Unicode recommends replacing by one U+FFFD.
size_t Utf8SequenceLength(const uint8_t* p, size_t n, size_t* skip) {
  const uint8_t c = p[0];
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c == 0xE0) {
    need = 2; lo = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    need = 2;
  } else if (c == 0xED) {
    need = 2; hi = 0x9F;  // excludes UTF-16 surrogates
  } else if (c == 0xF0) {
    need = 3; lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    need = 3;
  } else if (c == 0xF4) {
    need = 3; hi = 0x8F;  // nothing above U+10FFFF
  } else {
    *skip = 1;
    return 0;
  }
  size_t k = 1;
  if (k < n && p[k] >= lo && p[k] <= hi) {
    ++k;
    while (k <= need && k < n && p[k] >= 0x80 && p[k] <= 0xBF) ++k;
  }
  if (k == need + 1) return k;
  *skip = k;
  return 0;
}

// Appends `s` as text: invalid UTF-8 replaced by U+FFFD; with `json`, quoted and escaped.
void AppendText(std::string_view s, bool json, std::string* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  if (json) out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes copied unchanged
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    if (c < 0x80) {
      if (!json || (c >= 0x20 && c != '"' && c != '\\')) {
        ++i;
        continue;
      }
      out->append(s.data() + run, i - run);
      switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default: {
          const char esc[6] = {'\\', 'u', '0', '0', kHexDigits[c >> 4], kHexDigits[c & 15]};
          out->append(esc, 6);
        }
      }
      run = ++i;
      continue;
    }
    size_t skip = 0;
    size_t len = Utf8SequenceLength(p + i, n - i, &skip);
    if (len > 0) {
      i += len;
      continue;
    }
    out->append(s.data() + run, i - run);
    out->append(kReplacementChar);
    i += skip;
    run = i;
  }
  out->append(s.data() + run, n - run);
  if (json) out->push_back('"');
}

template <typename T>
void AppendInteger(T v, std::string* out) {
  fmt::format_int f(v);
  out->append(f.data(), f.size());
}

template <typename F>
void AppendFloating(F v, bool json, std::string* out) {
  if (std::isnan(v)) {
    out->append(json ? "\"NaN\"" : "NaN");
  } else if (std::isinf(v)) {
    if (v > 0) {
      out->append(json ? "\"Infinity\"" : "Infinity");
    } else {
      out->append(json ? "\"-Infinity\"" : "-Infinity");
    }
  } else {
    // fmt's default is the shortest text that round-trips in F's own precision, and
    // its forms ("1", "0.1", "1e+20", "-0", "1.5e-07") are all valid JSON numbers.
    char buf[32];
    char* end = fmt::format_to(buf, FMT_STRING("{}"), v);
    out->append(buf, static_cast<size_t>(end - buf));
  }
}

float HalfToFloat(uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
  } else if (exponent == 31) {
    v = mantissa != 0 ? std::numeric_limits<float>::quiet_NaN()
                      : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return negative ? -v : v;
}

// Writes the low `width` decimal digits of `v`, zero-padded, to out[0, width).
void WriteDigits(uint64_t v, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

// Proleptic Gregorian civil date of `days` since 1970-01-01. Years outside 0..9999 print
// with a leading '-' (astronomical numbering) or with more than 4 digits.
void AppendDate(int64_t days, std::string* out) {
  const auto [y, m, d] = CivilFromDays(days);
  if (y >= 0 && y <= 9999) {  // the common case, without a format-string parse
    char buf[10];
    WriteDigits(static_cast<uint64_t>(y), 4, buf);
    buf[4] = '-';
    WriteDigits(static_cast<uint64_t>(m), 2, buf + 5);
    buf[7] = '-';
    WriteDigits(static_cast<uint64_t>(d), 2, buf + 8);
    out->append(buf, sizeof(buf));
  } else if (y < 0) {
    fmt::format_to(std::back_inserter(*out), "-{:04}-{:02}-{:02}", -y, m, d);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}", y, m, d);
  }
}

// "HH:MM:SS.fff…" for `seconds` of a day and a fraction with `digits` digits.
void AppendClock(uint64_t seconds, uint64_t fraction, int digits, std::string* out) {
  const uint64_t hours = seconds / 3600;
  if (hours >= 100) {  // only from malformed TIME values
    fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}.{:0{}}", hours, seconds / 60 % 60,
                   seconds % 60, fraction, digits);
    return;
  }
  char buf[18];
  WriteDigits(hours, 2, buf);
  buf[2] = ':';
  WriteDigits(seconds / 60 % 60, 2, buf + 3);
  buf[5] = ':';
  WriteDigits(seconds % 60, 2, buf + 6);
  buf[8] = '.';
  WriteDigits(fraction, digits, buf + 9);
  out->append(buf, static_cast<size_t>(9 + digits));
}

struct UnitInfo {
  int64_t per_second;
  uint64_t fraction_scale;  // multiplies the sub-second remainder into `digits` digits
  int digits;
};
UnitInfo Unit(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMillis: return {1000, 1000, 6};
    case TimeUnit::kMicros: return {1000000, 1, 6};
    case TimeUnit::kNanos: return {1000000000, 1, 9};
  }
  return {1000, 1000, 6};
}

// TIME of day. A value outside [0, 24h) is malformed but still printed faithfully
// (sign and hours beyond 23) rather than rejected.
void AppendTime(int64_t v, TimeUnit unit, std::string* out) {
  const UnitInfo u = Unit(unit);
  uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (v < 0) out->push_back('-');
  const uint64_t per_second = static_cast<uint64_t>(u.per_second);
  AppendClock(magnitude / per_second, magnitude % per_second * u.fraction_scale, u.digits, out);
}

void AppendDateTime(int64_t days, uint64_t second_of_day, uint64_t fraction, int digits,
                    bool utc, std::string* out) {
  AppendDate(days, out);
  out->push_back('T');
  AppendClock(second_of_day, fraction, digits, out);
  if (utc) out->push_back('Z');
}

void AppendTimestamp(int64_t v, TimeUnit unit, bool utc, std::string* out) {
  const UnitInfo u = Unit(unit);
  const auto [days, rem] = SplitDays(v, u.per_second * kSecondsPerDay);
  AppendDateTime(days, static_cast<uint64_t>(rem / u.per_second),
                 static_cast<uint64_t>(rem % u.per_second) * u.fraction_scale, u.digits, utc,
                 out);
}

// INT96: nanoseconds within the day (int64 LE) then the Julian day number (uint32 LE).
// Kept apart (never combined into one int64) because Spark writes dates whose
// nanoseconds since the epoch overflow 64 bits.
void AppendInt96Timestamp(const uint8_t* p, std::string* out) {
  int64_t nanos;
  uint32_t julian;
  std::memcpy(&nanos, p, 8);
  std::memcpy(&julian, p + 8, 4);
  const auto [day_carry, rem] = SplitDays(nanos, kNanosPerDay);
  const int64_t days = static_cast<int64_t>(julian) - kJulianDayOfEpoch + day_carry;
  AppendDateTime(days, static_cast<uint64_t>(rem / 1000000000),
                 static_cast<uint64_t>(rem % 1000000000), 9, true, out);
}

void AppendUuid(const uint8_t* p, std::string* out) {
  char buf[36];
  size_t k = 0;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) buf[k++] = '-';
    buf[k++] = kHexDigits[p[i] >> 4];
    buf[k++] = kHexDigits[p[i] & 15];
  }
  out->append(buf, sizeof(buf));
}

// Writes the unscaled decimal `digits` (no sign, no leading zeros, "0" for zero) with
// exactly `scale` fraction digits.
void AppendScaled(bool negative, std::string_view digits, int32_t scale, std::string* out) {
  if (negative) out->push_back('-');
  const size_t s = static_cast<size_t>(scale);
  if (s == 0) {
    out->append(digits);
  } else if (digits.size() > s) {
    out->append(digits.substr(0, digits.size() - s));
    out->push_back('.');
    out->append(digits.substr(digits.size() - s));
  } else {
    out->append("0.");
    out->append(s - digits.size(), '0');
    out->append(digits);
  }
}

void AppendDecimalInt(int64_t v, int32_t scale, std::string* out) {
  const bool negative = v < 0;
  uint64_t magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  fmt::format_int f(magnitude);
  AppendScaled(negative, std::string_view(f.data(), f.size()), scale, out);
}

// Big-endian two's complement of any length (an empty value reads as 0).
Status AppendDecimalBytes(const uint8_t* p, size_t n, int32_t scale, std::string* out) {
  const bool negative = n > 0 && (p[0] & 0x80) != 0;
  const uint8_t sign_byte = negative ? 0xFF : 0x00;
  size_t start = 0;
  // Drop sign-extension bytes, keeping one when the next byte's top bit disagrees.
  while (start + 1 < n && p[start] == sign_byte && ((p[start + 1] & 0x80) != 0) == negative) {
    ++start;
  }
  const size_t len = n - start;
  if (len > kMaxDecimalBytes) {
    return Status::NotSupported("DECIMAL value of {} significant bytes (above {})", len,
                                kMaxDecimalBytes);
  }
  if (len <= 8) {  // fits int64 (sign-extended): the common case, no big arithmetic
    uint64_t u = negative ? ~uint64_t{0} : 0;
    for (size_t i = start; i < n; ++i) u = (u << 8) | p[i];
    if (len == 0) u = 0;
    AppendDecimalInt(static_cast<int64_t>(u), scale, out);
    return Status::OK();
  }
  // Magnitude as little-endian 32-bit limbs, then repeated division by 10^9.
  std::array<uint32_t, kMaxDecimalBytes / 4 + 1> limbs{};
  size_t num_limbs = (len + 3) / 4;
  for (size_t i = 0; i < len; ++i) {
    uint8_t b = p[n - 1 - i];
    if (negative) b = static_cast<uint8_t>(~b);
    limbs[i / 4] |= uint32_t{b} << (8 * (i % 4));
  }
  if (negative) {  // two's complement magnitude: invert (done above) and add one
    for (size_t i = 0; i < num_limbs; ++i) {
      if (++limbs[i] != 0) break;
    }
  }
  // Base-10^9 chunks, least significant first.
  std::array<uint32_t, kMaxDecimalBytes * 241 / 900 + 4> chunks{};
  size_t num_chunks = 0;
  while (num_limbs > 0) {
    uint64_t remainder = 0;
    for (size_t i = num_limbs; i-- > 0;) {
      uint64_t cur = (remainder << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / 1000000000);
      remainder = cur % 1000000000;
    }
    chunks[num_chunks++] = static_cast<uint32_t>(remainder);
    while (num_limbs > 0 && limbs[num_limbs - 1] == 0) --num_limbs;
  }
  std::array<char, (kMaxDecimalBytes * 241 / 900 + 4) * 9> digits;
  size_t k = 0;
  for (size_t i = num_chunks; i-- > 0;) {
    char buf[9];
    uint32_t c = chunks[i];
    for (int j = 8; j >= 0; --j) {
      buf[j] = static_cast<char>('0' + c % 10);
      c /= 10;
    }
    size_t from = 0;
    if (i + 1 == num_chunks) {  // the leading chunk has no leading zeros
      while (from < 8 && buf[from] == '0') ++from;
    }
    for (size_t j = from; j < 9; ++j) digits[k++] = buf[j];
  }
  if (k == 0) digits[k++] = '0';
  AppendScaled(negative, std::string_view(digits.data(), k), scale, out);
  return Status::OK();
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Formats one value (p, n): n == f.width for fixed-width types. `json` selects JSON
// text (strings quoted) over raw text (a CSV cell).
Status FormatValue(const ValueFormat& f, const uint8_t* p, size_t n, bool json, std::string* out) {
  auto quote = [&] {
    if (json) out->push_back('"');
  };
  switch (f.kind) {
    case ValueKind::kBoolean: out->append(p[0] != 0 ? "true" : "false"); break;
    case ValueKind::kInt32: AppendInteger(Load<int32_t>(p), out); break;
    case ValueKind::kUInt32: AppendInteger(Load<uint32_t>(p), out); break;
    case ValueKind::kInt64: AppendInteger(Load<int64_t>(p), out); break;
    case ValueKind::kUInt64: AppendInteger(Load<uint64_t>(p), out); break;
    case ValueKind::kFloat: AppendFloating(Load<float>(p), json, out); break;
    case ValueKind::kDouble: AppendFloating(Load<double>(p), json, out); break;
    case ValueKind::kFloat16: AppendFloating(HalfToFloat(Load<uint16_t>(p)), json, out); break;
    case ValueKind::kString:
      AppendText(std::string_view(reinterpret_cast<const char*>(p), n), json, out);
      break;
    case ValueKind::kBinary:
      quote();
      AppendBase64(std::string_view(reinterpret_cast<const char*>(p), n), out);
      quote();
      break;
    case ValueKind::kUuid:
      quote();
      AppendUuid(p, out);
      quote();
      break;
    case ValueKind::kDecimal:
      quote();
      if (f.physical == PhysicalType::kInt32) {
        AppendDecimalInt(Load<int32_t>(p), f.scale, out);
      } else if (f.physical == PhysicalType::kInt64) {
        AppendDecimalInt(Load<int64_t>(p), f.scale, out);
      } else {
        LITHIFY_RETURN_NOT_OK(AppendDecimalBytes(p, n, f.scale, out));
      }
      quote();
      break;
    case ValueKind::kDate:
      quote();
      AppendDate(Load<int32_t>(p), out);
      quote();
      break;
    case ValueKind::kTime:
      quote();
      AppendTime(f.physical == PhysicalType::kInt32 ? Load<int32_t>(p) : Load<int64_t>(p), f.unit,
                 out);
      quote();
      break;
    case ValueKind::kTimestamp:
      quote();
      AppendTimestamp(Load<int64_t>(p), f.unit, f.utc, out);
      quote();
      break;
    case ValueKind::kInt96Timestamp:
      quote();
      AppendInt96Timestamp(p, out);
      quote();
      break;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------
// Record assembly
// ---------------------------------------------------------------------------------

// One leaf's position in its levels and values.
struct LeafCursor {
  const ColumnData* column = nullptr;
  const int16_t* def = nullptr;  // null when the leaf has no def levels (max_def == 0)
  const int16_t* rep = nullptr;  // null when the leaf is not repeated
  int64_t num_levels = 0;
  int64_t pos = 0;
  int64_t value_pos = 0;
  int16_t max_def = 0;
  ValueFormat format;

  int16_t DefAt(int64_t i) const { return def != nullptr ? def[i] : 0; }
  int16_t RepAt(int64_t i) const { return rep != nullptr ? rep[i] : 0; }
};

// A node of the projected value tree. Arrays cover both LIST-annotated groups and bare
// repeated fields; maps are arrays whose entries render as {"key":..,"value":..}.
struct PlanNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kArray, kMap };
  Kind kind = Kind::kLeaf;
  bool nullable = false;
  int16_t def = 0;      // nullable: the value is present when the def level >= def
  int16_t rep_def = 0;  // array/map: an entry exists when the def level >= rep_def
  int16_t rep = 0;      // array/map: rep level that starts the 2nd and later entries
  int cursor_begin = 0;  // leaves under this node: cursors [cursor_begin, cursor_end)
  int cursor_end = 0;
  int element = -1;           // array
  int key = -1, value = -1;   // map (either may be projected away)
  std::vector<int> children;  // struct
  std::vector<std::string> child_keys;  // struct: `"name":`, pre-escaped
};

std::string JsonKey(std::string_view name) {
  std::string key;
  AppendText(name, true, &key);
  key.push_back(':');
  return key;
}

void AppendCsvCell(std::string_view cell, std::string* out) {
  if (cell.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(cell);
    return;
  }
  out->push_back('"');
  for (char c : cell) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

class RowAssembler {
 public:
  RowAssembler(const Schema& schema, const RowBatch& batch) : schema_(schema), batch_(batch) {}

  Status Init(const std::vector<int>& fields) {
    leaf_column_.assign(static_cast<size_t>(schema_.num_leaves()), -1);
    for (size_t i = 0; i < batch_.columns.size(); ++i) {
      int leaf = batch_.columns[i].leaf_index;
      if (leaf < 0 || leaf >= schema_.num_leaves()) {
        return Status::InvalidArgument("batch column {} has leaf index {} outside the schema", i,
                                       leaf);
      }
      if (leaf_column_[leaf] < 0) leaf_column_[leaf] = static_cast<int>(i);
    }
    const int num_nodes = static_cast<int>(schema_.nodes().size());
    for (int field : fields) {
      if (field <= 0 || field >= num_nodes || schema_.node(field).parent != 0) {
        return Status::InvalidArgument("node {} is not a top-level field", field);
      }
      LITHIFY_ASSIGN_OR_RETURN(int plan, Build(field, false, 0));
      if (plan < 0) {
        return Status::InvalidArgument("column '{}' has no leaf column in the batch",
                                       schema_.node(field).name);
      }
      top_.push_back(plan);
      top_keys_.push_back(JsonKey(schema_.node(field).name));
    }
    return Status::OK();
  }

  Status RenderJsonRow(std::string* out) {
    out->push_back('{');
    for (size_t i = 0; i < top_.size(); ++i) {
      if (i > 0) out->push_back(',');
      out->append(top_keys_[i]);
      LITHIFY_RETURN_NOT_OK(Render(top_[i], 0, true, out));
    }
    out->append("}\n");
    return EndRow();
  }

  Status RenderCsvRow(std::string* out) {
    for (size_t i = 0; i < top_.size(); ++i) {
      if (i > 0) out->push_back(',');
      const PlanNode& n = plan_[top_[i]];
      if (n.nullable) {
        LITHIFY_ASSIGN_OR_RETURN(int16_t def, PeekDef(n.cursor_begin));
        if (def < n.def) {  // null: an empty field
          LITHIFY_RETURN_NOT_OK(ConsumeAbsent(n, n.def - 1, 0));
          continue;
        }
      }
      cell_.clear();
      LITHIFY_RETURN_NOT_OK(Render(top_[i], 0, n.kind != PlanNode::Kind::kLeaf, &cell_));
      if (cell_.empty()) {
        out->append("\"\"");  // an empty string, told apart from null
      } else {
        AppendCsvCell(cell_, out);
      }
    }
    out->push_back('\n');
    return EndRow();
  }

  // After the last row of the batch: every level and value must have been used.
  Status CheckFullyConsumed() const {
    for (const LeafCursor& c : cursors_) {
      if (c.pos != c.num_levels || c.value_pos != c.column->values.count) {
        return Corruption(c, "{} level entries and {} values left over after the last row",
                          c.num_levels - c.pos, c.column->values.count - c.value_pos);
      }
    }
    return Status::OK();
  }

 private:
  template <typename... Args>
  Status Corruption(const LeafCursor& c, fmt::format_string<Args...> f, Args&&... a) const {
    return Status::Corruption("column '{}': {}", schema_.leaf(c.column->leaf_index).dotted_path,
                              fmt::format(f, std::forward<Args>(a)...));
  }

  // Builds the plan of `node`; -1 when no leaf under it is in the batch. `as_element`:
  // the node is the repeated node of a list/map or bare repeated field, whose entries
  // the enclosing array iterates, so here it reads as a single required value.
  Result<int> Build(int node, bool as_element, int depth) {
    // Schema::FromElements already bounds the tree; a bare repeated node visits itself
    // twice (as a field, then as the element), hence the factor two of this backstop.
    if (depth > 2 * kMaxParquetSchemaNesting) {
      return Status::Corruption("schema nested deeper than {} levels", kMaxParquetSchemaNesting);
    }
    const SchemaNode& sn = schema_.node(node);
    if (sn.repetition == Repetition::kRepeated && !as_element) {
      // A repeated field that is not the middle level of a LIST/MAP (a "bare" list, or
      // a stray repeated LIST/MAP group): an array of its values.
      LITHIFY_ASSIGN_OR_RETURN(int element, Build(node, true, depth + 1));
      if (element < 0) return -1;
      return AddArray(PlanNode::Kind::kArray, sn, sn, false, element, -1);
    }
    if (sn.kind == NodeKind::kList && sn.repeated_node == node) {
      // The element of a bare list: the repeated field itself, taken once.
      if (sn.repetition != Repetition::kRepeated) {
        return Status::Corruption("schema node '{}' is its own list but not repeated", sn.name);
      }
      return sn.is_leaf() ? BuildLeaf(node, false) : BuildStruct(node, false, depth);
    }
    const bool nullable = sn.repetition == Repetition::kOptional;
    switch (sn.kind) {
      case NodeKind::kPrimitive: return BuildLeaf(node, nullable);
      case NodeKind::kStruct: return BuildStruct(node, nullable, depth);
      case NodeKind::kList: return BuildList(node, nullable, depth);
      case NodeKind::kMap: return BuildMap(node, nullable, depth);
    }
    return Status::Corruption("schema node '{}' has an unknown kind", sn.name);
  }

  Result<int> BuildLeaf(int node, bool nullable) {
    const SchemaNode& sn = schema_.node(node);
    if (!sn.is_leaf() || sn.leaf_index >= schema_.num_leaves()) {
      return Status::Corruption("schema node '{}' is primitive but not a leaf", sn.name);
    }
    const int column_index = leaf_column_[sn.leaf_index];
    if (column_index < 0) return -1;
    const ColumnData& col = batch_.columns[column_index];
    const ColumnDescriptor& descr = schema_.leaf(sn.leaf_index);
    LeafCursor c;
    c.column = &col;
    c.num_levels = col.num_levels;
    c.max_def = sn.max_def;
    LITHIFY_ASSIGN_OR_RETURN(c.format,
                             ClassifyLeaf(sn.element, descr.physical_type, descr.type_length));
    LITHIFY_RETURN_NOT_OK(CheckColumn(c, sn, descr));
    if (sn.max_def > 0) c.def = col.def_levels.data();
    if (sn.max_rep > 0) c.rep = col.rep_levels.data();
    PlanNode p;
    p.kind = PlanNode::Kind::kLeaf;
    p.nullable = nullable;
    p.def = sn.max_def;
    p.cursor_begin = static_cast<int>(cursors_.size());
    cursors_.push_back(c);
    p.cursor_end = p.cursor_begin + 1;
    plan_.push_back(std::move(p));
    return static_cast<int>(plan_.size()) - 1;
  }

  // The batch's shape must match the schema before any level is read.
  Status CheckColumn(const LeafCursor& c, const SchemaNode& sn, const ColumnDescriptor& descr) const {
    const ColumnData& col = *c.column;
    const ColumnValues& v = col.values;
    if (col.num_levels < 0) return Corruption(c, "negative level count");
    if (sn.max_def > 0 && static_cast<int64_t>(col.def_levels.size()) != col.num_levels) {
      return Corruption(c, "{} def levels for {} entries", col.def_levels.size(), col.num_levels);
    }
    if (sn.max_rep > 0 && static_cast<int64_t>(col.rep_levels.size()) != col.num_levels) {
      return Corruption(c, "{} rep levels for {} entries", col.rep_levels.size(), col.num_levels);
    }
    if (v.type != descr.physical_type) {
      return Corruption(c, "values of type {} for a {} column", static_cast<int>(v.type),
                        static_cast<int>(descr.physical_type));
    }
    if (v.count < 0 || v.count > col.num_levels) {
      return Corruption(c, "{} values for {} level entries", v.count, col.num_levels);
    }
    const size_t width = c.format.width;
    if (v.type == PhysicalType::kByteArray) {
      if (v.count > 0 && static_cast<int64_t>(v.offsets.size()) != v.count + 1) {
        return Corruption(c, "{} offsets for {} values", v.offsets.size(), v.count);
      }
    } else {
      if (width == 0) return Corruption(c, "FIXED_LEN_BYTE_ARRAY without a positive length");
      if (v.fixed.size() / width < static_cast<uint64_t>(v.count)) {
        return Corruption(c, "{} value bytes for {} values of {} bytes", v.fixed.size(), v.count,
                          width);
      }
    }
    return Status::OK();
  }

  Result<int> BuildStruct(int node, bool nullable, int depth) {
    const SchemaNode& sn = schema_.node(node);
    PlanNode p;
    p.kind = PlanNode::Kind::kStruct;
    p.nullable = nullable;
    p.def = sn.max_def;
    p.cursor_begin = static_cast<int>(cursors_.size());
    for (int child : sn.children) {
      if (child <= node || child >= static_cast<int>(schema_.nodes().size())) {
        return Status::Corruption("schema node '{}' has an invalid child", sn.name);
      }
      LITHIFY_ASSIGN_OR_RETURN(int plan, Build(child, false, depth + 1));
      if (plan < 0) continue;
      p.children.push_back(plan);
      p.child_keys.push_back(JsonKey(schema_.node(child).name));
    }
    if (p.children.empty()) return -1;
    p.cursor_end = static_cast<int>(cursors_.size());
    plan_.push_back(std::move(p));
    return static_cast<int>(plan_.size()) - 1;
  }

  bool IsChild(int child, int parent) const {
    return child > 0 && child < static_cast<int>(schema_.nodes().size()) &&
           schema_.node(child).parent == parent;
  }

  Result<int> BuildList(int node, bool nullable, int depth) {
    const SchemaNode& sn = schema_.node(node);
    const int r = sn.repeated_node;
    const int e = sn.element_node;
    if (!IsChild(r, node) || schema_.node(r).repetition != Repetition::kRepeated ||
        !(e == r || IsChild(e, r))) {
      return Status::Corruption("LIST '{}' has an unexpected layout", sn.name);
    }
    const SchemaNode& rn = schema_.node(r);
    int element;
    if (e == r || rn.children.size() != 1) {
      LITHIFY_ASSIGN_OR_RETURN(element, Build(r, true, depth + 1));
    } else {
      LITHIFY_ASSIGN_OR_RETURN(element, Build(e, false, depth + 1));
    }
    if (element < 0) return -1;
    return AddArray(PlanNode::Kind::kArray, sn, rn, nullable, element, -1);
  }

  Result<int> BuildMap(int node, bool nullable, int depth) {
    const SchemaNode& sn = schema_.node(node);
    const int r = sn.repeated_node;
    if (!IsChild(r, node) || schema_.node(r).repetition != Repetition::kRepeated) {
      return Status::Corruption("MAP '{}' has an unexpected layout", sn.name);
    }
    const SchemaNode& rn = schema_.node(r);
    const int k = sn.key_node;
    const int v = sn.value_node;
    const size_t expected_children = v >= 0 ? 2 : 1;
    if (!IsChild(k, r) || (v >= 0 && !IsChild(v, r)) || rn.children.size() != expected_children) {
      // Not a key/value pair layout we can name: entries render as objects.
      LITHIFY_ASSIGN_OR_RETURN(int element, Build(r, true, depth + 1));
      if (element < 0) return -1;
      return AddArray(PlanNode::Kind::kArray, sn, rn, nullable, element, -1);
    }
    LITHIFY_ASSIGN_OR_RETURN(int key, Build(k, false, depth + 1));
    int value = -1;
    if (v >= 0) {
      LITHIFY_ASSIGN_OR_RETURN(value, Build(v, false, depth + 1));
    }
    if (key < 0 && value < 0) return -1;
    return AddArray(PlanNode::Kind::kMap, sn, rn, nullable, key, value);
  }

  // An array/map over the entries of repeated node `rn`, itself held by `outer`.
  int AddArray(PlanNode::Kind kind, const SchemaNode& outer, const SchemaNode& rn, bool nullable,
               int first, int second) {
    PlanNode p;
    p.kind = kind;
    p.nullable = nullable;
    p.def = outer.max_def;
    p.rep_def = rn.max_def;
    p.rep = rn.max_rep;
    if (kind == PlanNode::Kind::kArray) {
      p.element = first;
    } else {
      p.key = first;
      p.value = second;
    }
    const int a = first >= 0 ? first : second;
    const int b = second >= 0 ? second : first;
    p.cursor_begin = plan_[a].cursor_begin;
    p.cursor_end = plan_[b].cursor_end;
    plan_.push_back(std::move(p));
    return static_cast<int>(plan_.size()) - 1;
  }

  Result<int16_t> PeekDef(int cursor) const {
    const LeafCursor& c = cursors_[cursor];
    if (c.pos >= c.num_levels) return Corruption(c, "fewer level entries than rows");
    return c.DefAt(c.pos);
  }

  // Consumes the single entry each leaf under `n` has when `n` is null or an empty
  // array; all must agree on exactly that def level and the expected rep level.
  Status ConsumeAbsent(const PlanNode& n, int16_t def, int16_t rep) {
    for (int i = n.cursor_begin; i < n.cursor_end; ++i) {
      LeafCursor& c = cursors_[i];
      if (c.pos >= c.num_levels) return Corruption(c, "fewer level entries than rows");
      if (c.DefAt(c.pos) != def || c.RepAt(c.pos) != rep) {
        return Corruption(c, "levels (def {}, rep {}) at entry {} disagree with its siblings "
                             "(def {}, rep {})",
                          c.DefAt(c.pos), c.RepAt(c.pos), c.pos, def, rep);
      }
      ++c.pos;
    }
    return Status::OK();
  }

  Status RenderLeaf(const PlanNode& n, int16_t rep, bool json, std::string* out) {
    LeafCursor& c = cursors_[n.cursor_begin];
    if (c.pos >= c.num_levels) return Corruption(c, "fewer level entries than rows");
    if (c.DefAt(c.pos) != c.max_def || c.RepAt(c.pos) != rep) {
      return Corruption(c, "levels (def {}, rep {}) at entry {}, expected (def {}, rep {})",
                        c.DefAt(c.pos), c.RepAt(c.pos), c.pos, c.max_def, rep);
    }
    const ColumnValues& v = c.column->values;
    if (c.value_pos >= v.count) return Corruption(c, "more defined entries than values");
    const uint8_t* p;
    size_t size;
    if (v.type == PhysicalType::kByteArray) {
      const int64_t begin = v.offsets[c.value_pos];
      const int64_t end = v.offsets[c.value_pos + 1];
      if (begin < 0 || end < begin || static_cast<uint64_t>(end) > v.data.size()) {
        return Corruption(c, "BYTE_ARRAY offsets [{}, {}) outside {} data bytes", begin, end,
                          v.data.size());
      }
      p = v.data.data() + begin;
      size = static_cast<size_t>(end - begin);
    } else {
      size = c.format.width;
      p = v.fixed.data() + static_cast<size_t>(c.value_pos) * size;
    }
    ++c.pos;
    ++c.value_pos;
    return FormatValue(c.format, p, size, json, out);
  }

  // Renders one value of plan node `index`; `rep` is the rep level every leaf's first
  // entry of this value must carry.
  Status Render(int index, int16_t rep, bool json, std::string* out) {
    const PlanNode& n = plan_[index];
    if (n.nullable) {
      LITHIFY_ASSIGN_OR_RETURN(int16_t def, PeekDef(n.cursor_begin));
      if (def < n.def) {
        LITHIFY_RETURN_NOT_OK(ConsumeAbsent(n, n.def - 1, rep));
        if (json) out->append("null");
        return Status::OK();
      }
    }
    switch (n.kind) {
      case PlanNode::Kind::kLeaf: return RenderLeaf(n, rep, json, out);
      case PlanNode::Kind::kStruct:
        out->push_back('{');
        for (size_t i = 0; i < n.children.size(); ++i) {
          if (i > 0) out->push_back(',');
          out->append(n.child_keys[i]);
          LITHIFY_RETURN_NOT_OK(Render(n.children[i], rep, true, out));
        }
        out->push_back('}');
        return Status::OK();
      case PlanNode::Kind::kArray:
      case PlanNode::Kind::kMap: return RenderEntries(n, rep, out);
    }
    return Status::OK();
  }

  Status RenderEntries(const PlanNode& n, int16_t rep, std::string* out) {
    LITHIFY_ASSIGN_OR_RETURN(int16_t def, PeekDef(n.cursor_begin));
    if (def < n.rep_def) {
      LITHIFY_RETURN_NOT_OK(ConsumeAbsent(n, n.rep_def - 1, rep));
      out->append("[]");
      return Status::OK();
    }
    out->push_back('[');
    const LeafCursor& first = cursors_[n.cursor_begin];
    // The first entry continues the enclosing value (rep level `rep`); later ones start
    // with this node's own rep level.
    for (int16_t entry_rep = rep;; entry_rep = n.rep) {
      if (entry_rep == n.rep) out->push_back(',');
      if (n.kind == PlanNode::Kind::kArray) {
        LITHIFY_RETURN_NOT_OK(Render(n.element, entry_rep, true, out));
      } else {
        out->push_back('{');
        if (n.key >= 0) {
          out->append("\"key\":");
          LITHIFY_RETURN_NOT_OK(Render(n.key, entry_rep, true, out));
        }
        if (n.value >= 0) {
          if (n.key >= 0) out->push_back(',');
          out->append("\"value\":");
          LITHIFY_RETURN_NOT_OK(Render(n.value, entry_rep, true, out));
        }
        out->push_back('}');
      }
      // Every entry consumes at least one level of `first`, so this terminates.
      if (first.pos >= first.num_levels || first.RepAt(first.pos) != n.rep) break;
    }
    out->push_back(']');
    return Status::OK();
  }

  // Every leaf must now stand at the start of the next row.
  Status EndRow() const {
    for (const LeafCursor& c : cursors_) {
      if (c.pos < c.num_levels && c.RepAt(c.pos) != 0) {
        return Corruption(c, "entry {} continues a row other leaves have finished", c.pos);
      }
    }
    return Status::OK();
  }

  const Schema& schema_;
  const RowBatch& batch_;
  std::vector<int> leaf_column_;  // leaf index -> batch column, -1 when absent
  std::vector<PlanNode> plan_;
  std::vector<LeafCursor> cursors_;
  std::vector<int> top_;
  std::vector<std::string> top_keys_;
  std::string cell_;  // CSV scratch, reused across rows
};

}  // namespace

Status RenderRows(const Schema& schema, const std::vector<int>& fields, const RowBatch& batch,
                  RowFormat format, int64_t limit, std::string* out) {
  if (batch.num_rows < 0) return Status::InvalidArgument("negative row count");
  RowAssembler assembler(schema, batch);
  LITHIFY_RETURN_NOT_OK(assembler.Init(fields));
  const int64_t rows = limit < 0 ? batch.num_rows : std::min(limit, batch.num_rows);
  for (int64_t r = 0; r < rows; ++r) {
    Status st = format == RowFormat::kCsv ? assembler.RenderCsvRow(out)
                                          : assembler.RenderJsonRow(out);
    if (!st.ok()) return st.WithContextF("row {}", batch.first_row_index + r);
  }
  if (rows == batch.num_rows) return assembler.CheckFullyConsumed();
  return Status::OK();
}

std::string CsvHeader(const Schema& schema, const std::vector<int>& fields) {
  std::string line;
  std::string name;
  const int num_nodes = static_cast<int>(schema.nodes().size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line.push_back(',');
    if (fields[i] < 0 || fields[i] >= num_nodes) continue;
    name.clear();
    AppendText(schema.node(fields[i]).name, false, &name);
    if (name.empty()) {
      line.append("\"\"");
    } else {
      AppendCsvCell(name, &line);
    }
  }
  line.push_back('\n');
  return line;
}

std::string FormatStatValue(const Schema& schema, int leaf, std::string_view plain_bytes) {
  if (leaf < 0 || leaf >= schema.num_leaves()) return "\"<malformed: no such column>\"";
  const ColumnDescriptor& descr = schema.leaf(leaf);
  const SchemaNode& node = schema.node(descr.node);
  Result<ValueFormat> classified =
      ClassifyLeaf(node.element, descr.physical_type, descr.type_length);
  ValueFormat f = classified.ok() ? *classified
                                  : PhysicalFormat(descr.physical_type, descr.type_length);
  const bool fixed = descr.physical_type != PhysicalType::kByteArray;
  if (fixed && (f.width == 0 || plain_bytes.size() != f.width)) {
    return fmt::format("\"<malformed: {}-byte value>\"", plain_bytes.size());
  }
  std::string out;
  Status st = FormatValue(f, reinterpret_cast<const uint8_t*>(plain_bytes.data()),
                          plain_bytes.size(), true, &out);
  if (!st.ok()) return fmt::format("\"<malformed: {}-byte value>\"", plain_bytes.size());
  return out;
}

}  // namespace lithify::parquet
