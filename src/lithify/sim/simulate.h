// Maintenance simulator (issue 7): what a table's layout becomes under an ingest workload
// and a maintenance policy, without writing a byte of data.
//
// A Scenario describes a workload (duration, partitioning or clustering, batches per hour,
// files per batch, ingest rate, size jitter, daily deletes, optimized writes) and a
// maintenance policy (none, OPTIMIZE, REORG PURGE, auto compaction, Z-order, liquid
// clustering, with a schedule and Delta's thresholds). Simulate() generates synthetic
// table::FileEntry metadata (sizes, partition values, row counts, deletion-vector
// cardinalities, ZCube tags, clusteringProvider) batch by batch and, at every scheduled
// maintenance run, calls the REAL planner functions (planner/compaction.h, clustering.h)
// on the live file list -- never a second implementation of Delta's rules -- then applies
// the plan: a kept bin's inputs are replaced by Bin::output_files synthetic files whose
// sizes split the bin's live bytes evenly (deleted rows are dropped by a rewrite).
//
// Readouts per maintenance run (SimStep) and in total (SimTotals): files, bins kept and
// dropped with the decision log's reasons, numFilesAdded/Removed, bytes read and written,
// write amplification, tombstones, scan tasks for a full scan (Spark's charged-bytes
// estimate and Spark's FilePartition packing), files opened by a point lookup on the
// clustering / z-order key, sealed and open ZCubes. docs/simulator.md documents every key
// and modelling assumption.
//
// Scenario keys: the single table in simulate.cc (ScenarioKeysHelp() renders it) drives
// parsing, defaults, range checks, `lithify simulate --help` and the docs, so the three
// cannot disagree. Sizes are MiB unless the key says GiB.
//
// Errors: ScenarioFromJson returns InvalidArgument naming the key and its allowed range
// or values (unknown key, wrong type, out of range, conflicting keys); Simulate returns
// InvalidArgument for inconsistent scenarios and the planners' errors as they come.
// Deterministic: the same Scenario gives the same SimResult (seeded jitter, synthetic
// ZCube ids). Pure (no IO, no clock, no globals); thread-safe for distinct arguments.
// Memory: the live file list plus per-step readouts; the full decision log is kept per
// step only when Scenario::log_detail == "full".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/policy.h"
#include "lithify/table/file_entry.h"
#include "lithify/planner/scan_cost.h"

namespace lithify::sim {

inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kGiB = int64_t{1} << 30;

// A validated scenario. Build it with ScenarioFromJson (which applies defaults and range
// checks); fields are in bytes / plain units after parsing.
struct Scenario {
  // ---- workload
  int64_t hours = 24;                  // "days" (x24) or "hours"
  std::string partition_by = "none";   // none | daily | hourly | 15min | 5min
  std::vector<std::string> cluster_by; // liquid clustering columns (logical); {} = none
  double batches_per_hour = 1;         // > 0; fractional = one batch every 1/x hours
  int64_t files_per_batch = 1;         // files written into each partition a batch covers
  double bytes_per_hour = 100.0 * kMiB;  // "mb_per_hour" (MiB) or "gb_per_day" (GiB)
  double size_jitter = 0;              // 0..1: file size x (1 + jitter * U[-1,1)), seeded
  uint64_t seed = 1;
  double delete_fraction_per_day = 0;  // rows deleted at each day's end, by DVs, 0..1
  int64_t row_bytes = 100;             // bytes per row (for row counts and DV ratios)
  bool optimize_write = false;         // Delta optimized writes (binSize below)
  int64_t optimize_write_bin_size = 512 * kMiB;
  std::string start_date = "2026-01-01";  // first day's partition value

