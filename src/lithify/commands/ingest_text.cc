// Scalar text parsers shared by the JSON Lines and CSV readers; see ingest_text.h.
#include "lithify/commands/ingest_text.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"

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

int DaysInMonth(int64_t y, unsigned m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// Parses a fixed number of digits at text[*i].
bool Digits(std::string_view t, size_t* i, size_t n, int64_t* out) {
  if (*i + n > t.size()) return false;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = t[*i + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

// "[-]YYYY[Y..]-MM-DD" at the start of t; advances *i.
bool ParseDatePart(std::string_view t, size_t* i, int64_t* days) {
  bool neg = false;
  if (*i < t.size() && (t[*i] == '-' || t[*i] == '+')) neg = t[(*i)++] == '-';
  size_t start = *i;
  while (*i < t.size() && t[*i] >= '0' && t[*i] <= '9') ++*i;
  size_t ylen = *i - start;
  if (ylen < 4 || ylen > 6) return false;
  int64_t year = 0;
  for (size_t k = start; k < *i; ++k) year = year * 10 + (t[k] - '0');
  if (neg) year = -year;
  int64_t month, day;
  if (*i >= t.size() || t[*i] != '-') return false;
  ++*i;
  if (!Digits(t, i, 2, &month)) return false;
  if (*i >= t.size() || t[*i] != '-') return false;
  ++*i;
  if (!Digits(t, i, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return false;
  }
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
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
  if (is_float) {
    float f = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
    if (ec == std::errc::result_out_of_range) {
      return Status::InvalidArgument("{} is out of range for float", Shown(text, quoted));
    }
    if (ec != std::errc() || p != t.data() + t.size() || t.empty()) {
      return Status::InvalidArgument("{} is not a valid float", Shown(text, quoted));
    }
    return static_cast<double>(f);
  }
  double d = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec == std::errc::result_out_of_range) {
    return Status::InvalidArgument("{} is out of range for double", Shown(text, quoted));
  }
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) {
    return Status::InvalidArgument("{} is not a valid double", Shown(text, quoted));
  }
  return d;
}


}  // namespace

// Declared in ingest.h: scan skipping reads decimal statistics with it.
Result<__int128> ParseDecimalText(std::string_view text, int precision, int scale, bool quoted) {
  auto bad = [&] {
    return Status::InvalidArgument("{} is not a valid decimal({},{})", Shown(text, quoted),
                                   precision, scale);
  };
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  // Collect significant digits (leading zeros dropped) and the point position.
  std::string digits;
  int64_t frac_digits = 0;
  bool any = false, dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') return bad();
    any = true;
    if (dot) ++frac_digits;
    if (digits.empty() && c == '0') continue;
    digits.push_back(c);
    if (digits.size() > 80) return bad();
  }
  if (!any) return bad();
  if (i < text.size()) {  // exponent
    ++i;
    int64_t e = 0;
    std::string_view et = text.substr(i);
    if (!et.empty() && et[0] == '+') et.remove_prefix(1);
    auto [p, ec] = std::from_chars(et.data(), et.data() + et.size(), e);
    if (ec != std::errc() || p != et.data() + et.size() || e > 1000 || e < -1000) return bad();
    frac_digits -= e;
  }
  // Exact value = digits * 10^-frac_digits. Trailing zeros beyond the scale are exact.
  while (frac_digits > scale && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    --frac_digits;
  }
  if (digits.empty()) return __int128{0};
  if (frac_digits > scale) {
    return Status::InvalidArgument("{} has more digits after the point than decimal({},{}) allows",
                                   Shown(text, quoted), precision, scale);
  }
  int64_t total = static_cast<int64_t>(digits.size()) + (scale - frac_digits);
  if (total > precision) {
    return Status::InvalidArgument("{} has more digits than decimal({},{}) allows",
                                   Shown(text, quoted), precision, scale);
  }
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  v *= Pow10(static_cast<int>(scale - frac_digits));
  return neg ? -v : v;
}

