// Parquet value and level encodings (parquet-format Encodings.md).
//
// Decoders validate every count and length against the bytes that remain before using
// or allocating for it; arithmetic on decoded values is done in unsigned types so that
// hostile input cannot trigger signed-overflow UB. Bit unpacking is width-specialised:
// one indirect call per run of groups of 8 values, never per value.
#include "lithify/parquet/encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/parquet/bit_util.h"

namespace lithify::parquet {

using bit_util::Load64;
using bit_util::LoadLE;
using bit_util::ReadUleb128;
using bit_util::StoreLE;

namespace {

// ---------------------------------------------------------------- bit unpacking

// Unpacks 8 LSB-first values of W bits from `in`. Reads at most in[0 .. W+8]; callers
// guarantee that (or pass a zero-padded copy).
template <int W, typename T>
inline void Unpack8(const uint8_t* in, T* out) {
  if constexpr (W == 0) {
    for (int i = 0; i < 8; ++i) out[i] = 0;
  } else {
    constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
    for (int i = 0; i < 8; ++i) {
      const int bit = i * W;
      const int byte = bit >> 3;
      const int shift = bit & 7;
      uint64_t v = Load64(in + byte) >> shift;
      if (W + shift > 64) v |= static_cast<uint64_t>(in[byte + 8]) << (64 - shift);
      out[i] = static_cast<T>(v & kMask);
    }
  }
}

// Unpacks `groups` groups of 8 values of W bits. `avail` is the number of readable bytes
// from `in`; it may be less than groups * W only for a truncated final group, whose
// missing bytes read as zero.
template <int W, typename T>
void UnpackGroups(const uint8_t* in, size_t avail, size_t groups, T* out) {
  if constexpr (W == 0) {
    std::fill(out, out + groups * 8, T{0});
  } else {
    size_t g = 0;
    // Groups whose 8-byte over-read stays inside the readable range.
    if (avail >= static_cast<size_t>(W) + 9) {
      size_t fast = (avail - W - 9) / W + 1;
      fast = std::min(fast, groups);
      for (; g < fast; ++g) Unpack8<W>(in + g * W, out + g * 8);
    }
    for (; g < groups; ++g) {
      uint8_t tmp[W + 9] = {};
      size_t offset = g * W;
      size_t have = offset < avail ? std::min<size_t>(W, avail - offset) : 0;
      if (have > 0) std::memcpy(tmp, in + offset, have);
      Unpack8<W>(tmp, out + g * 8);
    }
  }
}

template <typename T>
using UnpackFn = void (*)(const uint8_t*, size_t, size_t, T*);

template <typename T, int... Ws>
constexpr std::array<UnpackFn<T>, sizeof...(Ws)> MakeUnpackTable(
    std::integer_sequence<int, Ws...>) {
  return {&UnpackGroups<Ws, T>...};
}

// Tables indexed by bit width: 0..32 for RLE outputs, 0..64 for delta deltas.
template <typename T>
const auto kUnpack32 = MakeUnpackTable<T>(std::make_integer_sequence<int, 33>{});
const auto kUnpack64 = MakeUnpackTable<uint64_t>(std::make_integer_sequence<int, 65>{});

size_t CeilDiv(size_t a, size_t b) { return a / b + (a % b != 0); }

// ---------------------------------------------------------------- DELTA_BINARY_PACKED reader

// Streaming DELTA_BINARY_PACKED decoder. Values are reconstructed in uint64 with
// wrapping arithmetic; INT32 callers truncate, which equals wrapping mod 2^32.
// Every miniblock entered must be fully present (including its padding), as the
// spec mandates and as parquet-cpp requires.
class DeltaBitPackReader {
 public:
  Status Init(ByteView in) {
    data_ = in.data();
    size_ = in.size();
    pos_ = 0;
    uint64_t first_zz = 0;
    if (!ReadUleb128(data_, size_, &pos_, &block_size_) ||
        !ReadUleb128(data_, size_, &pos_, &mb_count_) ||
        !ReadUleb128(data_, size_, &pos_, &total_) ||
        !ReadUleb128(data_, size_, &pos_, &first_zz)) {
      return Status::Corruption("DELTA_BINARY_PACKED header is truncated or malformed");
    }
    // The spec asks for block sizes in multiples of 128 and miniblocks of multiples of
    // 32 values; only byte alignment (multiples of 8) is needed to decode, so accept
    // that (the spec's own examples use blocks of 8).
    if (block_size_ == 0 || mb_count_ == 0 || block_size_ > kMaxBlockSize ||
        block_size_ % mb_count_ != 0 || (block_size_ / mb_count_) % 8 != 0) {
      return Status::Corruption(
          "DELTA_BINARY_PACKED header has invalid block size {} / miniblock count {}",
          block_size_, mb_count_);
    }
    vpm_ = block_size_ / mb_count_;
    last_ = bit_util::ZigzagDecode(first_zz);
    first_pending_ = total_ > 0;
    deltas_unassigned_ = total_ > 0 ? total_ - 1 : 0;
    mb_index_ = mb_count_;  // forces a block header before the first miniblock
    mb_pos_ = mb_values_ = 0;
    return Status::OK();
  }

  uint64_t total() const { return total_; }
  size_t position() const { return pos_; }

