// The compact live-file store (live_files.h) and the Snapshot paths built on it: the
// cheap view API against files(), the 2-thread checkpoint/commit reading against the
// sequential one (same files, same order, same first error).
#include "lithify/delta/live_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "lithify/base/busy_pool.h"
#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::delta {
namespace {

using parquet::FieldSpec;
using PV = parquet::Value;

// ---- StringMapView / EncodeStringMap ------------------------------------------------

TEST(LiveFilesTest, StringMapIsSortedLastWinsAndKeepsNulls) {
  std::vector<MapEntryView> in = {{"b", "1"}, {"a", std::nullopt}, {"b", "2"}, {"c", ""}};
  std::string enc;
  EncodeStringMap(in, /*drop_nulls=*/false, &enc);
  StringMapView m(enc);
  EXPECT_EQ(m.size(), 3u);
  std::vector<std::string> keys;
  for (const auto& e : m) keys.emplace_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(m.Find("a").has_value());
  EXPECT_FALSE(m.Find("a")->has_value());  // present, null
  EXPECT_EQ(m.Find("b")->value(), "2");     // last duplicate wins
  EXPECT_EQ(m.Find("c")->value(), "");      // empty string is not null
  EXPECT_FALSE(m.Find("z").has_value());
  auto map = m.ToMap();
  EXPECT_EQ(map.size(), 3u);
  EXPECT_FALSE(map.at("a").has_value());

  std::string tags;
  // A later null drops a key an earlier entry set (JSON: last wins, then nulls dropped).
  std::vector<MapEntryView> t = {{"k", "v"}, {"k", std::nullopt}, {"x", "y"}};
  EncodeStringMap(t, /*drop_nulls=*/true, &tags);
  EXPECT_EQ(StringMapView(tags).ToMapNoNulls(), (std::map<std::string, std::string>{{"x", "y"}}));
}

TEST(LiveFilesTest, LongKeysAndValuesRoundTrip) {
  std::string k(300, 'k'), v(70000, 'v');
  std::vector<MapEntryView> in = {{k, v}};
  std::string enc;
  EncodeStringMap(in, false, &enc);
  StringMapView m(enc);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->key, k);
  EXPECT_EQ(*m.begin()->value, v);
}

// ---- ParseCommitFileFast ---------------------------------------------------------------

void ExpectSameAsSlow(std::string_view content, const std::string& what) {
  auto fast = ParseCommitFileFast(content, "x.json");
  auto slow = ParseCommitFile(content, "x.json");
  ASSERT_EQ(fast.ok(), slow.ok()) << what << ": " << (fast.ok() ? slow.status() : fast.status()).ToString();
  if (!slow.ok()) {
    EXPECT_EQ(fast.status().ToString(), slow.status().ToString()) << what;
  } else {
    EXPECT_TRUE(*fast == *slow) << what;
  }
}

