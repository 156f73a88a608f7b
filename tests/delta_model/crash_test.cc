// Write-side acceptance 4: crash safety.
//
// For append, delete (with deletion vectors and copy-on-write), checkpoint and OPTIMIZE
// (small files in two partitions, one with a deletion vector), the writing
// process "crashes" at every IO step in turn (io::FaultInjectingFileSystem::CrashAfter: the
// step and everything after it never reaches storage; in the `lands` variant the crashing
// step is a write that landed but whose reply was lost). After each crash the table is
// opened with a healthy file system and must be at its last committed version -- the one
// before the operation, or the one after it when the commit itself landed -- with exactly
// that version's rows. Files the crash orphaned are never referenced by the log (they are
// left for VACUUM), every referenced file exists, and a later write still succeeds.
//
// Built three times, with the same cases and assertions: on the memory file system
// (delta_crash_test), with LITHIFY_CRASH_LOCAL on the local disk (delta_crash_local_test: a
// fresh temporary directory per run, so renames, temporary files and directory creation are
// the real file system's), and with LITHIFY_CRASH_S3 on the S3 test server
// (delta_crash_s3_test, label s3): the same decorator wraps the S3 FileSystem, each run gets
// a fresh prefix, and a crash step that `lands` is a PUT whose reply was lost. Memory and
// local disk crash at every step; S3 at a spread of steps (CrashPointChosen), since each
// point costs a table setup over HTTP.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/commands/append.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/ingest.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/fault_injection.h"
#include "lithify/io/filesystem.h"
#ifdef LITHIFY_CRASH_S3
#include "lithify/io/s3/s3_filesystem.h"
#endif
#ifdef LITHIFY_CRASH_LOCAL
#include "lithify/base/temp_dir.h"
#endif
#include "tests/delta_write/validator.h"

