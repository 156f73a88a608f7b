// Ingest: user files (JSON Lines, CSV, Parquet) -> rows of parquet::Value in a Delta
// schema. See ingest.h for the contract.
//
// The text formats share one set of scalar parsers (integers, floats, decimals, dates,
// timestamps, base64), so a value means the same in a JSONL line and in a CSV field.
// Error messages are built only on the failure path: a column path is a chain of stack
// frames rendered when something goes wrong.
#include "lithify/commands/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/parquet/file_reader.h"

namespace lithify::commands {

using parquet::Value;
using delta::DataType;
using TypeKind = delta::DataType::Kind;

namespace {

// Column path for error messages: a chain of frames on the stack.
struct PathFrame {
  const PathFrame* parent = nullptr;
  std::string_view name;
  int64_t index = -1;  // >= 0: an array element
};

// A parsed JSON value. Numbers keep their literal text.
struct JNode {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool b = false;
  std::string text;               // number literal or decoded string
  std::vector<JNode> items;       // array items, or object values
  std::vector<std::string> keys;  // object keys (parallel to items)
};


// ---------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

int FindField(const std::vector<delta::StructField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) {
      if (found >= 0) return -2;  // ambiguous
      found = static_cast<int>(i);
    }
  }
  return found;
}

std::string PathText(const PathFrame* f) {
  std::vector<const PathFrame*> chain;
  for (; f != nullptr; f = f->parent) chain.push_back(f);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const PathFrame* p = *it;
    if (p->index >= 0) {
      out += fmt::format("[{}]", p->index);
    } else {
      if (!out.empty()) out += '.';
      out += p->name;
    }
  }
  return out;
}

Status ColumnError(const PathFrame* path, const Status& st) {
  return Status(st.code(), fmt::format("column '{}': {}", PathText(path), st.message()));
}

std::string Shown(std::string_view text, bool quoted) {
  constexpr size_t kMax = 80;
  std::string t(text.substr(0, kMax));
  if (text.size() > kMax) t += "...";
  return quoted ? "\"" + t + "\"" : t;
}

bool ValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1; cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2; cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3; cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= n) {
      if (end - p < n + 1) return false;
    }
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    p += n + 1;
  }
  return true;
}

// ---------------------------------------------------------------------------------
// Scalar text parsers
// ---------------------------------------------------------------------------------

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

