// Compact live-file store (see live_files.h).
#include "lithify/delta/live_files.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#ifdef __linux__
#endif

#include "lithify/base/text.h"
#include "lithify/delta/action_fields.h"

namespace lithify::delta {

namespace {

// The encoding is produced by EncodeStringMap only, so it is trusted; the bound check
// just keeps a bug from reading past the map.
uint64_t GetVarint(const char** pos, const char* end) {
  uint64_t v = 0;
  int shift = 0;
  while (*pos < end && shift < 64) {
    uint8_t b = static_cast<uint8_t>(*(*pos)++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
    shift += 7;
  }
  return v;
}

}  // namespace


// ---- AddFile <-> AddFileView -----------------------------------------------------

AddFileView ViewOfAdd(const AddFile& a, std::vector<MapEntryView>* partition_scratch,
                      std::vector<MapEntryView>* tags_scratch) {
  partition_scratch->clear();
  for (const auto& [k, v] : a.partition_values) {
    partition_scratch->push_back({k, v ? std::optional<std::string_view>(*v) : std::nullopt});
  }
  tags_scratch->clear();
  for (const auto& [k, v] : a.tags) tags_scratch->push_back({k, std::string_view(v)});
  AddFileView v;
  v.path = a.path;
  v.partition_values = *partition_scratch;
  v.size = a.size;
  v.modification_time = a.modification_time;
  v.data_change = a.data_change;
  if (a.stats) v.stats = *a.stats;
  if (a.stats_parsed) v.stats_parsed = *a.stats_parsed;
  v.tags = *tags_scratch;
  v.deletion_vector = a.deletion_vector ? &*a.deletion_vector : nullptr;
  v.base_row_id = a.base_row_id;
  v.default_row_commit_version = a.default_row_commit_version;
  if (a.clustering_provider) v.clustering_provider = *a.clustering_provider;
  return v;
}

AddFile ToAddFile(const AddFileView& v) {
  AddFile a;
  a.path = std::string(v.path);
  for (const MapEntryView& e : v.partition_values) {
    a.partition_values.insert_or_assign(std::string(e.key),
                                        e.value ? std::optional<std::string>(std::string(*e.value))
                                                : std::nullopt);
  }
  a.size = v.size;
  a.modification_time = v.modification_time;
  a.data_change = v.data_change;
  if (v.stats) a.stats = std::string(*v.stats);
  if (v.stats_parsed) a.stats_parsed = std::string(*v.stats_parsed);
  // Tags: a null value drops the key, even one an earlier entry set (JSON: the map is
  // built last-wins first, nulls dropped after).
  std::map<std::string, std::optional<std::string>> tags;
  for (const MapEntryView& e : v.tags) {
    tags.insert_or_assign(std::string(e.key),
                          e.value ? std::optional<std::string>(std::string(*e.value)) : std::nullopt);
  }
  for (auto& [k, t] : tags) {
    if (t) a.tags.emplace(k, std::move(*t));
  }
  if (v.deletion_vector) a.deletion_vector = *v.deletion_vector;
  a.base_row_id = v.base_row_id;
  a.default_row_commit_version = v.default_row_commit_version;
  if (v.clustering_provider) a.clustering_provider = std::string(*v.clustering_provider);
  return a;
}

// ---- fast commit lines ------------------------------------------------------------

namespace {

// A strict scanner over one line. Every method returns false when the input is outside
// the subset it handles; the caller then uses ParseActionLine, which decides.
class LineScanner {
 public:
  explicit LineScanner(std::string_view line) : p_(line.data()), e_(line.data() + line.size()) {}

