#include "lithify/exec/external_sort.h"

#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <queue>
#include <thread>

#include "lithify/base/macros.h"
#include "lithify/base/uuid.h"
#include "lithify/exec/sort_run.h"

namespace lithify::exec {

namespace {

// Where each row of a batch starts in every column's levels and values; empty vectors
// mean the identity (flat column without nulls: level r = value r = row r).
struct RowIndex {
  std::vector<std::vector<int64_t>> level_starts;
  std::vector<std::vector<int64_t>> value_starts;

  static RowIndex Of(const parquet::RowBatch& b) {
    RowIndex ix;
    ix.level_starts.resize(b.columns.size());
    ix.value_starts.resize(b.columns.size());
    for (size_t c = 0; c < b.columns.size(); ++c) {
      const parquet::ColumnData& col = b.columns[c];
      if (!col.rep_levels.empty()) ix.level_starts[c] = parquet::RowLevelStarts(col, b.num_rows);
      if (col.def_levels.empty()) {
        // No definition levels: every level holds a value, value starts = level starts.
        ix.value_starts[c] = ix.level_starts[c];
        continue;
      }
      const int16_t max_def = col.descr ? col.descr->max_def : 0;
      std::vector<int64_t>& vs = ix.value_starts[c];
      vs.reserve(static_cast<size_t>(b.num_rows) + 1);
      int64_t values = 0, level = 0;
      for (int64_t r = 0; r < b.num_rows; ++r) {
        const int64_t end = ix.level_starts[c].empty() ? r + 1 : ix.level_starts[c][r + 1];
        vs.push_back(values);
        for (; level < end; ++level) values += col.def_levels[level] == max_def ? 1 : 0;
      }
      vs.push_back(values);
    }
    return ix;
  }
  int64_t bytes() const {
    int64_t n = 0;
    for (const auto& v : level_starts) n += static_cast<int64_t>(v.size()) * 8;
    for (const auto& v : value_starts) n += static_cast<int64_t>(v.size()) * 8;
    return n;
  }
};

int64_t At(const std::vector<int64_t>& starts, int64_t r) { return starts.empty() ? r : starts[r]; }

// memcmp of two keys of width w; 8-byte keys (the curves' usual width) as integers.
int CompareKeys(const char* a, const char* b, int w) {
  if (w != 8) return std::memcmp(a, b, static_cast<size_t>(w));
  uint64_t x, y;
  std::memcpy(&x, a, 8);
  std::memcpy(&y, b, 8);
  x = __builtin_bswap64(x);
  y = __builtin_bswap64(y);
  return x < y ? -1 : (x > y ? 1 : 0);
}

void AppendIndexed(const parquet::RowBatch& src, const RowIndex& ix, int64_t begin, int64_t end,
                   parquet::RowBatch* dst) {
  for (size_t c = 0; c < src.columns.size(); ++c) {
    const parquet::ColumnData& in = src.columns[c];
    parquet::ColumnData& out = dst->columns[c];
    const int64_t lb = At(ix.level_starts[c], begin), le = At(ix.level_starts[c], end);
    const int64_t vb = At(ix.value_starts[c], begin), ve = At(ix.value_starts[c], end);
    if (!in.def_levels.empty()) out.def_levels.insert(out.def_levels.end(), in.def_levels.begin() + lb, in.def_levels.begin() + le);
    if (!in.rep_levels.empty()) out.rep_levels.insert(out.rep_levels.end(), in.rep_levels.begin() + lb, in.rep_levels.begin() + le);
    out.num_levels += le - lb;
    if (ve > vb) out.values.AppendRange(in.values, vb, ve);
  }
  dst->num_rows += end - begin;
}

// The batches rows are gathered from (a chunk's, or the merge's current batch of each
// run), with their row indexes and, where runs are written, their keys; a ref
// (b << 32 | r) names row r of batches[b].
struct Sources {
  std::vector<const parquet::RowBatch*> batches;
  std::vector<const RowIndex*> index;
  std::vector<const std::string*> keys;  // empty when keys are not gathered
};

// Calls fn(column, value index) for each non-null value of the rows refs[0..n) of a flat
// column (no repetition levels), in order: row r's value is value r without definition
// levels, else the value its index records when the row is not null.
template <typename Fn>
void ForEachFlatValue(const Sources& src, size_t c, const uint64_t* refs, size_t n, int16_t max_def, bool nullable,
                      Fn&& fn) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = refs[i] >> 32;
    int64_t v = static_cast<int64_t>(refs[i] & 0xffffffffu);
    const parquet::ColumnData& in = src.batches[b]->columns[c];
    if (nullable) {
      if (in.def_levels[v] != max_def) continue;
      v = At(src.index[b]->value_starts[c], v);
    }
    fn(in, v);
  }
}

// Values of width W (0: the width `w` given at run time).
template <size_t W>
void GatherFixed(const Sources& src, size_t c, const uint64_t* refs, size_t n, int16_t max_def, bool nullable,
                 size_t w, parquet::ColumnValues* out) {
  if constexpr (W != 0) w = W;
  const size_t old = out->fixed.size();
  out->fixed.Resize(old + n * w);
  uint8_t* dst = out->fixed.data() + old;
  int64_t k = 0;
  ForEachFlatValue(src, c, refs, n, max_def, nullable, [&](const parquet::ColumnData& in, int64_t v) {
    std::memcpy(dst + k * w, in.values.fixed.data() + v * w, W != 0 ? W : w);
    ++k;
  });
  out->fixed.Resize(old + static_cast<size_t>(k) * w);
  out->count += k;
}

