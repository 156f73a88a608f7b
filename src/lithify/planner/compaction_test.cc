#include "lithify/planner/compaction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <numeric>

#include "lithify/planner/test_util.h"

namespace lithify::planner {
namespace {

using table::FileEntry;
using testing::Delta;
using testing::File;
using testing::kMB;

std::string Hour(int h) { return fmt::format("{:02d}", h); }

CompactionOptions Optimize(int64_t target) {
  CompactionOptions o;
  o.max_file_size = target;
  return o;
}

bool HasLine(const std::vector<std::string>& lines, std::string_view needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

// Acceptance 1a: hourly partitions with 480 files of about 1 MB pack into two bins each
// at a 256 MB target.
TEST(CompactionTest, HourlyPartitionsPackIntoTwoBinsEach) {
  std::vector<FileEntry> files;
  for (int h = 0; h < 24; ++h) {
    for (int i = 0; i < 480; ++i) {
      const int64_t size = kMB - 50'000 + (i * 7919 + h * 31) % 100'000;  // 0.95-1.05 MB
      files.push_back(File(fmt::format("hour={}/part-{:04d}.parquet", Hour(h), i), size,
                           {{"date", "2024-01-01"}, {"hour", Hour(h)}}));
    }
  }
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, Optimize(256 * kMiB), &log);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->bins.size(), 48u);
  EXPECT_EQ(plan->partitions_optimized, 24);
  EXPECT_EQ(plan->total_considered_files, 24 * 480);
  EXPECT_EQ(plan->total_files_skipped, 0);
  for (int h = 0; h < 24; ++h) {
    const Bin& first = plan->bins[2 * h];
    const Bin& second = plan->bins[2 * h + 1];
    ASSERT_EQ(first.partition_values.at("hour"), Hour(h));
    ASSERT_EQ(second.partition_values.at("hour"), Hour(h));
    EXPECT_EQ(first.files.size() + second.files.size(), 480u);
    // Ascending sizes, and the first bin closed exactly when the next file would overflow.
    std::vector<int64_t> sizes;
    for (const Bin* b : {&first, &second}) {
      for (const FileRef& f : b->files) sizes.push_back(f.size);
    }
    EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
    EXPECT_LE(first.total_bytes, 256 * kMiB);
    EXPECT_GT(first.total_bytes + second.files.front().size, 256 * kMiB);
    EXPECT_EQ(first.total_bytes + second.total_bytes,
              std::accumulate(sizes.begin(), sizes.end(), int64_t{0}));
  }
  ASSERT_EQ(log.partitions.size(), 24u);
  EXPECT_EQ(log.partitions[3].partition, "date=2024-01-01/hour=03");
  EXPECT_EQ(log.partitions[3].candidates, 480);
  EXPECT_EQ(log.partitions[3].bins_kept, 2);
  EXPECT_NE(log.bins[0].reason.find("combine into one file"), std::string::npos);
  ASSERT_EQ(plan->batches.size(), 1u);
  EXPECT_EQ(plan->batches[0].bin_ids.size(), 48u);
}

// Acceptance 1b: five-minute partitions with one file each give zero bins and a log that
// says why.
TEST(CompactionTest, FiveMinutePartitionsWithOneFileEachGiveNoBins) {
  std::vector<FileEntry> files;
  for (int m = 0; m < 288; ++m) {
    const std::string slot = fmt::format("{:02d}:{:02d}", m / 12, (m % 12) * 5);
    files.push_back(File(fmt::format("slot={}/part-0.parquet", slot), 5 * kMB,
                         {{"slot", slot}}));
  }
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, Optimize(256 * kMiB), &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->bins.empty());
  EXPECT_EQ(plan->total_files_skipped, 288);
  ASSERT_EQ(log.bins.size(), 288u);
  for (const BinDecision& b : log.bins) {
    EXPECT_FALSE(b.kept);
    EXPECT_EQ(b.reason, "single file: rewriting one file into one file changes nothing");
  }
  EXPECT_TRUE(HasLine(log.summary,
                      "nothing to compact: every partition receives at most one file; no target "
                      "size or schedule changes this (288 partitions, 1 file each)"))
      << fmt::format("{}", fmt::join(log.summary, "\n"));
  // Each file names its bin's fate.
  EXPECT_NE(log.FileReason(log.files[0]).find("dropped: single file"), std::string::npos);
}