std::pair<int64_t, int64_t> IntRange(TypeKind k) {
  switch (k) {
    case TypeKind::kByte: return {-128, 127};
    case TypeKind::kShort: return {-32768, 32767};
    case TypeKind::kInteger: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
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

}  // namespace

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

// ---------------------------------------------------------------------------------
// JSON: a small exact parser (number literals are kept as text so that decimals and
// 64-bit integers are never routed through a double).
// ---------------------------------------------------------------------------------

namespace {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : t_(text) {}

  Status ParseDocument(JNode* out) {
    SkipWs();
    LITHIFY_RETURN_NOT_OK(ParseValue(out, 0));
    SkipWs();
    if (i_ != t_.size()) return Error("unexpected text after the JSON value");
    return Status::OK();
  }

 private:
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("invalid JSON at byte {}: {}", i_ + 1, what);
  }
  void SkipWs() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\r' || t_[i_] == '\n')) ++i_;
  }
  bool Literal(std::string_view lit) {
    if (t_.substr(i_, lit.size()) != lit) return false;
    i_ += lit.size();
    return true;
  }

  Status ParseValue(JNode* out, int depth) {
    if (i_ >= t_.size()) return Error("unexpected end of line");
    char c = t_[i_];
    // `depth` containers enclose this value; one more would pass the shared limit (the
    // tree is walked recursively afterwards, so it is refused before it is built).
    if ((c == '{' || c == '[') && depth >= kMaxJsonNesting) {
      return Error(fmt::format("JSON nested deeper than {} levels", kMaxJsonNesting));
    }
    switch (c) {
      case '{': return ParseObject(out, depth);
      case '[': return ParseArray(out, depth);
      case '"':
        out->kind = JNode::Kind::kString;
        return ParseString(&out->text);
      case 't':
        if (!Literal("true")) return Error("invalid literal");
        out->kind = JNode::Kind::kBool;
        out->b = true;
        return Status::OK();
      case 'f':
        if (!Literal("false")) return Error("invalid literal");
        out->kind = JNode::Kind::kBool;
        out->b = false;
        return Status::OK();
      case 'n':
        if (!Literal("null")) return Error("invalid literal");
        out->kind = JNode::Kind::kNull;
        return Status::OK();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
        return Error(fmt::format("unexpected character '{}'", c));
    }
  }

  Status ParseNumber(JNode* out) {
    size_t start = i_;
    if (t_[i_] == '-') ++i_;
    auto digits = [&] {
      size_t s = i_;
      while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
      return i_ - s;
    };
    size_t int_start = i_;
    size_t nd = digits();
    if (nd == 0) return Error("invalid number");
    if (nd > 1 && t_[int_start] == '0') {
      i_ = start;
      return Error("invalid number (leading zero)");
    }
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      if (digits() == 0) return Error("invalid number");
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      if (digits() == 0) return Error("invalid number");
    }
    out->kind = JNode::Kind::kNumber;
    out->text.assign(t_.substr(start, i_ - start));
    return Status::OK();
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool Hex4(uint32_t* cp) {
    if (i_ + 4 > t_.size()) return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int h = Hex(t_[i_ + k]);
      if (h < 0) return false;
      v = v * 16 + static_cast<uint32_t>(h);
    }
    i_ += 4;
    *cp = v;
    return true;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Raw bytes were validated as UTF-8 for the whole line before parsing.
  Status ParseString(std::string* out) {
    ++i_;  // opening quote
    out->clear();
    while (true) {
      size_t run = i_;
      while (i_ < t_.size() && t_[i_] != '"' && t_[i_] != '\\' &&
             static_cast<unsigned char>(t_[i_]) >= 0x20) {
        ++i_;
      }
      out->append(t_.substr(run, i_ - run));
      if (i_ >= t_.size()) return Error("unterminated string");
      char c = t_[i_];
      if (c == '"') {
        ++i_;
        return Status::OK();
      }
      if (c != '\\') return Error("control character in string (must be escaped)");
      ++i_;
      if (i_ >= t_.size()) return Error("unterminated string");
      char e = t_[i_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return Error("invalid \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo = 0;
            if (t_.substr(i_, 2) != "\\u") return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
            i_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) {
              return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Error("unpaired surrogate in \\u escape (not valid UTF-8)");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error(fmt::format("invalid escape '\\{}'", e));
      }
    }
  }

  Status ParseArray(JNode* out, int depth) {
    ++i_;
    out->kind = JNode::Kind::kArray;
    out->items.clear();
    SkipWs();
    if (i_ < t_.size() && t_[i_] == ']') {
      ++i_;
      return Status::OK();
    }
    while (true) {
      SkipWs();
      out->items.emplace_back();
      LITHIFY_RETURN_NOT_OK(ParseValue(&out->items.back(), depth + 1));
      SkipWs();
      if (i_ >= t_.size()) return Error("unterminated array");
      if (t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (t_[i_] == ']') {
        ++i_;
        return Status::OK();
      }
      return Error("expected ',' or ']' in array");
    }
  }

  Status ParseObject(JNode* out, int depth) {
    ++i_;
    out->kind = JNode::Kind::kObject;
    out->items.clear();
    out->keys.clear();
    SkipWs();
    if (i_ < t_.size() && t_[i_] == '}') {
      ++i_;
      return Status::OK();
    }
    while (true) {
      SkipWs();
      if (i_ >= t_.size() || t_[i_] != '"') return Error("expected a string key in object");
      out->keys.emplace_back();
      LITHIFY_RETURN_NOT_OK(ParseString(&out->keys.back()));
      SkipWs();
      if (i_ >= t_.size() || t_[i_] != ':') return Error("expected ':' after object key");
      ++i_;
      SkipWs();
      out->items.emplace_back();
      LITHIFY_RETURN_NOT_OK(ParseValue(&out->items.back(), depth + 1));
      SkipWs();
      if (i_ >= t_.size()) return Error("unterminated object");
      if (t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (t_[i_] == '}') {
        ++i_;
        return Status::OK();
      }
      return Error("expected ',' or '}' in object");
    }
  }

  std::string_view t_;
  size_t i_ = 0;
};

std::string ShowJson(const JNode& n) {
  switch (n.kind) {
    case JNode::Kind::kNull: return "null";
    case JNode::Kind::kBool: return n.b ? "true" : "false";
    case JNode::Kind::kNumber: return Shown(n.text, false);
    case JNode::Kind::kString: return Shown(n.text, true);
    case JNode::Kind::kArray: return "an array";
    case JNode::Kind::kObject: return "an object";
  }
  return "?";
}

Status KindMismatch(const JNode& n, const DataType& type, std::string_view expected) {
  return Status::InvalidArgument("expected {} for {} but found {}", expected, type.ToString(),
                                 ShowJson(n));
}

}  // namespace

Status ParseJsonLine(std::string_view line, JNode* out) {
  if (!ValidUtf8(line)) return Status::InvalidArgument("the line is not valid UTF-8");
  JsonParser parser(line);
  return parser.ParseDocument(out);
}

Result<Value> NullValue(bool nullable, const PathFrame* path) {
  if (!nullable) {
    return ColumnError(path, Status::InvalidArgument("null is not allowed (the column is NOT NULL)"));
  }
  return Value::Null();
}

Result<Value> ValueFromJson(const JNode& n, const DataType& type, bool nullable,
                            const PathFrame* path) {
  if (n.kind == JNode::Kind::kNull) return NullValue(nullable, path);
  auto wrap = [&](Result<Value> r) -> Result<Value> {
    if (!r.ok()) return ColumnError(path, r.status());
    return r;
  };
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (n.kind != JNode::Kind::kBool) return ColumnError(path, KindMismatch(n, type, "true or false"));
      return Value::Bool(n.b);
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
      if (n.kind != JNode::Kind::kNumber) return ColumnError(path, KindMismatch(n, type, "a number"));
      return wrap(ScalarFromText(n.text, false, type));
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      if (n.kind == JNode::Kind::kString) {
        if (n.text != "NaN" && n.text != "Infinity" && n.text != "-Infinity") {
          return ColumnError(path, KindMismatch(n, type, "a number, \"NaN\", \"Infinity\" or \"-Infinity\""));
        }
      } else if (n.kind != JNode::Kind::kNumber) {
        return ColumnError(path, KindMismatch(n, type, "a number"));
      }
      return wrap(ScalarFromText(n.text, false, type));
    case TypeKind::kDecimal:
      if (n.kind != JNode::Kind::kNumber && n.kind != JNode::Kind::kString) {
        return ColumnError(path, KindMismatch(n, type, "a number or a decimal string"));
      }
      return wrap(ScalarFromText(n.text, n.kind == JNode::Kind::kString, type));
    case TypeKind::kString:
      if (n.kind != JNode::Kind::kString) return ColumnError(path, KindMismatch(n, type, "a string"));
      return Value::String(n.text);  // already validated as UTF-8
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      if (n.kind != JNode::Kind::kString) return ColumnError(path, KindMismatch(n, type, "a string"));
      return wrap(ScalarFromText(n.text, true, type));
    case TypeKind::kStruct: {
      if (n.kind != JNode::Kind::kObject) return ColumnError(path, KindMismatch(n, type, "an object"));
      std::vector<Value> fields(type.fields.size());
      std::vector<bool> seen(type.fields.size(), false);
      for (size_t k = 0; k < n.keys.size(); ++k) {
        int f = FindField(type.fields, n.keys[k]);
        if (f < 0) {
          return ColumnError(path, Status::InvalidArgument("unknown struct field '{}'", n.keys[k]));
        }
        PathFrame child{path, type.fields[f].name};
        if (seen[f]) return ColumnError(&child, Status::InvalidArgument("duplicate key '{}'", n.keys[k]));
        seen[f] = true;
        LITHIFY_ASSIGN_OR_RETURN(fields[f], ValueFromJson(n.items[k], type.fields[f].type,
                                                          type.fields[f].nullable, &child));
      }
      for (size_t f = 0; f < fields.size(); ++f) {
        if (!seen[f]) {
          PathFrame child{path, type.fields[f].name};
          LITHIFY_ASSIGN_OR_RETURN(fields[f], NullValue(type.fields[f].nullable, &child));
        }
      }
      return Value::Struct(std::move(fields));
    }
    case TypeKind::kArray: {
      if (n.kind != JNode::Kind::kArray) return ColumnError(path, KindMismatch(n, type, "an array"));
      std::vector<Value> items;
      items.reserve(n.items.size());
      for (size_t k = 0; k < n.items.size(); ++k) {
        PathFrame child{path, "", static_cast<int64_t>(k)};
        LITHIFY_ASSIGN_OR_RETURN(Value v, ValueFromJson(n.items[k], *type.element, type.contains_null, &child));
        items.push_back(std::move(v));
      }
      return Value::List(std::move(items));
    }
    case TypeKind::kMap: {
      std::vector<std::pair<Value, Value>> entries;
      PathFrame key_frame{path, "key"};
      PathFrame value_frame{path, "value"};
      if (n.kind == JNode::Kind::kArray) {
        // Canonical form: [{"key": k, "value": v}, ...].
        for (const JNode& e : n.items) {
          if (e.kind != JNode::Kind::kObject) {
            return ColumnError(path, KindMismatch(e, type, "map entries {\"key\":...,\"value\":...}"));
          }
          const JNode* k = nullptr;
          const JNode* v = nullptr;
          for (size_t m = 0; m < e.keys.size(); ++m) {
            if (e.keys[m] == "key" && k == nullptr) {
              k = &e.items[m];
            } else if (e.keys[m] == "value" && v == nullptr) {
              v = &e.items[m];
            } else {
              return ColumnError(path, Status::InvalidArgument("unexpected key '{}' in a map entry", e.keys[m]));
            }
          }
          if (k == nullptr) return ColumnError(path, Status::InvalidArgument("map entry without \"key\""));
          static const JNode kNull;
          LITHIFY_ASSIGN_OR_RETURN(Value kv, ValueFromJson(*k, *type.key, false, &key_frame));
          LITHIFY_ASSIGN_OR_RETURN(Value vv, ValueFromJson(v ? *v : kNull, *type.value,
                                                           type.value_contains_null, &value_frame));
          entries.emplace_back(std::move(kv), std::move(vv));
        }
      } else if (n.kind == JNode::Kind::kObject && type.key->kind == TypeKind::kString) {
        // Friendly form for string keys: {"k": v, ...}.
        for (size_t m = 0; m < n.keys.size(); ++m) {
          LITHIFY_ASSIGN_OR_RETURN(Value vv, ValueFromJson(n.items[m], *type.value,
                                                           type.value_contains_null, &value_frame));
          entries.emplace_back(Value::String(n.keys[m]), std::move(vv));
        }
      } else {
        return ColumnError(path, KindMismatch(n, type, "an array of {\"key\":...,\"value\":...}"));
      }
      return Value::Map(std::move(entries));
    }
    default:
      return ColumnError(path, Status::NotSupported("type {} cannot be ingested", type.ToString()));
  }
}