void GatherBinary(const Sources& src, size_t c, const uint64_t* refs, size_t n, int16_t max_def, bool nullable,
                  parquet::ColumnValues* out) {
  if (out->offsets.empty()) out->offsets.push_back(0);
  ForEachFlatValue(src, c, refs, n, max_def, nullable, [&](const parquet::ColumnData& in, int64_t v) {
    const int64_t begin = in.values.offsets[v], end = in.values.offsets[v + 1];
    out->data.Append(in.values.data.data() + begin, static_cast<size_t>(end - begin));
    out->offsets.push_back(static_cast<int64_t>(out->data.size()));
    ++out->count;
  });
}

// Flat columns (every top-level primitive, the common case) one value at a time, with
// the definition levels copied in one pass; nested ones row range by row range.
void GatherFlat(const Sources& src, size_t c, const uint64_t* refs, size_t n, parquet::ColumnData* out) {
  const parquet::ColumnData& first = src.batches[refs[0] >> 32]->columns[c];
  const bool nullable = !first.def_levels.empty();
  const int16_t max_def = first.descr ? first.descr->max_def : 0;
  if (nullable) {
    const size_t old = out->def_levels.size();
    out->def_levels.resize(old + n);
    int16_t* d = out->def_levels.data() + old;
    for (size_t i = 0; i < n; ++i) {
      d[i] = src.batches[refs[i] >> 32]->columns[c].def_levels[refs[i] & 0xffffffffu];
    }
  }
  out->num_levels += static_cast<int64_t>(n);
  parquet::ColumnValues& vals = out->values;
  if (vals.count == 0) {
    vals.type = first.values.type;
    vals.type_length = first.values.type_length;
  }
  if (first.values.is_byte_array()) return GatherBinary(src, c, refs, n, max_def, nullable, &vals);
  switch (const size_t w = first.values.width(); w) {
    case 4: return GatherFixed<4>(src, c, refs, n, max_def, nullable, w, &vals);
    case 8: return GatherFixed<8>(src, c, refs, n, max_def, nullable, w, &vals);
    default: return GatherFixed<0>(src, c, refs, n, max_def, nullable, w, &vals);
  }
}

// Appends to `out` the rows refs[0..n) of `src`'s batches, one column at a time: the
// inner loop stays on one column's buffers. Same result as AppendIndexed row by row.
void GatherColumn(const Sources& src, size_t c, const uint64_t* refs, size_t n, parquet::ColumnData* out) {
  const std::vector<const parquet::RowBatch*>& batches = src.batches;
  if (batches[refs[0] >> 32]->columns[c].rep_levels.empty()) return GatherFlat(src, c, refs, n, out);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = refs[i] >> 32;
    const int64_t r = static_cast<int64_t>(refs[i] & 0xffffffffu);
    const parquet::ColumnData& in = batches[b]->columns[c];
    const RowIndex& ix = *src.index[b];
    const int64_t lb = At(ix.level_starts[c], r), le = At(ix.level_starts[c], r + 1);
    const int64_t vb = At(ix.value_starts[c], r), ve = At(ix.value_starts[c], r + 1);
    if (!in.def_levels.empty()) out->def_levels.insert(out->def_levels.end(), in.def_levels.begin() + lb, in.def_levels.begin() + le);
    if (!in.rep_levels.empty()) out->rep_levels.insert(out->rep_levels.end(), in.rep_levels.begin() + lb, in.rep_levels.begin() + le);
    out->num_levels += le - lb;
    if (ve > vb) out->values.AppendRange(in.values, vb, ve);
  }
}

void ResetBatch(const parquet::Schema& schema, parquet::RowBatch* b) {
  b->num_rows = 0;
  b->first_row_index = -1;  // rows come from many places
  b->columns.resize(static_cast<size_t>(schema.num_leaves()));
  for (int l = 0; l < schema.num_leaves(); ++l) {
    b->columns[l].Reset(schema.leaf(l));
    b->columns[l].leaf_index = l;
  }
}

// Collects gathered rows into output batches, ending a batch at the row limit, at a
// byte limit, and at every cut (then calling on_cut). With a key width, the rows' keys
// are gathered alongside (sorted runs keep them) and given to the block function.
class OutputBuilder {
 public:
  // May take the batch's contents (it is reset afterwards).
  using BlockFn = std::function<Status(parquet::RowBatch& batch, std::string_view keys)>;

  OutputBuilder(const parquet::Schema& schema, int64_t max_rows, int64_t max_bytes, std::vector<int64_t> cuts,
                BlockFn emit, const std::function<Status()>& on_cut, int key_width = 0)
      : schema_(schema), max_rows_(max_rows), max_bytes_(max_bytes), cuts_(std::move(cuts)), emit_(std::move(emit)),
        on_cut_(on_cut), key_width_(static_cast<size_t>(key_width)) {
    ResetBatch(schema_, &cur_);
  }