TEST(LiveFilesTest, FastCommitParsingEqualsParseCommitFileOnEveryCorpusCommit) {
  namespace sfs = std::filesystem;
  int files = 0;
  for (auto it = sfs::recursive_directory_iterator(testing::CorpusDir(),
                                                   sfs::directory_options::skip_permission_denied);
       it != sfs::recursive_directory_iterator(); ++it) {
    const sfs::path& p = it->path();
    if (p.extension() != ".json" || p.parent_path().filename() != "_delta_log" || !it->is_regular_file()) continue;
    std::ifstream in(p, std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ExpectSameAsSlow(content, p.string());
    ++files;
  }
  EXPECT_GT(files, 100);
}

TEST(LiveFilesTest, FastCommitParsingEqualsParseCommitFileOnEdgeCases) {
  const std::string lines[] = {
      R"({"add":{"path":"a.parquet","partitionValues":{"d":"1","e":null,"d":"2"},"size":10,"modificationTime":5,"dataChange":false,"stats":"{\"numRecords\":3,\"x\":\"a\\\\b\"}","tags":{"t":"v","n":null}}})",
      R"( { "add" : { "path" : "b%20c.parquet" , "size" : 0 , "x" : 1.5e-3, "y": true, "z": null, "w": "s" } } )",
      R"({"add":{"path":"a","size":1,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*","offset":1,"sizeInBytes":36,"cardinality":2,"maxRowIndex":9}}})",
      R"({"add":{"path":"a","size":1,"deletionVector":{"storageType":"x","pathOrInlineDv":"a","sizeInBytes":1,"cardinality":1}}})",
      R"({"add":{"path":"a","size":-1}})",
      R"({"add":{"path":"a","size":1.0}})",
      R"({"add":{"path":"a","size":01}})",
      R"({"add":{"path":"a","size":99999999999999999999}})",
      R"({"add":{"path":"a"}})",
      R"({"add":{"path":"a","path":"b","size":1}})",
      R"({"add":{"path":"\u00e9","size":1}})",
      "{\"add\":{\"path\":\"\xc3\xa9\",\"size\":1}}",
      "{\"add\":{\"path\":\"\xff\",\"size\":1}}",
      R"({"add":{"path":"a","size":1,"nested":{"k":[1,2]}}})",
      R"({"add":{"path":"a","size":1},"remove":{"path":"b"}})",
      R"({"add":{"path":"a","size":1}} trailing)",
      R"({"add":{"path":"a","size":1,}})",
      R"({"add":{"path":"a","size":1,"stats_parsed":{"numRecords":1}}})",
      R"({"add":{"path":null,"size":1}})",
      R"({"remove":{"path":"r","deletionTimestamp":7,"dataChange":true,"extendedFileMetadata":false,"partitionValues":{},"size":3,"tags":{}}})",
      R"({"remove":{"path":"r","partitionValues":null}})",
      R"({"remove":{"path":"r","dataChange":"yes"}})",
      R"({"commitInfo":{"timestamp":1}})",
      R"({"add":{"path":"tab\tquote\"slash\/","size":1}})",
      R"({"add":{"path":"bad escape \q","size":1}})",
      std::string("{\"add\":{\"path\":\"ctl\x01\",\"size\":1}}"),
      "",
      "   ",
      "{\"add\":{\"path\":\"a\",\"size\":1}}\r",
  };
  for (const std::string& line : lines) ExpectSameAsSlow(line, line);
  ExpectSameAsSlow("{\"add\":{\"path\":\"a\",\"size\":1}}\n\n{\"remove\":{\"path\":\"a\"}}\n", "multi-line");
  ExpectSameAsSlow("{\"add\":{\"path\":\"a\",\"size\":1}}\n{\"add\":{\"path\":\"a\",\"size\":-1}}\n", "error on line 2");
}

// ---- LiveFileStore -----------------------------------------------------------------

