// Transaction: commits, commitInfo, in-commit timestamps, row tracking, conflict rules
// and concurrency (threads and forked processes) on the memory FS and real temp dirs.
#include "lithify/delta/transaction.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/base/version.h"
#include "lithify/delta/conflict.h"
#include "lithify/delta/log_segment.h"
#include "lithify/io/fault_injection.h"

namespace lithify::delta {
namespace {

using Json = nlohmann::json;

const char* kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";

Protocol Proto(std::vector<std::string> writer_features = {}, std::vector<std::string> reader_features = {}) {
  Protocol p;
  if (writer_features.empty() && reader_features.empty()) return p;  // (1, 2)
  p.min_reader_version = reader_features.empty() ? 1 : 3;
  p.min_writer_version = 7;
  p.writer_features = writer_features;
  if (!reader_features.empty()) p.reader_features = reader_features;
  return p;
}

Metadata Meta(std::map<std::string, std::string> config = {}) {
  Metadata m;
  m.id = "table-id";
  m.schema_string = kSchema;
  m.partition_columns = {"p"};
  m.configuration = std::move(config);
  return m;
}

AddFile Add(const std::string& path, int64_t records = 10, bool data_change = true,
            const std::string& part = "a") {
  AddFile a;
  a.path = path;
  a.partition_values["p"] = part;
  a.size = 100;
  a.modification_time = 1;
  a.data_change = data_change;
  a.stats = fmt::format(R"({{"numRecords":{}}})", records);
  return a;
}

RemoveFile Remove(const std::string& path, bool data_change = true) {
  RemoveFile r;
  r.path = path;
  r.data_change = data_change;
  r.deletion_timestamp = 5;
  return r;
}

// A table on a memory FS or in a real temporary directory.
class TestTable {
 public:
  explicit TestTable(bool local) {
    if (local) {
      char tmpl[] = "/tmp/lithify-tx-test-XXXXXX";
      char* dir = mkdtemp(tmpl);
      EXPECT_NE(dir, nullptr);
      dir_ = dir;
      root_ = dir_ + "/table";
      fs_ = io::NewLocalFileSystem();
    } else {
      root_ = "/mem/table";
      fs_ = io::NewMemoryFileSystem();
    }
  }
  ~TestTable() {
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }
  io::FileSystem* fs() const { return fs_.get(); }
  const std::string& root() const { return root_; }

  Result<CommitResult> Create(Protocol p = Proto(), Metadata m = Meta(), std::vector<Action> more = {},
                              TransactionOptions opts = {}) {
    LITHIFY_ASSIGN_OR_RETURN(auto tx, Transaction::BeginNewTable(fs(), root_, std::move(opts)));
    tx->AddAction(std::move(p));
    tx->AddAction(std::move(m));
    for (auto& a : more) tx->AddAction(std::move(a));
    tx->SetOperation("CREATE TABLE", Json::object());
    return tx->Commit();
  }
  std::shared_ptr<const Snapshot> Load(std::optional<int64_t> version = std::nullopt) const {
    auto snap = Snapshot::Load(fs(), root_, version ? VersionSpec::AtVersion(*version) : VersionSpec::Latest(),
                               LoadOptions{StatsMode::kRaw});
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    return snap.ok() ? *snap : nullptr;
  }
  std::unique_ptr<Transaction> Begin(std::shared_ptr<const Snapshot> snap = nullptr, TransactionOptions opts = {}) {
    auto tx = Transaction::Begin(snap ? snap : Load(), std::move(opts));
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    return tx.ok() ? std::move(tx).value() : nullptr;
  }
  // Commits `actions` as a blind append / arbitrary commit on the latest snapshot.
  CommitResult CommitOn(std::shared_ptr<const Snapshot> snap, std::vector<Action> actions) {
    auto tx = Begin(std::move(snap));
    for (auto& a : actions) tx->AddAction(std::move(a));
    auto r = tx->Commit();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CommitResult{};
  }
  // The parsed JSON lines of commit `version`.
  std::vector<Json> Lines(int64_t version) const {
    auto buf = fs_->ReadFile(io::JoinPath(root_, "_delta_log/" + CommitFileName(version)));
    EXPECT_TRUE(buf.ok());
    std::vector<Json> out;
    std::string text(AsStringView(buf->view()));
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      EXPECT_NE(nl, std::string::npos) << "every line ends with a newline";
      if (nl == std::string::npos) break;
      out.push_back(Json::parse(text.substr(pos, nl - pos)));
      pos = nl + 1;
    }
    return out;
  }
  Json CommitInfoOf(int64_t version) const {
    auto lines = Lines(version);
    EXPECT_FALSE(lines.empty());
    EXPECT_TRUE(lines.front().contains("commitInfo")) << "commitInfo is the first action";
    return lines.empty() ? Json() : lines.front()["commitInfo"];
  }

 private:
  std::string dir_;
  std::string root_;
  std::unique_ptr<io::FileSystem> fs_;
};

class TransactionFsTest : public ::testing::TestWithParam<bool> {};

TEST_P(TransactionFsTest, NewTableCommitIsVisibleToSnapshotLoad) {
  TestTable t(GetParam());
  auto r = t.Create(Proto(), Meta(), {Add("p=a/f1.parquet", 3)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 0);
  EXPECT_EQ(r->attempts, 1);
  auto snap = t.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->version(), 0);
  EXPECT_EQ(snap->metadata().id, "table-id");
  EXPECT_EQ(snap->partition_columns(), std::vector<std::string>{"p"});
  ASSERT_EQ(snap->files().size(), 1u);
  EXPECT_EQ(snap->files()[0].path, "p=a/f1.parquet");

  auto r1 = t.CommitOn(snap, {Add("p=a/f2.parquet")});
  EXPECT_EQ(r1.version, 1);
  EXPECT_EQ(t.Load()->files().size(), 2u);
  // Exactly what was written is reported, commitInfo first.
  ASSERT_EQ(r1.actions.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<CommitInfo>(r1.actions[0]));
  EXPECT_EQ(t.Lines(1).size(), 2u);
}

TEST_P(TransactionFsTest, NewTableOverExistingTableIsAlreadyExists) {
  TestTable t(GetParam());
  ASSERT_TRUE(t.Create().ok());
  auto again = t.Create();
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsAlreadyExists()) << again.status().ToString();
  EXPECT_NE(again.status().message().find(t.root()), std::string::npos);
  EXPECT_EQ(t.Lines(0).size(), 3u) << "version 0 untouched";
}


