#include "lithify/delta/snapshot.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/io/uri.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "lithify/delta/test_util.h"

namespace lithify::delta {
namespace {

using testing::DeltaRsTable;
using testing::GoldenTable;
using testing::KernelTable;
using testing::TempTable;

struct CorpusTable {
  const char* source;  // golden | kernel | deltars
  const char* name;
  int64_t log_rows;    // corpus README §2 "log" count
};

std::string TablePath(const CorpusTable& t) {
  std::string s = t.source;
  if (s == "golden") return GoldenTable(t.name);
  if (s == "kernel") return KernelTable(t.name);
  return DeltaRsTable(t.name);
}

// Every table of corpus README §2 with a "log" row count, except the ones whose reader
// features lithify refuses (tested below) and crc-malformed (no commits at all).
const CorpusTable kTables[] = {
    {"golden", "basic-decimal-table", 4},
    {"golden", "basic-decimal-table-legacy", 4},
    {"golden", "basic-with-inserts-deletes-checkpoint", 41},
    {"golden", "basic-with-inserts-merge", 140},
    {"golden", "basic-with-inserts-overwrite-restore", 200},
    {"golden", "basic-with-inserts-updates", 100},
    {"golden", "basic-with-vacuum-protocol-check-feature", 100},
    {"golden", "corrupted-last-checkpoint-kernel", 100},
    {"golden", "data-reader-timestamp_ntz", 9},
    {"golden", "data-reader-timestamp_ntz-id-mode", 9},
    {"golden", "data-reader-timestamp_ntz-name-mode", 9},
    {"golden", "data-skipping-basic-stats-all-types", 1},
    {"golden", "data-skipping-basic-stats-all-types-checkpoint", 1},
    {"golden", "data-skipping-basic-stats-all-types-columnmapping-id", 1},
    {"golden", "data-skipping-basic-stats-all-types-columnmapping-name", 1},
    {"golden", "data-skipping-change-stats-collected-across-versions", 3},
    {"golden", "data-skipping-partition-and-data-column", 4},
    {"golden", "decimal-various-scale-precision", 3},
    {"golden", "deltalog-getChanges", 0},
    {"golden", "dv-partitioned-with-checkpoint", 35},
    {"golden", "dv-with-columnmapping", 35},
    {"golden", "kernel-timestamp-int96", 5},
    {"golden", "kernel-timestamp-pst", 5},
    {"golden", "kernel-timestamp-timestamp_micros", 5},
    {"golden", "kernel-timestamp-timestamp_millis", 5},
    {"golden", "log-replay-dv-key-cases", 47},
    {"golden", "log-replay-latest-metadata-protocol", 40},
    {"golden", "log-replay-special-characters", 0},
    {"golden", "log-replay-special-characters-a", 0},
    {"golden", "multi-part-checkpoint", 31},
    {"golden", "only-checkpoint-files", 25},
    {"golden", "parquet-all-types", 200},
    {"golden", "parquet-all-types-legacy-format", 200},
    {"golden", "parquet-decimal-dictionaries", 1000000},
    {"golden", "table-with-columnmapping-mode-id", 6},
    {"golden", "table-with-columnmapping-mode-name", 6},
    {"golden", "v2-checkpoint-json", 10},
    {"golden", "v2-checkpoint-parquet", 10},
    {"kernel", "app-txn-checkpoint", 22},
    {"kernel", "app-txn-no-checkpoint", 22},
    {"kernel", "app-txn-with-last-updated", 8},
    {"kernel", "basic-decimal-table", 4},
    {"kernel", "basic_partitioned", 6},
    {"kernel", "cdf-column-mapping-id-mode", 3},
    {"kernel", "cdf-column-mapping-name-mode", 3},
    {"kernel", "cdf-column-mapping-name-mode-3-7", 3},
    {"kernel", "cdf-table", 9},
    {"kernel", "cdf-table-backtick-column-names", 5},
    {"kernel", "cdf-table-data-change", 10},
    {"kernel", "cdf-table-delete-conditional-all-rows", 0},
    {"kernel", "cdf-table-delete-conditional-two-rows", 8},
    {"kernel", "cdf-table-delete-unconditional", 0},
    {"kernel", "cdf-table-non-partitioned", 11},
    {"kernel", "cdf-table-partitioned", 2},
    {"kernel", "cdf-table-simple", 0},
    {"kernel", "cdf-table-update-ops", 10},
    {"kernel", "cdf-table-with-cdc-and-dvs", 5},
    {"kernel", "cdf-table-with-dv", 10},
    {"kernel", "compacted-log-files-table", 5},
    {"kernel", "crc-full", 0},
    {"kernel", "data-reader-timestamp_ntz", 9},
    {"kernel", "external-table-different-nullability", 7},
    {"kernel", "mixed-nulls", 15},
    {"kernel", "parsed-stats", 600},
    {"kernel", "partition_cm/none", 0},
    {"kernel", "partition_cm/id", 0},
    {"kernel", "partition_cm/name", 0},
    {"kernel", "partitioned_with_materialize_feature", 6},
    {"kernel", "stats-writing-all-types/delta", 4},
    {"kernel", "table-with-cdf", 0},
    {"kernel", "table-with-dv-small", 8},
    {"kernel", "table-without-dv-small", 10},
    {"kernel", "timestamp-partitioned-table", 1},
    {"kernel", "timestamp-truncation-stats", 6},
    {"kernel", "v1-multi-part-partitioned-struct-stats-only", 5},
    {"kernel", "v1-multi-part-struct-stats-only", 5},
    {"kernel", "v1-single-part-struct-stats-only", 5},
    {"kernel", "v2-checkpoints-json-with-last-checkpoint", 10},
    {"kernel", "v2-checkpoints-json-without-sidecars", 11},
    {"kernel", "v2-checkpoints-parquet-with-last-checkpoint", 10},
    {"kernel", "v2-checkpoints-parquet-without-sidecars", 11},
    {"kernel", "v2-classic-checkpoint-json", 20},
    {"kernel", "v2-classic-checkpoint-parquet", 20},
    {"kernel", "v2-classic-parquet-struct-stats-only", 5},
    {"kernel", "v2-json-sidecars-struct-stats-only", 5},
    {"kernel", "v2-parquet-sidecars-struct-stats-only", 5},
    {"kernel", "void-column", 3},
    {"kernel", "with-short-dv", 7},
    {"kernel", "with_checkpoint_no_last_checkpoint", 5},
    {"deltars", "cdc_ict_table", 2},
    {"deltars", "checkpoint-v2-table", 44},
    {"deltars", "checkpoints", 12},
    {"deltars", "checkpoints_vacuumed", 12},
    {"deltars", "delta-0.8-empty", 0},
    {"deltars", "delta-0.8.0", 4},
    {"deltars", "delta-1.2.1-only-struct-stats", 12},
    {"deltars", "delta-2.2.0-partitioned-types", 3},
    {"deltars", "delta-live-table", 0},
    {"deltars", "http_requests", 1581},
    {"deltars", "issue_1374", 20},
    {"deltars", "latest_not_checkpointed", 5},
    {"deltars", "partition-type-primitives", 16},
    {"deltars", "python-0.25.5-checkpoint", 6},
    {"deltars", "simple_table_with_cdc", 1},
    {"deltars", "table-with-domain-metadata", 436},
    {"deltars", "table_failed_last_checkpoint_update", 20},
    {"deltars", "table_with_column_mapping", 5},
    {"deltars", "table_with_deletion_logs", 98},
    {"deltars", "table_with_edge_timestamps", 2},
    {"deltars", "table_with_liquid_clustering", 10},
    {"deltars", "table_with_null_stats_in_notnull_struct", 2},
    {"deltars", "table_with_partitioning_mapping", 2},
};

class CorpusReplayTest : public ::testing::TestWithParam<CorpusTable> {};

// Replay validation: sum(numRecords) - sum(DV cardinality) over live files equals the
// README's count (covers JSON commits, classic / multi-part / V2 checkpoints, sidecars,
// stats_parsed-only checkpoints and DV reconciliation).
TEST_P(CorpusReplayTest, LiveRowCountMatchesReadme) {
  auto fs = io::NewLocalFileSystem();
  auto snap = Snapshot::Load(fs.get(), TablePath(GetParam()));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  int64_t rows = 0;
  for (const auto& f : (*snap)->files()) {
    ASSERT_TRUE(f.num_records().has_value()) << f.path << " has no numRecords";
    rows += *f.num_live_records();
    EXPECT_FALSE(f.path.empty());
    EXPECT_NE(f.path.front(), '/');
  }
  EXPECT_EQ(rows, GetParam().log_rows);
  EXPECT_GE((*snap)->version(), 0);
  EXPECT_FALSE((*snap)->metadata().id.empty());
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusReplayTest, ::testing::ValuesIn(kTables),
                         [](const auto& info) {
                           std::string n = std::string(info.param.source) + "_" + info.param.name;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(SnapshotTest, LatestVersionNumbers) {
  auto fs = io::NewLocalFileSystem();
  const std::pair<std::string, int64_t> cases[] = {
      {GoldenTable("basic-with-inserts-deletes-checkpoint"), 13},
      {GoldenTable("125-iterator-bug"), 11},
      {GoldenTable("multi-part-checkpoint"), 1},
      {GoldenTable("corrupted-last-checkpoint-kernel"), 11},
      {DeltaRsTable("checkpoints_vacuumed"), 12},
      {DeltaRsTable("table-with-domain-metadata"), 108},
      {DeltaRsTable("table_failed_last_checkpoint_update"), 3},
      {KernelTable("compacted-log-files-table"), 25},
  };
  for (const auto& [path, version] : cases) {
    auto snap = Snapshot::Load(fs.get(), path);
    ASSERT_TRUE(snap.ok()) << path << ": " << snap.status().ToString();
    EXPECT_EQ((*snap)->version(), version) << path;
  }
}

TEST(SnapshotTest, ProtocolGateNamesUnsupportedReaderFeatures) {
  auto fs = io::NewLocalFileSystem();
  const std::pair<std::string, std::string> cases[] = {
      {KernelTable("type-widening"), "typeWidening-preview"},
      {KernelTable("unshredded-variant"), "variantType-preview"},
      {DeltaRsTable("spark-variant-stable-feature-checkpoint"), "variantType"},
      {KernelTable("table-with-geo"), "geospatial"},
      {DeltaRsTable("simple_table_features"), "blahabl"},
      {GoldenTable("deltalog-invalid-protocol-version"), "reader version 99"},
  };
  for (const auto& [path, feature] : cases) {
    auto snap = Snapshot::Load(fs.get(), path);
    ASSERT_FALSE(snap.ok()) << path;
    EXPECT_TRUE(snap.status().IsNotSupported()) << path << ": " << snap.status().ToString();
    EXPECT_NE(snap.status().message().find("'" + feature + "'") == std::string::npos
                  ? snap.status().message().find(feature)
                  : 0,
              std::string::npos)
        << snap.status().message();
  }
  // Older versions of type-widening predate the feature and stay readable.
  auto v0 = Snapshot::Load(fs.get(), KernelTable("type-widening"), VersionSpec::AtVersion(0));
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
}

TEST(SnapshotTest, CanWriteReflectsWriterFeatures) {
  auto fs = io::NewLocalFileSystem();
  auto dv = Snapshot::Load(fs.get(), GoldenTable("dv-partitioned-with-checkpoint"));
  ASSERT_TRUE(dv.ok());
  EXPECT_TRUE((*dv)->CanWrite()) << (*dv)->write_block_reason();
  Protocol p{1, 7, std::nullopt, std::vector<std::string>{"appendOnly", "someFutureFeature"}};
  EXPECT_NE(WriteBlockReason(p).find("someFutureFeature"), std::string::npos);
  EXPECT_NE(WriteBlockReason(Protocol{1, 8, std::nullopt, std::nullopt}).find("8"), std::string::npos);
  EXPECT_TRUE(CheckReadSupported(Protocol{2, 5, std::nullopt, std::nullopt}).ok());
}

TEST(SnapshotTest, NegativeTablesFailCleanly) {
  auto fs = io::NewLocalFileSystem();
  struct Case { std::string path; StatusCode code; const char* needle; };
  const Case cases[] = {
      {GoldenTable("versions-not-contiguous"), StatusCode::kCorruption, "commit 1"},
      {GoldenTable("deltalog-state-reconstruction-without-metadata"), StatusCode::kCorruption, "metaData"},
      {GoldenTable("deltalog-state-reconstruction-without-protocol"), StatusCode::kCorruption, "protocol"},
      {GoldenTable("deltalog-state-reconstruction-from-checkpoint-missing-metadata"), StatusCode::kCorruption, "metaData"},
      {GoldenTable("deltalog-state-reconstruction-from-checkpoint-missing-protocol"), StatusCode::kCorruption, "protocol"},
      {testing::CorpusDir() + "/delta-kernel-rs/kernel/tests/golden_data/no-delta-log-folder", StatusCode::kNotFound, ""},
      {KernelTable("crc-malformed"), StatusCode::kNotFound, ""},
  };
  for (const auto& c : cases) {
    auto snap = Snapshot::Load(fs.get(), c.path);
    ASSERT_FALSE(snap.ok()) << c.path;
    EXPECT_EQ(snap.status().code(), c.code) << c.path << ": " << snap.status().ToString();
    EXPECT_NE(snap.status().message().find(c.needle), std::string::npos) << snap.status().message();
  }
}

std::set<std::string> Paths(const Snapshot& s) {
  std::set<std::string> out;
  for (const auto& f : s.files()) out.insert(f.path);
  return out;
}

TEST(SnapshotTest, TimeTravelByVersionMatchesEarlierTables) {
  auto fs = io::NewLocalFileSystem();
  // time-travel-start{,-start20,-start20-start40} are the same table after 1, 2, 3 commits.
  auto latest = Snapshot::Load(fs.get(), GoldenTable("time-travel-start-start20-start40"));
  auto v0 = Snapshot::Load(fs.get(), GoldenTable("time-travel-start-start20-start40"), VersionSpec::AtVersion(0));
  auto v1 = Snapshot::Load(fs.get(), GoldenTable("time-travel-start-start20-start40"), VersionSpec::AtVersion(1));
  auto start = Snapshot::Load(fs.get(), GoldenTable("time-travel-start"));
  auto start20 = Snapshot::Load(fs.get(), GoldenTable("time-travel-start-start20"));
  ASSERT_TRUE(latest.ok() && v0.ok() && v1.ok() && start.ok() && start20.ok());
  EXPECT_EQ((*latest)->version(), 2);
  EXPECT_EQ(Paths(**v0), Paths(**start));
  EXPECT_EQ(Paths(**v1), Paths(**start20));
  EXPECT_LT(Paths(**v1).size(), Paths(**latest).size());
  auto beyond = Snapshot::Load(fs.get(), GoldenTable("time-travel-start"), VersionSpec::AtVersion(1));
  EXPECT_TRUE(beyond.status().IsNotFound()) << beyond.status().ToString();
  // Log cleaned up before version 5 and the checkpoint is at 5: version 4 is gone.
  auto cleaned = Snapshot::Load(fs.get(), DeltaRsTable("checkpoints_vacuumed"), VersionSpec::AtVersion(4));
  EXPECT_TRUE(cleaned.status().IsNotFound()) << cleaned.status().ToString();
  auto at5 = Snapshot::Load(fs.get(), DeltaRsTable("checkpoints_vacuumed"), VersionSpec::AtVersion(5));
  EXPECT_TRUE(at5.ok()) << at5.status().ToString();
}

TEST(SnapshotTest, ReplayReconcilesOnPathAndDeletionVector) {
  auto fs = io::NewLocalFileSystem();
  // The same file re-added with different DVs: only the newest (path, dv) survives.
  auto snap = Snapshot::Load(fs.get(), GoldenTable("log-replay-dv-key-cases"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  std::set<std::string> paths;
  for (const auto& f : (*snap)->files()) EXPECT_TRUE(paths.insert(f.path).second) << f.path;
  // A file removed then re-added in a later commit is live.
  auto readd = Snapshot::Load(fs.get(), GoldenTable("delete-re-add-same-file-different-transactions"));
  ASSERT_TRUE(readd.ok()) << readd.status().ToString();
  EXPECT_FALSE((*readd)->files().empty());
  for (const auto& t : (*readd)->tombstones()) {
    EXPECT_EQ(Paths(**readd).count(t.path), 0u) << "tombstone of a live file: " << t.path;
  }
}

TEST(SnapshotTest, TxnsDomainsTombstonesAndMetadata) {
  auto fs = io::NewLocalFileSystem();
  for (const char* name : {"app-txn-checkpoint", "app-txn-no-checkpoint"}) {
    auto snap = Snapshot::Load(fs.get(), KernelTable(name));
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_TRUE((*snap)->txns().count("my-app")) << name;
    EXPECT_EQ((*snap)->txns().at("my-app").version, 3) << name;
  }
  auto liquid = Snapshot::Load(fs.get(), DeltaRsTable("table_with_liquid_clustering"));
  ASSERT_TRUE(liquid.ok()) << liquid.status().ToString();
  EXPECT_TRUE((*liquid)->domain_metadata().count("delta.liquid"));
  EXPECT_TRUE((*liquid)->domain_metadata().count("delta.rowTracking"));
  auto dm = Snapshot::Load(fs.get(), DeltaRsTable("table-with-domain-metadata"));
  ASSERT_TRUE(dm.ok()) << dm.status().ToString();
  EXPECT_FALSE((*dm)->domain_metadata().empty());

  auto deletes = Snapshot::Load(fs.get(), GoldenTable("basic-with-inserts-deletes-checkpoint"));
  ASSERT_TRUE(deletes.ok());
  EXPECT_FALSE((*deletes)->tombstones().empty());
  for (const auto& t : (*deletes)->tombstones()) EXPECT_TRUE(t.remove.deletion_timestamp.has_value());

  auto latest = Snapshot::Load(fs.get(), GoldenTable("log-replay-latest-metadata-protocol"));
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->protocol().min_reader_version, 3);
  EXPECT_EQ((*latest)->protocol().min_writer_version, 7);
  auto part = Snapshot::Load(fs.get(), DeltaRsTable("table_with_column_mapping"));
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ((*part)->partition_columns(), std::vector<std::string>{"Company Very Short"});
  EXPECT_EQ((*part)->column_mapping_mode(), ColumnMappingMode::kName);
}

// Checkpoint reading cross-check: the state at the checkpoint's version must equal the
// state replayed from JSON commits alone (checkpoint files removed in a temp copy).
TEST(SnapshotTest, CheckpointStateEqualsCommitReplay) {
  auto fs = io::NewLocalFileSystem();
  for (const std::string& src :
       {GoldenTable("basic-with-inserts-deletes-checkpoint"), GoldenTable("dv-partitioned-with-checkpoint"),
        GoldenTable("multi-part-checkpoint"), GoldenTable("v2-checkpoint-json"),
        GoldenTable("v2-checkpoint-parquet"), KernelTable("app-txn-checkpoint"),
        KernelTable("v2-checkpoints-parquet-without-sidecars"), KernelTable("parsed-stats")}) {
    auto with_cp = Snapshot::Load(fs.get(), src);
    ASSERT_TRUE(with_cp.ok()) << src << ": " << with_cp.status().ToString();
    ASSERT_TRUE((*with_cp)->log_segment().checkpoint_version.has_value()) << src;
    TempTable t(src);
    for (auto& e : std::filesystem::directory_iterator(t.root() + "/_delta_log")) {
      std::string n = e.path().filename();
      if (n.find(".checkpoint.") != std::string::npos || n == "_last_checkpoint") std::filesystem::remove(e.path());
    }
    auto replayed = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(replayed.ok()) << src << ": " << replayed.status().ToString();
    EXPECT_FALSE((*replayed)->log_segment().checkpoint_version.has_value());
    const auto& a = (*with_cp)->files();
    const auto& b = (*replayed)->files();
    ASSERT_EQ(a.size(), b.size()) << src;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].path, b[i].path) << src;
      EXPECT_EQ(a[i].size, b[i].size) << src;
      EXPECT_EQ(a[i].partition_values, b[i].partition_values) << src;
      EXPECT_EQ(a[i].deletion_vector, b[i].deletion_vector) << src;
      EXPECT_EQ(a[i].num_records(), b[i].num_records()) << src;
    }
    // Writers may re-serialize schemaString (whitespace): compare it parsed.
    Metadata ma = (*with_cp)->metadata(), mb = (*replayed)->metadata();
    EXPECT_EQ((*with_cp)->schema().fields.size(), (*replayed)->schema().fields.size()) << src;
    ma.schema_string.clear();
    mb.schema_string.clear();
    EXPECT_EQ(ma, mb)
        << src << "\n" << ActionToJson((*with_cp)->metadata()) << "\n" << ActionToJson((*replayed)->metadata());
    EXPECT_EQ((*with_cp)->protocol(), (*replayed)->protocol()) << src;
    EXPECT_EQ((*with_cp)->txns().size(), (*replayed)->txns().size()) << src;
  }
}

TEST(SnapshotTest, MissingCommitInTheMiddleIsCorruptionNamingTheVersion) {
  TempTable t(GoldenTable("basic-with-inserts-merge"));
  std::filesystem::remove(t.log("00000000000000000000.json"));
  TempTable u(DeltaRsTable("simple_table"));
  std::filesystem::remove(u.log("00000000000000000002.json"));
  auto fs = io::NewLocalFileSystem();
  auto r = Snapshot::Load(fs.get(), u.root());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("commit 2"), std::string::npos) << r.status().message();
  EXPECT_TRUE(Snapshot::Load(fs.get(), u.root(), VersionSpec::AtVersion(1)).ok());
  auto first_gone = Snapshot::Load(fs.get(), t.root());
  EXPECT_FALSE(first_gone.ok());
}

TEST(SnapshotTest, MalformedCommitLineIsCorruptionWithFileAndLine) {
  TempTable t(DeltaRsTable("simple_table"));
  {
    std::ofstream out(t.log("00000000000000000003.json"), std::ios::app);
    out << "{\"add\":{\"path\":\"x.parquet\",\"size\":1,\n";
  }
  auto fs = io::NewLocalFileSystem();
  auto r = Snapshot::Load(fs.get(), t.root());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("_delta_log/00000000000000000003.json line"), std::string::npos)
      << r.status().message();
}