TEST(LiveFilesTest, StoreKeepsEveryFieldAndSortsByPathThenDv) {
  LiveFileStore store;
  std::vector<MapEntryView> pv = {{"d", "2024-01-01"}, {"e", std::nullopt}};
  std::vector<MapEntryView> tags = {{"t", "1"}};
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*";
  dv.offset = 4;
  dv.size_in_bytes = 36;
  dv.cardinality = 3;
  AddFileView a;
  a.size = 100;
  a.modification_time = 7;
  a.partition_values = pv;
  a.tags = tags;
  a.deletion_vector = &dv;
  a.base_row_id = 10;
  a.default_row_commit_version = 2;
  a.clustering_provider = "liquid";
  ASSERT_TRUE(store.Append("d=2024-01-01/b.parquet", a, std::string_view("{\"numRecords\":5}"), 5).ok());
  AddFileView plain;
  plain.size = 1;
  ASSERT_TRUE(store.Append("a.parquet", plain, std::nullopt, std::nullopt).ok());
  ASSERT_TRUE(store.Append("d=2024-01-01/b.parquet", plain, std::nullopt, std::nullopt).ok());  // no DV
  ASSERT_EQ(store.size(), 3u);

  LiveFileView f = store[0];
  EXPECT_EQ(f.path(), "d=2024-01-01/b.parquet");
  EXPECT_EQ(f.size(), 100);
  EXPECT_EQ(f.modification_time_ms(), 7);
  EXPECT_EQ(f.partition_values().Find("d")->value(), "2024-01-01");
  EXPECT_EQ(f.stats_raw(), std::optional<std::string_view>("{\"numRecords\":5}"));
  EXPECT_EQ(f.num_records(), 5);
  EXPECT_EQ(f.num_live_records(), 2);
  ASSERT_NE(f.deletion_vector(), nullptr);
  EXPECT_EQ(f.dv_unique_id(), "uab^-aqEH.-t@S}K{vb[*@4");
  EXPECT_EQ(f.tags().ToMapNoNulls().at("t"), "1");
  EXPECT_EQ(f.base_row_id(), 10);
  EXPECT_EQ(f.default_row_commit_version(), 2);
  EXPECT_EQ(f.clustering_provider(), std::optional<std::string_view>("liquid"));

  table::FileEntry e = f.ToFileEntry();
  EXPECT_EQ(e.path, "d=2024-01-01/b.parquet");
  ASSERT_TRUE(e.deletion_vector.has_value());
  EXPECT_EQ(e.deletion_vector->unique_id, "uab^-aqEH.-t@S}K{vb[*@4");
  EXPECT_EQ(e.partition_values.size(), 2u);
  EXPECT_EQ(e.stats->raw, "{\"numRecords\":5}");
  EXPECT_EQ(e.clustering_provider, "liquid");

  LiveFileView g = store[1];
  EXPECT_FALSE(g.stats_raw().has_value());
  EXPECT_FALSE(g.num_records().has_value());
  EXPECT_EQ(g.deletion_vector(), nullptr);
  EXPECT_EQ(g.dv_unique_id(), "");
  EXPECT_TRUE(g.partition_values().empty());
  EXPECT_FALSE(g.base_row_id().has_value());

  // (path, DV id): "a", then "d=.../b" without DV ("" sorts first), then with the DV.
  EXPECT_EQ(store.SortedOrder(), (std::vector<uint32_t>{1, 2, 0}));
  size_t n = 0;
  for (LiveFileView v : store) n += v.path().empty() ? 0 : 1;
  EXPECT_EQ(n, 3u);
}

// ---- Snapshot: cheap API against files() on the corpus ---------------------------

TEST(LiveFilesTest, LiveFilesAgreeWithFilesOnCorpusTables) {
  auto fs = io::NewLocalFileSystem();
  for (const std::string& table :
       {testing::GoldenTable("dv-partitioned-with-checkpoint"), testing::GoldenTable("log-replay-dv-key-cases"),
        testing::GoldenTable("multi-part-checkpoint"), testing::KernelTable("v2-checkpoints-parquet-with-last-checkpoint"),
        testing::KernelTable("app-txn-checkpoint"), testing::DeltaRsTable("checkpoint-v2-table"),
        testing::DeltaRsTable("delta-2.2.0-partitioned-types")}) {
    SCOPED_TRACE(table);
    auto snap = Snapshot::Load(fs.get(), table);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    const LiveFileStore& live = (*snap)->live_files();
    const auto& files = (*snap)->files();
    ASSERT_EQ(live.size(), files.size());
    ASSERT_FALSE(files.empty());
    std::vector<uint32_t> order = live.SortedOrder();
    for (size_t i = 0; i < files.size(); ++i) {
      LiveFileView v = live[order[i]];
      const table::FileEntry& f = files[i];
      EXPECT_EQ(v.path(), f.path);
      EXPECT_EQ(v.size(), f.size);
      EXPECT_EQ(v.modification_time_ms(), f.modification_time_ms);
      EXPECT_EQ(v.partition_values().ToMap(), f.partition_values);
      EXPECT_EQ(v.dv_unique_id(), f.dv_unique_id());
      EXPECT_EQ(v.num_records(), f.num_records());
      EXPECT_EQ(v.num_live_records(), f.num_live_records());
      EXPECT_EQ(v.tags().ToMapNoNulls(), f.tags);
      EXPECT_EQ(v.base_row_id(), f.base_row_id);
      EXPECT_EQ(v.stats_raw().has_value(), f.stats.has_value());
      if (v.stats_raw() && f.stats) {
        EXPECT_EQ(*v.stats_raw(), f.stats->raw);
      }
    }
    // files() is built once: the same vector on every call.
    EXPECT_EQ(&(*snap)->files(), &files);
  }
}

