// Tests of OPTIMIZE / REORG PURGE (commands/optimize.h) on real tables in temporary
// directories: tables written by lithify and copies of corpus tables.
#include "lithify/base/temp_dir.h"
#include "lithify/commands/optimize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/stats.h"
#include "lithify/delta/test_util.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rewrite.h"
#include "lithify_test_paths.h"

namespace lithify::commands {
namespace {

using parquet::Value;

// ---- helpers ---------------------------------------------------------------------------

constexpr const char* kSchema =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"part","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"name","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"score","type":"double","nullable":true,"metadata":{}},)"
    R"({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":false,"metadata":{}}]},"nullable":true,"metadata":{}}]})";

void MakeTable(io::FileSystem* fs, const std::string& root, std::vector<std::string> partitions,
                 bool dvs = false) {
  testing::CreateDeltaTable(fs, root, kSchema, std::move(partitions), dvs);
}

std::vector<Value> Row(int64_t id, const std::string& part) {
  return {Value::Int(id), Value::String(part),
          id % 7 == 0 ? Value::Null() : Value::String("name-" + std::to_string(id)),
          Value::Double(static_cast<double>(id) / 4), id % 5 == 0 ? Value::Null() : Value::Struct({Value::Int(id % 100)})};
}

// One blind-append commit of rows [first, first + n) into `part` (one file).
void Append(io::FileSystem* fs, const std::string& root, int64_t first, int64_t n, const std::string& part) {
  auto snap = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto w = delta::DataFileWriter::Open(fs, root, delta::WriteContext::FromSnapshot(**snap));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<std::vector<Value>> rows;
  for (int64_t i = first; i < first + n; ++i) rows.push_back(Row(i, part));
  ASSERT_TRUE((*w)->WriteRows(rows).ok());
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok()) << adds.status().ToString();
  auto txn = delta::Transaction::Begin(*snap);
  ASSERT_TRUE(txn.ok());
  for (auto& a : *adds) (*txn)->AddAction(a);
  (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
  auto r = (*txn)->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// Rows of a version as sorted canonical JSON lines (a multiset).
std::vector<std::string> Rows(io::FileSystem* fs, const std::string& root,
                              delta::VersionSpec v = delta::VersionSpec::Latest()) {
  testing::Lines out;
  ScanOptions opts;
  opts.version = v;
  auto r = Scan(fs, root, opts, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

// The live files of the latest version (a copy: the snapshot may go away).
std::vector<table::FileEntry> Files(io::FileSystem* fs, const std::string& root);

std::shared_ptr<const delta::Snapshot> Latest(io::FileSystem* fs, const std::string& root) {
  auto s = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

std::vector<table::FileEntry> Files(io::FileSystem* fs, const std::string& root) {
  auto s = Latest(fs, root);
  return s ? s->files() : std::vector<table::FileEntry>{};
}

// The actions of one commit file.
std::vector<delta::Action> CommitActions(io::FileSystem* fs, const std::string& root, int64_t v) {
  const std::string name = fmt::format("_delta_log/{:020d}.json", v);
  auto bytes = fs->ReadFile(io::JoinPath(root, name));
  EXPECT_TRUE(bytes.ok()) << name;
  if (!bytes.ok()) return {};
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  auto actions = delta::ParseCommitFile(text, name);
  EXPECT_TRUE(actions.ok()) << actions.status().ToString();
  return actions.ok() ? *actions : std::vector<delta::Action>{};
}

Result<OptimizeResult> RunOptimize(io::FileSystem* fs, const std::string& root, OptimizeSpec spec = {}) {
  if (spec.threads == 0) spec.threads = 2;
  return Optimize(fs, root, spec);
}

// Every live file written by the commit: exact stats (numRecords equals the rows read,
// min/max of id hold), no DV, dataChange=false.
void ExpectExactOutputs(io::FileSystem* fs, const std::string& root, int64_t version) {
  auto snap = delta::Snapshot::Load(fs, root, delta::VersionSpec::AtVersion(version));
  ASSERT_TRUE(snap.ok());
  int adds = 0;
  for (const delta::Action& a : CommitActions(fs, root, version)) {
    if (const auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      EXPECT_FALSE(rm->data_change);
      EXPECT_EQ(rm->extended_file_metadata, std::optional<bool>(true));
      if (rm->stats) {
        EXPECT_EQ(rm->stats->find("minValues"), std::string::npos) << *rm->stats;
      }
      continue;
    }
    const auto* add = std::get_if<delta::AddFile>(&a);
    if (add == nullptr) continue;
    ++adds;
    EXPECT_FALSE(add->data_change);
    EXPECT_FALSE(add->deletion_vector.has_value());
    ASSERT_TRUE(add->stats.has_value());
    auto st = delta::ParseStats(*add->stats);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    // Count and bound the rows of this file through a scan restricted to it.
    auto rel = delta::DecodeActionPath(add->path);
    ASSERT_TRUE(rel.ok());
    auto reader = parquet::FileReader::Open(fs, io::JoinPath(root, *rel));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    int64_t rows = 0;
    for (const auto& rg : (*reader)->metadata().row_groups) rows += rg.num_rows;
    EXPECT_EQ(st->num_records, std::optional<int64_t>(rows));
    // Our own tables: the NOT NULL `id` column has exact bounds and no nulls.
    if (const table::ColumnStats* id = st->Find({"id"})) {
      ASSERT_TRUE(id->min && id->max);
      EXPECT_EQ(id->null_count, std::optional<int64_t>(0));
      EXPECT_LE(id->min->int64(), id->max->int64());
    }
  }
  EXPECT_GT(adds, 0);
}

class OptimizeTest : public ::testing::Test {
 protected:
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
  TempDir dir_;
  std::string root_ = dir_.table();
};

// ---- compaction ----------------------------------------------------------------------

TEST_F(OptimizeTest, UnpartitionedSmallFilesBecomeOneFile) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 8; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  const int64_t v0 = Latest(fs_.get(), root_)->version();
  const auto before = Rows(fs_.get(), root_);
  std::vector<std::string> old_files;
  for (const auto& f : Files(fs_.get(), root_)) old_files.push_back(f.path);

  auto r = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_files_added, 1);
  EXPECT_EQ(r->metrics.num_files_removed, 8);
  EXPECT_EQ(r->metrics.num_bins, 1);
  EXPECT_EQ(r->metrics.total_considered_files, 8);
  EXPECT_EQ(r->metrics.total_files_skipped, 0);
  EXPECT_EQ(r->metrics.files_removed.total_files, 8);
  ASSERT_EQ(r->versions, std::vector<int64_t>{v0 + 1});
  EXPECT_TRUE(r->abandoned.empty());

  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].num_records(), std::optional<int64_t>(80));
  EXPECT_EQ(Rows(fs_.get(), root_), before);
  ExpectExactOutputs(fs_.get(), root_, v0 + 1);

  // commitInfo: OPTIMIZE under SnapshotIsolation with Delta's parameters and metrics.
  bool saw_info = false;
  for (const delta::Action& a : CommitActions(fs_.get(), root_, v0 + 1)) {
    const auto* ci = std::get_if<delta::CommitInfo>(&a);
    if (ci == nullptr) continue;
    saw_info = true;
    auto j = nlohmann::json::parse(ci->json);
    EXPECT_EQ(j["operation"], "OPTIMIZE");
    EXPECT_EQ(j["isolationLevel"], "SnapshotIsolation");
    EXPECT_EQ(j["operationParameters"]["predicate"], "[]");
    EXPECT_EQ(j["operationParameters"]["zOrderBy"], "[]");
    EXPECT_EQ(j["operationParameters"]["auto"], false);
    EXPECT_EQ(j["operationMetrics"]["numAddedFiles"], "1");
    EXPECT_EQ(j["operationMetrics"]["numRemovedFiles"], "8");
    EXPECT_EQ(j["operationMetrics"]["numDeletionVectorsRemoved"], "0");
    EXPECT_EQ(j["operationMetrics"]["minFileSize"], j["operationMetrics"]["maxFileSize"]);
  }
  EXPECT_TRUE(saw_info);

  // The previous version still reads the same rows from its own files, which remain.
  EXPECT_EQ(Rows(fs_.get(), root_, delta::VersionSpec::AtVersion(v0)), before);
  for (const std::string& p : old_files) EXPECT_TRUE(std::filesystem::exists(root_ + "/" + p)) << p;

  // Idempotent: a second run adds nothing and writes no commit.
  auto again = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->metrics.num_files_added, 0);
  EXPECT_TRUE(again->versions.empty());
  EXPECT_EQ(Latest(fs_.get(), root_)->version(), v0 + 1);
  EXPECT_FALSE(again->log.summary.empty());
}

