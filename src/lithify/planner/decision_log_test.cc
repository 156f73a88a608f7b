#include "lithify/planner/decision_log.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lithify/planner/compaction.h"
#include "lithify/planner/test_util.h"

namespace lithify::planner {
namespace {

using table::FileEntry;
using testing::Delta;
using testing::File;

// The summary's "nothing to compact" line, or "" when there is none.
std::string Cause(const std::vector<FileEntry>& files, const CompactionOptions& o) {
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), files, o, &log);
  EXPECT_TRUE(plan.ok());
  for (const std::string& line : log.summary) {
    if (line.rfind("nothing to compact: ", 0) == 0) return line.substr(20);
  }
  return "";
}

TEST(SummaryTest, NoCandidatesBecauseFilesAreLargeAndClean) {
  EXPECT_EQ(Cause({File("a", 2 * kGiB), File("b", kGiB, {}, 100, 5)}, CompactionOptions{}),
            "no file qualifies: all 2 files are at least minFileSize (1.0 GiB) and none has more "
            "than 5.0% deleted rows");
}

TEST(SummaryTest, EveryCandidateLargerThanHalfTheTarget) {
  std::vector<FileEntry> files;
  for (int i = 0; i < 4; ++i) files.push_back(File(fmt::format("f{}", i), 600 * kMiB + i));
  EXPECT_EQ(Cause(files, CompactionOptions{}),
            "every candidate is larger than half the target (1.0 GiB; the smallest is 600.0 MiB), "
            "so no two fit in one bin and a single file is never rewritten");
}

TEST(SummaryTest, OneSmallFilePerPartitionBesideLargeOnes) {
  std::vector<FileEntry> files;
  for (int p = 0; p < 3; ++p) {
    const PartitionValues pv = {{"p", std::to_string(p)}};
    files.push_back(File(fmt::format("s{}", p), 10 * kMiB, pv));
    files.push_back(File(fmt::format("l{}", p), 2 * kGiB, pv));
  }
  EXPECT_EQ(Cause(files, CompactionOptions{}),
            "every partition has at most one file below minFileSize (1.0 GiB; 3 partitions with "
            "one each); its other files are already large, so there is nothing to combine it with");
}

TEST(SummaryTest, SingleFilePartitionsEvenWhenSomeFilesAreLarge) {
  EXPECT_EQ(Cause({File("s", 10, {{"p", "a"}}), File("l", 2 * kGiB, {{"p", "b"}})},
                  CompactionOptions{}),
            "every partition receives at most one file; no target size or schedule changes "
            "this (2 partitions, 1 file each)");
}

TEST(SummaryTest, PredicateMatchedNothing) {
  CompactionOptions o;
  o.in_scope = [](const FileEntry&) { return false; };
  o.scope_description = "date = '2030-01-01'";
  EXPECT_EQ(Cause({File("a", 1), File("b", 1)}, o),
            "the predicate date = '2030-01-01' matched none of the 2 files");
}

TEST(SummaryTest, ReorgWithNothingToPurgeAndEmptyTable) {
  CompactionOptions reorg;
  reorg.mode = PlanMode::kReorgPurge;
  EXPECT_EQ(Cause({File("a", 1), File("b", 1)}, reorg),
            "none of the 2 files has deleted rows; there is nothing to purge");
  EXPECT_EQ(Cause({}, CompactionOptions{}), "the table has no data files");
}

TEST(SummaryTest, CountsWhenBinsAreKept) {
  DecisionLog log;
  auto plan = PlanCompaction(Delta(), {File("a", 10), File("b", 20), File("c", 2 * kGiB)},
                             CompactionOptions{}, &log);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(log.summary.size(), 2u);
  EXPECT_EQ(log.summary[0], "considered 3 of 3 files in 1 partitions (scope: the whole table)");
  EXPECT_EQ(log.summary[1],
            "2 candidates; 1 bins kept (2 files, 30 B) in 1 partitions; 0 bins dropped; 1 files "
            "skipped");
}

TEST(DecisionLogTest, TextLimitsFilesPerPartition) {
  std::vector<FileEntry> files;
  for (int i = 0; i < 5; ++i) files.push_back(File(fmt::format("f{}", i), 10 + i, {{"d", "x"}}));
  DecisionLog log;
  ASSERT_TRUE(PlanCompaction(Delta(), files, CompactionOptions{}, &log).ok());
  const std::vector<std::string> text = log.ToText(2);
  EXPECT_NE(std::find(text.begin(), text.end(),
                      "partition d=x: 5 files, 5 candidates, 1 bins kept, 0 dropped"),
            text.end());
  EXPECT_NE(std::find(text.begin(), text.end(), "    ... 3 more files"), text.end());
  EXPECT_NE(std::find(text.begin(), text.end(),
                      "    f0 10 B: candidate: 10 B < minFileSize 1.0 GiB; bin 0 (kept)"),
            text.end());
  EXPECT_EQ(log.ToText(-1).size(), text.size() + 2);
}

TEST(DecisionLogTest, JsonCarriesVerdictsAndReasons) {
  DecisionLog log;
  ASSERT_TRUE(PlanCompaction(Delta(), {File("a", 10), File("big", 2 * kGiB)}, CompactionOptions{}, &log).ok());
  const nlohmann::json j = log.ToJson();
  EXPECT_EQ(j["mode"], "compaction");
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][1]["verdict"], "too_large");
  EXPECT_EQ(j["files"][1]["reason"], "too large: 2.0 GiB >= minFileSize 1.0 GiB");
  EXPECT_EQ(j["bins"][0]["kept"], false);
  EXPECT_EQ(j["partitions"][0]["partition"], "");
  EXPECT_FALSE(j["summary"].empty());
}

TEST(DecisionLogTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(256 * kMiB), "256.0 MiB");
  EXPECT_EQ(FormatBytes(kGiB), "1.0 GiB");
}

}  // namespace
}  // namespace lithify::planner
