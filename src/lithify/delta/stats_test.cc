// ParseStats and StatsWithWideBounds (delta/stats.h): statistics JSON read and rewritten
// with every number exactly as written.
#include "lithify/delta/stats.h"

#include "lithify/base/nesting.h"

#include <gtest/gtest.h>

#include <string>

#include "lithify/delta/json_util.h"

namespace lithify::delta {
namespace {

TEST(ParseStats, NumbersKeepTheirText) {
  auto s = ParseStats(
      R"({"numRecords":3,"minValues":{"d20":-9970418458088.79529,"d38":-99999999999999999999999999999999999999,)"
      R"("i":-5,"st":{"x":1.5E+3}},"maxValues":{"d20":9970418458088.79529,"d38":99999999999999999999999999999999999999,)"
      R"("u":18446744073709551615,"s":"é\"","ok":true,"n":null},"nullCount":{"d20":0,"st":{"x":2}}})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->num_records, 3);
  EXPECT_FALSE(s->tight_bounds.has_value());
  auto bound = [&](std::vector<std::string> path, bool max) -> table::Value {
    const table::ColumnStats* c = s->Find(path);
    if (c == nullptr || !(max ? c->max : c->min)) return table::Value::Null();
    return *(max ? c->max : c->min);
  };
  EXPECT_EQ(bound({"d20"}, true).number_text(), "9970418458088.79529");
  EXPECT_EQ(bound({"d20"}, false).number_text(), "-9970418458088.79529");
  EXPECT_EQ(bound({"d38"}, true).number_text(), std::string(38, '9'));
  EXPECT_EQ(bound({"d38"}, false).number_text(), "-" + std::string(38, '9'));
  EXPECT_EQ(bound({"d38"}, true).ToString(), std::string(38, '9'));
  EXPECT_EQ(bound({"u"}, true).number_text(), "18446744073709551615");
  EXPECT_EQ(bound({"st", "x"}, false).number_text(), "1.5E+3");
  EXPECT_EQ(bound({"st", "x"}, false).dbl(), 1500.0);
  EXPECT_EQ(bound({"i"}, false), table::Value::Int64(-5));
  EXPECT_EQ(bound({"s"}, true), table::Value::String("é\""));
  EXPECT_EQ(bound({"ok"}, true), table::Value::Boolean(true));
  EXPECT_TRUE(bound({"n"}, true).is_null());
  EXPECT_EQ(s->Find({"st", "x"})->null_count, 2);
  EXPECT_EQ(s->Find({"d20"})->null_count, 0);
}

TEST(ParseStats, MalformedOrMistypedIsCorruption) {
  for (const char* bad : {R"([1])", R"("x")", R"({"numRecords":-1})", R"({"numRecords":1.5})",
                          R"({"numRecords":[1]})", R"({"numRecords":99999999999999999999})",
                          R"({"tightBounds":1})", R"({"tightBounds":{}})", R"({"minValues":{)"}) {
    auto s = ParseStats(bad);
    EXPECT_TRUE(s.status().IsCorruption()) << bad << " -> " << s.status().ToString();
  }
  // Past the shared JSON nesting limit (base/nesting.h): refused, never a crash.
  std::string deep = std::string(kMaxJsonNesting, '[') + std::string(kMaxJsonNesting, ']');
  EXPECT_TRUE(ParseStats("{\"minValues\":" + deep + "}").status().IsCorruption());
  // Arrays and unknown members carry no statistics; nulls mean absent.
  auto s = ParseStats(R"({"numRecords":null,"tightBounds":false,"x":{"a":1},"minValues":{"a":[1,{"b":2}],"c":3}})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_EQ(s->tight_bounds, false);
  EXPECT_EQ(s->Find({"a"}), nullptr);
  EXPECT_EQ(s->Find({"c"})->min, table::Value::Int64(3));
  EXPECT_EQ(s->Find({"b"}), nullptr);
}

TEST(StatsWithWideBounds, OnlyTightBoundsChanges) {
  const std::string exact =
      R"({"numRecords":2,"minValues":{"d":-9970418458088.79529,"big":-99999999999999999999999999999999999999,)"
      R"("f":0.69999998807907104,"e":1E-7,"z":-0.0,"st":{"s":"\u00e9\"\\"}},)"
      R"("maxValues":{"d":9970418458088.79529,"big":99999999999999999999999999999999999999},"nullCount":{"d":0}})";
  auto w = StatsWithWideBounds(exact);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(*w,
            R"({"numRecords":2,"minValues":{"d":-9970418458088.79529,"big":-99999999999999999999999999999999999999,)"
            R"("f":0.69999998807907104,"e":1E-7,"z":-0.0,"st":{"s":"é\"\\"}},)"
            R"("maxValues":{"d":9970418458088.79529,"big":99999999999999999999999999999999999999},"nullCount":{"d":0},)"
            R"("tightBounds":false})");
  // Replaced where it stands (whatever its value was), appended to an empty object.
  EXPECT_EQ(*StatsWithWideBounds(R"({"tightBounds":true,"numRecords":1})"), R"({"tightBounds":false,"numRecords":1})");
  EXPECT_EQ(*StatsWithWideBounds(R"({"a":1,"tightBounds":{"x":[1,2]},"b":[]})"), R"({"a":1,"tightBounds":false,"b":[]})");
  EXPECT_EQ(*StatsWithWideBounds(R"( { } )"), R"({"tightBounds":false})");
  EXPECT_EQ(*StatsWithWideBounds(R"({"tightBounds":false})"), R"({"tightBounds":false})");
  for (const char* bad : {"", "[]", "1", R"({"a":)", R"({"a":1}x)"}) {
    EXPECT_TRUE(StatsWithWideBounds(bad).status().IsCorruption()) << bad;
  }
  // The result parses back to the same statistics plus wide bounds.
  auto back = ParseStats(*w);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tight_bounds, false);
  EXPECT_EQ(back->Find({"big"})->max->number_text(), std::string(38, '9'));
}

}  // namespace
}  // namespace lithify::delta
