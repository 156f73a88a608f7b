#include "lithify/base/temp_dir.h"
#include "lithify/commands/append.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "lithify/commands/scan.h"
#include "lithify/commands/test_util.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/fault_injection.h"
#include "lithify/delta/test_util.h"

namespace lithify::commands {
namespace {

using delta::testing::Field;
using delta::testing::Prim;
using delta::testing::Struct;
using testing::LatestVersion;
using testing::ScanLines;

// Creates a table (version 0) through a Transaction, as `lithify create` would.
void CreateTable(io::FileSystem* fs, const std::string& root, const std::string& schema,
                 std::vector<std::string> partitions) {
  auto txn = delta::Transaction::BeginNewTable(fs, root);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  delta::Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"timestampNtz"};
  p.writer_features = std::vector<std::string>{"timestampNtz"};
  delta::Metadata m;
  m.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  m.schema_string = schema;
  m.partition_columns = std::move(partitions);
  m.created_time = 1;
  (*txn)->AddAction(p);
  (*txn)->AddAction(m);
  (*txn)->SetOperation("CREATE TABLE", nlohmann::json::object());
  auto r = (*txn)->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->version, 0);
}

void WriteText(io::FileSystem* fs, const std::string& path, const std::string& text) {
  ASSERT_TRUE(fs->WriteFile(path, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()))
                  .ok());
}

std::string EveryTypeSchema() {
  return Struct({
      Field("id", Prim("long"), false), Field("flag", Prim("boolean")), Field("tiny", Prim("byte")),
      Field("small", Prim("short")), Field("n", Prim("integer")), Field("f", Prim("float")),
      Field("d", Prim("double")), Field("dec5", Prim("decimal(5,2)")),
      Field("dec18", Prim("decimal(18,6)")), Field("dec38", Prim("decimal(38,10)")),
      Field("s", Prim("string")), Field("bin", Prim("binary")), Field("day", Prim("date")),
      Field("ts", Prim("timestamp")), Field("tsn", Prim("timestamp_ntz")),
      Field("st", Struct({Field("a", Prim("integer")), Field("b", Prim("string"))})),
      Field("arr", R"({"type":"array","elementType":"string","containsNull":true})"),
      Field("m", R"({"type":"map","keyType":"string","valueType":"long","valueContainsNull":true})"),
      Field("part", Prim("string")),
  });
}

const char* kEveryTypeRows =
    R"({"id":1,"flag":true,"tiny":-128,"small":32767,"n":5,"f":1.5,"d":-2.25,"dec5":"123.45","dec18":"-1.000001","dec38":"1234567890123456789012345678.0123456789","s":"héllo","bin":"AP8=","day":"2024-02-29","ts":"2024-01-01T10:00:00.123456Z","tsn":"2024-01-01T10:00:00.000001","st":{"a":1,"b":"x"},"arr":["a",null],"m":[{"key":"k","value":7}],"part":"a b"}
{"id":2,"flag":null,"tiny":null,"small":null,"n":null,"f":null,"d":null,"dec5":null,"dec18":null,"dec38":null,"s":null,"bin":null,"day":null,"ts":null,"tsn":null,"st":null,"arr":null,"m":null,"part":null}
{"id":3,"flag":false,"tiny":127,"small":-1,"n":-7,"f":-0.5,"d":1e300,"dec5":"-999.99","dec18":"0.000001","dec38":"-0.0000000001","s":"","bin":"","day":"1969-12-31","ts":"1969-12-31T23:59:59.999999Z","tsn":"1970-01-01T00:00:00.000000","st":{"a":null,"b":null},"arr":[],"m":[],"part":"x/y=%"}
)";

