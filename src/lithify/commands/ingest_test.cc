// Tests for ingest (JSONL / CSV / Parquet input -> rows of Values) and the synthetic
// data generator.
#include "lithify/commands/ingest.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <cstring>
#include <unistd.h>
#include <string>
#include <vector>

#include "lithify/base/allocator.h"
#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/commands/generator.h"
#include "lithify/delta/schema.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::commands {
namespace {

using parquet::Value;
using Rows = std::vector<std::vector<Value>>;

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

std::string F(const std::string& name, const std::string& type, bool nullable = true) {
  return fmt::format(R"({{"name":"{}","type":{},"nullable":{},"metadata":{{}}}})", name, type, nullable);
}
std::string P(const std::string& primitive) { return "\"" + primitive + "\""; }
std::string StructT(const std::vector<std::string>& fields) {
  return fmt::format(R"({{"type":"struct","fields":[{}]}})", fmt::join(fields, ","));
}
std::string ArrayT(const std::string& element, bool contains_null = true) {
  return fmt::format(R"({{"type":"array","elementType":{},"containsNull":{}}})", element, contains_null);
}
std::string MapT(const std::string& key, const std::string& value, bool value_contains_null = true) {
  return fmt::format(R"({{"type":"map","keyType":{},"valueType":{},"valueContainsNull":{}}})", key, value,
                     value_contains_null);
}
delta::StructType Schema(const std::vector<std::string>& fields) {
  auto r = delta::ParseSchema(StructT(fields));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : delta::StructType{};
}

std::string Show(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return v.bool_value() ? "true" : "false";
    case Value::Kind::kInt: return fmt::format("i{}", v.int_value());
    case Value::Kind::kDouble: return fmt::format("d{}", v.double_value());
    case Value::Kind::kBytes: return fmt::format("'{}'", v.bytes());
    case Value::Kind::kDecimal: {
      __int128 d = v.decimal();
      unsigned __int128 u = d < 0 ? static_cast<unsigned __int128>(-(d + 1)) + 1 : static_cast<unsigned __int128>(d);
      std::string digits;
      do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
      } while (u != 0);
      return fmt::format("dec{}{}", d < 0 ? "-" : "", digits);
    }
    case Value::Kind::kList:
    case Value::Kind::kStruct: {
      std::vector<std::string> parts;
      for (const Value& c : v.items()) parts.push_back(Show(c));
      const std::string inner = fmt::format("{}", fmt::join(parts, ","));
      return v.kind() == Value::Kind::kList ? "[" + inner + "]" : "{" + inner + "}";
    }
    case Value::Kind::kMap: {
      std::vector<std::string> parts;
      for (size_t i = 0; i < v.map_size(); ++i) parts.push_back(Show(v.map_key(i)) + ":" + Show(v.map_value(i)));
      return fmt::format("map[{}]", fmt::join(parts, ","));
    }
  }
  return "?";
}
std::string Show(const std::vector<Value>& row) {
  std::vector<std::string> parts;
  for (const Value& v : row) parts.push_back(Show(v));
  return fmt::format("({})", fmt::join(parts, ", "));
}
std::vector<std::string> Show(const Rows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(Show(r));
  return out;
}

class IngestTest : public ::testing::Test {
 protected:
  std::unique_ptr<io::FileSystem> fs_ = io::NewMemoryFileSystem();

  void Write(const std::string& path, std::string_view text) {
    ASSERT_TRUE(fs_->WriteFile(path, AsBytes(text)).ok());
  }
  Result<Rows> Read(const std::string& path, InputFormat format, const delta::StructType& schema,
                    size_t batch_rows = 8192) {
    Rows rows;
    Status st = ReadInput(fs_.get(), path, format, schema,
                          [&](Rows&& batch) {
                            EXPECT_LE(batch.size(), batch_rows);
                            EXPECT_FALSE(batch.empty());
                            for (auto& r : batch) rows.push_back(std::move(r));
                            return Status::OK();
                          },
                          batch_rows);
    if (!st.ok()) return st;
    return rows;
  }
  Result<Rows> ReadText(const std::string& name, std::string_view text, const delta::StructType& schema) {
    Write(name, text);
    return Read(name, InputFormatFromPath(name), schema);
  }
  // The error message of reading `text` (which must fail).
  std::string Error(const std::string& name, std::string_view text, const delta::StructType& schema) {
    auto r = ReadText(name, text, schema);
    EXPECT_FALSE(r.ok()) << "expected an error for " << text;
    if (r.ok()) return "";
    EXPECT_TRUE(r.status().IsInvalidArgument() || r.status().IsCorruption()) << r.status().ToString();
    return r.status().message();
  }
};