  // ---- maintenance
  std::string maintenance = "none";    // none | optimize | reorg | auto_compact | zorder | liquid
  std::string schedule = "nightly";    // every_batch | hourly | nightly
  int64_t target_file_size = kGiB;     // "target_file_size_mb"; OPTIMIZE/REORG bin capacity
  int64_t min_file_size = kGiB;        // "min_file_size_mb"; default = the target (as `optimize`)
  double max_deleted_rows_ratio = 0.05;
  int64_t auto_compact_max_file_size = 128 * kMiB;
  std::optional<int64_t> auto_compact_min_file_size;  // unset = max / 2
  int64_t auto_compact_min_num_files = 50;
  int64_t auto_compact_max_num_partitions = 128;
  std::vector<std::string> zorder_by = {"key"};  // Z-order output files: max(1, B / target)
  int64_t zorder_window_days = 0;      // 0 = whole table; N = partitions of the last N days
  int64_t min_cube_size = 100 * kGiB;     // "min_cube_size_gb"
  int64_t target_cube_size = 150 * kGiB;  // "target_cube_size_gb"
  int64_t output_file_size = kGiB;        // "output_file_size_gb" (liquid max file size)
  int64_t change_keys_on_day = 0;      // 0 = never; day d: clustering keys change before
                                       // that day's ingest, to new_cluster_by
  std::vector<std::string> new_cluster_by;  // {} = each cluster_by column + "_v2"
  int64_t full_on_day = 0;             // 0 = never; the first run at or after that day's
                                       // end is OPTIMIZE FULL
  int64_t retention_hours = 168;       // delta.deletedFileRetentionDuration (tombstones)

