// Checks of argument values that CLI11 cannot express: paths that must not be blank or
// URIs, and flags whose value must not be blank (cli.h).
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/io/registry.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

struct Checked {
  CLI::Option* option;
  bool path;  // also refuse URIs
};

std::vector<Checked>& Registry() {
  static std::vector<Checked> r;
  return r;
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

// "scheme://..." with an RFC 3986 scheme (a letter, then letters, digits, + - .) that no
// storage backend serves (file: always has one; object stores once registered).
bool IsUnservedUri(std::string_view s) {
  const size_t sep = s.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  if (std::isalpha(static_cast<unsigned char>(s[0])) == 0) return false;
  for (size_t i = 1; i < sep; ++i) {
    const char c = s[i];
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '+' && c != '-' && c != '.') return false;
  }
  std::string scheme(s.substr(0, sep));
  for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  RegisterStorageBackends();
  for (const std::string& known : io::RegisteredSchemes()) {
    if (known == scheme) return false;
  }
  return true;
}

// "--from", or a positional as --help shows it ("TABLE").
std::string DisplayName(const CLI::Option* opt) {
  std::string name = opt->get_name();
  if (name.rfind('-', 0) != 0) {
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return name;
}

}  // namespace

CLI::Option* PathOption(CLI::Option* opt) {
  Registry().push_back({opt, true});
  return opt;
}

CLI::Option* NonBlankOption(CLI::Option* opt) {
  Registry().push_back({opt, false});
  return opt;
}

Status CheckPathOptions() {
  for (const Checked& c : Registry()) {
    if (c.option->count() == 0) continue;
    for (const std::string& v : c.option->results()) {
      if (IsBlank(v)) {
        if (!c.path) return UsageError("{} is empty", DisplayName(c.option));
        return UsageError("{} is an empty or blank path (give \".\" for the current folder)", DisplayName(c.option));
      }
      if (c.path && IsUnservedUri(v)) return Status::NotSupported("URIs are not supported yet: {}", v);
    }
  }
  return Status::OK();
}

}  // namespace lithify::cli
