// Tests of VACUUM (commands/vacuum.h) on tables written by lithify (create, append,
// delete; copy-on-write and deletion-vector tables) in temporary directories and in the
// memory file system (crash injection at every IO step).
#include "lithify/base/temp_dir.h"
#include "lithify/commands/vacuum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/commands/append.h"
#include "lithify/commands/checkpoint.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/fault_injection.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {
namespace {

constexpr int64_t kHour = 3'600'000;
constexpr int64_t kDay = 24 * kHour;

int64_t WallNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void WriteText(io::FileSystem* fs, const std::string& path, const std::string& text) {
  ASSERT_TRUE(fs->WriteFile(path, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size())).ok())
      << path;
}

// A table "id long, part string" (partitioned by `part_col` when not empty).
void MakeTable(io::FileSystem* fs, const std::string& root, bool dvs, const std::string& part_col = "part") {
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, " + (part_col.empty() ? std::string("part") : part_col) + " string");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  if (!part_col.empty()) spec.partition_columns = {part_col};
  if (dvs) spec.properties = {{"delta.enableDeletionVectors", "true"}};
  auto r = CreateTable(fs, root, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// Appends ids [first, first+n) spread over partitions "a" and "b" (column `col`).
void AppendIds(io::FileSystem* fs, const std::string& root, const std::string& scratch, int first, int n,
               const std::string& col = "part") {
  std::string text;
  for (int i = first; i < first + n; ++i) {
    text += fmt::format(R"({{"id":{},"{}":"{}"}})", i, col, i % 2 ? "a" : "b") + "\n";
  }
  const std::string input = fmt::format("{}/in-{}.jsonl", scratch, first);
  WriteText(fs, input, text);
  AppendSpec spec;
  spec.inputs = {input};
  auto r = AppendRows(fs, root, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

void DeleteWhere(io::FileSystem* fs, const std::string& root, const std::string& pred) {
  DeleteSpec spec;
  spec.predicate = pred;
  auto r = DeleteRows(fs, root, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value()) << pred;
}

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

std::shared_ptr<const delta::Snapshot> Load(io::FileSystem* fs, const std::string& root,
                                            delta::VersionSpec v = delta::VersionSpec::Latest()) {
  auto s = delta::Snapshot::Load(fs, root, v);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

// Every file a version references (data files and 'u' DV files), relative paths.
std::set<std::string> Referenced(const delta::Snapshot& s) {
  std::set<std::string> out;
  for (const table::FileEntry& f : s.files()) {
    out.insert(f.path);
    if (f.deletion_vector && f.deletion_vector->storage_type == "u") {
      auto dv = delta::RelativeDvFilePath(delta::DeletionVectorDescriptor::FromRef(*f.deletion_vector));
      EXPECT_TRUE(dv.ok());
      if (dv.ok()) out.insert(*dv);
    }
  }
  return out;
}

void ExpectAllExist(io::FileSystem* fs, const std::string& root, const std::set<std::string>& paths) {
  for (const std::string& p : paths) EXPECT_TRUE(fs->Head(io::JoinPath(root, p)).ok()) << p << " is gone";
}

bool Exists(io::FileSystem* fs, const std::string& root, const std::string& rel) {
  return fs->Head(io::JoinPath(root, rel)).ok();
}

// path -> reason of every deletion.
std::map<std::string, std::string> Deleted(const VacuumResult& r) {
  std::map<std::string, std::string> out;
  for (const planner::VacuumDeletion& d : r.deletions) out[d.path] = std::string(planner::VacuumReasonName(d.reason));
  return out;
}

// Files of the snapshot's tombstones.
std::set<std::string> TombstonePaths(const delta::Snapshot& s) {
  std::set<std::string> out;
  for (const delta::Tombstone& t : s.tombstones()) out.insert(t.path);
  return out;
}

std::set<std::string> ListLog(const std::string& root) {
  std::set<std::string> out;
  for (auto& e : std::filesystem::directory_iterator(root + "/_delta_log")) out.insert(e.path().filename());
  return out;
}

nlohmann::json CommitInfoAt(io::FileSystem* fs, const std::string& root, int64_t v) {
  auto s = Load(fs, root, delta::VersionSpec::AtVersion(v));
  if (!s || !s->commit_info()) return nullptr;
  return nlohmann::json::parse(s->commit_info()->json);
}

// Writes a file and sets its modification time `age_ms` into the past.
void OldFile(const std::string& path, int64_t age_ms) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fputs("stray bytes", f);
  std::fclose(f);
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() -
                                             std::chrono::milliseconds(age_ms));
}

class VacuumTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string root_ = dir_.path() + "/table";
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
};

// ---- FULL ---------------------------------------------------------------------------------

TEST_F(VacuumTest, FullDeletesUntrackedAndExpiredTombstonesAndCommitsStartEnd) {
  MakeTable(fs_.get(), root_, /*dvs=*/false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 1");  // copy-on-write: the 'a' file is rewritten
  auto before = Load(fs_.get(), root_);
  const std::set<std::string> removed = TombstonePaths(*before);
  ASSERT_EQ(removed.size(), 1u);
  const std::set<std::string> live = Referenced(*before);
  const auto rows = Rows(fs_.get(), root_);

  OldFile(root_ + "/part=a/stray.parquet", 30 * kDay);
  OldFile(root_ + "/_tmp/old.parquet", 30 * kDay);         // hidden
  OldFile(root_ + "/.staging/old.parquet", 30 * kDay);     // hidden
  OldFile(root_ + "/part=a/.x.parquet.crc", 30 * kDay);    // hidden
  OldFile(root_ + "/_delta_log/old-note.txt", 30 * kDay);  // under _delta_log
  OldFile(dir_.path() + "/table2/old.parquet", 30 * kDay);  // outside (shares the prefix)
  const std::set<std::string> log_before = ListLog(root_);

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;  // every tombstone has expired
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, std::string> expected{{"part=a/stray.parquet", "untracked_file"}};
  for (const std::string& p : removed) expected[p] = "expired_tombstone";
  EXPECT_EQ(Deleted(*r), expected);
  EXPECT_EQ(r->files_to_delete, 2);
  EXPECT_EQ(r->files_deleted, 2);
  EXPECT_EQ(r->protected_files.live, static_cast<int64_t>(live.size()));
  // 3 hidden files, the hidden directories _tmp, .staging and _delta_log, the log's files.
  EXPECT_EQ(r->protected_files.hidden, 6 + static_cast<int64_t>(log_before.size()));
  EXPECT_EQ(r->delete_before_ms, spec.now_ms - 7 * kDay);
  for (const auto& [p, reason] : expected) EXPECT_FALSE(Exists(fs_.get(), root_, p)) << p;
  for (const char* p : {"_tmp/old.parquet", ".staging/old.parquet", "part=a/.x.parquet.crc", "_delta_log/old-note.txt"}) {
    EXPECT_TRUE(Exists(fs_.get(), root_, p)) << p;
  }
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/table2/old.parquet"));
  ExpectAllExist(fs_.get(), root_, live);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);

  // _delta_log: only the two commits and _last_vacuum_info were added.
  std::set<std::string> log_after = ListLog(root_);
  for (const std::string& f : log_before) EXPECT_TRUE(log_after.contains(f)) << f;
  EXPECT_EQ(log_after.size(), log_before.size() + 3);
  ASSERT_TRUE(r->start_version && r->end_version);
  EXPECT_EQ(*r->start_version, before->version() + 1);
  EXPECT_EQ(*r->end_version, before->version() + 2);
  nlohmann::json start = CommitInfoAt(fs_.get(), root_, *r->start_version);
  EXPECT_EQ(start["operation"], "VACUUM START");
  EXPECT_EQ(start["operationParameters"]["retentionCheckEnabled"], true);
  EXPECT_EQ(start["operationParameters"]["defaultRetentionMillis"], 7 * kDay);
  EXPECT_FALSE(start["operationParameters"].contains("specifiedRetentionMillis"));
  EXPECT_EQ(start["operationMetrics"]["numFilesToDelete"], "2");
  EXPECT_EQ(start["operationMetrics"]["sizeOfDataToDelete"], std::to_string(r->bytes_to_delete));
  nlohmann::json end = CommitInfoAt(fs_.get(), root_, *r->end_version);
  EXPECT_EQ(end["operation"], "VACUUM END");
  EXPECT_EQ(end["operationParameters"]["status"], "COMPLETED");
  EXPECT_EQ(end["operationMetrics"]["numDeletedFiles"], "2");
  EXPECT_EQ(end["operationMetrics"]["numVacuumedDirectories"], "0");
  ASSERT_TRUE(r->last_vacuum_info.has_value());
  EXPECT_EQ(*r->last_vacuum_info, before->version());
  auto info = fs_->ReadFile(root_ + "/_delta_log/_last_vacuum_info");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(info->data()), info->size()),
            fmt::format("{{\"latestCommitVersionOutsideOfRetentionWindow\":{}}}\n", before->version()));

  // Nothing left: a second run deletes nothing.
  auto again = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->files_to_delete, 0);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

