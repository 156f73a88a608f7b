// The Delta log validator: OK on well-formed corpus tables and on a hand-built table
// with real Parquet files; each rule violated once in a copy -> that rule is named.
#include "tests/delta_write/validator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/test_util.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::delta_write {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;
using Commits = std::vector<std::vector<json>>;

std::vector<std::string> Rules(const std::vector<Violation>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.rule);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string Dump(const std::vector<Violation>& v) {
  std::string s;
  for (const auto& x : v) s += "[" + x.rule + "] " + x.message + "\n";
  return s;
}

// ---- well-formed corpus tables ----------------------------------------------------

class CorpusTables : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTables, AreValid) {
  delta::testing::TempTable copy(delta::testing::CorpusDir() + "/" + GetParam());
  auto fs = io::NewLocalFileSystem();
  auto v = CheckDeltaTable(fs.get(), copy.root());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->empty()) << Dump(*v);
  EXPECT_TRUE(ValidateDeltaTable(fs.get(), copy.root()).ok());
}

// lithify's checkpoint of each table passes the checkpoint-replay rule (and all others).
TEST_P(CorpusTables, StayValidAfterLithifyCheckpoint) {
  delta::testing::TempTable copy(delta::testing::CorpusDir() + "/" + GetParam());
  auto fs = io::NewLocalFileSystem();
  auto snap = delta::Snapshot::Load(fs.get(), copy.root(), delta::VersionSpec::Latest(),
                                    delta::LoadOptions{delta::StatsMode::kRaw});
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto r = delta::WriteCheckpoint(**snap, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto v = CheckDeltaTable(fs.get(), copy.root());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->empty()) << Dump(*v);
}

