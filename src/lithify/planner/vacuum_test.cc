#include "lithify/planner/vacuum.h"

#include <gtest/gtest.h>

#include "lithify/delta/maintenance_policy.h"

#include <map>

namespace lithify::planner {
namespace {

// The mechanism under Delta's policy, whose rules these tests were written for.
const TablePolicy& Delta() { return delta::DeltaPolicy(); }

constexpr int64_t kHour = 3'600'000;
constexpr int64_t kNow = 1'000 * kHour;
constexpr int64_t kOld = kNow - 200 * kHour;    // before the 168 h horizon
constexpr int64_t kYoung = kNow - 10 * kHour;   // after it

ListedEntry F(std::string path, int64_t mtime, int64_t size = 100) {
  return ListedEntry{std::move(path), size, mtime, false};
}
ListedEntry D(std::string path, int64_t mtime = kOld) { return ListedEntry{std::move(path), 0, mtime, true}; }

VacuumOptions Options() {
  VacuumOptions o;
  o.now_ms = kNow;
  o.table_retention_ms = delta::kDefaultDeletedFileRetentionMs;
  o.partition_columns = {"date"};
  return o;
}

// path -> reason of every deletion.
std::map<std::string, std::string> Deleted(const VacuumPlan& plan) {
  std::map<std::string, std::string> out;
  for (const VacuumDeletion& d : plan.deletions) out[d.path] = VacuumReasonName(d.reason);
  return out;
}

TEST(VacuumTest, ProtectsLiveFilesDvsAndYoungTombstones) {
  const std::vector<ListedEntry> listing = {
      D("date=1"),
      F("date=1/live.parquet", kOld),
      F("deletion_vector_live.bin", kOld),
      F("date=1/recently_removed.parquet", kOld),
      F("deletion_vector_recent.bin", kOld),
      F("date=1/long_removed.parquet", kOld, 700),
      F("deletion_vector_long.bin", kOld, 30),
      F("date=1/stray.parquet", kOld, 5),
      F("date=1/in_flight.parquet", kYoung),
  };
  const std::vector<LiveFile> live = {{"date=1/live.parquet", "deletion_vector_live.bin"}};
  const std::vector<Tombstone> tombstones = {
      {"date=1/recently_removed.parquet", kNow - 100 * kHour, "deletion_vector_recent.bin"},
      {"date=1/long_removed.parquet", kNow - 169 * kHour, "deletion_vector_long.bin"}};
  auto plan = PlanVacuum(Delta(), listing, live, tombstones, Options());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->delete_before_ms, kNow - 168 * kHour);
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{
                                {"date=1/long_removed.parquet", "expired_tombstone"},
                                {"deletion_vector_long.bin", "expired_deletion_vector"},
                                {"date=1/stray.parquet", "untracked_file"}}));
  EXPECT_EQ(plan->files_protected, 4);
  EXPECT_EQ(plan->files_too_young, 1);
  EXPECT_EQ(plan->bytes_to_delete, 735);
  EXPECT_EQ(plan->dirs_kept, 1);
}

TEST(VacuumTest, TombstoneAtTheHorizonIsProtected) {
  const int64_t horizon = kNow - 168 * kHour;
  auto plan = PlanVacuum(Delta(), {F("a", kOld), F("b", kOld)}, {},
                         {{"a", horizon, ""}, {"b", horizon - 1, ""}}, Options());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{{"b", "expired_tombstone"}}));
  // A file modified exactly at the horizon is young.
  auto edge = PlanVacuum(Delta(), {F("c", horizon), F("d", horizon - 1)}, {}, {}, Options());
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(Deleted(*edge), (std::map<std::string, std::string>{{"d", "untracked_file"}}));
}

TEST(VacuumTest, HiddenPathsSkippedWithExceptions) {
  const std::vector<ListedEntry> listing = {
      D("_delta_log"),
      F("_delta_log/00000000000000000000.json", kOld),
      F("_delta_log/_last_checkpoint", kOld),
      F(".hidden/x.parquet", kOld),
      F("_tmp/x.parquet", kOld),
      F("date=1/.part-0.parquet.crc", kOld),
      F("date=1/_SUCCESS", kOld),
      F("_delta_index/idx.bin", kOld),
      F("_change_data/cdc-0.parquet", kOld),
      F("_date=2/part.parquet", kOld),  // not a partition dir of this table: hidden
      F("date=1/part.parquet", kOld),
  };
  VacuumOptions o = Options();
  o.partition_columns = {"date", "_date"};
  auto plan = PlanVacuum(Delta(), listing, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{
                                {"_delta_index/idx.bin", "untracked_file"},
                                {"_change_data/cdc-0.parquet", "untracked_file"},
                                {"_date=2/part.parquet", "untracked_file"},
                                {"date=1/part.parquet", "untracked_file"}}));
  o.partition_columns = {"date"};
  auto plan2 = PlanVacuum(Delta(), listing, {}, {}, o);
  ASSERT_TRUE(plan2.ok());
  EXPECT_EQ(Deleted(*plan2).count("_date=2/part.parquet"), 0u);
  EXPECT_EQ(plan2->entries_hidden, 8);
  for (const VacuumDeletion& d : plan2->deletions) {
    EXPECT_NE(d.path.rfind("_delta_log", 0), 0u) << d.path;
  }
}

