#include "lithify/planner/vacuum.h"

#include <gtest/gtest.h>

#include <map>

namespace lithify::planner {
namespace {

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
  auto plan = PlanVacuum(listing, live, tombstones, Options());
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
  auto plan = PlanVacuum({F("a", kOld), F("b", kOld)}, {},
                         {{"a", horizon, ""}, {"b", horizon - 1, ""}}, Options());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{{"b", "expired_tombstone"}}));
  // A file modified exactly at the horizon is young.
  auto edge = PlanVacuum({F("c", horizon), F("d", horizon - 1)}, {}, {}, Options());
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
  auto plan = PlanVacuum(listing, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Deleted(*plan), (std::map<std::string, std::string>{
                                {"_delta_index/idx.bin", "untracked_file"},
                                {"_change_data/cdc-0.parquet", "untracked_file"},
                                {"_date=2/part.parquet", "untracked_file"},
                                {"date=1/part.parquet", "untracked_file"}}));
  o.partition_columns = {"date"};
  auto plan2 = PlanVacuum(listing, {}, {}, o);
  ASSERT_TRUE(plan2.ok());
  EXPECT_EQ(Deleted(*plan2).count("_date=2/part.parquet"), 0u);
  EXPECT_EQ(plan2->entries_hidden, 8);
  for (const VacuumDeletion& d : plan2->deletions) {
    EXPECT_NE(d.path.rfind("_delta_log", 0), 0u) << d.path;
  }
}

TEST(VacuumTest, UniformMetadataDirectoryIsHidden) {
  VacuumOptions o = Options();
  o.uniform_iceberg = true;
  auto plan = PlanVacuum({F("metadata/v1.metadata.json", kOld)}, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->deletions.empty());
}

TEST(VacuumTest, EmptyDirectoriesDeletedDeepestFirst) {
  const std::vector<ListedEntry> listing = {
      D("date=1"),           D("date=1/sub"),        D("date=2"), F("date=2/young", kYoung),
      D("date=3"),           F("date=3/live", kOld), D("date=4"), F("date=4/old_stray", kOld),
      D("date=5/_hidden"),   D("date=5"),            D("date=6", kYoung),
  };
  auto plan = PlanVacuum(listing, {{"date=3/live", ""}}, {}, Options());
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
  Status neg = PlanVacuum({}, {}, {}, o).status();
  EXPECT_TRUE(neg.IsInvalidArgument());
  EXPECT_EQ(neg.message().rfind("DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE", 0), 0u);

  o.retention_ms = 24 * kHour;
  Status short_ = PlanVacuum({}, {}, {}, o).status();
  EXPECT_EQ(short_.message().rfind("DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT", 0), 0u)
      << short_.message();
  EXPECT_NE(short_.message().find("24 hours"), std::string::npos);
  EXPECT_NE(short_.message().find("168 hours"), std::string::npos);

  o.retention_check_enabled = false;
  auto plan = PlanVacuum({F("x", kNow - 25 * kHour)}, {}, {}, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->retention_ms, 24 * kHour);
  EXPECT_EQ(plan->files_to_delete, 1);

  o.retention_check_enabled = true;
  o.retention_ms = 200 * kHour;  // longer than the table's: allowed
  EXPECT_TRUE(PlanVacuum({}, {}, {}, o).ok());
}

TEST(VacuumLiteTest, DiffsLogCandidatesAgainstValidSet) {
  const std::vector<ListedEntry> candidates = {
      F("date=1/removed_long_ago", kOld), F("date=1/removed_long_ago", kOld),  // duplicate
      F("date=1/readded", kOld),           // removed, then added again: live
      F("deletion_vector_x.bin", kOld),
      F("_change_data/cdc-1.parquet", 0),
      F("_delta_log/00000000000000000001.json", 0),
  };
  auto plan = PlanVacuumLite(candidates, {{"date=1/readded", ""}},
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
