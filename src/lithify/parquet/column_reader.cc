#include "lithify/parquet/column_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "lithify/base/macros.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/encoding.h"

namespace lithify::parquet::internal {
namespace {

uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// Cheap upper bound check before PLAIN decoding allocates: n values need at least this
// many input bytes, so a lying count fails before any allocation.
Status CheckPlainFits(PhysicalType type, int64_t width, int64_t n, size_t available) {
  int64_t avail = static_cast<int64_t>(available);
  bool fits;
  if (type == PhysicalType::kBoolean) {
    fits = (n + 7) / 8 <= avail;
  } else if (type == PhysicalType::kByteArray) {
    fits = n <= avail / 4;  // each value has a 4-byte length
  } else {
    fits = width > 0 && n <= avail / width;
  }
  if (!fits) {
    return Status::Corruption("{} PLAIN values of type {} do not fit in {} bytes", n,
                              PhysicalTypeName(type), available);
  }
  return Status::OK();
}

// Splits a data page v1 level section off `data` at *pos.
Result<ByteView> SplitV1Levels(ByteView data, size_t* pos, Encoding encoding, int64_t n,
                               int bit_width, const char* what) {
  size_t remaining = data.size() - *pos;
  if (encoding == Encoding::kRle) {
    if (remaining < 4) {
      return Status::Corruption("{} levels: missing 4-byte length", what);
    }
    uint32_t len = LoadLE32(data.data() + *pos);
    if (len > remaining - 4) {
      return Status::Corruption("{} levels: length {} exceeds the {} bytes left in the page",
                                what, len, remaining - 4);
    }
    ByteView out = data.subspan(*pos + 4, len);
    *pos += 4 + len;
    return out;
  }
  if (encoding == Encoding::kBitPacked) {
    uint64_t bytes = (static_cast<uint64_t>(n) * bit_width + 7) / 8;
    if (bytes > remaining) {
      return Status::Corruption("{} levels: {} BIT_PACKED levels need {} bytes, {} left", what,
                                n, bytes, remaining);
    }
    ByteView out = data.subspan(*pos, bytes);
    *pos += bytes;
    return out;
  }
  return Status::NotSupported("{} level encoding {}", what, EncodingName(encoding));
}

// Decodes n levels into out[0..n) and checks each is <= max_level (a level above the
// maximum would desynchronise values and record assembly).
Status DecodeLevelRun(ByteView in, Encoding encoding, int max_level, int16_t* out, int64_t n,
                      const char* what) {
  int bw = BitWidth(static_cast<uint64_t>(max_level));
  Status st;
  if (encoding == Encoding::kBitPacked) {
    st = DecodeBitPackedLevelsLegacy(in.data(), in.size(), bw, out, static_cast<size_t>(n));
  } else {
    RleBitPackedDecoder dec(in.data(), in.size(), bw);
    st = dec.Decode(out, static_cast<size_t>(n));
  }
  if (!st.ok()) return st.WithContextF("{} levels", what);
  int16_t mx = 0;
  int16_t mn = 0;
  for (int64_t i = 0; i < n; ++i) {
    mx = std::max(mx, out[i]);
    mn = std::min(mn, out[i]);
  }
  if (mx > max_level || mn < 0) {
    return Status::Corruption("{} level out of range [0, {}]", what, max_level);
  }
  return Status::OK();
}

}  // namespace

namespace {

// Bytes read ahead from the file per refill: small pages are served from memory
// without a read each, while one column's window stays small next to its pages.
constexpr int64_t kReadAhead = int64_t{256} << 10;
// First guess for a page header's size; grown when a header (e.g. with large
// statistics) does not parse within it.
constexpr int64_t kHeaderProbe = int64_t{16} << 10;
// Scratch buffers that grew past this for one large page are released afterwards, so a
// single huge page does not pin its size for the rest of the file.
constexpr size_t kKeepScratch = size_t{64} << 20;

int64_t CountEqual(const int16_t* p, int64_t n, int16_t x) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i] == x;
  return count;
}

// Removes the first `n` values of `v`, rebasing BYTE_ARRAY offsets.
void EraseFrontValues(ColumnValues* v, int64_t n) {
  if (n <= 0) return;
  if (n >= v->count) {
    v->Clear();
    return;
  }
  if (v->is_dictionary()) {
    v->indices.erase(v->indices.begin(), v->indices.begin() + n);
    v->count -= n;
    return;
  }
  if (v->is_byte_array()) {
    int64_t base = v->offsets[n];
    size_t keep = v->data.size() - static_cast<size_t>(base);
    if (keep > 0) std::memmove(v->data.data(), v->data.data() + base, keep);
    v->data.Resize(keep);
    v->offsets.erase(v->offsets.begin(), v->offsets.begin() + n);
    for (int64_t& o : v->offsets) o -= base;
  } else {
    size_t w = v->width();
    size_t keep = static_cast<size_t>(v->count - n) * w;
    std::memmove(v->fixed.data(), v->fixed.data() + static_cast<size_t>(n) * w, keep);
    v->fixed.Resize(keep);
  }
  v->count -= n;
}

}  // namespace

Status ColumnChunkReader::ChargeMemory(int64_t bytes) {
  if (bytes < 0 || bytes > options_.max_decoded_bytes - page_decoded_bytes_) {
    return Status::NotSupported(
        "page decodes to more than {} bytes (the configured per-page limit)",
        options_.max_decoded_bytes);
  }
  page_decoded_bytes_ += bytes;
  return Status::OK();
}

