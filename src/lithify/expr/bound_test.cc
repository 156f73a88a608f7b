// Binding (resolution, coercion, normalization) and row evaluation with SQL
// three-valued logic.
#include "lithify/expr/bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace lithify::expr {
namespace {

std::vector<BoundColumn> Schema() {
  return {
      {{"b"}, DataType::Of(TypeKind::kBoolean)},
      {{"i8"}, DataType::Of(TypeKind::kInt8)},
      {{"i"}, DataType::Of(TypeKind::kInt32)},
      {{"l"}, DataType::Of(TypeKind::kInt64)},
      {{"f"}, DataType::Of(TypeKind::kFloat32)},
      {{"d"}, DataType::Of(TypeKind::kFloat64)},
      {{"m"}, DataType::Decimal(10, 2)},
      {{"s"}, DataType::Of(TypeKind::kString)},
      {{"bin"}, DataType::Of(TypeKind::kBinary)},
      {{"dt"}, DataType::Of(TypeKind::kDate)},
      {{"ts"}, DataType::Of(TypeKind::kTimestamp)},
      {{"ntz"}, DataType::Of(TypeKind::kTimestampNtz)},
      {{"Amount"}, DataType::Of(TypeKind::kInt64)},
      {{"st", "x"}, DataType::Of(TypeKind::kInt32)},
      {{"st", "y"}, DataType::Of(TypeKind::kString)},
  };
}

Result<BoundExpr> BindText(std::string_view text) {
  Result<Expr> e = Parse(text);
  if (!e.ok()) return e.status();
  return Bind(*e, ResolverFromColumns(Schema()));
}

BoundExpr B(std::string_view text) {
  Result<BoundExpr> r = BindText(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : BoundExpr(BoundNode(), {});
}

std::string BText(std::string_view text) {
  BoundExpr e = B(text);
  return ToString(e, e.root());
}

Status BindError(std::string_view text) {
  Result<BoundExpr> r = BindText(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? Status::OK() : r.status();
}

// Evaluates `text` with the named columns set; unnamed columns are NULL.
Truth Eval(std::string_view text, const std::map<std::string, Value>& values) {
  BoundExpr e = B(text);
  std::vector<Value> row;
  for (const BoundColumn& c : e.columns()) {
    auto it = values.find(ColumnPathText(c.path));
    row.push_back(it == values.end() ? Value::Null(c.type) : it->second);
  }
  return EvaluateRow(e, row);
}

constexpr Truth T = Truth::kTrue, F = Truth::kFalse, N = Truth::kNull;

TEST(BindTest, ResolvesColumnsAndListsCloseNames) {
  BoundExpr e = B("st.x = 1 AND amount > 2 AND st.x < 5");
  ASSERT_EQ(e.columns().size(), 2u);
  EXPECT_EQ(e.columns()[0].path, (ColumnPath{"st", "x"}));
  EXPECT_EQ(e.columns()[1].path, (ColumnPath{"Amount"}));  // case-insensitive, canonical
  Status nf = BindError("amout > 1");
  EXPECT_TRUE(nf.IsNotFound());
  EXPECT_EQ(nf.message(), "column 'amout' not found; close names: Amount");
  Status st = BindError("st = 1");
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message(), "column 'st' is a struct; name one of its fields, e.g. st.x, st.y");
}

TEST(BindTest, AmbiguousCaseInsensitiveMatch) {
  ColumnResolver r = ResolverFromColumns({{{"Ab"}, DataType::Of(TypeKind::kInt32)},
                                          {{"aB"}, DataType::Of(TypeKind::kInt64)}});
  Result<BoundExpr> exact = Bind(*Parse("aB = 1"), r);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->columns()[0].type, DataType::Of(TypeKind::kInt64));  // exact match wins
  Result<BoundExpr> amb = Bind(*Parse("ab = 1"), r);
  EXPECT_TRUE(amb.status().IsInvalidArgument());
  EXPECT_EQ(amb.status().message(), "column 'ab' is ambiguous: 'Ab' and 'aB' differ only in case");
}

TEST(BindTest, RejectsDecimalsBeyond38Digits) {
  Result<BoundExpr> r = Bind(*Parse("x = 1"), ResolverFromColumns({{{"x"}, DataType::Decimal(40, 2)}}));
  EXPECT_TRUE(r.status().IsNotSupported());
  EXPECT_EQ(r.status().message(), "column 'x': DECIMAL(40,2) (predicates support up to 38 digits)");
}

TEST(BindTest, NormalizesNotBetweenAndLiteralFirst) {
  EXPECT_EQ(BText("NOT (i < 5)"), "i >= 5");
  EXPECT_EQ(BText("NOT (i = 1 AND s = 'x')"), "i <> 1 OR s <> 'x'");
  EXPECT_EQ(BText("NOT (i IN (3, 1, 3))"), "i NOT IN (1, 3)");
  EXPECT_EQ(BText("NOT i IS NULL"), "i IS NOT NULL");
  EXPECT_EQ(BText("i BETWEEN 1 AND 5"), "i >= 1 AND i <= 5");
  EXPECT_EQ(BText("i NOT BETWEEN 1 AND 5"), "i < 1 OR i > 5");
  EXPECT_EQ(BText("NOT (i NOT BETWEEN 1 AND 5)"), "i >= 1 AND i <= 5");
  EXPECT_EQ(BText("5 < i"), "i > 5");
  EXPECT_EQ(BText("b"), "b = TRUE");
  EXPECT_EQ(BText("NOT b"), "b <> TRUE");
  EXPECT_EQ(BText("i = 1 AND (l = 2 AND s = 'x')"), "i = 1 AND l = 2 AND s = 'x'");
}

TEST(BindTest, FoldsConstants) {
  EXPECT_EQ(BText("i = NULL"), "NULL");
  EXPECT_EQ(BText("1 < 2"), "TRUE");
  EXPECT_EQ(BText("i = 1 AND 2 < 1"), "FALSE");
  EXPECT_EQ(BText("i = 1 OR TRUE"), "TRUE");
  EXPECT_EQ(BText("i = 1 AND TRUE"), "i = 1");
  EXPECT_EQ(BText("NOT NULL"), "NULL");
  EXPECT_EQ(BText("NULL IS NULL"), "TRUE");
  EXPECT_EQ(BText("3 IN (1, 2, NULL)"), "NULL");
  EXPECT_EQ(BText("3 NOT IN (1, 2)"), "TRUE");
}

TEST(BindTest, CoercesLiteralsToColumnTypes) {
  EXPECT_EQ(BText("dt = '2024-01-31'"), "dt = DATE '2024-01-31'");
  EXPECT_EQ(BText("ts >= '2024-01-31 12:00:00'"), "ts >= TIMESTAMP '2024-01-31 12:00:00Z'");
  EXPECT_EQ(BText("ts >= '2024-01-31T13:00:00+01:00'"), "ts >= TIMESTAMP '2024-01-31 12:00:00Z'");
  EXPECT_EQ(BText("ts < DATE '2024-01-31'"), "ts < TIMESTAMP '2024-01-31 00:00:00Z'");
  EXPECT_EQ(BText("ntz = '2024-01-31 12:00:00'"), "ntz = TIMESTAMP_NTZ '2024-01-31 12:00:00'");
  EXPECT_EQ(BText("m = 5"), "m = 5.00");
  EXPECT_EQ(BText("m = 1.5"), "m = 1.50");
  EXPECT_EQ(BText("m < 1.005"), "m < 1.005");  // not representable at scale 2: kept exact
  EXPECT_EQ(BText("m = '12.3'"), "m = 12.30");
  EXPECT_EQ(BText("i = 5.00"), "i = 5");
  EXPECT_EQ(BText("d = 2"), "d = 2E0");
  EXPECT_EQ(BText("d = 0.5"), "d = 0.5E0");
  EXPECT_EQ(BText("d = 9007199254740993"), "d = 9007199254740993");  // kept exact
  EXPECT_EQ(BText("i = '42'"), "i = 42");
  EXPECT_EQ(BText("b = 'true'"), "b = TRUE");
  EXPECT_EQ(BText("bin = 'ab'"), "bin = 'ab'");
  EXPECT_EQ(BText("i = 3000000000"), "i = 3000000000");  // widened, never wrapped
}

TEST(BindTest, RejectsIncomparableTypes) {
  Status s = BindError("s = 5");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "cannot compare STRING column 's' with INT64 literal 5 (quote it to compare as text)");
  EXPECT_EQ(BindError("dt = '2024-13-01'").message(),
            "column 'dt' is DATE: '2024-13-01' is not a valid date (no such day)");
  EXPECT_EQ(BindError("ts = TIMESTAMP_NTZ '2024-01-01 00:00:00'").message(),
            "cannot compare TIMESTAMP column 'ts' with TIMESTAMP_NTZ literal "
            "TIMESTAMP_NTZ '2024-01-01 00:00:00'");
  EXPECT_EQ(BindError("ntz = '2024-01-01 00:00:00Z'").message(),
            "column 'ntz' is TIMESTAMP_NTZ: '2024-01-01 00:00:00Z' has a time zone");
  EXPECT_EQ(BindError("i = 'abc'").message(), "column 'i' is INT32: 'abc' is not a valid number");
  EXPECT_EQ(BindError("i < s").message(), "cannot compare INT32 column 'i' with STRING column 's'");
  EXPECT_EQ(BindError("i").message(), "INT32 column 'i' is not a predicate (compare it with something)");
  EXPECT_EQ(BindError("5").message(), "INT64 literal 5 is not a predicate");
  EXPECT_EQ(BindError("i IN (1, 'x')").message(), "column 'i' is INT32: 'x' is not a valid number");
  EXPECT_EQ(BindError("'a' < 1").message(), "cannot compare STRING literal 'a' with INT64 literal 1");
}

