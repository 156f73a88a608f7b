// Checkpoint writer: the checkpoint alone reproduces the JSON replay; _last_checkpoint;
// tombstone expiry; path re-encoding; corpus tables; DuckDB reads the file.
#include "lithify/delta/checkpoint_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lithify/delta/checkpoint.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/test_util.h"
#include "lithify/parquet/file_reader.h"
#include "lithify_test_paths.h"

namespace lithify::delta {
namespace {

namespace stdfs = std::filesystem;
using testing::TempTable;

constexpr int64_t kDay = 24LL * 3600 * 1000;
constexpr int64_t kNow = 1700000000000LL;

std::string CommitName(int64_t v) { return CommitFileName(v); }

// A fresh temp directory holding `<dir>/table/_delta_log`, removed at the end.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lithify-ckpt-test-XXXXXX";
    char* d = mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    dir_ = d;
    stdfs::create_directories(root() + "/_delta_log");
  }
  ~TempDir() {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  std::string root() const { return dir_ + "/table"; }
  std::string log() const { return root() + "/_delta_log"; }
  void Commit(int64_t v, const std::vector<nlohmann::json>& actions) const {
    std::ofstream out(log() + "/" + CommitName(v));
    for (const auto& a : actions) out << a.dump() << "\n";
  }
  // A copy of the table whose commit files at or below `upto` are deleted.
  std::string CopyWithoutCommits(int64_t upto) const {
    std::string copy = dir_ + "/copy";
    stdfs::remove_all(copy);
    stdfs::copy(root(), copy, stdfs::copy_options::recursive);
    for (int64_t v = 0; v <= upto; ++v) stdfs::remove(copy + "/_delta_log/" + CommitName(v));
    return copy;
  }

 private:
  std::string dir_;
};

nlohmann::json CommitInfo(int64_t v) {
  return {{"commitInfo", {{"timestamp", kNow - 10 * kDay + v}, {"operation", "WRITE"}, {"txnId", "t" + std::to_string(v)}}}};
}

nlohmann::json Add(const std::string& path, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json a = {{"path", path}, {"partitionValues", {{"p", "1"}}}, {"size", 100},
                      {"modificationTime", 1600000000000LL}, {"dataChange", true}};
  for (auto& [k, v] : extra.items()) a[k] = v;
  return {{"add", a}};
}

// A table exercising every column: partitioned adds (null partition value, escaped
// paths), DVs, stats, tags, row tracking, clustering provider, fresh / expired /
// timestamp-less tombstones, txns and domain metadata (one removed).
void WriteRichTable(const TempDir& t) {
  nlohmann::json dv = {{"storageType", "u"}, {"pathOrInlineDv", "ab^-aqEH.-t@S}K{vb[*k^"},
                       {"offset", 1}, {"sizeInBytes", 36}, {"cardinality", 2}};
  t.Commit(0, {CommitInfo(0),
               {{"protocol", {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                              {"readerFeatures", {"deletionVectors"}},
                              {"writerFeatures", {"deletionVectors", "domainMetadata", "rowTracking"}}}}},
               {{"metaData", {{"id", "tbl-1"}, {"name", "rich"}, {"format", {{"provider", "parquet"}, {"options", nlohmann::json::object()}}},
                              {"schemaString", R"({"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}},{"name":"p","type":"string","nullable":true,"metadata":{}}]})"},
                              {"partitionColumns", {"p"}},
                              {"configuration", {{"delta.enableDeletionVectors", "true"}, {"delta.enableRowTracking", "true"}}},
                              {"createdTime", 1600000000000LL}}}}});
  t.Commit(1, {CommitInfo(1),
               Add("p=1/a.parquet", {{"stats", R"({"numRecords":10,"minValues":{"x":1},"maxValues":{"x":9},"nullCount":{"x":0}})"},
                                     {"tags", {{"INSERTION_TIME", "1"}, {"k", "v"}}},
                                     {"baseRowId", 0}, {"defaultRowCommitVersion", 1}}),
               Add("p=a%2520b%20c/%C3%A9t%C3%A9.parquet", {{"partitionValues", {{"p", "a%20b c"}}}, {"clusteringProvider", "liquid"}}),
               Add("p=__HIVE_DEFAULT_PARTITION__/n.parquet", {{"partitionValues", {{"p", nullptr}}}}),
               Add("p=1/dv.parquet", {{"deletionVector", dv}, {"stats", R"({"numRecords":5,"tightBounds":false})"},
                                      {"baseRowId", 10}, {"defaultRowCommitVersion", 1}}),
               Add("p=1/gone-fresh.parquet"), Add("p=1/gone-old.parquet"), Add("p=1/gone-nots.parquet"),
               {{"txn", {{"appId", "app-1"}, {"version", 3}, {"lastUpdated", 1600000000000LL}}}},
               {{"txn", {{"appId", "app-2"}, {"version", 7}}}},
               {{"domainMetadata", {{"domain", "delta.rowTracking"}, {"configuration", R"({"rowIdHighWaterMark":14})"}, {"removed", false}}}},
               {{"domainMetadata", {{"domain", "user.x"}, {"configuration", "{}"}, {"removed", false}}}},
               {{"domainMetadata", {{"domain", "user.gone"}, {"configuration", "{}"}, {"removed", false}}}}});
  t.Commit(2, {CommitInfo(2),
               {{"remove", {{"path", "p=1/gone-fresh.parquet"}, {"deletionTimestamp", kNow - 3600000}, {"dataChange", true},
                            {"extendedFileMetadata", true}, {"partitionValues", {{"p", "1"}}}, {"size", 100},
                            {"tags", {{"k", "v"}}}, {"baseRowId", 20}, {"defaultRowCommitVersion", 1},
                            {"stats", R"({"numRecords":1})"}}}},
               {{"remove", {{"path", "p=1/gone-old.parquet"}, {"deletionTimestamp", kNow - 8 * kDay}, {"dataChange", true}}}},
               {{"remove", {{"path", "p=1/gone-nots.parquet"}, {"dataChange", false}}}},
               {{"txn", {{"appId", "app-1"}, {"version", 4}}}},
               {{"domainMetadata", {{"domain", "user.gone"}, {"configuration", "{}"}, {"removed", true}}}}});
}

