// Snapshot loading: replay and reconciliation (PROTOCOL.md "Action Reconciliation"),
// the protocol gate ("Table Features") and time travel.
#include "lithify/delta/snapshot.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <span>
#include <string_view>
#include <thread>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"
#include "lithify/delta/checkpoint.h"
#include "lithify/delta/stats.h"
#include "lithify/io/uri.h"
#include "lithify/delta/table_features.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

namespace {

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
        keys_.emplace_back(Store(path), Store(dv_id));
        s = Slot{h, static_cast<uint32_t>(keys_.size())};
        AddToFilter(h);
        return true;
      }
      if (s.hash == h && Equal(s.index, path, dv_id)) return false;
    }
  }
  bool Contains(std::string_view path, std::string_view dv_id) const {
    return Contains(Hash(path, dv_id), path, dv_id);
  }
  // The hash Contains(path, "") uses, never 0 (a pure function: any thread).
  static uint64_t KeyHash(std::string_view path) {
    const uint64_t h = Hash(path, std::string_view());
    return h == 0 ? 1 : h;
  }
  // Contains(paths[i], "") into out[i] for every i with hashes[i] != 0 (KeyHash of the
  // path), fetching the filter's memory for a group of paths before probing any: over a
  // million checkpoint paths the probes then overlap their cache misses instead of
  // waiting for each in turn.
  void ContainsMany(std::span<const std::string_view> paths, std::span<const uint64_t> hashes, uint8_t* out) const {
    constexpr size_t kGroup = 16;
    for (size_t base = 0; base < paths.size(); base += kGroup) {
      const size_t n = std::min(kGroup, paths.size() - base);
      if (!filter_.empty()) {
        for (size_t i = base; i < base + n; ++i) __builtin_prefetch(&filter_[(hashes[i] & filter_mask_) >> 6]);
      }
      for (size_t i = base; i < base + n; ++i) {
        if (hashes[i] == 0) continue;
        // KeyHash folds a hash of 0 into 1: recompute the real one for those.
        const uint64_t h = hashes[i] == 1 ? Hash(paths[i], std::string_view()) : hashes[i];
        out[i] = Contains(h, paths[i], std::string_view());
      }
    }
  }

 private:
  bool Contains(uint64_t h, std::string_view path, std::string_view dv_id) const {
    if (keys_.empty()) return false;
    if (!MayContain(h)) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == 0) return false;
      if (s.hash == h && Equal(s.index, path, dv_id)) return true;
    }
  }

  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0;  // 1 + index into keys_; 0 = empty
  };
  static uint64_t Hash(std::string_view path, std::string_view dv_id) {
    uint64_t h = HashBytes(path);
    if (!dv_id.empty()) h ^= HashBytes(dv_id) * 0x9e3779b97f4a7c15ull + 0x7f4a7c15;
    return h;
  }
  // A multiply-mix hash over 16 bytes per step in two independent lanes (about a third
  // of std::hash's instructions on ~90-byte paths; a million checkpoint paths are
  // hashed). Equality is always verified, so quality only affects probe lengths.
  static uint64_t HashBytes(std::string_view s) {
    constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ull, kMul2 = 0xbf58476d1ce4e5b9ull;
    const char* p = s.data();
    size_t n = s.size();
    uint64_t a = n * kMul1, b = ~n * kMul2;
    auto load = [](const char* q) {
      uint64_t w;
      std::memcpy(&w, q, 8);
      return w;
    };
    auto mix = [](uint64_t h, uint64_t w, uint64_t mul) {
      h = (h ^ w) * mul;
      return h ^ (h >> 29);
    };
    for (; n >= 16; p += 16, n -= 16) {
      a = mix(a, load(p), kMul2);
      b = mix(b, load(p + 8), kMul1);
    }
    if (n >= 8) {
      a = mix(a, load(p), kMul2);
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      b = mix(b, w, kMul1);
    }
    uint64_t h = a ^ (b * 0x94d049bb133111ebull);  // splitmix64's finalizer
    h ^= h >> 30;
    h *= kMul2;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  }
  bool Equal(uint32_t index, std::string_view path, std::string_view dv_id) const {
    const auto& k = keys_[index - 1];  // (path, dv id) views into blocks_
    return k.first == path && k.second == dv_id;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    mask_ = slots_.size() - 1;
    filter_.assign(slots_.size() / 8, 0);  // 16 bits per key at most half load
    filter_mask_ = filter_.size() * 64 - 1;
    for (const Slot& s : old) {
      if (s.index == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].index != 0) i = (i + 1) & mask_;
      slots_[i] = s;
      AddToFilter(s.hash);
    }
  }
  // A two-bit Bloom filter over the hashes (false positives about 1.5%): checkpoint
  // lookups are nearly all misses, and the filter is an eighth of the slot table, so it
  // stays in cache where a slot probe would miss it (13% of the replay without it).
  static uint64_t Bit2(uint64_t h) { return (h >> 32) ^ (h >> 17); }
  void AddToFilter(uint64_t h) {
    filter_[(h & filter_mask_) >> 6] |= uint64_t{1} << (h & 63);
    uint64_t b = Bit2(h);
    filter_[(b & filter_mask_) >> 6] |= uint64_t{1} << (b & 63);
  }
  bool MayContain(uint64_t h) const {
    uint64_t b = Bit2(h);
    return (filter_[(h & filter_mask_) >> 6] >> (h & 63) & 1) && (filter_[(b & filter_mask_) >> 6] >> (b & 63) & 1);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<uint64_t> filter_;
  uint64_t filter_mask_ = 0;
  // Key bytes live in blocks of at least 64 KiB (one allocation per block, not two per
  // key: a commit-heavy log inserts tens of thousands of keys).
  std::string_view Store(std::string_view bytes) {
    if (bytes.empty()) return std::string_view();
    if (bytes.size() > block_left_) {
      const size_t size = std::max<size_t>(size_t{64} << 10, bytes.size());
      blocks_.push_back(std::make_unique<char[]>(size));
      block_pos_ = blocks_.back().get();
      block_left_ = size;
    }
    std::memcpy(block_pos_, bytes.data(), bytes.size());
    std::string_view stored(block_pos_, bytes.size());
    block_pos_ += bytes.size();
    block_left_ -= bytes.size();
    return stored;
  }
  std::vector<std::pair<std::string_view, std::string_view>> keys_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_pos_ = nullptr;
  size_t block_left_ = 0;
};