TEST(RowEvalTest, ThreeValuedTruthTables) {
  const Truth all[] = {T, F, N};
  const Truth and_table[3][3] = {{T, F, N}, {F, F, F}, {N, F, N}};
  const Truth or_table[3][3] = {{T, T, T}, {T, F, N}, {T, N, N}};
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      EXPECT_EQ(And(all[a], all[b]), and_table[a][b]);
      EXPECT_EQ(Or(all[a], all[b]), or_table[a][b]);
    }
  }
  EXPECT_EQ(Not(T), F);
  EXPECT_EQ(Not(N), N);
  // The same tables through the row evaluator, with b NULL / TRUE / FALSE as the operands.
  auto val = [](Truth t) {
    return t == N ? Value::Null(DataType::Of(TypeKind::kBoolean)) : Value::Boolean(t == T);
  };
  for (int a = 0; a < 3; ++a) {
    for (int c = 0; c < 3; ++c) {
      Value i8 = all[c] == N ? Value::Null(DataType::Of(TypeKind::kInt8))
                             : Value::Integer(TypeKind::kInt8, all[c] == T ? 1 : 0);
      std::map<std::string, Value> r2 = {{"b", val(all[a])}, {"i8", i8}};
      EXPECT_EQ(Eval("b AND i8 = 1", r2), and_table[a][c]) << a << c;
      EXPECT_EQ(Eval("b OR i8 = 1", r2), or_table[a][c]) << a << c;
      EXPECT_EQ(Eval("NOT (b OR i8 = 1)", r2), Not(or_table[a][c])) << a << c;
    }
  }
}

