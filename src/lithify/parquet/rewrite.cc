#include "lithify/parquet/rewrite.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"

namespace lithify::parquet {
namespace {

// "a.b.c" of schema node n.
std::string NodePath(const Schema& s, int n) {
  std::string path;
  for (; n > 0; n = s.node(n).parent) {
    path = path.empty() ? s.node(n).name : s.node(n).name + "." + path;
  }
  return path;
}

// "optional INT64 TIMESTAMP_MICROS id=3"-like summary of one schema element, enough to
// see why two columns differ.
std::string Describe(const SchemaElement& e) {
  std::string d = e.repetition_type ? RepetitionName(*e.repetition_type) : "";
  d += " ";
  d += e.type ? PhysicalTypeName(*e.type)
              : fmt::format("group({} fields)", e.num_children.value_or(0));
  if (e.type_length) d += fmt::format("({})", *e.type_length);
  if (e.converted_type) d += fmt::format(" {}", ConvertedTypeName(*e.converted_type));
  if (e.logical_type.kind != LogicalType::Kind::kNone) {
    d += fmt::format(" logical#{}", static_cast<int>(e.logical_type.kind));
  }
  if (e.precision || e.scale) {
    d += fmt::format(" ({},{})", e.precision.value_or(0), e.scale.value_or(0));
  }
  if (e.field_id) d += fmt::format(" id={}", *e.field_id);
  return d;
}

bool SameElement(const SchemaElement& a, const SchemaElement& b) {
  return a.name == b.name && a.type == b.type && a.type_length == b.type_length &&
         a.repetition_type == b.repetition_type && a.num_children == b.num_children &&
         a.converted_type == b.converted_type && a.scale == b.scale &&
         a.precision == b.precision && a.field_id == b.field_id &&
         a.logical_type == b.logical_type;
}

// Pairs present with the same value in every input, in the first input's order.
std::vector<KeyValue> CommonKeyValues(const std::vector<std::vector<KeyValue>>& all) {
  std::vector<KeyValue> out;
  if (all.empty()) return out;
  for (const KeyValue& kv : all[0]) {
    bool everywhere = true;
    for (size_t i = 1; i < all.size() && everywhere; ++i) {
      everywhere = std::find(all[i].begin(), all[i].end(), kv) != all[i].end();
    }
    if (everywhere) out.push_back(kv);
  }
  return out;
}

// One input row group, or one slice of a split one, placed in the output.
struct Part {
  int input = 0;
  int rg = 0;
  int64_t num_rows = 0;   // rows of the part
  int64_t first_row = 0;  // file row index of its first row
  int64_t offset = 0;     // its first row within the row group (a later slice's > 0)
  int64_t rg_rows = 0;    // rows of the whole row group
  bool slice = false;     // one of several slices of a split row group
};

// A split row group's slices have at least this many rows (unless the row group has
// fewer): a tiny target must not turn every row into a row group of its own.
constexpr int64_t kMinSliceRows = 1024;

struct Group {
  std::vector<Part> parts;
  bool copy = false;  // one part, copied without decoding unless the filter drops rows
  // By output leaf: the compressed bytes its inputs hold for this group (in proportion to
  // rows for slices), the size a column buffer is reserved to (see Launch).
  std::vector<int64_t> leaf_bytes;
};

// Adds to g.leaf_bytes what `rows` of row group `md`'s chunks hold for each output leaf.
void AddLeafBytes(const RowGroup& md, const ColumnMap& map, int64_t rows, Group* g) {
  if (g->leaf_bytes.size() < map.leaves.size()) g->leaf_bytes.resize(map.leaves.size(), 0);
  for (size_t c = 0; c < map.leaves.size(); ++c) {
    const int leaf = map.leaves[c].file_leaf;
    if (leaf < 0 || static_cast<size_t>(leaf) >= md.columns.size() || !md.columns[leaf].meta_data) continue;
    const int64_t bytes = md.columns[leaf].meta_data->total_compressed_size;
    g->leaf_bytes[c] += static_cast<int64_t>(static_cast<__int128>(bytes) * rows / std::max<int64_t>(1, md.num_rows));
  }
}

Result<std::unique_ptr<FileReader>> OpenInput(io::FileSystem* fs, const std::string& path,
                                              const ReadOptions& ropts, int64_t* size) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto file, fs->OpenForRead(path), "{}", path);
  if (size != nullptr) *size = static_cast<int64_t>(file->size());
  return FileReader::Open(std::move(file), ropts);
}

int64_t RowGroupCompressedBytes(const RowGroup& rg) {
  if (rg.total_compressed_size && *rg.total_compressed_size > 0) return *rg.total_compressed_size;
  int64_t total = 0;
  for (const ColumnChunk& c : rg.columns) {
    if (c.meta_data) total += c.meta_data->total_compressed_size;
  }
  return total;
}

// Whether every chunk of `rg` is compressed with `codec` (a copied row group keeps its
// chunks' codec; one in another codec is re-encoded so the output is what was asked for).
bool AllChunksIn(const RowGroup& rg, CompressionCodec codec) {
  return std::all_of(rg.columns.begin(), rg.columns.end(),
                     [&](const ColumnChunk& c) { return c.meta_data && c.meta_data->codec == codec; });
}

// Pages smaller than the output's page size for their column divided by this are
// re-encoded, not copied: a smaller page of another writer compresses worse than the
// page the writer would cut (parquet-mr's 1 MiB string pages of TPC-H comments: 1.4x
// the 4 MiB pages; its 470 KiB PLAIN INT64 pages: 1.6x), so copying it would keep
// the output larger than a fresh rewrite, the opposite of what compaction is for.
constexpr int64_t kMinCopyPageFraction = 2;

// Writes the planned groups. Separate from RewriteFiles so that every early return
// leaves `writer` to be abandoned by the caller.
//
// On several threads the groups form one pipeline (see WriteGroup): the leaves of two
// consecutive groups may be in flight at once, and a group is ended, and reported done,
// when its last leaf is appended, which may be during a later WriteGroup call.
class Rewriter {
 public:
  // `held`: readers kept open from planning, by input (null where none); each is closed
  // once the group `last_group[input]` is done (ReleaseAfter). `progress`: the
  // rewrite's, updated and reported (options.progress) as leaves and groups are done.
  Rewriter(io::FileSystem* fs, const std::vector<std::string>& inputs, const std::vector<ColumnMap>& maps,
           const RewriteOptions& options, FileWriter* writer, std::vector<std::unique_ptr<FileReader>> held,
           std::vector<int> last_group, RewriteProgress* progress)
      : fs_(fs), inputs_(inputs), maps_(maps), options_(options), writer_(writer), held_(std::move(held)),
        last_group_(std::move(last_group)), progress_(progress) {}