// Whether RelativizeDataPath(root, p) == p for any root: no scheme (no ':'), no percent
// escape, not absolute, and no empty, "." or ".." segment. Almost every path a writer
// logs is like this, and the check is much cheaper than decoding and re-joining.
bool IsPlainRelativePathExact(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  // memchr scans are vectorized: this runs once per checkpoint add.
  if (std::memchr(p.data(), '%', p.size()) != nullptr || std::memchr(p.data(), ':', p.size()) != nullptr) {
    return false;
  }
  size_t seg = 0;  // start of the current segment
  while (true) {
    const void* hit = std::memchr(p.data() + seg, '/', p.size() - seg);
    size_t end = hit == nullptr ? p.size() : static_cast<const char*>(hit) - p.data();
    std::string_view s = p.substr(seg, end - seg);
    if (s.empty() || s == "." || s == "..") return false;
    if (end == p.size()) return true;
    seg = end + 1;
  }
}

// IsPlainRelativePathExact with one vectorized pass for the usual path: no '%' or ':',
// and no '/' followed by '/' or '.' (the only places an empty, "." or ".." segment can
// start, besides a leading '.'). Paths that fail the quick test get the exact one.
bool IsPlainRelativePath(std::string_view p) {
#if defined(__SSE2__)
  const size_t n = p.size();
  if (n < 17 || p.front() == '/' || p.front() == '.' || p.back() == '/') return IsPlainRelativePathExact(p);
  const char* s = p.data();
  const __m128i pct = _mm_set1_epi8('%'), colon = _mm_set1_epi8(':'), slash = _mm_set1_epi8('/'),
                dot = _mm_set1_epi8('.');
  // Blocks at i and i + 1 (so "/x" pairs never straddle); the last block is re-aligned
  // to the end, overlapping the previous one.
  for (size_t i = 0;; i += 16) {
    if (i + 17 > n) i = n - 17;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 1));
    const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, pct), _mm_cmpeq_epi8(v, colon)),
                                     _mm_and_si128(_mm_cmpeq_epi8(v, slash),
                                                   _mm_or_si128(_mm_cmpeq_epi8(next, slash), _mm_cmpeq_epi8(next, dot))));
    // The byte after the last block (s[n - 1]) can only be '%' or ':' here.
    if (_mm_movemask_epi8(bad) != 0) return IsPlainRelativePathExact(p);
    if (i + 17 == n) return s[n - 1] != '%' && s[n - 1] != ':';
  }