TEST_F(OptimizeTest, DuckDbReadsTheCompactedFile) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 25, 25, "q");
  auto r = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  auto duck = commands::testing::DuckDbRows(io::JoinPath(root_, snap->files()[0].path));
  if (!duck) GTEST_FAIL() << "node or the DuckDB oracle is missing, or DuckDB could not read the file (scripts/install-deps.sh installs the oracle)";
  EXPECT_EQ(*duck, Rows(fs_.get(), root_));
}

TEST_F(OptimizeTest, PartitionedOneFilePerPartitionBin) {
  MakeTable(fs_.get(), root_, {"part"});
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "a");
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, 100 + i * 10, 10, "b");
  Append(fs_.get(), root_, 500, 10, "c");  // alone in its partition: never rewritten
  const auto before = Rows(fs_.get(), root_);
  std::string c_file;
  for (const auto& f : Files(fs_.get(), root_)) {
    if (f.partition_values.at("part") == "c") c_file = f.path;
  }

  auto r = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_bins, 2);
  EXPECT_EQ(r->metrics.partitions_optimized, 2);
  EXPECT_EQ(r->metrics.num_files_added, 2);
  EXPECT_EQ(r->metrics.num_files_removed, 7);
  EXPECT_EQ(r->metrics.total_files_skipped, 1);
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 3u);
  std::set<std::string> parts;
  for (const auto& f : snap->files()) {
    parts.insert(*f.partition_values.at("part"));
    if (*f.partition_values.at("part") == "c") {
      EXPECT_EQ(f.path, c_file);
    } else {
      EXPECT_EQ(f.path.rfind("part=", 0), 0u) << f.path;
    }
  }
  EXPECT_EQ(parts, (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Rows(fs_.get(), root_), before);
  ExpectExactOutputs(fs_.get(), root_, r->versions.at(0));
}

TEST_F(OptimizeTest, WhereRestrictsToPartitionsAndRefusesDataColumns) {
  MakeTable(fs_.get(), root_, {"part"});
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, i * 10, 10, "a");
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, 100 + i * 10, 10, "b");
  const int64_t v0 = Latest(fs_.get(), root_)->version();

  OptimizeSpec bad;
  bad.where = "id > 3";
  auto refused = RunOptimize(fs_.get(), root_, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_NE(refused.status().message().find("may only reference partition columns; 'id' is not one"),
            std::string::npos)
      << refused.status().message();
  bad.where = "part = ";
  EXPECT_TRUE(RunOptimize(fs_.get(), root_, bad).status().IsInvalidArgument());
  EXPECT_EQ(Latest(fs_.get(), root_)->version(), v0);

  OptimizeSpec spec;
  spec.where = "part = 'a'";
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.total_considered_files, 3);
  EXPECT_EQ(r->metrics.num_files_removed, 3);
  int a = 0, b = 0;
  for (const auto& f : Files(fs_.get(), root_)) (*f.partition_values.at("part") == "a" ? a : b)++;
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 3);
  // The predicate is recorded as Delta records it: a JSON array in a string.
  for (const delta::Action& act : CommitActions(fs_.get(), root_, r->versions.at(0))) {
    if (const auto* ci = std::get_if<delta::CommitInfo>(&act)) {
      EXPECT_EQ(nlohmann::json::parse(ci->json)["operationParameters"]["predicate"], "[\"part = 'a'\"]");
    }
  }
}

TEST_F(OptimizeTest, DryRunPlansWithoutWriting) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  const int64_t v0 = Latest(fs_.get(), root_)->version();
  size_t entries = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(root_)) entries += e.is_regular_file();
  OptimizeSpec spec;
  spec.dry_run = true;
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->dry_run);
  EXPECT_EQ(r->plan.bins.size(), 1u);
  EXPECT_EQ(r->plan.total_input_files(), 3);
  EXPECT_EQ(r->metrics.num_files_added, 0);
  EXPECT_EQ(r->log.files.size(), 3u);
  EXPECT_EQ(Latest(fs_.get(), root_)->version(), v0);
  size_t after = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(root_)) after += e.is_regular_file();
  EXPECT_EQ(after, entries);
}

