// Iceberg's side of the live-rows primitive (table/live_rows.h) on corpus tables with
// position and equality deletes: the neutral interface yields the same live rows as the
// Iceberg reader, rows-only reading counts them without columns, and columns resolve by
// field id.
#include <gtest/gtest.h>

#include <algorithm>

#include "lithify/iceberg/reader.h"
#include "lithify/parquet/rows_json.h"
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

// Row lineage (v3) on the corpus's Spark 4.0.2 / Iceberg 1.10.1 table: five data files of
// one row each (i = 1..5 in files 00000..00004, listed in that order in the manifest of
// snapshot 1, whose first-row-id is 0 and sequence number 1), rows i = 2 and 4 deleted by
// deletion vectors. No file stores the lineage columns, so every value is inherited:
// _row_id = the file's first_row_id (0..4 by manifest order) + position 0, and
// _last_updated_sequence_number = the data sequence number 1.
std::vector<std::string> LineageRows(const std::string& where, const std::vector<std::string>& names) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  auto table = IcebergTable::Open(fs, where, OpenOptions{testing::CorpusMap()});
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return {};
  auto snap = (*table)->Select(SnapshotSelector{});
  auto rows = IcebergLiveRows::Make(*table, *snap, true);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok()) return {};
  const parquet::Schema& s = (*rows)->schema();
  std::vector<int> leaves, fields;
  for (const std::string& n : names) {
    auto node = s.FindNode(n);
    EXPECT_TRUE(node.ok()) << n;
    if (!node.ok()) return {};
    fields.push_back(*node);
    for (int l : s.LeavesUnder(*node)) leaves.push_back(l);
  }
  std::vector<std::string> out;
  std::string text;
  Status st = (*table)->PlanFiles(*snap, {}, [&](PlannedFile&& p) -> Status {
    const IcebergLiveFile file = (*rows)->Describe(std::move(p));
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> r, (*rows)->Open(file, leaves));
    table::LiveBatch b;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, r->Next(&b));
      if (!more) return Status::OK();
      // The rendered schema's leaves are the batch's columns in order: render a schema
      // of exactly the asked fields by remapping leaf numbers.
      for (size_t k = 0; k < b.batch.columns.size(); ++k) b.batch.columns[k].leaf_index = leaves[k];
      text.clear();
      LITHIFY_RETURN_NOT_OK(parquet::RenderRows(s, fields, b.batch, parquet::RowFormat::kJsonLines, -1, &text));
      for (size_t at = 0; at < text.size();) {
        const size_t nl = text.find('\n', at);
        out.push_back(text.substr(at, nl - at));
        at = nl + 1;
      }
    }
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::sort(out.begin(), out.end());
  return out;
}

TEST(IcebergLiveRows, RowLineageIsInheritedFromTheManifest) {
  const std::string where =
      Corpus() + "/impala/testdata/data/iceberg_test/iceberg_v3/iceberg_v3_deletion_vectors/metadata/v3.metadata.json";
  EXPECT_EQ(LineageRows(where, {"i", kRowIdColumn, kLastUpdatedSequenceNumberColumn}),
            (std::vector<std::string>{R"({"i":1,"_row_id":0,"_last_updated_sequence_number":1})",
                                      R"({"i":3,"_row_id":2,"_last_updated_sequence_number":1})",
                                      R"({"i":5,"_row_id":4,"_last_updated_sequence_number":1})"}));
  // Alone (no data column read): the positions still come from the row groups.
  EXPECT_EQ(LineageRows(where, {kRowIdColumn}),
            (std::vector<std::string>{R"({"_row_id":0})", R"({"_row_id":2})", R"({"_row_id":4})"}));
}

TEST(IcebergLiveRows, RowLineageNeedsFormatVersion3) {
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  auto table = IcebergTable::Open(fs, Impala("iceberg_v2_positional_delete_all_rows", "v3.metadata.json"),
                                  OpenOptions{testing::CorpusMap()});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto snap = (*table)->Select(SnapshotSelector{});
  ASSERT_TRUE(snap.ok());
  auto rows = IcebergLiveRows::Make(*table, *snap, true);
  ASSERT_FALSE(rows.ok());
  EXPECT_TRUE(rows.status().IsInvalidArgument());
  EXPECT_NE(rows.status().message().find("format version 3"), std::string::npos) << rows.status().ToString();
  // Without lineage the same table opens, and has no lineage column.
  auto plain = IcebergLiveRows::Make(*table, *snap);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE((*plain)->schema().FindNode(kRowIdColumn).ok());
}

TEST(IcebergLiveRows, RowLineageKeepsAColumnOfTheSameName) {
  Schema s;
  NestedField f;
  f.id = 7;
  f.name = kRowIdColumn;
  f.type = Type::Primitive(TypeId::kString);
  s.fields.push_back(f);
  const Schema with = WithRowLineage(s);
  ASSERT_EQ(with.fields.size(), 2u);
  EXPECT_EQ(with.fields[0].id, 7);  // the table's own column, untouched
  EXPECT_EQ(with.fields[1].id, kLastUpdatedSequenceNumberFieldId);
  EXPECT_EQ(with.fields[1].name, kLastUpdatedSequenceNumberColumn);
  EXPECT_EQ(with.fields[1].type.id, TypeId::kLong);
  EXPECT_FALSE(with.fields[1].required);
}

}  // namespace
}  // namespace lithify::iceberg