  // Decodes the next `count` values into `out` as little-endian T (uint32_t or
  // uint64_t), `count` <= values not yet decoded (checked by callers via total()).
  template <typename T>
  Status Decode(uint8_t* out, size_t count) {
    size_t i = 0;
    if (count > 0 && first_pending_) {
      StoreLE<T>(out, static_cast<T>(last_));
      first_pending_ = false;
      i = 1;
    }
    uint64_t scratch[kScratch];
    while (i < count) {
      if (mb_pos_ == mb_values_) {
        if (deltas_unassigned_ == 0) {
          return Status::Corruption("DELTA_BINARY_PACKED stream holds fewer values than asked");
        }
        LITHIFY_RETURN_NOT_OK(NextMiniblock());
      }
      size_t take = std::min<uint64_t>(count - i, mb_values_ - mb_pos_);
      if (mb_width_ == 0) {
        const uint64_t step = min_delta_;
        for (size_t j = 0; j < take; ++j) {
          last_ += step;
          StoreLE<T>(out + (i + j) * sizeof(T), static_cast<T>(last_));
        }
        i += take;
        mb_pos_ += take;
        continue;
      }
      while (take > 0) {
        const size_t group = mb_pos_ / 8;
        const size_t skip = mb_pos_ % 8;
        const size_t chunk = std::min(take, kScratch - skip);
        const size_t groups = CeilDiv(skip + chunk, 8);
        const uint8_t* src = mb_data_ + group * mb_width_;
        kUnpack64[mb_width_](src, static_cast<size_t>(data_ + size_ - src), groups, scratch);
        const uint64_t min_delta = min_delta_;
        uint64_t last = last_;
        uint8_t* dst = out + i * sizeof(T);
        for (size_t j = 0; j < chunk; ++j) {
          last += min_delta + scratch[skip + j];
          StoreLE<T>(dst + j * sizeof(T), static_cast<T>(last));
        }
        last_ = last;
        i += chunk;
        mb_pos_ += chunk;
        take -= chunk;
      }
    }
    return Status::OK();
  }

  // Advances over every value not yet decoded so position() is the end of the stream.
  Status SkipRest() {
    first_pending_ = false;
    mb_pos_ = mb_values_;
    while (deltas_unassigned_ > 0) {
      LITHIFY_RETURN_NOT_OK(NextMiniblock());
      mb_pos_ = mb_values_;
    }
    return Status::OK();
  }

 private:
  // Largest accepted block: far above any writer's choice, and small enough that
  // values-per-miniblock * 64 bits cannot overflow.
  static constexpr uint64_t kMaxBlockSize = uint64_t{1} << 31;
  static constexpr size_t kScratch = 256;

  Status NextBlock() {
    uint64_t min_zz = 0;
    if (!ReadUleb128(data_, size_, &pos_, &min_zz)) {
      return Status::Corruption("DELTA_BINARY_PACKED block header is truncated");
    }
    min_delta_ = bit_util::ZigzagDecode(min_zz);
    if (size_ - pos_ < mb_count_) {
      return Status::Corruption("DELTA_BINARY_PACKED miniblock bit widths are truncated");
    }
    widths_ = data_ + pos_;
    pos_ += mb_count_;
    mb_index_ = 0;
    return Status::OK();
  }

