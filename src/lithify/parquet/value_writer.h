// Building the dense values of one output leaf, and reading how a file leaf stores a value.
//
// Both table readers (delta/logical_reader, iceberg/reader) convert the values a data
// file holds into the physical form of their output schema's leaf (widening, decimal
// rescaling, timestamp units, partition constants). This is the part of that conversion
// that knows Parquet only, not a table format: which type each conversion means is the
// reader's business, how the result is laid out in a ColumnValues is this file's.
#pragma once

#include <cstdint>
#include <string_view>

#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

// Appends values, one at a time, in the physical form of the output leaf `out` given at
// construction; Finish() hands the ColumnValues over (the writer is empty afterwards).
// The caller picks the call that matches the leaf's physical type (Int32 into an INT32
// leaf, ...): nothing is checked or converted here except where said.
class ValueWriter {
 public:
  // `reserve`: the number of values expected (a capacity hint only).
  ValueWriter(const ColumnDescriptor& out, int64_t reserve);

  void Int32(int32_t x) { v_.fixed.AppendValue(x); ++v_.count; }
  void Int64(int64_t x) { v_.fixed.AppendValue(x); ++v_.count; }
  void Float(float x) { v_.fixed.AppendValue(x); ++v_.count; }
  void Double(double x) { v_.fixed.AppendValue(x); ++v_.count; }
  void Bool(bool x) { uint8_t b = x ? 1 : 0; v_.fixed.AppendValue(b); ++v_.count; }
  // One BYTE_ARRAY value, or one FIXED_LEN_BYTE_ARRAY value when the leaf is fixed-length.
  // Precondition for the fixed case: s.size() == the leaf's type_length (the caller checks
  // it, since only the caller can name the table type in the error). Delta only writes
  // BYTE_ARRAY leaves here (string, binary); Iceberg also writes uuid and fixed(L) ones.
  void Bytes(std::string_view s);
  // An unscaled decimal in the leaf's physical form: INT32, INT64, else big-endian
  // two's complement of type_length bytes (FIXED_LEN_BYTE_ARRAY, at most 16).
  void Decimal(__int128 unscaled);

  ColumnValues Finish() { return std::move(v_); }

 private:
  ColumnValues v_;
};

// Writes the low `width` bytes (at most 16) of `v` to out[0, width), most significant
// first: the two's-complement form Parquet's fixed-length decimals use.
void StoreBigEndian(__int128 v, int width, uint8_t* out);

// The decimal scale a file leaf stores values with: the DECIMAL logical type's, else the
// legacy scale field's, else 0 (an integer leaf read as a decimal).
int32_t DecimalFileScale(const ColumnDescriptor& leaf);

// The unit of a file's INT64 timestamp leaf: the TIMESTAMP logical type's, millis for the
// legacy TIMESTAMP_MILLIS, else micros (unannotated or TIMESTAMP_MICROS).
TimeUnit Int64TimeUnit(const ColumnDescriptor& leaf);

}  // namespace lithify::parquet