  // After rows were appended: ends the batch at a cut, the row limit or the byte limit.
  Status EndStep() {
    const bool at_cut = next_cut_ < cuts_.size() && emitted_ + cur_.num_rows == cuts_[next_cut_];
    if (at_cut || cur_.num_rows >= max_rows_ || BatchBytes(cur_) >= max_bytes_) {
      LITHIFY_RETURN_NOT_OK(Flush());
    }
    if (at_cut) {
      ++next_cut_;
      if (on_cut_) LITHIFY_RETURN_NOT_OK(on_cut_());
    }
    return Status::OK();
  }
  // Appends the rows refs[0..n) of `src` (see GatherColumn) in that order, a step of rows
  // at a time so that the byte limit is checked often enough.
  Status Gather(const Sources& src, const uint64_t* refs, size_t n) {
    const int64_t step = std::clamp<int64_t>(max_rows_ / 4, 1, 512);
    while (n > 0) {
      int64_t take = std::min({static_cast<int64_t>(n), max_rows_ - cur_.num_rows, step});
      if (next_cut_ < cuts_.size()) take = std::min(take, cuts_[next_cut_] - (emitted_ + cur_.num_rows));
      for (size_t c = 0; c < cur_.columns.size(); ++c) {
        GatherColumn(src, c, refs, static_cast<size_t>(take), &cur_.columns[c]);
      }
      if (key_width_ > 0) GatherKeys(src, refs, static_cast<size_t>(take));
      cur_.num_rows += take;
      refs += take;
      n -= static_cast<size_t>(take);
      LITHIFY_RETURN_NOT_OK(EndStep());
    }
    return Status::OK();
  }
  Status Flush() {
    if (cur_.num_rows == 0) return Status::OK();
    if (track_) track_(buffered_bytes());
    const int64_t rows = cur_.num_rows;  // emit_ may take the batch's contents
    LITHIFY_RETURN_NOT_OK(emit_(cur_, keys_));
    emitted_ += rows;
    ResetBatch(schema_, &cur_);
    keys_.clear();
    return Status::OK();
  }
  int64_t buffered_bytes() const { return BatchBytes(cur_) + static_cast<int64_t>(keys_.size()); }
  // Called with the batch's bytes before each emit (memory accounting).
  void set_track(std::function<void(int64_t)> track) { track_ = std::move(track); }

 private:
  void GatherKeys(const Sources& src, const uint64_t* refs, size_t n) {
    const size_t old = keys_.size();
    keys_.resize(old + n * key_width_);
    char* dst = keys_.data() + old;
    for (size_t i = 0; i < n; ++i, dst += key_width_) {
      std::memcpy(dst, src.keys[refs[i] >> 32]->data() + (refs[i] & 0xffffffffu) * key_width_, key_width_);
    }
  }

  const parquet::Schema& schema_;
  int64_t max_rows_, max_bytes_;
  std::vector<int64_t> cuts_;
  size_t next_cut_ = 0;
  int64_t emitted_ = 0;
  BlockFn emit_;
  const std::function<Status()>& on_cut_;
  size_t key_width_;
  std::function<void(int64_t)> track_;
  parquet::RowBatch cur_;
  std::string keys_;
};

// The caller's emit as a block function (the final output needs no keys).
OutputBuilder::BlockFn Rows(const ExternalSorter::EmitFn& emit) {
  return [&emit](parquet::RowBatch& b, std::string_view) { return emit(b); };
}

// Calls the caller's emit and on_cut on a thread of its own, in order and one at a time,
// so that the caller's writer (encoding and compressing the output) runs next to the
// merge instead of after each batch. Batches wait in a queue of at most `limit` counted
// bytes (one batch always fits); the merge waits while it is full. Written batches come
// back for reuse, their buffers keeping their capacity. After emit or on_cut fails,
// nothing more is called and every Push returns that error.
class AsyncEmitter {
 public:
  AsyncEmitter(const ExternalSorter::EmitFn& emit, const std::function<Status()>& on_cut, int64_t limit)
      : emit_(emit), on_cut_(on_cut), limit_(limit), thread_([this] { Loop(); }) {}
  ~AsyncEmitter() { (void)Close(/*drain=*/false); }

