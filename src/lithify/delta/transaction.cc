// Transaction: validation, commitInfo, row tracking, in-commit timestamps,
// put-if-absent with rebase over winners, post-commit checkpoint.
//
// Structure: Commit() = Prepare() (everything that does not depend on the version:
// validation, effective protocol/metadata, isolation level, footprint for conflict
// checks) + a loop of BuildActions(position) -> PutIfAbsent -> on a lost race
// AdvanceOverWinners(position) (conflict check + rebase inputs). A Position holds all
// that a rebase changes: the version tried, the row-id high-water mark before it and
// the previous commit's timestamp.
#include "lithify/delta/transaction.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/uuid.h"
#include "lithify/base/version.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/conflict.h"
#include "lithify/delta/json_util.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

std::string_view IsolationLevelName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kSerializable: return "Serializable";
    case IsolationLevel::kWriteSerializable: return "WriteSerializable";
    case IsolationLevel::kSnapshotIsolation: return "SnapshotIsolation";
  }
  return "Serializable";
}

namespace {

using Json = nlohmann::json;

constexpr const char* kHighWaterMarkKey = "rowIdHighWaterMark";
constexpr int64_t kDefaultCheckpointInterval = 10;

std::string LogDir(const std::string& root) { return io::JoinPath(root, "_delta_log"); }
std::string LogName(int64_t version) { return "_delta_log/" + CommitFileName(version); }

int64_t SystemNowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// rowIdHighWaterMark of a delta.rowTracking domain configuration.
Result<int64_t> ParseHighWaterMark(const std::string& configuration, std::string_view where) {
  auto j = json::Parse(configuration);
  if (!j.ok()) return j.status().WithContextF("{}: domain '{}' configuration", where, kRowTrackingDomain);
  auto hwm = json::OptInt(*j, kHighWaterMarkKey);
  if (!hwm.ok() || !*hwm) {
    return Status::Corruption("{}: domain '{}' configuration '{}' lacks an integer {}", where,
                              kRowTrackingDomain, configuration, kHighWaterMarkKey);
  }
  return **hwm;
}

// The last delta.rowTracking high-water mark among `actions`, if any.
Result<std::optional<int64_t>> HighWaterMarkIn(const std::vector<Action>& actions,
                                               std::string_view where) {
  std::optional<int64_t> out;
  for (const Action& a : actions) {
    const auto* d = std::get_if<DomainMetadata>(&a);
    if (!d || d->domain != kRowTrackingDomain || d->removed) continue;
    LITHIFY_ASSIGN_OR_RETURN(out, ParseHighWaterMark(d->configuration, where));
  }
  return out;
}

// numRecords from an add's stats JSON (row tracking needs the physical row count).
Result<int64_t> NumRecordsOf(const AddFile& add) {
  if (!add.stats) {
    return Status::InvalidArgument(
        "add '{}' has no stats: row tracking needs numRecords to assign row ids", add.path);
  }
  auto j = json::Parse(*add.stats);
  if (!j.ok()) {
    return Status::InvalidArgument("add '{}': stats are not valid JSON: {}", add.path,
                                   j.status().message());
  }
  auto n = json::OptInt(*j, "numRecords");
  if (!n.ok() || !*n || **n < 0) {
    return Status::InvalidArgument(
        "add '{}': stats lack a non-negative numRecords, which row tracking needs", add.path);
  }
  return **n;
}

int64_t CheckpointInterval(const Metadata& m) {
  auto it = m.configuration.find(prop::kCheckpointInterval.key());
  if (it == m.configuration.end()) return kDefaultCheckpointInterval;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v <= 0) return kDefaultCheckpointInterval;
  return v;
}

Status RequireWriterFeature(const Protocol& p, std::string_view feature, std::string_view why) {
  if (p.HasWriterFeature(feature)) return Status::OK();
  return Status::InvalidArgument("{} requires the '{}' table feature, which the protocol "
                                 "(writer version {}) does not list", why, feature,
                                 p.min_writer_version);
}

