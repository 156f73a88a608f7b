// Small text helpers every layer shares.
#pragma once

#include <string>
#include <string_view>

#include "lithify/base/status.h"

namespace lithify {

// `s` with the ASCII letters A-Z lowered; every other byte (UTF-8 included) as it is.
// Locale-independent on purpose: it compares keywords, option values, URI schemes and
// header names, which are ASCII by definition.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The character JSON's one-letter escape `\e` stands for ('"', '\\', '/', b, f, n, r, t),
// or -1 for every other letter (\u and invalid escapes are the caller's).
constexpr int JsonSimpleEscape(char e) {
  switch (e) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return -1;
  }
}

// `st` as it is when it is OK or its message names `path` already (errors from lower
// layers usually do), else with `path` as its context: an error about a file always
// names the file.
inline Status NameFile(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext(path);
}

}  // namespace lithify