TEST_F(VacuumTest, YoungTombstonesKeptAndOlderVersionStillReadable) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  const int64_t v_before_delete = Load(fs_.get(), root_)->version();
  const auto rows_before_delete = Rows(fs_.get(), root_);
  DeleteWhere(fs_.get(), root_, "id < 4");
  auto snap = Load(fs_.get(), root_);
  const std::set<std::string> removed = TombstonePaths(*snap);
  ASSERT_FALSE(removed.empty());
  OldFile(root_ + "/part=b/stray.parquet", 30 * kDay);
  OldFile(root_ + "/part=b/recent-stray.parquet", 1 * kHour);  // younger than the horizon

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + kHour;  // the delete happened an hour ago
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Deleted(*r), (std::map<std::string, std::string>{{"part=b/stray.parquet", "untracked_file"}}));
  EXPECT_EQ(r->protected_files.young_tombstone, static_cast<int64_t>(removed.size()));
  EXPECT_GE(r->protected_files.newer_than_horizon, 1);
  ExpectAllExist(fs_.get(), root_, removed);
  EXPECT_TRUE(Exists(fs_.get(), root_, "part=b/recent-stray.parquet"));
  // Time travel to before the delete still works.
  EXPECT_EQ(Rows(fs_.get(), root_, delta::VersionSpec::AtVersion(v_before_delete)), rows_before_delete);
}