Result<ByteView> ColumnChunkReader::Decompressed(ByteView page, int64_t uncompressed_size) {
  if (codec_ == CompressionCodec::kUncompressed) return page;
  if (uncompressed_size < 0) {
    return Status::Corruption("negative uncompressed size {}", uncompressed_size);
  }
  if (uncompressed_size > options_.max_decoded_bytes) {
    return Status::NotSupported("page decompresses to {} bytes, above the per-page limit",
                                uncompressed_size);
  }
  scratch_.Clear();  // the last page is not kept: a bigger one must not copy it
  scratch_.Resize(static_cast<size_t>(uncompressed_size));
  LITHIFY_RETURN_NOT_OK(
      Decompress(codec_, page, scratch_.data(), static_cast<size_t>(uncompressed_size)));
  return scratch_.view();
}

Status ColumnChunkReader::Start(io::RandomAccessFile* file, int64_t offset, int64_t length,
                                const ColumnDescriptor& descr, const ColumnMetaData& meta,
                                int64_t num_rows, const ChunkReadOptions& options) {
  file_ = file;
  chunk_offset_ = offset;
  chunk_length_ = length;
  // Over a network a refill costs a request: read ahead as much as the file prefers.
  const uint64_t preferred = file != nullptr ? file->read_profile().preferred_read : 0;
  read_ahead_ = std::max<int64_t>(kReadAhead, static_cast<int64_t>(std::min<uint64_t>(preferred, INT64_MAX)));
  chunk_pos_ = 0;
  window_start_ = 0;
  window_.Resize(0);
  page_index_ = 0;
  descr_ = &descr;
  codec_ = meta.codec;
  options_ = options;
  levels_read_ = 0;
  rows_read_ = 0;
  expected_levels_ = meta.num_values;
  expected_rows_ = num_rows;
  rows_taken_ = 0;
  page_decoded_bytes_ = 0;
  has_dictionary_ = false;
  has_levels_ = descr.max_def > 0 || descr.max_rep > 0;
  dict_.Clear();

  pending_.Reset(descr);
  pending_levels_ = 0;
  run_levels_ = false;
  level_runs_.clear();
  consumed_ = {};
  measured_ = {};
  peeked_ = false;

  if (!CanDecompress(codec_)) {
    return Status::NotSupported("compression codec {}", CodecName(codec_));
  }
  if (num_rows < 0) return Status::Corruption("negative row count {}", num_rows);
  if (meta.num_values < 0) {
    return Status::Corruption("negative num_values {} in column metadata", meta.num_values);
  }
  if (offset < 0 || length < 0) {
    return Status::Corruption("column chunk range [{}, +{}) is invalid", offset, length);
  }
  return Status::OK();
}

Status ColumnChunkReader::EnsureWindow(size_t n) {
  int64_t win_end = window_start_ + static_cast<int64_t>(window_.size());
  int64_t need_end = chunk_pos_ + static_cast<int64_t>(n);
  if (chunk_pos_ >= window_start_ && need_end <= win_end) return Status::OK();
  int64_t keep = chunk_pos_ >= window_start_ && chunk_pos_ < win_end ? win_end - chunk_pos_ : 0;
  int64_t want = std::min(chunk_length_ - chunk_pos_,
                          std::max(static_cast<int64_t>(n), read_ahead_));
  if (keep > 0) {
    std::memmove(window_.data(), window_.data() + (chunk_pos_ - window_start_),
                 static_cast<size_t>(keep));
  }
  window_.Resize(static_cast<size_t>(want));  // keeps the first `keep` bytes
  window_start_ = chunk_pos_;
  if (want > keep) {
    Status st = file_->ReadAt(static_cast<uint64_t>(chunk_offset_ + chunk_pos_ + keep),
                              static_cast<size_t>(want - keep), window_.data() + keep);
    if (!st.ok()) {
      window_.Resize(0);
      return st;
    }
  }
  return Status::OK();
}

Status ColumnChunkReader::ReadPage(PageHeader* header, ByteView* body) {
  int64_t remaining = chunk_length_ - chunk_pos_;
  if (remaining <= 0) {
    return Status::Corruption("column chunk ended after {} of its {} values", levels_read_,
                              expected_levels_);
  }
  int64_t buffered = window_start_ + static_cast<int64_t>(window_.size()) - chunk_pos_;
  int64_t probe = std::min(remaining, std::max(buffered, kHeaderProbe));
  size_t header_size = 0;
  while (true) {
    LITHIFY_RETURN_NOT_OK(EnsureWindow(static_cast<size_t>(probe)));
    ByteView view(window_.data() + (chunk_pos_ - window_start_), static_cast<size_t>(probe));
    Result<PageHeader> parsed = ParsePageHeader(view, &header_size);
    if (parsed.ok()) {
      *header = std::move(parsed).value();
      break;
    }
    // A header cut off by the probe does not parse either; only the whole rest of the
    // chunk failing is conclusive. Growing by 4x keeps the re-parsing linear.
    if (probe == remaining) return parsed.status().WithContextF("page {}: header", page_index_);
    probe = std::min(remaining, probe * 4);
  }
  if (header_size == 0 || static_cast<int64_t>(header_size) > probe) {
    return Status::Corruption("page {}: header size {} out of range", page_index_, header_size);
  }
  chunk_pos_ += static_cast<int64_t>(header_size);
  remaining -= static_cast<int64_t>(header_size);
  if (header->compressed_page_size < 0 || header->compressed_page_size > remaining) {
    return Status::Corruption(
        "page {}: compressed size {} exceeds the {} bytes left in the column chunk",
        page_index_, header->compressed_page_size, remaining);
  }
  size_t size = static_cast<size_t>(header->compressed_page_size);
  LITHIFY_RETURN_NOT_OK(EnsureWindow(size));
  *body = ByteView(window_.data() + (chunk_pos_ - window_start_), size);
  chunk_pos_ += static_cast<int64_t>(size);
  return Status::OK();
}

