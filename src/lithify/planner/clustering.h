// Z-order and liquid clustering planning: OPTIMIZE ... ZORDER BY and OPTIMIZE on a
// liquid-clustered table, with Delta's exact file selection (delta-maintenance-facts.md
// §1.4-§1.6, §3, §4.4).
//
//  Z-order (PlanZOrder): every in-scope file is rewritten; one bin per partition with all
//  its files (single files included: Z-order is not idempotent), files in ascending size
//  order, written as max(1, bin bytes / max_file_size) files.
//
//  Liquid (PlanLiquid), over the live files of an unpartitioned table, sorted by cube id
//  (TablePolicy::CubeId; Delta: the ZCUBE_ID tag; files without one first, then ids in
//  byte order):
//   1. provider/columns filter: a file is a candidate iff the policy does not call it
//      clustered by another provider (Delta: clusteringProvider unset or "liquid"), and it
//      is not in a cube (an id and a columns text; Delta: both ZCube tags) built from other
//      clustering columns (the columns text parsed by the policy and compared with the
//      current logical columns);
//   2. sealed cubes: consecutive files with one ZCUBE_ID form a cube; a cube whose
//      estimated logical size (sum of size * live rows / physical rows, or size without
//      row counts) is >= min_cube_size is complete and left alone;
//   3. FULL with files built from other columns: those join the candidates, and step 4 is
//      skipped; otherwise
//   4. lone cube: when the only remaining candidates are the files of exactly one small
//      cube, there is nothing to merge it with, and nothing is planned;
//   5. the survivors are packed in that order (Delta's bin loop, capacity
//      max(target_cube_size, min_cube_size), physical sizes), single-file bins kept; each
//      bin becomes one new ZCube of max(1, bin bytes / max_file_size) files.
//  Plan::clustering carries Delta's clusteringStats inputs. Empty (degenerate) bins,
//  which Delta's bin loop emits when a first file alone exceeds the capacity, write
//  nothing and are not planned.
//
// The DecisionLog records every file's verdict (candidate, sealed_cube,
// other_clustering_keys, other_provider, lone_cube; outside_predicate for Z-order), every
// ZCube seen (DecisionLog::cubes), each bin ("... become one new ZCube ...") and, when
// nothing is planned, the structural cause.
//
// Executor contract (not done here; Delta's in delta/maintenance_policy.h): Z-order outputs
// get dataChange=false and no ZCube tags (OSS Delta); liquid outputs get dataChange=false,
// clusteringProvider "liquid", tags ZCUBE_ID = a fresh UUID per bin and ZCUBE_ZORDER_BY =
// delta::ZCubeZOrderByValue(columns).
// The curve: CurveFor(plan.mode, plan.columns.size()) (curves.h).
//
// Everything here is a pure function of its arguments (no IO, no clock), safe to call
// concurrently. Cost: O(n log n) in the number of files plus the plan's FileRefs and the
// optional log (see ClusteringScaleTest: 1,000,000 files well under a second).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/planner/curves.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/policy.h"
#include "lithify/table/file_entry.h"

namespace lithify::planner {

// Delta's curve choice (MultiDimClustering.cluster): liquid with >= 2 columns -> Hilbert;
// liquid with one column and Z-order -> Z-order.
Curve CurveFor(PlanMode mode, size_t num_columns);

// Delta's estLogicalFileSize: size * (physical - deleted) / physical rows, truncated;
// the physical size when the row count is unknown; 0 for a file of 0 rows.
int64_t EstimatedLogicalSize(const table::FileEntry& file);

struct ZOrderOptions {
  // ZORDER BY columns as the user named them (validated by the command: not partition
  // columns, present with statistics). Must not be empty.
  std::vector<std::string> zorder_by;
  // optimize.maxFileSize: the output file size (a partition of B bytes is written as
  // max(1, B / max_file_size) files). Must be positive.
  int64_t max_file_size = kGiB;
  // Bytes per batch (optimize.batchSize); unset = one batch (one commit).
  std::optional<int64_t> batch_size;
  // The partition predicate; empty = every file. Must not throw.
  std::function<bool(const table::FileEntry&)> in_scope;
  // How the scope reads in the log, e.g. "date >= '2024-01-01'"; "" = whole table.
  std::string scope_description;
  std::string target_size_source;
};

// Plans OPTIMIZE ... ZORDER BY (mode kZOrder) over `files` (the live files of one version,
// any order). Fills `log` when non-null (previous contents replaced). InvalidArgument for
// empty zorder_by, max_file_size <= 0 or batch_size <= 0.
Result<Plan> PlanZOrder(const std::vector<table::FileEntry>& files, const ZOrderOptions& options,
                        DecisionLog* log);

struct LiquidOptions {
  // The table's clustering columns by logical name (as in a cube's columns text). Must not be
  // empty (a table clustered by nothing is compacted instead, as in Delta).
  std::vector<std::string> clustering_columns;
  // clustering.mergeStrategy.minCubeSize.threshold: a cube this large is sealed.
  int64_t min_cube_size = 100 * kGiB;
  // ...minCubeSize.targetCubeSize: bin capacity is max(target_cube_size, min_cube_size).
  int64_t target_cube_size = 150 * kGiB;
  // optimize.maxFileSize: the output file size.
  int64_t max_file_size = kGiB;
  // OPTIMIZE ... FULL: also recluster files built from other clustering columns.
  bool full = false;
  // Bytes per batch (optimize.batchSize); unset = one batch (one commit).
  std::optional<int64_t> batch_size;
  std::string target_size_source;
};

// Plans OPTIMIZE on a liquid table (mode kLiquid) over `files` (all live files of one
// version, any order). Fills `log` when non-null (previous contents replaced).
// InvalidArgument for empty clustering_columns, a non-positive size or batch size, or a
// file with partition values (liquid tables are unpartitioned; the message names the
// file); Corruption naming the file when a cube's columns text does not parse
// (TablePolicy::ParseCubeColumns; Delta fails there too).
Result<Plan> PlanLiquid(const TablePolicy& policy, const std::vector<table::FileEntry>& files,
                        const LiquidOptions& options, DecisionLog* log);

}  // namespace lithify::planner
