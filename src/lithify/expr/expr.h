// Predicate expressions as users type them in `--where`: the unbound tree, its parser
// and its canonical text.
//
// Grammar (keywords case-insensitive; precedence, loosest first: OR, AND, NOT, then the
// comparison forms):
//
//   predicate := or ;  or := and (OR and)* ;  and := not (AND not)* ;
//   not       := NOT not | primary
//   primary   := '(' predicate ')' | operand [tail]
//   tail      := cmp operand | [NOT] IN '(' literal (',' literal)* ')'
//              | [NOT] BETWEEN operand AND operand | IS [NOT] NULL
//   cmp       := '=' | '<>' | '!=' | '<' | '<=' | '>' | '>='
//   operand   := column | literal
//   column    := name ('.' name)*      name := identifier | `back quoted` (`` escapes `)
//   literal   := integer | decimal | float | 'string' ('' escapes ') | TRUE | FALSE | NULL
//              | DATE 'YYYY-MM-DD' | TIMESTAMP '...' | TIMESTAMP_NTZ '...' | DOUBLE 'NaN'
//
// A bare operand is a predicate too (a BOOLEAN column, TRUE, FALSE, NULL); the binder
// checks its type. DATE, TIMESTAMP, TIMESTAMP_NTZ and DOUBLE are type prefixes only
// when a string follows, so `date > '2024-01-01'` compares a column named date.
//
// Expr is an immutable value: nodes are shared (std::shared_ptr<const ...>), so copies
// are cheap and an Expr may be read from any number of threads. Chains of the same
// connective parse to one n-ary node (a AND b AND c); a parenthesized group stays its
// own node, which keeps ToString -> Parse an exact round trip.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/value.h"

namespace lithify::expr {

// A column reference: the field names from the top-level column down to a nested
// struct field ("a.b" is {"a", "b"}; `a.b` back quoted is the single name "a.b").
using ColumnPath = std::vector<std::string>;

// "a.b", with names that need it back quoted: "`my col`.x".
std::string ColumnPathText(const ColumnPath& path);

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// "=", "<>", "<", "<=", ">", ">=".
std::string_view CompareOpText(CompareOp op);
// The operator that holds when `op` does not (NOT a < b  ==  a >= b).
CompareOp NegateOp(CompareOp op);
// The operator with operands swapped (a < b  ==  b > a).
CompareOp MirrorOp(CompareOp op);

enum class ExprKind : uint8_t {
  kLiteral,  // literal()
  kColumn,   // column()
  kCompare,  // op(): children {left, right}
  kIn,       // negated(): children {operand, list literal...}
  kBetween,  // negated(): children {operand, low, high}
  kIsNull,   // negated() for IS NOT NULL: children {operand}
  kNot,      // children {operand}
  kAnd,      // children (two or more)
  kOr,       // children (two or more)
};

class Expr {
 public:
  // Factories. Operands of kCompare/kIn/kBetween/kIsNull are expected to be columns or
  // literals (what Parse produces); Bind rejects anything else with InvalidArgument.
  static Expr Literal(Value v);
  static Expr Column(ColumnPath path);
  static Expr Compare(CompareOp op, Expr left, Expr right);
  static Expr In(Expr operand, std::vector<Expr> list, bool negated = false);
  static Expr Between(Expr operand, Expr low, Expr high, bool negated = false);
  static Expr IsNull(Expr operand, bool negated = false);
  static Expr Not(Expr operand);
  // Precondition: at least two children.
  static Expr And(std::vector<Expr> children);
  static Expr Or(std::vector<Expr> children);

  ExprKind kind() const { return node_->kind; }
  CompareOp op() const { return node_->op; }
  bool negated() const { return node_->negated; }
  const Value& literal() const { return node_->literal; }
  const ColumnPath& column() const { return node_->column; }
  const std::vector<Expr>& children() const { return node_->children; }

  // Structural equality (literals compared with Value::operator==).
  bool operator==(const Expr& o) const;

 private:
  struct Node {
    ExprKind kind = ExprKind::kLiteral;
    CompareOp op = CompareOp::kEq;
    bool negated = false;
    Value literal;
    ColumnPath column;
    std::vector<Expr> children;
  };
  explicit Expr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  static Expr Make(Node n);
  std::shared_ptr<const Node> node_;
};

// Parses predicate text. InvalidArgument with the 1-based character position and what
// was expected, e.g. "position 6: expected a column or literal after '>='", for
// malformed input (including unterminated strings, bad typed literals and numbers with
// more than 38 digits), and for deep nesting (base/nesting.h): more than
// kMaxPredicateNesting (200) levels of AND, OR and NOT inside one another, or more than
// twice that many parentheses and NOTs open at once ("position N: predicate nested
// deeper than 200 levels of AND, OR and NOT"). Both are checked before anything deeper
// is built, so every tree Parse returns is at most 1000 connectives (plus a comparison)
// deep, which every recursive walk (ToString, Bind, the evaluators, comparison,
// destruction) takes on any thread's stack, and its ToString parses again.
Result<Expr> Parse(std::string_view text);

// Canonical SQL text: keywords upper case, one space around binary operators, `<>` for
// inequality, NOT always followed by a parenthesized operand, nested AND/OR groups
// parenthesized, literals as LiteralText. Parse(ToString(e)) == e for every e that Parse
// can produce.
std::string ToString(const Expr& e);

// Every column the expression references, once each, in order of first appearance.
std::vector<ColumnPath> ReferencedColumns(const Expr& e);

}  // namespace lithify::expr