TEST_F(VacuumTest, DeletionVectorTableKeepsLiveFilesAndTheirDvs) {
  MakeTable(fs_.get(), root_, /*dvs=*/true);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 20);
  DeleteWhere(fs_.get(), root_, "id = 1");  // DV on the 'a' file
  auto s1 = Load(fs_.get(), root_);
  std::set<std::string> first_dvs;
  for (const std::string& p : Referenced(*s1)) {
    if (p.find("deletion_vector_") != std::string::npos) first_dvs.insert(p);
  }
  ASSERT_EQ(first_dvs.size(), 1u);
  DeleteWhere(fs_.get(), root_, "id = 3");  // the DV grows: a new DV file, the old one is a tombstone's
  auto s2 = Load(fs_.get(), root_);
  const std::set<std::string> live = Referenced(*s2);
  ASSERT_FALSE(live.contains(*first_dvs.begin()));
  const auto rows = Rows(fs_.get(), root_);

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // The data file was removed and re-added under the same path: it stays; only the
  // superseded DV file goes.
  EXPECT_EQ(Deleted(*r), (std::map<std::string, std::string>{{*first_dvs.begin(), "expired_deletion_vector"}}));
  EXPECT_EQ(r->protected_files.live_dv, 1);
  EXPECT_EQ(r->protected_files.live, static_cast<int64_t>(s2->files().size()));
  ExpectAllExist(fs_.get(), root_, live);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

TEST_F(VacuumTest, PartitionColumnDirectoryIsNotHidden) {
  MakeTable(fs_.get(), root_, false, "_p");
  AppendIds(fs_.get(), root_, dir_.path(), 0, 4, "_p");
  OldFile(root_ + "/_p=a/stray.parquet", 30 * kDay);
  OldFile(root_ + "/_q=a/stray.parquet", 30 * kDay);
  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.dry_run = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Deleted(*r), (std::map<std::string, std::string>{{"_p=a/stray.parquet", "untracked_file"}}));
}

// Writes nothing but sets a directory's modification time `age_ms` into the past.
void OldDir(const std::string& path, int64_t age_ms) {
  std::filesystem::create_directories(path);
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() -
                                             std::chrono::milliseconds(age_ms));
}

