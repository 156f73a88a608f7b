// Write-side acceptance 4: crash safety.
//
// For append, delete (with deletion vectors and copy-on-write) and checkpoint, the writing
// process "crashes" at every IO step in turn (io::FaultInjectingFileSystem::CrashAfter: the
// step and everything after it never reaches storage; in the `lands` variant the crashing
// step is a write that landed but whose reply was lost). After each crash the table is
// opened with a healthy file system and must be at its last committed version -- the one
// before the operation, or the one after it when the commit itself landed -- with exactly
// that version's rows. Files the crash orphaned are never referenced by the log (they are
// left for VACUUM), every referenced file exists, and a later write still succeeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/commands/append.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/ingest.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/fault_injection.h"
#include "lithify/io/filesystem.h"
#include "tests/delta_write/validator.h"

namespace lithify {
namespace {

constexpr const char* kRoot = "/t";

struct TableState {
  int64_t version = -1;
  std::vector<std::string> rows;  // canonical JSON lines, sorted
};

std::vector<std::string> SortedRows(io::FileSystem* fs) {
  commands::testing::Lines out;
  auto r = commands::Scan(fs, kRoot, commands::ScanOptions{}, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

TableState Observe(io::FileSystem* fs) {
  auto snap = delta::Snapshot::Load(fs, kRoot);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  // Every referenced data file exists (orphans may exist; references to missing files may not).
  for (const auto& f : (*snap)->files()) {
    EXPECT_TRUE(fs->Head(io::JoinPath(kRoot, f.path)).ok()) << "missing data file " << f.path;
  }
  Status valid = delta_write::ValidateDeltaTable(fs, kRoot);
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
void Setup(io::FileSystem* fs, bool deletion_vectors, bool partitioned) {
  delta::NewTableSpec spec;
  auto schema = delta::ParseSchemaDdl("id long, grp string, v string");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  spec.schema = *schema;
  if (partitioned) spec.partition_columns = {"grp"};
  if (deletion_vectors) spec.properties["delta.enableDeletionVectors"] = "true";
  auto created = commands::CreateTable(fs, kRoot, spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  for (int batch = 0; batch < 2; ++batch) {
    std::string input = "/in/setup" + std::to_string(batch) + ".jsonl";
    ASSERT_TRUE(WriteJsonl(fs, input, batch * 100, 40).ok());
    commands::AppendSpec append;
    append.inputs = {input};
    append.format = commands::InputFormat::kJsonl;
    auto r = commands::AppendRows(fs, kRoot, append);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
}

using Operation = std::function<Status(io::FileSystem*)>;

Status DoAppend(io::FileSystem* fs) {
  LITHIFY_RETURN_NOT_OK(WriteJsonl(fs, "/in/new.jsonl", 1000, 25));
  commands::AppendSpec append;
  append.inputs = {"/in/new.jsonl"};
  append.format = commands::InputFormat::kJsonl;
  return commands::AppendRows(fs, kRoot, append).status();
}

Status DoDeleteSimple(io::FileSystem* fs) {
  commands::DeleteSpec spec;
  spec.predicate = "id < 20 OR grp = 'g1'";
  return commands::DeleteRows(fs, kRoot, spec).status();
}

Status DoCheckpoint(io::FileSystem* fs) {
  LITHIFY_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(fs, kRoot, delta::VersionSpec::Latest(),
                                                            {delta::StatsMode::kRaw}));
  return delta::WriteCheckpoint(*snap, 1767225600000).status();
}

struct Case {
  const char* name;
  Operation op;
  bool deletion_vectors;
  bool partitioned;
};

// Runs `c` once cleanly to learn its IO step count and the state after it; then crashes it at
// every step (both variants) on a fresh copy and checks the table after each crash.
void CrashAtEveryStep(const Case& c) {
  SCOPED_TRACE(c.name);
  TableState before, after;
  int64_t steps = 0;
  {
    auto base = io::NewMemoryFileSystem();
    Setup(base.get(), c.deletion_vectors, c.partitioned);
    before = Observe(base.get());
    io::FaultInjectingFileSystem counting(base.get());
    Status st = c.op(&counting);
    ASSERT_TRUE(st.ok()) << st.ToString();
    steps = counting.total_calls();
    after = Observe(base.get());
  }
  ASSERT_GT(steps, 0);
  int crashes = 0;
  for (bool lands : {false, true}) {
    for (int64_t k = 0; k < steps; ++k) {
      SCOPED_TRACE("crash after " + std::to_string(k) + " of " + std::to_string(steps) +
                   " IO steps" + (lands ? " (the crashing write landed)" : ""));
      auto base = io::NewMemoryFileSystem();
      Setup(base.get(), c.deletion_vectors, c.partitioned);
      io::FaultInjectingFileSystem faulty(base.get());
      faulty.CrashAfter(k, lands);
      Status st = c.op(&faulty);
      EXPECT_FALSE(st.ok()) << "the operation reported success although it crashed";
      ++crashes;
      TableState now = Observe(base.get());
      if (now.version == before.version) {
        EXPECT_EQ(now.rows, before.rows);
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

TEST(CrashSafety, Append) { CrashAtEveryStep({"append", DoAppend, false, true}); }
TEST(CrashSafety, DeleteWithDeletionVectors) { CrashAtEveryStep({"delete-dv", DoDeleteSimple, true, false}); }
TEST(CrashSafety, DeleteCopyOnWrite) { CrashAtEveryStep({"delete-cow", DoDeleteSimple, false, true}); }
TEST(CrashSafety, Checkpoint) { CrashAtEveryStep({"checkpoint", DoCheckpoint, true, true}); }

}  // namespace
}  // namespace lithify
