// Scalar expressions with Spark SQL semantics, for the generation expressions of Delta
// generated columns (`GENERATED ALWAYS AS (...)`): compiled once against typed columns,
// evaluated per row. Only shapes whose Spark result lithify can reproduce exactly are
// compiled; anything else fails Compile with NotSupported naming what is not supported,
// and a value whose Spark result would depend on settings lithify cannot know fails
// Evaluate (the caller refuses the write rather than guess).
//
// Supported (names and keywords case-insensitive):
//
//   expr    := term (('+' | '-') term)* ;  term := unary ('*' unary)*
//   unary   := '-' unary | primary
//   primary := '(' expr ')' | literal | column | CAST '(' expr AS type ')' | call
//   column  := identifier | `back quoted` (`` escapes `): a top-level column, resolved
//              case-insensitively as Spark does (two columns matching is ambiguous)
//   literal := integer (INT when it fits, else BIGINT; suffix L: BIGINT) | 'string' |
//              "string" (no backslash escapes, no adjacent literals) | TRUE | FALSE |
//              NULL | DATE 'YYYY-MM-DD'
//   type    := DATE | STRING | TINYINT | BYTE | SMALLINT | SHORT | INT | INTEGER | BIGINT
//            | LONG | BOOLEAN
//   call    := YEAR | MONTH | DAY | DAYOFMONTH (DATE, TIMESTAMP, TIMESTAMP_NTZ -> INT)
//            | HOUR (TIMESTAMP, TIMESTAMP_NTZ -> INT)
//            | TO_DATE(x) (one argument: CAST(x AS DATE))
//            | DATE_FORMAT(x, 'pattern') (DATE, TIMESTAMP, TIMESTAMP_NTZ; the pattern a
//              literal of the fields yyyy MM dd HH mm ss and the separators - / : _ . , and
//              space)
//            | SUBSTRING | SUBSTR (s, pos [, len]) (Spark's 1-based positions on
//              characters: 0 counts as 1, a negative position counts from the end)
//            | LOWER | UPPER | LCASE | UCASE (s) | CONCAT(s, ...)
//
// Types: + - * on integers give the wider operand type (TINYINT < SMALLINT < INT <
// BIGINT); a result outside that type fails Evaluate (Spark wraps without ANSI mode and
// fails with it: lithify does neither silently). Casts: integer <-> integer (out of range
// fails Evaluate), integer / boolean / DATE / TIMESTAMP / TIMESTAMP_NTZ -> STRING,
// TIMESTAMP / TIMESTAMP_NTZ -> DATE, STRING -> DATE (text exactly YYYY-MM-DD; any other
// text fails Evaluate, since Spark's lenient forms and invalid-text NULLs depend on the
// ANSI setting), STRING -> integer (text exactly [+-]digits, in range). The string
// functions cast a non-string argument to STRING as Spark does implicitly. LOWER/UPPER of
// text that is not ASCII fails Evaluate (Spark's result depends on the JVM's locale);
// text that is not valid UTF-8 fails SUBSTRING. Dates and timestamps rendered as text
// need years 1..9999. Any NULL argument gives NULL (Spark's null propagation).
//
// TIME ZONE: a TIMESTAMP (an instant, microseconds since the epoch in UTC) turned into a
// date, an hour or text depends on Spark's session time zone; lithify evaluates in UTC
// (Databricks' default). TIMESTAMP_NTZ is wall-clock time and needs no zone.
//
// Values are value.h's: DATE days, timestamps microseconds, strings UTF-8 bytes.
// A ScalarExpr is immutable after Compile; Evaluate may be called from any thread.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/value.h"

namespace lithify::expr {

// A column a scalar expression may reference: its name and type.
struct ScalarColumn {
  std::string name;
  DataType type;
};

// Spark SQL's name of a type: TINYINT, SMALLINT, INT, BIGINT, DOUBLE, DECIMAL(10,2),
// STRING, DATE, TIMESTAMP, TIMESTAMP_NTZ, ...
std::string SparkTypeName(const DataType& t);

class ScalarExpr {
 public:
  // Parses and types `text` against `columns`. NotSupported naming what is not
  // supported (a function, an operator, a cast, a column type, a syntax) or why a column
  // does not resolve.
  static Result<ScalarExpr> Compile(std::string_view text, const std::vector<ScalarColumn>& columns);

  // The result type (kNull for an expression that is always NULL, e.g. `NULL`).
  const DataType& type() const;
  // The indices (into Compile's `columns`) the expression reads, ascending, once each.
  const std::vector<int>& referenced_columns() const { return referenced_; }

  // The value for one row: `row[i]` is column i's value (only referenced_columns() are
  // read; the others may be anything, e.g. untyped NULLs). A referenced value must be
  // NULL or of its column's type. InvalidArgument for an integer overflow or a value
  // whose Spark result lithify cannot reproduce exactly (see the file comment).
  Result<Value> Evaluate(std::span<const Value> row) const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::vector<int> referenced_;
};

}  // namespace lithify::expr
