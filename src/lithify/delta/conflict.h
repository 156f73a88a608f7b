// Conflict detection between a transaction and the commits that won the versions it
// tried to write (Delta's ConflictChecker; ../shared/docs/delta-maintenance-facts.md
// §1.8).
//
// A pure function over values: what the losing transaction read and writes
// (TransactionFootprint) and one winning commit's parsed actions (WinningCommit). No IO,
// so every rule is testable without a table. The Transaction runs it against each
// winner in version order before rebasing.
//
// Rules, checked in Delta's order; the first that fires is returned as
// Status::Conflict(<Delta exception name>, <detail naming the winning version and the
// file or domain>):
//   1. the winner changed the protocol              -> ProtocolChangedException
//   2. the winner changed the metadata              -> MetadataChangedException
//   3. both wrote the same domain (other than
//      delta.rowTracking, which is rebased)          -> ConcurrentTransactionException
//   4. the winner wrote a txn for an appId this
//      transaction also writes                      -> ConcurrentTransactionException
//   5. Serializable only (never SnapshotIsolation): a winner's add with dataChange=true
//      that the whole-table read covers or a read predicate may match
//                                                   -> ConcurrentAppendException
//   6. a winner's remove of a file this transaction read (by (decoded path, DV unique
//      id)), or any data-changing remove when the whole table was read
//                                                   -> ConcurrentDeleteReadException
//   7. a winner's remove of a file this transaction also removes
//                                                   -> ConcurrentDeleteDeleteException
//
// Thread-safety: stateless; the footprint's predicates are called from the calling
// thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/transaction.h"

namespace lithify::delta {

// Delta's system domain for row-id high-water marks: written by every row-tracking
// commit and rebased instead of conflicting.
inline constexpr const char* kRowTrackingDomain = "delta.rowTracking";

struct ReadPredicate {
  std::string description;
  std::function<bool(const AddFile&)> may_match;
};

// What the losing transaction read and what it writes, as the checker needs it.
struct TransactionFootprint {
  std::string table_root;  // to relativize the winners' paths
  IsolationLevel isolation = IsolationLevel::kSerializable;
  bool read_whole_table = false;
  std::vector<ReadPredicate> read_predicates;
  std::set<FileKey> read_files;
  std::set<FileKey> removed_files;  // this transaction's removes
  std::set<std::string> domains;    // domains this transaction writes
  std::set<std::string> app_ids;    // appIds of this transaction's txn actions
};

struct WinningCommit {
  int64_t version = 0;
  std::string name;  // "_delta_log/<v>.json", for messages
  std::vector<Action> actions;
  int64_t mtime_ms = 0;  // the commit file's modification time
};

// The (decoded, table-relative path, DV unique id) identity of an add or remove.
// Corruption naming the path when it is malformed or lies outside the table.
Result<FileKey> FileKeyOf(const std::string& table_root, const std::string& uri_path,
                          const std::optional<DeletionVectorDescriptor>& dv);

// OK when the transaction may be rebased over `winner`; Conflict as described above.
// A winner path that cannot be made table-relative is compared as written (it cannot
// name a file of this table, so it never conflicts).
Status CheckConflicts(const TransactionFootprint& mine, const WinningCommit& winner);

}  // namespace lithify::delta