TEST_F(VacuumTest, EmptyDirectoriesAreDeletedOnceOld) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 4);
  const auto rows = Rows(fs_.get(), root_);
  const std::set<std::string> live = Referenced(*Load(fs_.get(), root_));
  OldDir(root_ + "/part=c/x/y", 30 * kDay);
  OldDir(root_ + "/part=c/x", 30 * kDay);
  OldDir(root_ + "/part=c", 30 * kDay);
  OldDir(root_ + "/_staging/empty", 30 * kDay);  // hidden: never touched
  OldDir(root_ + "/part=d", -2 * kDay);          // after the horizon: a writer may be about to use it
  OldFile(root_ + "/part=e/stray.parquet", 30 * kDay);
  OldDir(root_ + "/part=e", 30 * kDay);          // holds an old stray file: goes next time

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.dry_run = true;
  auto dry = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(Deleted(*dry), (std::map<std::string, std::string>{{"part=c", "empty_directory"},
                                                               {"part=c/x", "empty_directory"},
                                                               {"part=c/x/y", "empty_directory"},
                                                               {"part=e/stray.parquet", "untracked_file"}}));
  EXPECT_EQ(dry->dirs_to_delete, 3);
  EXPECT_TRUE(std::filesystem::exists(root_ + "/part=c/x/y"));

  spec.dry_run = false;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dirs_deleted, 3);
  EXPECT_EQ(r->files_deleted, 1);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/part=c"));
  for (const char* d : {"/_staging/empty", "/part=d", "/part=e", "/part=a", "/part=b"}) {
    EXPECT_TRUE(std::filesystem::is_directory(root_ + d)) << d;
  }
  EXPECT_EQ(CommitInfoAt(fs_.get(), root_, *r->end_version)["operationMetrics"]["numVacuumedDirectories"], "3");
  ExpectAllExist(fs_.get(), root_, live);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);

  // part=e was emptied by that run (its mtime is now): kept until the retention passes.
  VacuumSpec today;
  auto again = Vacuum(fs_.get(), root_, today);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->dirs_to_delete, 0);
  EXPECT_TRUE(std::filesystem::is_directory(root_ + "/part=e"));
  auto third = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->dirs_deleted, 1);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/part=e"));
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

TEST_F(VacuumTest, DryRunDeletesAndCommitsNothing) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 2");
  OldFile(root_ + "/part=a/stray.parquet", 30 * kDay);
  const int64_t v = Load(fs_.get(), root_)->version();
  const std::set<std::string> log_before = ListLog(root_);
  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.dry_run = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_to_delete, 2);
  EXPECT_EQ(r->files_deleted, 0);
  EXPECT_FALSE(r->start_version.has_value());
  for (const auto& [p, reason] : Deleted(*r)) EXPECT_TRUE(Exists(fs_.get(), root_, p)) << p;
  EXPECT_EQ(Load(fs_.get(), root_)->version(), v);
  EXPECT_EQ(ListLog(root_), log_before);
}

// ---- LITE --------------------------------------------------------------------------------

TEST_F(VacuumTest, LiteUsesTheLogAndRecordsWhereItStopped) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 1");
  auto snap = Load(fs_.get(), root_);
  const std::set<std::string> removed = TombstonePaths(*snap);
  OldFile(root_ + "/part=a/stray.parquet", 30 * kDay);  // not in the log: LITE cannot see it
  const auto rows = Rows(fs_.get(), root_);

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.lite = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, std::string> expected;
  for (const std::string& p : removed) expected[p] = "expired_tombstone";
  EXPECT_EQ(Deleted(*r), expected);
  EXPECT_EQ(r->lite_from_version, 0);
  EXPECT_EQ(r->lite_to_version, snap->version());
  EXPECT_EQ(r->last_vacuum_info, snap->version());
  EXPECT_TRUE(Exists(fs_.get(), root_, "part=a/stray.parquet"));
  for (const std::string& p : removed) EXPECT_FALSE(Exists(fs_.get(), root_, p)) << p;
  EXPECT_EQ(Rows(fs_.get(), root_), rows);

  // The next LITE run starts after the recorded version.
  auto again = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->lite_from_version, snap->version() + 1);
  EXPECT_EQ(again->files_to_delete, 0);
  // FULL still finds the stray file.
  spec.lite = false;
  auto full = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(Deleted(*full), (std::map<std::string, std::string>{{"part=a/stray.parquet", "untracked_file"}}));
}

TEST_F(VacuumTest, LiteRefusedWhenTheLogWasCleanedPastTheLastVacuum) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 1");
  ASSERT_TRUE(Checkpoint(fs_.get(), root_).ok());
  std::filesystem::remove(root_ + "/_delta_log/00000000000000000000.json");
  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.lite = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("DELTA_CANNOT_VACUUM_LITE"), std::string::npos) << r.status().message();
  // A FULL run works and records where LITE can start.
  spec.lite = false;
  auto full = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  spec.lite = true;
  auto lite = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
}