namespace lithify {
namespace {

// Where the running case's table and inputs live (fresh for every run, see FreshStore).
struct Place {
  std::string root = "/t";
  std::string in = "/in";
};
Place g_place;
const std::string& Root() { return g_place.root; }
std::string In(const std::string& name) { return io::JoinPath(g_place.in, name); }

#ifdef LITHIFY_CRASH_S3
// Crash points per variant on S3: every step in the main build (tests/delta_model/
// CMakeLists.txt defines LITHIFY_CRASH_S3_EVERY_STEP_BY_DEFAULT; 658 points, about four
// minutes of table setups over HTTP); in the sanitizer build a spread, plus always the last
// three steps (where the commit and the checkpoint hint are written).
// LITHIFY_CRASH_S3_EVERY_STEP=1 or =0 overrides the build's choice.
constexpr int64_t kS3PointsPerVariant = 6;
bool CrashPointChosen(int64_t k, int64_t steps, bool lands) {
  static const bool every_step = [] {
    const char* v = std::getenv("LITHIFY_CRASH_S3_EVERY_STEP");
    if (v != nullptr && *v != '\0') return std::string(v) == "1";
#ifdef LITHIFY_CRASH_S3_EVERY_STEP_BY_DEFAULT
    return true;
#else
    return false;
#endif
  }();
  if (every_step) return true;
  const int64_t stride = std::max<int64_t>(1, steps / kS3PointsPerVariant);
  return k >= steps - 3 || k % stride == (lands ? stride / 2 : 0);
}
// The S3 FileSystem of the test server, and a new empty prefix in its bucket.
std::shared_ptr<io::FileSystem> FreshStore() {
  static std::shared_ptr<io::FileSystem> fs;
  static std::string base;
  static int n = 0;
  const char* bucket = std::getenv("LITHIFY_TEST_S3_BUCKET");
  if (bucket == nullptr || *bucket == '\0') {
    ADD_FAILURE() << "no S3 test server: LITHIFY_TEST_S3_BUCKET is not set (scripts/servers.sh start, then "
                     "source build/servers/env; or leave these tests out with ctest -LE s3)";
    return nullptr;
  }
  if (!fs) {
    auto o = io::s3::S3OptionsFromEnvironment();
    if (!o.ok()) {
      ADD_FAILURE() << o.status().ToString();
      return nullptr;
    }
    fs = io::s3::NewS3FileSystem(*o);
    base = std::string("s3://") + bucket + "/crash-" + std::to_string(getpid()) + "-" +
           std::to_string(std::random_device{}());
  }
  const std::string dir = base + "/" + std::to_string(n++);
  g_place = {dir + "/t", dir + "/in"};
  return fs;
}
#elif defined(LITHIFY_CRASH_LOCAL)
bool CrashPointChosen(int64_t, int64_t, bool) { return true; }
// The local file system, and a new empty directory under one temporary directory that
// lives as long as the test binary (removed with everything in it at exit).
std::shared_ptr<io::FileSystem> FreshStore() {
  static std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  static TempDir dir("lithify-crash");
  static int n = 0;
  const std::string run = io::JoinPath(dir.path(), std::to_string(n++));
  g_place = {run + "/t", run + "/in"};
  return fs;
}
#else
bool CrashPointChosen(int64_t, int64_t, bool) { return true; }
std::shared_ptr<io::FileSystem> FreshStore() {
  g_place = {};
  return io::NewMemoryFileSystem();
}
#endif

struct TableState {
  int64_t version = -1;
  std::vector<std::string> rows;  // canonical JSON lines, sorted
};

std::vector<std::string> SortedRows(io::FileSystem* fs) {
  commands::testing::Lines out;
  auto r = commands::Scan(fs, Root(), commands::ScanOptions{}, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

TableState Observe(io::FileSystem* fs) {
  auto snap = delta::Snapshot::Load(fs, Root());
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  // Every referenced data file exists (orphans may exist; references to missing files may not).
  for (const auto& f : (*snap)->files()) {
    EXPECT_TRUE(fs->Head(io::JoinPath(Root(), f.path)).ok()) << "missing data file " << f.path;
  }
  Status valid = delta_write::ValidateDeltaTable(fs, Root());
  EXPECT_TRUE(valid.ok()) << valid.ToString();
  return {(*snap)->version(), SortedRows(fs)};
}

Status WriteJsonl(io::FileSystem* fs, const std::string& path, int first_id, int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    int id = first_id + i;
    text += "{\"id\":" + std::to_string(id) + ",\"grp\":\"g" + std::to_string(id % 3) +
            "\",\"v\":\"value " + std::to_string(id) + "\"}\n";
  }
  return fs->WriteFile(path, AsBytes(text));
}

// A fresh table on `fs`: created, two appends (so deletes have work and checkpoints content).
void Setup(io::FileSystem* fs, bool deletion_vectors, bool partitioned,
           const std::map<std::string, std::string>& properties = {}) {
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, grp string, v string");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  if (partitioned) spec.partition_columns = {"grp"};
  if (deletion_vectors) spec.properties["delta.enableDeletionVectors"] = "true";
  for (const auto& [k, v] : properties) spec.properties[k] = v;
  auto created = commands::CreateTable(fs, Root(), spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  for (int batch = 0; batch < 2; ++batch) {
    std::string input = In("setup" + std::to_string(batch) + ".jsonl");
    ASSERT_TRUE(WriteJsonl(fs, input, batch * 100, 40).ok());
    commands::AppendSpec append;
    append.inputs = {input};
    append.format = commands::InputFormat::kJsonl;
    auto r = commands::AppendRows(fs, Root(), append);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
}

using Operation = std::function<Status(io::FileSystem*)>;

Status DoAppend(io::FileSystem* fs) {
  LITHIFY_RETURN_NOT_OK(WriteJsonl(fs, In("new.jsonl"), 1000, 25));
  commands::AppendSpec append;
  append.inputs = {In("new.jsonl")};
  append.format = commands::InputFormat::kJsonl;
  return commands::AppendRows(fs, Root(), append).status();
}

Status DoDeleteSimple(io::FileSystem* fs) {
  commands::DeleteSpec spec;
  spec.predicate = "id < 20 OR grp = 'g1'";
  return commands::DeleteRows(fs, Root(), spec).status();
}

Status DoCheckpoint(io::FileSystem* fs) {
  LITHIFY_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(fs, Root(), delta::VersionSpec::Latest(),
                                                            {delta::StatsMode::kRaw}));
  return delta::WriteCheckpoint(*snap, 1767225600000).status();
}

// OPTIMIZE's table: four appends of 12 rows into partitions g0/g1 (8 small files), then a
// deletion vector on one of them.
void SetupForOptimize(io::FileSystem* fs) {
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, grp string, v string");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  spec.partition_columns = {"grp"};
  spec.properties["delta.enableDeletionVectors"] = "true";
  ASSERT_TRUE(commands::CreateTable(fs, Root(), spec).ok());
  for (int batch = 0; batch < 4; ++batch) {
    std::string text;
    for (int i = 0; i < 12; ++i) {
      const int id = batch * 100 + i;
      text += "{\"id\":" + std::to_string(id) + ",\"grp\":\"g" + std::to_string(id % 2) + "\",\"v\":\"value " +
              std::to_string(id) + "\"}\n";
    }
    const std::string input = In("opt" + std::to_string(batch) + ".jsonl");
    ASSERT_TRUE(fs->WriteFile(input, AsBytes(text)).ok());
    commands::AppendSpec append;
    append.inputs = {input};
    append.format = commands::InputFormat::kJsonl;
    auto r = commands::AppendRows(fs, Root(), append);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  commands::DeleteSpec del;
  del.predicate = "id = 101 OR id = 103";
  auto d = commands::DeleteRows(fs, Root(), del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->metrics.at("numDeletionVectorsAdded"), 1);
}

Status DoOptimize(io::FileSystem* fs) {
  commands::OptimizeSpec spec;
  spec.threads = 1;  // one IO order, so crash point k is the same step in every run
  LITHIFY_ASSIGN_OR_RETURN(commands::OptimizeResult r, commands::Optimize(fs, Root(), spec));
  if (r.versions.size() != 1) return Status::Internal("OPTIMIZE committed {} versions, expected 1", r.versions.size());
  return Status::OK();
}

// An append to a table with auto compaction, whose three touched partitions then hold 3
// small files each (minNumFiles lowered to 3): two commits, WRITE then OPTIMIZE (auto).
// A crash inside the auto compaction leaves the append committed and reported with a
// warning, which this operation turns into a failure for the harness.
void SetupForAutoCompact(io::FileSystem* fs) {
  Setup(fs, false, true, {{"delta.autoOptimize.autoCompact", "true"}});
}

Status DoAppendWithAutoCompact(io::FileSystem* fs) {
  LITHIFY_RETURN_NOT_OK(WriteJsonl(fs, In("ac.jsonl"), 2000, 30));
  commands::AppendSpec append;
  append.inputs = {In("ac.jsonl")};
  append.format = commands::InputFormat::kJsonl;
  append.auto_compact.planner.min_num_files = 3;
  append.auto_compact.threads = 1;
  LITHIFY_ASSIGN_OR_RETURN(commands::AppendResult r, commands::AppendRows(fs, Root(), append));
  if (r.auto_compaction_warning) return Status::IOError("{}", *r.auto_compaction_warning);
  if (!r.auto_compaction || r.auto_compaction->versions.size() != 1) {
    return Status::Internal("auto compaction did not commit once");
  }
  return Status::OK();
}

struct Case {
  const char* name;
  Operation op;
  bool deletion_vectors;
  bool partitioned;
  std::function<void(io::FileSystem*)> setup = {};  // replaces Setup(deletion_vectors, partitioned)
  bool rows_unchanged = false;                     // the operation must not change the rows
  bool rows_final_before_last_commit = false;      // a last commit (auto compaction) changes no row
};

// Runs `c` once cleanly to learn its IO step count and the state after it; then crashes it at
// every step (both variants) on a fresh copy and checks the table after each crash.
void CrashAtEveryStep(const Case& c) {
  SCOPED_TRACE(c.name);
  auto setup = [&c](io::FileSystem* fs) {
    if (c.setup) {
      c.setup(fs);
    } else {
      Setup(fs, c.deletion_vectors, c.partitioned);
    }
  };
  TableState before, after;
  int64_t steps = 0;
  {
    auto base = FreshStore();
    ASSERT_TRUE(base);
    setup(base.get());
    before = Observe(base.get());
    io::FaultInjectingFileSystem counting(base.get());
    Status st = c.op(&counting);
    ASSERT_TRUE(st.ok()) << st.ToString();
    steps = counting.total_calls();
    after = Observe(base.get());
  }
  ASSERT_GT(steps, 0);
  if (c.rows_unchanged) {
    EXPECT_GT(after.version, before.version);
    EXPECT_EQ(after.rows, before.rows);
  }
  int crashes = 0;
  for (bool lands : {false, true}) {
    for (int64_t k = 0; k < steps; ++k) {
      if (!CrashPointChosen(k, steps, lands)) continue;
      SCOPED_TRACE("crash after " + std::to_string(k) + " of " + std::to_string(steps) +
                   " IO steps" + (lands ? " (the crashing write landed)" : ""));
      auto base = FreshStore();
      ASSERT_TRUE(base);
      setup(base.get());
      io::FaultInjectingFileSystem faulty(base.get());
      faulty.CrashAfter(k, lands);
      Status st = c.op(&faulty);
      if (st.ok() && faulty.total_calls() <= k) {
        // This run needed fewer IO steps than the first one, so the crash point was never
        // reached: file names are random, and the Parquet writer's page layout (each page
        // an append) depends on the bytes (whether a dictionary pays is decided by
        // compressing a slice both ways). A completed run must be the operation's result.
        EXPECT_EQ(Observe(base.get()).rows, after.rows);
        continue;
      }
      EXPECT_FALSE(st.ok()) << "the operation reported success although it crashed";
      ++crashes;
      TableState now = Observe(base.get());
      if (now.version == before.version) {
        EXPECT_EQ(now.rows, before.rows);
      } else if (c.rows_final_before_last_commit && now.version == after.version - 1) {
        // The write landed, its auto compaction did not: the rows are already final.
        EXPECT_EQ(now.rows, after.rows);
      } else {
        // Only a checkpoint leaves the version unchanged; a commit that landed is the
        // complete new version.
        EXPECT_EQ(now.version, after.version);
        EXPECT_EQ(now.rows, after.rows);
      }
      // The table stays writable after the crash.
      EXPECT_TRUE(DoAppend(base.get()).ok());
    }
  }
  ::testing::Test::RecordProperty(std::string(c.name) + "_crash_points", crashes);
}

#ifdef LITHIFY_CRASH_S3
#define LITHIFY_CRASH_SUITE CrashSafetyS3
#elif defined(LITHIFY_CRASH_LOCAL)
#define LITHIFY_CRASH_SUITE CrashSafetyLocal
#else
#define LITHIFY_CRASH_SUITE CrashSafety
#endif

TEST(LITHIFY_CRASH_SUITE, Append) { CrashAtEveryStep({"append", DoAppend, false, true}); }
TEST(LITHIFY_CRASH_SUITE, DeleteWithDeletionVectors) { CrashAtEveryStep({"delete-dv", DoDeleteSimple, true, false}); }
TEST(LITHIFY_CRASH_SUITE, DeleteCopyOnWrite) { CrashAtEveryStep({"delete-cow", DoDeleteSimple, false, true}); }
TEST(LITHIFY_CRASH_SUITE, Checkpoint) { CrashAtEveryStep({"checkpoint", DoCheckpoint, true, true}); }
// OPTIMIZE changes no row: every crash leaves the rows as they were, at the old version
// or at the OPTIMIZE version, and no file a version references is gone.
TEST(LITHIFY_CRASH_SUITE, AppendWithAutoCompaction) {
  CrashAtEveryStep({"append-auto-compact", DoAppendWithAutoCompact, false, true, SetupForAutoCompact, false, true});
}
TEST(LITHIFY_CRASH_SUITE, Optimize) { CrashAtEveryStep({"optimize", DoOptimize, true, true, SetupForOptimize, true}); }

}  // namespace
}  // namespace lithify
