#include "lithify/delta/rewrite_target.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/dotted_path.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/delta/bin_io.h"
#include "lithify/delta/committer.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/delta/write_gate.h"

namespace lithify::delta {

namespace {

bool IsClusteredTable(const Snapshot& snap) {
  return snap.protocol().HasWriterFeature("clustering") && !ClusteringColumnsOf(snap).empty();
}

// Delta's validateZorderByColumns.
Status ValidateZOrderColumns(const Snapshot& snap, const std::vector<std::vector<std::string>>& paths) {
  const std::string& root = snap.table_root();
  LITHIFY_ASSIGN_OR_RETURN(parquet::Schema file_schema, BuildDataFileSchema(WriteContext::FromSnapshot(snap)));
  LITHIFY_ASSIGN_OR_RETURN(std::shared_ptr<const StatsPlan> stats,
                           StatsPlan::Make(snap.schema(), snap.partition_columns(), snap.column_mapping_mode(),
                                           snap.properties(), file_schema));
  for (const std::vector<std::string>& path : paths) {
    const std::string name = JoinDotted(path);
    if (path.size() == 1) {
      for (const std::string& p : snap.partition_columns()) {
        if (AsciiLower(p) == AsciiLower(path[0])) {
          return Status::InvalidArgument(
              "DELTA_ZORDERING_ON_PARTITION_COLUMN: {}: '{}' is a partition column; Z-ordering works within "
              "partitions, only on data columns",
              root, name);
        }
      }
    }
    Result<PhysicalColumn> pc = ResolvePhysicalColumn(snap.schema(), path, snap.column_mapping_mode());
    if (!pc.ok()) {
      if (pc.status().IsNotFound()) {
        return Status::InvalidArgument("DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST: {}: column '{}' does not exist in the "
                                       "table schema",
                                       root, name);
      }
      return pc.status();
    }
    bool has_stats = false;
    for (const StatsPlan::Column& c : stats->columns()) has_stats = has_stats || c.physical_path == pc->path;
    if (!has_stats) {
      return Status::InvalidArgument(
          "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS: {}: Z-ordering on '{}' is ineffective: the table collects no "
          "statistics for it (delta.dataSkippingNumIndexedCols / delta.dataSkippingStatsColumns)",
          root, name);
    }
  }
  return Status::OK();
}

class DeltaRewriteTarget final : public exec::RewriteTarget {
 public:
  DeltaRewriteTarget(io::FileSystem* fs, std::string root, ScanContext ctx, std::string operation,
                     table::CommitOptions commit)
      : fs_(fs),
        root_(std::move(root)),
        ctx_(std::move(ctx)),
        snap_(*ctx_.snapshot),
        // RowTrackingOf names the operation in its refusal (OPTIMIZE's and REORG's are
        // the same check); asked once, its answer serves the check, the BinIo and every
        // commit attempt.
        row_tracking_(RowTrackingOf(snap_, operation)),
        committer_(fs, root_, ctx_.snapshot, std::move(commit)) {}

  const std::string& root() const override { return root_; }
  int64_t version() const override { return snap_.version(); }
  const std::vector<table::FileEntry>& files() const override { return snap_.files(); }
  const planner::TablePolicy& policy() const override { return DeltaPolicy(); }
  const std::map<std::string, std::string>& properties() const override { return snap_.properties(); }
  bool has_columns() const override { return ctx_.output != nullptr; }
  int64_t num_table_columns() const override { return static_cast<int64_t>(snap_.schema().fields.size()); }
  int64_t num_table_columns_with_stats() const override {
    // The statistics writer's reading of the property (-1: every column).
    Result<int> parsed = ParseNumIndexedCols(snap_.properties());
    const int64_t indexed = parsed.ok() ? *parsed : kDefaultNumIndexedCols;
    return indexed < 0 ? num_table_columns() : std::min(indexed, num_table_columns());
  }

