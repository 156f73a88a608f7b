#include "lithify/parquet/column_reader.h"

#include <algorithm>
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

// Bytes of one fixed-width value (0 for BYTE_ARRAY).
int64_t ValueWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kBoolean: return 1;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat: return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: return 8;
    case PhysicalType::kInt96: return 12;
    case PhysicalType::kFixedLenByteArray: return type_length;
    case PhysicalType::kByteArray: return 0;
  }
  return 0;
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

template <size_t W>
void GatherFixed(const uint8_t* dict, const uint32_t* idx, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * W, dict + size_t{idx[i]} * W, W);
}

void GatherFixedAny(const uint8_t* dict, const uint32_t* idx, int64_t n, size_t w,
                    uint8_t* out) {
  switch (w) {
    case 1: return GatherFixed<1>(dict, idx, n, out);
    case 4: return GatherFixed<4>(dict, idx, n, out);
    case 8: return GatherFixed<8>(dict, idx, n, out);
    case 12: return GatherFixed<12>(dict, idx, n, out);
    case 16: return GatherFixed<16>(dict, idx, n, out);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * w, dict + size_t{idx[i]} * w, w);
  }
}

}  // namespace

Status ColumnChunkReader::ChargeMemory(int64_t bytes) {
  if (bytes < 0 || bytes > options_.max_decoded_bytes - decoded_bytes_) {
    return Status::NotSupported(
        "column chunk decodes to more than {} bytes (the configured per-chunk limit)",
        options_.max_decoded_bytes);
  }
  decoded_bytes_ += bytes;
  return Status::OK();
}

Result<ByteView> ColumnChunkReader::Decompressed(ByteView page, int64_t uncompressed_size) {
  if (codec_ == CompressionCodec::kUncompressed) return page;
  if (uncompressed_size < 0) {
    return Status::Corruption("negative uncompressed size {}", uncompressed_size);
  }
  if (uncompressed_size > options_.max_decoded_bytes) {
    return Status::NotSupported("page decompresses to {} bytes, above the per-chunk limit",
                                uncompressed_size);
  }
  scratch_.Resize(static_cast<size_t>(uncompressed_size));
  LITHIFY_RETURN_NOT_OK(
      Decompress(codec_, page, scratch_.data(), static_cast<size_t>(uncompressed_size)));
  return scratch_.view();
}

