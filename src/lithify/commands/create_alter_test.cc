// End-to-end tests for commands/create_alter.h on a real temp directory: create, then
// Snapshot::Load / DescribeDetail / DescribeHistory see what was committed; alter
// commits one version per statement; bad requests commit nothing. The last test runs
// the built `lithify` binary when it exists (create/alter/describe and exit codes).
#include "lithify/base/temp_dir.h"
#include "lithify/commands/create_alter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lithify/delta/describe.h"
#include "lithify_test_paths.h"

namespace lithify::commands {
namespace {

using delta::DescribeDetail;
using delta::DescribeHistory;

std::vector<std::string> V(std::initializer_list<std::string> l) { return l; }

class CreateAlterTest : public ::testing::Test {
 protected:
  std::shared_ptr<const delta::Snapshot> Load() {
    auto s = delta::Snapshot::Load(fs_.get(), root_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }
  delta::NewTableSpec Spec(std::string_view ddl) {
    delta::NewTableSpec s;
    auto schema = delta::ParseSchemaDdl(ddl);
    EXPECT_TRUE(schema.ok()) << schema.status().ToString();
    if (schema.ok()) s.schema = *schema;
    return s;
  }
  nlohmann::json CommitInfo(const delta::Snapshot& s) {
    EXPECT_TRUE(s.commit_info().has_value());
    return s.commit_info() ? nlohmann::json::parse(s.commit_info()->json) : nlohmann::json();
  }
  TempDir dir_;
  std::string root_ = dir_.path() + "/table";
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
};

TEST_F(CreateAlterTest, CreateThenLoadShowsEverything) {
  delta::NewTableSpec spec = Spec("id long NOT NULL, ts timestamp, p string COMMENT 'part'");
  spec.partition_columns = {"p"};
  spec.properties = {{"delta.appendOnly", "true"}, {"owner", "me"}};
  spec.description = "a table";
  auto r = CreateTable(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 0);

  auto snap = Load();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->version(), 0);
  EXPECT_TRUE(delta::SameType(snap->schema(), spec.schema));
  EXPECT_EQ(snap->partition_columns(), V({"p"}));
  EXPECT_EQ(snap->properties(), (std::map<std::string, std::string>{{"delta.appendOnly", "true"}, {"owner", "me"}}));
  EXPECT_EQ(snap->protocol(), (delta::Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(snap->metadata().description, "a table");
  EXPECT_TRUE(snap->files().empty());
  nlohmann::json ci = CommitInfo(*snap);
  EXPECT_EQ(ci["operation"], "CREATE TABLE");
  EXPECT_EQ(ci["operationParameters"]["partitionBy"], "[\"p\"]");
  EXPECT_EQ(ci["operationParameters"]["isManaged"], "false");
  EXPECT_EQ(ci["operationParameters"]["description"], "a table");

  auto again = CreateTable(fs_.get(), root_, spec);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsAlreadyExists());
  EXPECT_EQ(again.status().message(), "a Delta table already exists at " + root_);
}

TEST_F(CreateAlterTest, CreateClusteredWithFeatures) {
  delta::NewTableSpec spec = Spec("a int, b string, s struct<x: long>");
  spec.clustering_columns = {"a", "s.x"};
  spec.properties = {{"delta.enableDeletionVectors", "true"}, {"delta.enableRowTracking", "true"}};
  auto r = CreateTable(fs_.get(), root_, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto snap = Load();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->protocol(), (delta::Protocol{3, 7, V({"deletionVectors"}),
                                               V({"clustering", "deletionVectors", "domainMetadata", "rowTracking"})}));
  ASSERT_TRUE(snap->domain_metadata().count("delta.clustering"));
  EXPECT_EQ(snap->domain_metadata().at("delta.clustering").configuration,
            R"({"clusteringColumns":[["a"],["s","x"]]})");
  EXPECT_EQ(CommitInfo(*snap)["operationParameters"]["clusterBy"], R"(["a","s.x"])");

  auto detail = DescribeDetail(fs_.get(), root_);
  ASSERT_TRUE(detail.ok()) << detail.status().ToString();
  EXPECT_EQ(detail->clustering_columns, V({"a", "s.x"}));
  EXPECT_EQ(detail->min_reader_version, 3);
  EXPECT_EQ(detail->min_writer_version, 7);
}

TEST_F(CreateAlterTest, CreateRefusesBadSpecsWithoutWriting) {
  delta::NewTableSpec spec = Spec("a int, b int");
  spec.partition_columns = {"a"};
  spec.clustering_columns = {"b"};
  auto r = CreateTable(fs_.get(), root_, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("DELTA_CLUSTER_BY_WITH_PARTITIONED_BY"), std::string::npos);
  auto listing = fs_->ListRecursive(root_);
  ASSERT_TRUE(listing.ok());
  EXPECT_TRUE(listing->empty());
}

TEST_F(CreateAlterTest, AlterSetUnsetClusterByAndNone) {
  ASSERT_TRUE(CreateTable(fs_.get(), root_, Spec("a int, b string")).ok());

  delta::AlterSpec set;
  set.set_properties = {{"delta.enableDeletionVectors", "true"}, {"k", "v"}};
  auto r = AlterTable(fs_.get(), root_, set);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 1);
  auto snap = Load();
  EXPECT_EQ(snap->properties().at("k"), "v");
  EXPECT_EQ(snap->protocol(), (delta::Protocol{3, 7, V({"deletionVectors"}),
                                               V({"appendOnly", "deletionVectors", "invariants"})}));
  EXPECT_EQ(CommitInfo(*snap)["operation"], "SET TBLPROPERTIES");

