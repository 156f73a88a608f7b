// The server's handlers without sockets: every endpoint's answers on a real corpus table
// (read-only: describe, files and the OPTIMIZE dry run write nothing), and validation of
// malformed, out-of-range and unknown input (400 / 404 / 405 / 413, never a crash).
#include "lithify/server/server.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "lithify/io/filesystem.h"
#include "lithify_test_paths.h"

namespace lithify::server {
namespace {

std::string Golden(const std::string& name) {
  return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/delta-kernel-rs/kernel/tests/golden_data/" + name +
         "/delta";
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = io::NewLocalFileSystem();
    config_.fs = fs_.get();
    config_.tables = {table_};
    config_.max_body_bytes = 4096;
  }

  ApiResponse Get(const std::string& path, std::multimap<std::string, std::string> params = {}) {
    ApiRequest r;
    r.path = path;
    r.params = std::move(params);
    return HandleApi(config_, r);
  }

  // Asserts an error status and that the message mentions `needle`.
  void ExpectError(const ApiResponse& r, int status, const std::string& needle) {
    EXPECT_EQ(r.status, status) << r.body.dump();
    ASSERT_TRUE(r.body.contains("error")) << r.body.dump();
    EXPECT_EQ(r.body["error"]["status"], status);
    std::string msg = r.body["error"]["message"].get<std::string>();
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }

  std::string table_ = Golden("dv-partitioned-with-checkpoint");
  std::unique_ptr<io::FileSystem> fs_;
  ServerConfig config_;
};

TEST_F(ServerTest, TablesListsOnlyTheGivenTables) {
  ApiResponse r = Get("/api/tables");
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.body["tables"].size(), 1u);
  EXPECT_EQ(r.body["tables"][0], table_);
  EXPECT_EQ(r.body["simulator"], HasSimulator());
}