  Status NextMiniblock() {
    if (mb_index_ == mb_count_) LITHIFY_RETURN_NOT_OK(NextBlock());
    const int width = widths_[mb_index_++];
    if (width > 64) {
      return Status::Corruption("DELTA_BINARY_PACKED miniblock bit width {} exceeds 64", width);
    }
    const uint64_t bytes = vpm_ / 8 * static_cast<uint64_t>(width);
    if (size_ - pos_ < bytes) {
      return Status::Corruption("DELTA_BINARY_PACKED miniblock is truncated");
    }
    mb_width_ = width;
    mb_data_ = data_ + pos_;
    pos_ += bytes;
    mb_values_ = std::min(vpm_, deltas_unassigned_);
    deltas_unassigned_ -= mb_values_;
    mb_pos_ = 0;
    return Status::OK();
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  uint64_t block_size_ = 0;
  uint64_t mb_count_ = 0;
  uint64_t vpm_ = 0;  // values per miniblock
  uint64_t total_ = 0;
  bool first_pending_ = false;
  uint64_t last_ = 0;
  uint64_t deltas_unassigned_ = 0;  // deltas not yet covered by an entered miniblock
  uint64_t min_delta_ = 0;
  const uint8_t* widths_ = nullptr;
  uint64_t mb_index_ = 0;  // next miniblock in the current block
  int mb_width_ = 0;
  const uint8_t* mb_data_ = nullptr;
  uint64_t mb_values_ = 0;  // real values in the current miniblock
  uint64_t mb_pos_ = 0;     // values consumed from it
};

// ---------------------------------------------------------------- DELTA_BINARY_PACKED writer

constexpr size_t kDeltaBlockSize = 128;
constexpr size_t kDeltaMiniblocks = 4;
constexpr size_t kDeltaValuesPerMiniblock = kDeltaBlockSize / kDeltaMiniblocks;

// Encodes int32 (is_64 false) or int64 values with blocks of 128 values in 4 miniblocks
// of 32, the layout every mainstream writer uses.
void EncodeDelta(const uint8_t* values, size_t n, bool is_64, Buffer* out) {
  auto value_at = [&](size_t i) -> int64_t {
    return is_64 ? LoadLE<int64_t>(values + i * 8)
                 : static_cast<int64_t>(LoadLE<int32_t>(values + i * 4));
  };
  // Deltas in the type's own wrapping arithmetic, as signed values of that width.
  auto delta_at = [&](size_t i) -> int64_t {
    if (is_64) {
      return static_cast<int64_t>(static_cast<uint64_t>(value_at(i)) -
                                  static_cast<uint64_t>(value_at(i - 1)));
    }
    return static_cast<int32_t>(static_cast<uint32_t>(LoadLE<int32_t>(values + i * 4)) -
                                static_cast<uint32_t>(LoadLE<int32_t>(values + (i - 1) * 4)));
  };
  const size_t width_bytes = is_64 ? 8 : 4;
  out->Reserve(out->size() + 40 + n * width_bytes + (n / kDeltaBlockSize + 1) * 16);
  bit_util::AppendUleb128(kDeltaBlockSize, out);
  bit_util::AppendUleb128(kDeltaMiniblocks, out);
  bit_util::AppendUleb128(n, out);
  bit_util::AppendUleb128(bit_util::ZigzagEncode(n > 0 ? value_at(0) : 0), out);

  uint64_t adjusted[kDeltaBlockSize];
  for (size_t start = 1; start < n; start += kDeltaBlockSize) {
    const size_t count = std::min(kDeltaBlockSize, n - start);
    int64_t min_delta = std::numeric_limits<int64_t>::max();
    for (size_t j = 0; j < count; ++j) {
      int64_t d = delta_at(start + j);
      adjusted[j] = static_cast<uint64_t>(d);
      min_delta = std::min(min_delta, d);
    }
    // Relative deltas are exact non-negative differences (< 2^32 for INT32).
    for (size_t j = 0; j < count; ++j) adjusted[j] -= static_cast<uint64_t>(min_delta);
    std::fill(adjusted + count, adjusted + kDeltaBlockSize, uint64_t{0});
    bit_util::AppendUleb128(bit_util::ZigzagEncode(min_delta), out);
    uint8_t widths[kDeltaMiniblocks] = {};
    const size_t used = CeilDiv(count, kDeltaValuesPerMiniblock);
    for (size_t m = 0; m < used; ++m) {
      uint64_t max = 0;
      for (size_t j = 0; j < kDeltaValuesPerMiniblock; ++j) {
        max |= adjusted[m * kDeltaValuesPerMiniblock + j];
      }
      widths[m] = static_cast<uint8_t>(BitWidth(max));
    }
    out->Append(widths, kDeltaMiniblocks);
    for (size_t m = 0; m < used; ++m) {
      const size_t bytes = kDeltaValuesPerMiniblock / 8 * widths[m];
      const size_t old = out->size();
      out->Resize(old + bytes);
      bit_util::PackBits(adjusted + m * kDeltaValuesPerMiniblock, kDeltaValuesPerMiniblock,
                         widths[m], out->data() + old);
    }
  }
}

// Appends offsets for `count` lengths, each checked non-negative. `running` is the
// data end the next value starts at.
Status AppendLengthOffsets(const uint8_t* lengths, size_t count, int64_t* running,
                           uint64_t* total, uint64_t limit,
                           std::vector<int64_t>* offsets_out) {
  for (size_t j = 0; j < count; ++j) {
    int32_t len = LoadLE<int32_t>(lengths + j * 4);
    if (len < 0) return Status::Corruption("negative byte array length {}", len);
    *total += static_cast<uint64_t>(len);
    if (*total > limit) {
      return Status::Corruption("byte array lengths exceed the {} data bytes available",
                                limit);
    }
    *running += len;
    offsets_out->push_back(*running);
  }
  return Status::OK();
}

// Largest output DELTA_BYTE_ARRAY may expand to: prefix sharing lets tiny pages decode
// to huge values, so the expansion is capped.
constexpr uint64_t kMaxDeltaByteArrayOutput = uint64_t{1} << 30;

constexpr size_t kLengthChunk = 512;

}  // namespace

int BitWidth(uint64_t max_value) { return 64 - std::countl_zero(max_value); }

// ---------------------------------------------------------------- RLE / bit-packed decoder

RleBitPackedDecoder::RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width)
    : data_(data), size_(data == nullptr ? 0 : size), bit_width_(bit_width) {}

size_t RleBitPackedDecoder::position() const { return pos_; }

bool RleBitPackedDecoder::RleRuns(size_t n, size_t max_runs,
                                  std::vector<std::pair<uint64_t, uint32_t>>* runs) const {
  runs->clear();
  // Decodes as DecodeImpl does, on a copy, merging equal neighbours; a long stretch of
  // varied values gives up as soon as it needs more than max_runs runs.
  RleBitPackedDecoder d = *this;
  auto add = [&](uint64_t count, uint32_t v) {
    if (!runs->empty() && runs->back().second == v) {
      runs->back().first += count;
      return true;
    }
    if (runs->size() == max_runs) return false;
    runs->emplace_back(count, v);
    return true;
  };
  uint32_t unpacked[64];
  uint64_t left = n;
  while (left > 0) {
    if (d.run_remaining_ == 0) {
      if (d.pos_ >= d.size_ || !d.NextRun().ok()) return false;
      continue;
    }
    if (d.is_rle_) {
      const uint64_t take = std::min(left, d.run_remaining_);
      if (!add(take, d.rle_value_)) return false;
      d.run_remaining_ -= take;
      left -= take;
    } else {
      const size_t take = static_cast<size_t>(std::min<uint64_t>({left, d.run_remaining_, 64}));
      d.UnpackFromRun(unpacked, take);
      for (size_t i = 0; i < take; ++i) {
        if (!add(1, unpacked[i])) return false;
      }
      d.run_remaining_ -= take;
      left -= take;
    }
  }
  return true;
}

Status RleBitPackedDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corruption("RLE/bit-packed bit width {} is outside 0..32", bit_width_);
  }
  uint64_t header = 0;
  if (!ReadUleb128(data_, size_, &pos_, &header)) {
    return Status::Corruption("RLE/bit-packed run header is truncated or malformed");
  }
  const size_t avail = size_ - pos_;
  if (header & 1) {
    const uint64_t groups = header >> 1;
    is_rle_ = false;
    packed_ = data_ + pos_;
    packed_index_ = 0;
    if (bit_width_ == 0) {
      run_remaining_ = groups * 8;  // groups < 2^63 / 8 is implied by a 64-bit header
      return Status::OK();
    }
    if (groups <= avail / static_cast<size_t>(bit_width_)) {
      run_remaining_ = groups * 8;
      pos_ += groups * bit_width_;
    } else {
      // Some writers truncate the final run to the bytes its real values need; expose
      // only the values whose bits are all present.
      run_remaining_ = static_cast<uint64_t>(avail) * 8 / bit_width_;
      pos_ = size_;
    }
    return Status::OK();
  }
  const size_t value_bytes = static_cast<size_t>(bit_width_ + 7) / 8;
  if (avail < value_bytes) {
    return Status::Corruption("RLE run value is truncated");
  }
  uint32_t value = 0;
  for (size_t i = 0; i < value_bytes; ++i) {
    value |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
  }
  pos_ += value_bytes;
  // High bits beyond the width are padding; masking keeps every decoded value in range.
  if (bit_width_ < 32) value &= (uint32_t{1} << bit_width_) - 1;
  is_rle_ = true;
  rle_value_ = value;
  run_remaining_ = header >> 1;
  return Status::OK();
}

