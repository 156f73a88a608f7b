// The clustering half of OPTIMIZE: OPTIMIZE ... ZORDER BY and OPTIMIZE (FULL) on a
// liquid-clustered table (delta-maintenance-facts.md §1.1-§1.2, §2.3, §3, §4). Used by
// commands/optimize.cc, which keeps the snapshot / execute / commit machinery; this file
// holds what differs:
//
//   ResolveClustering  Delta's validation and mode choice (§1.1-§1.2): a table with the
//                      `clustering` feature and >= 1 clustering column is clustered
//                      (curve Hilbert, Z-order for one column); there --where is
//                      DELTA_CLUSTERING_WITH_PARTITION_PREDICATE and --zorder-by
//                      DELTA_CLUSTERING_WITH_ZORDER_BY; --full anywhere else is
//                      DELTA_OPTIMIZE_FULL_NOT_SUPPORTED; --zorder-by columns must exist
//                      (DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST), not be partition columns
//                      (DELTA_ZORDERING_ON_PARTITION_COLUMN) and have statistics
//                      (DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS). All InvalidArgument
//                      whose message starts with the error class.
//   PlanClustering     planner::PlanZOrder / PlanLiquid with the run's sizes.
//   MakeClusteringIo   the exec::ClusteringBinIo decorator over the Delta BinIo: per bin,
//                      range ids from a sample, curve keys, external sort under the memory
//                      budget (split among the running bins), output_files files.
//   TagLiquidOutputs   liquid outputs: clusteringProvider "liquid", ZCUBE_ID (fresh UUID
//                      per bin) and ZCUBE_ZORDER_BY (the logical clustering columns).
//   ...StatsJson       Delta's zOrderStats / clusteringStats of the command output.
//
// Stateless functions; thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/commands/optimize.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/snapshot.h"
#include "lithify/exec/cluster_bin.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/table/commit_intent.h"
#include "lithify/table/file_entry.h"

namespace lithify::commands {

struct ClusteringRequest {
  // kZOrder, kLiquid, or kCompaction when the run is no clustering run.
  planner::PlanMode mode = planner::PlanMode::kCompaction;
  std::vector<std::string> columns;             // logical names as recorded (dotted)
  std::vector<std::vector<std::string>> paths;  // logical paths
  bool active() const { return mode == planner::PlanMode::kZOrder || mode == planner::PlanMode::kLiquid; }
};

// See the header comment. `has_where` = a partition predicate was given.
Result<ClusteringRequest> ResolveClustering(const delta::Snapshot& snap, const OptimizeSpec& spec);

// Plans the clustering run. `max_file_size` is the resolved target file size.
Result<planner::Plan> PlanClustering(const std::vector<table::FileEntry>& files, const ClusteringRequest& request,
                                     const OptimizeSpec& spec, int64_t max_file_size,
                                     const std::string& target_size_source,
                                     std::function<bool(const table::FileEntry&)> in_scope,
                                     planner::DecisionLog* log);

// The decorator running clustering bins over `inner` (whose write batches have the leaves
// of `file_schema`, which must outlive it). InvalidArgument when a column is not a flat
// leaf of the data files.
Result<std::unique_ptr<exec::ClusteringBinIo>> MakeClusteringIo(exec::BinIo* inner,
                                                                const parquet::Schema* file_schema,
                                                                const delta::Snapshot& snap,
                                                                const ClusteringRequest& request,
                                                                const OptimizeSpec& spec, int threads);

// Row group size of clustering outputs: a quarter of a bin's share of the memory budget
// (the data writer buffers one row group), at most the writer's 128 MiB default, at
// least 1 MiB.
int64_t ClusteringOutputRowGroupBytes(const OptimizeSpec& spec, int threads);

// Marks one liquid bin's outputs as one new ZCube and notes the cube in the decision
// log's entry for plan bin `plan_bin` (when `log` is non-null). Returns the ZCUBE_ID.
std::string TagLiquidOutputs(const std::vector<std::string>& columns, int plan_bin, std::vector<table::AddedFile>* adds,
                             planner::DecisionLog* log);

// Delta's zOrderStats for a Z-order run that removed `files` files of `bytes` bytes.
nlohmann::ordered_json ZOrderStatsJson(int64_t files, int64_t bytes, int64_t partitions_optimized);
// Delta's clusteringStats from the plan.
nlohmann::ordered_json ClusteringStatsJson(const planner::Plan& plan);

// operationParameters zOrderBy / clusterBy / isFull for the plan (JSON text values, as
// Delta records them). No-op for other modes.
void AddClusteringParameters(const planner::Plan& plan, nlohmann::json* params);

}  // namespace lithify::commands
