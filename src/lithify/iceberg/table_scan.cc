#include "lithify/iceberg/table_scan.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/iceberg/location.h"
#include "lithify/iceberg/reader.h"

namespace lithify::iceberg {

namespace {

// What a scan reads of each data file: the output leaves of the projection and of the
// predicate, and where the predicate's columns sit in the batch.
struct Projection {
  std::vector<int> fields;       // top-level output nodes to render
  std::vector<int> leaves;       // output leaves the reader reads, in batch order
  size_t projected = 0;          // leaves[0, projected) are rendered
  std::optional<expr::BoundExpr> predicate;
  std::vector<expr::BatchColumn> predicate_columns;
};

int TopLevelAncestor(const parquet::Schema& s, int node) {
  while (s.node(node).parent > 0) node = s.node(node).parent;
  return node;
}

Status AddColumns(const parquet::Schema& s, const std::vector<std::string>& columns, Projection* p) {
  std::set<int> fields;
  if (columns.empty()) {
    p->fields = s.top_level_fields();
    for (int i = 0; i < s.num_leaves(); ++i) p->leaves.push_back(i);
  } else {
    std::set<int> leaves;
    for (const std::string& c : columns) {
      Result<int> node = s.FindNode(c);
      if (!node.ok()) return Status::InvalidArgument("columns: unknown column '{}'", c);
      fields.insert(TopLevelAncestor(s, *node));
      for (int leaf : s.LeavesUnder(*node)) leaves.insert(leaf);
    }
    // Rendered in schema order, as Delta's scan does.
    for (int f : s.top_level_fields()) {
      if (fields.count(f)) p->fields.push_back(f);
    }
    p->leaves.assign(leaves.begin(), leaves.end());
  }
  p->projected = p->leaves.size();
  return Status::OK();
}

// Binds `where` against the output's flat primitive leaves (the batch evaluator's
// domain) and adds the leaves it needs to the read.
Status AddPredicate(const parquet::Schema& s, const std::string& where, Projection* p) {
  if (where.empty()) return Status::OK();
  LITHIFY_ASSIGN_OR_RETURN(expr::Expr e, ParseScanPredicate(where));
  std::vector<expr::BoundColumn> cols;
  std::map<std::vector<std::string>, int> leaf_of;
  for (int i = 0; i < s.num_leaves(); ++i) {
    const parquet::ColumnDescriptor& d = s.leaf(i);
    if (d.max_rep > 0) continue;
    Result<expr::DataType> t = expr::LogicalTypeOf(d);
    if (!t.ok()) continue;
    cols.push_back({d.path, *t});
    leaf_of[d.path] = i;
  }
  Result<expr::BoundExpr> bound = expr::Bind(e, expr::ResolverFromColumns(std::move(cols)));
  if (!bound.ok()) return Status::InvalidArgument("predicate: {}", bound.status().message());
  for (const expr::BoundColumn& c : bound->columns()) {
    const int leaf = leaf_of.at(c.path);
    auto it = std::find(p->leaves.begin(), p->leaves.end(), leaf);
    int index = static_cast<int>(it - p->leaves.begin());
    if (it == p->leaves.end()) p->leaves.push_back(leaf);
    LITHIFY_ASSIGN_OR_RETURN(expr::BatchColumn bc, expr::DescribeLeaf(s.leaf(leaf), index));
    p->predicate_columns.push_back(bc);
  }
  p->predicate = std::move(*bound);
  return Status::OK();
}

class IcebergTableScan final : public table::TableScan {
 public:
  IcebergTableScan(std::shared_ptr<const IcebergTable> table, const Snapshot* snapshot,
                   std::unique_ptr<IcebergLiveRows> rows)
      : table_(std::move(table)), snapshot_(snapshot), rows_(std::move(rows)) {}

  Status Bind(const table::ScanRequest& request) {
    const parquet::Schema& schema = rows_->schema();
    LITHIFY_RETURN_NOT_OK(AddColumns(schema, request.columns, &proj_));
    // A count reads one leaf at least: live rows come from the deletes, not the values.
    if (request.count_only && request.columns.empty()) {
      proj_.leaves.resize(std::min<size_t>(proj_.leaves.size(), 1));
      proj_.projected = proj_.leaves.size();
    }
    LITHIFY_RETURN_NOT_OK(AddPredicate(schema, request.where, &proj_));
    where_ = request.where;
    live_.leaves = proj_.leaves;
    for (size_t i = 0; i < proj_.leaves.size(); ++i) live_.rendered.push_back(i < proj_.projected);
    live_.predicate = proj_.predicate ? &*proj_.predicate : nullptr;
    live_.predicate_columns = proj_.predicate_columns;
    return Status::OK();
  }

