// Space-filling curve keys, bit-exact with Delta Lake's OPTIMIZE ZORDER BY and liquid
// clustering (delta-maintenance-facts.md §3, §4.2-§4.3).
//
// Both curves work on *range ids*, not on column values: each clustering column's value is
// first mapped to an approximate quantile rank in [0, num_range_ids) (Delta:
// range_partition_id(c, 1000); null -> 0). The executor computes the range ids; this
// module turns a row's range ids into its curve key:
//
//  - Z-order (InterleaveBits): Delta's interleave_bits, a 4*n-byte string compared as
//    unsigned bytes.
//  - Hilbert (HilbertCurve): Delta's HilbertIndex / HilbertLongIndex. The state tables
//    are generated at run time by the same breadth-first construction Delta uses, so keys
//    are identical (a Hilbert curve has many valid orientations; only this one matches).
//
// CurveEncoder picks the curve the way Delta does (liquid with >= 2 columns -> Hilbert,
// otherwise Z-order) and renders either key as bytes that sort like the curve.
//
// Errors: Make() functions return InvalidArgument for unsupported shapes; key functions
// have preconditions instead (checked by assert) because they run once per row.
// Thread safety: all functions are pure; HilbertCurve and CurveEncoder are immutable
// after Make, cheap to copy (the state tables are shared, built once per dimension count
// for the whole process) and safe to use from many threads.
// Memory: the state table for n dimensions has n * 2^(n-1) states of 2^n entries of 8
// bytes: 4 KiB for n = 4, 9 MiB for n = 9, built only for the counts actually used.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"

namespace lithify::planner {

// Delta's spark.databricks.io.skipping.mdc.rangeId.max: range ids per column.
inline constexpr int kDefaultNumRangeIds = 1000;

// Delta's interleave_bits: 4*n bytes; for bit 31..0, for column 0..n-1, append bit
// (id >> bit) & 1, MSB-first (column 0 most significant). Compare keys as unsigned bytes;
// std::string's operator< does (char_traits<char> compares as unsigned char).
// Negative ids use their two's-complement bits, as in Delta. n = 0 gives "".
std::string InterleaveBits(std::span<const int32_t> range_ids);
// The same, with Delta's null convention: a null range id interleaves as 0.
std::string InterleaveBits(std::span<const std::optional<int32_t>> range_ids);
// Appends the 4*n key bytes to `out` (no allocation when `out` has capacity).
void AppendInterleavedBits(std::span<const int32_t> range_ids, std::string* out);

// Delta's numBits for n range ids: numberOfTrailingZeros(highestOneBit(n)) + 1, i.e.
// floor(log2(n)) + 1 (1000 -> 10, 1024 -> 11, 1 -> 1). Precondition: n >= 1.
int RangeIdBits(int num_range_ids);

// Delta's HilbertIndex for `dims` dimensions of `bits` bits each.
class HilbertCurve {
 public:
  static constexpr int kMinDims = 2;
  static constexpr int kMaxDims = 9;

  // InvalidArgument unless 2 <= dims <= 9, bits >= 1 and dims * bits < 64 (Delta's
  // HilbertLongIndex; the byte-array form for longer keys is not implemented).
  static Result<HilbertCurve> Make(int dims, int bits);

  // The key of `point` (dims() coordinates; only each coordinate's low bits() bits are
  // used, as in Delta). Keys are in [0, 2^(dims*bits)); consecutive keys are adjacent
  // cells. Precondition: point.size() == dims().
  uint64_t Key(std::span<const int32_t> point) const;

  int dims() const { return dims_; }
  int bits() const { return bits_; }

  // The generated state table, for tests and diagnostics: entry [state * 2^dims + x1]
  // = (y << 32) | next_state, where x1 is the dims-bit slice of the point (column 0 most
  // significant) and y the dims-bit slice of the key emitted in that state.
  std::span<const uint64_t> StateTable() const;
  int NumStates() const;

  struct Tables;  // opaque: the generated state table of one dimension count

 private:
  HilbertCurve(int dims, int bits, std::shared_ptr<const Tables> tables)
      : dims_(dims), bits_(bits), tables_(std::move(tables)) {}

  int dims_ = 0;
  int bits_ = 0;
  std::shared_ptr<const Tables> tables_;
};

enum class Curve {
  kZOrder,   // InterleaveBits
  kHilbert,  // HilbertCurve
};

// "zorder", "hilbert".
std::string_view CurveName(Curve curve);

// A row's curve key as bytes that compare (std::string order = unsigned bytes) in curve
// order: Z-order keys as InterleaveBits; Hilbert keys as 8 big-endian bytes of the
// uint64 key. Lets the executor sort and range-partition rows without knowing the curve.
class CurveEncoder {
 public:
  // InvalidArgument for num_columns < 1, num_range_ids < 1, or Hilbert with more than 9
  // columns or with num_columns * RangeIdBits(num_range_ids) >= 64.
  static Result<CurveEncoder> Make(Curve curve, int num_columns,
                                   int num_range_ids = kDefaultNumRangeIds);

  // Replaces `out` with the key of one row's range ids (null already mapped to 0).
  // Precondition: range_ids.size() == num_columns().
  void Key(std::span<const int32_t> range_ids, std::string* out) const;

  Curve curve() const { return curve_; }
  int num_columns() const { return num_columns_; }

 private:
  Curve curve_ = Curve::kZOrder;
  int num_columns_ = 0;
  std::optional<HilbertCurve> hilbert_;
};

}  // namespace lithify::planner
