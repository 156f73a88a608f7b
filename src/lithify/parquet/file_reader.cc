#include "lithify/parquet/file_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <tuple>
#include <cstring>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/io/prefetch.h"
#include "lithify/parquet/column_reader.h"

namespace lithify::parquet {
namespace {

constexpr size_t kMagicSize = 4;
constexpr size_t kTailSize = 8;  // footer length + magic
// Read from the end of a remote file at once: the footer of most files fits, so opening
// costs one request instead of two (DuckDB and Arrow guess the same size).
constexpr uint64_t kSpeculativeTailBytes = 64 << 10;
constexpr char kMagic[] = "PAR1";
constexpr char kEncryptedMagic[] = "PARE";
// PARQUET-816: parquet-mr before 1.2.9 under-reported total_compressed_size by up to
// the dictionary page header; other readers extend the range by this much.
constexpr int64_t kMaxDictionaryHeaderSize = 100;

struct ChunkRange {
  int64_t offset = 0;
  int64_t length = 0;
};

bool HasMagic(const uint8_t* p, const char* magic) { return std::memcmp(p, magic, 4) == 0; }

bool NeedsChunkPadding(const std::optional<std::string>& created_by) {
  if (!created_by) return false;
  constexpr std::string_view kPrefix = "parquet-mr version ";
  std::string_view s = *created_by;
  if (s.substr(0, kPrefix.size()) != kPrefix) return false;
  s.remove_prefix(kPrefix.size());
  int parts[3] = {0, 0, 0};
  for (int& part : parts) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), part);
    if (ec != std::errc()) return false;
    s.remove_prefix(static_cast<size_t>(p - s.data()));
    if (!s.empty() && s.front() == '.') s.remove_prefix(1);
  }
  return std::make_tuple(parts[0], parts[1], parts[2]) < std::make_tuple(1, 2, 9);
}

// The byte range of a column chunk: it starts at the dictionary page when there is a
// plausible one, else at the first data page. Writers that set dictionary_page_offset
// to 0 (or past the data page) without a dictionary are tolerated by taking the
// smallest valid offset.
Result<ChunkRange> ComputeChunkRange(const ColumnMetaData& md, int64_t data_end, bool pad) {
  // Writers leave the offsets of an empty chunk (0 values) at 0; nothing is read then.
  if (md.num_values == 0) return ChunkRange{};
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset.has_value() && *md.dictionary_page_offset >= 4 &&
      *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  if (start < static_cast<int64_t>(kMagicSize) || start >= data_end) {
    return Status::Corruption("column chunk offset {} outside the file's data [4, {})", start,
                              data_end);
  }
  if (md.total_compressed_size < 0 || md.total_compressed_size > data_end - start) {
    return Status::Corruption(
        "column chunk [{}, +{}) extends past the file's data, which ends at {}", start,
        md.total_compressed_size, data_end);
  }
  int64_t length = md.total_compressed_size;
  if (pad) length = std::min(length + kMaxDictionaryHeaderSize, data_end - start);
  return ChunkRange{start, length};
}

class RowGroupStreamImpl final : public RowGroupStream {
 public:
  using Readers = std::vector<std::unique_ptr<internal::ColumnChunkReader>>;

  RowGroupStreamImpl(const std::string& path, const Schema& schema, int rg, int64_t first_row,
                     int64_t num_rows, std::vector<int> leaves, int64_t max_rows,
                     int64_t max_bytes)
      : path_(path),
        schema_(schema),
        rg_(rg),
        first_row_(first_row),
        remaining_(num_rows),
        leaves_(std::move(leaves)),
        max_rows_(max_rows),
        max_bytes_(max_bytes) {}