// --- Validation -----------------------------------------------------------------------

Status CreateStatus(std::vector<Action> actions) {
  TestTable t(false);
  auto tx = Transaction::BeginNewTable(t.fs(), t.root());
  EXPECT_TRUE(tx.ok());
  for (auto& a : actions) (*tx)->AddAction(std::move(a));
  auto r = (*tx)->Commit();
  if (r.ok()) return Status::OK();
  // Nothing is written by a rejected commit.
  auto files = ListLogFiles(t.fs(), t.root() + "/_delta_log");
  EXPECT_TRUE(files.ok() && files->empty());
  return r.status();
}

void ExpectInvalid(const Status& st, const std::string& needle) {
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
}

TEST(TransactionValidation, NewTableNeedsOneProtocolAndOneMetadata) {
  ExpectInvalid(CreateStatus({Meta()}), "exactly one protocol and one metaData");
  ExpectInvalid(CreateStatus({Proto()}), "exactly one protocol and one metaData");
  ExpectInvalid(CreateStatus({Proto(), Meta(), Meta()}), "exactly one protocol and one metaData");
  EXPECT_TRUE(CreateStatus({Proto(), Meta()}).ok());
}

TEST(TransactionValidation, MetadataMustParse) {
  Metadata bad = Meta();
  bad.schema_string = "{not json";
  ExpectInvalid(CreateStatus({Proto(), bad}), "schemaString");
  Metadata missing_part = Meta();
  missing_part.partition_columns = {"nope"};
  ExpectInvalid(CreateStatus({Proto(), missing_part}), "'nope'");
}

TEST(TransactionValidation, ActionsNeedTheirTableFeatures) {
  AddFile dv = Add("f.parquet");
  dv.deletion_vector = DeletionVectorDescriptor{'u', "ab^-aqEH.-t@S}K{vb[*k^", 1, 36, 2, std::nullopt};
  ExpectInvalid(CreateStatus({Proto(), Meta(), dv}), "deletionVectors");
  EXPECT_TRUE(CreateStatus({Proto({"deletionVectors"}, {"deletionVectors"}), Meta(), dv}).ok());

  ExpectInvalid(CreateStatus({Proto(), Meta(), DomainMetadata{"app.x", "{}", false}}), "domainMetadata");
  EXPECT_TRUE(CreateStatus({Proto({"domainMetadata"}), Meta(), DomainMetadata{"app.x", "{}", false}}).ok());

  AddFile with_ids = Add("f.parquet");
  with_ids.base_row_id = 7;
  ExpectInvalid(CreateStatus({Proto({"domainMetadata"}), Meta(), with_ids}), "rowTracking");

  AddFile clustered = Add("f.parquet");
  clustered.clustering_provider = "liquid";
  ExpectInvalid(CreateStatus({Proto({"domainMetadata"}), Meta(), clustered}), "clustering");

  ExpectInvalid(CreateStatus({Proto(), Meta({{"delta.enableInCommitTimestamps", "true"}})}),
                "inCommitTimestamp");
  ExpectInvalid(CreateStatus({Proto({"rowTracking"}), Meta()}), "domainMetadata");
  ExpectInvalid(CreateStatus({Proto(), Meta(), CommitInfo{}}), "commitInfo");
  Status unknown = CreateStatus({Proto({"someFutureFeature"}), Meta()});
  EXPECT_TRUE(unknown.IsNotSupported()) << unknown.ToString();
}

TEST(TransactionValidation, AppendOnlyTableRejectsDataRemoves) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(Proto(), Meta({{"delta.appendOnly", "true"}}), {Add("f.parquet")}).ok());
  auto tx = t.Begin();
  tx->AddAction(Remove("f.parquet"));
  auto r = tx->Commit();
  ASSERT_FALSE(r.ok());
  ExpectInvalid(r.status(), "append-only");
  // A compaction (dataChange=false) may remove files of an append-only table.
  EXPECT_EQ(t.CommitOn(nullptr, {Remove("f.parquet", false), Add("g.parquet", 10, false)}).version, 1);
}

TEST(TransactionValidation, CommitOnlyOnce) {
  TestTable t(false);
  ASSERT_TRUE(t.Create().ok());
  auto tx = t.Begin();
  tx->AddAction(Add("f.parquet"));
  ASSERT_TRUE(tx->Commit().ok());
  auto again = tx->Commit();
  EXPECT_TRUE(again.status().IsInvalidArgument());
  EXPECT_EQ(t.Load()->version(), 1);
}

TEST(TransactionValidation, BeginRefusesUnwritableProtocol) {
  TestTable t(false);
  Protocol future;
  future.min_reader_version = 1;
  future.min_writer_version = 7;
  future.writer_features = std::vector<std::string>{"someFutureFeature"};
  std::string text = ActionToJson(future) + "\n" + ActionToJson(Meta()) + "\n";
  ASSERT_TRUE(t.fs()->WriteFile(t.root() + "/_delta_log/" + CommitFileName(0), AsBytes(text)).ok());
  auto snap = t.Load();
  ASSERT_TRUE(snap);
  auto tx = Transaction::Begin(snap);
  ASSERT_FALSE(tx.ok());
  EXPECT_TRUE(tx.status().IsNotSupported()) << tx.status().ToString();
  EXPECT_NE(tx.status().message().find("someFutureFeature"), std::string::npos);
}

// --- commitInfo -----------------------------------------------------------------------

