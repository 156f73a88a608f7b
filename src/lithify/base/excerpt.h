// Excerpt: a short, printable piece of user input for an error message.
//
// Errors quote what they refuse, but input can be megabytes (a 60 KB JSON value, a
// pasted file): an error names the value by its first max_bytes bytes, cut at a UTF-8
// character boundary, followed by "... (N bytes)". Text within the limit is returned
// unchanged. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace lithify {

inline constexpr size_t kDefaultExcerptBytes = 80;

inline std::string Excerpt(std::string_view text, size_t max_bytes = kDefaultExcerptBytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

}  // namespace lithify