  // Starts one chunk reader per projected leaf, reusing `spare` readers first.
  Status Start(io::RandomAccessFile* file, const FileMetaData& md,
               const std::vector<ChunkRange>& ranges, const ReadOptions& options,
               Readers* spare, ValueForm form = ValueForm::kValues) {
    internal::ChunkReadOptions opts;
    opts.verify_checksums = options.verify_checksums;
    opts.max_decoded_bytes = options.max_decoded_chunk_bytes;
    opts.dictionary_indices = form == ValueForm::kDictionaryIndices;
    const RowGroup& group = md.row_groups[rg_];
    readers_.reserve(leaves_.size());
    for (int leaf : leaves_) {
      if (spare != nullptr && !spare->empty()) {
        readers_.push_back(std::move(spare->back()));
        spare->pop_back();
      } else {
        readers_.push_back(std::make_unique<internal::ColumnChunkReader>());
      }
      const ChunkRange& range = ranges[static_cast<size_t>(rg_) * schema_.num_leaves() + leaf];
      Status st = readers_.back()->Start(file, range.offset, range.length, schema_.leaf(leaf),
                                         *group.columns[leaf].meta_data, group.num_rows, opts);
      if (!st.ok()) return status_ = ColumnError(st, leaf);
    }
    return Status::OK();
  }

  const std::vector<int>& leaves() const { return leaves_; }
  int row_group() const { return rg_; }

  // Keeps the file the readers read through when it was made for this stream.
  void Own(std::unique_ptr<io::RandomAccessFile> file) { owned_file_ = std::move(file); }

  // Hands the chunk readers (and their small buffers) back for reuse.
  void ReleaseReaders(Readers* spare) {
    for (auto& r : readers_) {
      r->TrimMemory();
      spare->push_back(std::move(r));
    }
    readers_.clear();
  }

  Result<bool> Next(RowBatch* out) override {
    if (!status_.ok()) return status_;
    out->num_rows = 0;
    out->first_row_index = first_row_ + taken_;
    out->columns.resize(leaves_.size());
    for (size_t i = 0; i < leaves_.size(); ++i) {
      ColumnData& c = out->columns[i];
      const ColumnDescriptor& descr = schema_.leaf(leaves_[i]);
      c.leaf_index = leaves_[i];
      c.Reset(descr);
    }
    if (remaining_ == 0) {
      if (finished_) return false;
      LITHIFY_RETURN_NOT_OK(FinishColumns());
      return false;
    }
    // Every column may only lower the row count; the byte budget is spent greedily in
    // projection order, so the batch's total stays within it (or is a single row).
    int64_t rows = std::min(max_rows_, remaining_);
    int64_t budget = max_bytes_;
    for (size_t i = 0; i < readers_.size(); ++i) {
      int64_t cost = 0;
      Result<int64_t> fit = readers_[i]->MeasureRows(rows, budget, &cost);
      if (!fit.ok()) return status_ = ColumnError(fit.status(), leaves_[i]);
      rows = *fit;
      budget = budget == INT64_MAX ? budget : budget - cost;
    }
    for (size_t i = 0; i < readers_.size(); ++i) readers_[i]->TakeRows(rows, &out->columns[i]);
    out->num_rows = rows;
    taken_ += rows;
    remaining_ -= rows;
    if (remaining_ == 0) LITHIFY_RETURN_NOT_OK(FinishColumns());
    return true;
  }

  int64_t rows_remaining() const override { return remaining_; }

 private:
  Status ColumnError(const Status& st, int leaf) const {
    return st.WithContextF("{}: row group {}: column '{}'", path_, rg_,
                           schema_.leaf(leaf).dotted_path);
  }

  Status FinishColumns() {
    finished_ = true;
    for (size_t i = 0; i < readers_.size(); ++i) {
      Status st = readers_[i]->Finish();
      if (!st.ok()) return status_ = ColumnError(st, leaves_[i]);
    }
    return Status::OK();
  }

  const std::string& path_;
  const Schema& schema_;
  const int rg_;
  const int64_t first_row_;
  int64_t remaining_;
  int64_t taken_ = 0;
  const std::vector<int> leaves_;
  const int64_t max_rows_;
  const int64_t max_bytes_;
  std::unique_ptr<io::RandomAccessFile> owned_file_;  // before readers_, which point into it
  Readers readers_;
  bool finished_ = false;
  Status status_;
};