template <typename T>
void RleBitPackedDecoder::UnpackFromRun(T* out, size_t n) {
  const auto unpack = kUnpack32<T>[bit_width_];
  const size_t width = static_cast<size_t>(bit_width_);
  const size_t avail_run = static_cast<size_t>(data_ + size_ - packed_);
  auto group_ptr = [&](uint64_t group, size_t* avail) {
    const uint64_t offset = group * width;
    *avail = offset < avail_run ? avail_run - offset : 0;
    return packed_ + std::min<uint64_t>(offset, avail_run);
  };
  size_t done = 0;
  // Leading partial group.
  if (packed_index_ % 8 != 0) {
    T tmp[8];
    size_t avail;
    const uint8_t* p = group_ptr(packed_index_ / 8, &avail);
    unpack(p, avail, 1, tmp);
    const size_t skip = packed_index_ % 8;
    const size_t take = std::min<size_t>(n, 8 - skip);
    std::copy(tmp + skip, tmp + skip + take, out);
    done = take;
    packed_index_ += take;
  }
  // Whole groups straight into the output.
  const size_t groups = (n - done) / 8;
  if (groups > 0) {
    size_t avail;
    const uint8_t* p = group_ptr(packed_index_ / 8, &avail);
    unpack(p, avail, groups, out + done);
    done += groups * 8;
    packed_index_ += groups * 8;
  }
  // Trailing partial group.
  if (done < n) {
    T tmp[8];
    size_t avail;
    const uint8_t* p = group_ptr(packed_index_ / 8, &avail);
    unpack(p, avail, 1, tmp);
    std::copy(tmp, tmp + (n - done), out + done);
    packed_index_ += n - done;
  }
}

template <typename T>
Status RleBitPackedDecoder::DecodeImpl(T* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (run_remaining_ == 0) {
      if (pos_ >= size_) {
        return Status::Corruption("RLE/bit-packed data ends after {} of {} values", done, n);
      }
      LITHIFY_RETURN_NOT_OK(NextRun());
      continue;
    }
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n - done, run_remaining_));
    if (is_rle_) {
      std::fill(out + done, out + done + take, static_cast<T>(rle_value_));
    } else {
      UnpackFromRun(out + done, take);
    }
    done += take;
    run_remaining_ -= take;
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Decode(uint32_t* out, size_t n) { return DecodeImpl(out, n); }
Status RleBitPackedDecoder::Decode(int16_t* out, size_t n) { return DecodeImpl(out, n); }

// ---------------------------------------------------------------- RLE / bit-packed encoder

namespace {
// Literal values buffered before a bit-packed run is written out; bounds memory for
// long stretches of distinct values (one extra header byte per 512 values).
constexpr size_t kMaxPendingLiteral = 512;
// Spec limit for a single run length.
constexpr uint64_t kMaxRunLength = (uint64_t{1} << 31) - 1;
}  // namespace

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width)
    : bit_width_(std::clamp(bit_width, 0, 32)) {
  pending_.reserve(kMaxPendingLiteral + 16);
}

void RleBitPackedEncoder::WriteLiteral(const uint32_t* values, size_t count) {
  for (size_t done = 0; done < count;) {
    const size_t chunk = std::min<size_t>(count - done, (kMaxRunLength / 8) * 8);
    bit_util::AppendUleb128(((chunk / 8) << 1) | 1, &bytes_);
    const size_t nbytes = chunk / 8 * static_cast<size_t>(bit_width_);
    const size_t old = bytes_.size();
    bytes_.Resize(old + nbytes);
    bit_util::PackBits(values + done, chunk, bit_width_, bytes_.data() + old);
    done += chunk;
  }
}

void RleBitPackedEncoder::WriteRle(uint32_t value, uint64_t count) {
  const size_t value_bytes = static_cast<size_t>(bit_width_ + 7) / 8;
  if (bit_width_ < 32) value &= (uint32_t{1} << bit_width_) - 1;
  while (count > 0) {
    const uint64_t run = std::min(count, kMaxRunLength);
    bit_util::AppendUleb128(run << 1, &bytes_);
    for (size_t i = 0; i < value_bytes; ++i) {
      bytes_.PushBack(static_cast<uint8_t>(value >> (8 * i)));
    }
    count -= run;
  }
}

