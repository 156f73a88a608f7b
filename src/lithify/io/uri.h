// Storage locations as users and table logs write them: plain paths and URIs.
//
// This is the one place that takes a location string apart. A location is either a
// plain local path ("t", "/data/t") or a URI "scheme:..." whose scheme is followed by
// '/' ("file:/data/t", "file:///data/t", "s3://bucket/t",
// "abfss://container@account.dfs.core.windows.net/t"). file: URIs name local paths
// (FileUriToPath); every other scheme names a store that a registered FileSystem
// serves (registry.h). Percent escapes are decoded where a URI's path is turned into a
// local path. Scheme aliases that name the same store (s3a/s3n for s3, abfss for abfs)
// are folded by CanonicalLocation so that a table log's absolute paths can be compared
// with the table root however either was spelled.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lithify/base/result.h"

namespace lithify::io {

// Whether `location` starts with "scheme:/" (scheme = ALPHA *(ALPHA / DIGIT / + - .),
// RFC 3986). A relative path whose first segment merely contains ':' is not a URI.
bool HasScheme(std::string_view location);

// The scheme of a URI in lower case ("s3"), or "" for a plain path.
std::string SchemeOf(std::string_view location);

// Decodes %XX escapes. Corruption naming the text when an escape is malformed.
Result<std::string> PercentDecode(std::string_view text);

// The local path a file: URI names, percent-decoded: "file:/x", "file:///x" and
// "file://localhost/x" are "/x". InvalidArgument for a URI of another host
// ("file://server/x": lithify reads no remote file: shares) or without a path;
// InvalidArgument also when `uri` is not a file: URI.
Result<std::string> FileUriToPath(std::string_view uri);

// The parts of an object-store URI "scheme://authority/key": scheme in lower case, the
// authority (bucket, container@account) and the key without its leading '/' (may be
// empty). InvalidArgument when there is no "//" authority or the authority is empty.
struct UriParts {
  std::string scheme;
  std::string authority;
  std::string key;
};
Result<UriParts> SplitUri(std::string_view uri);

// A spelling of `location` for comparisons: the scheme lower-cased and aliases folded
// (s3a, s3n -> s3; abfss -> abfs; wasbs -> wasb), trailing '/' removed. Plain paths
// come back with only trailing '/' removed.
std::string CanonicalLocation(std::string_view location);

// Whether `path` is an absolute location rather than a path relative to some root: it
// starts with '/' or with "scheme://". A table's file keys are either relative to the
// table root (normalized: no leading '/', no empty segment, so never "x://") or, for a
// file a Delta log names by an absolute path outside the root (shallow clones), such an
// absolute location.
bool IsAbsoluteLocation(std::string_view path);

// Where a file key of a table lives: `path` itself when IsAbsoluteLocation, else `path`
// joined below `root` (JoinPath).
std::string ResolveLocation(std::string_view root, std::string_view path);

}  // namespace lithify::io