TEST_F(OptimizeTest, SmallTargetSplitsIntoSeveralBins) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 6; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  const auto before = Rows(fs_.get(), root_);
  int64_t one = Files(fs_.get(), root_)[0].size;
  OptimizeSpec spec;
  spec.target_file_size = one * 2 + one / 2;  // two files per bin
  spec.min_file_size = int64_t{1} << 30;
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_bins, 3);
  EXPECT_EQ(r->metrics.num_files_added, 3);
  EXPECT_EQ(Files(fs_.get(), root_).size(), 3u);
  EXPECT_EQ(Rows(fs_.get(), root_), before);
}

// ---- deletion vectors and REORG PURGE ------------------------------------------------

TEST_F(OptimizeTest, ReorgPurgeRewritesSingleFilesWithDeletedRows) {
  MakeTable(fs_.get(), root_, {}, /*dvs=*/true);
  Append(fs_.get(), root_, 0, 20, "p");
  Append(fs_.get(), root_, 100, 20, "p");
  Append(fs_.get(), root_, 200, 20, "p");
  DeleteSpec del;
  del.predicate = "id = 3 OR id = 105";
  auto d = DeleteRows(fs_.get(), root_, del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  int with_dv = 0;
  for (const auto& f : Files(fs_.get(), root_)) with_dv += f.deletion_vector.has_value();
  ASSERT_EQ(with_dv, 2);
  const auto before = Rows(fs_.get(), root_);

  OptimizeSpec spec;
  spec.reorg_purge = true;
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_bins, 1);  // both DV files, packed together
  EXPECT_EQ(r->metrics.num_files_removed, 2);
  ASSERT_TRUE(r->metrics.num_deletion_vectors_removed.has_value());
  EXPECT_EQ(*r->metrics.num_deletion_vectors_removed, 2);
  EXPECT_EQ(*r->metrics.num_deletion_vector_rows_removed, 2);
  auto snap = Latest(fs_.get(), root_);
  for (const auto& f : snap->files()) EXPECT_FALSE(f.deletion_vector.has_value()) << f.path;
  EXPECT_EQ(snap->NumLiveRecords(), std::optional<int64_t>(58));
  EXPECT_EQ(Rows(fs_.get(), root_), before);
  ExpectExactOutputs(fs_.get(), root_, r->versions.at(0));
  for (const delta::Action& a : CommitActions(fs_.get(), root_, r->versions.at(0))) {
    if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) {
      auto j = nlohmann::json::parse(ci->json);
      EXPECT_EQ(j["operation"], "REORG");
      EXPECT_EQ(j["operationParameters"]["applyPurge"], true);
      EXPECT_EQ(j["operationMetrics"]["numDeletionVectorsRemoved"], "2");
    }
    if (const auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      EXPECT_TRUE(rm->deletion_vector.has_value());
    }
  }
  // Nothing left to purge.
  auto again = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->versions.empty());
}

TEST_F(OptimizeTest, ReorgPurgeRewritesALoneFile) {
  delta::testing::TempTable t(testing::Kernel("table-with-dv-small"));
  const auto before = Rows(fs_.get(), t.root());
  // OPTIMIZE leaves a single file alone, even with deleted rows.
  auto opt = RunOptimize(fs_.get(), t.root());
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_TRUE(opt->versions.empty());
  OptimizeSpec spec;
  spec.reorg_purge = true;
  auto r = RunOptimize(fs_.get(), t.root(), spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_files_added, 1);
  auto snap = Latest(fs_.get(), t.root());
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  EXPECT_EQ(Rows(fs_.get(), t.root()), before);
  EXPECT_EQ(Rows(fs_.get(), t.root(), delta::VersionSpec::AtVersion(r->read_version)), before);
  // DuckDB reading the purged file (no DV to apply any more) sees the live rows.
  auto duck = commands::testing::DuckDbRows(io::JoinPath(t.root(), snap->files()[0].path));
  if (!duck) GTEST_FAIL() << "node or the DuckDB oracle is missing, or DuckDB could not read the file (scripts/install-deps.sh installs the oracle)";
  EXPECT_EQ(*duck, before);
}

TEST_F(OptimizeTest, CompactionAppliesDeletionVectors) {
  MakeTable(fs_.get(), root_, {}, /*dvs=*/true);
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  DeleteSpec del;
  del.predicate = "id IN (0, 3, 6, 9, 12, 15, 21, 27, 30, 33, 39)";
  auto d = DeleteRows(fs_.get(), root_, del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(d->commit.has_value());
  const auto before = Rows(fs_.get(), root_);
  auto r = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_files_added, 1);
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  EXPECT_EQ(snap->files()[0].num_records(), std::optional<int64_t>(static_cast<int64_t>(before.size())));
  EXPECT_EQ(Rows(fs_.get(), root_), before);
}

// ---- concurrency -----------------------------------------------------------------------

TEST_F(OptimizeTest, ConcurrentDeleteAbandonsOnlyTheAffectedBin) {
  MakeTable(fs_.get(), root_, {"part"});
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, i * 10, 10, "a");
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, 100 + i * 10, 10, "b");
  OptimizeSpec spec;
  spec.before_commit = [&](int) -> Status {
    DeleteSpec del;
    del.predicate = "id = 11";  // a file of partition 'a' (copy-on-write: removed and re-added)
    return DeleteRows(fs_.get(), root_, del).status();
  };
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->abandoned.size(), 1u);
  const planner::Bin& lost = r->plan.bins.at(r->abandoned[0].bin_id);
  EXPECT_EQ(lost.partition_values.at("part"), "a");
  EXPECT_NE(r->abandoned[0].reason.find("Concurrent"), std::string::npos) << r->abandoned[0].reason;
  EXPECT_EQ(r->metrics.num_files_added, 1);
  EXPECT_EQ(r->metrics.num_files_removed, 3);
  EXPECT_EQ(r->orphans_deleted, 1);
  ASSERT_EQ(r->versions.size(), 1u);
  auto snap = Latest(fs_.get(), root_);
  EXPECT_EQ(r->versions[0], snap->version());
  int a = 0, b = 0;
  for (const auto& f : snap->files()) (*f.partition_values.at("part") == "a" ? a : b)++;
  EXPECT_EQ(a, 3);  // untouched (one of them rewritten by the delete)
  EXPECT_EQ(b, 1);
  EXPECT_EQ(snap->NumLiveRecords(), std::optional<int64_t>(59));
  std::vector<std::string> rows = Rows(fs_.get(), root_);
  EXPECT_EQ(rows.size(), 59u);
  for (const std::string& row : rows) EXPECT_EQ(row.find("\"id\":11,"), std::string::npos) << row;
}