void RleBitPackedEncoder::FlushPending() {
  if (repeat_count_ == 0) return;
  if (repeat_count_ < 8) {
    // Common case (distinct values): too short to ever become an RLE run.
    for (uint64_t i = 0; i < repeat_count_; ++i) pending_.push_back(repeat_value_);
    repeat_count_ = 0;
    if (pending_.size() >= kMaxPendingLiteral) {
      const size_t whole = pending_.size() / 8 * 8;
      WriteLiteral(pending_.data(), whole);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(whole));
    }
    return;
  }
  // A bit-packed run holds whole groups, so the open group is completed with copies of
  // the repeated value first; the rest becomes an RLE run if it is long enough to pay.
  const size_t fill = (8 - pending_.size() % 8) % 8;
  if (repeat_count_ >= fill + 8) {
    pending_.insert(pending_.end(), fill, repeat_value_);
    WriteLiteral(pending_.data(), pending_.size());
    pending_.clear();
    WriteRle(repeat_value_, repeat_count_ - fill);
  } else {
    pending_.insert(pending_.end(), static_cast<size_t>(repeat_count_), repeat_value_);
    if (pending_.size() >= kMaxPendingLiteral) {
      const size_t whole = pending_.size() / 8 * 8;
      WriteLiteral(pending_.data(), whole);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(whole));
    }
  }
  repeat_count_ = 0;
}

void RleBitPackedEncoder::Put(uint32_t value) {
  if (repeat_count_ > 0 && value == repeat_value_) {
    ++repeat_count_;
    return;
  }
  CloseRun();
  repeat_value_ = value;
  repeat_count_ = 1;
}

namespace {

// The number of leading values of p[0..n) equal to p[0] (n >= 1), a machine word at a
// time: definition levels are mostly one long run, dictionary indices of sorted or
// low-cardinality data often are.
template <typename T>
size_t RunLength(const T* p, size_t n) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4);
  constexpr size_t kPerWord = 8 / sizeof(T);
  const T first = p[0];
  uint64_t pattern = 0;
  for (size_t k = 0; k < kPerWord; ++k) {
    pattern = (pattern << (8 * sizeof(T))) | static_cast<std::make_unsigned_t<T>>(first);
  }
  size_t i = 1;
  while (i + kPerWord <= n) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w != pattern) break;
    i += kPerWord;
  }
  while (i < n && p[i] == first) ++i;
  return i;
}

}  // namespace

void RleBitPackedEncoder::CloseRun() {
  if (repeat_count_ == 1 && pending_.size() < kMaxPendingLiteral) {  // fast path for distinct values
    pending_.push_back(repeat_value_);
    repeat_count_ = 0;
  } else {
    FlushPending();
  }
}

template <typename T>
void RleBitPackedEncoder::PushLiterals(const T* values, size_t n) {
  while (n > 0) {
    if (pending_.size() >= kMaxPendingLiteral) {
      // Where Put would write the buffered groups: on the literal after the 512th.
      const size_t whole = pending_.size() / 8 * 8;
      WriteLiteral(pending_.data(), whole);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(whole));
    }
    const size_t take = std::min(n, kMaxPendingLiteral - pending_.size());
    const size_t old = pending_.size();
    pending_.resize(old + take);
    for (size_t k = 0; k < take; ++k) {
      pending_[old + k] = static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(values[k]));
    }
    values += take;
    n -= take;
  }
}

// The same runs as Put for every value, in fewer steps: a run of values equal to the
// open run is counted at once, and a stretch of values that each differ from the next
// (runs of one: every value of a high-cardinality dictionary's indices) goes to the
// literal buffer at once, flushed at the same points as Put would.
template <typename T>
void RleBitPackedEncoder::PutRuns(const T* values, size_t n) {
  for (size_t i = 0; i < n;) {
    const auto v = static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(values[i]));
    if (repeat_count_ > 0 && v == repeat_value_) {
      const size_t run = RunLength(values + i, n - i);
      repeat_count_ += run;
      i += run;
      continue;
    }
    size_t j = i;
    while (j + 1 < n && values[j] != values[j + 1]) ++j;
    // values[i, j) are runs of one; values[j] starts a run or is the last value.
    if (j > i) {
      CloseRun();
      PushLiterals(values + i, j - i);
    }
    Put(static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(values[j])));
    i = j + 1;
  }
}

void RleBitPackedEncoder::PutMany(const uint32_t* values, size_t n) { PutRuns(values, n); }

void RleBitPackedEncoder::PutLevels(const int16_t* values, size_t n) { PutRuns(values, n); }

void RleBitPackedEncoder::Flush(Buffer* out) {
  FlushPending();
  if (!pending_.empty()) {
    // Only the final group may be padded; the decoder stops at the value count.
    pending_.resize(CeilDiv(pending_.size(), 8) * 8, 0);
    WriteLiteral(pending_.data(), pending_.size());
    pending_.clear();
  }
  out->Append(bytes_.view());
  bytes_.Clear();
}

size_t RleBitPackedEncoder::EstimatedSize() const {
  // Values still buffered end up bit-packed, except a long repeat run which costs at
  // most a header and a value after completing one group (<= 15 values packed).
  const uint64_t packed_values = pending_.size() + std::min<uint64_t>(repeat_count_, 15);
  return bytes_.size() + CeilDiv(packed_values, 8) * static_cast<size_t>(bit_width_) + 32;
}

// ---------------------------------------------------------------- legacy BIT_PACKED

