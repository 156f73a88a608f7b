// Rendering of simulation results: JSON (the `--json` output and the panel's payload) and
// a concise human summary.
#include <fmt/format.h>

#include "lithify/planner/decision_log.h"
#include "lithify/sim/simulate.h"

namespace lithify::sim {

namespace {

using nlohmann::ordered_json;

ordered_json TotalsToJson(const SimTotals& t) {
  ordered_json j;
  j["batches"] = t.batches;
  j["maintenance_runs"] = t.maintenance_runs;
  j["files_before"] = t.files_before;
  j["files_after"] = t.files_after;
  j["bins_kept"] = t.bins_kept;
  j["bins_dropped"] = t.bins_dropped;
  j["num_files_added"] = t.num_files_added;
  j["num_files_removed"] = t.num_files_removed;
  j["bytes_ingested"] = t.bytes_ingested;
  j["bytes_read"] = t.bytes_read;
  j["bytes_written"] = t.bytes_written;
  j["write_amplification"] = t.write_amplification;
  j["bytes_live"] = t.bytes_live;
  j["rows_ingested"] = t.rows_ingested;
  j["rows_deleted"] = t.rows_deleted;
  j["rows_live"] = t.rows_live;
  j["dv_files"] = t.dv_files;
  j["tombstones"] = t.tombstones;
  j["tombstones_live"] = t.tombstones_live;
  j["scan_tasks_before"] = t.scan_tasks_before;
  j["scan_tasks_after"] = t.scan_tasks_after;
  j["spark_scan_tasks_before"] = t.spark_scan_tasks_before;
  j["spark_scan_tasks_after"] = t.spark_scan_tasks_after;
  j["lookup_files"] = t.lookup_files;
  j["cubes_sealed"] = t.cubes_sealed;
  j["cubes_open"] = t.cubes_open;
  j["partitions"] = t.partitions;
  return j;
}

ordered_json StepToJson(const SimStep& s) {
  ordered_json j;
  j["index"] = s.index;
  j["day"] = s.day;
  j["hour"] = s.hour;
  j["operation"] = s.operation;
  j["files_before"] = s.files_before;
  j["files_after"] = s.files_after;
  j["bins_kept"] = s.bins_kept;
  j["bins_dropped"] = s.bins_dropped;
  j["num_files_added"] = s.num_files_added;
  j["num_files_removed"] = s.num_files_removed;
  j["bytes_read"] = s.bytes_read;
  j["bytes_written"] = s.bytes_written;
  j["bytes_ingested"] = s.bytes_ingested;
  j["write_amplification"] = s.write_amplification;
  j["tombstones"] = s.tombstones;
  j["tombstones_live"] = s.tombstones_live;
  j["scan_tasks_before"] = s.scan_tasks_before;
  j["scan_tasks_after"] = s.scan_tasks_after;
  j["spark_scan_tasks_before"] = s.spark_scan_tasks_before;
  j["spark_scan_tasks_after"] = s.spark_scan_tasks_after;
  j["lookup_files_before"] = s.lookup_files_before;
  j["lookup_files_after"] = s.lookup_files_after;
  j["cubes_sealed"] = s.cubes_sealed;
  j["cubes_open"] = s.cubes_open;
  j["summary"] = s.summary;
  j["kept_reasons"] = s.kept_reasons;
  j["dropped_reasons"] = s.dropped_reasons;
  j["log"] = s.log;
  return j;
}

std::string Ratio(double x) { return fmt::format("{:.2f}x", x); }

}  // namespace

ordered_json SimResultToJson(const SimResult& r) {
  ordered_json j;
  j["scenario"] = ScenarioToJson(r.scenario);
  j["totals"] = TotalsToJson(r.totals);
  ordered_json steps = ordered_json::array();
  for (const SimStep& s : r.steps) steps.push_back(StepToJson(s));
  j["steps"] = std::move(steps);
  j["elapsed_ms"] = r.elapsed_ms;
  j["cpu_ms"] = r.cpu_ms;
  return j;
}

std::vector<std::string> SimResultToText(const SimResult& r) {
  const Scenario& s = r.scenario;
  const SimTotals& t = r.totals;
  using planner::FormatBytes;
  std::vector<std::string> out;
  std::string shape = s.partition_by == "none" ? "unpartitioned" : s.partition_by + " partitions";
  if (!s.cluster_by.empty()) shape = fmt::format("clustered by {}", fmt::join(s.cluster_by, ", "));
  out.push_back(fmt::format(
      "workload: {} h, {}, {} batches of {} file(s) per partition, {} ingested", s.hours, shape,
      t.batches, s.files_per_batch, FormatBytes(t.bytes_ingested)));
  std::string policy = s.maintenance;
  if (s.maintenance != "none" && s.maintenance != "auto_compact") policy += " " + s.schedule;
  out.push_back(fmt::format("maintenance: {} ({} runs)", policy, t.maintenance_runs));
  out.push_back(fmt::format("files: {} written -> {} live; bins {} kept, {} dropped; "
                            "numFilesAdded {}, numFilesRemoved {}",
                            t.files_before, t.files_after, t.bins_kept, t.bins_dropped,
                            t.num_files_added, t.num_files_removed));
  out.push_back(fmt::format("maintenance I/O: read {}, wrote {}; write amplification {}",
                            FormatBytes(t.bytes_read), FormatBytes(t.bytes_written),
                            Ratio(t.write_amplification)));
  out.push_back(fmt::format("full scan tasks: {} -> {} (charged bytes), {} -> {} (Spark packing)",
                            t.scan_tasks_before, t.scan_tasks_after, t.spark_scan_tasks_before,
                            t.spark_scan_tasks_after));
  out.push_back(fmt::format("point lookup opens {} files; tombstones {} ({} within retention)",
                            t.lookup_files, t.tombstones, t.tombstones_live));
  if (t.cubes_sealed + t.cubes_open > 0) {
    out.push_back(fmt::format("ZCubes: {} sealed, {} open", t.cubes_sealed, t.cubes_open));
  }
  // The last run's reasoning, which is what a user tuning a slider looks at.
  if (!r.steps.empty()) {
    const SimStep& last = r.steps.back();
    out.push_back(fmt::format("last run (day {}, hour {}): {}", last.day, last.hour,
                              last.summary.empty() ? std::string("-") : last.summary.front()));
    for (size_t i = 1; i < last.summary.size() && i < 4; ++i) out.push_back("  " + last.summary[i]);
  }
  return out;
}

}  // namespace lithify::sim
