#include "lithify/commands/cluster.h"

#include <algorithm>
#include <cctype>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/base/uuid.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/planner/clustering.h"

namespace lithify::commands {

namespace {

std::vector<std::string> SplitDotted(const std::string& s) {
  std::vector<std::string> parts;
  size_t p = 0;
  while (true) {
    size_t d = s.find('.', p);
    parts.push_back(s.substr(p, d == std::string::npos ? std::string::npos : d - p));
    if (d == std::string::npos) break;
    p = d + 1;
  }
  return parts;
}

std::string Dotted(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

bool IsClusteredTable(const delta::Snapshot& snap) {
  return snap.protocol().HasWriterFeature("clustering") && !delta::ClusteringColumnsOf(snap).empty();
}

// Delta's validateZorderByColumns.
Status ValidateZOrderColumns(const delta::Snapshot& snap, const std::vector<std::vector<std::string>>& paths) {
  const std::string& root = snap.table_root();
  LITHIFY_ASSIGN_OR_RETURN(parquet::Schema file_schema,
                           delta::BuildDataFileSchema(delta::WriteContext::FromSnapshot(snap)));
  LITHIFY_ASSIGN_OR_RETURN(std::shared_ptr<const delta::StatsPlan> stats,
                           delta::StatsPlan::Make(snap.schema(), snap.partition_columns(), snap.column_mapping_mode(),
                                                  snap.properties(), file_schema));
  for (const std::vector<std::string>& path : paths) {
    const std::string name = Dotted(path);
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
    Result<delta::PhysicalColumn> pc = delta::ResolvePhysicalColumn(snap.schema(), path, snap.column_mapping_mode());
    if (!pc.ok()) {
      if (pc.status().IsNotFound()) {
        return Status::InvalidArgument("DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST: {}: column '{}' does not exist in the "
                                       "table schema",
                                       root, name);
      }
      return pc.status();
    }
    bool has_stats = false;
    for (const delta::StatsPlan::Column& c : stats->columns()) has_stats = has_stats || c.physical_path == pc->path;
    if (!has_stats) {
      return Status::InvalidArgument(
          "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS: {}: Z-ordering on '{}' is ineffective: the table collects no "
          "statistics for it (delta.dataSkippingNumIndexedCols / delta.dataSkippingStatsColumns)",
          root, name);
    }
  }
  return Status::OK();
}

}  // namespace

Result<ClusteringRequest> ResolveClustering(const delta::Snapshot& snap, const OptimizeSpec& spec) {
  ClusteringRequest req;
  const std::string& root = snap.table_root();
  if (IsClusteredTable(snap)) {
    if (!spec.where.empty()) {
      return Status::InvalidArgument(
          "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE: {}: OPTIMIZE on a clustered table cannot take a predicate "
          "(--where)",
          root);
    }
    if (!spec.zorder_by.empty()) {
      return Status::InvalidArgument(
          "DELTA_CLUSTERING_WITH_ZORDER_BY: {}: OPTIMIZE on a clustered table cannot take --zorder-by; it clusters "
          "by the table's clustering columns",
          root);
    }
    req.mode = planner::PlanMode::kLiquid;
    req.paths = delta::ClusteringColumnsOf(snap);
    for (const auto& p : req.paths) req.columns.push_back(Dotted(p));
    return req;
  }
  if (spec.full) {
    return Status::InvalidArgument(
        "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED: {}: OPTIMIZE FULL is only supported on clustered tables with clustering "
        "columns",
        root);
  }
  if (spec.zorder_by.empty()) return req;
  if (spec.reorg_purge) return Status::InvalidArgument("{}: REORG does not take --zorder-by", root);
  for (const std::string& c : spec.zorder_by) {
    if (c.empty()) return Status::InvalidArgument("{}: an empty --zorder-by column name", root);
    req.paths.push_back(SplitDotted(c));
    req.columns.push_back(c);
  }
  LITHIFY_RETURN_NOT_OK(ValidateZOrderColumns(snap, req.paths));
  req.mode = planner::PlanMode::kZOrder;
  return req;
}

Result<planner::Plan> PlanClustering(const std::vector<table::FileEntry>& files, const ClusteringRequest& request,
                                     const OptimizeSpec& spec, int64_t max_file_size,
                                     const std::string& target_size_source,
                                     std::function<bool(const table::FileEntry&)> in_scope,
                                     planner::DecisionLog* log) {
  if (request.mode == planner::PlanMode::kZOrder) {
    planner::ZOrderOptions zo;
    zo.zorder_by = request.columns;
    zo.max_file_size = max_file_size;
    zo.batch_size = spec.batch_size;
    zo.in_scope = std::move(in_scope);
    zo.scope_description = spec.where;
    zo.target_size_source = target_size_source;
    return planner::PlanZOrder(files, zo, log);
  }
  planner::LiquidOptions lo;
  lo.clustering_columns = request.columns;
  if (spec.min_cube_size) lo.min_cube_size = *spec.min_cube_size;
  if (spec.target_cube_size) lo.target_cube_size = *spec.target_cube_size;
  lo.max_file_size = max_file_size;
  lo.full = spec.full;
  lo.batch_size = spec.batch_size;
  lo.target_size_source = target_size_source;
  return planner::PlanLiquid(delta::DeltaPolicy(), files, lo, log);
}

Result<std::unique_ptr<exec::ClusteringBinIo>> MakeClusteringIo(exec::BinIo* inner,
                                                                const parquet::Schema* file_schema,
                                                                const delta::Snapshot& snap,
                                                                const ClusteringRequest& request,
                                                                const OptimizeSpec& spec, int threads) {
  exec::ClusterOptions co;
  co.curve = planner::CurveFor(request.mode, request.columns.size());
  co.schema = file_schema;
  for (const std::vector<std::string>& path : request.paths) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(delta::PhysicalColumn pc,
                                 delta::ResolvePhysicalColumn(snap.schema(), path, snap.column_mapping_mode()),
                                 "{}: clustering column '{}'", snap.table_root(), Dotted(path));
    int leaf = -1;
    for (int l = 0; l < file_schema->num_leaves(); ++l) {
      if (file_schema->leaf(l).path == pc.path) leaf = l;
    }
    if (leaf < 0 || file_schema->leaf(leaf).max_rep > 0) {
      return Status::InvalidArgument("{}: clustering column '{}' is not a primitive data column outside lists and maps",
                                     snap.table_root(), Dotted(path));
    }
    co.columns.push_back(leaf);
  }
  // The budget is the whole run's: each running bin gets its share.
  co.sort.memory_budget = std::max<int64_t>(1, spec.clustering_memory_budget / std::max(1, threads));
  co.sort.spill_dir = spec.spill_dir;
  return exec::ClusteringBinIo::Make(inner, std::move(co));
}

int64_t ClusteringOutputRowGroupBytes(const OptimizeSpec& spec, int threads) {
  const int64_t share = spec.clustering_memory_budget / std::max(1, threads);
  return std::clamp<int64_t>(share / 4, int64_t{1} << 20, int64_t{128} << 20);
}

std::string TagLiquidOutputs(const std::vector<std::string>& columns, int plan_bin, std::vector<table::AddedFile>* adds,
                             planner::DecisionLog* log) {
  const std::string cube = NewUuid();
  const std::string zorder_by = delta::ZCubeZOrderByValue(columns);
  for (table::AddedFile& a : *adds) {
    a.clustering_provider = delta::kLiquidClusteringProvider;
    a.tags[delta::kZCubeIdTag] = cube;
    a.tags[delta::kZCubeZOrderByTag] = zorder_by;
  }
  if (log != nullptr) {
    for (planner::BinDecision& b : log->bins) {
      if (b.plan_bin_id == plan_bin) {
        b.reason += fmt::format("; written as ZCube {} ({} file{})", cube, adds->size(), adds->size() == 1 ? "" : "s");
      }
    }
  }
  return cube;
}

nlohmann::ordered_json ZOrderStatsJson(int64_t files, int64_t bytes, int64_t partitions_optimized) {
  auto fs = [](int64_t n, int64_t s) {
    nlohmann::ordered_json j;
    j["num"] = n;
    j["size"] = s;
    return j;
  };
  nlohmann::ordered_json j;
  j["strategyName"] = "all";
  j["inputCubeFiles"] = fs(0, 0);
  j["inputOtherFiles"] = fs(files, bytes);
  j["inputNumCubes"] = 0;
  j["mergedFiles"] = fs(files, bytes);
  j["numOutputCubes"] = partitions_optimized;
  j["mergedNumCubes"] = nullptr;
  return j;
}

nlohmann::ordered_json ClusteringStatsJson(const planner::Plan& plan) {
  auto fs = [](int64_t n, int64_t s) {
    nlohmann::ordered_json j;
    j["numFiles"] = n;
    j["size"] = s;
    return j;
  };
  const planner::ClusteringInputStats& c = plan.clustering;
  nlohmann::ordered_json j;
  j["inputZCubeFiles"] = fs(c.input_zcube_files, c.input_zcube_bytes);
  j["inputOtherFiles"] = fs(c.input_other_files, c.input_other_bytes);
  j["inputNumZCubes"] = c.input_num_zcubes;
  j["mergedFiles"] = fs(c.merged_files, c.merged_bytes);
  j["numOutputZCubes"] = c.num_output_zcubes;
  return j;
}

void AddClusteringParameters(const planner::Plan& plan, nlohmann::json* p) {
  const std::string cols = nlohmann::json(plan.columns).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (plan.mode == planner::PlanMode::kZOrder) {
    (*p)["zOrderBy"] = cols;
  } else if (plan.mode == planner::PlanMode::kLiquid) {
    (*p)["zOrderBy"] = "[]";  // Delta forces it empty when clusterBy is defined
    (*p)["clusterBy"] = cols;
    (*p)["isFull"] = plan.full;
  }
}

}  // namespace lithify::commands
