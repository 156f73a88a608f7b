// Tests of exec::SortRun: blocks read back as written (flat, nullable, nested and binary
// columns, keys), the file is never visible in its directory, and a damaged run is an
// error naming it, never a crash.
#include "lithify/exec/sort_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/rows_json.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::exec {
namespace {

using parquet::FieldSpec;
using parquet::Value;

class SortRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lithify-run-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto s = parquet::BuildSchema({FieldSpec::Long("k", false), FieldSpec::String("s"),
                                   FieldSpec::List("l", FieldSpec::Int("e")), FieldSpec::Double("d")});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    schema_ = std::move(*s);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  parquet::RowBatch Rows(int first, int n) {
    parquet::RowBatchBuilder b(schema_);
    for (int i = first; i < first + n; ++i) {
      std::vector<Value> items;
      for (int j = 0; j < i % 3; ++j) items.push_back(Value::Int(i * 10 + j));
      EXPECT_TRUE(b.Append({Value::Int(i), i % 4 == 0 ? Value::Null() : Value::String("v" + std::to_string(i)),
                            i % 5 == 0 ? Value::Null() : Value::List(std::move(items)),
                            i % 2 == 0 ? Value::Null() : Value::Double(i * 1.5)})
                      .ok());
    }
    return b.Finish();
  }
  std::string Render(const parquet::RowBatch& b) {
    std::string out;
    EXPECT_TRUE(parquet::RenderRows(schema_, schema_.top_level_fields(), b, parquet::RowFormat::kJsonLines, -1, &out)
                    .ok());
    return out;
  }
  // A run of two blocks (100 and 37 rows, keys "K<row>" padded to 8 bytes).
  std::unique_ptr<SortRun> WriteTwoBlocks(int64_t buffer_bytes) {
    auto run = SortRun::Create(dir_, "run-a", buffer_bytes);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    for (auto [first, n] : {std::pair{0, 100}, std::pair{100, 37}}) {
      EXPECT_TRUE((*run)->Append(Rows(first, n), Keys(first, n)).ok());
    }
    EXPECT_TRUE((*run)->FinishWriting().ok());
    return std::move(*run);
  }
  static std::string Keys(int first, int n) {
    std::string k;
    for (int i = first; i < first + n; ++i) {
      std::string one = "K" + std::to_string(i);
      one.resize(8, '.');
      k += one;
    }
    return k;
  }

  std::string dir_;
  parquet::Schema schema_;
};

TEST_F(SortRunTest, BlocksReadBackAsWrittenAndTheFileIsNeverListed) {
  for (int64_t buffer : {int64_t{1}, int64_t{97}, int64_t{1} << 20}) {
    SCOPED_TRACE(buffer);
    std::unique_ptr<SortRun> run = WriteTwoBlocks(buffer);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 0) << "runs are unlinked at once";
    EXPECT_GT(run->size(), 0);
    parquet::RowBatch got;
    std::string keys;
    for (auto [first, n] : {std::pair{0, 100}, std::pair{100, 37}}) {
      auto more = run->Next(schema_, &got, &keys);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      ASSERT_TRUE(*more);
      EXPECT_EQ(got.num_rows, n);
      EXPECT_EQ(Render(got), Render(Rows(first, n)));
      EXPECT_EQ(keys, Keys(first, n));
      for (int c = 0; c < schema_.num_leaves(); ++c) EXPECT_EQ(got.columns[c].descr, &schema_.leaf(c));
    }
    auto end = run->Next(schema_, &got, &keys);
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(*end);
  }
}

TEST_F(SortRunTest, ReadingBeforeWritingEndsIsRefused) {
  auto run = SortRun::Create(dir_, "run-b", 64);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE((*run)->Append(Rows(0, 5), Keys(0, 5)).ok());
  parquet::RowBatch got;
  std::string keys;
  EXPECT_FALSE((*run)->Next(schema_, &got, &keys).ok());
  EXPECT_FALSE(SortRun::Create(dir_ + "/missing", "run-c", 64).ok());
}

// Every single byte of the first block's headers flipped, and the file cut short at every
// header boundary: reading reports the run by name or reads rows that are still
// consistent (a flipped byte inside a size can leave it valid), and never crashes
// (ASan/UBSan in CI).
TEST_F(SortRunTest, DamagedRunsAreErrorsNamingTheRun) {
  const int64_t header = 24 + 56 * schema_.num_leaves();
  for (int64_t at = 0; at < header; ++at) {
    std::unique_ptr<SortRun> run = WriteTwoBlocks(1 << 20);
    uint8_t byte = 0;
    ASSERT_EQ(pread(run->descriptor_for_test(), &byte, 1, at), 1);
    byte ^= 0xa5;
    ASSERT_EQ(pwrite(run->descriptor_for_test(), &byte, 1, at), 1);
    parquet::RowBatch got;
    std::string keys;
    auto more = run->Next(schema_, &got, &keys);
    if (!more.ok()) {
      EXPECT_NE(more.status().ToString().find("run-a"), std::string::npos) << more.status().ToString();
    }
  }
  for (int64_t cut : {int64_t{0} + 10, header - 1, header + 5}) {
    std::unique_ptr<SortRun> run = WriteTwoBlocks(1 << 20);
    ASSERT_EQ(ftruncate(run->descriptor_for_test(), cut), 0);
    parquet::RowBatch got;
    std::string keys;
    auto more = run->Next(schema_, &got, &keys);
    ASSERT_FALSE(more.ok()) << cut;
    EXPECT_NE(more.status().ToString().find("run-a"), std::string::npos) << more.status().ToString();
  }
}

}  // namespace
}  // namespace lithify::exec
