// Issue 15, acceptance 2: every write on a table that uses a data-constraining feature
// (CHECK constraints, invariants, generated and identity columns, append-only) honours
// the feature or refuses naming it, committing nothing and leaving no data file; the
// operations that create no values (delete by DV or copy-on-write, OPTIMIZE, REORG
// PURGE, Z-order, checkpoint) keep the rows exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/append.h"
#include "lithify/commands/checkpoint.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"
#include "lithify/delta/transaction.h"

namespace lithify::commands {
namespace {

using delta::testing::Field;
using delta::testing::Prim;
using delta::testing::Struct;
using testing::LatestVersion;
using testing::ScanLines;

const char* kAllFeatures[] = {"appendOnly",      "invariants",      "checkConstraints",
                              "generatedColumns", "identityColumns", "deletionVectors"};

// A table at `root` (version 0) whose protocol supports every data feature and
// deletion vectors, with the given schema and configuration: what Spark writes for
// ADD CONSTRAINT, invariants, GENERATED ALWAYS AS and IDENTITY columns.
void CreateTable(io::FileSystem* fs, const std::string& root, const std::string& schema,
                 std::map<std::string, std::string> config) {
  auto txn = delta::Transaction::BeginNewTable(fs, root);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  delta::Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"deletionVectors"};
  p.writer_features = std::vector<std::string>(std::begin(kAllFeatures), std::end(kAllFeatures));
  delta::Metadata m;
  m.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  m.schema_string = schema;
  m.configuration = std::move(config);
  m.created_time = 1;
  (*txn)->AddAction(p);
  (*txn)->AddAction(m);
  (*txn)->SetOperation("CREATE TABLE", nlohmann::json::object());
  auto r = (*txn)->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

void WriteText(const std::string& path, const std::string& text) {
  auto fs = io::NewLocalFileSystem();
  ASSERT_TRUE(fs->WriteFile(path, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size())).ok());
}

// Every file under the table outside _delta_log (data and DV files).
int64_t DataFiles(const std::string& root) {
  int64_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().string().find("/_delta_log/") == std::string::npos) ++n;
  }
  return n;
}

struct Table {
  TempDir dir;
  std::unique_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  std::string root = dir.path() + "/t";
  int inputs = 0;

  Result<AppendResult> Append(const std::string& jsonl) {
    const std::string in = dir.path() + "/in" + std::to_string(inputs++) + ".jsonl";
    WriteText(in, jsonl);
    AppendSpec spec;
    spec.inputs = {in};
    spec.auto_compact.allowed = false;
    return AppendRows(fs.get(), root, spec);
  }
  // Asserts that `r` failed naming every part and that nothing was committed or left.
  void ExpectRefusedUnchanged(const Status& st, const std::vector<std::string>& parts, int64_t version,
                              int64_t files) {
    ASSERT_FALSE(st.ok());
    for (const auto& p : parts) EXPECT_NE(st.message().find(p), std::string::npos) << p << " not in: " << st.message();
    EXPECT_EQ(LatestVersion(fs.get(), root), version);
    EXPECT_EQ(DataFiles(root), files);
  }
};

