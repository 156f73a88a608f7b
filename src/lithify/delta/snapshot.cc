// Snapshot loading: replay and reconciliation (PROTOCOL.md "Action Reconciliation"),
// the protocol gate ("Table Features") and time travel.
#include "lithify/delta/snapshot.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint.h"
#include "lithify/delta/stats.h"

namespace lithify::delta {

namespace {

// Reader features lithify honours ("Valid Feature Names in Table Features"). Writer-only
// names are accepted too: listing them in readerFeatures is a writer's mistake that
// imposes nothing on readers.
constexpr std::string_view kReadableFeatures[] = {
    "deletionVectors", "columnMapping", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
    "domainMetadata", "rowTracking", "inCommitTimestamp", "appendOnly", "invariants",
    "checkConstraints", "generatedColumns", "changeDataFeed", "identityColumns", "clustering",
    "icebergCompatV1", "icebergCompatV2", "allowColumnDefaults", "checkpointProtection",
    "materializePartitionColumns"};

// Writer features whose rules lithify's maintenance writes (rewrites, removes, DV purge,
// checkpoints) respect or are unaffected by.
constexpr std::string_view kWritableFeatures[] = {
    "appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns",
    "columnMapping", "identityColumns", "deletionVectors", "rowTracking", "timestampNtz",
    "domainMetadata", "v2Checkpoint", "icebergCompatV1", "icebergCompatV2", "clustering",
    "vacuumProtocolCheck", "inCommitTimestamp", "allowColumnDefaults", "checkpointProtection"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// The set of reconciliation keys (path, DV unique id) seen in commits. Open addressing
// over a power-of-two table of (64-bit hash, key index) slots: a checkpoint lookup (one
// per checkpoint file, nearly all misses) costs one hash of the path and usually one
// slot probe, without touching the key strings unless the full hashes agree.
class FileKeySet {
 public:
  // Inserts (path, dv_id); false when it was already present.
  bool Insert(std::string_view path, std::string_view dv_id) {
    if ((keys_.size() + 1) * 2 > slots_.size()) Grow();
    const uint64_t h = Hash(path, dv_id);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.index == 0) {
        keys_.emplace_back(std::string(path), std::string(dv_id));
        s = Slot{h, static_cast<uint32_t>(keys_.size())};
        return true;
      }
      if (s.hash == h && Equal(s.index, path, dv_id)) return false;
    }
  }
  bool Contains(std::string_view path, std::string_view dv_id) const {
    if (keys_.empty()) return false;
    const uint64_t h = Hash(path, dv_id);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == 0) return false;
      if (s.hash == h && Equal(s.index, path, dv_id)) return true;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0;  // 1 + index into keys_; 0 = empty
  };
  static uint64_t Hash(std::string_view path, std::string_view dv_id) {
    uint64_t h = std::hash<std::string_view>()(path);
    if (!dv_id.empty()) h ^= std::hash<std::string_view>()(dv_id) * 0x9e3779b97f4a7c15ull + 0x7f4a7c15;
    return h;
  }
  bool Equal(uint32_t index, std::string_view path, std::string_view dv_id) const {
    const auto& k = keys_[index - 1];
    return k.first == path && k.second == dv_id;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.index == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].index != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<std::pair<std::string, std::string>> keys_;
};

// Whether RelativizeDataPath(root, p) == p for any root: no scheme (no ':'), no percent
// escape, not absolute, and no empty, "." or ".." segment. Almost every path a writer
// logs is like this, and the check is much cheaper than decoding and re-joining.
bool IsPlainRelativePath(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  size_t seg = 0;  // start of the current segment
  for (size_t i = 0; i <= p.size(); ++i) {
    char c = i < p.size() ? p[i] : '/';
    if (c == '%' || c == ':') return false;
    if (c != '/') continue;
    std::string_view s = p.substr(seg, i - seg);
    if (s.empty() || s == "." || s == "..") return false;
    seg = i + 1;
  }
  return true;
}

