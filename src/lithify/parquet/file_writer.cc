#include "lithify/parquet/file_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "lithify/base/macros.h"
#include "lithify/base/version.h"
#include "lithify/parquet/column_writer.h"

namespace lithify::parquet {
namespace {

constexpr char kMagic[] = "PAR1";

// The number of levels equal to `counted`; *bad = the first level outside 0..max, if any.
// One branch-free pass (it vectorizes: every value of every page written goes through it),
// then a second one only to name the offender.
int64_t CountLevels(const std::vector<int16_t>& levels, int16_t max, int16_t counted,
                    std::optional<int16_t>* bad) {
  int64_t count = 0;
  bool out_of_range = false;
  for (int16_t l : levels) {
    out_of_range |= (l < 0) | (l > max);
    count += l == counted;
  }
  bad->reset();
  if (out_of_range) {
    for (int16_t l : levels) {
      if (l < 0 || l > max) {
        *bad = l;
        break;
      }
    }
  }
  return count;
}

// Checks one column of a batch against its leaf; returns the number of rows it holds.
Status ValidateColumn(const ColumnDescriptor& d, int leaf, const ColumnData& col,
                      int64_t num_rows) {
  auto fail = [&](std::string what) {
    return Status::InvalidArgument("column '{}': {}", d.dotted_path, what);
  };
  if (col.leaf_index >= 0 && col.leaf_index != leaf) {
    return fail(fmt::format("batch column {} is leaf {} of its schema, expected leaf {}", leaf,
                            col.leaf_index, leaf));
  }
  const ColumnValues& v = col.values;
  if (v.type != d.physical_type) {
    return fail(fmt::format("values are {}, the schema says {}", PhysicalTypeName(v.type),
                            PhysicalTypeName(d.physical_type)));
  }
  if (d.physical_type == PhysicalType::kFixedLenByteArray && v.type_length != d.type_length) {
    return fail(fmt::format("values are {} bytes wide, the schema says {}", v.type_length,
                            d.type_length));
  }
  const int64_t n = col.num_levels;
  if (n < 0) return fail("negative level count");
  if (d.max_def > 0 ? static_cast<int64_t>(col.def_levels.size()) != n : !col.def_levels.empty()) {
    return fail(fmt::format("{} definition levels for {} level entries (max level {})",
                            col.def_levels.size(), n, d.max_def));
  }
  if (d.max_rep > 0 ? static_cast<int64_t>(col.rep_levels.size()) != n : !col.rep_levels.empty()) {
    return fail(fmt::format("{} repetition levels for {} level entries (max level {})",
                            col.rep_levels.size(), n, d.max_rep));
  }
  int64_t defined = n;
  if (d.max_def > 0) {
    std::optional<int16_t> bad;
    defined = CountLevels(col.def_levels, d.max_def, d.max_def, &bad);
    if (bad) return fail(fmt::format("definition level {} out of range", *bad));
  }
  int64_t rows = n;
  if (d.max_rep > 0) {
    std::optional<int16_t> bad;
    rows = CountLevels(col.rep_levels, d.max_rep, 0, &bad);
    if (bad) return fail(fmt::format("repetition level {} out of range", *bad));
    if (n > 0 && col.rep_levels[0] != 0) return fail("the first repetition level is not 0");
  }
  if (rows != num_rows) {
    return fail(fmt::format("holds {} rows, the batch has {}", rows, num_rows));
  }
  if (v.count != defined) {
    return fail(fmt::format("{} values for {} defined level entries", v.count, defined));
  }
  if (v.is_dictionary()) {
    const ColumnValues& dict = *v.dictionary;
    if (dict.type != v.type || dict.type_length != v.type_length || dict.is_dictionary()) {
      return fail("the dictionary's values are not of the column's type");
    }
    if (static_cast<int64_t>(v.indices.size()) != v.count) {
      return fail(fmt::format("{} dictionary indices for {} values", v.indices.size(), v.count));
    }
    uint32_t max_index = 0;  // no early exit: the loop vectorizes
    for (uint32_t i : v.indices) max_index = std::max(max_index, i);
    if (v.count > 0 && static_cast<int64_t>(max_index) >= dict.count) {
      return fail(fmt::format("dictionary index {} past the dictionary's {} entries", max_index, dict.count));
    }
    return Status::OK();
  }
  if (v.is_byte_array()) {
    if (v.count == 0) return Status::OK();
    if (static_cast<int64_t>(v.offsets.size()) != v.count + 1) {
      return fail(fmt::format("{} offsets for {} values", v.offsets.size(), v.count));
    }
    if (v.offsets[0] < 0) return fail("negative offset");
    bool decrease = false;  // no early exit: the loop vectorizes
    for (int64_t i = 0; i < v.count; ++i) decrease |= v.offsets[i + 1] < v.offsets[i];
    if (decrease) return fail("offsets decrease");
    if (v.offsets.back() > static_cast<int64_t>(v.data.size())) {
      return fail("offsets point past the data");
    }
  } else if (static_cast<int64_t>(v.fixed.size()) != v.count * static_cast<int64_t>(v.width())) {
    return fail(fmt::format("{} value bytes for {} values of {} bytes", v.fixed.size(), v.count,
                            v.width()));
  }
  return Status::OK();
}

// Rough in-memory size of a batch, to cut it into slices small enough that row groups
// end near their target size even when one batch is larger than a row group.
int64_t BatchBytes(const RowBatch& batch) {
  int64_t total = 0;
  for (const ColumnData& c : batch.columns) {
    total += static_cast<int64_t>(c.values.fixed.size() + c.values.data.size()) +
             4 * c.values.count + c.num_levels / 2;
  }
  return total;
}


// ---- row group copy ----------------------------------------------------------------

// Where a chunk's pages start: the dictionary page when there is one. Some writers set
// dictionary_page_offset to 0 or past the first data page; only an offset before the
// data pages is a dictionary.
int64_t ChunkStart(const ColumnMetaData& md) {
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 && *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  if (md.index_page_offset && *md.index_page_offset > 0 && *md.index_page_offset < start) {
    start = *md.index_page_offset;
  }
  return start;
}

// Reads the page header at `offset` (within [offset, end)): a small read first, larger
// ones while the header does not fit (page headers carry statistics of any length).
Result<PageHeader> ReadPageHeaderAt(io::RandomAccessFile* file, int64_t offset, int64_t end,
                                    Buffer* scratch, size_t* header_size) {
  int64_t window = 256;
  for (;;) {
    const int64_t n = std::min(window, end - offset);
    scratch->Resize(static_cast<size_t>(n));
    LITHIFY_RETURN_NOT_OK(file->ReadAt(static_cast<uint64_t>(offset), static_cast<size_t>(n), scratch->data()));
    Result<PageHeader> h = ParsePageHeader(scratch->view(), header_size);
    if (h.ok() || n == end - offset) return h;
    window *= 8;
  }
}

// Walks the page headers of one chunk: they must tile [start, start + length) exactly
// and their data pages must hold md.num_values values.
Status WalkChunkPages(io::RandomAccessFile* file, const ColumnMetaData& md, int64_t start, int64_t length) {
  Buffer scratch;
  int64_t pos = start;
  const int64_t end = start + length;
  int64_t values = 0;
  int page = 0;
  while (pos < end) {
    size_t header_size = 0;
    LITHIFY_ASSIGN_OR_RETURN_CTX(PageHeader h, ReadPageHeaderAt(file, pos, end, &scratch, &header_size),
                                 "page {} header", page);
    if (h.compressed_page_size < 0) return Status::Corruption("page {}: negative compressed size", page);
    pos += static_cast<int64_t>(header_size) + h.compressed_page_size;
    if (h.data_page_header) values += h.data_page_header->num_values;
    if (h.data_page_header_v2) values += h.data_page_header_v2->num_values;
    ++page;
  }
  if (pos != end) {
    return Status::Corruption("its pages end at byte {}, past the chunk's end {} (total_compressed_size {})", pos,
                              end, length);
  }
  if (values != md.num_values) {
    return Status::Corruption("its pages hold {} values, the footer says {}", values, md.num_values);
  }
  return Status::OK();
}

constexpr size_t kCopyBlockBytes = size_t{8} << 20;

// The checks and row count of one leaf's chunk written column at a time, shared by a
// FileWriter's open column and its column buffers.
struct LeafChunk {
  LeafChunk() = default;
  LeafChunk(const ColumnDescriptor& d, int l, ColumnChunkWriter* w, int64_t n)
      : descr(&d), leaf(l), writer(w), expected(n) {}