Status ColumnChunkReader::Read(const ColumnDescriptor& descr, const ColumnMetaData& meta,
                               ByteView chunk, int64_t num_rows,
                               const ChunkReadOptions& options, ColumnData* out) {
  descr_ = &descr;
  codec_ = meta.codec;
  options_ = options;
  out_ = out;
  levels_read_ = 0;
  rows_read_ = 0;
  expected_levels_ = meta.num_values;
  expected_rows_ = num_rows;
  decoded_bytes_ = 0;
  has_dictionary_ = false;
  dict_.Clear();

  out->descr = &descr;
  out->num_levels = 0;
  out->def_levels.clear();
  out->rep_levels.clear();
  out->values.Clear();
  out->values.type = descr.physical_type;
  out->values.type_length = descr.type_length;

  if (!CanDecompress(codec_)) {
    return Status::NotSupported("compression codec {}", CodecName(codec_));
  }
  if (num_rows < 0) return Status::Corruption("negative row count {}", num_rows);
  if (meta.num_values < 0) {
    return Status::Corruption("negative num_values {} in column metadata", meta.num_values);
  }
  // Reserve for the common case without trusting a hostile count with a huge allocation.
  size_t reserve = static_cast<size_t>(std::min<int64_t>(meta.num_values, int64_t{1} << 22));
  if (descr.max_def > 0) out->def_levels.reserve(reserve);
  if (descr.max_rep > 0) out->rep_levels.reserve(reserve);

  size_t pos = 0;
  int page = 0;
  while (levels_read_ < meta.num_values) {
    if (pos >= chunk.size()) {
      return Status::Corruption("column chunk ended after {} of its {} values", levels_read_,
                                meta.num_values);
    }
    size_t header_size = 0;
    LITHIFY_ASSIGN_OR_RETURN_CTX(PageHeader header,
                                 ParsePageHeader(chunk.subspan(pos), &header_size),
                                 "page {}: header", page);
    if (header_size == 0 || header_size > chunk.size() - pos) {
      return Status::Corruption("page {}: header size {} out of range", page, header_size);
    }
    pos += header_size;
    if (header.compressed_page_size < 0 ||
        static_cast<size_t>(header.compressed_page_size) > chunk.size() - pos) {
      return Status::Corruption(
          "page {}: compressed size {} exceeds the {} bytes left in the column chunk", page,
          header.compressed_page_size, chunk.size() - pos);
    }
    ByteView body = chunk.subspan(pos, static_cast<size_t>(header.compressed_page_size));
    pos += body.size();
    if (options_.verify_checksums && header.crc.has_value() &&
        Crc32(body) != static_cast<uint32_t>(*header.crc)) {
      return Status::Corruption("page {}: checksum mismatch", page);
    }
    Status st;
    switch (header.type) {
      case PageType::kDictionaryPage: st = ReadDictionaryPage(header, body); break;
      case PageType::kDataPage: st = ReadDataPageV1(header, body); break;
      case PageType::kDataPageV2: st = ReadDataPageV2(header, body); break;
      default: break;  // INDEX_PAGE and unknown future page types carry no values
    }
    if (!st.ok()) return st.WithContextF("page {}", page);
    ++page;
  }
  if (levels_read_ != meta.num_values) {
    return Status::Corruption("pages hold {} values but the column chunk says {}",
                              levels_read_, meta.num_values);
  }
  if (rows_read_ != num_rows) {
    return Status::Corruption("column chunk holds {} rows but the row group has {}",
                              rows_read_, num_rows);
  }
  out->num_levels = levels_read_;
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
  int64_t width = ValueWidth(type, descr_->type_length);
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

  if (descr_->max_rep > 0) {
    size_t old = out_->rep_levels.size();
    out_->rep_levels.resize(old + n);
    int16_t* lv = out_->rep_levels.data() + old;
    LITHIFY_RETURN_NOT_OK(
        DecodeLevelRun(rep, rep_encoding, descr_->max_rep, lv, n, "repetition"));
    if (old == 0 && n > 0 && lv[0] != 0) {
      return Status::Corruption("column chunk starts with repetition level {}, not 0", lv[0]);
    }
    int64_t rows = 0;
    for (int64_t i = 0; i < n; ++i) rows += lv[i] == 0;
    rows_read_ += rows;
  } else {
    rows_read_ += n;
  }
  if (descr_->max_def > 0) {
    size_t old = out_->def_levels.size();
    out_->def_levels.resize(old + n);
    int16_t* lv = out_->def_levels.data() + old;
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
  return Status::OK();
}

Status ColumnChunkReader::DecodeValues(Encoding encoding, ByteView in, int64_t n) {
  if (n == 0) return Status::OK();
  ColumnValues& v = out_->values;
  PhysicalType type = descr_->physical_type;
  int32_t type_length = descr_->type_length;
  int64_t width = ValueWidth(type, type_length);
  bool is_ba = type == PhysicalType::kByteArray;
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
      LITHIFY_RETURN_NOT_OK(DecodeDictionaryIndices(in, n));
      LITHIFY_RETURN_NOT_OK(GatherFromDictionary(n));
      break;
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

Status ColumnChunkReader::DecodeDictionaryIndices(ByteView in, int64_t n) {
  if (in.empty()) return Status::Corruption("dictionary indices: missing bit width");
  int bw = in[0];
  if (bw > 32) return Status::Corruption("dictionary indices: bit width {} above 32", bw);
  if (n > options_.max_decoded_bytes / 4) {  // scratch only: not charged to the chunk
    return Status::NotSupported("page with {} dictionary indices exceeds the per-chunk limit", n);
  }
  indices_.resize(static_cast<size_t>(n));
  RleBitPackedDecoder dec(in.data() + 1, in.size() - 1, bw);
  LITHIFY_RETURN_NOT_OK(dec.Decode(indices_.data(), static_cast<size_t>(n)));
  uint32_t max_index = 0;
  for (int64_t i = 0; i < n; ++i) max_index = std::max(max_index, indices_[i]);
  if (static_cast<int64_t>(max_index) >= dict_.count) {
    return Status::Corruption("dictionary index {} out of range (dictionary has {} values)",
                              max_index, dict_.count);
  }
  return Status::OK();
}

Status ColumnChunkReader::GatherFromDictionary(int64_t n) {
  ColumnValues& v = out_->values;
  const uint32_t* idx = indices_.data();
  if (!dict_.is_byte_array()) {
    size_t w = dict_.width();
    LITHIFY_RETURN_NOT_OK(ChargeMemory(n * static_cast<int64_t>(w)));
    size_t old = v.fixed.size();
    v.fixed.Resize(old + static_cast<size_t>(n) * w);
    GatherFixedAny(dict_.fixed.data(), idx, n, w, v.fixed.data() + old);
    return Status::OK();
  }
  const int64_t* doff = dict_.offsets.data();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) total += doff[idx[i] + 1] - doff[idx[i]];
  LITHIFY_RETURN_NOT_OK(ChargeMemory(total + n * 8));
  size_t old_off = v.offsets.size();
  v.offsets.resize(old_off + static_cast<size_t>(n));
  size_t old_data = v.data.size();
  v.data.Resize(old_data + static_cast<size_t>(total));
  int64_t* off = v.offsets.data() + old_off;
  uint8_t* out = v.data.data();
  const uint8_t* src = dict_.data.data();
  int64_t end = static_cast<int64_t>(old_data);
  for (int64_t i = 0; i < n; ++i) {
    int64_t b = doff[idx[i]];
    int64_t len = doff[idx[i] + 1] - b;
    if (len > 0) std::memcpy(out + end, src + b, static_cast<size_t>(len));
    end += len;
    off[i] = end;
  }
  return Status::OK();
}

}  // namespace lithify::parquet::internal