// Acceptance 1c: a file larger than the target ends alone in its bin and is dropped.
TEST(CompactionTest, FileLargerThanTargetIsAloneAndDropped) {
  const PartitionValues p = {{"d", "1"}};
  std::vector<FileEntry> files = {File("big", 300 * kMiB, p), File("a", 10 * kMiB, p),
                                  File("b", 20 * kMiB, p)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, Optimize(256 * kMiB), &log);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 1u);
  ASSERT_EQ(plan->bins[0].files.size(), 2u);
  EXPECT_EQ(plan->bins[0].files[0].path, "a");
  EXPECT_EQ(plan->bins[0].files[1].path, "b");
  ASSERT_EQ(log.bins.size(), 2u);
  EXPECT_FALSE(log.bins[1].kept);
  EXPECT_EQ(log.bins[1].files, 1);
  EXPECT_NE(log.bins[1].reason.find("it alone exceeds the target 256.0 MiB"), std::string::npos);
  EXPECT_EQ(log.files[0].bin, 1);
  EXPECT_EQ(plan->total_files_skipped, 1);
}

// Delta closes an empty bin when the very first file exceeds the maximum; outside the
// multi-dimensional modes it is dropped and never shows up.
TEST(CompactionTest, OversizedFirstFileLeavesNoEmptyBin) {
  std::vector<FileEntry> files = {File("x", 600 * kMiB), File("y", 700 * kMiB)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, Optimize(512 * kMiB), &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->bins.empty());
  ASSERT_EQ(log.bins.size(), 2u);
  for (const BinDecision& b : log.bins) EXPECT_EQ(b.files, 1);
}

// Acceptance 1d: a 900 MB file with 10% deleted rows alone in its bin is skipped by
// OPTIMIZE and rewritten by REORG.
TEST(CompactionTest, DeletedRowsSingletonSkippedByOptimizeRewrittenByReorg) {
  const PartitionValues p = {{"d", "2024-01-01"}};
  std::vector<FileEntry> files = {File("dv.parquet", 900 * kMB, p, 1'000'000, 100'000),
                                  File("large.parquet", 3 * kGiB / 2, p)};
  DecisionLog log;
  auto optimize = PlanCompaction(Delta(), files, CompactionOptions{}, &log);
  ASSERT_TRUE(optimize.ok());
  EXPECT_TRUE(optimize->bins.empty());
  EXPECT_EQ(log.files[0].verdict, FileVerdict::kCandidate);
  EXPECT_EQ(log.files[1].verdict, FileVerdict::kTooLarge);
  EXPECT_NE(log.FileReason(log.files[0]).find("10.0% > 5.0%"), std::string::npos);
  EXPECT_NE(log.FileReason(log.files[0]).find("single file"), std::string::npos);

  CompactionOptions reorg;
  reorg.mode = PlanMode::kReorgPurge;
  auto purge = PlanCompaction(Delta(), files, reorg, &log);
  ASSERT_TRUE(purge.ok());
  ASSERT_EQ(purge->bins.size(), 1u);
  ASSERT_EQ(purge->bins[0].files.size(), 1u);
  const FileRef& ref = purge->bins[0].files[0];
  EXPECT_EQ(ref.path, "dv.parquet");
  EXPECT_EQ(ref.deleted_rows, 100'000);
  EXPECT_EQ(ref.dv_unique_id, "uabdv.parquet");
  EXPECT_EQ(purge->min_file_size, 0);
  EXPECT_EQ(purge->max_deleted_rows_ratio, 0.0);
  EXPECT_EQ(log.files[1].verdict, FileVerdict::kNoDeletedRows);
  EXPECT_TRUE(log.bins[0].kept);
  EXPECT_NE(log.bins[0].reason.find("REORG PURGE rewrites it"), std::string::npos);
}

TEST(CompactionTest, LargeFileChosenOnlyForDeletedRowsPointsToReorg) {
  std::vector<FileEntry> files = {File("big", 2 * kGiB, {}, 1000, 100)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, CompactionOptions{}, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->bins.empty());
  EXPECT_TRUE(HasLine(log.summary, "1 files qualify only for their deleted rows"));
  EXPECT_TRUE(HasLine(log.summary, "REORG TABLE ... APPLY (PURGE)"));
}

// Acceptance 1e: an unpartitioned table packs across the whole table.
TEST(CompactionTest, UnpartitionedTablePacksAcrossWholeTable) {
  std::vector<FileEntry> files;
  for (int i = 0; i < 100; ++i) files.push_back(File(fmt::format("f{:03d}", i), 10 * kMiB));
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, Optimize(256 * kMiB), &log);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 4u);  // 25 x 10 MiB = 250 MiB; the 26th would be 260 MiB
  for (const Bin& b : plan->bins) {
    EXPECT_EQ(b.files.size(), 25u);
    EXPECT_TRUE(b.partition_values.empty());
  }
  // Stable sort: equal sizes keep input order across the whole table.
  EXPECT_EQ(plan->bins[0].files[0].path, "f000");
  EXPECT_EQ(plan->bins[3].files[24].path, "f099");
  EXPECT_EQ(plan->partitions_optimized, 1);
  ASSERT_EQ(log.partitions.size(), 1u);
  EXPECT_EQ(log.partitions[0].partition, "");
}

