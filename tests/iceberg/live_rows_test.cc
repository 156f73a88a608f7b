// Iceberg's side of the live-rows primitive (table/live_rows.h) on corpus tables with
// position and equality deletes: the neutral interface yields the same live rows as the
// Iceberg reader, rows-only reading counts them without columns, and columns resolve by
// field id.
#include <gtest/gtest.h>

#include "lithify/iceberg/reader.h"
#include "test_util.h"

namespace lithify::iceberg {
namespace {

using testing::Corpus;

std::string Impala(const std::string& name, const std::string& metadata) {
  return Corpus() + "/impala/testdata/data/iceberg_test/hadoop_catalog/ice/" + name + "/metadata/" + metadata;
}

struct Counts {
  int64_t rows = 0;
  int64_t deleted = 0;
  int64_t files = 0;
  size_t columns = 0;
};

// Every live file of the current snapshot through the neutral interface.
Result<Counts> ReadNeutral(const std::string& where, bool rows_only) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  LITHIFY_ASSIGN_OR_RETURN(auto table, IcebergTable::Open(fs, where, OpenOptions{testing::CorpusMap()}));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, table->Select(SnapshotSelector{}));
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<IcebergLiveRows> rows, IcebergLiveRows::Make(table, snap));
  const table::LiveRows& live = *rows;
  std::vector<int> leaves;
  if (!rows_only) {
    for (int i = 0; i < live.schema().num_leaves(); ++i) leaves.push_back(i);
  }
  Counts c;
  LITHIFY_RETURN_NOT_OK(table->PlanFiles(snap, {}, [&](PlannedFile&& p) -> Status {
    const IcebergLiveFile file = rows->Describe(std::move(p));
    ++c.files;
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> r, live.Open(file, leaves));
    table::LiveBatch b;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, r->Next(&b));
      if (!more) break;
      if (static_cast<int64_t>(b.row_index.size()) != b.batch.num_rows) return Status::Internal("row index count");
      for (size_t i = 1; i < b.row_index.size(); ++i) {
        if (b.row_index[i] <= b.row_index[i - 1]) return Status::Internal("row index not ascending");
      }
      c.rows += b.batch.num_rows;
      c.columns = std::max(c.columns, b.batch.columns.size());
    }
    c.deleted += r->deleted_rows();
    return Status::OK();
  }));
  return c;
}

TEST(IcebergLiveRows, NeutralReadersApplyPositionAndEqualityDeletes) {
  // corpus_expected.json: 2 live rows after both kinds of deletes.
  const std::string where = Impala("iceberg_v2_delete_both_eq_and_pos", "v4.metadata.json");
  Result<Counts> all = ReadNeutral(where, false);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->rows, 2);
  EXPECT_GT(all->deleted, 0);
  EXPECT_EQ(all->columns, 3u);
  Result<Counts> counted = ReadNeutral(where, true);
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  EXPECT_EQ(counted->rows, 2);
  EXPECT_EQ(counted->deleted, all->deleted);
  EXPECT_EQ(counted->columns, 0u);  // rows only: no column handed out
}

TEST(IcebergLiveRows, VersionViewResolvesFieldIdsAndRefusesForeignFiles) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  auto table = IcebergTable::Open(fs, Impala("iceberg_v2_delete_positional", "v2.metadata.json"),
                                  OpenOptions{testing::CorpusMap()});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto snap = (*table)->Select(SnapshotSelector{});
  ASSERT_TRUE(snap.ok());
  auto rows = IcebergLiveRows::Make(*table, *snap);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const table::TableVersion& v = (*rows)->version();
  EXPECT_EQ(v.format, "iceberg");
  EXPECT_EQ(v.version, (*snap)->snapshot_id);
  ASSERT_EQ(v.columns.size(), static_cast<size_t>((*rows)->schema().num_leaves()));
  for (size_t i = 0; i < v.columns.size(); ++i) {
    ASSERT_TRUE(v.columns[i].field_id.has_value());
    auto by_id = (*rows)->LeavesByFieldId({*v.columns[i].field_id});
    ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
    EXPECT_EQ(*by_id, std::vector<int>{static_cast<int>(i)});
    auto by_path = (*rows)->LeavesByPhysicalPath({v.columns[i].physical_path});
    ASSERT_TRUE(by_path.ok());
    EXPECT_EQ(*by_path, std::vector<int>{static_cast<int>(i)});
  }
  EXPECT_TRUE((*rows)->LeavesByFieldId({987654}).status().IsNotFound());
  table::LiveFile foreign;
  foreign.path = "/elsewhere/x.parquet";
  auto opened = (*rows)->Open(foreign, {0});
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(opened.status().IsInvalidArgument());
  EXPECT_NE(opened.status().message().find("/elsewhere/x.parquet"), std::string::npos);
}

}  // namespace
}  // namespace lithify::iceberg
