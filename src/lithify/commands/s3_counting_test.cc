// What reading a table on S3 costs in HTTP requests (issue 16, acceptance 3), on the test
// server (scripts/servers.sh; label s3), counted where they are sent (io::http::
// CountedRequests) and, for which files were opened, with io::CountingFileSystem:
//   - opening an object and reading its Parquet footer is one GET (no HEAD), for a small
//     file and for one larger than the piece the open reads;
//   - `diagnose` and `optimize --dry-run` open no data file;
//   - OPTIMIZE of N small files opens each input once and sends at most one request per
//     input beyond the log's, the output's and the commit's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/commands/create_alter.h"
#include "lithify/commands/diagnose.h"
#include "lithify/commands/optimize.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/counting.h"
#include "lithify/io/http/http.h"
#include "lithify/io/s3/s3_filesystem.h"
#include "lithify/parquet/file_reader.h"

namespace lithify::commands {
namespace {

using io::http::CountedRequests;
using io::http::RequestCounts;
using parquet::Value;

constexpr int kPartitions = 4;
constexpr int kCommits = 6;  // one file per partition each: 24 small data files
constexpr int kRowsPerFile = 200;

class S3CountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* b = std::getenv("LITHIFY_TEST_S3_BUCKET");
    if (b == nullptr || *b == '\0') {
      GTEST_FAIL() << "no S3 test server: LITHIFY_TEST_S3_BUCKET is not set (scripts/servers.sh start, then "
                      "source build/servers/env; or leave these tests out with ctest -LE s3)";
    }
    auto o = io::s3::S3OptionsFromEnvironment();
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    fs_ = io::s3::NewS3FileSystem(*o);
    root_ = std::string("s3://") + b + "/s3count-" + std::to_string(getpid()) + "-" +
            std::to_string(std::random_device{}());
  }
  void TearDown() override {
    if (!fs_) return;
    auto all = fs_->ListRecursive(root_);
    if (!all.ok()) return;
    std::vector<std::string> paths;
    for (const auto& f : *all) paths.push_back(f.path);
    (void)fs_->DeleteMany(paths);
  }

  // A partitioned table of kPartitions * kCommits small files.
  void MakeTable() {
    auto schema = delta::ParseSchemaDdl("id long, k long, v string, p string");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    delta::NewTableSpec spec;
    spec.schema = *schema;
    spec.partition_columns = {"p"};
    auto created = CreateTable(fs_.get(), root_, spec);
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
    auto snap = delta::Snapshot::Load(fs_.get(), root_);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    for (const table::FileEntry& f : (*snap)->files()) data_files_.insert(root_ + "/" + f.path);
    ASSERT_EQ(data_files_.size(), static_cast<size_t>(kPartitions * kCommits));
  }

  void Append(const std::vector<std::vector<Value>>& rows) {
    auto snap = delta::Snapshot::Load(fs_.get(), root_);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    auto w = delta::DataFileWriter::Open(fs_.get(), root_, delta::WriteContext::FromSnapshot(**snap), {});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->WriteRows(rows).ok());
    auto adds = (*w)->Finish();
    ASSERT_TRUE(adds.ok()) << adds.status().ToString();
    auto txn = delta::Transaction::Begin(*snap);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    for (const delta::AddFile& a : *adds) (*txn)->AddAction(a);
    (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
    auto r = (*txn)->Commit();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void ExpectNoDataFileOpened(const io::CountingFileSystem& counting, const std::string& what) {
    const std::vector<std::string> opened = counting.opened_paths();
    EXPECT_FALSE(opened.empty()) << what << " read nothing at all";
    for (const std::string& p : opened) {
      EXPECT_EQ(p.rfind(root_ + "/_delta_log/", 0), 0u) << what << " opened a file outside the log: " << p;
    }
  }

  static void Print(const char* what, const RequestCounts& r, const io::CountingFileSystem& counting) {
    std::printf("requests %s: http %s; calls %s\n", what, r.Json().c_str(), counting.CountsJson().c_str());
  }

  std::shared_ptr<io::FileSystem> fs_;
  std::string root_;
  std::set<std::string> data_files_;
};

TEST_F(S3CountingTest, AFooterIsOneRequest) {
  ASSERT_NO_FATAL_FAILURE(MakeTable());
  const std::string small = *data_files_.begin();
  RequestCounts before = CountedRequests();
  auto reader = parquet::FileReader::Open(fs_.get(), small);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RequestCounts r = CountedRequests() - before;
  EXPECT_EQ(r.total(), 1) << r.Json();
  EXPECT_EQ(r.get, 1) << r.Json();
  // The whole small file came with it: reading every row costs nothing more.
  before = CountedRequests();
  auto rows = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->num_rows, kRowsPerFile);
  EXPECT_EQ((CountedRequests() - before).total(), 0);