std::shared_ptr<const Snapshot> Load(io::FileSystem* fs, const std::string& root) {
  auto s = Snapshot::Load(fs, root, VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

void ExpectSameFiles(const Snapshot& want, const Snapshot& got) {
  ASSERT_EQ(want.files().size(), got.files().size());
  for (size_t i = 0; i < want.files().size(); ++i) {
    const auto& a = want.files()[i];
    const auto& b = got.files()[i];
    SCOPED_TRACE(a.path);
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.modification_time_ms, b.modification_time_ms);
    EXPECT_EQ(a.partition_values, b.partition_values);
    EXPECT_EQ(a.stats.has_value(), b.stats.has_value());
    if (a.stats && b.stats) {
      EXPECT_EQ(a.stats->raw, b.stats->raw);
    }
    EXPECT_EQ(a.deletion_vector, b.deletion_vector);
    EXPECT_EQ(a.tags, b.tags);
    EXPECT_EQ(a.base_row_id, b.base_row_id);
    EXPECT_EQ(a.default_row_commit_version, b.default_row_commit_version);
    EXPECT_EQ(a.clustering_provider, b.clustering_provider);
  }
}

// `want`'s tombstones that survive expiry at `now_ms`, without stats (checkpoints drop
// them from remove rows), must equal `got`'s.
void ExpectSameTombstones(const Snapshot& want, const Snapshot& got, int64_t now_ms) {
  auto retention = TombstoneRetentionMs(want.metadata());
  ASSERT_TRUE(retention.ok());
  std::vector<Tombstone> expected;
  for (Tombstone t : want.tombstones()) {
    if (t.remove.deletion_timestamp.value_or(0) <= now_ms - *retention) continue;
    t.remove.stats.reset();
    expected.push_back(std::move(t));
  }
  ASSERT_EQ(expected.size(), got.tombstones().size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].path, got.tombstones()[i].path);
    EXPECT_EQ(expected[i].remove, got.tombstones()[i].remove) << expected[i].path;
  }
}

