// Simulator tests: scenario parsing, Spark's scan-task arithmetic, and the issue's
// acceptance figures for layout workloads (OPTIMIZE, auto compaction, REORG) and
// clustering (Z-order, liquid), all driven through the real planners.
#include "lithify/sim/simulate.h"

#include <gtest/gtest.h>

#include "lithify/delta/maintenance_policy.h"

#include <string>

namespace lithify::sim {
namespace {

using nlohmann::json;

Scenario Parse(const json& j) {
  auto s = ScenarioFromJson(j);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Scenario{};
}

SimResult RunSim(const json& j) {
  auto r = Simulate(Parse(j), delta::DeltaPolicy());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : SimResult{};
}

void ExpectInvalid(const json& j, const std::string& needle) {
  auto s = ScenarioFromJson(j);
  ASSERT_FALSE(s.ok()) << j.dump();
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status().message();
}

// ---- scenario keys

TEST(ScenarioTest, DefaultsAndUnits) {
  Scenario s = Parse({{"days", 2}, {"mb_per_hour", 500}, {"target_file_size_mb", 256},
                      {"min_cube_size_gb", 100}});
  EXPECT_EQ(s.hours, 48);
  EXPECT_EQ(s.bytes_per_hour, 500.0 * kMiB);
  EXPECT_EQ(s.target_file_size, 256 * kMiB);
  EXPECT_EQ(s.min_file_size, 256 * kMiB) << "min defaults to the target, as `optimize`";
  EXPECT_EQ(s.min_cube_size, 100 * kGiB);
  EXPECT_EQ(Parse({{"gb_per_day", 24}}).bytes_per_hour, 1.0 * kGiB);
  EXPECT_EQ(Parse({{"maintenance", "liquid"}}).cluster_by, std::vector<std::string>{"key"});
}

TEST(ScenarioTest, ErrorsNameTheKeyAndTheRange) {
  ExpectInvalid({{"dayz", 1}}, "unknown scenario key 'dayz'");
  ExpectInvalid({{"days", 0}}, "'days': must be an integer in [1, 3650] days, got 0");
  ExpectInvalid({{"days", 1.5}}, "'days'");
  ExpectInvalid({{"size_jitter", 2}}, "'size_jitter': must be a number in [0, 1]");
  ExpectInvalid({{"partition_by", "weekly"}}, "one of none, daily, hourly, 15min, 5min");
  ExpectInvalid({{"optimize_write", "yes"}}, "'optimize_write': must be true or false");
  ExpectInvalid({{"cluster_by", json::array({"a", "b", "c", "d", "e"})}}, "'cluster_by'");
  ExpectInvalid({{"days", 1}, {"hours", 3}}, "'days' and 'hours' are exclusive");
  ExpectInvalid({{"mb_per_hour", 1}, {"gb_per_day", 3}}, "exclusive");
  ExpectInvalid({{"cluster_by", json::array({"k"})}, {"partition_by", "daily"}},
                "'partition_by'");
  ExpectInvalid({{"cluster_by", json::array({"k"})}, {"maintenance", "optimize"}},
                "'maintenance'");
  ExpectInvalid({{"zorder_window_days", 3}, {"maintenance", "zorder"}}, "'zorder_window_days'");
  ExpectInvalid({{"maintenance", "liquid"}, {"days", 5}, {"full_on_day", 6}}, "'full_on_day'");
  ExpectInvalid({{"start_date", "2026-02-30"}}, "'start_date'");
  ExpectInvalid({{"days", 3650}, {"batches_per_hour", 3600}, {"files_per_batch", 100}},
                "files");
  ExpectInvalid({{"days", 60}, {"batches_per_hour", 100}, {"maintenance", "auto_compact"}},
                "'schedule'");
  ExpectInvalid(json::array(), "JSON object");
}

TEST(ScenarioTest, JsonRoundTripAndKeyTable) {
  Scenario s = Parse({{"hours", 30}, {"partition_by", "15min"}, {"maintenance", "auto_compact"},
                      {"auto_compact_min_file_size_mb", 16}, {"size_jitter", 0.25}});
  json again = json::parse(ScenarioToJson(s).dump());
  Scenario t = Parse(again);
  EXPECT_EQ(t.hours, 30);
  EXPECT_EQ(t.partition_by, "15min");
  EXPECT_EQ(t.auto_compact_min_file_size, 16 * kMiB);
  EXPECT_EQ(ScenarioToJson(t), ScenarioToJson(s));
  // Every key of the table parses with its own default (null = derived, skipped).
  for (const auto& k : ScenarioKeysHelp()) {
    ASSERT_TRUE(k.contains("help") && !k["help"].get<std::string>().empty()) << k.dump();
    if (k["default"].is_null()) continue;
    json one = {{k["key"].get<std::string>(), k["default"]}};
    EXPECT_TRUE(ScenarioFromJson(one).ok()) << one.dump();
  }
}

TEST(ScenarioTest, StructDefaultsAreTheKeyTableDefaults) {
  const json defaults = json::parse(ScenarioToJson(Scenario{}).dump());
  for (const auto& k : ScenarioKeysHelp()) {
    const std::string key = k["key"].get<std::string>();
    if (k["default"].is_null()) continue;
    SCOPED_TRACE(key);
    ASSERT_TRUE(defaults.contains(key));
    if (defaults[key].is_number()) {
      EXPECT_DOUBLE_EQ(defaults[key].get<double>(), k["default"].get<double>());
    } else {
      EXPECT_EQ(defaults[key], json::parse(k["default"].dump()));
    }
  }
}

TEST(ScenarioTest, ValuesFromFlagText) {
  EXPECT_EQ(*ScenarioValueFromText("days", "3"), json(3));
  EXPECT_EQ(*ScenarioValueFromText("optimize_write", "true"), json(true));
  EXPECT_EQ(*ScenarioValueFromText("cluster_by", "a, b"), json::array({"a", "b"}));
  EXPECT_EQ(*ScenarioValueFromText("partition_by", "hourly"), json("hourly"));
  EXPECT_FALSE(ScenarioValueFromText("days", "three").ok());
  EXPECT_FALSE(ScenarioValueFromText("nope", "1").ok());
}

// ---- scan tasks

TEST(ScanTasksTest, ChargedBytesEstimate) {
  // 100,000 files of 1 MiB are charged as 500,000 MiB: ceil(500000 / 128) = 3907 tasks.
  std::vector<int64_t> sizes(100000, kMiB);
  EXPECT_EQ(ChargedScanTasks(sizes, 4 * kMiB, 128 * kMiB), 3907);
  EXPECT_EQ(ChargedScanTasks({}, 4 * kMiB, 128 * kMiB), 0);
  EXPECT_EQ(ChargedScanTasks({124 * kMiB}, 4 * kMiB, 128 * kMiB), 1);
  EXPECT_EQ(ChargedScanTasks({124 * kMiB + 1}, 4 * kMiB, 128 * kMiB), 2);
}

TEST(ScanTasksTest, SparkFilePartitionPacking) {
  const int64_t open = 4 * kMiB, max = 128 * kMiB;
  // Three 100 MiB files: each opens a partition (104 + 100 > 128).
  EXPECT_EQ(SparkScanTasks({100 * kMiB, 100 * kMiB, 100 * kMiB}, open, max, 1), 3);
  // Ten 10 MiB files: nine fit (9 x 14 = 126), the tenth opens a second partition.
  EXPECT_EQ(SparkScanTasks(std::vector<int64_t>(10, 10 * kMiB), open, max, 1), 2);
  // A 300 MiB file is split into 128 + 128 + 44 MiB chunks.
  EXPECT_EQ(SparkScanTasks({300 * kMiB}, open, max, 1), 3);
  // Parallelism 8 over 56 MiB charged: maxSplitBytes = max(4, 7) = 7 MiB, so each 10 MiB
  // file is two chunks (7 + 3) and no two chunks share a partition: 8 tasks.
  EXPECT_EQ(SparkScanTasks(std::vector<int64_t>(4, 10 * kMiB), open, max, 8), 8);
  EXPECT_EQ(SparkScanTasks({}, open, max, 8), 0);
}

// ---- layout workloads (acceptance 1)

TEST(LayoutTest, HourlyMicroBatchesCompactAt256MiB) {
  // One day of hourly partitions at 500 MiB/hour as 60 micro-batches of 8 files.
  SimResult r = RunSim({{"days", 1}, {"partition_by", "hourly"}, {"batches_per_hour", 60},
                     {"files_per_batch", 8}, {"mb_per_hour", 500}, {"maintenance", "optimize"},
                     {"schedule", "nightly"}, {"target_file_size_mb", 256}});
  const SimTotals& t = r.totals;
  EXPECT_EQ(t.batches, 1440);
  EXPECT_EQ(t.files_before, 11520);
  EXPECT_EQ(t.bytes_ingested, 12000 * kMiB);
  EXPECT_EQ(t.files_after, 48);
  EXPECT_EQ(t.bins_kept, 48);  // two bins per hour: 245 + 235 files of ~1.04 MiB
  EXPECT_EQ(t.bins_dropped, 0);
  EXPECT_EQ(t.num_files_removed, 11520);
  EXPECT_EQ(t.num_files_added, 48);
  EXPECT_EQ(t.scan_tasks_before, 454);  // ceil((12000 + 11520 x 4) / 128)
  EXPECT_EQ(t.scan_tasks_after, 96);    // ceil((12000 + 48 x 4) / 128)
  EXPECT_EQ(t.bytes_written, t.bytes_ingested);
  EXPECT_DOUBLE_EQ(t.write_amplification, 1.0);
  EXPECT_EQ(t.tombstones, 11520);
  EXPECT_EQ(t.tombstones_live, 11520);  // within the 7-day retention
  EXPECT_EQ(t.partitions, 24);
  EXPECT_EQ(t.bytes_live, t.bytes_ingested);
  EXPECT_LT(t.spark_scan_tasks_after, t.spark_scan_tasks_before);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].day, 1);
  EXPECT_EQ(r.steps[0].hour, 24);
  EXPECT_EQ(r.steps[0].files_before, 11520);
  EXPECT_EQ(r.steps[0].files_after, 48);
  EXPECT_EQ(r.steps[0].kept_reasons.size(), 2u);  // "245 files ..." and "235 files ..."
  EXPECT_FALSE(r.steps[0].summary.empty());
}