// ---------------------------------------------------------------------------------
// Streaming input and row batching
// ---------------------------------------------------------------------------------

// Reads a file in fixed-size chunks.
class ChunkReader {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;
  static Result<ChunkReader> Open(io::FileSystem* fs, const std::string& path) {
    LITHIFY_ASSIGN_OR_RETURN(auto f, fs->OpenForRead(path));
    return ChunkReader(std::move(f));
  }
  // Next chunk; empty at the end.
  Result<std::string_view> Next() {
    uint64_t left = file_->size() - offset_;
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
    buf_.resize(n);
    if (n == 0) return std::string_view();
    LITHIFY_RETURN_NOT_OK(file_->ReadAt(offset_, n, reinterpret_cast<uint8_t*>(buf_.data())));
    offset_ += n;
    return std::string_view(buf_);
  }

 private:
  explicit ChunkReader(std::unique_ptr<io::RandomAccessFile> f) : file_(std::move(f)) {}
  std::unique_ptr<io::RandomAccessFile> file_;
  uint64_t offset_ = 0;
  std::string buf_;
};

class RowBatcher {
 public:
  RowBatcher(const RowSink& sink, size_t batch_rows) : sink_(sink), batch_rows_(batch_rows) {
    rows_.reserve(std::min<size_t>(batch_rows_, 65536));
  }
  Status Add(std::vector<Value>&& row) {
    rows_.push_back(std::move(row));
    if (rows_.size() >= batch_rows_) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (rows_.empty()) return Status::OK();
    std::vector<std::vector<Value>> out;
    out.swap(rows_);
    rows_.reserve(std::min<size_t>(batch_rows_, 65536));
    return sink_(std::move(out));
  }

 private:
  const RowSink& sink_;
  size_t batch_rows_;
  std::vector<std::vector<Value>> rows_;
};

// Calls fn(line, line_number) for every line ('\n'-separated, a trailing '\r' removed).
template <typename Fn>
Status ForEachLine(io::FileSystem* fs, const std::string& path, Fn&& fn) {
  LITHIFY_ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(fs, path));
  std::string pending;
  int64_t line_no = 0;
  auto emit = [&](std::string_view line) -> Status {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return fn(line, line_no);
  };
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(std::string_view chunk, reader.Next());
    if (chunk.empty()) break;
    size_t start = 0;
    while (true) {
      size_t nl = chunk.find('\n', start);
      if (nl == std::string_view::npos) {
        pending.append(chunk.substr(start));
        break;
      }
      if (pending.empty()) {
        LITHIFY_RETURN_NOT_OK(emit(chunk.substr(start, nl - start)));
      } else {
        pending.append(chunk.substr(start, nl - start));
        LITHIFY_RETURN_NOT_OK(emit(pending));
        pending.clear();
      }
      start = nl + 1;
    }
  }
  if (!pending.empty()) LITHIFY_RETURN_NOT_OK(emit(pending));
  return Status::OK();
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------
// JSON Lines
// ---------------------------------------------------------------------------------

Status ReadJsonl(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                 RowBatcher* batcher) {
  JNode node;
  return ForEachLine(fs, path, [&](std::string_view line, int64_t line_no) -> Status {
    if (IsBlank(line)) return Status::OK();
    auto ctx = [&](const Status& st) { return st.WithContextF("{} line {}", path, line_no); };
    Status st = ParseJsonLine(line, &node);
    if (!st.ok()) return ctx(st);
    if (node.kind != JNode::Kind::kObject) {
      return ctx(Status::InvalidArgument("expected a JSON object, found {}", ShowJson(node)));
    }
    const auto& fields = schema.fields;
    std::vector<Value> row(fields.size());
    std::vector<bool> seen(fields.size(), false);
    for (size_t k = 0; k < node.keys.size(); ++k) {
      int f = FindField(fields, node.keys[k]);
      if (f == -2) {
        return ctx(Status::InvalidArgument("key '{}' matches several columns (case-insensitive)", node.keys[k]));
      }
      if (f < 0) return ctx(Status::InvalidArgument("unknown column '{}'", node.keys[k]));
      if (seen[f]) return ctx(Status::InvalidArgument("duplicate key '{}'", node.keys[k]));
      seen[f] = true;
      PathFrame frame{nullptr, fields[f].name};
      auto v = ValueFromJson(node.items[k], fields[f].type, fields[f].nullable, &frame);
      if (!v.ok()) return ctx(v.status());
      row[f] = std::move(v).value();
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      if (!seen[f] && !fields[f].nullable) {
        return ctx(Status::InvalidArgument("column '{}': missing, and the column is NOT NULL",
                                           fields[f].name));
      }
    }
    return batcher->Add(std::move(row));
  });
}

// ---------------------------------------------------------------------------------
// CSV (RFC 4180)
// ---------------------------------------------------------------------------------

struct CsvField {
  std::string text;
  bool quoted = false;
};