  // An object larger than the piece an open reads: its tail (a footer) is still that one
  // GET; a read before the piece is one more, sent with If-Match.
  std::string big(300 << 10, 'x');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 23);
  const std::string path = root_ + "/big.bin";
  ASSERT_TRUE(fs_->WriteFile(path, AsBytes(big)).ok());
  before = CountedRequests();
  auto file = fs_->OpenForRead(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->size(), big.size());
  auto tail = (*file)->Read(big.size() - 1000, 1000);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(tail->data()), tail->size()), big.substr(big.size() - 1000));
  r = CountedRequests() - before;
  EXPECT_EQ(r.total(), 1) << r.Json();
  auto head = (*file)->Read(10, 100);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(head->data()), head->size()), big.substr(10, 100));
  EXPECT_EQ((CountedRequests() - before).total(), 2);
  // A replaced object fails a later ranged read instead of mixing versions.
  big[20] = '!';
  ASSERT_TRUE(fs_->WriteFile(path, AsBytes(big)).ok());
  auto changed = (*file)->Read(0, 100);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("changed since it was opened"), std::string::npos)
      << changed.status().ToString();

  // An empty object has no range to answer: it opens (with a HEAD after the 416).
  ASSERT_TRUE(fs_->WriteFile(root_ + "/empty.bin", ByteView()).ok());
  auto empty = fs_->OpenForRead(root_ + "/empty.bin");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)->size(), 0u);
  // A missing object is still NotFound naming it.
  auto missing = fs_->OpenForRead(root_ + "/nope.bin");
  ASSERT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find(root_ + "/nope.bin"), std::string::npos);
}

TEST_F(S3CountingTest, PlanningOpensNoDataFile) {
  ASSERT_NO_FATAL_FAILURE(MakeTable());
  {
    io::CountingFileSystem counting(fs_.get());
    RequestCounts before = CountedRequests();
    auto d = DiagnoseTable(&counting, root_, DiagnoseOptions{});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->document["num_files"], kPartitions * kCommits);
    ExpectNoDataFileOpened(counting, "diagnose");
    Print("diagnose", CountedRequests() - before, counting);
  }
  {
    io::CountingFileSystem counting(fs_.get());
    RequestCounts before = CountedRequests();
    OptimizeSpec spec;
    spec.dry_run = true;
    auto r = Optimize(&counting, root_, spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->plan.total_input_files(), kPartitions * kCommits);
    ExpectNoDataFileOpened(counting, "optimize --dry-run");
    const RequestCounts req = CountedRequests() - before;
    EXPECT_EQ(req.put + req.del + req.post, 0) << req.Json();
    Print("optimize --dry-run", req, counting);
  }
}

TEST_F(S3CountingTest, OptimizeSendsAboutOneRequestPerInput) {
  ASSERT_NO_FATAL_FAILURE(MakeTable());
  // What the log alone costs (a replay), to tell the inputs' share.
  RequestCounts before = CountedRequests();
  auto snap = delta::Snapshot::Load(fs_.get(), root_);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  const RequestCounts replay = CountedRequests() - before;

  io::CountingFileSystem counting(fs_.get());
  before = CountedRequests();
  auto r = Optimize(&counting, root_, OptimizeSpec{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const RequestCounts req = CountedRequests() - before;
  Print("replay", replay, counting);
  Print("optimize", req, counting);
  ASSERT_EQ(r->versions.size(), 1u);
  const int n = kPartitions * kCommits;
  EXPECT_EQ(r->metrics.num_files_removed, n);
  EXPECT_EQ(r->metrics.num_files_added, kPartitions);
  // Every input opened exactly once (its footer read once, the file kept open for the bin).
  std::map<std::string, int> opens;
  for (const std::string& p : counting.opened_paths()) {
    if (data_files_.count(p) != 0) ++opens[p];
  }
  EXPECT_EQ(opens.size(), data_files_.size());
  for (const auto& [path, times] : opens) EXPECT_EQ(times, 1) << path;
  // The log as a replay reads it, one GET per (small) input, one PUT per output, the
  // commit, and a few more (the commit's conflict check, _last_checkpoint): at most
  // one request per input beyond that, and fewer than 2 per input in all.
  EXPECT_LE(req.total(), replay.total() + n + kPartitions + 8) << req.Json();
  EXPECT_LE(req.total(), 2 * n) << req.Json();
  // No HEAD beyond the replay's (a missing _last_checkpoint is told from a "directory").
  EXPECT_LE(req.head, replay.head) << req.Json();
}

}  // namespace
}  // namespace lithify::commands
