// Transaction: the only way lithify writes a Delta table version.
//
// Optimistic concurrency as in Delta's OptimisticTransaction and ConflictChecker
// (PROTOCOL.md "Delta Log Entries", ../shared/docs/delta-maintenance-facts.md §1.8):
//   1. Begin on a snapshot (the version the command read), or ForNewTable.
//   2. Record what the command read (files, a predicate, or the whole table) and the
//      actions it wants to commit; data files and DV files are written BEFORE Commit and
//      are invisible until a commit references them.
//   3. Commit writes `_delta_log/<read_version+1>.json` with put-if-absent. When another
//      writer won that version, the winners' commits are read and checked against this
//      transaction's reads and writes; with no conflict the transaction is rebased
//      (row ids, in-commit timestamp) and tried at the next version; a conflict is a
//      Status::Conflict naming Delta's exception (ConcurrentAppendException,
//      ConcurrentDeleteReadException, ConcurrentDeleteDeleteException,
//      MetadataChangedException, ProtocolChangedException,
//      ConcurrentTransactionException). Nothing is ever overwritten.
//   4. After a successful commit, a checkpoint is written when the version is a multiple
//      of `delta.checkpointInterval` (default 10). A checkpoint failure does not fail the
//      commit; it is reported in CommitResult.
//
// Commit also adds what every commit needs: a commitInfo (timestamp, inCommitTimestamp
// when `delta.enableInCommitTimestamps` is true -- then commitInfo is the first action --,
// operation, operationParameters, operationMetrics, readVersion, isolationLevel,
// isBlindAppend, engineInfo "lithify/<version>", txnId), and for tables with the
// `rowTracking` writer feature, baseRowId / defaultRowCommitVersion on adds that lack
// them plus the `delta.rowTracking` domain's new rowIdHighWaterMark.
//
// A Transaction is used by one thread; Commit may be called once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/commit_intent.h"

namespace lithify::delta {

// Delta's isolation levels. Serializable is the table default; a commit whose every
// action is a file action with dataChange=false (compaction, REORG) is downgraded to
// SnapshotIsolation, under which concurrent appends never conflict.
enum class IsolationLevel { kSerializable, kWriteSerializable, kSnapshotIsolation };
std::string_view IsolationLevelName(IsolationLevel level);

using TransactionOptions = table::CommitOptions;  // table/commit_intent.h

// The (path, DV unique id) identity of a logical file (PROTOCOL.md "Action
// Reconciliation"); `path` is decoded and relative to the table root.
struct FileKey {
  std::string path;
  std::string dv_unique_id;  // "" without DV
  friend auto operator<=>(const FileKey&, const FileKey&) = default;
};

struct CommitResult {
  int64_t version = -1;
  int attempts = 1;                      // 1 = the first try won
  std::vector<int64_t> lost_to_versions; // versions other writers won before ours
  std::vector<Action> actions;           // exactly what was written, in order
  bool checkpoint_written = false;
  std::optional<std::string> checkpoint_error;  // a post-commit checkpoint that failed
};

class Transaction {
 public:
  // A transaction on an existing table, reading `read_snapshot`. The snapshot must have
  // been loaded with StatsMode kRaw or kParsed (stats text is needed for row tracking).
  // NotSupported when the snapshot's protocol blocks writes (Snapshot::CanWrite).
  static Result<std::unique_ptr<Transaction>> Begin(std::shared_ptr<const Snapshot> read_snapshot,
                                                    TransactionOptions options = {});
  // A transaction creating the table at `table_root` (commit version 0). The caller must
  // add Protocol and Metadata actions. Commit fails with AlreadyExists ("a Delta table
  // already exists at ...") if version 0 exists.
  static Result<std::unique_ptr<Transaction>> BeginNewTable(io::FileSystem* fs,
                                                            std::string table_root,
                                                            TransactionOptions options = {});
  ~Transaction();

  io::FileSystem* fs() const;
  const std::string& table_root() const;
  // -1 for a new table.
  int64_t read_version() const;
  // nullptr for a new table.
  const std::shared_ptr<const Snapshot>& read_snapshot() const;
  // The current time per the options' clock (use it for RemoveFile.deletionTimestamp).
  int64_t NowMs() const;

  // --- What the command read (conflict detection) ---
  // The command's result depends on every file (e.g. DELETE without predicate).
  void ReadWholeTable();
  // The command read the files matching a predicate: a concurrently added file for
  // which `may_match` returns true (judged on its partition values and stats) conflicts
  // under Serializable isolation (ConcurrentAppendException). `description` appears in
  // the error and in operationParameters where the caller puts it.
  void ReadPredicate(std::string description, std::function<bool(const AddFile&)> may_match);
  // Files whose content the command read: a concurrent remove of any of them is
  // ConcurrentDeleteReadException.
  void ReadFiles(const std::vector<FileKey>& files);

  // --- What the command writes ---
  // Adds any action except CommitInfo (Commit builds it). Removes must carry the
  // same path text and deletion vector as the add they cancel.
  void AddAction(Action action);
  // Operation name (Delta's: "CREATE TABLE", "WRITE", "DELETE", "OPTIMIZE", "REORG",
  // "SET TBLPROPERTIES", "UNSET TBLPROPERTIES", "CLUSTER BY", "VACUUM START", ...),
  // operationParameters (values stored as given: Delta stores most as JSON strings)
  // and operationMetrics (Delta stores every value as a string).
  void SetOperation(std::string operation, nlohmann::json parameters,
                    std::map<std::string, std::string> metrics = {});
  // Extra commitInfo fields (e.g. tags), merged into the commitInfo object.
  void SetCommitInfoExtra(nlohmann::json extra);

  // Validates (protocol covers the features the actions use, new metadata parses),
  // writes the commit, resolves lost races as described above. Errors:
  //  - Conflict: a named concurrent-modification conflict (nothing written); also
  //    "MaxCommitRetriesExceededException" when options.max_attempts tries all lost
  //    without a conflict.
  //  - AlreadyExists: a new table whose version 0 (or any log file) exists.
  //  - IOError / Corruption from storage or a damaged winner commit (named). A put
  //    that fails with IOError is re-read before anything else: the commit's own bytes
  //    there = success; nothing there and a retryable error = tried again (counts as
  //    an attempt); the re-read failing too = IOError saying the outcome is unknown.
  //  - InvalidArgument: an invalid action set (e.g. row tracking without numRecords, a
  //    data-changing remove on a delta.appendOnly table, a CommitInfo action, a second
  //    Metadata/Protocol, a partition column missing from the schema).
  //  - NotSupported: a new Protocol action with a feature lithify cannot write.
  // Commit fills what Delta requires and callers may leave out: metaData.id (a new
  // UUID) when empty, remove.deletionTimestamp (NowMs) when absent.
  // isBlindAppend follows Delta (only file actions matter; Txn/Metadata do not break
  // it) except that an add with dataChange=false is not a blind append.
  Result<CommitResult> Commit();

 private:
  struct State;
  explicit Transaction(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace lithify::delta