// Whether RelativizeDataPath failed because the path lies outside the table root (as
// opposed to a malformed escape or a path naming no file).
bool IsOutsideRoot(const Status& st) {
  const std::string& m = st.message();
  return m.find("outside the table root") != std::string::npos ||
         m.find("escapes the table root") != std::string::npos;
}

// The reconciliation key of a path outside the table root (RelativizeDataPath refused it
// as outside). `/x/y`, `file:/x/y`, `file:///x/y` and `file://localhost/x/y` all become
// the decoded absolute path "/x/y", and a relative path with ".." segments is resolved
// against the root, with "." and empty segments dropped; other schemes (s3://...) keep
// their decoded URI. In-root keys are relative (never start with '/', contain no ".."
// segment and no scheme), so the two kinds cannot collide.
std::string OutsideRootKey(std::string_view root, std::string_view uri) {
  std::string_view p = uri;
  bool absolute = false;
  if (p.substr(0, 5) == "file:") {
    p.remove_prefix(5);
    if (p.substr(0, 2) == "//") {
      size_t slash = p.find('/', 2);
      p = slash == std::string_view::npos ? std::string_view() : p.substr(slash);
    }
    absolute = true;
  } else if (!p.empty() && p.front() == '/') {
    absolute = true;
  } else {
    size_t colon = p.find(':'), slash = p.find('/');
    if (colon != std::string_view::npos && (slash == std::string_view::npos || colon < slash)) {
      auto decoded = DecodeActionPath(p);  // another scheme: the URI itself
      return decoded.ok() ? *decoded : std::string(uri);
    }
  }
  auto decoded = DecodeActionPath(p);
  std::string full = decoded.ok() ? std::move(decoded).value() : std::string(p);
  if (!absolute) full = std::string(root) + "/" + full;
  std::vector<std::string_view> segs;
  size_t pos = 0;
  while (pos <= full.size()) {
    size_t end = full.find('/', pos);
    if (end == std::string::npos) end = full.size();
    std::string_view seg(full.data() + pos, end - pos);
    if (seg == "..") {
      if (!segs.empty()) segs.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segs.push_back(seg);
    }
    pos = end + 1;
  }
  std::string key;
  for (std::string_view seg : segs) {
    key.push_back('/');
    key.append(seg);
  }
  return key.empty() ? std::string("/") : key;
}

// Sorts by (path, DV unique id). FileEntry is a large struct: sorting an index and
// applying the permutation in place moves each entry about once instead of
// O(log n) times, without a second copy of the list.
void SortFiles(std::vector<table::FileEntry>* files) {
  std::vector<table::FileEntry>& f = *files;
  if (f.size() < 2) return;
  // The comparisons go by 24 bytes of each path after the prefix all paths share (often
  // "date=" or a partition directory), held big-endian in the sort keys, so that most
  // never touch the entries; only ties compare the whole paths and DV ids.
  size_t lcp = f[0].path.size();
  for (size_t i = 1; i < f.size() && lcp > 0; ++i) {
    const std::string& p = f[i].path;
    size_t k = 0, m = std::min(lcp, p.size());
    while (k < m && p[k] == f[0].path[k]) ++k;
    lcp = k;
  }
  struct Key {
    uint64_t w[3];
    uint32_t index;
  };
  auto word = [](const std::string& p, size_t off) {
    uint64_t w = 0;
    for (size_t b = 0; b < 8; ++b) w = (w << 8) | (off + b < p.size() ? static_cast<unsigned char>(p[off + b]) : 0u);
    return w;
  };
  std::vector<Key> keys(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    const std::string& p = f[i].path;
    keys[i] = Key{{word(p, lcp), word(p, lcp + 8), word(p, lcp + 16)}, static_cast<uint32_t>(i)};
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    for (int w = 0; w < 3; ++w) {
      if (a.w[w] != b.w[w]) return a.w[w] < b.w[w];
    }
    // Equal words: the paths agree on those bytes (a shorter path reads as padded with
    // NUL, which only ties here and is ordered by the full comparison).
    const table::FileEntry& x = f[a.index];
    const table::FileEntry& y = f[b.index];
    int c = x.path.compare(y.path);
    return c != 0 ? c < 0 : x.dv_unique_id() < y.dv_unique_id();
  });
  std::vector<uint32_t> order(f.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = keys[i].index;
  std::vector<Key>().swap(keys);
  // Position i must receive f[order[i]]; follow each cycle once.
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    table::FileEntry tmp = std::move(f[i]);
    size_t j = i;
    while (order[j] != i) {
      size_t k = order[j];
      f[j] = std::move(f[k]);
      order[j] = static_cast<uint32_t>(j);
      j = k;
    }
    f[j] = std::move(tmp);
    order[j] = static_cast<uint32_t>(j);
  }
}