void ExpectSameState(const Snapshot& want, const Snapshot& got, int64_t now_ms) {
  EXPECT_EQ(want.version(), got.version());
  EXPECT_EQ(want.protocol(), got.protocol());
  EXPECT_EQ(want.metadata(), got.metadata());
  EXPECT_EQ(want.txns(), got.txns());
  EXPECT_EQ(want.domain_metadata(), got.domain_metadata());
  ExpectSameFiles(want, got);
  ExpectSameTombstones(want, got, now_ms);
}

TEST(CheckpointWriter, CheckpointAloneReproducesJsonReplay) {
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(r->path, t.log() + "/00000000000000000002.checkpoint.parquet");
  EXPECT_EQ(r->num_add_files, 4);
  // protocol + metaData + 2 txns + 2 domains + 4 adds + fresh tombstone (the expired one
  // and the one without a timestamp are dropped).
  EXPECT_EQ(r->num_actions, 1 + 1 + 2 + 2 + 4 + 1);
  EXPECT_EQ(r->size_bytes, static_cast<int64_t>(stdfs::file_size(r->path)));

  std::string copy = t.CopyWithoutCommits(2);
  auto from_ckpt = Load(fs.get(), copy);
  ASSERT_TRUE(from_ckpt);
  ASSERT_TRUE(from_ckpt->log_segment().checkpoint_version.has_value());
  ASSERT_TRUE(from_ckpt->log_segment().commits.empty());
  ExpectSameState(*snap, *from_ckpt, kNow);
  ASSERT_EQ(from_ckpt->tombstones().size(), 1u);
  EXPECT_EQ(from_ckpt->tombstones()[0].path, "p=1/gone-fresh.parquet");
  EXPECT_EQ(from_ckpt->domain_metadata().count("user.gone"), 0u);
  EXPECT_EQ(from_ckpt->txns().at("app-1").version, 4);
}

TEST(CheckpointWriter, AddPathsAreEncodedAsInTheLog) {
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> paths;
  std::vector<bool> data_change;
  Status st = ReadParquetCheckpoint(fs.get(), r->path, [&](Action&& a) {
    if (auto* add = std::get_if<AddFile>(&a)) {
      paths.push_back(add->path);
      data_change.push_back(add->data_change);
    }
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::sort(paths.begin(), paths.end());
  // The original text of every path comes back (é stays UTF-8, as java.net.URI keeps it).
  EXPECT_EQ(paths, (std::vector<std::string>{"p=1/a.parquet", "p=1/dv.parquet",
                                             "p=__HIVE_DEFAULT_PARTITION__/n.parquet",
                                             "p=a%2520b%20c/\xC3\xA9t\xC3\xA9.parquet"}));
  for (bool dc : data_change) EXPECT_FALSE(dc);
}

TEST(CheckpointWriter, LastCheckpointFile) {
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::ifstream in(t.log() + "/_last_checkpoint");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str());
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["size"], r->num_actions);
  EXPECT_EQ(j["sizeInBytes"], static_cast<int64_t>(stdfs::file_size(r->path)));
  EXPECT_EQ(j["numOfAddFiles"], 4);
  auto hint = ReadLastCheckpoint(fs.get(), t.log());
  ASSERT_TRUE(hint.ok());
  ASSERT_TRUE(hint->has_value());
  EXPECT_EQ((*hint)->version, 2);
  EXPECT_EQ((*hint)->size, r->num_actions);
}