TEST(RowEvalTest, NullsInComparisonsInAndIsNull) {
  Value i5 = Value::Integer(TypeKind::kInt32, 5);
  EXPECT_EQ(Eval("i = 5", {}), N);
  EXPECT_EQ(Eval("i <> 5", {}), N);
  EXPECT_EQ(Eval("i IS NULL", {}), T);
  EXPECT_EQ(Eval("i IS NOT NULL", {}), F);
  EXPECT_EQ(Eval("i IS NULL", {{"i", i5}}), F);
  EXPECT_EQ(Eval("i IN (1, 5)", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i IN (1, NULL)", {{"i", i5}}), N);
  EXPECT_EQ(Eval("i IN (5, NULL)", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i NOT IN (1, NULL)", {{"i", i5}}), N);
  EXPECT_EQ(Eval("i NOT IN (1, 2)", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i NOT IN (1, 2)", {}), N);
  EXPECT_EQ(Eval("i BETWEEN 1 AND 5", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i NOT BETWEEN 1 AND 4", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i BETWEEN l AND 9", {{"i", i5}}), N);          // l NULL, 5 <= 9
  EXPECT_EQ(Eval("i BETWEEN l AND 4", {{"i", i5}}), F);          // NULL AND FALSE
  EXPECT_EQ(Eval("i < l OR i = 5", {{"i", i5}}), T);
  EXPECT_EQ(Eval("i = l", {{"i", i5}, {"l", Value::Int64(5)}}), T);
}

TEST(RowEvalTest, ExactNumericComparisons) {
  Value i = Value::Integer(TypeKind::kInt32, 2147483647);
  EXPECT_EQ(Eval("i < 3000000000", {{"i", i}}), T);
  EXPECT_EQ(Eval("i > -3000000000", {{"i", i}}), T);
  EXPECT_EQ(Eval("i < 2147483647.5", {{"i", i}}), T);
  EXPECT_EQ(Eval("i = 2147483647.0", {{"i", i}}), T);
  EXPECT_EQ(Eval("l > 9223372036854775807.5", {{"l", Value::Int64(std::numeric_limits<int64_t>::max())}}), F);
  EXPECT_EQ(Eval("l < 99999999999999999999", {{"l", Value::Int64(std::numeric_limits<int64_t>::max())}}), T);
  EXPECT_EQ(Eval("l < 9.3e18", {{"l", Value::Int64(std::numeric_limits<int64_t>::max())}}), T);
  EXPECT_EQ(Eval("d = 9007199254740993", {{"d", Value::Float64(9007199254740992.0)}}), F);
  Value m = Value::Decimal(100, 10, 2);  // 1.00
  EXPECT_EQ(Eval("m = 1", {{"m", m}}), T);
  EXPECT_EQ(Eval("m < 1.005", {{"m", m}}), T);
  EXPECT_EQ(Eval("m > 0.99999999999999999999999999999999", {{"m", m}}), T);
  EXPECT_EQ(Eval("m = 1e0", {{"m", m}}), T);
}

TEST(RowEvalTest, FloatsOrderNaNAboveEverything) {
  Value nan = Value::Float64(std::nan(""));
  EXPECT_EQ(Eval("d > 1e308", {{"d", nan}}), T);
  EXPECT_EQ(Eval("d = DOUBLE 'NaN'", {{"d", nan}}), T);
  EXPECT_EQ(Eval("d < DOUBLE 'Infinity'", {{"d", nan}}), F);
  EXPECT_EQ(Eval("NOT (d < 5)", {{"d", nan}}), T);
  EXPECT_EQ(Eval("d = 0", {{"d", Value::Float64(-0.0)}}), T);
  EXPECT_EQ(Eval("f = 0.5", {{"f", Value::Floating(TypeKind::kFloat32, 0.5)}}), T);
}

TEST(RowEvalTest, StringsBinaryDatesTimestamps) {
  EXPECT_EQ(Eval("s < 'b'", {{"s", Value::String("abc")}}), T);
  EXPECT_EQ(Eval("s > 'z'", {{"s", Value::String("\xc3\xa9")}}), T);  // bytes, unsigned
  EXPECT_EQ(Eval("s = ''", {{"s", Value::String("")}}), T);
  EXPECT_EQ(Eval("bin >= 'a'", {{"bin", Value::Binary(std::string("\x80", 1))}}), T);
  EXPECT_EQ(Eval("dt = '1970-01-02'", {{"dt", Value::Date(1)}}), T);
  EXPECT_EQ(Eval("dt < TIMESTAMP '1970-01-02 00:00:01Z'", {{"dt", Value::Date(1)}}), T);
  EXPECT_EQ(Eval("dt = TIMESTAMP '1970-01-02 00:00:00Z'", {{"dt", Value::Date(1)}}), T);
  EXPECT_EQ(Eval("ts > '1969-12-31 23:59:59.999999'", {{"ts", Value::Timestamp(0)}}), T);
  EXPECT_EQ(Eval("ntz BETWEEN '1970-01-01' AND '1970-01-01 00:00:01'", {{"ntz", Value::TimestampNtz(5)}}), T);
}

}  // namespace
}  // namespace lithify::expr