Status ValidateProtocol(const Protocol& p) {
  std::string reason = WriteBlockReason(p);
  if (!reason.empty()) return Status::NotSupported("cannot write a table whose protocol has {}", reason);
  if (p.reader_features && !p.writer_features) {
    return Status::InvalidArgument("protocol lists readerFeatures without writerFeatures");
  }
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) {
      if (!p.HasWriterFeature(f)) {
        return Status::InvalidArgument("protocol reader feature '{}' is missing from writerFeatures", f);
      }
    }
  }
  for (const char* f : {"rowTracking", "clustering"}) {
    if (p.HasWriterFeature(f)) {
      LITHIFY_RETURN_NOT_OK(RequireWriterFeature(p, "domainMetadata", fmt::format("feature '{}'", f)));
    }
  }
  return Status::OK();
}

Status ValidateMetadata(const Metadata& m) {
  auto schema = ParseSchema(m.schema_string);
  if (!schema.ok()) {
    return Status::InvalidArgument("metaData.schemaString does not parse: {}", schema.status().message());
  }
  for (const auto& col : m.partition_columns) {
    bool found = false;
    for (const auto& f : schema->fields) found = found || f.name == col;
    if (!found) {
      return Status::InvalidArgument("partition column '{}' is not a top-level column of the schema", col);
    }
  }
  return Status::OK();
}

// The features the actions themselves use must be listed by the protocol.
Status ValidateActionFeatures(const std::vector<Action>& actions, const Protocol& p,
                              const Metadata& m) {
  for (const Action& a : actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      if (add->deletion_vector) {
        LITHIFY_RETURN_NOT_OK(RequireWriterFeature(
            p, "deletionVectors", fmt::format("add '{}' with a deletion vector", add->path)));
        if (!p.HasReaderFeature("deletionVectors")) {
          return Status::InvalidArgument("add '{}' has a deletion vector but the protocol does not "
                                         "list 'deletionVectors' as a reader feature", add->path);
        }
      }
      if (add->base_row_id) {
        LITHIFY_RETURN_NOT_OK(RequireWriterFeature(
            p, "rowTracking", fmt::format("add '{}' with baseRowId", add->path)));
      }
      if (add->clustering_provider) {
        LITHIFY_RETURN_NOT_OK(RequireWriterFeature(
            p, "clustering", fmt::format("add '{}' with clusteringProvider", add->path)));
      }
    } else if (const auto* d = std::get_if<DomainMetadata>(&a)) {
      LITHIFY_RETURN_NOT_OK(RequireWriterFeature(
          p, "domainMetadata", fmt::format("domainMetadata action for domain '{}'", d->domain)));
    } else if (const auto* r = std::get_if<RemoveFile>(&a)) {
      if (r->data_change && IsExactlyTrue(m.configuration, prop::kAppendOnly)) {
        return Status::InvalidArgument(
            "cannot remove '{}': the table is append-only (delta.appendOnly=true)", r->path);
      }
    }
  }
  if (IsExactlyTrue(m.configuration, prop::kEnableInCommitTimestamps)) {
    LITHIFY_RETURN_NOT_OK(RequireWriterFeature(p, "inCommitTimestamp", "delta.enableInCommitTimestamps=true"));
  }
  if (IsExactlyTrue(m.configuration, prop::kEnableRowTracking) && IsExactlyTrue(m.configuration, prop::kRowTrackingSuspended)) {
    return Status::InvalidArgument("delta.enableRowTracking and delta.rowTrackingSuspended are both true");
  }
  return Status::OK();
}

// Delta's canDowngradeToSnapshotIsolation: only file actions without data change (and
// the row-tracking domain, which rebases) may run under snapshot isolation.
IsolationLevel ChooseIsolation(const std::vector<Action>& actions) {
  for (const Action& a : actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      if (add->data_change) return IsolationLevel::kSerializable;
    } else if (const auto* r = std::get_if<RemoveFile>(&a)) {
      if (r->data_change) return IsolationLevel::kSerializable;
    } else if (const auto* c = std::get_if<AddCdcFile>(&a)) {
      if (c->data_change) return IsolationLevel::kSerializable;
    } else if (const auto* d = std::get_if<DomainMetadata>(&a)) {
      if (d->domain != kRowTrackingDomain) return IsolationLevel::kSerializable;
    } else {
      return IsolationLevel::kSerializable;
    }
  }
  return IsolationLevel::kSnapshotIsolation;
}

// The transaction's inputs, outside the class so the helpers below can take them.
struct TxnState {
  io::FileSystem* fs = nullptr;
  std::string table_root;
  std::shared_ptr<const Snapshot> snapshot;
  TransactionOptions options;

  bool read_whole_table = false;
  std::vector<ReadPredicate> predicates;
  std::set<FileKey> read_files;