TEST(TransactionCommitInfo, FieldsOfACreateAndABlindAppend) {
  TestTable t(false);
  TransactionOptions fixed;
  fixed.now_ms = [] { return int64_t{1700000000000}; };
  ASSERT_TRUE(t.Create(Proto(), Meta(), {}, fixed).ok());
  Json c0 = t.CommitInfoOf(0);
  EXPECT_EQ(c0["operation"], "CREATE TABLE");
  EXPECT_EQ(c0["timestamp"], 1700000000000);
  EXPECT_FALSE(c0.contains("readVersion")) << "no readVersion for a new table";
  EXPECT_FALSE(c0.contains("inCommitTimestamp"));
  EXPECT_FALSE(c0.contains("operationMetrics")) << "omitted when empty";
  EXPECT_EQ(c0["engineInfo"], std::string("lithify/") + kVersion);
  EXPECT_EQ(c0["isBlindAppend"], false) << "no adds";
  ASSERT_TRUE(c0["txnId"].is_string());
  EXPECT_EQ(c0["txnId"].get<std::string>().size(), 36u);

  auto tx = t.Begin(nullptr, fixed);
  tx->AddAction(Add("a.parquet"));
  tx->SetOperation("WRITE", Json{{"mode", "Append"}, {"partitionBy", "[]"}},
                   {{"numFiles", "1"}, {"numOutputRows", "10"}});
  tx->SetCommitInfoExtra(Json{{"tags", {{"k", "v"}}}, {"operation", "ignored"}});
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Json c1 = t.CommitInfoOf(1);
  EXPECT_EQ(c1["operation"], "WRITE") << "core fields win over extras";
  EXPECT_EQ(c1["operationParameters"]["mode"], "Append");
  EXPECT_EQ(c1["operationMetrics"]["numOutputRows"], "10");
  EXPECT_EQ(c1["readVersion"], 0);
  EXPECT_EQ(c1["isolationLevel"], "Serializable");
  EXPECT_EQ(c1["isBlindAppend"], true);
  EXPECT_EQ(c1["tags"]["k"], "v");
  EXPECT_NE(c1["txnId"], c0["txnId"]);
  // The reader sees the same commitInfo.
  auto snap = t.Load();
  ASSERT_TRUE(snap->commit_info());
  EXPECT_EQ(snap->commit_info()->operation, "WRITE");
}

TEST(TransactionCommitInfo, BlindAppendOnlyWhenNothingWasRead) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(Proto(), Meta(), {Add("a.parquet")}).ok());
  auto blind = [&](const std::function<void(Transaction&)>& setup) {
    auto tx = t.Begin();
    setup(*tx);
    auto r = tx->Commit();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return t.CommitInfoOf(r->version)["isBlindAppend"].get<bool>();
  };
  EXPECT_TRUE(blind([](Transaction& tx) { tx.AddAction(Add("b1.parquet")); }));
  EXPECT_TRUE(blind([](Transaction& tx) {
    tx.AddAction(Add("b2.parquet"));
    tx.AddAction(Txn{"app", 1, std::nullopt});
  }));
  EXPECT_FALSE(blind([](Transaction& tx) {
    tx.ReadPredicate("p = 'a'", [](const AddFile&) { return true; });
    tx.AddAction(Add("b3.parquet"));
  }));
  EXPECT_FALSE(blind([](Transaction& tx) {
    tx.ReadWholeTable();
    tx.AddAction(Add("b4.parquet"));
  }));
  EXPECT_FALSE(blind([](Transaction& tx) {
    tx.ReadFiles({{"a.parquet", ""}});
    tx.AddAction(Add("b5.parquet"));
  }));
  EXPECT_FALSE(blind([](Transaction& tx) { tx.AddAction(Add("b6.parquet", 10, false)); }));
  EXPECT_FALSE(blind([](Transaction& tx) {
    tx.AddAction(Remove("b1.parquet"));
    tx.AddAction(Add("b7.parquet"));
  }));
}

TEST(TransactionCommitInfo, IsolationDowngradesForRearrangingCommits) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(Proto({"domainMetadata", "rowTracking"}), Meta(), {Add("a.parquet")}).ok());
  auto rewrite = t.CommitOn(nullptr, {Remove("a.parquet", false), Add("b.parquet", 10, false)});
  Json c = t.CommitInfoOf(rewrite.version);
  EXPECT_EQ(c["isolationLevel"], "SnapshotIsolation");
  EXPECT_EQ(c["isBlindAppend"], false);
  // A row-tracking domain (written by Commit itself here) keeps the downgrade.
  bool has_domain = false;
  for (const Action& a : rewrite.actions) {
    if (auto* d = std::get_if<DomainMetadata>(&a)) has_domain = d->domain == "delta.rowTracking";
  }
  EXPECT_TRUE(has_domain);
  auto del = t.CommitOn(nullptr, {Remove("b.parquet", true)});
  EXPECT_EQ(t.CommitInfoOf(del.version)["isolationLevel"], "Serializable");
  auto other_domain = t.CommitOn(nullptr, {Add("c.parquet", 1, false), DomainMetadata{"app.x", "{}", false}});
  EXPECT_EQ(t.CommitInfoOf(other_domain.version)["isolationLevel"], "Serializable");
}

// --- In-commit timestamps --------------------------------------------------------------

TEST(TransactionIct, MonotonicAndFirst) {
  TestTable t(false);
  int64_t clock = 5000;
  TransactionOptions opts;
  opts.now_ms = [&clock] { return clock; };
  ASSERT_TRUE(t.Create(Proto({"inCommitTimestamp"}), Meta({{"delta.enableInCommitTimestamps", "true"}}), {},
                       opts).ok());
  EXPECT_EQ(t.CommitInfoOf(0)["inCommitTimestamp"], 5000);
  EXPECT_EQ(t.Load()->metadata().configuration.count("delta.inCommitTimestampEnablementVersion"), 0u)
      << "a table created with ICT records no enablement";
  clock = 4000;  // the clock went backwards: ICT still increases
  auto tx = t.Begin(nullptr, opts);
  tx->AddAction(Add("a.parquet"));
  ASSERT_TRUE(tx->Commit().ok());
  EXPECT_EQ(t.CommitInfoOf(1)["inCommitTimestamp"], 5001);
  EXPECT_EQ(t.CommitInfoOf(1)["timestamp"], 4000);
  clock = 9000;
  tx = t.Begin(nullptr, opts);
  tx->AddAction(Add("b.parquet"));
  ASSERT_TRUE(tx->Commit().ok());
  EXPECT_EQ(t.CommitInfoOf(2)["inCommitTimestamp"], 9000);
  EXPECT_EQ(t.Load()->timestamp_ms(), 9000) << "readers use the ICT";
}