  Status Write(const ColumnData& col, int64_t num_rows) {
    if (num_rows < 0) return Status::InvalidArgument("negative row count");
    if (rows + num_rows > expected) {
      return Status::InvalidArgument("column '{}': {} rows past the row group's {}", descr->dotted_path,
                                     rows + num_rows, expected);
    }
    LITHIFY_RETURN_NOT_OK(ValidateColumn(*descr, leaf, col, num_rows));
    if (col.num_levels == 0) return Status::OK();
    int64_t consumed = 0;
    LITHIFY_RETURN_NOT_OK(writer->Write(col, 0, col.num_levels, 0, &consumed));
    rows += num_rows;
    return Status::OK();
  }

  Status AppendPage(const PageHeader& header, ByteView payload, const ColumnData& page, int64_t num_rows) {
    if (num_rows <= 0 || rows + num_rows > expected) {
      return Status::InvalidArgument("column '{}': a page of {} rows after {} does not fit the row group's {}",
                                     descr->dotted_path, num_rows, rows, expected);
    }
    LITHIFY_RETURN_NOT_OK(ValidateColumn(*descr, leaf, page, num_rows));
    LITHIFY_RETURN_NOT_OK(writer->AppendEncodedPage(header, payload, page));
    rows += num_rows;
    return Status::OK();
  }

