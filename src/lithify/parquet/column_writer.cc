#include "lithify/parquet/column_writer.h"

#include <algorithm>
#include <climits>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "lithify/base/macros.h"
#include "lithify/parquet/compression.h"

namespace lithify::parquet {
namespace {

// Pages never hold more level entries than this, so DataPageHeader.num_values (int32)
// cannot overflow even for columns whose levels encode to almost nothing.
constexpr int64_t kMaxPageLevels = 1 << 20;
// Level entries handled between two page-size checks (before row alignment).
constexpr int64_t kMaxMiniBatch = 4096;

// Finalizer of MurmurHash3: cheap and good enough for 4/8-byte keys, whose low bits
// index the table.
inline uint64_t Mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

template <int kWidth>
inline uint64_t HashFixed(const uint8_t* p, size_t width) {
  if constexpr (kWidth == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return Mix64(v);
  } else if constexpr (kWidth == 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return Mix64(v);
  } else {
    return XXH3_64bits(p, width);
  }
}

void PutU32(Buffer* b, size_t pos, uint32_t v) { std::memcpy(b->data() + pos, &v, 4); }

// Appends a 4-byte length prefix followed by the encoder's runs.
void AppendLevels(RleBitPackedEncoder* enc, Buffer* out) {
  size_t len_pos = out->size();
  out->Resize(len_pos + 4);
  enc->Flush(out);
  PutU32(out, len_pos, static_cast<uint32_t>(out->size() - len_pos - 4));
}

}  // namespace

ColumnChunkWriter::ColumnChunkWriter(const ColumnDescriptor& descr,
                                     const WriterOptions& options)
    : descr_(descr),
      options_(options),
      type_(descr.physical_type),
      max_def_(descr.max_def),
      max_rep_(descr.max_rep),
      def_encoder_(BitWidth(static_cast<uint64_t>(descr.max_def))),
      rep_encoder_(BitWidth(static_cast<uint64_t>(descr.max_rep))),
      stats_(*descr.element, options.max_statistics_size) {
  value_width_ = static_cast<int32_t>(PhysicalTypeWidth(type_, descr.type_length));
  const auto kind = stats_.kind();
  stats_per_value_ = kind == ColumnStatistics::Kind::kFloat || kind == ColumnStatistics::Kind::kDouble ||
                     kind == ColumnStatistics::Kind::kFloat16;
  ResetChunk();
}

void ColumnChunkWriter::ResetChunk() {
  dict_mode_ = options_.enable_dictionary && type_ != PhysicalType::kBoolean;
  dict_plain_.Clear();
  entry_pos_.clear();
  entry_hash_.clear();
  slots_.assign(dict_mode_ ? 1024 : 0, 0);
  slot_mask_ = slots_.empty() ? 0 : slots_.size() - 1;
  dict_map_id_ = 0;
  indices_.clear();
  plain_values_.Clear();
  page_levels_ = 0;
  page_plain_bytes_ = 0;
  data_pages_.Clear();
  data_compressed_ = 0;
  stream_ = nullptr;
  chunk_start_ = 0;
  first_data_page_ = -1;
  dict_page_written_ = false;
  dict_page_compressed_ = 0;
  dict_page_uncompressed_ = 0;
  chunk_levels_ = 0;
  data_uncompressed_ = 0;
  dict_data_pages_ = 0;
  plain_data_pages_ = 0;
  plain_v2_pages_ = 0;
  copied_pages_ = 0;
  stats_.Reset();
}

int64_t ColumnChunkWriter::PageEstimate() const {
  int64_t levels = static_cast<int64_t>(def_encoder_.EstimatedSize() + rep_encoder_.EstimatedSize());
  if (dict_mode_) {
    int bw = std::max(1, BitWidth(entry_pos_.empty() ? 0 : entry_pos_.size() - 1));
    return levels + 1 + (static_cast<int64_t>(indices_.size()) * bw + 7) / 8;
  }
  if (type_ == PhysicalType::kBoolean) return levels + static_cast<int64_t>(plain_values_.size() + 7) / 8;
  return levels + static_cast<int64_t>(plain_values_.size());
}

int64_t ColumnChunkWriter::PageLimit() const {
  if (dict_mode_ || value_width_ != 0 || type_ == PhysicalType::kBoolean) return options_.page_size_bytes;
  return options_.PlainByteArrayPageSize();
}

int64_t ColumnChunkWriter::EstimatedSize() const {
  int64_t dict = dict_mode_ || dict_data_pages_ > 0 ? static_cast<int64_t>(dict_plain_.size()) : 0;
  return static_cast<int64_t>(data_pages_.size()) + dict + PageEstimate();
}

Status ColumnChunkWriter::Write(const ColumnData& col, int64_t level_begin, int64_t level_end,
                                int64_t value_begin, int64_t* values_consumed) {
  const int16_t* def = max_def_ > 0 ? col.def_levels.data() : nullptr;
  const int16_t* rep = max_rep_ > 0 ? col.rep_levels.data() : nullptr;
  // Bytes one level entry adds to a page, roughly, to size the steps between checks.
  int64_t per_level = value_width_ > 0 ? value_width_ : 4;
  const ColumnValues& bytes = col.values.is_dictionary() ? *col.values.dictionary : col.values;
  if (value_width_ == 0 && bytes.count > 0) {
    per_level += static_cast<int64_t>(bytes.data.size()) / bytes.count;
  }
  int64_t pos = level_begin;
  int64_t v = value_begin;
  while (pos < level_end) {
    int64_t room = std::max<int64_t>(PageLimit() - PageEstimate(), 0);
    int64_t step = std::clamp<int64_t>(room / per_level, 1, kMaxMiniBatch);
    int64_t end = std::min(level_end, pos + step);
    if (rep != nullptr) {
      while (end < level_end && rep[end] != 0) ++end;  // pages start at rows
    }
    int64_t n_levels = end - pos;
    int64_t n_values = n_levels;
    if (def != nullptr) {
      n_values = 0;
      for (int64_t i = pos; i < end; ++i) n_values += def[i] == max_def_;
      def_encoder_.PutLevels(def + pos, static_cast<size_t>(n_levels));
    }
    if (rep != nullptr) rep_encoder_.PutLevels(rep + pos, static_cast<size_t>(n_levels));
    stats_.AddNulls(n_levels - n_values);
    if (n_values > 0 && col.values.is_dictionary()) {
      AppendIndexed(col.values, v, v + n_values);
    } else if (n_values > 0) {
      stats_.AddValues(col.values, v, v + n_values);
      LITHIFY_RETURN_NOT_OK(AppendValues(col.values, v, v + n_values));
    }
    page_levels_ += n_levels;
    chunk_levels_ += n_levels;
    v += n_values;
    pos = end;
    if (PageEstimate() >= PageLimit() || page_levels_ >= kMaxPageLevels) {
      LITHIFY_RETURN_NOT_OK(FlushPage());
    }
    if (dict_mode_ &&
        static_cast<int64_t>(dict_plain_.size()) > options_.dictionary_page_size_limit) {
      // Pages written so far keep the dictionary; the rest of the chunk is PLAIN. When no
      // page used it yet, the open page turns PLAIN and keeps filling (to the larger PLAIN
      // string page size) instead of being cut with a dictionary nothing else will use.
      // (Bounded: the PLAIN page is at most twice the larger page size.)
      if (dict_data_pages_ == 0 && page_plain_bytes_ <= 2 * options_.PlainByteArrayPageSize()) {
        FallBackToPlain();
      } else {
        LITHIFY_RETURN_NOT_OK(FlushPage());
        EndDictionaryMode();
      }
      if (stream_ != nullptr) LITHIFY_RETURN_NOT_OK(DrainToStream());
    }
  }
  *values_consumed = v - value_begin;
  return Status::OK();
}

Status ColumnChunkWriter::AppendValues(const ColumnValues& values, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  if (dict_mode_) {
    page_plain_bytes_ += value_width_ > 0 ? n * value_width_
                                          : 4 * n + (values.offsets[end] - values.offsets[begin]);
    ReserveIndices(n);
    switch (value_width_) {
      case 0: DictEncodeByteArray(values, begin, end); break;
      case 4: DictEncodeFixed<4>(values.fixed_at(begin), n); break;
      case 8: DictEncodeFixed<8>(values.fixed_at(begin), n); break;
      default: DictEncodeFixed<0>(values.fixed_at(begin), n); break;
    }
    return Status::OK();
  }
  if (value_width_ > 0) {
    plain_values_.Append(values.fixed_at(begin), static_cast<size_t>(n * value_width_));
    return Status::OK();
  }
  // BYTE_ARRAY PLAIN: 4-byte little-endian length, then the bytes.
  const int64_t* off = values.offsets.data();
  size_t pos = plain_values_.size();
  plain_values_.Resize(pos + static_cast<size_t>(4 * n + (off[end] - off[begin])));
  uint8_t* dst = plain_values_.data() + pos;
  for (int64_t i = begin; i < end; ++i) {
    uint32_t len = static_cast<uint32_t>(off[i + 1] - off[i]);
    std::memcpy(dst, &len, 4);
    std::memcpy(dst + 4, values.data.data() + off[i], len);
    dst += 4 + len;
  }
  return Status::OK();
}

void ColumnChunkWriter::ReserveIndices(int64_t n) {
  // Geometric growth: an exact reserve per call reallocated and copied the whole page's
  // indices on every append, quadratic in the number of small batches a page takes
  // (OPTIMIZE of many small files: a third of its CPU was this copy).
  const size_t need = indices_.size() + static_cast<size_t>(n);
  if (need > indices_.capacity()) indices_.reserve(std::max(need, 2 * indices_.capacity()));
}

uint32_t ColumnChunkWriter::InsertEntry(uint64_t hash, size_t slot) {
  // The caller has appended the entry's bytes and position already.
  uint32_t index = static_cast<uint32_t>(entry_hash_.size());
  entry_hash_.push_back(hash);
  slots_[slot] = index + 1;
  if (entry_pos_.size() * 2 > slots_.size()) GrowTable();
  return index;
}

void ColumnChunkWriter::GrowTable() {
  slots_.assign(slots_.size() * 2, 0);
  slot_mask_ = slots_.size() - 1;
  for (size_t i = 0; i < entry_hash_.size(); ++i) {
    size_t s = entry_hash_[i] & slot_mask_;
    while (slots_[s] != 0) s = (s + 1) & slot_mask_;
    slots_[s] = static_cast<uint32_t>(i + 1);
  }
}

template <int kWidth>
uint32_t ColumnChunkWriter::LookupFixed(const uint8_t* p, size_t w) {
  const uint64_t h = HashFixed<kWidth>(p, w);
  for (size_t s = h & slot_mask_;; s = (s + 1) & slot_mask_) {
    const uint32_t e = slots_[s];
    if (e == 0) {
      entry_pos_.push_back(static_cast<int64_t>(dict_plain_.size()));
      dict_plain_.Append(p, w);
      return InsertEntry(h, s);
    }
    if (entry_hash_[e - 1] == h && std::memcmp(dict_plain_.data() + entry_pos_[e - 1], p, w) == 0) {
      return e - 1;
    }
  }
}

uint32_t ColumnChunkWriter::LookupBytes(const uint8_t* p, uint32_t len) {
  const uint64_t h = XXH3_64bits(p, len);
  for (size_t s = h & slot_mask_;; s = (s + 1) & slot_mask_) {
    const uint32_t e = slots_[s];
    if (e == 0) {
      entry_pos_.push_back(static_cast<int64_t>(dict_plain_.size()));
      dict_plain_.AppendValue(len);
      dict_plain_.Append(p, len);
      return InsertEntry(h, s);
    }
    if (entry_hash_[e - 1] == h) {
      const uint8_t* entry = dict_plain_.data() + entry_pos_[e - 1];
      uint32_t entry_len;
      std::memcpy(&entry_len, entry, 4);
      if (entry_len == len && std::memcmp(entry + 4, p, len) == 0) return e - 1;
    }
  }
}

template <int kWidth>
void ColumnChunkWriter::DictEncodeFixed(const uint8_t* p, int64_t n) {
  const size_t w = kWidth > 0 ? kWidth : static_cast<size_t>(value_width_);
  for (int64_t i = 0; i < n; ++i, p += w) indices_.push_back(LookupFixed<kWidth>(p, w));
}

void ColumnChunkWriter::DictEncodeByteArray(const ColumnValues& values, int64_t begin,
                                            int64_t end) {
  const int64_t* off = values.offsets.data();
  const uint8_t* data = values.data.data();
  for (int64_t i = begin; i < end; ++i) {
    indices_.push_back(LookupBytes(data + off[i], static_cast<uint32_t>(off[i + 1] - off[i])));
  }
}

uint32_t ColumnChunkWriter::MapEntry(const ColumnValues& dict, uint32_t e) {
  uint32_t& out = dict_map_[e];
  if (out != kUnmapped) return out;
  if (!stats_per_value_) stats_.AddValues(dict, e, e + 1);
  if (value_width_ == 0) {
    const int64_t b = dict.offsets[e];
    out = LookupBytes(dict.data.data() + b, static_cast<uint32_t>(dict.offsets[e + 1] - b));
  } else {
    const uint8_t* p = dict.fixed_at(e);
    switch (value_width_) {
      case 4: out = LookupFixed<4>(p, 4); break;
      case 8: out = LookupFixed<8>(p, 8); break;
      default: out = LookupFixed<0>(p, static_cast<size_t>(value_width_)); break;
    }
  }
  return out;
}

void ColumnChunkWriter::AppendIndexed(const ColumnValues& values, int64_t begin, int64_t end) {
  const ColumnValues& dict = *values.dictionary;
  if (dict_map_id_ != values.dictionary_id) {
    dict_map_.assign(static_cast<size_t>(dict.count), kUnmapped);
    dict_map_id_ = values.dictionary_id;
  }
  if (stats_per_value_) stats_.AddValues(values, begin, end);
  const uint32_t* in = values.indices.data();
  const int64_t n = end - begin;
  if (!dict_mode_) {
    // PLAIN: each value's entry bytes (BYTE_ARRAY with its length prefix).
    for (int64_t i = begin; i < end; ++i) {
      const uint32_t e = in[i];
      if (dict_map_[e] == kUnmapped) {
        if (!stats_per_value_) stats_.AddValues(dict, e, e + 1);
        dict_map_[e] = kSeen;
      }
    }
    if (value_width_ > 0) {
      const size_t old = plain_values_.size();
      plain_values_.Resize(old + static_cast<size_t>(n * value_width_));
      for (int64_t i = begin; i < end; ++i) {
        std::memcpy(plain_values_.data() + old + (i - begin) * value_width_, dict.fixed_at(in[i]),
                    static_cast<size_t>(value_width_));
      }
      return;
    }
    for (int64_t i = begin; i < end; ++i) {
      const std::string_view v = dict.binary(in[i]);
      plain_values_.AppendValue(static_cast<uint32_t>(v.size()));
      plain_values_.Append(reinterpret_cast<const uint8_t*>(v.data()), v.size());
    }
    return;
  }
  ReserveIndices(n);
  int64_t plain_bytes = n * (value_width_ > 0 ? value_width_ : 4);
  const int64_t* doff = value_width_ == 0 ? dict.offsets.data() : nullptr;
  for (int64_t i = begin; i < end; ++i) {
    const uint32_t e = in[i];
    uint32_t out = dict_map_[e];
    if (out == kUnmapped) out = MapEntry(dict, e);
    indices_.push_back(out);
    if (doff != nullptr) plain_bytes += doff[e + 1] - doff[e];
  }
  page_plain_bytes_ += plain_bytes;
}

Status ColumnChunkWriter::WritePage(PageType type, ByteView body, Encoding encoding,
                                    int32_t num_values, Buffer* sink) {
  if (body.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::InvalidArgument("column '{}': page of {} bytes exceeds the format's 2 GiB limit",
                                   descr_.dotted_path, body.size());
  }
  ByteView payload = body;
  if (options_.codec != CompressionCodec::kUncompressed) {
    CompressOptions copts;
    copts.level = options_.compression_level;
    LITHIFY_RETURN_NOT_OK_CTX(Compress(options_.codec, body, &compressed_, copts),
                              "column '{}'", descr_.dotted_path);
    payload = compressed_.view();
    if (payload.size() > static_cast<size_t>(INT32_MAX)) {
      return Status::InvalidArgument("column '{}': compressed page exceeds 2 GiB",
                                     descr_.dotted_path);
    }
  }
  PageHeader ph;
  ph.type = type;
  ph.uncompressed_page_size = static_cast<int32_t>(body.size());
  ph.compressed_page_size = static_cast<int32_t>(payload.size());
  if (options_.write_page_checksums) ph.crc = static_cast<int32_t>(Crc32(payload));
  if (type == PageType::kDictionaryPage) {
    DictionaryPageHeader dh;
    dh.num_values = num_values;
    dh.encoding = Encoding::kPlain;
    ph.dictionary_page_header = dh;
  } else {
    DataPageHeader dh;
    dh.num_values = num_values;
    dh.encoding = encoding;
    ph.data_page_header = dh;
  }
  header_.Clear();
  SerializePageHeader(ph, &header_);
  sink->Append(header_.view());
  sink->Append(payload);
  return Status::OK();
}

bool ColumnChunkWriter::DictionaryPaysOff() const {
  // Decided once per chunk, on its first page. Clear cases by size alone (parquet-mr's
  // test with a margin): indices + dictionary at least 90% of PLAIN means nearly unique
  // values, PLAIN from the start (as DuckDB writes them); at most a quarter means many
  // repeats, dictionary. In between, the codec decides: PLAIN values often compress well
  // (small integers, sorted dates) while bit-packed indices barely do, so a first slice
  // of the page is compressed both ways (TPC-H l_extendedprice: 0.57 of PLAIN by size,
  // yet 1.38x DuckDB's PLAIN chunk once compressed).
  int bw = std::max(1, BitWidth(entry_pos_.size() - 1));
  int64_t encoded = (static_cast<int64_t>(indices_.size()) * bw + 7) / 8 +
                    static_cast<int64_t>(dict_plain_.size());
  if (encoded * 10 >= page_plain_bytes_ * 9) return false;
  if (encoded * 4 <= page_plain_bytes_ || options_.codec == CompressionCodec::kUncompressed) return true;
  return DictionaryWinsCompressed();
}

bool ColumnChunkWriter::DictionaryWinsCompressed() const {
  // The slice: the first values up to ~256 KiB PLAIN. Entries are numbered in order of
  // first appearance, so the slice uses exactly entries [0, m), m = 1 + its largest index.
  constexpr int64_t kSliceBytes = 256 << 10;
  Buffer plain;
  uint32_t m = 0;
  size_t k = 0;
  for (; k < indices_.size() && static_cast<int64_t>(plain.size()) < kSliceBytes; ++k) {
    uint32_t index = indices_[k];
    m = std::max(m, index + 1);
    plain.Append(dict_plain_.data() + entry_pos_[index], EntrySize(index));
  }
  Buffer dict_indices;
  int bw = std::max(1, BitWidth(m - 1));
  dict_indices.PushBack(static_cast<uint8_t>(bw));
  RleBitPackedEncoder enc(bw);
  enc.PutMany(indices_.data(), k);
  enc.Flush(&dict_indices);
  int64_t dict_bytes = m < entry_pos_.size() ? entry_pos_[m] : static_cast<int64_t>(dict_plain_.size());
  CompressOptions copts;
  copts.level = options_.compression_level;
  auto compressed = [&](ByteView in) -> int64_t {
    Buffer out;
    if (!Compress(options_.codec, in, &out, copts).ok()) return INT64_MAX / 4;
    return static_cast<int64_t>(out.size());
  };
  int64_t with_dict = compressed(ByteView(dict_plain_.data(), static_cast<size_t>(dict_bytes))) +
                      compressed(dict_indices.view());
  return with_dict < compressed(plain.view());
}

size_t ColumnChunkWriter::EntrySize(uint32_t index) const {
  int64_t end = index + 1 < entry_pos_.size() ? entry_pos_[index + 1]
                                              : static_cast<int64_t>(dict_plain_.size());
  return static_cast<size_t>(end - entry_pos_[index]);
}

void ColumnChunkWriter::FallBackToPlain() {
  // The open page's values, PLAIN: each index's dictionary entry, whose bytes are already
  // in PLAIN form (BYTE_ARRAY entries keep their 4-byte length prefix).
  plain_values_.Clear();
  plain_values_.Reserve(static_cast<size_t>(page_plain_bytes_));
  const uint8_t* dict = dict_plain_.data();
  for (uint32_t index : indices_) plain_values_.Append(dict + entry_pos_[index], EntrySize(index));
  indices_.clear();
  dict_plain_.Clear();
  entry_pos_.clear();
  EndDictionaryMode();
}

void ColumnChunkWriter::EndDictionaryMode() {
  dict_mode_ = false;
  slots_.clear();
  slots_.shrink_to_fit();
  entry_hash_.clear();
  entry_hash_.shrink_to_fit();
}

Status ColumnChunkWriter::FlushPage() {
  if (page_levels_ == 0) return Status::OK();
  page_body_.Clear();
  if (max_rep_ > 0) AppendLevels(&rep_encoder_, &page_body_);
  if (max_def_ > 0) AppendLevels(&def_encoder_, &page_body_);
  // The chunk's first dictionary page decides whether the dictionary is worth it.
  if (dict_mode_ && !entry_pos_.empty() && dict_data_pages_ == 0 && !DictionaryPaysOff()) {
    FallBackToPlain();
  }
  // A page with no values while the dictionary is still empty is written PLAIN so that
  // an all-null chunk needs no (empty) dictionary page.
  bool use_dict = dict_mode_ && !entry_pos_.empty();
  Encoding encoding = Encoding::kPlain;
  if (use_dict) {
    encoding = Encoding::kRleDictionary;
    int bw = std::max(1, BitWidth(entry_pos_.size() - 1));
    page_body_.PushBack(static_cast<uint8_t>(bw));
    RleBitPackedEncoder enc(bw);
    enc.PutMany(indices_.data(), indices_.size());
    enc.Flush(&page_body_);
  } else if (type_ == PhysicalType::kBoolean) {
    EncodePlainFixed(type_, 0, plain_values_.data(), plain_values_.size(), &page_body_);
  } else {
    page_body_.Append(plain_values_.view());
  }
  if (page_levels_ > INT32_MAX) {
    return Status::Internal("column '{}': page level count overflow", descr_.dotted_path);
  }
  size_t before = data_pages_.size();
  LITHIFY_RETURN_NOT_OK(WritePage(PageType::kDataPage, page_body_.view(), encoding,
                                  static_cast<int32_t>(page_levels_), &data_pages_));
  size_t header_size = data_pages_.size() - before -
                       (options_.codec == CompressionCodec::kUncompressed
                            ? page_body_.size() : compressed_.size());
  data_uncompressed_ += static_cast<int64_t>(header_size + page_body_.size());
  data_compressed_ += static_cast<int64_t>(data_pages_.size() - before);
  (use_dict ? dict_data_pages_ : plain_data_pages_)++;
  page_levels_ = 0;
  page_plain_bytes_ = 0;
  indices_.clear();
  plain_values_.Clear();
  // Streaming: once no later page of this chunk can use the dictionary, every buffered
  // page's place in the file is final.
  if (stream_ != nullptr && !dict_mode_) return DrainToStream();
  return Status::OK();
}

Status ColumnChunkWriter::AppendEncodedPage(const PageHeader& header, ByteView payload,
                                            const ColumnData& page) {
  const bool v2 = header.type == PageType::kDataPageV2 && header.data_page_header_v2;
  const bool v1 = header.type == PageType::kDataPage && header.data_page_header;
  auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument("column '{}': cannot append an encoded page: {}",
                                   descr_.dotted_path, why);
  };
  if (!AcceptsPlainPages()) return refuse("the chunk is still dictionary-encoded");
  if (!v1 && !v2) return refuse("not a data page");
  if ((v1 ? header.data_page_header->encoding : header.data_page_header_v2->encoding) !=
      Encoding::kPlain) {
    return refuse("values are not PLAIN");
  }
  if (v1 && max_rep_ > 0) return refuse("a v1 page of a repeated column may end inside a row");
  if (v1 && max_def_ > 0 && header.data_page_header->definition_level_encoding != Encoding::kRle) {
    return refuse("definition levels are not RLE");
  }
  const int64_t levels = v1 ? header.data_page_header->num_values
                            : header.data_page_header_v2->num_values;
  if (page.num_levels != levels || payload.size() != static_cast<size_t>(header.compressed_page_size)) {
    return refuse("the decoded page or payload does not match the header");
  }
  LITHIFY_RETURN_NOT_OK(FlushPage());
  stats_.AddNulls(levels - page.values.count);
  if (page.values.count > 0) stats_.AddValues(page.values, 0, page.values.count);

