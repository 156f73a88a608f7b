// Finding an Iceberg table's current metadata file and mapping the locations its metadata
// records onto where the files are now.
//
// LocateMetadata accepts a metadata file named directly (`*.metadata.json`, also gzip
// `*.gz.metadata.json` / `*.metadata.json.gz`), or a table folder: its
// `metadata/version-hint.text` when present (the forms `N`, `vN` and a file name with or
// without `.metadata.json` are all written in practice), else the newest metadata file in
// `metadata/` by version number (`vN.metadata.json`, `NNNNN-<uuid>.metadata.json`).
//
// Tables are often read away from where they were written (a copied warehouse, test data
// from another repository), so every path the metadata holds -- metadata log, manifest
// lists, manifests, data and delete files -- goes through a LocationMap: ordered
// `FROM=TO` prefix rewrites, the first (longest-first) match wins; `file:` URIs
// (`file:/x`, `file:///x`, and the relative `file://x`) become plain paths afterwards.
//
// Stateless functions; LocationMap is an immutable value after construction.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg {

class LocationMap {
 public:
  // Each entry "FROM=TO"; InvalidArgument ("usage: ...") without '=' or with an empty FROM.
  static Result<LocationMap> Parse(const std::vector<std::string>& entries);
  void Add(std::string from, std::string to);
  // The path to open for a recorded location.
  std::string Apply(std::string_view location) const;
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> rules_;  // longest FROM first
};

// Strips `file:` URI forms to a plain path; other strings are returned unchanged.
std::string StripFileScheme(std::string_view location);

struct MetadataLocation {
  std::string path;     // the metadata file to read
  std::string how;      // "named directly", "version-hint.text: 3", "newest of 4 files"
};

// Finds the current metadata file for `table` (a folder or a metadata file).
// NotFound when there is neither a version hint nor a metadata file; Corruption for a
// version hint naming a file that does not exist.
Result<MetadataLocation> LocateMetadata(io::FileSystem* fs, std::string_view table);

// Reads a metadata file, gunzipping `.gz` names (and any file starting with the gzip
// magic). Corruption for a broken gzip stream; the text is bounded to 256 MiB.
Result<std::string> ReadMetadataText(io::FileSystem* fs, const std::string& path);

}  // namespace lithify::iceberg