TEST(CheckpointWriter, OlderCheckpointKeepsNewerHint) {
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto latest = Load(fs.get(), t.root());
  ASSERT_TRUE(latest);
  ASSERT_TRUE(WriteCheckpoint(*latest, kNow).ok());
  auto v1 = Snapshot::Load(fs.get(), t.root(), VersionSpec::AtVersion(1), LoadOptions{StatsMode::kRaw});
  ASSERT_TRUE(v1.ok());
  auto r = WriteCheckpoint(**v1, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(stdfs::exists(t.log() + "/00000000000000000001.checkpoint.parquet"));
  auto hint = ReadLastCheckpoint(fs.get(), t.log());
  ASSERT_TRUE(hint.ok() && hint->has_value());
  EXPECT_EQ((*hint)->version, 2);
}

TEST(CheckpointWriter, CommitsAfterTheCheckpointReplayOnTop) {
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  ASSERT_TRUE(WriteCheckpoint(*snap, kNow).ok());
  t.Commit(3, {CommitInfo(3),
               {{"remove", {{"path", "p=1/a.parquet"}, {"deletionTimestamp", kNow}, {"dataChange", true}}}},
               Add("p=1/new.parquet")});
  auto json_only = Load(fs.get(), t.root());  // uses the checkpoint + commit 3
  ASSERT_TRUE(json_only);
  EXPECT_EQ(json_only->log_segment().checkpoint_version, 2);
  std::string copy = t.CopyWithoutCommits(2);
  auto from_ckpt = Load(fs.get(), copy);
  ASSERT_TRUE(from_ckpt);
  ExpectSameState(*json_only, *from_ckpt, kNow);
  EXPECT_EQ(from_ckpt->files().size(), 4u);
}

TEST(CheckpointWriter, TombstoneRetentionFollowsTheTableProperty) {
  TempDir t;
  t.Commit(0, {CommitInfo(0),
               {{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}},
               {{"metaData", {{"id", "x"}, {"format", {{"provider", "parquet"}}}, {"schemaString", R"({"type":"struct","fields":[]})"},
                              {"partitionColumns", nlohmann::json::array()},
                              {"configuration", {{"delta.deletedFileRetentionDuration", "interval 2 hours"}}}}}},
               Add("a"), Add("b")});
  t.Commit(1, {CommitInfo(1),
               {{"remove", {{"path", "a"}, {"deletionTimestamp", kNow - 3 * 3600000}}}},
               {{"remove", {{"path", "b"}, {"deletionTimestamp", kNow - 3600000}}}}});
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_actions, 3);
  auto from_ckpt = Load(fs.get(), t.CopyWithoutCommits(1));
  ASSERT_TRUE(from_ckpt);
  ASSERT_EQ(from_ckpt->tombstones().size(), 1u);
  EXPECT_EQ(from_ckpt->tombstones()[0].path, "b");
  EXPECT_TRUE(from_ckpt->files().empty());
}

TEST(CheckpointWriter, BadRetentionPropertyIsInvalidArgument) {
  TempDir t;
  t.Commit(0, {CommitInfo(0),
               {{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}},
               {{"metaData", {{"id", "x"}, {"format", {{"provider", "parquet"}}}, {"schemaString", R"({"type":"struct","fields":[]})"},
                              {"partitionColumns", nlohmann::json::array()},
                              {"configuration", {{"delta.deletedFileRetentionDuration", "one week"}}}}}}});
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("delta.deletedFileRetentionDuration"), std::string::npos);
  EXPECT_NE(r.status().message().find("one week"), std::string::npos);
  EXPECT_FALSE(stdfs::exists(t.log() + "/00000000000000000000.checkpoint.parquet"));
  EXPECT_FALSE(stdfs::exists(t.log() + "/_last_checkpoint"));
}

