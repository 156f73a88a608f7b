// Deeply nested predicates (issue 14): the parser refuses more than kMaxPredicateNesting
// levels of AND/OR/NOT, or more than twice that many open parentheses and NOTs, with a
// clean InvalidArgument before building anything deeper; every recursive walk (ToString,
// comparison, Bind, row and statistics evaluation, destruction) takes the deepest tree it
// accepts, and that tree's canonical text parses again. Before the limits, 20,000
// parentheses overflowed the stack.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lithify/base/nesting.h"
#include "lithify/expr/bound.h"
#include "lithify/expr/expr.h"
#include "lithify/expr/stats_eval.h"

namespace lithify::expr {
namespace {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string Parens(int n) { return Repeat("(", n) + "a = 1" + Repeat(")", n); }
std::string Nots(int n) { return Repeat("NOT ", n) + "a = 1"; }
// Two levels per group: an OR over an AND over the next group.
std::string OrAndChain(int n) {
  return Repeat("(a = 1 OR b > 0 AND ", n) + "a = 2" + Repeat(")", n);
}

constexpr std::string_view kTooManyLevels = "predicate nested deeper than 200 levels of AND, OR and NOT";
constexpr std::string_view kTooManyOpen = "predicate nested deeper than 400 levels of parentheses and NOTs";

void ExpectTooDeep(const std::string& text, std::string_view message) {
  Result<Expr> r = Parse(text);
  ASSERT_FALSE(r.ok()) << text.size() << " bytes parsed";
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
}

std::vector<BoundColumn> Columns() {
  return {{{"a"}, DataType::Of(TypeKind::kInt64)}, {{"b"}, DataType::Of(TypeKind::kInt64)}};
}

// Everything that walks a tree, on an accepted one.
void ExpectUsable(const std::string& text) {
  Result<Expr> e = Parse(text);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const std::string canon = ToString(*e);
  Result<Expr> again = Parse(canon);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(*again == *e);
  EXPECT_EQ(ReferencedColumns(*e).size(), text.find('b') == std::string::npos ? 1u : 2u);
  Result<BoundExpr> bound = Bind(*e, ResolverFromColumns(Columns()));
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  std::vector<Value> row(bound->columns().size(), Value::Int64(1));
  const Truth t = EvaluateRow(*bound, row);
  EXPECT_NE(t, Truth::kNull);
  std::vector<ColumnStats> stats(bound->columns().size());
  for (ColumnStats& s : stats) {
    s.min = Value::Int64(5);
    s.max = Value::Int64(9);
    s.null_count = 0;
  }
  (void)CanSkip(*bound, stats, FileStats{});
  EXPECT_FALSE(ToString(*bound, bound->root()).empty());
}

TEST(NestingTest, LimitIsAccepted) {
  ExpectUsable(Nots(kMaxPredicateNesting));
  ExpectUsable(OrAndChain(kMaxPredicateNesting / 2));
  // The canonical text of Nots(limit): as many NOTs and parentheses open at once.
  ExpectUsable(Repeat("NOT (", kMaxPredicateNesting) + "a = 1" + Repeat(")", kMaxPredicateNesting));
  ExpectUsable(Parens(2 * kMaxPredicateNesting));  // parentheses alone make no levels
  EXPECT_EQ(ToString(*Parse(Parens(2 * kMaxPredicateNesting))), "a = 1");
}

TEST(NestingTest, OneLevelMoreIsRefused) {
  ExpectTooDeep(Nots(kMaxPredicateNesting + 1), kTooManyLevels);
  ExpectTooDeep(OrAndChain(kMaxPredicateNesting / 2 + 1), kTooManyLevels);
  ExpectTooDeep(Parens(2 * kMaxPredicateNesting + 1), kTooManyOpen);
  ExpectTooDeep(Repeat("NOT (", kMaxPredicateNesting) + "(a = 1)" + Repeat(")", kMaxPredicateNesting),
                kTooManyOpen);
}

TEST(NestingTest, HostileDepthsAreRefusedWithoutCrashing) {
  for (int n : {20000, 100000}) {
    ExpectTooDeep(Parens(n), kTooManyOpen);
    ExpectTooDeep(Nots(n), kTooManyOpen);
    ExpectTooDeep(OrAndChain(n), kTooManyOpen);
    ExpectTooDeep(OrAndChain(300), kTooManyLevels);  // parentheses within bounds, levels not
    ExpectTooDeep(Repeat("(", n), kTooManyOpen);  // unbalanced: the depth is reported first
  }
}

TEST(NestingTest, PositionPointsAtTheFirstLevelTooMany) {
  Result<Expr> r = Parse(Parens(2 * kMaxPredicateNesting + 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("position 401: ", 0), 0u) << r.status().message();
}

TEST(NestingTest, LongFlatChainsAreNotNesting) {
  // 100,000 conjuncts are one n-ary node, not 100,000 levels.
  std::string text = "a = 0";
  for (int i = 1; i < 100000; ++i) text += " AND a = " + std::to_string(i % 7);
  Result<Expr> e = Parse(text);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->children().size(), 100000u);
}

}  // namespace
}  // namespace lithify::expr
