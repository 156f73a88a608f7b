#include "lithify/commands/files.h"

#include <gtest/gtest.h>

#include "lithify/commands/test_util.h"

namespace lithify::commands {
namespace {

TEST(FilesTest, PartitionSkippingWithReasons) {
  auto fs = io::NewLocalFileSystem();
  FilesOptions opts;
  opts.where = "letter = 'a'";
  Result<FilesReport> r = ListFiles(fs.get(), testing::Kernel("basic_partitioned"), opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_total, 6);
  EXPECT_EQ(r->kept, 2);
  EXPECT_EQ(r->skipped_by_partition, 4);
  for (const FileReportRow& row : r->files) {
    ASSERT_EQ(row.partition_values.size(), 1u);
    const bool is_a = row.partition_values[0].second == std::optional<std::string>("a");
    EXPECT_EQ(row.verdict, is_a ? FileVerdict::kKept : FileVerdict::kSkippedByPartition);
    if (!is_a) {
      EXPECT_NE(row.reason.find("letter"), std::string::npos) << row.reason;
    }
  }
}

TEST(FilesTest, StatsSkippingNamesTheBound) {
  auto fs = io::NewLocalFileSystem();
  FilesOptions opts;
  opts.where = "id > 0";
  Result<FilesReport> r =
      ListFiles(fs.get(), testing::Golden("data-skipping-partition-and-data-column"), opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->skipped_by_stats, 2);
  for (const FileReportRow& row : r->files) {
    if (row.verdict == FileVerdict::kSkippedByStats) {
      EXPECT_NE(row.reason.find("id"), std::string::npos) << row.reason;
    }
  }
}

TEST(FilesTest, WithoutPredicateEveryFileIsKeptAndDvCardinalityShown) {
  auto fs = io::NewLocalFileSystem();
  Result<FilesReport> r = ListFiles(fs.get(), testing::Kernel("table-with-dv-small"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_FALSE(r->predicate.has_value());
  ASSERT_TRUE(r->files[0].file->deletion_vector.has_value());
  EXPECT_EQ(r->files[0].file->deletion_vector->cardinality, 2);
}

}  // namespace
}  // namespace lithify::commands