TEST(LayoutTest, FiveMinutePartitionsWithOneFileEachKeepEveryFile) {
  for (double target : {1.0, 16.0, 64.0, 256.0, 1024.0, 4096.0}) {
    SCOPED_TRACE(target);
    SimResult r = RunSim({{"days", 1}, {"partition_by", "5min"}, {"batches_per_hour", 12},
                       {"files_per_batch", 1}, {"mb_per_hour", 120}, {"maintenance", "optimize"},
                       {"schedule", "nightly"}, {"target_file_size_mb", target}});
    const SimTotals& t = r.totals;
    EXPECT_EQ(t.files_before, 288);
    EXPECT_EQ(t.files_after, 288);
    EXPECT_EQ(t.bins_kept, 0);
    EXPECT_EQ(t.num_files_added, 0);
    EXPECT_EQ(t.num_files_removed, 0);
    EXPECT_EQ(t.bytes_written, 0);
    // Each 10 MiB file is a candidate below a 16 MiB+ target, alone in its partition:
    // its bin is formed and dropped.
    if (target > 10) {
      EXPECT_EQ(t.bins_dropped, 288);
    } else {
      EXPECT_EQ(t.bins_dropped, 0);
    }
    EXPECT_EQ(r.steps.size(), 1u);
  }
}

