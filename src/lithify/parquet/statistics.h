// Column statistics: min/max/null_count of a column chunk, per the format's sort orders.
//
// parquet.thrift (ColumnOrder / TypeDefinedOrder) and LogicalTypes.md define how each
// column compares: signed integers, unsigned integers (INTEGER(unsigned) / UINT_*),
// IEEE floats with NaN excluded, FLOAT16 as half floats, unsigned lexicographic bytes
// for BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY, signed big-endian two's complement for
// DECIMAL on binary types, and no order at all for INT96 and INTERVAL (only the null
// count is kept then). ColumnStatistics accumulates values batch by batch with one
// type dispatch per batch (never per value) and renders the Thrift Statistics.
//
// A ColumnStatistics is a plain value; not thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"

namespace lithify::parquet {

enum class SortOrder { kSigned, kUnsigned, kUndefined };

// The type-defined sort order of a leaf (logical type first, then converted type,
// then physical type).
SortOrder LeafSortOrder(const SchemaElement& leaf);

class ColumnStatistics {
 public:
  // `leaf` describes the column (physical, logical and converted type). Binary min/max
  // longer than `max_statistics_size` bytes are truncated (BYTE_ARRAY) or omitted.
  ColumnStatistics(const SchemaElement& leaf, int32_t max_statistics_size);

  void AddNulls(int64_t n) { null_count_ += n; }
  // Accounts values [begin, end) of `values` (physical layout of column_batch.h).
  void AddValues(const ColumnValues& values, int64_t begin, int64_t end);
  // Same for raw layouts: fixed-width packed values, or BYTE_ARRAY offsets + data.
  void AddFixed(const uint8_t* values, int64_t n);
  void AddByteArrays(const int64_t* offsets, const uint8_t* data, int64_t begin, int64_t end);
  void Merge(const ColumnStatistics& other);
  void Reset();

  int64_t null_count() const { return null_count_; }
  // NaN values seen (FLOAT, DOUBLE, FLOAT16; always 0 for other kinds).
  int64_t nan_count() const { return nan_count_; }
  bool has_min_max() const { return has_min_max_; }
  // Untruncated PLAIN bytes of the current min/max. Precondition: has_min_max().
  const std::string& min_bytes() const { return min_; }
  const std::string& max_bytes() const { return max_; }

  // The Thrift form: null_count always; nan_count for FLOAT/DOUBLE/FLOAT16 (so that a
  // reader can tell a chunk without NaN from one whose NaNs min/max leave out);
  // min_value/max_value when any ordered non-NaN
  // value was seen; the legacy min/max too when the legacy signed order agrees with
  // the type order (signed integers, floats, booleans).
  Statistics ToThrift() const;

  // Which comparison a column uses (exposed for tests).
  enum class Kind {
    kNone, kBoolean, kInt32, kUInt32, kInt64, kUInt64, kFloat, kDouble, kFloat16,
    kBytesUnsigned, kBytesSigned,
  };
  Kind kind() const { return kind_; }

 private:
  // Candidate is the PLAIN bytes of a batch's min and max.
  void UpdateMinMax(std::string_view batch_min, std::string_view batch_max);

  Kind kind_ = Kind::kNone;
  PhysicalType physical_ = PhysicalType::kInt32;
  int32_t type_length_ = 0;
  int32_t max_size_ = 64;
  bool legacy_compatible_ = false;
  int64_t null_count_ = 0;
  int64_t nan_count_ = 0;
  bool has_min_max_ = false;
  std::string min_;
  std::string max_;
};

// Compares two PLAIN-encoded values under `kind`: <0, 0, >0. NaN never occurs here
// (it is excluded before comparison). Exposed for tests and page-index writers.
int CompareStatValues(ColumnStatistics::Kind kind, std::string_view a, std::string_view b);

// Smallest byte string greater than every string starting with `prefix` that is no
// longer than `prefix`: increments the last byte, dropping trailing 0xFF bytes (carry).
// Returns false if `prefix` is all 0xFF (no such string).
bool IncrementBytes(std::string* prefix);

// IEEE half-precision bits to float.
float HalfToFloat(uint16_t h);

}  // namespace lithify::parquet