// A remove stamped after the horizon in a commit before it (the writer's clock ahead of
// the storage's): LITE keeps the file and does not record its commit as done, so the
// next LITE run deletes it once it expires.
TEST_F(VacuumTest, LiteRevisitsTombstonesThatWereTooYoung) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  const int64_t wall = WallNowMs();
  DeleteSpec del;
  del.predicate = "part = 'b'";
  del.transaction.now_ms = [wall] { return wall + 8 * kDay - kHour; };
  auto d = DeleteRows(fs_.get(), root_, del);
  ASSERT_TRUE(d.ok() && d->commit) << d.status().ToString();
  const std::set<std::string> removed = TombstonePaths(*Load(fs_.get(), root_));
  ASSERT_FALSE(removed.empty());
  VacuumSpec spec;
  spec.now_ms = wall + 8 * kDay;
  spec.lite = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_to_delete, 0);
  EXPECT_EQ(r->protected_files.young_tombstone, static_cast<int64_t>(removed.size()));
  EXPECT_EQ(r->last_vacuum_info, d->commit->version - 1);
  ExpectAllExist(fs_.get(), root_, removed);
  spec.now_ms = wall + 16 * kDay;
  auto later = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->files_to_delete, static_cast<int64_t>(removed.size()));
  for (const std::string& p : removed) EXPECT_FALSE(Exists(fs_.get(), root_, p)) << p;
}

// A hand-written commit whose removes point into _delta_log and outside the table:
// LITE takes its candidates from such paths, and none of them may be deleted.
TEST_F(VacuumTest, LiteNeverDeletesLogFilesOrFilesOutsideTheRoot) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 4);
  const int64_t v = Load(fs_.get(), root_)->version();
  OldFile(dir_.path() + "/outside.parquet", 30 * kDay);
  OldFile(root_ + "/part=a/old-removed.parquet", 30 * kDay);
  const std::string lines =
      R"({"remove":{"path":"_delta_log/00000000000000000000.json","deletionTimestamp":1,"dataChange":true}})" "\n"
      R"({"remove":{"path":"../outside.parquet","deletionTimestamp":1,"dataChange":true}})" "\n" +
      fmt::format(R"({{"remove":{{"path":"file://{}/outside.parquet","deletionTimestamp":1,"dataChange":true}}}})",
                  dir_.path()) +
      "\n" R"({"remove":{"path":"part=a/old-removed.parquet","deletionTimestamp":1,"dataChange":true}})" "\n";
  ASSERT_TRUE(fs_->PutIfAbsent(fmt::format("{}/_delta_log/{:020d}.json", root_, v + 1),
                               ByteView(reinterpret_cast<const uint8_t*>(lines.data()), lines.size()))
                  .ok());
  const auto rows = Rows(fs_.get(), root_);
  VacuumSpec spec;
  spec.now_ms = WallNowMs() + 8 * kDay;
  spec.lite = true;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Deleted(*r), (std::map<std::string, std::string>{{"part=a/old-removed.parquet", "expired_tombstone"}}));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/outside.parquet"));
  EXPECT_TRUE(Exists(fs_.get(), root_, "_delta_log/00000000000000000000.json"));
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
  ExpectAllExist(fs_.get(), root_, Referenced(*Load(fs_.get(), root_)));
}

// ---- retention ---------------------------------------------------------------------------