TEST(CompactionTest, SizeThresholdIsStrict) {
  CompactionOptions o;
  o.min_file_size = 100;
  o.max_file_size = 1000;
  std::vector<FileEntry> files = {File("at", 100), File("below", 99), File("below2", 99)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, o, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(log.files[0].verdict, FileVerdict::kTooLarge);
  EXPECT_EQ(log.FileReason(log.files[0]), "too large: 100 B >= minFileSize 100 B");
  EXPECT_EQ(log.files[1].verdict, FileVerdict::kCandidate);
  ASSERT_EQ(plan->bins.size(), 1u);
  EXPECT_EQ(plan->bins[0].files.size(), 2u);
}

TEST(CompactionTest, DeletedRowsRatioIsStrict) {
  CompactionOptions o;
  o.min_file_size = 10;  // every file below is "large"
  std::vector<FileEntry> files = {File("at", 50, {}, 100, 5), File("above", 50, {}, 100, 6),
                                  File("no_stats", 50, {}, std::nullopt, 1),
                                  File("no_dv_no_stats", 50, {}, std::nullopt)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, o, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(log.files[0].verdict, FileVerdict::kTooFewDeletedRows);
  EXPECT_NE(log.FileReason(log.files[0]).find("5.0% <= 5.0%"), std::string::npos);
  EXPECT_EQ(log.files[1].verdict, FileVerdict::kCandidate);
  EXPECT_EQ(log.files[2].verdict, FileVerdict::kCandidate);
  EXPECT_NE(log.FileReason(log.files[2]).find("deletion vector without numRecords"),
            std::string::npos);
  EXPECT_EQ(log.files[3].verdict, FileVerdict::kTooLarge);
  ASSERT_EQ(plan->bins.size(), 1u);
  EXPECT_EQ(plan->bins[0].files.size(), 2u);
}

TEST(CompactionTest, BinCapacityIsInclusive) {
  CompactionOptions o;
  o.max_file_size = 100;
  auto exact = PlanCompaction(Delta(), {File("a", 50), File("b", 50)}, o, nullptr);
  ASSERT_TRUE(exact.ok());
  ASSERT_EQ(exact->bins.size(), 1u);
  EXPECT_EQ(exact->bins[0].total_bytes, 100);
  auto over = PlanCompaction(Delta(), {File("a", 50), File("b", 51)}, o, nullptr);
  ASSERT_TRUE(over.ok());
  EXPECT_TRUE(over->bins.empty());
}

TEST(CompactionTest, ReorgIgnoresSizeAndKeepsEveryFileWithDeletedRows) {
  CompactionOptions o;
  o.mode = PlanMode::kReorgPurge;
  o.min_file_size = kGiB;  // ignored
  std::vector<FileEntry> files = {File("small_clean", 1), File("tiny_dv", 10, {}, 100, 1),
                                  File("dv_no_stats", 20, {}, std::nullopt, 3)};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, o, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(log.files[0].verdict, FileVerdict::kNoDeletedRows);
  ASSERT_EQ(plan->bins.size(), 1u);  // 10 + 20 bytes fit one bin
  EXPECT_EQ(plan->bins[0].files.size(), 2u);
}

TEST(CompactionTest, MustRewriteForcesCandidates) {
  CompactionOptions o;
  o.mode = PlanMode::kReorgPurge;
  o.must_rewrite = [](const FileEntry& f) { return f.path == "dropped_col"; };
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), {File("dropped_col", 5 * kGiB), File("clean", 10)}, o, &log);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 1u);
  EXPECT_EQ(plan->bins[0].files[0].path, "dropped_col");
  EXPECT_TRUE(log.files[0].forced);
  EXPECT_NE(log.FileReason(log.files[0]).find("requested by the caller"), std::string::npos);
}