// "_delta_log/00000000000000000012.json" for messages.
std::string LogName(const LogFile& f) {
  size_t slash = f.path.rfind('/');
  return "_delta_log/" + (slash == std::string::npos ? f.path : f.path.substr(slash + 1));
}

bool InCommitTimestampsEnabled(const Metadata& m) {
  auto it = m.configuration.find("delta.enableInCommitTimestamps");
  return it != m.configuration.end() && it->second == "true";
}

std::optional<int64_t> IctEnablementVersion(const Metadata& m) {
  auto it = m.configuration.find("delta.inCommitTimestampEnablementVersion");
  if (it == m.configuration.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

// Accumulates reconciled state while replaying newest-first.
class SnapshotBuilder {
 public:
  SnapshotBuilder(io::FileSystem* fs, std::string table_root, LoadOptions options = {})
      : snap_(new Snapshot()), options_(options) {
    snap_->fs_ = fs;
    snap_->table_root_ = std::move(table_root);
  }

  Result<std::shared_ptr<const Snapshot>> Build(LogSegment segment) {
    snap_->segment_ = std::move(segment);
    snap_->version_ = snap_->segment_.version;
    LITHIFY_RETURN_NOT_OK(ReplayCommits());
    LITHIFY_RETURN_NOT_OK(ReplayCheckpoint());
    LITHIFY_RETURN_NOT_OK(Finish());
    return std::shared_ptr<const Snapshot>(std::move(snap_));
  }

 private:
  // Commits newest first; inside a commit the last action wins, so lines are taken in
  // reverse ("keep only the newest reference for each logical file").
  Status ReplayCommits() {
    const auto& commits = snap_->segment_.commits;
    for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
      const std::string name = LogName(*it);
      LITHIFY_ASSIGN_OR_RETURN(Buffer data, snap_->fs_->ReadFile(it->path));
      LITHIFY_ASSIGN_OR_RETURN(auto actions, ParseCommitFile(AsStringView(data.view()), name));
      const bool is_latest = it == commits.rbegin() && it->name.version == snap_->version_;
      for (auto a = actions.rbegin(); a != actions.rend(); ++a) {
        if (is_latest) {
          if (auto* ci = std::get_if<CommitInfo>(&*a)) snap_->commit_info_ = *ci;
        }
        LITHIFY_RETURN_NOT_OK_CTX(Apply(std::move(*a), /*from_checkpoint=*/false), "{}", name);
      }
    }
    return Status::OK();
  }

  Status ReplayCheckpoint() {
    std::vector<Sidecar> sidecars;
    auto sink = [&](Action&& a) -> Status {
      if (auto* s = std::get_if<Sidecar>(&a)) {
        sidecars.push_back(std::move(*s));
        return Status::OK();
      }
      return Apply(std::move(a), /*from_checkpoint=*/true);
    };
    // Nearly every checkpoint row of a large table is a live add: size the live list
    // from the footer's row count once instead of growing it (each growth moves every
    // FileEntry and briefly holds two copies of the list).
    auto reserve = [&](int64_t rows) {
      auto& files = snap_->files_;
      size_t want = files.size() + static_cast<size_t>(std::max<int64_t>(rows, 0));
      if (want > files.capacity()) files.reserve(std::max(want, files.capacity() + files.capacity() / 2));
    };
    const bool read_stats = options_.stats != StatsMode::kNone;
    for (const LogFile& part : snap_->segment_.checkpoint) {
      if (part.name.type == LogFileType::kCheckpointUuidJson) {
        LITHIFY_RETURN_NOT_OK(ReadJsonCheckpoint(snap_->fs_, part.path, sink));
      } else {
        LITHIFY_RETURN_NOT_OK(ReadParquetCheckpoint(snap_->fs_, part.path, sink, read_stats, reserve));
      }
    }
    // "V2 Spec": file actions may live in sidecars under _delta_log/_sidecars.
    for (const Sidecar& s : sidecars) {
      LITHIFY_ASSIGN_OR_RETURN(std::string path, SidecarPath(s));
      LITHIFY_RETURN_NOT_OK(ReadParquetCheckpoint(snap_->fs_, path, sink, read_stats, reserve));
    }
    return Status::OK();
  }

  Result<std::string> SidecarPath(const Sidecar& s) {
    LITHIFY_ASSIGN_OR_RETURN(std::string decoded, DecodeActionPath(s.path));
    if (decoded.rfind("file:", 0) == 0 || (!decoded.empty() && decoded[0] == '/')) {
      LITHIFY_ASSIGN_OR_RETURN(std::string rel, RelativizeDataPath(snap_->table_root_, s.path));
      return io::JoinPath(snap_->table_root_, rel);
    }
    if (decoded.find("..") != std::string::npos) {
      return Status::Corruption("sidecar path '{}' escapes _delta_log/_sidecars", s.path);
    }
    return io::JoinPath(io::JoinPath(snap_->segment_.log_dir, "_sidecars"), decoded);
  }

  Status Apply(Action&& action, bool from_checkpoint) {
    return std::visit(
        [&](auto&& a) -> Status {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, AddFile>) return ApplyAdd(std::move(a), from_checkpoint);
          else if constexpr (std::is_same_v<T, RemoveFile>) return ApplyRemove(std::move(a), from_checkpoint);
          else if constexpr (std::is_same_v<T, Protocol>) {
            if (!protocol_) protocol_ = std::move(a);
          } else if constexpr (std::is_same_v<T, Metadata>) {
            if (!metadata_) metadata_ = std::move(a);
          } else if constexpr (std::is_same_v<T, Txn>) {
            snap_->txns_.try_emplace(a.app_id, a);
          } else if constexpr (std::is_same_v<T, DomainMetadata>) {
            if (domains_seen_.insert(a.domain).second && !a.removed) {
              snap_->domains_.emplace(a.domain, a);
            }
          }
          // commitInfo, cdc, checkpointMetadata: no part in replay.
          return Status::OK();
        },
        std::move(action));
  }

  // Whether (path, dv) is the newest reference to its logical file. Commit keys are
  // remembered; checkpoint keys are unique and only checked.
  bool FirstSighting(const std::string& path, const std::string& dv_id, bool from_checkpoint) {
    if (from_checkpoint) return !seen_.Contains(path, dv_id);
    return seen_.Insert(path, dv_id);
  }

  Status ApplyAdd(AddFile&& a, bool from_checkpoint) {
    std::string path;
    std::string dv_id = a.deletion_vector ? a.deletion_vector->UniqueId() : std::string();
    const bool plain = IsPlainRelativePath(a.path);
    if (plain) {
      path = std::move(a.path);  // RelativizeDataPath would return it unchanged; skip its copies
    } else {
      auto rel = RelativizeDataPath(snap_->table_root_, a.path);
      if (!rel.ok()) {
        if (!IsOutsideRoot(rel.status())) return rel.status().WithContext("add");
        // A file outside the table root is refused only when it is live: replay is
        // newest-first, so an add seen first is live; one removed (or re-added) by a
        // newer action under any canonical spelling of its path is not.
        if (!FirstSighting(OutsideRootKey(snap_->table_root_, a.path), dv_id, from_checkpoint)) {
          return Status::OK();
        }
        return rel.status().WithContext("add");
      }
      path = std::move(rel).value();
    }
    if (!FirstSighting(path, dv_id, from_checkpoint)) return Status::OK();
    // Built in place (a FileEntry is ~450 bytes); on error the load fails as a whole.
    table::FileEntry& f = snap_->files_.emplace_back();
    f.path = std::move(path);
    f.size = a.size;
    f.modification_time_ms = a.modification_time;
    f.partition_values = std::move(a.partition_values);
    std::optional<std::string>& stats = a.stats ? a.stats : a.stats_parsed;
    if (stats && options_.stats == StatsMode::kParsed) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(f.stats, ParseStats(*stats), "add '{}'", plain ? f.path : a.path);
    } else if (stats && options_.stats == StatsMode::kRaw) {
      f.stats.emplace().raw = std::move(*stats);
    }
    if (a.deletion_vector) f.deletion_vector = a.deletion_vector->ToRef();
    f.tags = std::move(a.tags);
    f.base_row_id = a.base_row_id;
    f.default_row_commit_version = a.default_row_commit_version;
    f.clustering_provider = std::move(a.clustering_provider);
    return Status::OK();
  }

  Status ApplyRemove(RemoveFile&& r, bool from_checkpoint) {
    auto rel = RelativizeDataPath(snap_->table_root_, r.path);
    std::string dv_id = r.deletion_vector ? r.deletion_vector->UniqueId() : std::string();
    if (!rel.ok()) {
      // A tombstone for a file outside the table (canonicalized-paths golden tables,
      // shallow clones) still cancels older adds of that file under its canonical key
      // (`/x`, `file:/x` and `file:///x` are one file), but is not kept: VACUUM ignores
      // files outside the table. Malformed escapes still fail.
      if (!IsOutsideRoot(rel.status())) return rel.status().WithContext("remove");
      FirstSighting(OutsideRootKey(snap_->table_root_, r.path), dv_id, from_checkpoint);
      return Status::OK();
    }
    std::string path = std::move(rel).value();
    if (!FirstSighting(path, dv_id, from_checkpoint)) return Status::OK();
    snap_->tombstones_.push_back(Tombstone{std::move(path), std::move(r)});
    return Status::OK();
  }

  Status Finish() {
    const std::string where = fmt::format("{}: version {}", snap_->segment_.log_dir, snap_->version_);
    if (!protocol_) return Status::Corruption("{}: no protocol action in the log", where);
    if (!metadata_) return Status::Corruption("{}: no metaData action in the log", where);
    snap_->protocol_ = std::move(*protocol_);
    snap_->metadata_ = std::move(*metadata_);
    LITHIFY_RETURN_NOT_OK_CTX(CheckReadSupported(snap_->protocol_), "{}", where);
    snap_->write_block_reason_ = WriteBlockReason(snap_->protocol_);
    // An absent schemaString reads as an empty struct, as in Delta's reference reader
    // (log-only golden tables such as deltalog-commit-info have one).
    snap_->schema_.kind = DataType::Kind::kStruct;
    if (!snap_->metadata_.schema_string.empty()) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(snap_->schema_, ParseSchema(snap_->metadata_.schema_string), "{}", where);
    }
    const Protocol& p = snap_->protocol_;
    bool mapping_supported = p.min_reader_version == 2 ||
                             (p.min_reader_version >= 3 && p.HasReaderFeature("columnMapping"));
    if (mapping_supported) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(snap_->column_mapping_mode_,
                                   ParseColumnMappingMode(snap_->metadata_.configuration), "{}", where);
    }
    SortFiles(&snap_->files_);
    std::sort(snap_->tombstones_.begin(), snap_->tombstones_.end(),
              [](const auto& a, const auto& b) { return a.path < b.path; });
    snap_->timestamp_ms_ = CommitTimestamp();
    return Status::OK();
  }

  int64_t CommitTimestamp() const {
    const LogSegment& seg = snap_->segment_;
    if (InCommitTimestampsEnabled(snap_->metadata_) && snap_->commit_info_ &&
        snap_->commit_info_->in_commit_timestamp) {
      return *snap_->commit_info_->in_commit_timestamp;
    }
    if (seg.latest_commit) return seg.latest_commit->mtime_ms;
    return seg.checkpoint.empty() ? 0 : seg.checkpoint.front().mtime_ms;
  }

  std::unique_ptr<Snapshot> snap_;
  LoadOptions options_;
  std::optional<Protocol> protocol_;
  std::optional<Metadata> metadata_;
  FileKeySet seen_;
  std::set<std::string> domains_seen_;
};