// Incremental RFC 4180 record splitter; fn(record, first_line) per record.
class CsvSplitter {
 public:
  template <typename Fn>
  Status Feed(std::string_view chunk, Fn&& fn) {
    for (char c : chunk) {
      switch (state_) {
        case State::kFieldStart:
          if (c == '"') {
            field_.quoted = true;
            state_ = State::kQuoted;
            break;
          }
          state_ = State::kUnquoted;
          [[fallthrough]];
        case State::kUnquoted:
          if (c == ',') {
            EndField();
          } else if (c == '\n') {
            if (!field_.quoted && !field_.text.empty() && field_.text.back() == '\r') field_.text.pop_back();
            LITHIFY_RETURN_NOT_OK(EndRecord(fn));
          } else if (c == '"') {
            return Status::InvalidArgument("line {}: quote character inside an unquoted field", line_);
          } else {
            field_.text.push_back(c);
          }
          break;
        case State::kQuoted:
          if (c == '"') {
            state_ = State::kAfterQuote;
          } else {
            if (c == '\n') ++line_;
            field_.text.push_back(c);
          }
          break;
        case State::kAfterQuote:
          if (c == '"') {
            field_.text.push_back('"');
            state_ = State::kQuoted;
          } else if (c == ',') {
            EndField();
          } else if (c == '\n') {
            LITHIFY_RETURN_NOT_OK(EndRecord(fn));
          } else if (c == '\r') {
            // CRLF after a closing quote.
          } else {
            return Status::InvalidArgument("line {}: unexpected character '{}' after a closing quote",
                                           line_, c);
          }
          break;
      }
    }
    return Status::OK();
  }

  template <typename Fn>
  Status Finish(Fn&& fn) {
    if (state_ == State::kQuoted) {
      return Status::InvalidArgument("line {}: unterminated quoted field (started on line {})", line_,
                                     record_line_);
    }
    if (state_ == State::kUnquoted && !field_.text.empty() && field_.text.back() == '\r') {
      field_.text.pop_back();
    }
    if (state_ != State::kFieldStart || !record_.empty()) return EndRecord(fn);
    return Status::OK();
  }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kAfterQuote };

  void EndField() {
    record_.push_back(std::move(field_));
    field_ = CsvField();
    state_ = State::kFieldStart;
  }
  template <typename Fn>
  Status EndRecord(Fn&& fn) {
    EndField();
    int64_t first = record_line_;
    ++line_;
    record_line_ = line_;
    // A blank line is no record.
    bool blank = record_.size() == 1 && !record_[0].quoted && record_[0].text.empty();
    Status st = blank ? Status::OK() : fn(record_, first);
    record_.clear();
    return st;
  }

  State state_ = State::kFieldStart;
  CsvField field_;
  std::vector<CsvField> record_;
  int64_t line_ = 1;
  int64_t record_line_ = 1;
};

Status ReadCsv(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
               RowBatcher* batcher) {
  const auto& fields = schema.fields;
  std::vector<int> column_of;  // CSV column -> schema field
  bool have_header = false;
  auto on_record = [&](std::vector<CsvField>& rec, int64_t line) -> Status {
    auto ctx = [&](const Status& st) { return st.WithContextF("{} line {}", path, line); };
    if (!have_header) {
      have_header = true;
      if (!rec.empty() && rec[0].text.rfind("\xEF\xBB\xBF", 0) == 0) rec[0].text.erase(0, 3);
      std::vector<bool> seen(fields.size(), false);
      for (const CsvField& h : rec) {
        int f = FindField(fields, h.text);
        if (f == -2) {
          return ctx(Status::InvalidArgument("header column '{}' matches several columns", h.text));
        }
        if (f < 0) return ctx(Status::InvalidArgument("unknown column '{}' in the header", h.text));
        if (seen[f]) return ctx(Status::InvalidArgument("column '{}' appears twice in the header", h.text));
        if (!fields[f].type.is_primitive()) {
          return ctx(Status::InvalidArgument(
              "column '{}' is {}; CSV input supports only primitive columns", fields[f].name,
              fields[f].type.ToString()));
        }
        seen[f] = true;
        column_of.push_back(f);
      }
      for (size_t f = 0; f < fields.size(); ++f) {
        if (!seen[f] && !fields[f].nullable) {
          return ctx(Status::InvalidArgument(
              "column '{}' is NOT NULL but missing from the header", fields[f].name));
        }
      }
      return Status::OK();
    }
    if (rec.size() != column_of.size()) {
      return ctx(Status::InvalidArgument("{} fields, but the header has {}", rec.size(),
                                         column_of.size()));
    }
    std::vector<Value> row(fields.size());
    for (size_t c = 0; c < rec.size(); ++c) {
      const delta::StructField& field = fields[column_of[c]];
      PathFrame frame{nullptr, field.name};
      Result<Value> v = (!rec[c].quoted && rec[c].text.empty())
                            ? NullValue(field.nullable, &frame)
                            : ScalarFromText(rec[c].text, rec[c].quoted, field.type);
      if (!v.ok()) {
        Status st = v.status();
        if (st.message().rfind("column '", 0) != 0) st = ColumnError(&frame, st);
        return ctx(st);
      }
      row[column_of[c]] = std::move(v).value();
    }
    return batcher->Add(std::move(row));
  };
  LITHIFY_ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(fs, path));
  CsvSplitter splitter;
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(std::string_view chunk, reader.Next());
    if (chunk.empty()) break;
    Status st = splitter.Feed(chunk, on_record);
    if (!st.ok()) return st.message().rfind("line ", 0) == 0 ? st.WithContext(path) : st;
  }
  Status st = splitter.Finish(on_record);
  if (!st.ok()) return st.message().rfind("line ", 0) == 0 ? st.WithContext(path) : st;
  if (!have_header) return Status::InvalidArgument("{}: empty CSV file (a header row is required)", path);
  return Status::OK();
}

// ---------------------------------------------------------------------------------
// Parquet input: a plan matching the file's schema to the table's, then record
// assembly from levels (one cursor per leaf) with lossless conversions.
// ---------------------------------------------------------------------------------

using parquet::PhysicalType;
using parquet::SchemaNode;
using parquet::NodeKind;
using parquet::Repetition;

// What a Parquet leaf holds, after its annotations.
struct LeafSource {
  enum class Kind { kBool, kInt, kFloat, kDouble, kDecimal, kDate, kTimestamp, kInt96, kString, kBytes, kOther };
  Kind kind = Kind::kOther;
  PhysicalType physical = PhysicalType::kInt32;
  int bits = 64;
  bool is_signed = true;
  int precision = 0;
  int scale = 0;
  parquet::TimeUnit unit = parquet::TimeUnit::kMicros;
  bool utc = true;
  std::string desc;  // for messages, e.g. "INT64 TIMESTAMP(NANOS)"
};