  // A failed rewrite returns with column tasks in flight: they are waited for before
  // anything they use goes.
  ~Rewriter() { CancelInFlight(); }

  // Writes group `index` of the plan; groups are given in plan order, each once, and
  // `g` outlives the Rewriter. On the parallel path its leaves are launched and the
  // call returns while some still run: they are appended by later calls (and Finish).
  // A group written on this thread (one thread for its leaves, a row group copy, or
  // every row filtered out) first waits for and appends everything in flight. On error
  // every task has been waited for and the writer is to be abandoned.
  Status WriteGroup(int index, const Group& g) {
    Status st = StartGroup(index, g);
    if (!st.ok()) CancelInFlight();
    return st;
  }

  // Appends the leaves still in flight (and ends their row groups). Call after the last
  // WriteGroup.
  Status Finish() {
    Status st = Drain();
    if (!st.ok()) CancelInFlight();
    return st;
  }

  int64_t row_groups_copied() const { return copied_; }
  int64_t pages_copied() const { return pages_copied_.load(); }

 private:
  // Rows to keep, by part of a group (unset: all of them).
  using Masks = std::vector<std::optional<std::vector<bool>>>;

  // What the encoding of one leaf reuses from batch to batch. A column task owns one for
  // its whole run: nothing in it is shared with a task running at the same time.
  struct LeafWork {
    ColumnSink* sink = nullptr;  // where the leaf's chunk goes
    RowBatch batch;
    std::vector<bool> keep;      // the current batch's slice of a row filter mask
    ColumnData page;             // a copied page's decoded content
    Buffer scratch;              // converted values (ConvertLeafValues)
  };

  // A group on the parallel path, from its first leaf's launch until its row group is
  // ended. Its leaves in flight share it, so what they read lives as long as the last
  // of them: masks, readers, and the inputs opened for it.
  struct GroupRun {
    int index = 0;  // in the plan
    const Group* g = nullptr;
    Masks masks;
    std::vector<FileReader*> readers;                 // by part (GroupReaders)
    std::map<int, std::unique_ptr<FileReader>> open;  // the inputs opened for the group (open_)
    int64_t rows = 0;                                 // of its row group
  };

  // One leaf in flight: encoding, or done and waiting for an earlier leaf's append.
  struct InFlight {
    std::shared_ptr<GroupRun> run;
    int leaf = 0;
    std::unique_ptr<ColumnBuffer> buffer;
    std::unique_ptr<TaskGroup> task;  // destroyed first: waits for the task using `buffer` and `run`
  };

  // FileWriter's open column as a ColumnSink (the one-thread path streams to the file).
  class StreamedColumn final : public ColumnSink {
   public:
    explicit StreamedColumn(FileWriter* w) : w_(w) {}
    Status WriteColumn(const ColumnData& col, int64_t num_rows) override { return w_->WriteColumn(col, num_rows); }
    bool AcceptsEncodedPages() const override { return w_->ColumnAcceptsEncodedPages(); }
    Status AppendEncodedPage(const PageHeader& header, ByteView payload, const ColumnData& page,
                             int64_t num_rows) override {
      return w_->AppendEncodedPage(header, payload, page, num_rows);
    }

   private:
    FileWriter* w_;
  };

  // The failures of the column tasks: the rewrite returns the first in (group, leaf)
  // order, the error the one-thread path would have met first. Leaves are numbered in
  // launch order, which is that order; once one failed, tasks of later leaves not yet
  // started are skipped, those of earlier ones still run (one of them may fail first).
  class LeafFailures {
   public:
    // Whether a leaf launched before the `seq`th failed.
    bool Before(int64_t seq) const { return first_.load() < seq; }
    void Add(int64_t seq, const Status& st) {
      std::lock_guard<std::mutex> lock(mu_);
      if (seq < first_.load()) {
        status_ = st;
        first_.store(seq);
      }
    }
    Status First() {
      std::lock_guard<std::mutex> lock(mu_);
      return status_;
    }

   private:
    std::atomic<int64_t> first_{std::numeric_limits<int64_t>::max()};
    std::mutex mu_;
    Status status_;
  };

  static bool NoneKept(const std::optional<std::vector<bool>>& mask) {
    return mask && std::none_of(mask->begin(), mask->end(), [](bool b) { return b; });
  }

  // Closes the held readers no group after `g` needs.
  void ReleaseAfter(int g) {
    for (size_t i = 0; i < held_.size(); ++i) {
      if (held_[i] && last_group_[i] <= g) held_[i].reset();
    }
  }

  Status StartGroup(int index, const Group& g) {
    // Masks first: the row group's row count must be known before its first column.
    Masks masks(g.parts.size());
    int64_t rows = 0;
    LITHIFY_RETURN_NOT_OK(AfterInFlight(GroupMasks(g, &masks, &rows)));
    const bool copy = g.copy && !masks[0];
    const int threads = ColumnThreads(g);
    if (rows > 0 && !copy && threads > 1) return StartLeaves(index, g, std::move(masks), rows, threads);
    LITHIFY_RETURN_NOT_OK(Drain());
    if (rows > 0) LITHIFY_RETURN_NOT_OK(copy ? CopyGroup(g.parts[0]) : WriteInOrder(g, masks, rows));
    GroupDone(index, rows);
    return Status::OK();
  }

  // The row filter's masks of the group's parts, and the rows they keep.
  Status GroupMasks(const Group& g, Masks* masks, int64_t* rows) {
    for (size_t k = 0; k < g.parts.size(); ++k) {
      const Part& p = g.parts[k];
      if (!options_.row_filter) {
        *rows += p.num_rows;
        continue;
      }
      LITHIFY_ASSIGN_OR_RETURN_CTX(std::vector<bool> keep,
                                   options_.row_filter(p.input, p.first_row, p.num_rows),
                                   "{}: row group {}: row filter", inputs_[p.input], p.rg);
      if (static_cast<int64_t>(keep.size()) != p.num_rows) {
        return Status::InvalidArgument("{}: row group {}: the row filter returned {} flags for {} rows",
                                       inputs_[p.input], p.rg, keep.size(), p.num_rows);
      }
      int64_t kept = std::count(keep.begin(), keep.end(), true);
      *rows += kept;
      if (kept != p.num_rows) (*masks)[k] = std::move(keep);
    }
    return Status::OK();
  }