INSTANTIATE_TEST_SUITE_P(
    Delta, CorpusTables,
    ::testing::Values("delta-kernel-rs/kernel/tests/data/table-without-dv-small",
                      "delta-kernel-rs/kernel/tests/data/basic_partitioned",
                      "delta-kernel-rs/kernel/tests/data/table-with-dv-small",
                      "delta-kernel-rs/kernel/tests/data/basic-decimal-table",
                      "delta-kernel-rs/kernel/tests/data/stats-writing-all-types/delta",
                      "delta-kernel-rs/kernel/tests/golden_data/data-skipping-basic-stats-all-types/delta",
                      "delta-kernel-rs/kernel/tests/golden_data/kernel-timestamp-int96/delta",
                      "delta-kernel-rs/kernel/tests/golden_data/table-with-columnmapping-mode-name/delta",
                      "delta-kernel-rs/kernel/tests/data/v2-classic-checkpoint-parquet",
                      "delta-rs/crates/test/tests/data/delta-2.2.0-partitioned-types",
                      "delta-rs/crates/test/tests/data/table_with_liquid_clustering"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      if (name.size() > 6 && name.substr(name.size() - 6) == "/delta") name.resize(name.size() - 6);
      name = name.substr(name.rfind('/') + 1);
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// ---- a hand-built table with real data files ----------------------------------------

// 5 rows: x = 1..5, s = "a", "b", null, "d", "e".
void WriteDataFile(const std::string& path) {
  stdfs::create_directories(stdfs::path(path).parent_path());
  parquet::SchemaBuilder b;
  b.Add(parquet::FieldSpec::Long("x")).Add(parquet::FieldSpec::String("s"));
  auto schema = b.Build();
  ASSERT_TRUE(schema.ok());
  auto fs = io::NewLocalFileSystem();
  auto out = fs->Create(path);
  ASSERT_TRUE(out.ok());
  auto writer = parquet::FileWriter::Open(std::move(*out), *schema);
  ASSERT_TRUE(writer.ok());
  parquet::RowBatchBuilder rows((*writer)->schema());
  const char* s[] = {"a", "b", nullptr, "d", "e"};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(rows.Append({parquet::Value::Int(i + 1), s[i] ? parquet::Value::String(s[i]) : parquet::Value::Null()}).ok());
  }
  ASSERT_TRUE((*writer)->WriteBatch(rows.Finish()).ok());
  ASSERT_TRUE((*writer)->Close().ok());
}

// An inline DV deleting `rows`, with the given claimed cardinality.
json InlineDv(const std::vector<uint64_t>& rows, int64_t cardinality) {
  std::string bytes = delta::DeletionVector::FromRows(rows).Serialize();
  const size_t size = bytes.size();
  while (bytes.size() % 4 != 0) bytes.push_back('\0');
  auto z85 = delta::Z85Encode(bytes);
  EXPECT_TRUE(z85.ok());
  return {{"storageType", "i"}, {"pathOrInlineDv", *z85}, {"sizeInBytes", size}, {"cardinality", cardinality}};
}

const char* kStats = R"({"numRecords":5,"minValues":{"x":1,"s":"a"},"maxValues":{"x":5,"s":"e"},"nullCount":{"x":0,"s":1}})";

json Info(int v) {
  return {{"commitInfo", {{"timestamp", 1700000000000LL + v}, {"operation", "WRITE"}, {"txnId", "txn-" + std::to_string(v)}}}};
}

json AddAction(const std::string& path, const std::string& p, json extra = json::object()) {
  json a = {{"path", path}, {"partitionValues", {{"p", p}}}, {"size", 100},
            {"modificationTime", 1700000000000LL}, {"dataChange", true}, {"stats", kStats}};
  for (auto& [k, v] : extra.items()) a[k] = v;
  return {{"add", a}};
}

Commits GoodCommits() {
  Commits c(3);
  c[0] = {Info(0),
          {{"protocol", {{"minReaderVersion", 3}, {"minWriterVersion", 7}, {"readerFeatures", {"deletionVectors"}},
                         {"writerFeatures", {"deletionVectors", "domainMetadata", "rowTracking"}}}}},
          {{"metaData", {{"id", "t"}, {"format", {{"provider", "parquet"}, {"options", json::object()}}},
                         {"schemaString", R"({"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}},{"name":"s","type":"string","nullable":true,"metadata":{}},{"name":"p","type":"string","nullable":true,"metadata":{}}]})"},
                         {"partitionColumns", {"p"}},
                         {"configuration", {{"delta.enableDeletionVectors", "true"}, {"delta.enableRowTracking", "true"}}},
                         {"createdTime", 1700000000000LL}}}}};
  c[1] = {Info(1),
          AddAction("p=a/f1.parquet", "a", {{"baseRowId", 0}, {"defaultRowCommitVersion", 1}}),
          AddAction("p=b/f2.parquet", "b", {{"baseRowId", 5}, {"defaultRowCommitVersion", 1}}),
          {{"domainMetadata", {{"domain", "delta.rowTracking"}, {"configuration", R"({"rowIdHighWaterMark":9})"}, {"removed", false}}}}};
  c[2] = {Info(2),
          {{"remove", {{"path", "p=b/f2.parquet"}, {"deletionTimestamp", 1700000000002LL}, {"dataChange", true}, {"baseRowId", 5}, {"defaultRowCommitVersion", 1}}}},
          AddAction("p=b/f2.parquet", "b", {{"baseRowId", 5}, {"defaultRowCommitVersion", 1}, {"deletionVector", InlineDv({0, 2}, 2)},
                                            {"stats", R"({"numRecords":5,"tightBounds":false,"minValues":{"x":1},"maxValues":{"x":5},"nullCount":{"x":0}})"}})};
  return c;
}

