#include "lithify/delta/conflict.h"

#include "lithify/base/macros.h"

namespace lithify::delta {

Result<FileKey> FileKeyOf(const std::string& table_root, const std::string& uri_path,
                          const std::optional<DeletionVectorDescriptor>& dv) {
  LITHIFY_ASSIGN_OR_RETURN(std::string rel, DataFileKey(table_root, uri_path));
  return FileKey{std::move(rel), dv ? dv->UniqueId() : std::string()};
}

namespace {

// A winner's path that cannot be made table-relative (another scheme, outside the
// root) cannot name a file this transaction read or removes, whose keys are all
// table-relative: the raw text keeps it distinct without failing the commit.
FileKey WinnerKey(const std::string& table_root, const std::string& uri_path,
                  const std::optional<DeletionVectorDescriptor>& dv) {
  auto key = FileKeyOf(table_root, uri_path, dv);
  if (key.ok()) return std::move(key).value();
  return FileKey{uri_path, dv ? dv->UniqueId() : std::string()};
}

std::string Describe(const FileKey& k) {
  if (k.dv_unique_id.empty()) return fmt::format("'{}'", k.path);
  return fmt::format("'{}' (deletion vector {})", k.path, k.dv_unique_id);
}

Status CheckProtocolAndMetadata(const WinningCommit& w) {
  for (const Action& a : w.actions) {
    if (std::holds_alternative<Protocol>(a)) {
      return Status::Conflict("ProtocolChangedException",
                              "the protocol version of the table was changed by a concurrent "
                              "update (version {}, {})", w.version, w.name);
    }
  }
  for (const Action& a : w.actions) {
    if (std::holds_alternative<Metadata>(a)) {
      return Status::Conflict("MetadataChangedException",
                              "the metadata of the table was changed by a concurrent update "
                              "(version {}, {})", w.version, w.name);
    }
  }
  return Status::OK();
}

Status CheckDomainsAndTxns(const TransactionFootprint& mine, const WinningCommit& w) {
  for (const Action& a : w.actions) {
    const auto* d = std::get_if<DomainMetadata>(&a);
    if (d && d->domain != kRowTrackingDomain && mine.domains.count(d->domain)) {
      return Status::Conflict("ConcurrentTransactionException",
                              "domain '{}' was changed by a concurrent commit (version {}, {})",
                              d->domain, w.version, w.name);
    }
  }
  for (const Action& a : w.actions) {
    const auto* t = std::get_if<Txn>(&a);
    if (t && mine.app_ids.count(t->app_id)) {
      return Status::Conflict("ConcurrentTransactionException",
                              "application '{}' committed txn version {} concurrently (version {}, {})",
                              t->app_id, t->version, w.version, w.name);
    }
  }
  return Status::OK();
}

Status CheckAppends(const TransactionFootprint& mine, const WinningCommit& w) {
  if (mine.isolation == IsolationLevel::kSnapshotIsolation) return Status::OK();
  if (!mine.read_whole_table && mine.read_predicates.empty()) return Status::OK();
  for (const Action& a : w.actions) {
    const auto* add = std::get_if<AddFile>(&a);
    if (!add || !add->data_change) continue;
    if (mine.read_whole_table) {
      return Status::Conflict("ConcurrentAppendException",
                              "file '{}' was added by a concurrent commit (version {}, {}) to "
                              "the table this transaction read whole", add->path, w.version, w.name);
    }
    for (const ReadPredicate& p : mine.read_predicates) {
      if (p.may_match && p.may_match(*add)) {
        return Status::Conflict("ConcurrentAppendException",
                                "file '{}' was added by a concurrent commit (version {}, {}) and "
                                "may match the read predicate '{}'",
                                add->path, w.version, w.name, p.description);
      }
    }
  }
  return Status::OK();
}

Status CheckRemoves(const TransactionFootprint& mine, const WinningCommit& w) {
  // Delete-read first (Delta's order), over all of the winner's removes, then delete-delete.
  for (const Action& a : w.actions) {
    const auto* r = std::get_if<RemoveFile>(&a);
    if (!r) continue;
    FileKey k = WinnerKey(mine.table_root, r->path, r->deletion_vector);
    if (mine.read_files.count(k)) {
      return Status::Conflict("ConcurrentDeleteReadException",
                              "file {} read by this transaction was removed by a concurrent "
                              "commit (version {}, {})", Describe(k), w.version, w.name);
    }
    if (mine.read_whole_table && r->data_change) {
      return Status::Conflict("ConcurrentDeleteReadException",
                              "file {} was removed by a concurrent commit (version {}, {}) from "
                              "the table this transaction read whole", Describe(k), w.version, w.name);
    }
  }
  if (mine.removed_files.empty()) return Status::OK();
  for (const Action& a : w.actions) {
    const auto* r = std::get_if<RemoveFile>(&a);
    if (!r) continue;
    FileKey k = WinnerKey(mine.table_root, r->path, r->deletion_vector);
    if (mine.removed_files.count(k)) {
      return Status::Conflict("ConcurrentDeleteDeleteException",
                              "file {} removed by this transaction was also removed by a "
                              "concurrent commit (version {}, {})", Describe(k), w.version, w.name);
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckConflicts(const TransactionFootprint& mine, const WinningCommit& winner) {
  LITHIFY_RETURN_NOT_OK(CheckProtocolAndMetadata(winner));
  LITHIFY_RETURN_NOT_OK(CheckDomainsAndTxns(mine, winner));
  LITHIFY_RETURN_NOT_OK(CheckAppends(mine, winner));
  return CheckRemoves(mine, winner);
}

}  // namespace lithify::delta