  // `st`, an error met while starting a group, unless a leaf in flight of an earlier
  // group (or of this one, launched before) fails: the one-thread path would have met
  // that first. Appends what is in flight to find out.
  Status AfterInFlight(Status st) {
    if (st.ok()) return st;
    Status earlier = Drain();
    return earlier.ok() ? st : earlier;
  }

  // Group `index` is in the file, or has no rows: its rows count, the held readers no
  // later group needs are closed, and progress is reported (in plan order).
  void GroupDone(int index, int64_t rows) {
    progress_->rows_written += rows;
    ReleaseAfter(index);
    ++progress_->row_groups_done;
    progress_->columns_done = 0;
    if (options_.progress) options_.progress(*progress_);
  }

  void ColumnDone(int c) const {
    progress_->columns_done = c + 1;
    if (options_.progress) options_.progress(*progress_);
  }

  // How many of the group's column chunks are encoded at once: options_.threads, or
  // the CPU pool's size, at most the leaves. 1 when the group holds slices of two split
  // row groups: their leaves share slice_, which follows one split row group.
  int ColumnThreads(const Group& g) const {
    int threads = options_.threads > 0 ? options_.threads : CpuPool().max_threads();
    threads = std::min(threads, writer_->schema().num_leaves());
    const Part* slice = nullptr;
    for (const Part& p : g.parts) {
      if (!p.slice) continue;
      if (slice != nullptr && (slice->input != p.input || slice->rg != p.rg)) return 1;
      slice = &p;
    }
    return std::max(threads, 1);
  }

  // Opens, on this thread, what the group's leaves read: by part, the reader of a whole
  // row group part (null where it is to be opened per leaf: max_open_inputs are open),
  // and the split row group of its first slice (slice_). Parts the filter empties are
  // not opened.
  Result<std::vector<FileReader*>> GroupReaders(const Group& g, const Masks& masks) {
    std::vector<FileReader*> readers(g.parts.size(), nullptr);
    bool slice_ready = false;
    for (size_t k = 0; k < g.parts.size(); ++k) {
      const Part& p = g.parts[k];
      if (NoneKept(masks[k])) continue;
      if (!p.slice) {
        LITHIFY_ASSIGN_OR_RETURN(readers[k], CachedReader(p));
      } else if (!slice_ready) {
        if (slice_.input != p.input || slice_.rg != p.rg) LITHIFY_RETURN_NOT_OK(OpenSliceReader(p));
        slice_ready = true;
      }
    }
    return readers;
  }

  // Whether GroupReaders would open another split row group for the group: that
  // replaces slice_, whose streams leaves in flight may still read.
  bool OpensSlice(const Group& g, const Masks& masks) const {
    for (size_t k = 0; k < g.parts.size(); ++k) {
      const Part& p = g.parts[k];
      if (p.slice && !NoneKept(masks[k])) return slice_.input != p.input || slice_.rg != p.rg;
    }
    return false;
  }