Status ColumnChunkReader::DecodeNextPage() {
  PageHeader header;
  ByteView body;
  // A peeked page is decoded from where PeekDataPage left it; its body must stay
  // valid for TakePeekedPage's caller, so the window is not released below.
  const bool was_peeked = peeked_;
  if (peeked_) {
    header = std::move(peek_header_);
    body = peek_body_;
    peeked_ = false;
  } else {
    LITHIFY_RETURN_NOT_OK(ReadPage(&header, &body));
  }
  if (options_.verify_checksums && header.crc.has_value() &&
      Crc32(body) != static_cast<uint32_t>(*header.crc)) {
    return Status::Corruption("page {}: checksum mismatch", page_index_);
  }
  page_decoded_bytes_ = 0;
  Status st;
  switch (header.type) {
    case PageType::kDictionaryPage: st = ReadDictionaryPage(header, body); break;
    case PageType::kDataPage: st = ReadDataPageV1(header, body); break;
    case PageType::kDataPageV2: st = ReadDataPageV2(header, body); break;
    default: break;  // INDEX_PAGE and unknown future page types carry no values
  }
  if (scratch_.capacity() > kKeepScratch) scratch_ = Buffer();
  if (!was_peeked && window_.capacity() > kKeepScratch) {
    // The window holds nothing past this page worth keeping at that size.
    window_ = Buffer();
    window_start_ = chunk_pos_;
  }
  if (!st.ok()) return st.WithContextF("page {}", page_index_);
  ++page_index_;
  return Status::OK();
}

void ColumnChunkReader::Compact() {
  if (consumed_.level == 0) return;
  auto erase_front = [](std::vector<int16_t>* v, int64_t n) {
    if (!v->empty()) v->erase(v->begin(), v->begin() + n);
  };
  if (run_levels_) {
    // Run-form levels stay in run form: shift the runs, dropping those consumed.
    size_t keep = 0;
    for (const LevelRun& r : level_runs_) {
      if (r.end > consumed_.level) level_runs_[keep++] = LevelRun{r.end - consumed_.level, r.def};
    }
    level_runs_.resize(keep);
  }
  erase_front(&pending_.def_levels, consumed_.level);
  erase_front(&pending_.rep_levels, consumed_.level);
  EraseFrontValues(&pending_.values, consumed_.value);
  pending_levels_ -= consumed_.level;
  pending_.num_levels = pending_levels_;
  measured_.level -= consumed_.level;
  measured_.value -= consumed_.value;
  consumed_ = {};
}

bool ColumnChunkReader::ScanRows(Cursor* c, int64_t rows) const {
  int64_t begin = c->level;
  bool complete;
  if (run_levels_) {
    // Every pending level starts a row; a repeated column's last row is known complete
    // when a level follows it or the chunk has no more.
    int64_t step = std::min(rows - c->rows, pending_levels_ - c->level);
    c->level += step;
    c->rows += step;
    complete = c->rows == rows &&
               (descr_->max_rep == 0 || c->level < pending_levels_ || ChunkExhausted());
    c->value += RunValues(begin, c->level);
    return complete;
  }
  if (descr_->max_rep == 0) {
    int64_t step = std::min(rows - c->rows, pending_levels_ - c->level);
    c->level += step;
    c->rows += step;
    complete = c->rows == rows;
  } else {
    const int16_t* rep = pending_.rep_levels.data();
    int64_t i = c->level;
    int64_t n = pending_levels_;
    int64_t started = c->rows;
    complete = false;
    for (; i < n; ++i) {
      if (rep[i] == 0) {
        if (started == rows) {
          complete = true;
          break;
        }
        ++started;
      }
    }
    c->level = i;
    c->rows = started;
    // The last row also ends where the chunk's levels end.
    if (!complete && started == rows && ChunkExhausted()) complete = true;
  }
  if (descr_->max_def == 0) {
    c->value += c->level - begin;
  } else {
    c->value += CountEqual(pending_.def_levels.data() + begin, c->level - begin,
                           descr_->max_def);
  }
  return complete;
}

int64_t ColumnChunkReader::CostTo(const Cursor& c) const {
  int64_t levels = c.level - consumed_.level;
  int64_t values = c.value - consumed_.value;
  int64_t level_bytes = levels * 2 * ((descr_->max_def > 0) + (descr_->max_rep > 0));
  const ColumnValues& v = pending_.values;
  if (v.is_dictionary()) return level_bytes + values * 4;
  if (v.is_byte_array()) {
    int64_t data = values > 0 ? v.offsets[c.value] - v.offsets[consumed_.value] : 0;
    return level_bytes + values * 8 + data;
  }
  return level_bytes + values * static_cast<int64_t>(v.width());
}