  Result<exec::ClusteringRequest> ResolveClustering(const exec::RewriteRequest& request) const override {
    exec::ClusteringRequest req;
    if (IsClusteredTable(snap_)) {
      if (!request.where.empty()) {
        return Status::InvalidArgument(
            "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE: {}: OPTIMIZE on a clustered table cannot take a predicate "
            "(--where)",
            root_);
      }
      if (!request.zorder_by.empty()) {
        return Status::InvalidArgument(
            "DELTA_CLUSTERING_WITH_ZORDER_BY: {}: OPTIMIZE on a clustered table cannot take --zorder-by; it "
            "clusters by the table's clustering columns",
            root_);
      }
      req.mode = planner::PlanMode::kLiquid;
      req.paths = ClusteringColumnsOf(snap_);
      for (const auto& p : req.paths) req.columns.push_back(JoinDotted(p));
      return req;
    }
    if (request.full) {
      return Status::InvalidArgument(
          "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED: {}: OPTIMIZE FULL is only supported on clustered tables with "
          "clustering columns",
          root_);
    }
    if (request.zorder_by.empty()) return req;
    if (request.reorg_purge) return Status::InvalidArgument("{}: REORG does not take --zorder-by", root_);
    for (const std::string& c : request.zorder_by) {
      if (c.empty()) return Status::InvalidArgument("{}: an empty --zorder-by column name", root_);
      req.paths.push_back(SplitDotted(c));
      req.columns.push_back(c);
    }
    LITHIFY_RETURN_NOT_OK(ValidateZOrderColumns(snap_, req.paths));
    req.mode = planner::PlanMode::kZOrder;
    return req;
  }

  Status CheckRewrite(const exec::RewriteRequest& request) const override {
    LITHIFY_RETURN_NOT_OK(CheckWherePartitionOnly(request));
    LITHIFY_RETURN_NOT_OK(CheckTableSupported(request));
    return row_tracking_.status();
  }

  Result<std::vector<const table::FileEntry*>> FilesInScope() const override {
    LITHIFY_ASSIGN_OR_RETURN(std::vector<FileDecision> decisions, PlanScan(ctx_, true));
    std::vector<const table::FileEntry*> kept;
    for (const FileDecision& d : decisions) {
      if (d.verdict == table::FileVerdict::kKept) kept.push_back(d.file);
    }
    return kept;
  }

  Result<exec::BinIo*> bin_io(const exec::BinIoOptions& options) override {
    if (bin_io_) return bin_io_.get();
    LITHIFY_ASSIGN_OR_RETURN(delta::RowTracking rt, row_tracking_);
    LITHIFY_ASSIGN_OR_RETURN(bin_io_, DeltaBinIo::Make(fs_, ctx_.snapshot, ctx_.rows.get(), rt));
    bin_io_->set_columnar(options.columnar, options.copy_row_group_min_bytes);
    if (options.row_group_bytes > 0) bin_io_->set_row_group_bytes(options.row_group_bytes);
    bin_io_->set_column_threads(options.column_threads);
    return bin_io_.get();
  }

  const parquet::Schema& file_schema() const override { return bin_io_->file_schema(); }

  Result<std::vector<int>> ClusteringLeaves(const exec::ClusteringRequest& request) const override {
    const parquet::Schema& schema = file_schema();
    std::vector<int> leaves;
    for (const std::vector<std::string>& path : request.paths) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(PhysicalColumn pc,
                                   ResolvePhysicalColumn(snap_.schema(), path, snap_.column_mapping_mode()),
                                   "{}: clustering column '{}'", root_, JoinDotted(path));
      int leaf = -1;
      for (int l = 0; l < schema.num_leaves(); ++l) {
        if (schema.leaf(l).path == pc.path) leaf = l;
      }
      if (leaf < 0 || schema.leaf(leaf).max_rep > 0) {
        return Status::InvalidArgument(
            "{}: clustering column '{}' is not a primitive data column outside lists and maps", root_, JoinDotted(path));
      }
      leaves.push_back(leaf);
    }
    return leaves;
  }

  const table::FileEntry* Find(const planner::FileRef& ref) const override {
    return bin_io_ ? bin_io_->Find(ref) : nullptr;
  }