TEST(SnapshotTest, AddPathsEscapingTheRootAreCorruption) {
  for (const char* bad : {"../outside.parquet", "a/../../outside.parquet"}) {
    TempTable t(DeltaRsTable("simple_table"));
    {
      std::ofstream out(t.log("00000000000000000005.json"));
      out << "{\"add\":{\"path\":\"" << bad
          << "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n";
    }
    auto fs = io::NewLocalFileSystem();
    auto r = Snapshot::Load(fs.get(), t.root());
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find("00000000000000000005.json"), std::string::npos)
        << r.status().message();
  }
}

// PROTOCOL.md: an add's path is "a relative path ... or an absolute path to a file that
// should be added to the table" (shallow clones). Such a file is live under its canonical
// absolute key, and a commit that removes it writes that location back.
TEST(SnapshotTest, AbsoluteAddPathsOutsideTheRootAreLive) {
  const std::pair<const char*, const char*> cases[] = {
      {"/etc/elsewhere/x.parquet", "/etc/elsewhere/x.parquet"},
      {"file:/tmp/elsewhere/x%20y.parquet", "/tmp/elsewhere/x y.parquet"},
      {"file:///tmp/elsewhere/./x.parquet", "/tmp/elsewhere/x.parquet"},
      {"s3a://bucket/src/p%3D1/x.parquet", "s3://bucket/src/p=1/x.parquet"},
  };
  for (const auto& [path, key] : cases) {
    SCOPED_TRACE(path);
    TempTable t(DeltaRsTable("simple_table"));
    auto fs = io::NewLocalFileSystem();
    auto before = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    {
      std::ofstream out(t.log("00000000000000000005.json"));
      out << "{\"add\":{\"path\":\"" << path
          << "\",\"partitionValues\":{},\"size\":7,\"modificationTime\":1,\"dataChange\":true}}\n";
    }
    auto r = Snapshot::Load(fs.get(), t.root());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ((*r)->files().size(), (*before)->files().size() + 1);
    int found = 0;
    for (const auto& f : (*r)->files()) {
      if (f.path != key) continue;
      ++found;
      EXPECT_EQ(f.size, 7);
      EXPECT_TRUE(io::IsAbsoluteLocation(f.path));
      EXPECT_EQ(io::ResolveLocation(t.root(), f.path), key);
      // Written back as an absolute location that names the same file.
      auto again = DataFileKey(t.root(), EncodeActionPath(f.path));
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(*again, key);
    }
    EXPECT_EQ(found, 1);
  }
}