  const parquet::Schema* schema() const override { return &rows_->schema(); }
  const std::vector<int>& fields() const override { return proj_.fields; }
  const table::LiveScan& live_scan() const override { return live_; }

  Status Plan(bool prune) override {
    if (prune && !where_.empty()) {
      LITHIFY_ASSIGN_OR_RETURN(plan_.where, ParseScanPredicate(where_));
    }
    return Status::OK();
  }

  Status ForEachFile(const std::function<Result<bool>(const std::string&, const table::OpenLiveRows&)>& read,
                     table::ScanFileCounts* counts) override {
    // Planning streams the manifests; once `read` has had enough, the rest is still
    // planned (the counts cover every live file) but not read.
    bool more = true;
    PlanStats stats;
    LITHIFY_RETURN_NOT_OK(table_->PlanFiles(
        snapshot_, plan_,
        [&](PlannedFile&& f) -> Status {
          if (!more) return Status::OK();
          const IcebergLiveFile file = rows_->Describe(std::move(f));
          LITHIFY_ASSIGN_OR_RETURN(more, read(file.path, [&](const std::vector<int>& leaves) {
                                     return rows_->Open(file, leaves);
                                   }));
          return Status::OK();
        },
        &stats));
    counts->files_total = stats.data_files;
    counts->skipped_by_stats = stats.skipped_files;
    return Status::OK();
  }

 private:
  std::shared_ptr<const IcebergTable> table_;
  const Snapshot* snapshot_;
  std::unique_ptr<IcebergLiveRows> rows_;
  Projection proj_;
  table::LiveScan live_;
  std::string where_;
  PlanOptions plan_;
};

}  // namespace

SnapshotSelector SnapshotSelectorOf(const table::VersionSelector& v) {
  switch (v.kind) {
    case table::VersionSelector::Kind::kLatest: return SnapshotSelector::Current();
    case table::VersionSelector::Kind::kVersion: return SnapshotSelector::Id(v.value);
    case table::VersionSelector::Kind::kTimestamp: return SnapshotSelector::AsOf(v.value);
    case table::VersionSelector::Kind::kRef: return SnapshotSelector::Ref(v.ref);
  }
  return SnapshotSelector::Current();
}

Result<std::shared_ptr<const IcebergTable>> OpenIcebergTable(io::FileSystem* fs, const std::string& location,
                                                             const std::vector<std::string>& location_map) {
  LITHIFY_ASSIGN_OR_RETURN(LocationMap locations, LocationMap::Parse(location_map));
  // The FileSystem is borrowed (the caller's location outlives every command), hence the
  // aliasing pointer that owns nothing.
  std::shared_ptr<io::FileSystem> borrowed(std::shared_ptr<void>(), fs);
  return IcebergTable::Open(std::move(borrowed), location, OpenOptions{std::move(locations)});
}

Result<expr::Expr> ParseScanPredicate(const std::string& where) {
  Result<expr::Expr> e = expr::Parse(where);
  if (!e.ok()) return Status::InvalidArgument("predicate: {}", e.status().message());
  return e;
}

Status CheckScanPredicate(const parquet::Schema& schema, const std::string& where) {
  Projection probe;
  return AddPredicate(schema, where, &probe);
}

Result<std::unique_ptr<table::TableScan>> OpenIcebergTableScan(io::FileSystem* fs, const std::string& location,
                                                               const table::ScanRequest& request) {
  LITHIFY_ASSIGN_OR_RETURN(auto table, OpenIcebergTable(fs, location, request.location_map));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, table->Select(SnapshotSelectorOf(request.version)));
  // The row-lineage metadata columns are read only when named (as engines expose them).
  const bool lineage = std::any_of(request.columns.begin(), request.columns.end(), [](const std::string& c) {
    return c == kRowIdColumn || c == kLastUpdatedSequenceNumberColumn;
  });
  Result<std::unique_ptr<IcebergLiveRows>> made = IcebergLiveRows::Make(table, snap, lineage);
  if (!made.ok() && lineage && made.status().code() == StatusCode::kInvalidArgument) {
    return Status::InvalidArgument("columns: {}", made.status().message());
  }
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<IcebergLiveRows> rows, std::move(made));
  auto scan = std::make_unique<IcebergTableScan>(std::move(table), snap, std::move(rows));
  LITHIFY_RETURN_NOT_OK(scan->Bind(request));
  return std::unique_ptr<table::TableScan>(std::move(scan));
}

}  // namespace lithify::iceberg