int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s, int64_t us = 0) {
  return DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

// ---------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------

TEST(InputFormatTest, ByNameAndPath) {
  EXPECT_EQ(*InputFormatFromName("parquet"), InputFormat::kParquet);
  EXPECT_EQ(*InputFormatFromName("JSONL"), InputFormat::kJsonl);
  EXPECT_EQ(*InputFormatFromName("ndjson"), InputFormat::kJsonl);
  EXPECT_EQ(*InputFormatFromName("csv"), InputFormat::kCsv);
  auto bad = InputFormatFromName("xlsx");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("xlsx"), std::string::npos);
  EXPECT_EQ(InputFormatFromPath("/a/b.jsonl"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("b.JSON"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("x.ndjson"), InputFormat::kJsonl);
  EXPECT_EQ(InputFormatFromPath("data.csv"), InputFormat::kCsv);
  EXPECT_EQ(InputFormatFromPath("part-0.snappy.parquet"), InputFormat::kParquet);
  EXPECT_EQ(InputFormatFromPath("dir.csv/file"), InputFormat::kParquet);
  EXPECT_EQ(InputFormatFromPath("noext"), InputFormat::kParquet);
}

// ---------------------------------------------------------------------------------
// JSON Lines
// ---------------------------------------------------------------------------------

delta::StructType AllPrimitives() {
  return Schema({F("b", P("boolean")), F("y", P("byte")), F("sh", P("short")), F("i", P("integer")),
                 F("l", P("long")), F("f", P("float")), F("d", P("double")), F("s", P("string")),
                 F("bin", P("binary")), F("dec", P("decimal(12,2)")), F("dt", P("date")),
                 F("ts", P("timestamp")), F("ntz", P("timestamp_ntz"))});
}

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

delta::StructType NestedSchema() {
  return Schema({F("id", P("long"), false),
                 F("s", StructT({F("a", P("integer")), F("b", ArrayT(P("string")))})),
                 F("arr", ArrayT(StructT({F("x", P("double"), false)}))),
                 F("m", MapT(P("string"), ArrayT(P("integer")))),
                 F("mi", MapT(P("integer"), P("date"), false))});
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

// ---------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------

TEST_F(IngestTest, CsvQuotingNullsAndTypes) {
  auto schema = Schema({F("id", P("long"), false), F("name", P("string")), F("amount", P("decimal(12,2)")),
                        F("ts", P("timestamp")), F("ok", P("boolean")), F("d", P("double")),
                        F("bin", P("binary"))});
  auto rows = ReadText("in.csv",
                       "\xEF\xBB\xBFID,Name,amount,ts,ok,d,bin\r\n"
                       "1,plain,12.30,2024-01-01T10:00:00.000000Z,true,1.5,AP8Q\r\n"
                       "2,\"with, comma and \"\"quotes\"\"\",-0.05,2024-01-01 10:00:00,FALSE,NaN,\r\n"
                       "3,\"multi\nline\",,,,,\n"
                       "4,\"\",7,,,-Infinity,\"\"\n",
                       schema);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ(Show((*rows)[0]), "(i1, 'plain', dec1230, i" + std::to_string(Micros(2024, 1, 1, 10, 0, 0)) +
                                  ", true, d1.5, '" + std::string("\x00\xFF\x10", 3) + "')");
  EXPECT_EQ((*rows)[1][1].bytes(), "with, comma and \"quotes\"");
  EXPECT_EQ((*rows)[1][2].decimal(), -5);
  EXPECT_FALSE((*rows)[1][4].bool_value());
  EXPECT_TRUE(std::isnan((*rows)[1][5].double_value()));
  EXPECT_TRUE((*rows)[1][6].is_null());
  EXPECT_EQ(Show((*rows)[2]), "(i3, 'multi\nline', null, null, null, null, null)");
  EXPECT_EQ((*rows)[3][1].kind(), Value::Kind::kBytes);  // "" is an empty string, not null
  EXPECT_EQ((*rows)[3][1].bytes(), "");
  EXPECT_EQ((*rows)[3][6].bytes(), "");
}

TEST_F(IngestTest, CsvColumnSubsetInAnyOrder) {
  auto schema = Schema({F("a", P("integer")), F("b", P("string")), F("c", P("date"))});
  auto rows = ReadText("s.csv", "c,A\n2024-03-01,5\n", schema);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Show(*rows), (std::vector<std::string>{fmt::format("(i5, null, i{})", DaysFromCivil(2024, 3, 1))}));
}

TEST_F(IngestTest, CsvErrors) {
  auto schema = Schema({F("id", P("long"), false), F("s", P("string")), F("amount", P("decimal(5,2)")),
                        F("st", StructT({F("a", P("integer"))}))});
  EXPECT_EQ(Error("in.csv", "id,s\n1,\"a\nb\"\nx,y\n", schema),
            "in.csv line 4: column 'id': x is not a valid long");
  EXPECT_EQ(Error("in.csv", "id,amount\n1,1.234\n", schema),
            "in.csv line 2: column 'amount': 1.234 has more digits after the point than decimal(5,2) allows");
  EXPECT_EQ(Error("in.csv", "id,amount\n1,\"1000\"\n", schema),
            "in.csv line 2: column 'amount': \"1000\" has more digits than decimal(5,2) allows");
  EXPECT_EQ(Error("in.csv", "id,s\n,x\n", schema),
            "in.csv line 2: column 'id': null is not allowed (the column is NOT NULL)");
  EXPECT_EQ(Error("in.csv", "id,st\n1,{}\n", schema),
            "in.csv line 1: column 'st' is struct; CSV input supports only primitive columns");
  EXPECT_EQ(Error("in.csv", "s\nx\n", schema), "in.csv line 1: column 'id' is NOT NULL but missing from the header");
  EXPECT_EQ(Error("in.csv", "id,zz\n1,2\n", schema), "in.csv line 1: unknown column 'zz' in the header");
  EXPECT_EQ(Error("in.csv", "id,ID\n1,2\n", schema), "in.csv line 1: column 'ID' appears twice in the header");
  EXPECT_EQ(Error("in.csv", "id,s\n1,x,y\n", schema), "in.csv line 2: 3 fields, but the header has 2");
  EXPECT_EQ(Error("in.csv", "id,s\n1\n", schema), "in.csv line 2: 1 fields, but the header has 2");
  EXPECT_EQ(Error("in.csv", "id,s\n1,\"abc\n\n", schema),
            "in.csv: line 4: unterminated quoted field (started on line 2)");
  EXPECT_EQ(Error("in.csv", "id,s\n1,ab\"c\n", schema), "in.csv: line 2: quote character inside an unquoted field");
  EXPECT_EQ(Error("in.csv", "id,s\n1,\"ab\"c\n", schema),
            "in.csv: line 2: unexpected character 'c' after a closing quote");
  EXPECT_EQ(Error("in.csv", "id,s\n1,\xC3\x28\n", schema), "in.csv line 2: column 's': string value is not valid UTF-8");
  EXPECT_EQ(Error("in.csv", "", schema), "in.csv: empty CSV file (a header row is required)");
}

// ---------------------------------------------------------------------------------
// Parquet writing helpers
// ---------------------------------------------------------------------------------

Status WriteParquet(io::FileSystem* fs, const std::string& path, const parquet::Schema& schema,
                    const std::vector<Rows>& row_groups) {
  LITHIFY_ASSIGN_OR_RETURN(auto out, fs->Create(path));
  LITHIFY_ASSIGN_OR_RETURN(auto writer, parquet::FileWriter::Open(std::move(out), schema));
  for (const Rows& rg : row_groups) {
    parquet::RowBatchBuilder builder(schema);
    for (const auto& row : rg) LITHIFY_RETURN_NOT_OK(builder.Append(row));
    LITHIFY_RETURN_NOT_OK(writer->WriteBatch(builder.Finish()));
    LITHIFY_RETURN_NOT_OK(writer->FlushRowGroup());
  }
  return writer->Close().status();
}

parquet::SchemaElement Root(int children) {
  parquet::SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}
parquet::SchemaElement LeafE(const std::string& name, parquet::PhysicalType t,
                             parquet::Repetition r = parquet::Repetition::kOptional,
                             parquet::LogicalType lt = {}) {
  parquet::SchemaElement e;
  e.name = name;
  e.type = t;
  e.repetition_type = r;
  e.logical_type = lt;
  if (t == parquet::PhysicalType::kInt96) e.type_length = std::nullopt;
  if (lt.kind == parquet::LogicalType::Kind::kDecimal) {
    e.precision = lt.precision;
    e.scale = lt.scale;
    e.converted_type = parquet::ConvertedType::kDecimal;
  }
  if (lt.kind == parquet::LogicalType::Kind::kString) e.converted_type = parquet::ConvertedType::kUtf8;
  return e;
}
parquet::SchemaElement GroupE(const std::string& name, parquet::Repetition r, int children,
                              std::optional<parquet::ConvertedType> ct = std::nullopt) {
  parquet::SchemaElement e;
  e.name = name;
  e.repetition_type = r;
  e.num_children = children;
  e.converted_type = ct;
  if (ct == parquet::ConvertedType::kList) e.logical_type.kind = parquet::LogicalType::Kind::kList;
  if (ct == parquet::ConvertedType::kMap) e.logical_type.kind = parquet::LogicalType::Kind::kMap;
  return e;
}
parquet::LogicalType TsType(parquet::TimeUnit unit, bool utc) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kTimestamp;
  lt.unit = unit;
  lt.is_adjusted_to_utc = utc;
  return lt;
}
parquet::LogicalType DecType(int p, int s) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kDecimal;
  lt.precision = p;
  lt.scale = s;
  return lt;
}
parquet::LogicalType IntType(int bits, bool is_signed) {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kInteger;
  lt.bit_width = static_cast<int8_t>(bits);
  lt.is_signed = is_signed;
  return lt;
}
parquet::LogicalType StrType() {
  parquet::LogicalType lt;
  lt.kind = parquet::LogicalType::Kind::kString;
  return lt;
}