TEST(LayoutTest, DeterministicAndJitterKeepsTheBytes) {
  json j = {{"days", 2}, {"partition_by", "daily"}, {"batches_per_hour", 4},
            {"files_per_batch", 5}, {"mb_per_hour", 333.3}, {"size_jitter", 0.8}, {"seed", 7},
            {"maintenance", "optimize"}, {"target_file_size_mb", 128}};
  SimResult a = RunSim(j), b = RunSim(j);
  a.elapsed_ms = b.elapsed_ms = a.cpu_ms = b.cpu_ms = 0;
  EXPECT_EQ(SimResultToJson(a), SimResultToJson(b));
  EXPECT_EQ(a.totals.bytes_ingested, std::llround(333.3 * kMiB * 48));
  EXPECT_EQ(a.totals.bytes_live, a.totals.bytes_ingested);
  j["seed"] = 8;
  SimResult c = RunSim(j);
  EXPECT_EQ(c.totals.bytes_ingested, a.totals.bytes_ingested);
  EXPECT_NE(SimResultToJson(c)["steps"], SimResultToJson(a)["steps"]);
}

TEST(LayoutTest, AutoCompactionAfterEveryCommit) {
  // Hourly partitions, 8 files per minute: a partition qualifies once it holds 50 small
  // files (7 batches = 56), which auto compaction merges into one 128 MiB-bounded file.
  SimResult r = RunSim({{"hours", 3}, {"partition_by", "hourly"}, {"batches_per_hour", 60},
                     {"files_per_batch", 8}, {"mb_per_hour", 500},
                     {"maintenance", "auto_compact"}});
  const SimTotals& t = r.totals;
  EXPECT_EQ(t.maintenance_runs, 180);  // one per commit
  EXPECT_EQ(t.files_before, 1440);
  EXPECT_LT(t.files_after, 200);
  EXPECT_GT(t.bins_kept, 0);
  EXPECT_EQ(t.bytes_live, t.bytes_ingested);
  EXPECT_GT(t.write_amplification, 1.0);  // small files are rewritten more than once
  // The first compaction happens at the 7th commit (56 candidates >= 50).
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.steps[i].bins_kept, 0) << i;
  EXPECT_EQ(r.steps[6].bins_kept, 1);
  EXPECT_EQ(r.steps[6].num_files_removed, 56);
  EXPECT_EQ(r.steps[6].num_files_added, 1);
  for (const SimStep& s : r.steps) {
    EXPECT_EQ(s.num_files_added, s.bins_kept);
    EXPECT_EQ(s.files_after, s.files_before - s.num_files_removed + s.num_files_added);
  }
}

