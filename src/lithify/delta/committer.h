// DeltaCommitter: the Delta implementation of the seam's TableCommitter
// (table/commit_intent.h) over Transaction (put-if-absent commits, Delta's conflict rules
// in conflict.h, rebase and retry). An intent becomes, per file group in order, a
// RemoveFile per removed file (extendedFileMetadata, numRecords-only stats, the file's DV
// and row-tracking fields) and an AddFile per added file, both with the intent's
// dataChange, then the commitInfo Transaction builds: operation, operationParameters,
// operationMetrics, the tag delta.rowTracking.preserved when the intent preserves row
// ids, and row ids for adds that lack them.
//
// Also Delta's operationMetrics of OPTIMIZE / REORG (OperationMetrics), which the command
// puts into its intent.
//
// Library lithify_delta_exec (beside delta/bin_io, whose inputs OPTIMIZE commits).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/commit_intent.h"
#include "lithify/table/file_entry.h"

namespace lithify::delta {

// RemoveFile as Delta's removeWithTimestamp(dataChange=false): stats trimmed to numRecords.
RemoveFile MakeRemove(const table::FileEntry& f, int64_t now_ms);
// The AddFile of a file the command wrote (dataChange=false: OPTIMIZE rearranges data).
AddFile AddOf(const table::AddedFile& o);

// Delta's OptimizeStats percentiles over the added sizes: s[0], s[n/4], s[n/2], s[3n/4], s[n-1].
std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added, const std::vector<const table::FileEntry*>& removed);

class DeltaCommitter final : public table::TableCommitter {
 public:
  // `snapshot`: the version the command read (loaded by the command; an intent read at
  // another version loads that one). Its partition columns are the ones
  // LatestFiles::partitioning_changed compares with.
  DeltaCommitter(io::FileSystem* fs, std::string root, std::shared_ptr<const Snapshot> snapshot,
                 TransactionOptions options);

  // Transaction::Begin on the intent's read version, the actions above, ReadFiles (and
  // ReadWholeTable), Commit. A Conflict of Transaction::Commit (incl.
  // MaxCommitRetriesExceededException) is the conflicted outcome, as Transaction named it;
  // other commit errors carry the table root as context; Begin's errors come as they are.
  Result<table::CommitOutcome> Commit(const table::CommitIntent& intent) override;
  // Loads the latest snapshot (kept: an intent read at its version commits on it).
  Result<table::LatestFiles> Latest() override;

 private:
  Result<std::shared_ptr<const Snapshot>> SnapshotAt(int64_t version);
  void AddActions(const table::CommitIntent& intent, Transaction* txn) const;

  io::FileSystem* fs_;
  std::string root_;
  std::shared_ptr<const Snapshot> snapshot_;  // the newest one this committer loaded or was given
  TransactionOptions options_;
  std::vector<std::string> partition_columns_;  // of the first read version
};

}  // namespace lithify::delta
