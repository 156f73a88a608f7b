// Parser and printer tests: precedence, every operator and literal form, error
// positions, and the ToString -> Parse round trip.
#include "lithify/expr/expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace lithify::expr {
namespace {

Expr P(std::string_view text) {
  Result<Expr> r = Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : Expr::Literal(Value());
}

std::string Canon(std::string_view text) { return ToString(P(text)); }

std::string ParseError(std::string_view text) {
  Result<Expr> r = Parse(text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? ToString(*r) : "");
  if (r.ok()) return "";
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  return r.status().message();
}

Expr Col(std::string name) { return Expr::Column({std::move(name)}); }
Expr Int(int64_t v) { return Expr::Literal(Value::Int64(v)); }

TEST(ParseTest, PrecedenceNotOverAndOverOr) {
  Expr e = P("a = 1 OR b = 2 AND NOT c = 3");
  ASSERT_EQ(e.kind(), ExprKind::kOr);
  ASSERT_EQ(e.children().size(), 2u);
  EXPECT_EQ(e.children()[0], Expr::Compare(CompareOp::kEq, Col("a"), Int(1)));
  const Expr& conj = e.children()[1];
  ASSERT_EQ(conj.kind(), ExprKind::kAnd);
  EXPECT_EQ(conj.children()[1].kind(), ExprKind::kNot);
  EXPECT_EQ(conj.children()[1].children()[0], Expr::Compare(CompareOp::kEq, Col("c"), Int(3)));
}

TEST(ParseTest, ParenthesesOverridePrecedence) {
  Expr e = P("(a = 1 OR b = 2) AND c = 3");
  ASSERT_EQ(e.kind(), ExprKind::kAnd);
  EXPECT_EQ(e.children()[0].kind(), ExprKind::kOr);
  EXPECT_EQ(Canon("(a = 1 OR b = 2) AND c = 3"), "(a = 1 OR b = 2) AND c = 3");
  // NOT applies to the next primary only; NOT NOT nests.
  EXPECT_EQ(Canon("NOT a = 1 AND b = 2"), "NOT (a = 1) AND b = 2");
  EXPECT_EQ(Canon("not not x is null"), "NOT (NOT (x IS NULL))");
}

TEST(ParseTest, ChainsAreNaryAndGroupsStayNested) {
  EXPECT_EQ(P("a = 1 AND b = 2 AND c = 3").children().size(), 3u);
  Expr nested = P("(a = 1 AND b = 2) AND c = 3");
  EXPECT_EQ(nested.children().size(), 2u);
  EXPECT_EQ(ToString(nested), "(a = 1 AND b = 2) AND c = 3");
}

TEST(ParseTest, EveryComparisonOperator) {
  const std::vector<std::pair<std::string, CompareOp>> ops = {
      {"=", CompareOp::kEq}, {"<>", CompareOp::kNe}, {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},
      {"<=", CompareOp::kLe}, {">", CompareOp::kGt}, {">=", CompareOp::kGe}};
  for (const auto& [text, op] : ops) {
    Expr e = P("a" + text + "5");
    ASSERT_EQ(e.kind(), ExprKind::kCompare) << text;
    EXPECT_EQ(e.op(), op) << text;
  }
  EXPECT_EQ(Canon("a != 5"), "a <> 5");
  EXPECT_EQ(Canon("5 < a"), "5 < a");  // literal first is kept; Bind normalizes
  EXPECT_EQ(Canon("a < b"), "a < b");
}

TEST(ParseTest, InBetweenIsNull) {
  EXPECT_EQ(Canon("a in (1,2 , 3)"), "a IN (1, 2, 3)");
  EXPECT_EQ(Canon("a NOT IN ('x', NULL)"), "a NOT IN ('x', NULL)");
  EXPECT_EQ(Canon("a between 1 and 5 and b = 2"), "a BETWEEN 1 AND 5 AND b = 2");
  EXPECT_EQ(Canon("a NOT BETWEEN x AND 5"), "a NOT BETWEEN x AND 5");
  EXPECT_EQ(Canon("a Is Null"), "a IS NULL");
  EXPECT_EQ(Canon("a IS NOT NULL"), "a IS NOT NULL");
  Expr in = P("a NOT IN (1)");
  EXPECT_TRUE(in.negated());
  EXPECT_EQ(in.children().size(), 2u);
}

TEST(ParseTest, ColumnNames) {
  EXPECT_EQ(P("a.b.c = 1").children()[0].column(), (ColumnPath{"a", "b", "c"}));
  EXPECT_EQ(P("`my col` = 1").children()[0].column(), (ColumnPath{"my col"}));
  EXPECT_EQ(P("`a.b` = 1").children()[0].column(), (ColumnPath{"a.b"}));
  EXPECT_EQ(P("s.`x y`.z = 1").children()[0].column(), (ColumnPath{"s", "x y", "z"}));
  EXPECT_EQ(P("`we``ird` = 1").children()[0].column(), (ColumnPath{"we`ird"}));
  EXPECT_EQ(Canon("`my col` = 1 AND `and` = 2 AND `we``ird` = 3 AND plain_1 = 4"),
            "`my col` = 1 AND `and` = 2 AND `we``ird` = 3 AND plain_1 = 4");
  // Type prefixes are column names unless a string follows.
  EXPECT_EQ(P("date > DATE '2024-01-31'").children()[0].column(), (ColumnPath{"date"}));
  EXPECT_EQ(Canon("date > DATE '2024-01-31'"), "`date` > DATE '2024-01-31'");
}

TEST(ParseTest, Literals) {
  EXPECT_EQ(P("a = -9223372036854775808").children()[1].literal(),
            Value::Int64(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(P("a = +17").children()[1].literal(), Value::Int64(17));
  // Beyond 64 bits an integer stays exact as DECIMAL(p, 0).
  Value big = P("a = 99999999999999999999").children()[1].literal();
  EXPECT_EQ(big.kind(), TypeKind::kDecimal);
  EXPECT_EQ(big.type().scale, 0);
  Value dec = P("a = 123.450").children()[1].literal();
  EXPECT_EQ(dec, Value::Decimal(123450, 6, 3));
  EXPECT_EQ(P("a = -0.05").children()[1].literal(), Value::Decimal(-5, 2, 2));
  EXPECT_EQ(P("a = 1.5e3").children()[1].literal(), Value::Float64(1500));
  EXPECT_EQ(P("a = 'it''s'").children()[1].literal(), Value::String("it's"));
  EXPECT_EQ(P("a = ''").children()[1].literal(), Value::String(""));
  EXPECT_EQ(P("a = true").children()[1].literal(), Value::Boolean(true));
  EXPECT_EQ(P("a = NULL").children()[1].literal(), Value());
  EXPECT_EQ(P("a = DATE '1970-01-02'").children()[1].literal(), Value::Date(1));
  EXPECT_EQ(P("a = date '1969-12-31'").children()[1].literal(), Value::Date(-1));
  EXPECT_EQ(P("a = TIMESTAMP '1970-01-01 00:00:01.5'").children()[1].literal(),
            Value::Timestamp(1500000));
  EXPECT_EQ(P("a = TIMESTAMP '1970-01-01T01:00:00+01:00'").children()[1].literal(),
            Value::Timestamp(0));
  EXPECT_EQ(P("a = TIMESTAMP '1970-01-01 00:00:00.000001Z'").children()[1].literal(),
            Value::Timestamp(1));
  EXPECT_EQ(P("a = TIMESTAMP_NTZ '2024-01-31 12:00:00'").children()[1].literal(),
            Value::TimestampNtz((19753LL * 86400 + 12 * 3600) * 1000000));
  EXPECT_TRUE(std::isnan(P("a = DOUBLE 'NaN'").children()[1].literal().double_value()));
}

TEST(ParseTest, LiteralCanonicalText) {
  EXPECT_EQ(Canon("a = 1.5e3"), "a = 1500E0");
  EXPECT_EQ(Canon("a = 0.000"), "a = 0.000");
  EXPECT_EQ(Canon("a = 99999999999999999999"), "a = 99999999999999999999.");
  EXPECT_EQ(Canon("a = TIMESTAMP '2024-01-31 12:00:00.120+00:00'"),
            "a = TIMESTAMP '2024-01-31 12:00:00.12Z'");
  EXPECT_EQ(Canon("a = DOUBLE '-infinity'"), "a = DOUBLE '-Infinity'");
  EXPECT_EQ(Canon("a = date '0001-01-01'"), "a = DATE '0001-01-01'");
}

TEST(ParseTest, ErrorsNamePositionAndExpectation) {
  EXPECT_EQ(ParseError("amount >= "),
            "position 11: expected a column or literal after '>=', found end of input");
  EXPECT_EQ(ParseError("a IN (1, b)"), "position 10: expected a literal after ',', found column b");
  EXPECT_EQ(ParseError("a IN 1"), "position 6: expected '(' after IN, found number 1");
  EXPECT_EQ(ParseError("a = 'abc"), "position 5: unterminated string literal");
  EXPECT_EQ(ParseError("(a = 1"), "position 7: expected ')', found end of input");
  EXPECT_EQ(ParseError("a = 1 b = 2"),
            "position 7: expected AND, OR or the end of the predicate, found column b");
  EXPECT_EQ(ParseError("a IS 5"), "position 6: expected NULL after IS, found number 5");
  EXPECT_EQ(ParseError("a BETWEEN 1 OR 2"),
            "position 13: expected AND after the lower bound of BETWEEN, found OR");
  EXPECT_EQ(ParseError(""), "position 1: empty predicate");
  EXPECT_EQ(ParseError("a = 1 AND"), "position 10: expected a predicate after AND, found end of input");
  EXPECT_EQ(ParseError("a = \"x\""),
            "position 5: unexpected '\"' (strings use single quotes, names use back quotes)");
  EXPECT_EQ(ParseError("a = DATE '2024-02-30'"),
            "position 10: DATE literal: '2024-02-30' is not a valid date (no such day)");
  EXPECT_EQ(ParseError("a = TIMESTAMP_NTZ '2024-01-01 00:00:00Z'"),
            "position 19: TIMESTAMP_NTZ literal: '2024-01-01 00:00:00Z' has a time zone");
  EXPECT_EQ(ParseError("a = 12x"), "position 5: '12x' is not a valid number");
  EXPECT_EQ(ParseError("a = 1234567890123456789012345678901234567.89"),
            "position 5: number 1234567890123456789012345678901234567.89 has more than 38 digits");
  EXPECT_EQ(ParseError("a.= 1"), "position 3: expected a field name after '.'");
  EXPECT_EQ(ParseError("a = 1 AND AND"), "position 11: expected a predicate, found AND");
}

TEST(ParseTest, RoundTripIsExact) {
  const char* cases[] = {
      "a = 1",
      "a <> -5 OR NOT (b.c IS NULL)",
      "x IN (1, 2.50, 3E-2, NULL) AND y NOT IN ('a', 'it''s')",
      "t BETWEEN TIMESTAMP '2024-01-31 12:00:00Z' AND TIMESTAMP '2024-02-01 00:00:00.000001Z'",
      "d NOT BETWEEN DATE '2024-01-01' AND DATE '2024-12-31' OR n BETWEEN 1 AND 2",
      "((a = 1 OR b = 2) AND (c = 3 OR (d = 4 AND e = 5))) OR f",
      "NOT (NOT (flag))",
      "`my col` >= 'x' AND `a.b`.c < 1.5E300 AND z = DOUBLE 'NaN'",
      "TRUE AND FALSE OR NULL",
      "ntz = TIMESTAMP_NTZ '1969-12-31 23:59:59.999999'",
      "big = 99999999999999999999999999999999999999.",
  };
  for (const char* text : cases) {
    Expr e = P(text);
    Expr again = P(ToString(e));
    EXPECT_EQ(again, e) << text << " -> " << ToString(e);
    EXPECT_EQ(ToString(again), ToString(e));
  }
}

TEST(ParseTest, ProgrammaticTreesRoundTrip) {
  // Nested same-kind connectives built by hand must survive printing.
  Expr a = Expr::Compare(CompareOp::kEq, Col("a"), Int(1));
  Expr b = Expr::Compare(CompareOp::kLt, Int(2), Col("b"));
  Expr tree = Expr::And({Expr::And({a, b}), Expr::Not(Expr::Or({a, Expr::Or({b, a})}))});
  EXPECT_EQ(P(ToString(tree)), tree);
}

TEST(ParseTest, ReferencedColumnsInFirstAppearanceOrder) {
  std::vector<ColumnPath> cols = ReferencedColumns(P("b = 1 AND (a.x > b OR c IN (1)) AND a.x IS NULL"));
  EXPECT_EQ(cols, (std::vector<ColumnPath>{{"b"}, {"a", "x"}, {"c"}}));
}

TEST(ValueTextTest, DatesAndTimestampsRoundTrip) {
  for (int64_t days : {-719528LL, -1LL, 0LL, 59LL, 19753LL, 2932896LL}) {
    Result<int32_t> back = ParseDate(FormatDate(days));
    ASSERT_TRUE(back.ok()) << FormatDate(days);
    EXPECT_EQ(*back, days);
  }
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-719528), "0000-01-01");
  EXPECT_EQ(FormatDate(11016), "2000-02-29");
  EXPECT_FALSE(ParseDate("2023-02-29").ok());
  EXPECT_FALSE(ParseDate("2024-1-01").ok());
  for (int64_t us : {-1LL, 0LL, 1LL, 86399999999LL, 1706702400123456LL, -62135596800000000LL}) {
    bool zone = false;
    Result<int64_t> back = ParseTimestamp(FormatTimestampMicros(us), &zone);
    ASSERT_TRUE(back.ok()) << FormatTimestampMicros(us);
    EXPECT_EQ(*back, us);
    EXPECT_FALSE(zone);
  }
  bool zone = false;
  EXPECT_EQ(*ParseTimestamp("2024-01-31", &zone), 19753LL * 86400 * 1000000);
  EXPECT_EQ(*ParseTimestamp("1970-01-01 00:00:00.123456789", &zone), 123456);
  EXPECT_EQ(*ParseTimestamp("1970-01-01 00:00:00-00:30", &zone), 1800LL * 1000000);
  EXPECT_TRUE(zone);
  EXPECT_FALSE(ParseTimestamp("1970-01-01 24:00:00", &zone).ok());
}

}  // namespace
}  // namespace lithify::expr