  PageHeader ph;
  ph.type = header.type;
  ph.uncompressed_page_size = header.uncompressed_page_size;
  ph.compressed_page_size = header.compressed_page_size;
  // An input CRC is kept, not recomputed: a copy must not bless bytes that the reader
  // was told not to verify.
  if (options_.write_page_checksums) {
    ph.crc = header.crc ? *header.crc : static_cast<int32_t>(Crc32(payload));
  }
  if (v1) {
    ph.data_page_header = *header.data_page_header;
    ph.data_page_header->statistics.reset();
  } else {
    ph.data_page_header_v2 = *header.data_page_header_v2;
    ph.data_page_header_v2->statistics.reset();
  }
  header_.Clear();
  SerializePageHeader(ph, &header_);
  const int64_t bytes = static_cast<int64_t>(header_.size() + payload.size());
  if (stream_ != nullptr) {
    LITHIFY_RETURN_NOT_OK(DrainToStream());
    if (first_data_page_ < 0) first_data_page_ = static_cast<int64_t>(stream_->position());
    LITHIFY_RETURN_NOT_OK(stream_->Append(header_.view()));
    LITHIFY_RETURN_NOT_OK(stream_->Append(payload));
  } else {
    data_pages_.Append(header_.view());
    data_pages_.Append(payload);
  }
  data_compressed_ += bytes;
  data_uncompressed_ += static_cast<int64_t>(header_.size()) + header.uncompressed_page_size;
  chunk_levels_ += levels;
  (v1 ? plain_data_pages_ : plain_v2_pages_)++;
  ++copied_pages_;
  return Status::OK();
}