  // Writes leaf c of group g into w->sink, part after part. Touches only leaf c's state
  // (its slice stream, w), the shared readers through their thread-safe Open* calls, and
  // pages_copied_: leaves of one group, and of consecutive groups, may run at once.
  Status WriteLeaf(const Group& g, const Masks& masks, const std::vector<FileReader*>& readers, int c,
                   LeafWork* w) {
    for (size_t k = 0; k < g.parts.size(); ++k) {
      const Part& p = g.parts[k];
      if (NoneKept(masks[k])) continue;  // nothing kept: do not even read it
      const std::vector<bool>* mask = masks[k] ? &*masks[k] : nullptr;
      if (p.slice) {
        LITHIFY_RETURN_NOT_OK(CopySliceColumn(p, c, mask, w));
      } else if (readers[k] != nullptr) {
        LITHIFY_RETURN_NOT_OK(CopyColumn(p, c, readers[k], mask, w));
      } else {
        LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<FileReader> own, OpenChecked(p));
        LITHIFY_RETURN_NOT_OK(CopyColumn(p, c, own.get(), mask, w));
      }
    }
    return Status::OK();
  }

  // The group as one row group written on this thread, leaf after leaf, pages streamed
  // to the output as they are cut (the one-thread path).
  Status WriteInOrder(const Group& g, const Masks& masks, int64_t rows) {
    LITHIFY_ASSIGN_OR_RETURN(std::vector<FileReader*> readers, GroupReaders(g, masks));
    LITHIFY_RETURN_NOT_OK(writer_->BeginRowGroup(rows));
    StreamedColumn sink(writer_);
    in_order_.sink = &sink;
    for (int c = 0; c < writer_->schema().num_leaves(); ++c) {
      LITHIFY_RETURN_NOT_OK(writer_->BeginColumn(c));
      LITHIFY_RETURN_NOT_OK(WriteLeaf(g, masks, readers, c, &in_order_));
      LITHIFY_RETURN_NOT_OK(writer_->EndColumn());
      ColumnDone(c);
    }
    LITHIFY_RETURN_NOT_OK(writer_->EndRowGroup());
    // Readers are kept per output row group only: the next group mostly reads other files.
    open_.clear();
    return Status::OK();
  }

  // The parallel path: the group's leaves are launched as CPU-pool tasks, each encoding
  // into a column buffer, appended in (group, leaf) order. A window of 2 x threads
  // leaves is in flight (encoding, or done and waiting for an earlier leaf): a short
  // leaf behind a long one does not idle a thread, and at most that many chunks are
  // held in memory. The window spans group boundaries: leaf c of this group starts once
  // leaf c of the group before is appended (its column writer carries the leaf's
  // dictionary and statistics from row group to row group), not once that whole group
  // is, so the group's last long leaf does not idle the other threads. Each leaf is a
  // TaskGroup of its own, so that the oldest can be waited for alone; its waiter (this
  // thread) runs it when no pool thread has taken it, so a bin running on a pool thread
  // never deadlocks here.
  Status StartLeaves(int index, const Group& g, Masks masks, int64_t rows, int threads) {
    const auto window = static_cast<size_t>(2 * threads);
    // Opening another split row group replaces streams that leaves in flight may read,
    // and the LeafWork slots are numbered for one window size.
    if (OpensSlice(g, masks) || window != window_) LITHIFY_RETURN_NOT_OK(Drain());
    window_ = window;
    if (work_.size() < window) work_.resize(window);
    auto run = std::make_shared<GroupRun>();
    run->index = index;
    run->g = &g;
    run->masks = std::move(masks);
    run->rows = rows;
    Result<std::vector<FileReader*>> readers = GroupReaders(g, run->masks);
    if (!readers.ok()) return AfterInFlight(readers.status());
    run->readers = std::move(*readers);
    // The group's inputs stay open until its last leaf is done, whatever later groups open.
    run->open = std::move(open_);
    open_.clear();
    for (int c = 0; c < writer_->schema().num_leaves(); ++c) {
      LITHIFY_RETURN_NOT_OK(MakeRoom(*run, c));
      LITHIFY_RETURN_NOT_OK(AfterInFlight(Launch(run, c)));
    }
    return Status::OK();
  }

  // Appends the oldest leaves in flight until leaf c of `run` may start: the window has
  // room and leaf c of the group before, if any is in flight, is appended (its leaves
  // in flight are the oldest, in leaf order).
  Status MakeRoom(const GroupRun& run, int c) {
    while (!in_flight_.empty() &&
           (in_flight_.size() >= window_ || (in_flight_.front().run.get() != &run && in_flight_.front().leaf <= c))) {
      LITHIFY_RETURN_NOT_OK(AppendOldest());
    }
    return Status::OK();
  }

  // Begins leaf c's buffer of `run` and starts its task.
  Status Launch(std::shared_ptr<GroupRun> run, int c) {
    // Reserved to its inputs' compressed size: pages copied as stored fill it without
    // regrowth (each regrowth copies the chunk so far into fresh, page-faulting memory).
    const std::vector<int64_t>& leaf_bytes = run->g->leaf_bytes;
    const auto hint = static_cast<size_t>(c < static_cast<int>(leaf_bytes.size()) ? leaf_bytes[c] : 0);
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<ColumnBuffer> buffer, BeginBuffer(run, c, hint));
    const int64_t seq = launched_++;
    // The slot of the leaf launched a window before, which is appended by now: the
    // leaves in flight are consecutive in launch order and at most a window.
    LeafWork* w = &work_[static_cast<size_t>(seq) % window_];
    w->sink = buffer.get();
    ColumnBuffer* out = buffer.get();
    const GroupRun* r = run.get();
    auto task = std::make_unique<TaskGroup>(CpuPool(), 1);
    task->Run([this, r, c, seq, w, out]() -> Status {
      if (failures_.Before(seq)) return Status::Cancelled("column {}: an earlier column failed", c);
      Status st = WriteLeaf(*r->g, r->masks, r->readers, c, w);
      if (st.ok()) st = out->Finish();
      if (!st.ok()) failures_.Add(seq, st);
      return st;
    });
    in_flight_.push_back({std::move(run), c, std::move(buffer), std::move(task)});
    return Status::OK();
  }

  // Leaf c's buffer of `run`: in its row group, begun now when none is open; or, while
  // the group before is still open in the writer, for the next row group.
  Result<std::unique_ptr<ColumnBuffer>> BeginBuffer(const std::shared_ptr<GroupRun>& run, int c, size_t hint) {
    if (!open_run_) {
      LITHIFY_RETURN_NOT_OK(writer_->BeginRowGroup(run->rows));
      open_run_ = run;
    }
    if (open_run_ == run) return writer_->BeginColumnBuffer(c, hint);
    return writer_->BeginNextRowGroupBuffer(c, run->rows, hint);
  }

  // Appends the oldest leaf in flight once its task is done; after its group's last
  // leaf, ends the group (EndGroup).
  Status AppendOldest() {
    InFlight& f = in_flight_.front();
    if (Status st = f.task->Wait(); !st.ok()) {
      CancelInFlight();  // waits for the others: the first failure is then known
      Status first = failures_.First();
      return first.ok() ? st : first;  // not recorded: an exception, Internal
    }
    LITHIFY_RETURN_NOT_OK(writer_->AppendColumnBuffer(std::move(f.buffer)));
    const int leaf = f.leaf;
    in_flight_.pop_front();
    ColumnDone(leaf);
    return leaf + 1 == writer_->schema().num_leaves() ? EndGroup() : Status::OK();
  }

  // Ends the open row group, whose leaves are all appended, and reports its group done;
  // then begins the next group's row group if leaves of it are in flight (their buffers
  // were begun for it).
  Status EndGroup() {
    LITHIFY_RETURN_NOT_OK(writer_->EndRowGroup());
    const std::shared_ptr<GroupRun> done = std::exchange(open_run_, nullptr);
    GroupDone(done->index, done->rows);
    if (!in_flight_.empty()) {
      open_run_ = in_flight_.front().run;
      LITHIFY_RETURN_NOT_OK(writer_->BeginRowGroup(open_run_->rows));
    }
    return Status::OK();
  }

  // Appends everything in flight.
  Status Drain() {
    while (!in_flight_.empty()) LITHIFY_RETURN_NOT_OK(AppendOldest());
    return Status::OK();
  }

  // Waits for every task in flight and drops their buffers (after a failure).
  void CancelInFlight() { in_flight_.clear(); }

  // The row group being split: its own reader and one page stream per leaf, kept open
  // from slice to slice (output row groups are written column by column, so each leaf
  // continues where the previous slice's row group stopped: every chunk is decoded once).
  // How output leaf c is read from part p's input.
  const LeafMap& Map(const Part& p, int c) const {
    return maps_[static_cast<size_t>(p.input)].leaves[static_cast<size_t>(c)];
  }
  int FileLeaf(const Part& p, int c) const { return Map(p, c).file_leaf; }

  struct SliceCursor {
    int input = -1;
    int rg = -1;
    std::unique_ptr<FileReader> reader;
    std::vector<std::unique_ptr<ColumnPageStream>> streams;  // by leaf
    std::vector<int64_t> pos;                                // rows of the row group read, by leaf
  };

  Status OpenSliceReader(const Part& p) {
    slice_.streams.clear();  // before the reader whose file they borrow
    slice_ = SliceCursor{};
    LITHIFY_ASSIGN_OR_RETURN(slice_.reader, OpenInput(fs_, inputs_[p.input], options_.reader, nullptr));
    if (p.rg >= slice_.reader->num_row_groups() || slice_.reader->metadata().row_groups[p.rg].num_rows != p.rg_rows) {
      return Status::IOError("{}: changed during the rewrite (row group {} differs)", inputs_[p.input], p.rg);
    }
    slice_.input = p.input;
    slice_.rg = p.rg;
    const int leaves = writer_->schema().num_leaves();
    slice_.streams.resize(static_cast<size_t>(leaves));
    slice_.pos.assign(static_cast<size_t>(leaves), 0);
    return Status::OK();
  }

  // Leaf c's stream of p's row group, positioned at p.offset (rows of slices whose output
  // row group was not written, all their rows filtered out, are decoded and skipped).
  Result<ColumnPageStream*> SliceStream(const Part& p, int c, LeafWork* w) {
    if (slice_.input != p.input || slice_.rg != p.rg) LITHIFY_RETURN_NOT_OK(OpenSliceReader(p));
    std::unique_ptr<ColumnPageStream>& stream = slice_.streams[static_cast<size_t>(c)];
    int64_t& pos = slice_.pos[static_cast<size_t>(c)];
    if (!stream || pos > p.offset) {
      LITHIFY_ASSIGN_OR_RETURN(stream, slice_.reader->OpenColumnPages(p.rg, FileLeaf(p, c), options_.batch_rows, kForm));
      pos = 0;
    }
    while (pos < p.offset) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->NextAtMost(&w->batch, std::min(options_.batch_rows, p.offset - pos)));
      if (!more) break;
      pos += w->batch.num_rows;
    }
    if (pos != p.offset) {
      return Status::Corruption("{}: row group {}: column '{}' ends after {} rows, the footer says {}",
                                inputs_[p.input], p.rg, writer_->schema().leaf(c).dotted_path, pos, p.rg_rows);
    }
    return stream.get();
  }

  // CopyColumn for a slice of a split row group: rows [p.offset, p.offset + p.num_rows)
  // of leaf c, pages copied where they lie wholly inside the slice.
  Status CopySliceColumn(const Part& p, int c, const std::vector<bool>* mask, LeafWork* w) {
    LITHIFY_ASSIGN_OR_RETURN(ColumnPageStream * stream, SliceStream(p, c, w));
    int64_t& pos = slice_.pos[static_cast<size_t>(c)];
    const int64_t end = p.offset + p.num_rows;
    const bool may_copy = MayCopyPages(p, c, slice_.reader.get());
    int64_t seen = 0;
    while (pos < end) {
      if (may_copy && w->sink->AcceptsEncodedPages()) {
        ColumnPageStream::Page page;
        LITHIFY_ASSIGN_OR_RETURN(bool has_page, stream->PeekPage(&page));
        if (has_page && page.num_rows > 0 && page.first_row + page.num_rows <= end && CanCopyPage(page, c, mask, p.offset)) {
          LITHIFY_ASSIGN_OR_RETURN(int64_t rows, AppendPage(p, page, stream, w));
          pos += rows;
          seen += rows;
          continue;
        }
      }
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->NextAtMost(&w->batch, std::min(options_.batch_rows, end - pos)));
      if (!more) break;
      pos += w->batch.num_rows;
      LITHIFY_RETURN_NOT_OK(WriteBatch(p, c, mask, &seen, w));
    }
    if (pos == p.rg_rows) slice_.streams[static_cast<size_t>(c)].reset();  // the last slice: free its buffers
    return CheckAllRows(p, c, seen);
  }

  // Appends input row group p unchanged (its chunks' bytes).
  Status CopyGroup(const Part& p) {
    std::unique_ptr<FileReader> transient;
    LITHIFY_ASSIGN_OR_RETURN(FileReader * reader, CachedReader(p));
    if (reader == nullptr) {
      LITHIFY_ASSIGN_OR_RETURN(transient, OpenChecked(p));
      reader = transient.get();
    }
    LITHIFY_ASSIGN_OR_RETURN_CTX(auto file, fs_->OpenForRead(inputs_[p.input]), "{}", inputs_[p.input]);
    LITHIFY_RETURN_NOT_OK_CTX(writer_->AppendRowGroupCopy(file.get(), reader->metadata().row_groups[p.rg]),
                              "row group {}", p.rg);
    open_.clear();
    ++copied_;
    return Status::OK();
  }

  // The reader of p.input, held or cached while fewer than max_open_inputs are open
  // (counting those the group in flight before keeps open); null when that many are
  // (each leaf then opens its own: OpenChecked).
  Result<FileReader*> CachedReader(const Part& p) {
    if (held_[p.input]) return held_[p.input].get();  // the plan's own reader: nothing to recheck
    auto it = open_.find(p.input);
    if (it != open_.end()) return it->second.get();
    const size_t earlier = open_run_ ? open_run_->open.size() : 0;
    if (static_cast<int64_t>(open_.size() + earlier) >= std::max(1, options_.max_open_inputs)) return nullptr;
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<FileReader> r, OpenChecked(p));
    FileReader* raw = r.get();
    open_.emplace(p.input, std::move(r));
    return raw;
  }

  // Opens p.input again. The plan came from an earlier read of the footer; a file
  // replaced in between must not be half-mixed into the output. Thread-safe.
  Result<std::unique_ptr<FileReader>> OpenChecked(const Part& p) const {
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<FileReader> r,
                             OpenInput(fs_, inputs_[p.input], options_.reader, nullptr));
    if (p.rg >= r->num_row_groups() || r->metadata().row_groups[p.rg].num_rows != p.num_rows) {
      return Status::IOError("{}: changed during the rewrite (row group {} differs)",
                             inputs_[p.input], p.rg);
    }
    return r;
  }

  // Whether leaf c of input row group p may hold pages to copy: page copy is on, the
  // codec is the output's, and the chunk's encoding stats (when present) list PLAIN
  // data pages of a kind that can be copied (v2 only for repeated columns).
  bool MayCopyPages(const Part& p, int c, FileReader* reader) const {
    // Remapped levels would need the page's level runs rewritten; converted values, the
    // page re-encoded.
    if (!options_.copy_plain_pages || !Map(p, c).def_map.empty() || Map(p, c).conversion != ValueConversion::kNone) {
      return false;
    }
    const ColumnMetaData& md = *reader->metadata().row_groups[p.rg].columns[FileLeaf(p, c)].meta_data;
    if (md.codec != options_.writer.codec) return false;
    if (md.encoding_stats.empty()) return true;
    const bool repeated = writer_->schema().leaf(c).max_rep > 0;
    return std::any_of(md.encoding_stats.begin(), md.encoding_stats.end(), [&](const PageEncodingStats& e) {
      return e.encoding == Encoding::kPlain && e.count > 0 &&
             (e.page_type == PageType::kDataPageV2 || (e.page_type == PageType::kDataPage && !repeated));
    });
  }

  // Whether `page` can be appended unchanged: PLAIN values, levels as the writer
  // writes them, rows known from the header, every one kept by the filter.
  // `part_offset` is the part's first row within the row group (the mask's row 0).
  bool CanCopyPage(const ColumnPageStream::Page& page, int c, const std::vector<bool>* mask,
                   int64_t part_offset = 0) const {
    const PageHeader& h = *page.header;
    if (page.num_rows <= 0) return false;
    // Tiny pages of another writer would stay tiny (worse compression, more headers);
    // re-encoding merges them into pages of the output's size.
    const bool byte_array = writer_->schema().leaf(c).physical_type == PhysicalType::kByteArray;
    const int64_t target = byte_array ? options_.writer.PlainByteArrayPageSize() : options_.writer.page_size_bytes;
    if (h.uncompressed_page_size < target / kMinCopyPageFraction) return false;
    if (h.type == PageType::kDataPage && h.data_page_header) {
      const DataPageHeader& d = *h.data_page_header;
      if (d.encoding != Encoding::kPlain) return false;
      if (writer_->schema().leaf(c).max_def > 0 && d.definition_level_encoding != Encoding::kRle) {
        return false;
      }
    } else if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
      if (h.data_page_header_v2->encoding != Encoding::kPlain) return false;
    } else {
      return false;
    }
    if (mask == nullptr) return true;
    const int64_t first = page.first_row - part_offset;
    if (first < 0 || first + page.num_rows > static_cast<int64_t>(mask->size())) return false;
    auto begin = mask->begin() + first;
    return std::find(begin, begin + page.num_rows, false) == begin + page.num_rows;
  }

  // Streams leaf c of input row group p into the open output column, one batch of rows
  // at a time (the stream owns its page buffers and frees them at the end, so an open
  // FileReader holds only its footer).
  Status CopyColumn(const Part& p, int c, FileReader* reader, const std::vector<bool>* mask, LeafWork* w) {
    if (MayCopyPages(p, c, reader)) return CopyColumnPages(p, c, reader, mask, w);
    LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(p.rg, {FileLeaf(p, c)}, options_.batch_rows, kForm));
    int64_t seen = 0;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&w->batch));
      if (!more) break;
      LITHIFY_RETURN_NOT_OK(WriteBatch(p, c, mask, &seen, w));
    }
    return CheckAllRows(p, c, seen);
  }

  // CopyColumn with page copy: at each page boundary where the output chunk takes
  // encoded pages, a copyable page is appended unchanged; everything else goes
  // through batches that stop at page boundaries.
  Status CopyColumnPages(const Part& p, int c, FileReader* reader, const std::vector<bool>* mask, LeafWork* w) {
    LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenColumnPages(p.rg, FileLeaf(p, c), options_.batch_rows, kForm));
    int64_t seen = 0;
    for (;;) {
      if (w->sink->AcceptsEncodedPages()) {
        ColumnPageStream::Page page;
        LITHIFY_ASSIGN_OR_RETURN(bool has_page, stream->PeekPage(&page));
        if (has_page && CanCopyPage(page, c, mask)) {
          LITHIFY_ASSIGN_OR_RETURN(int64_t rows, AppendPage(p, page, stream.get(), w));
          seen += rows;
          continue;
        }
      }
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&w->batch));
      if (!more) break;
      LITHIFY_RETURN_NOT_OK(WriteBatch(p, c, mask, &seen, w));
    }
    return CheckAllRows(p, c, seen);
  }

  // Writes w->batch (the next rows of part p's leaf c, `*seen` of them already written),
  // thinned by the part's mask; checks it continues the part where the last one ended.
  Status WriteBatch(const Part& p, int c, const std::vector<bool>* mask, int64_t* seen, LeafWork* w) {
    RowBatch& batch = w->batch;
    const int64_t n = batch.num_rows;
    const int64_t offset = batch.first_row_index - p.first_row;
    if (batch.columns.size() != 1 || offset != *seen || n > p.num_rows - *seen) {
      return Status::Corruption("{}: row group {}: column '{}' does not hold the footer's {} rows",
                                inputs_[p.input], p.rg, writer_->schema().leaf(c).dotted_path, p.num_rows);
    }
    *seen += n;
    if (mask != nullptr) {
      w->keep.assign(mask->begin() + offset, mask->begin() + offset + n);
      FilterRows(&batch, w->keep);
    }
    if (batch.num_rows == 0) return Status::OK();
    ColumnData& col = batch.columns[0];
    col.leaf_index = -1;  // the input's leaf number, not the output's
    RemapDefLevels(Map(p, c), col.num_levels, &col.def_levels);
    ConvertLeafValues(Map(p, c), &col.values, &w->scratch);
    return w->sink->WriteColumn(col, batch.num_rows)
        .WithContextF("{}: row group {}", inputs_[p.input], p.rg);
  }

  // Appends the stream's next page (`page`, peeked) unchanged; returns its rows.
  Result<int64_t> AppendPage(const Part& p, const ColumnPageStream::Page& page, ColumnPageStream* stream,
                             LeafWork* w) {
    LITHIFY_ASSIGN_OR_RETURN(int64_t rows, stream->TakePage(&w->page));
    w->page.leaf_index = -1;  // the input's leaf number, not the output's
    LITHIFY_RETURN_NOT_OK_CTX(w->sink->AppendEncodedPage(*page.header, page.payload, w->page, rows),
                              "{}: row group {}", inputs_[p.input], p.rg);
    ++pages_copied_;
    return rows;
  }

  Status CheckAllRows(const Part& p, int c, int64_t seen) const {
    if (seen == p.num_rows) return Status::OK();
    return Status::Corruption("{}: row group {}: column '{}' holds {} rows, the footer says {}", inputs_[p.input],
                              p.rg, writer_->schema().leaf(c).dotted_path, seen, p.num_rows);
  }

  // Leaves are read with dictionary-encoded values as indices: the writer maps each
  // input dictionary entry once (ColumnChunkWriter) instead of gathering and hashing
  // every value. A batch is written before the stream's next call, as that form needs.
  static constexpr ValueForm kForm = ValueForm::kDictionaryIndices;

  io::FileSystem* fs_;
  const std::vector<std::string>& inputs_;
  const std::vector<ColumnMap>& maps_;  // by input
  const RewriteOptions& options_;
  FileWriter* writer_;
  std::vector<std::unique_ptr<FileReader>> held_;  // by input
  std::vector<int> last_group_;                    // by input
  RewriteProgress* progress_;
  std::map<int, std::unique_ptr<FileReader>> open_;  // inputs opened for the group being started
  SliceCursor slice_;
  LeafWork in_order_;           // the one-thread path's, reused from leaf to leaf
  std::vector<LeafWork> work_;  // the parallel path's, one per slot of its window
  int64_t copied_ = 0;
  std::atomic<int64_t> pages_copied_{0};
  // The parallel path's pipeline (StartLeaves).
  size_t window_ = 0;                     // leaves in flight at most
  int64_t launched_ = 0;                  // leaves launched so far (a leaf's number: LeafFailures)
  LeafFailures failures_;                 // of every task launched
  std::shared_ptr<GroupRun> open_run_;    // the group whose row group is open in the writer
  std::deque<InFlight> in_flight_;        // oldest first; cleared before the members its tasks use go
};