std::string Int96(int64_t julian_day, int64_t nanos_of_day) {
  std::string b(12, '\0');
  std::memcpy(b.data(), &nanos_of_day, 8);
  auto jd = static_cast<uint32_t>(julian_day);
  std::memcpy(b.data() + 8, &jd, 4);
  return b;
}

// ---------------------------------------------------------------------------------
// Round trip of canonical scan output
// ---------------------------------------------------------------------------------

std::vector<parquet::FieldSpec> RoundTripSpecs() {
  using parquet::FieldSpec;
  return {FieldSpec::Boolean("b"), FieldSpec::Byte("y"), FieldSpec::Short("sh"), FieldSpec::Int("i"),
          FieldSpec::Long("l", false), FieldSpec::Float("f"), FieldSpec::Double("d"), FieldSpec::String("s"),
          FieldSpec::Binary("bin"), FieldSpec::Decimal("dec", 12, 2), FieldSpec::Decimal("dec38", 38, 10),
          FieldSpec::Date("dt"), FieldSpec::Timestamp("ts"), FieldSpec::TimestampNtz("ntz"),
          FieldSpec::Struct("st", {FieldSpec::Int("a"), FieldSpec::List("b", FieldSpec::String("e"))}),
          FieldSpec::List("arr", FieldSpec::Struct("e", {FieldSpec::Double("x")})),
          FieldSpec::Map("m", FieldSpec::String("k"), FieldSpec::List("v", FieldSpec::Int("e")))};
}
delta::StructType RoundTripSchema() {
  return Schema({F("b", P("boolean")), F("y", P("byte")), F("sh", P("short")), F("i", P("integer")),
                 F("l", P("long"), false), F("f", P("float")), F("d", P("double")), F("s", P("string")),
                 F("bin", P("binary")), F("dec", P("decimal(12,2)")), F("dec38", P("decimal(38,10)")),
                 F("dt", P("date")), F("ts", P("timestamp")), F("ntz", P("timestamp_ntz")),
                 F("st", StructT({F("a", P("integer")), F("b", ArrayT(P("string")))})),
                 F("arr", ArrayT(StructT({F("x", P("double"))}))),
                 F("m", MapT(P("string"), ArrayT(P("integer"))))});
}
Rows RoundTripRows() {
  const double inf = std::numeric_limits<double>::infinity();
  Rows rows;
  rows.push_back({Value::Bool(true), Value::Int(-128), Value::Int(-32768), Value::Int(2147483647),
                  Value::Int(std::numeric_limits<int64_t>::min()), Value::Double(static_cast<double>(0.1f)),
                  Value::Double(-0.0), Value::String("h\xC3\xA9 \"q\" \\ \n\t\x01 \xF0\x9F\x98\x80"),
                  Value::Bytes(std::string("\x00\xFF\x10" "abc", 6)), Value::Decimal(-5),
                  Value::Decimal(static_cast<__int128>(123456789012345678LL) * 1000000000000LL + 7),
                  Value::Int(-719528 /* 0000-01-01 */), Value::Int(Micros(1969, 12, 31, 23, 59, 59, 999999)),
                  Value::Int(Micros(2024, 2, 29, 12, 34, 56, 789012)),
                  Value::Struct({Value::Int(1), Value::List({Value::String("x"), Value::Null()})}),
                  Value::List({Value::Struct({Value::Double(1.5)}), Value::Null(), Value::Struct({Value::Null()})}),
                  Value::Map({{Value::String("k"), Value::List({Value::Int(1), Value::Null()})},
                              {Value::String("e"), Value::Null()}})});
  rows.push_back({Value::Bool(false), Value::Int(127), Value::Int(32767), Value::Int(-2147483648LL),
                  Value::Int(std::numeric_limits<int64_t>::max()), Value::Double(3.4028234663852886e+38),
                  Value::Double(5e-324), Value::String(""), Value::Bytes(""), Value::Decimal(999999999999LL),
                  Value::Decimal(-1), Value::Int(2932896 /* 9999-12-31 */), Value::Int(0), Value::Int(-1),
                  Value::Struct({Value::Null(), Value::List({})}), Value::List({}), Value::Map({})});
  rows.push_back({Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Int(0),
                  Value::Double(std::nan("")), Value::Double(-inf), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null()});
  rows.push_back({Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Int(1),
                  Value::Double(inf), Value::Double(1.7976931348623157e308), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                  Value::Null(), Value::Null()});
  return rows;
}