  std::vector<Action> actions;
  std::string operation = "WRITE";
  Json parameters = Json::object();
  std::map<std::string, std::string> metrics;
  Json extra = Json::object();
  bool commit_called = false;
};

}  // namespace

struct Transaction::State : TxnState {};

namespace {

// Everything Commit derives once, independent of the version finally written.
struct Plan {
  Protocol protocol;   // effective: this commit's or the read snapshot's
  Metadata metadata;   // effective
  bool ict = false;               // in-commit timestamps on for this commit
  bool ict_newly_enabled = false; // ...and off at the read snapshot (existing table)
  bool row_tracking = false;      // assign fresh row ids
  std::vector<int64_t> num_records;  // per action index: rows of adds lacking baseRowId
  std::optional<int64_t> caller_hwm; // a delta.rowTracking domain the caller supplied
  IsolationLevel isolation = IsolationLevel::kSerializable;
  bool blind_append = false;
  TransactionFootprint footprint;
  std::string txn_id;
};

// What a rebase changes.
struct Position {
  int64_t version = 0;
  int64_t hwm = -1;                       // row-id high-water mark before this commit
  std::optional<int64_t> prev_timestamp;  // the previous commit's (in-commit) timestamp
};

}  // namespace

Transaction::Transaction(std::unique_ptr<State> state) : state_(std::move(state)) {}
Transaction::~Transaction() = default;

Result<std::unique_ptr<Transaction>> Transaction::Begin(std::shared_ptr<const Snapshot> read_snapshot,
                                                        TransactionOptions options) {
  if (!read_snapshot) return Status::InvalidArgument("Transaction::Begin: no snapshot");
  if (!read_snapshot->CanWrite()) {
    return Status::NotSupported("{}: cannot write this table: {}", read_snapshot->table_root(),
                                read_snapshot->write_block_reason());
  }
  auto st = std::make_unique<State>();
  st->fs = read_snapshot->fs();
  st->table_root = read_snapshot->table_root();
  st->snapshot = std::move(read_snapshot);
  st->options = std::move(options);
  return std::unique_ptr<Transaction>(new Transaction(std::move(st)));
}

Result<std::unique_ptr<Transaction>> Transaction::BeginNewTable(io::FileSystem* fs,
                                                                std::string table_root,
                                                                TransactionOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("Transaction::BeginNewTable: no file system");
  auto st = std::make_unique<State>();
  st->fs = fs;
  st->table_root = std::move(table_root);
  st->options = std::move(options);
  return std::unique_ptr<Transaction>(new Transaction(std::move(st)));
}

io::FileSystem* Transaction::fs() const { return state_->fs; }
const std::string& Transaction::table_root() const { return state_->table_root; }
int64_t Transaction::read_version() const {
  return state_->snapshot ? state_->snapshot->version() : -1;
}
const std::shared_ptr<const Snapshot>& Transaction::read_snapshot() const { return state_->snapshot; }
int64_t Transaction::NowMs() const {
  return state_->options.now_ms ? state_->options.now_ms() : SystemNowMs();
}

void Transaction::ReadWholeTable() { state_->read_whole_table = true; }
void Transaction::ReadPredicate(std::string description, std::function<bool(const AddFile&)> may_match) {
  state_->predicates.push_back({std::move(description), std::move(may_match)});
}
void Transaction::ReadFiles(const std::vector<FileKey>& files) {
  state_->read_files.insert(files.begin(), files.end());
}
void Transaction::AddAction(Action action) { state_->actions.push_back(std::move(action)); }
void Transaction::SetOperation(std::string operation, nlohmann::json parameters,
                               std::map<std::string, std::string> metrics) {
  state_->operation = std::move(operation);
  state_->parameters = std::move(parameters);
  state_->metrics = std::move(metrics);
}
void Transaction::SetCommitInfoExtra(nlohmann::json extra) { state_->extra = std::move(extra); }