  Status CheckComplete() const {
    if (rows == expected) return Status::OK();
    return Status::InvalidArgument("column '{}' got {} rows, the row group has {}", descr->dotted_path, rows,
                                   expected);
  }

  const ColumnDescriptor* descr = nullptr;
  int leaf = -1;
  ColumnChunkWriter* writer = nullptr;
  int64_t rows = 0;      // received so far
  int64_t expected = 0;  // the row group's
};

// A chunk's bytes kept in memory; positions count from the chunk's start.
class MemoryStream final : public io::OutputStream {
 public:
  Status Append(ByteView bytes) override {
    data.Append(bytes);
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  void Abort() override { data = Buffer(); }
  uint64_t position() const override { return data.size(); }

  Buffer data;
};

class FileWriterImpl;

// A leaf's chunk streamed by its column writer into `bytes` (the column writer is the
// FileWriter's own for that leaf, which nothing else touches while the buffer is out).
struct ColumnBufferImpl final : ColumnBuffer {
  // `spare`: an emptied buffer of an earlier chunk, so that its pages are not faulted in
  // anew for every chunk.
  ColumnBufferImpl(const FileWriterImpl* o, int64_t rg, LeafChunk c, Buffer spare) : owner(o), serial(rg), chunk(c) {
    bytes.data = std::move(spare);
    chunk.writer->BeginStreamingChunk(&bytes);
  }

  Status WriteColumn(const ColumnData& col, int64_t num_rows) override {
    if (Status st = Usable(); !st.ok()) return st;
    return Keep(chunk.Write(col, num_rows));
  }
  bool AcceptsEncodedPages() const override { return status.ok() && !finished && chunk.writer->AcceptsPlainPages(); }
  Status AppendEncodedPage(const PageHeader& header, ByteView payload, const ColumnData& page,
                           int64_t num_rows) override {
    if (Status st = Usable(); !st.ok()) return st;
    return Keep(chunk.AppendPage(header, payload, page, num_rows));
  }
  Status Finish() override {
    if (Status st = Usable(); !st.ok()) return st;
    LITHIFY_RETURN_NOT_OK(Keep(chunk.CheckComplete()));
    LITHIFY_RETURN_NOT_OK(Keep(chunk.writer->FinishChunk(&bytes, &result)));
    finished = true;
    return Status::OK();
  }

  Status Usable() const {
    if (!status.ok()) return status;
    if (finished) return Status::InvalidArgument("column '{}': the buffer is finished", chunk.descr->dotted_path);
    return Status::OK();
  }
  Status Keep(Status st) {
    if (!st.ok() && status.ok()) status = st;
    return st;
  }

  const FileWriterImpl* owner;
  int64_t serial;  // the owner's column-at-a-time row group the chunk belongs to
  LeafChunk chunk;
  MemoryStream bytes;
  ColumnChunk result;  // offsets from the buffer's start
  Status status;
  bool finished = false;
};

class FileWriterImpl final : public FileWriter {
 public:
  FileWriterImpl(std::unique_ptr<io::OutputStream> out, Schema schema, WriterOptions options)
      : out_(std::move(out)), schema_(std::move(schema)), options_(std::move(options)) {
    if (options_.created_by.empty()) options_.created_by = kCreatedBy;
    columns_.reserve(static_cast<size_t>(schema_.num_leaves()));
    for (int i = 0; i < schema_.num_leaves(); ++i) {
      columns_.push_back(std::make_unique<ColumnChunkWriter>(schema_.leaf(i), options_));
    }
    last_chunk_bytes_.assign(columns_.size(), 0);
    next_buffered_.assign(columns_.size(), false);
  }

  ~FileWriterImpl() override {
    if (state_ == State::kOpen) out_->Abort();
  }

  Status Start() { return Fail(out_->Append(AsBytes(std::string_view(kMagic, 4)))); }