TEST(LayoutTest, JsonCarriesTheIssuesReadouts) {
  SimResult r = RunSim({{"hours", 3}, {"partition_by", "hourly"}, {"batches_per_hour", 4},
                        {"files_per_batch", 3}, {"maintenance", "optimize"},
                        {"schedule", "every_batch"}, {"target_file_size_mb", 64}});
  EXPECT_EQ(r.steps.size(), 12u);  // one run per batch
  const json j = json::parse(SimResultToJson(r).dump());
  for (const char* key :
       {"files_before", "files_after", "bins_kept", "bins_dropped", "num_files_added",
        "num_files_removed", "bytes_ingested", "bytes_written", "write_amplification",
        "tombstones", "scan_tasks_before", "scan_tasks_after", "spark_scan_tasks_before",
        "spark_scan_tasks_after", "lookup_files", "cubes_sealed", "cubes_open"}) {
    EXPECT_TRUE(j["totals"].contains(key)) << key;
    if (std::string(key) != "lookup_files") {
      EXPECT_TRUE(j["steps"][0].contains(key) || j["steps"][0].contains(std::string(key) + "_after"))
          << key;
    }
  }
  EXPECT_EQ(j["steps"][3]["day"], 1);
  EXPECT_EQ(j["steps"][3]["hour"], 1.0);
  EXPECT_TRUE(j["steps"][3]["summary"].is_array());
  EXPECT_TRUE(j["steps"][3]["log"].is_null());
  EXPECT_EQ(j["scenario"]["schedule"], "every_batch");
  // log_detail full: the whole decision log per step, file by file.
  r = RunSim({{"hours", 1}, {"batches_per_hour", 2}, {"files_per_batch", 3},
              {"maintenance", "optimize"}, {"schedule", "hourly"}, {"log_detail", "full"}});
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].log["files"].size(), 6u);
}

