// Tests of a bin's result as a value (JSON round trip, exact integers and stats text) and
// of ProcessBinRunner with real child processes (/bin/sh scripts standing in for
// `lithify internal run-bin`; the end-to-end test is commands/optimize_process_test.cc).
#include "lithify/exec/bin_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace lithify::exec {
namespace {

BinResult Sample() {
  BinResult r;
  r.bin_id = 3;
  r.inputs = {{"p=a/x.parquet", "", 1000, 10, 0}, {"p=a/y%20z.parquet", "uvw:12", 2000, std::nullopt, 7}};
  OutputFile o;
  o.path = "p=a/part-00000-new.zstd.parquet";
  o.size = 2500;
  o.num_records = 3;
  o.partition_values = {{"p", "a"}, {"q", std::nullopt}};
  o.modification_time = 1767225600123;
  // Numbers a double would change: stats must come back byte for byte.
  o.stats = R"({"numRecords":3,"minValues":{"d":0.1000000000000000055511151231257827,"i":9007199254740993},)"
            R"("maxValues":{"d":1e400,"i":9223372036854775807},"nullCount":{"d":0,"i":0}})";
  o.tags = {{"ZCUBE_ID", "c-1"}, {"ZCUBE_ZORDER_BY", "[\"a\"]"}};
  o.base_row_id = INT64_MAX;
  o.default_row_commit_version = 0;
  o.row_groups_copied = 2;
  o.pages_copied = 5;
  r.outputs = {o};
  r.files_read = 2;
  r.bytes_read = 3000;
  r.rows_written = 3;
  r.bytes_written = 2500;
  r.rewritten_whole = true;
  return r;
}

void ExpectSame(const BinResult& a, const BinResult& b) {
  EXPECT_EQ(a.bin_id, b.bin_id);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.files_read, b.files_read);
  EXPECT_EQ(a.bytes_read, b.bytes_read);
  EXPECT_EQ(a.rows_written, b.rows_written);
  EXPECT_EQ(a.bytes_written, b.bytes_written);
  EXPECT_EQ(a.rewritten_whole, b.rewritten_whole);
}

TEST(BinResultJson, RoundTripsExactly) {
  const BinResult r = Sample();
  // Through text, as between processes.
  const std::string text = BinResultToJson(r).dump();
  Result<BinResult> back = BinResultFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(r, *back);
  EXPECT_TRUE(back->status.ok());
  EXPECT_EQ(BinResultToJson(*back).dump(), text);
}

TEST(BinResultJson, EmptyBinRoundTrips) {
  BinResult r;
  r.bin_id = 0;
  Result<BinResult> back = BinResultFromJson(BinResultToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(r, *back);
}

TEST(BinResultJson, NamesTheBadMember) {
  nlohmann::json j = BinResultToJson(Sample());
  j["outputs"][0].erase("size");
  Result<BinResult> r = BinResultFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outputs[0].size"), std::string::npos) << r.status().ToString();

  j = BinResultToJson(Sample());
  j["outputs"][0]["stats"] = 5;  // stats must stay text
  r = BinResultFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stats"), std::string::npos);

  j = BinResultToJson(Sample());
  j["inputs"][1]["size"] = 1.5;
  r = BinResultFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("inputs[1].size"), std::string::npos);

  EXPECT_FALSE(BinResultFromJson(nlohmann::json::array()).ok());
}

planner::Plan TwoBins() {
  planner::Plan p;
  for (int b = 0; b < 2; ++b) {
    planner::Bin bin;
    bin.id = b;
    bin.files = {{"f" + std::to_string(b) + ".parquet", "", 100, 1, 0}};
    bin.total_bytes = 100;
    p.bins.push_back(bin);
  }
  p.batches = {{{0, 1}}};
  return p;
}

class ProcessRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("bin_runner_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Put(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

// The child is `sh -c SCRIPT sh --plan FILE --bin N`: $2 is the plan file, $4 the bin.
TEST_F(ProcessRunnerTest, CollectsEachChildsResult) {
  const planner::Plan plan = TwoBins();
  for (int b = 0; b < 2; ++b) {
    BinResult r;
    r.bin_id = b;
    r.inputs = plan.bins[b].files;
    r.outputs = {OutputFile{"out" + std::to_string(b), 10 + b, 1}};
    r.rows_written = 1;
    Put("r" + std::to_string(b), BinResultToJson(r).dump());
  }
  // Proves the plan file is readable JSON of the plan while the child runs.
  const std::string script = "grep -q '\"bins\"' \"$2\" && cat '" + dir_.string() + "/r'\"$4\"";
  ProcessBinRunner runner("/bin/sh", {"-c", script, "sh"});
  ExecOptions eo;
  eo.threads = 2;
  Result<std::vector<BinResult>> rs = runner.Run(plan, {1, 0}, eo);
  ASSERT_TRUE(rs.ok()) << rs.status().ToString();
  ASSERT_EQ(rs->size(), 2u);
  EXPECT_EQ((*rs)[0].bin_id, 1);
  ASSERT_TRUE((*rs)[0].status.ok()) << (*rs)[0].status.ToString();
  EXPECT_EQ((*rs)[0].outputs[0].path, "out1");
  EXPECT_EQ((*rs)[1].outputs[0].size, 10);
}

TEST_F(ProcessRunnerTest, ChildErrorBecomesTheBinsError) {
  ProcessBinRunner runner("/bin/sh", {"-c", "echo '{\"error\":{\"message\":\"t: boom\"}}'; exit 1", "sh"});
  Result<std::vector<BinResult>> rs = runner.Run(TwoBins(), {0}, ExecOptions{});
  ASSERT_TRUE(rs.ok());
  ASSERT_FALSE((*rs)[0].status.ok());
  EXPECT_NE((*rs)[0].status.message().find("t: boom"), std::string::npos) << (*rs)[0].status.ToString();
}

TEST_F(ProcessRunnerTest, ResultOfAnotherBinIsRefused) {
  const planner::Plan plan = TwoBins();
  BinResult r;
  r.bin_id = 1;
  r.inputs = plan.bins[1].files;
  Put("r", BinResultToJson(r).dump());
  ProcessBinRunner runner("/bin/sh", {"-c", "cat '" + dir_.string() + "/r'", "sh"});
  Result<std::vector<BinResult>> rs = runner.Run(plan, {0}, ExecOptions{});
  ASSERT_TRUE(rs.ok());
  EXPECT_EQ((*rs)[0].status.code(), StatusCode::kInternal) << (*rs)[0].status.ToString();
}

TEST_F(ProcessRunnerTest, MissingProgramIsAnError) {
  ProcessBinRunner runner((dir_ / "no-such-program").string(), {});
  Result<std::vector<BinResult>> rs = runner.Run(TwoBins(), {0}, ExecOptions{});
  ASSERT_TRUE(rs.ok());
  ASSERT_FALSE((*rs)[0].status.ok());
  EXPECT_NE((*rs)[0].status.message().find("no-such-program"), std::string::npos);
}

}  // namespace
}  // namespace lithify::exec