TEST(TransactionIct, RebasedCommitFollowsTheWinnersTimestamp) {
  TestTable t(false);
  int64_t clock = 5000;
  TransactionOptions opts;
  opts.now_ms = [&clock] { return clock; };
  ASSERT_TRUE(t.Create(Proto({"inCommitTimestamp"}), Meta({{"delta.enableInCommitTimestamps", "true"}}), {},
                       opts).ok());
  auto snap = t.Load();
  auto winner = t.Begin(snap, opts);
  winner->AddAction(Add("w.parquet"));
  clock = 8000;
  ASSERT_TRUE(winner->Commit().ok());
  clock = 6000;
  auto loser = t.Begin(snap, opts);
  loser->AddAction(Add("l.parquet"));
  auto r = loser->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(t.CommitInfoOf(2)["inCommitTimestamp"], 8001);
}

TEST(TransactionIct, EnablingRecordsVersionAndTimestamp) {
  TestTable t(false);
  TransactionOptions opts;
  opts.now_ms = [] { return int64_t{1}; };  // before the file time of version 0
  ASSERT_TRUE(t.Create(Proto({"inCommitTimestamp"}), Meta()).ok());
  auto snap = t.Load();
  auto tx = t.Begin(snap, opts);
  Metadata m = snap->metadata();
  m.configuration["delta.enableInCommitTimestamps"] = "true";
  tx->AddAction(m);
  tx->SetOperation("SET TBLPROPERTIES", Json::object());
  ASSERT_TRUE(tx->Commit().ok());
  auto after = t.Load();
  const auto& conf = after->metadata().configuration;
  EXPECT_EQ(conf.at("delta.inCommitTimestampEnablementVersion"), "1");
  int64_t ict = t.CommitInfoOf(1)["inCommitTimestamp"].get<int64_t>();
  EXPECT_EQ(conf.at("delta.inCommitTimestampEnablementTimestamp"), std::to_string(ict));
  EXPECT_EQ(ict, snap->timestamp_ms() + 1) << "max(now, previous commit time + 1)";
}

TEST(TransactionIct, EnablementIsRecomputedOnRebase) {
  TestTable t(false);
  TransactionOptions opts;
  opts.now_ms = [] { return int64_t{1}; };
  ASSERT_TRUE(t.Create(Proto({"inCommitTimestamp"}), Meta()).ok());
  auto snap = t.Load();
  t.CommitOn(snap, {Add("w.parquet")});
  auto tx = t.Begin(snap, opts);
  Metadata m = snap->metadata();
  m.configuration["delta.enableInCommitTimestamps"] = "true";
  tx->AddAction(m);
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  auto after = t.Load();
  EXPECT_EQ(after->metadata().configuration.at("delta.inCommitTimestampEnablementVersion"), "2");
  int64_t winner_time = t.Load(1)->timestamp_ms();
  EXPECT_EQ(t.CommitInfoOf(2)["inCommitTimestamp"], winner_time + 1);
  EXPECT_EQ(after->timestamp_ms(), winner_time + 1);
}

// --- Row tracking ----------------------------------------------------------------------

Protocol RowTrackingProto() { return Proto({"domainMetadata", "rowTracking"}); }

int64_t HighWaterMark(const Snapshot& snap) {
  auto it = snap.domain_metadata().find("delta.rowTracking");
  if (it == snap.domain_metadata().end()) return -1;
  return Json::parse(it->second.configuration)["rowIdHighWaterMark"].get<int64_t>();
}

std::vector<AddFile> AddsOf(const CommitResult& r) {
  std::vector<AddFile> out;
  for (const Action& a : r.actions) {
    if (auto* add = std::get_if<AddFile>(&a)) out.push_back(*add);
  }
  return out;
}

TEST(TransactionRowTracking, ContiguousIdsAcrossCommits) {
  TestTable t(false);
  auto c0 = t.Create(RowTrackingProto(), Meta({{"delta.enableRowTracking", "true"}}),
                     {Add("a.parquet", 10), Add("b.parquet", 5)});
  ASSERT_TRUE(c0.ok()) << c0.status().ToString();
  auto adds = AddsOf(*c0);
  EXPECT_EQ(adds[0].base_row_id, 0);
  EXPECT_EQ(adds[1].base_row_id, 10);
  EXPECT_EQ(adds[0].default_row_commit_version, 0);
  EXPECT_EQ(HighWaterMark(*t.Load()), 14);

  AddFile kept = Add("kept.parquet", 3);
  kept.base_row_id = 2;  // a rewrite preserving ids keeps them
  kept.default_row_commit_version = 0;
  auto c1 = t.CommitOn(nullptr, {Add("c.parquet", 7), kept, Add("empty.parquet", 0), Add("d.parquet", 1)});
  adds = AddsOf(c1);
  EXPECT_EQ(adds[0].base_row_id, 15);
  EXPECT_EQ(adds[0].default_row_commit_version, 1);
  EXPECT_EQ(adds[1].base_row_id, 2);
  EXPECT_EQ(adds[1].default_row_commit_version, 0);
  EXPECT_EQ(adds[2].base_row_id, 22);
  EXPECT_EQ(adds[3].base_row_id, 22) << "an empty file consumes no ids";
  auto snap = t.Load();
  EXPECT_EQ(HighWaterMark(*snap), 22);
  for (const auto& f : snap->files()) EXPECT_TRUE(f.base_row_id.has_value()) << f.path;

  // A commit that assigns nothing writes no domain.
  auto c2 = t.CommitOn(nullptr, {Txn{"app", 1, std::nullopt}});
  for (const Action& a : c2.actions) EXPECT_FALSE(std::holds_alternative<DomainMetadata>(a));
}

TEST(TransactionRowTracking, MissingNumRecordsIsInvalid) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(RowTrackingProto(), Meta()).ok());
  AddFile no_stats = Add("x.parquet");
  no_stats.stats.reset();
  auto tx = t.Begin();
  tx->AddAction(no_stats);
  ExpectInvalid(tx->Commit().status(), "x.parquet");
  AddFile no_count = Add("y.parquet");
  no_count.stats = R"({"minValues":{}})";
  tx = t.Begin();
  tx->AddAction(no_count);
  ExpectInvalid(tx->Commit().status(), "numRecords");
  EXPECT_EQ(t.Load()->version(), 0);
}

