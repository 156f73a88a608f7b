// Logical types and typed values for predicates: the vocabulary shared by the parser,
// the binder and every evaluator.
//
// The vocabulary is format-neutral (Delta, Iceberg and Parquet all map onto it) and
// deliberately small: booleans, signed integers, floats, DECIMAL(p, s) up to 38 digits,
// strings, binary, DATE (days since 1970-01-01), TIMESTAMP (UTC instant, microseconds
// since the epoch) and TIMESTAMP_NTZ (wall-clock microseconds without zone). A Value is
// one typed value or a typed (or untyped) NULL. Comparison (CompareValues) is exact
// across the numeric kinds, orders floats totally with NaN above +Infinity and equal to
// itself (the Spark / DuckDB rule, which keeps NOT(a < b) == a >= b), and orders strings
// and binary by unsigned bytes. Values are plain copyable data; all functions here are
// pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lithify/base/civil_time.h"
#include "lithify/base/result.h"

namespace lithify::expr {

using int128_t = __int128;

enum class TypeKind : uint8_t {
  kNull,  // the type of an untyped NULL literal; never a column type
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kDecimal,  // DataType::precision / scale
  kString,   // UTF-8 text, compared by bytes
  kBinary,
  kDate,          // days since 1970-01-01
  kTimestamp,     // microseconds since 1970-01-01 00:00:00 UTC
  kTimestampNtz,  // wall-clock microseconds since 1970-01-01 00:00:00, no zone
};

// The most decimal digits a DECIMAL holds (what fits an __int128 and what Delta allows).
inline constexpr int32_t kMaxDecimalPrecision = 38;

struct DataType {
  TypeKind kind = TypeKind::kNull;
  int32_t precision = 0;  // kDecimal only
  int32_t scale = 0;      // kDecimal only

  static DataType Of(TypeKind k) { return DataType{k, 0, 0}; }
  // Precondition: 1 <= precision <= 38, 0 <= scale <= precision.
  static DataType Decimal(int32_t precision, int32_t scale) {
    return DataType{TypeKind::kDecimal, precision, scale};
  }
  bool operator==(const DataType&) const = default;
};

// "INT32", "DECIMAL(10,2)", "TIMESTAMP_NTZ", ...
std::string TypeName(const DataType& t);

bool IsIntegerKind(TypeKind k);   // kInt8..kInt64
bool IsFloatKind(TypeKind k);     // kFloat32, kFloat64
bool IsNumericKind(TypeKind k);   // integer, float or decimal
bool IsTemporalKind(TypeKind k);  // kDate, kTimestamp, kTimestampNtz
bool IsBytesKind(TypeKind k);     // kString, kBinary

// A typed value or NULL. The payload member that is meaningful depends on the kind:
// boolean -> bool_value(); integers, DATE and timestamps -> int_value(); floats ->
// double_value(); DECIMAL -> unscaled() with type().scale; STRING/BINARY -> bytes().
class Value {
 public:
  // An untyped NULL (kind kNull).
  Value() = default;

  static Value Null(DataType type);
  static Value Boolean(bool v);
  // Precondition: IsIntegerKind(kind). The value is not range-checked against the kind
  // (an INT8 column never produces out-of-range values; literals are kept as kInt64).
  static Value Integer(TypeKind kind, int64_t v);
  static Value Int64(int64_t v) { return Integer(TypeKind::kInt64, v); }
  // Precondition: IsFloatKind(kind).
  static Value Floating(TypeKind kind, double v);
  static Value Float64(double v) { return Floating(TypeKind::kFloat64, v); }
  // Precondition: |unscaled| < 10^precision, 0 <= scale <= precision <= 38.
  static Value Decimal(int128_t unscaled, int32_t precision, int32_t scale);
  static Value String(std::string v);
  static Value Binary(std::string v);
  static Value Date(int32_t days);
  static Value Timestamp(int64_t micros);
  static Value TimestampNtz(int64_t micros);

  const DataType& type() const { return type_; }
  TypeKind kind() const { return type_.kind; }
  bool is_null() const { return null_; }
  bool bool_value() const { return b_; }
  int64_t int_value() const { return i_; }
  double double_value() const { return d_; }
  int128_t unscaled() const { return dec_; }
  const std::string& bytes() const { return s_; }

  // Structural equality: same type, same nullness, same payload (NaN equals NaN,
  // -0.0 differs from 0.0). For tests and round trips; SQL equality is CompareValues.
  bool operator==(const Value& o) const;

 private:
  DataType type_;
  bool null_ = true;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  int128_t dec_ = 0;
  std::string s_;
};

// Three-way comparison of two non-null values: <0, 0, >0; nullopt when the kinds are
// incomparable (string vs number, TIMESTAMP vs TIMESTAMP_NTZ, ...). Exact for every
// integer/decimal mix and for integer vs float; DECIMAL vs float compares the decimal
// converted to double (the precision a float column has anyway). DATE compares with
// either timestamp kind as midnight of that day. Precondition: neither is null.
std::optional<int> CompareValues(const Value& a, const Value& b);

// Total order on doubles used everywhere: -0.0 == 0.0, NaN == NaN, NaN above all.
int CompareDoubles(double a, double b);
// Exact comparison of two decimals given as (unscaled, scale), scales in [0, 38].
int CompareDecimals(int128_t a, int32_t a_scale, int128_t b, int32_t b_scale);
// Exact comparison of an integer with a double under CompareDoubles' order.
int CompareIntDouble(int64_t a, double b);

// 10^n for n in [0, 38].
int128_t Pow10(int n);
// Number of decimal digits of |v| (1 for 0).
int DecimalDigits(int128_t v);

// SQL literal text of a value, the form Parse reads back: 12, 12.50, 1.5E3,
// DOUBLE 'NaN', 'it''s', TRUE, NULL, DATE '2024-01-31',
// TIMESTAMP '2024-01-31 12:00:00.5Z', TIMESTAMP_NTZ '2024-01-31 12:00:00'. Binary values
// print as their bytes in a string literal (how they are written in predicates).
std::string LiteralText(const Value& v);

// Plain (unquoted) text of a non-null value for explanations: 12.50, abc, 2024-01-31.
std::string DisplayText(const Value& v);

// Calendar helpers (proleptic Gregorian, UTC); the day arithmetic is in
// lithify/base/civil_time.h.
using ::lithify::DaysFromCivil;
// "YYYY-MM-DD"; years outside 0..9999 as "-YYYY…" / "+YYYYY…" (the form ParseDate reads).
std::string FormatDate(int64_t days);
// "YYYY-MM-DD HH:MM:SS[.ffffff]" (fraction only when non-zero, trailing zeros trimmed).
std::string FormatTimestampMicros(int64_t micros);

// Parses "YYYY-MM-DD". InvalidArgument naming what was wrong.
Result<int32_t> ParseDate(std::string_view text);

// Parses "YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[:MM]]" into microseconds
// (fraction digits past 6 truncate toward negative infinity). A zone offset converts
// the wall-clock time to UTC; `*had_zone` tells whether one was present.
Result<int64_t> ParseTimestamp(std::string_view text, bool* had_zone);

// Parses a SQL numeric literal: [+-]digits -> kInt64 (or DECIMAL(p,0) beyond 64 bits),
// [+-]digits.digits -> DECIMAL keeping every digit, anything with an exponent ->
// kFloat64. InvalidArgument for malformed text or more than 38 decimal digits.
Result<Value> ParseNumber(std::string_view text);

}  // namespace lithify::expr