class ColumnPageStreamImpl final : public ColumnPageStream {
 public:
  ColumnPageStreamImpl(const std::string& path, const Schema& schema, int rg, int leaf,
                       int64_t first_row, int64_t num_rows, const ColumnMetaData& meta,
                       int64_t max_rows, int64_t max_bytes)
      : path_(path),
        descr_(schema.leaf(leaf)),
        rg_(rg),
        leaf_(leaf),
        first_row_(first_row),
        remaining_(num_rows),
        meta_(meta),
        max_rows_(max_rows),
        max_bytes_(max_bytes) {}

  Status Start(io::RandomAccessFile* file, const ChunkRange& range, const ReadOptions& options,
               ValueForm form) {
    internal::ChunkReadOptions opts;
    opts.verify_checksums = options.verify_checksums;
    opts.max_decoded_bytes = options.max_decoded_chunk_bytes;
    opts.dictionary_indices = form == ValueForm::kDictionaryIndices;
    return Sticky(reader_.Start(file, range.offset, range.length, descr_, meta_,
                                remaining_, opts));
  }

  const ColumnMetaData& metadata() const override { return meta_; }

  Result<bool> PeekPage(Page* page) override {
    LITHIFY_RETURN_NOT_OK(status_);
    page->header = nullptr;
    if (remaining_ == 0) return false;
    const PageHeader* h = nullptr;
    ByteView payload;
    LITHIFY_RETURN_NOT_OK(Sticky(reader_.PeekDataPage(&h, &payload)));
    if (h == nullptr) return false;
    page->header = h;
    page->payload = payload;
    page->first_row = taken_;
    page->num_rows = -1;
    if (h->data_page_header_v2) {
      page->num_rows = h->data_page_header_v2->num_rows;
    } else if (h->data_page_header && descr_.max_rep == 0) {
      page->num_rows = h->data_page_header->num_values;
    }
    peeked_rows_ = page->num_rows;
    return true;
  }

  Result<int64_t> TakePage(ColumnData* out) override {
    LITHIFY_RETURN_NOT_OK(status_);
    int64_t rows = 0;
    LITHIFY_RETURN_NOT_OK(Sticky(reader_.TakePeekedPage(out, &rows)));
    out->leaf_index = leaf_;
    if (peeked_rows_ >= 0 && rows != peeked_rows_) {
      return status_ = Error(Status::Corruption("page header says {} rows, its levels hold {}",
                                                peeked_rows_, rows));
    }
    if (rows > remaining_) {
      return status_ = Error(Status::Corruption("page holds rows past the row group's end"));
    }
    taken_ += rows;
    remaining_ -= rows;
    if (remaining_ == 0) LITHIFY_RETURN_NOT_OK(Sticky(reader_.Finish()));
    return rows;
  }

  Result<bool> Next(RowBatch* out) override { return NextAtMost(out, max_rows_); }

  Result<bool> NextAtMost(RowBatch* out, int64_t max_rows) override {
    LITHIFY_RETURN_NOT_OK(status_);
    out->num_rows = 0;
    out->first_row_index = first_row_ + taken_;
    out->columns.resize(1);
    ColumnData& c = out->columns[0];
    c.leaf_index = leaf_;
    c.Reset(descr_);
    if (remaining_ == 0) return false;
    int64_t cost = 0;
    Result<int64_t> fit =
        reader_.MeasurePageRows(std::min(std::max<int64_t>(max_rows, 1), remaining_), max_bytes_, &cost);
    if (!fit.ok()) return status_ = Error(fit.status());
    reader_.TakeRows(*fit, &c);
    out->num_rows = *fit;
    taken_ += *fit;
    remaining_ -= *fit;
    if (remaining_ == 0) LITHIFY_RETURN_NOT_OK(Sticky(reader_.Finish()));
    return true;
  }

 private:
  Status Error(const Status& st) const {
    return st.WithContextF("{}: row group {}: column '{}'", path_, rg_, descr_.dotted_path);
  }
  Status Sticky(const Status& st) {
    if (!st.ok()) status_ = Error(st);
    return status_;
  }