TEST_F(IngestTest, CanonicalJsonlRoundTrip) {
  auto pq_schema = parquet::BuildSchema(RoundTripSpecs());
  ASSERT_TRUE(pq_schema.ok()) << pq_schema.status().ToString();
  const Rows rows = RoundTripRows();
  ASSERT_TRUE(WriteParquet(fs_.get(), "rt.parquet", *pq_schema, {rows}).ok());
  auto reader = parquet::FileReader::Open(fs_.get(), "rt.parquet");
  ASSERT_TRUE(reader.ok());
  auto batch = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok());
  std::string text;
  const auto& fields = (*reader)->schema().top_level_fields();
  ASSERT_TRUE(parquet::RenderRows((*reader)->schema(), fields, *batch, parquet::RowFormat::kJsonLines, -1, &text).ok());
  auto back = ReadText("rt.jsonl", text, RoundTripSchema());
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  EXPECT_EQ(Show(*back), Show(rows)) << text;
  // The Parquet reader path gives the same rows.
  auto direct = Read("rt.parquet", InputFormat::kParquet, RoundTripSchema(), 3);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(Show(*direct), Show(rows));
}

TEST_F(IngestTest, CanonicalCsvRoundTrip) {
  std::vector<parquet::FieldSpec> specs = RoundTripSpecs();
  specs.resize(14);  // primitives only
  auto pq_schema = parquet::BuildSchema(specs);
  ASSERT_TRUE(pq_schema.ok());
  Rows rows = RoundTripRows();
  for (auto& r : rows) r.resize(14);
  ASSERT_TRUE(WriteParquet(fs_.get(), "rt.parquet", *pq_schema, {rows}).ok());
  auto reader = parquet::FileReader::Open(fs_.get(), "rt.parquet");
  ASSERT_TRUE(reader.ok());
  auto batch = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(batch.ok());
  const auto& fields = (*reader)->schema().top_level_fields();
  std::string text = parquet::CsvHeader((*reader)->schema(), fields);
  ASSERT_TRUE(parquet::RenderRows((*reader)->schema(), fields, *batch, parquet::RowFormat::kCsv, -1, &text).ok());
  delta::StructType schema = RoundTripSchema();
  schema.fields.resize(14);
  auto back = ReadText("rt.csv", text, schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  EXPECT_EQ(Show(*back), Show(rows)) << text;
}

// ---------------------------------------------------------------------------------
// Parquet input
// ---------------------------------------------------------------------------------

TEST_F(IngestTest, ParquetTypeConversionsAndMissingColumns) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  auto schema = parquet::Schema::FromElements({
      Root(9),
      LeafE("A_LONG", PT::kInt32, R::kRequired),
      LeafE("f", PT::kFloat),
      LeafE("ts_ms", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kMillis, true)),
      LeafE("ts_ns", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kNanos, true)),
      LeafE("ts96", PT::kInt96),
      LeafE("dec", PT::kInt32, R::kOptional, DecType(5, 1)),
      LeafE("u32", PT::kInt32, R::kOptional, IntType(32, false)),
      LeafE("ntz", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kMicros, false)),
      LeafE("raw", PT::kByteArray),
  });
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const int64_t t = Micros(2024, 5, 6, 7, 8, 9, 123000);
  Rows rg1 = {{Value::Int(-7), Value::Double(static_cast<double>(0.1f)), Value::Int(t / 1000), Value::Int(t * 1000),
               Value::Bytes(Int96(kJulianDayOfEpoch + FloorDiv(t, kMicrosPerDay), FloorMod(t, kMicrosPerDay) * 1000)),
               Value::Decimal(-12345), Value::Int(4294967295LL), Value::Int(t), Value::Bytes("caf\xC3\xA9")}};
  Rows rg2 = {{Value::Int(2147483647), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
               Value::Null(), Value::Null(), Value::Null()}};
  ASSERT_TRUE(WriteParquet(fs_.get(), "conv.parquet", *schema, {rg1, rg2}).ok());
  auto table = Schema({F("a_long", P("long"), false), F("f", P("double")), F("ts_ms", P("timestamp")),
                       F("ts_ns", P("timestamp")), F("ts96", P("timestamp")), F("dec", P("decimal(10,3)")),
                       F("u32", P("long")), F("ntz", P("timestamp_ntz")), F("raw", P("string")),
                       F("extra_nullable", P("string"))});
  auto rows = Read("conv.parquet", InputFormat::kParquet, table);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Show(*rows),
            (std::vector<std::string>{
                fmt::format("(i-7, d{}, i{}, i{}, i{}, dec-1234500, i4294967295, i{}, 'café', null)",
                            static_cast<double>(0.1f), t, t, t, t),
                "(i2147483647, null, null, null, null, null, null, null, null, null)"}));
}