TEST(VacuumTest, UniformMetadataDirectoryIsHidden) {
  VacuumOptions o = Options();
  const delta::DeltaMaintenancePolicy uniform(/*uniform_iceberg=*/true);
  auto plan = PlanVacuum(uniform, {F("metadata/v1.metadata.json", kOld)}, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->deletions.empty());
}

TEST(VacuumTest, EmptyDirectoriesDeletedDeepestFirst) {
  const std::vector<ListedEntry> listing = {
      D("date=1"),           D("date=1/sub"),        D("date=2"), F("date=2/young", kYoung),
      D("date=3"),           F("date=3/live", kOld), D("date=4"), F("date=4/old_stray", kOld),
      D("date=5/_hidden"),   D("date=5"),            D("date=6", kYoung),
  };
  auto plan = PlanVacuum(Delta(), listing, {{"date=3/live", ""}}, {}, Options());
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->dirs_to_delete, 2);
  // Files first, then directories with the deepest first.
  ASSERT_EQ(plan->deletions.size(), 3u);
  EXPECT_EQ(plan->deletions[0].path, "date=4/old_stray");
  EXPECT_EQ(plan->deletions[1].path, "date=1/sub");
  EXPECT_EQ(plan->deletions[2].path, "date=1");
  EXPECT_EQ(plan->deletions[2].reason, VacuumReason::kEmptyDirectory);
  // date=2 holds a young file, date=3 a live one, date=4 a file deleted in this run (the
  // next vacuum removes the directory), date=5 a hidden directory; date=6 is empty but
  // was changed within the retention window (a writer may be about to use it).
  EXPECT_EQ(plan->dirs_kept, 5);
}

TEST(VacuumTest, RetentionChecks) {
  VacuumOptions o = Options();
  o.retention_ms = -1;
  Status neg = PlanVacuum(Delta(), {}, {}, {}, o).status();
  EXPECT_TRUE(neg.IsInvalidArgument());
  EXPECT_EQ(neg.message().rfind("DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE", 0), 0u);

  o.retention_ms = 24 * kHour;
  Status short_ = PlanVacuum(Delta(), {}, {}, {}, o).status();
  EXPECT_EQ(short_.message().rfind("DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT", 0), 0u)
      << short_.message();
  EXPECT_NE(short_.message().find("24 hours"), std::string::npos);
  EXPECT_NE(short_.message().find("168 hours"), std::string::npos);

  o.retention_check_enabled = false;
  auto plan = PlanVacuum(Delta(), {F("x", kNow - 25 * kHour)}, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->retention_ms, 24 * kHour);
  EXPECT_EQ(plan->files_to_delete, 1);

  o.retention_check_enabled = true;
  o.retention_ms = 200 * kHour;  // longer than the table's: allowed
  EXPECT_TRUE(PlanVacuum(Delta(), {}, {}, {}, o).ok());
}

ListedEntry T(std::string path, int64_t mtime, int64_t size = 100) {
  ListedEntry e = F(std::move(path), mtime, size);
  e.is_temporary = true;
  return e;
}

// Issue 14 defect 6: a killed writer's temporary is deleted once older than the horizon,
// counted apart, and keeps its directory; one in flight, or under a hidden directory
// (the log's own commit temporaries), is not touched.
TEST(VacuumTest, KilledWritersTemporariesDeletedOnceOld) {
  const std::vector<ListedEntry> listing = {
      D("date=1"),
      T("date=1/.part-00000-x-c000.zstd.parquet.tmp-0123456789abcdef", kOld, 700),
      T("date=1/.part-00001-y-c000.zstd.parquet.tmp-fedcba9876543210", kYoung, 50),
      T(".part-00002-z-c000.parquet.tmp-00000000000000aa", kOld, 30),
      T("_delta_log/.00000000000000000003.json.tmp-0123456789abcdef", kOld),
      T(".hidden/.f.tmp-0123456789abcdef", kOld),
  };
  auto plan = PlanVacuum(Delta(), listing, {}, {}, Options());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{
                                {"date=1/.part-00000-x-c000.zstd.parquet.tmp-0123456789abcdef", "abandoned_temporary"},
                                {".part-00002-z-c000.parquet.tmp-00000000000000aa", "abandoned_temporary"}}));
  EXPECT_EQ(plan->temporaries_to_delete, 2);
  EXPECT_EQ(plan->temporary_bytes_to_delete, 730);
  EXPECT_EQ(plan->files_to_delete, 2);
  EXPECT_EQ(plan->bytes_to_delete, 730);
  EXPECT_EQ(plan->files_too_young, 1);
  EXPECT_EQ(plan->entries_hidden, 2);
  EXPECT_EQ(plan->foreign_files, 0);  // temporaries are lithify's own, never foreign
  EXPECT_EQ(plan->dirs_to_delete, 0);  // date=1 holds temporaries
}