#else
  return IsPlainRelativePathExact(p);
#endif
}

// Whether RelativizeDataPath failed because the path lies outside the table root (as
// opposed to a malformed escape or a path naming no file).
bool IsOutsideRoot(const Status& st) {
  const std::string& m = st.message();
  return m.find("outside the table root") != std::string::npos ||
         m.find("escapes the table root") != std::string::npos;
}

// "_delta_log/00000000000000000012.json" for messages.
std::string LogName(const LogFile& f) {
  size_t slash = f.path.rfind('/');
  return "_delta_log/" + (slash == std::string::npos ? f.path : f.path.substr(slash + 1));
}

// By path. A Tombstone is a large struct: sort indices, then move each once.
void SortTombstones(std::vector<Tombstone>* tombstones) {
  std::vector<Tombstone>& t = *tombstones;
  std::vector<uint32_t> order(t.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t[a].path < t[b].path; });
  std::vector<Tombstone> sorted;
  sorted.reserve(t.size());
  for (uint32_t i : order) sorted.push_back(std::move(t[i]));
  t = std::move(sorted);
}

int EffectiveThreads(int requested) {
  if (requested > 0) return requested;
  return std::thread::hardware_concurrency() > 1 ? 2 : 1;
}

bool InCommitTimestampsEnabled(const Metadata& m) {
  return IsExactlyTrue(m.configuration, prop::kEnableInCommitTimestamps);
}