Status DecodeBitPackedLevelsLegacy(const uint8_t* data, size_t size, int bit_width,
                                   int16_t* out, size_t n) {
  if (bit_width < 0 || bit_width > 16) {
    return Status::Corruption("BIT_PACKED level bit width {} is outside 0..16", bit_width);
  }
  if (bit_width == 0) {
    std::fill(out, out + n, int16_t{0});
    return Status::OK();
  }
  if (data == nullptr) size = 0;
  // ceil(n * width / 8) <= size, without overflow.
  if (n > size / static_cast<size_t>(bit_width) * 8 + (size % bit_width) * 8 / bit_width) {
    return Status::Corruption("BIT_PACKED levels need more bytes than the {} available",
                              size);
  }
  const uint64_t mask = (uint64_t{1} << bit_width) - 1;
  uint64_t acc = 0;  // only the low `bits` bits are meaningful (<= 23 of them)
  int bits = 0;
  size_t p = 0;
  for (size_t i = 0; i < n; ++i) {
    while (bits < bit_width) {
      acc = (acc << 8) | data[p++];
      bits += 8;
    }
    bits -= bit_width;
    out[i] = static_cast<int16_t>((acc >> bits) & mask);
  }
  return Status::OK();
}

// ---------------------------------------------------------------- PLAIN

namespace {
// Byte width of a fixed-width physical type, or 0 for BYTE_ARRAY.
Result<size_t> PlainWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kBoolean:
      return size_t{1};
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return size_t{4};
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return size_t{8};
    case PhysicalType::kInt96:
      return size_t{12};
    case PhysicalType::kFixedLenByteArray:
      if (type_length <= 0) {
        return Status::Corruption("FIXED_LEN_BYTE_ARRAY length {} is not positive",
                                  type_length);
      }
      return static_cast<size_t>(type_length);
    case PhysicalType::kByteArray:
      return size_t{0};
  }
  return Status::Corruption("unknown physical type {}", static_cast<int>(type));
}

Result<size_t> DecodePlainBoolean(ByteView in, size_t n, Buffer* fixed_out) {
  const size_t bytes = CeilDiv(n, 8);
  if (n > 0 && (in.size() < bytes)) {
    return Status::Corruption("PLAIN BOOLEAN needs {} bytes, {} available", bytes, in.size());
  }
  const size_t old = fixed_out->size();
  fixed_out->Resize(old + n);
  uint8_t* dst = fixed_out->data() + old;
  for (size_t i = 0; i < n; ++i) dst[i] = (in[i >> 3] >> (i & 7)) & 1;
  return bytes;
}

Result<size_t> DecodePlainByteArray(ByteView in, size_t n, std::vector<int64_t>* offsets_out,
                                    Buffer* data_out) {
  if (n > in.size() / 4) {
    return Status::Corruption("PLAIN BYTE_ARRAY: {} values cannot fit in {} bytes", n,
                              in.size());
  }
  if (offsets_out->empty()) offsets_out->push_back(static_cast<int64_t>(data_out->size()));
  offsets_out->reserve(offsets_out->size() + n);
  // All value bytes come from `in`, which bounds the reservation.
  data_out->Reserve(data_out->size() + (in.size() - 4 * n));
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    if (in.size() - pos < 4) return Status::Corruption("PLAIN BYTE_ARRAY length is truncated");
    const uint32_t len = LoadLE<uint32_t>(in.data() + pos);
    pos += 4;
    if (len > in.size() - pos) {
      return Status::Corruption("PLAIN BYTE_ARRAY value of {} bytes exceeds the {} left", len,
                                in.size() - pos);
    }
    data_out->Append(in.data() + pos, len);
    pos += len;
    offsets_out->push_back(static_cast<int64_t>(data_out->size()));
  }
  return pos;
}
}  // namespace

Result<size_t> DecodePlain(PhysicalType type, int32_t type_length, ByteView in, size_t n,
                           Buffer* fixed_out, std::vector<int64_t>* offsets_out,
                           Buffer* data_out) {
  LITHIFY_ASSIGN_OR_RETURN(size_t width, PlainWidth(type, type_length));
  if (type == PhysicalType::kBoolean) return DecodePlainBoolean(in, n, fixed_out);
  if (type == PhysicalType::kByteArray) {
    return DecodePlainByteArray(in, n, offsets_out, data_out);
  }
  if (n > in.size() / width) {
    return Status::Corruption("PLAIN: {} values of {} bytes exceed the {} bytes available", n,
                              width, in.size());
  }
  fixed_out->Append(in.data(), n * width);
  return n * width;
}

void EncodePlainFixed(PhysicalType type, int32_t type_length, const uint8_t* values,
                      size_t n, Buffer* out) {
  if (type == PhysicalType::kBoolean) {
    const size_t old = out->size();
    out->Resize(old + CeilDiv(n, 8));
    uint8_t* dst = out->data() + old;
    for (size_t b = 0; b < CeilDiv(n, 8); ++b) {
      uint8_t byte = 0;
      const size_t end = std::min<size_t>(8, n - b * 8);
      for (size_t j = 0; j < end; ++j) byte |= static_cast<uint8_t>((values[b * 8 + j] != 0) << j);
      dst[b] = byte;
    }
    return;
  }
  Result<size_t> width = PlainWidth(type, type_length);
  if (!width.ok() || *width == 0) return;  // caller error: nothing sensible to write
  out->Append(values, n * *width);
}

void EncodePlainByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                          Buffer* out) {
  if (n == 0) return;
  out->Reserve(out->size() + 4 * n + static_cast<size_t>(offsets[n] - offsets[0]));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t len = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
    out->AppendValue(len);
    out->Append(data + offsets[i], len);
  }
}

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