std::string_view PhysicalName(PhysicalType t) {
  switch (t) {
    case PhysicalType::kBoolean: return "BOOLEAN";
    case PhysicalType::kInt32: return "INT32";
    case PhysicalType::kInt64: return "INT64";
    case PhysicalType::kInt96: return "INT96";
    case PhysicalType::kFloat: return "FLOAT";
    case PhysicalType::kDouble: return "DOUBLE";
    case PhysicalType::kByteArray: return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "?";
}

LeafSource Classify(const parquet::SchemaElement& e) {
  using LK = parquet::LogicalType::Kind;
  using CT = parquet::ConvertedType;
  using K = LeafSource::Kind;
  LeafSource s;
  s.physical = e.type.value_or(PhysicalType::kByteArray);
  s.desc = std::string(PhysicalName(s.physical));
  const auto& lt = e.logical_type;
  const std::optional<CT> ct = e.converted_type;
  const bool is_int = s.physical == PhysicalType::kInt32 || s.physical == PhysicalType::kInt64;
  const bool is_bin = s.physical == PhysicalType::kByteArray || s.physical == PhysicalType::kFixedLenByteArray;
  if ((lt.kind == LK::kDecimal || (lt.kind == LK::kNone && ct == CT::kDecimal)) && (is_int || is_bin)) {
    s.kind = K::kDecimal;
    s.precision = lt.kind == LK::kDecimal ? lt.precision : e.precision.value_or(0);
    s.scale = lt.kind == LK::kDecimal ? lt.scale : e.scale.value_or(0);
    s.desc += fmt::format(" DECIMAL({},{})", s.precision, s.scale);
    return s;
  }
  switch (s.physical) {
    case PhysicalType::kBoolean: s.kind = K::kBool; return s;
    case PhysicalType::kFloat: s.kind = lt.kind == LK::kNone ? K::kFloat : K::kOther; return s;
    case PhysicalType::kDouble: s.kind = lt.kind == LK::kNone ? K::kDouble : K::kOther; return s;
    case PhysicalType::kInt96: s.kind = K::kInt96; return s;
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      s.bits = s.physical == PhysicalType::kInt32 ? 32 : 64;
      if (lt.kind == LK::kDate || (lt.kind == LK::kNone && ct == CT::kDate)) {
        s.kind = s.physical == PhysicalType::kInt32 ? K::kDate : K::kOther;
        s.desc += " DATE";
        return s;
      }
      if (lt.kind == LK::kTimestamp && s.physical == PhysicalType::kInt64) {
        s.kind = K::kTimestamp;
        s.unit = lt.unit;
        s.utc = lt.is_adjusted_to_utc;
        s.desc += fmt::format(" TIMESTAMP({}, {})",
                              s.unit == parquet::TimeUnit::kMillis ? "MILLIS" : s.unit == parquet::TimeUnit::kMicros ? "MICROS" : "NANOS",
                              s.utc ? "UTC" : "local");
        return s;
      }
      if (lt.kind == LK::kNone && (ct == CT::kTimestampMillis || ct == CT::kTimestampMicros) &&
          s.physical == PhysicalType::kInt64) {
        s.kind = K::kTimestamp;
        s.unit = ct == CT::kTimestampMillis ? parquet::TimeUnit::kMillis : parquet::TimeUnit::kMicros;
        s.utc = true;
        s.desc += ct == CT::kTimestampMillis ? " TIMESTAMP_MILLIS" : " TIMESTAMP_MICROS";
        return s;
      }
      if (lt.kind == LK::kInteger) {
        s.kind = K::kInt;
        s.bits = lt.bit_width;
        s.is_signed = lt.is_signed;
        s.desc += fmt::format(" INTEGER({}, {})", s.bits, s.is_signed ? "signed" : "unsigned");
        return s;
      }
      if (lt.kind != LK::kNone) return s;  // TIME etc.
      if (!ct.has_value()) {
        s.kind = K::kInt;
        return s;
      }
      switch (*ct) {
        case CT::kInt8: s.kind = K::kInt; s.bits = 8; return s;
        case CT::kInt16: s.kind = K::kInt; s.bits = 16; return s;
        case CT::kInt32: s.kind = K::kInt; s.bits = 32; return s;
        case CT::kInt64: s.kind = K::kInt; s.bits = 64; return s;
        case CT::kUint8: s.kind = K::kInt; s.bits = 8; s.is_signed = false; return s;
        case CT::kUint16: s.kind = K::kInt; s.bits = 16; s.is_signed = false; return s;
        case CT::kUint32: s.kind = K::kInt; s.bits = 32; s.is_signed = false; return s;
        case CT::kUint64: s.kind = K::kInt; s.bits = 64; s.is_signed = false; return s;
        default: return s;
      }
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: {
      const bool stringy = lt.kind == LK::kString || lt.kind == LK::kEnum || lt.kind == LK::kJson ||
                           (lt.kind == LK::kNone && (ct == CT::kUtf8 || ct == CT::kEnum || ct == CT::kJson));
      if (stringy && s.physical == PhysicalType::kByteArray) {
        s.kind = K::kString;
        s.desc += " STRING";
      } else if (lt.kind == LK::kNone || lt.kind == LK::kUuid || lt.kind == LK::kBson) {
        s.kind = K::kBytes;
      }
      return s;
    }
  }
  return s;
}

bool Compatible(const LeafSource& s, const DataType& t) {
  using K = LeafSource::Kind;
  switch (t.kind) {
    case TypeKind::kBoolean: return s.kind == K::kBool;
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong: return s.kind == K::kInt;  // narrowing is range-checked per value
    case TypeKind::kFloat: return s.kind == K::kFloat;
    case TypeKind::kDouble: return s.kind == K::kFloat || s.kind == K::kDouble || (s.kind == K::kInt && s.bits <= 32);
    case TypeKind::kDecimal: return s.kind == K::kDecimal || s.kind == K::kInt;
    case TypeKind::kString: return s.kind == K::kString || (s.kind == K::kBytes && s.physical == PhysicalType::kByteArray);
    case TypeKind::kBinary: return s.kind == K::kString || s.kind == K::kBytes;
    case TypeKind::kDate: return s.kind == K::kDate;
    case TypeKind::kTimestamp: return (s.kind == K::kTimestamp && s.utc) || s.kind == K::kInt96;
    case TypeKind::kTimestampNtz: return s.kind == K::kTimestamp && !s.utc;
    default: return false;
  }
}

struct Plan {
  const DataType* type = nullptr;
  bool nullable = true;
  int node = -1;  // Parquet node; -1: absent from the file (always null)
  std::string path;
  LeafSource source;           // leaves
  std::vector<Plan> children;  // struct: per table field; array: {element}; map: {key, value}
};

std::string DecimalText(__int128 v, int scale) {
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
  std::reverse(digits.begin(), digits.end());
  if (scale > 0) digits.insert(digits.end() - scale, '.');
  return neg ? "-" + digits : digits;
}

class ParquetPlanner {
 public:
  ParquetPlanner(const parquet::Schema& s, const std::string& file) : s_(s), file_(file) {}

  Status Top(const delta::StructType& schema, std::vector<Plan>* out) {
    const auto& pq_fields = s_.top_level_fields();
    std::vector<bool> used(pq_fields.size(), false);
    out->resize(schema.fields.size());
    for (size_t f = 0; f < schema.fields.size(); ++f) {
      const auto& field = schema.fields[f];
      int idx = FindChild(pq_fields, field.name);
      Plan& p = (*out)[f];
      if (idx < 0) {
        if (!field.nullable) return Error(field.name, "missing from the file, and the column is NOT NULL");
        p.type = &field.type;
        p.path = field.name;
        continue;
      }
      used[idx] = true;
      LITHIFY_RETURN_NOT_OK(Field(pq_fields[idx], false, field.type, field.nullable, field.name, &p));
    }
    for (size_t i = 0; i < pq_fields.size(); ++i) {
      if (!used[i]) return Error(s_.node(pq_fields[i]).name, "not in the table schema");
    }
    return Status::OK();
  }

 private:
  Status Error(std::string_view path, std::string_view what) const {
    return Status::InvalidArgument("{}: column '{}': {}", file_, path, what);
  }

  int FindChild(const std::vector<int>& children, std::string_view name) const {
    for (size_t i = 0; i < children.size(); ++i) {
      if (s_.node(children[i]).name == name) return static_cast<int>(i);
    }
    for (size_t i = 0; i < children.size(); ++i) {
      if (EqualsIgnoreCase(s_.node(children[i]).name, name)) return static_cast<int>(i);
    }
    return -1;
  }

  // `once`: the node is a repeated field taken as one element (its repetition is
  // handled by the enclosing list).
  Status Field(int node, bool once, const DataType& type, bool nullable, const std::string& path,
               Plan* p) {
    const SchemaNode& sn = s_.node(node);
    p->type = &type;
    p->nullable = nullable;
    p->node = node;
    p->path = path;
    auto incompatible = [&](std::string_view found) {
      return Error(path, fmt::format("the file has {}, which cannot be read as {}", found, type.ToString()));
    };
    const bool as_leaf = sn.is_leaf() && (once || sn.kind == NodeKind::kPrimitive);
    const bool as_struct = !sn.is_leaf() && (once || sn.kind == NodeKind::kStruct);
    if (type.is_primitive()) {
      if (!as_leaf) return incompatible(sn.kind == NodeKind::kList ? "a list" : sn.kind == NodeKind::kMap ? "a map" : "a group");
      p->source = Classify(sn.element);
      if (!Compatible(p->source, type)) return incompatible(p->source.desc);
      return Status::OK();
    }
    switch (type.kind) {
      case TypeKind::kStruct: {
        if (!as_struct) return incompatible(sn.is_leaf() ? Classify(sn.element).desc : "a list or map");
        std::vector<bool> used(sn.children.size(), false);
        p->children.resize(type.fields.size());
        for (size_t f = 0; f < type.fields.size(); ++f) {
          const auto& field = type.fields[f];
          std::string child_path = path + "." + field.name;
          int idx = FindChild(sn.children, field.name);
          if (idx < 0) {
            if (!field.nullable) return Error(child_path, "missing from the file, and the field is NOT NULL");
            p->children[f].type = &field.type;
            p->children[f].path = child_path;
            continue;
          }
          used[idx] = true;
          LITHIFY_RETURN_NOT_OK(Field(sn.children[idx], false, field.type, field.nullable, child_path, &p->children[f]));
        }
        for (size_t i = 0; i < sn.children.size(); ++i) {
          if (!used[i]) return Error(path + "." + s_.node(sn.children[i]).name, "not in the table schema");
        }
        return Status::OK();
      }
      case TypeKind::kArray: {
        if (once || sn.kind != NodeKind::kList) return incompatible("no list");
        p->children.resize(1);
        return Field(sn.element_node, sn.element_node == sn.repeated_node, *type.element,
                     type.contains_null, path + ".element", &p->children[0]);
      }
      case TypeKind::kMap: {
        if (once || sn.kind != NodeKind::kMap) return incompatible("no map");
        p->children.resize(2);
        LITHIFY_RETURN_NOT_OK(Field(sn.key_node, false, *type.key, false, path + ".key", &p->children[0]));
        if (sn.value_node < 0) {
          if (!type.value_contains_null) return Error(path, "the file's map has no values, and values are NOT NULL");
          p->children[1].type = type.value.get();
          p->children[1].path = path + ".value";
          return Status::OK();
        }
        return Field(sn.value_node, false, *type.value, type.value_contains_null, path + ".value",
                     &p->children[1]);
      }
      default:
        return Error(path, fmt::format("type {} cannot be ingested", type.ToString()));
    }
  }

  const parquet::Schema& s_;
  const std::string& file_;
};

class Assembler {
 public:
  explicit Assembler(const parquet::Schema& s) : s_(s) {
    first_leaf_.resize(s.nodes().size(), -1);
    leaves_under_.resize(s.nodes().size());
    for (size_t n = 0; n < s.nodes().size(); ++n) {
      leaves_under_[n] = s.LeavesUnder(static_cast<int>(n));
      if (!leaves_under_[n].empty()) first_leaf_[n] = leaves_under_[n][0];
    }
  }

  void Reset(const parquet::RowBatch* batch) {
    batch_ = batch;
    lpos_.assign(batch->columns.size(), 0);
    vpos_.assign(batch->columns.size(), 0);
  }

  Result<Value> Field(const Plan& p) {
    if (p.node < 0) return NullOr(p);
    const SchemaNode& sn = s_.node(p.node);
    if (sn.repetition == Repetition::kOptional) {
      LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(first_leaf_[p.node], p));
      if (d < sn.max_def) {
        LITHIFY_RETURN_NOT_OK(Skip(p.node, p));
        return NullOr(p);
      }
    }
    return Content(p, p.node);
  }

  // Every level and value of the batch must have been used.
  Status CheckConsumed() const {
    for (size_t c = 0; c < batch_->columns.size(); ++c) {
      const auto& col = batch_->columns[c];
      if (lpos_[c] != col.num_levels || vpos_[c] != col.values.count) {
        return Status::Corruption("column '{}': levels and values do not match the schema",
                                  s_.leaf(static_cast<int>(c)).dotted_path);
      }
    }
    return Status::OK();
  }

 private:
  Status Inconsistent(const Plan& p) const {
    return Status::Corruption("column '{}': inconsistent definition/repetition levels", p.path);
  }
  Result<Value> NullOr(const Plan& p) const {
    if (!p.nullable) {
      return Status::InvalidArgument("column '{}': null is not allowed (the column is NOT NULL)", p.path);
    }
    return Value::Null();
  }
  Result<int16_t> Def(int leaf, const Plan& p) const {
    if (leaf < 0) return Inconsistent(p);
    const auto& c = batch_->columns[leaf];
    if (lpos_[leaf] >= c.num_levels) return Inconsistent(p);
    return c.def_levels.empty() ? c.descr->max_def : c.def_levels[lpos_[leaf]];
  }
  // Repetition level at the cursor, or -1 at the end of the batch.
  int16_t PeekRep(int leaf) const {
    const auto& c = batch_->columns[leaf];
    if (lpos_[leaf] >= c.num_levels) return -1;
    return c.rep_levels.empty() ? 0 : c.rep_levels[lpos_[leaf]];
  }
  Status Skip(int node, const Plan& p) {
    for (int leaf : leaves_under_[node]) {
      if (lpos_[leaf] >= batch_->columns[leaf].num_levels) return Inconsistent(p);
      ++lpos_[leaf];
    }
    return Status::OK();
  }

  Result<Value> Content(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    switch (sn.kind) {
      case NodeKind::kPrimitive: return Leaf(p, sn.leaf_index);
      case NodeKind::kStruct: return Struct(p, node);
      case NodeKind::kList:
      case NodeKind::kMap: return Repeated(p, node);
    }
    return Inconsistent(p);
  }

  // One occurrence of a repeated node used as a list element.
  Result<Value> Once(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    if (sn.is_leaf()) return Leaf(p, sn.leaf_index);
    return Struct(p, node);
  }

  Result<Value> Struct(const Plan& p, int node) {
    (void)node;
    std::vector<Value> fields;
    fields.reserve(p.children.size());
    for (const Plan& c : p.children) {
      LITHIFY_ASSIGN_OR_RETURN(Value v, Field(c));
      fields.push_back(std::move(v));
    }
    return Value::Struct(std::move(fields));
  }

  Result<Value> Repeated(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    const SchemaNode& rn = s_.node(sn.repeated_node);
    const int fl = first_leaf_[node];
    LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(fl, p));
    const bool is_map = sn.kind == NodeKind::kMap;
    if (d < rn.max_def) {
      LITHIFY_RETURN_NOT_OK(Skip(node, p));
      return is_map ? Value::Map({}) : Value::List({});
    }
    std::vector<Value> items;
    std::vector<std::pair<Value, Value>> entries;
    while (true) {
      const int64_t before = lpos_[fl];
      if (is_map) {
        LITHIFY_ASSIGN_OR_RETURN(Value k, Field(p.children[0]));
        LITHIFY_ASSIGN_OR_RETURN(Value v, Field(p.children[1]));
        entries.emplace_back(std::move(k), std::move(v));
      } else if (sn.element_node == sn.repeated_node) {
        LITHIFY_ASSIGN_OR_RETURN(Value v, Once(p.children[0], sn.element_node));
        items.push_back(std::move(v));
      } else {
        LITHIFY_ASSIGN_OR_RETURN(Value v, Field(p.children[0]));
        items.push_back(std::move(v));
      }
      if (lpos_[fl] == before) return Inconsistent(p);  // no progress: malformed
      if (PeekRep(fl) != rn.max_rep) break;
    }
    if (is_map) return Value::Map(std::move(entries));
    return Value::List(std::move(items));
  }

  Result<Value> Leaf(const Plan& p, int leaf) {
    const auto& c = batch_->columns[leaf];
    LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(leaf, p));
    if (d != c.descr->max_def) return Inconsistent(p);
    if (vpos_[leaf] >= c.values.count) return Inconsistent(p);
    const int64_t i = vpos_[leaf]++;
    ++lpos_[leaf];
    Result<Value> v = Convert(p, c.values, i);
    if (!v.ok()) return Status(v.status().code(), fmt::format("column '{}': {}", p.path, v.status().message()));
    return v;
  }

  static Result<Value> Convert(const Plan& p, const parquet::ColumnValues& vals, int64_t i) {
    using K = LeafSource::Kind;
    const LeafSource& s = p.source;
    const DataType& t = *p.type;
    switch (s.kind) {
      case K::kBool: return Value::Bool(vals.fixed_at(i)[0] != 0);
      case K::kFloat: return Value::Double(static_cast<double>(vals.value<float>(i)));
      case K::kDouble: return Value::Double(vals.value<double>(i));
      case K::kDate: return Value::Int(vals.value<int32_t>(i));
      case K::kInt: {
        __int128 v;
        if (s.physical == PhysicalType::kInt32) {
          int32_t raw = vals.value<int32_t>(i);
          v = s.is_signed ? __int128{raw} : __int128{static_cast<uint32_t>(raw)};
        } else {
          int64_t raw = vals.value<int64_t>(i);
          v = s.is_signed ? __int128{raw} : __int128{static_cast<uint64_t>(raw)};
        }
        if (t.kind == TypeKind::kDouble) return Value::Double(static_cast<double>(v));
        if (t.kind == TypeKind::kDecimal) return Rescale(v, 0, t);
        auto [lo, hi] = IntRange(t.kind);
        if (v < lo || v > hi) {
          return Status::InvalidArgument("{} is out of range for {}", DecimalText(v, 0), t.ToString());
        }
        return Value::Int(static_cast<int64_t>(v));
      }
      case K::kDecimal: {
        __int128 v = 0;
        if (s.physical == PhysicalType::kInt32) {
          v = vals.value<int32_t>(i);
        } else if (s.physical == PhysicalType::kInt64) {
          v = vals.value<int64_t>(i);
        } else {
          std::string_view b = s.physical == PhysicalType::kByteArray
                                   ? vals.binary(i)
                                   : std::string_view(reinterpret_cast<const char*>(vals.fixed_at(i)), vals.width());
          LITHIFY_ASSIGN_OR_RETURN(v, BigEndianDecimal(b));
        }
        return Rescale(v, s.scale, t);
      }
      case K::kTimestamp: {
        int64_t raw = vals.value<int64_t>(i);
        if (s.unit == parquet::TimeUnit::kMicros) return Value::Int(raw);
        if (s.unit == parquet::TimeUnit::kMillis) {
          if (raw > std::numeric_limits<int64_t>::max() / 1000 || raw < std::numeric_limits<int64_t>::min() / 1000) {
            return Status::InvalidArgument("{} milliseconds is out of range for {}", raw, t.ToString());
          }
          return Value::Int(raw * 1000);
        }
        if (raw % 1000 != 0) {
          return Status::InvalidArgument("{} nanoseconds has sub-microsecond digits; {} stores microseconds",
                                         raw, t.ToString());
        }
        return Value::Int(raw / 1000);
      }
      case K::kInt96: {
        const uint8_t* b = vals.fixed_at(i);
        int64_t nanos;
        uint32_t jd;
        std::memcpy(&nanos, b, 8);
        std::memcpy(&jd, b + 8, 4);
        if (nanos % 1000 != 0) {
          return Status::InvalidArgument("INT96 value has sub-microsecond digits; {} stores microseconds",
                                         t.ToString());
        }
        __int128 micros = (static_cast<__int128>(jd) - kJulianDayOfEpoch) * kMicrosPerDay + nanos / 1000;
        if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) {
          return Status::InvalidArgument("INT96 value is out of range for {}", t.ToString());
        }
        return Value::Int(static_cast<int64_t>(micros));
      }
      case K::kString:
      case K::kBytes: {
        std::string_view b = s.physical == PhysicalType::kByteArray
                                 ? vals.binary(i)
                                 : std::string_view(reinterpret_cast<const char*>(vals.fixed_at(i)), vals.width());
        if (t.kind == TypeKind::kString) {
          if (!ValidUtf8(b)) return Status::InvalidArgument("string value is not valid UTF-8");
          return Value::String(std::string(b));
        }
        return Value::Bytes(std::string(b));
      }
      case K::kOther: break;
    }
    return Status::Internal("unexpected Parquet source type {}", s.desc);
  }

  static Result<__int128> BigEndianDecimal(std::string_view b) {
    if (b.empty()) return __int128{0};
    const bool neg = static_cast<unsigned char>(b[0]) & 0x80;
    // Drop sign-extension bytes beyond 16.
    while (b.size() > 16) {
      unsigned char lead = static_cast<unsigned char>(b[0]);
      if (lead != (neg ? 0xFF : 0x00)) return Status::InvalidArgument("decimal value exceeds 38 digits");
      b.remove_prefix(1);
    }
    unsigned __int128 u = neg ? ~static_cast<unsigned __int128>(0) : 0;
    for (char c : b) u = (u << 8) | static_cast<unsigned char>(c);
    return static_cast<__int128>(u);
  }

  static Result<Value> Rescale(__int128 v, int from_scale, const DataType& t) {
    const __int128 limit = Pow10(t.precision);
    if (t.scale >= from_scale) {
      const __int128 mul = Pow10(t.scale - from_scale);
      // Exact check of |v| * mul < 10^precision without overflow.
      if ((v < 0 ? -v : v) > (limit - 1) / mul) {
        return Status::InvalidArgument("{} has more digits than {} allows", DecimalText(v, from_scale), t.ToString());
      }
      return Value::Decimal(v * mul);
    }
    const __int128 div = Pow10(from_scale - t.scale);
    if (v % div != 0) {
      return Status::InvalidArgument("{} has more digits after the point than {} allows",
                                     DecimalText(v, from_scale), t.ToString());
    }
    v /= div;
    if (v >= limit || v <= -limit) {
      return Status::InvalidArgument("{} has more digits than {} allows", DecimalText(v * div, from_scale), t.ToString());
    }
    return Value::Decimal(v);
  }

  const parquet::Schema& s_;
  const parquet::RowBatch* batch_ = nullptr;
  std::vector<int> first_leaf_;
  std::vector<std::vector<int>> leaves_under_;
  std::vector<int64_t> lpos_;
  std::vector<int64_t> vpos_;
};

