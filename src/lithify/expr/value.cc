// Typed values: construction, exact comparison, literal text and the calendar/number
// parsing shared by the predicate parser and the binder's string coercion.
#include "lithify/expr/value.h"

#include "lithify/base/decimal_text.h"
#include "lithify/base/macros.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace lithify::expr {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
// Days whose every microsecond (with a zone offset) fits an int64 microsecond count.
constexpr int64_t kMaxTimestampDays = std::numeric_limits<int64_t>::max() / kMicrosPerDay - 2;

const std::array<int128_t, 39>& Pow10Table() {
  static const std::array<int128_t, 39> table = [] {
    std::array<int128_t, 39> t{};
    t[0] = 1;
    for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table;
}

int Cmp(int128_t a, int128_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

double DecimalToDouble(int128_t unscaled, int32_t scale) {
  return static_cast<double>(unscaled) / static_cast<double>(Pow10(scale));
}

std::string DoubleText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", d);
}

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// The message for a date's IsoTextError (not kNone), as ParseDate and ParseTimestamp word it.
Status DateTextError(std::string_view s, IsoTextError e) {
  if (e == IsoTextError::kNoSuchDay) {
    return Status::InvalidArgument("'{}' is not a valid date (no such day)", s);
  }
  return Status::InvalidArgument("'{}' is not a valid date (expected YYYY-MM-DD)", s);
}

}  // namespace

std::string TypeName(const DataType& t) {
  switch (t.kind) {
    case TypeKind::kNull: return "NULL";
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kInt8: return "INT8";
    case TypeKind::kInt16: return "INT16";
    case TypeKind::kInt32: return "INT32";
    case TypeKind::kInt64: return "INT64";
    case TypeKind::kFloat32: return "FLOAT32";
    case TypeKind::kFloat64: return "FLOAT64";
    case TypeKind::kDecimal: return fmt::format("DECIMAL({},{})", t.precision, t.scale);
    case TypeKind::kString: return "STRING";
    case TypeKind::kBinary: return "BINARY";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTimestamp: return "TIMESTAMP";
    case TypeKind::kTimestampNtz: return "TIMESTAMP_NTZ";
  }
  return "?";
}

bool IsIntegerKind(TypeKind k) {
  return k == TypeKind::kInt8 || k == TypeKind::kInt16 || k == TypeKind::kInt32 ||
         k == TypeKind::kInt64;
}
bool IsFloatKind(TypeKind k) { return k == TypeKind::kFloat32 || k == TypeKind::kFloat64; }
bool IsNumericKind(TypeKind k) {
  return IsIntegerKind(k) || IsFloatKind(k) || k == TypeKind::kDecimal;
}
bool IsTemporalKind(TypeKind k) {
  return k == TypeKind::kDate || k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz;
}
bool IsBytesKind(TypeKind k) { return k == TypeKind::kString || k == TypeKind::kBinary; }

// ---- Value ----

Value Value::Null(DataType type) {
  Value v;
  v.type_ = type;
  return v;
}
Value Value::Boolean(bool b) {
  Value v;
  v.type_ = DataType::Of(TypeKind::kBoolean);
  v.null_ = false;
  v.b_ = b;
  return v;
}
Value Value::Integer(TypeKind kind, int64_t i) {
  Value v;
  v.type_ = DataType::Of(kind);
  v.null_ = false;
  v.i_ = i;
  return v;
}
Value Value::Floating(TypeKind kind, double d) {
  Value v;
  v.type_ = DataType::Of(kind);
  v.null_ = false;
  v.d_ = d;
  return v;
}
Value Value::Decimal(int128_t unscaled, int32_t precision, int32_t scale) {
  Value v;
  v.type_ = DataType::Decimal(precision, scale);
  v.null_ = false;
  v.dec_ = unscaled;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.type_ = DataType::Of(TypeKind::kString);
  v.null_ = false;
  v.s_ = std::move(s);
  return v;
}
Value Value::Binary(std::string s) {
  Value v = String(std::move(s));
  v.type_ = DataType::Of(TypeKind::kBinary);
  return v;
}
Value Value::Date(int32_t days) {
  Value v = Integer(TypeKind::kInt32, days);
  v.type_ = DataType::Of(TypeKind::kDate);
  return v;
}
Value Value::Timestamp(int64_t micros) {
  Value v = Integer(TypeKind::kInt64, micros);
  v.type_ = DataType::Of(TypeKind::kTimestamp);
  return v;
}
Value Value::TimestampNtz(int64_t micros) {
  Value v = Integer(TypeKind::kInt64, micros);
  v.type_ = DataType::Of(TypeKind::kTimestampNtz);
  return v;
}