  Status WriteBatch(const RowBatch& batch) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    LITHIFY_RETURN_NOT_OK(CheckNoColumnRowGroup());
    LITHIFY_RETURN_NOT_OK(Fail(Validate(batch)));
    if (batch.num_rows == 0) return Status::OK();
    // Rows per slice so that a slice is about an eighth of a row group.
    const int64_t budget = std::clamp<int64_t>(options_.row_group_size_bytes / 8, 1, 16ll << 20);
    const int64_t bytes = std::max<int64_t>(BatchBytes(batch), 1);
    const int64_t slice_rows =
        bytes <= budget ? batch.num_rows
                        : std::max<int64_t>(1, static_cast<int64_t>(
                                                   static_cast<double>(batch.num_rows) *
                                                   static_cast<double>(budget) /
                                                   static_cast<double>(bytes)));
    level_pos_.assign(columns_.size(), 0);
    value_pos_.assign(columns_.size(), 0);
    for (int64_t row = 0; row < batch.num_rows; row += slice_rows) {
      int64_t rows = std::min(slice_rows, batch.num_rows - row);
      LITHIFY_RETURN_NOT_OK(Fail(WriteSlice(batch, rows)));
      rg_rows_ += rows;
      if (RowGroupEstimate() >= options_.row_group_size_bytes) {
        LITHIFY_RETURN_NOT_OK(FlushRowGroup());
      }
    }
    return Status::OK();
  }

  Status FlushRowGroup() override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    LITHIFY_RETURN_NOT_OK(CheckNoColumnRowGroup());
    if (rg_rows_ == 0) return Status::OK();
    RowGroup rg;
    rg.num_rows = rg_rows_;
    rg.columns.resize(columns_.size());
    for (size_t i = 0; i < columns_.size(); ++i) {
      LITHIFY_RETURN_NOT_OK(Fail(columns_[i]->FinishChunk(out_.get(), &rg.columns[i])));
    }
    AddRowGroup(std::move(rg));
    rg_rows_ = 0;
    return Status::OK();
  }

  Status BeginRowGroup(int64_t num_rows) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (col_rg_) return Status::InvalidArgument("a column-at-a-time row group is open (EndRowGroup first)");
    if (num_rows <= 0) {
      return Fail(Status::InvalidArgument("a row group needs a positive row count, got {}",
                                          num_rows));
    }
    if (next_rows_ > 0 && num_rows != next_rows_) {
      return Fail(Status::InvalidArgument("BeginRowGroup({}): its column buffers were begun for {} rows", num_rows,
                                          next_rows_));
    }
    // With buffers of this row group out, WriteBatch was refused since the last one began:
    // no rows wait for a row group of their own.
    if (next_rows_ == 0) LITHIFY_RETURN_NOT_OK(FlushRowGroup());
    col_rg_.emplace();
    col_rg_->num_rows = num_rows;
    col_rg_->columns.resize(columns_.size());
    next_leaf_ = 0;
    open_leaf_ = -1;
    ++rg_serial_;
    buffered_ = next_rows_ > 0 ? std::move(next_buffered_) : std::vector<bool>(columns_.size(), false);
    next_buffered_.assign(columns_.size(), false);
    next_rows_ = 0;
    return Status::OK();
  }