Result<int64_t> ColumnChunkReader::MeasureRows(int64_t max_rows, int64_t budget,
                                               int64_t* cost) {
  int64_t want = max_rows;
  Cursor c = consumed_;
  c.rows = 0;
  int64_t bytes = 0;
  while (true) {
    bool complete = ScanRows(&c, want);
    bytes = CostTo(c);
    if (bytes > budget) {
      // Too much: the largest number of whole rows within the budget, row by row (this
      // runs once per cut batch, over data already decoded).
      Cursor best = consumed_;
      best.rows = 0;
      while (best.rows < want) {
        Cursor next = best;
        if (!ScanRows(&next, best.rows + 1) || CostTo(next) > budget) break;
        best = next;
      }
      if (best.rows > 0) {
        want = best.rows;
        c = best;
        bytes = CostTo(c);
        break;
      }
      // Not even one row fits: take exactly one, whatever its size.
      want = 1;
      budget = INT64_MAX;
      c = consumed_;
      c.rows = 0;
      continue;
    }
    if (complete) break;
    if (ChunkExhausted()) {
      return Status::Corruption("column chunk holds {} rows but the row group has {}",
                                rows_taken_ + c.rows, expected_rows_);
    }
    if (bytes > options_.max_decoded_bytes) break;  // reported below
    // More pages are needed: drop what was already handed out before appending.
    int64_t shift_levels = consumed_.level;
    int64_t shift_values = consumed_.value;
    Compact();
    c.level -= shift_levels;
    c.value -= shift_values;
    LITHIFY_RETURN_NOT_OK(DecodeNextPage());
  }
  if (bytes > options_.max_decoded_bytes) {
    return Status::NotSupported(
        "{} row(s) decode to more than {} bytes (the configured limit)", want,
        options_.max_decoded_bytes);
  }
  measured_ = c;
  *cost = bytes;
  return want;
}

void ColumnChunkReader::TakeRows(int64_t rows, ColumnData* out) {
  Cursor end = measured_;
  if (end.rows != rows) {
    end = consumed_;
    end.rows = 0;
    ScanRows(&end, rows);
  }
  int64_t levels = end.level - consumed_.level;
  bool empty_out = out->num_levels == 0 && out->values.count == 0;
  if (run_levels_) {
    if (descr_->max_def > 0) {
      int64_t at = consumed_.level;
      for (const LevelRun& r : level_runs_) {
        if (r.end <= at) continue;
        const int64_t stop = std::min(r.end, end.level);
        if (stop <= at) break;
        out->def_levels.insert(out->def_levels.end(), static_cast<size_t>(stop - at), r.def);
        at = stop;
      }
    }
    if (descr_->max_rep > 0) out->rep_levels.insert(out->rep_levels.end(), static_cast<size_t>(levels), int16_t{0});
    if (empty_out && consumed_.level == 0 && end.level == pending_levels_) {
      std::swap(out->values, pending_.values);
    } else {
      out->values.AppendRange(pending_.values, consumed_.value, end.value);
    }
    out->num_levels += levels;
    consumed_ = end;
  } else if (empty_out && consumed_.level == 0 && end.level == pending_levels_) {
    // Everything pending goes out: hand the buffers over instead of copying, and keep
    // the caller's old (empty) buffers for the next pages.
    std::swap(out->def_levels, pending_.def_levels);
    std::swap(out->rep_levels, pending_.rep_levels);
    std::swap(out->values, pending_.values);
    out->num_levels = levels;
    consumed_ = end;
  } else {
    if (descr_->max_def > 0) {
      const int16_t* p = pending_.def_levels.data();
      out->def_levels.insert(out->def_levels.end(), p + consumed_.level, p + end.level);
    }
    if (descr_->max_rep > 0) {
      const int16_t* p = pending_.rep_levels.data();
      out->rep_levels.insert(out->rep_levels.end(), p + consumed_.level, p + end.level);
    }
    out->values.AppendRange(pending_.values, consumed_.value, end.value);
    out->num_levels += levels;
    consumed_ = end;
  }
  consumed_.rows = 0;
  measured_ = consumed_;
  rows_taken_ += rows;
  if (consumed_.level == pending_levels_) {
    // Fully consumed: restart the buffer (its capacity is kept).
    pending_.Reset(*descr_);
    pending_levels_ = 0;
    run_levels_ = false;
    level_runs_.clear();
    consumed_ = {};
    measured_ = {};
  }
}

void ColumnChunkReader::TrimMemory() {
  auto big = [](size_t bytes) { return bytes > kKeepScratch; };
  if (big(pending_.values.fixed.capacity()) || big(pending_.values.data.capacity()) ||
      big(pending_.values.offsets.capacity() * sizeof(int64_t)) ||
      big(pending_.values.indices.capacity() * sizeof(uint32_t)) ||
      big(pending_.def_levels.capacity() * sizeof(int16_t)) ||
      big(pending_.rep_levels.capacity() * sizeof(int16_t))) {
    pending_ = ColumnData();
    pending_levels_ = 0;
    run_levels_ = false;
    level_runs_.clear();
    consumed_ = {};
    measured_ = {};
  }
  if (big(dict_.fixed.capacity()) || big(dict_.data.capacity()) ||
      big(dict_.offsets.capacity() * sizeof(int64_t))) {
    dict_ = ColumnValues();
    has_dictionary_ = false;
  }
  if (big(window_.capacity())) window_ = Buffer();
  if (big(scratch_.capacity())) scratch_ = Buffer();
  if (big(indices_.capacity() * sizeof(uint32_t))) indices_ = std::vector<uint32_t>();
}

int64_t ColumnChunkReader::CompleteRowsPending() const {
  const int64_t levels = pending_levels_ - consumed_.level;
  if (descr_->max_rep == 0) return levels;
  int64_t starts = run_levels_ ? levels : CountEqual(pending_.rep_levels.data() + consumed_.level, levels, 0);
  // The last row may go on in the next page unless the chunk has no more levels.
  if (starts > 0 && !ChunkExhausted()) --starts;
  return starts;
}