  void Ws() {
    while (p_ < e_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  bool Lit(char c) {
    Ws();
    if (p_ < e_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    Ws();
    return p_ == e_;
  }
  char Peek() {
    Ws();
    return p_ < e_ ? *p_ : '\0';
  }
  // A key without escapes.
  bool Key(std::string_view* out) {
    if (!Lit('"')) return false;
    const char* start = p_;
    while (p_ < e_ && *p_ != '"') {
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++p_;
    }
    if (p_ == e_) return false;
    *out = std::string_view(start, p_ - start);
    ++p_;
    return Lit(':');
  }
  // A string value, with the simple escapes decoded.
  bool Str(std::string* out) {
    if (!Lit('"')) return false;
    out->clear();
    const char* run = p_;
    while (true) {
      if (p_ == e_) return false;
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') {
        ++p_;
        continue;
      }
      out->append(run, p_ - run);
      if (p_ + 1 == e_) return false;
      const int esc = JsonSimpleEscape(p_[1]);
      if (esc < 0) return false;  // \u and invalid escapes: the slow path
      out->push_back(static_cast<char>(esc));
      p_ += 2;
      run = p_;
    }
    out->append(run, p_ - run);
    ++p_;
    return true;
  }
  // A non-negative integer of at most 18 digits without leading zeros.
  bool Int(int64_t* out) {
    Ws();
    const char* start = p_;
    int64_t v = 0;
    while (p_ < e_ && *p_ >= '0' && *p_ <= '9') {
      if (p_ - start < 18) v = v * 10 + (*p_ - '0');  // longer numbers are refused below
      ++p_;
    }
    size_t n = p_ - start;
    if (n == 0 || n > 18 || (n > 1 && *start == '0')) return false;
    if (p_ < e_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    *out = v;
    return true;
  }
  bool Bool(bool* out) {
    Ws();
    if (Word("true")) {
      *out = true;
      return true;
    }
    if (Word("false")) {
      *out = false;
      return true;
    }
    return false;
  }
  bool Null() {
    Ws();
    return Word("null");
  }
  // A scalar of an unknown field, validated as JSON.
  bool SkipScalar() {
    char c = Peek();
    if (c == '"') return Str(&scratch_);
    if (c == 't' || c == 'f') {
      bool b;
      return Bool(&b);
    }
    if (c == 'n') return Null();
    return SkipNumber();
  }

 private:
  bool Word(std::string_view w) {
    if (static_cast<size_t>(e_ - p_) < w.size() || std::string_view(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  static bool Digit(char c) { return c >= '0' && c <= '9'; }
  bool SkipNumber() {
    if (p_ < e_ && *p_ == '-') ++p_;
    if (p_ == e_ || !Digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < e_ && Digit(*p_)) ++p_;
    }
    if (p_ < e_ && *p_ == '.') {
      ++p_;
      if (p_ == e_ || !Digit(*p_)) return false;
      while (p_ < e_ && Digit(*p_)) ++p_;
    }
    if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == e_ || !Digit(*p_)) return false;
      while (p_ < e_ && Digit(*p_)) ++p_;
    }
    return true;
  }

  const char* p_;
  const char* e_;
  std::string scratch_;
};

// Iterates the members of an object: `member(key)` consumes the value and returns false
// to give up. Duplicate keys are the caller's concern.
template <typename F>
bool Members(LineScanner& s, F&& member) {
  if (!s.Lit('{')) return false;
  if (s.Lit('}')) return true;
  while (true) {
    std::string_view key;
    if (!s.Key(&key) || !member(key)) return false;
    if (s.Lit(',')) continue;
    return s.Lit('}');
  }
}

// {"k": "v" | null, ...}: last occurrence wins, as in nlohmann's object.
bool StringMap(LineScanner& s, std::map<std::string, std::optional<std::string>>* out) {
  std::string v;
  return Members(s, [&](std::string_view key) {
    if (s.Null()) {
      out->insert_or_assign(std::string(key), std::nullopt);
      return true;
    }
    if (!s.Str(&v)) return false;
    out->insert_or_assign(std::string(key), v);
    return true;
  });
}

// Marks field `bit` seen; false on a repeat (nlohmann keeps the last: the slow path).
bool Once(uint32_t* seen, int bit) {
  if (*seen & (1u << bit)) return false;
  *seen |= 1u << bit;
  return true;
}

bool Dv(LineScanner& s, std::optional<DeletionVectorDescriptor>* out) {
  using namespace action_fields;  // NOLINT
  std::string st, loc;
  int64_t size = 0, card = 0, offset = 0, max_row = 0;
  uint32_t seen = 0;
  bool ok = Members(s, [&](std::string_view k) {
    const std::optional<int> f = IndexOf(kDeletionVectorFields, k);
    if (!f) return s.SkipScalar();
    if (!Once(&seen, *f)) return false;
    switch (static_cast<DvField>(*f)) {
      case kDvStorageType: return s.Str(&st);
      case kDvPathOrInlineDv: return s.Str(&loc);
      case kDvOffset: return s.Int(&offset);
      case kDvSizeInBytes: return s.Int(&size);
      case kDvCardinality: return s.Int(&card);
      case kDvMaxRowIndex: return s.Int(&max_row);
      case kNumDvFields: break;
    }
    return false;
  });
  constexpr uint32_t kRequired = JsonRequiredMask(kDeletionVectorFields);
  if (!ok || (seen & kRequired) != kRequired) return false;
  auto dv = MakeDescriptor(st, std::move(loc), seen & (1u << kDvOffset) ? std::optional<int64_t>(offset) : std::nullopt,
                           size, card, seen & (1u << kDvMaxRowIndex) ? std::optional<int64_t>(max_row) : std::nullopt);
  if (!dv.ok()) return false;
  *out = std::move(dv).value();
  return true;
}

// Tags drop null values after last-wins, as json::OptStringMapNoNulls.
bool Tags(LineScanner& s, std::map<std::string, std::string>* out) {
  std::map<std::string, std::optional<std::string>> m;
  if (!StringMap(s, &m)) return false;
  for (auto& [k, v] : m) {
    if (v) out->emplace(k, std::move(*v));
  }
  return true;
}

bool FastAdd(LineScanner& s, AddFile* a) {
  using namespace action_fields;  // NOLINT
  uint32_t seen = 0;
  bool ok = Members(s, [&](std::string_view k) {
    const std::optional<int> f = IndexOf(kAddFields, k);
    if (!f) return k != "stats_parsed" && s.SkipScalar();  // stats_parsed: the slow path
    if (!Once(&seen, *f)) return false;
    switch (static_cast<AddField>(*f)) {
      case kAddPath: return s.Str(&a->path);
      case kAddPartitionValues: return StringMap(s, &a->partition_values);
      case kAddSize: return s.Int(&a->size);
      case kAddModificationTime: return s.Int(&a->modification_time);
      case kAddDataChange: return s.Bool(&a->data_change);
      case kAddStats: return s.Str(&a->stats.emplace());
      case kAddTags: return Tags(s, &a->tags);
      case kAddDeletionVector: return Dv(s, &a->deletion_vector);
      case kAddBaseRowId: return s.Int(&a->base_row_id.emplace());
      case kAddDefaultRowCommitVersion: return s.Int(&a->default_row_commit_version.emplace());
      case kAddClusteringProvider: return s.Str(&a->clustering_provider.emplace());
      case kNumAddFields: break;
    }
    return false;
  });
  constexpr uint32_t kRequired = JsonRequiredMask(kAddFields);
  return ok && (seen & kRequired) == kRequired;
}

bool FastRemove(LineScanner& s, RemoveFile* r) {
  using namespace action_fields;  // NOLINT
  uint32_t seen = 0;
  bool ok = Members(s, [&](std::string_view k) {
    const std::optional<int> f = IndexOf(kRemoveFields, k);
    if (!f) return s.SkipScalar();
    if (!Once(&seen, *f)) return false;
    switch (static_cast<RemoveField>(*f)) {
      case kRemovePath: return s.Str(&r->path);
      case kRemoveDeletionTimestamp: return s.Int(&r->deletion_timestamp.emplace());
      case kRemoveDataChange: return s.Bool(&r->data_change);
      case kRemoveExtendedFileMetadata: return s.Bool(&r->extended_file_metadata.emplace());
      case kRemovePartitionValues: return StringMap(s, &r->partition_values.emplace());
      case kRemoveSize: return s.Int(&r->size.emplace());
      case kRemoveStats: return s.Str(&r->stats.emplace());
      case kRemoveTags: return Tags(s, &r->tags);
      case kRemoveDeletionVector: return Dv(s, &r->deletion_vector);
      case kRemoveBaseRowId: return s.Int(&r->base_row_id.emplace());
      case kRemoveDefaultRowCommitVersion: return s.Int(&r->default_row_commit_version.emplace());
      case kNumRemoveFields: break;
    }
    return false;
  });
  constexpr uint32_t kRequired = JsonRequiredMask(kRemoveFields);
  return ok && (seen & kRequired) == kRequired;
}

// The action of `line` when the fast path handles it.
std::optional<Action> FastLine(std::string_view line) {
  LineScanner s(line);
  std::string_view kind;
  if (!s.Lit('{') || !s.Key(&kind)) return std::nullopt;
  std::optional<Action> out;
  if (kind == action_fields::kAddAction) {
    AddFile a;
    if (!FastAdd(s, &a)) return std::nullopt;
    out.emplace(std::move(a));
  } else if (kind == action_fields::kRemoveAction) {
    RemoveFile r;
    if (!FastRemove(s, &r)) return std::nullopt;
    out.emplace(std::move(r));
  } else {
    return std::nullopt;
  }
  if (!s.Lit('}') || !s.AtEnd()) return std::nullopt;  // one key only, nothing after
  return out;
}

}  // namespace

Result<std::vector<Action>> ParseCommitFileFast(std::string_view content, std::string_view name) {
  std::vector<Action> out;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    ++line_no;
    std::string_view line = content.substr(pos, end - pos);
    pos = end + 1;
    if (auto fast = FastLine(line)) {
      out.push_back(std::move(*fast));
      continue;
    }
    auto r = ParseActionLine(line);
    if (!r.ok()) return r.status().WithContextF("{} line {}", name, line_no);
    if (r->has_value()) out.push_back(std::move(**r));
  }
  return out;
}

// ---- StringMapView ---------------------------------------------------------------

void StringMapView::Iterator::Decode() {
  if (pos_ >= end_) {
    pos_ = next_ = end_;
    return;
  }
  const char* p = pos_;
  uint64_t klen = GetVarint(&p, end_);
  klen = std::min<uint64_t>(klen, end_ - p);
  entry_.key = std::string_view(p, klen);
  p += klen;
  uint64_t vlen = GetVarint(&p, end_);
  if (vlen == 0) {
    entry_.value.reset();
  } else {
    vlen = std::min<uint64_t>(vlen - 1, end_ - p);
    entry_.value = std::string_view(p, vlen);
    p += vlen;
  }
  next_ = p;
}

size_t StringMapView::size() const {
  size_t n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

std::optional<std::optional<std::string_view>> StringMapView::Find(std::string_view key) const {
  for (const Entry& e : *this) {
    if (e.key == key) return e.value;
  }
  return std::nullopt;
}

std::map<std::string, std::optional<std::string>> StringMapView::ToMap() const {
  std::map<std::string, std::optional<std::string>> out;
  for (const Entry& e : *this) {
    out.emplace_hint(out.end(), std::string(e.key),
                     e.value ? std::optional<std::string>(std::string(*e.value)) : std::nullopt);
  }
  return out;
}

std::map<std::string, std::string> StringMapView::ToMapNoNulls() const {
  std::map<std::string, std::string> out;
  for (const Entry& e : *this) {
    if (e.value) out.emplace_hint(out.end(), std::string(e.key), std::string(*e.value));
  }
  return out;
}

namespace {

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

char* WriteVarint(uint64_t v, char* p) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

}  // namespace

void EncodeStringMap(std::span<const MapEntryView> entries, bool drop_nulls, std::string* out) {
  // Each entry is sized and written in place (one resize, no per-byte appends: this
  // runs for every live file of a partitioned table).
  auto put = [&](const MapEntryView& e) {
    if (drop_nulls && !e.value) return;
    const uint64_t vcode = e.value ? e.value->size() + 1 : 0;
    const size_t old = out->size();
    out->resize(old + VarintSize(e.key.size()) + e.key.size() + VarintSize(vcode) + (e.value ? e.value->size() : 0));
    char* p = WriteVarint(e.key.size(), out->data() + old);
    if (!e.key.empty()) std::memcpy(p, e.key.data(), e.key.size());
    p = WriteVarint(vcode, p + e.key.size());
    if (e.value && !e.value->empty()) std::memcpy(p, e.value->data(), e.value->size());
  };
  if (entries.size() == 1) {  // the common case: one partition column
    put(entries[0]);
    return;
  }
  // Sort by key; among equal keys the last occurrence wins (stable sort keeps the
  // stored order, so it is the last of each run).
  std::vector<uint32_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return entries[a].key < entries[b].key; });
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + 1 < order.size() && entries[order[i + 1]].key == entries[order[i]].key) continue;
    put(entries[order[i]]);
  }
}

// ---- LiveFileView ----------------------------------------------------------------

std::string_view LiveFileView::path() const {
  const auto& r = store_->record(index_);
  return {r.blob, r.path_len};
}
int64_t LiveFileView::size() const { return store_->record(index_).size; }
int64_t LiveFileView::modification_time_ms() const { return store_->record(index_).modification_time; }
StringMapView LiveFileView::partition_values() const {
  const auto& r = store_->record(index_);
  return StringMapView(std::string_view(r.blob + r.path_len, r.pv_len));
}
std::optional<std::string_view> LiveFileView::stats_raw() const {
  const auto& r = store_->record(index_);
  if (!(r.flags & LiveFileStore::kHasStats)) return std::nullopt;
  return std::string_view(r.blob + r.path_len + r.pv_len, r.stats_len);
}
std::optional<int64_t> LiveFileView::num_records() const {
  const auto& r = store_->record(index_);
  if (!(r.flags & LiveFileStore::kHasNumRecords)) return std::nullopt;
  return r.num_records;
}
std::optional<int64_t> LiveFileView::num_live_records() const {
  auto n = num_records();
  if (!n) return std::nullopt;
  const DeletionVectorDescriptor* dv = deletion_vector();
  return *n - (dv ? dv->cardinality : 0);
}
const DeletionVectorDescriptor* LiveFileView::deletion_vector() const {
  const auto* e = store_->extra(index_);
  return e && e->dv ? &*e->dv : nullptr;
}
std::string_view LiveFileView::dv_unique_id() const {
  const auto* e = store_->extra(index_);
  return e ? std::string_view(e->dv_unique_id) : std::string_view();
}
StringMapView LiveFileView::tags() const {
  const auto* e = store_->extra(index_);
  return e ? StringMapView(e->tags) : StringMapView();
}
std::optional<int64_t> LiveFileView::base_row_id() const {
  const auto& r = store_->record(index_);
  if (!(r.flags & LiveFileStore::kHasBaseRowId)) return std::nullopt;
  return r.base_row_id;
}
std::optional<int64_t> LiveFileView::default_row_commit_version() const {
  const auto& r = store_->record(index_);
  if (!(r.flags & LiveFileStore::kHasRowCommitVersion)) return std::nullopt;
  return r.default_row_commit_version;
}
std::optional<std::string_view> LiveFileView::clustering_provider() const {
  const auto* e = store_->extra(index_);
  return e ? e->clustering_provider : std::nullopt;
}

table::FileEntry LiveFileView::ToFileEntry() const {
  table::FileEntry f;
  f.path = std::string(path());
  f.size = size();
  f.modification_time_ms = modification_time_ms();
  f.partition_values = partition_values().ToMap();
  if (auto s = stats_raw()) f.stats.emplace().raw = std::string(*s);
  if (auto n = num_records()) {  // StatsMode::kNumRecords keeps the count without the text
    if (!f.stats) f.stats.emplace();
    f.stats->num_records = n;
  }
  if (const auto* dv = deletion_vector()) f.deletion_vector = dv->ToRef();
  f.tags = tags().ToMapNoNulls();
  f.base_row_id = base_row_id();
  f.default_row_commit_version = default_row_commit_version();
  if (auto c = clustering_provider()) f.clustering_provider = std::string(*c);
  return f;
}

// ---- LiveFileStore ---------------------------------------------------------------

// Blocks never move: records point into them. They grow from 64 KiB (small tables stay
// small) to 4 MiB (huge-page backed, see LargeAllocator). Freed all at once.
struct LiveFileStore::Arena {
  struct Block {
    char* data;
    size_t size;
  };
  std::vector<Block> blocks;
  char* pos = nullptr;
  size_t left = 0;
  size_t bytes = 0;

