#include "lithify/formats/table_format.h"

#include "lithify/base/macros.h"

namespace lithify::formats {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsMetadataFileName(std::string_view name) {
  return EndsWith(name, ".metadata.json") || EndsWith(name, ".metadata.json.gz");
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Whether `dir` directly holds a file `accept` likes, looking at a few pages only: a
// table's metadata folder lists its JSON files before or among its manifests, and a
// Delta log is recognised by its first file.
template <typename Accept>
Result<bool> HoldsFile(io::FileSystem* fs, const std::string& dir, Accept&& accept, int max_pages) {
  std::string after;
  for (int page = 0; page < max_pages; ++page) {
    LITHIFY_ASSIGN_OR_RETURN(io::FileSystem::FilePage p, fs->ListFilesPage(dir, after, 1000));
    for (const io::FileInfo& f : p.files) {
      if (accept(BaseName(f.path))) return true;
    }
    if (!p.more || p.files.empty()) return false;
    after = p.files.back().path;
  }
  return false;
}

}  // namespace

std::string_view TableFormatName(TableFormat f) {
  return f == TableFormat::kDelta ? "delta" : "iceberg";
}

Result<TableFormat> DetectTableFormat(io::FileSystem* fs, const std::string& location) {
  if (IsMetadataFileName(BaseName(location))) return TableFormat::kIceberg;
  std::string root = location;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  LITHIFY_ASSIGN_OR_RETURN(bool delta,
                           HoldsFile(fs, io::JoinPath(root, "_delta_log"), [](std::string_view) { return true; }, 1));
  if (delta) return TableFormat::kDelta;
  LITHIFY_ASSIGN_OR_RETURN(bool iceberg, HoldsFile(fs, io::JoinPath(root, "metadata"),
                                                   [](std::string_view name) {
                                                     return name == "version-hint.text" || IsMetadataFileName(name);
                                                   },
                                                   100));
  if (iceberg) return TableFormat::kIceberg;
  return Status::NotFound(
      "{}: not a table: neither a Delta table (no files in _delta_log/) nor an Iceberg table (no "
      "version-hint.text or *.metadata.json in metadata/)",
      location);
}

Result<TableFormat> FormatOf(io::FileSystem* fs, const std::string& location, std::optional<TableFormat> known) {
  if (known) return *known;
  return DetectTableFormat(fs, location);
}

bool HoldsIcebergInstead(io::FileSystem* fs, const std::string& location, const Status& delta_error) {
  if (!delta_error.IsNotFound()) return false;
  Result<TableFormat> found = DetectTableFormat(fs, location);
  return found.ok() && *found == TableFormat::kIceberg;
}

}  // namespace lithify::formats