TEST(TransactionRowTracking, RebaseReassignsIdsAfterTheWinner) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(RowTrackingProto(), Meta(), {Add("a.parquet", 10)}).ok());
  auto snap = t.Load();
  auto winner = t.CommitOn(snap, {Add("w.parquet", 4)});
  EXPECT_EQ(AddsOf(winner)[0].base_row_id, 10);
  auto tx = t.Begin(snap);
  tx->AddAction(Add("l.parquet", 6));
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(r->lost_to_versions, std::vector<int64_t>{1});
  auto adds = AddsOf(*r);
  EXPECT_EQ(adds[0].base_row_id, 14);
  EXPECT_EQ(adds[0].default_row_commit_version, 2);
  EXPECT_EQ(HighWaterMark(*t.Load()), 19);
}

// --- Conflicts -------------------------------------------------------------------------

// Creates a table with files a (p=a) and b (p=b), returns its version-0 snapshot.
std::shared_ptr<const Snapshot> TwoFileTable(TestTable& t, Protocol p = Proto({"domainMetadata"})) {
  EXPECT_TRUE(t.Create(p, Meta(), {Add("p=a/a.parquet", 10, true, "a"), Add("p=b/b.parquet", 10, true, "b")}).ok());
  return t.Load();
}

void ExpectConflict(const Result<CommitResult>& r, const std::string& name,
                    std::vector<std::string> needles = {}) {
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  EXPECT_EQ(r.status().message().rfind(name + ": ", 0), 0u) << r.status().ToString();
  for (const auto& n : needles) {
    EXPECT_NE(r.status().message().find(n), std::string::npos) << n << " in " << r.status().ToString();
  }
}

TEST(TransactionConflict, ProtocolChanged) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Proto({"domainMetadata", "appendOnly"})});
  auto tx = t.Begin(snap);
  tx->AddAction(Add("c.parquet"));
  ExpectConflict(tx->Commit(), "ProtocolChangedException", {"version 1"});
  EXPECT_EQ(t.Load()->version(), 1) << "the loser wrote nothing";
}

TEST(TransactionConflict, MetadataChanged) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  Metadata m = snap->metadata();
  m.configuration["x"] = "y";
  t.CommitOn(snap, {m});
  auto tx = t.Begin(snap);
  tx->AddAction(Add("c.parquet"));
  ExpectConflict(tx->Commit(), "MetadataChangedException", {"version 1"});
}

TEST(TransactionConflict, SameDomain) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {DomainMetadata{"app.x", R"({"a":1})", false}});
  auto tx = t.Begin(snap);
  tx->AddAction(DomainMetadata{"app.x", R"({"a":2})", false});
  ExpectConflict(tx->Commit(), "ConcurrentTransactionException", {"app.x", "version 1"});
  // Another domain does not conflict.
  auto other = t.Begin(snap);
  other->AddAction(DomainMetadata{"app.y", "{}", false});
  EXPECT_TRUE(other->Commit().ok());
}

TEST(TransactionConflict, SameAppId) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Txn{"stream-1", 3, std::nullopt}, Add("w.parquet")});
  auto tx = t.Begin(snap);
  tx->AddAction(Txn{"stream-1", 3, std::nullopt});
  tx->AddAction(Add("l.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentTransactionException", {"stream-1", "version 1"});
  auto other = t.Begin(snap);
  other->AddAction(Txn{"stream-2", 1, std::nullopt});
  EXPECT_TRUE(other->Commit().ok());
}

TEST(TransactionConflict, AppendIntoWholeTableRead) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("p=a/new.parquet", 1, true, "a")});
  auto tx = t.Begin(snap);
  tx->ReadWholeTable();
  tx->AddAction(Remove("p=a/a.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentAppendException", {"p=a/new.parquet", "version 1"});
}

TEST(TransactionConflict, AppendMatchingAReadPredicate) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("p=b/new.parquet", 1, true, "b")});
  auto only_a = [](const AddFile& f) { return f.partition_values.at("p") == "a"; };
  auto only_b = [](const AddFile& f) { return f.partition_values.at("p") == "b"; };
  auto tx = t.Begin(snap);
  tx->ReadPredicate("p = 'b'", only_b);
  tx->AddAction(Remove("p=b/b.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentAppendException", {"p=b/new.parquet", "p = 'b'", "version 1"});
  // A predicate the new file cannot match commits.
  auto ok = t.Begin(snap);
  ok->ReadPredicate("p = 'a'", only_a);
  ok->ReadFiles({{"p=a/a.parquet", ""}});
  ok->AddAction(Remove("p=a/a.parquet"));
  auto r = ok->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
}

TEST(TransactionConflict, DeleteOfAFileRead) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Remove("p=a/a.parquet")});
  auto tx = t.Begin(snap);
  tx->ReadFiles({{"p=a/a.parquet", ""}});
  tx->AddAction(Add("p=a/rewritten.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteReadException", {"p=a/a.parquet", "version 1"});
}

TEST(TransactionConflict, CompactionOfAFileReadIsADeleteRead) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Remove("p=a/a.parquet", false), Add("p=a/compact.parquet", 10, false)});
  auto tx = t.Begin(snap);
  tx->ReadFiles({{"p=a/a.parquet", ""}});
  tx->AddAction(Remove("p=a/a.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteReadException", {"p=a/a.parquet"});
}

TEST(TransactionConflict, DataRemoveUnderWholeTableRead) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Remove("p=b/b.parquet")});
  auto tx = t.Begin(snap);
  tx->ReadWholeTable();
  tx->AddAction(Add("p=a/summary.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteReadException", {"p=b/b.parquet", "version 1"});
}

TEST(TransactionConflict, DeleteDelete) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Remove("p=a/a.parquet")});
  auto tx = t.Begin(snap);
  tx->AddAction(Remove("p=a/a.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteDeleteException", {"p=a/a.parquet", "version 1"});
}

