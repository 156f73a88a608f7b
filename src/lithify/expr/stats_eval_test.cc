// File skipping on statistics: a table of (predicate, stats) -> skip cases covering each
// operator on both sides of the bounds, missing stats, null counts, wide bounds and the
// truncation rules; then a seeded check that skipping never drops a matching row.
#include "lithify/expr/stats_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace lithify::expr {
namespace {

std::vector<BoundColumn> Schema() {
  return {{{"a"}, DataType::Of(TypeKind::kInt64)},     {{"b"}, DataType::Of(TypeKind::kInt32)},
          {{"s"}, DataType::Of(TypeKind::kString)},    {{"d"}, DataType::Of(TypeKind::kFloat64)},
          {{"ts"}, DataType::Of(TypeKind::kTimestamp)}, {{"m"}, DataType::Decimal(10, 2)},
          {{"dt"}, DataType::Of(TypeKind::kDate)}};
}

BoundExpr B(std::string_view text) {
  Result<Expr> e = Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  Result<BoundExpr> b = Bind(*e, ResolverFromColumns(Schema()));
  EXPECT_TRUE(b.ok()) << text << ": " << b.status().ToString();
  return *b;
}

ColumnStats Stats(std::optional<Value> min, std::optional<Value> max,
                  std::optional<int64_t> nulls = 0) {
  ColumnStats s;
  s.min = std::move(min);
  s.max = std::move(max);
  s.null_count = nulls;
  return s;
}

struct Case {
  const char* predicate;
  std::map<std::string, ColumnStats> stats;
  bool skip;
  const char* reason = nullptr;  // checked when set
  std::optional<int64_t> num_records = 100;
  bool tight = true;
};

SkipDecision RunCase(const Case& c) {
  BoundExpr e = B(c.predicate);
  std::vector<ColumnStats> cols;
  for (const BoundColumn& col : e.columns()) {
    auto it = c.stats.find(ColumnPathText(col.path));
    cols.push_back(it == c.stats.end() ? ColumnStats{} : it->second);
  }
  FileStats f;
  f.num_records = c.num_records;
  f.tight_bounds = c.tight;
  return CanSkip(e, cols, f);
}

Value I(int64_t v) { return Value::Int64(v); }
Value S(std::string v) { return Value::String(std::move(v)); }

TEST(StatsSkipTest, CaseTable) {
  const ColumnStats a_10_20 = Stats(I(10), I(20));
  const ColumnStats a_10_10 = Stats(I(10), I(10));
  const Case cases[] = {
      // = : literal below, inside, above, at the edges
      {"a = 5", {{"a", a_10_20}}, true, "a = 5: min(a) = 10"},
      {"a = 25", {{"a", a_10_20}}, true, "a = 25: max(a) = 20"},
      {"a = 10", {{"a", a_10_20}}, false},
      {"a = 20", {{"a", a_10_20}}, false},
      {"a = 15", {{"a", a_10_20}}, false},
      // <> only when every value is the literal
      {"a <> 10", {{"a", a_10_10}}, true, "a <> 10: min(a) = max(a) = 10"},
      {"a <> 10", {{"a", a_10_20}}, false},
      {"a <> 11", {{"a", a_10_10}}, false},
      // < <= > >=
      {"a < 10", {{"a", a_10_20}}, true, "a < 10: min(a) = 10"},
      {"a < 11", {{"a", a_10_20}}, false},
      {"a <= 9", {{"a", a_10_20}}, true},
      {"a <= 10", {{"a", a_10_20}}, false},
      {"a > 20", {{"a", a_10_20}}, true, "a > 20: max(a) = 20"},
      {"a > 19", {{"a", a_10_20}}, false},
      {"a >= 21", {{"a", a_10_20}}, true},
      {"a >= 20", {{"a", a_10_20}}, false},
      {"10 > a", {{"a", a_10_20}}, true, "a < 10: min(a) = 10"},
      // BETWEEN, IN, NOT IN
      {"a BETWEEN 21 AND 30", {{"a", a_10_20}}, true, "a >= 21: max(a) = 20"},
      {"a BETWEEN 0 AND 9", {{"a", a_10_20}}, true},
      {"a BETWEEN 0 AND 10", {{"a", a_10_20}}, false},
      {"a NOT BETWEEN 0 AND 30", {{"a", a_10_20}}, true,
       "a < 0: min(a) = 10; a > 30: max(a) = 20"},
      {"a NOT BETWEEN 12 AND 30", {{"a", a_10_20}}, false},
      {"a IN (1, 2, 30)", {{"a", a_10_20}}, true, "a IN (1, 2, 30): min(a) = 10, max(a) = 20"},
      {"a IN (1, 15)", {{"a", a_10_20}}, false},
      {"a IN (NULL)", {{"a", a_10_20}}, true},
      {"a NOT IN (10, 11)", {{"a", a_10_10}}, true},
      {"a NOT IN (11)", {{"a", a_10_10}}, false},
      {"a NOT IN (11, NULL)", {{"a", a_10_20}}, true, "a NOT IN (11, NULL): NOT IN with NULL in the list is never TRUE"},
      // AND / OR / NOT
      {"a = 5 AND b = 1", {{"a", a_10_20}}, true, "a = 5: min(a) = 10"},
      {"a = 15 AND b = 1", {{"a", a_10_20}}, false},
      {"a = 5 OR b = 1", {{"a", a_10_20}}, false},
      {"a = 5 OR a > 30", {{"a", a_10_20}}, true, "a = 5: min(a) = 10; a > 30: max(a) = 20"},
      {"NOT (a >= 10)", {{"a", a_10_20}}, true, "a < 10: min(a) = 10"},
      {"NOT (a < 5 OR a > 25)", {{"a", a_10_20}}, false},
      {"NOT (a >= 5 AND a <= 25)", {{"a", a_10_20}}, true},
      // missing statistics never skip
      {"a = 5", {}, false},
      {"a = 5", {{"a", Stats(std::nullopt, I(20))}}, false},
      {"a = 25", {{"a", Stats(I(10), std::nullopt)}}, false},
      {"a < 5", {{"a", Stats(std::nullopt, I(20))}}, false},
      {"a > 25", {{"a", Stats(I(10), std::nullopt)}}, false},
      {"a = 5", {{"a", a_10_20}}, true, nullptr, std::nullopt},  // numRecords unknown: bounds still hold
      // null counts
      {"a IS NULL", {{"a", Stats(I(10), I(20), 0)}}, true, "a IS NULL: nullCount(a) = 0"},
      {"a IS NULL", {{"a", Stats(I(10), I(20), 3)}}, false},
      {"a IS NULL", {{"a", Stats(I(10), I(20), std::nullopt)}}, false},
      {"a IS NOT NULL", {{"a", Stats(std::nullopt, std::nullopt, 100)}}, true,
       "a IS NOT NULL: nullCount(a) = numRecords"},
      {"a IS NOT NULL", {{"a", Stats(std::nullopt, std::nullopt, 99)}}, false},
      {"a IS NOT NULL", {{"a", Stats(std::nullopt, std::nullopt, 100)}}, false, nullptr, std::nullopt},
      {"a = 1", {{"a", Stats(std::nullopt, std::nullopt, 100)}}, true,
       "a = 1: all values of a are NULL (nullCount = numRecords)"},
      {"a <> 1", {{"a", Stats(std::nullopt, std::nullopt, 100)}}, true},
      {"a = b", {{"b", Stats(std::nullopt, std::nullopt, 100)}}, true},
      {"a = b", {{"a", a_10_20}, {"b", Stats(I(30), I(40))}}, false},  // column pairs: maybe
      // wide bounds (tightBounds = false): bounds and the two nullCount facts still hold
      {"a > 20", {{"a", a_10_20}}, true, "a > 20: max(a) = 20 (wide bounds)", 100, false},
      {"a IS NULL", {{"a", Stats(I(10), I(20), 0)}}, true, nullptr, 100, false},
      {"a IS NOT NULL", {{"a", Stats(I(10), I(20), 100)}}, true, nullptr, 100, false},
      {"a IS NULL", {{"a", Stats(I(10), I(20), 40)}}, false, nullptr, 100, false},
      // constants and empty files
      {"a = NULL", {}, true, "the predicate is always NULL"},
      {"1 = 2", {}, true, "the predicate is always FALSE"},
      {"1 = 1", {}, false},
      {"a = 15", {{"a", a_10_20}}, true, "numRecords = 0", 0},
      // strings: byte order; max may be a truncated prefix
      {"s = 'abc'", {{"s", Stats(S("b"), S("c"))}}, true, "s = 'abc': min(s) = 'b'"},
      {"s > 'c'", {{"s", Stats(S("a"), S("c"))}}, false},  // 'c...' may exceed 'c'
      {"s > 'cz'", {{"s", Stats(S("a"), S("c"))}}, false},  // 'cz...' possible
      {"s > 'd'", {{"s", Stats(S("a"), S("c"))}}, true, "s > 'd': max(s) = 'c' (possibly truncated)"},
      {"s >= 'd'", {{"s", Stats(S("a"), S("c"))}}, true},
      {"s = 'ca'", {{"s", Stats(S("a"), S("c"))}}, false},
      {"s = 'd'", {{"s", Stats(S("a"), S("c"))}}, true},
      {"s < 'a'", {{"s", Stats(S("a"), S("c"))}}, true},
      {"s < 'ab'", {{"s", Stats(S("ab"), S("c"))}}, true},
      {"s <> 'x'", {{"s", Stats(S("x"), S("x"))}}, false},  // 'x' may stand for 'xyz'
      {"s > 'z'", {{"s", Stats(S("a"), S(std::string("\xff\xff", 2)))}}, false},  // no upper bound
      {"s > 'z'", {{"s", Stats(S("a"), S("\xc3\xa9"))}}, false},  // U+00E9 sorts above 'z'
      // timestamps: Delta truncates to milliseconds, so max + 999us is the bound
      {"ts > TIMESTAMP '1970-01-01 00:00:01.000998Z'",
       {{"ts", Stats(Value::Timestamp(0), Value::Timestamp(1000000))}}, false},
      {"ts > TIMESTAMP '1970-01-01 00:00:01.000999Z'",
       {{"ts", Stats(Value::Timestamp(0), Value::Timestamp(1000000))}}, true},
      // floats: NaN may hide above max; a NaN bound disables the column
      {"d > 10", {{"d", Stats(Value::Float64(1), Value::Float64(5))}}, false},
      {"d < 0", {{"d", Stats(Value::Float64(1), Value::Float64(5))}}, true, "d < 0E0: min(d) = 1"},
      {"d < 0", {{"d", Stats(Value::Float64(std::nan("")), Value::Float64(5))}}, false},
      // decimals and dates compare exactly
      {"m > 12.34", {{"m", Stats(Value::Decimal(100, 10, 2), Value::Decimal(1234, 10, 2))}}, true},
      {"m >= 12.34", {{"m", Stats(Value::Decimal(100, 10, 2), Value::Decimal(1234, 10, 2))}}, false},
      {"m < 1", {{"m", Stats(Value::Decimal(100, 10, 2), Value::Decimal(1234, 10, 2))}}, true},
      {"m < 1.001", {{"m", Stats(Value::Decimal(100, 10, 2), Value::Decimal(1234, 10, 2))}}, false},
      {"dt > '2024-01-31'", {{"dt", Stats(Value::Date(0), Value::Date(19753))}}, true},
      {"dt >= '2024-01-31'", {{"dt", Stats(Value::Date(0), Value::Date(19753))}}, false},
  };
  for (const Case& c : cases) {
    SkipDecision d = RunCase(c);
    EXPECT_EQ(d.skip, c.skip) << c.predicate << " reason: " << d.reason;
    if (c.reason != nullptr && d.skip) {
      EXPECT_EQ(d.reason, c.reason) << c.predicate;
    }
    if (!d.skip) {
      EXPECT_TRUE(d.reason.empty());
    }
  }
}

TEST(StatsSkipTest, ExactStatsFlagsAllowTighterSkipping) {
  BoundExpr e = B("s > 'c'");
  ColumnStats s = Stats(S("a"), S("c"));
  FileStats f;
  f.num_records = 10;
  EXPECT_FALSE(CanSkip(e, std::span(&s, 1), f).skip);
  s.max_may_be_truncated = false;
  EXPECT_TRUE(CanSkip(e, std::span(&s, 1), f).skip);

  BoundExpr ts = B("ts > TIMESTAMP '1970-01-01 00:00:01.000001Z'");
  ColumnStats t = Stats(Value::Timestamp(0), Value::Timestamp(1000000));
  EXPECT_FALSE(CanSkip(ts, std::span(&t, 1), f).skip);
  t.timestamps_truncated_to_millis = false;
  EXPECT_TRUE(CanSkip(ts, std::span(&t, 1), f).skip);

  BoundExpr d = B("d > 10");
  ColumnStats ds = Stats(Value::Float64(1), Value::Float64(5));
  ds.max_may_exclude_nan = false;
  EXPECT_TRUE(CanSkip(d, std::span(&ds, 1), f).skip);
}

TEST(StatsSkipTest, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor("abc"), "abd");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff\xff", 3)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff", 1)), std::nullopt);
  EXPECT_EQ(PrefixSuccessor(""), std::nullopt);
}

