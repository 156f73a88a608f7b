#include "lithify/delta/write_gate.h"

#include <gtest/gtest.h>

#include "lithify/delta/row_constraints.h"
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

void ExpectError(const Status& st, StatusCode code, const std::vector<std::string>& parts) {
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), code) << st.ToString();
  for (const auto& p : parts) EXPECT_NE(st.message().find(p), std::string::npos) << p << " not in: " << st.message();
}

TEST(WriteGate, VerdictTable) {
  using Op = WriteOperation;
  using V = FeatureVerdict;
  EXPECT_EQ(VerdictFor("appendOnly", Op::kAppend), V::kAllowed);
  EXPECT_EQ(VerdictFor("appendOnly", Op::kDeleteDv), V::kRefused);
  EXPECT_EQ(VerdictFor("appendOnly", Op::kDeleteCopyOnWrite), V::kRefused);
  EXPECT_EQ(VerdictFor("appendOnly", Op::kRewrite), V::kAllowed);
  for (const char* f : {"checkConstraints", "invariants"}) {
    EXPECT_EQ(VerdictFor(f, Op::kAppend), V::kEnforced) << f;
  }
  for (const char* f : {"generatedColumns", "identityColumns", "allowColumnDefaults"}) {
    EXPECT_EQ(VerdictFor(f, Op::kAppend), V::kRefused) << f;
  }
  // Operations that create no values stay allowed under every data feature.
  for (const char* f : {"checkConstraints", "invariants", "generatedColumns", "identityColumns"}) {
    for (Op op : {Op::kDeleteDv, Op::kDeleteCopyOnWrite, Op::kRewrite, Op::kAlter, Op::kCheckpoint, Op::kVacuum}) {
      EXPECT_EQ(VerdictFor(f, op), V::kAllowed) << f << " " << WriteOperationName(op);
    }
  }
  EXPECT_EQ(VerdictFor("deletionVectors", Op::kAppend), V::kAllowed);
}

