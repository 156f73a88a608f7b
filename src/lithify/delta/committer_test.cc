// DeltaCommitter: a table::CommitIntent committed on a Delta table -- the actions written
// (and that they equal what OPTIMIZE's committer wrote before the seam), commitInfo,
// Delta's conflict rules as named outcomes, row tracking, the empty intent.
#include "lithify/delta/committer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/buffer.h"
#include "lithify/base/macros.h"
#include "lithify/delta/log_segment.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {
namespace {

using Json = nlohmann::json;

const char* kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";

Metadata Meta(std::map<std::string, std::string> config = {}, std::vector<std::string> partitions = {"p"}) {
  Metadata m;
  m.id = "table-id";
  m.schema_string = kSchema;
  m.partition_columns = std::move(partitions);
  m.configuration = std::move(config);
  return m;
}

Protocol RowTrackingProto() {
  Protocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>{"domainMetadata", "rowTracking"};
  return p;
}

AddFile Add(const std::string& path, int64_t records = 10) {
  AddFile a;
  a.path = path;
  a.partition_values["p"] = "a";
  a.size = 100 + records;
  a.modification_time = 1;
  a.data_change = true;
  a.stats = fmt::format(R"({{"numRecords":{}}})", records);
  return a;
}

table::AddedFile Output(const std::string& path, int64_t records = 20) {
  table::AddedFile o;
  o.path = path;
  o.size = 1000 + records;
  o.num_records = records;
  o.partition_values["p"] = "a";
  o.modification_time_ms = 7;
  o.stats = fmt::format(R"({{"numRecords":{},"minValues":{{"id":1}}}})", records);
  o.tags["ZCUBE_ID"] = "cube";
  return o;
}

TransactionOptions FixedClock() {
  TransactionOptions o;
  o.now_ms = [] { return int64_t{1700000000000}; };
  return o;
}

// A table on the memory file system: version 0 = protocol, metadata and `files`.
class Table {
 public:
  explicit Table(std::vector<AddFile> files, Protocol p = Protocol(), Metadata m = Meta())
      : fs_(io::NewMemoryFileSystem()) {
    auto tx = Transaction::BeginNewTable(fs_.get(), root_);
    EXPECT_TRUE(tx.ok());
    (*tx)->AddAction(std::move(p));
    (*tx)->AddAction(std::move(m));
    for (AddFile& f : files) (*tx)->AddAction(std::move(f));
    (*tx)->SetOperation("CREATE TABLE", Json::object());
    EXPECT_TRUE((*tx)->Commit().ok());
  }
  io::FileSystem* fs() const { return fs_.get(); }
  const std::string& root() const { return root_; }
  std::shared_ptr<const Snapshot> Load() const {
    auto s = Snapshot::Load(fs(), root_, VersionSpec::Latest(), LoadOptions{StatsMode::kNumRecords});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }
  // Another writer's commit on the latest version.
  int64_t Commit(std::vector<Action> actions, const std::string& op = "WRITE") {
    auto tx = Transaction::Begin(Load());
    EXPECT_TRUE(tx.ok());
    for (Action& a : actions) (*tx)->AddAction(std::move(a));
    (*tx)->SetOperation(op, Json::object());
    auto r = (*tx)->Commit();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->version : -1;
  }
  // Commit `version`'s lines, parsed.
  std::vector<Json> Lines(int64_t version) const {
    auto buf = fs_->ReadFile(io::JoinPath(root_, "_delta_log/" + CommitFileName(version)));
    EXPECT_TRUE(buf.ok());
    std::vector<Json> out;
    if (!buf.ok()) return out;
    std::string text(AsStringView(buf->view()));
    for (size_t pos = 0, nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
      out.push_back(Json::parse(text.substr(pos, nl - pos)));
    }
    return out;
  }
  bool Exists(int64_t version) const {
    return fs_->Head(io::JoinPath(root_, "_delta_log/" + CommitFileName(version))).ok();
  }
  const table::FileEntry& File(const Snapshot& s, const std::string& path) const {
    for (const table::FileEntry& f : s.files()) {
      if (f.path == path) return f;
    }
    ADD_FAILURE() << path << " is not live";
    static const table::FileEntry kNone;
    return kNone;
  }