TEST_F(OptimizeTest, ConcurrentNewDeletionVectorAbandonsOnlyTheAffectedBin) {
  MakeTable(fs_.get(), root_, {"part"}, /*dvs=*/true);
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, i * 10, 10, "a");
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, 100 + i * 10, 10, "b");
  OptimizeSpec spec;
  spec.before_commit = [&](int) -> Status {
    DeleteSpec del;
    del.predicate = "id = 121";  // same path in 'b', re-added with a new DV
    return DeleteRows(fs_.get(), root_, del).status();
  };
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->abandoned.size(), 1u);
  EXPECT_EQ(r->plan.bins.at(r->abandoned[0].bin_id).partition_values.at("part"), "b");
  EXPECT_EQ(r->metrics.num_files_added, 1);
  auto snap = Latest(fs_.get(), root_);
  int a = 0, b = 0, dvs = 0;
  for (const auto& f : snap->files()) {
    (*f.partition_values.at("part") == "a" ? a : b)++;
    dvs += f.deletion_vector.has_value();
  }
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 3);
  EXPECT_EQ(dvs, 1);
  EXPECT_EQ(Rows(fs_.get(), root_).size(), 59u);
}

TEST_F(OptimizeTest, ConcurrentAppendsNeverFailAndLoseNoRow) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  OptimizeSpec spec;
  int appended = 0;
  spec.before_commit = [&](int) -> Status {
    for (int k = 0; k < 3; ++k) {
      Append(fs_.get(), root_, 1000 + k * 10, 10, "p");
      ++appended;
    }
    return Status::OK();
  };
  const auto before = Rows(fs_.get(), root_);
  auto r = RunOptimize(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->abandoned.empty());
  EXPECT_EQ(r->metrics.num_files_removed, 4);
  auto snap = Latest(fs_.get(), root_);
  EXPECT_EQ(snap->files().size(), 4u);  // the compacted file + the 3 appended ones
  EXPECT_EQ(snap->NumLiveRecords(), std::optional<int64_t>(70));
  const auto after = Rows(fs_.get(), root_);
  EXPECT_EQ(after.size(), 70u);
  EXPECT_TRUE(std::includes(after.begin(), after.end(), before.begin(), before.end()));
  EXPECT_EQ(appended, 3);
}

// ---- refusals ----------------------------------------------------------------------------

// id -> (row id, row commit version) of every live row, read from the data files: the
// materialized columns when present, else baseRowId + physical index / defaultRowCommitVersion.
std::map<int64_t, std::pair<int64_t, int64_t>> RowIds(io::FileSystem* fs, const std::string& root) {
  std::map<int64_t, std::pair<int64_t, int64_t>> out;
  auto snap = Latest(fs, root);
  const std::string id_col = snap->properties().at("delta.rowTracking.materializedRowIdColumnName");
  const std::string ver_col = snap->properties().at("delta.rowTracking.materializedRowCommitVersionColumnName");
  for (const table::FileEntry& f : snap->files()) {
    auto reader = parquet::FileReader::Open(fs, io::JoinPath(root, f.path));
    EXPECT_TRUE(reader.ok());
    if (!reader.ok()) return out;
    const parquet::Schema& sch = (*reader)->schema();
    auto ids = parquet::ResolveColumns(sch, {"id"});
    auto rid = parquet::ResolveColumns(sch, {id_col});
    auto rver = parquet::ResolveColumns(sch, {ver_col});
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      std::vector<int> leaves = {ids->at(0)};
      if (rid.ok()) leaves.push_back(rid->at(0));
      if (rver.ok()) leaves.push_back(rver->at(0));
      auto b = (*reader)->ReadRowGroup(rg, leaves);
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (!b.ok()) return out;
      for (int64_t i = 0; i < b->num_rows; ++i) {
        const int64_t id = b->columns[0].values.value<int64_t>(i);
        int64_t row_id = *f.base_row_id + b->first_row_index + i;
        int64_t version = *f.default_row_commit_version;
        if (rid.ok()) {  // written by OPTIMIZE: never null
          EXPECT_TRUE(b->columns[1].IsValid(i, 1));
          row_id = b->columns[1].values.value<int64_t>(i);
        }
        if (rver.ok()) version = b->columns[2].values.value<int64_t>(i);
        out[id] = {row_id, version};
      }
    }
  }
  return out;
}

TEST_F(OptimizeTest, RowTrackingSurvivesTheRewrite) {
  auto schema = delta::ParseSchema(kSchema);
  ASSERT_TRUE(schema.ok());
  delta::NewTableSpec t;
  t.schema = *schema;
  t.properties["delta.enableRowTracking"] = "true";
  auto created = CreateTable(fs_.get(), root_, t);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  for (const auto& f : Files(fs_.get(), root_)) ASSERT_TRUE(f.base_row_id.has_value());
  const auto before_ids = RowIds(fs_.get(), root_);
  ASSERT_EQ(before_ids.size(), 40u);
  const auto before = Rows(fs_.get(), root_);

  auto r = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_files_added, 1);
  EXPECT_EQ(r->metrics.num_bins_rewritten_columnar, 0);  // row ids are materialized: streamed
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  // The new file got a fresh baseRowId; the rows kept theirs through the materialized column.
  EXPECT_GE(*snap->files()[0].base_row_id, 40);
  EXPECT_EQ(RowIds(fs_.get(), root_), before_ids);
  EXPECT_EQ(Rows(fs_.get(), root_), before);  // the hidden columns do not show
  for (const delta::Action& a : CommitActions(fs_.get(), root_, r->versions.at(0))) {
    if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) {
      EXPECT_EQ(nlohmann::json::parse(ci->json)["tags"]["delta.rowTracking.preserved"], "true");
    }
  }
  // A second round keeps them too (materialized values win over the new baseRowId).
  Append(fs_.get(), root_, 1000, 5, "p");
  auto ids2 = RowIds(fs_.get(), root_);
  auto r2 = RunOptimize(fs_.get(), root_);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->metrics.num_files_added, 1);
  EXPECT_EQ(r2->metrics.num_bins_rewritten_columnar, 0);
  EXPECT_EQ(RowIds(fs_.get(), root_), ids2);
}