void ColumnChunkWriter::BeginStreamingChunk(io::OutputStream* out) {
  stream_ = out;
  chunk_start_ = static_cast<int64_t>(out->position());
}

Status ColumnChunkWriter::WriteDictionaryPage(io::OutputStream* out) {
  Buffer dict_page;
  LITHIFY_RETURN_NOT_OK(WritePage(PageType::kDictionaryPage, dict_plain_.view(),
                                  Encoding::kPlain, static_cast<int32_t>(entry_pos_.size()),
                                  &dict_page));
  size_t payload = options_.codec == CompressionCodec::kUncompressed ? dict_plain_.size()
                                                                     : compressed_.size();
  dict_page_uncompressed_ = static_cast<int64_t>(dict_page.size() - payload + dict_plain_.size());
  dict_page_compressed_ = static_cast<int64_t>(dict_page.size());
  LITHIFY_RETURN_NOT_OK(out->Append(dict_page.view()));
  dict_page_written_ = true;
  return Status::OK();
}

Status ColumnChunkWriter::DrainToStream() {
  if (dict_data_pages_ > 0 && !dict_page_written_) {
    LITHIFY_RETURN_NOT_OK(WriteDictionaryPage(stream_));
    // The dictionary is final and in the file: its bytes are no longer needed.
    dict_plain_ = Buffer();
    entry_pos_.clear();
    entry_pos_.shrink_to_fit();
  }
  if (data_pages_.size() == 0) return Status::OK();
  if (first_data_page_ < 0) first_data_page_ = static_cast<int64_t>(stream_->position());
  LITHIFY_RETURN_NOT_OK(stream_->Append(data_pages_.view()));
  data_pages_.Clear();
  return Status::OK();
}