// A lazily built files() (StatsMode::kRaw) equals the eager one of kParsed except for
// the parsed columns, and concurrent first calls agree.
TEST(LiveFilesTest, LazyFilesAreBuiltOnceUnderConcurrentCalls) {
  auto fs = io::NewLocalFileSystem();
  const std::string table = testing::GoldenTable("dv-partitioned-with-checkpoint");
  auto raw = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  const std::vector<table::FileEntry>* seen[4] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { seen[t] = &(*raw)->files(); });
  for (auto& t : threads) t.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(seen[0]->size(), (*raw)->live_files().size());
  for (size_t i = 1; i < seen[0]->size(); ++i) {
    const auto& a = (*seen[0])[i - 1];
    const auto& b = (*seen[0])[i];
    EXPECT_TRUE(a.path < b.path || (a.path == b.path && a.dv_unique_id() < b.dv_unique_id()));
  }
}

// ---- 2-thread reading is deterministic ----------------------------------------------

std::vector<FieldSpec> CheckpointFields() {
  auto smap = [](std::string n) {
    return FieldSpec::Map(std::move(n), FieldSpec::String("key", false), FieldSpec::String("value"));
  };
  auto dv = FieldSpec::Struct("deletionVector", {FieldSpec::String("storageType"), FieldSpec::String("pathOrInlineDv"),
                                                 FieldSpec::Int("offset"), FieldSpec::Int("sizeInBytes"),
                                                 FieldSpec::Long("cardinality"), FieldSpec::Long("maxRowIndex")});
  return {
      FieldSpec::Struct("add", {FieldSpec::String("path"), smap("partitionValues"), FieldSpec::Long("size"),
                                FieldSpec::Long("modificationTime"), FieldSpec::Boolean("dataChange"),
                                FieldSpec::String("stats"), smap("tags"), dv}),
      FieldSpec::Struct("remove", {FieldSpec::String("path"), FieldSpec::Long("deletionTimestamp"),
                                   FieldSpec::Boolean("dataChange")}),
      FieldSpec::Struct("metaData", {FieldSpec::String("id"), FieldSpec::String("schemaString"),
                                     FieldSpec::List("partitionColumns", FieldSpec::String("element")),
                                     FieldSpec::Struct("format", {FieldSpec::String("provider"), smap("options")}),
                                     smap("configuration"), FieldSpec::Long("createdTime")}),
      FieldSpec::Struct("protocol", {FieldSpec::Int("minReaderVersion"), FieldSpec::Int("minWriterVersion"),
                                     FieldSpec::List("readerFeatures", FieldSpec::String("element")),
                                     FieldSpec::List("writerFeatures", FieldSpec::String("element"))}),
  };
}

std::vector<PV> Row(int which, PV v) {
  std::vector<PV> r(4);
  r[which] = std::move(v);
  return r;
}

std::string FileName(int i) {
  char b[64];
  std::snprintf(b, sizeof b, "d=%d/part-%06d.parquet", i % 7, i);
  return b;
}