TEST_F(OptimizeTest, InvalidOptionsAreRefused) {
  MakeTable(fs_.get(), root_, {});
  OptimizeSpec spec;
  spec.target_file_size = 0;
  EXPECT_TRUE(RunOptimize(fs_.get(), root_, spec).status().IsInvalidArgument());
  spec = {};
  spec.max_deleted_rows_ratio = -1;
  EXPECT_TRUE(RunOptimize(fs_.get(), root_, spec).status().IsInvalidArgument());
  EXPECT_TRUE(RunOptimize(fs_.get(), root_ + "-missing").status().IsNotFound());
}

// ---- corpus tables ---------------------------------------------------------------------

// Every corpus copy: OPTIMIZE (tiny target so every multi-file partition compacts) keeps
// the live rows, the old version still reads the same, a second run commits nothing.
TEST_F(OptimizeTest, CorpusTablesKeepTheirRows) {
  const std::vector<std::string> tables = {
      testing::Kernel("basic_partitioned"),
      testing::Kernel("cdf-column-mapping-name-mode"),
      testing::Kernel("cdf-column-mapping-id-mode"),
      testing::DeltaRs("delta-1.2.1-only-struct-stats"),
      testing::DeltaRs("simple_table"),
      testing::Kernel("table-with-dv-small"),
  };
  for (const std::string& src : tables) {
    SCOPED_TRACE(src);
    if (!std::filesystem::exists(src)) continue;
    delta::testing::TempTable t(src);
    const auto before = Rows(fs_.get(), t.root());
    auto v0 = Latest(fs_.get(), t.root())->version();
    OptimizeSpec spec;
    spec.max_deleted_rows_ratio = 0;
    auto r = RunOptimize(fs_.get(), t.root(), spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Rows(fs_.get(), t.root()), before);
    EXPECT_EQ(Rows(fs_.get(), t.root(), delta::VersionSpec::AtVersion(v0)), before);
    if (!r->versions.empty()) ExpectExactOutputs(fs_.get(), t.root(), r->versions.back());
    auto again = RunOptimize(fs_.get(), t.root(), spec);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(again->metrics.num_files_added, 0);
    EXPECT_TRUE(again->versions.empty());
  }
}

// ---- column-at-a-time fast path -----------------------------------------------------------

// The AddFiles of one commit, by partition value of `part` ("" when unpartitioned).
std::map<std::string, delta::AddFile> AddsOf(io::FileSystem* fs, const std::string& root, int64_t version) {
  std::map<std::string, delta::AddFile> out;
  for (const delta::Action& a : CommitActions(fs, root, version)) {
    if (const auto* add = std::get_if<delta::AddFile>(&a)) {
      auto it = add->partition_values.find("part");
      out[it == add->partition_values.end() ? "" : it->second.value_or("<null>")] = *add;
    }
  }
  return out;
}

// A copy of the table at `root` in a sibling directory.
std::string CopyTable(const std::string& root, const std::string& suffix) {
  const std::string copy = root + suffix;
  std::filesystem::copy(root, copy, std::filesystem::copy_options::recursive);
  return copy;
}

// OPTIMIZE of two copies of a table, column at a time and streamed: the same live rows
// and, bin for bin (partition for partition), the same statistics, record counts and
// file naming. Returns the columnar run.
OptimizeResult ExpectBothPathsAgree(io::FileSystem* fs, const std::string& root, OptimizeSpec spec = {}) {
  const std::string streamed = CopyTable(root, "-streamed");
  const auto before = Rows(fs, root);
  auto fast = RunOptimize(fs, root, spec);
  EXPECT_TRUE(fast.ok()) << fast.status().ToString();
  spec.columnar_rewrite = false;
  auto slow = RunOptimize(fs, streamed, spec);
  EXPECT_TRUE(slow.ok()) << slow.status().ToString();
  if (!fast.ok() || !slow.ok()) return {};
  EXPECT_EQ(slow->metrics.num_bins_rewritten_columnar, 0);
  EXPECT_EQ(fast->metrics.num_files_added, slow->metrics.num_files_added);
  EXPECT_EQ(Rows(fs, root), before);
  EXPECT_EQ(Rows(fs, streamed), before);
  EXPECT_EQ(fast->versions, slow->versions);
  for (size_t i = 0; i < fast->versions.size(); ++i) {
    ExpectExactOutputs(fs, root, fast->versions[i]);
    auto a = AddsOf(fs, root, fast->versions[i]);
    auto b = AddsOf(fs, streamed, slow->versions[i]);
    EXPECT_EQ(a.size(), b.size());
    for (const auto& [part, add] : a) {
      EXPECT_TRUE(b.count(part)) << part;
      if (!b.count(part)) continue;
      const delta::AddFile& other = b.at(part);
      EXPECT_EQ(add.stats, other.stats) << part;
      EXPECT_EQ(add.partition_values, other.partition_values);
      EXPECT_FALSE(add.data_change);
      const std::string dir = add.path.substr(0, add.path.rfind('/') + 1);
      EXPECT_EQ(dir, other.path.substr(0, other.path.rfind('/') + 1));
      EXPECT_TRUE(add.path.substr(dir.size()).starts_with("part-00000-")) << add.path;
      EXPECT_TRUE(add.path.ends_with("-c000.zstd.parquet")) << add.path;
      // The size recorded is the file's.
      auto rel = delta::DecodeActionPath(add.path);
      EXPECT_TRUE(rel.ok());
      if (rel.ok()) {
        EXPECT_EQ(std::filesystem::file_size(io::JoinPath(root, *rel)), static_cast<uintmax_t>(add.size));
      }
    }
  }
  return std::move(*fast);
}

