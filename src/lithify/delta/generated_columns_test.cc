#include "lithify/delta/generated_columns.h"

#include <gtest/gtest.h>

#include "lithify/base/civil_time.h"
#include "lithify/delta/test_util.h"

namespace lithify::delta {
namespace {

using testing::Field;
using testing::Prim;
using testing::Struct;
using PV = parquet::Value;
using Rows = std::vector<std::vector<PV>>;

StructType Schema(const std::string& json) {
  auto s = ParseSchema(json);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : StructType{};
}

std::string Gen(const std::string& expression) {
  return R"({"delta.generationExpression":")" + expression + R"("})";
}

void ExpectError(const Status& st, StatusCode code, const std::vector<std::string>& parts) {
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), code) << st.ToString();
  for (const auto& p : parts) EXPECT_NE(st.message().find(p), std::string::npos) << p << " not in: " << st.message();
}

int64_t Micros(int64_t y, unsigned m, unsigned d, int64_t hh) {
  return DaysFromCivil(y, m, d) * kMicrosPerDay + hh * 3600 * 1000000LL;
}

TEST(GeneratedColumns, ComputesAbsentValuesAndChecksGivenOnes) {
  StructType s = Schema(Struct({Field("a", Prim("long")), Field("b", Prim("long"), false, Gen("a + 1")),
                                Field("ts", Prim("timestamp")),
                                Field("day", Prim("date"), true, Gen("CAST(ts AS DATE)")),
                                Field("h", Prim("long"), true, Gen("HOUR(ts)"))}));  // INT widened to BIGINT
  auto g = GeneratedColumns::Make(s);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_FALSE(g->empty());
  EXPECT_TRUE(g->InputSchema(s).fields[1].nullable);
  const int64_t ts = Micros(2024, 2, 29, 23);
  Rows rows = {{PV::Int(1), PV::Null(), PV::Int(ts), PV::Null(), PV::Null()},
               {PV::Int(5), PV::Int(6), PV::Int(ts), PV::Int(DaysFromCivil(2024, 2, 29)), PV::Int(23)},
               {PV::Null(), PV::Null(), PV::Null(), PV::Null(), PV::Null()}};
  ASSERT_TRUE(g->Apply(&rows, 1).ok());
  EXPECT_EQ(rows[0][1].int_value(), 2);
  EXPECT_EQ(rows[0][3].int_value(), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(rows[0][4].int_value(), 23);
  EXPECT_EQ(rows[1][1].int_value(), 6);
  EXPECT_TRUE(rows[2][1].is_null());  // NULL in, NULL out
  EXPECT_TRUE(rows[2][3].is_null());

  Rows bad = {{PV::Int(1), PV::Null(), PV::Null(), PV::Null(), PV::Null()},
              {PV::Int(1), PV::Int(5), PV::Null(), PV::Null(), PV::Null()}};
  ExpectError(g->Apply(&bad, 10), StatusCode::kInvalidArgument,
              {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint Generated Column (b <=> a + 1) violated by "
               "row 11 with values: b : 5, a : 1"});
  // A given value where the expression gives NULL violates `b <=> a + 1` too.
  Rows given_for_null = {{PV::Null(), PV::Int(5), PV::Null(), PV::Null(), PV::Null()}};
  ExpectError(g->Apply(&given_for_null, 1), StatusCode::kInvalidArgument, {"b : 5, a : null"});
  // The generator's rows: every value replaced.
  Rows generated = {{PV::Int(7), PV::Int(99), PV::Int(ts), PV::Int(0), PV::Int(0)}};
  ASSERT_TRUE(g->Apply(&generated, 1, /*replace_explicit=*/true).ok());
  EXPECT_EQ(generated[0][1].int_value(), 8);
  EXPECT_EQ(generated[0][3].int_value(), DaysFromCivil(2024, 2, 29));
}

TEST(GeneratedColumns, StringsAndOverflow) {
  StructType s = Schema(Struct({Field("a", Prim("long")), Field("name", Prim("string")),
                                Field("p", Prim("string"), true, Gen("lower(substr(name, 1, 2))")),
                                Field("n", Prim("long"), true, Gen("a * 2"))}));
  auto g = GeneratedColumns::Make(s);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Rows rows = {{PV::Int(3), PV::String("ABC"), PV::Null(), PV::Null()}};
  ASSERT_TRUE(g->Apply(&rows, 1).ok());
  EXPECT_EQ(rows[0][2].bytes(), "ab");
  EXPECT_EQ(rows[0][3].int_value(), 6);
  Rows overflow = {{PV::Int(int64_t{1} << 62), PV::String("x"), PV::Null(), PV::Null()}};
  ExpectError(g->Apply(&overflow, 4), StatusCode::kInvalidArgument,
              {"generated column n (GENERATED ALWAYS AS (a * 2)): row 4", "overflows BIGINT"});
}

TEST(GeneratedColumns, UnsupportedExpressionsRefuseNamingTheColumn) {
  auto refused = [](const std::string& schema, const std::vector<std::string>& parts) {
    auto g = GeneratedColumns::Make(Schema(schema));
    ASSERT_FALSE(g.ok());
    ExpectError(g.status(), StatusCode::kNotSupported, parts);
  };
  refused(Struct({Field("a", Prim("long")), Field("b", Prim("long"), true, Gen("a % 2"))}),
          {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature generatedColumns (column b GENERATED ALWAYS AS "
           "(a % 2))",
           "lithify cannot compute this generation expression"});
  // The expression's type must be the column's (integers may widen, never narrow).
  refused(Struct({Field("a", Prim("long")), Field("b", Prim("integer"), true, Gen("a + 1"))}),
          {"column b", "BIGINT is not the column's type INT"});
  refused(Struct({Field("ts", Prim("timestamp")), Field("b", Prim("string"), true, Gen("CAST(ts AS DATE)"))}),
          {"column b", "DATE is not the column's type STRING"});
  refused(Struct({Field("a", Prim("long")), Field("b", Prim("long"), true, Gen("a + 1")),
                  Field("c", Prim("long"), true, Gen("b + 1"))}),
          {"column c", "reads the generated column b"});
  refused(Struct({Field("st", Struct({Field("x", Prim("long"), true, Gen("1"))}))}), {"column st", "nested"});
  refused(Struct({Field("d", Prim("double")), Field("b", Prim("long"), true, Gen("d"))}),
          {"column b", "column d of type DOUBLE"});
  // No generated column: nothing to do.
  auto none = GeneratedColumns::Make(Schema(Struct({Field("a", Prim("long"))})));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace lithify::delta