TEST(CompactionTest, ScopeExclusionsAreRecorded) {
  CompactionOptions o;
  o.in_scope = [](const FileEntry& f) { return f.partition_values.at("d") == "2"; };
  o.scope_description = "d = '2'";
  std::vector<FileEntry> files = {File("1a", 10, {{"d", "1"}}), File("1b", 10, {{"d", "1"}}),
                                  File("2a", 10, {{"d", "2"}}), File("2b", 10, {{"d", "2"}})};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, o, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->total_considered_files, 2);
  EXPECT_EQ(plan->total_files_skipped, 0);
  ASSERT_EQ(plan->bins.size(), 1u);
  EXPECT_EQ(plan->bins[0].partition_values.at("d"), "2");
  EXPECT_EQ(log.files[0].verdict, FileVerdict::kOutsidePredicate);
  EXPECT_EQ(log.files[0].partition, -1);
  EXPECT_EQ(log.FileReason(log.files[0]), "outside the predicate d = '2'");
  ASSERT_EQ(log.partitions.size(), 1u);  // d=1 has nothing inside the scope
  EXPECT_TRUE(HasLine(log.ToText(10), "outside the predicate d = '2': 2 files"));
}

TEST(CompactionTest, NullPartitionValueIsItsOwnGroup) {
  std::vector<FileEntry> files = {File("n1", 10, {{"d", std::nullopt}}),
                                  File("n2", 10, {{"d", std::nullopt}}),
                                  File("s1", 10, {{"d", "null"}}), File("s2", 10, {{"d", "null"}})};
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, CompactionOptions{}, &log);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 2u);
  EXPECT_EQ(plan->bins[0].partition_values.at("d"), std::nullopt);  // null sorts first
  EXPECT_EQ(plan->bins[1].partition_values.at("d"), "null");
}

TEST(CompactionTest, BatchesFollowBinPackBySize) {
  CompactionOptions o;
  o.max_file_size = 100;
  o.batch_size = 100;
  std::vector<FileEntry> files;
  // Partition p0: bin of 60; p1: bin of 30; p2: bin of 90.
  for (auto [part, each] : {std::pair{"p0", 30}, {"p1", 15}, {"p2", 45}}) {
    files.push_back(File(std::string(part) + "a", each, {{"p", part}}));
    files.push_back(File(std::string(part) + "b", each, {{"p", part}}));
  }
  auto plan = PlanCompaction(Delta(), files, o, nullptr);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 3u);
  // Sorted by size: p1 (30), p0 (60) -> 90; p2 (90) would make 180 -> new batch.
  ASSERT_EQ(plan->batches.size(), 2u);
  EXPECT_EQ(plan->batches[0].bin_ids, (std::vector<int>{1, 0}));
  EXPECT_EQ(plan->batches[1].bin_ids, (std::vector<int>{2}));
}