namespace {

Status CountActionKinds(const std::vector<Action>& actions, bool new_table, const std::string& root) {
  int protocols = 0, metadatas = 0;
  for (const Action& a : actions) {
    if (std::holds_alternative<Protocol>(a)) ++protocols;
    if (std::holds_alternative<Metadata>(a)) ++metadatas;
    if (std::holds_alternative<CommitInfo>(a)) {
      return Status::InvalidArgument("commitInfo is built by Commit and must not be added");
    }
    if (std::holds_alternative<CheckpointMetadata>(a) || std::holds_alternative<Sidecar>(a)) {
      return Status::InvalidArgument("checkpointMetadata and sidecar actions belong in checkpoints, not commits");
    }
  }
  if (new_table && (protocols != 1 || metadatas != 1)) {
    return Status::InvalidArgument("creating the table at '{}' needs exactly one protocol and one "
                                   "metaData action; got {} and {}", root, protocols, metadatas);
  }
  if (protocols > 1 || metadatas > 1) {
    return Status::InvalidArgument("a commit may change the protocol and the metadata at most once; "
                                   "got {} protocol and {} metaData actions", protocols, metadatas);
  }
  return Status::OK();
}

// isBlindAppend (Delta): nothing read, and every file action is an add. lithify also
// requires dataChange=true (a dataChange=false add rearranges existing data).
bool IsBlindAppend(const TxnState& st) {
  if (st.read_whole_table || !st.predicates.empty() || !st.read_files.empty()) return false;
  bool any_add = false;
  for (const Action& a : st.actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      if (!add->data_change) return false;
      any_add = true;
    } else if (std::holds_alternative<RemoveFile>(a) || std::holds_alternative<AddCdcFile>(a)) {
      return false;
    }
  }
  return any_add;
}

Status BuildFootprint(const TxnState& st, Plan* plan) {
  TransactionFootprint& f = plan->footprint;
  f.table_root = st.table_root;
  f.isolation = plan->isolation;
  f.read_whole_table = st.read_whole_table;
  f.read_predicates = st.predicates;
  f.read_files = st.read_files;
  for (const Action& a : st.actions) {
    if (const auto* r = std::get_if<RemoveFile>(&a)) {
      auto key = FileKeyOf(st.table_root, r->path, r->deletion_vector);
      if (!key.ok()) return Status::InvalidArgument("remove '{}': {}", r->path, key.status().message());
      f.removed_files.insert(std::move(key).value());
    } else if (const auto* d = std::get_if<DomainMetadata>(&a)) {
      if (d->domain != kRowTrackingDomain) f.domains.insert(d->domain);
    } else if (const auto* t = std::get_if<Txn>(&a)) {
      f.app_ids.insert(t->app_id);
    }
  }
  return Status::OK();
}

Status PlanRowTracking(const TxnState& st, Plan* plan) {
  plan->row_tracking = plan->protocol.HasWriterFeature("rowTracking") &&
                       !IsExactlyTrue(plan->metadata.configuration, prop::kRowTrackingSuspended);
  if (!plan->row_tracking) return Status::OK();
  plan->num_records.assign(st.actions.size(), 0);
  for (size_t i = 0; i < st.actions.size(); ++i) {
    if (const auto* add = std::get_if<AddFile>(&st.actions[i]); add && !add->base_row_id) {
      LITHIFY_ASSIGN_OR_RETURN(plan->num_records[i], NumRecordsOf(*add));
    }
  }
  auto caller = HighWaterMarkIn(st.actions, "this transaction");
  if (!caller.ok()) return Status::InvalidArgument("{}", caller.status().message());
  plan->caller_hwm = *caller;
  return Status::OK();
}

Result<Plan> Prepare(TxnState& st) {
  const bool new_table = st.snapshot == nullptr;
  LITHIFY_RETURN_NOT_OK(CountActionKinds(st.actions, new_table, st.table_root));
  if (!st.extra.is_object()) return Status::InvalidArgument("commitInfo extra fields must be a JSON object");
  Plan plan;
  const Protocol* p = nullptr;
  Metadata* m = nullptr;
  for (Action& a : st.actions) {
    if (auto* x = std::get_if<Protocol>(&a)) p = x;
    if (auto* x = std::get_if<Metadata>(&a)) m = x;
  }
  if (p) LITHIFY_RETURN_NOT_OK(ValidateProtocol(*p));
  if (m) {
    LITHIFY_RETURN_NOT_OK(ValidateMetadata(*m));
    if (m->id.empty()) m->id = NewUuid();  // every table needs an id; callers may leave it to us
  }
  plan.protocol = p ? *p : st.snapshot->protocol();
  plan.metadata = m ? *m : st.snapshot->metadata();
  LITHIFY_RETURN_NOT_OK(ValidateActionFeatures(st.actions, plan.protocol, plan.metadata));

  plan.ict = IsExactlyTrue(plan.metadata.configuration, prop::kEnableInCommitTimestamps);
  plan.ict_newly_enabled = plan.ict && !new_table && !IsExactlyTrue(st.snapshot->metadata().configuration, prop::kEnableInCommitTimestamps);
  LITHIFY_RETURN_NOT_OK(PlanRowTracking(st, &plan));
  plan.isolation = ChooseIsolation(st.actions);
  plan.blind_append = IsBlindAppend(st);
  LITHIFY_RETURN_NOT_OK(BuildFootprint(st, &plan));
  plan.txn_id = NewUuid();
  return plan;
}

