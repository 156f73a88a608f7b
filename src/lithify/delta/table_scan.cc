#include "lithify/delta/table_scan.h"

#include <algorithm>
#include <set>
#include <utility>

#include "lithify/base/dotted_path.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/io/uri.h"

namespace lithify::delta {

namespace {

// Resolves "--columns" entries to output leaves: each name is a dotted logical path
// matched level by level (exactly, then case-insensitively when unique).
Result<std::vector<int>> ResolveProjection(const parquet::Schema& schema, const std::vector<std::string>& names) {
  std::vector<int> leaves;
  for (const std::string& name : names) {
    const std::vector<std::string> parts = SplitDotted(name);
    int node = 0;
    for (const std::string& p : parts) {
      const parquet::SchemaNode& n = schema.node(node);
      if (node != 0 && n.kind != parquet::NodeKind::kStruct) {
        node = -1;
        break;
      }
      int found = -1;
      for (int c : n.children) {
        if (schema.node(c).name == p) found = c;
      }
      if (found < 0) {
        for (int c : n.children) {
          if (AsciiLower(schema.node(c).name) == AsciiLower(p)) {
            if (found >= 0) return Status::InvalidArgument("column '{}' is ambiguous", name);
            found = c;
          }
        }
      }
      node = found;
      if (node < 0) break;
    }
    if (node <= 0) return Status::InvalidArgument("column '{}' is not in the table schema", name);
    for (int l : schema.LeavesUnder(node)) leaves.push_back(l);
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  return leaves;
}

class DeltaTableScan final : public table::TableScan {
 public:
  DeltaTableScan(std::string root, ScanContext ctx) : root_(std::move(root)), ctx_(std::move(ctx)) {}

  // The projection and the reading shape (Scan's old preamble, unchanged).
  Status Bind(const table::ScanRequest& request) {
    if (!ctx_.output) return Status::OK();
    const OutputSchema& out = *ctx_.output;
    const parquet::Schema& os = out.schema();
    std::vector<int> proj;
    if (request.columns.empty()) {
      for (int l = 0; l < os.num_leaves(); ++l) proj.push_back(l);
    } else {
      Result<std::vector<int>> r = ResolveProjection(os, request.columns);
      // Prefixed like predicate errors: both are mistakes in the request (a usage error).
      if (!r.ok()) return Status::InvalidArgument("columns: {}", r.status().WithContext(root_).message());
      proj = std::move(*r);
    }
    std::set<int> tops;
    for (int l : proj) tops.insert(out.leaves()[l].top_field);
    for (int t : tops) fields_.push_back(os.top_level_fields()[t]);
    // Needed leaves: projection plus predicate columns (batch order = ascending leaf).
    std::set<int> needed(proj.begin(), proj.end());
    std::vector<int> pred_leaf;
    if (ctx_.predicate) {
      for (const expr::BoundColumn& c : ctx_.predicate->columns()) {
        int l = out.FindLeaf(c.path);
        if (l < 0) return Status::Internal("predicate column '{}' has no output leaf", expr::ColumnPathText(c.path));
        pred_leaf.push_back(l);
        needed.insert(l);
      }
    }
    std::vector<int> leaves(needed.begin(), needed.end());
    std::vector<bool> in_proj(os.num_leaves(), false);
    for (int l : proj) in_proj[l] = true;
    std::vector<expr::BatchColumn> bcols;
    for (int l : pred_leaf) {
      int idx = static_cast<int>(std::find(leaves.begin(), leaves.end(), l) - leaves.begin());
      LITHIFY_ASSIGN_OR_RETURN(expr::BatchColumn bc, expr::DescribeLeaf(os.leaf(l), idx));
      bcols.push_back(bc);
    }
    // Counting without a predicate needs only the footers and the deletion vectors.
    if (!(request.count_only && !ctx_.predicate)) {
      live_.leaves = leaves;
      for (int l : leaves) live_.rendered.push_back(in_proj[l]);
      live_.predicate = ctx_.predicate ? &*ctx_.predicate : nullptr;
      live_.predicate_columns = bcols;
    } else {
      live_.count_row_groups = false;
    }
    return Status::OK();
  }

  const parquet::Schema* schema() const override { return ctx_.output ? &ctx_.output->schema() : nullptr; }
  const std::vector<int>& fields() const override { return fields_; }
  const table::LiveScan& live_scan() const override { return live_; }

  Status Plan(bool prune) override {
    if (!ctx_.output) return Status::OK();
    LITHIFY_ASSIGN_OR_RETURN(plan_, PlanKeptFiles(ctx_, prune));
    return Status::OK();
  }

  Status ForEachFile(const std::function<Result<bool>(const std::string&, const table::OpenLiveRows&)>& read,
                     table::ScanFileCounts* counts) override {
    counts->files_total = plan_.files_total;
    counts->skipped_by_partition = plan_.skipped_by_partition;
    counts->skipped_by_stats = plan_.skipped_by_stats;
    const Snapshot& snap = *ctx_.snapshot;
    for (uint32_t index : plan_.files) {
      // One FileEntry at a time: the kept files are read, never held together.
      const table::FileEntry f = snap.live_files()[index].ToFileEntry();
      const std::string path = io::ResolveLocation(snap.table_root(), f.path);
      LITHIFY_ASSIGN_OR_RETURN(bool more, read(path, [&](const std::vector<int>& leaves) {
                                 return ctx_.rows->OpenEntry(f, leaves);
                               }));
      if (!more) break;
    }
    return Status::OK();
  }

 private:
  std::string root_;
  ScanContext ctx_;
  std::vector<int> fields_;
  table::LiveScan live_;
  KeptFiles plan_;
};

}  // namespace

Result<std::unique_ptr<table::TableScan>> OpenDeltaTableScan(io::FileSystem* fs, const std::string& root,
                                                             const table::ScanRequest& request) {
  // Statistics are parsed per file, after partition pruning (FileJudge): a partition
  // predicate on a large table never parses the stats of the files it prunes.
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, root, request.version, request.where, LoadOptions{StatsMode::kRaw}));
  if (!ctx.output && !ctx.snapshot->live_files().empty()) {
    return Status::NotSupported("{}: the table has data files but no columns in its schema", root);
  }
  auto scan = std::make_unique<DeltaTableScan>(root, std::move(ctx));
  LITHIFY_RETURN_NOT_OK(scan->Bind(request));
  return std::unique_ptr<table::TableScan>(std::move(scan));
}

}  // namespace lithify::delta
