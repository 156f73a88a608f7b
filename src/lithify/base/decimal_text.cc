#include "lithify/base/decimal_text.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace lithify {

namespace {

// Digits of |v| (the most negative value included: the magnitude is taken unsigned).
std::string MagnitudeDigits(__int128 v) {
  unsigned __int128 u = v < 0 ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

std::string Int128Text(__int128 v) { return v < 0 ? "-" + MagnitudeDigits(v) : MagnitudeDigits(v); }

std::string DecimalText(__int128 unscaled, int scale) {
  std::string digits = MagnitudeDigits(unscaled);
  if (scale > 0) {
    const auto s = static_cast<size_t>(scale);
    if (digits.size() <= s) digits.insert(0, s + 1 - digits.size(), '0');
    digits.insert(digits.size() - s, 1, '.');
  }
  return unscaled < 0 ? "-" + digits : digits;
}

Result<__int128> ParseDecimalText(std::string_view text, int precision, int scale, std::string_view shown) {
  auto bad = [&] {
    return Status::InvalidArgument("{} is not a valid decimal({},{})", shown,
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
                                   shown, precision, scale);
  }
  int64_t total = static_cast<int64_t>(digits.size()) + (scale - frac_digits);
  if (total > precision) {
    return Status::InvalidArgument("{} has more digits than decimal({},{}) allows",
                                   shown, precision, scale);
  }
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (int64_t k = frac_digits; k < scale; ++k) v *= 10;
  return neg ? -v : v;
}

}  // namespace lithify
