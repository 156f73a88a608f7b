#include "lithify/base/decimal_text.h"

#include <algorithm>

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

}  // namespace lithify
