// Tests of Delta's `diagnose` (delta/diagnose.h) on real tables written by lithify in
// temporary directories: real Delta logs, real Parquet files. Each layout problem must
// be named by the first finding, with its numbers and an effect from the real planners.
#include "lithify/base/temp_dir.h"
#include "lithify/delta/diagnose.h"
#include "lithify/commands/vacuum.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lithify/base/uuid.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/optimize.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {
namespace {

using parquet::Value;
using delta::Diagnose;
using delta::DiagnoseOptions;
using delta::Diagnosis;
using delta::DiagnosisToJson;
using delta::Finding;
using delta::Severity;
using delta::SeverityName;
using Rows = std::vector<std::vector<Value>>;

int64_t WallMsForTest() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class DiagnoseTest : public ::testing::Test {
 protected:
  void Create(const std::string& ddl, std::vector<std::string> partitions, std::vector<std::string> clustering = {},
              std::map<std::string, std::string> props = {}) {
    auto schema = delta::ParseSchemaDdl(ddl);
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    delta::NewTableSpec spec;
    spec.schema = *schema;
    spec.partition_columns = std::move(partitions);
    spec.clustering_columns = std::move(clustering);
    spec.properties = std::move(props);
    auto r = CreateTable(fs_.get(), root(), spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Writes `rows` as real Parquet files (one per partition, or one per
  // max_rows_per_file rows) and returns their AddFiles, uncommitted.
  std::vector<delta::AddFile> Write(const Rows& rows, int64_t max_rows_per_file = 0) {
    auto snap = delta::Snapshot::Load(fs_.get(), root());
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    if (!snap.ok()) return {};
    delta::DataWriterOptions opts;
    opts.max_rows_per_file = max_rows_per_file;
    auto w = delta::DataFileWriter::Open(fs_.get(), root(), delta::WriteContext::FromSnapshot(**snap), opts);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    if (!w.ok()) return {};
    EXPECT_TRUE((*w)->WriteRows(rows).ok());
    auto adds = (*w)->Finish();
    EXPECT_TRUE(adds.ok()) << adds.status().ToString();
    return adds.ok() ? *adds : std::vector<delta::AddFile>{};
  }

  void Commit(const std::vector<delta::AddFile>& adds) {
    auto snap = delta::Snapshot::Load(fs_.get(), root());
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    auto txn = delta::Transaction::Begin(*snap);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    for (const delta::AddFile& a : adds) (*txn)->AddAction(a);
    (*txn)->SetOperation("WRITE", nlohmann::json{{"mode", "Append"}});
    auto r = (*txn)->Commit();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  Diagnosis Run(DiagnoseOptions o = {}) {
    auto d = Diagnose(fs_.get(), root(), o);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : Diagnosis{};
  }

  static const Finding* Find(const Diagnosis& d, const std::string& code) {
    for (const Finding& f : d.findings) {
      if (f.code == code) return &f;
    }
    return nullptr;
  }

  static std::string Codes(const Diagnosis& d) {
    std::string s;
    for (const Finding& f : d.findings) s += f.code + "(" + std::string(SeverityName(f.severity)) + ") ";
    return s;
  }

  std::string root() const { return dir_.table(); }

  TempDir dir_;
  std::unique_ptr<io::FileSystem> fs_ = io::NewLocalFileSystem();
};

// Rows of "id long, v string" with ids [first, first + n).
Rows IdRows(int64_t first, int64_t n) {
  Rows rows;
  for (int64_t i = first; i < first + n; ++i) rows.push_back({Value::Int(i), Value::String("value-" + std::to_string(i))});
  return rows;
}

constexpr int64_t kSlots = 48;  // four hours of five-minute partitions

// A stream writing one small file into each five-minute partition, an hour per commit.
TEST_F(DiagnoseTest, FiveMinutePartitionsCanNeverCompact) {
  Create("event_time timestamp, slot string, id long, v double", {"slot"}, {},
         {{"delta.autoOptimize.autoCompact", "true"}});
  const int64_t t0_us = int64_t{1767225600} * 1'000'000;
  for (int64_t hour = 0; hour < kSlots / 12; ++hour) {
    Rows rows;
    for (int64_t s = hour * 12; s < (hour + 1) * 12; ++s) {
      const std::string slot = fmt::format("2026-01-01 {:02d}:{:02d}", s / 12, (s % 12) * 5);
      for (int64_t i = 0; i < 20; ++i) {
        rows.push_back({Value::Int(t0_us + (s * 300 + i) * 1'000'000), Value::String(slot), Value::Int(s * 100 + i),
                        Value::Double(static_cast<double>(i) / 3)});
      }
    }
    std::vector<delta::AddFile> adds = Write(rows);
    ASSERT_EQ(adds.size(), 12u);
    Commit(adds);
  }

  Diagnosis d = Run();
  EXPECT_EQ(d.num_files, kSlots);
  EXPECT_EQ(d.num_partitions, kSlots);
  EXPECT_EQ(d.partitions_never_compact, kSlots);
  ASSERT_FALSE(d.files_per_partition.empty());
  EXPECT_EQ(d.files_per_partition[0].label, "1");
  EXPECT_EQ(d.files_per_partition[0].partitions, kSlots);
  EXPECT_EQ(d.target_file_size, int64_t{1} << 30);
  EXPECT_EQ(d.target_size_source, "default");
  EXPECT_EQ(d.optimize.bins, 0);  // the real planner finds nothing to merge

  ASSERT_FALSE(d.findings.empty());
  const Finding& first = d.findings[0];
  EXPECT_EQ(first.code, "partitions_never_compact") << Codes(d);
  EXPECT_EQ(first.severity, Severity::kCritical);
  EXPECT_EQ(first.numbers["single_file_partitions"], kSlots);
  EXPECT_NE(first.detail.find("48 of 48 partitions"), std::string::npos) << first.detail;
  EXPECT_NE(first.detail.find("never rewrites a lone file"), std::string::npos) << first.detail;
  EXPECT_FALSE(first.recommendation.empty());
  ASSERT_TRUE(first.effect.has_value());
  EXPECT_TRUE(first.effect->simulated);
  EXPECT_EQ(first.effect->files_before, kSlots);
  EXPECT_EQ(first.effect->files_after, 1);  // unpartitioned, all fit one 1 GiB bin
  EXPECT_EQ(first.effect->scan_tasks_before, 2);  // 48 x (size + 4 MiB) > 128 MiB
  EXPECT_EQ(first.effect->scan_tasks_after, 1);
  EXPECT_NE(first.effect->description.find("turn these 48 files into about 1"), std::string::npos)
      << first.effect->description;
  // The what-if clusters by the table's timestamp column, which the recommendation names.
  EXPECT_NE(first.effect->description.find("clustered by event_time"), std::string::npos)
      << first.effect->description;
  EXPECT_NE(first.recommendation.find("--cluster-by event_time"), std::string::npos) << first.recommendation;

  // Auto compaction is on but no partition ever holds 50 small files.
  EXPECT_TRUE(d.auto_compaction.enabled);
  EXPECT_FALSE(d.auto_compaction.can_trigger);
  EXPECT_EQ(d.auto_compaction.max_candidates_in_a_partition, 1);
  EXPECT_NE(Find(d, "auto_compaction_never_triggers"), nullptr) << Codes(d);
}

// A liquid table clustered by `a`, whose ZCubes were built by `a`, re-clustered by `b`.
TEST_F(DiagnoseTest, ClusteredTableAfterKeyChangeHasStaleKeys) {
  Create("a long, b long, note string", {}, {"a"});
  std::vector<delta::AddFile> adds;
  for (int cube = 0; cube < 2; ++cube) {
    const std::string id = NewUuid();
    for (int k = 0; k < 3; ++k) {
      Rows rows;
      for (int64_t i = 0; i < 200; ++i) {
        const int64_t a = (cube * 3 + k) * 200 + i;
        rows.push_back({Value::Int(a), Value::Int(a % 17), Value::String("n" + std::to_string(a))});
      }
      for (delta::AddFile a : Write(rows)) {
        a.tags["ZCUBE_ID"] = id;
        a.tags["ZCUBE_ZORDER_BY"] = R"(["a"])";
        a.clustering_provider = "liquid";
        adds.push_back(std::move(a));
      }
    }
  }
  ASSERT_EQ(adds.size(), 6u);
  Commit(adds);
  delta::AlterSpec alter;
  alter.clustering_columns = std::vector<std::string>{"b"};
  auto altered = AlterTable(fs_.get(), root(), alter);
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  Rows fresh;
  for (int64_t i = 0; i < 50; ++i) fresh.push_back({Value::Int(5000 + i), Value::Int(i), Value::String("new")});
  Commit(Write(fresh));

  DiagnoseOptions o;
  o.min_cube_size = 1 << 20;  // small tables: cubes below 1 MiB are open
  Diagnosis d = Run(o);
  ASSERT_TRUE(d.clustering.has_value());
  EXPECT_EQ(d.clustering->columns, std::vector<std::string>{"b"});
  EXPECT_EQ(d.clustering->stale_files, 6);
  EXPECT_EQ(d.clustering->stale_keys, std::vector<std::string>{R"(["a"])"});
  EXPECT_EQ(d.clustering->unclustered_files, 1);
  EXPECT_EQ(d.clustering->zcubes, 0);  // no cube is built by the current key

  ASSERT_FALSE(d.findings.empty());
  const Finding& first = d.findings[0];
  EXPECT_EQ(first.code, "stale_clustering_keys") << Codes(d);
  EXPECT_EQ(first.severity, Severity::kCritical);
  EXPECT_EQ(first.numbers["stale_files"], 6);
  EXPECT_GT(first.numbers["stale_bytes"].get<int64_t>(), 0);
  EXPECT_NE(first.detail.find(R"(["b"])"), std::string::npos) << first.detail;
  EXPECT_NE(first.recommendation.find("--full"), std::string::npos) << first.recommendation;
  // The liquid planner with FULL reclusters every file into one new cube.
  ASSERT_TRUE(first.effect.has_value());
  EXPECT_FALSE(first.effect->simulated);
  EXPECT_EQ(first.effect->files_before, 7);
  EXPECT_EQ(first.effect->files_after, 1);
  EXPECT_EQ(first.effect->bytes_rewritten, d.total_bytes);
  // Plain OPTIMIZE (the liquid planner) skips the stale files: only the new file is planned.
  EXPECT_EQ(d.optimize.mode, "liquid");
  EXPECT_EQ(d.optimize.input_files, 1);
}

// The same story end to end: lithify's own clustering OPTIMIZE builds the cubes by `a`.
TEST_F(DiagnoseTest, ClusteredByOptimizeThenKeyChangeHasStaleKeys) {
  Create("a long, b long, note string", {}, {"a"});
  for (int k = 0; k < 3; ++k) {
    Rows rows;
    for (int64_t i = 0; i < 300; ++i) {
      const int64_t a = k * 300 + i;
      rows.push_back({Value::Int(a), Value::Int((a * 7) % 31), Value::String("n" + std::to_string(a))});
    }
    Commit(Write(rows));
  }
  OptimizeSpec clustering;
  auto optimized = Optimize(fs_.get(), root(), clustering);
  ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
  delta::AlterSpec alter;
  alter.clustering_columns = std::vector<std::string>{"b"};
  ASSERT_TRUE(AlterTable(fs_.get(), root(), alter).ok());
  Rows fresh;
  for (int64_t i = 0; i < 50; ++i) fresh.push_back({Value::Int(9000 + i), Value::Int(i), Value::String("new")});
  Commit(Write(fresh));

  Diagnosis d = Run();
  ASSERT_TRUE(d.clustering.has_value());
  EXPECT_GE(d.clustering->stale_files, 1);
  EXPECT_EQ(d.clustering->stale_files + d.clustering->unclustered_files, d.num_files);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].code, "stale_clustering_keys") << Codes(d);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

// Cubes by the current key: sealed at the minimum cube size, open below it.
TEST_F(DiagnoseTest, ClusteredTableCountsSealedAndOpenCubes) {
  Create("a long, note string", {}, {"a"});
  std::vector<delta::AddFile> adds;
  std::vector<int> rows_per_cube = {4000, 100, 100};
  for (int rows_n : rows_per_cube) {
    const std::string id = NewUuid();
    Rows rows;
    for (int64_t i = 0; i < rows_n; ++i) rows.push_back({Value::Int(i), Value::String(std::string(20, 'x') + std::to_string(i))});
    for (delta::AddFile a : Write(rows)) {
      a.tags["ZCUBE_ID"] = id;
      a.tags["ZCUBE_ZORDER_BY"] = R"(["a"])";
      a.clustering_provider = "liquid";
      adds.push_back(std::move(a));
    }
  }
  Commit(adds);
  auto snap = delta::Snapshot::Load(fs_.get(), root());
  ASSERT_TRUE(snap.ok());
  int64_t biggest = 0;
  for (const table::FileEntry& f : (*snap)->files()) biggest = std::max(biggest, f.size);

  DiagnoseOptions o;
  o.min_cube_size = biggest;  // the 4000-row cube is exactly at the threshold: sealed
  Diagnosis d = Run(o);
  ASSERT_TRUE(d.clustering.has_value());
  EXPECT_EQ(d.clustering->zcubes, 3);
  EXPECT_EQ(d.clustering->sealed_zcubes, 1);
  EXPECT_EQ(d.clustering->sealed_bytes, biggest);
  EXPECT_EQ(d.clustering->open_zcubes, 2);
  EXPECT_EQ(d.clustering->stale_files, 0);
  EXPECT_GT(d.clustering->projected_nightly_rewrite_bytes, 0);
  EXPECT_LT(d.clustering->projected_nightly_rewrite_bytes, d.total_bytes);  // the sealed cube stays
  EXPECT_EQ(Find(d, "stale_clustering_keys"), nullptr) << Codes(d);
  EXPECT_NE(Find(d, "open_zcubes"), nullptr) << Codes(d);
}

// A deletion-vector table after a large delete.
TEST_F(DiagnoseTest, TableHeavyWithDeletionVectorsRecommendsPurge) {
  Create("id long, v string", {}, {}, {{"delta.enableDeletionVectors", "true"}});
  // Four files; ids interleaved so that the delete hits every file.
  std::vector<delta::AddFile> adds;
  for (int k = 0; k < 4; ++k) {
    Rows rows;
    for (int64_t i = k; i < 2000; i += 4) rows.push_back({Value::Int(i), Value::String("value-" + std::to_string(i))});
    for (delta::AddFile& a : Write(rows)) adds.push_back(std::move(a));
  }
  Commit(adds);
  DeleteSpec del;
  del.predicate = "id < 1200";
  auto deleted = DeleteRows(fs_.get(), root(), del);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  ASSERT_EQ(deleted->metrics.at("numDeletedRows"), 1200);

  Diagnosis d = Run();
  EXPECT_EQ(d.files_with_deletion_vectors, 4);
  EXPECT_EQ(d.deleted_rows, 1200);
  ASSERT_FALSE(d.findings.empty());
  const Finding& first = d.findings[0];
  EXPECT_EQ(first.code, "deleted_rows_awaiting_purge") << Codes(d);
  EXPECT_EQ(first.severity, Severity::kCritical);
  EXPECT_EQ(first.numbers["deleted_rows"], 1200);
  EXPECT_EQ(first.numbers["physical_rows"], 2000);
  EXPECT_NE(first.recommendation.find("lithify reorg TABLE --purge"), std::string::npos) << first.recommendation;
  ASSERT_TRUE(first.effect.has_value());
  EXPECT_FALSE(first.effect->simulated);
  EXPECT_EQ(first.effect->files_before, 4);
  EXPECT_EQ(first.effect->files_after, 1);  // REORG packs the four small files into one bin
  EXPECT_GT(first.effect->bytes_rewritten, 0);
  EXPECT_NE(first.effect->description.find("drop 1200 deleted rows"), std::string::npos) << first.effect->description;

  // The delete re-added the files with DVs: their removes retire old DV states of live
  // files, which VACUUM keeps, so no tombstone awaits it.
  EXPECT_EQ(d.vacuum.tombstones, 0);
  EXPECT_EQ(Find(d, "tombstones_awaiting_vacuum"), nullptr) << Codes(d);

  // After REORG the four files are gone: each counts once, although each has two
  // tombstones (its retired DV-less state and its final remove).
  OptimizeSpec purge;
  purge.reorg_purge = true;
  auto reorg = Optimize(fs_.get(), root(), purge);
  ASSERT_TRUE(reorg.ok()) << reorg.status().ToString();
  ASSERT_EQ(reorg->metrics.num_files_removed, 4);
  Diagnosis after = Run();
  EXPECT_EQ(after.vacuum.tombstones, 4);
  int64_t removed_bytes = 0;
  for (const delta::AddFile& a : adds) removed_bytes += a.size;
  EXPECT_EQ(after.vacuum.tombstone_bytes, removed_bytes);
}

// Files removed by a copy-on-write delete wait for VACUUM until the retention passes.
TEST_F(DiagnoseTest, TombstonesAwaitVacuum) {
  Create("id long, v string", {});
  Commit(Write(IdRows(0, 500)));
  Commit(Write(IdRows(500, 500)));
  DeleteSpec del;
  del.predicate = "id < 500";  // the whole first file: removed
  auto deleted = DeleteRows(fs_.get(), root(), del);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();

  Diagnosis d = Run();
  EXPECT_EQ(d.vacuum.tombstones, 1);
  EXPECT_GT(d.vacuum.tombstone_bytes, 0);
  EXPECT_EQ(d.vacuum.expired, 0);
  EXPECT_EQ(d.vacuum.retention_ms, int64_t{7} * 24 * 3600 * 1000);
  const Finding* t = Find(d, "tombstones_awaiting_vacuum");
  ASSERT_NE(t, nullptr) << Codes(d);
  EXPECT_EQ(t->severity, Severity::kInfo);
  EXPECT_NE(t->recommendation.find("Nothing to do yet"), std::string::npos) << t->recommendation;

  DiagnoseOptions later;
  later.now_ms = int64_t{4102444800000};  // 2100-01-01: the tombstone has expired
  Diagnosis d2 = Run(later);
  EXPECT_EQ(d2.vacuum.expired, 1);
  EXPECT_EQ(d2.vacuum.expired_bytes, d2.vacuum.tombstone_bytes);
  t = Find(d2, "tombstones_awaiting_vacuum");
  ASSERT_NE(t, nullptr) << Codes(d2);
  EXPECT_EQ(t->severity, Severity::kWarning);  // as large as the table itself
  EXPECT_EQ(d2.findings[0].code, "tombstones_awaiting_vacuum") << Codes(d2);
  EXPECT_NE(t->recommendation.find("lithify vacuum TABLE"), std::string::npos) << t->recommendation;
}

// Issue 14 defect 14: once a VACUUM deleted the expired files, diagnose no longer says
// they await one, although their tombstones stay in the log until a checkpoint drops
// them; a tombstone still inside the retention at that VACUUM is still reported.
TEST_F(DiagnoseTest, FilesVacuumDeletedNoLongerAwaitVacuum) {
  Create("id long, v string", {});
  Commit(Write(IdRows(0, 500)));
  Commit(Write(IdRows(500, 500)));
  Commit(Write(IdRows(1000, 500)));
  DeleteSpec del;
  del.predicate = "id < 500";  // the first file: removed
  ASSERT_TRUE(DeleteRows(fs_.get(), root(), del).ok());

  // A VACUUM now keeps the young tombstone: still awaiting.
  VacuumSpec young;
  auto kept = Vacuum(fs_.get(), root(), young);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->files_deleted, 0);
  Diagnosis d0 = Run();
  EXPECT_EQ(d0.vacuum.tombstones, 1);
  EXPECT_EQ(d0.vacuum.vacuumed, 0);

  // Thirty days on, a VACUUM deletes it; the log still holds the tombstone.
  const int64_t later = WallMsForTest() + int64_t{30} * 24 * 3600 * 1000;
  VacuumSpec vs;
  vs.now_ms = later;
  auto v = Vacuum(fs_.get(), root(), vs);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->files_deleted, 1);
  auto snap = delta::Snapshot::Load(fs_.get(), root());
  ASSERT_TRUE(snap.ok());
  ASSERT_FALSE((*snap)->tombstones().empty());

  DiagnoseOptions o;
  o.now_ms = later;
  Diagnosis d = Run(o);
  EXPECT_EQ(d.vacuum.tombstones, 0);
  EXPECT_EQ(d.vacuum.expired, 0);
  EXPECT_EQ(d.vacuum.vacuumed, 1);
  EXPECT_GT(d.vacuum.vacuumed_bytes, 0);
  ASSERT_TRUE(d.vacuum.last_vacuum_version.has_value());
  EXPECT_EQ(*d.vacuum.last_vacuum_version, *v->end_version);
  EXPECT_EQ(Find(d, "tombstones_awaiting_vacuum"), nullptr) << Codes(d);
  EXPECT_EQ(DiagnosisToJson(d)["vacuum"]["vacuumed"], 1);

  // A file removed after that VACUUM (on the same clock) awaits the next one.
  DeleteSpec del2;
  del2.predicate = "id >= 1000";
  del2.transaction.now_ms = [later] { return later + 1000; };
  ASSERT_TRUE(DeleteRows(fs_.get(), root(), del2).ok());
  Diagnosis d2 = Run(o);
  EXPECT_EQ(d2.vacuum.tombstones, 1);
  EXPECT_EQ(d2.vacuum.vacuumed, 1);
  EXPECT_NE(Find(d2, "tombstones_awaiting_vacuum"), nullptr) << Codes(d2);
}

// Many small files in an unpartitioned table: OPTIMIZE is the answer.
TEST_F(DiagnoseTest, ManySmallFilesRecommendOptimize) {
  Create("id long, v string", {});
  Commit(Write(IdRows(0, 3000), 100));  // 30 files
  Diagnosis d = Run();
  EXPECT_EQ(d.num_files, 30);
  EXPECT_EQ(d.optimize.input_files, 30);
  EXPECT_EQ(d.optimize.output_files, 1);
  ASSERT_FALSE(d.findings.empty());
  const Finding& first = d.findings[0];
  EXPECT_EQ(first.code, "small_files") << Codes(d);
  EXPECT_EQ(first.severity, Severity::kWarning);
  ASSERT_TRUE(first.effect.has_value());
  EXPECT_EQ(first.effect->files_before, 30);
  EXPECT_EQ(first.effect->files_after, 1);
  EXPECT_EQ(first.effect->scan_tasks_before, 1);  // 30 x (tiny + 4 MiB) <= 128 MiB
  EXPECT_NE(first.recommendation.find("lithify optimize"), std::string::npos);
  // The rewrite replaces the whole table: storage doubles until VACUUM.
  EXPECT_NE(Find(d, "rewrite_doubles_storage"), nullptr) << Codes(d);
}

// A healthy table: one file. Then a few small files: compaction is not worth it.
TEST_F(DiagnoseTest, HealthyTableAndFewSmallFiles) {
  Create("id long, v string", {});
  Commit(Write(IdRows(0, 500)));
  Diagnosis d = Run();
  ASSERT_EQ(d.findings.size(), 1u) << Codes(d);
  EXPECT_EQ(d.findings[0].code, "healthy_layout");
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);

  Commit(Write(IdRows(500, 500)));
  Commit(Write(IdRows(1000, 500)));
  d = Run();
  for (const Finding& f : d.findings) EXPECT_EQ(f.severity, Severity::kInfo) << Codes(d);
  EXPECT_EQ(d.findings[0].code, "healthy_layout") << Codes(d);
  const Finding* n = Find(d, "compaction_not_worth_it");
  ASSERT_NE(n, nullptr) << Codes(d);
  EXPECT_EQ(n->numbers["files_saved"], 2);
  ASSERT_TRUE(n->effect.has_value());
  EXPECT_EQ(n->effect->scan_tasks_before, n->effect->scan_tasks_after);  // nothing saved
}

// Partitions nobody writes to any more, whose files are already large against the scan
// split: rewriting them is the wrong answer. Sizes are scaled down through the options.
TEST_F(DiagnoseTest, OldPartitionsAtSizeAreNotWorthRewriting) {
  Create("part string, id long, v string", {"part"});
  auto rows = [](const std::string& part, int64_t first) {
    Rows r;
    for (int64_t i = first; i < first + 400; ++i) {
      r.push_back({Value::String(part), Value::Int(i), Value::String("value-" + std::to_string(i))});
    }
    return r;
  };
  Commit(Write(rows("old", 0)));
  Commit(Write(rows("old", 400)));
  Commit(Write(rows("new", 800)));
  auto snap = delta::Snapshot::Load(fs_.get(), root());
  ASSERT_TRUE(snap.ok());
  int64_t smallest = std::numeric_limits<int64_t>::max();
  for (const table::FileEntry& f : (*snap)->files()) smallest = std::min(smallest, f.size);

  DiagnoseOptions o;
  o.max_partition_bytes = 2 * smallest;  // every file is "at size" against the split
  Diagnosis now = Run(o);
  EXPECT_EQ(now.optimize.bins, 1);  // the two files of part=old
  EXPECT_EQ(Find(now, "old_partitions_at_size"), nullptr) << Codes(now);  // written just now

  o.now_ms = int64_t{4102444800000};  // 2100-01-01: every partition is old
  Diagnosis later = Run(o);
  const Finding* x = Find(later, "old_partitions_at_size");
  ASSERT_NE(x, nullptr) << Codes(later);
  EXPECT_EQ(x->severity, Severity::kInfo);
  EXPECT_EQ(x->numbers["partitions"], 1);
  EXPECT_EQ(x->numbers["files"], 2);
  // The rewrite covers two of three files: storage grows until VACUUM.
  const Finding* s = Find(later, "rewrite_doubles_storage");
  ASSERT_NE(s, nullptr) << Codes(later);
  EXPECT_EQ(s->numbers["peak_bytes"].get<int64_t>(),
            later.total_bytes + s->numbers["bytes_rewritten"].get<int64_t>());
  EXPECT_EQ(s->numbers["retention_ms"], int64_t{7} * 24 * 3600 * 1000);
}

TEST_F(DiagnoseTest, EmptyTable) {
  Create("id long", {});
  Diagnosis d = Run();
  EXPECT_EQ(d.num_files, 0);
  ASSERT_EQ(d.findings.size(), 1u) << Codes(d);
  EXPECT_EQ(d.findings[0].code, "empty_table");
}

TEST_F(DiagnoseTest, JsonCarriesFindingsInOrder) {
  Create("id long, v string", {});
  Commit(Write(IdRows(0, 3000), 100));
  Diagnosis d = Run();
  nlohmann::ordered_json j = DiagnosisToJson(d);
  EXPECT_EQ(j["num_files"], 30);
  EXPECT_EQ(j["target_size_source"], "default");
  ASSERT_EQ(j["findings"].size(), d.findings.size());
  EXPECT_EQ(j["findings"][0]["code"], d.findings[0].code);
  EXPECT_EQ(j["findings"][0]["severity"], "warning");
  EXPECT_EQ(j["findings"][0]["effect"]["files_after"], 1);
  EXPECT_TRUE(j["clustering"].is_null());
  EXPECT_EQ(j["files_per_partition"][0]["partitions"], 0);  // unpartitioned: one group of 30 files
  EXPECT_EQ(j["files_per_partition"][3]["label"], "10-49");
  EXPECT_EQ(j["files_per_partition"][3]["partitions"], 1);
}

TEST_F(DiagnoseTest, NotATableIsNotFoundNamingThePath) {
  std::filesystem::create_directories(dir_.path() + "/plain");
  auto d = Diagnose(fs_.get(), dir_.path() + "/plain", {});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(d.status().IsNotFound()) << d.status().ToString();
  EXPECT_NE(d.status().message().find(dir_.path() + "/plain"), std::string::npos) << d.status().ToString();
}

TEST_F(DiagnoseTest, BadOptionsAreInvalidArgument) {
  Create("id long", {});
  DiagnoseOptions o;
  o.max_partition_bytes = 0;
  EXPECT_TRUE(Diagnose(fs_.get(), root(), o).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lithify::commands
