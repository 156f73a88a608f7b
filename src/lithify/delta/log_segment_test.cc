#include "lithify/delta/log_segment.h"

#include <gtest/gtest.h>

#include "lithify/base/buffer.h"

namespace lithify::delta {
namespace {

TEST(LogFileNameTest, ParsesEveryKind) {
  auto c = ParseLogFileName("00000000000000000012.json");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->type, LogFileType::kCommit);
  EXPECT_EQ(c->version, 12);
  auto cp = ParseLogFileName("00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(cp);
  EXPECT_EQ(cp->type, LogFileType::kCheckpointClassic);
  auto mp = ParseLogFileName("00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(mp);
  EXPECT_EQ(mp->type, LogFileType::kCheckpointMultiPart);
  EXPECT_EQ(mp->part, 2);
  EXPECT_EQ(mp->num_parts, 3);
  auto v2 = ParseLogFileName("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->type, LogFileType::kCheckpointUuidJson);
  EXPECT_EQ(v2->uuid, "80a083e8-7026-4e79-81be-64bd76c43a11");
  auto v2p = ParseLogFileName("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.parquet");
  ASSERT_TRUE(v2p);
  EXPECT_EQ(v2p->type, LogFileType::kCheckpointUuidParquet);
  auto comp = ParseLogFileName("00000000000000000004.00000000000000000006.compacted.json");
  ASSERT_TRUE(comp);
  EXPECT_EQ(comp->type, LogFileType::kCompaction);
  EXPECT_EQ(comp->end_version, 6);
  auto crc = ParseLogFileName("00000000000000000004.crc");
  ASSERT_TRUE(crc);
  EXPECT_EQ(crc->type, LogFileType::kChecksum);
}

TEST(LogFileNameTest, RejectsNearMisses) {
  for (const char* n : {"_last_checkpoint", ".00000000000000000004.crc", "0000000000000000001.json",
                        "000000000000000000012.json", "00000000000000000012.json.tmp",
                        "0000000000000000001a.json", "00000000000000000010.checkpoint.0000000004.0000000003.parquet",
                        "00000000000000000010.checkpoint.0000000000.0000000003.parquet",
                        "00000000000000000010.checkpoint.not-a-uuid.json",
                        "00000000000000000006.00000000000000000004.compacted.json",
                        "99999999999999999999.json", "00000000000000000001.checkpoint.json"}) {
    EXPECT_FALSE(ParseLogFileName(n)) << n;
  }
  EXPECT_EQ(CommitFileName(12), "00000000000000000012.json");
  EXPECT_EQ(MultiPartCheckpointFileName(10, 2, 3), "00000000000000000010.checkpoint.0000000002.0000000003.parquet");
}

std::vector<LogFile> Listing(const std::vector<std::string>& names) {
  std::vector<LogFile> out;
  for (const auto& n : names) {
    auto name = ParseLogFileName(n);
    EXPECT_TRUE(name) << n;
    out.push_back(LogFile{"/t/_delta_log/" + n, *name, 1, 1});
  }
  return out;
}

TEST(BuildLogSegmentTest, PicksNewestCompleteCheckpointAndFollowingCommits) {
  auto files = Listing({"00000000000000000000.json", "00000000000000000001.json",
                        "00000000000000000002.checkpoint.parquet", "00000000000000000002.json",
                        "00000000000000000003.json", "00000000000000000004.json",
                        "00000000000000000004.checkpoint.0000000001.0000000002.parquet"});
  auto seg = BuildLogSegment("/t/_delta_log", files, std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 4);
  EXPECT_EQ(seg->checkpoint_version, 2);  // the multi-part one at 4 is incomplete
  ASSERT_EQ(seg->commits.size(), 2u);
  EXPECT_EQ(seg->commits[0].name.version, 3);
  ASSERT_TRUE(seg->latest_commit);

  auto at1 = BuildLogSegment("/t/_delta_log", files, 1);
  ASSERT_TRUE(at1.ok());
  EXPECT_FALSE(at1->checkpoint_version);
  EXPECT_EQ(at1->commits.size(), 2u);
  EXPECT_TRUE(BuildLogSegment("/t/_delta_log", files, 5).status().IsNotFound());
}

TEST(BuildLogSegmentTest, CompleteMultiPartCheckpointIsUsed) {
  auto files = Listing({"00000000000000000003.checkpoint.0000000001.0000000002.parquet",
                        "00000000000000000003.checkpoint.0000000002.0000000002.parquet",
                        "00000000000000000003.json", "00000000000000000004.json"});
  auto seg = BuildLogSegment("/t/_delta_log", files, std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, 3);
  ASSERT_EQ(seg->checkpoint.size(), 2u);
  EXPECT_EQ(seg->checkpoint[1].name.part, 2);
  // Version 2 is before the earliest reconstructable one.
  EXPECT_TRUE(BuildLogSegment("/t/_delta_log", files, 2).status().IsNotFound());
}

TEST(BuildLogSegmentTest, GapsAreCorruptionNamingTheVersion) {
  auto files = Listing({"00000000000000000000.json", "00000000000000000001.json",
                        "00000000000000000003.json"});
  auto seg = BuildLogSegment("/t/_delta_log", files, std::nullopt);
  ASSERT_FALSE(seg.ok());
  EXPECT_TRUE(seg.status().IsCorruption());
  EXPECT_NE(seg.status().message().find("commit 2"), std::string::npos) << seg.status().message();
  EXPECT_TRUE(BuildLogSegment("/t/_delta_log", files, 1).ok());
}

TEST(BuildLogSegmentTest, IncompleteCheckpointThatIsTheOnlyWayIsCorruption) {
  auto files = Listing({"00000000000000000005.checkpoint.0000000001.0000000002.parquet",
                        "00000000000000000005.json", "00000000000000000006.json"});
  auto seg = BuildLogSegment("/t/_delta_log", files, std::nullopt);
  ASSERT_FALSE(seg.ok());
  EXPECT_TRUE(seg.status().IsCorruption()) << seg.status().ToString();
  EXPECT_NE(seg.status().message().find("checkpoint at version 5"), std::string::npos);
}

TEST(BuildLogSegmentTest, CheckpointOnlyAndEmptyLogs) {
  auto only = BuildLogSegment("/t/_delta_log", Listing({"00000000000000000108.checkpoint.parquet"}),
                              std::nullopt);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->version, 108);
  EXPECT_TRUE(only->commits.empty());
  EXPECT_FALSE(only->latest_commit);
  EXPECT_TRUE(BuildLogSegment("/t/_delta_log", {}, std::nullopt).status().IsNotFound());
}

TEST(LoadLogSegmentTest, StaleOrBrokenLastCheckpointFallsBackToListing) {
  auto fs = io::NewMemoryFileSystem();
  auto put = [&](const std::string& name, std::string_view body) {
    ASSERT_TRUE(fs->WriteFile("/t/_delta_log/" + name, AsBytes(body)).ok());
  };
  for (int v = 0; v <= 3; ++v) put(CommitFileName(v), "{}");
  put(ClassicCheckpointFileName(2), "x");
  put("_last_checkpoint", R"({"version":7,"size":3})");  // names a checkpoint that does not exist
  auto seg = LoadLogSegment(fs.get(), "/t", std::nullopt);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 3);
  EXPECT_EQ(seg->checkpoint_version, 2);

  put("_last_checkpoint", "");
  seg = LoadLogSegment(fs.get(), "/t", std::nullopt);
  ASSERT_TRUE(seg.ok());
  EXPECT_EQ(seg->checkpoint_version, 2);

  put("_last_checkpoint", R"({"version":2})");
  seg = LoadLogSegment(fs.get(), "/t", 1);  // time travel before the hint lists everything
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->commits.size(), 2u);
  auto hint = ReadLastCheckpoint(fs.get(), "/t/_delta_log");
  ASSERT_TRUE(hint.ok() && hint->has_value());
  EXPECT_EQ((*hint)->version, 2);
}

}  // namespace
}  // namespace lithify::delta
