#include "lithify/commands/describe.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lithify/commands/test_util.h"
#include "lithify/delta/describe.h"

namespace lithify::commands {
namespace {

// Delta's own answers (delta/describe.h).
using delta::DescribeDetail;
using delta::DescribeHistory;
using delta::HistoryEntry;
using delta::TableDetail;

TEST(DescribeTest, DetailOfPartitionedTable) {
  auto fs = io::NewLocalFileSystem();
  Result<TableDetail> d = DescribeDetail(fs.get(), testing::Kernel("basic_partitioned"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->format, "delta");
  EXPECT_EQ(d->partition_columns, std::vector<std::string>{"letter"});
  EXPECT_EQ(d->num_files, 6);
  EXPECT_GT(d->size_in_bytes, 0);
  EXPECT_EQ(d->min_reader_version, 1);
  EXPECT_EQ(d->min_writer_version, 2);
  EXPECT_EQ(d->table_features, (std::vector<std::string>{"appendOnly", "invariants"}));
}

TEST(DescribeTest, ClusteringColumnsFromDomainMetadata) {
  auto fs = io::NewLocalFileSystem();
  Result<TableDetail> d = DescribeDetail(fs.get(), testing::DeltaRs("table_with_liquid_clustering"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->clustering_columns, std::vector<std::string>{"id"});
}

TEST(DescribeTest, HistoryNewestFirstWithLimit) {
  auto fs = io::NewLocalFileSystem();
  Result<std::vector<HistoryEntry>> h =
      DescribeHistory(fs.get(), testing::Golden("basic-with-inserts-deletes-checkpoint"), 3);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].version, 13);
  EXPECT_EQ((*h)[2].version, 11);
  EXPECT_GT((*h)[0].timestamp_ms, (*h)[1].timestamp_ms);
  ASSERT_TRUE((*h)[0].commit_info.has_value());
  auto j = nlohmann::json::parse(*(*h)[0].commit_info);
  EXPECT_TRUE(j.contains("operation"));
}

TEST(DescribeTest, MissingTableIsNotFound) {
  auto fs = io::NewLocalFileSystem();
  Result<TableDetail> d = DescribeDetail(fs.get(), "/nonexistent/table");
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(d.status().IsNotFound()) << d.status().ToString();
}


// The generic command: each format answers in its own field names, the format probed
// when the caller does not name it.
TEST(DescribeTest, OneCommandForBothFormats) {
  auto fs = io::NewLocalFileSystem();
  Result<Description> d = DescribeTableDetail(fs.get(), testing::Kernel("basic_partitioned"), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->format, formats::TableFormat::kDelta);
  EXPECT_EQ(d->document["format"], "delta");
  EXPECT_EQ(d->document["numFiles"], 6);

  const std::string base = testing::Corpus() + "/duckdb-iceberg/data/persistent/";
  DescribeOptions opts;
  opts.location_map = {"data/persistent/=" + base};
  const std::string iceberg_table = base + "equality_deletes/warehouse/mydb/mytable";
  d = DescribeTableDetail(fs.get(), iceberg_table, opts);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->format, formats::TableFormat::kIceberg);
  EXPECT_EQ(d->document["format"], "iceberg");
  EXPECT_TRUE(d->document.contains("current-snapshot-id"));
  Result<Description> h = DescribeTableHistory(fs.get(), iceberg_table, opts);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_TRUE(h->document.is_array());
  ASSERT_FALSE(h->document.empty());
  EXPECT_TRUE(h->document[0].contains("snapshot-id"));

  opts = {};
  opts.limit = 2;
  h = DescribeTableHistory(fs.get(), testing::Golden("basic-with-inserts-deletes-checkpoint"), opts);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(h->document.size(), 2u);
  EXPECT_EQ(h->document[0]["version"], 13);
}

}  // namespace
}  // namespace lithify::commands
