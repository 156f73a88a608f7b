// Column paths as users write them: "a.b.c" <-> {"a", "b", "c"}. No quoting: a name
// holding a '.' cannot be written this way (the callers take logical names from flags,
// table properties and their own messages). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lithify {

// "a.b" -> {"a", "b"}; "" -> {""}; "a..b" -> {"a", "", "b"} (empty parts kept: the
// caller's lookup then names the missing column).
inline std::vector<std::string> SplitDotted(std::string_view s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = s.find('.', start);
    parts.emplace_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// {"a", "b"} -> "a.b".
inline std::string JoinDotted(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ".") + p;
  return s;
}

}  // namespace lithify