Result<int64_t> ColumnChunkReader::MeasurePageRows(int64_t max_rows, int64_t budget,
                                                   int64_t* cost) {
  // Dictionary and index pages add no levels: decode until a data page did.
  while (consumed_.level == pending_levels_ && !ChunkExhausted()) {
    LITHIFY_RETURN_NOT_OK(DecodeNextPage());
  }
  const int64_t ready = CompleteRowsPending();
  if (ready > 0) max_rows = std::min(max_rows, ready);
  return MeasureRows(max_rows, budget, cost);
}

Status ColumnChunkReader::PeekDataPage(const PageHeader** header, ByteView* payload) {
  *header = nullptr;
  if (consumed_.level < pending_levels_) return Status::OK();
  while (!peeked_) {
    if (ChunkExhausted()) return Status::OK();
    PageHeader h;
    ByteView body;
    LITHIFY_RETURN_NOT_OK(ReadPage(&h, &body));
    const bool data = h.type == PageType::kDataPage || h.type == PageType::kDataPageV2;
    peek_header_ = std::move(h);
    peek_body_ = body;
    peeked_ = true;
    if (!data) LITHIFY_RETURN_NOT_OK(DecodeNextPage());  // consumes it, as the row path would
  }
  *header = &peek_header_;
  *payload = peek_body_;
  return Status::OK();
}

Status ColumnChunkReader::TakePeekedPage(ColumnData* out, int64_t* rows) {
  if (!peeked_ || consumed_.level < pending_levels_) {
    return Status::Internal("TakePeekedPage without a peeked page at a page boundary");
  }
  const int64_t rows_before = rows_read_;
  LITHIFY_RETURN_NOT_OK(DecodeNextPage());
  const int64_t n = rows_read_ - rows_before;
  if (descr_->max_rep > 0 && pending_levels_ > 0 && !run_levels_ && pending_.rep_levels[0] != 0) {
    return Status::Corruption("page {} starts inside a row (repetition level {})",
                              page_index_ - 1, pending_.rep_levels[0]);
  }
  out->Reset(*descr_);
  if (pending_levels_ > 0) {
    measured_ = Cursor{pending_levels_, pending_.values.count, n};
    TakeRows(n, out);
  }
  *rows = n;
  return Status::OK();
}

Status ColumnChunkReader::Finish() {
  if (consumed_.level < pending_levels_ || !ChunkExhausted()) {
    return Status::Corruption(
        "column chunk holds more than the row group's {} rows ({} of its {} values read)",
        expected_rows_, levels_read_ - (pending_levels_ - consumed_.level), expected_levels_);
  }
  return Status::OK();
}

Status ColumnChunkReader::ReadDictionaryPage(const PageHeader& header, ByteView page) {
  if (!header.dictionary_page_header.has_value()) {
    return Status::Corruption("dictionary page without dictionary_page_header");
  }
  const DictionaryPageHeader& dh = *header.dictionary_page_header;
  if (has_dictionary_) return Status::Corruption("second dictionary page in a column chunk");
  if (dh.encoding != Encoding::kPlain && dh.encoding != Encoding::kPlainDictionary) {
    return Status::NotSupported("dictionary page encoding {}", EncodingName(dh.encoding));
  }
  if (dh.num_values < 0) {
    return Status::Corruption("dictionary page with negative num_values {}", dh.num_values);
  }
  LITHIFY_ASSIGN_OR_RETURN(ByteView data, Decompressed(page, header.uncompressed_page_size));
  PhysicalType type = descr_->physical_type;
  int64_t width = static_cast<int64_t>(PhysicalTypeWidth(type, descr_->type_length));
  LITHIFY_RETURN_NOT_OK(CheckPlainFits(type, width, dh.num_values, data.size()));
  dict_.Clear();
  dict_.type = type;
  dict_.type_length = descr_->type_length;
  if (type == PhysicalType::kByteArray) dict_.offsets.push_back(0);
  LITHIFY_ASSIGN_OR_RETURN(size_t consumed,
                           DecodePlain(type, descr_->type_length, data,
                                       static_cast<size_t>(dh.num_values), &dict_.fixed,
                                       &dict_.offsets, &dict_.data));
  (void)consumed;
  dict_.count = dh.num_values;
  has_dictionary_ = true;
  static std::atomic<uint64_t> next_dict_id{1};
  dict_id_ = next_dict_id.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

Status ColumnChunkReader::ReadDataPageV1(const PageHeader& header, ByteView page) {
  if (!header.data_page_header.has_value()) {
    return Status::Corruption("data page without data_page_header");
  }
  const DataPageHeader& dp = *header.data_page_header;
  LITHIFY_ASSIGN_OR_RETURN(ByteView data, Decompressed(page, header.uncompressed_page_size));
  int64_t n = dp.num_values;
  size_t pos = 0;
  ByteView rep, def;
  if (descr_->max_rep > 0) {
    LITHIFY_ASSIGN_OR_RETURN(rep, SplitV1Levels(data, &pos, dp.repetition_level_encoding, n,
                                                BitWidth(descr_->max_rep), "repetition"));
  }
  if (descr_->max_def > 0) {
    LITHIFY_ASSIGN_OR_RETURN(def, SplitV1Levels(data, &pos, dp.definition_level_encoding, n,
                                                BitWidth(descr_->max_def), "definition"));
  }
  int64_t non_null = 0;
  LITHIFY_RETURN_NOT_OK(DecodeLevels(dp.num_values, rep, dp.repetition_level_encoding, def,
                                     dp.definition_level_encoding, &non_null));
  return DecodeValues(dp.encoding, data.subspan(pos), non_null);
}

Status ColumnChunkReader::ReadDataPageV2(const PageHeader& header, ByteView page) {
  if (!header.data_page_header_v2.has_value()) {
    return Status::Corruption("data page v2 without data_page_header_v2");
  }
  const DataPageHeaderV2& dp = *header.data_page_header_v2;
  int64_t rep_len = dp.repetition_levels_byte_length;
  int64_t def_len = dp.definition_levels_byte_length;
  if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(page.size())) {
    return Status::Corruption("level lengths {} + {} exceed the page's {} bytes", rep_len,
                              def_len, page.size());
  }
  ByteView rep = page.subspan(0, static_cast<size_t>(rep_len));
  ByteView def = page.subspan(static_cast<size_t>(rep_len), static_cast<size_t>(def_len));
  ByteView values = page.subspan(static_cast<size_t>(rep_len + def_len));
  // Levels are never compressed in v2; values only when is_compressed. An empty
  // compressed section is "no values", not a zero-byte stream to decompress (some
  // codecs reject empty input).
  if (dp.is_compressed && codec_ != CompressionCodec::kUncompressed && !values.empty()) {
    int64_t uncompressed = int64_t{header.uncompressed_page_size} - rep_len - def_len;
    LITHIFY_ASSIGN_OR_RETURN(values, Decompressed(values, uncompressed));
  }
  int64_t non_null = 0;
  LITHIFY_RETURN_NOT_OK(
      DecodeLevels(dp.num_values, rep, Encoding::kRle, def, Encoding::kRle, &non_null));
  return DecodeValues(dp.encoding, values, non_null);
}

