// LiveFileStore: the live files of a Delta snapshot in compact form.
//
// Replaying a large log must not pay for a table::FileEntry per live file (about 450
// bytes of struct, a heap path, a std::map node per partition value): most callers only
// count files, sum sizes or walk paths. The store keeps one fixed-size record per file
// (about 80 bytes) and every variable-length field (path, partition values, stats text)
// in an arena of large blocks; rare fields (deletion vector, tags, clustering provider)
// live in a side table. LiveFileView gives read access to one record without copying:
// string_views into the arena and a StringMapView over the encoded partition values.
// Snapshot::files() builds FileEntry values from the store on demand.
//
// Order: files are in replay order (the newest commit's adds first, then the
// checkpoint's in file order); it is deterministic for a given log but otherwise
// unspecified. Snapshot::files() is sorted by (path, DV unique id).
//
// Thread-safety: a store is written by one thread while the snapshot loads and is
// immutable afterwards; const access from many threads is safe. Views borrow the store
// and must not outlive it.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/large_alloc.h"
#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/table/file_entry.h"

namespace lithify::delta {

// One entry of a string map as the log stores it; value nullopt = JSON null.
struct MapEntryView {
  std::string_view key;
  std::optional<std::string_view> value;
};

// An add action as borrowed views (what the checkpoint extractor hands out without
// building an AddFile). Maps are the entries in stored order: a key may repeat, and the
// last occurrence wins, as in the JSON path. Views are valid only during the call that
// receives them.
struct AddFileView {
  std::string_view path;  // as in the log: a URI, percent-encoded
  std::span<const MapEntryView> partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string_view> stats;
  std::optional<std::string_view> stats_parsed;  // checkpoints: JSON rendering of stats_parsed
  std::span<const MapEntryView> tags;            // null values are dropped
  const DeletionVectorDescriptor* deletion_vector = nullptr;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string_view> clustering_provider;
  // What CheckpointReadOptions::add_path_hints said about `path` (0: nothing; the values
  // are the caller's own).
  uint32_t path_hint = 0;
};

// Views of `a` (borrowing it); the map entries are written to the scratch vectors.
AddFileView ViewOfAdd(const AddFile& a, std::vector<MapEntryView>* partition_scratch,
                      std::vector<MapEntryView>* tags_scratch);
// An owning AddFile with the same content (maps last-wins, null tags dropped).
AddFile ToAddFile(const AddFileView& v);

// ParseCommitFile with a fast path for the lines that dominate large commits: a single
// `add` or `remove` object of plain ASCII JSON with the usual fields. Such lines are
// parsed by a small scanner without building a JSON DOM; every other line (other
// actions, escapes beyond \" \\ \/ \b \f \n \r \t, non-ASCII bytes, nested unknown
// fields, nulls, negative or fractional numbers, duplicate keys, anything malformed) goes
// through ParseActionLine. The result, and every error, equals ParseCommitFile's.
// Stateless; thread-safe.
Result<std::vector<Action>> ParseCommitFileFast(std::string_view content, std::string_view name);

// A string -> optional string map encoded in bytes, sorted by key, keys unique.
// Encoding per entry: LEB128 key length, key, LEB128 (value length + 1) or 0 for null,
// value.
class StringMapView {
 public:
  struct Entry {
    std::string_view key;
    std::optional<std::string_view> value;
  };
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry*;
    using reference = const Entry&;
    Iterator() = default;
    Iterator(const char* pos, const char* end) : pos_(pos), end_(end) { Decode(); }
    const Entry& operator*() const { return entry_; }
    const Entry* operator->() const { return &entry_; }
    Iterator& operator++() {
      pos_ = next_;
      Decode();
      return *this;
    }
    Iterator operator++(int) {
      Iterator t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.pos_ == b.pos_; }

   private:
    void Decode();
    const char* pos_ = nullptr;
    const char* end_ = nullptr;
    const char* next_ = nullptr;
    Entry entry_;
  };

  StringMapView() = default;
  // `encoded` must come from EncodeStringMap (the store only holds such bytes).
  explicit StringMapView(std::string_view encoded) : enc_(encoded) {}
  bool empty() const { return enc_.empty(); }
  size_t size() const;
  Iterator begin() const { return Iterator(enc_.data(), enc_.data() + enc_.size()); }
  Iterator end() const { return Iterator(enc_.data() + enc_.size(), enc_.data() + enc_.size()); }
  // nullopt when `key` is absent; an engaged optional holding nullopt for a null value.
  std::optional<std::optional<std::string_view>> Find(std::string_view key) const;
  std::map<std::string, std::optional<std::string>> ToMap() const;
  // Entries with a null value are left out (tags).
  std::map<std::string, std::string> ToMapNoNulls() const;
  std::string_view encoded() const { return enc_; }

 private:
  std::string_view enc_;
};

// Appends the canonical encoding of `entries` (last occurrence of a key wins; with
// `drop_nulls`, null values are left out) to `out`.
void EncodeStringMap(std::span<const MapEntryView> entries, bool drop_nulls, std::string* out);

