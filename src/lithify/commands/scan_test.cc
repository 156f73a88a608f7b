#include "lithify/commands/scan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lithify/commands/test_util.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/delta/transaction.h"

namespace lithify::commands {
namespace {

using delta::FileDecision;
using delta::KeptFiles;
using delta::PlanKeptFiles;
using table::FileVerdict;
using delta::PlanScan;
using delta::PrepareScan;
using delta::ScanContext;
using testing::Corpus;
using testing::Golden;
using testing::Kernel;
using testing::Lines;

class ScanTest : public ::testing::Test {
 protected:
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();

  std::vector<std::string> Rows(const std::string& table, ScanOptions opts = {}) {
    Lines out;
    Result<ScanResult> r = Scan(fs_.get(), table, opts, out.sink.get());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::sort(out.lines.begin(), out.lines.end());
    return out.lines;
  }
};

TEST_F(ScanTest, DecimalPartitionAndLegacyLayoutRenderAlike) {
  // The same content written with the standard and the legacy decimal layouts.
  std::vector<std::string> a = Rows(Golden("basic-decimal-table"));
  std::vector<std::string> b = Rows(Golden("basic-decimal-table-legacy"));
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
  EXPECT_NE(std::find(a.begin(), a.end(),
                      R"({"part":"-2342342.23423","col1":"-999.99","col2":"-99999.99999","col3":"-9999999999.9999999999"})"),
            a.end());
}

TEST_F(ScanTest, Int96TimestampsReadAsUtcMicros) {
  std::vector<std::string> rows = Rows(Golden("kernel-timestamp-int96"));
  EXPECT_NE(std::find(rows.begin(), rows.end(),
                      R"({"id":0,"part":"2020-01-01T08:09:10.001000Z","time":"2020-02-01T08:09:10.000000Z"})"),
            rows.end());
  // Same values as the TIMESTAMP_MICROS table.
  EXPECT_EQ(rows, Rows(Golden("kernel-timestamp-timestamp_micros")));
}

TEST_F(ScanTest, DeletionVectorsRemoveRows) {
  ScanOptions opts;
  opts.count_only = true;
  Result<ScanResult> r = Scan(fs_.get(), Golden("dv-partitioned-with-checkpoint"), opts, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 35);
  // Counting by reading rows (a predicate forces it) agrees with the footer shortcut.
  opts.where = "col2 IS NOT NULL OR col1 >= 0";
  r = Scan(fs_.get(), Golden("dv-partitioned-with-checkpoint"), opts, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 35);
}

// The live-rows primitive (delta/live_rows.h) behind scan: deleted rows never come out,
// every live row carries its file row index, rows-only reading counts the same rows
// without columns, and the neutral description carries the DV.
TEST_F(ScanTest, LiveRowsApplyDeletionVectorsAndKeepRowIndexes) {
  Result<ScanContext> ctx = PrepareScan(fs_.get(), Golden("dv-partitioned-with-checkpoint"), {}, "");
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  const delta::DeltaLiveRows& rows = *ctx->rows;
  EXPECT_EQ(rows.version().format, "delta");
  EXPECT_FALSE(rows.version().partition_fields.empty());
  std::vector<int> all;
  for (int i = 0; i < rows.schema().num_leaves(); ++i) all.push_back(i);
  int64_t live = 0, counted = 0, with_dv = 0;
  for (const table::FileEntry& f : ctx->snapshot->files()) {
    Result<delta::DeltaLiveFile> lf = rows.Describe(f);
    ASSERT_TRUE(lf.ok()) << lf.status().ToString();
    EXPECT_EQ(lf->partition.values.size(), rows.version().partition_fields.size());
    std::optional<delta::DeletionVector> dv;
    if (f.deletion_vector) {
      ++with_dv;
      ASSERT_EQ(lf->deletes.size(), 1u);
      EXPECT_EQ(lf->deletes[0].kind, table::DeleteKind::kDeletionVector);
      EXPECT_EQ(lf->deletes[0].rows, f.deletion_vector->cardinality);
      auto loaded = delta::LoadDeletionVector(fs_.get(), ctx->snapshot->table_root(), *f.deletion_vector);
      ASSERT_TRUE(loaded.ok());
      dv.emplace(std::move(*loaded));
    }
    for (bool rows_only : {false, true}) {
      auto reader = rows.Open(*lf, rows_only ? std::vector<int>{} : all);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      table::LiveBatch b;
      for (;;) {
        Result<bool> more = (*reader)->Next(&b);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        ASSERT_EQ(static_cast<int64_t>(b.row_index.size()), b.batch.num_rows);
        EXPECT_EQ(b.batch.columns.size(), rows_only ? 0u : all.size());
        for (size_t i = 0; i < b.row_index.size(); ++i) {
          if (i > 0) { EXPECT_LT(b.row_index[i - 1], b.row_index[i]); }
          if (dv) { EXPECT_FALSE(dv->Contains(static_cast<uint64_t>(b.row_index[i]))); }
        }
        (rows_only ? counted : live) += b.batch.num_rows;
      }
      EXPECT_EQ((*reader)->deleted_rows(), f.deletion_vector ? f.deletion_vector->cardinality : 0);
    }
  }
  EXPECT_GT(with_dv, 0);
  EXPECT_EQ(live, 35);
  EXPECT_EQ(counted, 35);
  // A file of another format is refused by name.
  table::LiveFile foreign;
  foreign.path = "/elsewhere/x.parquet";
  auto refused = rows.Open(foreign, all);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
}

// Columns resolve by field id and by physical name under column mapping.
TEST_F(ScanTest, LiveRowsResolveColumnsByFieldIdAndPhysicalName) {
  Result<ScanContext> ctx = PrepareScan(fs_.get(), Golden("table-with-columnmapping-mode-id"), {}, "");
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  const delta::DeltaLiveRows& rows = *ctx->rows;
  int mapped = 0;
  for (size_t i = 0; i < rows.columns().size(); ++i) {
    const table::TableColumn& c = rows.columns()[i];
    if (c.repeated) continue;
    ASSERT_TRUE(c.field_id.has_value()) << c.logical_path.back();
    auto by_id = rows.LeavesByFieldId({*c.field_id});
    ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
    EXPECT_EQ(*by_id, std::vector<int>{static_cast<int>(i)});
    auto by_path = rows.LeavesByPhysicalPath({c.physical_path});
    ASSERT_TRUE(by_path.ok()) << by_path.status().ToString();
    EXPECT_EQ(*by_path, std::vector<int>{static_cast<int>(i)});
    if (c.physical_path != c.logical_path) ++mapped;
  }
  EXPECT_GT(mapped, 0);
  EXPECT_TRUE(rows.LeavesByPhysicalPath({{"no-such-column"}}).status().IsNotFound());
}

TEST_F(ScanTest, ColumnMappingIdAndNameModesReadLogicalNames) {
  std::vector<std::string> id = Rows(Golden("table-with-columnmapping-mode-id"));
  std::vector<std::string> name = Rows(Golden("table-with-columnmapping-mode-name"));
  ASSERT_EQ(id.size(), 6u);
  EXPECT_EQ(id, name);
  EXPECT_NE(id[0].find("\"nested_struct\":"), std::string::npos);
}

TEST_F(ScanTest, PredicateProjectionAndLimit) {
  ScanOptions opts;
  opts.where = "letter = 'a'";
  opts.columns = {"number"};
  std::vector<std::string> rows = Rows(Kernel("basic_partitioned"), opts);
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"number":1})", R"({"number":4})"}));
  opts.limit = 1;
  EXPECT_EQ(Rows(Kernel("basic_partitioned"), opts).size(), 1u);
}

