// Issue 15, acceptance 4: every bin of an OPTIMIZE plan run out of process (each a child
// `lithify internal run-bin`, exec::ProcessBinRunner) and the results committed by the
// planning process give the same table as the in-process run on an identical copy: the
// same rows (a multiset), the same statistics (and size, partition values, record count)
// of every added file, the same operation metrics and commit parameters, and the Delta log
// validator accepts the table. Plans with several bins and batches, a partitioned table,
// tables with deletion vectors (both the streamed and the column-at-a-time path).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/exec/bin_runner.h"
#include "lithify/io/filesystem.h"
#include "tests/delta_write/validator.h"

namespace lithify::commands {
namespace {

using parquet::Value;

constexpr const char* kSchema =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"part","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"name","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"score","type":"double","nullable":true,"metadata":{}}]})";

void MakeTable(io::FileSystem* fs, const std::string& root, std::vector<std::string> partitions, bool dvs) {
  testing::CreateDeltaTable(fs, root, kSchema, std::move(partitions), dvs);
}

// One blind-append commit of rows [first, first + n) into `part` (one file).
void Append(io::FileSystem* fs, const std::string& root, int64_t first, int64_t n, const std::string& part) {
  auto snap = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto w = delta::DataFileWriter::Open(fs, root, delta::WriteContext::FromSnapshot(**snap));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<std::vector<Value>> rows;
  for (int64_t i = first; i < first + n; ++i) {
    // Scores a double rendering would change, so that stats text equality means something.
    rows.push_back({Value::Int(i), Value::String(part),
                    i % 7 == 0 ? Value::Null() : Value::String("name-" + std::to_string(i)),
                    Value::Double(static_cast<double>(i) / 3.0 + 0.1)});
  }
  ASSERT_TRUE((*w)->WriteRows(rows).ok());
  auto adds = (*w)->Finish();
  ASSERT_TRUE(adds.ok()) << adds.status().ToString();
  auto txn = delta::Transaction::Begin(*snap);
  ASSERT_TRUE(txn.ok());
  for (auto& a : *adds) (*txn)->AddAction(a);
  (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
  ASSERT_TRUE((*txn)->Commit().ok());
}

void DeleteWhere(io::FileSystem* fs, const std::string& root, const std::string& pred) {
  DeleteSpec del;
  del.predicate = pred;
  del.auto_compact.allowed = false;
  auto d = DeleteRows(fs, root, del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(d->commit.has_value());
}

std::vector<std::string> Rows(io::FileSystem* fs, const std::string& root) {
  testing::Lines out;
  auto r = Scan(fs, root, ScanOptions{}, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

// What must agree of an added file (its name and modification time may not).
using AddedKey = std::tuple<std::string, int64_t, std::string, std::string>;  // partition, size, stats, tags

std::vector<AddedKey> AddedFiles(io::FileSystem* fs, const std::string& root, int64_t after_version) {
  auto snap = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  std::vector<AddedKey> out;
  if (!snap.ok()) return out;
  auto before = delta::Snapshot::Load(fs, root, delta::VersionSpec::AtVersion(after_version));
  EXPECT_TRUE(before.ok());
  std::set<std::string> old;
  for (const table::FileEntry& f : (*before)->files()) old.insert(f.path);
  for (const table::FileEntry& f : (*snap)->files()) {
    if (old.count(f.path)) continue;
    nlohmann::json pv = nlohmann::json::object();
    for (const auto& [k, v] : f.partition_values) pv[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    nlohmann::json tags(f.tags);
    out.emplace_back(pv.dump(), f.size, f.stats ? f.stats->raw : std::string("<none>"), tags.dump());
    EXPECT_FALSE(f.deletion_vector.has_value()) << f.path;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// operationParameters and operationMetrics of the commit at `version`.
nlohmann::json CommitOperation(const std::string& root, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld.json", static_cast<long long>(version));
  std::ifstream in(root + "/_delta_log/" + name);
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("commitInfo")) {
      const nlohmann::json& ci = j["commitInfo"];
      return {{"operation", ci.value("operation", "")},
              {"operationParameters", ci.value("operationParameters", nlohmann::json())},
              {"operationMetrics", ci.value("operationMetrics", nlohmann::json())}};
    }
  }
  ADD_FAILURE() << "no commitInfo in " << root << " " << name;
  return {};
}

nlohmann::ordered_json MetricsWithoutTimes(const OptimizeMetrics& m) {
  nlohmann::ordered_json j = OptimizeMetricsToJson(m);
  j.erase("startTimeMs");
  j.erase("endTimeMs");
  return j;
}

class OptimizeProcessTest : public ::testing::Test {
 protected:
  std::string Local() const { return dir_.path() + "/local"; }
  std::string Remote() const { return dir_.path() + "/remote"; }
  void CopyTable() { std::filesystem::copy(Local(), Remote(), std::filesystem::copy_options::recursive); }

  // OPTIMIZE on both copies, in process and out of process; every comparison of the
  // acceptance. Returns the out-of-process result.
  OptimizeResult RunBoth(OptimizeSpec spec) {
    CopyTable();
    const std::vector<std::string> rows = Rows(fs_.get(), Local());
    spec.threads = 2;
    auto local = Optimize(fs_.get(), Local(), spec);
    EXPECT_TRUE(local.ok()) << local.status().ToString();
    spec.runner = BinRunnerKind::kProcess;
    spec.runner_program = LITHIFY_BIN;
    auto remote = Optimize(fs_.get(), Remote(), spec);
    EXPECT_TRUE(remote.ok()) << remote.status().ToString();
    if (!local.ok() || !remote.ok()) return {};
    EXPECT_GT(remote->metrics.num_files_added, 0);
    EXPECT_EQ(remote->plan, local->plan);
    EXPECT_EQ(remote->read_version, local->read_version);
    EXPECT_EQ(remote->versions, local->versions);
    EXPECT_EQ(MetricsWithoutTimes(remote->metrics), MetricsWithoutTimes(local->metrics));
    EXPECT_TRUE(remote->abandoned.empty());
    // Rows: unchanged by either run, so equal.
    EXPECT_EQ(Rows(fs_.get(), Remote()), rows);
    EXPECT_EQ(Rows(fs_.get(), Local()), rows);
    EXPECT_EQ(AddedFiles(fs_.get(), Remote(), remote->read_version),
              AddedFiles(fs_.get(), Local(), local->read_version));
    for (int64_t v : remote->versions) {
      EXPECT_EQ(CommitOperation(Remote(), v), CommitOperation(Local(), v)) << "version " << v;
    }
    EXPECT_TRUE(delta_write::ValidateDeltaTable(fs_.get(), Remote()).ok());
    EXPECT_TRUE(delta_write::ValidateDeltaTable(fs_.get(), Local()).ok());
    return std::move(*remote);
  }

  TempDir dir_{"optimize-process"};
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
};

TEST_F(OptimizeProcessTest, SeveralBinsAndBatches) {
  MakeTable(fs_.get(), Local(), {}, false);
  for (int i = 0; i < 8; ++i) Append(fs_.get(), Local(), i * 50, 50, "x");
  OptimizeSpec spec;
  // Two or three files per bin, a commit per bin or two.
  auto snap = delta::Snapshot::Load(fs_.get(), Local());
  ASSERT_TRUE(snap.ok());
  const int64_t file_size = (*snap)->files()[0].size;
  spec.target_file_size = file_size * 5 / 2;
  spec.min_file_size = file_size * 2;
  spec.batch_size = file_size * 4;
  const OptimizeResult r = RunBoth(spec);
  EXPECT_GE(r.plan.bins.size(), 3u);
  EXPECT_GE(r.versions.size(), 2u);
}

TEST_F(OptimizeProcessTest, PartitionedTable) {
  MakeTable(fs_.get(), Local(), {"part"}, false);
  for (const char* p : {"a", "b", "c"}) {
    for (int i = 0; i < 3; ++i) Append(fs_.get(), Local(), i * 100 + p[0] * 1000, 40, p);
  }
  const OptimizeResult r = RunBoth(OptimizeSpec{});
  EXPECT_EQ(r.plan.bins.size(), 3u);
  EXPECT_EQ(r.metrics.partitions_optimized, 3);
}

// Deletion vectors, through the column-at-a-time path (DVs as its row filter) and the
// streamed path.
TEST_F(OptimizeProcessTest, DeletionVectorsBothPaths) {
  for (bool columnar : {true, false}) {
    SCOPED_TRACE(columnar ? "columnar" : "streamed");
    std::filesystem::remove_all(Local());
    std::filesystem::remove_all(Remote());
    MakeTable(fs_.get(), Local(), {"part"}, true);
    for (int i = 0; i < 4; ++i) Append(fs_.get(), Local(), i * 30, 30, i % 2 ? "a" : "b");
    DeleteWhere(fs_.get(), Local(), "id IN (0, 3, 31, 32, 64, 95, 96, 97)");
    OptimizeSpec spec;
    spec.columnar_rewrite = columnar;
    const OptimizeResult r = RunBoth(spec);
    ASSERT_TRUE(r.metrics.num_deletion_vectors_removed.has_value());
    EXPECT_EQ(*r.metrics.num_deletion_vectors_removed, 4);
    EXPECT_EQ(r.metrics.num_bins_rewritten_columnar, columnar ? 2 : 0);
  }
}

// REORG ... APPLY (PURGE) bins run out of process too.
TEST_F(OptimizeProcessTest, ReorgPurge) {
  MakeTable(fs_.get(), Local(), {}, true);
  Append(fs_.get(), Local(), 0, 40, "x");
  Append(fs_.get(), Local(), 40, 40, "x");
  DeleteWhere(fs_.get(), Local(), "id = 5 OR id = 45");
  OptimizeSpec spec;
  spec.reorg_purge = true;
  const OptimizeResult r = RunBoth(spec);
  EXPECT_EQ(r.metrics.num_files_removed, 2);
}

// A failing bin: the child exits non-zero with a JSON error naming the problem, nothing
// is committed and the child leaves no output file.
TEST_F(OptimizeProcessTest, FailingChildCommitsNothing) {
  MakeTable(fs_.get(), Local(), {}, false);
  for (int i = 0; i < 3; ++i) Append(fs_.get(), Local(), i * 10, 10, "x");
  OptimizeSpec dry;
  dry.dry_run = true;
  auto plan = Optimize(fs_.get(), Local(), dry);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->plan.bins.size(), 1u);
  const std::string plan_file = dir_.path() + "/plan.json";
  std::ofstream(plan_file) << planner::PlanToJson(plan->plan).dump();
  auto count_files = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(Local())) n += e.path().extension() == ".parquet";
    return n;
  };
  const int files = count_files();
  // Version 1 holds one of the three inputs only: the plan is not of that version.
  auto child = exec::RunChild({LITHIFY_BIN, "--json", "internal", "run-bin", Local(), "--plan", plan_file, "--bin",
                               "0", "--at-version", "1"});
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(child->exit_code, 1);
  nlohmann::json err = nlohmann::json::parse(child->out, nullptr, false);
  ASSERT_TRUE(err.contains("error")) << child->out;
  EXPECT_NE(err["error"]["message"].get<std::string>().find("is not a live file of version 1"), std::string::npos)
      << child->out;
  // A bin that is not in the plan.
  child = exec::RunChild({LITHIFY_BIN, "--json", "internal", "run-bin", Local(), "--plan", plan_file, "--bin", "7",
                          "--at-version", "3"});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(child->exit_code, 1);
  EXPECT_NE(child->out.find("bin 7 is not in the plan"), std::string::npos) << child->out;
  EXPECT_EQ(count_files(), files);
  auto snap = delta::Snapshot::Load(fs_.get(), Local());
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 3);

  // The same bin at the right version: written, reported, not committed.
  child = exec::RunChild({LITHIFY_BIN, "--json", "internal", "run-bin", Local(), "--plan", plan_file, "--bin", "0",
                          "--at-version", "3"});
  ASSERT_TRUE(child.ok());
  ASSERT_EQ(child->exit_code, 0) << child->out;
  auto result = exec::BinResultFromJson(nlohmann::json::parse(child->out));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->inputs, plan->plan.bins[0].files);
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].num_records, 30);
  EXPECT_TRUE(std::filesystem::exists(Local() + "/" + result->outputs[0].path));
  snap = delta::Snapshot::Load(fs_.get(), Local());
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 3);
}

// The process runner refuses clustering plans before writing anything.
TEST_F(OptimizeProcessTest, ZOrderIsRefusedOutOfProcess) {
  MakeTable(fs_.get(), Local(), {}, false);
  for (int i = 0; i < 2; ++i) Append(fs_.get(), Local(), i * 10, 10, "x");
  OptimizeSpec spec;
  spec.zorder_by = {"id", "score"};
  spec.runner = BinRunnerKind::kProcess;
  spec.runner_program = LITHIFY_BIN;
  auto r = Optimize(fs_.get(), Local(), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  auto snap = delta::Snapshot::Load(fs_.get(), Local());
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 2);
}

}  // namespace
}  // namespace lithify::commands
