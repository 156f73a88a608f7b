// Storage requests of the read-only planning commands (issue 15, acceptance 3), counted
// with io::CountingFileSystem over a real local table: `diagnose` and `optimize
// --dry-run` read the log only -- no data file and no deletion-vector file is opened --
// on a partitioned table with several files per partition and deletion vectors. The
// request counts of a replay and of a real OPTIMIZE on the same table are printed
// (docs/benchmarks.md quotes them) and bounded by what the commands must do.
#include "lithify/io/counting.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/diagnose.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {
namespace {

using parquet::Value;

constexpr int kPartitions = 3;
constexpr int kCommits = 4;     // one file per partition each
constexpr int kRowsPerFile = 250;

class CountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = delta::ParseSchemaDdl("id long, k long, v string, p string");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    delta::NewTableSpec spec;
    spec.schema = *schema;
    spec.partition_columns = {"p"};
    spec.properties = {{"delta.enableDeletionVectors", "true"}};
    auto created = CreateTable(local_.get(), root(), spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    int64_t id = 0;
    for (int c = 0; c < kCommits; ++c) {
      std::vector<std::vector<Value>> rows;
      for (int p = 0; p < kPartitions; ++p) {
        for (int i = 0; i < kRowsPerFile; ++i, ++id) {
          rows.push_back({Value::Int(id), Value::Int(id % 10), Value::String("value-" + std::to_string(id)),
                          Value::String("part-" + std::to_string(p))});
        }
      }
      ASSERT_NO_FATAL_FAILURE(Append(rows));
    }
    // Every tenth row: a deletion vector on every file.
    DeleteSpec del;
    del.predicate = "k = 0";
    auto deleted = DeleteRows(local_.get(), root(), del);
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    ASSERT_EQ(deleted->metrics.at("numDeletedRows"), kPartitions * kCommits * kRowsPerFile / 10);
    auto snap = delta::Snapshot::Load(local_.get(), root());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    for (const table::FileEntry& f : (*snap)->files()) {
      ASSERT_TRUE(f.deletion_vector.has_value()) << f.path;
      data_files_.insert(f.path);
    }
    ASSERT_EQ(data_files_.size(), static_cast<size_t>(kPartitions * kCommits));
  }