// A table whose checkpoint (version 2) spans several streamed batches: `files` adds
// (every 10th with a DV, every 3rd with stats), a few tombstones; then commits 3 and 4
// that remove and re-add some checkpoint files. `bad_row`, when >= 0, makes that add's
// size negative (a Corruption in the middle of the checkpoint).
void WriteTable(const std::string& root, int files, int bad_row) {
  namespace sfs = std::filesystem;
  sfs::create_directories(root + "/_delta_log");
  auto fs = io::NewLocalFileSystem();
  auto schema = parquet::BuildSchema(CheckpointFields());
  ASSERT_TRUE(schema.ok());
  auto out = fs->Create(root + "/_delta_log/00000000000000000002.checkpoint.parquet");
  ASSERT_TRUE(out.ok());
  auto w = parquet::FileWriter::Open(std::move(*out), *schema);
  ASSERT_TRUE(w.ok());
  parquet::RowBatchBuilder b((*w)->schema());
  auto flush = [&] {
    if (b.num_rows() > 0) {
      ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
    }
  };
  ASSERT_TRUE(b.Append(Row(3, PV::Struct({PV::Int(3), PV::Int(7), PV::List({PV::String("deletionVectors")}),
                                          PV::List({PV::String("deletionVectors")})})))
                  .ok());
  ASSERT_TRUE(b.Append(Row(2, PV::Struct({PV::String("id"), PV::String("{\"type\":\"struct\",\"fields\":[]}"),
                                          PV::List({PV::String("d")}), PV::Struct({PV::String("parquet"), PV::Map({})}),
                                          PV::Map({}), PV::Int(1)})))
                  .ok());
  for (int i = 0; i < files; ++i) {
    PV dv = PV::Null();
    if (i % 10 == 0) {
      std::string z85 = "ab^-aqEH.-t@S}K{vb[*";
      z85[0] = "0123456789"[i % 10 == 0 ? (i / 10) % 10 : 0];
      dv = PV::Struct({PV::String("u"), PV::String(z85), PV::Int(1), PV::Int(36), PV::Int(1 + i % 5), PV::Null()});
    }
    PV stats = i % 3 == 0 ? PV::String("{\"numRecords\":" + std::to_string(10 + i) + "}") : PV::Null();
    ASSERT_TRUE(b.Append(Row(0, PV::Struct({PV::String(FileName(i)),
                                            PV::Map({{PV::String("d"), PV::String(std::to_string(i % 7))}}),
                                            PV::Int(i == bad_row ? -1 : 1000 + i), PV::Int(i), PV::Bool(false),
                                            stats, PV::Null(), dv})))
                    .ok());
    if (b.num_rows() >= 5000) flush();
  }
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(b.Append(Row(1, PV::Struct({PV::String("gone-" + std::to_string(i) + ".parquet"), PV::Int(5),
                                            PV::Bool(true)})))
                    .ok());
  }
  flush();
  ASSERT_TRUE((*w)->Close().ok());
  for (int v = 3; v <= 4; ++v) {
    std::string text = "{\"commitInfo\":{\"timestamp\":" + std::to_string(v) + "}}\n";
    for (int i = v; i < files; i += 97) {
      text += "{\"remove\":{\"path\":\"" + FileName(i) + "\",\"deletionTimestamp\":9,\"dataChange\":true}}\n";
      if (i % 2 == 0) {
        text += "{\"add\":{\"path\":\"" + FileName(i) + "\",\"partitionValues\":{\"d\":\"x\"},\"size\":" +
                std::to_string(v) + ",\"modificationTime\":1,\"dataChange\":true}}\n";
      }
    }
    char name[64];
    std::snprintf(name, sizeof name, "/_delta_log/%020d.json", v);
    std::ofstream(root + name) << text;
  }
}

struct Seen {
  std::vector<std::string> rows;  // path|size|dv|pv|stats per live file, in store order
  std::string error;
};

Seen LoadWith(const std::string& root, int threads, StatsMode stats) {
  auto fs = io::NewLocalFileSystem();
  LoadOptions o;
  o.stats = stats;
  o.threads = threads;
  auto snap = Snapshot::Load(fs.get(), root, VersionSpec::Latest(), o);
  Seen s;
  if (!snap.ok()) {
    s.error = snap.status().ToString();
    return s;
  }
  for (LiveFileView f : (*snap)->live_files()) {
    std::string row = std::string(f.path()) + "|" + std::to_string(f.size()) + "|" + std::string(f.dv_unique_id()) + "|";
    for (const auto& e : f.partition_values()) row += std::string(e.key) + "=" + std::string(e.value.value_or("null"));
    row += "|" + std::string(f.stats_raw().value_or("-"));
    s.rows.push_back(std::move(row));
  }
  return s;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lithify-live-files-XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::string path(const std::string& name) const { return root_ + "/" + name; }

 private:
  std::string root_;
};