Result<Position> InitialPosition(const TxnState& st) {
  Position pos;
  if (!st.snapshot) return pos;  // version 0, hwm -1, no previous commit
  pos.version = st.snapshot->version() + 1;
  pos.prev_timestamp = st.snapshot->timestamp_ms();
  auto it = st.snapshot->domain_metadata().find(kRowTrackingDomain);
  if (it != st.snapshot->domain_metadata().end()) {
    LITHIFY_ASSIGN_OR_RETURN(pos.hwm, ParseHighWaterMark(it->second.configuration,
                                                         fmt::format("version {}", st.snapshot->version())));
  }
  return pos;
}

CommitInfo BuildCommitInfo(const TxnState& st, const Plan& plan, int64_t now,
                           std::optional<int64_t> ict) {
  Json ci = st.extra;
  ci["timestamp"] = now;
  if (ict) ci["inCommitTimestamp"] = *ict;
  ci["operation"] = st.operation;
  ci["operationParameters"] = st.parameters.is_object() ? st.parameters : Json::object();
  if (!st.metrics.empty()) {
    Json metrics = Json::object();
    for (const auto& [k, v] : st.metrics) metrics[k] = v;
    ci["operationMetrics"] = std::move(metrics);
  }
  if (st.snapshot) ci["readVersion"] = st.snapshot->version();
  ci["isolationLevel"] = std::string(IsolationLevelName(plan.isolation));
  ci["isBlindAppend"] = plan.blind_append;
  ci["engineInfo"] = std::string("lithify/") + kVersion;
  ci["txnId"] = plan.txn_id;
  CommitInfo info;
  info.timestamp = now;
  info.in_commit_timestamp = ict;
  info.operation = st.operation;
  info.json = json::Dump(ci);
  return info;
}

// The actions of the commit at `pos.version`, commitInfo first.
Result<std::vector<Action>> BuildActions(const TxnState& st, const Plan& plan,
                                         const Position& pos, int64_t now) {
  std::optional<int64_t> ict;
  if (plan.ict) {
    ict = now;
    if (pos.prev_timestamp && *pos.prev_timestamp >= now) ict = *pos.prev_timestamp + 1;
  }
  std::vector<Action> out;
  out.reserve(st.actions.size() + 2);
  out.push_back(BuildCommitInfo(st, plan, now, ict));
  int64_t hwm = pos.hwm;
  for (size_t i = 0; i < st.actions.size(); ++i) {
    Action a = st.actions[i];
    if (auto* add = std::get_if<AddFile>(&a); add && plan.row_tracking) {
      if (!add->base_row_id) {
        if (hwm > std::numeric_limits<int64_t>::max() - 1 - plan.num_records[i]) {
          return Status::InvalidArgument("add '{}': row ids overflow (high-water mark {}, {} rows)",
                                         add->path, hwm, plan.num_records[i]);
        }
        add->base_row_id = hwm + 1;
        hwm += plan.num_records[i];
      }
      if (!add->default_row_commit_version) add->default_row_commit_version = pos.version;
    } else if (auto* m = std::get_if<Metadata>(&a); m && plan.ict_newly_enabled) {
      m->configuration[prop::kInCommitTimestampEnablementVersion.key()] = std::to_string(pos.version);
      m->configuration[prop::kInCommitTimestampEnablementTimestamp.key()] = std::to_string(*ict);
    } else if (auto* r = std::get_if<RemoveFile>(&a); r && !r->deletion_timestamp) {
      r->deletion_timestamp = now;
    } else if (auto* d = std::get_if<DomainMetadata>(&a);
               d && plan.row_tracking && d->domain == kRowTrackingDomain) {
      continue;  // replaced by the mark computed below
    }
    out.push_back(std::move(a));
  }
  if (plan.row_tracking) {
    int64_t mark = std::max(hwm, plan.caller_hwm.value_or(hwm));
    if (mark != pos.hwm) {
      Json conf = Json::object();
      conf[kHighWaterMarkKey] = mark;
      out.push_back(DomainMetadata{kRowTrackingDomain, json::Dump(conf), false});
    }
  }
  return out;
}