TEST_F(IngestTest, ParquetIncompatibleOrMissingColumns) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  auto schema = parquet::Schema::FromElements({
      Root(4),
      LeafE("id", PT::kInt64, R::kRequired),
      LeafE("name", PT::kByteArray, R::kOptional, StrType()),
      LeafE("ts_ns", PT::kInt64, R::kOptional, TsType(parquet::TimeUnit::kNanos, true)),
      LeafE("dec", PT::kInt64, R::kOptional, DecType(12, 3)),
  });
  ASSERT_TRUE(schema.ok());
  ASSERT_TRUE(WriteParquet(fs_.get(), "in.parquet", *schema,
                           {{{Value::Int(300), Value::Null(), Value::Int(2000), Value::Decimal(1001)}}})
                  .ok());
  auto err = [&](const delta::StructType& table) {
    auto r = Read("in.parquet", InputFormat::kParquet, table);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string ok_rest = "";
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)")), F("must", P("string"), false)})),
            "in.parquet: column 'must': missing from the file, and the column is NOT NULL");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("ts_ns", P("timestamp")), F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'name': not in the table schema");
  EXPECT_EQ(err(Schema({F("id", P("date")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'id': the file has INT64, which cannot be read as date");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp_ntz")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'ts_ns': the file has INT64 TIMESTAMP(NANOS, UTC), which cannot be read as "
            "timestamp_ntz");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", StructT({F("a", P("string"))})), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet: column 'name': the file has BYTE_ARRAY STRING, which cannot be read as struct");
  // Per-value checks name the row.
  EXPECT_EQ(err(Schema({F("id", P("byte")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet row 1: column 'id': 300 is out of range for byte");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string"), false), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,3)"))})),
            "in.parquet row 1: column 'name': null is not allowed (the column is NOT NULL)");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(12,2)"))})),
            "in.parquet row 1: column 'dec': 1.001 has more digits after the point than decimal(12,2) allows");
  EXPECT_EQ(err(Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                        F("dec", P("decimal(3,3)"))})),
            "in.parquet row 1: column 'dec': 1.001 has more digits than decimal(3,3) allows");
  // Exact narrowing and rescaling are fine.
  auto ok = Read("in.parquet", InputFormat::kParquet,
                 Schema({F("ID", P("short")), F("name", P("string")), F("ts_ns", P("timestamp")),
                         F("dec", P("decimal(20,5)"))}));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Show(*ok), (std::vector<std::string>{"(i300, null, i2, dec100100)"}));
  // Nanoseconds that are not whole microseconds cannot be stored.
  ASSERT_TRUE(WriteParquet(fs_.get(), "ns.parquet", *schema,
                           {{{Value::Int(1), Value::Null(), Value::Int(1501), Value::Null()}}})
                  .ok());
  auto ns = Read("ns.parquet", InputFormat::kParquet,
                 Schema({F("id", P("long")), F("name", P("string")), F("ts_ns", P("timestamp")),
                         F("dec", P("decimal(12,3)"))}));
  ASSERT_FALSE(ns.ok());
  EXPECT_EQ(ns.status().message(),
            "ns.parquet row 1: column 'ts_ns': 1501 nanoseconds has sub-microsecond digits; timestamp stores "
            "microseconds");
  // Not a Parquet file.
  Write("junk.parquet", "this is not parquet");
  auto junk = Read("junk.parquet", InputFormat::kParquet, Schema({F("id", P("long"))}));
  ASSERT_FALSE(junk.ok());
  EXPECT_TRUE(junk.status().IsCorruption()) << junk.status().ToString();
}