  const std::string& path_;
  const ColumnDescriptor& descr_;
  const int rg_;
  const int leaf_;
  const int64_t first_row_;
  int64_t remaining_;
  int64_t taken_ = 0;
  int64_t peeked_rows_ = -1;
  const ColumnMetaData& meta_;
  const int64_t max_rows_;
  const int64_t max_bytes_;
  internal::ColumnChunkReader reader_;
  Status status_;
};

class FileReaderImpl final : public FileReader {
 public:
  FileReaderImpl(std::unique_ptr<io::RandomAccessFile> file, ReadOptions options,
                 FileMetaData metadata, Schema schema, std::vector<int64_t> first_rows,
                 std::vector<ChunkRange> ranges)
      : file_(std::move(file)),
        options_(options),
        metadata_(std::move(metadata)),
        schema_(std::move(schema)),
        path_(file_->path()),
        first_rows_(std::move(first_rows)),
        ranges_(std::move(ranges)) {}

  const FileMetaData& metadata() const override { return metadata_; }
  const Schema& schema() const override { return schema_; }
  const std::string& path() const override { return path_; }
  int64_t RowGroupFirstRow(int rg) const override {
    return rg >= 0 && rg < static_cast<int>(first_rows_.size()) ? first_rows_[rg] : -1;
  }
  Result<RowBatch> ReadRowGroup(int rg, const std::vector<int>& leaves) override;
  Result<std::unique_ptr<RowGroupStream>> OpenRowGroup(int rg, const std::vector<int>& leaves,
                                                       int64_t max_rows_per_batch, ValueForm form) override;
  Result<std::unique_ptr<ColumnPageStream>> OpenColumnPages(int rg, int leaf, int64_t max_rows_per_batch,
                                                            ValueForm form) override {
    LITHIFY_ASSIGN_OR_RETURN(auto check, NewStream(rg, {leaf}, max_rows_per_batch, 0));
    (void)check;  // validates the arguments the same way
    auto stream = std::make_unique<ColumnPageStreamImpl>(
        path_, schema_, rg, leaf, first_rows_[rg], metadata_.row_groups[rg].num_rows,
        *metadata_.row_groups[rg].columns[leaf].meta_data, max_rows_per_batch,
        std::max<int64_t>(options_.max_batch_bytes, 0));
    LITHIFY_RETURN_NOT_OK(stream->Start(
        file_.get(), ranges_[static_cast<size_t>(rg) * schema_.num_leaves() + leaf], options_, form));
    return std::unique_ptr<ColumnPageStream>(std::move(stream));
  }

 private:
  // Validates the arguments and builds an unstarted stream.
  Result<std::unique_ptr<RowGroupStreamImpl>> NewStream(int rg, const std::vector<int>& leaves,
                                                        int64_t max_rows, int64_t max_bytes);
  // The file a stream's readers read through: for a remote file whose projected chunks
  // fit ReadOptions::max_prefetch_bytes, a PrefetchedFile holding them (owned by the
  // stream), else the reader's file.
  Result<io::RandomAccessFile*> StreamFile(RowGroupStreamImpl* stream);

  std::unique_ptr<io::RandomAccessFile> file_;
  ReadOptions options_;
  FileMetaData metadata_;
  Schema schema_;
  std::string path_;
  std::vector<int64_t> first_rows_;
  std::vector<ChunkRange> ranges_;  // [rg * num_leaves + leaf]
  // Chunk readers kept between ReadRowGroup calls so their buffers are reused.
  RowGroupStreamImpl::Readers spare_readers_;
};