std::string Serialize(const std::vector<Action>& actions) {
  std::string text;
  for (const Action& a : actions) {
    text += ActionToJson(a);
    text += '\n';
  }
  return text;
}

// Reads one winning commit; `*ours` tells whether its bytes equal `our_text`.
Result<WinningCommit> ReadWinner(io::FileSystem* fs, const std::string& log_dir, int64_t version,
                                 std::optional<int64_t> mtime_ms, const std::string* our_text,
                                 bool* ours) {
  WinningCommit w;
  w.version = version;
  w.name = LogName(version);
  std::string path = io::JoinPath(log_dir, CommitFileName(version));
  if (!mtime_ms) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(io::FileInfo info, fs->Head(path), "reading winning commit {}", w.name);
    mtime_ms = info.mtime_ms;
  }
  w.mtime_ms = *mtime_ms;
  LITHIFY_ASSIGN_OR_RETURN_CTX(Buffer bytes, fs->ReadFile(path), "reading winning commit {}", w.name);
  *ours = our_text != nullptr && AsStringView(bytes.view()) == *our_text;
  LITHIFY_ASSIGN_OR_RETURN(w.actions, ParseCommitFile(AsStringView(bytes.view()), w.name));
  return w;
}

// After losing `pos.version`: reads every winner from there on, checks each for a
// conflict and moves `pos` past it (version, row-id mark, previous timestamp).
// `unconfirmed` holds the exact bytes of earlier puts that failed and seemed not to
// have landed; a "winner" with those bytes is this transaction's own commit (it landed
// late): it is returned instead and nothing more is written. Bytes, not the txnId,
// decide, so identical txnIds from a badly seeded generator cannot hide a real winner.
Result<std::optional<WinningCommit>> AdvanceOverWinners(
    const TxnState& st, const Plan& plan, const std::map<int64_t, std::string>& unconfirmed,
    Position* pos, std::vector<int64_t>* lost_to) {
  std::string log_dir = LogDir(st.table_root);
  LITHIFY_ASSIGN_OR_RETURN(auto files, ListLogFiles(st.fs, log_dir, pos->version));
  std::map<int64_t, int64_t> listed;  // commit version -> mtime
  for (const LogFile& f : files) {
    if (f.name.type == LogFileType::kCommit) listed[f.name.version] = f.mtime_ms;
  }
  const int64_t lost = pos->version;
  for (int64_t v = lost;; ++v) {
    auto it = listed.find(v);
    // The lost version exists (put-if-absent said so) even if the listing lags.
    if (it == listed.end() && v != lost) break;
    std::optional<int64_t> mtime;
    if (it != listed.end()) mtime = it->second;
    auto mine = unconfirmed.find(v);
    bool ours = false;
    LITHIFY_ASSIGN_OR_RETURN(WinningCommit w, ReadWinner(st.fs, log_dir, v, mtime,
                                                         mine == unconfirmed.end() ? nullptr : &mine->second,
                                                         &ours));
    if (ours) return std::optional<WinningCommit>(std::move(w));
    LITHIFY_RETURN_NOT_OK(CheckConflicts(plan.footprint, w));
    LITHIFY_ASSIGN_OR_RETURN(auto hwm, HighWaterMarkIn(w.actions, w.name));
    if (hwm) pos->hwm = std::max(pos->hwm, *hwm);
    std::optional<int64_t> ict;
    for (const Action& a : w.actions) {
      if (const auto* c = std::get_if<CommitInfo>(&a)) ict = c->in_commit_timestamp;
    }
    pos->prev_timestamp = ict ? *ict : w.mtime_ms;
    lost_to->push_back(v);
    pos->version = v + 1;
  }
  return std::optional<WinningCommit>();
}

enum class PutOutcome { kLanded, kLost, kAbsent };