TEST(LiveFilesTest, TwoThreadReplayEqualsSequentialReplay) {
  TempDir dir;
  const int kFiles = 3 * static_cast<int>(kCheckpointBatchRows) + 123;  // several batches: the pipeline runs
  WriteTable(dir.path("t"), kFiles, /*bad_row=*/-1);
  Seen one = LoadWith(dir.path("t"), 1, StatsMode::kRaw);
  ASSERT_EQ(one.error, "");
  // Commits 3 and 4 remove every 97th file (from 3 and from 4) without a DV, and re-add
  // the even ones: a checkpoint add with a DV is another logical file and survives.
  size_t live = 0;
  for (int i = 0; i < kFiles; ++i) {
    bool touched = (i >= 3 && (i - 3) % 97 == 0) || (i >= 4 && (i - 4) % 97 == 0);
    if (!touched || i % 10 == 0) ++live;
    if (touched && i % 2 == 0) ++live;
  }
  EXPECT_EQ(one.rows.size(), live);
  for (int run = 0; run < 3; ++run) {
    Seen two = LoadWith(dir.path("t"), 2, StatsMode::kRaw);
    ASSERT_EQ(two.error, "");
    EXPECT_EQ(two.rows, one.rows);  // same files, same order
  }
  // A re-added file carries the commit's size, and commit adds precede checkpoint adds.
  EXPECT_NE(std::find(one.rows.begin(), one.rows.end(), FileName(4) + "|4||d=x|-"), one.rows.end());
  EXPECT_EQ(one.rows.front().substr(one.rows.front().find('|'), 3), "|4|");
}

// Commit parsing and checkpoint decoding are CPU-pool tasks: with every pool thread busy
// the loading thread does that work itself and the result is the same.
TEST(LiveFilesTest, TwoThreadReplayCompletesWhenThePoolIsBusy) {
  TempDir dir;
  const int kFiles = 2 * static_cast<int>(kCheckpointBatchRows) + 123;  // the pipeline runs
  WriteTable(dir.path("t"), kFiles, /*bad_row=*/-1);
  Seen one = LoadWith(dir.path("t"), 1, StatsMode::kRaw);
  ASSERT_EQ(one.error, "");
  BusyCpuPool busy;
  Seen two = LoadWith(dir.path("t"), 2, StatsMode::kRaw);
  ASSERT_EQ(two.error, "");
  EXPECT_EQ(two.rows, one.rows);
}

TEST(LiveFilesTest, TwoThreadReplayReportsTheSequentialError) {
  TempDir dir;
  const int kFiles = 2 * static_cast<int>(kCheckpointBatchRows) + 10;
  const int kBad = static_cast<int>(kCheckpointBatchRows) + 77;  // in the second batch
  WriteTable(dir.path("t"), kFiles, kBad);
  Seen one = LoadWith(dir.path("t"), 1, StatsMode::kNone);
  Seen two = LoadWith(dir.path("t"), 2, StatsMode::kNone);
  EXPECT_NE(one.error.find("add.size -1 is negative"), std::string::npos) << one.error;
  EXPECT_NE(one.error.find("row " + std::to_string(kBad + 2)), std::string::npos) << one.error;  // 2 rows precede
  EXPECT_EQ(two.error, one.error);
}

TEST(LiveFilesTest, NewestMalformedCommitIsReportedWithTwoThreads) {
  TempDir dir;
  WriteTable(dir.path("t"), 100, -1);
  // Both commits malformed: newest-first replay reports version 4.
  std::ofstream(dir.path("t/_delta_log/00000000000000000003.json")) << "{\"add\":{\"path\":1}}\n";
  std::ofstream(dir.path("t/_delta_log/00000000000000000004.json")) << "{\"add\":\n";
  for (int threads : {1, 2}) {
    Seen s = LoadWith(dir.path("t"), threads, StatsMode::kNone);
    EXPECT_NE(s.error.find("00000000000000000004.json line 1"), std::string::npos) << s.error;
  }
}