std::optional<int64_t> IctEnablementVersion(const Metadata& m) {
  auto it = m.configuration.find(prop::kInCommitTimestampEnablementVersion.key());
  if (it == m.configuration.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

// numRecords of a stats text in the layout every writer we know uses: the first member
// of the top-level object, a non-negative integer. nullopt for anything else (the caller
// then parses the whole text), so a column named "numRecords" inside minValues or an
// unusual layout can never be misread.
static std::optional<int64_t> LeadingNumRecords(std::string_view s) {
  size_t i = 0;
  auto ws = [&] { while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i; };
  auto eat = [&](std::string_view t) {
    if (s.substr(i, t.size()) != t) return false;
    i += t.size();
    return true;
  };
  ws();
  if (!eat("{")) return std::nullopt;
  ws();
  if (!eat("\"numRecords\"")) return std::nullopt;
  ws();
  if (!eat(":")) return std::nullopt;
  ws();
  int64_t n = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (digits >= 18) return std::nullopt;  // beyond any real row count: let the parser judge
    n = n * 10 + (s[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  ws();
  if (i >= s.size() || (s[i] != ',' && s[i] != '}')) return std::nullopt;
  return n;
}

// FileEntry values of every live file, sorted by (path, DV unique id); `parsed`, when
// given, holds the parsed statistics of file i, moved into its entry.
static std::vector<table::FileEntry> BuildFileEntries(const LiveFileStore& live,
                                                      std::vector<std::optional<table::FileStats>>* parsed) {
  std::vector<table::FileEntry> out;
  out.reserve(live.size());
  for (uint32_t i : live.SortedOrder()) {
    out.push_back(live[i].ToFileEntry());
    if (parsed != nullptr && i < parsed->size()) out.back().stats = std::move((*parsed)[i]);
  }
  return out;
}

// Accumulates reconciled state while replaying newest-first.
class SnapshotBuilder {
 public:
  SnapshotBuilder(io::FileSystem* fs, std::string table_root, LoadOptions options = {})
      : snap_(new Snapshot()), options_(options) {
    snap_->options_ = options;
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
  // reverse ("keep only the newest reference for each logical file"). Parsing is most of
  // the cost and independent per file; applying must go in order. With 2 threads a
  // helper task on the CPU pool parses commits ahead (at most kCommitsAhead beyond the
  // one being applied), and the loading thread parses the next one itself whenever it
  // would otherwise wait, so the helper takes most of the parsing while this thread
  // applies. Actions are applied in order and a commit's parse error surfaces when its
  // turn comes, so the result (and the first error) is the sequential one.
  static constexpr size_t kCommitsAhead = 3;
  Status ReplayCommits() {
    const auto& commits = snap_->segment_.commits;
    const size_t n = commits.size();
    // The k-th commit to apply (newest first).
    auto commit = [&](size_t k) -> const LogFile& { return commits[n - 1 - k]; };
    if (EffectiveThreads(options_.threads) < 2 || n < 2) {
      for (size_t k = 0; k < n; ++k) LITHIFY_RETURN_NOT_OK(ApplyCommit(commit(k), ReadCommit(commit(k))));
      return Status::OK();
    }
    std::vector<std::optional<Result<std::vector<Action>>>> parsed(n);
    std::mutex mu;
    std::condition_variable cv;
    size_t next_parse = 0;  // the next commit nobody has claimed to parse
    size_t applying = 0;    // the commit being applied (or waited for)
    bool stop = false;
    bool helper_queued = false;  // a helper task is queued or running
    // Claims and parses one commit (mu held on entry and exit).
    auto parse_one = [&](std::unique_lock<std::mutex>& lock) {
      const size_t k = next_parse++;
      lock.unlock();
      Result<std::vector<Action>> r = ReadCommit(commit(k));
      lock.lock();
      parsed[k].emplace(std::move(r));
      cv.notify_all();
    };
    // The helper parses while the window allows, then ends rather than block a pool
    // thread; the loading thread queues it again when the window moves. A claimed commit
    // is always being parsed by a running thread, so waiting for it cannot deadlock, and
    // a helper still queued at the end runs on this thread in Wait and sees `stop`.
    TaskGroup helper(CpuPool(), 1);
    auto help = [&] {
      std::unique_lock<std::mutex> lock(mu);
      while (!stop && next_parse < n && next_parse <= applying + kCommitsAhead) parse_one(lock);
      helper_queued = false;
    };
    Status st;
    for (size_t k = 0; k < n && st.ok(); ++k) {
      Result<std::vector<Action>> r = std::vector<Action>();
      {
        std::unique_lock<std::mutex> lock(mu);
        applying = k;
        if (!helper_queued && next_parse < n) {
          helper_queued = true;
          helper.Run(help);
        }
        while (!parsed[k]) {
          if (next_parse < n && next_parse <= k + kCommitsAhead) {
            parse_one(lock);  // rather than wait
          } else {
            cv.wait(lock);
          }
        }
        r = std::move(*parsed[k]);
        parsed[k].reset();
      }
      st = ApplyCommit(commit(k), std::move(r));
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    (void)helper.Wait();
    return st;
  }

  // Stateless (safe on any thread).
  Result<std::vector<Action>> ReadCommit(const LogFile& commit) const {
    LITHIFY_ASSIGN_OR_RETURN(Buffer data, snap_->fs_->ReadFile(commit.path));
    return ParseCommitFileFast(AsStringView(data.view()), LogName(commit));
  }

  Status ApplyCommit(const LogFile& commit, Result<std::vector<Action>> parsed) {
    if (!parsed.ok()) return parsed.status();
    std::vector<Action>& actions = *parsed;
    const std::string name = LogName(commit);
    const bool is_latest = &commit == &snap_->segment_.commits.back() && commit.name.version == snap_->version_;
    for (auto a = actions.rbegin(); a != actions.rend(); ++a) {
      if (is_latest) {
        if (auto* ci = std::get_if<CommitInfo>(&*a)) snap_->commit_info_ = *ci;
      }
      LITHIFY_RETURN_NOT_OK_CTX(Apply(std::move(*a), /*from_checkpoint=*/false), "{}", name);
    }
    return Status::OK();
  }

  CheckpointReadOptions CheckpointOptions() {
    CheckpointReadOptions read;
    read.read_stats = options_.stats != StatsMode::kNone;
    // Nearly every checkpoint row of a large table is a live add: size the record table
    // from the footer's row count once instead of growing it.
    read.on_rows = [this](int64_t rows) { snap_->live_.Reserve(static_cast<size_t>(std::max<int64_t>(rows, 0))); };
    // Adds arrive as views into the decoded batch: only the store copies their bytes.
    read.on_add = [this](const AddFileView& a) { return ApplyAdd(a, /*from_checkpoint=*/true); };
    // The commit keys are complete when the checkpoint's rows are delivered and only
    // looked up while they are (checkpoint keys are unique, so none is added): a batch's
    // common adds -- a plain relative path, no DV -- are settled in one pass ahead of
    // ApplyAdd, their filter lookups overlapped.
    read.add_path_keys = &CheckpointPathKeys;
    read.add_path_hints = [this](std::span<const std::string_view> paths, std::span<const uint64_t> keys,
                                 std::span<uint32_t> hints) { CheckpointPathHints(paths, keys, hints); };
    read.threads = options_.threads;
    return read;
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
    const CheckpointReadOptions read = CheckpointOptions();
    for (const LogFile& part : snap_->segment_.checkpoint) {
      if (part.name.type == LogFileType::kCheckpointUuidJson) {
        LITHIFY_RETURN_NOT_OK(ReadJsonCheckpoint(snap_->fs_, part.path, sink));
      } else {
        LITHIFY_RETURN_NOT_OK(ReadParquetCheckpoint(snap_->fs_, part.path, sink, read));
      }
    }
    // "V2 Spec": file actions may live in sidecars under _delta_log/_sidecars.
    for (const Sidecar& s : sidecars) {
      LITHIFY_ASSIGN_OR_RETURN(std::string path, SidecarPath(s));
      LITHIFY_RETURN_NOT_OK(ReadParquetCheckpoint(snap_->fs_, path, sink, read));
    }
    return Status::OK();
  }

  Result<std::string> SidecarPath(const Sidecar& s) {
    LITHIFY_ASSIGN_OR_RETURN(std::string decoded, DecodeActionPath(s.path));
    if (io::HasScheme(decoded) || (!decoded.empty() && decoded[0] == '/')) {
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
          if constexpr (std::is_same_v<T, AddFile>) {
            return ApplyAdd(ViewOfAdd(a, &pv_scratch_, &tags_scratch_), from_checkpoint);
          }
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

  // Checkpoint add path classification (CheckpointReadOptions::add_path_keys / hints):
  // the keys (on the decoding thread) say whether a path is plain relative -- its own
  // reconciliation key -- and hash it; the hints (here) whether a commit already holds
  // the key (path, no DV).
  static constexpr uint32_t kPlainUnseen = 1, kPlainSeen = 2;
  static void CheckpointPathKeys(std::span<const std::string_view> paths, std::span<uint64_t> keys) {
    for (size_t i = 0; i < paths.size(); ++i) {
      keys[i] = !paths[i].empty() && IsPlainRelativePath(paths[i]) ? FileKeySet::KeyHash(paths[i]) : 0;
    }
  }
  void CheckpointPathHints(std::span<const std::string_view> paths, std::span<const uint64_t> keys,
                           std::span<uint32_t> hints) {
    seen_scratch_.assign(paths.size(), 0);
    seen_.ContainsMany(paths, keys, seen_scratch_.data());
    for (size_t i = 0; i < paths.size(); ++i) {
      if (keys[i] != 0) hints[i] = seen_scratch_[i] ? kPlainSeen : kPlainUnseen;
    }
  }

  // Whether (path, dv) is the newest reference to its logical file. Commit keys are
  // remembered; checkpoint keys are unique and only checked.
  bool FirstSighting(std::string_view path, std::string_view dv_id, bool from_checkpoint) {
    if (from_checkpoint) return !seen_.Contains(path, dv_id);
    return seen_.Insert(path, dv_id);
  }

  Status ApplyAdd(const AddFileView& a, bool from_checkpoint) {
    if (from_checkpoint && a.deletion_vector == nullptr && (a.path_hint == kPlainUnseen || a.path_hint == kPlainSeen)) {
      // Settled by ClassifyCheckpointPaths: the path is its own key.
      if (a.path_hint == kPlainSeen) return Status::OK();
      return AppendLive(a.path, a);
    }
    std::string dv_id = a.deletion_vector ? a.deletion_vector->UniqueId() : std::string();
    std::string_view path;
    std::string relativized;
    if (IsPlainRelativePath(a.path)) {
      path = a.path;  // RelativizeDataPath would return it unchanged; skip its copies
    } else {
      auto rel = RelativizeDataPath(snap_->table_root_, a.path);
      if (!rel.ok()) {
        if (!IsOutsideRoot(rel.status())) return rel.status().WithContext("add");
        // Replay is newest-first, so an add seen first is live; one removed (or re-added)
        // by a newer action under any canonical spelling of its path is not.
        std::string key = OutsideRootKey(snap_->table_root_, a.path);
        if (!FirstSighting(key, dv_id, from_checkpoint)) return Status::OK();
        // PROTOCOL.md lets an add name "an absolute path to a file that should be added
        // to the table" (shallow clones name the source table's files): it stays live
        // under its canonical absolute key (io::IsAbsoluteLocation). A relative path
        // that escapes the root with ".." is no such thing and is refused.
        if (!IsAbsoluteActionPath(a.path)) return rel.status().WithContext("add");
        return AppendLive(key, a);
      }
      relativized = std::move(rel).value();
      path = relativized;
    }
    if (!FirstSighting(path, dv_id, from_checkpoint)) return Status::OK();
    return AppendLive(path, a);
  }

  // Adds the newest reference to a logical file (`path` relative) to the store, with the
  // statistics the options keep.
  Status AppendLive(std::string_view path, const AddFileView& a) {
    const std::optional<std::string_view>& stats = a.stats ? a.stats : a.stats_parsed;
    std::optional<std::string_view> keep;
    std::optional<int64_t> num_records;
    if (stats && options_.stats == StatsMode::kParsed) {
      // Parsed now so that malformed stats fail the load; files() takes them over.
      LITHIFY_ASSIGN_OR_RETURN_CTX(table::FileStats fs, ParseStats(*stats), "add '{}'", a.path);
      num_records = fs.num_records;
      parsed_stats_.resize(snap_->live_.size());
      parsed_stats_.push_back(std::move(fs));
      keep = stats;
    } else if (stats && options_.stats == StatsMode::kRaw) {
      keep = stats;
    } else if (stats && options_.stats == StatsMode::kNumRecords) {
      num_records = LeadingNumRecords(*stats);
      if (!num_records) {
        LITHIFY_ASSIGN_OR_RETURN_CTX(table::FileStats fs, ParseStats(*stats), "add '{}'", a.path);
        num_records = fs.num_records;
      }
    }
    // On error the load fails as a whole.
    return snap_->live_.Append(path, a, keep, num_records);
  }

  Status ApplyRemove(RemoveFile&& r, bool from_checkpoint) {
    // A plain relative path is its own relativization (see IsPlainRelativePath).
    auto rel = IsPlainRelativePath(r.path) ? Result<std::string>(r.path) : RelativizeDataPath(snap_->table_root_, r.path);
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
    snap_->timestamp_ms_ = CommitTimestamp();
    if (options_.stats == StatsMode::kParsed) {
      // Build files() now, moving the parsed statistics in (they were validated above).
      parsed_stats_.resize(snap_->live_.size());
      std::call_once(snap_->files_once_, [&] { snap_->files_ = BuildFileEntries(snap_->live_, &parsed_stats_); });
    }
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
  // kParsed: the parsed statistics of live file i (aligned with the store).
  std::vector<std::optional<table::FileStats>> parsed_stats_;
  std::vector<MapEntryView> pv_scratch_, tags_scratch_;
  std::vector<uint8_t> seen_scratch_;
};

Status CheckReadSupported(const Protocol& p) {
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) {
      if (!IsReadableFeature(f)) {
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
      if (!IsWritableFeature(f)) return fmt::format("writer feature '{}' is not supported", f);
    }
  }
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) {
      if (!IsWritableFeature(f)) return fmt::format("reader feature '{}' is not supported for writing", f);
    }
  }
  return std::string();
}

std::optional<int64_t> Snapshot::NumLiveRecords() const {
  // numRecords is known only from parsed statistics (StatsMode::kParsed).
  int64_t total = 0;
  for (LiveFileView f : live_) {
    auto n = f.num_live_records();
    if (!n) return std::nullopt;
    // numRecords comes from the log: hostile stats must not overflow the sum (UB).
    if (__builtin_add_overflow(total, *n, &total)) return std::nullopt;
  }
  return total;
}

const std::vector<Tombstone>& Snapshot::tombstones() const {
  std::call_once(tombstones_once_, [this] { SortTombstones(&tombstones_); });
  return tombstones_;
}

const std::vector<table::FileEntry>& Snapshot::files() const {
  std::call_once(files_once_, [this] { files_ = BuildFileEntries(live_, nullptr); });
  return files_;
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
    case VersionSpec::Kind::kRef:
      return Status::InvalidArgument("{}: a Delta table has no refs (branches or tags); '{}' names none", table_root,
                                     spec.ref);
  }
  LITHIFY_ASSIGN_OR_RETURN(LogSegment segment, LoadLogSegment(fs, table_root, version));
  SnapshotBuilder builder(fs, std::move(table_root), options);
  return builder.Build(std::move(segment));
}

// ---- time travel by timestamp --------------------------------------------------------

namespace {

// "2026-01-01T00:00:00.000Z" for a time in milliseconds since the epoch, as errors show
// it (a raw count for one too far out for the calendar arithmetic).
std::string MillisText(int64_t ms) {
  if (ms > INT64_MAX / 1000 || ms < INT64_MIN / 1000) return fmt::format("{} ms since the epoch", ms);
  std::string micros = IsoTimestampMicrosText(ms * 1000, true);  // ...SS.ffffffZ
  return micros.substr(0, micros.size() - 4) + "Z";
}

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
                                  log_dir, MillisText(timestamp_ms), commits.back().name.version,
                                  MillisText(last_t));
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
    return Status::NotFound("{}: timestamp {} is before the earliest commit (version {}{})", log_dir,
                            MillisText(timestamp_ms), commits.front().name.version,
                            ts.empty() ? std::string() : " at " + MillisText(ts.front()));
  }
  size_t idx = std::upper_bound(ts.begin(), ts.end(), timestamp_ms) - ts.begin() - 1;
  if (split == commits.end() && idx == ts.size() - 1 && timestamp_ms > ts.back()) {
    return Status::NotFound("{}: timestamp {} is after the latest commit (version {} at {})", log_dir,
                            MillisText(timestamp_ms), commits.back().name.version, MillisText(ts.back()));
  }
  return commits[idx].name.version;
}

}  // namespace lithify::delta