  // Queues the batch's rows; `batch` is left with a recycled batch's buffers.
  Status Push(parquet::RowBatch& batch) {
    const int64_t bytes = BatchBytes(batch);
    std::unique_lock<std::mutex> l(mu_);
    space_.wait(l, [&] { return !status_.ok() || queued_bytes_ == 0 || queued_bytes_ + bytes <= limit_; });
    if (!status_.ok()) return status_;
    Item it;
    if (!free_.empty()) {
      it.batch = std::move(free_.back());
      free_.pop_back();
    }
    std::swap(it.batch, batch);
    it.bytes = bytes;
    queued_bytes_ += bytes;
    queue_.push_back(std::move(it));
    ready_.notify_one();
    return Status::OK();
  }
  // Queues an on_cut call (after the batches queued so far).
  Status Cut() {
    std::lock_guard<std::mutex> l(mu_);
    if (!status_.ok()) return status_;
    queue_.push_back(Item{{}, 0, true});
    ready_.notify_one();
    return Status::OK();
  }
  // Waits for the thread: after everything queued was written (drain) or after the call
  // in progress (not drain: what is queued is dropped). The first error of emit / on_cut.
  Status Close(bool drain) {
    {
      std::lock_guard<std::mutex> l(mu_);
      closing_ = true;
      if (!drain) queue_.clear();
      ready_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  struct Item {
    parquet::RowBatch batch;
    int64_t bytes = 0;
    bool cut = false;
  };
  static constexpr size_t kKeptBatches = 2;

  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      ready_.wait(l, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;
      Item it = std::move(queue_.front());
      queue_.pop_front();
      l.unlock();
      Status st = it.cut ? (on_cut_ ? on_cut_() : Status::OK()) : emit_(it.batch);
      l.lock();
      queued_bytes_ -= it.bytes;
      if (!st.ok() && status_.ok()) {
        status_ = std::move(st);
        queue_.clear();
        queued_bytes_ = 0;
      }
      if (!it.cut && free_.size() < kKeptBatches) free_.push_back(std::move(it.batch));
      space_.notify_one();
    }
  }

  const ExternalSorter::EmitFn& emit_;
  const std::function<Status()>& on_cut_;
  const int64_t limit_;
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<Item> queue_;
  std::vector<parquet::RowBatch> free_;
  int64_t queued_bytes_ = 0;
  bool closing_ = false;
  Status status_;
  std::thread thread_;  // last: started once the rest is ready
};

// The smallest output batch the byte limit allows (whatever the budget).
constexpr int64_t kMinOutputBytes = 64 << 10;
// The smallest run block, and the most a run's write buffer takes.
constexpr int64_t kMinBlockBytes = 4 << 10;
constexpr int64_t kMaxRunBufferBytes = 1 << 20;

// Gives the chunk's freed memory back to the system before the merge allocates its own:
// glibc keeps freed heap memory for reuse, and the merge's blocks and the caller's writer
// would otherwise come on top of it (10M rows at 256 MiB: resident 259 MiB, while the
// counted peak was 113 MiB).
void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

int64_t BatchBytes(const parquet::RowBatch& batch) {
  int64_t n = 0;
  for (const parquet::ColumnData& c : batch.columns) {
    n += static_cast<int64_t>(c.def_levels.size() + c.rep_levels.size()) * 2;
    n += static_cast<int64_t>(c.values.fixed.size() + c.values.data.size());
    n += static_cast<int64_t>(c.values.offsets.size()) * 8;
  }
  return n;
}

void AppendRows(const parquet::RowBatch& src, int64_t begin, int64_t end, parquet::RowBatch* dst) {
  AppendIndexed(src, RowIndex::Of(src), begin, end, dst);
}

// One sorted run being merged.
struct RunCursor {
  int id = 0;
  SortRun* run = nullptr;
  parquet::RowBatch batch;
  std::string keys;
  RowIndex index;
  int64_t pos = 0;
  bool done = false;

  const char* key(int64_t r, int w) const { return keys.data() + r * w; }
};

// Buffered rows: batches with their keys and row indexes, and their counted bytes.
struct Chunk {
  std::vector<parquet::RowBatch> batches;
  std::vector<std::string> keys;
  std::vector<RowIndex> index;
  int64_t bytes = 0;
  bool empty() const { return batches.empty(); }
};

struct ExternalSorter::Impl {
  const parquet::Schema* schema = nullptr;
  int key_width = 0;
  KeyFn key_fn;
  SortOptions options;
  std::string dir;
  std::string run_prefix;
  bool made_dir = false;
  SortStats stats;  // peak_buffered_bytes is kept in `peak` (spills may run on a thread)
  std::atomic<int64_t> peak{0};
  // Sizing, all derived from the budget (see Make).
  int64_t output_bytes = 0;   // the emitted batches' byte limit
  int64_t block_bytes = 0;    // a run block's byte limit (what a merge holds per run)
  int64_t run_buffer = 0;     // a run's write buffer
  int64_t chunk_limit = 0;    // buffered bytes before a spill
  size_t fan_in = 2;          // runs merged at once
  int64_t added_bytes = 0;    // BatchBytes of every added batch (for rows per block)

  Chunk chunk;  // the rows being buffered
  std::vector<std::unique_ptr<SortRun>> runs;  // current sorted runs, in input order
  int next_file = 0;
  std::atomic<int64_t> chunk_bytes_now{0};  // chunk.bytes, for the spill thread's Track

  // A chunk being sorted and written on its own thread (options.threads > 1) while Add
  // buffers the next one: its rows, the run it writes and how that went. Until Join the
  // spill thread writes only run and status, and reads chunk.
  struct Background {
    std::thread thread;
    Chunk chunk;
    std::unique_ptr<SortRun> run;
    Status status;
  } spill;

  ~Impl() {
    (void)JoinSpill();  // the thread reads this object
    Cleanup();
  }

  void Cleanup() {
    runs.clear();  // closing a run's descriptor frees its (unlinked) file
    if (made_dir) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      made_dir = false;
    }
  }

  void Track(int64_t bytes) {
    int64_t cur = peak.load(std::memory_order_relaxed);
    while (bytes > cur && !peak.compare_exchange_weak(cur, bytes, std::memory_order_relaxed)) {
    }
  }
  // What a spill in flight holds: its chunk, a block and its run's write buffer. (Called
  // by the sorter's caller, which alone starts and joins the spill thread.)
  int64_t SpillHeld() const { return spill.thread.joinable() ? spill.chunk.bytes + block_bytes + run_buffer : 0; }
  // Empties the buffered chunk (spilled, handed over or emitted).
  void ResetChunk() {
    chunk = Chunk();
    chunk_bytes_now.store(0, std::memory_order_relaxed);
  }

