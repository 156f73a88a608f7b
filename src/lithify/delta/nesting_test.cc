// Deep nesting in Delta input (issue 14): commit lines, schema strings and DDL refuse
// more than the shared limits (base/nesting.h) cleanly, before a tree is built, and
// accept everything up to them; the limits agree with each other, so a schema at the
// type limit survives DDL -> schemaString -> ParseSchema.
#include <gtest/gtest.h>

#include <string>

#include "lithify/base/nesting.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/json_util.h"
#include "lithify/delta/schema.h"

namespace lithify::delta {
namespace {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

bool Mentions(const Status& st, std::string_view text) {
  return st.message().find(text) != std::string::npos;
}

// A commitInfo whose "x" holds `n - 2` nested arrays: n levels in all.
std::string CommitInfoLine(int n) {
  return R"({"commitInfo":{"x":)" + Repeat("[", n - 2) + Repeat("]", n - 2) + "}}";
}

TEST(NestingTest, JsonDocumentsUpToTheLimit) {
  EXPECT_TRUE(json::Parse(Repeat("[", kMaxJsonNesting) + Repeat("]", kMaxJsonNesting)).ok());
  for (int n : {kMaxJsonNesting + 1, 20000, 100000}) {
    for (const std::string& text : {Repeat("[", n) + Repeat("]", n), Repeat("{\"a\":", n) + "1" + Repeat("}", n),
                                    Repeat("[", n)}) {
      Result<json::Json> r = json::Parse(text);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_TRUE(r.status().IsCorruption());
      EXPECT_TRUE(Mentions(r.status(), "JSON nested deeper than 1000 levels")) << r.status().message();
    }
  }
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(json::Parse("[\"" + Repeat("[", 5000) + "\\\"\"]").ok());
}

TEST(NestingTest, CommitLinesNameTheFile) {
  Result<std::optional<Action>> ok = ParseActionLine(CommitInfoLine(kMaxJsonNesting));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  for (int n : {kMaxJsonNesting + 1, 100000}) {
    Result<std::vector<Action>> r =
        ParseCommitFile("{}\n" + CommitInfoLine(n) + "\n", "_delta_log/00000000000000000003.json");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_TRUE(Mentions(r.status(), "_delta_log/00000000000000000003.json line 2")) << r.status().message();
    EXPECT_TRUE(Mentions(r.status(), "nested deeper than 1000 levels")) << r.status().message();
  }
}

// `n` levels of type: n - 1 arrays around an int, as DDL.
std::string DdlArrays(int n) { return "a " + Repeat("array<", n - 1) + "int" + Repeat(">", n - 1); }
std::string DdlStructs(int n) { return "a " + Repeat("struct<b: ", n - 1) + "int" + Repeat(">", n - 1); }
std::string DdlMaps(int n) { return "a " + Repeat("map<string, ", n - 1) + "int" + Repeat(">", n - 1); }

TEST(NestingTest, DdlTypesUpToTheLimitRoundTripThroughSchemaJson) {
  for (const std::string& ddl : {DdlArrays(kMaxTypeNesting), DdlStructs(kMaxTypeNesting), DdlMaps(kMaxTypeNesting)}) {
    Result<StructType> s = ParseSchemaDdl(ddl);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    // The schema string of the deepest type stays within the JSON limit.
    Result<StructType> back = ParseSchema(SchemaToJson(*s));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(SameType(*back, *s));
  }
}

TEST(NestingTest, DdlDeeperThanTheLimitIsRefused) {
  for (int n : {kMaxTypeNesting + 1, 20000, 100000}) {
    for (const std::string& ddl : {DdlArrays(n), DdlStructs(n), DdlMaps(n), "a " + Repeat("array<", n)}) {
      Result<StructType> r = ParseSchemaDdl(ddl);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
      EXPECT_TRUE(Mentions(r.status(), "schema DDL: at position")) << r.status().message();
      EXPECT_TRUE(Mentions(r.status(), "type nested deeper than 100 levels")) << r.status().message();
    }
  }
}

// A schema string with `n` levels of type: n - 1 arrays around an integer.
std::string SchemaArrays(int n) {
  return R"({"type":"struct","fields":[{"name":"a","nullable":true,"metadata":{},"type":)" +
         Repeat(R"({"type":"array","containsNull":true,"elementType":)", n - 1) + "\"integer\"" +
         Repeat("}", n - 1) + "}]}";
}

TEST(NestingTest, SchemaStringsAreBoundedByTypeAndJsonLimits) {
  EXPECT_TRUE(ParseSchema(SchemaArrays(kMaxTypeNesting)).ok());
  Result<StructType> deeper = ParseSchema(SchemaArrays(kMaxTypeNesting + 1));
  ASSERT_FALSE(deeper.ok());
  EXPECT_TRUE(deeper.status().IsCorruption());
  EXPECT_TRUE(Mentions(deeper.status(), "schema nested deeper than 100 levels")) << deeper.status().message();
  for (int n : {20000, 100000}) {
    Result<StructType> r = ParseSchema(SchemaArrays(n));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Mentions(r.status(), "schemaString")) << r.status().message();
    EXPECT_TRUE(Mentions(r.status(), "JSON nested deeper than 1000 levels")) << r.status().message();
  }
}

}  // namespace
}  // namespace lithify::delta