class BuiltTable {
 public:
  BuiltTable() {
    char tmpl[] = "/tmp/lithify-validator-test-XXXXXX";
    char* d = mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    dir_ = d;
    WriteDataFile(root() + "/p=a/f1.parquet");
    WriteDataFile(root() + "/p=b/f2.parquet");
  }
  ~BuiltTable() {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  std::string root() const { return dir_ + "/table"; }
  std::string log(int64_t v) const { return root() + "/_delta_log/" + delta::CommitFileName(v); }
  void Write(const Commits& commits) const {
    stdfs::create_directories(root() + "/_delta_log");
    for (size_t v = 0; v < commits.size(); ++v) {
      std::ofstream out(log(static_cast<int64_t>(v)));
      for (const auto& a : commits[v]) out << a.dump() << "\n";
    }
  }
  std::vector<Violation> Check() const {
    auto fs = io::NewLocalFileSystem();
    auto v = CheckDeltaTable(fs.get(), root());
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : std::vector<Violation>{{"error", v.status().ToString()}};
  }

 private:
  std::string dir_;
};

TEST(Validator, WellFormedBuiltTableIsValid) {
  BuiltTable t;
  t.Write(GoodCommits());
  auto v = t.Check();
  EXPECT_TRUE(v.empty()) << Dump(v);
}

TEST(Validator, ValidAfterACheckpoint) {
  BuiltTable t;
  t.Write(GoodCommits());
  auto fs = io::NewLocalFileSystem();
  auto snap = delta::Snapshot::Load(fs.get(), t.root(), delta::VersionSpec::Latest(), delta::LoadOptions{delta::StatsMode::kRaw});
  ASSERT_TRUE(snap.ok());
  ASSERT_TRUE(delta::WriteCheckpoint(**snap, 1700000000000LL).ok());
  auto v = t.Check();
  EXPECT_TRUE(v.empty()) << Dump(v);
}

TEST(Validator, NotATable) {
  auto fs = io::NewLocalFileSystem();
  auto st = ValidateDeltaTable(fs.get(), "/tmp/definitely-not-a-delta-table-xyz");
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
}

// Each case breaks one rule of the good table; the validator must name exactly it.
struct Breakage {
  const char* rule;
  std::function<void(Commits*, const BuiltTable&)> mutate;  // before writing
  std::function<void(const BuiltTable&)> after = nullptr;   // after writing
};

std::vector<std::pair<std::string, Breakage>> Breakages() {
  std::vector<std::pair<std::string, Breakage>> b;
  b.push_back({"GapInVersions", {"contiguous-versions", [](Commits* c, const BuiltTable&) {
                  c->push_back({Info(3)});
                }, [](const BuiltTable& t) { stdfs::remove(t.log(2)); }}});
  b.push_back({"TwoActionsOnOneLine", {"one-action-per-line", [](Commits* c, const BuiltTable&) {
                  (*c)[2].push_back({{"txn", {{"appId", "a"}, {"version", 1}}}, {"domainMetadata", {{"domain", "x"}}}});
                }}});
  b.push_back({"GarbageLine", {"one-action-per-line", [](Commits*, const BuiltTable&) {}, [](const BuiltTable& t) {
                  std::ofstream(t.log(2), std::ios::app) << "not json\n";
                }}});
  b.push_back({"NoCommitInfo", {"one-commit-info", [](Commits* c, const BuiltTable&) {
                  (*c)[1].erase((*c)[1].begin());
                }}});
  b.push_back({"SameTxnIdTwice", {"unique-txn-id", [](Commits* c, const BuiltTable&) {
                  (*c)[2][0] = Info(1);
                }}});
  b.push_back({"DvWithoutFeature", {"protocol-features", [](Commits* c, const BuiltTable&) {
                  (*c)[0][1] = {{"protocol", {{"minReaderVersion", 3}, {"minWriterVersion", 7}, {"readerFeatures", json::array()},
                                              {"writerFeatures", {"domainMetadata", "rowTracking"}}}}};
                }}});
  b.push_back({"InCommitTimestampNotFirst", {"in-commit-timestamp", [](Commits* c, const BuiltTable&) {
                  (*c)[0][1]["protocol"]["writerFeatures"].push_back("inCommitTimestamp");
                  (*c)[0][2]["metaData"]["configuration"]["delta.enableInCommitTimestamps"] = "true";
                  for (int v = 0; v < 3; ++v) (*c)[v][0]["commitInfo"]["inCommitTimestamp"] = 1700000000000LL + v;
                  std::swap((*c)[2][0], (*c)[2][1]);
                }}});
  b.push_back({"InCommitTimestampGoesBack", {"in-commit-timestamp", [](Commits* c, const BuiltTable&) {
                  (*c)[0][1]["protocol"]["writerFeatures"].push_back("inCommitTimestamp");
                  (*c)[0][2]["metaData"]["configuration"]["delta.enableInCommitTimestamps"] = "true";
                  for (int v = 0; v < 3; ++v) (*c)[v][0]["commitInfo"]["inCommitTimestamp"] = 1700000000000LL - v;
                }}});
  b.push_back({"EscapingPath", {"relative-paths", [](Commits* c, const BuiltTable&) {
                  (*c)[2].push_back({{"remove", {{"path", "../outside.parquet"}, {"deletionTimestamp", 1}, {"dataChange", true}}}});
                }}});
  b.push_back({"WrongPartitionKey", {"partition-values", [](Commits* c, const BuiltTable&) {
                  (*c)[1][1]["add"]["partitionValues"] = {{"q", "a"}};
                }}});
  b.push_back({"MissingDataFile", {"data-file-exists", [](Commits*, const BuiltTable&) {}, [](const BuiltTable& t) {
                  stdfs::remove(t.root() + "/p=a/f1.parquet");
                }}});
  b.push_back({"WrongNumRecords", {"num-records", [](Commits* c, const BuiltTable&) {
                  (*c)[1][1]["add"]["stats"] = R"({"numRecords":6,"minValues":{"x":1},"maxValues":{"x":5},"nullCount":{"x":0}})";
                }}});
  b.push_back({"MinAboveData", {"stats-bounds", [](Commits* c, const BuiltTable&) {
                  (*c)[1][1]["add"]["stats"] = R"({"numRecords":5,"minValues":{"x":2},"maxValues":{"x":5},"nullCount":{"x":0}})";
                }}});
  b.push_back({"StringMaxBelowData", {"stats-bounds", [](Commits* c, const BuiltTable&) {
                  (*c)[1][1]["add"]["stats"] = R"({"numRecords":5,"minValues":{"s":"a"},"maxValues":{"s":"d"},"nullCount":{"s":1}})";
                }}});
  b.push_back({"WrongNullCount", {"null-count", [](Commits* c, const BuiltTable&) {
                  (*c)[1][1]["add"]["stats"] = R"({"numRecords":5,"minValues":{"s":"a"},"maxValues":{"s":"e"},"nullCount":{"s":0}})";
                }}});
  b.push_back({"DvCardinality", {"deletion-vector", [](Commits* c, const BuiltTable&) {
                  (*c)[2][2]["add"]["deletionVector"] = InlineDv({0, 2}, 3);
                }}});
  b.push_back({"DvRowBeyondFile", {"deletion-vector", [](Commits* c, const BuiltTable&) {
                  (*c)[2][2]["add"]["deletionVector"] = InlineDv({0, 7}, 2);
                }}});
  b.push_back({"CheckpointDisagrees", {"checkpoint-replay", [](Commits*, const BuiltTable&) {}, [](const BuiltTable& t) {
                  auto fs = io::NewLocalFileSystem();
                  auto snap = delta::Snapshot::Load(fs.get(), t.root(), delta::VersionSpec::AtVersion(1),
                                                    delta::LoadOptions{delta::StatsMode::kRaw});
                  ASSERT_TRUE(snap.ok());
                  ASSERT_TRUE(delta::WriteCheckpoint(**snap, 1700000000000LL).ok());
                  // Rewrite commit 1 without its second add: the checkpoint no longer matches.
                  Commits c = GoodCommits();
                  c[1].erase(c[1].begin() + 2);
                  std::ofstream out(t.log(1));
                  for (const auto& a : c[1]) out << a.dump() << "\n";
                }}});
  return b;
}

class BrokenTables : public ::testing::TestWithParam<std::pair<std::string, Breakage>> {};

TEST_P(BrokenTables, NameTheViolatedRule) {
  const Breakage& b = GetParam().second;
  BuiltTable t;
  Commits c = GoodCommits();
  b.mutate(&c, t);
  t.Write(c);
  if (b.after) b.after(t);
  auto v = t.Check();
  EXPECT_EQ(Rules(v), std::vector<std::string>{b.rule}) << Dump(v);
  auto fs = io::NewLocalFileSystem();
  Status st = ValidateDeltaTable(fs.get(), t.root());
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(std::string("[") + b.rule + "]"), std::string::npos) << st.message();
}

INSTANTIATE_TEST_SUITE_P(Rules, BrokenTables, ::testing::ValuesIn(Breakages()),
                         [](const auto& info) { return info.param.first; });

}  // namespace
}  // namespace lithify::delta_write
