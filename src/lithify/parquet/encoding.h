// Parquet value and level encodings (parquet-format Encodings.md).
//
// Decoders read from a caller-owned byte range and never read outside it: malformed
// input yields Corruption, never a crash. Encoders append to a Buffer. Every function
// is reentrant; none keep global state.
//
// Value layout shared with the rest of the codec (see column_batch.h): fixed-width
// values are little-endian and packed (BOOLEAN as one byte 0/1 per value, INT96 as 12
// bytes, FIXED_LEN_BYTE_ARRAY as type_length bytes); BYTE_ARRAY values are an
// offsets array (n+1 int64 entries, first 0) into a contiguous data buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/parquet/metadata.h"

namespace lithify::parquet {

// Number of bits needed to store values 0..max_value (0 for max_value == 0).
int BitWidth(uint64_t max_value);

// ---------------------------------------------------------------- RLE / bit-packed hybrid
// Used for definition/repetition levels, dictionary indices and RLE booleans.

class RleBitPackedDecoder {
 public:
  // `data` holds the runs (no length prefix). bit_width in [0, 32].
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width);
  // Decodes exactly `n` values into `out`. Corruption if the runs end before `n`
  // values or bit_width is outside [0, 32]. A final bit-packed run cut short (some
  // writers omit its padding bytes) yields the values whose bits are all present. RLE
  // run values are masked to bit_width bits.
  Status Decode(uint32_t* out, size_t n);
  Status Decode(int16_t* out, size_t n);  // levels
  // Bytes consumed so far (exact only after the last needed run).
  size_t position() const;
  // Whether the next `n` values form at most `max_runs` runs of equal values: then
  // `runs` receives them as (count, value) pairs, counts summing to exactly `n`, the
  // values Decode(out, n) would write (the decoder itself is not advanced). Costs
  // O(runs) for RLE runs and O(values) for bit-packed ones. False when there are more
  // runs, or the data is malformed: the caller then decodes, which reports it.
  bool RleRuns(size_t n, size_t max_runs, std::vector<std::pair<uint64_t, uint32_t>>* runs) const;
 private:
  Status NextRun();
  template <typename T>
  Status DecodeImpl(T* out, size_t n);
  template <typename T>
  void UnpackFromRun(T* out, size_t n);
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  int bit_width_;
  // current run state
  bool is_rle_ = false;
  uint64_t run_remaining_ = 0;
  uint32_t rle_value_ = 0;
  const uint8_t* packed_ = nullptr;  // start of current bit-packed run
  uint64_t packed_index_ = 0;        // next value index inside the bit-packed run
};

// Encoder policy: values are bit-packed in groups of 8; a run of >= 8 equal values that
// still holds >= 8 values after completing the open group becomes an RLE run. Values
// are masked to bit_width bits. bit_width in [0, 32].

class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width);
  void Put(uint32_t value);
  void PutMany(const uint32_t* values, size_t n);
  void PutLevels(const int16_t* values, size_t n);
  // Appends the encoded runs (no length prefix) to `out` and resets the encoder.
  void Flush(Buffer* out);
  // Upper bound of the encoded size of what has been Put so far.
  size_t EstimatedSize() const;
 private:
  template <typename T>
  void PutRuns(const T* values, size_t n);  // PutMany / PutLevels
  void FlushPending();  // ends the current run of equal values (repeat_*)
  void CloseRun();      // ends the open run as Put does when a different value comes
  template <typename T>
  void PushLiterals(const T* values, size_t n);  // runs of one each
  void WriteLiteral(const uint32_t* values, size_t count);  // count % 8 == 0
  void WriteRle(uint32_t value, uint64_t count);
  int bit_width_;
  Buffer bytes_;
  std::vector<uint32_t> pending_;  // values not yet committed to a run
  uint32_t repeat_value_ = 0;
  uint64_t repeat_count_ = 0;
};

// Legacy BIT_PACKED level encoding (MSB-first, deprecated): decodes `n` levels from
// `data` (exactly ceil(n * bit_width / 8) bytes are used). Corruption if too short.
Status DecodeBitPackedLevelsLegacy(const uint8_t* data, size_t size, int bit_width,
                                   int16_t* out, size_t n);

