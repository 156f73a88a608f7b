// Scalar text parsers shared by the JSON Lines and CSV readers; see ingest_text.h.
#include "lithify/commands/ingest_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "lithify/base/base64.h"
#include "lithify/base/civil_time.h"
#include "lithify/base/decimal_text.h"
#include "lithify/base/macros.h"
#include "lithify/base/utf8.h"

namespace lithify::commands {

using namespace ingest_internal;  // NOLINT: this file is ingest_internal's

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}


std::string_view IntTypeName(TypeKind k) {
  switch (k) {
    case TypeKind::kByte: return "byte";
    case TypeKind::kShort: return "short";
    case TypeKind::kInteger: return "integer";
    default: return "long";
  }
}

Result<int64_t> ParseIntText(std::string_view text, TypeKind kind, bool quoted) {
  std::string_view t = text;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  std::string_view digits = !t.empty() && t[0] == '-' ? t.substr(1) : t;
  if (!AllDigits(digits)) {
    return Status::InvalidArgument("{} is not a valid {}", Shown(text, quoted),
                                   IntTypeName(kind));
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  auto [lo, hi] = IntRange(kind);
  if (ec != std::errc() || p != t.data() + t.size() || v < lo || v > hi) {
    return Status::InvalidArgument("{} is out of range for {}", Shown(text, quoted),
                                   IntTypeName(kind));
  }
  return v;
}

// `t` (plain number syntax, already checked) as an F, widened to double; the messages
// quote `text` as written.
template <typename F>
Result<double> FromChars(std::string_view t, std::string_view text, bool quoted, const char* type_name) {
  F v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return Status::InvalidArgument("{} is out of range for {}", Shown(text, quoted), type_name);
  }
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) {
    return Status::InvalidArgument("{} is not a valid {}", Shown(text, quoted), type_name);
  }
  return static_cast<double>(v);
}

Result<double> ParseFloatText(std::string_view text, bool is_float, bool quoted) {
  const char* type_name = is_float ? "float" : "double";
  if (text == "NaN" || text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity" || text == "inf" || text == "+Infinity") {
    return std::numeric_limits<double>::infinity();
  }
  if (text == "-Infinity" || text == "-inf") return -std::numeric_limits<double>::infinity();
  std::string_view t = text;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  // from_chars would also take "inf"/"nan" spellings and hex; accept plain numbers only.
  for (char c : t) {
    if (!((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+')) {
      return Status::InvalidArgument("{} is not a valid {}", Shown(text, quoted), type_name);
    }
  }
  if (is_float) return FromChars<float>(t, text, quoted, type_name);
  return FromChars<double>(t, text, quoted, type_name);
}


}  // namespace

// Declared in ingest.h: scan skipping reads decimal statistics with it.
Result<__int128> ParseDecimalText(std::string_view text, int precision, int scale, bool quoted) {
  return lithify::ParseDecimalText(text, precision, scale, Shown(text, quoted));
}

namespace {

Result<int64_t> ParseDateText(std::string_view text, bool quoted) {
  size_t i = 0;
  int64_t days = 0;
  if (ReadIsoDate(text, &i, &days) != IsoTextError::kNone || i != text.size()) {
    return Status::InvalidArgument("{} is not a valid date (expected YYYY-MM-DD)",
                                   Shown(text, quoted));
  }
  return days;
}

Result<int64_t> ParseTimestampText(std::string_view text, bool ntz, bool quoted) {
  const char* type_name = ntz ? "timestamp_ntz" : "timestamp";
  auto bad = [&] {
    return Status::InvalidArgument(
        "{} is not a valid {} (expected YYYY-MM-DD[THH:MM:SS[.ffffff]][Z|+HH:MM])",
        Shown(text, quoted), type_name);
  };
  IsoTimestampParts t;
  size_t end = 0;
  // 't' too: ingest takes what Spark's and Python's ISO readers take.
  if (ReadIsoTimestamp(text, /*lowercase_t=*/true, &t, &end) != IsoTextError::kNone) return bad();
  // The zone is named before any text after it: "has a time zone" says more.
  if (ntz && t.has_zone) {
    return Status::InvalidArgument(
        "{} has a time zone, but timestamp_ntz values are zone-less wall-clock times",
        Shown(text, quoted));
  }
  if (end != text.size()) return bad();
  if (t.nanos % 1000 != 0) {
    return Status::InvalidArgument("{} has sub-microsecond digits; {} stores microseconds",
                                   Shown(text, quoted), type_name);
  }
  __int128 micros = static_cast<__int128>(t.days) * kMicrosPerDay +
                    (t.seconds_of_day - t.offset_minutes * 60) * int64_t{1000000} + t.nanos / 1000;
  if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) {
    return Status::InvalidArgument("{} is out of range for {}", Shown(text, quoted), type_name);
  }
  return static_cast<int64_t>(micros);
}

Result<std::string> DecodeBase64(std::string_view text, bool quoted) {
  std::optional<std::string> bytes = Base64Decode(text);
  if (!bytes) {
    return Status::InvalidArgument("{} is not valid base64 (binary values are base64, as scan prints them)",
                                   Shown(text, quoted));
  }
  return std::move(*bytes);
}

}  // namespace

namespace ingest_internal {

Result<Value> ScalarFromText(std::string_view text, bool quoted, const DataType& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (EqualsIgnoreCase(text, "true")) return Value::Bool(true);
      if (EqualsIgnoreCase(text, "false")) return Value::Bool(false);
      return Status::InvalidArgument("{} is not a valid boolean (true or false)", Shown(text, quoted));
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t v, ParseIntText(text, type.kind, quoted));
      return Value::Int(v);
    }
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      LITHIFY_ASSIGN_OR_RETURN(double d, ParseFloatText(text, type.kind == TypeKind::kFloat, quoted));
      return Value::Double(d);
    }
    case TypeKind::kDecimal: {
      LITHIFY_ASSIGN_OR_RETURN(__int128 v, ParseDecimalText(text, type.precision, type.scale, quoted));
      return Value::Decimal(v);
    }
    case TypeKind::kString:
      if (!IsValidUtf8(text)) return Status::InvalidArgument("string value is not valid UTF-8");
      return Value::String(std::string(text));
    case TypeKind::kBinary: {
      LITHIFY_ASSIGN_OR_RETURN(std::string b, DecodeBase64(text, quoted));
      return Value::Bytes(std::move(b));
    }
    case TypeKind::kDate: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t d, ParseDateText(text, quoted));
      return Value::Int(d);
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      LITHIFY_ASSIGN_OR_RETURN(int64_t t, ParseTimestampText(text, type.kind == TypeKind::kTimestampNtz, quoted));
      return Value::Int(t);
    }
    default:
      return Status::NotSupported("type {} cannot be read from text", type.ToString());
  }
}

}  // namespace ingest_internal
}  // namespace lithify::commands