TEST(TransactionConflict, DeletionVectorIsPartOfTheFileIdentity) {
  TestTable t(false);
  Protocol p = Proto({"deletionVectors", "domainMetadata"}, {"deletionVectors"});
  auto snap = TwoFileTable(t, p);
  DeletionVectorDescriptor dv{'u', "ab^-aqEH.-t@S}K{vb[*k^", 1, 36, 2, std::nullopt};
  // The winner replaces a's DV-less entry with a DV (a DV-only delete).
  AddFile with_dv = Add("p=a/a.parquet");
  with_dv.deletion_vector = dv;
  t.CommitOn(snap, {Remove("p=a/a.parquet"), with_dv});
  auto reader = t.Begin(snap);
  reader->ReadFiles({{"p=a/a.parquet", ""}});
  reader->AddAction(Add("x.parquet"));
  ExpectConflict(reader->Commit(), "ConcurrentDeleteReadException", {"p=a/a.parquet"});
  // Reading a (path, DV id) that the winner did not remove is no conflict.
  auto other = t.Begin(snap);
  other->ReadFiles({{"p=a/a.parquet", dv.UniqueId()}});
  other->AddAction(Add("y.parquet"));
  EXPECT_TRUE(other->Commit().ok());
}

TEST(TransactionConflict, PercentEncodedWinnerPathsAreDecoded) {
  TestTable t(false);
  EXPECT_TRUE(t.Create(Proto(), Meta(), {Add("p=a%20b/x.parquet", 1, true, "a b")}).ok());
  auto snap = t.Load();
  ASSERT_EQ(snap->files()[0].path, "p=a b/x.parquet");
  t.CommitOn(snap, {Remove("p=a%20b/x.parquet")});
  auto tx = t.Begin(snap);
  tx->ReadFiles({{snap->files()[0].path, ""}});
  tx->AddAction(Add("y.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteReadException", {"p=a b/x.parquet"});
}

TEST(TransactionConflict, BlindAppendsBothCommit) {
  TestTable t(true);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("w.parquet")});
  auto tx = t.Begin(snap);
  tx->AddAction(Add("l.parquet"));
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(t.Load()->files().size(), 4u);
}

TEST(TransactionConflict, CompactionSurvivesAConcurrentAppend) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("p=a/new.parquet", 1, true, "a")});
  auto tx = t.Begin(snap);
  tx->ReadFiles({{"p=a/a.parquet", ""}});
  tx->ReadPredicate("p = 'a'", [](const AddFile&) { return true; });
  tx->AddAction(Remove("p=a/a.parquet", false));
  tx->AddAction(Add("p=a/compact.parquet", 10, false));
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(t.CommitInfoOf(r->version)["isolationLevel"], "SnapshotIsolation");
  EXPECT_EQ(t.Load()->files().size(), 3u);
}

TEST(TransactionConflict, AppendSurvivesAConcurrentCompaction) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Remove("p=a/a.parquet", false), Remove("p=b/b.parquet", false),
                    Add("compact.parquet", 20, false)});
  auto tx = t.Begin(snap);
  tx->AddAction(Add("p=a/new.parquet"));
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(t.Load()->files().size(), 2u);
}

TEST(TransactionConflict, NewTableLosingVersionZeroIsAlreadyExists) {
  TestTable t(false);
  auto a = Transaction::BeginNewTable(t.fs(), t.root());
  auto b = Transaction::BeginNewTable(t.fs(), t.root());
  ASSERT_TRUE(a.ok() && b.ok());
  for (auto* tx : {a->get(), b->get()}) {
    tx->AddAction(Proto());
    tx->AddAction(Meta());
  }
  // b begins its commit after a's listing check would have passed: simulate by
  // committing a first; b then finds the log (or loses the put) -> AlreadyExists.
  ASSERT_TRUE((*a)->Commit().ok());
  auto r = (*b)->Commit();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsAlreadyExists()) << r.status().ToString();
}

TEST(TransactionConflict, MaxAttemptsExhausted) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("w.parquet")});
  TransactionOptions once;
  once.max_attempts = 1;
  auto tx = t.Begin(snap, once);
  tx->AddAction(Add("l.parquet"));
  auto r = tx->Commit();
  ExpectConflict(r, "MaxCommitRetriesExceededException", {"1 attempts"});
  EXPECT_EQ(t.Load()->version(), 1);
}

TEST(TransactionConflict, MalformedWinnerIsCorruptionNamingTheFile) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  std::string garbage = "{\"add\":{\"path\":\"x\"\n";
  ASSERT_TRUE(t.fs()->WriteFile(t.root() + "/_delta_log/" + CommitFileName(1), AsBytes(garbage)).ok());
  auto tx = t.Begin(snap);
  tx->AddAction(Add("l.parquet"));
  auto r = tx->Commit();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("_delta_log/00000000000000000001.json"), std::string::npos)
      << r.status().ToString();
  auto files = ListLogFiles(t.fs(), t.root() + "/_delta_log");
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 2u) << "nothing written after the damaged winner";
}

TEST(TransactionConflict, WinnersAreCheckedInVersionOrderAndAllRebased) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(RowTrackingProto(), Meta(), {Add("a.parquet", 10)}).ok());
  auto snap = t.Load();
  t.CommitOn(snap, {Add("w1.parquet", 1)});
  t.CommitOn(nullptr, {Add("w2.parquet", 2)});
  t.CommitOn(nullptr, {Add("w3.parquet", 3)});
  auto tx = t.Begin(snap);
  tx->AddAction(Add("l.parquet", 4));
  auto r = tx->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 4);
  EXPECT_EQ(r->lost_to_versions, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(AddsOf(*r)[0].base_row_id, 16);
  EXPECT_EQ(HighWaterMark(*t.Load()), 19);
}

TEST(TransactionConflict, ConflictWithALaterWinnerNamesItsVersion) {
  TestTable t(false);
  auto snap = TwoFileTable(t);
  t.CommitOn(snap, {Add("w1.parquet")});        // version 1: harmless
  t.CommitOn(nullptr, {Remove("p=b/b.parquet")});  // version 2: removes what we read
  auto tx = t.Begin(snap);
  tx->ReadFiles({{"p=b/b.parquet", ""}});
  tx->AddAction(Add("l.parquet"));
  ExpectConflict(tx->Commit(), "ConcurrentDeleteReadException",
                 {"version 2", "_delta_log/00000000000000000002.json", "p=b/b.parquet"});
}

