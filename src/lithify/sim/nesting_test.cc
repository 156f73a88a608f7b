// Deep scenario JSON (issue 14): a scenario file nested 100,000 levels crashed `lithify
// simulate` (nlohmann's dump recursed through it for the error message). The text is now
// refused before a tree is built, and ScenarioFromJson never recurses into a value, so a
// document parsed elsewhere (the panel's request body) is safe too.
#include <gtest/gtest.h>

#include <string>

#include "lithify/base/nesting.h"
#include "lithify/sim/simulate.h"

namespace lithify::sim {
namespace {

using nlohmann::json;

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// {"days": [[...1...]]}: n levels in all.
std::string DeepDays(int n) { return R"({"days":)" + Repeat("[", n - 1) + "1" + Repeat("]", n - 1) + "}"; }

TEST(ScenarioNestingTest, TextDeeperThanTheLimitIsRefused) {
  for (int n : {kMaxJsonNesting + 1, 20000, 100000}) {
    for (const std::string& text : {DeepDays(n), Repeat("[", n), Repeat("{\"a\":", n)}) {
      Result<json> r = ParseScenarioJson(text);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_TRUE(r.status().IsInvalidArgument());
      EXPECT_EQ(r.status().message(), "scenario JSON nested deeper than 1000 levels");
    }
  }
}

TEST(ScenarioNestingTest, TextAtTheLimitParsesAndIsRefusedByKey) {
  Result<json> j = ParseScenarioJson(DeepDays(kMaxJsonNesting));
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  Result<Scenario> s = ScenarioFromJson(*j);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsInvalidArgument());
  EXPECT_NE(s.status().message().find("scenario key 'days': must be an integer"), std::string::npos)
      << s.status().message();
  EXPECT_LT(s.status().message().size(), 300u);
}

TEST(ScenarioNestingTest, OtherTextErrors) {
  EXPECT_EQ(ParseScenarioJson("{").status().message(), "not valid JSON");
  EXPECT_EQ(ParseScenarioJson("[1]").status().message(), "a scenario is a JSON object");
  Result<json> ok = ParseScenarioJson("{\"days\": 2 /* comments are allowed */}");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ScenarioFromJson(*ok).ok());
}

TEST(ScenarioNestingTest, DeepValuesParsedElsewhereAreDescribedNotDumped) {
  // As the panel does: nlohmann parses (iteratively) whatever the body holds.
  for (int n : {20000, 100000}) {
    const std::string text = DeepDays(n);
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object());
    Result<Scenario> s = ScenarioFromJson(j);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("got an array of 1 values, not all scalars"), std::string::npos)
        << s.status().message();
    json list = json::parse(R"({"cluster_by":)" + Repeat("{\"a\":", n) + "1" + Repeat("}", n) + "}",
                            nullptr, false);
    Result<Scenario> l = ScenarioFromJson(list);
    ASSERT_FALSE(l.ok());
    EXPECT_NE(l.status().message().find("got an object of 1 keys"), std::string::npos) << l.status().message();
  }
  // Arrays of scalars are still shown.
  Result<Scenario> flat = ScenarioFromJson(json::parse(R"({"days":[1,2]})"));
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.status().message().find("got [1,2]"), std::string::npos) << flat.status().message();
}

}  // namespace
}  // namespace lithify::sim