TEST_F(VacuumTest, RetentionChecks) {
  MakeTable(fs_.get(), root_, false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 1");
  const int64_t v = Load(fs_.get(), root_)->version();
  const auto removed = TombstonePaths(*Load(fs_.get(), root_));
  VacuumSpec spec;
  spec.retain_hours = 24;
  auto short_ = Vacuum(fs_.get(), root_, spec);
  ASSERT_FALSE(short_.ok());
  EXPECT_TRUE(short_.status().IsInvalidArgument());
  EXPECT_NE(short_.status().message().find("DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"), std::string::npos)
      << short_.status().message();
  spec.retain_hours = -1;
  auto neg = Vacuum(fs_.get(), root_, spec);
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE"), std::string::npos);
  spec.retain_hours = -0.2;  // rounds to 0 hours but is still negative
  EXPECT_FALSE(Vacuum(fs_.get(), root_, spec).ok());
  EXPECT_EQ(Load(fs_.get(), root_)->version(), v);  // refused: nothing committed
  ExpectAllExist(fs_.get(), root_, removed);

  spec.retain_hours = 200;  // longer than the table's: honoured
  spec.dry_run = true;
  auto longer = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(longer.ok()) << longer.status().ToString();
  EXPECT_EQ(longer->retention_ms, 200 * kHour);

  // RETAIN 0 with the check disabled deletes the fresh tombstone at once.
  spec.retain_hours = 0;
  spec.dry_run = false;
  spec.disable_retention_check = true;
  spec.now_ms = WallNowMs() + 1000;
  auto zero = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  for (const std::string& p : removed) EXPECT_FALSE(Exists(fs_.get(), root_, p)) << p;
  nlohmann::json start = CommitInfoAt(fs_.get(), root_, *zero->start_version);
  EXPECT_EQ(start["operationParameters"]["retentionCheckEnabled"], false);
  EXPECT_EQ(start["operationParameters"]["specifiedRetentionMillis"], 0);
  ExpectAllExist(fs_.get(), root_, Referenced(*Load(fs_.get(), root_)));
}

TEST_F(VacuumTest, TableRetentionPropertyIsTheDefault) {
  delta::NewTableSpec spec;
  spec.schema = *delta::ParseSchemaDdl("id long, part string");
  spec.partition_columns = {"part"};
  spec.properties = {{"delta.deletedFileRetentionDuration", "interval 2 hours"}};
  ASSERT_TRUE(CreateTable(fs_.get(), root_, spec).ok());
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  DeleteWhere(fs_.get(), root_, "id = 1");
  VacuumSpec v;
  v.now_ms = WallNowMs() + 3 * kHour;
  v.dry_run = true;
  auto r = Vacuum(fs_.get(), root_, v);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->table_retention_ms, 2 * kHour);
  EXPECT_EQ(r->files_to_delete, 1);
  v.retain_hours = 1;  // shorter than the table's 2 hours
  EXPECT_FALSE(Vacuum(fs_.get(), root_, v).ok());
}

// ---- issue 14: foreign files, killed writers' temporaries --------------------------------