// ---------------------------------------------------------------- PLAIN
// Decodes `n` PLAIN values of `type` from `in`; fixed-width values appended to
// `fixed_out` (`type_length` bytes each for FIXED_LEN_BYTE_ARRAY); BYTE_ARRAY values
// appended as data to `data_out` with offsets appended to `offsets_out` (which already
// holds at least the leading 0 / previous end). Returns bytes consumed.
// Each new offset is data_out->size() after appending the value, so the last existing
// offset must equal data_out->size() on entry (an empty offsets_out gets that leading
// entry added). A FIXED_LEN_BYTE_ARRAY type_length <= 0 is Corruption.
// BOOLEAN PLAIN is bit-packed LSB-first; output is one byte per value.
Result<size_t> DecodePlain(PhysicalType type, int32_t type_length, ByteView in, size_t n,
                           Buffer* fixed_out, std::vector<int64_t>* offsets_out,
                           Buffer* data_out);

// Encodes fixed-width values (packed as above; booleans one byte each) or byte arrays
// (offsets[i]..offsets[i+1] into data) as PLAIN, appended to `out`.
void EncodePlainFixed(PhysicalType type, int32_t type_length, const uint8_t* values,
                      size_t n, Buffer* out);
void EncodePlainByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                          Buffer* out);

// ---------------------------------------------------------------- DELTA_BINARY_PACKED
// INT32 (is_64 = false) or INT64. Decodes `n` values (the page may hold more: the header
// says the total) into `out` (n * 4 or n * 8 bytes, any alignment). Returns the bytes
// the whole stream occupies (the remaining blocks are skipped, not decoded), which
// DELTA_LENGTH_BYTE_ARRAY relies on. Corruption if n > the header's total, a miniblock
// width exceeds 64, or any miniblock entered is not fully present. Miniblocks of any
// multiple of 8 values are accepted (the spec asks for multiples of 32). Arithmetic
// wraps (2's complement) as the spec requires. An empty `in` with n == 0 is accepted
// (returns 0), as are n == 0 decodes of any valid stream.
// Encoding uses blocks of 128 values in 4 miniblocks, like parquet-mr and parquet-cpp.
Result<size_t> DecodeDeltaBinaryPacked(ByteView in, size_t n, bool is_64, uint8_t* out);
// Reads only the header's total value count.
Result<uint64_t> DeltaBinaryPackedCount(ByteView in);
void EncodeDeltaBinaryPacked(const uint8_t* values, size_t n, bool is_64, Buffer* out);

// ---------------------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY
// Offsets follow the PLAIN convention (appended; offsets index into data_out, so they
// continue from data_out->size()). Returns bytes consumed by the first n values.
// Corruption for negative lengths or lengths beyond the data present.
Result<size_t> DecodeDeltaLengthByteArray(ByteView in, size_t n,
                                          std::vector<int64_t>* offsets_out,
                                          Buffer* data_out);
void EncodeDeltaLengthByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                                Buffer* out);

// ---------------------------------------------------------------- DELTA_BYTE_ARRAY
// For BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (fixed values go to `fixed_out` when
// type == kFixedLenByteArray, else to offsets/data). Corruption when a prefix exceeds
// the previous value or a FIXED_LEN_BYTE_ARRAY value has the wrong length. Prefix
// sharing lets a tiny page expand enormously, so decoding more than 1 GiB of values
// from one call is NotSupported.
Result<size_t> DecodeDeltaByteArray(PhysicalType type, int32_t type_length, ByteView in,
                                    size_t n, Buffer* fixed_out,
                                    std::vector<int64_t>* offsets_out, Buffer* data_out);
void EncodeDeltaByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                          Buffer* out);

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT
// For FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY (width = value byte size).
// `in` must hold exactly total_values * width bytes where total_values is the number of
// encoded values in the page; decodes the first n of them.
Status DecodeByteStreamSplit(ByteView in, size_t width, size_t total_values, size_t n,
                             Buffer* fixed_out);
void EncodeByteStreamSplit(const uint8_t* values, size_t n, size_t width, Buffer* out);

}  // namespace lithify::parquet