TEST_F(ScanTest, PruningDoesNotChangeRows) {
  ScanOptions opts;
  opts.where = "letter IS NULL OR number >= 5";
  Lines pruned, all;
  Result<ScanResult> a = Scan(fs_.get(), Kernel("basic_partitioned"), opts, pruned.sink.get());
  opts.prune_files = false;
  Result<ScanResult> b = Scan(fs_.get(), Kernel("basic_partitioned"), opts, all.sink.get());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->files_skipped_stats, 0);
  EXPECT_EQ(b->files_skipped_stats + b->files_skipped_partition, 0);
  std::sort(pruned.lines.begin(), pruned.lines.end());
  std::sort(all.lines.begin(), all.lines.end());
  EXPECT_EQ(pruned.lines, all.lines);
  EXPECT_LT(a->files_read, b->files_read);
}

// PlanKeptFiles (what Scan and delete plan with: verdicts on the compact store, kept
// files only) must agree with PlanScan (a decision per FileEntry) on every predicate
// shape: partition-only, statistics-only, mixed, OR across both, and pruning off.
TEST_F(ScanTest, KeptFilesAgreeWithPlanScan) {
  const std::string table = Kernel("basic_partitioned");
  for (const char* where : {"letter = 'a'", "letter < 'a'", "number >= 5", "letter = 'b' AND number > 2",
                            "letter IS NULL OR number >= 5", "letter IN ('a', 'c') OR number < 0", ""}) {
    for (bool prune : {true, false}) {
      SCOPED_TRACE(std::string(where) + (prune ? "" : " (no pruning)"));
      Result<ScanContext> ctx = PrepareScan(fs_.get(), table, delta::VersionSpec::Latest(), where,
                                            delta::LoadOptions{delta::StatsMode::kRaw});
      ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
      Result<std::vector<FileDecision>> all = PlanScan(*ctx, prune);
      Result<KeptFiles> kept = PlanKeptFiles(*ctx, prune);
      ASSERT_TRUE(all.ok() && kept.ok());
      std::vector<std::string> want, got;
      int64_t by_partition = 0, by_stats = 0;
      for (const FileDecision& d : *all) {
        if (d.verdict == FileVerdict::kKept) want.push_back(d.file->path);
        by_partition += d.verdict == FileVerdict::kSkippedByPartition;
        by_stats += d.verdict == FileVerdict::kSkippedByStats;
      }
      for (uint32_t i : kept->files) got.emplace_back(ctx->snapshot->live_files()[i].path());
      EXPECT_EQ(got, want);  // same files, same (snapshot) order
      EXPECT_EQ(kept->files_total, static_cast<int64_t>(all->size()));
      EXPECT_EQ(kept->skipped_by_partition, by_partition);
      EXPECT_EQ(kept->skipped_by_stats, by_stats);
    }
  }
}