  Status BeginColumn(int leaf) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (!col_rg_) return Fail(Status::InvalidArgument("BeginColumn outside BeginRowGroup"));
    if (open_leaf_ >= 0 || leaf != next_leaf_ || buffered_[static_cast<size_t>(leaf)]) {
      return Fail(Status::InvalidArgument(
          "BeginColumn({}): expected leaf {} ({}) with no column open and no buffer of it out", leaf, next_leaf_,
          next_leaf_ < schema_.num_leaves() ? schema_.leaf(next_leaf_).dotted_path
                                            : std::string("all leaves written")));
    }
    open_leaf_ = leaf;
    open_ = LeafChunk(schema_.leaf(leaf), leaf, columns_[leaf].get(), col_rg_->num_rows);
    columns_[leaf]->BeginStreamingChunk(out_.get());
    return Status::OK();
  }

  Status WriteColumn(const ColumnData& col, int64_t num_rows) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (open_leaf_ < 0) return Fail(Status::InvalidArgument("WriteColumn without BeginColumn"));
    return Fail(open_.Write(col, num_rows));
  }

  bool ColumnAcceptsEncodedPages() const override {
    return state_ == State::kOpen && open_leaf_ >= 0 && columns_[open_leaf_]->AcceptsPlainPages();
  }

  Status AppendEncodedPage(const PageHeader& header, ByteView payload, const ColumnData& page,
                           int64_t num_rows) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (open_leaf_ < 0) return Fail(Status::InvalidArgument("AppendEncodedPage without BeginColumn"));
    return Fail(open_.AppendPage(header, payload, page, num_rows));
  }

  Status EndColumn() override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (open_leaf_ < 0) return Fail(Status::InvalidArgument("EndColumn without BeginColumn"));
    LITHIFY_RETURN_NOT_OK(Fail(open_.CheckComplete()));
    LITHIFY_RETURN_NOT_OK(Fail(columns_[open_leaf_]->FinishChunk(
        out_.get(), &col_rg_->columns[static_cast<size_t>(open_leaf_)])));
    open_leaf_ = -1;
    ++next_leaf_;
    return Status::OK();
  }

  Result<std::unique_ptr<ColumnBuffer>> BeginColumnBuffer(int leaf, size_t size_hint) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (!col_rg_) return Fail(Status::InvalidArgument("BeginColumnBuffer outside BeginRowGroup"));
    if (open_leaf_ >= 0 || leaf < next_leaf_ || leaf >= schema_.num_leaves() ||
        buffered_[static_cast<size_t>(leaf)]) {
      return Fail(Status::InvalidArgument("BeginColumnBuffer({}): not a leaf left to write (next is {}{})", leaf,
                                          next_leaf_, open_leaf_ >= 0 ? ", a column is open" : ""));
    }
    buffered_[static_cast<size_t>(leaf)] = true;
    return NewBuffer(rg_serial_, leaf, col_rg_->num_rows, size_hint);
  }

  Result<std::unique_ptr<ColumnBuffer>> BeginNextRowGroupBuffer(int leaf, int64_t num_rows,
                                                                size_t size_hint) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (!col_rg_) return Fail(Status::InvalidArgument("BeginNextRowGroupBuffer outside BeginRowGroup"));
    if (num_rows <= 0 || (next_rows_ > 0 && num_rows != next_rows_)) {
      return Fail(Status::InvalidArgument(
          "BeginNextRowGroupBuffer({}, {}): the next row group's buffers are for {} rows", leaf, num_rows, next_rows_));
    }
    // The leaf's column writer carries its state (dictionary, statistics) over from the
    // open row group's chunk, which must therefore be in the file already.
    if (open_leaf_ >= 0 || leaf < 0 || leaf >= next_leaf_ || next_buffered_[static_cast<size_t>(leaf)]) {
      return Fail(Status::InvalidArgument(
          "BeginNextRowGroupBuffer({}): not a leaf written in the open row group and free (next is {}{})", leaf,
          next_leaf_, open_leaf_ >= 0 ? ", a column is open" : ""));
    }
    next_rows_ = num_rows;
    next_buffered_[static_cast<size_t>(leaf)] = true;
    return NewBuffer(rg_serial_ + 1, leaf, num_rows, size_hint);
  }

  // A buffer for leaf `leaf`'s chunk of `num_rows` rows in column-at-a-time row group
  // `serial`.
  std::unique_ptr<ColumnBuffer> NewBuffer(int64_t serial, int leaf, int64_t num_rows, size_t size_hint) {
    return std::make_unique<ColumnBufferImpl>(this, serial,
                                              LeafChunk(schema_.leaf(leaf), leaf, columns_[leaf].get(), num_rows),
                                              TakeSpare(leaf, size_hint));
  }

  // The memory for leaf `leaf`'s next buffer, sized for the chunk it is expected to hold
  // (the caller's hint, or its size in the last buffered row group: output row groups are
  // alike), with an eighth to spare. Best fit among the spares, so that a big chunk does
  // not start from a small leaf's spare and regrow by realloc into fresh, page-faulting
  // memory while a big spare holds a small chunk.
  Buffer TakeSpare(int leaf, size_t hint) {
    const size_t expected = hint > 0 ? hint : last_chunk_bytes_[static_cast<size_t>(leaf)];
    const size_t want = expected + expected / 8;
    // A spare that fits beats one that does not; among those that fit the smallest, among
    // the others the largest.
    auto better = [want](const Buffer& a, const Buffer& b) {
      const bool a_fits = a.capacity() >= want;
      if (a_fits != (b.capacity() >= want)) return a_fits;
      return a_fits ? a.capacity() < b.capacity() : a.capacity() > b.capacity();
    };
    auto best = spare_buffers_.begin();
    for (auto it = spare_buffers_.begin(); it != spare_buffers_.end(); ++it) {
      if (better(*it, *best)) best = it;
    }
    Buffer spare;
    if (best != spare_buffers_.end()) {
      spare = std::move(*best);
      spare_buffers_.erase(best);
    }
    // Huge pages: a chunk buffer is filled once from fresh memory, and a 4 KiB page
    // fault per page filled was 5% of a one-bin rewrite's time on these VMs.
    spare.ReserveLarge(want);
    return spare;
  }

  Status AppendColumnBuffer(std::unique_ptr<ColumnBuffer> buffer) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    auto* b = dynamic_cast<ColumnBufferImpl*>(buffer.get());
    if (b == nullptr || b->owner != this || !col_rg_ || b->serial != rg_serial_) {
      return Fail(Status::InvalidArgument("AppendColumnBuffer: not a buffer of this writer's open row group"));
    }
    if (b->chunk.leaf != next_leaf_ || open_leaf_ >= 0) {
      return Fail(Status::InvalidArgument("AppendColumnBuffer: leaf {} is not the next leaf ({})", b->chunk.leaf,
                                          next_leaf_));
    }
    LITHIFY_RETURN_NOT_OK(Fail(b->status));
    if (!b->finished) return Fail(Status::InvalidArgument("AppendColumnBuffer: the buffer is not finished"));
    // Every offset in the chunk's metadata was taken from the buffer's own stream,
    // which starts at 0; the chunk now starts here.
    const auto base = static_cast<int64_t>(out_->position());
    LITHIFY_RETURN_NOT_OK(Fail(out_->Append(b->bytes.data.view())));
    ColumnChunk& chunk = b->result;
    chunk.file_offset += base;
    ColumnMetaData& md = *chunk.meta_data;
    md.data_page_offset += base;
    if (md.dictionary_page_offset) *md.dictionary_page_offset += base;
    col_rg_->columns[static_cast<size_t>(next_leaf_)] = std::move(chunk);
    ++next_leaf_;
    last_chunk_bytes_[static_cast<size_t>(b->chunk.leaf)] = b->bytes.data.size();
    b->bytes.data.Clear();  // kept for the next buffer: no more are spare than were out at once
    spare_buffers_.push_back(std::move(b->bytes.data));
    return Status::OK();
  }

  Status EndRowGroup() override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    if (!col_rg_) return Fail(Status::InvalidArgument("EndRowGroup without BeginRowGroup"));
    if (open_leaf_ >= 0 || next_leaf_ != schema_.num_leaves()) {
      int missing = open_leaf_ >= 0 ? open_leaf_ : next_leaf_;
      return Fail(Status::InvalidArgument("EndRowGroup: column '{}' is not finished",
                                          schema_.leaf(missing).dotted_path));
    }
    AddRowGroup(std::move(*col_rg_));
    col_rg_.reset();
    return Status::OK();
  }


  Status AppendRowGroupCopy(io::RandomAccessFile* source, const RowGroup& row_group) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen());
    LITHIFY_RETURN_NOT_OK(CheckNoColumnRowGroup());
    // Checked before anything is written: a refused copy leaves the writer usable.
    LITHIFY_ASSIGN_OR_RETURN(std::vector<ChunkRange> ranges, CheckRowGroupCopy(source, schema_, row_group));
    LITHIFY_RETURN_NOT_OK(FlushRowGroup());
    RowGroup rg;
    rg.num_rows = row_group.num_rows;
    rg.sorting_columns = row_group.sorting_columns;
    rg.columns.resize(row_group.columns.size());
    for (size_t c = 0; c < row_group.columns.size(); ++c) {
      const ColumnMetaData& from = *row_group.columns[c].meta_data;
      const int64_t new_start = static_cast<int64_t>(out_->position());
      LITHIFY_RETURN_NOT_OK(Fail(CopyBytes(source, ranges[c])
                                     .WithContextF("{}: column '{}'", source->path(), schema_.leaf(static_cast<int>(c)).dotted_path)));
      // Offsets move by the same delta; everything else (encodings, sizes, statistics,
      // encoding stats) describes the unchanged bytes.
      const int64_t delta = new_start - ranges[c].start;
      ColumnMetaData md = from;
      md.data_page_offset += delta;
      md.dictionary_page_offset = from.dictionary_page_offset && *from.dictionary_page_offset >= ranges[c].start
                                      ? std::optional<int64_t>(*from.dictionary_page_offset + delta)
                                      : std::nullopt;
      md.index_page_offset = from.index_page_offset && *from.index_page_offset >= ranges[c].start
                                 ? std::optional<int64_t>(*from.index_page_offset + delta)
                                 : std::nullopt;
      md.bloom_filter_offset.reset();
      md.bloom_filter_length.reset();
      rg.columns[c].file_offset = new_start;
      rg.columns[c].meta_data = std::move(md);
    }
    AddRowGroup(std::move(rg));
    return Status::OK();
  }

  Result<FileMetaData> Close() override {
    LITHIFY_RETURN_NOT_OK(FlushRowGroup());
    metadata_.version = 1;
    metadata_.schema = schema_.ToElements();
    metadata_.key_value_metadata = options_.key_value_metadata;
    metadata_.created_by = options_.created_by;
    metadata_.column_orders.assign(columns_.size(), ColumnOrder{});
    Buffer footer;
    SerializeFileMetaData(metadata_, &footer);
    uint32_t len = static_cast<uint32_t>(footer.size());
    footer.AppendValue(len);
    footer.Append(std::string_view(kMagic, 4));
    LITHIFY_RETURN_NOT_OK(Fail(out_->Append(footer.view())));
    // Streams need not report their position once closed.
    final_size_ = static_cast<int64_t>(out_->position());
    LITHIFY_RETURN_NOT_OK(Fail(out_->Close()));
    state_ = State::kClosed;
    return metadata_;
  }

  void Abandon() override {
    if (state_ == State::kOpen) out_->Abort();
    state_ = State::kAbandoned;
  }

  const Schema& schema() const override { return schema_; }

  int64_t EstimatedFileSize() const override {
    if (state_ == State::kClosed) return final_size_;
    return static_cast<int64_t>(out_->position()) + RowGroupEstimate();
  }

 private:
  enum class State { kOpen, kClosed, kAbandoned };

  // Nothing of column-at-a-time writing is under way: no row group open, no buffer of
  // the next one out (their leaves' column writers hold open chunks).
  Status CheckNoColumnRowGroup() const {
    if (col_rg_) {
      return Status::InvalidArgument("a column-at-a-time row group is open (EndRowGroup first)");
    }
    if (next_rows_ > 0) {
      return Status::InvalidArgument("column buffers of the next row group are out (BeginRowGroup first)");
    }
    return Status::OK();
  }

  // Sums the chunks' sizes into `rg` and appends it to the footer metadata.
  void AddRowGroup(RowGroup rg) {
    int64_t compressed = 0;
    for (const ColumnChunk& c : rg.columns) {
      const ColumnMetaData& md = *c.meta_data;
      rg.total_byte_size += md.total_uncompressed_size;
      compressed += md.total_compressed_size;
    }
    rg.total_compressed_size = compressed;
    if (!rg.columns.empty()) rg.file_offset = rg.columns[0].file_offset;
    if (metadata_.row_groups.size() <= static_cast<size_t>(INT16_MAX)) {
      rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
    }
    metadata_.num_rows += rg.num_rows;
    metadata_.row_groups.push_back(std::move(rg));
  }

  Status CheckOpen() const {
    if (!error_.ok()) return error_;
    if (state_ != State::kOpen) return Status::InvalidArgument("the Parquet writer is closed");
    return Status::OK();
  }

  // Records the first error (the file is unusable after any failure) and aborts the
  // output so nothing is left behind.
  Status Fail(Status st) {
    if (!st.ok() && error_.ok()) {
      error_ = st;
      out_->Abort();
    }
    return st;
  }

  Status Validate(const RowBatch& batch) const {
    if (batch.num_rows < 0) return Status::InvalidArgument("negative row count");
    if (batch.columns.size() != columns_.size()) {
      return Status::InvalidArgument("batch has {} columns, the schema has {} leaves",
                                     batch.columns.size(), columns_.size());
    }
    for (int i = 0; i < schema_.num_leaves(); ++i) {
      LITHIFY_RETURN_NOT_OK(ValidateColumn(schema_.leaf(i), i, batch.columns[i], batch.num_rows));
    }
    return Status::OK();
  }

  // Writes the next `rows` rows of every column (from the per-column cursors).
  Status WriteSlice(const RowBatch& batch, int64_t rows) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      const ColumnData& col = batch.columns[c];
      int64_t begin = level_pos_[c];
      int64_t end = begin + rows;
      if (schema_.leaf(static_cast<int>(c)).max_rep > 0) {
        // The level index where row `rows` (counting from begin) starts.
        const int16_t* rep = col.rep_levels.data();
        int64_t seen = 0;
        end = begin + 1;
        while (end < col.num_levels && !(rep[end] == 0 && ++seen == rows)) ++end;
      }
      int64_t consumed = 0;
      LITHIFY_RETURN_NOT_OK(columns_[c]->Write(col, begin, end, value_pos_[c], &consumed));
      level_pos_[c] = end;
      value_pos_[c] += consumed;
    }
    return Status::OK();
  }

  // Copies [range.start, range.start + range.length) of `source` to the output in blocks.
  Status CopyBytes(io::RandomAccessFile* source, const ChunkRange& range) {
    if (copy_block_.size() == 0) copy_block_.Resize(kCopyBlockBytes);
    for (int64_t done = 0; done < range.length;) {
      const size_t n = static_cast<size_t>(std::min<int64_t>(range.length - done, static_cast<int64_t>(kCopyBlockBytes)));
      LITHIFY_RETURN_NOT_OK(source->ReadAt(static_cast<uint64_t>(range.start + done), n, copy_block_.data()));
      LITHIFY_RETURN_NOT_OK(out_->Append(ByteView(copy_block_.data(), n)));
      done += static_cast<int64_t>(n);
    }
    return Status::OK();
  }

  int64_t RowGroupEstimate() const {
    int64_t total = 0;
    for (const auto& c : columns_) total += c->EstimatedSize();
    return total;
  }

  std::unique_ptr<io::OutputStream> out_;
  Schema schema_;
  WriterOptions options_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> columns_;
  FileMetaData metadata_;
  int64_t rg_rows_ = 0;
  State state_ = State::kOpen;
  Status error_;
  std::vector<int64_t> level_pos_;
  std::vector<int64_t> value_pos_;
  // Column-at-a-time row group being written (absent outside BeginRowGroup/EndRowGroup).
  std::optional<RowGroup> col_rg_;
  int next_leaf_ = 0;
  int open_leaf_ = -1;
  LeafChunk open_;             // the open column's (open_leaf_ >= 0)
  int64_t rg_serial_ = 0;       // column-at-a-time row groups begun (the open one's number)
  std::vector<bool> buffered_;  // by leaf: a ColumnBuffer was begun in this row group
  // Buffers begun for the next row group (BeginNextRowGroupBuffer): its row count (0:
  // none) and, by leaf, whether one was.
  int64_t next_rows_ = 0;
  std::vector<bool> next_buffered_;
  std::vector<Buffer> spare_buffers_;  // appended buffers' memory, emptied, for the next ones
  std::vector<size_t> last_chunk_bytes_;  // by leaf: its chunk's size in the last buffered row group
  int64_t final_size_ = 0;  // set by Close
  Buffer copy_block_;       // AppendRowGroupCopy's block, allocated on first use
};

}  // namespace

