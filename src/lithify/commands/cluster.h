// The clustering half of OPTIMIZE: OPTIMIZE ... ZORDER BY and OPTIMIZE (FULL) on a
// liquid-clustered table (delta-maintenance-facts.md §1.1-§1.2, §2.3, §3, §4). Used by
// commands/optimize.cc, which keeps the open / plan / execute / commit machinery; this
// file holds what differs, format-neutral (the format's choices -- which columns, its
// validation, its cube tags -- come from the exec::RewriteTarget):
//
//   PlanClustering     planner::PlanZOrder / PlanLiquid with the run's sizes.
//   MakeClusteringIo   the exec::ClusteringBinIo decorator over the target's BinIo: per
//                      bin, range ids from a sample, curve keys, external sort under the
//                      memory budget (split among the running bins), output_files files.
//   TagLiquidOutputs   liquid outputs: one new cube (fresh UUID per bin), tagged as the
//                      format tags cubes (Delta: clusteringProvider "liquid", ZCUBE_ID,
//                      ZCUBE_ZORDER_BY).
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
#include "lithify/exec/cluster_bin.h"
#include "lithify/exec/rewrite_target.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/table/commit_intent.h"
#include "lithify/table/file_entry.h"

namespace lithify::commands {

using exec::ClusteringRequest;

// Plans the clustering run. `max_file_size` is the resolved target file size.
Result<planner::Plan> PlanClustering(const exec::RewriteTarget& target, const ClusteringRequest& request,
                                     const OptimizeSpec& spec, int64_t max_file_size,
                                     const std::string& target_size_source,
                                     std::function<bool(const table::FileEntry&)> in_scope,
                                     planner::DecisionLog* log);

// Each running clustering bin's share of the memory budget: `threads` threads run
// min(threads, bins) bins at once, so a lone bin keeps the whole budget (it used to get
// budget / threads: half the budget for a lone bin on the default two threads, which
// doubled its sort runs).
int64_t BinMemoryShare(const OptimizeSpec& spec, int threads, size_t bins);
// Threads each running bin gets: threads / min(threads, bins), so a lone bin on two
// threads sorts and spills on a thread of its own (exec::SortOptions::threads), or
// encodes two column chunks at once (exec::BinIoOptions::column_threads).
int BinSortThreads(int threads, size_t bins);

// The decorator running clustering bins over `target`'s BinIo (made already; the
// target must outlive it), each with `bin_budget` bytes (BinMemoryShare).
// InvalidArgument when a column is not a flat leaf of the data files.
Result<std::unique_ptr<exec::ClusteringBinIo>> MakeClusteringIo(exec::RewriteTarget& target,
                                                                const ClusteringRequest& request,
                                                                const OptimizeSpec& spec, int64_t bin_budget,
                                                                int sort_threads = 1);

// Row group size of clustering outputs: a quarter of a bin's share of the memory budget
// (the data writer buffers one row group), at most the writer's 128 MiB default, at
// least 1 MiB.
int64_t ClusteringOutputRowGroupBytes(int64_t bin_budget);

// Marks one liquid bin's outputs as one new ZCube and notes the cube in the decision
// log's entry for plan bin `plan_bin` (when `log` is non-null). Returns the ZCUBE_ID.
std::string TagLiquidOutputs(const exec::RewriteTarget& target, const std::vector<std::string>& columns, int plan_bin,
                             std::vector<table::AddedFile>* adds, planner::DecisionLog* log);

// Delta's zOrderStats for a Z-order run that removed `files` files of `bytes` bytes.
nlohmann::ordered_json ZOrderStatsJson(int64_t files, int64_t bytes, int64_t partitions_optimized);
// Delta's clusteringStats from the plan.
nlohmann::ordered_json ClusteringStatsJson(const planner::Plan& plan);

// operationParameters zOrderBy / clusterBy / isFull for the plan (JSON text values, as
// Delta records them). No-op for other modes.
void AddClusteringParameters(const planner::Plan& plan, nlohmann::json* params);

}  // namespace lithify::commands