// An unparseable partition value fails planning naming the first such file in snapshot
// order, whichever order the store holds the files in and although PlanKeptFiles judges
// each distinct partition once: the error PlanScan gives.
TEST_F(ScanTest, KeptFilesFailLikePlanScanOnABadPartitionValue) {
  auto mem = io::NewMemoryFileSystem();
  const std::string root = "/t";
  testing::CreateDeltaTable(mem.get(), root,
                            R"({"type":"struct","fields":[{"name":"p","type":"integer","nullable":true,"metadata":{}},)"
                            R"({"name":"x","type":"integer","nullable":true,"metadata":{}}]})",
                            {"p"}, false);
  auto snap = delta::Snapshot::Load(mem.get(), root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto txn = delta::Transaction::Begin(*snap);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  for (const char* path : {"p=zz/c.parquet", "p=1/b.parquet", "p=zz/a.parquet"}) {
    delta::AddFile add;
    add.path = path;
    add.partition_values["p"] = std::string(path).substr(2, std::string(path).find('/') - 2);
    add.size = 10;
    add.data_change = true;
    add.stats = R"({"numRecords":1,"minValues":{"x":1},"maxValues":{"x":1},"nullCount":{"x":0}})";
    (*txn)->AddAction(std::move(add));
  }
  (*txn)->SetOperation("WRITE", nlohmann::json::object());
  ASSERT_TRUE((*txn)->Commit().ok());
  for (const char* where : {"p = 1", "x = 1"}) {
    SCOPED_TRACE(where);
    Result<ScanContext> ctx = PrepareScan(mem.get(), root, delta::VersionSpec::Latest(), where,
                                          delta::LoadOptions{delta::StatsMode::kRaw});
    ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
    Result<std::vector<FileDecision>> all = PlanScan(*ctx);
    Result<KeptFiles> kept = PlanKeptFiles(*ctx);
    ASSERT_FALSE(all.ok());
    ASSERT_FALSE(kept.ok());
    EXPECT_NE(all.status().message().find("p=zz/a.parquet"), std::string::npos) << all.status().ToString();
    EXPECT_EQ(kept.status().ToString(), all.status().ToString());
  }
}

TEST_F(ScanTest, BadPredicateIsInvalidArgument) {
  ScanOptions opts;
  opts.where = "number >";
  Result<ScanResult> r = Scan(fs_.get(), Kernel("basic_partitioned"), opts, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_EQ(r.status().message().rfind("predicate: ", 0), 0u) << r.status().message();
  opts.where = "nosuch = 1";
  r = Scan(fs_.get(), Kernel("basic_partitioned"), opts, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nosuch"), std::string::npos);
}

TEST_F(ScanTest, UnsupportedReaderFeatureIsNamed) {
  Result<ScanResult> r = Scan(fs_.get(), Kernel("table-with-geo"), {}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("geospatial"), std::string::npos);
}

TEST_F(ScanTest, TimeTravelByVersion) {
  ScanOptions opts;
  opts.count_only = true;
  opts.version = delta::VersionSpec::AtVersion(0);
  Result<ScanResult> r = Scan(fs_.get(), Golden("time-travel-start-start20-start40"), opts, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 10);
  opts.version = delta::VersionSpec::Latest();
  r = Scan(fs_.get(), Golden("time-travel-start-start20-start40"), opts, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows, 30);
}


// One scan for both formats (issue 15): commands::Scan opens the format's TableScan by
// what the location holds. The corpus's DuckDB-written Iceberg table with equality
// deletes: 2 live rows of 6, through the same loop Delta's scan runs.
TEST_F(ScanTest, IcebergTableThroughTheSameScan) {
  const std::string base = Corpus() + "/duckdb-iceberg/data/persistent/";
  const std::string table = base + "equality_deletes/warehouse/mydb/mytable";
  ScanOptions opts;
  opts.location_map = {"data/persistent/=" + base};
  opts.count_only = true;
  Result<ScanResult> r = Scan(fs_.get(), table, opts, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 2);
  EXPECT_GE(r->files_read, 1);
  EXPECT_EQ(r->files_read, r->files_total - r->files_skipped_stats);
  // A predicate, a ref, and the rows rendered through the sink.
  opts.where = "id = 4";
  opts.version = table::VersionSelector::Ref("main");
  r = Scan(fs_.get(), table, opts, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 1);
  opts.count_only = false;
  opts.version = {};
  std::string out;
  std::unique_ptr<ScanSink> sink = NewRenderSink(parquet::RowFormat::kJsonLines, [&out](std::string_view text) {
    out += text;
    return Status::OK();
  });
  r = Scan(fs_.get(), table, opts, sink.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(out.find("\"id\":4"), std::string::npos) << out;
  // The Iceberg naming rules: an unknown column is a usage error.
  opts.columns = {"nope"};
  r = Scan(fs_.get(), table, opts, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("columns: ", 0), 0u) << r.status().message();
}

// A ref names an Iceberg branch or tag; a Delta table has none and says so.
TEST_F(ScanTest, DeltaRefusesARef) {
  ScanOptions opts;
  opts.count_only = true;
  opts.version = table::VersionSelector::Ref("main");
  Result<ScanResult> r = Scan(fs_.get(), Golden("time-travel-start-start20-start40"), opts, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("no refs"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace lithify::commands