  ~Arena() {
    for (const Block& b : blocks) FreeLarge(b.data, b.size);
  }
  char* Allocate(size_t n) {
    if (n > left) {
      size_t next = blocks.empty() ? size_t{64} << 10 : std::min(blocks.back().size * 2, size_t{4} << 20);
      size_t sz = std::max(next, n);
      blocks.reserve(blocks.size() + 1);  // so that push_back cannot throw after allocating
      Block b{static_cast<char*>(AllocateLarge(sz)), sz};  // not zeroed: every byte is written
      blocks.push_back(b);
      pos = b.data;
      left = sz;
      bytes += sz;
    }
    char* p = pos;
    pos += n;
    left -= n;
    return p;
  }
};

LiveFileStore::LiveFileStore() : arena_(std::make_unique<Arena>()) {}
LiveFileStore::~LiveFileStore() = default;
LiveFileStore::LiveFileStore(LiveFileStore&&) noexcept = default;
LiveFileStore& LiveFileStore::operator=(LiveFileStore&&) noexcept = default;

const LiveFileStore::Extra* LiveFileStore::extra(size_t i) const {
  uint32_t e = records_[i].extra;
  return e == 0 ? nullptr : &extras_[e - 1];
}

char* LiveFileStore::Allocate(size_t n) {
  if (arena_ == nullptr) arena_ = std::make_unique<Arena>();  // a moved-from store is reusable
  return arena_->Allocate(n);
}

void LiveFileStore::Reserve(size_t n) {
  size_t want = records_.size() + n;
  if (want > records_.capacity()) records_.reserve(std::max(want, records_.capacity() + records_.capacity() / 2));
}

Status LiveFileStore::Append(std::string_view path, const AddFileView& add,
                             std::optional<std::string_view> stats, std::optional<int64_t> num_records) {
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  // Partition values: encoded into a reused buffer, then copied with the path.
  thread_local std::string pv;
  pv.clear();
  if (!add.partition_values.empty()) EncodeStringMap(add.partition_values, /*drop_nulls=*/false, &pv);
  const size_t stats_len = stats ? stats->size() : 0;
  if (path.size() > kMax || pv.size() > kMax || stats_len > kMax) {
    return Status::InvalidArgument("add '{}': a field is longer than 4 GiB", path.substr(0, 256));
  }
  Record r;
  const size_t total = path.size() + pv.size() + stats_len;
  char* blob = total == 0 ? nullptr : Allocate(total);
  if (total != 0) {
    std::memcpy(blob, path.data(), path.size());
    if (!pv.empty()) std::memcpy(blob + path.size(), pv.data(), pv.size());
    if (stats_len != 0) std::memcpy(blob + path.size() + pv.size(), stats->data(), stats_len);
  }
  r.blob = blob;
  r.path_len = static_cast<uint32_t>(path.size());
  r.pv_len = static_cast<uint32_t>(pv.size());
  r.stats_len = static_cast<uint32_t>(stats_len);
  r.size = add.size;
  r.modification_time = add.modification_time;
  if (stats) r.flags |= kHasStats;
  if (add.base_row_id) {
    r.flags |= kHasBaseRowId;
    r.base_row_id = *add.base_row_id;
  }
  if (add.default_row_commit_version) {
    r.flags |= kHasRowCommitVersion;
    r.default_row_commit_version = *add.default_row_commit_version;
  }
  if (num_records) {
    r.flags |= kHasNumRecords;
    r.num_records = *num_records;
  }
  if (add.deletion_vector || !add.tags.empty() || add.clustering_provider) {
    Extra e;
    if (add.deletion_vector) {
      e.dv = *add.deletion_vector;
      e.dv_unique_id = add.deletion_vector->UniqueId();
    }
    if (!add.tags.empty()) {
      std::string t;
      EncodeStringMap(add.tags, /*drop_nulls=*/true, &t);
      if (t.size() > kMax) return Status::InvalidArgument("add '{}': tags longer than 4 GiB", path.substr(0, 256));
      char* p = Allocate(t.size());
      std::memcpy(p, t.data(), t.size());
      e.tags = std::string_view(p, t.size());
    }
    if (add.clustering_provider) {
      char* p = Allocate(add.clustering_provider->size());
      std::memcpy(p, add.clustering_provider->data(), add.clustering_provider->size());
      e.clustering_provider = std::string_view(p, add.clustering_provider->size());
    }
    extras_.push_back(std::move(e));
    r.extra = static_cast<uint32_t>(extras_.size());
  }
  records_.push_back(r);
  return Status::OK();
}

std::vector<uint32_t> LiveFileStore::SortedOrder() const {
  std::vector<uint32_t> all(records_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i);
  return SortedOrder(std::move(all));
}

std::vector<uint32_t> LiveFileStore::SortedOrder(std::vector<uint32_t> order) const {
  const size_t n = order.size();
  if (n == 0) return order;
  auto path = [&](size_t i) { return std::string_view(records_[i].blob, records_[i].path_len); };
  // Comparisons go by 24 bytes of each path after the prefix all paths share (often
  // "date=" or a partition directory), held big-endian in the sort keys, so that most
  // never touch the scattered path bytes; only ties compare whole paths and DV ids.
  std::string_view first = path(order[0]);
  size_t lcp = first.size();
  for (size_t i = 1; i < n && lcp > 0; ++i) {
    std::string_view p = path(order[i]);
    size_t k = 0, m = std::min(lcp, p.size());
    while (k < m && p[k] == first[k]) ++k;
    lcp = k;
  }
  struct Key {
    uint64_t w[3];
    uint32_t index;
  };
  auto word = [](std::string_view p, size_t off) {
    uint64_t w = 0;
    for (size_t b = 0; b < 8; ++b) w = (w << 8) | (off + b < p.size() ? static_cast<unsigned char>(p[off + b]) : 0u);
    return w;
  };
  std::vector<Key> keys(n);
  for (size_t i = 0; i < n; ++i) {
    std::string_view p = path(order[i]);
    keys[i] = Key{{word(p, lcp), word(p, lcp + 8), word(p, lcp + 16)}, order[i]};
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    for (int w = 0; w < 3; ++w) {
      if (a.w[w] != b.w[w]) return a.w[w] < b.w[w];
    }
    // Equal words: the paths agree on those bytes (a shorter path reads as padded with
    // NUL, which only ties here and is ordered by the full comparison).
    int c = path(a.index).compare(path(b.index));
    if (c != 0) return c < 0;
    return LiveFileView(this, a.index).dv_unique_id() < LiveFileView(this, b.index).dv_unique_id();
  });
  for (size_t i = 0; i < n; ++i) order[i] = keys[i].index;
  return order;
}

size_t LiveFileStore::MemoryUsage() const {
  size_t extra = extras_.capacity() * sizeof(Extra);
  for (const Extra& e : extras_) {
    if (e.dv) extra += e.dv->path_or_inline_dv.capacity() + e.dv_unique_id.capacity();
  }
  return records_.capacity() * sizeof(Record) + (arena_ ? arena_->bytes : 0) + extra;
}

}  // namespace lithify::delta