TEST_F(IngestTest, ParquetNestedAssembly) {
  using PT = parquet::PhysicalType;
  using R = parquet::Repetition;
  using CT = parquet::ConvertedType;
  // s: struct<a int, tags list<string>>; legacy: 2-level list of structs; m: map<string,int>;
  // bare: repeated int32 (a required list of required elements).
  auto schema = parquet::Schema::FromElements({
      Root(4),
      GroupE("s", R::kOptional, 2),
      LeafE("a", PT::kInt32),
      GroupE("tags", R::kOptional, 1, CT::kList),
      GroupE("list", R::kRepeated, 1),
      LeafE("element", PT::kByteArray, R::kOptional, StrType()),
      GroupE("legacy", R::kOptional, 1, CT::kList),
      GroupE("array", R::kRepeated, 2),
      LeafE("x", PT::kInt64, R::kRequired),
      LeafE("y", PT::kDouble, R::kOptional),
      GroupE("m", R::kOptional, 1, CT::kMap),
      GroupE("key_value", R::kRepeated, 2),
      LeafE("key", PT::kByteArray, R::kRequired, StrType()),
      LeafE("value", PT::kInt32, R::kOptional),
      LeafE("bare", PT::kInt32, R::kRepeated),
  });
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  Rows rows = {
      {Value::Struct({Value::Int(1), Value::List({Value::String("a"), Value::Null(), Value::String("b")})}),
       Value::List({Value::Struct({Value::Int(1), Value::Double(0.5)}), Value::Struct({Value::Int(2), Value::Null()})}),
       Value::Map({{Value::String("k"), Value::Int(1)}, {Value::String("n"), Value::Null()}}),
       Value::List({Value::Int(4), Value::Int(5)})},
      {Value::Null(), Value::Null(), Value::Null(), Value::List({})},
      {Value::Struct({Value::Null(), Value::Null()}), Value::List({}), Value::Map({}), Value::List({Value::Int(6)})},
      {Value::Struct({Value::Int(2), Value::List({})}), Value::List({Value::Struct({Value::Int(3), Value::Double(1)})}),
       Value::Null(), Value::List({})},
  };
  ASSERT_TRUE(WriteParquet(fs_.get(), "nested.parquet", *schema, {rows, rows}).ok());
  auto table = Schema({F("s", StructT({F("a", P("long")), F("tags", ArrayT(P("string"))), F("missing", P("date"))})),
                       F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                       F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer"), false))});
  for (size_t batch : {1, 2, 8192}) {
    auto got = Read("nested.parquet", InputFormat::kParquet, table, batch);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<std::string> expected = {
        "({i1,['a',null,'b'],null}, [{i1,d0.5},{i2,null}], map['k':i1,'n':null], [i4,i5])",
        "(null, null, null, [])",
        "({null,null,null}, [], map[], [i6])",
        "({i2,[],null}, [{i3,d1}], null, [])"};
    const std::vector<std::string> once = expected;
    expected.insert(expected.end(), once.begin(), once.end());
    EXPECT_EQ(Show(*got), expected) << "batch " << batch;
  }
  // Type mismatches inside nested columns name the nested path.
  auto bad = Read("nested.parquet", InputFormat::kParquet,
                  Schema({F("s", StructT({F("a", P("long")), F("tags", ArrayT(P("long")))})),
                          F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                          F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer")))}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "nested.parquet: column 's.tags.element': the file has BYTE_ARRAY STRING, which cannot be read as long");
  auto extra = Read("nested.parquet", InputFormat::kParquet,
                    Schema({F("s", StructT({F("tags", ArrayT(P("string")))})),
                            F("legacy", ArrayT(StructT({F("x", P("long")), F("y", P("double"))}))),
                            F("m", MapT(P("string"), P("integer"))), F("bare", ArrayT(P("integer")))}));
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(), "nested.parquet: column 's.a': not in the table schema");
}

// The Delta type a Parquet node reads as (test helper for the corpus cross-check).
Result<std::string> DeltaTypeOf(const parquet::Schema& s, int node, bool once) {
  using LK = parquet::LogicalType::Kind;
  using PT = parquet::PhysicalType;
  const parquet::SchemaNode& n = s.node(node);
  if (n.is_leaf() && (once || n.kind == parquet::NodeKind::kPrimitive)) {
    const auto& e = n.element;
    const auto& lt = e.logical_type;
    const auto ct = e.converted_type;
    if (lt.kind == LK::kDecimal || ct == parquet::ConvertedType::kDecimal) {
      int p = lt.kind == LK::kDecimal ? lt.precision : e.precision.value_or(0);
      int sc = lt.kind == LK::kDecimal ? lt.scale : e.scale.value_or(0);
      return P(fmt::format("decimal({},{})", p, sc));
    }
    switch (*e.type) {
      case PT::kBoolean: return P("boolean");
      case PT::kFloat: return P("float");
      case PT::kDouble: return P("double");
      case PT::kInt96: return P("timestamp");
      case PT::kInt32:
        if (lt.kind == LK::kDate || ct == parquet::ConvertedType::kDate) return P("date");
        if (lt.kind == LK::kInteger && lt.bit_width == 8 && lt.is_signed) return P("byte");
        if (lt.kind == LK::kInteger && lt.bit_width == 16 && lt.is_signed) return P("short");
        if (lt.kind == LK::kInteger && !lt.is_signed) return P("long");
        if (lt.kind != LK::kNone && lt.kind != LK::kInteger) return Status::NotSupported("leaf type");
        return P("integer");
      case PT::kInt64:
        if (lt.kind == LK::kTimestamp) return P(lt.is_adjusted_to_utc ? "timestamp" : "timestamp_ntz");
        if (ct == parquet::ConvertedType::kTimestampMicros || ct == parquet::ConvertedType::kTimestampMillis) {
          return P("timestamp");
        }
        if (lt.kind != LK::kNone && !(lt.kind == LK::kInteger && lt.is_signed)) return Status::NotSupported("leaf");
        return P("long");
      case PT::kByteArray:
        if (lt.kind == LK::kString || ct == parquet::ConvertedType::kUtf8) return P("string");
        if (lt.kind != LK::kNone) return Status::NotSupported("leaf");
        return P("binary");
      case PT::kFixedLenByteArray:
        if (lt.kind != LK::kNone) return Status::NotSupported("leaf");
        return P("binary");
    }
  }
  auto optional = [&](int c) { return s.node(c).repetition == parquet::Repetition::kOptional; };
  if (!n.is_leaf() && (once || n.kind == parquet::NodeKind::kStruct)) {
    std::vector<std::string> fields;
    for (int c : n.children) {
      LITHIFY_ASSIGN_OR_RETURN(std::string t, DeltaTypeOf(s, c, false));
      fields.push_back(F(s.node(c).name, t, optional(c)));
    }
    return StructT(fields);
  }
  if (n.kind == parquet::NodeKind::kList) {
    const bool elem_once = n.element_node == n.repeated_node;
    LITHIFY_ASSIGN_OR_RETURN(std::string t, DeltaTypeOf(s, n.element_node, elem_once));
    return ArrayT(t, !elem_once && optional(n.element_node));
  }
  if (n.kind == parquet::NodeKind::kMap && n.value_node >= 0) {
    LITHIFY_ASSIGN_OR_RETURN(std::string k, DeltaTypeOf(s, n.key_node, false));
    LITHIFY_ASSIGN_OR_RETURN(std::string v, DeltaTypeOf(s, n.value_node, false));
    return MapT(k, v, optional(n.value_node));
  }
  return Status::NotSupported("node shape");
}

// Two independent assemblies must agree on real files: ReadInput(parquet) (this module's
// record assembler) and rows_json's canonical text read back through ReadInput(jsonl).
TEST(IngestCorpusTest, ParquetInputAgreesWithCanonicalJsonOfCorpusFiles) {
  const std::string dir = std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/parquet-testing/data/";
  auto local = io::NewLocalFileSystem();
  auto mem = io::NewMemoryFileSystem();
  int compared = 0;
  for (const char* name : {"nested_lists.snappy.parquet", "null_list.parquet", "repeated_primitive_no_list.parquet",
                           "nested_structs.rust.parquet", "nested_maps.snappy.parquet", "old_list_structure.parquet",
                           "repeated_no_annotation.parquet", "list_columns.parquet", "alltypes_plain.parquet",
                           "alltypes_plain.snappy.parquet", "datapage_v2.snappy.parquet", "nonnullable.impala.parquet",
                           "nullable.impala.parquet", "int32_decimal.parquet", "byte_array_decimal.parquet",
                           "fixed_length_decimal.parquet", "int64_decimal.parquet"}) {
    const std::string path = dir + name;
    if (!local->Head(path).ok()) continue;
    auto reader = parquet::FileReader::Open(local.get(), path);
    ASSERT_TRUE(reader.ok()) << name;
    const parquet::Schema& ps = (*reader)->schema();
    std::vector<std::string> fields;
    bool supported = true;
    for (int c : ps.top_level_fields()) {
      auto t = DeltaTypeOf(ps, c, false);
      if (!t.ok()) {
        supported = false;
        break;
      }
      fields.push_back(F(ps.node(c).name, *t, ps.node(c).repetition != parquet::Repetition::kRequired));
    }
    if (!supported) continue;
    auto schema = delta::ParseSchema(StructT(fields));
    ASSERT_TRUE(schema.ok()) << name << ": " << schema.status().ToString();
    std::string text;
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      auto batch = (*reader)->ReadRowGroup(rg, {});
      ASSERT_TRUE(batch.ok()) << name;
      ASSERT_TRUE(parquet::RenderRows(ps, ps.top_level_fields(), *batch, parquet::RowFormat::kJsonLines, -1, &text).ok());
    }
    ASSERT_TRUE(mem->WriteFile("x.jsonl", AsBytes(text)).ok());
    Rows from_parquet, from_json;
    auto collect = [](Rows* out) {
      return [out](Rows&& b) {
        for (auto& r : b) out->push_back(std::move(r));
        return Status::OK();
      };
    };
    Status a = ReadInput(local.get(), path, InputFormat::kParquet, *schema, collect(&from_parquet), 5);
    Status b = ReadInput(mem.get(), "x.jsonl", InputFormat::kJsonl, *schema, collect(&from_json));
    ASSERT_EQ(a.ok(), b.ok()) << name << ": " << a.ToString() << " vs " << b.ToString();
    if (!a.ok()) continue;
    EXPECT_EQ(Show(from_parquet), Show(from_json)) << name;
    ++compared;
  }
  EXPECT_GE(compared, 8);
  std::printf("compared %d corpus files\n", compared);
}

// Damaged input of every format gives an error status, never a crash.
TEST_F(IngestTest, MutatedInputNeverCrashes) {
  const std::string jsonl =
      R"({"id":1,"s":{"a":7,"b":["x",null]},"arr":[{"x":1.5},null],"m":[{"key":"k","value":[1]}],"mi":[]})";
  const std::string csv = "a,b,c\n1,\"x\"\"y\",2024-01-01\n";
  auto csv_schema = Schema({F("a", P("long")), F("b", P("string")), F("c", P("date"))});
  auto pq_schema = parquet::BuildSchema(RoundTripSpecs());
  ASSERT_TRUE(pq_schema.ok());
  ASSERT_TRUE(WriteParquet(fs_.get(), "good.parquet", *pq_schema, {RoundTripRows()}).ok());
  auto good = fs_->ReadFile("good.parquet");
  ASSERT_TRUE(good.ok());
  const std::string pq(AsStringView(good->view()));
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  auto mutate = [&](std::string text) {
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) text[next() % text.size()] = static_cast<char>(next());
    return text;
  };
  int errors = 0;
  for (int i = 0; i < 300; ++i) {
    auto j = ReadText("m.jsonl", mutate(jsonl), NestedSchema());
    auto c = ReadText("m.csv", mutate(csv), csv_schema);
    Write("m.parquet", mutate(pq));
    auto q = Read("m.parquet", InputFormat::kParquet, RoundTripSchema());
    for (const Status& st : {j.status(), c.status(), q.status()}) {
      if (st.ok()) continue;
      ++errors;
      EXPECT_TRUE(st.IsInvalidArgument() || st.IsCorruption() || st.IsNotSupported()) << st.ToString();
    }
  }
  EXPECT_GT(errors, 100);
}

TEST(IngestLocalFsTest, ReadsFromTheLocalFileSystem) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("lithify_ingest_{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto fs = io::NewLocalFileSystem();
  const std::string path = (dir / "x.csv").string();
  ASSERT_TRUE(fs->WriteFile(path, AsBytes("a\n1\n2\n")).ok());
  Rows rows;
  Status st = ReadInput(fs.get(), path, InputFormatFromPath(path), Schema({F("a", P("long"))}),
                        [&](Rows&& b) {
                          for (auto& r : b) rows.push_back(std::move(r));
                          return Status::OK();
                        });
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Show(rows), (std::vector<std::string>{"(i1)", "(i2)"}));
}

// ---------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------

delta::StructType DemoSchema() {
  return Schema({F("event_time", P("timestamp")), F("event_date", P("date")), F("customer_id", P("long")),
                 F("amount", P("decimal(12,2)")), F("category", P("string")), F("country", P("string")),
                 F("note", P("string"))});
}

Result<Rows> Generate(const delta::StructType& schema, const GeneratorOptions& o, size_t batch = 8192) {
  Rows rows;
  Status st = GenerateRows(schema, o,
                           [&](Rows&& b) {
                             EXPECT_LE(b.size(), batch);
                             for (auto& r : b) rows.push_back(std::move(r));
                             return Status::OK();
                           },
                           batch);
  if (!st.ok()) return st;
  return rows;
}

TEST(GeneratorTest, DemoSchemaDdl) {
  EXPECT_EQ(DemoSchemaDdl(),
            "event_time timestamp, event_date date, customer_id long, amount decimal(12,2), category string, "
            "country string, note string");
}

TEST(GeneratorTest, DeterministicForSeedAndIndependentOfBatching) {
  GeneratorOptions o;
  o.rows = 2000;
  o.seed = 42;
  auto a = Generate(DemoSchema(), o, 8192);
  auto b = Generate(DemoSchema(), o, 7);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 2000u);
  EXPECT_EQ(Show(*a), Show(*b));
  o.seed = 43;
  auto c = Generate(DemoSchema(), o);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(Show(*a), Show(*c));
}

