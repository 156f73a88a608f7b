// Tests of `files`: Delta's report (delta/files_report.h) on the kernel's golden tables,
// and the generic command (commands/files.h) on both formats.
#include "lithify/commands/files.h"

#include <gtest/gtest.h>

#include "lithify/commands/test_util.h"
#include "lithify/delta/files_report.h"

namespace lithify::commands {
namespace {

using table::FileVerdict;

TEST(FilesTest, PartitionSkippingWithReasons) {
  auto fs = io::NewLocalFileSystem();
  delta::FilesOptions opts;
  opts.where = "letter = 'a'";
  Result<delta::FilesReport> r = delta::ListFiles(fs.get(), testing::Kernel("basic_partitioned"), opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_total, 6);
  EXPECT_EQ(r->kept, 2);
  EXPECT_EQ(r->skipped_by_partition, 4);
  for (const delta::FileReportRow& row : r->files) {
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
  delta::FilesOptions opts;
  opts.where = "id > 0";
  Result<delta::FilesReport> r =
      delta::ListFiles(fs.get(), testing::Golden("data-skipping-partition-and-data-column"), opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->skipped_by_stats, 2);
  for (const delta::FileReportRow& row : r->files) {
    if (row.verdict == FileVerdict::kSkippedByStats) {
      EXPECT_NE(row.reason.find("id"), std::string::npos) << row.reason;
    }
  }
}

TEST(FilesTest, WithoutPredicateEveryFileIsKeptAndDvCardinalityShown) {
  auto fs = io::NewLocalFileSystem();
  Result<delta::FilesReport> r = delta::ListFiles(fs.get(), testing::Kernel("table-with-dv-small"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_FALSE(r->predicate.has_value());
  ASSERT_TRUE(r->files[0].file->deletion_vector.has_value());
  EXPECT_EQ(r->files[0].file->deletion_vector->cardinality, 2);
}

// One command for both formats: the format is probed, each answers in its own field
// names, and the shared parts (verdicts, summary, lookupCost) read the same way.
TEST(FilesTest, OneCommandForBothFormats) {
  auto fs = io::NewLocalFileSystem();
  FilesOptions delta_opts;
  delta_opts.where = "letter = 'a'";
  Result<FilesListing> d = ListTableFiles(fs.get(), testing::Kernel("basic_partitioned"), delta_opts);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->format, formats::TableFormat::kDelta);
  EXPECT_EQ(d->document["summary"]["files"], 6);
  EXPECT_EQ(d->document["summary"]["kept"], 2);
  EXPECT_EQ(d->document["files"][0]["partitionValues"].size(), 1u);
  EXPECT_EQ(d->document["lookupCost"]["filesOpened"], 2);
  EXPECT_EQ(LookupCostText(d->document).rfind("lookup cost: opens 2 of 6 files (33.3%), ", 0), 0u)
      << LookupCostText(d->document);

  const std::string base = testing::Corpus() + "/duckdb-iceberg/data/persistent/";
  FilesOptions ice_opts;
  ice_opts.location_map = {"data/persistent/=" + base};
  Result<FilesListing> i = ListTableFiles(fs.get(), base + "equality_deletes/warehouse/mydb/mytable", ice_opts);
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  EXPECT_EQ(i->format, formats::TableFormat::kIceberg);
  EXPECT_EQ(i->document["format"], "iceberg");
  ASSERT_FALSE(i->document["files"].empty());
  EXPECT_TRUE(i->document["files"][0].contains("file_path"));
  EXPECT_GE(i->document["summary"]["deleteFiles"].get<int64_t>(), 1);
  EXPECT_FALSE(i->document.contains("lookupCost"));
  EXPECT_EQ(LookupCostText(i->document), "");

  // A bad predicate is the format's InvalidArgument, for both.
  delta_opts.where = "no_such_column = 1";
  EXPECT_TRUE(ListTableFiles(fs.get(), testing::Kernel("basic_partitioned"), delta_opts).status().IsInvalidArgument());
  ice_opts.where = "no_such_column = 1";
  Result<FilesListing> bad = ListTableFiles(fs.get(), base + "equality_deletes/warehouse/mydb/mytable", ice_opts);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
}

}  // namespace
}  // namespace lithify::commands
