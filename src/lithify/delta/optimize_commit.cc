#include "lithify/delta/optimize_commit.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint_writer.h"

namespace lithify::delta {

namespace {
using FileKeyT = std::pair<std::string, std::string>;  // (path, DV unique id)
}  // namespace

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

Result<std::optional<int64_t>> BatchCommitter::Commit(std::shared_ptr<const delta::Snapshot> snapshot,
                                                      std::vector<int> bins,
                                                      std::vector<std::pair<int, std::string>>* abandoned,
                                                      std::vector<int>* committed_bins) {
  const std::vector<std::string> partition_columns = snapshot->partition_columns();
  for (int attempt = 0; attempt < 10; ++attempt) {
    // Delta: no commit when the batch produced no file (its removes are not committed either).
    if (!HasAdds(bins)) return std::optional<int64_t>();
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<delta::Transaction> txn,
                             delta::Transaction::Begin(snapshot, options));
    const int64_t now = txn->NowMs();
    std::vector<delta::FileKey> read;
    std::vector<int64_t> added;
    std::vector<const table::FileEntry*> removed;
    for (int b : bins) {
      for (const planner::FileRef& ref : plan.bins[b].files) {
        const table::FileEntry* f = bio.Find(ref);
        if (f == nullptr) return Status::Internal("bin {}: input '{}' vanished from the plan's version", b, ref.path);
        read.push_back({f->path, f->dv_unique_id()});
        txn->AddAction(MakeRemove(*f, now));
        removed.push_back(f);
      }
      for (const delta::AddFile& a : AddsOf(b)) {
        txn->AddAction(a);
        added.push_back(a.size);
      }
    }
    txn->ReadFiles(read);
    if (row_tracking) txn->SetCommitInfoExtra({{"tags", {{"delta.rowTracking.preserved", "true"}}}});
    txn->SetOperation(operation, parameters, OperationMetrics(added, removed));
    Result<delta::CommitResult> r = txn->Commit();
    if (r.ok()) {
      *committed_bins = bins;
      return std::optional<int64_t>(r->version);
    }
    if (!r.status().IsConflict()) return r.status().WithContext(root);
    // Lost to a conflicting commit: which inputs are still live on the latest version?
    const Status conflict = r.status();
    LITHIFY_ASSIGN_OR_RETURN(snapshot, delta::Snapshot::Load(fs, root));
    if (snapshot->partition_columns() != partition_columns) {
      return conflict.WithContextF("{}: the partition columns changed concurrently", root);
    }
    std::set<FileKeyT> live;
    for (const table::FileEntry& f : snapshot->files()) live.insert({f.path, f.dv_unique_id()});
    std::vector<int> keep;
    for (int b : bins) {
      std::string gone;
      for (const planner::FileRef& ref : plan.bins[b].files) {
        if (!live.count({ref.path, ref.dv_unique_id})) {
          gone = ref.path;
          break;
        }
      }
      if (gone.empty()) {
        keep.push_back(b);
      } else {
        abandoned->push_back({b, fmt::format("input '{}' was removed or given a new deletion vector by a concurrent "
                                             "commit (latest version {}): {}",
                                             gone, snapshot->version(), conflict.message())});
      }
    }
    if (keep.size() == bins.size()) {
      // Nothing of ours was touched (e.g. a metadata change): Delta retries the same actions.
      if (!snapshot->CanWrite()) return conflict.WithContext(root);
    }
    bins = std::move(keep);
    if (bins.empty()) return std::optional<int64_t>();
  }
  return Status::Conflict("MaxCommitRetriesExceededException", "{}: gave up after 10 conflicting commits", root);
}

}  // namespace lithify::delta