  delta::AlterSpec unset;
  unset.unset_properties = {"k"};
  r = AlterTable(fs_.get(), root_, unset);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  snap = Load();
  EXPECT_EQ(snap->version(), 2);
  EXPECT_FALSE(snap->properties().count("k"));
  EXPECT_EQ(CommitInfo(*snap)["operationParameters"]["properties"], "[\"k\"]");

  auto missing = AlterTable(fs_.get(), root_, unset);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("DELTA_UNSET_NON_EXISTENT_PROPERTY"), std::string::npos);

  delta::AlterSpec cluster;
  cluster.clustering_columns = V({"b"});
  r = AlterTable(fs_.get(), root_, cluster);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  snap = Load();
  EXPECT_EQ(snap->version(), 3);
  EXPECT_EQ(snap->domain_metadata().at("delta.clustering").configuration, R"({"clusteringColumns":[["b"]]})");
  EXPECT_TRUE(snap->protocol().HasWriterFeature("clustering"));
  EXPECT_TRUE(snap->protocol().HasWriterFeature("domainMetadata"));
  EXPECT_EQ(CommitInfo(*snap)["operation"], "CLUSTER BY");

  delta::AlterSpec none;
  none.clustering_columns = std::vector<std::string>{};
  r = AlterTable(fs_.get(), root_, none);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  snap = Load();
  EXPECT_EQ(snap->domain_metadata().at("delta.clustering").configuration, R"({"clusteringColumns":[]})");
  nlohmann::json ci = CommitInfo(*snap);
  EXPECT_EQ(ci["operationParameters"]["oldClusteringColumns"], "[\"b\"]");
  EXPECT_EQ(ci["operationParameters"]["newClusteringColumns"], "[]");
  auto detail = DescribeDetail(fs_.get(), root_);
  ASSERT_TRUE(detail.ok());
  EXPECT_TRUE(detail->clustering_columns.empty());
}

TEST_F(CreateAlterTest, CombinedAlterCommitsEachStatementAndValidatesFirst) {
  delta::NewTableSpec spec = Spec("a int, b string");
  spec.properties = {{"old", "1"}};
  ASSERT_TRUE(CreateTable(fs_.get(), root_, spec).ok());

  delta::AlterSpec bad;
  bad.set_properties = {{"new", "2"}};
  bad.clustering_columns = V({"nope"});
  ASSERT_FALSE(AlterTable(fs_.get(), root_, bad).ok());
  EXPECT_EQ(Load()->version(), 0);  // nothing committed

  delta::AlterSpec all;
  all.set_properties = {{"new", "2"}};
  all.unset_properties = {"old"};
  all.clustering_columns = V({"a"});
  auto r = AlterTable(fs_.get(), root_, all);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 3);
  auto history = DescribeHistory(fs_.get(), root_);
  ASSERT_TRUE(history.ok());
  std::vector<std::string> ops;
  for (const auto& h : *history) ops.push_back(nlohmann::json::parse(*h.commit_info)["operation"]);
  EXPECT_EQ(ops, V({"CLUSTER BY", "UNSET TBLPROPERTIES", "SET TBLPROPERTIES", "CREATE TABLE"}));
  auto snap = Load();
  EXPECT_EQ(snap->properties(), (std::map<std::string, std::string>{{"new", "2"}}));
}