// --- The pure checker --------------------------------------------------------------------

TEST(ConflictChecker, ProtocolIsCheckedBeforeMetadataAndFiles) {
  TransactionFootprint mine;
  mine.table_root = "/t";
  mine.removed_files = {{"a", ""}};
  WinningCommit w{7, "_delta_log/7.json", {Remove("a"), Meta(), Proto()}, 0};
  Status st = CheckConflicts(mine, w);
  EXPECT_EQ(st.message().rfind("ProtocolChangedException", 0), 0u) << st.ToString();
  w.actions = {Remove("a"), Meta()};
  st = CheckConflicts(mine, w);
  EXPECT_EQ(st.message().rfind("MetadataChangedException", 0), 0u) << st.ToString();
  w.actions = {Remove("a")};
  st = CheckConflicts(mine, w);
  EXPECT_EQ(st.message().rfind("ConcurrentDeleteDeleteException", 0), 0u) << st.ToString();
  EXPECT_NE(st.message().find("version 7"), std::string::npos);
}

TEST(ConflictChecker, SnapshotIsolationIgnoresAppendsButNotDeletes) {
  TransactionFootprint mine;
  mine.table_root = "/t";
  mine.isolation = IsolationLevel::kSnapshotIsolation;
  mine.read_whole_table = true;
  mine.read_files = {{"a", ""}};
  WinningCommit w{3, "_delta_log/3.json", {Add("n")}, 0};
  EXPECT_TRUE(CheckConflicts(mine, w).ok());
  mine.isolation = IsolationLevel::kSerializable;
  EXPECT_TRUE(CheckConflicts(mine, w).IsConflict());
  mine.isolation = IsolationLevel::kSnapshotIsolation;
  w.actions = {Remove("a", false)};
  EXPECT_TRUE(CheckConflicts(mine, w).IsConflict());
}

TEST(ConflictChecker, RowTrackingDomainAndDataChangeFalseAddsNeverConflict) {
  TransactionFootprint mine;
  mine.table_root = "/t";
  mine.read_whole_table = true;
  mine.domains = {"app.x"};
  WinningCommit w{3, "_delta_log/3.json",
                  {DomainMetadata{"delta.rowTracking", R"({"rowIdHighWaterMark":5})", false},
                   Add("n", 1, false)}, 0};
  EXPECT_TRUE(CheckConflicts(mine, w).ok());
  // A winner path outside the table never matches (and is no error).
  mine.read_files = {{"x", ""}};
  w.actions = {Remove("s3://elsewhere/x", false)};
  EXPECT_TRUE(CheckConflicts(mine, w).ok());
  w.actions = {Remove("file:///t/x", false)};
  EXPECT_TRUE(CheckConflicts(mine, w).IsConflict());
}

// --- Storage failures during the put ------------------------------------------------------