TEST(WriteFeatures, CheckConstraintRefusesViolatingRowsAndAcceptsValidOnes) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long")), Field("s", Prim("string"))}),
              {{"delta.constraints.positive", "x > 0"}});
  // The issue's reproduction: {"x":-5} used to commit.
  t.ExpectRefusedUnchanged(t.Append("{\"x\":-5}\n").status(),
                           {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "CHECK constraint positive (x > 0)", "x : -5",
                            "nothing was committed"},
                           0, 0);
  // A violation past the first batch of rows is numbered within the input.
  std::string big;
  for (int i = 1; i <= 20000; ++i) big += "{\"x\":" + std::to_string(i) + ",\"s\":\"" + std::string(40, 'a') + "\"}\n";
  big += "{\"x\":0}\n";
  t.ExpectRefusedUnchanged(t.Append(big).status(), {"row 20001", "x : 0"}, 0, 0);
  // NULL satisfies a CHECK constraint (SQL: only FALSE violates).
  auto ok = t.Append("{\"x\":1,\"s\":\"a\"}\n{\"x\":null,\"s\":\"b\"}\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->commit.version, 1);
  EXPECT_EQ(ScanLines(t.fs.get(), t.root),
            (std::vector<std::string>{R"({"x":1,"s":"a"})", R"({"x":null,"s":"b"})"}));
  // Generated rows are checked as well.
  AppendSpec gen;
  gen.generate = GeneratorOptions{};
  gen.generate->rows = 1000;
  gen.auto_compact.allowed = false;
  const int64_t files = DataFiles(t.root);
  auto g = AppendRows(t.fs.get(), t.root, gen);
  if (!g.ok()) {
    t.ExpectRefusedUnchanged(g.status(), {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "generated rows"}, 1, files);
  } else {
    for (const auto& l : ScanLines(t.fs.get(), t.root)) {
      auto x = nlohmann::json::parse(l)["x"];
      EXPECT_TRUE(x.is_null() || x.get<int64_t>() > 0) << l;
    }
  }
}

TEST(WriteFeatures, LaterInputViolatingRemovesTheEarlierInputsFiles) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long"))}), {{"delta.constraints.positive", "x > 0"}});
  WriteText(t.dir.path() + "/a.jsonl", "{\"x\":1}\n");
  WriteText(t.dir.path() + "/b.jsonl", "{\"x\":2}\n{\"x\":-2}\n");
  AppendSpec spec;
  spec.inputs = {t.dir.path() + "/a.jsonl", t.dir.path() + "/b.jsonl"};
  spec.auto_compact.allowed = false;
  auto r = AppendRows(t.fs.get(), t.root, spec);
  t.ExpectRefusedUnchanged(r.status(), {"b.jsonl", "row 2", "x : -2", "deleted again"}, 0, 0);
}

TEST(WriteFeatures, InvariantsAreEnforcedOnAppend) {
  Table t;
  CreateTable(t.fs.get(), t.root,
              Struct({Field("x", Prim("integer"), true,
                            R"({"delta.invariants":"{\"expression\":{\"expression\":\"x > 3\"}}"})")}),
              {});
  t.ExpectRefusedUnchanged(t.Append("{\"x\":3}\n").status(),
                           {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "invariant on column x (x > 3)", "x : 3"}, 0, 0);
  ASSERT_TRUE(t.Append("{\"x\":4}\n{\"x\":null}\n").ok());
  EXPECT_EQ(LatestVersion(t.fs.get(), t.root), 1);
}

TEST(WriteFeatures, ConstraintLithifyCannotEvaluateRefusesTheAppend) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long"))}),
              {{"delta.constraints.len", "length(CAST(x AS STRING)) < 5"}});
  t.ExpectRefusedUnchanged(t.Append("{\"x\":1}\n").status(),
                           {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "checkConstraints", "CHECK constraint len",
                            "length(CAST(x AS STRING)) < 5"},
                           0, 0);
}

TEST(WriteFeatures, NotNullColumnsAreEnforced) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long"), false), Field("y", Prim("long"))}), {});
  t.ExpectRefusedUnchanged(t.Append("{\"x\":1}\n{\"x\":null}\n").status(), {"NOT NULL"}, 0, 0);
  t.ExpectRefusedUnchanged(t.Append("{\"y\":1}\n").status(), {"NOT NULL"}, 0, 0);
  ASSERT_TRUE(t.Append("{\"x\":1}\n").ok());
}