class LiveFileStore;


// Read access to one live file of a LiveFileStore.
class LiveFileView {
 public:
  // Decoded path relative to the table root (never starts with '/', no "." or "..").
  std::string_view path() const;
  int64_t size() const;
  int64_t modification_time_ms() const;
  // Partition column (physical name) -> value text; nullopt = null.
  StringMapView partition_values() const;
  // The stats JSON text as logged (or the rendering of a checkpoint's stats_parsed);
  // nullopt when the file has none or the snapshot was loaded with StatsMode::kNone.
  std::optional<std::string_view> stats_raw() const;
  // numRecords from the parsed statistics: known only when the snapshot was loaded with
  // StatsMode::kParsed (the default) and the file's stats have it.
  std::optional<int64_t> num_records() const;
  // num_records() minus the DV cardinality.
  std::optional<int64_t> num_live_records() const;
  // nullptr when the file has no deletion vector.
  const DeletionVectorDescriptor* deletion_vector() const;
  // The reconciliation key's DV part: "" when there is no DV.
  std::string_view dv_unique_id() const;
  StringMapView tags() const;
  std::optional<int64_t> base_row_id() const;
  std::optional<int64_t> default_row_commit_version() const;
  std::optional<std::string_view> clustering_provider() const;

  // An owning FileEntry; stats hold only `raw` (parsed statistics come from
  // Snapshot::files()).
  table::FileEntry ToFileEntry() const;

 private:
  friend class LiveFileStore;
  LiveFileView(const LiveFileStore* store, size_t index) : store_(store), index_(index) {}
  const LiveFileStore* store_;
  size_t index_;
};

class LiveFileStore {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = LiveFileView;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = LiveFileView;
    Iterator() = default;
    Iterator(const LiveFileStore* s, size_t i) : store_(s), index_(i) {}
    LiveFileView operator*() const { return LiveFileView(store_, index_); }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator t = *this;
      ++index_;
      return t;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }

   private:
    const LiveFileStore* store_ = nullptr;
    size_t index_ = 0;
  };

  LiveFileStore();
  ~LiveFileStore();
  LiveFileStore(LiveFileStore&&) noexcept;
  LiveFileStore& operator=(LiveFileStore&&) noexcept;
  LiveFileStore(const LiveFileStore&) = delete;
  LiveFileStore& operator=(const LiveFileStore&) = delete;

  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  LiveFileView operator[](size_t i) const { return LiveFileView(this, i); }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, records_.size()); }

  // Sizes the record table for `n` more files (a hint; it never shrinks).
  void Reserve(size_t n);

  // Appends a live file: `path` is its decoded relative path, `add` the action (its
  // path is not used), `stats` the text to keep (nullopt: none), `num_records` the
  // parsed count when known. Every byte is copied. InvalidArgument for a field longer
  // than 4 GiB (the record holds 32-bit lengths).
  Status Append(std::string_view path, const AddFileView& add, std::optional<std::string_view> stats,
                std::optional<int64_t> num_records);

  // Indices of the files sorted by (path, DV unique id).
  std::vector<uint32_t> SortedOrder() const;
  // `indices` (each below size()) sorted by (path, DV unique id): the order
  // SortedOrder() gives them, at the cost of sorting only these (a scan's kept files).
  std::vector<uint32_t> SortedOrder(std::vector<uint32_t> indices) const;
  // Bytes held (records, arena, side table); for tests and benchmarks.
  size_t MemoryUsage() const;

 private:
  friend class LiveFileView;
  // One live file. The variable-length fields are consecutive in the arena at `blob`:
  // path, encoded partition values, stats text.
  struct Record {
    const char* blob = nullptr;
    uint32_t path_len = 0;
    uint32_t pv_len = 0;
    uint32_t stats_len = 0;
    uint32_t extra = 0;  // 1 + index into extras_; 0 = no rare fields
    int64_t size = 0;
    int64_t modification_time = 0;
    int64_t base_row_id = 0;
    int64_t default_row_commit_version = 0;
    int64_t num_records = 0;
    uint8_t flags = 0;  // kHas* bits
  };
  static constexpr uint8_t kHasStats = 1, kHasBaseRowId = 2, kHasRowCommitVersion = 4,
                           kHasNumRecords = 8;
  // Fields few files have.
  struct Extra {
    std::optional<DeletionVectorDescriptor> dv;
    std::string dv_unique_id;
    std::string_view tags;  // encoded, in the arena
    std::optional<std::string_view> clustering_provider;  // in the arena
  };
  struct Arena;
  char* Allocate(size_t n);

  const Record& record(size_t i) const { return records_[i]; }
  const Extra* extra(size_t i) const;

  std::vector<Record, LargeAllocator<Record>> records_;
  std::vector<Extra> extras_;
  std::unique_ptr<Arena> arena_;
};

}  // namespace lithify::delta
