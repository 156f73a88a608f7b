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
#include "lithify/delta/log_segment.h"
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
                 std::map<std::string, std::string> config, std::vector<std::string> partitions = {}) {
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
  m.partition_columns = std::move(partitions);
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

// PROTOCOL.md "Generated Columns": values computed by the writer for rows that leave the
// column out (a generated DATE partition column from a TIMESTAMP, in UTC), given values
// checked (col <=> expr) with nothing committed and no data file left on a mismatch.
TEST(WriteFeatures, GeneratedColumnsAreComputedAndChecked) {
  Table t;
  auto gen = [](const std::string& e) { return R"({"delta.generationExpression":")" + e + R"("})"; };
  CreateTable(t.fs.get(), t.root,
              Struct({Field("a", Prim("long")), Field("b", Prim("long"), true, gen("a + 1")),
                      Field("event_time", Prim("timestamp")),
                      Field("day", Prim("date"), true, gen("CAST(event_time AS DATE)"))}),
              {}, {"day"});
  // 00:15 at +01:00 is 23:15 UTC on the 29th: the partition is the UTC day.
  auto ok = t.Append(
      "{\"a\":1,\"event_time\":\"2024-02-29T23:30:00Z\"}\n"
      "{\"a\":2,\"b\":3,\"event_time\":\"2024-03-01T00:15:00+01:00\",\"day\":\"2024-02-29\"}\n"
      "{\"a\":7,\"event_time\":\"2024-03-01T00:00:00Z\"}\n"
      "{\"a\":null,\"event_time\":null}\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->commit.version, 1);
  std::vector<std::string> scanned = ScanLines(t.fs.get(), t.root);
  std::sort(scanned.begin(), scanned.end());
  EXPECT_EQ(scanned,
            (std::vector<std::string>{
                R"({"a":1,"b":2,"event_time":"2024-02-29T23:30:00.000000Z","day":"2024-02-29"})",
                R"({"a":2,"b":3,"event_time":"2024-02-29T23:15:00.000000Z","day":"2024-02-29"})",
                R"({"a":7,"b":8,"event_time":"2024-03-01T00:00:00.000000Z","day":"2024-03-01"})",
                R"({"a":null,"b":null,"event_time":null,"day":null})"}));  // sorted
  auto snap = delta::Snapshot::Load(t.fs.get(), t.root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  std::map<std::optional<std::string>, int64_t> rows_per_day;
  for (const auto& f : (*snap)->files()) rows_per_day[f.partition_values.at("day")] += *f.num_records();
  EXPECT_EQ(rows_per_day, (std::map<std::optional<std::string>, int64_t>{
                              {std::nullopt, 1}, {"2024-02-29", 2}, {"2024-03-01", 1}}));
  EXPECT_TRUE(std::filesystem::is_directory(t.root + "/day=2024-02-29"));
  EXPECT_TRUE(std::filesystem::is_directory(t.root + "/day=2024-03-01"));
  const int64_t files = DataFiles(t.root);
  EXPECT_EQ(files, 3);

  // A given value that is not the expression's: refused naming the row and the values.
  t.ExpectRefusedUnchanged(t.Append("{\"a\":1,\"b\":2}\n{\"a\":1,\"b\":5}\n").status(),
                           {"DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint Generated Column (b <=> a + 1) "
                            "violated by row 2 with values: b : 5, a : 1",
                            "nothing was committed"},
                           1, files);
  // The generated partition column too (the local date of +01:00 is not the UTC one).
  t.ExpectRefusedUnchanged(
      t.Append("{\"a\":1,\"event_time\":\"2024-03-01T00:15:00+01:00\",\"day\":\"2024-03-01\"}\n").status(),
      {"CHECK constraint Generated Column (day <=> CAST(event_time AS DATE))", "day : 2024-03-01",
       "event_time : 2024-02-29 23:15:00"},
      1, files);
  // A mismatch after data files were written: they are deleted again.
  std::string big;
  for (int i = 0; i < 30000; ++i) {
    big += "{\"a\":" + std::to_string(i) + ",\"event_time\":\"2024-01-0" + std::to_string(1 + i % 9) +
           "T12:00:00Z\"}\n";
  }
  big += "{\"a\":1,\"b\":1}\n";
  t.ExpectRefusedUnchanged(t.Append(big).status(), {"row 30001", "b : 1, a : 1"}, 1, files);
  // A value lithify will not compute exactly (BIGINT overflow) refuses the append too.
  t.ExpectRefusedUnchanged(t.Append("{\"a\":9223372036854775807}\n").status(),
                           {"generated column b (GENERATED ALWAYS AS (a + 1)): row 1", "overflows BIGINT"}, 1, files);

  // Rows made by --generate get computed values, whatever the generator would put there.
  AppendSpec generate;
  generate.generate = GeneratorOptions{};
  generate.generate->rows = 500;
  generate.auto_compact.allowed = false;
  auto g = AppendRows(t.fs.get(), t.root, generate);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  int64_t checked = 0;
  for (const auto& l : ScanLines(t.fs.get(), t.root)) {
    auto row = nlohmann::json::parse(l);
    if (row["a"].is_null()) {
      EXPECT_TRUE(row["b"].is_null()) << l;
    } else {
      EXPECT_EQ(row["b"].get<int64_t>(), row["a"].get<int64_t>() + 1) << l;
    }
    if (row["event_time"].is_null()) {
      EXPECT_TRUE(row["day"].is_null()) << l;
    } else {
      EXPECT_EQ(row["day"].get<std::string>(), row["event_time"].get<std::string>().substr(0, 10)) << l;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 504);
}

// An expression lithify does not compute keeps the append refused, naming the column
// and the expression, with nothing written (also with --generate).
TEST(WriteFeatures, UnsupportedGenerationExpressionRefusesTheAppend) {
  Table t;
  CreateTable(t.fs.get(), t.root,
              Struct({Field("a", Prim("long")),
                      Field("b", Prim("long"), true, R"({"delta.generationExpression":"a % 10"})")}),
              {});
  t.ExpectRefusedUnchanged(t.Append("{\"a\":1,\"b\":1}\n").status(),
                           {"DELTA_UNSUPPORTED_FEATURES_FOR_WRITE", "generatedColumns",
                            "column b GENERATED ALWAYS AS (a % 10)", "nothing was committed"},
                           0, 0);
  AppendSpec generate;
  generate.generate = GeneratorOptions{};
  generate.generate->rows = 10;
  t.ExpectRefusedUnchanged(AppendRows(t.fs.get(), t.root, generate).status(), {"column b GENERATED ALWAYS AS"}, 0, 0);
}

// The identity column's metadata (JSON texts) at the latest version.
std::map<std::string, std::string> IdentityMetadata(io::FileSystem* fs, const std::string& root,
                                                    const std::string& column) {
  auto snap = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  for (const auto& f : (*snap)->schema().fields) {
    if (f.name == column) return f.metadata;
  }
  return {};
}

// The commitInfo of version `v`.
nlohmann::json CommitInfo(const std::string& root, int64_t v) {
  auto fs = io::NewLocalFileSystem();
  const std::string name = delta::CommitFileName(v);
  auto bytes = fs->ReadFile(root + "/_delta_log/" + name);
  EXPECT_TRUE(bytes.ok());
  if (!bytes.ok()) return {};
  auto actions = delta::ParseCommitFile(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), name);
  EXPECT_TRUE(actions.ok()) << actions.status().ToString();
  if (!actions.ok()) return {};
  for (const delta::Action& a : *actions) {
    if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) return nlohmann::json::parse(ci->json);
  }
  return {};
}

// PROTOCOL.md "Identity Columns": GENERATED ALWAYS values are start + k * step beyond the
// high-water mark, the mark is updated in the same commit, explicit values are refused.
TEST(WriteFeatures, IdentityAlwaysGeneratesValuesAndRecordsTheHighWaterMark) {
  Table t;
  CreateTable(t.fs.get(), t.root,
              Struct({Field("id", Prim("long"), false,
                            R"({"delta.identity.start":100,"delta.identity.step":5,"delta.identity.allowExplicitInsert":false})"),
                      Field("a", Prim("long"))}),
              {});
  // Explicit values on a GENERATED ALWAYS column are refused, nothing is written.
  t.ExpectRefusedUnchanged(t.Append("{\"a\":1}\n{\"id\":7,\"a\":2}\n").status(),
                           {"DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED", "column id", "row 2"}, 0, 0);
  auto r = t.Append("{\"a\":1}\n{\"a\":2}\n{\"a\":3,\"id\":null}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ScanLines(t.fs.get(), t.root),
            (std::vector<std::string>{R"({"id":100,"a":1})", R"({"id":105,"a":2})", R"({"id":110,"a":3})"}));
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "110");
  EXPECT_EQ(CommitInfo(t.root, 1)["tags"]["delta.identity.schemaUpdate"], "true");
  // The next append continues after the mark; CSV without the column works too.
  const std::string csv = t.dir.path() + "/in.csv";
  WriteText(csv, "a\n4\n5\n");
  AppendSpec spec;
  spec.inputs = {csv};
  spec.auto_compact.allowed = false;
  ASSERT_TRUE(AppendRows(t.fs.get(), t.root, spec).ok());
  const auto lines = ScanLines(t.fs.get(), t.root);
  EXPECT_NE(std::find(lines.begin(), lines.end(), R"({"id":115,"a":4})"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), R"({"id":120,"a":5})"), lines.end());
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "120");
  // The other keys are untouched.
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.start"), "100");
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.allowExplicitInsert"), "false");
  // Generated rows get the table's values, not the generator's.
  AppendSpec gen;
  gen.generate = GeneratorOptions{};
  gen.generate->rows = 3;
  gen.auto_compact.allowed = false;
  ASSERT_TRUE(AppendRows(t.fs.get(), t.root, gen).ok());
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "135");
  std::vector<int64_t> ids;
  for (const auto& l : ScanLines(t.fs.get(), t.root)) ids.push_back(nlohmann::json::parse(l)["id"].get<int64_t>());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{100, 105, 110, 115, 120, 125, 130, 135}));
}