TEST(SnapshotTest, InCommitTimestampsDriveTimestampAndTimeTravel) {
  auto fs = io::NewLocalFileSystem();
  const std::string table = DeltaRsTable("cdc_ict_table");
  // Commit 1's inCommitTimestamp differs from its commitInfo.timestamp and file time.
  auto v1 = Snapshot::Load(fs.get(), table, VersionSpec::AtVersion(1));
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ((*v1)->timestamp_ms(), 1683874206883);
  auto at = Snapshot::Load(fs.get(), table, VersionSpec::AtTimestamp(1783874212175));
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ((*at)->version(), 2);
  auto just_before = Snapshot::Load(fs.get(), table, VersionSpec::AtTimestamp(1783874213880));
  ASSERT_TRUE(just_before.ok());
  EXPECT_EQ((*just_before)->version(), 2);
  EXPECT_EQ((*Snapshot::Load(fs.get(), table, VersionSpec::AtTimestamp(1783874213881)))->version(), 3);
  EXPECT_TRUE(Snapshot::Load(fs.get(), table, VersionSpec::AtTimestamp(1783874213882)).status().IsNotFound());
  EXPECT_TRUE(Snapshot::Load(fs.get(), table, VersionSpec::AtTimestamp(1000)).status().IsNotFound());
}