TEST(VacuumTest, TableWriterFileNames) {
  for (const char* p : {"part-00000-abc-c000.snappy.parquet", "date=1/anything.bin", "a/k=v/b/x",
                        "deletion_vector_0a1b2c3d-0000-4000-8000-00000000abcd.bin",
                        "20240101_120000_00001_abcde_0a1b2c3d-0000-4000-8000-00000000ABCD",
                        "_change_data/cdc-00000-0a1b2c3d-0000-4000-8000-00000000abcd.c000.snappy.parquet"}) {
    EXPECT_TRUE(LooksLikeTableWriterFile(p)) << p;
  }
  for (const char* p : {"Documents/thesis.docx", "notes.txt", "photos/2024/img.jpg", "sales.parquet",
                        "=v/x", "part-1.csv", "deletion_vector_x.bin", "0a1b2c3d-0000-4000-8000-00000000abc.bin"}) {
    EXPECT_FALSE(LooksLikeTableWriterFile(p)) << p;
  }
}

// Issue 14 defect 1: untracked files that do not look like a table's are counted, and
// they refuse the plan once they outnumber or outweigh what the log references.
TEST(VacuumTest, ForeignFilesRefusal) {
  const std::vector<ListedEntry> listing = {
      F("Documents/thesis.docx", kOld, 5000), F("notes.txt", kOld, 10), F("date=1/stray", kOld, 10),
      F("part-00000-q-c000.parquet", kOld, 10), F("young.txt", kYoung, 99999),
  };
  auto plan = PlanVacuum(Delta(), listing, {}, {}, Options());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->files_to_delete, 4);
  EXPECT_EQ(plan->foreign_files, 2);  // the young file is not deleted this run
  EXPECT_EQ(plan->foreign_bytes, 5010);
  EXPECT_EQ(plan->foreign_examples, (std::vector<std::string>{"Documents/thesis.docx", "notes.txt"}));
  // A new table over a folder: nothing referenced.
  auto refused = ForeignFilesRefusal(*plan, 0, 0);
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->find("'Documents/thesis.docx', 'notes.txt'"), std::string::npos) << *refused;
  EXPECT_NE(refused->find("outnumber and outweigh the 0 file(s)"), std::string::npos) << *refused;
  // Outweighing alone refuses (a big foreign file among many small table files)...
  auto heavy = ForeignFilesRefusal(*plan, 100, 4000);
  ASSERT_TRUE(heavy.has_value());
  EXPECT_NE(heavy->find(" outweigh the 100 file(s) of 4000 bytes"), std::string::npos) << *heavy;
  // ...and outnumbering alone.
  EXPECT_TRUE(ForeignFilesRefusal(*plan, 1, 1'000'000).has_value());
  // A few strays beside a real table do not.
  EXPECT_FALSE(ForeignFilesRefusal(*plan, 2, 5010).has_value());
  // Expired table files (data-like names) are never foreign, however many.
  std::vector<ListedEntry> expired;
  for (int i = 0; i < 50; ++i) expired.push_back(F("date=" + std::to_string(i) + "/part-0.parquet", kOld, 1000));
  auto normal = PlanVacuum(Delta(), expired, {}, {}, Options());
  ASSERT_TRUE(normal.ok());
  EXPECT_EQ(normal->files_to_delete, 50);
  EXPECT_EQ(normal->foreign_files, 0);
  EXPECT_FALSE(ForeignFilesRefusal(*normal, 1, 1).has_value());
  // LITE candidates come from the log: never foreign.
  auto lite = PlanVacuumLite(Delta(), {F("notes.txt", kOld)}, {}, {}, Options());
  ASSERT_TRUE(lite.ok());
  EXPECT_EQ(lite->files_to_delete, 1);
  EXPECT_EQ(lite->foreign_files, 0);
}

TEST(VacuumLiteTest, DiffsLogCandidatesAgainstValidSet) {
  const std::vector<ListedEntry> candidates = {
      F("date=1/removed_long_ago", kOld), F("date=1/removed_long_ago", kOld),  // duplicate
      F("date=1/readded", kOld),           // removed, then added again: live
      F("deletion_vector_x.bin", kOld),
      F("_change_data/cdc-1.parquet", 0),
      F("_delta_log/00000000000000000001.json", 0),
  };
  auto plan = PlanVacuumLite(Delta(), candidates, {{"date=1/readded", ""}},
                             {{"date=1/removed_long_ago", kOld, "deletion_vector_x.bin"}},
                             Options());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{
                                {"date=1/removed_long_ago", "expired_tombstone"},
                                {"deletion_vector_x.bin", "expired_deletion_vector"},
                                {"_change_data/cdc-1.parquet", "untracked_file"}}));
  EXPECT_EQ(plan->files_protected, 1);
  EXPECT_EQ(plan->entries_hidden, 1);
  EXPECT_EQ(plan->dirs_to_delete, 0);
}

}  // namespace
}  // namespace lithify::planner