// The checkpoint path (flat extraction, add path hints settled ahead of ApplyAdd, the
// decoding thread) must keep exactly the files a replay of the same actions as plain
// commits keeps: plain, percent-encoded and absolute paths, with and without DVs, some
// removed by a newer commit under their own or another spelling.
TEST(LiveFilesTest, CheckpointReplayEqualsTheSameActionsAsCommits) {
  TempDir dir;
  const std::string cp_root = dir.path("cp"), json_root = dir.path("json");
  const int kFiles = static_cast<int>(kCheckpointBatchRows) + 2500;  // two batches: the pipeline runs
  auto path_of = [&](const std::string& root, int i) -> std::string {
    if (i % 50 == 1) return "d=" + std::to_string(i % 7) + "/a%20b-" + std::to_string(i) + ".parquet";  // encoded
    if (i % 50 == 2) return "file:" + root + "/abs-" + std::to_string(i) + ".parquet";                  // absolute
    return FileName(i);
  };
  auto dv_of = [](int i) -> std::string {
    if (i % 10 != 0) return "";
    std::string z85 = "ab^-aqEH.-t@S}K{vb[*";
    z85[0] = "0123456789"[(i / 10) % 10];
    return z85;
  };
  // Commit 2 removes every 13th file (an encoded path by its decoded spelling), and
  // re-adds every 26th with a new size.
  auto commit2 = [&](const std::string& root) {
    std::string text = "{\"commitInfo\":{\"timestamp\":2}}\n";
    for (int i = 0; i < kFiles; i += 13) {
      std::string p = path_of(root, i);
      if (i % 50 == 1) p = "d=" + std::to_string(i % 7) + "/a b-" + std::to_string(i) + ".parquet";
      text += "{\"remove\":{\"path\":\"" + p + "\",\"deletionTimestamp\":9,\"dataChange\":true}}\n";
      if (i % 26 == 0) {
        text += "{\"add\":{\"path\":\"" + path_of(root, i) + "\",\"partitionValues\":{\"d\":\"x\"},\"size\":7,"
                "\"modificationTime\":1,\"dataChange\":true}}\n";
      }
    }
    std::ofstream(root + "/_delta_log/00000000000000000002.json") << text;
  };
  const std::string protocol =
      "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
      "\"writerFeatures\":[\"deletionVectors\"]}}\n";
  const std::string metadata =
      "{\"metaData\":{\"id\":\"id\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
      "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[\"d\"],"
      "\"configuration\":{},\"createdTime\":1}}\n";

  // Table 1: the actions in a Parquet checkpoint at version 1.
  std::filesystem::create_directories(cp_root + "/_delta_log");
  {
    auto fs = io::NewLocalFileSystem();
    auto schema = parquet::BuildSchema(CheckpointFields());
    ASSERT_TRUE(schema.ok());
    auto out = fs->Create(cp_root + "/_delta_log/00000000000000000001.checkpoint.parquet");
    ASSERT_TRUE(out.ok());
    auto w = parquet::FileWriter::Open(std::move(*out), *schema);
    ASSERT_TRUE(w.ok());
    parquet::RowBatchBuilder b((*w)->schema());
    ASSERT_TRUE(b.Append(Row(3, PV::Struct({PV::Int(3), PV::Int(7), PV::List({PV::String("deletionVectors")}),
                                            PV::List({PV::String("deletionVectors")})})))
                    .ok());
    ASSERT_TRUE(b.Append(Row(2, PV::Struct({PV::String("id"), PV::String("{\"type\":\"struct\",\"fields\":[]}"),
                                            PV::List({PV::String("d")}), PV::Struct({PV::String("parquet"), PV::Map({})}),
                                            PV::Map({}), PV::Int(1)})))
                    .ok());
    for (int i = 0; i < kFiles; ++i) {
      PV dv = dv_of(i).empty() ? PV::Null()
                               : PV::Struct({PV::String("u"), PV::String(dv_of(i)), PV::Int(1), PV::Int(36),
                                             PV::Int(1 + i % 5), PV::Null()});
      ASSERT_TRUE(b.Append(Row(0, PV::Struct({PV::String(path_of(cp_root, i)),
                                              PV::Map({{PV::String("d"), PV::String(std::to_string(i % 7))}}),
                                              PV::Int(1000 + i), PV::Int(i), PV::Bool(false), PV::Null(), PV::Null(),
                                              dv})))
                      .ok());
    }
    ASSERT_TRUE((*w)->WriteBatch(b.Finish()).ok());
    ASSERT_TRUE((*w)->Close().ok());
    commit2(cp_root);
  }
  // Table 2: the same actions as commits 0 and 1.
  std::filesystem::create_directories(json_root + "/_delta_log");
  {
    std::ofstream(json_root + "/_delta_log/00000000000000000000.json") << protocol << metadata;
    std::string text;
    for (int i = 0; i < kFiles; ++i) {
      text += "{\"add\":{\"path\":\"" + path_of(json_root, i) + "\",\"partitionValues\":{\"d\":\"" +
              std::to_string(i % 7) + "\"},\"size\":" + std::to_string(1000 + i) + ",\"modificationTime\":" +
              std::to_string(i) + ",\"dataChange\":false";
      if (!dv_of(i).empty()) {
        text += ",\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"" + dv_of(i) +
                "\",\"offset\":1,\"sizeInBytes\":36,\"cardinality\":" + std::to_string(1 + i % 5) + "}";
      }
      text += "}}\n";
    }
    std::ofstream(json_root + "/_delta_log/00000000000000000001.json") << text;
    commit2(json_root);
  }
  Seen reference = LoadWith(json_root, 1, StatsMode::kNone);
  ASSERT_EQ(reference.error, "");
  std::sort(reference.rows.begin(), reference.rows.end());
  size_t removed = 0;
  for (int i = 0; i < kFiles; i += 13) removed += dv_of(i).empty() ? 1 : 0;  // a remove without DV keeps a DV add
  size_t readded = 0;
  for (int i = 0; i < kFiles; i += 26) ++readded;
  EXPECT_EQ(reference.rows.size(), kFiles - removed + readded);
  for (int threads : {1, 2}) {
    Seen s = LoadWith(cp_root, threads, StatsMode::kNone);
    ASSERT_EQ(s.error, "") << threads;
    std::sort(s.rows.begin(), s.rows.end());
    EXPECT_EQ(s.rows, reference.rows) << threads << " thread(s)";
  }
}