TEST(WriteGate, FeaturesInUseFromSchemaAndProperties) {
  StructType s = Schema(Struct({
      Field("id", Prim("long"), true, R"({"delta.identity.start":1,"delta.identity.step":1})"),
      Field("g", Prim("long"), true, R"({"delta.generationExpression":"id * 2"})"),
      Field("st", Struct({Field("x", Prim("integer"), true,
                                R"({"delta.invariants":"{\"expression\":{\"expression\":\"st.x > 3\"}}"})")})),
  }));
  auto uses = FeaturesInUse(s, {{"delta.appendOnly", "TRUE"}, {"delta.constraints.positive", "id > 0"}});
  std::vector<std::string> names;
  for (const auto& u : uses) names.push_back(u.feature);
  EXPECT_EQ(names, (std::vector<std::string>{"appendOnly", "identityColumns", "generatedColumns", "invariants",
                                             "checkConstraints"}));
  EXPECT_NE(uses[2].detail.find("column g GENERATED ALWAYS AS (id * 2)"), std::string::npos) << uses[2].detail;
  EXPECT_NE(uses[3].detail.find("st.x"), std::string::npos);
  // A protocol that merely supports the features, with nothing in use, constrains nothing.
  EXPECT_TRUE(FeaturesInUse(Schema(Struct({Field("id", Prim("long"))})), {}).empty());
  EXPECT_TRUE(FeaturesInUse(Schema(Struct({Field("id", Prim("long"))})), {{"delta.appendOnly", "false"}}).empty());
}

TEST(WriteGate, RefusalsNameTheFeature) {
  StructType ident = Schema(Struct({Field("id", Prim("long"), true, R"({"delta.identity.highWaterMark":10})")}));
  ExpectError(CheckWriteOperation(ident, {}, WriteOperation::kAppend), StatusCode::kNotSupported,
              {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "identityColumns", "column id"});
  EXPECT_TRUE(CheckWriteOperation(ident, {}, WriteOperation::kDeleteDv).ok());
  EXPECT_TRUE(CheckWriteOperation(ident, {}, WriteOperation::kRewrite).ok());
  StructType gen = Schema(Struct({Field("a", Prim("long")),
                                  Field("b", Prim("long"), true, R"({"delta.generationExpression":"a + 1"})")}));
  ExpectError(CheckWriteOperation(gen, {}, WriteOperation::kAppend), StatusCode::kNotSupported,
              {"generatedColumns", "column b GENERATED ALWAYS AS (a + 1)"});
  StructType plain = Schema(Struct({Field("a", Prim("long"))}));
  ExpectError(CheckWriteOperation(plain, {{"delta.appendOnly", "true"}}, WriteOperation::kDeleteCopyOnWrite),
              StatusCode::kInvalidArgument, {"DELTA_CANNOT_MODIFY_APPEND_ONLY", "append-only"});
  EXPECT_TRUE(CheckWriteOperation(plain, {{"delta.appendOnly", "true"}}, WriteOperation::kAppend).ok());
  // Constraints are enforced, not refused, by the gate.
  EXPECT_TRUE(CheckWriteOperation(plain, {{"delta.constraints.c", "a > 0"}}, WriteOperation::kAppend).ok());
}

TEST(RowConstraints, CheckConstraintWithSqlNullSemantics) {
  StructType s = Schema(Struct({Field("x", Prim("long")), Field("name", Prim("string"))}));
  auto c = RowConstraintChecker::Make(s, {{"delta.constraints.positive", "x > 0"}, {"other", "x"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->size(), 1u);
  EXPECT_TRUE(c->Check(Rows{{PV::Int(5), PV::String("a")}, {PV::Null(), PV::Null()}}, 1).ok());  // NULL passes
  Status st = c->Check(Rows{{PV::Int(1), PV::Null()}, {PV::Int(-5), PV::String("b")}}, 10);
  ExpectError(st, StatusCode::kInvalidArgument,
              {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "CHECK constraint positive (x > 0)", "row 11", "x : -5"});
  ExpectError(c->Check(Rows{{PV::Int(0), PV::Null()}}, 1), StatusCode::kInvalidArgument, {"x : 0"});
}

TEST(RowConstraints, EveryOperatorAndTypeOfTheLanguage) {
  StructType s = Schema(Struct({
      Field("d", Prim("date")), Field("amount", Prim("decimal(10,2)")), Field("f", Prim("float")),
      Field("s", Prim("string")), Field("b", Prim("boolean")), Field("ts", Prim("timestamp")),
      Field("st", Struct({Field("Inner", Prim("integer"))})),
  }));
  std::map<std::string, std::string> config = {
      {"delta.constraints.recent", "d >= DATE '2020-01-01'"},
      {"delta.constraints.amount", "amount BETWEEN 0 AND 100.50"},
      {"delta.constraints.kinds", "s IN ('a', 'b') OR s IS NULL"},
      {"delta.constraints.flag", "b"},
      {"delta.constraints.cmp", "NOT (f > 1.5)"},
      {"delta.constraints.nested", "ST.inner <> 7"},  // case-insensitive, as Spark
      {"delta.constraints.ts", "ts < TIMESTAMP '2100-01-01 00:00:00Z'"},
  };
  auto c = RowConstraintChecker::Make(s, config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto row = [](int32_t day, int64_t cents, double f, const char* str, bool b, int64_t ts, PV st) {
    return std::vector<PV>{PV::Int(day), PV::Decimal(cents), PV::Double(f), str ? PV::String(str) : PV::Null(),
                           PV::Bool(b), PV::Int(ts), std::move(st)};
  };
  const int32_t day2021 = 18628;  // 2021-01-01
  EXPECT_TRUE(c->Check(Rows{row(day2021, 10050, 1.5, "a", true, 0, PV::Struct({PV::Int(1)})),
                            row(day2021, 0, -1, nullptr, true, 0, PV::Null())},
                       1)
                  .ok());
  ExpectError(c->Check(Rows{row(day2021, 10051, 0, "a", true, 0, PV::Null())}, 1), StatusCode::kInvalidArgument,
              {"CHECK constraint amount", "amount : 100.51"});
  ExpectError(c->Check(Rows{row(day2021, 1, 0, "c", true, 0, PV::Null())}, 1), StatusCode::kInvalidArgument,
              {"CHECK constraint kinds"});
  ExpectError(c->Check(Rows{row(day2021, 1, 0, "a", false, 0, PV::Null())}, 1), StatusCode::kInvalidArgument,
              {"CHECK constraint flag"});
  ExpectError(c->Check(Rows{row(day2021, 1, 1.75, "a", true, 0, PV::Null())}, 1), StatusCode::kInvalidArgument,
              {"CHECK constraint cmp"});
  ExpectError(c->Check(Rows{row(day2021, 1, 0, "a", true, 0, PV::Struct({PV::Int(7)}))}, 1),
              StatusCode::kInvalidArgument, {"CHECK constraint nested", "st.Inner : 7"});
  ExpectError(c->Check(Rows{row(100, 1, 0, "a", true, 0, PV::Null())}, 1), StatusCode::kInvalidArgument,
              {"CHECK constraint recent"});
}

TEST(RowConstraints, InvariantsFromFieldMetadata) {
  StructType s = Schema(Struct({Field("x", Prim("integer"), true,
                                      R"({"delta.invariants":"{\"expression\":{\"expression\":\"x > 3\"}}"})")}));
  auto c = RowConstraintChecker::Make(s, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->Check(Rows{{PV::Int(4)}, {PV::Null()}}, 1).ok());
  ExpectError(c->Check(Rows{{PV::Int(3)}}, 1), StatusCode::kInvalidArgument,
              {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "invariant on column x (x > 3)", "x : 3"});
  // Metadata that is not the documented JSON refuses the write.
  StructType bad = Schema(Struct({Field("x", Prim("integer"), true, R"({"delta.invariants":"x > 3"})")}));
  ExpectError(RowConstraintChecker::Make(bad, {}).status(), StatusCode::kNotSupported,
              {"table feature invariants", "invariant on column x"});
}

TEST(RowConstraints, ExpressionsLithifyCannotEvaluateRefuseTheWrite) {
  StructType s = Schema(Struct({Field("x", Prim("long")), Field("arr", R"({"type":"array","elementType":"long","containsNull":true})")}));
  for (const char* e : {"x + 1 > 0", "length(x) > 0", "x > 0 AND", "nosuch > 0", "arr IS NULL", "x"}) {
    auto c = RowConstraintChecker::Make(s, {{"delta.constraints.c", e}});
    ExpectError(c.status(), StatusCode::kNotSupported,
                {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "table feature checkConstraints", "CHECK constraint c",
                 std::string("(") + e + ")", "cannot be evaluated by lithify"});
  }
}

TEST(RowConstraints, NoChecksIsEmpty) {
  auto c = RowConstraintChecker::Make(Schema(Struct({Field("x", Prim("long"))})), {{"delta.appendOnly", "true"}});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->empty());
  EXPECT_TRUE(c->Check(Rows{{PV::Int(-1)}}, 1).ok());
}

}  // namespace
}  // namespace lithify::delta
