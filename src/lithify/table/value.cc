// Value rendering and equality.
#include "lithify/table/value.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "lithify/base/civil_time.h"
#include "lithify/base/decimal_text.h"

namespace lithify::table {

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
    case Kind::kDouble: return s_.empty() ? fmt::format("{}", d_) : s_;
    case Kind::kString:
    case Kind::kBinary: return s_;
    case Kind::kDate: return IsoDateText(i_);
    case Kind::kTimestamp: return IsoTimestampMicrosText(i_, true);
    case Kind::kTimestampNtz: return IsoTimestampMicrosText(i_, false);
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