 private:
  std::unique_ptr<io::FileSystem> fs_;
  std::string root_ = "/mem/table";
};

// OPTIMIZE's shape: `removed` (live at `snap`) replaced by `added` in one group.
table::CommitIntent Rewrite(const Table& t, const Snapshot& snap, const std::vector<std::string>& removed,
                            std::vector<table::AddedFile> added) {
  table::CommitIntent in;
  in.operation = "OPTIMIZE";
  in.parameters = {{"predicate", "[]"}, {"auto", false}, {"zOrderBy", "[]"}, {"clusterBy", "[]"}};
  in.data_change = false;
  in.read.version = snap.version();
  table::FileGroup& g = in.groups.emplace_back();
  std::vector<const table::FileEntry*> inputs;
  std::vector<int64_t> sizes;
  for (const std::string& p : removed) {
    const table::FileEntry& f = t.File(snap, p);
    g.removed.push_back(f);
    in.read.files.push_back(table::KeyOf(f));
    inputs.push_back(&f);
  }
  for (const table::AddedFile& a : added) sizes.push_back(a.size);
  g.added = std::move(added);
  in.metrics = OperationMetrics(sizes, inputs);
  return in;
}

table::CommitOutcome MustCommit(table::TableCommitter& c, const table::CommitIntent& in) {
  Result<table::CommitOutcome> r = c.Commit(in);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : table::CommitOutcome::Conflicted(r.status());
}

TEST(DeltaCommitIntent, AddsAndRemovesCommitExactlyThoseActions) {
  Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5)});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  table::CommitOutcome out = MustCommit(c, Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/g.parquet")}));
  ASSERT_TRUE(out.committed());
  EXPECT_EQ(out.version, 1);
  std::vector<Json> lines = t.Lines(1);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[0].contains("commitInfo"));
  EXPECT_EQ(lines[1]["remove"]["path"], "p=a/f1.parquet");
  EXPECT_EQ(lines[1]["remove"]["stats"], R"({"numRecords":10})");
  EXPECT_EQ(lines[1]["remove"]["size"], 110);
  EXPECT_EQ(lines[1]["remove"]["extendedFileMetadata"], true);
  EXPECT_EQ(lines[1]["remove"]["deletionTimestamp"], 1700000000000);
  EXPECT_EQ(lines[2]["remove"]["path"], "p=a/f2.parquet");
  EXPECT_EQ(lines[3]["add"]["path"], "p=a/g.parquet");
  EXPECT_EQ(lines[3]["add"]["stats"], R"({"numRecords":20,"minValues":{"id":1}})") << "stats text as written";
  EXPECT_EQ(lines[3]["add"]["tags"]["ZCUBE_ID"], "cube");
  EXPECT_EQ(lines[3]["add"]["modificationTime"], 7);
  auto after = t.Load();
  ASSERT_EQ(after->files().size(), 1u);
  EXPECT_EQ(after->files()[0].path, "p=a/g.parquet");
}

// The actions equal those of the pre-seam committer (MakeRemove + AddOf per bin, in bin
// order, the rowTracking tag, SetOperation), txnId aside.
TEST(DeltaCommitIntent, GroupsWriteWhatTheBatchCommitterWrote) {
  std::vector<std::vector<Json>> logs;
  for (bool via_intent : {true, false}) {
    Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5), Add("p=a/f3.parquet", 3)});
    auto snap = t.Load();
    table::CommitIntent in = Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/x.parquet")});
    table::CommitIntent second = Rewrite(t, *snap, {"p=a/f3.parquet"}, {Output("p=a/y.parquet", 3)});
    in.groups.push_back(second.groups[0]);
    in.read.files.push_back(second.read.files[0]);
    in.row_ids_preserved = true;
    if (via_intent) {
      DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
      ASSERT_TRUE(MustCommit(c, in).committed());
    } else {
      auto txn = Transaction::Begin(snap, FixedClock());
      ASSERT_TRUE(txn.ok());
      std::vector<FileKey> read;
      for (const table::FileGroup& g : in.groups) {
        for (const table::FileEntry& f : g.removed) {
          read.push_back({f.path, f.dv_unique_id()});
          (*txn)->AddAction(MakeRemove(f, (*txn)->NowMs()));
        }
        for (const table::AddedFile& a : g.added) (*txn)->AddAction(AddOf(a));
      }
      (*txn)->ReadFiles(read);
      (*txn)->SetCommitInfoExtra({{"tags", {{"delta.rowTracking.preserved", "true"}}}});
      (*txn)->SetOperation(in.operation, in.parameters, in.metrics);
      ASSERT_TRUE((*txn)->Commit().ok());
    }
    std::vector<Json> lines = t.Lines(1);
    ASSERT_FALSE(lines.empty());
    lines[0]["commitInfo"].erase("txnId");
    logs.push_back(lines);
  }
  EXPECT_EQ(logs[0], logs[1]);
  ASSERT_EQ(logs[0].size(), 6u);
  EXPECT_EQ(logs[0][3]["add"]["path"], "p=a/x.parquet") << "group 1's add before group 2's remove";
  EXPECT_EQ(logs[0][4]["remove"]["path"], "p=a/f3.parquet");
}