Result<std::unique_ptr<RowGroupStreamImpl>> FileReaderImpl::NewStream(
    int rg, const std::vector<int>& leaves, int64_t max_rows, int64_t max_bytes) {
  if (rg < 0 || rg >= num_row_groups()) {
    return Status::InvalidArgument("{}: row group {} out of range (the file has {})", path_,
                                   rg, num_row_groups());
  }
  if (max_rows < 1) {
    return Status::InvalidArgument("{}: batch size {} rows is not positive", path_, max_rows);
  }
  std::vector<int> wanted = leaves;
  if (wanted.empty()) {
    wanted.resize(schema_.num_leaves());
    for (int i = 0; i < schema_.num_leaves(); ++i) wanted[i] = i;
  }
  for (int leaf : wanted) {
    if (leaf < 0 || leaf >= schema_.num_leaves()) {
      return Status::InvalidArgument("{}: leaf column {} out of range (the file has {})",
                                     path_, leaf, schema_.num_leaves());
    }
  }
  return std::make_unique<RowGroupStreamImpl>(path_, schema_, rg, first_rows_[rg],
                                              metadata_.row_groups[rg].num_rows,
                                              std::move(wanted), max_rows, max_bytes);
}

Result<io::RandomAccessFile*> FileReaderImpl::StreamFile(RowGroupStreamImpl* stream) {
  if (options_.max_prefetch_bytes <= 0 || !file_->read_profile().remote) return file_.get();
  std::vector<io::ReadRange> wanted;
  uint64_t total = 0;
  for (int leaf : stream->leaves()) {
    const ChunkRange& r = ranges_[static_cast<size_t>(stream->row_group()) * schema_.num_leaves() + leaf];
    if (r.length <= 0) continue;
    wanted.push_back(io::ReadRange{static_cast<uint64_t>(r.offset), static_cast<uint64_t>(r.length)});
    total += static_cast<uint64_t>(r.length);
  }
  // One chunk: its read-ahead window makes it one request already.
  if (wanted.size() < 2) return file_.get();
  if (total > static_cast<uint64_t>(options_.max_prefetch_bytes)) return file_.get();
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto prefetched, io::PrefetchedFile::Make(file_.get(), std::move(wanted)),
                               "row group {}", stream->row_group());
  io::RandomAccessFile* raw = prefetched.get();
  stream->Own(std::move(prefetched));
  return raw;
}

Result<std::unique_ptr<RowGroupStream>> FileReaderImpl::OpenRowGroup(
    int rg, const std::vector<int>& leaves, int64_t max_rows_per_batch, ValueForm form) {
  int64_t max_bytes = std::max<int64_t>(options_.max_batch_bytes, 0);
  LITHIFY_ASSIGN_OR_RETURN(auto stream, NewStream(rg, leaves, max_rows_per_batch, max_bytes));
  LITHIFY_ASSIGN_OR_RETURN(io::RandomAccessFile * file, StreamFile(stream.get()));
  LITHIFY_RETURN_NOT_OK(stream->Start(file, metadata_, ranges_, options_, nullptr, form));
  return std::unique_ptr<RowGroupStream>(std::move(stream));
}

Result<RowBatch> FileReaderImpl::ReadRowGroup(int rg, const std::vector<int>& leaves) {
  // One batch of every row, without a byte budget: memory is bounded by the row group
  // (and each column chunk by max_decoded_chunk_bytes). Taking all rows of a chunk moves
  // its decoded buffers into the batch, so this costs no copy over decoding in place.
  LITHIFY_ASSIGN_OR_RETURN(auto stream, NewStream(rg, leaves, INT64_MAX, INT64_MAX));
  RowBatch batch;
  LITHIFY_ASSIGN_OR_RETURN(io::RandomAccessFile * file, StreamFile(stream.get()));
  Status st = stream->Start(file, metadata_, ranges_, options_, &spare_readers_);
  if (st.ok()) st = stream->Next(&batch).status();
  stream->ReleaseReaders(&spare_readers_);
  if (!st.ok()) return st;
  return batch;
}