Status CheckReadSupported(const Protocol& p) {
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) {
      if (!Contains(kReadableFeatures, f)) {
        return Status::NotSupported("table requires reader feature '{}', which lithify does not support", f);
      }
    }
  }
  if (p.min_reader_version < 1 || p.min_reader_version > 3) {
    return Status::NotSupported("table requires reader version {} (lithify supports 1 to 3)",
                                p.min_reader_version);
  }
  return Status::OK();
}

std::string WriteBlockReason(const Protocol& p) {
  if (p.min_writer_version < 1 || p.min_writer_version > 7) {
    return fmt::format("writer version {} is unknown to lithify", p.min_writer_version);
  }
  if (p.writer_features) {
    for (const auto& f : *p.writer_features) {
      if (!Contains(kWritableFeatures, f)) return fmt::format("writer feature '{}' is not supported", f);
    }
  }
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) {
      if (!Contains(kWritableFeatures, f)) return fmt::format("reader feature '{}' is not supported for writing", f);
    }
  }
  return std::string();
}

std::optional<int64_t> Snapshot::NumLiveRecords() const {
  int64_t total = 0;
  for (const auto& f : files_) {
    auto n = f.num_live_records();
    if (!n) return std::nullopt;
    // numRecords comes from the log: hostile stats must not overflow the sum (UB).
    if (__builtin_add_overflow(total, *n, &total)) return std::nullopt;
  }
  return total;
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(io::FileSystem* fs, std::string table_root,
                                                       VersionSpec spec) {
  return Load(fs, std::move(table_root), spec, LoadOptions{});
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(io::FileSystem* fs, std::string table_root,
                                                       VersionSpec spec, LoadOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("Snapshot::Load: null FileSystem");
  while (table_root.size() > 1 && table_root.back() == '/') table_root.pop_back();
  std::optional<int64_t> version;
  switch (spec.kind) {
    case VersionSpec::Kind::kLatest:
      break;
    case VersionSpec::Kind::kVersion:
      if (spec.value < 0) return Status::InvalidArgument("version {} is negative", spec.value);
      version = spec.value;
      break;
    case VersionSpec::Kind::kTimestamp: {
      LITHIFY_ASSIGN_OR_RETURN(version, VersionAtTimestamp(fs, table_root, spec.value));
      break;
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(LogSegment segment, LoadLogSegment(fs, table_root, version));
  SnapshotBuilder builder(fs, std::move(table_root), options);
  return builder.Build(std::move(segment));
}

// ---- time travel by timestamp --------------------------------------------------------

namespace {

// The in-commit timestamp of a commit: its first action must be commitInfo with
// inCommitTimestamp ("In-Commit Timestamps").
Result<int64_t> ReadInCommitTimestamp(io::FileSystem* fs, const LogFile& f) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer data, fs->ReadFile(f.path));
  std::string_view text = AsStringView(data.view());
  std::string_view first = text.substr(0, text.find('\n'));
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto action, ParseActionLine(first), "{} line 1", LogName(f));
  const CommitInfo* ci = action ? std::get_if<CommitInfo>(&*action) : nullptr;
  if (ci == nullptr || !ci->in_commit_timestamp) {
    return Status::Corruption("{}: in-commit timestamps are enabled but the first action has no commitInfo.inCommitTimestamp",
                              LogName(f));
  }
  return *ci->in_commit_timestamp;
}

}  // namespace

Result<int64_t> VersionAtTimestamp(io::FileSystem* fs, const std::string& table_root,
                                   int64_t timestamp_ms) {
  LITHIFY_ASSIGN_OR_RETURN(auto latest, Snapshot::Load(fs, table_root));
  const std::string log_dir = io::JoinPath(table_root, "_delta_log");
  LITHIFY_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, log_dir));
  std::vector<LogFile> commits;
  for (auto& f : files) {
    if (f.name.type == LogFileType::kCommit) commits.push_back(f);
  }
  if (commits.empty()) return Status::NotFound("{}: no commit files to travel in time with", log_dir);

  // Versions at/after ICT enablement use inCommitTimestamp; earlier ones file times.
  int64_t ict_from = INT64_MAX;
  if (InCommitTimestampsEnabled(latest->metadata())) {
    ict_from = IctEnablementVersion(latest->metadata()).value_or(0);
  }
  auto split = std::partition_point(commits.begin(), commits.end(),
                                    [&](const LogFile& f) { return f.name.version < ict_from; });
  if (split != commits.end()) {
    LITHIFY_ASSIGN_OR_RETURN(int64_t first_ict, ReadInCommitTimestamp(fs, *split));
    if (timestamp_ms >= first_ict) {
      // ICTs increase strictly: binary search for the last commit with ict <= ts.
      size_t lo = split - commits.begin(), hi = commits.size() - 1;  // commits[lo] qualifies
      while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        LITHIFY_ASSIGN_OR_RETURN(int64_t t, ReadInCommitTimestamp(fs, commits[mid]));
        if (t <= timestamp_ms) lo = mid; else hi = mid - 1;
      }
      if (lo == commits.size() - 1) {
        LITHIFY_ASSIGN_OR_RETURN(int64_t last_t, ReadInCommitTimestamp(fs, commits.back()));
        if (timestamp_ms > last_t) {
          return Status::NotFound("{}: timestamp {} is after the latest commit (version {} at {})",
                                  log_dir, timestamp_ms, commits.back().name.version, last_t);
        }
      }
      return commits[lo].name.version;
    }
  }
  // File modification times, made strictly increasing as Delta does.
  std::vector<int64_t> ts;
  for (auto it = commits.begin(); it != split; ++it) {
    int64_t t = it->mtime_ms;
    if (!ts.empty() && t <= ts.back()) t = ts.back() + 1;
    ts.push_back(t);
  }
  if (ts.empty() || timestamp_ms < ts.front()) {
    return Status::NotFound("{}: timestamp {} is before the earliest commit (version {})", log_dir,
                            timestamp_ms, commits.front().name.version);
  }
  size_t idx = std::upper_bound(ts.begin(), ts.end(), timestamp_ms) - ts.begin() - 1;
  if (split == commits.end() && idx == ts.size() - 1 && timestamp_ms > ts.back()) {
    return Status::NotFound("{}: timestamp {} is after the latest commit (version {} at {})", log_dir,
                            timestamp_ms, commits.back().name.version, ts.back());
  }
  return commits[idx].name.version;
}

}  // namespace lithify::delta