// Leaf i read from leaf i, levels as they are (inputs that all have the output schema).
ColumnMap IdentityMap(const Schema& schema) {
  ColumnMap m;
  m.same_schema = true;
  m.leaves.resize(static_cast<size_t>(schema.num_leaves()));
  for (int i = 0; i < schema.num_leaves(); ++i) m.leaves[static_cast<size_t>(i)].file_leaf = i;
  return m;
}

// Input i's map onto the output schema: the caller's, checked against the input's schema
// (a map must never make the rewrite read the wrong bytes), or computed here.
Result<ColumnMap> InputMap(const Schema& in, const Schema& out, const RewriteOptions& options, size_t i,
                           const std::string& path) {
  if (options.column_maps.empty()) {
    Result<ColumnMap> m = MapColumns(in, out);
    if (!m.ok()) return Status::InvalidArgument("{}: does not map onto the output schema: {}", path, m.status().message());
    return m;
  }
  const ColumnMap& m = options.column_maps[i];
  if (static_cast<int>(m.leaves.size()) != out.num_leaves()) {
    return Status::InvalidArgument("{}: its column map has {} leaves, the output schema {}", path, m.leaves.size(),
                                   out.num_leaves());
  }
  for (int c = 0; c < out.num_leaves(); ++c) {
    const LeafMap& l = m.leaves[static_cast<size_t>(c)];
    const ColumnDescriptor& o = out.leaf(c);
    if (l.file_leaf < 0 || l.file_leaf >= in.num_leaves()) {
      return Status::InvalidArgument("{}: column map: output column '{}' reads leaf {} of {}", path, o.dotted_path,
                                     l.file_leaf, in.num_leaves());
    }
    const ColumnDescriptor& d = in.leaf(l.file_leaf);
    const bool levels_ok = l.def_map.empty() ? d.max_def == o.max_def
                                             : static_cast<int>(l.def_map.size()) == d.max_def + 1 &&
                                                   std::all_of(l.def_map.begin(), l.def_map.end(),
                                                               [&](int16_t v) { return v >= 0 && v <= o.max_def; });
    const bool type_ok = l.conversion == ValueConversion::kNone
                             ? d.physical_type == o.physical_type && d.type_length == o.type_length
                             : ConversionFits(l.conversion, d.physical_type, o.physical_type);
    if (!type_ok || d.max_rep != o.max_rep || !levels_ok) {
      return Status::InvalidArgument("{}: column map: column '{}' cannot be read as output column '{}'", path,
                                     d.dotted_path, o.dotted_path);
    }
  }
  if (m.same_schema) LITHIFY_RETURN_NOT_OK(CompareSchemas(out, "the output schema", in, path));
  return m;
}

}  // namespace