TEST(WriteFeatures, GeneratedAndIdentityColumnsRefuseTheAppend) {
  {
    Table t;
    CreateTable(t.fs.get(), t.root,
                Struct({Field("a", Prim("long")),
                        Field("b", Prim("long"), true, R"({"delta.generationExpression":"a + 1"})")}),
                {});
    t.ExpectRefusedUnchanged(t.Append("{\"a\":1,\"b\":2}\n").status(),
                             {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "generatedColumns", "column b"}, 0, 0);
  }
  {
    Table t;
    CreateTable(t.fs.get(), t.root,
                Struct({Field("id", Prim("long"), true,
                              R"({"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false})"),
                        Field("a", Prim("long"))}),
                {});
    t.ExpectRefusedUnchanged(t.Append("{\"a\":1}\n").status(),
                             {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "identityColumns", "column id"}, 0, 0);
  }
}

TEST(WriteFeatures, AlterCannotAddAConstraintAsAProperty) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long"))}), {});
  ASSERT_TRUE(t.Append("{\"x\":-1}\n").ok());
  delta::AlterSpec spec;
  spec.set_properties = {{"delta.constraints.positive", "x > 0"}};
  auto r = AlterTable(t.fs.get(), t.root, spec);
  t.ExpectRefusedUnchanged(r.status(), {"DELTA_ADD_CONSTRAINTS", "delta.constraints.positive"}, 1, 1);
}

TEST(WriteFeatures, AppendOnlyRefusesDeletesButNotMaintenance) {
  Table t;
  CreateTable(t.fs.get(), t.root, Struct({Field("x", Prim("long"))}), {{"delta.appendOnly", "true"}});
  ASSERT_TRUE(t.Append("{\"x\":1}\n").ok());
  ASSERT_TRUE(t.Append("{\"x\":2}\n").ok());
  DeleteSpec del;
  del.predicate = "x = 1";
  t.ExpectRefusedUnchanged(DeleteRows(t.fs.get(), t.root, del).status(),
                           {"DELTA_CANNOT_MODIFY_APPEND_ONLY", "append-only"}, 2, 2);
  OptimizeSpec opt;
  auto o = Optimize(t.fs.get(), t.root, opt);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(LatestVersion(t.fs.get(), t.root), 3);
  EXPECT_EQ(ScanLines(t.fs.get(), t.root), (std::vector<std::string>{R"({"x":1})", R"({"x":2})"}));
}