TEST(GeneratorTest, DemoDistributions) {
  GeneratorOptions o;
  o.rows = 100000;
  o.num_customers = 10000;
  auto rows = Generate(DemoSchema(), o);
  ASSERT_TRUE(rows.ok());
  const int64_t start = o.start_time_ms * 1000, end = (o.start_time_ms + o.time_span_ms) * 1000;
  std::map<int64_t, int64_t> per_customer;
  int64_t decreases = 0, notes_null = 0, prev = start;
  std::map<std::string, int64_t> categories;
  for (const auto& r : *rows) {
    ASSERT_EQ(r.size(), 7u);
    const int64_t ts = r[0].int_value();
    ASSERT_GE(ts, start);
    ASSERT_LT(ts, end);
    if (ts < prev) ++decreases;
    prev = ts;
    EXPECT_EQ(r[1].int_value(), FloorDiv(ts, kMicrosPerDay));
    const int64_t id = r[2].int_value();
    ASSERT_GE(id, 1);
    ASSERT_LE(id, o.num_customers);
    ++per_customer[id];
    ASSERT_EQ(r[3].kind(), Value::Kind::kDecimal);
    EXPECT_GT(r[3].decimal(), 0);
    EXPECT_LT(r[3].decimal(), static_cast<__int128>(1000000000000LL));
    ASSERT_EQ(r[4].kind(), Value::Kind::kBytes);
    ++categories[r[4].bytes()];
    ASSERT_EQ(r[5].kind(), Value::Kind::kBytes);
    EXPECT_EQ(r[5].bytes().size(), 2u);
    if (r[6].is_null()) {
      ++notes_null;
    } else {
      EXPECT_LE(r[6].bytes().size(), 200u);
    }
  }
  // Non-decreasing-ish: jitter reorders neighbours only.
  EXPECT_LT(decreases, o.rows / 2);
  EXPECT_GT((*rows).back()[0].int_value() - (*rows).front()[0].int_value(), (end - start) * 9 / 10);
  // Zipf skew: the top 1% of customers hold a large share of rows.
  std::vector<int64_t> counts;
  for (auto& [id, n] : per_customer) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  int64_t top = 0;
  for (int64_t i = 0; i < o.num_customers / 100 && i < static_cast<int64_t>(counts.size()); ++i) top += counts[i];
  EXPECT_GT(top, o.rows * 30 / 100) << "top 1% share " << top;
  // The most frequent customer is not simply id 1 (ranks are permuted).
  EXPECT_LT(per_customer[1], counts[0]);
  EXPECT_GT(notes_null, o.rows / 20);
  EXPECT_LT(notes_null, o.rows / 2);
  EXPECT_GE(categories.size(), 5u);
  EXPECT_LE(categories.size(), 12u);
  EXPECT_GT(categories["electronics"], categories["office"]);
}

