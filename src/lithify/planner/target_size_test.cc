#include "lithify/planner/target_size.h"

#include <gtest/gtest.h>

#include "lithify/delta/maintenance_policy.h"

namespace lithify::planner {
namespace {

// The mechanism under Delta's policy, whose rules these tests were written for.
const TablePolicy& Delta() { return delta::DeltaPolicy(); }

TEST(ParseByteSizeTest, AcceptsSparkSpellings) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576);
  EXPECT_EQ(*ParseByteSize("128mb"), 128 * kMiB);
  EXPECT_EQ(*ParseByteSize("100mb"), 104857600);  // Databricks' own example
  EXPECT_EQ(*ParseByteSize("1g"), kGiB);
  EXPECT_EQ(*ParseByteSize("1.5GiB"), 3 * kGiB / 2);
  EXPECT_EQ(*ParseByteSize(" 100 MB "), 100 * kMiB);
  EXPECT_EQ(*ParseByteSize("2k"), 2048);
  EXPECT_EQ(*ParseByteSize("7b"), 7);
  EXPECT_EQ(*ParseByteSize("1tb"), int64_t{1} << 40);
  EXPECT_EQ(*ParseByteSize("0"), 0);
}

TEST(ParseByteSizeTest, RejectsGarbageNamingTheText) {
  for (const char* bad : {"", "mb", "-1", "1.2.3", "12 parsecs", "1e3", "9999999pb"}) {
    auto r = ParseByteSize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << r.status().message();
  }
}

TEST(TargetSizeTest, PrecedenceAndSources) {
  TargetSizeInputs in;
  EXPECT_EQ(*ResolveTargetFileSize(Delta(), in), std::make_pair(kGiB, std::string("default")));
  in.autotune = true;
  in.table_bytes = 1;
  EXPECT_EQ(*ResolveTargetFileSize(Delta(), in), std::make_pair(256 * kMiB, std::string("autotune")));
  in.table_property = "100mb";
  EXPECT_EQ(*ResolveTargetFileSize(Delta(), in),
            std::make_pair(int64_t{104857600}, std::string("delta.targetFileSize")));
  in.explicit_bytes = 5 * kMiB;
  EXPECT_EQ(*ResolveTargetFileSize(Delta(), in), std::make_pair(5 * kMiB, std::string("--target-file-size")));
}

TEST(TargetSizeTest, InvalidInputsName) {
  TargetSizeInputs in;
  in.table_property = "lots";
  Status s = ResolveTargetFileSize(Delta(), in).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("delta.targetFileSize"), std::string::npos);
  EXPECT_NE(s.message().find("'lots'"), std::string::npos);
  in.table_property = "0";
  EXPECT_TRUE(ResolveTargetFileSize(Delta(), in).status().IsInvalidArgument());
  in.explicit_bytes = -1;
  EXPECT_NE(ResolveTargetFileSize(Delta(), in).status().message().find("--target-file-size"),
            std::string::npos);
  TargetSizeInputs neg;
  neg.autotune = true;
  neg.table_bytes = -5;
  EXPECT_TRUE(ResolveTargetFileSize(Delta(), neg).status().IsInvalidArgument());
}

TEST(TargetSizeTest, AutotuneBreakpoints) {
  EXPECT_EQ(AutotuneTargetFileSize(0), 256 * kMiB);
  EXPECT_EQ(AutotuneTargetFileSize(kAutotuneLowTableBytes - 1), 256 * kMiB);
  EXPECT_EQ(AutotuneTargetFileSize(kAutotuneLowTableBytes), 256 * kMiB);
  EXPECT_GT(AutotuneTargetFileSize(kAutotuneLowTableBytes + 10'000'000), 256 * kMiB);
  // Halfway between 2.56 TB and 10 TB: halfway between 256 MiB and 1 GiB.
  EXPECT_EQ(AutotuneTargetFileSize(6'280'000'000'000), 640 * kMiB);
  EXPECT_EQ(AutotuneTargetFileSize(kAutotuneHighTableBytes - 1), kGiB - 1);
  EXPECT_EQ(AutotuneTargetFileSize(kAutotuneHighTableBytes), kGiB);
  EXPECT_EQ(AutotuneTargetFileSize(int64_t{1} << 60), kGiB);
}

}  // namespace
}  // namespace lithify::planner