TEST(LayoutTest, OptimizedWritesMergeABatchPerPartition) {
  SimResult r = RunSim({{"days", 1}, {"partition_by", "hourly"}, {"batches_per_hour", 1},
                     {"files_per_batch", 200}, {"mb_per_hour", 1000}, {"optimize_write", true}});
  // 1000 MiB in 200 files of 5 MiB, packed to 512 MiB: 102 + 98 files -> 2 files an hour.
  EXPECT_EQ(r.totals.files_before, 48);
  EXPECT_EQ(r.totals.bytes_ingested, 24000 * kMiB);
}

TEST(LayoutTest, DailyDeletesAndReorgPurge) {
  json j = {{"days", 3}, {"partition_by", "daily"}, {"batches_per_hour", 1},
            {"files_per_batch", 2}, {"mb_per_hour", 10}, {"delete_fraction_per_day", 0.1},
            {"row_bytes", 1000}};
  SimResult none = RunSim(j);
  EXPECT_EQ(none.totals.dv_files, none.totals.files_after);
  EXPECT_GT(none.totals.rows_deleted, 0);
  EXPECT_EQ(none.totals.rows_live, none.totals.rows_ingested - none.totals.rows_deleted);
  j["maintenance"] = "reorg";
  SimResult reorg = RunSim(j);
  EXPECT_EQ(reorg.totals.dv_files, 0);
  EXPECT_EQ(reorg.totals.rows_live, reorg.totals.rows_ingested - reorg.totals.rows_deleted);
  EXPECT_LT(reorg.totals.bytes_live, reorg.totals.bytes_ingested);
  EXPECT_GT(reorg.totals.bytes_written, 0);
  // REORG rewrites single files too: every file with deleted rows, each night.
  EXPECT_EQ(reorg.steps[0].num_files_removed, 48);
  // OPTIMIZE picks the same files for their 10% deleted rows, and packs them per day.
  j["maintenance"] = "optimize";
  SimResult opt = RunSim(j);
  EXPECT_EQ(opt.totals.rows_live, opt.totals.rows_ingested - opt.totals.rows_deleted);
  EXPECT_EQ(opt.steps[0].num_files_added, 1);
}

}  // namespace
}  // namespace lithify::sim