TEST_F(ServerTest, DescribeReturnsDetailAndHistory) {
  ApiResponse r = Get("/api/describe", {{"table", table_}, {"limit", "2"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["detail"]["format"], "delta");
  EXPECT_GT(r.body["detail"]["numFiles"].get<int64_t>(), 0);
  EXPECT_EQ(r.body["detail"]["partitionColumns"].size(), 1u);
  ASSERT_EQ(r.body["history"].size(), 2u);
  EXPECT_GT(r.body["history"][0]["version"].get<int64_t>(), r.body["history"][1]["version"].get<int64_t>());
}

TEST_F(ServerTest, FilesAggregatesAgreeWithTheListing) {
  ApiResponse r = Get("/api/files", {{"table", table_}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  int64_t n = r.body["numFiles"];
  ASSERT_GT(n, 0);
  int64_t per_part = 0, per_size = 0, bytes = 0;
  for (const auto& p : r.body["partitions"]) per_part += p["files"].get<int64_t>();
  for (const auto& b : r.body["sizeHistogram"]) {
    per_size += b["files"].get<int64_t>();
    EXPECT_LT(b["lo"].get<int64_t>(), b["hi"].get<int64_t>());
  }
  for (const auto& f : r.body["files"]) bytes += f["size"].get<int64_t>();
  EXPECT_EQ(per_part, n);
  EXPECT_EQ(per_size, n);
  EXPECT_EQ(r.body["files"].size(), static_cast<size_t>(n));  // under the default limit
  EXPECT_EQ(bytes, r.body["sizeInBytes"].get<int64_t>());

  ApiResponse limited = Get("/api/files", {{"table", table_}, {"limit", "1"}});
  ASSERT_EQ(limited.status, 200);
  EXPECT_EQ(limited.body["files"].size(), 1u);
  EXPECT_EQ(limited.body["numFiles"], n);
}

// An Iceberg table through the same endpoints (the format's own documents; the panel's
// files view in its own terms). The corpus table records paths relative to
// corpus/duckdb-iceberg ("data/persistent/..."), and the server has no location map, so
// the test runs from that folder and names the table by its relative path.
TEST(ServerIcebergTest, DescribeAndFilesOfAnIcebergTable) {
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/duckdb-iceberg");
  auto fs = io::NewLocalFileSystem();
  ServerConfig config;
  config.fs = fs.get();
  const std::string table = "data/persistent/equality_deletes/warehouse/mydb/mytable";
  config.tables = {table};
  ApiRequest describe;
  describe.path = "/api/describe";
  describe.params = {{"table", table}};
  ApiResponse d = HandleApi(config, describe);
  ApiRequest files;
  files.path = "/api/files";
  files.params = {{"table", table}};
  ApiResponse f = HandleApi(config, files);
  std::filesystem::current_path(cwd);

  ASSERT_EQ(d.status, 200) << d.body.dump();
  EXPECT_EQ(d.body["detail"]["format"], "iceberg");
  EXPECT_TRUE(d.body["detail"].contains("current-snapshot-id"));
  ASSERT_FALSE(d.body["history"].empty());
  EXPECT_TRUE(d.body["history"][0].contains("snapshot-id"));
  ASSERT_EQ(f.status, 200) << f.body.dump();
  EXPECT_EQ(f.body["version"], d.body["detail"]["current-snapshot-id"]);
  const int64_t n = f.body["numFiles"];
  ASSERT_GT(n, 0);
  ASSERT_EQ(f.body["files"].size(), static_cast<size_t>(n));
  int64_t bytes = 0, deleted = 0;
  for (const auto& x : f.body["files"]) {
    EXPECT_NE(x["path"].get<std::string>().find(".parquet"), std::string::npos) << x.dump();
    bytes += x["size"].get<int64_t>();
    deleted += x["deletedRows"].get<int64_t>();
  }
  EXPECT_EQ(bytes, f.body["sizeInBytes"].get<int64_t>());
  EXPECT_GT(deleted, 0);  // its equality deletes count against the files they apply to
}

TEST_F(ServerTest, OptimizeDryRunPlansWithTheGivenTarget) {
  ApiResponse r = Get("/api/optimize", {{"table", table_}, {"target_file_size", "1mb"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["dryRun"], true);
  EXPECT_EQ(r.body["targetFileSize"], 1 << 20);
  EXPECT_FALSE(r.body["decisionLogText"].empty());
  EXPECT_FALSE(r.body["summary"].empty());
  int64_t kept = 0;
  for (const auto& b : r.body["bins"]) kept += b["kept"].get<bool>() ? 1 : 0;
  EXPECT_EQ(kept, r.body["binsPlanned"].get<int64_t>());

  // The dry run wrote nothing: the table's version is unchanged.
  ApiResponse d = Get("/api/describe", {{"table", table_}, {"limit", "1"}});
  EXPECT_EQ(d.body["detail"]["version"], r.body["readVersion"]);
}

TEST_F(ServerTest, UnknownTableIs404AndNeverOpened) {
  ExpectError(Get("/api/describe", {{"table", "/etc"}}), 404, "not served");
  ExpectError(Get("/api/files", {{"table", table_ + "/.."}}), 404, "not served");
  ExpectError(Get("/api/describe"), 400, "'table' is required");
  ExpectError(Get("/api/nope"), 404, "no endpoint");
}

TEST_F(ServerTest, MalformedAndOutOfRangeParametersAre400) {
  ExpectError(Get("/api/describe", {{"table", table_}, {"limit", "abc"}}), 400, "not an integer");
  ExpectError(Get("/api/describe", {{"table", table_}, {"limit", "5x"}}), 400, "not an integer");
  ExpectError(Get("/api/describe", {{"table", table_}, {"limit", "0"}}), 400, "out of range");
  ExpectError(Get("/api/describe", {{"table", table_}, {"limit", "99999999999999999999999"}}), 400, "limit");
  ExpectError(Get("/api/files", {{"table", table_}, {"limit", "-1"}}), 400, "out of range");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"target_file_size", "lots"}}), 400, "target_file_size");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"target_file_size", "10"}}), 400, "out of range");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"target_file_size", "5tb"}}), 400, "out of range");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"max_deleted_rows_ratio", "nan"}}), 400, "finite");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"max_deleted_rows_ratio", "1.5"}}), 400, "out of range");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"reorg", "yes"}}), 400, "boolean");
  ExpectError(Get("/api/optimize", {{"table", table_}, {"where", "value >"}}), 400, "predicate");
  ExpectError(Get("/api/describe", {{"table", table_}, {"limt", "3"}}), 400, "unknown parameter 'limt'");
  ExpectError(Get("/api/describe", {{"table", table_}, {"limit", "1"}, {"limit", "2"}}), 400, "more than once");
}

TEST_F(ServerTest, WrongMethodIs405) {
  ApiRequest r;
  r.method = "POST";
  r.path = "/api/describe";
  ExpectError(HandleApi(config_, r), 405, "takes GET");
  r.method = "GET";
  r.path = "/api/simulate";
  ExpectError(HandleApi(config_, r), 405, "takes POST");
}

