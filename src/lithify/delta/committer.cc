#include "lithify/delta/committer.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint_writer.h"

namespace lithify::delta {

// RemoveFile as Delta's removeWithTimestamp(dataChange=false): stats trimmed to numRecords.
delta::RemoveFile MakeRemove(const table::FileEntry& f, int64_t now_ms) {
  delta::RemoveFile r;
  r.path = delta::EncodeActionPath(f.path);
  r.deletion_timestamp = now_ms;
  r.data_change = false;
  r.extended_file_metadata = true;
  r.partition_values = f.partition_values;
  r.size = f.size;
  if (auto n = f.num_records()) r.stats = fmt::format("{{\"numRecords\":{}}}", *n);
  r.tags = f.tags;
  if (f.deletion_vector) r.deletion_vector = delta::DeletionVectorDescriptor::FromRef(*f.deletion_vector);
  r.base_row_id = f.base_row_id;
  r.default_row_commit_version = f.default_row_commit_version;
  return r;
}

// Delta's OptimizeStats percentiles over the added sizes: s[0], s[n/4], s[n/2], s[3n/4], s[n-1].
std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added, const std::vector<const table::FileEntry*>& removed) {
  std::sort(added.begin(), added.end());
  std::map<std::string, std::string> m;
  int64_t added_bytes = 0, removed_bytes = 0, dvs = 0;
  for (int64_t s : added) added_bytes += s;
  for (const table::FileEntry* f : removed) {
    removed_bytes += f->size;
    if (f->deletion_vector) ++dvs;
  }
  const size_t n = added.size();
  m["numAddedFiles"] = std::to_string(n);
  m["numRemovedFiles"] = std::to_string(removed.size());
  m["numAddedBytes"] = std::to_string(added_bytes);
  m["numRemovedBytes"] = std::to_string(removed_bytes);
  if (n > 0) {
    m["minFileSize"] = std::to_string(added[0]);
    m["p25FileSize"] = std::to_string(added[n / 4]);
    m["p50FileSize"] = std::to_string(added[n / 2]);
    m["p75FileSize"] = std::to_string(added[3 * n / 4]);
    m["maxFileSize"] = std::to_string(added[n - 1]);
  }
  m["numDeletionVectorsRemoved"] = std::to_string(dvs);
  return m;
}

// Moved from delta/bin_io (AddOf of exec::OutputFile), with the clustering provider the
// liquid tagging sets on the intent's files.
delta::AddFile AddOf(const table::AddedFile& o) {
  delta::AddFile a;
  a.path = delta::EncodeActionPath(o.path);
  a.partition_values = o.partition_values;
  a.size = o.size;
  a.modification_time = o.modification_time_ms;
  a.data_change = false;  // OPTIMIZE rearranges data; it adds none
  a.stats = o.stats;
  a.tags = o.tags;
  a.clustering_provider = o.clustering_provider;
  a.base_row_id = o.base_row_id;
  a.default_row_commit_version = o.default_row_commit_version;
  return a;
}

DeltaCommitter::DeltaCommitter(io::FileSystem* fs, std::string root, std::shared_ptr<const Snapshot> snapshot,
                               TransactionOptions options)
    : fs_(fs),
      root_(std::move(root)),
      snapshot_(std::move(snapshot)),
      options_(std::move(options)),
      partition_columns_(snapshot_->partition_columns()) {}

Result<std::shared_ptr<const Snapshot>> DeltaCommitter::SnapshotAt(int64_t version) {
  if (snapshot_->version() == version) return snapshot_;
  return Snapshot::Load(fs_, root_, VersionSpec::AtVersion(version));
}

// Per group, its removes then its adds (the order OPTIMIZE always wrote: bin by bin).
void DeltaCommitter::AddActions(const table::CommitIntent& intent, Transaction* txn) const {
  const int64_t now = txn->NowMs();
  std::vector<FileKey> read;
  read.reserve(intent.read.files.size());
  for (const table::FileKey& k : intent.read.files) read.push_back({k.path, k.dv_unique_id});
  for (const table::FileGroup& g : intent.groups) {
    for (const table::FileEntry& f : g.removed) {
      RemoveFile r = MakeRemove(f, now);
      r.data_change = intent.data_change;
      txn->AddAction(std::move(r));
    }
    for (const table::AddedFile& o : g.added) {
      AddFile a = AddOf(o);
      a.data_change = intent.data_change;
      txn->AddAction(std::move(a));
    }
  }
  if (intent.read.whole_table) txn->ReadWholeTable();
  txn->ReadFiles(read);
}

Result<table::CommitOutcome> DeltaCommitter::Commit(const table::CommitIntent& intent) {
  if (intent.empty()) {
    return Status::InvalidArgument("{}: {}: nothing to commit (the intent removes and adds no file)", root_,
                                   intent.operation);
  }
  LITHIFY_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> snapshot, SnapshotAt(intent.read.version));
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, Transaction::Begin(snapshot, options_));
  AddActions(intent, txn.get());
  if (intent.row_ids_preserved) txn->SetCommitInfoExtra({{"tags", {{"delta.rowTracking.preserved", "true"}}}});
  txn->SetOperation(intent.operation, intent.parameters, intent.metrics);
  Result<CommitResult> r = txn->Commit();
  if (r.ok()) return table::CommitOutcome::Committed(r->version);
  if (r.status().IsConflict()) return table::CommitOutcome::Conflicted(r.status());
  return r.status().WithContext(root_);
}

Result<table::LatestFiles> DeltaCommitter::Latest() {
  LITHIFY_ASSIGN_OR_RETURN(snapshot_, Snapshot::Load(fs_, root_));
  table::LatestFiles latest;
  latest.version = snapshot_->version();
  for (const table::FileEntry& f : snapshot_->files()) latest.live.insert(table::KeyOf(f));
  latest.write_blocked = snapshot_->write_block_reason();
  latest.partitioning_changed = snapshot_->partition_columns() != partition_columns_;
  return latest;
}

}  // namespace lithify::delta