  Status EnsureDir() {
    if (!dir.empty()) return Status::OK();
    run_prefix = "lithify-sort-" + NewUuid() + "-";
    if (!options.spill_dir.empty()) {
      dir = options.spill_dir;  // runs are named uniquely; no directory of our own
      return Status::OK();
    }
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/lithify-sort-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      return Status::IOError("cannot create a temporary directory for sort runs ({}): {}", tmpl, strerror(errno));
    }
    dir = tmpl;
    made_dir = true;
    return Status::OK();
  }

  // Rows per run block: the block's byte limit at the average row size seen.
  int64_t BlockRows() const {
    const int64_t row_bytes = std::max<int64_t>(1, added_bytes / std::max<int64_t>(1, stats.rows));
    return std::clamp<int64_t>(block_bytes / row_bytes, 1, options.output_batch_rows);
  }

  // Stable order of the chunk's rows by key: (batch << 32 | row) refs.
  std::vector<uint64_t> SortedRefs(const Chunk& c) const {
    const std::vector<parquet::RowBatch>& batches = c.batches;
    const std::vector<std::string>& keys = c.keys;
    if (key_width <= 8) return SortedRefsNarrow(c);
    std::vector<uint64_t> refs;
    for (size_t b = 0; b < batches.size(); ++b) {
      for (int64_t r = 0; r < batches[b].num_rows; ++r) refs.push_back((uint64_t{b} << 32) | static_cast<uint64_t>(r));
    }
    const size_t w = static_cast<size_t>(key_width);
    std::stable_sort(refs.begin(), refs.end(), [&](uint64_t a, uint64_t b) {
      return std::memcmp(keys[a >> 32].data() + (a & 0xffffffffu) * w, keys[b >> 32].data() + (b & 0xffffffffu) * w,
                         w) < 0;
    });
    return refs;
  }

  // Keys of at most 8 bytes (Z-order and Hilbert of up to two columns) sort as integers:
  // (big-endian key, ref) pairs under an unstable sort are the stable order, because the
  // refs ascend in arrival order and break ties. Memory: 16 bytes per row (the pairs,
  // compacted in place into the refs afterwards), what Add counts for the refs and the
  // stable sort's buffer.
  std::vector<uint64_t> SortedRefsNarrow(const Chunk& c) const {
    const std::vector<parquet::RowBatch>& batches = c.batches;
    const std::vector<std::string>& keys = c.keys;
    struct KeyRef {
      uint64_t key, ref;
      bool operator<(const KeyRef& o) const { return key != o.key ? key < o.key : ref < o.ref; }
    };
    const size_t w = static_cast<size_t>(key_width);
    size_t n = 0;
    for (const parquet::RowBatch& b : batches) n += static_cast<size_t>(b.num_rows);
    std::vector<uint64_t> buf(2 * n);
    KeyRef* pairs = reinterpret_cast<KeyRef*>(buf.data());
    size_t i = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
      const auto* k = reinterpret_cast<const unsigned char*>(keys[b].data());
      for (int64_t r = 0; r < batches[b].num_rows; ++r, k += w) {
        uint64_t v = 0;
        for (size_t j = 0; j < w; ++j) v = (v << 8) | k[j];
        pairs[i++] = {v << (8 * (8 - w)), (uint64_t{b} << 32) | static_cast<uint64_t>(r)};
      }
    }
    std::sort(pairs, pairs + n);
    // buf[i] lies in pairs[i / 2], already read: the compaction is safe in place.
    for (i = 0; i < n; ++i) buf[i] = pairs[i].ref;
    buf.resize(n);
    return buf;
  }

  // Emits the rows of `c` in key order through `out`; `held` = other bytes held meanwhile.
  Status EmitChunk(const Chunk& c, OutputBuilder* out, const std::function<int64_t()>& held) {
    std::vector<uint64_t> refs = SortedRefs(c);
    // c.bytes counted the refs and the sort buffer already; add the output batch.
    out->set_track([this, &c, &held](int64_t batch) { Track(c.bytes + held() + batch); });
    Sources src;
    for (size_t b = 0; b < c.batches.size(); ++b) {
      src.batches.push_back(&c.batches[b]);
      src.index.push_back(&c.index[b]);
      src.keys.push_back(&c.keys[b]);
    }
    if (!refs.empty()) LITHIFY_RETURN_NOT_OK(out->Gather(src, refs.data(), refs.size()));
    return out->Flush();
  }

  // The next run's file name (EnsureDir first).
  std::string NextRunName() { return fmt::format("{}run-{:05}", run_prefix, next_file++); }

  // Writes one sorted run `name`, with its keys, from what `fill` gathers (in key order),
  // in blocks of at most `block_rows` rows. Touches nothing but the run: it may run on
  // the spill thread.
  Result<std::unique_ptr<SortRun>> WriteRun(const std::string& name, int64_t block_rows,
                                            const std::function<Status(OutputBuilder*)>& fill) const {
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<SortRun> run, SortRun::Create(dir, name, run_buffer));
    SortRun* r = run.get();
    const OutputBuilder::BlockFn emit = [r](parquet::RowBatch& b, std::string_view k) { return r->Append(b, k); };
    const std::function<Status()> no_cut;
    OutputBuilder out(*schema, block_rows, block_bytes, {}, emit, no_cut, key_width);
    LITHIFY_RETURN_NOT_OK(fill(&out));
    LITHIFY_RETURN_NOT_OK(run->FinishWriting());
    return run;
  }

  void AddRun(std::unique_ptr<SortRun> run) {
    stats.bytes_spilled += run->size();
    ++stats.runs_spilled;
    runs.push_back(std::move(run));
  }

  // Sorts and writes the buffered chunk as a run, here.
  Status Spill() {
    LITHIFY_RETURN_NOT_OK(EnsureDir());
    const std::function<int64_t()> held = [this] { return run_buffer + SpillHeld(); };
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<SortRun> run, WriteRun(NextRunName(), BlockRows(), [&](OutputBuilder* out) {
                               return EmitChunk(chunk, out, held);
                             }));
    AddRun(std::move(run));
    ResetChunk();
    return Status::OK();
  }

  // Hands the buffered chunk to the spill thread (after the previous spill ended), so
  // that Add goes on buffering while it is sorted and written.
  Status SpillInBackground() {
    LITHIFY_RETURN_NOT_OK(JoinSpill());
    LITHIFY_RETURN_NOT_OK(EnsureDir());
    spill.chunk = std::move(chunk);
    ResetChunk();
    const std::string name = NextRunName();
    const int64_t block_rows = BlockRows();
    spill.thread = std::thread([this, name, block_rows] {
      // Held meanwhile: the run's write buffer and the chunk being buffered.
      const std::function<int64_t()> held = [this] {
        return run_buffer + chunk_bytes_now.load(std::memory_order_relaxed);
      };
      Result<std::unique_ptr<SortRun>> run = WriteRun(name, block_rows, [&](OutputBuilder* out) {
        return EmitChunk(spill.chunk, out, held);
      });
      if (run.ok()) {
        spill.run = std::move(*run);
      } else {
        spill.status = run.status();
      }
    });
    return Status::OK();
  }

  // Waits for the spill thread; its run joins the others. Its error, if it failed.
  Status JoinSpill() {
    if (!spill.thread.joinable()) return Status::OK();
    spill.thread.join();
    spill.chunk = Chunk();
    Status st = std::exchange(spill.status, Status::OK());
    if (spill.run) AddRun(std::move(spill.run));
    return st;
  }

  // Merges `inputs` (sorted runs, in input order) into `out`; `extra` = other bytes held.
  Status MergeRuns(const std::vector<SortRun*>& inputs, OutputBuilder* out, int64_t extra);

  // Merges groups of fan_in runs into longer runs until at most fan_in remain.
  Status ReduceRuns() {
    while (runs.size() > fan_in) {
      std::vector<std::unique_ptr<SortRun>> next;
      for (size_t g = 0; g < runs.size(); g += fan_in) {
        const size_t end = std::min(runs.size(), g + fan_in);
        if (end - g == 1) {
          next.push_back(std::move(runs[g]));
          continue;
        }
        std::vector<SortRun*> group;
        for (size_t i = g; i < end; ++i) group.push_back(runs[i].get());
        LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<SortRun> merged,
                                 WriteRun(NextRunName(), BlockRows(), [&](OutputBuilder* out) {
                                   return MergeRuns(group, out, run_buffer);  // + the new run's write buffer
                                 }));
        stats.bytes_spilled += merged->size();
        for (size_t i = g; i < end; ++i) runs[i].reset();  // their files go
        next.push_back(std::move(merged));
      }
      runs = std::move(next);
    }
    return Status::OK();
  }
};