TEST_F(CreateAlterTest, InCommitTimestampsAtCreateAndByAlter) {
  delta::NewTableSpec spec = Spec("a int");
  spec.properties = {{"delta.enableInCommitTimestamps", "true"}};
  ASSERT_TRUE(CreateTable(fs_.get(), root_, spec).ok());
  auto snap = Load();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->protocol(), (delta::Protocol{1, 7, std::nullopt, V({"inCommitTimestamp"})}));
  ASSERT_TRUE(snap->commit_info()->in_commit_timestamp.has_value());
  EXPECT_EQ(snap->timestamp_ms(), *snap->commit_info()->in_commit_timestamp);

  // Enabled later: the enablement version/timestamp name the enabling commit.
  TempDir other;
  std::string root2 = other.path() + "/t";
  ASSERT_TRUE(CreateTable(fs_.get(), root2, Spec("a int")).ok());
  delta::AlterSpec ict;
  ict.set_properties = {{"delta.enableInCommitTimestamps", "true"}};
  auto r = AlterTable(fs_.get(), root2, ict);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto s2 = delta::Snapshot::Load(fs_.get(), root2);
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  EXPECT_EQ((*s2)->properties().at("delta.inCommitTimestampEnablementVersion"), "1");
  ASSERT_TRUE((*s2)->commit_info()->in_commit_timestamp.has_value());
  EXPECT_EQ((*s2)->properties().at("delta.inCommitTimestampEnablementTimestamp"),
            std::to_string(*(*s2)->commit_info()->in_commit_timestamp));
}

// Issue 14 defect 1: a folder that already holds files never becomes a table (a later
// VACUUM would delete them as untracked); nothing is written there.
TEST_F(CreateAlterTest, CreateRefusesNonEmptyLocation) {
  for (const char* rel : {"Documents/thesis.docx", "notes.txt", "empty-subdir/", "_delta_log/_last_checkpoint",
                          "_delta_log/00000000000000000000.crc"}) {
    std::filesystem::remove_all(root_);
    const std::string path = root_ + "/" + rel;
    if (path.back() == '/') {
      std::filesystem::create_directories(path);
    } else {
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      std::ofstream(path) << "mine";
    }
    auto r = CreateTable(fs_.get(), root_, Spec("id long"));
    ASSERT_FALSE(r.ok()) << rel;
    EXPECT_TRUE(r.status().IsAlreadyExists()) << r.status().ToString();
    EXPECT_EQ(r.status().message().rfind("DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION", 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find(root_), std::string::npos) << r.status().message();
    EXPECT_FALSE(std::filesystem::exists(root_ + "/_delta_log/00000000000000000000.json")) << rel;
  }
  // The user's file is untouched.
  std::filesystem::remove_all(root_);
  std::filesystem::create_directories(root_ + "/Documents");
  std::ofstream(root_ + "/Documents/thesis.docx") << "chapter 1";
  ASSERT_FALSE(CreateTable(fs_.get(), root_, Spec("id long")).ok());
  std::ifstream in(root_ + "/Documents/thesis.docx");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "chapter 1");
}

