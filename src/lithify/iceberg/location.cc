#include "lithify/iceberg/location.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "lithify/base/macros.h"

namespace lithify::iceberg {

namespace {

constexpr size_t kMaxMetadataBytes = size_t{256} << 20;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view BaseName(std::string_view p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool IsMetadataName(std::string_view name) {
  return EndsWith(name, ".metadata.json") || EndsWith(name, ".metadata.json.gz");
}

// The version number a metadata file name carries: vN.metadata.json, vN.gz.metadata.json,
// NNNNN-<uuid>.metadata.json; nullopt for other names (vfinal.metadata.json, ...).
std::optional<int64_t> VersionOf(std::string_view name) {
  std::string_view s = name;
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  size_t end = 0;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  if (end == 0 || end > 18) return std::nullopt;
  const char next = end < s.size() ? s[end] : '\0';
  if (next != '.' && next != '-' && next != '\0') return std::nullopt;
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + end, v);
  return v;
}

Result<std::string> Gunzip(ByteView in, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Status::Internal("zlib init failed");
  std::string out;
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  char buf[64 * 1024];
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return Status::Corruption("{}: broken gzip stream ({})", path, z.msg ? z.msg : "truncated");
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > kMaxMetadataBytes) {
      inflateEnd(&z);
      return Status::NotSupported("{}: metadata above {} bytes", path, kMaxMetadataBytes);
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return Status::Corruption("{}: truncated gzip stream", path);
    }
  }
  inflateEnd(&z);
  return out;
}

std::string Trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool Exists(io::FileSystem* fs, const std::string& p) {
  auto h = fs->Head(p);
  return h.ok() && !h->is_dir;
}

// The metadata file a version hint names, trying the spellings writers use.
Result<std::optional<std::string>> FromHint(io::FileSystem* fs, const std::string& dir,
                                            const std::string& hint,
                                            const std::vector<io::FileInfo>& files) {
  if (hint.empty()) return std::optional<std::string>();
  std::vector<std::string> candidates;
  if (IsMetadataName(hint)) candidates.push_back(hint);
  candidates.push_back(hint + ".metadata.json");
  candidates.push_back(hint + ".gz.metadata.json");
  if (hint.front() != 'v') {
    candidates.push_back("v" + hint + ".metadata.json");
    candidates.push_back("v" + hint + ".gz.metadata.json");
  }
  for (const std::string& c : candidates) {
    std::string p = io::JoinPath(dir, c);
    if (Exists(fs, p)) return std::optional<std::string>(p);
  }
  // "N" may also name the NNNNN-<uuid> file of that version.
  std::optional<int64_t> want = VersionOf(hint);
  if (want) {
    for (const io::FileInfo& f : files) {
      std::string_view name = BaseName(f.path);
      if (IsMetadataName(name) && name.front() != 'v' && VersionOf(name) == want) {
        return std::optional<std::string>(f.path);
      }
    }
  }
  return Status::Corruption("{}: version-hint.text names '{}', which is not a metadata file there",
                            dir, hint);
}

}  // namespace

Result<LocationMap> LocationMap::Parse(const std::vector<std::string>& entries) {
  LocationMap m;
  for (const std::string& e : entries) {
    size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("usage: --location-map FROM=TO (got '{}')", e);
    }
    m.Add(e.substr(0, eq), e.substr(eq + 1));
  }
  return m;
}

void LocationMap::Add(std::string from, std::string to) {
  rules_.emplace_back(std::move(from), std::move(to));
  std::stable_sort(rules_.begin(), rules_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string StripFileScheme(std::string_view location) {
  if (location.rfind("file://", 0) == 0) return std::string(location.substr(7));
  if (location.rfind("file:", 0) == 0) return std::string(location.substr(5));
  return std::string(location);
}

std::string LocationMap::Apply(std::string_view location) const {
  auto rewrite = [&](std::string_view loc) -> std::optional<std::string> {
    for (const auto& [from, to] : rules_) {
      if (loc.substr(0, from.size()) == from) return to + std::string(loc.substr(from.size()));
    }
    return std::nullopt;
  };
  if (auto r = rewrite(location)) return StripFileScheme(*r);
  std::string plain = StripFileScheme(location);
  if (auto r = rewrite(plain)) return StripFileScheme(*r);
  return plain;
}

Result<MetadataLocation> LocateMetadata(io::FileSystem* fs, std::string_view table) {
  std::string t(table);
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  if (IsMetadataName(BaseName(t))) {
    if (!Exists(fs, t)) return Status::NotFound("{}: no such metadata file", t);
    return MetadataLocation{t, "named directly"};
  }
  const std::string dir = io::JoinPath(t, "metadata");
  LITHIFY_ASSIGN_OR_RETURN(std::vector<io::FileInfo> files, fs->ListFrom(dir, ""));
  const std::string hint_path = io::JoinPath(dir, "version-hint.text");
  if (Exists(fs, hint_path)) {
    LITHIFY_ASSIGN_OR_RETURN(Buffer hint, fs->ReadFile(hint_path));
    if (hint.size() > 4096) return Status::Corruption("{}: version hint of {} bytes", hint_path, hint.size());
    std::string h = Trimmed(AsStringView(hint.view()));
    LITHIFY_ASSIGN_OR_RETURN(auto p, FromHint(fs, dir, h, files));
    if (p) return MetadataLocation{*p, "version-hint.text: " + h};
  }
  const io::FileInfo* best = nullptr;
  std::optional<int64_t> best_v;
  size_t count = 0;
  for (const io::FileInfo& f : files) {
    std::string_view name = BaseName(f.path);
    if (f.is_dir || !IsMetadataName(name)) continue;
    ++count;
    std::optional<int64_t> v = VersionOf(name);
    // Numbered files order by number; an unnumbered one only wins when nothing is numbered.
    if (best == nullptr || (v && (!best_v || *v > *best_v || (*v == *best_v && f.path > best->path)))) {
      best = &f;
      best_v = v;
    }
  }
  if (best == nullptr) {
    return Status::NotFound("{}: not an Iceberg table (no metadata/version-hint.text and no "
                            "metadata/*.metadata.json)", t);
  }
  return MetadataLocation{best->path, fmt::format("newest of {} metadata files", count)};
}

Result<std::string> ReadMetadataText(io::FileSystem* fs, const std::string& path) {
  LITHIFY_ASSIGN_OR_RETURN(io::FileInfo info, fs->Head(path));
  if (info.size > kMaxMetadataBytes) {
    return Status::NotSupported("{}: metadata file of {} bytes is above {}", path, info.size, kMaxMetadataBytes);
  }
  LITHIFY_ASSIGN_OR_RETURN(Buffer b, fs->ReadFile(path));
  if (b.size() >= 2 && b.data()[0] == 0x1F && b.data()[1] == 0x8B) return Gunzip(b.view(), path);
  return std::string(AsStringView(b.view()));
}

}  // namespace lithify::iceberg