bool Value::operator==(const Value& o) const {
  if (type_ != o.type_ || null_ != o.null_) return false;
  if (null_) return true;
  switch (type_.kind) {
    case TypeKind::kNull: return true;
    case TypeKind::kBoolean: return b_ == o.b_;
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      return (std::isnan(d_) && std::isnan(o.d_)) ||
             std::memcmp(&d_, &o.d_, sizeof d_) == 0;
    case TypeKind::kDecimal: return dec_ == o.dec_;
    case TypeKind::kString:
    case TypeKind::kBinary: return s_ == o.s_;
    default: return i_ == o.i_;
  }
}

// ---- comparison ----

int128_t Pow10(int n) { return Pow10Table()[static_cast<size_t>(n)]; }

int DecimalDigits(int128_t v) {
  if (v < 0) v = -v;
  int d = 1;
  while (d < 39 && v >= Pow10(d)) ++d;
  return d;
}

int CompareDoubles(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an && bn ? 0 : (an ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareDecimals(int128_t a, int32_t a_scale, int128_t b, int32_t b_scale) {
  if (a_scale == b_scale) return Cmp(a, b);
  // Integer parts first, then the fractions brought to the larger scale: both steps
  // stay below 10^38, so no rescaling can overflow (see the proof in the tests).
  int128_t qa = a / Pow10(a_scale), ra = a % Pow10(a_scale);
  int128_t qb = b / Pow10(b_scale), rb = b % Pow10(b_scale);
  if (qa != qb) return Cmp(qa, qb);
  int32_t s = std::max(a_scale, b_scale);
  return Cmp(ra * Pow10(s - a_scale), rb * Pow10(s - b_scale));
}

int CompareIntDouble(int64_t a, double b) {
  if (std::isnan(b)) return -1;
  if (b >= 9223372036854775808.0) return -1;
  if (b < -9223372036854775808.0) return 1;
  double t = std::trunc(b);
  auto ti = static_cast<int64_t>(t);
  if (a != ti) return a < ti ? -1 : 1;
  double frac = b - t;  // exact: b and t share the exponent range
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

namespace {

std::optional<int> CompareNumeric(const Value& a, const Value& b) {
  TypeKind ak = a.kind(), bk = b.kind();
  if (IsFloatKind(ak) || IsFloatKind(bk)) {
    if (IsFloatKind(ak) && IsFloatKind(bk)) return CompareDoubles(a.double_value(), b.double_value());
    if (IsIntegerKind(ak)) return CompareIntDouble(a.int_value(), b.double_value());
    if (IsIntegerKind(bk)) return -CompareIntDouble(b.int_value(), a.double_value());
    double ad = IsFloatKind(ak) ? a.double_value() : DecimalToDouble(a.unscaled(), a.type().scale);
    double bd = IsFloatKind(bk) ? b.double_value() : DecimalToDouble(b.unscaled(), b.type().scale);
    return CompareDoubles(ad, bd);
  }
  if (IsIntegerKind(ak) && IsIntegerKind(bk)) {
    return a.int_value() < b.int_value() ? -1 : (a.int_value() > b.int_value() ? 1 : 0);
  }
  int128_t au = IsIntegerKind(ak) ? int128_t{a.int_value()} : a.unscaled();
  int128_t bu = IsIntegerKind(bk) ? int128_t{b.int_value()} : b.unscaled();
  int32_t as = IsIntegerKind(ak) ? 0 : a.type().scale;
  int32_t bs = IsIntegerKind(bk) ? 0 : b.type().scale;
  return CompareDecimals(au, as, bu, bs);
}

std::optional<int> CompareTemporal(const Value& a, const Value& b) {
  TypeKind ak = a.kind(), bk = b.kind();
  if ((ak == TypeKind::kTimestamp && bk == TypeKind::kTimestampNtz) ||
      (ak == TypeKind::kTimestampNtz && bk == TypeKind::kTimestamp)) {
    return std::nullopt;  // an instant and a wall-clock time have no common scale
  }
  auto micros = [](const Value& v) {
    return v.kind() == TypeKind::kDate ? int128_t{v.int_value()} * kMicrosPerDay
                                       : int128_t{v.int_value()};
  };
  if (ak == bk) return Cmp(a.int_value(), b.int_value());
  return Cmp(micros(a), micros(b));
}

}  // namespace

std::optional<int> CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  TypeKind ak = a.kind(), bk = b.kind();
  if (IsNumericKind(ak) && IsNumericKind(bk)) return CompareNumeric(a, b);
  if (IsBytesKind(ak) && IsBytesKind(bk)) {
    int c = a.bytes().compare(b.bytes());  // char_traits<char>::compare is unsigned (memcmp)
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (ak == TypeKind::kBoolean && bk == TypeKind::kBoolean) {
    return static_cast<int>(a.bool_value()) - static_cast<int>(b.bool_value());
  }
  if (IsTemporalKind(ak) && IsTemporalKind(bk)) return CompareTemporal(a, b);
  return std::nullopt;
}

// ---- text ----

std::string LiteralText(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (v.kind()) {
    case TypeKind::kNull: return "NULL";
    case TypeKind::kBoolean: return v.bool_value() ? "TRUE" : "FALSE";
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      double d = v.double_value();
      if (!std::isfinite(d)) return "DOUBLE " + Quote(DoubleText(d));
      std::string s = DoubleText(d);
      // An exponent marks the literal as a float when read back (1.5 would be DECIMAL).
      if (s.find_first_of("eE") == std::string::npos) s += "E0";
      return s;
    }
    case TypeKind::kDecimal: {
      std::string s = DecimalText(v.unscaled(), v.type().scale);
      // A trailing '.' keeps a scale-0 decimal a DECIMAL when read back.
      if (v.type().scale == 0) s += ".";
      return s;
    }
    case TypeKind::kString:
    case TypeKind::kBinary: return Quote(v.bytes());
    case TypeKind::kDate: return "DATE " + Quote(FormatDate(v.int_value()));
    case TypeKind::kTimestamp:
      return "TIMESTAMP " + Quote(FormatTimestampMicros(v.int_value()) + "Z");
    case TypeKind::kTimestampNtz:
      return "TIMESTAMP_NTZ " + Quote(FormatTimestampMicros(v.int_value()));
    default: return fmt::format("{}", v.int_value());
  }
}

std::string DisplayText(const Value& v) {
  if (v.is_null()) return "NULL";
  switch (v.kind()) {
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: return DoubleText(v.double_value());
    case TypeKind::kDecimal: return DecimalText(v.unscaled(), v.type().scale);
    case TypeKind::kString:
    case TypeKind::kBinary: return Quote(v.bytes());
    case TypeKind::kDate: return FormatDate(v.int_value());
    case TypeKind::kTimestamp: return FormatTimestampMicros(v.int_value()) + "Z";
    case TypeKind::kTimestampNtz: return FormatTimestampMicros(v.int_value());
    default: return LiteralText(v);
  }
}

std::string FormatDate(int64_t days) {
  const auto [year, month, day] = CivilFromDays(days);
  if (year >= 0 && year <= 9999) return fmt::format("{:04}-{:02}-{:02}", year, month, day);
  return fmt::format("{}{:04}-{:02}-{:02}", year < 0 ? "-" : "+", year < 0 ? -year : year, month,
                     day);
}

std::string FormatTimestampMicros(int64_t micros) {
  const auto [days, rem] = SplitDays(micros, kMicrosPerDay);
  int64_t secs = rem / kMicrosPerSecond, frac = rem % kMicrosPerSecond;
  std::string out = fmt::format("{} {:02}:{:02}:{:02}", FormatDate(days), secs / 3600,
                                secs / 60 % 60, secs % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:06}", frac);
    while (f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

Result<int32_t> ParseDate(std::string_view text) {
  size_t pos = 0;
  int64_t days = 0;
  const IsoTextError e = ReadIsoDate(text, &pos, &days);
  if (e != IsoTextError::kNone) return DateTextError(text, e);
  if (pos != text.size()) {
    return Status::InvalidArgument("'{}' is not a valid date (expected YYYY-MM-DD)", text);
  }
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("date '{}' is out of range", text);
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimestamp(std::string_view s, bool* had_zone) {
  auto bad = [&] {
    return Status::InvalidArgument(
        "'{}' is not a valid timestamp (expected YYYY-MM-DD HH:MM:SS[.ffffff][Z|+hh:mm])", s);
  };
  *had_zone = false;
  IsoTimestampParts t;
  size_t end = 0;
  // SQL literals take an upper-case 'T' only.
  const IsoTextError e = ReadIsoTimestamp(s, /*lowercase_t=*/false, &t, &end);
  if (e == IsoTextError::kMalformedDate || e == IsoTextError::kNoSuchDay) return DateTextError(s, e);
  if (e != IsoTextError::kNone || end != s.size()) return bad();
  *had_zone = t.has_zone;
  if (t.days > kMaxTimestampDays || t.days < -kMaxTimestampDays) {
    return Status::InvalidArgument("timestamp '{}' is out of range", s);
  }
  // Fraction digits past the microsecond are dropped (toward negative infinity: the
  // fraction is positive).
  const int64_t secs_of_day = t.seconds_of_day - t.offset_minutes * 60;
  return t.days * kMicrosPerDay + secs_of_day * kMicrosPerSecond + t.nanos / 1000;
}

Result<Value> ParseNumber(std::string_view text) {
  auto bad = [&] { return Status::InvalidArgument("'{}' is not a valid number", text); };
  size_t pos = 0;
  bool neg = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) neg = text[pos++] == '-';
  size_t int_start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  std::string_view int_digits = text.substr(int_start, pos - int_start);
  bool has_point = pos < text.size() && text[pos] == '.';
  std::string_view frac_digits;
  if (has_point) {
    size_t f = ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    frac_digits = text.substr(f, pos - f);
  }
  if (int_digits.empty() && frac_digits.empty()) return bad();
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    size_t e = ++pos;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
    size_t exp_digits = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == exp_digits || pos != text.size() || e == 0) return bad();
    std::string copy(text);
    double d = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(d)) return Status::InvalidArgument("float literal {} is out of range", text);
    return Value::Float64(d);
  }
  if (pos != text.size()) return bad();
  // Exact: accumulate every digit (leading zeros do not count toward the precision).
  int128_t unscaled = 0;
  int digits = 0;
  for (std::string_view part : {int_digits, frac_digits}) {
    for (char c : part) {
      if (digits == 0 && c == '0') continue;
      if (++digits > kMaxDecimalPrecision) {
        return Status::InvalidArgument("number {} has more than {} digits", text,
                                       kMaxDecimalPrecision);
      }
      unscaled = unscaled * 10 + (c - '0');
    }
  }
  if (neg) unscaled = -unscaled;
  auto scale = static_cast<int32_t>(frac_digits.size());
  if (scale > kMaxDecimalPrecision) {
    return Status::InvalidArgument("number {} has more than {} digits", text, kMaxDecimalPrecision);
  }
  if (!has_point && unscaled >= std::numeric_limits<int64_t>::min() &&
      unscaled <= std::numeric_limits<int64_t>::max()) {
    return Value::Int64(static_cast<int64_t>(unscaled));
  }
  int32_t precision = std::max({digits, scale, 1});
  return Value::Decimal(unscaled, precision, scale);
}

}  // namespace lithify::expr