// Checks every row group against the schema and computes chunk ranges and first rows.
Status ValidateRowGroups(const std::string& path, const FileMetaData& md, const Schema& schema,
                         int64_t data_end, std::vector<int64_t>* first_rows,
                         std::vector<ChunkRange>* ranges) {
  bool pad = NeedsChunkPadding(md.created_by);
  int64_t row = 0;
  size_t num_leaves = static_cast<size_t>(schema.num_leaves());
  for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
    const RowGroup& group = md.row_groups[rg];
    if (group.num_rows < 0 || group.num_rows > INT64_MAX - row) {
      return Status::Corruption("{}: row group {}: invalid num_rows {}", path, rg,
                                group.num_rows);
    }
    first_rows->push_back(row);
    row += group.num_rows;
    if (group.columns.size() != num_leaves) {
      return Status::Corruption("{}: row group {}: {} column chunks for {} leaf columns", path,
                                rg, group.columns.size(), num_leaves);
    }
    for (size_t c = 0; c < num_leaves; ++c) {
      const ColumnChunk& chunk = group.columns[c];
      const ColumnDescriptor& descr = schema.leaf(static_cast<int>(c));
      if (chunk.has_crypto_metadata) {
        return Status::NotSupported(
            "{}: column '{}' is encrypted: encrypted Parquet files are not supported", path,
            descr.dotted_path);
      }
      if (!chunk.meta_data.has_value()) {
        if (chunk.file_path.has_value()) {
          return Status::NotSupported(
              "{}: row group {}: column '{}': column chunks stored in another file ('{}')",
              path, rg, descr.dotted_path, *chunk.file_path);
        }
        return Status::Corruption("{}: row group {}: column '{}': column chunk without metadata",
                                  path, rg, descr.dotted_path);
      }
      const ColumnMetaData& meta = *chunk.meta_data;
      if (meta.type != descr.physical_type) {
        return Status::Corruption(
            "{}: row group {}: column '{}': column chunk type {} but schema type {}", path, rg,
            descr.dotted_path, PhysicalTypeName(meta.type),
            PhysicalTypeName(descr.physical_type));
      }
      LITHIFY_ASSIGN_OR_RETURN_CTX(ChunkRange range, ComputeChunkRange(meta, data_end, pad),
                                   "{}: row group {}: column '{}'", path, rg,
                                   descr.dotted_path);
      ranges->push_back(range);
    }
  }
  return Status::OK();
}

// The footer's bytes, read either exactly (8-byte tail, then the footer: two small reads
// of a local file) or, for a remote file, speculatively with the last 64 KiB at once.
struct Footer {
  Buffer data;          // holds the footer at [skip, skip + length)
  size_t skip = 0;
  size_t length = 0;
  uint64_t start = 0;   // file offset of the footer
  ByteView bytes() const { return ByteView(data.data() + skip, length); }
};

Status CheckTail(const std::string& path, const uint8_t* tail) {
  if (HasMagic(tail + 4, kEncryptedMagic)) {
    return Status::NotSupported("{}: encrypted Parquet files (PARE footer) are not supported",
                                path);
  }
  if (!HasMagic(tail + 4, kMagic)) {
    return Status::Corruption("{}: not a Parquet file (no PAR1 magic at the end)", path);
  }
  return Status::OK();
}

Result<uint32_t> FooterLength(const std::string& path, const uint8_t* tail, uint64_t size) {
  uint32_t footer_len = static_cast<uint32_t>(tail[0]) | (static_cast<uint32_t>(tail[1]) << 8) |
                        (static_cast<uint32_t>(tail[2]) << 16) |
                        (static_cast<uint32_t>(tail[3]) << 24);
  if (footer_len == 0 || footer_len > size - kTailSize - kMagicSize) {
    return Status::Corruption("{}: footer length {} out of range for a file of {} bytes", path,
                              footer_len, size);
  }
  return footer_len;
}

Status CheckHead(const std::string& path, const uint8_t* head) {
  if (!HasMagic(head, kMagic)) {
    return Status::Corruption("{}: not a Parquet file (no PAR1 magic at the start)", path);
  }
  return Status::OK();
}

