// Value rendering and equality.
#include "lithify/table/value.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace lithify::table {

namespace {

// Days since 1970-01-01 -> civil date (Howard Hinnant's algorithm; exact for the
// proleptic Gregorian calendar over the whole int64 range we accept).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string DateText(int64_t days) {
  int64_t y; unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

std::string TimestampText(int64_t micros, bool utc) {
  const int64_t kPerDay = int64_t{86400} * 1000000;
  int64_t days = FloorDiv(micros, kPerDay);
  int64_t rem = micros - days * kPerDay;
  int64_t secs = rem / 1000000, frac = rem % 1000000;
  return fmt::format("{}T{:02}:{:02}:{:02}.{:06}{}", DateText(days), secs / 3600, secs / 60 % 60,
                     secs % 60, frac, utc ? "Z" : "");
}

std::string DecimalText(__int128 unscaled, int scale) {
  bool neg = unscaled < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(unscaled)
                            : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do { digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10))); u /= 10; }
  while (u != 0);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, 1, '.');
  }
  return neg ? "-" + digits : digits;
}

}  // namespace

std::string_view KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBoolean: return "boolean";
    case Value::Kind::kInt64: return "int64";
    case Value::Kind::kDouble: return "double";
    case Value::Kind::kString: return "string";
    case Value::Kind::kBinary: return "binary";
    case Value::Kind::kDate: return "date";
    case Value::Kind::kTimestamp: return "timestamp";
    case Value::Kind::kTimestampNtz: return "timestamp_ntz";
    case Value::Kind::kDecimal: return "decimal";
  }
  return "?";
}

std::string Value::ToString() const {
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kBoolean: return i_ ? "true" : "false";
    case Kind::kInt64: return fmt::format("{}", i_);
    case Kind::kDouble: return fmt::format("{}", d_);
    case Kind::kString:
    case Kind::kBinary: return s_;
    case Kind::kDate: return DateText(i_);
    case Kind::kTimestamp: return TimestampText(i_, true);
    case Kind::kTimestampNtz: return TimestampText(i_, false);
    case Kind::kDecimal: return DecimalText(unscaled_, scale_);
  }
  return "?";
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::kNull: return true;
    case Value::Kind::kDouble: return a.d_ == b.d_ || (std::isnan(a.d_) && std::isnan(b.d_));
    case Value::Kind::kString:
    case Value::Kind::kBinary: return a.s_ == b.s_;
    case Value::Kind::kDecimal:
      return a.unscaled_ == b.unscaled_ && a.precision_ == b.precision_ && a.scale_ == b.scale_;
    default: return a.i_ == b.i_;
  }
}

}  // namespace lithify::table