TEST_F(OptimizeTest, ColumnarPathTakenWithSameRowsAndStatsAsStreaming) {
  MakeTable(fs_.get(), root_, {});
  for (int i = 0; i < 8; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins, 1);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);
  EXPECT_EQ(OptimizeMetricsToJson(r.metrics)["numBinsRewrittenColumnar"], 1);
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].num_records(), std::optional<int64_t>(80));
  auto duck = commands::testing::DuckDbRows(io::JoinPath(root_, snap->files()[0].path));
  if (!duck) GTEST_FAIL() << "node or the DuckDB oracle is missing, or DuckDB could not read the file (scripts/install-deps.sh installs the oracle)";
  EXPECT_EQ(*duck, Rows(fs_.get(), root_));
}

TEST_F(OptimizeTest, ColumnarPathAppliesDeletionVectors) {
  MakeTable(fs_.get(), root_, {}, /*dvs=*/true);
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  DeleteSpec del;
  // Every row of the second file, some of the others (incl. the id bounds 0 and 39).
  del.predicate = "id IN (0, 3, 6, 9, 27, 30, 33, 39) OR (id >= 10 AND id < 20)";
  auto d = DeleteRows(fs_.get(), root_, del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);
  ASSERT_TRUE(r.metrics.num_deletion_vectors_removed.has_value());
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  EXPECT_EQ(snap->files()[0].num_records(), std::optional<int64_t>(40 - 18));
}

TEST_F(OptimizeTest, ColumnarPathPerPartition) {
  MakeTable(fs_.get(), root_, {"part"});
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "a");
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, 100 + i * 10, 10, "b=/x");  // escaped directory
  Append(fs_.get(), root_, 500, 10, "c");
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins, 2);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 2);
  for (const auto& [part, add] : AddsOf(fs_.get(), root_, r.versions.at(0))) {
    const std::string dir = part == "a" ? "part=a/" : "part=b%3D%2Fx/";
    EXPECT_TRUE(add.path.starts_with(delta::EncodeActionPath(dir))) << add.path;
  }
}

TEST_F(OptimizeTest, ColumnarPathForReorgPurge) {
  MakeTable(fs_.get(), root_, {}, /*dvs=*/true);
  Append(fs_.get(), root_, 0, 20, "p");
  Append(fs_.get(), root_, 100, 20, "p");
  DeleteSpec del;
  del.predicate = "id = 3 OR id = 105 OR id = 119";
  ASSERT_TRUE(DeleteRows(fs_.get(), root_, del).ok());
  OptimizeSpec spec;
  spec.reorg_purge = true;
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_, spec);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);
  EXPECT_EQ(Latest(fs_.get(), root_)->NumLiveRecords(), std::optional<int64_t>(37));
}

// Row groups at or above the copy threshold are copied whole (bytes and footer
// statistics); one a deletion vector thins is decoded. Rows and Delta statistics equal
// the streamed path's.
TEST_F(OptimizeTest, ColumnarPathCopiesLargeRowGroupsWhole) {
  MakeTable(fs_.get(), root_, {}, /*dvs=*/true);
  for (int i = 0; i < 4; ++i) Append(fs_.get(), root_, i * 10, 10, "p");
  DeleteSpec del;
  del.predicate = "id = 12 OR id = 19";  // thins the second file only
  ASSERT_TRUE(DeleteRows(fs_.get(), root_, del).ok());
  OptimizeSpec spec;
  spec.copy_row_group_min_bytes = 1;  // every row group counts as large
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_, spec);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);
  EXPECT_EQ(r.metrics.num_row_groups_copied, 3);
  EXPECT_EQ(OptimizeMetricsToJson(r.metrics)["numRowGroupsCopied"], 3);
  auto snap = Latest(fs_.get(), root_);
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].num_records(), std::optional<int64_t>(38));
  EXPECT_FALSE(snap->files()[0].deletion_vector.has_value());
  // The default threshold (32 MiB) copies none of these small row groups.
  MakeTable(fs_.get(), root_ + "-default", {}, /*dvs=*/false);
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_ + "-default", i * 10, 10, "p");
  auto d = RunOptimize(fs_.get(), root_ + "-default", OptimizeSpec{});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->metrics.num_bins_rewritten_columnar, 1);
  EXPECT_EQ(d->metrics.num_row_groups_copied, 0);
}

// One blind-append commit of `rows` (logical values of the table's schema).
void AppendRows(io::FileSystem* fs, const std::string& root, const std::vector<std::vector<Value>>& rows) {
  auto snap = Latest(fs, root);
  ASSERT_TRUE(snap);
  auto w = delta::DataFileWriter::Open(fs, root, delta::WriteContext::FromSnapshot(*snap));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->WriteRows(rows).ok());
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok()) << adds.status().ToString();
  auto txn = delta::Transaction::Begin(snap);
  ASSERT_TRUE(txn.ok());
  for (auto& a : *adds) (*txn)->AddAction(a);
  (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
  ASSERT_TRUE((*txn)->Commit().ok());
}

// Statistics columns the footer cannot answer for (an array: Delta counts null arrays;
// a double of only NaNs: no footer bound) -- the fast path still runs and reads its
// output back for the statistics, which equal the streamed ones.
TEST_F(OptimizeTest, ColumnarPathReadsStatsBackWhenTheFooterIsNotExact) {
  auto schema = delta::ParseSchema(
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"nan","type":"double","nullable":true,"metadata":{}},)"
      R"({"name":"arr","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{}}]})");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  delta::NewTableSpec t;
  t.schema = *schema;
  ASSERT_TRUE(CreateTable(fs_.get(), root_, t).ok());
  for (int f = 0; f < 3; ++f) {
    std::vector<std::vector<Value>> rows;
    for (int i = 0; i < 5; ++i) {
      const int64_t id = f * 10 + i;
      rows.push_back({Value::Int(id), Value::Double(std::nan("")),
                      id % 3 == 0 ? Value::Null() : Value::List({Value::Int(id), Value::Null()})});
    }
    AppendRows(fs_.get(), root_, rows);
  }
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);
  auto adds = AddsOf(fs_.get(), root_, r.versions.at(0));
  ASSERT_EQ(adds.size(), 1u);
  auto j = nlohmann::json::parse(*adds.begin()->second.stats);
  EXPECT_EQ(j["nullCount"]["arr"], 5);  // null arrays (ids 0, 3, 12, 21, 24), not null elements
  EXPECT_FALSE(j["minValues"].contains("nan"));
}