TEST(Append, EveryTypeFromJsonlReadsBackThroughScan) {
  TempDir dir;
  auto fs = io::NewLocalFileSystem();
  const std::string root = dir.path() + "/t";
  CreateTable(fs.get(), root, EveryTypeSchema(), {"part"});
  WriteText(fs.get(), dir.path() + "/in.jsonl", kEveryTypeRows);
  AppendSpec spec;
  spec.inputs = {dir.path() + "/in.jsonl"};
  auto r = AppendRows(fs.get(), root, spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->commit.version, 1);
  EXPECT_EQ(r->metrics.num_files, 3);  // three partitions
  EXPECT_EQ(r->metrics.num_output_rows, 3);
  EXPECT_GT(r->metrics.num_output_bytes, 0);

  std::vector<std::string> lines = ScanLines(fs.get(), root);
  ASSERT_EQ(lines.size(), 3u);
  // Scan output is canonical JSON, which ingest reads back exactly: appending it again
  // to a second table must give the same rows.
  auto first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["id"], 1);
  EXPECT_EQ(first["dec38"], "1234567890123456789012345678.0123456789");
  EXPECT_EQ(first["ts"], "2024-01-01T10:00:00.123456Z");
  EXPECT_EQ(first["tsn"], "2024-01-01T10:00:00.000001");
  EXPECT_EQ(first["day"], "2024-02-29");
  EXPECT_EQ(first["part"], "a b");
  EXPECT_EQ(first["m"].dump(), R"([{"key":"k","value":7}])");
  EXPECT_EQ(nlohmann::json::parse(lines[2])["part"], "x/y=%");
  std::string again;
  for (const auto& l : lines) again += l + "\n";
  WriteText(fs.get(), dir.path() + "/again.jsonl", again);
  const std::string root2 = dir.path() + "/t2";
  CreateTable(fs.get(), root2, EveryTypeSchema(), {"part"});
  spec.inputs = {dir.path() + "/again.jsonl"};
  ASSERT_TRUE(AppendRows(fs.get(), root2, spec).ok());
  EXPECT_EQ(ScanLines(fs.get(), root2), lines);

  // The commit is a blind append as Delta writes it.
  auto log = fs->ReadFile(root + "/_delta_log/00000000000000000001.json");
  ASSERT_TRUE(log.ok());
  std::string text(reinterpret_cast<const char*>(log->data()), log->size());
  auto actions = delta::ParseCommitFile(text, "1.json");
  ASSERT_TRUE(actions.ok());
  int adds = 0;
  for (const auto& a : *actions) {
    if (const auto* add = std::get_if<delta::AddFile>(&a)) {
      ++adds;
      auto st = nlohmann::json::parse(*add->stats);
      EXPECT_EQ(st["numRecords"], 1);
      auto decoded = delta::DecodeActionPath(add->path);
      ASSERT_TRUE(decoded.ok());
      EXPECT_TRUE(fs->Head(root + "/" + *decoded).ok()) << *decoded;
    }
    if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) {
      auto j = nlohmann::json::parse(ci->json);
      EXPECT_EQ(j["operation"], "WRITE");
      EXPECT_EQ(j["operationParameters"]["mode"], "Append");
      EXPECT_EQ(j["operationParameters"]["partitionBy"], R"(["part"])");
      EXPECT_EQ(j["operationMetrics"]["numFiles"], "3");
      EXPECT_EQ(j["operationMetrics"]["numOutputRows"], "3");
      EXPECT_EQ(j["operationMetrics"]["numOutputBytes"], std::to_string(r->metrics.num_output_bytes));
      if (j.contains("isBlindAppend")) {
        EXPECT_EQ(j["isBlindAppend"], true);
      }
    }
  }
  EXPECT_EQ(adds, 3);
}

TEST(Append, GeneratedRowsSplitOverFilesPerPartition) {
  auto fs = io::NewMemoryFileSystem();
  const std::string schema = Struct({Field("event_time", Prim("timestamp")), Field("customer_id", Prim("long")),
                                     Field("category", Prim("string")), Field("bucket", Prim("integer"))});
  CreateTable(fs.get(), "/t", schema, {"bucket"});
  AppendSpec spec;
  spec.generate = GeneratorOptions{};
  spec.generate->rows = 1000;
  spec.generate->seed = 3;
  spec.num_files = 4;
  auto r = AppendRows(fs.get(), "/t", spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metrics.num_output_rows, 1000);
  auto snap = delta::Snapshot::Load(fs.get(), "/t");
  ASSERT_TRUE(snap.ok());
  std::map<std::optional<std::string>, int> per_partition;
  int64_t rows = 0;
  for (const auto& f : (*snap)->files()) {
    per_partition[f.partition_values.at("bucket")]++;
    rows += *f.num_records();
  }
  EXPECT_EQ(rows, 1000);
  for (const auto& [p, n] : per_partition) EXPECT_LE(n, 4) << p.value_or("null");
  EXPECT_EQ(static_cast<int64_t>((*snap)->files().size()), r->metrics.num_files);
  // Scan counts every generated row.
  ScanOptions count;
  count.count_only = true;
  auto c = Scan(fs.get(), "/t", count, nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rows, 1000);

  // Unpartitioned: exactly N files.
  CreateTable(fs.get(), "/u", schema, {});
  auto r2 = AppendRows(fs.get(), "/u", spec);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->metrics.num_files, 4);
}