// StatsMode::kNumRecords: every file keeps exactly kParsed's numRecords and nothing else
// of its statistics, on tables written by several engines (with and without checkpoints).
TEST(LiveFilesTest, NumRecordsModeKeepsTheRowCountsOnly) {
  auto fs = io::NewLocalFileSystem();
  for (const char* name : {"dv-partitioned-with-checkpoint", "basic-with-inserts-deletes-checkpoint"}) {
    const std::string table = testing::GoldenTable(name);
    auto parsed = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kParsed});
    auto counts = Snapshot::Load(fs.get(), table, VersionSpec::Latest(), LoadOptions{StatsMode::kNumRecords});
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    ASSERT_TRUE(counts.ok()) << counts.status().ToString();
    const auto& a = (*parsed)->files();
    const auto& b = (*counts)->files();
    ASSERT_EQ(a.size(), b.size()) << name;
    int with_counts = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].path, b[i].path);
      EXPECT_EQ(a[i].num_records(), b[i].num_records()) << name << " " << a[i].path;
      if (b[i].stats) {
        EXPECT_TRUE(b[i].stats->columns.empty());
        EXPECT_TRUE(b[i].stats->raw.empty());
      }
      with_counts += b[i].num_records().has_value();
    }
    EXPECT_GT(with_counts, 0) << name;
  }
}
}  // namespace
}  // namespace lithify::delta
