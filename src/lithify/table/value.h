// Value: one typed scalar of table metadata (a partition value, a min/max statistic).
//
// Table formats describe files with small typed scalars: Delta's partition values arrive
// as strings and are typed by the table schema; its statistics arrive as JSON numbers,
// strings and booleans; Iceberg's bounds are typed by the schema too. Value is the one
// vocabulary the planner and predicate evaluation see for all of them, so no format
// type leaks upward. Kinds follow the logical types both formats share; dates are days
// since the Unix epoch, timestamps microseconds since the epoch (UTC for kTimestamp,
// wall clock for kTimestampNtz), decimals an unscaled 128-bit integer plus
// precision/scale. Statistics parsed from JSON whose column type is unknown use only
// kBoolean / kInt64 / kDouble / kString (the JSON kinds); their kDouble values keep the
// number's text (Number), since a JSON number is exact only as written.
//
// A plain value type; thread-safe as any const value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace lithify::table {

class Value {
 public:
  enum class Kind {
    kNull,
    kBoolean,
    kInt64,        // byte, short, integer, long
    kDouble,       // float, double
    kString,       // UTF-8 text
    kBinary,       // raw bytes
    kDate,         // days since 1970-01-01
    kTimestamp,    // microseconds since the epoch, UTC
    kTimestampNtz, // microseconds since the epoch, no time zone
    kDecimal,      // unscaled value, precision, scale
  };

  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Boolean(bool v) { Value x(Kind::kBoolean); x.i_ = v ? 1 : 0; return x; }
  static Value Int64(int64_t v) { Value x(Kind::kInt64); x.i_ = v; return x; }
  static Value Double(double v) { Value x(Kind::kDouble); x.d_ = v; return x; }
  // A number read from text that no int64 holds exactly (a fraction, an exponent, an
  // integer beyond 64 bits): kDouble with its nearest double and the text as written,
  // so that a consumer knowing the column's type (a decimal) reads it exactly.
  static Value Number(double nearest, std::string text) {
    Value x(Kind::kDouble); x.d_ = nearest; x.s_ = std::move(text); return x;
  }
  static Value String(std::string v) { Value x(Kind::kString); x.s_ = std::move(v); return x; }
  static Value Binary(std::string v) { Value x(Kind::kBinary); x.s_ = std::move(v); return x; }
  static Value Date(int64_t days) { Value x(Kind::kDate); x.i_ = days; return x; }
  static Value Timestamp(int64_t micros) { Value x(Kind::kTimestamp); x.i_ = micros; return x; }
  static Value TimestampNtz(int64_t micros) {
    Value x(Kind::kTimestampNtz); x.i_ = micros; return x;
  }
  // Precondition: 1 <= precision <= 38, 0 <= scale <= precision.
  static Value Decimal(__int128 unscaled, int precision, int scale) {
    Value x(Kind::kDecimal); x.unscaled_ = unscaled; x.precision_ = precision; x.scale_ = scale;
    return x;
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  // Accessors: preconditions are the matching kind (unchecked, like std::optional::operator*).
  bool boolean() const { return i_ != 0; }
  // kInt64, kDate, kTimestamp, kTimestampNtz.
  int64_t int64() const { return i_; }
  double dbl() const { return d_; }
  // kDouble made by Number: the number's text as written; empty otherwise.
  const std::string& number_text() const { return s_; }
  // kString, kBinary.
  const std::string& str() const { return s_; }
  __int128 unscaled() const { return unscaled_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }

  // Human/JSON-friendly text: null, true, 12, 1.5, "abc", dates "YYYY-MM-DD", timestamps
  // "YYYY-MM-DDTHH:MM:SS.ffffff[Z]", decimals with exactly `scale` fraction digits.
  std::string ToString() const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  explicit Value(Kind k) : kind_(k) {}
  Kind kind_ = Kind::kNull;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  __int128 unscaled_ = 0;
  int precision_ = 0;
  int scale_ = 0;
};

std::string_view KindName(Value::Kind kind);

}  // namespace lithify::table