// A put that failed with an error other than AlreadyExists may still have landed (a
// lost response). Re-reading the target tells: our exact bytes (the txnId makes them
// unique) = landed; other bytes = lost the race; nothing = not written. When even the
// re-read fails the outcome is unknown and the error says so: never report success or
// retry blindly.
Result<PutOutcome> ProbeFailedPut(io::FileSystem* fs, const std::string& path,
                                  const std::string& text, const Status& put_error,
                                  int64_t version) {
  auto bytes = fs->ReadFile(path);
  if (bytes.ok()) return AsStringView(bytes->view()) == text ? PutOutcome::kLanded : PutOutcome::kLost;
  if (bytes.status().IsNotFound()) return PutOutcome::kAbsent;
  return put_error.WithContextF("writing {} (whether it was written is unknown: re-reading it failed: {})",
                                LogName(version), bytes.status().ToString());
}

// A new table must not be created over an existing log, even one whose version 0 was
// cleaned up after a checkpoint.
Status CheckNoTable(io::FileSystem* fs, const std::string& root) {
  LITHIFY_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, LogDir(root)));
  if (!files.empty()) return Status::AlreadyExists("a Delta table already exists at '{}'", root);
  return Status::OK();
}

void PostCommitCheckpoint(const TxnState& st, const Plan& plan, int64_t now,
                          CommitResult* result) {
  if (!st.options.checkpoint_on_interval || result->version <= 0) return;
  if (result->version % CheckpointInterval(plan.metadata) != 0) return;
  auto snap = Snapshot::Load(st.fs, st.table_root, VersionSpec::AtVersion(result->version),
                             LoadOptions{StatsMode::kRaw});
  if (!snap.ok()) {
    result->checkpoint_error = snap.status().ToString();
    return;
  }
  auto written = WriteCheckpoint(**snap, now);
  if (!written.ok()) {
    result->checkpoint_error = written.status().ToString();
    return;
  }
  result->checkpoint_written = true;
}

}  // namespace

Result<CommitResult> Transaction::Commit() {
  State& st = *state_;
  if (st.commit_called) return Status::InvalidArgument("Transaction::Commit may be called only once");
  st.commit_called = true;
  LITHIFY_ASSIGN_OR_RETURN(Plan plan, Prepare(st));
  LITHIFY_ASSIGN_OR_RETURN(Position pos, InitialPosition(st));
  if (!st.snapshot) LITHIFY_RETURN_NOT_OK(CheckNoTable(st.fs, st.table_root));
  const int max_attempts = std::max(1, st.options.max_attempts);
  CommitResult result;
  std::map<int64_t, std::string> unconfirmed;  // version -> bytes of a put that may land late
  auto succeed = [&](int64_t version, int attempt, std::vector<Action> actions, int64_t now) {
    result.version = version;
    result.attempts = attempt;
    result.actions = std::move(actions);
    PostCommitCheckpoint(st, plan, now, &result);
    return result;
  };
  for (int attempt = 1;; ++attempt) {
    int64_t now = NowMs();
    LITHIFY_ASSIGN_OR_RETURN(std::vector<Action> actions, BuildActions(st, plan, pos, now));
    std::string text = Serialize(actions);
    std::string path = io::JoinPath(LogDir(st.table_root), CommitFileName(pos.version));
    Status put = st.fs->PutIfAbsent(path, AsBytes(text));
    if (!put.ok() && !put.IsAlreadyExists()) {
      LITHIFY_ASSIGN_OR_RETURN(PutOutcome outcome, ProbeFailedPut(st.fs, path, text, put, pos.version));
      if (outcome == PutOutcome::kAbsent) {
        if (put.retryable() && attempt < max_attempts) {
          unconfirmed[pos.version] = std::move(text);
          continue;
        }
        return put.WithContextF("writing {}", LogName(pos.version));
      }
      put = outcome == PutOutcome::kLanded ? Status::OK() : Status::AlreadyExists("lost");
    }
    if (put.ok()) return succeed(pos.version, attempt, std::move(actions), now);
    if (!st.snapshot) return Status::AlreadyExists("a Delta table already exists at '{}'", st.table_root);
    LITHIFY_ASSIGN_OR_RETURN(auto ours,
                             AdvanceOverWinners(st, plan, unconfirmed, &pos, &result.lost_to_versions));
    if (ours) return succeed(ours->version, attempt, std::move(ours->actions), now);
    if (attempt >= max_attempts) {
      return Status::Conflict("MaxCommitRetriesExceededException",
                              "gave up after {} attempts; versions {}..{} were committed by "
                              "other writers since read version {}", attempt,
                              result.lost_to_versions.front(), pos.version - 1, read_version());
    }
  }
}

}  // namespace lithify::delta
