#include "lithify/io/uri.h"
#include "lithify/base/text.h"
#include "lithify/io/filesystem.h"

#include <cctype>

namespace lithify::io {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view SchemePart(std::string_view location) {
  return HasScheme(location) ? location.substr(0, location.find(':')) : std::string_view();
}

}  // namespace

bool HasScheme(std::string_view p) {
  size_t colon = p.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    bool ok = std::isalpha(c) || (i > 0 && (std::isdigit(c) || c == '+' || c == '-' || c == '.'));
    if (!ok) return false;
  }
  return colon + 1 < p.size() && p[colon + 1] == '/';
}

std::string SchemeOf(std::string_view location) { return AsciiLower(SchemePart(location)); }

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    int lo = hi >= 0 ? HexValue(text[i + 2]) : -1;
    if (lo < 0) return Status::Corruption("path '{}' has a malformed percent escape", text);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

Result<std::string> FileUriToPath(std::string_view uri) {
  if (SchemeOf(uri) != "file") return Status::InvalidArgument("'{}' is not a file: URI", uri);
  std::string_view p = uri.substr(5);
  // file:///x and file://localhost/x have an authority; file:/x does not.
  if (p.substr(0, 2) == "//") {
    size_t slash = p.find('/', 2);
    std::string_view authority = p.substr(2, slash == std::string_view::npos ? p.npos : slash - 2);
    if (!authority.empty() && AsciiLower(authority) != "localhost") {
      return Status::InvalidArgument("'{}' names host '{}': only local file: URIs are supported", uri,
                                     authority);
    }
    if (slash == std::string_view::npos) return Status::InvalidArgument("'{}' has no path", uri);
    p = p.substr(slash);
  }
  auto decoded = PercentDecode(p);
  if (!decoded.ok()) return Status::InvalidArgument("{}", decoded.status().message());
  return decoded;
}

Result<UriParts> SplitUri(std::string_view uri) {
  std::string_view scheme = SchemePart(uri);
  if (scheme.empty()) return Status::InvalidArgument("'{}' is not a URI", uri);
  std::string_view rest = uri.substr(scheme.size() + 1);
  if (rest.substr(0, 2) != "//") {
    return Status::InvalidArgument("'{}': expected {}://<authority>/<path>", uri, AsciiLower(scheme));
  }
  rest.remove_prefix(2);
  size_t slash = rest.find('/');
  UriParts parts;
  parts.scheme = AsciiLower(scheme);
  parts.authority = std::string(rest.substr(0, slash));
  if (parts.authority.empty()) {
    return Status::InvalidArgument("'{}': expected {}://<authority>/<path> (the authority is empty)", uri,
                                   parts.scheme);
  }
  if (slash != std::string_view::npos) {
    std::string_view key = rest.substr(slash);
    while (!key.empty() && key.front() == '/') key.remove_prefix(1);
    parts.key = std::string(key);
  }
  return parts;
}

std::string CanonicalLocation(std::string_view location) {
  while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
  std::string_view scheme = SchemePart(location);
  if (scheme.empty()) return std::string(location);
  std::string canonical = AsciiLower(scheme);
  if (canonical == "s3a" || canonical == "s3n") canonical = "s3";
  if (canonical == "abfss") canonical = "abfs";
  if (canonical == "wasbs") canonical = "wasb";
  canonical.append(location.substr(scheme.size()));
  return canonical;
}

bool IsAbsoluteLocation(std::string_view path) {
  if (!path.empty() && path.front() == '/') return true;
  std::string_view scheme = SchemePart(path);
  return !scheme.empty() && path.substr(scheme.size()).starts_with("://");
}

std::string ResolveLocation(std::string_view root, std::string_view path) {
  return IsAbsoluteLocation(path) ? std::string(path) : JoinPath(root, path);
}

}  // namespace lithify::io