Result<std::vector<ChunkRange>> CheckRowGroupCopy(io::RandomAccessFile* source, const Schema& schema,
                                                  const RowGroup& row_group) {
  const std::string& path = source->path();
  if (row_group.columns.size() != static_cast<size_t>(schema.num_leaves())) {
    return Status::InvalidArgument("{}: the row group has {} column chunks, the schema {} leaves", path,
                                   row_group.columns.size(), schema.num_leaves());
  }
  if (row_group.num_rows <= 0) return Status::InvalidArgument("{}: cannot copy an empty row group", path);
  const int64_t file_size = static_cast<int64_t>(source->size());
  std::vector<ChunkRange> ranges;
  for (size_t c = 0; c < row_group.columns.size(); ++c) {
    const ColumnChunk& chunk = row_group.columns[c];
    const ColumnDescriptor& leaf = schema.leaf(static_cast<int>(c));
    auto where = [&] { return fmt::format("{}: column '{}'", path, leaf.dotted_path); };
    if (chunk.has_crypto_metadata || chunk.encrypted_column_metadata) {
      return Status::NotSupported("{}: copying an encrypted column chunk", where());
    }
    if (chunk.file_path) return Status::NotSupported("{}: copying a column chunk stored in another file", where());
    if (!chunk.meta_data) return Status::Corruption("{}: column chunk without metadata", where());
    const ColumnMetaData& md = *chunk.meta_data;
    if (md.type != leaf.physical_type || md.path_in_schema != leaf.path) {
      return Status::InvalidArgument("{}: the chunk is {} at '{}', the schema's leaf is {}", where(),
                                     PhysicalTypeName(md.type), fmt::join(md.path_in_schema, "."),
                                     PhysicalTypeName(leaf.physical_type));
    }
    ChunkRange r{ChunkStart(md), md.total_compressed_size};
    if (r.start < 4 || r.length <= 0 || r.start > file_size - r.length) {
      return Status::Corruption("{}: chunk range [{}, +{}) is outside the file ({} bytes)", where(), r.start,
                                r.length, file_size);
    }
    LITHIFY_RETURN_NOT_OK_CTX(WalkChunkPages(source, md, r.start, r.length), "{}", where());
    ranges.push_back(r);
  }
  return ranges;
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::unique_ptr<io::OutputStream> out,
                                                     Schema schema, WriterOptions options) {
  if (out == nullptr) return Status::InvalidArgument("no output stream");
  if (schema.num_leaves() == 0) {
    out->Abort();
    return Status::InvalidArgument("cannot write a Parquet file without columns");
  }
  if (!CanCompress(options.codec)) {
    out->Abort();
    return Status::NotSupported("writing {} compression", CodecName(options.codec));
  }
  if (options.page_size_bytes <= 0 || options.row_group_size_bytes <= 0 ||
      options.dictionary_page_size_limit < 0 || options.max_statistics_size < 0) {
    out->Abort();
    return Status::InvalidArgument(
        "page_size_bytes and row_group_size_bytes must be positive, "
        "dictionary_page_size_limit and max_statistics_size non-negative");
  }
  auto writer = std::make_unique<FileWriterImpl>(std::move(out), std::move(schema),
                                                 std::move(options));
  LITHIFY_RETURN_NOT_OK(writer->Start());
  return std::unique_ptr<FileWriter>(std::move(writer));
}

}  // namespace lithify::parquet