void ColumnChunkWriter::ReleaseMemory() {
  indices_ = {};
  dict_map_ = {};
  dict_map_id_ = 0;
  plain_values_ = Buffer();
  dict_plain_ = Buffer();
  entry_pos_ = {};
  entry_hash_ = {};
  slots_.assign(dict_mode_ ? 1024 : 0, 0);
  slots_.shrink_to_fit();
  data_pages_ = Buffer();
  page_body_ = Buffer();
  compressed_ = Buffer();
  header_ = Buffer();
}

Status ColumnChunkWriter::FinishChunk(io::OutputStream* out, ColumnChunk* chunk) {
  LITHIFY_RETURN_NOT_OK(FlushPage());
  const bool streaming = stream_ != nullptr;
  if (!streaming) {
    chunk_start_ = static_cast<int64_t>(out->position());
  } else if (stream_ != out) {
    return Status::Internal("column '{}': chunk finished on another stream", descr_.dotted_path);
  }
  ColumnMetaData md;
  md.type = type_;
  md.path_in_schema = descr_.path;
  md.codec = options_.codec;
  md.num_values = chunk_levels_;
  if (dict_data_pages_ > 0 && !dict_page_written_) {
    LITHIFY_RETURN_NOT_OK(WriteDictionaryPage(out));
  }
  if (dict_page_written_) {
    md.dictionary_page_offset = chunk_start_;
    md.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  }
  if (first_data_page_ < 0) first_data_page_ = static_cast<int64_t>(out->position());
  md.data_page_offset = first_data_page_;
  LITHIFY_RETURN_NOT_OK(out->Append(data_pages_.view()));
  data_pages_.Clear();
  if (dict_data_pages_ > 0) {
    md.encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, dict_data_pages_});
  }
  if (plain_data_pages_ > 0) {
    md.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_data_pages_});
  }
  if (plain_v2_pages_ > 0) {
    md.encoding_stats.push_back({PageType::kDataPageV2, Encoding::kPlain, plain_v2_pages_});
  }
  if (dict_data_pages_ > 0 || plain_data_pages_ > 0 || plain_v2_pages_ > 0) {
    md.encodings.push_back(Encoding::kPlain);
  }
  if (max_def_ > 0 || max_rep_ > 0) md.encodings.push_back(Encoding::kRle);
  if (dict_data_pages_ > 0) md.encodings.push_back(Encoding::kRleDictionary);
  md.total_uncompressed_size = data_uncompressed_ + dict_page_uncompressed_;
  md.total_compressed_size = data_compressed_ + dict_page_compressed_;
  md.statistics = stats_.ToThrift();
  chunk->file_path.reset();
  chunk->file_offset = chunk_start_;
  chunk->meta_data = std::move(md);
  ResetChunk();
  if (streaming) ReleaseMemory();
  return Status::OK();
}

}  // namespace lithify::parquet