TEST(Append, SchemaMismatchRefusedAndNothingCommitted) {
  auto fs = io::NewMemoryFileSystem();
  CreateTable(fs.get(), "/t", Struct({Field("id", Prim("long"), false), Field("s", Prim("string"))}), {});
  WriteText(fs.get(), "/bad.jsonl", "{\"id\":1,\"s\":\"a\"}\n{\"id\":\"nope\",\"s\":\"b\"}\n");
  WriteText(fs.get(), "/extra.jsonl", "{\"id\":1,\"zzz\":2}\n");
  WriteText(fs.get(), "/null.jsonl", "{\"s\":\"no id\"}\n");
  for (const char* in : {"/bad.jsonl", "/extra.jsonl", "/null.jsonl"}) {
    AppendSpec spec;
    spec.inputs = {in};
    auto r = AppendRows(fs.get(), "/t", spec);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("nothing was committed"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(in + 1), std::string::npos) << r.status().message();
    EXPECT_EQ(LatestVersion(fs.get(), "/t"), 0);
  }
  // Nothing was left open either: no data file exists.
  auto list = fs->ListRecursive("/t");
  ASSERT_TRUE(list.ok());
  for (const auto& f : *list) EXPECT_NE(f.path.find("_delta_log"), std::string::npos) << f.path;
}