  // ---- readouts
  int64_t open_cost = 4 * kMiB;            // spark.sql.files.openCostInBytes
  int64_t max_partition_bytes = 128 * kMiB;  // spark.sql.files.maxPartitionBytes
  int64_t spark_parallelism = 8;           // defaultParallelism (minPartitionNum)
  std::string log_detail = "summary";      // summary | full (whole DecisionLog per step)
};

// Keys, types, defaults, ranges and help text:
// [{"key":"days","type":"integer","default":1,"min":1,"max":3650,"unit":"days",
//   "group":"workload","help":"..."}, ...]. For the CLI (--help, one flag per key), the
// panel and docs/simulator.md.
nlohmann::ordered_json ScenarioKeysHelp();

// Parses a scenario object: unknown keys, wrong types, out-of-range values and
// conflicting keys (days+hours, mb_per_hour+gb_per_day, cluster_by with partition_by,
// a clustering maintenance without its table shape) are InvalidArgument naming the key
// and the allowed range or values. Missing keys take their defaults. Never throws, and
// never recurses into a value (a refused array or object is described, not printed), so
// any parsed document is safe here however deep.
Result<Scenario> ScenarioFromJson(const nlohmann::json& j);

// Scenario file text -> the JSON object for ScenarioFromJson (comments allowed).
// InvalidArgument "scenario JSON nested deeper than 1000 levels" (kMaxJsonNesting,
// base/nesting.h: checked on the text, before a tree is built), "not valid JSON", or
// "a scenario is a JSON object". Callers add the file name.
Result<nlohmann::json> ParseScenarioJson(std::string_view text);

// A key's value from command-line text, typed by the key table: numbers parsed, booleans
// true/false/1/0, lists comma-separated ("none" = empty). InvalidArgument for an unknown
// key or text that is not of the key's type (ranges are checked by ScenarioFromJson).
Result<nlohmann::json> ScenarioValueFromText(std::string_view key, std::string_view text);

// Which maintenance ran at a step.
struct SimStep {
  int index = 0;
  int64_t day = 0;         // 1-based day the run belongs to
  double hour = 0;         // hours since the start when it ran
  std::string operation;   // "optimize", "reorg", "auto_compaction", "zorder", "liquid",
                           // "liquid_full"
  int64_t files_before = 0;  // live files before / after the run
  int64_t files_after = 0;
  int64_t bins_kept = 0;
  int64_t bins_dropped = 0;
  int64_t num_files_added = 0;
  int64_t num_files_removed = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t bytes_ingested = 0;        // cumulative: ingested from the start to this run
  double write_amplification = 0;    // cumulative: maintenance bytes written so far (this
                                     // run included) / bytes_ingested
  int64_t tombstones = 0;       // data files this run removed
  int64_t tombstones_live = 0;  // tombstones younger than the retention after the run
  int64_t scan_tasks_before = 0;  // charged-bytes estimate over the live files
  int64_t scan_tasks_after = 0;
  int64_t spark_scan_tasks_before = 0;  // Spark FilePartition packing
  int64_t spark_scan_tasks_after = 0;
  double lookup_files_before = 0;  // expected files opened by a point lookup
  double lookup_files_after = 0;
  int64_t cubes_sealed = 0;  // after the run (liquid)
  int64_t cubes_open = 0;
  std::vector<std::string> summary;          // DecisionLog::summary
  std::map<std::string, int64_t> kept_reasons;     // bin reason -> bins
  std::map<std::string, int64_t> dropped_reasons;  // bin reason -> bins
  nlohmann::json log;  // whole DecisionLog::ToJson() when log_detail == "full", else null
};

struct SimTotals {
  int64_t batches = 0;
  int64_t maintenance_runs = 0;
  int64_t files_before = 0;  // files the workload wrote
  int64_t files_after = 0;   // live files at the end
  int64_t bins_kept = 0;
  int64_t bins_dropped = 0;
  int64_t num_files_added = 0;
  int64_t num_files_removed = 0;
  int64_t bytes_ingested = 0;
  int64_t bytes_read = 0;     // by maintenance
  int64_t bytes_written = 0;  // by maintenance
  double write_amplification = 0;  // bytes_written / bytes_ingested (0 when nothing ingested)
  int64_t bytes_live = 0;          // live physical bytes at the end
  int64_t rows_ingested = 0;       // size / row_bytes per ingested file (at least 1)
  int64_t rows_deleted = 0;        // by the daily deletes
  int64_t rows_live = 0;           // live rows at the end (physical minus DV-deleted)
  int64_t dv_files = 0;            // live files with a deletion vector at the end
  int64_t tombstones = 0;          // data files removed by maintenance
  int64_t tombstones_live = 0;     // still within the retention at the end
  int64_t scan_tasks_before = 0;   // files the workload wrote (as if never maintained)
  int64_t scan_tasks_after = 0;    // live files at the end
  int64_t spark_scan_tasks_before = 0;
  int64_t spark_scan_tasks_after = 0;
  double lookup_files = 0;         // at the end
  int64_t cubes_sealed = 0;        // ZCubes at/above min_cube_size at the end
  int64_t cubes_open = 0;          // smaller ZCubes at the end
  int64_t partitions = 0;          // distinct partitions at the end
};

struct SimResult {
  Scenario scenario;
  SimTotals totals;
  std::vector<SimStep> steps;
  double elapsed_ms = 0;  // wall time of Simulate (informational; never asserted)
  double cpu_ms = 0;      // process CPU time spent in Simulate (ditto)
};

// Runs the scenario under a table format's maintenance policy (its candidate rules and
// cube marks: formats::MaintenancePolicy gives it; Delta's is the only one until
// Iceberg's maintenance lands). InvalidArgument for an inconsistent scenario;
// NotSupported when a planner the scenario needs is not available; planner errors as
// they come.
Result<SimResult> Simulate(const Scenario& scenario, const planner::TablePolicy& policy);

// {"scenario":{...},"totals":{...},"steps":[{...,"summary":[..],"kept_reasons":{..},
// "dropped_reasons":{..},"log":...}],"elapsed_ms":..}. Keys as the struct fields.
nlohmann::ordered_json SimResultToJson(const SimResult& result);
// The scenario in its JSON key form (sizes back in their MiB/GiB units).
nlohmann::ordered_json ScenarioToJson(const Scenario& scenario);
// A concise human summary (a few lines: workload, policy, totals, last steps).
std::vector<std::string> SimResultToText(const SimResult& result);

// ---- Scan-task arithmetic (Spark), exposed for tests and the diagnose command.

// They live in planner/scan_cost.h, shared with diagnose.
using planner::ChargedScanTasks;
using planner::SparkScanTasks;

// ---- The planning step, exposed so tests can prove it is `optimize`'s planner.

// Where a maintenance run happens.
struct PlanContext {
  int64_t day = 1;         // 1-based current day (Z-order window)
  bool full = false;       // liquid: OPTIMIZE FULL
  std::vector<std::string> clustering_columns;  // current keys (liquid)
  std::vector<std::map<std::string, std::optional<std::string>>> touched;  // auto compaction
};
// The plan the simulator makes for `scenario.maintenance` over `live`: calls
// PlanCompaction / PlanAutoCompaction / PlanZOrder / PlanLiquid with options built from
// the scenario exactly as the commands build them, under `policy` (the commands pass
// their format's). InvalidArgument for maintenance
// "none".
Result<planner::Plan> PlanMaintenance(const Scenario& scenario,
                                      const std::vector<table::FileEntry>& live,
                                      const PlanContext& context, planner::DecisionLog* log,
                                      const planner::TablePolicy& policy);

}  // namespace lithify::sim