TEST(DeltaCommitIntent, MetricsAndParametersReachCommitInfo) {
  Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5)});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  table::CommitIntent in = Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/g.parquet")});
  in.row_ids_preserved = true;
  ASSERT_TRUE(MustCommit(c, in).committed());
  Json ci = t.Lines(1)[0]["commitInfo"];
  EXPECT_EQ(ci["operation"], "OPTIMIZE");
  EXPECT_EQ(ci["operationParameters"], in.parameters);
  EXPECT_EQ(ci["operationMetrics"]["numRemovedFiles"], "2");
  EXPECT_EQ(ci["operationMetrics"]["numAddedFiles"], "1");
  EXPECT_EQ(ci["operationMetrics"]["numRemovedBytes"], "215");
  EXPECT_EQ(ci["operationMetrics"]["numAddedBytes"], "1020");
  EXPECT_EQ(ci["operationMetrics"]["p50FileSize"], "1020");
  EXPECT_EQ(ci["readVersion"], 0);
  EXPECT_EQ(ci["timestamp"], 1700000000000);
  EXPECT_EQ(ci["tags"]["delta.rowTracking.preserved"], "true");
}

TEST(DeltaCommitIntent, DataChangeFalseRearrangesUnderSnapshotIsolation) {
  for (bool data_change : {false, true}) {
    Table t({Add("p=a/f1.parquet")});
    auto snap = t.Load();
    DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
    table::CommitIntent in = Rewrite(t, *snap, {"p=a/f1.parquet"}, {Output("p=a/g.parquet")});
    in.data_change = data_change;
    ASSERT_TRUE(MustCommit(c, in).committed());
    std::vector<Json> lines = t.Lines(1);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1]["remove"]["dataChange"], data_change);
    EXPECT_EQ(lines[2]["add"]["dataChange"], data_change);
    EXPECT_EQ(lines[0]["commitInfo"]["isolationLevel"], data_change ? "Serializable" : "SnapshotIsolation");
    EXPECT_FALSE(lines[0]["commitInfo"].contains("tags")) << "row ids not said to be preserved";
  }
}

TEST(DeltaCommitIntent, ConcurrentDeleteOfARemovedFileIsANamedConflict) {
  Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5)});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  RemoveFile del;
  del.path = "p=a/f1.parquet";
  del.data_change = true;
  ASSERT_EQ(t.Commit({del}, "DELETE"), 1);
  Result<table::CommitOutcome> out = c.Commit(Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/g.parquet")}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_FALSE(out->committed());
  EXPECT_EQ(out->conflict->exception, "ConcurrentDeleteReadException");
  EXPECT_TRUE(out->conflict->status.IsConflict());
  EXPECT_NE(out->conflict->status.message().find("p=a/f1.parquet"), std::string::npos)
      << out->conflict->status.message();
  EXPECT_FALSE(t.Exists(2)) << "nothing committed";
  Result<table::LatestFiles> latest = c.Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->version, 1);
  EXPECT_EQ(latest->live, (std::set<table::FileKey>{{"p=a/f2.parquet", ""}}));
  EXPECT_TRUE(latest->write_blocked.empty());
  EXPECT_FALSE(latest->partitioning_changed);
}

TEST(DeltaCommitIntent, ConcurrentAppendIsNoConflictForARearrangement) {
  Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5)});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  ASSERT_EQ(t.Commit({Add("p=a/f3.parquet")}), 1);
  table::CommitOutcome out = MustCommit(c, Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/g.parquet")}));
  ASSERT_TRUE(out.committed()) << out.conflict->status.ToString();
  EXPECT_EQ(out.version, 2) << "rebased over the append";
  std::set<std::string> live;
  auto after = t.Load();
  for (const table::FileEntry& f : after->files()) live.insert(f.path);
  EXPECT_EQ(live, (std::set<std::string>{"p=a/f3.parquet", "p=a/g.parquet"}));
}

