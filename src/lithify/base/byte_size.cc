// Byte sizes as Spark and Delta spell them (see byte_size.h).
#include "lithify/base/byte_size.h"
#include "lithify/base/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

namespace lithify {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Power of 1024 for a unit suffix, or -1 when unknown.
int UnitExponent(std::string_view unit) {
  static constexpr std::pair<std::string_view, int> kUnits[] = {
      {"", 0},    {"b", 0},   {"k", 1},   {"kb", 1},  {"kib", 1}, {"m", 2},   {"mb", 2},
      {"mib", 2}, {"g", 3},   {"gb", 3},  {"gib", 3}, {"t", 4},   {"tb", 4},  {"tib", 4},
      {"p", 5},   {"pb", 5},  {"pib", 5},
  };
  for (const auto& [name, exp] : kUnits) {
    if (name == unit) return exp;
  }
  return -1;
}

}  // namespace

Result<int64_t> ParseByteSize(std::string_view text) {
  const std::string_view s = Trim(text);
  size_t digits_end = 0;
  while (digits_end < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[digits_end])) || s[digits_end] == '.')) {
    ++digits_end;
  }
  if (digits_end == 0) {
    return Status::InvalidArgument(
        "invalid byte size '{}': expected a non-negative number with an optional unit "
        "(b, kb, mb, gb, tb, pb)",
        text);
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + digits_end, value);
  if (ec != std::errc() || ptr != s.data() + digits_end) {
    return Status::InvalidArgument("invalid byte size '{}': malformed number", text);
  }
  const int exp = UnitExponent(AsciiLower(Trim(s.substr(digits_end))));
  if (exp < 0) {
    return Status::InvalidArgument(
        "invalid byte size '{}': unknown unit (use b, kb, mb, gb, tb or pb)", text);
  }
  const double bytes = std::round(std::ldexp(value, 10 * exp));
  if (!(bytes < 9223372036854775808.0)) {
    return Status::InvalidArgument("invalid byte size '{}': larger than 2^63-1 bytes", text);
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace lithify