Status ReadParquetInput(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                        size_t batch_rows, const std::function<Status(std::vector<Value>&&)>& add) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  const parquet::Schema& ps = reader->schema();
  std::vector<Plan> plans;
  LITHIFY_RETURN_NOT_OK(ParquetPlanner(ps, path).Top(schema, &plans));
  Assembler assembler(ps);
  parquet::RowBatch batch;
  const auto rows_per_batch = static_cast<int64_t>(std::min<size_t>(batch_rows, 1 << 20));
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(rg, {}, rows_per_batch));
    while (true) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&batch));
      if (!more) break;
      assembler.Reset(&batch);
      for (int64_t r = 0; r < batch.num_rows; ++r) {
        std::vector<Value> row;
        row.reserve(plans.size());
        for (const Plan& p : plans) {
          Result<Value> v = assembler.Field(p);
          if (!v.ok()) return v.status().WithContextF("{} row {}", path, batch.first_row_index + r + 1);
          row.push_back(std::move(v).value());
        }
        LITHIFY_RETURN_NOT_OK(add(std::move(row)));
      }
      LITHIFY_RETURN_NOT_OK_CTX(assembler.CheckConsumed(), "{} row group {}", path, rg);
    }
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------

Result<InputFormat> InputFormatFromName(std::string_view name) {
  if (EqualsIgnoreCase(name, "parquet")) return InputFormat::kParquet;
  if (EqualsIgnoreCase(name, "jsonl") || EqualsIgnoreCase(name, "json") ||
      EqualsIgnoreCase(name, "ndjson")) {
    return InputFormat::kJsonl;
  }
  if (EqualsIgnoreCase(name, "csv")) return InputFormat::kCsv;
  return Status::InvalidArgument("unknown input format '{}' (expected parquet, jsonl or csv)", name);
}