Status ExternalSorter::Impl::MergeRuns(const std::vector<SortRun*>& inputs, OutputBuilder* out, int64_t extra) {
  const int w = key_width;
  std::vector<std::unique_ptr<RunCursor>> cursors;
  auto load = [&](RunCursor* c) -> Status {
    bool more = false;
    do {  // empty blocks (never written) are stepped over
      LITHIFY_ASSIGN_OR_RETURN(more, c->run->Next(*schema, &c->batch, &c->keys));
    } while (more && c->batch.num_rows == 0);
    if (more && static_cast<int64_t>(c->keys.size()) != c->batch.num_rows * w) {
      return Status::IOError("sort run {} is damaged: {} key bytes for {} rows", c->run->name(), c->keys.size(),
                             c->batch.num_rows);
    }
    if (!more) {
      c->done = true;
      c->batch = parquet::RowBatch();
      c->keys.clear();
      c->index = RowIndex();
      return Status::OK();
    }
    c->index = RowIndex::Of(c->batch);
    c->pos = 0;
    return Status::OK();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto c = std::make_unique<RunCursor>();
    c->id = static_cast<int>(i);
    c->run = inputs[i];
    LITHIFY_RETURN_NOT_OK(load(c.get()));
    cursors.push_back(std::move(c));
  }
  // Rows taken, in merge order, not yet gathered into the output: gathered before a run's
  // batch is replaced and at every output batch's worth.
  Sources src;
  for (auto& c : cursors) {
    src.batches.push_back(&c->batch);
    src.index.push_back(&c->index);
    src.keys.push_back(&c->keys);
  }
  // At most an output batch of refs, and no more than a block's bytes of them.
  const int64_t pending_limit = std::min<int64_t>(std::max<int64_t>(64, block_bytes / 8), options.output_batch_rows);
  std::vector<uint64_t> pending;
  pending.reserve(static_cast<size_t>(pending_limit));
  auto gather = [&]() -> Status {
    Status st = pending.empty() ? Status::OK() : out->Gather(src, pending.data(), pending.size());
    pending.clear();
    return st;
  };
  auto track = [&]() {
    int64_t held = extra + out->buffered_bytes() + static_cast<int64_t>(pending.capacity()) * 8;
    for (auto& k : cursors) held += BatchBytes(k->batch) + static_cast<int64_t>(k->keys.size()) + k->index.bytes();
    Track(held);
  };
  track();
  // Min-heap on (key at pos, run id): equal keys come from earlier runs first (stable).
  auto later = [w](const RunCursor* a, const RunCursor* b) {
    int c = CompareKeys(a->key(a->pos, w), b->key(b->pos, w), w);
    return c != 0 ? c > 0 : a->id > b->id;
  };
  std::priority_queue<RunCursor*, std::vector<RunCursor*>, decltype(later)> heap(later);
  for (auto& c : cursors) {
    if (!c->done) heap.push(c.get());
  }
  while (!heap.empty()) {
    RunCursor* c = heap.top();
    heap.pop();
    // Take rows from this run while they sort before the next run's current row.
    int64_t end = c->pos + 1;
    const RunCursor* next = heap.empty() ? nullptr : heap.top();
    while (end < c->batch.num_rows) {
      if (next != nullptr) {
        int cmp = CompareKeys(c->key(end, w), next->key(next->pos, w), w);
        if (cmp > 0 || (cmp == 0 && c->id > next->id)) break;
      }
      ++end;
    }
    const uint64_t run = static_cast<uint64_t>(c->id) << 32;
    for (int64_t r = c->pos; r < end; ++r) {
      pending.push_back(run | static_cast<uint64_t>(r));
      if (static_cast<int64_t>(pending.size()) >= pending_limit) LITHIFY_RETURN_NOT_OK(gather());
    }
    c->pos = end;
    if (c->pos >= c->batch.num_rows) {
      LITHIFY_RETURN_NOT_OK(gather());  // pending rows may point into the batch load replaces
      track();
      LITHIFY_RETURN_NOT_OK(load(c));
    }
    if (!c->done) heap.push(c);
  }
  LITHIFY_RETURN_NOT_OK(gather());
  return out->Flush();
}

