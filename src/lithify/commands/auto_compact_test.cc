// Auto compaction after append / delete and optimized writes (commands/auto_compact.h,
// commands/append.h), on real tables in temporary directories.
#include "lithify/base/temp_dir.h"
#include "lithify/commands/auto_compact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/buffer.h"
#include "lithify/commands/append.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/stats.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {
namespace {

// A table "id long, grp string, v string", partitioned by grp, with `props`.
void Create(io::FileSystem* fs, const std::string& root, std::map<std::string, std::string> props) {
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, grp string, v string");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  spec.partition_columns = {"grp"};
  spec.properties = std::move(props);
  auto r = CreateTable(fs, root, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// A JSONL input of `n` rows from `first_id`, grp cycling over `groups`.
std::string Input(io::FileSystem* fs, const std::string& dir, int64_t first_id, int n,
                  const std::vector<std::string>& groups) {
  static int counter = 0;
  const std::string path = dir + "/in-" + std::to_string(counter++) + ".jsonl";
  std::string text;
  for (int i = 0; i < n; ++i) {
    const int64_t id = first_id + i;
    text += "{\"id\":" + std::to_string(id) + ",\"grp\":\"" + groups[static_cast<size_t>(i) % groups.size()] +
            "\",\"v\":\"value " + std::to_string(id) + "\"}\n";
  }
  EXPECT_TRUE(fs->WriteFile(path, AsBytes(text)).ok());
  return path;
}

AppendResult Append(io::FileSystem* fs, const std::string& root, std::vector<std::string> inputs,
                    AppendSpec spec = {}) {
  spec.inputs = std::move(inputs);
  spec.format = InputFormat::kJsonl;
  spec.auto_compact.threads = 2;
  auto r = AppendRows(fs, root, spec);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : AppendResult{};
}

std::vector<std::string> Rows(io::FileSystem* fs, const std::string& root,
                              delta::VersionSpec v = delta::VersionSpec::Latest()) {
  testing::Lines out;
  ScanOptions opts;
  opts.version = v;
  auto r = Scan(fs, root, opts, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

std::vector<table::FileEntry> Files(io::FileSystem* fs, const std::string& root) {
  auto s = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? (*s)->files() : std::vector<table::FileEntry>{};
}

int FilesIn(io::FileSystem* fs, const std::string& root, const std::string& grp) {
  int n = 0;
  for (const table::FileEntry& f : Files(fs, root)) {
    auto it = f.partition_values.find("grp");
    if (it != f.partition_values.end() && it->second == grp) ++n;
  }
  return n;
}

// The commitInfo of version v as JSON.
nlohmann::json CommitInfoOf(io::FileSystem* fs, const std::string& root, int64_t v) {
  const std::string name = fmt::format("_delta_log/{:020d}.json", v);
  auto bytes = fs->ReadFile(io::JoinPath(root, name));
  EXPECT_TRUE(bytes.ok()) << name;
  if (!bytes.ok()) return {};
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  auto actions = delta::ParseCommitFile(text, name);
  EXPECT_TRUE(actions.ok()) << actions.status().ToString();
  if (!actions.ok()) return {};
  for (const delta::Action& a : *actions) {
    if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) return nlohmann::json::parse(ci->json);
  }
  ADD_FAILURE() << "no commitInfo in " << name;
  return {};
}

TEST(AutoCompactEnabled, Precedence) {
  using Props = std::map<std::string, std::string>;
  EXPECT_FALSE(*AutoCompactEnabled(Props{}));
  EXPECT_TRUE(*AutoCompactEnabled(Props{{"delta.autoOptimize.autoCompact", "true"}}));
  EXPECT_TRUE(*AutoCompactEnabled(Props{{"delta.autoOptimize.autoCompact", "TRUE"}}));
  EXPECT_FALSE(*AutoCompactEnabled(Props{{"delta.autoOptimize.autoCompact", "false"}}));
  // The legacy switch wins when true; when false the specific property decides.
  EXPECT_TRUE(*AutoCompactEnabled(Props{{"delta.autoOptimize", "true"}, {"delta.autoOptimize.autoCompact", "false"}}));
  EXPECT_TRUE(*AutoCompactEnabled(Props{{"delta.autoOptimize", "false"}, {"delta.autoOptimize.autoCompact", "true"}}));
  EXPECT_FALSE(*AutoCompactEnabled(Props{{"delta.autoOptimize", "false"}}));
  auto bad = AutoCompactEnabled(Props{{"delta.autoOptimize.autoCompact", "sometimes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("DELTA_INVALID_AUTO_COMPACT_TYPE"), std::string::npos);
  EXPECT_NE(bad.status().message().find("sometimes"), std::string::npos);
}

TEST(AutoCompactPredicateText, Partitions) {
  EXPECT_EQ(AutoCompactPredicateText({}), "");
  EXPECT_EQ(AutoCompactPredicateText({{}}), "");
  EXPECT_EQ(AutoCompactPredicateText({{{"grp", "a"}}}), "grp = 'a'");
  EXPECT_EQ(AutoCompactPredicateText({{{"grp", "a"}}, {{"grp", std::nullopt}}}), "grp = 'a' OR grp IS NULL");
  EXPECT_EQ(AutoCompactPredicateText({{{"d", "x'y"}, {"h", "1"}}, {{"d", "z"}, {"h", "2"}}}),
            "(d = 'x''y' AND h = '1') OR (d = 'z' AND h = '2')");
}

// 49 small appends to a partition do not trigger, the 50th does; only that partition is
// compacted; the rows are unchanged; the commit is an OPTIMIZE with auto=true.
TEST(AutoCompact, FiftiethSmallFileTriggersOnlyTouchedPartition) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.table();
  Create(fs.get(), root, {{"delta.autoOptimize.autoCompact", "true"}, {"delta.checkpointInterval", "1000"}});
  // Partition b: 60 small files in one append with auto compaction switched off
  // (one file per input without optimized writes).
  std::vector<std::string> inputs;
  for (int i = 0; i < 60; ++i) inputs.push_back(Input(fs.get(), dir.path(), 100000 + i * 2, 2, {"b"}));
  AppendSpec off;
  off.auto_compact.allowed = false;
  AppendResult rb = Append(fs.get(), root, inputs, off);
  EXPECT_EQ(rb.metrics.num_files, 60);
  EXPECT_FALSE(rb.auto_compaction.has_value());
  EXPECT_FALSE(rb.auto_compaction_warning.has_value());

  for (int i = 0; i < 49; ++i) {
    AppendResult r = Append(fs.get(), root, {Input(fs.get(), dir.path(), i * 3, 3, {"a"})});
    ASSERT_TRUE(r.auto_compaction.has_value()) << "append " << i;
    EXPECT_TRUE(r.auto_compaction->versions.empty()) << "append " << i << " compacted too early";
    EXPECT_FALSE(r.auto_compaction_warning.has_value());
  }
  EXPECT_EQ(FilesIn(fs.get(), root, "a"), 49);
  const std::vector<std::string> before = Rows(fs.get(), root);
  AppendResult r = Append(fs.get(), root, {Input(fs.get(), dir.path(), 49 * 3, 3, {"a"})});
  ASSERT_TRUE(r.auto_compaction.has_value());
  ASSERT_FALSE(r.auto_compaction_warning.has_value()) << *r.auto_compaction_warning;
  ASSERT_EQ(r.auto_compaction->versions.size(), 1u);
  const int64_t v = r.auto_compaction->versions[0];
  EXPECT_EQ(v, r.commit.version + 1);
  EXPECT_EQ(r.auto_compaction->metrics.num_files_removed, 50);
  EXPECT_EQ(FilesIn(fs.get(), root, "a"), 1);
  EXPECT_EQ(FilesIn(fs.get(), root, "b"), 60);  // not touched by the commit: left alone

  // Row multiset: the append's version plus nothing else changed by the compaction.
  EXPECT_EQ(Rows(fs.get(), root, delta::VersionSpec::AtVersion(r.commit.version)), Rows(fs.get(), root));
  std::vector<std::string> now = Rows(fs.get(), root);
  EXPECT_EQ(now.size(), before.size() + 3);

  nlohmann::json ci = CommitInfoOf(fs.get(), root, v);
  EXPECT_EQ(ci.value("operation", ""), "OPTIMIZE");
  ASSERT_TRUE(ci.contains("operationParameters"));
  const nlohmann::json& p = ci["operationParameters"];
  EXPECT_EQ(p["auto"], true) << p.dump();
  EXPECT_EQ(p["predicate"], "[\"grp = 'a'\"]") << p.dump();
  // The append itself is a plain WRITE.
  EXPECT_EQ(CommitInfoOf(fs.get(), root, r.commit.version).value("operation", ""), "WRITE");

  // The next small append to a finds 2 files: nothing to do.
  AppendResult again = Append(fs.get(), root, {Input(fs.get(), dir.path(), 5000, 3, {"a"})});
  ASSERT_TRUE(again.auto_compaction.has_value());
  EXPECT_TRUE(again.auto_compaction->versions.empty());
}

// A delete that re-adds files (DVs) in a partition triggers auto compaction there; the
// deleted rows stay deleted and the others are unchanged.
TEST(AutoCompact, DeleteTriggers) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.table();
  Create(fs.get(), root, {{"delta.autoOptimize.autoCompact", "true"}, {"delta.enableDeletionVectors", "true"}});
  std::vector<std::string> inputs;
  for (int i = 0; i < 4; ++i) inputs.push_back(Input(fs.get(), dir.path(), i * 10, 10, {"a", "b"}));
  AppendSpec append;
  append.auto_compact.allowed = false;
  Append(fs.get(), root, inputs, append);
  ASSERT_EQ(FilesIn(fs.get(), root, "a"), 4);

  DeleteSpec del;
  del.predicate = "grp = 'a' AND (id = 0 OR id = 10 OR id = 20 OR id = 30)";
  del.auto_compact.planner.min_num_files = 3;
  del.auto_compact.threads = 2;
  auto r = DeleteRows(fs.get(), root, del);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(r->metrics["numDeletedRows"], 4);
  ASSERT_TRUE(r->auto_compaction.has_value());
  ASSERT_FALSE(r->auto_compaction_warning.has_value()) << *r->auto_compaction_warning;
  ASSERT_EQ(r->auto_compaction->versions.size(), 1u);
  EXPECT_EQ(Rows(fs.get(), root, delta::VersionSpec::AtVersion(r->commit->version)), Rows(fs.get(), root));
  EXPECT_EQ(Rows(fs.get(), root).size(), 36u);
  EXPECT_EQ(FilesIn(fs.get(), root, "a"), 1);
  EXPECT_EQ(FilesIn(fs.get(), root, "b"), 4);
  for (const table::FileEntry& f : Files(fs.get(), root)) {
    if (f.partition_values.at("grp") == "a") EXPECT_FALSE(f.deletion_vector.has_value());  // DVs purged
  }
  nlohmann::json ci = CommitInfoOf(fs.get(), root, r->auto_compaction->versions[0]);
  EXPECT_EQ(ci["operationParameters"]["auto"], true);

  // With --no-auto-compact the same kind of delete leaves the files alone.
  DeleteSpec quiet = del;
  quiet.predicate = "grp = 'b' AND (id = 1 OR id = 11 OR id = 21)";
  quiet.auto_compact.allowed = false;
  auto q = DeleteRows(fs.get(), root, quiet);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->auto_compaction.has_value());
  EXPECT_EQ(FilesIn(fs.get(), root, "b"), 4);
}

// A table without the property never compacts, whatever the file count.
TEST(AutoCompact, DisabledTableNeverTriggers) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.table();
  Create(fs.get(), root, {});
  AppendSpec spec;
  spec.auto_compact.planner.min_num_files = 2;
  for (int i = 0; i < 3; ++i) {
    AppendResult r = Append(fs.get(), root, {Input(fs.get(), dir.path(), i * 5, 5, {"a"})}, spec);
    EXPECT_FALSE(r.auto_compaction.has_value());
  }
  EXPECT_EQ(FilesIn(fs.get(), root, "a"), 3);
  // Explicitly false: the same.
  TempDir dir2;
  Create(fs.get(), dir2.table(), {{"delta.autoOptimize.autoCompact", "false"}});
  for (int i = 0; i < 3; ++i) {
    AppendResult r = Append(fs.get(), dir2.table(), {Input(fs.get(), dir2.path(), i * 5, 5, {"a"})}, spec);
    EXPECT_FALSE(r.auto_compaction.has_value());
  }
  EXPECT_EQ(FilesIn(fs.get(), dir2.table(), "a"), 3);
}

// An invalid property value: the append commits, auto compaction reports the error.
TEST(AutoCompact, InvalidPropertyIsAWarningAfterTheCommit) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.table();
  Create(fs.get(), root, {});
  {
    // CREATE/ALTER refuse the value, so write it the way another writer could have.
    auto snap = delta::Snapshot::Load(fs.get(), root);
    ASSERT_TRUE(snap.ok());
    auto txn = delta::Transaction::Begin(*snap);
    ASSERT_TRUE(txn.ok());
    delta::Metadata m = (*snap)->metadata();
    m.configuration["delta.autoOptimize.autoCompact"] = "sometimes";
    (*txn)->AddAction(m);
    (*txn)->SetOperation("SET TBLPROPERTIES", nlohmann::json::object());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  AppendResult r = Append(fs.get(), root, {Input(fs.get(), dir.path(), 0, 4, {"a"})});
  EXPECT_EQ(r.commit.version, 2);
  EXPECT_FALSE(r.auto_compaction.has_value());
  ASSERT_TRUE(r.auto_compaction_warning.has_value());
  EXPECT_NE(r.auto_compaction_warning->find("DELTA_INVALID_AUTO_COMPACT_TYPE"), std::string::npos);
  EXPECT_EQ(Rows(fs.get(), root).size(), 4u);
  auto snap = delta::Snapshot::Load(fs.get(), root);
  ASSERT_TRUE(snap.ok());
  auto direct = MaybeAutoCompact(fs.get(), root, (*snap)->properties(), {{{"grp", "a"}}}, {});
  EXPECT_TRUE(direct.status().IsInvalidArgument());
}

// Optimized writes: 5 inputs with rows of 2 partitions give 2 files (one per partition)
// instead of 10 (one per input and partition); DuckDB reads every file.
TEST(OptimizedWrite, BinsInputsPerPartition) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  std::vector<std::string> inputs;
  for (int i = 0; i < 5; ++i) inputs.push_back(Input(fs.get(), dir.path(), i * 20, 20, {"a", "b"}));

  const std::string plain = dir.path() + "/plain";
  Create(fs.get(), plain, {});
  AppendResult rp = Append(fs.get(), plain, inputs);
  EXPECT_FALSE(rp.optimized_write);
  EXPECT_EQ(rp.metrics.num_files, 10);

  const std::string flagged = dir.path() + "/flagged";
  Create(fs.get(), flagged, {});
  AppendSpec ow;
  ow.optimize_write = true;
  AppendResult rf = Append(fs.get(), flagged, inputs, ow);
  EXPECT_TRUE(rf.optimized_write);
  EXPECT_EQ(rf.metrics.num_files, 2);

  const std::string by_table = dir.path() + "/by_table";
  Create(fs.get(), by_table, {{"delta.autoOptimize.optimizeWrite", "true"}});
  AppendResult rt = Append(fs.get(), by_table, inputs);
  EXPECT_TRUE(rt.optimized_write);
  EXPECT_EQ(rt.metrics.num_files, 2);
  // The option overrides the table.
  AppendSpec no_ow;
  no_ow.optimize_write = false;
  EXPECT_EQ(Append(fs.get(), by_table, inputs, no_ow).metrics.num_files, 10);

  EXPECT_EQ(Rows(fs.get(), plain), Rows(fs.get(), flagged));
  EXPECT_EQ(Rows(fs.get(), flagged).size(), 100u);
  int64_t duck_rows = 0;
  for (const table::FileEntry& f : Files(fs.get(), flagged)) {
    auto rows = testing::DuckDbRows(io::JoinPath(flagged, f.path));
    if (!rows) GTEST_SKIP() << "node or @duckdb/node-api missing";
    EXPECT_EQ(static_cast<int64_t>(rows->size()), f.num_records().value_or(-1)) << f.path;
    duck_rows += static_cast<int64_t>(rows->size());
  }
  EXPECT_EQ(duck_rows, 100);
}

// More partitions than open files: optimized writes flush row groups instead of
// splitting files, so still one file per partition; a small target size splits by size.
TEST(OptimizedWrite, OpenFilePressureAndTargetSize) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  std::vector<std::string> inputs;
  for (int i = 0; i < 3; ++i) inputs.push_back(Input(fs.get(), dir.path(), i * 30, 30, {"a", "b", "c"}));
  const std::string root = dir.table();
  Create(fs.get(), root, {});
  AppendSpec ow;
  ow.optimize_write = true;
  ow.writer.max_open_files = 1;
  AppendResult r = Append(fs.get(), root, inputs, ow);
  EXPECT_EQ(r.metrics.num_files, 3);
  EXPECT_EQ(Rows(fs.get(), root).size(), 90u);
  // DuckDB reads a file written in several row groups (one node process: keep it quick).
  const std::vector<table::FileEntry> files = Files(fs.get(), root);
  ASSERT_FALSE(files.empty());
  auto rows = testing::DuckDbRows(io::JoinPath(root, files[0].path));
  if (!rows) GTEST_SKIP() << "node or @duckdb/node-api missing";
  EXPECT_EQ(rows->size(), 30u) << files[0].path;
  // Rolling by size still applies: a 1-byte target gives a file per batch written.
  const std::string small = dir.path() + "/small";
  Create(fs.get(), small, {});
  ow.writer.target_file_size_bytes = 1;
  ow.writer.max_open_files = 16;
  AppendResult rs = Append(fs.get(), small, inputs, ow);
  EXPECT_GT(rs.metrics.num_files, 3);
  EXPECT_EQ(Rows(fs.get(), small), Rows(fs.get(), root));
}

}  // namespace
}  // namespace lithify::commands