Status ColumnChunkReader::DecodeLevels(int32_t num_values, ByteView rep, Encoding rep_encoding,
                                       ByteView def, Encoding def_encoding,
                                       int64_t* non_null) {
  int64_t n = num_values;
  if (n < 0) return Status::Corruption("negative num_values {}", n);
  // Bound the page by what the chunk can still hold before allocating anything.
  if (n > expected_levels_ - levels_read_) {
    return Status::Corruption("page holds {} values but only {} of the column chunk's {} remain",
                              n, expected_levels_ - levels_read_, expected_levels_);
  }
  if (descr_->max_rep == 0 && n > expected_rows_ - rows_read_) {
    return Status::Corruption("page holds {} rows but only {} of the row group's {} remain", n,
                              expected_rows_ - rows_read_, expected_rows_);
  }
  int level_arrays = (descr_->max_def > 0) + (descr_->max_rep > 0);
  LITHIFY_RETURN_NOT_OK(ChargeMemory(n * 2 * level_arrays));
  if (TryRunLevels(n, rep, rep_encoding, def, def_encoding, non_null)) return Status::OK();
  MaterializeLevels();  // appending to pending run-form levels

  if (descr_->max_rep > 0) {
    size_t old = pending_.rep_levels.size();
    pending_.rep_levels.resize(old + n);
    int16_t* lv = pending_.rep_levels.data() + old;
    LITHIFY_RETURN_NOT_OK(
        DecodeLevelRun(rep, rep_encoding, descr_->max_rep, lv, n, "repetition"));
    if (levels_read_ == 0 && n > 0 && lv[0] != 0) {
      return Status::Corruption("column chunk starts with repetition level {}, not 0", lv[0]);
    }
    int64_t rows = 0;
    for (int64_t i = 0; i < n; ++i) rows += lv[i] == 0;
    rows_read_ += rows;
  } else {
    rows_read_ += n;
  }
  if (descr_->max_def > 0) {
    size_t old = pending_.def_levels.size();
    pending_.def_levels.resize(old + n);
    int16_t* lv = pending_.def_levels.data() + old;
    LITHIFY_RETURN_NOT_OK(
        DecodeLevelRun(def, def_encoding, descr_->max_def, lv, n, "definition"));
    int16_t max_def = descr_->max_def;
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += lv[i] == max_def;
    *non_null = count;
  } else {
    *non_null = n;
  }
  levels_read_ += n;
  pending_levels_ += n;
  pending_.num_levels = pending_levels_;
  return Status::OK();
}

namespace {
// Run-form pages with more definition runs than this are decoded as usual (scanning
// and copying the runs would approach the cost of the levels themselves).
constexpr size_t kMaxLevelRuns = 64;
}  // namespace