// Delete (DV and copy-on-write) and maintenance on tables carrying every data feature:
// they run, and the rows are exactly the expected ones after each.
TEST(WriteFeatures, DeleteAndMaintenanceKeepRowsOnFeatureTables) {
  for (bool dvs : {true, false}) {
    SCOPED_TRACE(dvs ? "deletion vectors" : "copy-on-write");
    Table t;
    const std::string schema = Struct({
        Field("id", Prim("long"), true, R"({"delta.identity.start":1,"delta.identity.step":1,"delta.identity.highWaterMark":4})"),
        Field("g", Prim("long"), true, R"({"delta.generationExpression":"id * 10"})"),
        Field("x", Prim("integer"), true, R"({"delta.invariants":"{\"expression\":{\"expression\":\"x > 0\"}}"})"),
    });
    std::map<std::string, std::string> config = {{"delta.constraints.positive", "x > 0"}};
    if (dvs) config["delta.enableDeletionVectors"] = "true";
    CreateTable(t.fs.get(), t.root, schema, config);
    // Rows as a Spark writer would have written them: through a plain table's append
    // into this table's log (lithify refuses appends here, by design).
    {
      Table src;
      CreateTable(src.fs.get(), src.root, Struct({Field("id", Prim("long")), Field("g", Prim("long")),
                                                  Field("x", Prim("integer"))}),
                  {});
      ASSERT_TRUE(src.Append("{\"id\":1,\"g\":10,\"x\":5}\n{\"id\":2,\"g\":20,\"x\":6}\n").ok());
      ASSERT_TRUE(src.Append("{\"id\":3,\"g\":30,\"x\":7}\n{\"id\":4,\"g\":40,\"x\":8}\n").ok());
      auto s = delta::Snapshot::Load(src.fs.get(), src.root);
      ASSERT_TRUE(s.ok());
      auto target = delta::Snapshot::Load(t.fs.get(), t.root);
      ASSERT_TRUE(target.ok());
      auto txn = delta::Transaction::Begin(*target);
      ASSERT_TRUE(txn.ok());
      for (const auto& f : (*s)->files()) {
        std::filesystem::copy_file(src.root + "/" + f.path, t.root + "/" + f.path);
        delta::AddFile a;
        a.path = f.path;
        a.size = f.size;
        a.modification_time = 1;
        a.data_change = true;
        if (f.stats) a.stats = f.stats->raw;
        (*txn)->AddAction(std::move(a));
      }
      (*txn)->SetOperation("WRITE", nlohmann::json::object());
      ASSERT_TRUE((*txn)->Commit().ok());
    }
    ASSERT_EQ(LatestVersion(t.fs.get(), t.root), 1);
    const std::vector<std::string> all = {R"({"id":1,"g":10,"x":5})", R"({"id":2,"g":20,"x":6})",
                                          R"({"id":3,"g":30,"x":7})", R"({"id":4,"g":40,"x":8})"};
    ASSERT_EQ(ScanLines(t.fs.get(), t.root), all);
    // The append gate holds here too.
    t.ExpectRefusedUnchanged(t.Append("{\"x\":9}\n").status(), {"identityColumns"}, 1, 2);

    DeleteSpec del;
    del.predicate = "id = 2";
    del.auto_compact.allowed = false;
    auto d = DeleteRows(t.fs.get(), t.root, del);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->metrics.at("numDeletedRows"), 1);
    EXPECT_EQ(d->metrics.at("numDeletionVectorsAdded"), dvs ? 1 : 0);
    const std::vector<std::string> kept = {all[0], all[2], all[3]};
    EXPECT_EQ(ScanLines(t.fs.get(), t.root), kept);

    OptimizeSpec reorg;
    reorg.reorg_purge = true;
    ASSERT_TRUE(Optimize(t.fs.get(), t.root, reorg).ok());
    EXPECT_EQ(ScanLines(t.fs.get(), t.root), kept);
    OptimizeSpec opt;
    ASSERT_TRUE(Optimize(t.fs.get(), t.root, opt).ok());
    EXPECT_EQ(ScanLines(t.fs.get(), t.root), kept);
    OptimizeSpec z;
    z.zorder_by = {"x", "id"};
    ASSERT_TRUE(Optimize(t.fs.get(), t.root, z).ok());
    EXPECT_EQ(ScanLines(t.fs.get(), t.root), kept);
    ASSERT_TRUE(Checkpoint(t.fs.get(), t.root).ok());
    EXPECT_EQ(ScanLines(t.fs.get(), t.root), kept);
    // The features are still in place (no rewrite dropped them).
    auto snap = delta::Snapshot::Load(t.fs.get(), t.root);
    ASSERT_TRUE(snap.ok());
    EXPECT_EQ((*snap)->properties().at("delta.constraints.positive"), "x > 0");
    EXPECT_EQ((*snap)->schema().fields[1].metadata.count("delta.generationExpression"), 1u);
  }
}

// The corpus's Spark table with an identity column (delta-rs checkpoint-v2-table): the
// append is refused naming the feature; nothing changes.
TEST(WriteFeatures, CorpusIdentityTableRefusesAppend) {
  delta::testing::TempTable copy(testing::DeltaRs("checkpoint-v2-table"));
  Table t;
  t.root = copy.root();
  const int64_t v = LatestVersion(t.fs.get(), t.root);
  const int64_t files = DataFiles(t.root);
  const auto before = ScanLines(t.fs.get(), t.root);
  t.ExpectRefusedUnchanged(t.Append("{\"name\":\"n\"}\n").status(),
                           {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "identityColumns", "column id"}, v, files);
  EXPECT_EQ(ScanLines(t.fs.get(), t.root), before);
}

}  // namespace
}  // namespace lithify::commands
