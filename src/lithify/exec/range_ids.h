// Per-column range ids and curve keys for Z-order and liquid clustering (Delta's
// range_partition_id(c, 1000) feeding interleave_bits / HilbertIndex;
// delta-maintenance-facts.md §3, §4.2-§4.3).
//
// Delta rewrites range_partition_id into Spark's RangePartitioner(1000, sample of the
// column's non-null values): bounds are chosen from the sorted sample at equal steps
// (at most num_ids - 1 of them, strictly increasing, fewer when the sample has few
// distinct values), and a value's id is the number of bounds strictly less than it; null
// is 0. lithify does the same per bin:
//
//   RangeSampler: pass 1 over the bin's rows keeps a uniform reservoir sample (Spark's
//     default: 100 per output partition, i.e. 100,000 for 1000 ids) of each clustering
//     column's non-null values, encoded as order-preserving bytes;
//   RangeSampler::Bounds -> one RangeBounds per column;
//   CurveKeyer: pass 2 maps each row's values to range ids and the ids to a curve key
//     (planner::CurveEncoder: Z-order bytes or the 8 big-endian bytes of the Hilbert key),
//     a fixed-width byte string per row that sorts in curve order (ExternalSorter's key).
//
// Order-preserving value encoding (SortableValue), matching Spark's ordering of the
// column's logical type: signed integers (INT32/INT64, dates, timestamps, decimals
// stored as integers) as 8 big-endian bytes with the sign bit flipped; FLOAT/DOUBLE with
// -0.0 = 0.0 and every NaN greater than +infinity (Spark's NaN semantics); BYTE_ARRAY
// (strings, binary) as the raw bytes (unsigned byte order = Spark's UTF8String / binary
// order); FIXED_LEN_BYTE_ARRAY decimals (big-endian two's complement) with the sign bit
// flipped; BOOLEAN false < true; INT96 by (day, nanos).
//
// Columns are given as indexes into the batch's columns and must be flat (max_rep == 0):
// a clustering column is a leaf with statistics, never inside a list or map. A repeated
// column is InvalidArgument naming it.
//
// Not thread-safe (one sampler / keyer per bin); memory: the samples (sample_size values
// per column) and the bounds (num_ids - 1 per column).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/planner/curves.h"

namespace lithify::exec {

// Appends the order-preserving encoding of value `i` (index among the column's dense
// non-null values) of `values`.
void AppendSortableValue(const parquet::ColumnValues& values, int64_t i, std::string* out);

// Bounds of one column.
class RangeBounds {
 public:
  RangeBounds() = default;
  explicit RangeBounds(std::vector<std::string> bounds);
  // Spark's RangePartitioner.determineBounds with equal weights over a sample (any order;
  // sorted here): at most num_ids - 1 strictly increasing bounds.
  static RangeBounds FromSample(std::vector<std::string> sample, int num_ids);
  // Number of bounds strictly less than `encoded` (an AppendSortableValue encoding).
  int32_t Id(std::string_view encoded) const;
  const std::vector<std::string>& bounds() const { return bounds_; }

 private:
  std::vector<std::string> bounds_;
  // The bounds as big-endian words when they all have the same length of at most 8
  // bytes (every fixed-width type's encoding): unsigned order of such words is memcmp
  // order, so Id searches integers for values of that length (clustering keys every row
  // of a bin twice; the string search was a tenth of its CPU). word_len_ 0: no words.
  std::vector<uint64_t> words_;
  size_t word_len_ = 0;
};

// Default reservoir size: Spark's sampleSizePerPartition (100) times 1000 partitions.
inline constexpr int64_t kDefaultRangeSampleSize = 100 * 1000;

class RangeSampler {
 public:
  // `columns`: batch column indexes of the clustering columns, in curve order.
  // `seed` makes the sample reproducible.
  RangeSampler(std::vector<int> columns, int64_t sample_size = kDefaultRangeSampleSize, uint64_t seed = 42);
  Status Add(const parquet::RowBatch& batch);
  // Bounds per column for num_ids ids.
  std::vector<RangeBounds> Bounds(int num_ids) const;
  int64_t bytes() const { return bytes_; }

 private:
  std::vector<int> columns_;
  int64_t sample_size_;
  uint64_t state_;
  std::vector<std::vector<std::string>> samples_;
  std::vector<int64_t> seen_;
  int64_t bytes_ = 0;
};

class CurveKeyer {
 public:
  // InvalidArgument when the bounds do not match the columns or the encoder's width.
  static Result<CurveKeyer> Make(planner::CurveEncoder encoder, std::vector<int> columns,
                                 std::vector<RangeBounds> bounds);
  // Bytes of one key.
  int key_width() const { return key_width_; }
  // Appends key_width() bytes per row of `batch`.
  Status Keys(const parquet::RowBatch& batch, std::string* out) const;
  // The range ids of every row (row-major, one per column), for tests and reports.
  Status RangeIds(const parquet::RowBatch& batch, std::vector<int32_t>* out) const;

 private:
  planner::CurveEncoder encoder_;
  std::vector<int> columns_;
  std::vector<RangeBounds> bounds_;
  int key_width_ = 0;
};

// Checks that every column index is a flat leaf of `batch`.
Status CheckClusterColumns(const parquet::RowBatch& batch, const std::vector<int>& columns);

}  // namespace lithify::exec