bool ColumnChunkReader::TryRunLevels(int64_t n, ByteView rep, Encoding rep_encoding, ByteView def,
                                     Encoding def_encoding, int64_t* non_null) {
  // Only into an empty pending buffer (levels appended to others are materialized).
  if (n == 0 || consumed_.level != pending_levels_ || (descr_->max_def == 0 && descr_->max_rep == 0)) return false;
  if (descr_->max_rep > 0) {
    if (rep_encoding != Encoding::kRle) return false;
    RleBitPackedDecoder dec(rep.data(), rep.size(), BitWidth(static_cast<uint64_t>(descr_->max_rep)));
    if (!dec.RleRuns(static_cast<size_t>(n), 1, &run_scratch_) || run_scratch_[0].second != 0) return false;
  }
  if (descr_->max_def > 0) {
    if (def_encoding != Encoding::kRle) return false;
    RleBitPackedDecoder dec(def.data(), def.size(), BitWidth(static_cast<uint64_t>(descr_->max_def)));
    if (!dec.RleRuns(static_cast<size_t>(n), kMaxLevelRuns, &run_scratch_)) return false;
    for (const auto& run : run_scratch_) {
      // Out-of-range levels are reported by the decoding path.
      if (run.second > static_cast<uint32_t>(descr_->max_def)) return false;
    }
  } else {
    run_scratch_.assign(1, {static_cast<uint64_t>(n), 0u});
  }
  // The buffer is empty: drop the consumed values as TakeRows would have.
  pending_.Reset(*descr_);
  consumed_ = {};
  measured_ = {};
  level_runs_.clear();
  int64_t end = 0, values = 0;
  for (const auto& run : run_scratch_) {
    end += static_cast<int64_t>(run.first);
    level_runs_.push_back(LevelRun{end, static_cast<int16_t>(run.second)});
    if (descr_->max_def == 0 || run.second == static_cast<uint32_t>(descr_->max_def)) {
      values += static_cast<int64_t>(run.first);
    }
  }
  run_levels_ = true;
  *non_null = values;
  rows_read_ += n;  // every level starts a row
  levels_read_ += n;
  pending_levels_ = n;
  pending_.num_levels = pending_levels_;
  return true;
}

int64_t ColumnChunkReader::RunValues(int64_t begin, int64_t end) const {
  if (descr_->max_def == 0) return end - begin;
  int64_t values = 0, start = 0;
  for (const LevelRun& r : level_runs_) {
    if (r.end > begin && start < end && r.def == descr_->max_def) {
      values += std::min(r.end, end) - std::max(start, begin);
    }
    start = r.end;
    if (start >= end) break;
  }
  return values;
}

void ColumnChunkReader::MaterializeLevels() {
  if (!run_levels_) return;
  run_levels_ = false;
  if (descr_->max_def > 0) {
    pending_.def_levels.clear();
    int64_t at = 0;
    for (const LevelRun& r : level_runs_) {
      pending_.def_levels.insert(pending_.def_levels.end(), static_cast<size_t>(r.end - at), r.def);
      at = r.end;
    }
  }
  if (descr_->max_rep > 0) pending_.rep_levels.assign(static_cast<size_t>(pending_levels_), int16_t{0});
  level_runs_.clear();
}

