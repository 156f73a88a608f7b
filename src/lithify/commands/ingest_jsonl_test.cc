// Tests for JSON Lines input (ingest_jsonl).
#include "lithify/commands/ingest.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "lithify/commands/ingest_test_util.h"

namespace lithify::commands {
namespace {

using namespace ingest_test;  // NOLINT: the shared helpers of the ingest tests

// ---------------------------------------------------------------------------------
// JSON Lines
// ---------------------------------------------------------------------------------


TEST_F(IngestTest, JsonlEveryPrimitiveType) {
  auto rows = ReadText("in.jsonl",
                       R"({"b":true,"y":-128,"sh":32767,"i":-2147483648,"l":9223372036854775807,)"
                       R"("f":0.1,"d":-0,"s":"h\u00e9\"llo\n","bin":"AP8Q","dec":"-12.30","dt":"2000-02-29",)"
                       R"("ts":"2024-01-01T10:00:00.000001Z","ntz":"2024-02-29T12:34:56.789012"})"
                       "\n"
                       R"({"b":false,"f":"NaN","d":"-Infinity","dec":5,"bin":""})"
                       "\n",
                       AllPrimitives());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  const auto& r = (*rows)[0];
  EXPECT_TRUE(r[0].bool_value());
  EXPECT_EQ(r[1].int_value(), -128);
  EXPECT_EQ(r[2].int_value(), 32767);
  EXPECT_EQ(r[3].int_value(), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(r[4].int_value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r[5].double_value(), static_cast<double>(0.1f));
  EXPECT_EQ(r[6].kind(), Value::Kind::kDouble);
  EXPECT_TRUE(std::signbit(r[6].double_value()));
  EXPECT_EQ(r[7].bytes(), "h\xC3\xA9\"llo\n");
  EXPECT_EQ(r[8].bytes(), std::string("\x00\xFF\x10", 3));
  EXPECT_EQ(r[9].decimal(), -1230);
  EXPECT_EQ(r[10].int_value(), DaysFromCivil(2000, 2, 29));
  EXPECT_EQ(r[11].int_value(), Micros(2024, 1, 1, 10, 0, 0, 1));
  EXPECT_EQ(r[12].int_value(), Micros(2024, 2, 29, 12, 34, 56, 789012));
  const auto& r2 = (*rows)[1];
  EXPECT_FALSE(r2[0].bool_value());
  EXPECT_TRUE(r2[1].is_null());  // missing key
  EXPECT_TRUE(std::isnan(r2[5].double_value()));
  EXPECT_EQ(r2[6].double_value(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(r2[9].decimal(), 500);
  EXPECT_EQ(r2[8].bytes(), "");
  EXPECT_TRUE(r2[12].is_null());
}

TEST_F(IngestTest, JsonlFriendlyForms) {
  auto schema = Schema({F("Amount", P("decimal(10,3)")), F("ts", P("timestamp")), F("dt", P("date"))});
  auto rows = ReadText("f.jsonl",
                       R"({"amount":12.5,"TS":"2024-01-01 10:00:00","dt":"1969-12-31"})" "\n"
                       "\n"  // blank lines are skipped
                       R"({"AMOUNT":1.25e2,"ts":"2024-01-01T12:00:00+02:00"})" "\r\n"
                       R"({"amount":"0.100000","ts":"2024-01-01"})" "\n"
                       R"({"amount":-1e-3,"ts":"2024-01-01T10:00Z"})" "\n"
                       R"({"ts":"2024-01-01T05:30:00.5-05:30"})",
                       schema);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 5u);
  EXPECT_EQ((*rows)[0][0].decimal(), 12500);
  EXPECT_EQ((*rows)[0][1].int_value(), Micros(2024, 1, 1, 10, 0, 0));
  EXPECT_EQ((*rows)[0][2].int_value(), -1);
  EXPECT_EQ((*rows)[1][0].decimal(), 125000);
  EXPECT_EQ((*rows)[1][1].int_value(), Micros(2024, 1, 1, 10, 0, 0));
  EXPECT_TRUE((*rows)[1][2].is_null());
  EXPECT_EQ((*rows)[2][0].decimal(), 100);  // trailing zeros beyond the scale are exact
  EXPECT_EQ((*rows)[2][1].int_value(), Micros(2024, 1, 1, 0, 0, 0));
  EXPECT_EQ((*rows)[3][0].decimal(), -1);
  EXPECT_EQ((*rows)[3][1].int_value(), Micros(2024, 1, 1, 10, 0, 0));
  EXPECT_EQ((*rows)[4][1].int_value(), Micros(2024, 1, 1, 11, 0, 0, 500000));
}


TEST_F(IngestTest, JsonlNestedValues) {
  auto rows = ReadText(
      "n.jsonl",
      R"({"id":1,"s":{"a":7,"b":["x",null]},"arr":[{"x":1.5},null,{"x":-2}],)"
      R"("m":[{"key":"k1","value":[1,2]},{"key":"k2","value":null}],"mi":[{"key":3,"value":"2020-01-02"}]})" "\n"
      R"({"id":2,"s":{"B":[]},"arr":[],"m":{"a":[3],"b":[]},"mi":[]})" "\n"
      R"({"id":3,"s":null,"arr":null,"m":null,"mi":null})" "\n",
      NestedSchema());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Show(*rows),
            (std::vector<std::string>{
                "(i1, {i7,['x',null]}, [{d1.5},null,{d-2}], map['k1':[i1,i2],'k2':null], map[i3:i18263])",
                "(i2, {null,[]}, [], map['a':[i3],'b':[]], map[])",
                "(i3, null, null, null, null)"}));
}

TEST_F(IngestTest, JsonlErrorsNameFileLineColumnAndValue) {
  auto schema = Schema({F("id", P("long"), false), F("amount", P("decimal(12,2)")), F("b", P("byte")),
                        F("i", P("integer")), F("f", P("float")), F("s", P("string")), F("bin", P("binary")),
                        F("dt", P("date")), F("ts", P("timestamp")), F("ntz", P("timestamp_ntz")),
                        F("st", StructT({F("a", P("integer"), false)})), F("arr", ArrayT(P("long"), false)),
                        F("flag", P("boolean"))});
  std::string lines;
  for (int i = 0; i < 16; ++i) lines += R"({"id":1})" "\n";
  EXPECT_EQ(Error("input.jsonl", lines + R"({"id":1,"amount":12.345})", schema),
            "input.jsonl line 17: column 'amount': 12.345 has more digits after the point than "
            "decimal(12,2) allows");
  struct Case {
    std::string line;
    std::string message;
  };
  std::vector<Case> cases = {
      {R"({"id":1,"amount":"12345678901.5"})",
       "in.jsonl line 1: column 'amount': \"12345678901.5\" has more digits than decimal(12,2) allows"},
      {R"({"id":1,"b":128})", "in.jsonl line 1: column 'b': 128 is out of range for byte"},
      {R"({"id":1,"i":1.5})", "in.jsonl line 1: column 'i': 1.5 is not a valid integer"},
      {R"({"id":99999999999999999999})", "in.jsonl line 1: column 'id': 99999999999999999999 is out of range for long"},
      {R"({"id":"1"})", "in.jsonl line 1: column 'id': expected a number for long but found \"1\""},
      {R"({"id":1,"f":1e39})", "in.jsonl line 1: column 'f': 1e39 is out of range for float"},
      {R"({"id":1,"flag":1})", "in.jsonl line 1: column 'flag': expected true or false for boolean but found 1"},
      {R"({"id":1,"s":5})", "in.jsonl line 1: column 's': expected a string for string but found 5"},
      {R"({"id":1,"bin":"not base64!"})",
       "in.jsonl line 1: column 'bin': \"not base64!\" is not valid base64 (binary values are base64, as scan prints them)"},
      {R"({"id":1,"dt":"2023-02-29"})", "in.jsonl line 1: column 'dt': \"2023-02-29\" is not a valid date (expected YYYY-MM-DD)"},
      {R"({"id":1,"ts":"2024-01-01T25:00:00"})",
       "in.jsonl line 1: column 'ts': \"2024-01-01T25:00:00\" is not a valid timestamp (expected "
       "YYYY-MM-DD[THH:MM:SS[.ffffff]][Z|+HH:MM])"},
      {R"({"id":1,"ts":"2024-01-01T00:00:00.0000001Z"})",
       "in.jsonl line 1: column 'ts': \"2024-01-01T00:00:00.0000001Z\" has sub-microsecond digits; "
       "timestamp stores microseconds"},
      {R"({"id":1,"ntz":"2024-01-01T00:00:00Z"})",
       "in.jsonl line 1: column 'ntz': \"2024-01-01T00:00:00Z\" has a time zone, but timestamp_ntz values "
       "are zone-less wall-clock times"},
      {R"({"id":1,"nope":1})", "in.jsonl line 1: unknown column 'nope'"},
      {R"({"id":1,"ID":2})", "in.jsonl line 1: duplicate key 'ID'"},
      {R"({"amount":1})", "in.jsonl line 1: column 'id': missing, and the column is NOT NULL"},
      {R"({"id":null})", "in.jsonl line 1: column 'id': null is not allowed (the column is NOT NULL)"},
      {R"({"id":1,"st":{"a":null}})", "in.jsonl line 1: column 'st.a': null is not allowed (the column is NOT NULL)"},
      {R"({"id":1,"st":{}})", "in.jsonl line 1: column 'st.a': null is not allowed (the column is NOT NULL)"},
      {R"({"id":1,"st":{"a":1,"z":2}})", "in.jsonl line 1: column 'st': unknown struct field 'z'"},
      {R"({"id":1,"arr":[1,null]})", "in.jsonl line 1: column 'arr[1]': null is not allowed (the column is NOT NULL)"},
      {R"({"id":1,"arr":[1,"x"]})", "in.jsonl line 1: column 'arr[1]': expected a number for long but found \"x\""},
      {R"({"id":1,"arr":{}})", "in.jsonl line 1: column 'arr': expected an array for array but found an object"},
      {R"([1,2])", "in.jsonl line 1: expected a JSON object, found an array"},
      {R"({"id":1,)", "in.jsonl line 1: invalid JSON at byte 9: expected a string key in object"},
      {R"({"id":01})", "in.jsonl line 1: invalid JSON at byte 7: invalid number (leading zero)"},
      {R"({"id":1} x)", "in.jsonl line 1: invalid JSON at byte 10: unexpected text after the JSON value"},
      {"{\"id\":1,\"s\":\"a\xff\"}", "in.jsonl line 1: the line is not valid UTF-8"},
      {"{\"id\":1,\"s\":\"\xed\xa0\x80\"}", "in.jsonl line 1: the line is not valid UTF-8"},
      {R"({"id":1,"s":"\ud800"})", "in.jsonl line 1: invalid JSON at byte 20: unpaired surrogate in \\u escape (not valid UTF-8)"},
      {"{\"id\":1,\"s\":\"a\tb\"}", "in.jsonl line 1: invalid JSON at byte 15: control character in string (must be escaped)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Error("in.jsonl", c.line, schema), c.message) << c.line;
  }
}

TEST_F(IngestTest, JsonlDeepNestingIsAnErrorNotACrash) {
  auto schema = Schema({F("a", ArrayT(P("long")))});
  for (int n : {1000, 20000, 100000}) {  // the object is one level: 1001 and more
    std::string deep = R"({"a":)" + std::string(n, '[') + std::string(n, ']') + "}";
    EXPECT_NE(Error("deep.jsonl", deep, schema).find("JSON nested deeper than 1000 levels"), std::string::npos) << n;
  }
  // At the limit the line parses; only the type check refuses it.
  std::string at_limit = R"({"a":)" + std::string(999, '[') + std::string(999, ']') + "}";
  EXPECT_EQ(Error("deep.jsonl", at_limit, schema).find("nested deeper"), std::string::npos);
}

TEST_F(IngestTest, BatchesAndSinkErrors) {
  auto schema = Schema({F("i", P("long"))});
  std::string text;
  for (int i = 0; i < 10; ++i) text += fmt::format("{{\"i\":{}}}\n", i);
  Write("b.jsonl", text);
  std::vector<size_t> sizes;
  Status st = ReadInput(fs_.get(), "b.jsonl", InputFormat::kJsonl, schema,
                        [&](Rows&& rows) {
                          sizes.push_back(rows.size());
                          return Status::OK();
                        },
                        4);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  st = ReadInput(fs_.get(), "b.jsonl", InputFormat::kJsonl, schema,
                 [&](Rows&&) { return Status::Cancelled("stop here"); }, 4);
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(st.message(), "stop here");
  st = ReadInput(fs_.get(), "missing.jsonl", InputFormat::kJsonl, schema, [](Rows&&) { return Status::OK(); });
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  st = ReadInput(fs_.get(), "b.jsonl", InputFormat::kJsonl, schema, [](Rows&&) { return Status::OK(); }, 0);
  EXPECT_TRUE(st.IsInvalidArgument());
}

TEST_F(IngestTest, JsonlLongLinesSpanningChunks) {
  // Lines longer than the 1 MiB read chunk must be joined correctly.
  auto schema = Schema({F("s", P("string")), F("i", P("long"))});
  std::string big(1500000, 'x');
  std::string text = fmt::format("{{\"s\":\"{}\",\"i\":1}}\n{{\"s\":\"{}\",\"i\":2}}", big, big);
  auto rows = ReadText("big.jsonl", text, schema);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1][0].bytes().size(), big.size());
  EXPECT_EQ((*rows)[1][1].int_value(), 2);
}


}  // namespace
}  // namespace lithify::commands