ExternalSorter::ExternalSorter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ExternalSorter::~ExternalSorter() = default;

Result<std::unique_ptr<ExternalSorter>> ExternalSorter::Make(const parquet::Schema* schema, int key_width,
                                                            KeyFn key_fn, SortOptions options) {
  if (schema == nullptr) return Status::InvalidArgument("external sort: no schema");
  if (key_width < 1) return Status::InvalidArgument("external sort: key width must be positive, got {}", key_width);
  if (options.memory_budget < 1) {
    return Status::InvalidArgument("external sort: the memory budget must be positive, got {}", options.memory_budget);
  }
  if (options.output_batch_rows < 1) {
    return Status::InvalidArgument("external sort: output batch rows must be positive, got {}",
                                   options.output_batch_rows);
  }
  auto impl = std::make_unique<Impl>();
  impl->schema = schema;
  impl->key_width = key_width;
  impl->key_fn = std::move(key_fn);
  impl->options = std::move(options);
  // Budget shares: a chunk of half the budget (spilled with one run block and the run's
  // write buffer) -- with a spill thread, two chunks of a quarter, one buffering while
  // the other is sorted and written; merging, each open run costs its block with keys and row index (twice
  // the block limit, counted generously) and the runs merged at once share 3/8 of the
  // budget -- more runs are first merged in groups (ReduceRuns) -- next to the output
  // batch (an eighth). Blocks of 1/128 of the budget let one pass merge 24 runs, about
  // 12 budgets of input (blocks of 1/256 and 48 runs with a spill thread, whose chunks
  // are half as large).
  const int64_t budget = impl->options.memory_budget;
  const bool threaded = impl->options.threads > 1;
  // With threads, the output batch and the queue to the writer's thread share the eighth.
  impl->output_bytes = std::max<int64_t>(kMinOutputBytes, budget / (threaded ? 16 : 8));
  impl->block_bytes = std::max<int64_t>(kMinBlockBytes, budget / (threaded ? 256 : 128));
  impl->run_buffer = std::clamp<int64_t>(budget / 16, kMinBlockBytes, kMaxRunBufferBytes);
  impl->chunk_limit = std::max<int64_t>(1, budget / (threaded ? 4 : 2));
  const int64_t per_run = 2 * impl->block_bytes;
  impl->fan_in = static_cast<size_t>(std::clamp<int64_t>(budget * 3 / 8 / per_run, 2, 512));
  return std::unique_ptr<ExternalSorter>(new ExternalSorter(std::move(impl)));
}

