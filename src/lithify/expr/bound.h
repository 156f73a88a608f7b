// Bound predicates: an Expr whose columns are resolved to types and whose literals are
// coerced to the columns they meet, in the normalized form every evaluator consumes.
//
// Binding (a) resolves each column through a caller-supplied resolver and numbers the
// distinct columns 0..n-1 (BoundExpr::columns(); evaluators receive their inputs in
// that order), (b) pushes every NOT down to the leaves (negation normal form: NOT over a
// comparison flips the operator, which is exact under three-valued logic and the total
// order of CompareValues; De Morgan over AND/OR; IS NULL / IN flip their `negated`),
// (c) rewrites BETWEEN into two comparisons and a bare BOOLEAN column `b` into `b =
// TRUE`, (d) puts the column on the left of column-vs-literal comparisons, (e) coerces
// literals (string text to DATE/TIMESTAMP/number, integers to DECIMAL at the column's
// scale or to double for float columns, ...) and rejects incomparable types, and (f)
// folds constants (comparisons with NULL are NULL, literal-vs-literal comparisons, TRUE/
// FALSE inside AND/OR). There is no NOT node in a bound tree.
//
// Evaluation follows SQL three-valued logic (Truth). This header also holds the row
// evaluator (partition values). BoundExpr is an immutable value; safe to share.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/expr.h"
#include "lithify/expr/value.h"

namespace lithify::expr {

// SQL truth value. kNull is "unknown": a row is selected only when kTrue.
enum class Truth : uint8_t { kFalse = 0, kTrue = 1, kNull = 2 };

Truth Not(Truth a);
Truth And(Truth a, Truth b);
Truth Or(Truth a, Truth b);
std::string_view TruthText(Truth t);  // "TRUE", "FALSE", "NULL"

struct BoundColumn {
  ColumnPath path;  // as resolved (the resolver may canonicalize case)
  DataType type;
};

enum class BoundKind : uint8_t {
  kConstant,  // constant
  kCompare,   // column `op` (literal | right_column)
  kIn,        // column [NOT] IN values (+ NULL when list_has_null)
  kIsNull,    // column IS [NOT] NULL
  kAnd,       // children (two or more)
  kOr,        // children (two or more)
};

struct BoundNode {
  BoundKind kind = BoundKind::kConstant;
  Truth constant = Truth::kTrue;
  CompareOp op = CompareOp::kEq;
  bool negated = false;
  int column = -1;        // ordinal into BoundExpr::columns()
  int right_column = -1;  // kCompare against another column, else -1
  // kCompare with a literal: never null. Its kind is the column's kind, or a numeric /
  // temporal kind that CompareValues compares exactly with it (for example an INT64
  // literal beyond an INT32 column's range, or 2.5 against an integer column).
  Value literal;
  // kIn: the non-null list values (coerced like `literal`), sorted and without
  // duplicates under CompareValues.
  std::vector<Value> values;
  bool list_has_null = false;
  std::vector<BoundNode> children;
};

class BoundExpr {
 public:
  BoundExpr(BoundNode root, std::vector<BoundColumn> columns)
      : root_(std::move(root)), columns_(std::move(columns)) {}
  const BoundNode& root() const { return root_; }
  // The distinct columns, numbered by BoundNode::column.
  const std::vector<BoundColumn>& columns() const { return columns_; }

 private:
  BoundNode root_;
  std::vector<BoundColumn> columns_;
};

// Resolves a column path to its type. Expected errors: NotFound naming the column (and
// close names when the resolver knows them); InvalidArgument for an ambiguous or
// non-primitive column. May return a canonicalized path via *resolved (default: the
// given path).
using ColumnResolver = std::function<Result<DataType>(const ColumnPath& path, ColumnPath* resolved)>;

// A resolver over a fixed list of leaf columns: exact match first, then a unique
// case-insensitive match (Delta column names are case-insensitive). NotFound lists up to
// three close names by edit distance; InvalidArgument when a case-insensitive match is
// ambiguous or when the path names a struct (a proper prefix of some leaf path).
ColumnResolver ResolverFromColumns(std::vector<BoundColumn> columns);

// Binds `e` (see the header comment). Errors: the resolver's for unknown columns;
// InvalidArgument for a non-BOOLEAN operand used as a predicate, a literal that does
// not convert to the column's type ("column 'd' is DATE: '2024-13-01' is not a valid
// date ..."), or incomparable operand types ("cannot compare STRING column 's' with
// INT64 literal 5").
Result<BoundExpr> Bind(const Expr& e, const ColumnResolver& resolver);

// Text of a bound node (for explanations): "a > 10", "s IN ('x', 'y')", "a IS NULL".
std::string ToString(const BoundExpr& e, const BoundNode& node);

// Evaluates on one row. `row[i]` is the value of columns()[i] (a NULL Value for null).
// Values must be of the column's type (integers of any integer kind, DATE as days,
// timestamps as microseconds). Precondition: row.size() >= columns().size().
Truth EvaluateRow(const BoundExpr& e, std::span<const Value> row);

// The truth of `value op literal` for one non-null value (CompareValues; kNull when
// the two are incomparable, which Bind rules out). Shared with the batch evaluator's
// generic path so both give identical answers.
Truth CompareTruth(const Value& value, CompareOp op, const Value& literal);
// `value IN values` for a non-null value against a bound IN node.
Truth InTruth(const Value& value, const BoundNode& in);

}  // namespace lithify::expr