TEST(CheckpointWriter, ManyFilesSpanSeveralBatches) {
  auto fs = io::NewMemoryFileSystem();
  const std::string root = "/mem/table";
  std::string commit0 =
      nlohmann::json{{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}}.dump() + "\n" +
      nlohmann::json{{"metaData", {{"id", "x"}, {"format", {{"provider", "parquet"}}},
                                   {"schemaString", R"({"type":"struct","fields":[]})"},
                                   {"partitionColumns", nlohmann::json::array()}}}}.dump() + "\n";
  const int n = 3 * static_cast<int>(kCheckpointWriteBatchRows) + 17;
  for (int i = 0; i < n; ++i) {
    commit0 += Add("f" + std::to_string(i) + ".parquet",
                   {{"partitionValues", nlohmann::json::object()},
                    {"stats", "{\"numRecords\":" + std::to_string(i) + "}"}}).dump() + "\n";
  }
  ASSERT_TRUE(fs->WriteFile(root + "/_delta_log/" + CommitName(0), AsBytes(commit0)).ok());
  auto snap = Load(fs.get(), root);
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_add_files, n);
  EXPECT_EQ(r->num_actions, n + 2);
  ASSERT_TRUE(fs->Delete(root + "/_delta_log/" + CommitName(0)).ok());
  auto from_ckpt = Load(fs.get(), root);
  ASSERT_TRUE(from_ckpt);
  ExpectSameState(*snap, *from_ckpt, kNow);
}