namespace {

Result<int64_t> ParseDateText(std::string_view text, bool quoted) {
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days) || i != text.size()) {
    return Status::InvalidArgument("{} is not a valid date (expected YYYY-MM-DD)",
                                   Shown(text, quoted));
  }
  return days;
}

Result<int64_t> ParseTimestampText(std::string_view text, bool ntz, bool quoted) {
  auto bad = [&] {
    return Status::InvalidArgument(
        "{} is not a valid {} (expected YYYY-MM-DD[THH:MM:SS[.ffffff]][Z|+HH:MM])",
        Shown(text, quoted), ntz ? "timestamp_ntz" : "timestamp");
  };
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days)) return bad();
  int64_t hh = 0, mm = 0, ss = 0, nanos = 0;
  if (i < text.size() && (text[i] == 'T' || text[i] == 't' || text[i] == ' ')) {
    ++i;
    if (!Digits(text, &i, 2, &hh) || i >= text.size() || text[i] != ':') return bad();
    ++i;
    if (!Digits(text, &i, 2, &mm)) return bad();
    if (i < text.size() && text[i] == ':') {
      ++i;
      if (!Digits(text, &i, 2, &ss)) return bad();
      if (i < text.size() && text[i] == '.') {
        ++i;
        size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        size_t n = i - start;
        if (n == 0 || n > 9) return bad();
        for (size_t k = 0; k < 9; ++k) {
          nanos = nanos * 10 + (k < n ? text[start + k] - '0' : 0);
        }
      }
    }
    if (hh > 23 || mm > 59 || ss > 59) return bad();
  }
  int64_t offset_minutes = 0;
  if (i < text.size()) {
    char c = text[i];
    if (c == 'Z' || c == 'z') {
      ++i;
    } else if (c == '+' || c == '-') {
      ++i;
      int64_t oh = 0, om = 0;
      if (!Digits(text, &i, 2, &oh)) return bad();
      if (i < text.size() && text[i] == ':') ++i;
      if (i < text.size() && !Digits(text, &i, 2, &om)) return bad();
      if (oh > 18 || om > 59) return bad();
      offset_minutes = (c == '-' ? -1 : 1) * (oh * 60 + om);
    } else {
      return bad();
    }
    if (ntz) {
      return Status::InvalidArgument(
          "{} has a time zone, but timestamp_ntz values are zone-less wall-clock times",
          Shown(text, quoted));
    }
  }
  if (i != text.size()) return bad();
  if (nanos % 1000 != 0) {
    return Status::InvalidArgument(
        "{} has sub-microsecond digits; {} stores microseconds", Shown(text, quoted),
        ntz ? "timestamp_ntz" : "timestamp");
  }
  __int128 micros = static_cast<__int128>(days) * kMicrosPerDay +
                    ((hh * 60 + mm - offset_minutes) * 60 + ss) * int64_t{1000000} + nanos / 1000;
  if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) {
    return Status::InvalidArgument("{} is out of range for {}", Shown(text, quoted),
                                   ntz ? "timestamp_ntz" : "timestamp");
  }
  return static_cast<int64_t>(micros);
}

Result<std::string> DecodeBase64(std::string_view text, bool quoted) {
  auto bad = [&] {
    return Status::InvalidArgument("{} is not valid base64 (binary values are base64, as scan prints them)",
                                   Shown(text, quoted));
  };
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  size_t n = text.size();
  size_t pad = 0;
  while (pad < 2 && n > 0 && text[n - 1] == '=') {
    --n;
    ++pad;
  }
  if (pad > 0 && text.size() % 4 != 0) return bad();
  if (n % 4 == 1) return bad();
  std::string out;
  out.reserve(n * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    int v = val(text[i]);
    if (v < 0) return bad();
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if ((acc & ((1u << bits) - 1)) != 0) return bad();  // non-canonical trailing bits
  return out;
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
      if (!ValidUtf8(text)) return Status::InvalidArgument("string value is not valid UTF-8");
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
