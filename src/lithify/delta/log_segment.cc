// Log file naming, listing and segment selection (PROTOCOL.md "Delta Log Entries",
// "Checkpoints", "Checkpoint Naming Scheme", "Last Checkpoint File").
#include "lithify/delta/log_segment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lithify/base/macros.h"
#include "lithify/delta/json_util.h"

namespace lithify::delta {

namespace {

constexpr size_t kVersionDigits = 20;
constexpr size_t kPartDigits = 10;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A fixed-width decimal number; nullopt if not exactly `width` digits or overflowing.
std::optional<int64_t> FixedNumber(std::string_view s, size_t width) {
  if (s.size() != width || !AllDigits(s)) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (v > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool LooksLikeUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

std::vector<std::string_view> SplitDots(std::string_view s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t dot = s.find('.', pos);
    out.push_back(s.substr(pos, dot == std::string_view::npos ? s.npos : dot - pos));
    if (dot == std::string_view::npos) return out;
    pos = dot + 1;
  }
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

int TypeOrder(LogFileType t) { return static_cast<int>(t); }

bool FileLess(const LogFile& a, const LogFile& b) {
  if (a.name.version != b.name.version) return a.name.version < b.name.version;
  if (a.name.type != b.name.type) return TypeOrder(a.name.type) < TypeOrder(b.name.type);
  if (a.name.num_parts != b.name.num_parts) return a.name.num_parts < b.name.num_parts;
  if (a.name.part != b.name.part) return a.name.part < b.name.part;
  return a.path < b.path;
}

// The complete checkpoints of one version, best first. A version can have several
// (racing writers, different formats); any complete one is equivalent.
struct CheckpointCandidates {
  std::vector<std::vector<LogFile>> complete;
  bool has_incomplete = false;
};

CheckpointCandidates CheckpointsAt(const std::vector<LogFile>& files, int64_t version) {
  CheckpointCandidates out;
  std::map<int32_t, std::vector<LogFile>> multi;  // num_parts -> parts present
  for (const LogFile& f : files) {
    if (f.name.version != version || !f.name.is_checkpoint()) continue;
    if (f.name.type == LogFileType::kCheckpointMultiPart) {
      multi[f.name.num_parts].push_back(f);
    } else {
      out.complete.push_back({f});
    }
  }
  for (auto& [parts, present] : multi) {
    std::sort(present.begin(), present.end(), FileLess);
    present.erase(std::unique(present.begin(), present.end(),
                              [](const LogFile& a, const LogFile& b) { return a.name.part == b.name.part; }),
                  present.end());
    if (static_cast<int32_t>(present.size()) == parts) {
      out.complete.push_back(std::move(present));
    } else {
      out.has_incomplete = true;
    }
  }
  return out;
}

// For an incomplete multi-part checkpoint at `version`: the file name of its first
// missing part (of the part count with the most parts present), for error messages.
std::string FirstMissingPart(const std::vector<LogFile>& files, int64_t version) {
  std::map<int32_t, std::vector<int32_t>> present;  // num_parts -> part numbers
  for (const LogFile& f : files) {
    if (f.name.version == version && f.name.type == LogFileType::kCheckpointMultiPart) {
      present[f.name.num_parts].push_back(f.name.part);
    }
  }
  const std::vector<int32_t>* best = nullptr;
  int32_t best_parts = 0;
  for (auto& [parts, nums] : present) {
    std::sort(nums.begin(), nums.end());
    nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
    if (best == nullptr || nums.size() > best->size()) {
      best = &nums;
      best_parts = parts;
    }
  }
  if (best == nullptr) return std::string();
  int32_t part = 1;
  for (int32_t n : *best) {
    if (n != part) break;
    ++part;
  }
  return MultiPartCheckpointFileName(version, part, best_parts);
}

}  // namespace

std::optional<LogFileName> ParseLogFileName(std::string_view name) {
  std::vector<std::string_view> p = SplitDots(name);
  if (p.size() < 2) return std::nullopt;
  auto version = FixedNumber(p[0], kVersionDigits);
  if (!version) return std::nullopt;
  LogFileName n;
  n.version = *version;
  if (p.size() == 2 && p[1] == "json") {
    n.type = LogFileType::kCommit;
    return n;
  }
  if (p.size() == 2 && p[1] == "crc") {
    n.type = LogFileType::kChecksum;
    return n;
  }
  if (p.size() == 4 && p[3] == "json" && p[2] == "compacted") {
    auto end = FixedNumber(p[1], kVersionDigits);
    if (!end || *end <= n.version) return std::nullopt;
    n.type = LogFileType::kCompaction;
    n.end_version = *end;
    return n;
  }
  if (p[1] != "checkpoint") return std::nullopt;
  if (p.size() == 3 && p[2] == "parquet") {
    n.type = LogFileType::kCheckpointClassic;
    return n;
  }
  if (p.size() == 4 && LooksLikeUuid(p[2]) && (p[3] == "json" || p[3] == "parquet")) {
    n.type = p[3] == "json" ? LogFileType::kCheckpointUuidJson : LogFileType::kCheckpointUuidParquet;
    n.uuid = std::string(p[2]);
    return n;
  }
  if (p.size() == 5 && p[4] == "parquet") {
    auto part = FixedNumber(p[2], kPartDigits);
    auto parts = FixedNumber(p[3], kPartDigits);
    if (!part || !parts || *part < 1 || *part > *parts || *parts > INT32_MAX) return std::nullopt;
    n.type = LogFileType::kCheckpointMultiPart;
    n.part = static_cast<int32_t>(*part);
    n.num_parts = static_cast<int32_t>(*parts);
    return n;
  }
  return std::nullopt;
}

// Files per listing page: S3's and Azure's page size, so one page is one request.
constexpr size_t kListPageFiles = 1000;

std::string CommitFileName(int64_t version) { return fmt::format("{:020}.json", version); }
std::string ClassicCheckpointFileName(int64_t version) {
  return fmt::format("{:020}.checkpoint.parquet", version);
}
std::string MultiPartCheckpointFileName(int64_t version, int32_t part, int32_t num_parts) {
  return fmt::format("{:020}.checkpoint.{:010}.{:010}.parquet", version, part, num_parts);
}

Result<std::optional<LastCheckpointHint>> ReadLastCheckpoint(io::FileSystem* fs,
                                                             std::string_view log_dir) {
  // Every checkpoint rewrites the hint in place. On an object store a reader can meet the
  // replacement between opening the object and reading it (the read then fails rather than
  // mix versions, io/s3): read it again, it is whole by then. Found by delta_write_concurrency_s3.
  const std::string hint_path = io::JoinPath(log_dir, "_last_checkpoint");
  auto data = fs->ReadFile(hint_path);
  for (int again = 0; again < 3 && !data.ok() && !data.status().IsNotFound(); ++again) {
    data = fs->ReadFile(hint_path);
  }
  if (!data.ok()) {
    if (data.status().IsNotFound()) return std::optional<LastCheckpointHint>();
    return data.status();
  }
  auto j = json::Parse(AsStringView(data->view()));
  if (!j.ok()) return std::optional<LastCheckpointHint>();
  auto version = json::OptInt(*j, "version");
  if (!version.ok() || !version->has_value() || **version < 0) {
    return std::optional<LastCheckpointHint>();
  }
  LastCheckpointHint hint;
  hint.version = **version;
  auto size = json::OptInt(*j, "size");
  if (size.ok()) hint.size = *size;
  auto parts = json::OptInt(*j, "parts");
  if (parts.ok()) hint.parts = *parts;
  return std::optional<LastCheckpointHint>(hint);
}

Result<std::vector<LogFile>> ListLogFiles(io::FileSystem* fs, std::string_view log_dir,
                                          std::optional<int64_t> from_version,
                                          std::optional<int64_t> until_version) {
  // Every name of version >= v sorts after the bare 20-digit prefix of v.
  std::string start_after;
  if (from_version && *from_version > 0) {
    start_after = io::JoinPath(log_dir, fmt::format("{:020}", *from_version));
  }
  std::vector<LogFile> out;
  for (bool more = true; more;) {
    LITHIFY_ASSIGN_OR_RETURN(auto page, fs->ListFilesPage(log_dir, start_after, kListPageFiles));
    more = page.more && !page.files.empty();
    if (more) start_after = page.files.back().path;
    for (auto& info : page.files) {
      auto name = ParseLogFileName(BaseName(info.path));
      if (!name) continue;
      if (from_version && name->version < *from_version) continue;
      if (until_version && name->version > *until_version) more = false;
      out.push_back(LogFile{std::move(info.path), std::move(*name), info.size, info.mtime_ms});
    }
  }
  std::sort(out.begin(), out.end(), FileLess);
  return out;
}

Result<LogSegment> BuildLogSegment(std::string_view log_dir, const std::vector<LogFile>& files,
                                   std::optional<int64_t> version) {
  std::map<int64_t, const LogFile*> commits;
  int64_t latest = -1;
  for (const LogFile& f : files) {
    if (f.name.type == LogFileType::kCommit) {
      commits[f.name.version] = &f;
      latest = std::max(latest, f.name.version);
    } else if (f.name.is_checkpoint() && f.name.version > latest) {
      if (!CheckpointsAt(files, f.name.version).complete.empty()) latest = f.name.version;
    }
  }
  if (latest < 0) {
    // Only incomplete checkpoints and no commit: a damaged table, not an absent one.
    for (const LogFile& f : files) {
      if (f.name.type == LogFileType::kCheckpointMultiPart) {
        return Status::Corruption("{}: checkpoint at version {} is missing parts ({} is absent) and there are no commits to fall back on",
                                  log_dir, f.name.version, FirstMissingPart(files, f.name.version));
      }
    }
    return Status::NotFound("{}: no Delta log files (not a Delta table)", log_dir);
  }
  const int64_t target = version.value_or(latest);
  if (target < 0) return Status::InvalidArgument("version {} is negative", target);
  if (target > latest) {
    return Status::NotFound("{}: version {} does not exist (latest is {})", log_dir, target, latest);
  }

  LogSegment seg;
  seg.log_dir = std::string(log_dir);
  seg.version = target;
  // Newest complete checkpoint <= target.
  std::optional<int64_t> skipped_incomplete;
  std::vector<int64_t> cp_versions;
  for (const LogFile& f : files) {
    if (f.name.is_checkpoint() && f.name.version <= target) cp_versions.push_back(f.name.version);
  }
  std::sort(cp_versions.rbegin(), cp_versions.rend());
  cp_versions.erase(std::unique(cp_versions.begin(), cp_versions.end()), cp_versions.end());
  for (int64_t v : cp_versions) {
    CheckpointCandidates c = CheckpointsAt(files, v);
    if (!c.complete.empty()) {
      seg.checkpoint = std::move(c.complete.front());
      seg.checkpoint_version = v;
      break;
    }
    if (!skipped_incomplete) skipped_incomplete = v;
  }
  // Commits after the checkpoint, contiguous up to target.
  const int64_t first = seg.checkpoint_version ? *seg.checkpoint_version + 1 : 0;
  for (int64_t v = first; v <= target; ++v) {
    auto it = commits.find(v);
    if (it != commits.end()) {
      seg.commits.push_back(*it->second);
      continue;
    }
    if (skipped_incomplete && *skipped_incomplete >= v) {
      return Status::Corruption("{}: checkpoint at version {} is missing parts ({} is absent) and commit {} is absent, so version {} cannot be reconstructed",
                                log_dir, *skipped_incomplete, FirstMissingPart(files, *skipped_incomplete), v, target);
    }
    if (v == first && !seg.checkpoint_version) {
      // No checkpoint to start from and the log does not begin at 0: cleaned up.
      return Status::NotFound("{}: version {} cannot be reconstructed: no checkpoint at or before it and commit 0 is absent",
                              log_dir, target);
    }
    return Status::Corruption("{}: commit {} ({}) is missing: the log has a gap before version {}",
                              log_dir, v, CommitFileName(v), target);
  }
  auto it = commits.find(target);
  if (it != commits.end()) seg.latest_commit = *it->second;
  return seg;
}

Result<LogSegment> LoadLogSegment(io::FileSystem* fs, std::string_view table_root,
                                  std::optional<int64_t> version) {
  const std::string log_dir = io::JoinPath(table_root, "_delta_log");
  LITHIFY_ASSIGN_OR_RETURN(auto hint, ReadLastCheckpoint(fs, log_dir));
  if (hint && (!version || hint->version <= *version)) {
    LITHIFY_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, log_dir, hint->version, version));
    if (!CheckpointsAt(files, hint->version).complete.empty()) {
      return BuildLogSegment(log_dir, files, version);
    }
    // The hint names a checkpoint that is absent or incomplete: list everything.
  }
  LITHIFY_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, log_dir, std::nullopt, version));
  return BuildLogSegment(log_dir, files, version);
}

}  // namespace lithify::delta
