#include "lithify/planner/plan.h"

#include <gtest/gtest.h>

#include "lithify/planner/compaction.h"
#include "lithify/planner/test_util.h"

namespace lithify::planner {
namespace {

using testing::Delta;
using testing::File;

Plan SamplePlan() {
  CompactionOptions o;
  o.max_file_size = 100;
  o.batch_size = 60;
  o.target_size_source = "delta.targetFileSize";
  std::vector<table::FileEntry> files = {
      File("a/1", 20, {{"a", "1"}, {"b", std::nullopt}}, 10, 2),
      File("a/2", 30, {{"a", "1"}, {"b", std::nullopt}}, std::nullopt),
      File("c/1", 40, {{"a", "2"}, {"b", "x"}}), File("c/2", 45, {{"a", "2"}, {"b", "x"}}),
      File("big", 5000, {{"a", "3"}, {"b", "y"}})};
  auto plan = PlanCompaction(Delta(), files, o, nullptr);
  EXPECT_TRUE(plan.ok());
  return *plan;
}

TEST(PlanJsonTest, RoundTripsExactly) {
  const Plan plan = SamplePlan();
  ASSERT_EQ(plan.bins.size(), 2u);
  ASSERT_EQ(plan.batches.size(), 2u);
  const nlohmann::json j = PlanToJson(plan);
  EXPECT_EQ(j["bins"][0]["partition_values"]["b"], nullptr);
  EXPECT_EQ(j["bins"][0]["files"][1]["num_records"], nullptr);
  // Through text, as a worker would receive it.
  auto back = PlanFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, plan);
  EXPECT_EQ(back->bins[0].files[0].dv_unique_id, "uaba/1");
  EXPECT_EQ(back->target_size_source, "delta.targetFileSize");
}

TEST(PlanJsonTest, RejectsMalformedInput) {
  nlohmann::json j = PlanToJson(SamplePlan());
  nlohmann::json missing = j;
  missing.erase("max_file_size");
  Status s = PlanFromJson(missing).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("'max_file_size'"), std::string::npos);

  nlohmann::json bad_mode = j;
  bad_mode["mode"] = "zorder?";
  EXPECT_NE(PlanFromJson(bad_mode).status().message().find("zorder?"), std::string::npos);

  nlohmann::json bad_batch = j;
  bad_batch["batches"][0]["bin_ids"] = {7};
  EXPECT_TRUE(PlanFromJson(bad_batch).status().IsInvalidArgument());

  nlohmann::json bad_id = j;
  bad_id["bins"][1]["id"] = 5;
  EXPECT_TRUE(PlanFromJson(bad_id).status().IsInvalidArgument());

  EXPECT_TRUE(PlanFromJson(nlohmann::json::array()).status().IsInvalidArgument());
  nlohmann::json bad_type = j;
  bad_type["bins"][0]["files"][0]["size"] = "20";
  EXPECT_TRUE(PlanFromJson(bad_type).status().IsInvalidArgument());
}

TEST(PlanJsonTest, ModeNames) {
  for (PlanMode m : {PlanMode::kCompaction, PlanMode::kReorgPurge, PlanMode::kAutoCompaction,
                     PlanMode::kZOrder, PlanMode::kLiquid}) {
    auto back = PlanModeFromName(PlanModeName(m));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, m);
  }
  EXPECT_EQ(PlanModeName(PlanMode::kZOrder), "zorder");
  EXPECT_EQ(PlanModeName(PlanMode::kLiquid), "liquid");
}

}  // namespace
}  // namespace lithify::planner
