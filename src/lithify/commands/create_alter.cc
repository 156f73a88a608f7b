// create / alter: plan (delta/ddl.h), then commit through delta::Transaction.
#include "lithify/commands/create_alter.h"

#include <utility>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/delta/log_segment.h"

namespace lithify::commands {

namespace {

constexpr std::string_view kLogDir = "_delta_log";

Status CheckNoTable(io::FileSystem* fs, const std::string& root) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::LogFile> files,
                           delta::ListLogFiles(fs, io::JoinPath(root, kLogDir)));
  for (const auto& f : files) {
    if (f.name.type == delta::LogFileType::kCommit || f.name.is_checkpoint()) {
      return Status::AlreadyExists("a Delta table already exists at {}", root);
    }
  }
  return Status::OK();
}

std::string_view BaseNameOf(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Delta's DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION (see the header): after CheckNoTable,
// the location may hold nothing but an empty `_delta_log` directory. Listing one level
// (two for `_delta_log`) keeps this cheap on a large folder.
Status CheckEmptyLocation(io::FileSystem* fs, const std::string& root) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(std::vector<io::FileInfo> top, fs->ListFrom(root, ""), "create: listing '{}'", root);
  std::vector<std::string> found;
  for (const io::FileInfo& e : top) {
    if (BaseNameOf(e.path) != kLogDir) {
      found.push_back(e.path);
      continue;
    }
    LITHIFY_ASSIGN_OR_RETURN_CTX(std::vector<io::FileInfo> log, fs->ListFrom(io::JoinPath(root, kLogDir), ""),
                                 "create: listing '{}'", e.path);
    for (const io::FileInfo& l : log) found.push_back(l.path);
  }
  if (found.empty()) return Status::OK();
  return Status::AlreadyExists(
      "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION: cannot create a table at '{}': the location is not empty and "
      "also not a Delta table (it holds '{}'{}); a later VACUUM would delete such files as untracked. Choose an "
      "empty or new directory",
      root, found.front(), found.size() > 1 ? fmt::format(" and {} more entries", found.size() - 1) : "");
}

Result<std::shared_ptr<const delta::Snapshot>> LoadLatest(io::FileSystem* fs, const std::string& root) {
  // The transaction needs the stats text (row tracking); parsing it is not needed.
  delta::LoadOptions load;
  load.stats = delta::StatsMode::kRaw;
  return delta::Snapshot::Load(fs, root, delta::VersionSpec::Latest(), load);
}

// One ALTER statement's worth: plans on the latest snapshot and commits.
Result<delta::CommitResult> CommitAlterPart(io::FileSystem* fs, const std::string& root, delta::AlterSpec part,
                                            const delta::TransactionOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(auto snap, LoadLatest(fs, root));
  LITHIFY_ASSIGN_OR_RETURN(auto txn, delta::Transaction::Begin(snap, options));
  part.now_ms = txn->NowMs();
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::PlanAlterTable(*snap, part));
  LITHIFY_ASSIGN_OR_RETURN(delta::PlannedOperation op, delta::AlterTableOperation(*snap, part));
  for (auto& a : actions) txn->AddAction(std::move(a));
  txn->SetOperation(op.name, op.parameters);
  return txn->Commit();
}

// The spec split into Delta's separate statements, in commit order.
std::vector<delta::AlterSpec> SplitAlter(const delta::AlterSpec& spec) {
  std::vector<delta::AlterSpec> parts;
  if (!spec.set_properties.empty()) {
    delta::AlterSpec p;
    p.set_properties = spec.set_properties;
    parts.push_back(std::move(p));
  }
  if (!spec.unset_properties.empty()) {
    delta::AlterSpec p;
    p.unset_properties = spec.unset_properties;
    p.unset_if_exists = spec.unset_if_exists;
    parts.push_back(std::move(p));
  }
  if (spec.clustering_columns) {
    delta::AlterSpec p;
    p.clustering_columns = spec.clustering_columns;
    parts.push_back(std::move(p));
  }
  return parts;
}

}  // namespace

Result<delta::CommitResult> CreateTable(io::FileSystem* fs, const std::string& root, const delta::NewTableSpec& spec,
                                        delta::TransactionOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("CreateTable: null FileSystem");
  LITHIFY_RETURN_NOT_OK(CheckNoTable(fs, root));
  LITHIFY_RETURN_NOT_OK(CheckEmptyLocation(fs, root));
  LITHIFY_ASSIGN_OR_RETURN(auto txn, delta::Transaction::BeginNewTable(fs, root, std::move(options)));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::PlanCreateTable(spec, txn->NowMs()));
  delta::PlannedOperation op = delta::CreateTableOperation(actions);
  for (auto& a : actions) txn->AddAction(std::move(a));
  txn->SetOperation(op.name, op.parameters);
  return txn->Commit();
}

Result<delta::CommitResult> AlterTable(io::FileSystem* fs, const std::string& root, const delta::AlterSpec& spec,
                                       delta::TransactionOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("AlterTable: null FileSystem");
  if (spec.empty()) return Status::InvalidArgument("ALTER TABLE: nothing to change");
  {
    // Validate the whole request first: a bad part must not leave earlier parts committed.
    LITHIFY_ASSIGN_OR_RETURN(auto snap, LoadLatest(fs, root));
    delta::AlterSpec whole = spec;
    whole.now_ms = 0;
    LITHIFY_RETURN_NOT_OK(delta::PlanAlterTable(*snap, whole).status());
  }
  std::optional<delta::CommitResult> last;
  for (delta::AlterSpec& part : SplitAlter(spec)) {
    LITHIFY_ASSIGN_OR_RETURN(delta::CommitResult r, CommitAlterPart(fs, root, std::move(part), options));
    last = std::move(r);
  }
  return std::move(*last);
}

}  // namespace lithify::commands