  void Append(const std::vector<std::vector<Value>>& rows) {
    auto snap = delta::Snapshot::Load(local_.get(), root());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    auto w = delta::DataFileWriter::Open(local_.get(), root(), delta::WriteContext::FromSnapshot(**snap), {});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->WriteRows(rows).ok());
    auto adds = (*w)->Finish();
    ASSERT_TRUE(adds.ok()) << adds.status().ToString();
    ASSERT_EQ(adds->size(), static_cast<size_t>(kPartitions));
    auto txn = delta::Transaction::Begin(*snap);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    for (const delta::AddFile& a : *adds) (*txn)->AddAction(a);
    (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
    auto r = (*txn)->Commit();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Every path the command opened for reading lies in the table's _delta_log.
  void ExpectOnlyLogOpened(const io::CountingFileSystem& counting, const std::string& what) {
    const std::string log = root() + "/_delta_log/";
    const std::vector<std::string> opened = counting.opened_paths();
    EXPECT_FALSE(opened.empty()) << what << " read nothing at all";
    for (const std::string& p : opened) {
      EXPECT_EQ(p.rfind(log, 0), 0u) << what << " opened a file outside the log: " << p;
    }
  }

  // Prints the counts, and the opens by kind of file (docs/benchmarks.md quotes them).
  void Report(const char* what, const io::CountingFileSystem& counting) const {
    int log = 0, data = 0, dv = 0;
    std::set<std::string> distinct, distinct_dvs;
    for (const std::string& p : counting.opened_paths()) {
      if (p.rfind(root() + "/_delta_log/", 0) == 0) {
        ++log;
      } else if (p.find("deletion_vector_") != std::string::npos) {
        ++dv;
        distinct_dvs.insert(p);
      } else {
        ++data;
        distinct.insert(p);
      }
    }
    std::printf("requests %s: %s; opened: log %d, data %d (%zu distinct), deletion vectors %d (%zu distinct)\n",
                what, counting.CountsJson().c_str(), log, data, distinct.size(), dv, distinct_dvs.size());
  }

  std::string root() const { return dir_.table(); }

  TempDir dir_;
  std::unique_ptr<io::FileSystem> local_ = io::NewLocalFileSystem();
  std::set<std::string> data_files_;  // table-relative paths of the live files
};

TEST_F(CountingTest, DiagnoseReadsOnlyTheLog) {
  io::CountingFileSystem counting(local_.get());
  auto d = DiagnoseTable(&counting, root(), DiagnoseOptions{});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // It did diagnose this table: its files, partitions and deleted rows come from the log.
  EXPECT_EQ(d->document["num_files"], kPartitions * kCommits);
  EXPECT_EQ(d->document["num_partitions"], kPartitions);
  EXPECT_EQ(d->document["files_with_deletion_vectors"], kPartitions * kCommits);
  EXPECT_EQ(d->document["deleted_rows"], kPartitions * kCommits * kRowsPerFile / 10);
  ExpectOnlyLogOpened(counting, "diagnose");
  EXPECT_EQ(counting.calls(io::FsOp::kCreate), 0);
  EXPECT_EQ(counting.calls(io::FsOp::kPutIfAbsent), 0);
  EXPECT_EQ(counting.calls(io::FsOp::kDelete), 0);
  Report("diagnose", counting);
}

TEST_F(CountingTest, OptimizeDryRunReadsOnlyTheLog) {
  for (bool purge : {false, true}) {
    SCOPED_TRACE(purge ? "reorg --purge --dry-run" : "optimize --dry-run");
    io::CountingFileSystem counting(local_.get());
    OptimizeSpec spec;
    spec.dry_run = true;
    spec.reorg_purge = purge;
    auto r = Optimize(&counting, root(), spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // A plan that rewrites every file (small files, or files with deleted rows) was made
    // without opening one of them.
    EXPECT_EQ(r->plan.total_input_files(), kPartitions * kCommits);
    EXPECT_EQ(static_cast<int64_t>(r->plan.bins.size()), kPartitions);  // one bin per partition
    ExpectOnlyLogOpened(counting, purge ? "reorg --purge --dry-run" : "optimize --dry-run");
    EXPECT_EQ(counting.calls(io::FsOp::kCreate), 0);
    EXPECT_EQ(counting.calls(io::FsOp::kPutIfAbsent), 0);
    EXPECT_EQ(counting.calls(io::FsOp::kDelete), 0);
    Report(purge ? "reorg --purge --dry-run" : "optimize --dry-run", counting);
  }
}

// The figures docs/benchmarks.md quotes: a replay of this 6-version table, and OPTIMIZE.
TEST_F(CountingTest, RequestsOfAReplayAndAnOptimize) {
  io::CountingFileSystem counting(local_.get());
  auto snap = delta::Snapshot::Load(&counting, root());
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->version(), kCommits + 1);  // create, 4 appends, the delete
  ExpectOnlyLogOpened(counting, "replay");
  // Each of the 6 commit files once, and the _last_checkpoint probe (none is written).
  std::multiset<std::string> opened;
  for (const std::string& p : counting.opened_paths()) opened.insert(p.substr(root().size() + 1));
  std::multiset<std::string> expected = {"_delta_log/_last_checkpoint"};
  for (int v = 0; v <= kCommits + 1; ++v) expected.insert(fmt::format("_delta_log/{:020}.json", v));
  EXPECT_EQ(opened, expected);
  EXPECT_EQ(counting.calls(io::FsOp::kList), 1);
  Report("replay", counting);

  counting.Reset();
  auto r = Optimize(&counting, root(), OptimizeSpec{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->versions.size(), 1u);
  EXPECT_EQ(r->metrics.num_files_removed, kPartitions * kCommits);
  EXPECT_EQ(r->metrics.num_files_added, kPartitions);
  // It opened exactly the data files it rewrote (each input at least once, nothing else
  // outside the log), plus DV files, and wrote one file per partition and one commit.
  std::set<std::string> opened_data;
  for (const std::string& p : counting.opened_paths()) {
    if (p.rfind(root() + "/_delta_log/", 0) == 0) continue;
    const std::string rel = p.substr(root().size() + 1);
    if (rel.find("deletion_vector_") != std::string::npos) continue;
    opened_data.insert(rel);
  }
  EXPECT_EQ(opened_data, data_files_);
  EXPECT_GE(counting.calls(io::FsOp::kCreate), kPartitions);
  EXPECT_EQ(counting.calls(io::FsOp::kDelete), 0);
  Report("optimize", counting);
}

}  // namespace
}  // namespace lithify::commands