TEST_F(ServerTest, SimulateValidatesItsBody) {
  ApiRequest r;
  r.method = "POST";
  r.path = "/api/simulate";
  r.body = "{not json";
  ExpectError(HandleApi(config_, r), 400, "not valid JSON");
  r.body = "[1,2]";
  ExpectError(HandleApi(config_, r), 400, "JSON object");
  r.body = std::string(5000, ' ') + "{}";
  ExpectError(HandleApi(config_, r), 413, "exceeds the limit");
  if (!HasSimulator()) {
    r.body = "{}";
    ExpectError(HandleApi(config_, r), 503, "simulator");
    return;
  }
  r.body = R"({"days": 1000000})";
  ExpectError(HandleApi(config_, r), 400, "days");
  // Accepted by the simulator, but too much work for an interactive request.
  r.body = R"({"days": 3650, "partition_by": "5min", "batches_per_hour": 60, "files_per_batch": 50})";
  ExpectError(HandleApi(config_, r), 400, "at most");
  r.body = R"({"days": 365, "batches_per_hour": 60, "files_per_batch": 1, "maintenance": "optimize"})";
  ExpectError(HandleApi(config_, r), 400, "too much work");
  r.body = R"({"no_such_key": 1})";
  ExpectError(HandleApi(config_, r), 400, "no_such_key");
  r.body = R"({"days": 1, "partition_by": "hourly", "batches_per_hour": 4, "files_per_batch": 2,
               "mb_per_hour": 100, "maintenance": "optimize", "target_file_size_mb": 128})";
  ApiResponse ok = HandleApi(config_, r);
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_EQ(ok.body["totals"]["files_before"], 24 * 4 * 2);
  EXPECT_LT(ok.body["totals"]["files_after"].get<int64_t>(), 24 * 4 * 2);
}

TEST_F(ServerTest, DiagnoseAnswersOr503) {
  ApiResponse r = Get("/api/diagnose", {{"table", table_}});
  if (!HasDiagnose()) {
    ExpectError(r, 503, "diagnose");
    return;
  }
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_TRUE(r.body["diagnosis"]["findings"].is_array());
}

// A served table that is corrupt, or holds a property value lithify refuses, is the
// table's problem: 422 with the table's own message (not 500 "server bug", nor 400
// "your request"); a bad predicate stays the request's 400.
TEST(ServerTableErrors, CorruptOrRefusedTablesAre422WithTheTablesMessage) {
  auto fs = io::NewMemoryFileSystem();
  const std::string protocol = R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})";
  auto metadata = [](const std::string& config) {
    return R"({"metaData":{"id":"m","format":{"provider":"parquet","options":{}},"schemaString":)"
           R"("{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,)"
           R"(\"metadata\":{}}]}","partitionColumns":[],"configuration":)" + config + "}}";
  };
  ASSERT_TRUE(fs->WriteFile("/ok/_delta_log/00000000000000000000.json",
                            AsBytes(protocol + "\n" + metadata("{}") + "\n")).ok());
  ASSERT_TRUE(fs->WriteFile("/corrupt/_delta_log/00000000000000000000.json",
                            AsBytes(protocol + "\n" + metadata("{}") + "\n{\"add\": garbage\n")).ok());
  ASSERT_TRUE(fs->WriteFile("/refused/_delta_log/00000000000000000000.json",
                            AsBytes(protocol + "\n" +
                                    metadata(R"({"delta.deletedFileRetentionDuration":"interval 1000000000000 days"})") +
                                    "\n")).ok());
  ServerConfig config;
  config.fs = fs.get();
  config.tables = {"/ok", "/corrupt", "/refused"};
  auto get = [&](const std::string& path, const std::string& table, const std::string& where = "") {
    ApiRequest r;
    r.path = path;
    r.params = {{"table", table}};
    if (!where.empty()) r.params.emplace("where", where);
    return HandleApi(config, r);
  };
  for (const char* endpoint : {"/api/describe", "/api/files", "/api/optimize"}) {
    ApiResponse r = get(endpoint, "/corrupt");
    EXPECT_EQ(r.status, 422) << endpoint << ": " << r.body.dump();
    EXPECT_NE(r.body["error"]["message"].get<std::string>().find("00000000000000000000.json"), std::string::npos)
        << r.body.dump();
  }
  if (HasDiagnose()) {
    ApiResponse r = get("/api/diagnose", "/refused");
    EXPECT_EQ(r.status, 422) << r.body.dump();
    EXPECT_NE(r.body["error"]["message"].get<std::string>().find("delta.deletedFileRetentionDuration"),
              std::string::npos)
        << r.body.dump();
  }
  EXPECT_EQ(get("/api/optimize", "/ok", "a >").status, 400);
}

TEST(ServerAssets, PanelIsEmbedded) {
  const Asset* index = FindAsset("/");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_NE(index->data.find("<html"), std::string_view::npos);
  EXPECT_EQ(FindAsset("/../etc/passwd"), nullptr);
  EXPECT_EQ(FindAsset("/nope.js"), nullptr);
  bool has_js = false;
  for (std::string_view p : AssetPaths()) has_js |= p.ends_with(".js");
  EXPECT_TRUE(has_js);
}

}  // namespace
}  // namespace lithify::server