TEST(GeneratorTest, EveryTypeNestedAndNullsOnlyWhereNullable) {
  auto schema = Schema({F("b", P("boolean"), false), F("y", P("byte")), F("sh", P("short"), false),
                        F("i", P("integer")), F("l", P("long"), false), F("f", P("float")), F("d", P("double")),
                        F("dec", P("decimal(38,10)"), false), F("s", P("string"), false), F("bin", P("binary")),
                        F("dt", P("date"), false), F("ntz", P("timestamp_ntz"), false),
                        F("st", StructT({F("a", P("integer"), false), F("b", ArrayT(P("string"), false))}), false),
                        F("m", MapT(P("string"), P("long"), false)), F("mb", MapT(P("boolean"), P("long"))),
                        F("item_id", P("short"), false)});
  GeneratorOptions o;
  o.rows = 3000;
  o.num_customers = 100000;  // above short's range: ids stay in range
  auto rows = Generate(schema, o);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  int64_t nulls = 0;
  for (const auto& r : *rows) {
    for (size_t c = 0; c < r.size(); ++c) {
      if (r[c].is_null()) {
        EXPECT_TRUE(schema.fields[c].nullable) << schema.fields[c].name;
        ++nulls;
      }
    }
    EXPECT_GE(r[2].int_value(), -32768);
    EXPECT_LE(r[2].int_value(), 32767);
    ASSERT_EQ(r[12].kind(), Value::Kind::kStruct);
    EXPECT_FALSE(r[12].items()[0].is_null());
    if (!r[12].items()[1].is_null()) {
      ASSERT_EQ(r[12].items()[1].kind(), Value::Kind::kList);
      for (const Value& e : r[12].items()[1].items()) EXPECT_FALSE(e.is_null());
    }
    if (!r[13].is_null()) {
      std::set<std::string> keys;
      for (size_t k = 0; k < r[13].map_size(); ++k) {
        EXPECT_FALSE(r[13].map_value(k).is_null());
        keys.insert(r[13].map_key(k).bytes());
      }
      EXPECT_EQ(keys.size(), r[13].map_size());
    }
    if (!r[14].is_null()) {
      EXPECT_LE(r[14].map_size(), 2u);
    }
    EXPECT_GE(r[15].int_value(), 1);
    EXPECT_LE(r[15].int_value(), 32767);
  }
  EXPECT_GT(nulls, 0);
  // Every generated row is accepted by the Parquet row builder for the matching schema.
  using parquet::FieldSpec;
  auto pq = parquet::BuildSchema(
      {FieldSpec::Boolean("b", false), FieldSpec::Byte("y"), FieldSpec::Short("sh", false), FieldSpec::Int("i"),
       FieldSpec::Long("l", false), FieldSpec::Float("f"), FieldSpec::Double("d"),
       FieldSpec::Decimal("dec", 38, 10, false), FieldSpec::String("s", false), FieldSpec::Binary("bin"),
       FieldSpec::Date("dt", false), FieldSpec::TimestampNtz("ntz", false),
       FieldSpec::Struct("st", {FieldSpec::Int("a", false), FieldSpec::List("b", FieldSpec::String("e", false))},
                         false),
       FieldSpec::Map("m", FieldSpec::String("k"), FieldSpec::Long("v", false)),
       FieldSpec::Map("mb", FieldSpec::Boolean("k"), FieldSpec::Long("v")), FieldSpec::Short("item_id", false)});
  ASSERT_TRUE(pq.ok()) << pq.status().ToString();
  parquet::RowBatchBuilder builder(*pq);
  for (const auto& r : *rows) ASSERT_TRUE(builder.Append(r).ok()) << Show(r);
}

TEST(GeneratorTest, InvalidOptionsAndSinkErrors) {
  GeneratorOptions o;
  o.rows = -1;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.num_customers = 0;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.customer_skew = 0;
  EXPECT_TRUE(Generate(DemoSchema(), o).status().IsInvalidArgument());
  o = GeneratorOptions();
  o.rows = 10;
  auto v = Generate(Schema({F("v", P("void"), false)}), o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "column 'v': cannot generate values of type void (NOT NULL)");
  Status st = GenerateRows(DemoSchema(), o, [](Rows&&) { return Status::Cancelled("enough"); });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  o.rows = 0;
  auto none = Generate(DemoSchema(), o);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  // Skew 1 (the log form of rejection-inversion) and a single customer work.
  o.rows = 100;
  o.customer_skew = 1.0;
  o.num_customers = 1;
  auto one = Generate(DemoSchema(), o);
  ASSERT_TRUE(one.ok());
  for (const auto& r : *one) EXPECT_EQ(r[2].int_value(), 1);
}

// Reports throughput (no assertion on time). LITHIFY_GEN_BENCH_ROWS overrides the count.
TEST(GeneratorTest, ThroughputReport) {
  TuneAllocatorForStreaming();  // as the CLI does
  GeneratorOptions o;
  o.rows = 200000;
  if (const char* env = std::getenv("LITHIFY_GEN_BENCH_ROWS")) o.rows = std::atoll(env);
  int64_t seen = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  Status st = GenerateRows(DemoSchema(), o, [&](Rows&& b) {
    seen += static_cast<int64_t>(b.size());
    return Status::OK();
  });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(seen, o.rows);
  // CPU time is the fairer figure on a shared machine.
  std::printf("generator: %lld demo rows in %.3f s wall, %.3f s CPU = %.2f M rows per CPU-second\n",
              static_cast<long long>(seen), secs, cpu, static_cast<double>(seen) / cpu / 1e6);
}

}  // namespace
}  // namespace lithify::commands
