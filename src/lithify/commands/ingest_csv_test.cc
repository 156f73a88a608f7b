// Tests for CSV input (ingest_csv).
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


}  // namespace
}  // namespace lithify::commands
