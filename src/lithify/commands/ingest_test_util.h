// Helpers of the ingest tests (ingest_test, ingest_jsonl_test, ingest_csv_test,
// ingest_parquet_test, generator_test; one binary): schema JSON builders, a readable
// rendering of rows, the in-memory fixture, and a Parquet file writer for inputs.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/commands/ingest.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::commands::ingest_test {

using parquet::Value;
using Rows = std::vector<std::vector<Value>>;

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

inline std::string F(const std::string& name, const std::string& type, bool nullable = true) {
  return fmt::format(R"({{"name":"{}","type":{},"nullable":{},"metadata":{{}}}})", name, type, nullable);
}
inline std::string P(const std::string& primitive) { return "\"" + primitive + "\""; }
inline std::string StructT(const std::vector<std::string>& fields) {
  return fmt::format(R"({{"type":"struct","fields":[{}]}})", fmt::join(fields, ","));
}
inline std::string ArrayT(const std::string& element, bool contains_null = true) {
  return fmt::format(R"({{"type":"array","elementType":{},"containsNull":{}}})", element, contains_null);
}
inline std::string MapT(const std::string& key, const std::string& value, bool value_contains_null = true) {
  return fmt::format(R"({{"type":"map","keyType":{},"valueType":{},"valueContainsNull":{}}})", key, value,
                     value_contains_null);
}
inline delta::StructType Schema(const std::vector<std::string>& fields) {
  auto r = delta::ParseSchema(StructT(fields));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : delta::StructType{};
}

inline std::string Show(const Value& v) {
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
inline std::string Show(const std::vector<Value>& row) {
  std::vector<std::string> parts;
  for (const Value& v : row) parts.push_back(Show(v));
  return fmt::format("({})", fmt::join(parts, ", "));
}
inline std::vector<std::string> Show(const Rows& rows) {
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

inline int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s, int64_t us = 0) {
  return DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

inline Status WriteParquet(io::FileSystem* fs, const std::string& path, const parquet::Schema& schema,
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

// Every primitive type, nullable (JSONL and CSV tests).
inline delta::StructType AllPrimitives() {
  return Schema({F("b", P("boolean")), F("y", P("byte")), F("sh", P("short")), F("i", P("integer")),
                 F("l", P("long")), F("f", P("float")), F("d", P("double")), F("s", P("string")),
                 F("bin", P("binary")), F("dec", P("decimal(12,2)")), F("dt", P("date")),
                 F("ts", P("timestamp")), F("ntz", P("timestamp_ntz"))});
}

// Structs, arrays and maps (JSONL tests, mutated input).
inline delta::StructType NestedSchema() {
  return Schema({F("id", P("long"), false),
                 F("s", StructT({F("a", P("integer")), F("b", ArrayT(P("string")))})),
                 F("arr", ArrayT(StructT({F("x", P("double"), false)}))),
                 F("m", MapT(P("string"), ArrayT(P("integer")))),
                 F("mi", MapT(P("integer"), P("date"), false))});
}

}  // namespace lithify::commands::ingest_test