  void TagClusteredOutputs(const std::vector<std::string>& columns, const std::string& cube_id,
                           std::vector<table::AddedFile>* adds) const override {
    const std::string zorder_by = ZCubeZOrderByValue(columns);
    for (table::AddedFile& a : *adds) {
      a.clustering_provider = kLiquidClusteringProvider;
      a.tags[kZCubeIdTag] = cube_id;
      a.tags[kZCubeZOrderByTag] = zorder_by;
    }
  }

  bool row_ids_preserved() const override { return row_tracking_.ok() && row_tracking_->enabled; }

  std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added,
                                                      const std::vector<const table::FileEntry*>& removed) const override {
    return delta::OperationMetrics(std::move(added), removed);
  }

  table::TableCommitter& committer() override { return committer_; }

 private:
  // Delta's verifyPartitionPredicates: --where may reference partition columns only.
  Status CheckWherePartitionOnly(const exec::RewriteRequest& request) const {
    if (!ctx_.predicate) return Status::OK();
    for (const expr::BoundColumn& c : ctx_.predicate->columns()) {
      bool partition = false;
      if (c.path.size() == 1) {
        for (const std::string& p : snap_.partition_columns()) {
          partition = partition || AsciiLower(p) == AsciiLower(c.path[0]);
        }
      }
      if (!partition) {
        std::string parts;
        for (const std::string& p : snap_.partition_columns()) parts += (parts.empty() ? "" : ", ") + p;
        return Status::InvalidArgument("{} --where may only reference partition columns; '{}' is not one ({})",
                                       request.operation, expr::ColumnPathText(c.path),
                                       parts.empty() ? "the table is not partitioned" : "partition columns: " + parts);
      }
    }
    return Status::OK();
  }

  // What lithify cannot do on this table, refused before anything is written.
  Status CheckTableSupported(const exec::RewriteRequest& request) const {
    if (!snap_.CanWrite()) {
      return Status::NotSupported("{}: lithify cannot write this table: {}", root_, snap_.write_block_reason());
    }
    // Rewrites keep every row as it is, so the data features (constraints, generated and
    // identity columns, append-only) allow them (delta/write_gate.h).
    LITHIFY_RETURN_NOT_OK(CheckWriteOperation(snap_, WriteOperation::kRewrite).WithContext(root_));
    if (snap_.protocol().HasReaderFeature("catalogManaged") || snap_.protocol().HasWriterFeature("catalogManaged")) {
      return Status::NotSupported("{}: {} is blocked on catalog-managed tables (as in Delta)", root_,
                                  request.operation);
    }
    auto dom = snap_.domain_metadata().find("delta.clustering");
    if ((request.reorg_purge || request.auto_compaction) && dom != snap_.domain_metadata().end() &&
        dom->second.configuration.find("[[") != std::string::npos) {
      return Status::NotSupported("{}: the table is liquid-clustered; {} there is clustering (Delta), which lithify "
                                  "implements for OPTIMIZE only",
                                  root_, request.operation);
    }
    return Status::OK();
  }

  io::FileSystem* fs_;
  std::string root_;
  ScanContext ctx_;
  const Snapshot& snap_;
  const Result<delta::RowTracking> row_tracking_;
  DeltaCommitter committer_;
  std::unique_ptr<DeltaBinIo> bin_io_;
};

}  // namespace

Result<std::unique_ptr<exec::RewriteTarget>> OpenDeltaRewriteTarget(io::FileSystem* fs, const std::string& root,
                                                                    std::optional<int64_t> version,
                                                                    const exec::RewriteRequest& request,
                                                                    table::CommitOptions commit) {
  // Planning needs sizes, partitions, DVs, tags and numRecords, never column bounds
  // (--where is partition-only): parsed statistics would cost most of the planning time
  // and memory of a 1,000,000-file table.
  LoadOptions load;
  load.stats = StatsMode::kNumRecords;
  const VersionSpec spec = version ? VersionSpec::AtVersion(*version) : VersionSpec::Latest();
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, root, spec, request.where, load));
  return std::unique_ptr<exec::RewriteTarget>(
      new DeltaRewriteTarget(fs, root, std::move(ctx), request.operation, std::move(commit)));
}

}  // namespace lithify::delta