Status ExternalSorter::Add(parquet::RowBatch batch) {
  Impl& s = *impl_;
  if (batch.num_rows == 0) return Status::OK();
  if (static_cast<int>(batch.columns.size()) != s.schema->num_leaves()) {
    return Status::InvalidArgument("external sort: batch has {} columns, the schema {} leaves", batch.columns.size(),
                                   s.schema->num_leaves());
  }
  // The batch's leaves are the schema's (the contract); its descriptors may point into a
  // reader's schema that goes before the rows are emitted.
  batch.first_row_index = -1;  // rows come from many places (as ResetBatch's)
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    batch.columns[c].descr = &s.schema->leaf(static_cast<int>(c));
    batch.columns[c].leaf_index = static_cast<int>(c);
  }
  std::string keys;
  LITHIFY_RETURN_NOT_OK(s.key_fn(batch, &keys));
  if (static_cast<int64_t>(keys.size()) != batch.num_rows * s.key_width) {
    return Status::Internal("sort key function gave {} bytes for {} rows of width {}", keys.size(), batch.num_rows,
                            s.key_width);
  }
  // Per buffered row: its key, its row index entries and an 8-byte ref (doubled by the
  // stable sort's buffer).
  RowIndex ix = RowIndex::Of(batch);
  const int64_t batch_bytes = BatchBytes(batch);
  const int64_t bytes = batch_bytes + static_cast<int64_t>(keys.size()) + ix.bytes() + batch.num_rows * 16;
  if (!s.chunk.empty() && s.chunk.bytes + bytes > s.chunk_limit) {
    LITHIFY_RETURN_NOT_OK(s.options.threads > 1 ? s.SpillInBackground() : s.Spill());
  }
  s.chunk.bytes += bytes;
  s.chunk_bytes_now.store(s.chunk.bytes, std::memory_order_relaxed);
  s.stats.rows += batch.num_rows;
  s.added_bytes += batch_bytes;
  s.Track(s.chunk.bytes + s.SpillHeld());
  s.chunk.batches.push_back(std::move(batch));
  s.chunk.keys.push_back(std::move(keys));
  s.chunk.index.push_back(std::move(ix));
  return Status::OK();
}

Status ExternalSorter::AddCopy(const parquet::RowBatch& batch) {
  if (static_cast<int>(batch.columns.size()) != impl_->schema->num_leaves()) {
    return Status::InvalidArgument("external sort: batch has {} columns, the schema {} leaves", batch.columns.size(),
                                   impl_->schema->num_leaves());
  }
  parquet::RowBatch copy;
  ResetBatch(*impl_->schema, &copy);
  AppendRows(batch, 0, batch.num_rows, &copy);
  return Add(std::move(copy));
}

Status ExternalSorter::Finish(const std::vector<int64_t>& cuts, const EmitFn& emit,
                              const std::function<Status()>& on_cut) {
  Impl& s = *impl_;
  for (size_t i = 0; i < cuts.size(); ++i) {
    if (cuts[i] <= 0 || cuts[i] >= s.stats.rows || (i > 0 && cuts[i] <= cuts[i - 1])) {
      return Status::InvalidArgument("external sort: cut {} is not within (0, {}) ascending", cuts[i], s.stats.rows);
    }
  }
  Status st = s.JoinSpill();
  if (!st.ok()) {
    s.Cleanup();
    return st;
  }
  // With a thread to spare, the caller's writer runs next to the merge: emitted batches
  // wait in a queue of up to an output batch's bytes (counted as held by the merge).
  std::unique_ptr<AsyncEmitter> async;
  OutputBuilder::BlockFn block = Rows(emit);
  std::function<Status()> cut = on_cut;
  int64_t queued = 0;
  if (s.options.threads > 1) {
    queued = s.output_bytes;
    async = std::make_unique<AsyncEmitter>(emit, on_cut, queued);
    block = [&async](parquet::RowBatch& b, std::string_view) { return async->Push(b); };
    cut = [&async] { return async->Cut(); };
  }
  if (s.runs.empty()) {
    // Everything fits: sort in memory, no temporary file. The output batch is bounded
    // by the row limit and by what the budget leaves.
    OutputBuilder out(*s.schema, s.options.output_batch_rows, s.output_bytes, cuts, block, cut);
    st = s.EmitChunk(s.chunk, &out, [queued] { return queued; });
    s.ResetChunk();
  } else {
    if (!s.chunk.empty()) st = s.Spill();
    ReleaseFreedMemory();
    if (st.ok()) st = s.ReduceRuns();
    if (st.ok()) {
      OutputBuilder out(*s.schema, s.options.output_batch_rows, s.output_bytes, cuts, block, cut);
      std::vector<SortRun*> runs;
      for (const auto& r : s.runs) runs.push_back(r.get());
      st = s.MergeRuns(runs, &out, queued);
    }
  }
  if (async) {
    // A failed merge drops what is queued; a failed write is the error either way.
    Status written = async->Close(/*drain=*/st.ok());
    if (st.ok()) st = std::move(written);
  }
  s.Cleanup();
  return st;
}

int64_t ExternalSorter::rows() const { return impl_->stats.rows; }
const SortStats& ExternalSorter::stats() const {
  impl_->stats.peak_buffered_bytes = impl_->peak.load();
  return impl_->stats;
}

}  // namespace lithify::exec