// A memory table whose commits go through a fault-injecting FileSystem.
struct FaultyTable {
  TestTable base{false};
  io::FaultInjectingFileSystem fs{base.fs()};
  std::shared_ptr<const Snapshot> Create() {
    EXPECT_TRUE(base.Create(Proto(), Meta(), {Add("a.parquet")}).ok());
    auto snap = Snapshot::Load(&fs, base.root(), VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
    EXPECT_TRUE(snap.ok());
    return *snap;
  }
  Result<CommitResult> Append(std::shared_ptr<const Snapshot> snap, const std::string& path) {
    LITHIFY_ASSIGN_OR_RETURN(auto tx, Transaction::Begin(std::move(snap)));
    tx->AddAction(Add(path));
    return tx->Commit();
  }
  size_t NumCommits() {
    auto files = ListLogFiles(base.fs(), base.root() + "/_delta_log");
    return files.ok() ? files->size() : 0;
  }
};

io::Fault PutFault(bool lands, bool retryable) {
  io::Fault f;
  f.op = io::FsOp::kPutIfAbsent;
  f.path_contains = "_delta_log/";
  f.error = Status(StatusCode::kIOError, "injected put failure", retryable);
  f.after_success = lands;
  return f;
}

TEST(TransactionStorageFailure, PutThatLandedDespiteAnErrorIsASuccess) {
  FaultyTable t;
  auto snap = t.Create();
  t.fs.Inject(PutFault(/*lands=*/true, /*retryable=*/false));
  auto r = t.Append(snap, "b.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 1);
  EXPECT_EQ(t.NumCommits(), 2u) << "written once, not retried";
}

TEST(TransactionStorageFailure, RetryableFailureThatDidNotLandIsRetried) {
  FaultyTable t;
  auto snap = t.Create();
  t.fs.Inject(PutFault(/*lands=*/false, /*retryable=*/true));
  auto r = t.Append(snap, "b.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 1);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(t.NumCommits(), 2u);
}

TEST(TransactionStorageFailure, PermanentFailureIsReportedAndWritesNothing) {
  FaultyTable t;
  auto snap = t.Create();
  t.fs.Inject(PutFault(/*lands=*/false, /*retryable=*/false));
  auto r = t.Append(snap, "b.parquet");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("00000000000000000001.json"), std::string::npos);
  EXPECT_EQ(t.NumCommits(), 1u);
}

TEST(TransactionStorageFailure, UnknownOutcomeIsNeitherSuccessNorRetry) {
  FaultyTable t;
  auto snap = t.Create();
  t.fs.Inject(PutFault(/*lands=*/true, /*retryable=*/true));
  io::Fault reread;
  reread.op = io::FsOp::kOpenForRead;
  reread.path_contains = "00000000000000000001.json";
  t.fs.Inject(reread);  // the re-read after the failed put fails too
  auto r = t.Append(snap, "b.parquet");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("unknown"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(t.NumCommits(), 2u) << "the commit landed once; nothing else was written";
}

TEST(TransactionStorageFailure, OwnCommitFoundAmongWinnersIsNotCommittedTwice) {
  FaultyTable t;
  auto snap = t.Create();
  // The put lands but reports a retryable error, and the re-read wrongly says "absent"
  // (a lagging store): the retry loses to... our own commit, recognized by its txnId.
  t.fs.Inject(PutFault(/*lands=*/true, /*retryable=*/true));
  io::Fault lagging;
  lagging.op = io::FsOp::kOpenForRead;
  lagging.path_contains = "00000000000000000001.json";
  lagging.error = Status::NotFound("lagging read");
  t.fs.Inject(lagging);
  auto r = t.Append(snap, "b.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 1);
  EXPECT_EQ(t.NumCommits(), 2u);
  EXPECT_EQ(t.base.Load()->files().size(), 2u);
}

// --- Post-commit checkpoint -----------------------------------------------------------------

TEST(TransactionCheckpoint, HookRunsOnTheIntervalAndNeverFailsTheCommit) {
  TestTable t(false);
  ASSERT_TRUE(t.Create(Proto(), Meta({{"delta.checkpointInterval", "2"}})).ok());
  auto r1 = t.CommitOn(nullptr, {Add("a.parquet")});
  EXPECT_FALSE(r1.checkpoint_written);
  EXPECT_FALSE(r1.checkpoint_error);
  auto r2 = t.CommitOn(nullptr, {Add("b.parquet")});
  EXPECT_EQ(r2.version, 2);
  EXPECT_NE(r2.checkpoint_written, r2.checkpoint_error.has_value())
      << "exactly one of written / error at a multiple of the interval";
  if (r2.checkpoint_written) {
    auto files = ListLogFiles(t.fs(), t.root() + "/_delta_log");
    ASSERT_TRUE(files.ok());
    bool found = false;
    for (const auto& f : *files) found = found || (f.name.is_checkpoint() && f.name.version == 2);
    EXPECT_TRUE(found);
  }
  EXPECT_EQ(t.Load()->files().size(), 2u);

  TransactionOptions off;
  off.checkpoint_on_interval = false;
  auto tx = t.Begin(nullptr, off);
  tx->AddAction(Add("c.parquet"));
  ASSERT_TRUE(tx->Commit().ok());
  tx = t.Begin(nullptr, off);
  tx->AddAction(Add("d.parquet"));
  auto r4 = tx->Commit();
  ASSERT_TRUE(r4.ok());
  EXPECT_EQ(r4->version, 4);
  EXPECT_FALSE(r4->checkpoint_written);
  EXPECT_FALSE(r4->checkpoint_error);
}

// --- Concurrency -------------------------------------------------------------------------

// Every version 1..n holds exactly one add and all `expected` paths appear once.
void ExpectContiguousAppends(const TestTable& t, const std::set<std::string>& expected) {
  auto snap = t.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->version(), static_cast<int64_t>(expected.size()));
  std::multiset<std::string> seen;
  for (int64_t v = 1; v <= static_cast<int64_t>(expected.size()); ++v) {
    auto lines = t.Lines(v);
    int adds = 0;
    for (const auto& l : lines) {
      if (l.contains("add")) {
        ++adds;
        seen.insert(l["add"]["path"].get<std::string>());
      }
    }
    EXPECT_EQ(adds, 1) << "version " << v;
  }
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), expected);
  EXPECT_EQ(seen.size(), expected.size()) << "no add committed twice";
  EXPECT_EQ(snap->files().size(), expected.size());
}

TEST(TransactionConcurrency, FourThreadsTwentyFiveBlindAppends) {
  TestTable t(true);
  ASSERT_TRUE(t.Create().ok());
  constexpr int kThreads = 4, kPerThread = 25;
  std::atomic<int> failures{0}, rebased{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      // A stale snapshot for half the appends forces rebases over many winners.
      auto stale = Snapshot::Load(t.fs(), t.root(), VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
      if (!stale.ok()) { ++failures; return; }
      for (int j = 0; j < kPerThread; ++j) {
        std::shared_ptr<const Snapshot> snap = *stale;
        if (j % 2 == 1) {
          auto fresh = Snapshot::Load(t.fs(), t.root(), VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
          if (!fresh.ok()) { ++failures; continue; }
          snap = *fresh;
        }
        TransactionOptions opts;
        opts.max_attempts = 1000;
        opts.checkpoint_on_interval = false;
        auto tx = Transaction::Begin(snap, opts);
        if (!tx.ok()) { ++failures; continue; }
        (*tx)->AddAction(Add(fmt::format("t{}-{}.parquet", i, j)));
        auto r = (*tx)->Commit();
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          ++failures;
        } else if (r->attempts > 1) {
          ++rebased;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  // Stale-snapshot appends after the first commit cannot win their first try.
  EXPECT_GT(rebased.load(), 0);
  std::set<std::string> expected;
  for (int i = 0; i < kThreads; ++i) {
    for (int j = 0; j < kPerThread; ++j) expected.insert(fmt::format("t{}-{}.parquet", i, j));
  }
  ExpectContiguousAppends(t, expected);
}

TEST(TransactionConcurrency, ForkedProcessesAppendToOneTable) {
  TestTable t(true);
  ASSERT_TRUE(t.Create().ok());
  constexpr int kProcs = 4, kPerProc = 10;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: its own FileSystem; exit code = failed appends (no gtest in here).
      auto fs = io::NewLocalFileSystem();
      int failed = 0;
      for (int j = 0; j < kPerProc; ++j) {
        auto snap = Snapshot::Load(fs.get(), t.root(), VersionSpec::Latest(), LoadOptions{StatsMode::kRaw});
        if (!snap.ok()) { ++failed; continue; }
        TransactionOptions opts;
        opts.max_attempts = 1000;
        opts.checkpoint_on_interval = false;
        auto tx = Transaction::Begin(*snap, opts);
        if (!tx.ok()) { ++failed; continue; }
        (*tx)->AddAction(Add(fmt::format("proc{}-{}.parquet", i, j)));
        if (!(*tx)->Commit().ok()) ++failed;
      }
      _exit(failed);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "failed appends in child " << pid;
  }
  std::set<std::string> expected;
  for (int i = 0; i < kProcs; ++i) {
    for (int j = 0; j < kPerProc; ++j) expected.insert(fmt::format("proc{}-{}.parquet", i, j));
  }
  ExpectContiguousAppends(t, expected);
}

INSTANTIATE_TEST_SUITE_P(MemoryAndLocal, TransactionFsTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Local" : "Memory"; });

}  // namespace
}  // namespace lithify::delta