TEST(CompactionTest, UnsetBatchSizeGivesOneBatchEvenWithoutBins) {
  auto plan = PlanCompaction(Delta(), {File("only", 10)}, CompactionOptions{}, nullptr);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->bins.empty());
  ASSERT_EQ(plan->batches.size(), 1u);
  EXPECT_TRUE(plan->batches[0].bin_ids.empty());
}

TEST(CompactionTest, InvalidOptionsAreRejected) {
  CompactionOptions o;
  o.max_file_size = 0;
  EXPECT_TRUE(PlanCompaction(Delta(), {}, o, nullptr).status().IsInvalidArgument());
  o = CompactionOptions{};
  o.max_deleted_rows_ratio = std::nan("");
  EXPECT_TRUE(PlanCompaction(Delta(), {}, o, nullptr).status().IsInvalidArgument());
  o = CompactionOptions{};
  o.batch_size = 0;
  EXPECT_TRUE(PlanCompaction(Delta(), {}, o, nullptr).status().IsInvalidArgument());
  o = CompactionOptions{};
  o.mode = PlanMode::kAutoCompaction;
  EXPECT_TRUE(PlanCompaction(Delta(), {}, o, nullptr).status().IsInvalidArgument());
}

TEST(BinPackBySizeTest, MatchesDeltaRules) {
  EXPECT_TRUE(BinPackBySize({}, 10).empty());
  // Sorted 1, 3, 5: 1+3 = 4 fits exactly; 5 starts a new group.
  EXPECT_EQ(BinPackBySize({5, 1, 3}, 4), (std::vector<std::vector<int>>{{1, 2}, {0}}));
  // Items larger than the maximum end alone; ties keep input order.
  EXPECT_EQ(BinPackBySize({7, 2, 7, 2}, 4), (std::vector<std::vector<int>>{{1, 3}, {0}, {2}}));
}

TEST(AutoCompactionTest, TouchedPartitionNeedsMinNumFilesSmallFiles) {
  std::vector<FileEntry> files;
  auto add = [&](const std::string& part, int n, int64_t size) {
    for (int i = 0; i < n; ++i) {
      files.push_back(File(fmt::format("{}/{}-{}", part, size, i), size, {{"p", part}}));
    }
  };
  add("a", 50, kMiB);       // touched, exactly 50 small files: qualifies
  add("a", 3, 70 * kMiB);   // >= 64 MiB: not candidates
  add("b", 49, kMiB);       // touched, 49: does not
  add("c", 100, kMiB);      // not touched
  DecisionLog log;
  auto plan = PlanAutoCompaction(Delta(), files, {{{"p", "a"}}, {{"p", "b"}}}, AutoCompactionOptions{}, &log);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->mode, PlanMode::kAutoCompaction);
  EXPECT_EQ(plan->min_file_size, 64 * kMiB);
  EXPECT_EQ(plan->max_file_size, 128 * kMiB);
  ASSERT_EQ(plan->bins.size(), 1u);
  EXPECT_EQ(plan->bins[0].files.size(), 50u);
  EXPECT_EQ(plan->bins[0].partition_values.at("p"), "a");
  EXPECT_EQ(plan->total_considered_files, 53);
  ASSERT_EQ(log.partitions.size(), 3u);
  EXPECT_EQ(log.partitions[0].note, "selected: touched, 50 small files (at least minNumFiles 50)");
  EXPECT_EQ(log.partitions[1].note,
            "touched, but only 49 small files (fewer than minNumFiles 50)");
  EXPECT_EQ(log.partitions[2].note, "not touched by the commit");
  EXPECT_EQ(log.files.back().verdict, FileVerdict::kPartitionNotSelected);
  EXPECT_EQ(log.summary[0],
            "considered 53 of 202 files in 1 partitions (scope: partitions touched by the "
            "commit)");
  EXPECT_EQ(log.summary[1],
            "50 candidates; 1 bins kept (50 files, 50.0 MiB) in 1 partitions; 0 bins dropped; 3 "
            "files skipped");
}