namespace lithify::sim {
namespace {

// ---- clustering (acceptance 2)

json Liquid60Days() {
  return {{"days", 60}, {"gb_per_day", 10}, {"batches_per_hour", 1}, {"files_per_batch", 4},
          {"maintenance", "liquid"}, {"cluster_by", json::array({"key"})},
          {"min_cube_size_gb", 100}, {"target_cube_size_gb", 150}, {"output_file_size_gb", 1}};
}

TEST(ClusteringTest, LiquidSealsEachCubeOnceAtFiveAndAHalfWriteAmplification) {
  SimResult r = RunSim(Liquid60Days());
  ASSERT_EQ(r.steps.size(), 60u);
  const SimTotals& t = r.totals;
  EXPECT_EQ(t.bytes_ingested, 600 * kGiB);
  // Each cube grows nightly by 10 GiB (10 + 20 + ... + 100 GiB rewritten) and seals at
  // 100 GiB: 550 GiB written per 100 GiB ingested.
  EXPECT_DOUBLE_EQ(t.write_amplification, 5.5);
  EXPECT_EQ(t.cubes_sealed, 6);
  EXPECT_EQ(t.cubes_open, 0);
  int64_t sealed = 0;
  for (const SimStep& s : r.steps) {
    SCOPED_TRACE(s.day);
    // Sealing happens on days 10, 20, ...; a sealed cube is never rewritten.
    EXPECT_EQ(s.cubes_sealed, s.day / 10);
    EXPECT_GE(s.cubes_sealed, sealed);
    sealed = s.cubes_sealed;
    EXPECT_EQ(s.cubes_open, s.day % 10 == 0 ? 0 : 1);
    EXPECT_EQ(s.bins_kept, 1);
    EXPECT_EQ(s.bytes_written, ((s.day - 1) % 10 + 1) * 10 * kGiB);
    // Cumulative write amplification is exactly 5.5 whenever a cube has just sealed.
    if (s.day % 10 == 0) EXPECT_DOUBLE_EQ(s.write_amplification, 5.5);
  }
  // A lookup on the clustering key opens one file per cube (each covers its slice).
  EXPECT_DOUBLE_EQ(t.lookup_files, 6.0);
}

TEST(ClusteringTest, KeyChangeLookupsOpenOldCubesUntilOptimizeFull) {
  json j = Liquid60Days();
  j["days"] = 30;
  j["change_keys_on_day"] = 16;
  j["full_on_day"] = 25;
  SimResult r = RunSim(j);
  ASSERT_EQ(r.steps.size(), 30u);
  // Day 15: one sealed cube (100 files) and one open cube of 50 GiB (50 files), all keyed
  // by the current columns: a lookup opens 2 files.
  EXPECT_DOUBLE_EQ(r.steps[14].lookup_files_after, 2.0);
  // From day 16 the keys are new: the old cubes' 150 files each cover the whole range
  // of the new key, and are not reclustered (other clustering keys) ...
  for (int day = 16; day < 25; ++day) {
    const SimStep& s = r.steps[day - 1];
    SCOPED_TRACE(day);
    EXPECT_EQ(s.operation, "liquid");
    EXPECT_DOUBLE_EQ(s.lookup_files_after, 150.0 + 1.0);
    EXPECT_EQ(s.bytes_written, (day - 15) * 10 * kGiB);  // only the new cube grows
  }
  // ... until OPTIMIZE FULL on day 25 reclusters them with the new keys.
  const SimStep& full = r.steps[24];
  EXPECT_EQ(full.operation, "liquid_full");
  // The old cubes' 150 files, the new open cube (90 GiB in 90 files) and the day's 96
  // ingested files.
  EXPECT_EQ(full.num_files_removed, 150 + 90 + 96);
  EXPECT_LT(full.lookup_files_after, 5.0);
  EXPECT_LT(r.steps[29].lookup_files_after, 5.0);
}

TEST(ClusteringTest, ZOrderRewritesEveryPartitionEveryNight) {
  json j = {{"days", 4}, {"partition_by", "daily"}, {"gb_per_day", 4}, {"batches_per_hour", 1},
            {"files_per_batch", 2}, {"maintenance", "zorder"}, {"target_file_size_mb", 1024}};
  SimResult r = RunSim(j);
  ASSERT_EQ(r.steps.size(), 4u);
  // Night d rewrites all d partitions (Z-order is not idempotent): 4 + 8 + 12 + 16 GiB.
  EXPECT_EQ(r.totals.bytes_written, 40 * kGiB);
  EXPECT_EQ(r.totals.files_after, 16);  // 4 files of 1 GiB per day
  EXPECT_DOUBLE_EQ(r.totals.lookup_files, 4.0);  // one slice per partition
  // A window of the last day rewrites only the newest partition each night.
  j["zorder_window_days"] = 1;
  SimResult w = RunSim(j);
  EXPECT_EQ(w.totals.bytes_written, 16 * kGiB);
  EXPECT_DOUBLE_EQ(w.totals.lookup_files, 4.0);
}

TEST(ClusteringTest, SixtyDayLiquidRunIsQuick) {
  // Informational: the panel drives this from a slider (no timing assertion; see
  // docs/simulator.md for measured figures).
  SimResult r = RunSim(Liquid60Days());
  EXPECT_GT(r.elapsed_ms, 0);
}

}  // namespace
}  // namespace lithify::sim