Status CompareSchemas(const Schema& first, const std::string& first_path, const Schema& s,
                      const std::string& path) {
  const size_t n = std::min(first.nodes().size(), s.nodes().size());
  for (size_t i = 1; i < n; ++i) {
    const auto& a = first.node(static_cast<int>(i)).element;
    const auto& b = s.node(static_cast<int>(i)).element;
    if (!SameElement(a, b)) {
      return Status::InvalidArgument(
          "{}: schema differs from {}: column '{}' is {} there but column '{}' is {} here", path,
          first_path, NodePath(first, static_cast<int>(i)), Describe(a),
          NodePath(s, static_cast<int>(i)), Describe(b));
    }
  }
  if (first.nodes().size() != s.nodes().size()) {
    const Schema& longer = first.nodes().size() > s.nodes().size() ? first : s;
    return Status::InvalidArgument("{}: schema differs from {}: column '{}' exists only in {}",
                                   path, first_path, NodePath(longer, static_cast<int>(n)),
                                   &longer == &first ? first_path : path);
  }
  return Status::OK();
}

Result<RewriteResult> RewriteFiles(io::FileSystem* fs, const std::vector<std::string>& inputs,
                                   const std::string& output, const RewriteOptions& options) {
  std::vector<RewriteInput> in;
  in.reserve(inputs.size());
  for (const std::string& path : inputs) in.push_back({path, nullptr, 0});
  return RewriteInputs(fs, std::move(in), output, options);
}

