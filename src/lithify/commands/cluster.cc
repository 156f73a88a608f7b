#include "lithify/commands/cluster.h"

#include <algorithm>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/base/uuid.h"
#include "lithify/planner/clustering.h"

namespace lithify::commands {

Result<planner::Plan> PlanClustering(const exec::RewriteTarget& target, const ClusteringRequest& request,
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
    return planner::PlanZOrder(target.files(), zo, log);
  }
  planner::LiquidOptions lo;
  lo.clustering_columns = request.columns;
  if (spec.min_cube_size) lo.min_cube_size = *spec.min_cube_size;
  if (spec.target_cube_size) lo.target_cube_size = *spec.target_cube_size;
  lo.max_file_size = max_file_size;
  lo.full = spec.full;
  lo.batch_size = spec.batch_size;
  lo.target_size_source = target_size_source;
  return planner::PlanLiquid(target.policy(), target.files(), lo, log);
}

int64_t BinMemoryShare(const OptimizeSpec& spec, int threads, size_t bins) {
  const size_t running = std::clamp<size_t>(bins, 1, static_cast<size_t>(std::max(1, threads)));
  return std::max<int64_t>(1, spec.clustering_memory_budget / static_cast<int64_t>(running));
}

int BinSortThreads(int threads, size_t bins) {
  const size_t running = std::clamp<size_t>(bins, 1, static_cast<size_t>(std::max(1, threads)));
  return std::max(1, threads / static_cast<int>(running));
}

Result<std::unique_ptr<exec::ClusteringBinIo>> MakeClusteringIo(exec::RewriteTarget& target,
                                                                const ClusteringRequest& request,
                                                                const OptimizeSpec& spec, int64_t bin_budget,
                                                                int sort_threads) {
  exec::ClusterOptions co;
  co.curve = planner::CurveFor(request.mode, request.columns.size());
  co.schema = &target.file_schema();
  LITHIFY_ASSIGN_OR_RETURN(co.columns, target.ClusteringLeaves(request));
  LITHIFY_ASSIGN_OR_RETURN(exec::BinIo * inner, target.bin_io({}));
  // The budget is the whole run's: each running bin gets its share.
  co.sort.memory_budget = bin_budget;
  co.sort.threads = sort_threads;
  co.sort.spill_dir = spec.spill_dir;
  return exec::ClusteringBinIo::Make(inner, std::move(co));
}

int64_t ClusteringOutputRowGroupBytes(int64_t bin_budget) {
  return std::clamp<int64_t>(bin_budget / 4, int64_t{1} << 20, int64_t{128} << 20);
}

std::string TagLiquidOutputs(const exec::RewriteTarget& target, const std::vector<std::string>& columns, int plan_bin,
                             std::vector<table::AddedFile>* adds, planner::DecisionLog* log) {
  const std::string cube = NewUuid();
  target.TagClusteredOutputs(columns, cube, adds);
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