Result<size_t> DecodeDeltaBinaryPacked(ByteView in, size_t n, bool is_64, uint8_t* out) {
  if (n == 0 && in.empty()) return size_t{0};  // e.g. an all-null page without a header
  DeltaBitPackReader reader;
  LITHIFY_RETURN_NOT_OK(reader.Init(in));
  if (n > reader.total()) {
    return Status::Corruption("DELTA_BINARY_PACKED holds {} values, {} requested",
                              reader.total(), n);
  }
  LITHIFY_RETURN_NOT_OK(is_64 ? reader.Decode<uint64_t>(out, n)
                              : reader.Decode<uint32_t>(out, n));
  LITHIFY_RETURN_NOT_OK(reader.SkipRest());
  return reader.position();
}

Result<uint64_t> DeltaBinaryPackedCount(ByteView in) {
  DeltaBitPackReader reader;
  LITHIFY_RETURN_NOT_OK(reader.Init(in));
  return reader.total();
}

void EncodeDeltaBinaryPacked(const uint8_t* values, size_t n, bool is_64, Buffer* out) {
  EncodeDelta(values, n, is_64, out);
}

// ---------------------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY

namespace {
// Locates the data section after a DELTA_BINARY_PACKED length stream: returns its
// offset in `in`, leaving `reader` positioned at the first length.
Result<size_t> LengthStreamEnd(ByteView in, size_t n, DeltaBitPackReader* reader) {
  DeltaBitPackReader skipper;
  LITHIFY_RETURN_NOT_OK(skipper.Init(in));
  if (n > skipper.total()) {
    return Status::Corruption("delta length stream holds {} values, {} requested",
                              skipper.total(), n);
  }
  LITHIFY_RETURN_NOT_OK(skipper.SkipRest());
  LITHIFY_RETURN_NOT_OK(reader->Init(in));
  return skipper.position();
}
}  // namespace

Result<size_t> DecodeDeltaLengthByteArray(ByteView in, size_t n,
                                          std::vector<int64_t>* offsets_out,
                                          Buffer* data_out) {
  if (n == 0 && in.empty()) return size_t{0};
  DeltaBitPackReader lengths;
  LITHIFY_ASSIGN_OR_RETURN(size_t data_start, LengthStreamEnd(in, n, &lengths));
  const uint64_t data_avail = in.size() - data_start;
  if (offsets_out->empty()) offsets_out->push_back(static_cast<int64_t>(data_out->size()));
  // The vector grows as lengths are decoded; n alone is not trusted for a reservation.
  offsets_out->reserve(offsets_out->size() + std::min<size_t>(n, kLengthChunk));
  int64_t running = static_cast<int64_t>(data_out->size());
  uint64_t total = 0;
  uint8_t chunk[kLengthChunk * 4];
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(kLengthChunk, n - done);
    LITHIFY_RETURN_NOT_OK(lengths.Decode<uint32_t>(chunk, count));
    LITHIFY_RETURN_NOT_OK(
        AppendLengthOffsets(chunk, count, &running, &total, data_avail, offsets_out));
    done += count;
  }
  data_out->Append(in.data() + data_start, static_cast<size_t>(total));
  return data_start + static_cast<size_t>(total);
}

void EncodeDeltaLengthByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                                Buffer* out) {
  std::vector<int32_t> lengths(n);
  for (size_t i = 0; i < n; ++i) lengths[i] = static_cast<int32_t>(offsets[i + 1] - offsets[i]);
  EncodeDelta(reinterpret_cast<const uint8_t*>(lengths.data()), n, false, out);
  if (n > 0) out->Append(data + offsets[0], static_cast<size_t>(offsets[n] - offsets[0]));
}

// ---------------------------------------------------------------- DELTA_BYTE_ARRAY

Result<size_t> DecodeDeltaByteArray(PhysicalType type, int32_t type_length, ByteView in,
                                    size_t n, Buffer* fixed_out,
                                    std::vector<int64_t>* offsets_out, Buffer* data_out) {
  const bool fixed = type == PhysicalType::kFixedLenByteArray;
  if (fixed && type_length <= 0) {
    return Status::Corruption("FIXED_LEN_BYTE_ARRAY length {} is not positive", type_length);
  }
  if (!fixed && type != PhysicalType::kByteArray) {
    return Status::InvalidArgument("DELTA_BYTE_ARRAY applies to byte arrays only");
  }
  if (n == 0 && in.empty()) return size_t{0};
  DeltaBitPackReader prefixes;
  LITHIFY_ASSIGN_OR_RETURN(size_t suffix_start, LengthStreamEnd(in, n, &prefixes));
  const ByteView suffix_in = in.subspan(suffix_start);
  DeltaBitPackReader suffixes;
  LITHIFY_ASSIGN_OR_RETURN(size_t data_rel, LengthStreamEnd(suffix_in, n, &suffixes));
  const uint8_t* suffix_data = suffix_in.data() + data_rel;
  const uint64_t data_avail = suffix_in.size() - data_rel;

  Buffer* values = fixed ? fixed_out : data_out;
  if (!fixed && offsets_out->empty()) {
    offsets_out->push_back(static_cast<int64_t>(data_out->size()));
  }
  size_t prev_start = values->size();
  size_t prev_len = 0;
  uint64_t data_used = 0;
  uint64_t produced = 0;
  uint8_t prefix_chunk[kLengthChunk * 4];
  uint8_t suffix_chunk[kLengthChunk * 4];
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(kLengthChunk, n - done);
    LITHIFY_RETURN_NOT_OK(prefixes.Decode<uint32_t>(prefix_chunk, count));
    LITHIFY_RETURN_NOT_OK(suffixes.Decode<uint32_t>(suffix_chunk, count));
    for (size_t j = 0; j < count; ++j) {
      const int32_t p = LoadLE<int32_t>(prefix_chunk + j * 4);
      const int32_t s = LoadLE<int32_t>(suffix_chunk + j * 4);
      if (p < 0 || static_cast<size_t>(p) > prev_len) {
        return Status::Corruption("DELTA_BYTE_ARRAY prefix length {} exceeds previous value {}",
                                  p, prev_len);
      }
      if (s < 0 || static_cast<uint64_t>(s) > data_avail - data_used) {
        return Status::Corruption("DELTA_BYTE_ARRAY suffix length {} exceeds the data left", s);
      }
      const size_t len = static_cast<size_t>(p) + static_cast<size_t>(s);
      if (fixed && len != static_cast<size_t>(type_length)) {
        return Status::Corruption("DELTA_BYTE_ARRAY value of {} bytes in a FIXED_LEN_BYTE_ARRAY({})",
                                  len, type_length);
      }
      produced += len;
      if (produced > kMaxDeltaByteArrayOutput) {
        return Status::NotSupported("DELTA_BYTE_ARRAY pages decoding to more than {} bytes",
                                    kMaxDeltaByteArrayOutput);
      }
      // Resize first: the prefix is copied from the buffer itself, which may move.
      const size_t start = values->size();
      values->Resize(start + len);
      uint8_t* base = values->data();
      if (p > 0) std::memcpy(base + start, base + prev_start, static_cast<size_t>(p));
      if (s > 0) std::memcpy(base + start + p, suffix_data + data_used, static_cast<size_t>(s));
      data_used += static_cast<uint64_t>(s);
      prev_start = start;
      prev_len = len;
      if (!fixed) offsets_out->push_back(static_cast<int64_t>(values->size()));
    }
    done += count;
  }
  return suffix_start + data_rel + static_cast<size_t>(data_used);
}

void EncodeDeltaByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                          Buffer* out) {
  std::vector<int32_t> prefix(n);
  std::vector<int32_t> suffix(n);
  size_t suffix_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* cur = data + offsets[i];
    const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    size_t common = 0;
    if (i > 0) {
      const uint8_t* prev = data + offsets[i - 1];
      const size_t prev_len = static_cast<size_t>(offsets[i] - offsets[i - 1]);
      const size_t limit = std::min(len, prev_len);
      while (common < limit && cur[common] == prev[common]) ++common;
    }
    prefix[i] = static_cast<int32_t>(common);
    suffix[i] = static_cast<int32_t>(len - common);
    suffix_bytes += len - common;
  }
  EncodeDelta(reinterpret_cast<const uint8_t*>(prefix.data()), n, false, out);
  EncodeDelta(reinterpret_cast<const uint8_t*>(suffix.data()), n, false, out);
  out->Reserve(out->size() + suffix_bytes);
  for (size_t i = 0; i < n; ++i) {
    out->Append(data + offsets[i] + prefix[i], static_cast<size_t>(suffix[i]));
  }
}

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT

namespace {
template <size_t W>
void UnsplitFixed(const uint8_t* in, size_t stride, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < W; ++k) dst[i * W + k] = in[k * stride + i];
  }
}
void UnsplitGeneric(const uint8_t* in, size_t width, size_t stride, size_t n, uint8_t* dst) {
  for (size_t k = 0; k < width; ++k) {
    const uint8_t* src = in + k * stride;
    for (size_t i = 0; i < n; ++i) dst[i * width + k] = src[i];
  }
}
template <size_t W>
void SplitFixed(const uint8_t* values, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < W; ++k) dst[k * n + i] = values[i * W + k];
  }
}
void SplitGeneric(const uint8_t* values, size_t n, size_t width, uint8_t* dst) {
  for (size_t k = 0; k < width; ++k) {
    uint8_t* stream = dst + k * n;
    for (size_t i = 0; i < n; ++i) stream[i] = values[i * width + k];
  }
}
}  // namespace

Status DecodeByteStreamSplit(ByteView in, size_t width, size_t total_values, size_t n,
                             Buffer* fixed_out) {
  if (width == 0) return Status::InvalidArgument("BYTE_STREAM_SPLIT width must be positive");
  if (total_values > in.size() / width || total_values * width != in.size()) {
    return Status::Corruption("BYTE_STREAM_SPLIT page has {} bytes, expected {} values of {}",
                              in.size(), total_values, width);
  }
  if (n > total_values) {
    return Status::Corruption("BYTE_STREAM_SPLIT holds {} values, {} requested", total_values,
                              n);
  }
  const size_t old = fixed_out->size();
  fixed_out->Resize(old + n * width);
  uint8_t* dst = fixed_out->data() + old;
  switch (width) {
    case 2: UnsplitFixed<2>(in.data(), total_values, n, dst); break;
    case 4: UnsplitFixed<4>(in.data(), total_values, n, dst); break;
    case 8: UnsplitFixed<8>(in.data(), total_values, n, dst); break;
    default: UnsplitGeneric(in.data(), width, total_values, n, dst); break;
  }
  return Status::OK();
}

void EncodeByteStreamSplit(const uint8_t* values, size_t n, size_t width, Buffer* out) {
  const size_t old = out->size();
  out->Resize(old + n * width);
  uint8_t* dst = out->data() + old;
  switch (width) {
    case 2: SplitFixed<2>(values, n, dst); break;
    case 4: SplitFixed<4>(values, n, dst); break;
    case 8: SplitFixed<8>(values, n, dst); break;
    default: SplitGeneric(values, n, width, dst); break;
  }
}

}  // namespace lithify::parquet
