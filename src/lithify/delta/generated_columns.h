// Generated columns on append (PROTOCOL.md "Generated Columns"): a column whose field
// metadata carries delta.generationExpression holds, in every row, the value of that SQL
// expression over the row's other columns; a writer computes it and Delta checks
// `col <=> expr` on every row it writes.
//
// What lithify does: each generation expression is compiled with expr/scalar.h (Spark SQL
// semantics for the shapes real tables use: column references, integer + - *, CAST,
// YEAR / MONTH / DAY / HOUR, TO_DATE, DATE_FORMAT with simple patterns, SUBSTRING, LOWER /
// UPPER, CONCAT). Per row, a generated column whose value is absent (a missing key, a
// missing CSV or Parquet column, or null) gets the computed value; a given non-null
// value must equal it, else the append is refused with Delta's
// DELTA_VIOLATE_CONSTRAINT_WITH_VALUES naming the row and the values. An expression
// scalar.h does not compile -- or one whose type is not the column's (integers may
// widen) or a generated column inside a struct -- makes Make fail with
// DELTA_UNSUPPORTED_FEATURES_FOR_WRITE naming the column and its expression (the write
// gate refuses the append with the same message); a value scalar.h will not compute
// exactly (an integer overflow, non-ASCII text in LOWER, ...) refuses the append naming
// the column, the expression and the row.
//
// TIME ZONE: TIMESTAMP values turned into dates, hours or text are evaluated in UTC,
// which is what Spark computes under its default (Databricks') session time zone UTC; a
// table written by Spark under another session zone has values lithify would not
// reproduce (its explicit values are then refused, never silently accepted).
//
// Rows are ingest.h's: one parquet::Value per top-level column in schema order. Apply
// runs after identity values are assigned and before CHECK constraints are checked and
// partition values taken (append.cc), so generated partition columns get their values.
// Immutable after Make; Apply may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/schema.h"
#include "lithify/expr/scalar.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::delta {

// The delta.generationExpression of a field (its JSON text unquoted); empty when none.
std::string GenerationExpression(const StructField& f);

class GeneratedColumns {
 public:
  // The generated columns of `schema` (none: an empty set that changes nothing).
  // NotSupported "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature generatedColumns
  // (column C GENERATED ALWAYS AS (EXPR)): lithify cannot compute this generation
  // expression (REASON), so it refuses the append ..." for the first one lithify does
  // not compute.
  static Result<GeneratedColumns> Make(const StructType& schema);

  bool empty() const { return columns_.empty(); }

  // `schema` with its generated columns nullable: inputs are read with it, so that they
  // may omit the column; Apply then fills every row.
  StructType InputSchema(const StructType& schema) const;

  // Fills or checks the generated columns of `rows` (see the file comment). `first_row`
  // numbers rows[0] in errors (1-based). With `replace_explicit` every value is
  // computed, whatever the row holds (rows made by lithify's own generator).
  Status Apply(std::vector<std::vector<parquet::Value>>* rows, int64_t first_row,
               bool replace_explicit = false) const;

 private:
  struct Column {
    int index = 0;  // top-level column index in the schema and in each row
    std::string name;
    std::string expression;  // as stored
    expr::ScalarExpr compiled;
    expr::DataType type;  // the column's
  };
  GeneratedColumns() = default;

  std::vector<expr::ScalarColumn> inputs_;  // every top-level column (kNull type: not readable)
  std::vector<Column> columns_;
};

}  // namespace lithify::delta