// Corpus tables (copied): checkpoint at the latest version, then the checkpoint alone
// must replay to the same state as the JSON log.
class CorpusCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusCheckpoint, EqualsJsonReplay) {
  TempTable copy(testing::CorpusDir() + "/" + GetParam());
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), copy.root());
  ASSERT_TRUE(snap);
  const int64_t now = kNow + 10000LL * kDay;  // every corpus tombstone has expired ...
  auto r = WriteCheckpoint(*snap, now);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // ... and with now far in the past every one is kept: write both and check the latter.
  auto keep_all = WriteCheckpoint(*snap, 0);
  ASSERT_TRUE(keep_all.ok()) << keep_all.status().ToString();
  for (const auto& e : stdfs::directory_iterator(copy.root() + "/_delta_log")) {
    auto name = ParseLogFileName(e.path().filename().string());
    if (name && (name->type == LogFileType::kCommit ||
                 (name->is_checkpoint() && name->version < snap->version()))) {
      stdfs::remove(e.path());
    }
  }
  auto from_ckpt = Load(fs.get(), copy.root());
  ASSERT_TRUE(from_ckpt);
  EXPECT_EQ(from_ckpt->log_segment().checkpoint_version, snap->version());
  ExpectSameState(*snap, *from_ckpt, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Tables, CorpusCheckpoint,
    ::testing::Values("delta-kernel-rs/kernel/tests/data/table-with-dv-small",
                      "delta-kernel-rs/kernel/tests/data/basic_partitioned",
                      "delta-kernel-rs/kernel/tests/data/app-txn-no-checkpoint",
                      "delta-rs/crates/test/tests/data/delta-0.8.0-special-partition",
                      "delta-rs/crates/test/tests/data/table_with_deletion_logs",
                      "delta-rs/crates/test/tests/data/table-with-domain-metadata",
                      "delta-rs/crates/test/tests/data/simple_table_with_checkpoint"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(info.param.rfind('/') + 1);
      for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// DuckDB, the independent oracle, reads the checkpoint and counts its rows.
TEST(CheckpointWriter, DuckDbReadsTheCheckpoint) {
  const std::string script = std::string(LITHIFY_SOURCE_DIR) + "/tests/delta_write/duckdb_checkpoint.mjs";
  const std::string duckdb = std::string(LITHIFY_SOURCE_DIR) + "/tests/oracle/node_modules/@duckdb/node-api";
  if (std::system("node --version > /dev/null 2>&1") != 0 || !stdfs::exists(duckdb)) {
    GTEST_SKIP() << "node or the DuckDB oracle is missing (scripts/install-deps.sh)";
  }
  TempDir t;
  WriteRichTable(t);
  auto fs = io::NewLocalFileSystem();
  auto snap = Load(fs.get(), t.root());
  ASSERT_TRUE(snap);
  auto r = WriteCheckpoint(*snap, kNow);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string out = t.root() + "/../duckdb.json";
  std::string cmd = "node '" + script + "' '" + r->path + "' > '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str());
  EXPECT_EQ(j["rows"], r->num_actions);
  EXPECT_EQ(j["adds"], 4);
  EXPECT_EQ(j["removes"], 1);
  EXPECT_EQ(j["metadata"], 1);
  EXPECT_EQ(j["protocol"], 1);
  EXPECT_EQ(j["txns"], 2);
  EXPECT_EQ(j["domains"], 2);
  EXPECT_EQ(j["dvs"], 1);
  EXPECT_EQ(j["addBytes"], 400);
  EXPECT_EQ(j["addPaths"][0], "p=1/a.parquet");
}

TEST(ParseIntervalMs, DeltaIntervals) {
  EXPECT_EQ(*ParseIntervalMs("interval 1 week"), 7 * kDay);
  EXPECT_EQ(*ParseIntervalMs("interval 2 weeks"), 14 * kDay);
  EXPECT_EQ(*ParseIntervalMs("INTERVAL 30 Days"), 30 * kDay);
  EXPECT_EQ(*ParseIntervalMs("interval 1 day 2 hours"), kDay + 2 * 3600000);
  EXPECT_EQ(*ParseIntervalMs("  interval 5 minutes "), 5 * 60000);
  EXPECT_EQ(*ParseIntervalMs("interval 7 seconds"), 7000);
  EXPECT_EQ(*ParseIntervalMs("interval 250 milliseconds"), 250);
  EXPECT_EQ(*ParseIntervalMs("interval 2500 microseconds"), 2);
  EXPECT_EQ(*ParseIntervalMs("1 hour"), 3600000);
  EXPECT_EQ(*ParseIntervalMs("interval 0 seconds"), 0);
  for (const char* bad : {"", "interval", "interval 1", "interval x days", "interval 1 fortnight",
                          "interval 1 month", "interval 1 year", "interval -1 day", "1 week extra",
                          "interval 99999999999999999999 days", "interval 9999999999999 weeks"}) {
    auto r = ParseIntervalMs(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
    }
  }
}

TEST(EncodeActionPath, QuotesLikeJavaUri) {
  EXPECT_EQ(EncodeActionPath("p=1/a.parquet"), "p=1/a.parquet");
  EXPECT_EQ(EncodeActionPath("x=B%20B/f"), "x=B%2520B/f");
  EXPECT_EQ(EncodeActionPath("a b/c#d?e"), "a%20b/c%23d%3Fe");
  EXPECT_EQ(EncodeActionPath("x=a:b/c:d"), "x=a%3Ab/c:d");
  EXPECT_EQ(EncodeActionPath("\xC3\xA9/\xE2\x82\xAC"), "\xC3\xA9/\xE2\x82\xAC");
  EXPECT_EQ(EncodeActionPath("a\xC2\xA0" "b"), "a%C2%A0b");  // no-break space
  EXPECT_EQ(EncodeActionPath("bad\xFF"), "bad%FF");
  // Bytes F5-FF lead no UTF-8 sequence, even before continuation bytes that would make a
  // 3-byte shape: every byte is escaped, not copied raw.
  EXPECT_EQ(EncodeActionPath("f\xF5\x80\x80"), "f%F5%80%80");
  EXPECT_EQ(EncodeActionPath("f\xFE\xBF\xBF"), "f%FE%BF%BF");
  EXPECT_EQ(EncodeActionPath("f\xF4\x8F\xBF\xBF"), "f\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(EncodeActionPath("q\"<>[]^`{|}\\"), "q%22%3C%3E%5B%5D%5E%60%7B%7C%7D%5C");
  EXPECT_EQ(EncodeActionPath("k=!$&'()*+,;=@~"), "k=!$&'()*+,;=@~");
  for (std::string p : {"a b", "%", "x=%3A/y", "\xC3\xA9\xFF", "a\tb", "::", "\xF5\x80\x80"}) {
    auto back = DecodeActionPath(EncodeActionPath(p));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p);
  }
}

}  // namespace
}  // namespace lithify::delta