TEST(SnapshotTest, FileTimeTravelUsesMonotonizedModificationTimes) {
  TempTable t(DeltaRsTable("simple_table"));
  namespace fsys = std::filesystem;
  // Commit times 1000s, 2000s, 2000s (not increasing: counts as 2000s + 1 ms), 4000s, 5000s.
  const int64_t secs[] = {1000, 2000, 2000, 4000, 5000};
  for (int v = 0; v < 5; ++v) {
    auto p = t.log(fmt::format("{:020}.json", v));
    fsys::last_write_time(p, fsys::file_time_type::clock::from_sys(
                                 std::chrono::sys_seconds(std::chrono::seconds(secs[v]))));
  }
  auto fs = io::NewLocalFileSystem();
  auto version_at = [&](int64_t ms) -> Result<int64_t> { return VersionAtTimestamp(fs.get(), t.root(), ms); };
  EXPECT_EQ(*version_at(1000'000), 0);
  EXPECT_EQ(*version_at(1999'999), 0);
  EXPECT_EQ(*version_at(2000'000), 1);
  EXPECT_EQ(*version_at(2000'001), 2);
  EXPECT_EQ(*version_at(4500'000), 3);
  EXPECT_EQ(*version_at(5000'000), 4);
  EXPECT_TRUE(version_at(999'999).status().IsNotFound());
  EXPECT_TRUE(version_at(5000'001).status().IsNotFound());
  auto snap = Snapshot::Load(fs.get(), t.root(), VersionSpec::AtTimestamp(2500'000));
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 2);
}

TEST(SnapshotTest, StaleOrEmptyLastCheckpointIsIgnored) {
  auto fs = io::NewLocalFileSystem();
  auto stale = Snapshot::Load(fs.get(), DeltaRsTable("table_failed_last_checkpoint_update"));
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_EQ((*stale)->log_segment().checkpoint_version, 3);
  auto empty = Snapshot::Load(fs.get(), GoldenTable("corrupted-last-checkpoint-kernel"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)->log_segment().checkpoint_version, 10);
}

}  // namespace
}  // namespace lithify::delta

namespace lithify::delta {
namespace {

// Every Delta table directory of the corpus loads or fails with a clean, expected
// status (never a crash or an Internal/IOError); the count of loadable tables guards
// against the sweep silently finding nothing.
TEST(SnapshotTest, EveryCorpusTableLoadsOrFailsCleanly) {
  namespace fsys = std::filesystem;
  auto fs = io::NewLocalFileSystem();
  int loaded = 0, refused = 0;
  std::vector<std::string> roots;
  for (const std::string& base : {testing::CorpusDir() + "/delta-kernel-rs/kernel/tests/golden_data",
                                 testing::CorpusDir() + "/delta-kernel-rs/kernel/tests/data",
                                 testing::CorpusDir() + "/delta-rs/crates/test/tests/data"}) {
    for (auto& e : fsys::recursive_directory_iterator(base)) {
      if (e.is_directory() && e.path().filename() == "_delta_log") roots.push_back(e.path().parent_path());
    }
  }
  for (const auto& root : roots) {
    auto snap = Snapshot::Load(fs.get(), root);
    if (snap.ok()) {
      ++loaded;
      continue;
    }
    ++refused;
    const Status& st = snap.status();
    std::cout << "refused " << root.substr(testing::CorpusDir().size()) << ": " << st.ToString() << "\n";
    EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported() || st.IsNotFound()) << root << ": " << st.ToString();
  }
  std::cout << "loaded " << loaded << ", refused " << refused << "\n";
  EXPECT_GE(loaded, 130) << "refused " << refused;
}

}  // namespace
}  // namespace lithify::delta