// Random int predicates over random small files: whenever CanSkip says skip, no row of
// the file may satisfy the predicate (checked with the row evaluator), and files with
// exact statistics where a row does match must never be skipped.
TEST(StatsSkipTest, SkippingIsSoundOnRandomFiles) {
  std::mt19937_64 rng(20240131);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const char* ops[] = {"=", "<>", "<", "<=", ">", ">="};
  auto atom = [&]() -> std::string {
    std::string col = pick(2) == 0 ? "a" : "b";
    switch (pick(5)) {
      case 0: return fmt::format("{} {} {}", col, ops[pick(6)], pick(12) - 1);
      case 1: return fmt::format("{} IN ({}, {})", col, pick(12), pick(12));
      case 2: return fmt::format("{} IS {}NULL", col, pick(2) ? "NOT " : "");
      case 3: return fmt::format("{} BETWEEN {} AND {}", col, pick(12), pick(12));
      default: return fmt::format("{} NOT IN ({}{})", col, pick(12), pick(4) == 0 ? ", NULL" : "");
    }
  };
  int skipped = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = atom();
    for (int k = pick(3); k > 0; --k) {
      text = fmt::format("{}{} {} {}", pick(3) == 0 ? "NOT " : "", "(" + text + ")",
                         pick(2) ? "AND" : "OR", atom());
    }
    BoundExpr e = B(text);
    int rows = pick(4) + 1;
    std::vector<std::vector<Value>> data(static_cast<size_t>(rows));
    std::vector<ColumnStats> stats(e.columns().size());
    std::vector<int64_t> nulls(e.columns().size(), 0);
    for (size_t c = 0; c < e.columns().size(); ++c) {
      for (int r = 0; r < rows; ++r) {
        bool null = pick(4) == 0;
        Value v = null ? Value::Null(e.columns()[c].type) : Value::Int64(pick(10));
        if (null) ++nulls[c];
        if (!null && (!stats[c].min || CompareValues(v, *stats[c].min) < 0)) stats[c].min = v;
        if (!null && (!stats[c].max || CompareValues(v, *stats[c].max) > 0)) stats[c].max = v;
        data[static_cast<size_t>(r)].push_back(v);
      }
      stats[c].null_count = nulls[c];
      if (pick(6) == 0) stats[c].min.reset();  // sometimes missing
    }
    FileStats f;
    f.num_records = rows;
    SkipDecision d = CanSkip(e, stats, f);
    if (!d.skip) continue;
    ++skipped;
    for (const auto& row : data) {
      ASSERT_NE(EvaluateRow(e, row), Truth::kTrue) << text << " skipped by: " << d.reason;
    }
  }
  EXPECT_GT(skipped, 300);  // the generator exercises skipping, not only "maybe"
}

}  // namespace
}  // namespace lithify::expr