Result<Footer> ReadFooter(io::RandomAccessFile* file, const std::string& path, uint64_t size) {
  Footer f;
  if (file->read_profile().remote) {
    const uint64_t tail_start = size - std::min(size, kSpeculativeTailBytes);
    LITHIFY_ASSIGN_OR_RETURN(f.data, file->Read(tail_start, static_cast<size_t>(size - tail_start)));
    const uint8_t* tail = f.data.data() + f.data.size() - kTailSize;
    LITHIFY_RETURN_NOT_OK(CheckTail(path, tail));
    if (tail_start == 0) LITHIFY_RETURN_NOT_OK(CheckHead(path, f.data.data()));
    LITHIFY_ASSIGN_OR_RETURN(uint32_t footer_len, FooterLength(path, tail, size));
    f.start = size - kTailSize - footer_len;
    f.length = footer_len;
    if (f.start >= tail_start) {
      f.skip = static_cast<size_t>(f.start - tail_start);
      return f;
    }
    // A footer larger than the guess: read it exactly (the guess told its length).
    LITHIFY_ASSIGN_OR_RETURN(f.data, file->Read(f.start, footer_len));
    f.skip = 0;
    return f;
  }
  uint8_t tail[kTailSize];
  LITHIFY_RETURN_NOT_OK(file->ReadAt(size - kTailSize, kTailSize, tail));
  LITHIFY_RETURN_NOT_OK(CheckTail(path, tail));
  uint8_t head[kMagicSize];
  LITHIFY_RETURN_NOT_OK(file->ReadAt(0, kMagicSize, head));
  LITHIFY_RETURN_NOT_OK(CheckHead(path, head));
  LITHIFY_ASSIGN_OR_RETURN(uint32_t footer_len, FooterLength(path, tail, size));
  f.start = size - kTailSize - footer_len;
  f.length = footer_len;
  LITHIFY_ASSIGN_OR_RETURN(f.data, file->Read(f.start, footer_len));
  return f;
}

}  // namespace

Result<std::unique_ptr<FileReader>> FileReader::Open(std::unique_ptr<io::RandomAccessFile> file,
                                                     ReadOptions options) {
  if (!file) return Status::InvalidArgument("FileReader::Open: null file");
  const std::string path = file->path();
  uint64_t size = file->size();
  if (size < 2 * kMagicSize + 4) {
    return Status::Corruption("{}: {} bytes is too small to be a Parquet file", path, size);
  }
  LITHIFY_ASSIGN_OR_RETURN(Footer footer, ReadFooter(file.get(), path, size));
  const uint64_t footer_start = footer.start;
  LITHIFY_ASSIGN_OR_RETURN_CTX(FileMetaData md, ParseFileMetaData(footer.bytes()),
                               "{}: footer", path);
  if (md.has_encryption_algorithm) {
    return Status::NotSupported(
        "{}: encrypted Parquet files (plaintext footer with encryption) are not supported",
        path);
  }
  LITHIFY_ASSIGN_OR_RETURN_CTX(Schema schema, Schema::FromElements(md.schema), "{}: schema",
                               path);
  std::vector<int64_t> first_rows;
  std::vector<ChunkRange> ranges;
  LITHIFY_RETURN_NOT_OK(ValidateRowGroups(path, md, schema, static_cast<int64_t>(footer_start),
                                          &first_rows, &ranges));
  return std::unique_ptr<FileReader>(
      new FileReaderImpl(std::move(file), options, std::move(md), std::move(schema),
                         std::move(first_rows), std::move(ranges)));
}

Result<std::unique_ptr<FileReader>> FileReader::Open(io::FileSystem* fs, std::string_view path,
                                                     ReadOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("FileReader::Open: null file system");
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs->OpenForRead(path));
  return Open(std::move(file), options);
}

Result<std::vector<int>> ResolveColumns(const Schema& schema,
                                        const std::vector<std::string>& names) {
  std::vector<int> out;
  std::vector<bool> seen(static_cast<size_t>(schema.num_leaves()), false);
  for (const std::string& name : names) {
    LITHIFY_ASSIGN_OR_RETURN(int node, schema.FindNode(name));
    // A name that covers leaves already selected adds only the new ones, so "a, a.b"
    // reads each column once, in first-mention order.
    for (int leaf : schema.LeavesUnder(node)) {
      if (!seen[leaf]) {
        seen[leaf] = true;
        out.push_back(leaf);
      }
    }
  }
  return out;
}

}  // namespace lithify::parquet
