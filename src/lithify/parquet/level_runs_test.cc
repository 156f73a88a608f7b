// Run-form levels (ColumnChunkReader keeps a page whose levels are a few runs as those
// runs, see column_reader.h) must read back exactly the levels and values that were
// written, whatever the page size and however batches cut the runs. The oracle is the
// generator below, not the reader.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lithify/io/filesystem.h"
#include "lithify/parquet/encoding.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::parquet {
namespace {

using V = Value;

constexpr int64_t kRows = 40000;

// a: optional long, mostly null (sparse values: bit-packed groups between RLE runs).
bool HasA(int64_t i) { return i % 1000 == 7 || (i >= 30000 && i < 30005) || i >= 39990; }
// s: optional struct {x: optional string}: null, then present with x null, then x set.
int SDef(int64_t i) { return i < 20000 ? 0 : i < 35000 ? 1 : 2; }
// m: optional map: null, empty, one entry, then two entries (repetition 1: a page
// holding those rows is not in run form).
int MapEntries(int64_t i) { return i < 10000 ? -1 : i < 20000 ? 0 : i < 39000 ? 1 : 2; }

std::vector<V> Row(int64_t i) {
  V a = HasA(i) ? V::Int(i) : V::Null();
  V s = SDef(i) == 0 ? V::Null() : V::Struct({SDef(i) == 2 ? V::String("v" + std::to_string(i)) : V::Null()});
  V m = V::Null();
  if (MapEntries(i) == 0) m = V::Map({});
  if (MapEntries(i) == 1) m = V::Map({{V::String("k"), V::String("v")}});
  if (MapEntries(i) == 2) m = V::Map({{V::String("a"), V::String("1")}, {V::String("b"), V::Null()}});
  return {a, s, m, V::Int(i)};
}

// The expected levels and values of each leaf: a, s.x, m.key, m.value, r.
struct Expected {
  std::vector<int16_t> def[5], rep[5];
  std::vector<std::string> values[5];  // as text
};

Expected Expect() {
  Expected e;
  for (int64_t i = 0; i < kRows; ++i) {
    e.def[0].push_back(HasA(i) ? 1 : 0);
    if (HasA(i)) e.values[0].push_back(std::to_string(i));
    e.def[1].push_back(static_cast<int16_t>(SDef(i)));
    if (SDef(i) == 2) e.values[1].push_back("v" + std::to_string(i));
    const int n = MapEntries(i);
    if (n <= 0) {
      for (int c : {2, 3}) {
        e.def[c].push_back(n < 0 ? 0 : 1);
        e.rep[c].push_back(0);
      }
    } else {
      for (int k = 0; k < n; ++k) {
        const bool null_value = n == 2 && k == 1;
        e.def[2].push_back(2);
        e.def[3].push_back(null_value ? 2 : 3);
        e.rep[2].push_back(k == 0 ? 0 : 1);
        e.rep[3].push_back(k == 0 ? 0 : 1);
        e.values[2].push_back(n == 1 ? "k" : k == 0 ? "a" : "b");
        if (!null_value) e.values[3].push_back(n == 1 ? "v" : "1");
      }
    }
    e.values[4].push_back(std::to_string(i));
  }
  return e;
}

std::string ValueText(const ColumnValues& v, int64_t i) {
  if (v.is_byte_array()) return std::string(v.binary(i));
  return std::to_string(v.value<int64_t>(i));
}

std::string WriteFile(int64_t page_size) {
  const std::string path = testing::TempDir() + "/level_runs_" + std::to_string(page_size) + ".parquet";
  auto schema = BuildSchema({FieldSpec::Long("a"), FieldSpec::Struct("s", {FieldSpec::String("x")}),
                             FieldSpec::Map("m", FieldSpec::String("key", false), FieldSpec::String("value")),
                             FieldSpec::Long("r", false)});
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  auto fs = io::NewLocalFileSystem();
  auto out = fs->Create(path);
  EXPECT_TRUE(out.ok());
  WriterOptions wo;
  wo.codec = CompressionCodec::kSnappy;
  wo.page_size_bytes = page_size;
  auto w = FileWriter::Open(std::move(*out), *schema, wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  RowBatchBuilder b((*w)->schema());
  for (int64_t i = 0; i < kRows; ++i) EXPECT_TRUE(b.Append(Row(i)).ok());
  EXPECT_TRUE((*w)->WriteBatch(b.Finish()).ok());
  EXPECT_TRUE((*w)->Close().ok());
  return path;
}

TEST(LevelRunsTest, StreamedBatchesEqualTheWrittenLevelsAndValues) {
  const Expected e = Expect();
  auto fs = io::NewLocalFileSystem();
  // One page per column (runs spanning the chunk) and small pages (runs cut by pages).
  for (int64_t page_size : {int64_t{1} << 20, int64_t{512}}) {
    const std::string path = WriteFile(page_size);
    auto reader = FileReader::Open(fs.get(), path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ASSERT_EQ((*reader)->num_row_groups(), 1);
    for (int64_t batch_rows : {int64_t{1}, int64_t{3}, int64_t{999}, int64_t{16384}, kRows}) {
      SCOPED_TRACE("page size " + std::to_string(page_size) + ", batch " + std::to_string(batch_rows));
      auto stream = (*reader)->OpenRowGroup(0, {}, batch_rows);
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      Expected got;
      int64_t rows = 0;
      RowBatch batch;
      while (true) {
        auto more = (*stream)->Next(&batch);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        rows += batch.num_rows;
        ASSERT_EQ(batch.columns.size(), 5u);
        for (int c = 0; c < 5; ++c) {
          const ColumnData& col = batch.columns[c];
          ASSERT_EQ(static_cast<int64_t>(col.def_levels.size()), c == 4 ? 0 : col.num_levels);
          got.def[c].insert(got.def[c].end(), col.def_levels.begin(), col.def_levels.end());
          got.rep[c].insert(got.rep[c].end(), col.rep_levels.begin(), col.rep_levels.end());
          for (int64_t v = 0; v < col.values.count; ++v) got.values[c].push_back(ValueText(col.values, v));
        }
      }
      EXPECT_EQ(rows, kRows);
      for (int c = 0; c < 5; ++c) {
        EXPECT_EQ(got.def[c], e.def[c]) << "column " << c;
        EXPECT_EQ(got.rep[c], e.rep[c]) << "column " << c;
        EXPECT_EQ(got.values[c], e.values[c]) << "column " << c;
      }
    }
  }
}

// RleRuns reports what Decode would write, merging equal neighbours across RLE and
// bit-packed runs, and declines data with too many runs or that ends early.
TEST(LevelRunsTest, RleRunsMatchesDecode) {
  std::vector<uint32_t> values;
  for (int i = 0; i < 5; ++i) values.push_back(1);
  for (int i = 0; i < 8; ++i) values.push_back(i % 2);  // literal: bit-packed
  for (int i = 0; i < 1000; ++i) values.push_back(0);
  for (int i = 0; i < 300; ++i) values.push_back(2);
  RleBitPackedEncoder enc(2);
  enc.PutMany(values.data(), values.size());
  Buffer bytes;
  enc.Flush(&bytes);
  RleBitPackedDecoder dec(bytes.data(), bytes.size(), 2);
  std::vector<std::pair<uint64_t, uint32_t>> runs;
  ASSERT_TRUE(dec.RleRuns(values.size(), 64, &runs));
  std::vector<uint32_t> expanded;
  for (const auto& [count, v] : runs) expanded.insert(expanded.end(), count, v);
  EXPECT_EQ(expanded, values);
  for (size_t i = 1; i < runs.size(); ++i) EXPECT_NE(runs[i].second, runs[i - 1].second);
  std::vector<uint32_t> decoded(values.size());
  ASSERT_TRUE(dec.Decode(decoded.data(), decoded.size()).ok());  // not advanced by RleRuns
  EXPECT_EQ(decoded, values);
  RleBitPackedDecoder again(bytes.data(), bytes.size(), 2);
  EXPECT_FALSE(again.RleRuns(values.size(), 3, &runs));           // more runs than allowed
  EXPECT_FALSE(again.RleRuns(values.size() + 100, 64, &runs));    // data ends first
  ASSERT_TRUE(again.RleRuns(4, 64, &runs));                       // a prefix
  EXPECT_EQ(runs, (std::vector<std::pair<uint64_t, uint32_t>>{{4, 1}}));
}

}  // namespace
}  // namespace lithify::parquet