TEST(AutoCompactionTest, NoQualifyingPartitionExplainsTheTrigger) {
  std::vector<FileEntry> files;
  for (int i = 0; i < 10; ++i) files.push_back(File(fmt::format("f{}", i), kMiB));
  DecisionLog log;
  auto plan = PlanAutoCompaction(Delta(), files, {{}}, AutoCompactionOptions{}, &log);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->bins.empty());
  EXPECT_TRUE(HasLine(log.summary, "holds at least minNumFiles (50) small files"));
}

TEST(AutoCompactionTest, PartitionCapPrefersMostSmallFiles) {
  std::vector<FileEntry> files;
  for (auto [part, n] : {std::pair{"a", 5}, {"b", 7}, {"c", 6}}) {
    for (int i = 0; i < n; ++i) files.push_back(File(fmt::format("{}{}", part, i), kMiB, {{"p", part}}));
  }
  AutoCompactionOptions o;
  o.min_num_files = 5;
  o.max_num_partitions = 2;
  auto plan = PlanAutoCompaction(Delta(), files, {{{"p", "a"}}, {{"p", "b"}}, {{"p", "c"}}}, o, nullptr);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->bins.size(), 2u);
  EXPECT_EQ(plan->bins[0].partition_values.at("p"), "b");
  EXPECT_EQ(plan->bins[1].partition_values.at("p"), "c");
}

TEST(PartitionPredicateTest, OnlyPartitionColumns) {
  EXPECT_TRUE(CheckPartitionOnlyPredicate({{"date"}, {"HOUR"}}, {"date", "hour"}).ok());
  Status s = CheckPartitionOnlyPredicate({{"date"}, {"id"}}, {"date", "hour"});
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "--where may reference only partition columns (date, hour): 'id' is not one");
  Status nested = CheckPartitionOnlyPredicate({{"date", "x"}}, {"date"});
  EXPECT_NE(nested.message().find("'date.x'"), std::string::npos);
  Status unpart = CheckPartitionOnlyPredicate({{"a"}}, {});
  EXPECT_NE(unpart.message().find("not partitioned"), std::string::npos);
}

// The simulator plans synthetic tables of this size; the time is reported, not asserted.
TEST(CompactionScaleTest, MillionFilesPlan) {
#if defined(__SANITIZE_ADDRESS__)
  // Scale only: the same code runs at small scale in every other test of this file, which
  // the sanitizer build runs; a million files under ASan costs a minute of CI.
  GTEST_SKIP() << "scale test skipped under sanitizers";
#endif
  std::vector<FileEntry> files;
  files.reserve(1'000'000);
  for (int i = 0; i < 1'000'000; ++i) {
    const int part = i % 1000;
    files.push_back(File(fmt::format("{}", i), (1 + (i * 7919LL) % 40) * kMiB,
                         {{"p", fmt::format("{:03d}", part)}}));
  }
  // Thread CPU time: the build machine is shared, so wall time mostly measures the others.
  auto cpu_ms = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
  };
  auto timed = [&](DecisionLog* log) {
    const double start = cpu_ms();
    auto plan = PlanCompaction(Delta(), files, CompactionOptions{}, log);
    return std::make_pair(std::move(plan), static_cast<int>(cpu_ms() - start));
  };
  auto [bare, bare_ms] = timed(nullptr);
  DecisionLog log;
  auto [plan, log_ms] = timed(&log);
  ASSERT_TRUE(bare.ok());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(*bare, *plan);
  ::testing::Test::RecordProperty("plan_1m_files_ms", bare_ms);
  ::testing::Test::RecordProperty("plan_1m_files_with_log_ms", log_ms);
  std::printf("planned 1,000,000 files in %d ms CPU (%d ms with the decision log)\n", bare_ms,
              log_ms);
  EXPECT_EQ(plan->total_considered_files, 1'000'000);
  EXPECT_EQ(plan->total_input_files(), 1'000'000 - plan->total_files_skipped);
  EXPECT_EQ(plan->partitions_optimized, 1000);
  EXPECT_EQ(log.files.size(), 1'000'000u);
  for (const Bin& b : plan->bins) ASSERT_LE(b.total_bytes, kGiB);
}

}  // namespace
}  // namespace lithify::planner