// Defect 1: a table whose root holds a folder's own files (created over someone's folder
// before create refused that, or files moved in later) is not emptied by a default
// VACUUM: the run is refused, nothing deleted, nothing committed; a dry run shows the
// files and the refusal; --allow-foreign-files deletes them.
TEST_F(VacuumTest, ForeignFilesRefusedUnlessAllowed) {
  MakeTable(fs_.get(), root_, /*dvs=*/false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);  // two live files
  OldFile(root_ + "/Documents/thesis.docx", 30 * kDay);
  OldFile(root_ + "/notes.txt", 30 * kDay);
  OldFile(root_ + "/photos/2024/beach.jpg", 30 * kDay);
  const int64_t version = Load(fs_.get(), root_)->version();
  const auto rows = Rows(fs_.get(), root_);

  VacuumSpec spec;
  spec.now_ms = WallNowMs() + kHour;
  auto refused = Vacuum(fs_.get(), root_, spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  const std::string msg = refused.status().message();
  EXPECT_EQ(msg.rfind("LITHIFY_VACUUM_FOREIGN_FILES", 0), 0u) << msg;
  EXPECT_NE(msg.find("'Documents/thesis.docx'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 untracked file(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the 2 file(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--allow-foreign-files"), std::string::npos) << msg;
  for (const char* p : {"Documents/thesis.docx", "notes.txt", "photos/2024/beach.jpg"}) {
    EXPECT_TRUE(Exists(fs_.get(), root_, p)) << p;
  }
  EXPECT_EQ(Load(fs_.get(), root_)->version(), version);  // no VACUUM START either

  spec.dry_run = true;
  auto dry = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(dry->foreign_files, 3);
  EXPECT_EQ(dry->referenced_files, 2);
  ASSERT_TRUE(dry->foreign_refusal.has_value());
  EXPECT_EQ(Deleted(*dry).count("notes.txt"), 1u);

  spec.dry_run = false;
  spec.allow_foreign_files = true;
  auto allowed = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  EXPECT_EQ(allowed->files_deleted, 3);
  EXPECT_FALSE(Exists(fs_.get(), root_, "Documents/thesis.docx"));
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

// Defect 1, the other side: a long-lived table whose tombstones expired out of the log
// (a checkpoint after the retention dropped them) has many untracked files -- its old
// data files -- that outnumber the live ones; they look like a table writer's files, so
// VACUUM deletes them as before.
TEST_F(VacuumTest, ExpiredTombstonesOfALongLivedTableStillVacuum) {
  MakeTable(fs_.get(), root_, /*dvs=*/false);
  for (int i = 0; i < 4; ++i) AppendIds(fs_.get(), root_, dir_.path(), i * 10, 10);
  DeleteWhere(fs_.get(), root_, "id < 30");  // the first three appends' six files removed
  const int64_t later = WallNowMs() + 30 * kDay;
  CheckpointOptions cp;
  cp.now_ms = later;
  ASSERT_TRUE(Checkpoint(fs_.get(), root_, cp).ok());
  auto snap = Load(fs_.get(), root_);
  ASSERT_TRUE(snap->tombstones().empty()) << "the checkpoint keeps expired tombstones";
  const std::set<std::string> live = Referenced(*snap);
  const auto rows = Rows(fs_.get(), root_);

  VacuumSpec spec;
  spec.now_ms = later;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_deleted, 6);
  EXPECT_EQ(live.size(), 2u);  // outnumbered by the untracked old files
  EXPECT_EQ(r->foreign_files, 0);
  EXPECT_FALSE(r->foreign_refusal.has_value());
  for (const auto& [p, reason] : Deleted(*r)) EXPECT_EQ(reason, "untracked_file") << p;
  ExpectAllExist(fs_.get(), root_, live);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

// Defect 6: the temporaries killed writers leave (".<name>.tmp-<16 hex>") are deleted
// once older than the horizon, shown by a dry run and counted in VACUUM START; a young
// one, one under _delta_log and a user's dot file of another shape are kept.
TEST_F(VacuumTest, KilledWritersTemporariesAreDeletedOnceOld) {
  MakeTable(fs_.get(), root_, /*dvs=*/false);
  AppendIds(fs_.get(), root_, dir_.path(), 0, 10);
  const std::string old_temp = "part=a/.part-00000-0a1b2c3d-0000-4000-8000-00000000abcd-c000.zstd.parquet.tmp-0123456789abcdef";
  const std::string young_temp = "part=b/.part-00000-0a1b2c3d-0000-4000-8000-00000000dcba-c000.zstd.parquet.tmp-fedcba9876543210";
  const std::string log_temp = "_delta_log/.00000000000000000009.json.tmp-00112233445566ff";
  OldFile(root_ + "/" + old_temp, 30 * kDay);
  OldFile(root_ + "/" + young_temp, 1 * kHour);
  OldFile(root_ + "/" + log_temp, 30 * kDay);
  OldFile(root_ + "/part=a/.my-notes.tmp-draft", 30 * kDay);
  const auto rows = Rows(fs_.get(), root_);

  VacuumSpec spec;
  spec.now_ms = WallNowMs();
  spec.dry_run = true;
  auto dry = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(Deleted(*dry), (std::map<std::string, std::string>{{old_temp, "abandoned_temporary"}}));
  EXPECT_EQ(dry->temporaries_to_delete, 1);
  EXPECT_EQ(dry->temporary_bytes_to_delete, 11);
  EXPECT_EQ(dry->files_to_delete, 1);
  EXPECT_TRUE(Exists(fs_.get(), root_, old_temp));

  spec.dry_run = false;
  auto r = Vacuum(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_deleted, 1);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/" + old_temp));
  for (const std::string& p : {young_temp, log_temp, std::string("part=a/.my-notes.tmp-draft")}) {
    EXPECT_TRUE(std::filesystem::exists(root_ + "/" + p)) << p;
  }
  nlohmann::json start = CommitInfoAt(fs_.get(), root_, *r->start_version);
  EXPECT_EQ(start["operationMetrics"]["numFilesToDelete"], "1");
  EXPECT_EQ(start["operationMetrics"]["numTemporaryFilesToDelete"], "1");
  EXPECT_EQ(start["operationParameters"]["deleteBeforeMillis"], r->delete_before_ms);
  EXPECT_EQ(Rows(fs_.get(), root_), rows);
}

TEST_F(VacuumTest, NotATable) {
  auto r = Vacuum(fs_.get(), dir_.path() + "/nothing", VacuumSpec{});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
}

// ---- crash at every IO step ---------------------------------------------------------------

// A table in a memory file system with an expired tombstone (copy-on-write delete), a
// DV and a stray file.
void BuildCrashTable(io::FileSystem* fs) {
  MakeTable(fs, "/t", /*dvs=*/true);
  AppendIds(fs, "/t", "/in", 0, 12);
  DeleteWhere(fs, "/t", "part = 'b'");  // whole files removed: tombstones
  DeleteWhere(fs, "/t", "id = 1");      // a DV
  WriteText(fs, "/t/part=a/stray.parquet", "stray");
}

// `lands`: the crashing call itself still reaches storage when it is a put or a close
// (the process died after the write, before the reply).
class VacuumCrashTest : public ::testing::TestWithParam<bool> {};

TEST_P(VacuumCrashTest, CrashAtEveryIoStepKeepsTheTableWhole) {
  const bool lands = GetParam();
  int64_t steps = -1;
  for (int64_t k = 0; k < 400; ++k) {
    auto base = io::NewMemoryFileSystem();
    BuildCrashTable(base.get());
    auto snap = Load(base.get(), "/t");
    ASSERT_NE(snap, nullptr);
    const std::set<std::string> referenced = Referenced(*snap);
    const std::set<std::string> removed = TombstonePaths(*snap);
    const auto rows = Rows(base.get(), "/t");

    io::FaultInjectingFileSystem faulty(base.get());
    faulty.CrashAfter(k, lands);
    VacuumSpec spec;
    spec.now_ms = WallNowMs() + 8 * kDay;
    spec.delete_parallelism = 2;
    auto r = Vacuum(&faulty, "/t", spec);
    faulty.CrashAfter(-1);
    // Whatever happened: the table loads, reads the same rows, references only files
    // that exist.
    auto after = Load(base.get(), "/t");
    ASSERT_NE(after, nullptr) << "crash after " << k;
    EXPECT_EQ(Rows(base.get(), "/t"), rows) << "crash after " << k;
    EXPECT_EQ(Referenced(*after), referenced) << "crash after " << k;
    ExpectAllExist(base.get(), "/t", referenced);
    if (r.ok()) {
      // The uninterrupted run: the stray file, the removed 'b' files, nothing referenced.
      EXPECT_GE(r->files_deleted, 2);
      EXPECT_EQ(r->files_deleted, r->files_to_delete);
      EXPECT_FALSE(Exists(base.get(), "/t", "part=a/stray.parquet"));
      steps = k;
      break;
    }
    // A second run finishes the job.
    auto again = Vacuum(base.get(), "/t", spec);
    ASSERT_TRUE(again.ok()) << "crash after " << k << ": " << again.status().ToString();
    EXPECT_FALSE(Exists(base.get(), "/t", "part=a/stray.parquet")) << "crash after " << k;
    for (const std::string& p : removed) {
      if (!referenced.contains(p)) EXPECT_FALSE(Exists(base.get(), "/t", p)) << p << ", crash after " << k;
    }
    ExpectAllExist(base.get(), "/t", referenced);
    EXPECT_EQ(Rows(base.get(), "/t"), rows);
  }
  EXPECT_GT(steps, 5) << "the run never completed without a crash";
  std::printf("VACUUM completed after %lld IO steps; every earlier crash point was tested\n",
              static_cast<long long>(steps));
}

INSTANTIATE_TEST_SUITE_P(Lands, VacuumCrashTest, ::testing::Bool());

// VACUUM is Delta's: on an Iceberg table the generic command names the format (probed
// after Delta finds no log, or given) instead of reporting a missing Delta log. A dry
// run, so that the corpus table is never at risk (tests/cli/iceberg.sh runs the real
// command and checks the table is unchanged).
TEST(VacuumFormatTest, IcebergTableIsRefusedByName) {
  auto fs = io::NewLocalFileSystem();
  const std::string table =
      testing::Corpus() + "/duckdb-iceberg/data/persistent/equality_deletes/warehouse/mydb/mytable";
  VacuumSpec spec;
  spec.dry_run = true;
  for (std::optional<formats::TableFormat> format : {std::optional<formats::TableFormat>(),
                                                     std::optional(formats::TableFormat::kIceberg)}) {
    Result<VacuumResult> r = Vacuum(fs.get(), table, spec, format);
    ASSERT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("VACUUM is Delta's"), std::string::npos) << r.status().ToString();
    EXPECT_EQ(r.status().message().find("_delta_log"), std::string::npos) << r.status().ToString();
  }
  // A folder that is no table at all keeps Delta's error.
  TempDir empty;
  Result<VacuumResult> none = Vacuum(fs.get(), empty.path(), spec);
  EXPECT_TRUE(none.status().IsNotFound()) << none.status().ToString();
}

}  // namespace
}  // namespace lithify::commands