// A column added after some files were written: those files lack it, so their bin is
// streamed (the logical reader fills the column with nulls).
TEST_F(OptimizeTest, SchemaEvolvedTableFallsBackToStreaming) {
  MakeTable(fs_.get(), root_, {"part"});
  for (int i = 0; i < 3; ++i) Append(fs_.get(), root_, i * 10, 10, "old");
  {
    auto snap = Latest(fs_.get(), root_);
    delta::Metadata m = snap->metadata();
    std::string schema = kSchema;
    schema.insert(schema.size() - 2, R"(,{"name":"extra","type":"long","nullable":true,"metadata":{}})");
    m.schema_string = schema;
    auto txn = delta::Transaction::Begin(snap);
    ASSERT_TRUE(txn.ok());
    (*txn)->AddAction(m);
    (*txn)->SetOperation("ADD COLUMNS", nlohmann::json::object());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  // Files of the new schema: in partition "new" only those, in "old" mixed.
  auto append6 = [&](int64_t first, const std::string& part) {
    auto snap = Latest(fs_.get(), root_);
    auto w = delta::DataFileWriter::Open(fs_.get(), root_, delta::WriteContext::FromSnapshot(*snap));
    ASSERT_TRUE(w.ok());
    std::vector<std::vector<Value>> rows;
    for (int64_t i = first; i < first + 5; ++i) {
      std::vector<Value> row = Row(i, part);
      row.push_back(Value::Int(i * 2));
      rows.push_back(std::move(row));
    }
    ASSERT_TRUE((*w)->WriteRows(rows).ok());
    auto adds = (*w)->Finish();
    ASSERT_TRUE(adds.ok());
    auto txn = delta::Transaction::Begin(snap);
    for (auto& a : *adds) (*txn)->AddAction(a);
    (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
    ASSERT_TRUE((*txn)->Commit().ok());
  };
  append6(1000, "old");
  append6(2000, "new");
  append6(2100, "new");
  OptimizeResult r = ExpectBothPathsAgree(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins, 2);
  EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, 1);  // "new" only
  // The old rows read the new column as null.
  int nulls = 0;
  for (const std::string& row : Rows(fs_.get(), root_)) nulls += row.find("\"extra\":null") != std::string::npos;
  EXPECT_EQ(nulls, 30);
}

TEST(OptimizeMetricsJsonTest, DeltaFieldNamesAndNulls) {
  OptimizeMetrics m;
  m.num_files_added = 1;
  m.files_added.min = 10;
  m.files_added.max = 10;
  m.files_added.avg = 10;
  m.files_added.total_files = 1;
  m.files_added.total_size = 10;
  auto j = OptimizeMetricsToJson(m);
  EXPECT_EQ(j["numFilesAdded"], 1);
  EXPECT_EQ(j["filesAdded"]["totalSize"], 10);
  EXPECT_TRUE(j["filesRemoved"]["min"].is_null());
  EXPECT_TRUE(j["deletionVectorStats"].is_null());
  EXPECT_EQ(j.begin().key(), "numFilesAdded");
  for (const char* k : {"partitionsOptimized", "numBins", "numBatches", "totalConsideredFiles",
                        "totalFilesSkipped", "preserveInsertionOrder", "startTimeMs", "endTimeMs",
                        "numTableColumns", "numTableColumnsWithStats"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
}


// ---- files of other writers on the column-at-a-time path -----------------------------------

// Whether every output file added by commit `version` has exactly the table's data-file
// schema (names, annotations, field ids), whatever its inputs had.
void ExpectTableSchemaOutputs(io::FileSystem* fs, const std::string& root, int64_t version) {
  auto snap = Latest(fs, root);
  ASSERT_TRUE(snap);
  auto want = delta::BuildDataFileSchema(delta::WriteContext::FromSnapshot(*snap));
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (const delta::Action& a : CommitActions(fs, root, version)) {
    const auto* add = std::get_if<delta::AddFile>(&a);
    if (add == nullptr) continue;
    auto rel = delta::DecodeActionPath(add->path);
    ASSERT_TRUE(rel.ok());
    auto r = parquet::FileReader::Open(fs, io::JoinPath(root, *rel));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Status same = parquet::CompareSchemas(*want, "the data-file schema", (*r)->schema(), *rel);
    EXPECT_TRUE(same.ok()) << same.ToString();
  }
}

// OPTIMIZE of a table whose files another engine wrote: every bin column at a time, the
// live rows unchanged (a multiset), outputs in the table's schema with exact statistics.
OptimizeResult ExpectForeignColumnar(io::FileSystem* fs, const std::string& root) {
  const auto before = Rows(fs, root);
  OptimizeSpec spec;
  spec.max_deleted_rows_ratio = 0;
  auto r = RunOptimize(fs, root, spec);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_GT(r->metrics.num_bins, 0);
  EXPECT_EQ(r->metrics.num_bins_rewritten_columnar, r->metrics.num_bins);
  EXPECT_EQ(Rows(fs, root), before);
  for (int64_t v : r->versions) {
    ExpectExactOutputs(fs, root, v);
    ExpectTableSchemaOutputs(fs, root, v);
  }
  return std::move(*r);
}

// Spark-written corpus tables (parquet-mr 1.10-1.13: converted and logical annotations
// mixed, no field ids, Spark's key-value schema), copied to a temporary directory.
TEST_F(OptimizeTest, SparkWrittenCorpusTablesGoColumnar) {
  const std::vector<std::string> tables = {
      testing::Kernel("basic_partitioned"),
      testing::Kernel("cdf-table"),
      testing::Kernel("cdf-table-non-partitioned"),
      testing::Kernel("cdf-table-update-ops"),
      testing::Kernel("cdf-column-mapping-name-mode"),
      testing::Kernel("cdf-column-mapping-id-mode"),
      testing::Kernel("data-reader-timestamp_ntz"),
      testing::Kernel("app-txn-checkpoint"),
      testing::Kernel("v2-classic-checkpoint-parquet"),
      testing::Golden("data-reader-primitives"),
      testing::Golden("data-reader-array-primitives"),
      testing::Golden("data-reader-map"),
      testing::Golden("data-reader-nested-struct"),
      testing::Golden("data-reader-array-complex-objects"),
      testing::Golden("kernel-timestamp-timestamp_micros"),
      testing::Golden("basic-with-inserts-updates"),
      testing::Golden("snapshot-data3"),
      testing::Golden("snapshot-repartitioned"),
      testing::Golden("dv-with-columnmapping"),
      testing::DeltaRs("simple_table"),
  };
  for (const std::string& src : tables) {
    SCOPED_TRACE(src);
    ASSERT_TRUE(std::filesystem::exists(src)) << "the corpus is missing";
    delta::testing::TempTable t(src);
    ExpectForeignColumnar(fs_.get(), t.root());
  }
}

// Spark files whose values are converted one to one on the way (parquet/column_map.h):
// INT96 timestamps (Spark's default before Delta wrote INT64), millisecond timestamps,
// and in the column mapping tables INT96 under physical names and field ids. Every bin
// column at a time, the rows read the same as before, outputs in the table's schema.
TEST_F(OptimizeTest, SparkFilesWithConvertibleValuesGoColumnar) {
  for (const std::string& src : {testing::Golden("kernel-timestamp-int96"), testing::Golden("kernel-timestamp-timestamp_millis"),
                                 testing::Golden("kernel-timestamp-pst"), testing::Golden("table-with-columnmapping-mode-id"),
                                 testing::Golden("table-with-columnmapping-mode-name")}) {
    SCOPED_TRACE(src);
    ASSERT_TRUE(std::filesystem::exists(src)) << "the corpus is missing";
    delta::testing::TempTable t(src);
    ExpectForeignColumnar(fs_.get(), t.root());
  }
}

// Files whose values cannot be written as the table's (optional columns of a NOT NULL
// table) stay on the streaming path, rows unchanged.
TEST_F(OptimizeTest, SparkFilesThatNeedTheStreamingPathStayStreamed) {
  for (const std::string& src : {testing::Kernel("external-table-different-nullability")}) {
    SCOPED_TRACE(src);
    ASSERT_TRUE(std::filesystem::exists(src)) << "the corpus is missing";
    delta::testing::TempTable t(src);
    const auto before = Rows(fs_.get(), t.root());
    auto r = RunOptimize(fs_.get(), t.root());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->metrics.num_bins, 1);
    EXPECT_EQ(r->metrics.num_bins_rewritten_columnar, 0);
    EXPECT_EQ(Rows(fs_.get(), t.root()), before);
    for (int64_t v : r->versions) ExpectTableSchemaOutputs(fs_.get(), t.root(), v);
  }
}

// DuckDB-written files (tests/oracle/duckdb-copy.mjs at test time: all columns
// optional, logical types only, DuckDB's own page layout) registered in a Delta log.
TEST_F(OptimizeTest, DuckDbWrittenFilesGoColumnar) {
  const std::string oracle = std::string(LITHIFY_SOURCE_DIR) + "/tests/oracle";
  if (std::system("node --version > /dev/null 2>&1") != 0 ||
      !std::filesystem::exists(oracle + "/node_modules/@duckdb/node-api")) {
    GTEST_FAIL() << "node or the DuckDB oracle is missing, or DuckDB could not read the file (scripts/install-deps.sh installs the oracle)";
  }
  testing::CreateDeltaTable(
      fs_.get(), root_,
      R"j({"type":"struct","fields":[)j"
      R"j({"name":"id","type":"long","nullable":true,"metadata":{}},)j"
      R"j({"name":"name","type":"string","nullable":true,"metadata":{}},)j"
      R"j({"name":"score","type":"double","nullable":true,"metadata":{}},)j"
      R"j({"name":"d","type":"decimal(12,3)","nullable":true,"metadata":{}},)j"
      R"j({"name":"day","type":"date","nullable":true,"metadata":{}},)j"
      R"j({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)j"
      R"j({"name":"tags","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{}},)j"
      R"j({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]})j",
      {}, false);
  auto snap = Latest(fs_.get(), root_);
  ASSERT_TRUE(snap);
  auto txn = delta::Transaction::Begin(snap);
  ASSERT_TRUE(txn.ok());
  for (int k = 0; k < 4; ++k) {
    const std::string name = fmt::format("part-0000{}-duckdb.snappy.parquet", k);
    const std::string query = fmt::format(
        "SELECT i::BIGINT AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'n' || (i % 13) END AS name, "
        "(i / 4)::DOUBLE AS score, (i * 1.5)::DECIMAL(12,3) AS d, DATE '2024-01-01' + (i % 30)::INT AS day, "
        "TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds(i * 1000) AS ts, "
        "CASE WHEN i % 5 = 0 THEN NULL ELSE ['a' || (i % 3), NULL] END AS tags, "
        "CASE WHEN i % 6 = 0 THEN NULL ELSE {{'x': (i % 100)::INT}} END AS s "
        "FROM range({}, {}) t(i)",
        k * 1000, k * 1000 + 500 + k * 100);
    const std::string path = io::JoinPath(root_, name);
    const std::string cmd = "cd '" + oracle + "' && node duckdb-copy.mjs '" + path + "' \"" + query +
                            "\" 'FORMAT parquet, COMPRESSION snappy'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto reader = parquet::FileReader::Open(fs_.get(), path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_NE((*reader)->metadata().created_by.value_or("").find("DuckDB"), std::string::npos);
    delta::AddFile add;
    add.path = name;
    add.size = static_cast<int64_t>(std::filesystem::file_size(path));
    add.modification_time = 1700000000000;
    add.data_change = true;
    add.stats = fmt::format(R"({{"numRecords":{}}})", (*reader)->metadata().num_rows);
    (*txn)->AddAction(add);
  }
  (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
  auto committed = (*txn)->Commit();
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  OptimizeResult r = ExpectForeignColumnar(fs_.get(), root_);
  EXPECT_EQ(r.metrics.num_bins, 1);
  EXPECT_EQ(r.metrics.num_files_removed, 4);
  auto after = Latest(fs_.get(), root_);
  ASSERT_EQ(after->files().size(), 1u);
  EXPECT_EQ(after->files()[0].num_records(), std::optional<int64_t>(500 + 600 + 700 + 800));
  // DuckDB reads the output as lithify does.
  auto duck = commands::testing::DuckDbRows(io::JoinPath(root_, after->files()[0].path));
  if (duck) EXPECT_EQ(*duck, Rows(fs_.get(), root_));
}

}  // namespace
}  // namespace lithify::commands