Result<RewriteResult> RewriteInputs(io::FileSystem* fs, std::vector<RewriteInput> given, const std::string& output,
                                   const RewriteOptions& options) {
  std::vector<std::string> inputs;
  inputs.reserve(given.size());
  for (const RewriteInput& in : given) inputs.push_back(in.path);
  if (inputs.empty()) return Status::InvalidArgument("rewrite: no input files");
  if (options.batch_rows < 1) {
    return Status::InvalidArgument("rewrite: batch_rows must be positive, got {}",
                                   options.batch_rows);
  }
  for (const std::string& in : inputs) {
    if (in == output) {
      return Status::InvalidArgument("rewrite: the output '{}' is also an input", output);
    }
  }
  RewriteResult result;
  result.files = static_cast<int64_t>(inputs.size());

  // Plan from the footers only, so a schema mismatch fails before anything is created.
  Schema schema;
  if (options.output_schema) {
    schema = *options.output_schema;
    if (!options.column_maps.empty() && options.column_maps.size() != inputs.size()) {
      return Status::InvalidArgument("rewrite: {} column maps for {} inputs", options.column_maps.size(), inputs.size());
    }
  }
  std::vector<ColumnMap> maps;
  std::vector<std::vector<KeyValue>> kvs;
  std::vector<Group> groups;
  int64_t group_bytes = 0;
  const int64_t target = std::max<int64_t>(options.writer.row_group_size_bytes, 1);
  // Readers held for the rewrite (see RewriteInput), and the last group each input is in.
  std::vector<std::unique_ptr<FileReader>> held(inputs.size());
  std::vector<int> last_group(inputs.size(), -1);
  int64_t num_held = std::count_if(given.begin(), given.end(), [](const RewriteInput& in) { return in.reader != nullptr; });
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t size = given[i].size;
    std::unique_ptr<FileReader> reader = std::move(given[i].reader);
    bool keep = reader != nullptr;
    if (!reader) {
      LITHIFY_ASSIGN_OR_RETURN(reader, OpenInput(fs, inputs[i], options.reader, &size));
      keep = num_held < std::max(1, options.max_open_inputs);
      if (keep) ++num_held;
    }
    result.bytes_in += size;
    if (options.output_schema) {
      LITHIFY_ASSIGN_OR_RETURN(ColumnMap m, InputMap(reader->schema(), schema, options, i, inputs[i]));
      maps.push_back(std::move(m));
    } else {
      if (i == 0) {
        schema = reader->schema();
      } else {
        LITHIFY_RETURN_NOT_OK(CompareSchemas(schema, inputs[0], reader->schema(), inputs[i]));
      }
      maps.push_back(IdentityMap(schema));
    }
    kvs.push_back(reader->metadata().key_value_metadata);
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      const RowGroup& md = reader->metadata().row_groups[rg];
      if (md.num_rows <= 0) continue;
      result.rows_in += md.num_rows;
      const int64_t bytes = RowGroupCompressedBytes(md);
      const bool copy = maps.back().same_schema && options.copy_row_group_min_bytes > 0 &&
                        bytes >= options.copy_row_group_min_bytes &&
                        (options.copy_other_codecs || AllChunksIn(md, options.writer.codec));
      if (copy) {
        // A row group of its own; the next input row group starts a new group.
        groups.emplace_back();
        groups.back().copy = true;
        groups.back().parts.push_back(
            {static_cast<int>(i), rg, md.num_rows, reader->RowGroupFirstRow(rg), 0, md.num_rows, false});
        AddLeafBytes(md, maps.back(), md.num_rows, &groups.back());  // for when a row filter re-encodes it
        last_group[i] = static_cast<int>(groups.size()) - 1;
        continue;
      }
      // Split a row group larger than the target into slices of nearly equal rows (sizes
      // estimated in proportion to rows); each slice is packed like a row group.
      int64_t slices = 1;
      if (options.split_row_groups && bytes > target) {
        slices = std::min((bytes - 1) / target + 1, std::max<int64_t>(1, md.num_rows / kMinSliceRows));
      }
      for (int64_t k = 0; k < slices; ++k) {
        const auto begin = static_cast<int64_t>(static_cast<__int128>(md.num_rows) * k / slices);
        const auto end = static_cast<int64_t>(static_cast<__int128>(md.num_rows) * (k + 1) / slices);
        const auto part_bytes = static_cast<int64_t>(static_cast<__int128>(bytes) * (end - begin) / md.num_rows);
        if (groups.empty() || groups.back().copy ||
            (!groups.back().parts.empty() && group_bytes + part_bytes > target)) {
          groups.emplace_back();
          group_bytes = 0;
        }
        groups.back().parts.push_back({static_cast<int>(i), rg, end - begin, reader->RowGroupFirstRow(rg) + begin,
                                       begin, md.num_rows, slices > 1});
        AddLeafBytes(md, maps.back(), end - begin, &groups.back());
        group_bytes += part_bytes;
        last_group[i] = static_cast<int>(groups.size()) - 1;
      }
    }
    if (keep && last_group[i] >= 0) held[i] = std::move(reader);
  }

  WriterOptions wopts = options.writer;
  // Schema-derived pairs (ARROW:schema, Spark's row metadata) describe the inputs' schema.
  const bool all_same = std::all_of(maps.begin(), maps.end(), [](const ColumnMap& m) { return m.same_schema; });
  for (const KeyValue& kv : all_same ? CommonKeyValues(kvs) : std::vector<KeyValue>{}) {
    bool present = std::any_of(wopts.key_value_metadata.begin(), wopts.key_value_metadata.end(),
                               [&](const KeyValue& x) { return x.key == kv.key; });
    if (!present) wopts.key_value_metadata.push_back(kv);
  }

  LITHIFY_ASSIGN_OR_RETURN_CTX(auto stream, fs->Create(output), "{}", output);
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto writer, FileWriter::Open(std::move(stream), schema, wopts),
                               "{}", output);
  // Every failure below returns early; the writer's destructor aborts the stream, but
  // abandon explicitly so that the contract does not hang on that detail.
  struct AbandonOnExit {
    FileWriter* w;
    bool armed = true;
    ~AbandonOnExit() {
      if (armed) w->Abandon();
    }
  } guard{writer.get()};

  RewriteProgress progress;
  progress.row_groups_total = static_cast<int>(groups.size());
  progress.columns_total = schema.num_leaves();
  // Declared after the writer and `groups`: its destructor waits for the column tasks
  // still in flight after a failure, before what they use goes.
  Rewriter rewriter(fs, inputs, maps, options, writer.get(), std::move(held), std::move(last_group), &progress);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    LITHIFY_RETURN_NOT_OK(rewriter.WriteGroup(static_cast<int>(gi), groups[gi]));
  }
  LITHIFY_RETURN_NOT_OK(rewriter.Finish());
  LITHIFY_ASSIGN_OR_RETURN_CTX(FileMetaData md, writer->Close(), "{}", output);
  guard.armed = false;
  result.rows = md.num_rows;
  result.row_groups = static_cast<int64_t>(md.row_groups.size());
  result.row_groups_copied = rewriter.row_groups_copied();
  result.pages_copied = rewriter.pages_copied();
  result.bytes_out = writer->EstimatedFileSize();
  result.footer = std::move(md);
  return result;
}

}  // namespace lithify::parquet