TEST(WriteFeatures, IdentityByDefaultKeepsExplicitValuesAndNegativeSteps) {
  Table t;
  CreateTable(t.fs.get(), t.root,
              Struct({Field("id", Prim("long"), true,
                            R"({"delta.identity.start":"-1","delta.identity.step":"-2","delta.identity.highWaterMark":"-4","delta.identity.allowExplicitInsert":"true"})"),
                      Field("a", Prim("long"))}),
              {});
  // A mark off the lattice (-4, after an explicit insert elsewhere): the next value is
  // the first start + k * step below it (-5).
  auto r = t.Append("{\"a\":1}\n{\"id\":42,\"a\":2}\n{\"a\":3}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ScanLines(t.fs.get(), t.root),
            (std::vector<std::string>{R"({"id":-5,"a":1})", R"({"id":-7,"a":3})", R"({"id":42,"a":2})"}));  // sorted
  // The explicit 42 does not move the mark (it records the values generated).
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "-7");
  // Only explicit values: no value generated, no metadata update.
  ASSERT_TRUE(t.Append("{\"id\":1,\"a\":4}\n").ok());
  EXPECT_EQ(CommitInfo(t.root, 2).contains("tags"), false);
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "-7");
}

TEST(WriteFeatures, IdentityRefusesOverflowAndMalformedMetadata) {
  {
    Table t;
    CreateTable(t.fs.get(), t.root,
                Struct({Field("id", Prim("long"), true,
                              R"({"delta.identity.start":1,"delta.identity.step":4611686018427387904,"delta.identity.highWaterMark":4611686018427387905})"),
                        Field("a", Prim("long"))}),
                {});
    t.ExpectRefusedUnchanged(t.Append("{\"a\":1}\n").status(), {"identity column id", "overflows a long"}, 0, 0);
  }
  {
    Table t;
    CreateTable(t.fs.get(), t.root,
                Struct({Field("id", Prim("long"), true, R"({"delta.identity.start":1,"delta.identity.step":0})"),
                        Field("a", Prim("long"))}),
                {});
    t.ExpectRefusedUnchanged(t.Append("{\"a\":1}\n").status(), {"DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP"}, 0, 0);
  }
  {
    Table t;
    CreateTable(t.fs.get(), t.root,
                Struct({Field("id", Prim("integer"), true, R"({"delta.identity.start":1,"delta.identity.step":1})"),
                        Field("a", Prim("long"))}),
                {});
    t.ExpectRefusedUnchanged(t.Append("{\"a\":1}\n").status(), {"identity column id", "not of type long"}, 0, 0);
  }
}