// What a create killed before its commit leaves -- an empty _delta_log, perhaps holding
// the commit's temporary (hidden from listings) -- is not in the way; an empty
// directory is a new location.
TEST_F(CreateAlterTest, CreateAcceptsEmptyDirAndKilledCreateLeftovers) {
  std::filesystem::create_directories(root_);
  ASSERT_TRUE(CreateTable(fs_.get(), root_, Spec("id long")).ok());
  const std::string other = dir_.path() + "/killed";
  std::filesystem::create_directories(other + "/_delta_log");
  std::ofstream(other + "/_delta_log/.00000000000000000000.json.tmp-0123456789abcdef") << "{\"commitInfo\"";
  auto r = CreateTable(fs_.get(), other, Spec("id long"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 0);
  // Once committed, a second create is refused as an existing table.
  auto again = CreateTable(fs_.get(), other, Spec("id long"));
  EXPECT_TRUE(again.status().IsAlreadyExists());
  EXPECT_NE(again.status().message().find("a Delta table already exists"), std::string::npos)
      << again.status().message();
}

TEST_F(CreateAlterTest, AlterMissingTableIsNotFound) {
  delta::AlterSpec set;
  set.set_properties = {{"k", "v"}};
  EXPECT_TRUE(AlterTable(fs_.get(), root_, set).status().IsNotFound());
  EXPECT_TRUE(AlterTable(fs_.get(), root_, delta::AlterSpec{}).status().IsInvalidArgument());
}

// ---- the CLI ----

struct CliRun {
  int code = -1;
  std::string out;
};

CliRun RunCli(const std::string& args) {
  std::string bin = std::string(LITHIFY_BINARY_DIR) + "/tools/cli/lithify";
  std::string cmd = bin + " " + args + " 2>/dev/null";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST_F(CreateAlterTest, CommandLine) {
  if (!std::filesystem::exists(std::string(LITHIFY_BINARY_DIR) + "/tools/cli/lithify")) {
    GTEST_SKIP() << "the lithify binary is not built";
  }
  const std::string t = "'" + root_ + "'";
  CliRun c = RunCli("--json create " + t +
                 " --schema 'id long NOT NULL, ts timestamp, v double' --cluster-by id,ts "
                 "--property delta.enableDeletionVectors=true --property owner=me");
  ASSERT_EQ(c.code, 0) << c.out;
  nlohmann::json j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << c.out;
  EXPECT_EQ(j["version"], 0);
  EXPECT_EQ(j["minReaderVersion"], 3);
  EXPECT_EQ(j["minWriterVersion"], 7);
  EXPECT_EQ(j["clusteringColumns"], nlohmann::json({"id", "ts"}));

  EXPECT_EQ(RunCli("create " + t + " --schema 'a int'").code, 1);               // exists
  EXPECT_EQ(RunCli("create " + t + "-x --schema 'a intt'").code, 2);            // DDL error
  EXPECT_EQ(RunCli("create " + t + "-x --schema 'a int' --property x").code, 2);  // not k=v
  EXPECT_EQ(RunCli("alter " + t).code, 2);                                      // nothing to change
  EXPECT_EQ(RunCli("create --property k=v " + t + "-y --schema 'a int' --partitioned-by a").code, 1);  // all partitions

  CliRun a = RunCli("alter " + t + " --set delta.logRetentionDuration='interval 60 days' --unset owner --cluster-by none");
  ASSERT_EQ(a.code, 0);
  EXPECT_NE(a.out.find("at version 3"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("protocol: reader 3, writer 7"), std::string::npos) << a.out;
  EXPECT_EQ(RunCli("alter " + t + " --unset owner").code, 1);
  EXPECT_EQ(RunCli("alter " + t + " --unset owner --if-exists").code, 0);

  CliRun d = RunCli("--json describe detail " + t);
  ASSERT_EQ(d.code, 0);
  nlohmann::json dj = nlohmann::json::parse(d.out, nullptr, false);
  ASSERT_TRUE(dj.is_object()) << d.out;
  EXPECT_EQ(dj["properties"]["delta.logRetentionDuration"], "interval 60 days");
  EXPECT_TRUE(dj["clusteringColumns"].empty());
  EXPECT_NE(std::find(dj["tableFeatures"].begin(), dj["tableFeatures"].end(), "clustering"),
            dj["tableFeatures"].end());
}

}  // namespace
}  // namespace lithify::commands