Status ColumnChunkReader::DecodeValues(Encoding encoding, ByteView in, int64_t n) {
  if (n == 0) return Status::OK();
  ColumnValues& v = pending_.values;
  PhysicalType type = descr_->physical_type;
  int32_t type_length = descr_->type_length;
  int64_t width = static_cast<int64_t>(PhysicalTypeWidth(type, type_length));
  bool is_ba = type == PhysicalType::kByteArray;
  const bool dict_page = encoding == Encoding::kPlainDictionary || encoding == Encoding::kRleDictionary;
  if (dict_page && options_.dictionary_indices && has_dictionary_ && (v.count == 0 || v.is_dictionary())) {
    LITHIFY_RETURN_NOT_OK(ChargeMemory(n * 4));
    if (v.count == 0) {
      v.Clear();
      v.dictionary = &dict_;
      v.dictionary_id = dict_id_;
    }
    const size_t old = v.indices.size();
    v.indices.resize(old + static_cast<size_t>(n));
    LITHIFY_RETURN_NOT_OK(DecodeDictionaryIndices(in, n, v.indices.data() + old));
    v.count += n;
    return Status::OK();
  }
  if (v.is_dictionary()) {
    // Pending values of a dictionary page, followed by a page of another encoding.
    LITHIFY_RETURN_NOT_OK(ChargeMemory(v.count * (is_ba ? 8 : width)));
    v.Materialize();
  }
  if (is_ba && v.offsets.empty()) v.offsets.push_back(0);
  switch (encoding) {
    case Encoding::kPlain: {
      LITHIFY_RETURN_NOT_OK(CheckPlainFits(type, width, n, in.size()));
      LITHIFY_RETURN_NOT_OK(
          ChargeMemory(is_ba ? n * 8 + static_cast<int64_t>(in.size()) : n * width));
      LITHIFY_ASSIGN_OR_RETURN(size_t consumed,
                               DecodePlain(type, type_length, in, static_cast<size_t>(n),
                                           &v.fixed, &v.offsets, &v.data));
      (void)consumed;
      break;
    }
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if (!has_dictionary_) {
        return Status::Corruption("dictionary-encoded page without a dictionary page");
      }
      if (n > options_.max_decoded_bytes / 4) {  // scratch only: not charged to the chunk
        return Status::NotSupported("page with {} dictionary indices exceeds the per-page limit", n);
      }
      indices_.resize(static_cast<size_t>(n));
      LITHIFY_RETURN_NOT_OK(DecodeDictionaryIndices(in, n, indices_.data()));
      return GatherFromDictionary(n);  // counts the values
    case Encoding::kRle: {
      if (type != PhysicalType::kBoolean) {
        return Status::Corruption("RLE value encoding on a {} column",
                                  PhysicalTypeName(type));
      }
      // RLE booleans carry a 4-byte length prefix (in v1 and v2 pages alike).
      if (in.size() < 4) return Status::Corruption("RLE booleans: missing 4-byte length");
      uint32_t len = LoadLE32(in.data());
      if (len > in.size() - 4) {
        return Status::Corruption("RLE booleans: length {} exceeds the {} bytes left", len,
                                  in.size() - 4);
      }
      LITHIFY_RETURN_NOT_OK(ChargeMemory(n * 5));
      indices_.resize(static_cast<size_t>(n));
      RleBitPackedDecoder dec(in.data() + 4, len, 1);
      LITHIFY_RETURN_NOT_OK(dec.Decode(indices_.data(), static_cast<size_t>(n)));
      size_t old = v.fixed.size();
      v.fixed.Resize(old + static_cast<size_t>(n));
      uint8_t* dst = v.fixed.data() + old;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(indices_[i] & 1);
      break;
    }
    case Encoding::kDeltaBinaryPacked: {
      if (type != PhysicalType::kInt32 && type != PhysicalType::kInt64) {
        return Status::Corruption("DELTA_BINARY_PACKED on a {} column", PhysicalTypeName(type));
      }
      LITHIFY_RETURN_NOT_OK(ChargeMemory(n * width));
      size_t old = v.fixed.size();
      v.fixed.Resize(old + static_cast<size_t>(n * width));
      LITHIFY_ASSIGN_OR_RETURN(size_t consumed,
                               DecodeDeltaBinaryPacked(in, static_cast<size_t>(n),
                                                       type == PhysicalType::kInt64,
                                                       v.fixed.data() + old));
      (void)consumed;
      break;
    }
    case Encoding::kDeltaLengthByteArray: {
      if (!is_ba) {
        return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY on a {} column",
                                  PhysicalTypeName(type));
      }
      LITHIFY_RETURN_NOT_OK(ChargeMemory(n * 8 + static_cast<int64_t>(in.size())));
      LITHIFY_ASSIGN_OR_RETURN(size_t consumed,
                               DecodeDeltaLengthByteArray(in, static_cast<size_t>(n),
                                                          &v.offsets, &v.data));
      (void)consumed;
      break;
    }
    case Encoding::kDeltaByteArray: {
      if (!is_ba && type != PhysicalType::kFixedLenByteArray) {
        return Status::Corruption("DELTA_BYTE_ARRAY on a {} column", PhysicalTypeName(type));
      }
      LITHIFY_RETURN_NOT_OK(ChargeMemory(is_ba ? n * 8 : n * width));
      size_t old_data = v.data.size();
      LITHIFY_ASSIGN_OR_RETURN(size_t consumed,
                               DecodeDeltaByteArray(type, type_length, in,
                                                    static_cast<size_t>(n), &v.fixed,
                                                    &v.offsets, &v.data));
      (void)consumed;
      // Prefix sharing lets a few input bytes expand; count what was produced.
      LITHIFY_RETURN_NOT_OK(ChargeMemory(static_cast<int64_t>(v.data.size() - old_data)));
      break;
    }
    case Encoding::kByteStreamSplit: {
      if (type != PhysicalType::kFloat && type != PhysicalType::kDouble &&
          type != PhysicalType::kInt32 && type != PhysicalType::kInt64 &&
          type != PhysicalType::kFixedLenByteArray) {
        return Status::Corruption("BYTE_STREAM_SPLIT on a {} column", PhysicalTypeName(type));
      }
      size_t w = static_cast<size_t>(width);
      if (in.size() % w != 0 || static_cast<int64_t>(in.size() / w) < n) {
        return Status::Corruption("BYTE_STREAM_SPLIT: {} bytes do not hold {} values of {} bytes",
                                  in.size(), n, w);
      }
      LITHIFY_RETURN_NOT_OK(ChargeMemory(n * width));
      LITHIFY_RETURN_NOT_OK(
          DecodeByteStreamSplit(in, w, in.size() / w, static_cast<size_t>(n), &v.fixed));
      break;
    }
    default:
      return Status::NotSupported("value encoding {}", EncodingName(encoding));
  }
  v.count += n;
  return Status::OK();
}

Status ColumnChunkReader::DecodeDictionaryIndices(ByteView in, int64_t n, uint32_t* out) {
  if (in.empty()) return Status::Corruption("dictionary indices: missing bit width");
  int bw = in[0];
  if (bw > 32) return Status::Corruption("dictionary indices: bit width {} above 32", bw);
  RleBitPackedDecoder dec(in.data() + 1, in.size() - 1, bw);
  LITHIFY_RETURN_NOT_OK(dec.Decode(out, static_cast<size_t>(n)));
  uint32_t max_index = 0;
  for (int64_t i = 0; i < n; ++i) max_index = std::max(max_index, out[i]);
  if (n > 0 && static_cast<int64_t>(max_index) >= dict_.count) {
    return Status::Corruption("dictionary index {} out of range (dictionary has {} values)",
                              max_index, dict_.count);
  }
  return Status::OK();
}

Status ColumnChunkReader::GatherFromDictionary(int64_t n) {
  ColumnValues& v = pending_.values;
  const uint32_t* idx = indices_.data();
  if (!dict_.is_byte_array()) {
    LITHIFY_RETURN_NOT_OK(ChargeMemory(n * static_cast<int64_t>(dict_.width())));
    v.AppendGathered(dict_, idx, n);
    return Status::OK();
  }
  const int64_t* doff = dict_.offsets.data();
  int64_t data_bytes = 0;
  for (int64_t i = 0; i < n; ++i) data_bytes += doff[idx[i] + 1] - doff[idx[i]];
  LITHIFY_RETURN_NOT_OK(ChargeMemory(data_bytes + n * 8));
  v.AppendGathered(dict_, idx, n, data_bytes);
  return Status::OK();
}

}  // namespace lithify::parquet::internal
