// The simulator plans with the same planner functions as `lithify optimize`: for a real
// partitioned table written by lithify, and a simulated table with the same file sizes,
// partitions and row counts (synthetic FileEntry values as the simulator builds them:
// synthetic paths, no statistics beyond numRecords), sim::PlanMaintenance's plan equals
// commands::Optimize's --dry-run plan bin for bin, file for file.
#include <gtest/gtest.h>

#include "lithify/delta/maintenance_policy.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/optimize.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify/sim/simulate.h"

namespace lithify::sim {
namespace {

using parquet::Value;

constexpr const char* kSchema =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"date","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"payload","type":"string","nullable":true,"metadata":{}}]})";

void MakeTable(io::FileSystem* fs, const std::string& root) {
  auto txn = delta::Transaction::BeginNewTable(fs, root);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  delta::Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 2;
  delta::Metadata m;
  m.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  m.schema_string = kSchema;
  m.partition_columns = {"date"};
  m.created_time = 1;
  (*txn)->AddAction(p);
  (*txn)->AddAction(m);
  (*txn)->SetOperation("CREATE TABLE", nlohmann::json::object());
  auto r = (*txn)->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// One blind append of `n` rows into partition `date` (one file); payload lengths vary
// with `seed` so file sizes differ.
void Append(io::FileSystem* fs, const std::string& root, int64_t first, int64_t n,
            const std::string& date) {
  auto snap = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto w = delta::DataFileWriter::Open(fs, root, delta::WriteContext::FromSnapshot(**snap));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<std::vector<Value>> rows;
  for (int64_t i = first; i < first + n; ++i) {
    // Distinct, poorly compressible text so the file size follows the row count.
    std::string payload;
    uint64_t x = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL;
    for (int c = 0; c < 24; ++c) {
      x ^= x >> 29;
      x *= 0xbf58476d1ce4e5b9ULL;
      payload += static_cast<char>('a' + x % 26);
    }
    rows.push_back({Value::Int(i), Value::String(date), Value::String(payload)});
  }
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

// The simulated table: the simulator's kind of FileEntry (synthetic path, size,
// partition values, numRecords only), one per real live file, in the same order.
struct Simulated {
  std::vector<table::FileEntry> files;
  std::map<std::string, std::string> real_path;  // synthetic -> real
};

Simulated Simulate(const std::vector<table::FileEntry>& real) {
  Simulated s;
  for (size_t i = 0; i < real.size(); ++i) {
    table::FileEntry f;
    f.path = "date=" + real[i].partition_values.at("date").value_or("") + "/part-" +
             std::to_string(i) + ".parquet";
    f.size = real[i].size;
    f.partition_values = real[i].partition_values;
    f.stats.emplace();
    f.stats->num_records = real[i].num_records();
    s.real_path[f.path] = real[i].path;
    s.files.push_back(std::move(f));
  }
  return s;
}

class PlanEqualityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = io::NewLocalFileSystem();
    MakeTable(fs_.get(), dir_.table());
    // Three partitions: many small files of varied sizes, a few larger ones, and a
    // partition with a single file (its bin is dropped).
    int64_t id = 0;
    const std::vector<std::pair<std::string, std::vector<int64_t>>> layout = {
        {"2026-01-01", {40, 300, 80, 120, 40, 500, 60, 200, 90, 1500}},
        {"2026-01-02", {1000, 20, 700, 30, 2500, 400, 45, 45}},
        {"2026-01-03", {250}}};
    for (const auto& [date, counts] : layout) {
      for (int64_t n : counts) {
        Append(fs_.get(), dir_.table(), id, n, date);
        id += n;
      }
    }
    auto snap = delta::Snapshot::Load(fs_.get(), dir_.table());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    real_files_ = (*snap)->files();
    ASSERT_EQ(real_files_.size(), 19u);
  }

  // Both plans for one target / minimum size, the simulated one mapped back to real paths.
  void ExpectEqualPlans(double target_mb, std::optional<double> min_mb) {
    commands::OptimizeSpec spec;
    spec.dry_run = true;
    spec.target_file_size = std::llround(target_mb * kMiB);
    if (min_mb) spec.min_file_size = std::llround(*min_mb * kMiB);
    auto real = commands::Optimize(fs_.get(), dir_.table(), spec);
    ASSERT_TRUE(real.ok()) << real.status().ToString();

    nlohmann::json j = {{"maintenance", "optimize"}, {"partition_by", "daily"},
                        {"target_file_size_mb", target_mb}};
    if (min_mb) j["min_file_size_mb"] = *min_mb;
    auto scenario = ScenarioFromJson(j);
    ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
    const Simulated sim = Simulate(real_files_);
    planner::DecisionLog log;
    auto simulated = PlanMaintenance(*scenario, sim.files, PlanContext{}, &log, delta::DeltaPolicy());
    ASSERT_TRUE(simulated.ok()) << simulated.status().ToString();
    planner::Plan mapped = *simulated;
    for (planner::Bin& b : mapped.bins) {
      for (planner::FileRef& f : b.files) f.path = sim.real_path.at(f.path);
    }
    EXPECT_GT(real->plan.bins.size(), 0u);
    EXPECT_EQ(planner::PlanToJson(mapped), planner::PlanToJson(real->plan));
    EXPECT_EQ(mapped, real->plan);
    EXPECT_EQ(log.summary, real->log.summary);
    ASSERT_EQ(log.bins.size(), real->log.bins.size());
    for (size_t i = 0; i < log.bins.size(); ++i) {
      EXPECT_EQ(log.bins[i].kept, real->log.bins[i].kept);
      EXPECT_EQ(log.bins[i].reason, real->log.bins[i].reason);
    }
  }

  TempDir dir_;
  std::unique_ptr<io::FileSystem> fs_;
  std::vector<table::FileEntry> real_files_;
};

TEST_F(PlanEqualityTest, SameFileSizesAndPartitionsGiveOptimizesPlan) {
  int64_t total = 0;
  for (const table::FileEntry& f : real_files_) total += f.size;
  const double mean_mb = static_cast<double>(total) / real_files_.size() / kMiB;
  // Targets from "a few files per bin" to "everything in one bin per partition", with
  // the default minimum (the target) and a lower one that leaves large files alone.
  for (double factor : {1.5, 3.0, 8.0, 100.0}) {
    SCOPED_TRACE(factor);
    ExpectEqualPlans(mean_mb * factor, std::nullopt);
    ExpectEqualPlans(mean_mb * factor, mean_mb);
  }
}

}  // namespace
}  // namespace lithify::sim