TEST(DeltaCommitIntent, MetadataChangeIsMetadataChangedException) {
  Table t({Add("p=a/f1.parquet")});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  ASSERT_EQ(t.Commit({Meta({{"delta.appendOnly", "false"}}, {})}, "SET TBLPROPERTIES"), 1);
  Result<table::CommitOutcome> out = c.Commit(Rewrite(t, *snap, {"p=a/f1.parquet"}, {Output("p=a/g.parquet")}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_FALSE(out->committed());
  EXPECT_EQ(out->conflict->exception, "MetadataChangedException");
  EXPECT_FALSE(t.Exists(2));
  Result<table::LatestFiles> latest = c.Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_TRUE(latest->partitioning_changed) << "the partition columns went from [p] to []";
}

TEST(DeltaCommitIntent, RowTrackingFieldsArePreservedOnRemovesAndAssignedToAdds) {
  Table t({Add("p=a/f1.parquet", 10), Add("p=a/f2.parquet", 5)}, RowTrackingProto(),
          Meta({{"delta.enableRowTracking", "true"}}));
  auto snap = t.Load();
  ASSERT_EQ(t.File(*snap, "p=a/f2.parquet").base_row_id, 10);
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  table::AddedFile kept = Output("p=a/kept.parquet", 5);
  kept.base_row_id = 10;  // a writer that assigned them keeps them
  kept.default_row_commit_version = 0;
  table::CommitIntent in =
      Rewrite(t, *snap, {"p=a/f1.parquet", "p=a/f2.parquet"}, {Output("p=a/g.parquet", 10), kept});
  in.row_ids_preserved = true;
  table::CommitOutcome out = MustCommit(c, in);
  ASSERT_TRUE(out.committed());
  std::vector<Json> lines = t.Lines(1);
  std::map<std::string, Json> by_path;
  for (const Json& l : lines) {
    for (const char* kind : {"add", "remove"}) {
      if (l.contains(kind)) by_path[std::string(kind) + ":" + l[kind]["path"].get<std::string>()] = l[kind];
    }
  }
  EXPECT_EQ(by_path["remove:p=a/f1.parquet"]["baseRowId"], 0);
  EXPECT_EQ(by_path["remove:p=a/f2.parquet"]["baseRowId"], 10);
  EXPECT_EQ(by_path["remove:p=a/f2.parquet"]["defaultRowCommitVersion"], 0);
  EXPECT_EQ(by_path["add:p=a/g.parquet"]["baseRowId"], 15) << "fresh ids past the high-water mark 14";
  EXPECT_EQ(by_path["add:p=a/g.parquet"]["defaultRowCommitVersion"], 1);
  EXPECT_EQ(by_path["add:p=a/kept.parquet"]["baseRowId"], 10);
  EXPECT_EQ(by_path["add:p=a/kept.parquet"]["defaultRowCommitVersion"], 0);
  EXPECT_EQ(lines[0]["commitInfo"]["tags"]["delta.rowTracking.preserved"], "true");
}

TEST(DeltaCommitIntent, EmptyIntentIsRefusedAndWritesNothing) {
  Table t({Add("p=a/f1.parquet")});
  auto snap = t.Load();
  DeltaCommitter c(t.fs(), t.root(), snap, FixedClock());
  table::CommitIntent in;
  in.operation = "OPTIMIZE";
  in.read.version = 0;
  in.groups.emplace_back();  // a group with nothing in it is still nothing
  Result<table::CommitOutcome> out = c.Commit(in);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().IsInvalidArgument()) << out.status().ToString();
  EXPECT_NE(out.status().message().find("nothing to commit"), std::string::npos);
  EXPECT_FALSE(t.Exists(1));
}

TEST(DeltaCommitIntent, AnIntentReadAtAnOlderVersionLoadsThatVersion) {
  Table t({Add("p=a/f1.parquet"), Add("p=a/f2.parquet", 5)});
  auto v0 = t.Load();
  ASSERT_EQ(t.Commit({Add("p=a/f3.parquet")}), 1);
  DeltaCommitter c(t.fs(), t.root(), t.Load(), FixedClock());  // given version 1
  table::CommitOutcome out = MustCommit(c, Rewrite(t, *v0, {"p=a/f1.parquet"}, {Output("p=a/g.parquet")}));
  ASSERT_TRUE(out.committed());
  EXPECT_EQ(out.version, 2);
  EXPECT_EQ(t.Lines(2)[0]["commitInfo"]["readVersion"], 0) << "read at the intent's version, rebased over 1";
}

TEST(DeltaCommitIntent, ConflictedOutcomeNamesTheExceptionBehindContext) {
  table::CommitOutcome o =
      table::CommitOutcome::Conflicted(Status::Conflict("ConcurrentAppendException", "file x").WithContext("/t"));
  EXPECT_EQ(o.conflict->exception, "ConcurrentAppendException");
  EXPECT_EQ(o.conflict->status.message(), "/t: ConcurrentAppendException: file x");
  EXPECT_EQ(table::CommitOutcome::Conflicted(Status::Conflict("Odd", "x")).conflict->exception, "");
}

}  // namespace
}  // namespace lithify::delta
