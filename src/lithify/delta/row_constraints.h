// Enforcement of CHECK constraints and column invariants on rows being appended
// (PROTOCOL.md "CHECK Constraints": table properties delta.constraints.<name> = SQL
// boolean expression; "Column Invariants": field metadata delta.invariants =
// {"expression":{"expression":"<SQL>"}}; the verdicts are write_gate.h's).
//
// Every expression is parsed and bound with lithify's predicate language (expr/expr.h,
// expr/bound.h) against the table's columns (top-level and struct fields, names matched
// case-insensitively as Spark does); each new row is evaluated with SQL three-valued
// logic, and a row violates a check only when the expression is FALSE (NULL passes, as
// in Delta). An expression the language cannot express exactly (a function call, an
// arithmetic operator, a column of an array or map, ...) makes Make fail: the append is
// refused naming the constraint and its expression, never run unchecked.
//
// Known differences from Spark SQL inside the language: integer-vs-double comparisons
// are exact here (Spark casts the integer to double first), which differs only for
// integers beyond 2^53.
//
// Rows are in ingest.h's convention: one parquet::Value per top-level logical column in
// schema order; scalars as the data writer takes them (dates as days, timestamps as
// microseconds, decimals unscaled, strings and binary as bytes), structs positional.
//
// A checker is immutable after Make; Check may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/schema.h"
#include "lithify/expr/bound.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::delta {

// The predicate language's type of a primitive Delta type; nullopt for types it has no
// comparison for (variant, void) and for nested types. Shared by the constraint checker
// and the read side's predicate binding.
std::optional<expr::DataType> ExprTypeOf(const DataType& t);

// The value of one column of a row in ingest.h's convention as the predicate language's
// Value of `type` (a null gives a typed NULL). InvalidArgument naming column `name` when
// the value is not of that type. Shared with the generated columns (generated_columns.h).
Result<expr::Value> ToExprValue(const parquet::Value& v, const expr::DataType& type, const std::string& name);

class RowConstraintChecker {
 public:
  // The checks of a table with this schema and configuration (every delta.constraints.*
  // property and every delta.invariants field, at any struct depth). NotSupported
  // "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature checkConstraints: constraint
  // NAME (EXPR) cannot be evaluated by lithify (REASON) ..." (invariants alike) when an
  // expression does not parse or bind, or an invariant's metadata is not the documented
  // JSON.
  static Result<RowConstraintChecker> Make(const StructType& schema, const std::map<std::string, std::string>& config);

  bool empty() const { return checks_.empty(); }
  size_t size() const { return checks_.size(); }

  // Checks rows[i] for every i. The first violation is InvalidArgument
  // "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint NAME (EXPR) violated by row
  // ROW with values: col : value, ..." (for invariants "invariant on column C (EXPR)"),
  // where ROW is first_row + i (the caller's 1-based row number) and the values are the
  // referenced columns'. InvalidArgument too when a value is not of its column's type
  // (the row would not be written anyway).
  Status Check(const std::vector<std::vector<parquet::Value>>& rows, int64_t first_row) const;

 private:
  struct Column {
    std::vector<int> field_path;  // field indices from the top-level column down
    std::string name;             // dotted path as in the schema
    expr::DataType expr_type;
  };
  struct Rule {
    std::string label;       // "CHECK constraint positive" / "invariant on column x"
    std::string expression;  // as stored
    expr::BoundExpr bound;
    std::vector<int> columns;  // bound column i -> index into columns_
  };
  RowConstraintChecker() = default;

  std::vector<Column> columns_;
  std::vector<Rule> checks_;
};

}  // namespace lithify::delta