TEST(Append, InjectedIoFailureMidwayCommitsNothing) {
  auto mem = io::NewMemoryFileSystem();
  io::FaultInjectingFileSystem fs(mem.get());
  CreateTable(&fs, "/t", Struct({Field("id", Prim("long")), Field("s", Prim("string"))}), {});
  // The third data file's Create fails (the first two are written and closed).
  io::Fault fault;
  fault.op = io::FsOp::kCreate;
  fault.path_contains = "part-00000-";
  fault.skip = 2;
  fs.Inject(fault);
  AppendSpec spec;
  spec.generate = GeneratorOptions{};
  spec.generate->rows = 300;
  spec.writer.max_rows_per_file = 100;
  auto r = AppendRows(&fs, "/t", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("nothing was committed"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("2 data file(s) already written"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("VACUUM"), std::string::npos) << r.status().message();
  EXPECT_EQ(fs.fired(), 1);
  EXPECT_EQ(LatestVersion(mem.get(), "/t"), 0);
  auto snap = delta::Snapshot::Load(mem.get(), "/t");
  ASSERT_TRUE(snap.ok());
  EXPECT_TRUE((*snap)->files().empty());

  // A failure of a data file's Close (after rows were written) also commits nothing.
  fs.Clear();
  io::Fault close_fault;
  close_fault.op = io::FsOp::kClose;
  close_fault.path_contains = ".parquet";
  fs.Inject(close_fault);
  auto r2 = AppendRows(&fs, "/t", spec);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(LatestVersion(mem.get(), "/t"), 0);
  // With the fault spent, the same append succeeds.
  auto r3 = AppendRows(&fs, "/t", spec);
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  EXPECT_EQ(r3->commit.version, 1);
  EXPECT_EQ(r3->metrics.num_output_rows, 300);
}

// Every data file under the table root (anything outside _delta_log).
std::vector<std::string> DataFiles(io::FileSystem* fs, const std::string& root) {
  std::vector<std::string> out;
  auto list = fs->ListRecursive(root);
  EXPECT_TRUE(list.ok());
  if (!list.ok()) return out;
  for (const auto& f : *list) {
    if (f.path.find("/_delta_log/") == std::string::npos) out.push_back(f.path);
  }
  return out;
}

// Issue 14 defect 8: `append --from a.csv a.csv missing.csv` must not write a.csv's rows
// before finding that missing.csv is not there: every input is opened and checked
// first, nothing is written.
TEST(Append, EveryInputCheckedBeforeTheFirstDataFile) {
  auto fs = io::NewMemoryFileSystem();
  CreateTable(fs.get(), "/t", Struct({Field("id", Prim("long")), Field("s", Prim("string"))}), {});
  WriteText(fs.get(), "/a.csv", "id,s\n1,x\n2,y\n");
  WriteText(fs.get(), "/wrong-header.csv", "id,nope\n1,x\n");
  WriteText(fs.get(), "/bad-first.jsonl", "{\"id\":\"one\"}\n");
  WriteText(fs.get(), "/not-parquet.bin", "this is no parquet file");
  WriteText(fs.get(), "/empty.csv", "");
  for (const char* last : {"/missing.csv", "/wrong-header.csv", "/bad-first.jsonl", "/not-parquet.bin", "/empty.csv"}) {
    AppendSpec spec;
    spec.inputs = {"/a.csv", "/a.csv", last};
    io::FaultInjectingFileSystem counting(fs.get());
    auto r = AppendRows(&counting, "/t", spec);
    ASSERT_FALSE(r.ok()) << last;
    EXPECT_NE(r.status().message().find(last + 1), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("append failed before writing anything, nothing was committed"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(counting.calls(io::FsOp::kCreate), 0) << last << ": a data file was started";
    EXPECT_EQ(LatestVersion(fs.get(), "/t"), 0);
    EXPECT_TRUE(DataFiles(fs.get(), "/t").empty()) << last;
  }
}

// Defect 8, the rest: a failure found only while writing (a bad row deep in the second
// input, after the first input's file was closed) removes every data file written.
TEST(Append, FailureAfterFilesWereWrittenRemovesThem) {
  auto fs = io::NewMemoryFileSystem();
  CreateTable(fs.get(), "/t", Struct({Field("id", Prim("long")), Field("s", Prim("string"))}), {});
  WriteText(fs.get(), "/a.jsonl", "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n");
  WriteText(fs.get(), "/late-bad.jsonl", "{\"id\":3,\"s\":\"c\"}\n{\"id\":\"four\",\"s\":\"d\"}\n");
  AppendSpec spec;
  spec.inputs = {"/a.jsonl", "/a.jsonl", "/late-bad.jsonl"};
  auto r = AppendRows(fs.get(), "/t", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("late-bad.jsonl line 2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("the 2 data file(s) already written were deleted again"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(LatestVersion(fs.get(), "/t"), 0);
  EXPECT_TRUE(DataFiles(fs.get(), "/t").empty());
  // The same inputs without the bad one commit normally.
  spec.inputs = {"/a.jsonl", "/a.jsonl"};
  auto ok = AppendRows(fs.get(), "/t", spec);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->metrics.num_output_rows, 4);
  EXPECT_EQ(DataFiles(fs.get(), "/t").size(), 2u);
}

TEST(Append, RefusesTablesLithifyCannotWrite) {
  auto fs = io::NewMemoryFileSystem();
  // A protocol lithify cannot write, committed by hand (a Transaction would refuse it).
  delta::Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>{"someFutureWriterFeature"};
  delta::Metadata m;
  m.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  m.schema_string = Struct({Field("id", Prim("long"))});
  WriteText(fs.get(), "/t/_delta_log/00000000000000000000.json",
            delta::ActionToJson(p) + "\n" + delta::ActionToJson(m) + "\n");
  AppendSpec spec;
  spec.generate = GeneratorOptions{};
  spec.generate->rows = 1;
  auto r = AppendRows(fs.get(), "/t", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("someFutureWriterFeature"), std::string::npos);
  auto list = fs->ListRecursive("/t");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);  // no data file, no commit
}

TEST(Append, SpecErrors) {
  auto fs = io::NewMemoryFileSystem();
  AppendSpec empty;
  EXPECT_TRUE(AppendRows(fs.get(), "/t", empty).status().IsInvalidArgument());
  AppendSpec both;
  both.inputs = {"/x.jsonl"};
  both.generate = GeneratorOptions{};
  EXPECT_TRUE(AppendRows(fs.get(), "/t", both).status().IsInvalidArgument());
  AppendSpec files;
  files.generate = GeneratorOptions{};
  files.num_files = 0;
  EXPECT_TRUE(AppendRows(fs.get(), "/t", files).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lithify::commands
