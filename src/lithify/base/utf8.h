// UTF-8 validation: the one check of "is this well-formed UTF-8" -- names and comments
// that end up in JSON (nlohmann replaces invalid bytes when it dumps, so text that is not
// UTF-8 would be stored as something else than what was given), ingested string values,
// string statistics. Header only; pure; thread-safe.
//
// Decoders with another job keep their own loops: parquet/rows_json.cc replaces each
// maximal invalid subpart by U+FFFD (Unicode's recommendation), delta/stats_writer.cc
// decodes invalid bytes as Latin-1 so truncation always makes progress, and
// delta/checkpoint_writer.cc escapes what it does not decode.
#pragma once

#include <cstdint>
#include <string_view>

namespace lithify {

// True when `s` is well-formed UTF-8: shortest forms only, no surrogates, at most U+10FFFF.
inline bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t extra = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1, cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2, cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3, cp = c & 0x07u;
    } else {
      return false;
    }
    if (s.size() - i <= extra) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace lithify
