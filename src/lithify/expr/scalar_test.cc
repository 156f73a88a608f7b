#include "lithify/expr/scalar.h"

#include <gtest/gtest.h>

#include "lithify/base/civil_time.h"

namespace lithify::expr {
namespace {

const DataType kInt = DataType::Of(TypeKind::kInt32);
const DataType kLong = DataType::Of(TypeKind::kInt64);
const DataType kStr = DataType::Of(TypeKind::kString);
const DataType kDate = DataType::Of(TypeKind::kDate);

// Columns: a BIGINT, i INT, t TINYINT, s STRING, d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,
// f DOUBLE, `Event Time` TIMESTAMP, flag BOOLEAN.
std::vector<ScalarColumn> Columns() {
  return {{"a", kLong},
          {"i", kInt},
          {"t", DataType::Of(TypeKind::kInt8)},
          {"s", kStr},
          {"d", kDate},
          {"ts", DataType::Of(TypeKind::kTimestamp)},
          {"ntz", DataType::Of(TypeKind::kTimestampNtz)},
          {"f", DataType::Of(TypeKind::kFloat64)},
          {"Event Time", DataType::Of(TypeKind::kTimestamp)},
          {"flag", DataType::Of(TypeKind::kBoolean)}};
}

struct Row {
  Value a = Value::Null(kLong), i = Value::Null(kInt), t = Value::Null(DataType::Of(TypeKind::kInt8)),
        s = Value::Null(kStr), d = Value::Null(kDate), ts = Value::Null(DataType::Of(TypeKind::kTimestamp)),
        ntz = Value::Null(DataType::Of(TypeKind::kTimestampNtz)), f = Value::Null(DataType::Of(TypeKind::kFloat64)),
        et = Value::Null(DataType::Of(TypeKind::kTimestamp)), flag = Value::Null(DataType::Of(TypeKind::kBoolean));
  std::vector<Value> values() const { return {a, i, t, s, d, ts, ntz, f, et, flag}; }
};

int64_t Micros(int64_t y, unsigned m, unsigned d, int64_t hh = 0, int64_t mm = 0, int64_t ss = 0, int64_t us = 0) {
  return DaysFromCivil(y, m, d) * kMicrosPerDay + ((hh * 60 + mm) * 60 + ss) * 1000000 + us;
}

ScalarExpr Compiled(const std::string& text) {
  auto e = ScalarExpr::Compile(text, Columns());
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
  if (!e.ok()) return *ScalarExpr::Compile("NULL", Columns());
  return *e;
}

Value Eval(const std::string& text, const Row& r) {
  ScalarExpr e = Compiled(text);
  auto v = e.Evaluate(r.values());
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : Value();
}

void ExpectRefusedAtCompile(const std::string& text, const std::string& part) {
  auto e = ScalarExpr::Compile(text, Columns());
  ASSERT_FALSE(e.ok()) << text << " compiled";
  EXPECT_TRUE(e.status().IsNotSupported()) << e.status().ToString();
  EXPECT_NE(e.status().message().find(part), std::string::npos) << text << ": " << e.status().ToString();
}

void ExpectRefusedAtEval(const std::string& text, const Row& r, const std::string& part) {
  ScalarExpr e = Compiled(text);
  auto v = e.Evaluate(r.values());
  ASSERT_FALSE(v.ok()) << text << " evaluated";
  EXPECT_TRUE(v.status().IsInvalidArgument()) << v.status().ToString();
  EXPECT_NE(v.status().message().find(part), std::string::npos) << text << ": " << v.status().ToString();
}

TEST(ScalarExpr, ColumnsAndIntegerArithmetic) {
  Row r;
  r.a = Value::Int64(41);
  r.i = Value::Integer(TypeKind::kInt32, 7);
  r.t = Value::Integer(TypeKind::kInt8, 3);
  EXPECT_EQ(Eval("a + 1", r), Value::Int64(42));
  EXPECT_EQ(Compiled("a + 1").type(), kLong);
  EXPECT_EQ(Eval("i * 2 - 4", r), Value::Integer(TypeKind::kInt32, 10));
  EXPECT_EQ(Compiled("i + 1").type(), kInt);
  EXPECT_EQ(Eval("i + 1L", r), Value::Int64(8));  // L makes a BIGINT literal
  // TINYINT + INT literal widens to INT; precedence and parentheses.
  EXPECT_EQ(Eval("t + 1", r), Value::Integer(TypeKind::kInt32, 4));
  EXPECT_EQ(Eval("2 + 3 * t", r), Value::Integer(TypeKind::kInt32, 11));
  EXPECT_EQ(Eval("(2 + 3) * t", r), Value::Integer(TypeKind::kInt32, 15));
  EXPECT_EQ(Eval("-a", r), Value::Int64(-41));
  EXPECT_EQ(Eval("a - -1", r), Value::Int64(42));
  // Case-insensitive names, back quotes.
  EXPECT_EQ(Eval("A + `i`", r), Value::Int64(48));
  EXPECT_EQ(Compiled("a + i * t").referenced_columns(), (std::vector<int>{0, 1, 2}));
  // A literal beyond INT is a BIGINT.
  EXPECT_EQ(Compiled("2147483648").type(), kLong);
  EXPECT_EQ(Compiled("-2147483648").type(), kInt);
  // NULL in, NULL out.
  Row n;
  EXPECT_EQ(Eval("a + 1", n), Value::Null(kLong));
  EXPECT_EQ(Eval("a + NULL", r), Value::Null(kLong));
}

TEST(ScalarExpr, OverflowIsRefused) {
  Row r;
  r.a = Value::Int64(std::numeric_limits<int64_t>::max());
  r.i = Value::Integer(TypeKind::kInt32, std::numeric_limits<int32_t>::max());
  r.t = Value::Integer(TypeKind::kInt8, -128);
  ExpectRefusedAtEval("a + 1", r, "overflows BIGINT");
  ExpectRefusedAtEval("i + 1", r, "overflows INT");  // INT + INT stays INT in Spark
  EXPECT_EQ(Eval("i + 1L", r), Value::Int64(2147483648LL));
  ExpectRefusedAtEval("a * 2", r, "overflows");
  ExpectRefusedAtEval("0 - a - 2", r, "overflows");
  r.a = Value::Int64(std::numeric_limits<int64_t>::min());
  ExpectRefusedAtEval("-a", r, "overflows");
  ExpectRefusedAtEval("CAST(i AS SMALLINT)", r, "out of range");
  EXPECT_EQ(Eval("CAST(t AS SMALLINT)", r), Value::Integer(TypeKind::kInt16, -128));
  ExpectRefusedAtCompile("99999999999999999999", "BIGINT range");
}

TEST(ScalarExpr, DatesFromTimestampsInUtc) {
  Row r;
  // 2024-02-29 23:30 UTC: still the 29th in UTC (a session zone east of UTC would say March 1st).
  r.ts = Value::Timestamp(Micros(2024, 2, 29, 23, 30));
  r.ntz = Value::TimestampNtz(Micros(2023, 12, 31, 5, 6, 7));
  EXPECT_EQ(Eval("CAST(ts AS DATE)", r), Value::Date(static_cast<int32_t>(DaysFromCivil(2024, 2, 29))));
  EXPECT_EQ(Eval("to_date(ts)", r), Value::Date(static_cast<int32_t>(DaysFromCivil(2024, 2, 29))));
  EXPECT_EQ(Eval("YEAR(ts)", r), Value::Integer(TypeKind::kInt32, 2024));
  EXPECT_EQ(Eval("month(ts)", r), Value::Integer(TypeKind::kInt32, 2));
  EXPECT_EQ(Eval("DAY(ts)", r), Value::Integer(TypeKind::kInt32, 29));
  EXPECT_EQ(Eval("dayofmonth(ts)", r), Value::Integer(TypeKind::kInt32, 29));
  EXPECT_EQ(Eval("HOUR(ts)", r), Value::Integer(TypeKind::kInt32, 23));
  EXPECT_EQ(Eval("HOUR(ntz)", r), Value::Integer(TypeKind::kInt32, 5));
  EXPECT_EQ(Eval("CAST(ntz AS DATE)", r), Value::Date(static_cast<int32_t>(DaysFromCivil(2023, 12, 31))));
  EXPECT_EQ(Eval("CAST(`Event Time` AS DATE)", r), Value::Null(kDate));
  // Before the epoch: days round toward negative infinity, hours stay in 0..23.
  r.ts = Value::Timestamp(Micros(1969, 12, 31, 23, 59, 59, 999999));
  EXPECT_EQ(Eval("CAST(ts AS DATE)", r), Value::Date(-1));
  EXPECT_EQ(Eval("HOUR(ts)", r), Value::Integer(TypeKind::kInt32, 23));
  // Negative (astronomical) years: year 0 is 1 BC.
  r.ts = Value::Timestamp(Micros(-44, 3, 15, 12));
  EXPECT_EQ(Eval("YEAR(ts)", r), Value::Integer(TypeKind::kInt32, -44));
  EXPECT_EQ(Eval("MONTH(ts)", r), Value::Integer(TypeKind::kInt32, 3));
  r.d = Value::Date(static_cast<int32_t>(DaysFromCivil(2000, 2, 29)));
  EXPECT_EQ(Eval("YEAR(d) * 10000 + MONTH(d) * 100 + DAY(d)", r), Value::Integer(TypeKind::kInt32, 20000229));
  Row n;
  EXPECT_EQ(Eval("YEAR(ts)", n), Value::Null(kInt));
  EXPECT_EQ(Eval("HOUR(ts)", n), Value::Null(kInt));
}

TEST(ScalarExpr, CastsAndDateFormat) {
  Row r;
  r.a = Value::Int64(-12);
  r.d = Value::Date(static_cast<int32_t>(DaysFromCivil(2024, 2, 29)));
  r.ts = Value::Timestamp(Micros(2024, 3, 1, 4, 5, 6, 120000));
  r.s = Value::String("2023-02-28");
  r.flag = Value::Boolean(true);
  EXPECT_EQ(Eval("CAST(a AS STRING)", r), Value::String("-12"));
  EXPECT_EQ(Eval("CAST(d AS STRING)", r), Value::String("2024-02-29"));
  EXPECT_EQ(Eval("CAST(ts AS STRING)", r), Value::String("2024-03-01 04:05:06.12"));
  EXPECT_EQ(Eval("CAST(flag AS STRING)", r), Value::String("true"));
  EXPECT_EQ(Eval("CAST(s AS DATE)", r), Value::Date(static_cast<int32_t>(DaysFromCivil(2023, 2, 28))));
  EXPECT_EQ(Eval("CAST('-17' AS INT)", r), Value::Integer(TypeKind::kInt32, -17));
  EXPECT_EQ(Eval("CAST(DATE '2024-02-29' AS STRING)", r), Value::String("2024-02-29"));
  EXPECT_EQ(Eval("CAST(NULL AS DATE)", r), Value::Null(kDate));
  EXPECT_EQ(Eval("DATE_FORMAT(ts, 'yyyy-MM-dd')", r), Value::String("2024-03-01"));
  EXPECT_EQ(Eval("date_format(ts, 'yyyyMM')", r), Value::String("202403"));
  EXPECT_EQ(Eval("DATE_FORMAT(ts, 'yyyy/MM/dd HH:mm:ss')", r), Value::String("2024/03/01 04:05:06"));
  EXPECT_EQ(Eval("DATE_FORMAT(d, 'yyyy-MM-dd HH')", r), Value::String("2024-02-29 00"));
  // Text Spark reads leniently or as NULL depending on its settings is refused, not guessed.
  r.s = Value::String("2023-02-29");  // no such day
  ExpectRefusedAtEval("CAST(s AS DATE)", r, "YYYY-MM-DD");
  r.s = Value::String("2023-2-3");
  ExpectRefusedAtEval("TO_DATE(s)", r, "YYYY-MM-DD");
  r.s = Value::String(" 12");
  ExpectRefusedAtEval("CAST(s AS INT)", r, "[+-]digits");
  ExpectRefusedAtEval("CAST('300' AS TINYINT)", r, "[+-]digits");
  // Years whose text form Spark writes differently.
  r.d = Value::Date(static_cast<int32_t>(DaysFromCivil(10000, 1, 1)));
  ExpectRefusedAtEval("CAST(d AS STRING)", r, "1..9999");
  ExpectRefusedAtEval("DATE_FORMAT(d, 'yyyy')", r, "1..9999");
  r.d = Value::Date(static_cast<int32_t>(DaysFromCivil(0, 1, 1)));
  ExpectRefusedAtEval("CAST(d AS STRING)", r, "1..9999");
}

TEST(ScalarExpr, StringFunctions) {
  Row r;
  r.s = Value::String("Hello");
  r.a = Value::Int64(5);
  EXPECT_EQ(Eval("SUBSTRING(s, 1, 3)", r), Value::String("Hel"));
  EXPECT_EQ(Eval("substr(s, 0, 2)", r), Value::String("He"));  // 0 counts as 1
  EXPECT_EQ(Eval("SUBSTR(s, -3, 2)", r), Value::String("ll"));
  EXPECT_EQ(Eval("SUBSTR(s, -7, 3)", r), Value::String("H"));  // end = -2 + 3 before clamping
  EXPECT_EQ(Eval("SUBSTR(s, 3)", r), Value::String("llo"));
  EXPECT_EQ(Eval("SUBSTR(s, 9, 2)", r), Value::String(""));
  EXPECT_EQ(Eval("SUBSTR(s, 2, -1)", r), Value::String(""));
  EXPECT_EQ(Eval("SUBSTRING(a, 1, 1)", r), Value::String("5"));  // implicit CAST to STRING
  r.s = Value::String("h\xC3\xA9llo\xE2\x82\xAC");  // "héllo€": positions count characters
  EXPECT_EQ(Eval("SUBSTR(s, 2, 1)", r), Value::String("\xC3\xA9"));
  EXPECT_EQ(Eval("SUBSTR(s, -1)", r), Value::String("\xE2\x82\xAC"));
  ExpectRefusedAtEval("LOWER(s)", r, "not ASCII");
  r.s = Value::String("\xFF" "a");
  ExpectRefusedAtEval("SUBSTR(s, 1, 1)", r, "UTF-8");
  r.s = Value::String("MiXed 1");
  EXPECT_EQ(Eval("LOWER(s)", r), Value::String("mixed 1"));
  EXPECT_EQ(Eval("upper(s)", r), Value::String("MIXED 1"));
  EXPECT_EQ(Eval("CONCAT(s, '-', a, \"!\")", r), Value::String("MiXed 1-5!"));
  EXPECT_EQ(Eval("CONCAT(YEAR(DATE '2024-01-02'), '/', 'x')", r), Value::String("2024/x"));
  Row n;
  n.s = Value::String("x");
  EXPECT_EQ(Eval("CONCAT(s, a)", n), Value::Null(kStr));
  EXPECT_EQ(Eval("SUBSTR(s, i)", n), Value::Null(kStr));
  ExpectRefusedAtCompile("SUBSTR(s, a)", "BIGINT is not supported (INT only)");
  EXPECT_EQ(Eval("UPPER(a)", n), Value::Null(kStr));
}

TEST(ScalarExpr, UnsupportedShapesAreRefused) {
  ExpectRefusedAtCompile("a / 2", "'/' is not supported");
  ExpectRefusedAtCompile("a % 2", "'%' is not supported");
  ExpectRefusedAtCompile("a + 1.5", "integer literals");
  ExpectRefusedAtCompile("f + 1", "column f of type DOUBLE");
  ExpectRefusedAtCompile("s + 1", "STRING + INT");
  ExpectRefusedAtCompile("d + 1", "DATE + INT");
  ExpectRefusedAtCompile("date_add(d, 1)", "function date_add");
  ExpectRefusedAtCompile("CAST(ts AS TIMESTAMP)", "CAST to TIMESTAMP");
  ExpectRefusedAtCompile("CAST(d AS INT)", "CAST from DATE to INT");
  ExpectRefusedAtCompile("TO_DATE(s, 'yyyyMMdd')", "TO_DATE with 2");
  ExpectRefusedAtCompile("DATE_FORMAT(ts, 'yy-MM')", "'yy'");
  ExpectRefusedAtCompile("DATE_FORMAT(ts, 'yyyy-MM-dd''T''HH')", "adjacent");
  ExpectRefusedAtCompile("DATE_FORMAT(ts, 'EEE')", "'EEE'");
  ExpectRefusedAtCompile("DATE_FORMAT(ts, s)", "string literal pattern");
  ExpectRefusedAtCompile("HOUR(d)", "HOUR of DATE");
  ExpectRefusedAtCompile("YEAR(s)", "YEAR of STRING");
  ExpectRefusedAtCompile("SUBSTR(s, a, 1)", "INT only");
  ExpectRefusedAtCompile("'a\\'b'", "backslash");
  ExpectRefusedAtCompile("nope + 1", "column nope does not exist");
  ExpectRefusedAtCompile("a.b", "'.'");
  ExpectRefusedAtCompile("a +", "end of the expression");
  ExpectRefusedAtCompile("a 1", "unexpected text");
  ExpectRefusedAtCompile("CASE WHEN a > 0 THEN 1 END", "'>' is not supported");
  ExpectRefusedAtCompile(std::string(100, '(') + "a" + std::string(100, ')'), "nested too deeply");
  // Two columns that differ only in case are ambiguous for Spark.
  auto e = ScalarExpr::Compile("x + 1", {{"x", kLong}, {"X", kLong}});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("ambiguous"), std::string::npos);
}

}  // namespace
}  // namespace lithify::expr