InputFormat InputFormatFromPath(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  if (dot == std::string_view::npos) return InputFormat::kParquet;
  std::string_view ext = base.substr(dot + 1);
  if (EqualsIgnoreCase(ext, "jsonl") || EqualsIgnoreCase(ext, "json") || EqualsIgnoreCase(ext, "ndjson")) {
    return InputFormat::kJsonl;
  }
  if (EqualsIgnoreCase(ext, "csv")) return InputFormat::kCsv;
  return InputFormat::kParquet;
}

Status ReadInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                 const delta::StructType& schema, const RowSink& sink, size_t batch_rows) {
  if (batch_rows == 0) return Status::InvalidArgument("batch_rows must be at least 1");
  if (schema.kind != TypeKind::kStruct) {
    return Status::InvalidArgument("the table schema must be a struct, got {}", schema.ToString());
  }
  int64_t rows = 0;
  const RowSink counting = [&](std::vector<std::vector<Value>>&& batch) {
    rows += static_cast<int64_t>(batch.size());
    return sink(std::move(batch));
  };
  RowBatcher batcher(counting, batch_rows);
  switch (format) {
    case InputFormat::kJsonl:
      LITHIFY_RETURN_NOT_OK(ReadJsonl(fs, path, schema, &batcher));
      break;
    case InputFormat::kCsv:
      LITHIFY_RETURN_NOT_OK(ReadCsv(fs, path, schema, &batcher));
      break;
    case InputFormat::kParquet:
      LITHIFY_RETURN_NOT_OK(ReadParquetInput(fs, path, schema, batch_rows,
                                             [&](std::vector<Value>&& row) { return batcher.Add(std::move(row)); }));
      break;
  }
  LITHIFY_RETURN_NOT_OK(batcher.Flush());
  if (rows == 0) {
    const char* what = format == InputFormat::kJsonl ? "empty JSON Lines file"
                       : format == InputFormat::kCsv ? "CSV file with a header but no rows"
                                                     : "Parquet file without rows";
    return Status::InvalidArgument("{}: {} (nothing to append)", path, what);
  }
  return Status::OK();
}

Status CheckInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                  const delta::StructType& schema) {
  // The reading path itself, stopped after the first row: whatever it accepts here it
  // accepts when the rows are read for real, and no second parser can disagree.
  bool stopped = false;
  Status st = ReadInput(
      fs, path, format, schema,
      [&](std::vector<std::vector<Value>>&&) {
        stopped = true;
        return Status::Cancelled("first row read");
      },
      1);
  return stopped ? Status::OK() : st;
}

}  // namespace lithify::commands
