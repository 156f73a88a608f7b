// Evaluating bound predicates on Parquet RowBatches (the levels form of
// parquet/column_batch.h), without assembling records.
//
// Each leaf of the bound tree is evaluated for all rows at once into a vector of Truth
// bytes, with a tight loop per (physical type, comparison operator): values are read in
// place (INT32/INT64/FLOAT/DOUBLE/BOOLEAN little-endian, INT96 and INT64 millis/nanos
// timestamps normalized to microseconds, DECIMAL unscaled from INT32/INT64 or from
// big-endian two's complement FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY, strings as byte views)
// and nullness comes from the definition levels. AND/OR then combine the vectors with
// three-valued logic. Combinations without a specialized loop (column-vs-column
// comparisons, an integer column against 2.5, a DATE column against a TIMESTAMP, ...)
// decode each value into a Value and use the very comparison the row evaluator uses, so
// both evaluators always agree.
//
// Columns must be flat (max_rep == 0); leaves nested in structs are fine, since their
// def levels say whether the value (or an enclosing struct) is null. Repeated columns
// are NotSupported. This is the only part of expr/ that knows Parquet. Stateless;
// thread-safe for distinct outputs.
#pragma once

#include <span>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/bound.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::expr {

// Where and how one bound column is stored in a batch.
struct BatchColumn {
  int index = -1;  // into RowBatch::columns
  parquet::PhysicalType physical = parquet::PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_def = 0;
  int16_t max_rep = 0;
  // INT64 timestamps: the stored unit (values are normalized to microseconds, nanos
  // rounding toward negative infinity).
  parquet::TimeUnit unit = parquet::TimeUnit::kMicros;
  // INT32/INT64 holding unsigned integers (UINT_8..UINT_32); UINT_64 is not supported.
  bool is_unsigned = false;
};

// The logical type of a Parquet leaf in the expr vocabulary (from its LogicalType or
// ConvertedType annotation, else its physical type). NotSupported for TIME, FLOAT16,
// UINT64, INTERVAL and the like, naming the column and the type.
Result<DataType> LogicalTypeOf(const parquet::ColumnDescriptor& leaf);

// The BatchColumn for a Parquet leaf at `index` in a batch's columns.
Result<BatchColumn> DescribeLeaf(const parquet::ColumnDescriptor& leaf, int index);

// Evaluates `e` on every row of `batch`: result[r] is true when the predicate is TRUE
// for row r (FALSE and NULL are not selected). `columns[i]` locates e.columns()[i].
// Errors: InvalidArgument when `columns` is too short or an index is out of range;
// NotSupported for repeated columns or a logical type the physical type cannot hold
// (naming the column); Corruption when levels/value counts are inconsistent with
// batch.num_rows.
Result<std::vector<bool>> EvaluateBatch(const BoundExpr& e, const parquet::RowBatch& batch,
                                        std::span<const BatchColumn> columns);

// Decodes the i-th dense value of `values` as `type` (the generic path; also handy for
// callers that want a Value). Preconditions: i < values.count and the physical type
// suits `type` (EvaluateBatch checks this).
Value DecodeValue(const parquet::ColumnValues& values, const BatchColumn& c, const DataType& type,
                  int64_t i);

}  // namespace lithify::expr