// Two identity appends racing for the same version: the loser conflicts on the metadata
// (Delta allows one identity writer at a time) and commits nothing, instead of committing
// values the winner may have used too.
TEST(WriteFeatures, ConcurrentIdentityAppendsConflict) {
  Table t;
  CreateTable(t.fs.get(), t.root,
              Struct({Field("id", Prim("long"), true, R"({"delta.identity.start":1,"delta.identity.step":1})"),
                      Field("a", Prim("long"))}),
              {});
  auto snap = delta::Snapshot::Load(t.fs.get(), t.root);
  ASSERT_TRUE(snap.ok());
  // The winner: another identity append's commit at version 1 (a metaData action).
  delta::Metadata m = (*snap)->metadata();
  delta::CommitInfo ci;
  ci.json = R"({"timestamp":1,"operation":"WRITE","isBlindAppend":true})";
  ci.timestamp = 1;
  ci.operation = "WRITE";
  testing::RacingFileSystem racing(t.fs.get(), delta::ActionToJson(ci) + "\n" + delta::ActionToJson(m) + "\n");
  const std::string in = t.dir.path() + "/race.jsonl";
  WriteText(in, "{\"a\":1}\n");
  AppendSpec spec;
  spec.inputs = {in};
  spec.auto_compact.allowed = false;
  auto r = AppendRows(&racing, t.root, spec);
  ASSERT_TRUE(racing.raced());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("MetadataChangedException"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(LatestVersion(t.fs.get(), t.root), 1);  // only the winner's commit
  EXPECT_EQ(DataFiles(t.root), 0);                    // our data file was deleted again
}

// The corpus's Databricks table with a GENERATED ALWAYS identity column (delta-rs
// checkpoint-v2-table, high-water mark 44 at its last version): an append continues at
// 45, records the new mark as Databricks does, and an explicit id is refused.
TEST(WriteFeatures, CorpusIdentityTableGeneratesValues) {
  delta::testing::TempTable copy(testing::DeltaRs("checkpoint-v2-table"));
  Table t;
  t.root = copy.root();
  const int64_t v = LatestVersion(t.fs.get(), t.root);
  const int64_t files = DataFiles(t.root);
  const auto before = ScanLines(t.fs.get(), t.root);
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "44");
  t.ExpectRefusedUnchanged(t.Append("{\"id\":3,\"name\":\"n\"}\n").status(),
                           {"DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED", "column id"}, v, files);
  auto r = t.Append("{\"name\":\"n1\"}\n{\"name\":\"n2\"}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->commit.version, v + 1);
  EXPECT_EQ(IdentityMetadata(t.fs.get(), t.root, "id").at("delta.identity.highWaterMark"), "46");
  auto after = ScanLines(t.fs.get(), t.root);
  EXPECT_EQ(after.size(), before.size() + 2);
  std::vector<int64_t> ids;
  for (const auto& l : after) ids.push_back(nlohmann::json::parse(l)["id"].get<int64_t>());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids[ids.size() - 2], 45);
  EXPECT_EQ(ids.back(), 46);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "identity values repeat";
}

}  // namespace
}  // namespace lithify::commands
