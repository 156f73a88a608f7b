// `lithify optimize TABLE [--where PRED] [--target-file-size SIZE] [--min-file-size SIZE]
//  [--max-deleted-rows-ratio R] [--batch-size SIZE] [--copy-row-groups-from SIZE] [--threads N] [--autotune]
//  [--dry-run] [--explain] [--json]
//  [--zorder-by C1,C2] [--full] [--min-cube-size SIZE] [--target-cube-size SIZE] [--memory-budget SIZE]
//  [--spill-dir DIR]`
// and `lithify reorg TABLE --purge [--where PRED] [...]`: flags -> commands::Optimize;
// renders the result (a one-line summary, the decision log with --explain, or JSON).
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/optimize.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/target_size.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

struct OptimizeFlags {
  std::string table;
  std::string where;
  std::string target_file_size;
  std::string min_file_size;
  std::string batch_size;  // --batch-size (Delta optimize.batchSize); "" = one commit
  std::string copy_row_group_min_size;  // --copy-row-groups-from; "" = the default, 0 = never
  double max_deleted_rows_ratio = 0.05;
  bool ratio_given = false;
  int threads = 0;
  bool autotune = false;
  bool dry_run = false;
  bool explain = false;
  bool purge = false;
  bool reorg = false;
  // Clustering (commands/cluster.h).
  std::string zorder_by;  // comma-separated columns
  bool full = false;
  std::string min_cube_size;
  std::string target_cube_size;
  std::string memory_budget;
  std::string spill_dir;
  std::string runner = "local";  // hidden --runner local|process (tests)
};

Result<int64_t> ParseSize(const std::string& flag, const std::string& text) {
  Result<int64_t> v = planner::ParseByteSize(text);
  if (!v.ok()) return UsageError("{}: {}", flag, v.status().message());
  if (*v <= 0 && flag != "--min-file-size" && flag != "--copy-row-groups-from") return UsageError("{}: must be positive, got '{}'", flag, text);
  return *v;
}

Status AddClusteringFlags(const OptimizeFlags& f, commands::OptimizeSpec* spec) {
  size_t p = 0;
  while (!f.zorder_by.empty()) {
    size_t c = f.zorder_by.find(',', p);
    std::string name = f.zorder_by.substr(p, c == std::string::npos ? std::string::npos : c - p);
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name.empty()) return UsageError("--zorder-by: an empty column name in '{}'", f.zorder_by);
    spec->zorder_by.push_back(name);
    if (c == std::string::npos) break;
    p = c + 1;
  }
  spec->full = f.full;
  if (!f.min_cube_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec->min_cube_size, ParseSize("--min-cube-size", f.min_cube_size));
  }
  if (!f.target_cube_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec->target_cube_size, ParseSize("--target-cube-size", f.target_cube_size));
  }
  if (!f.memory_budget.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec->clustering_memory_budget, ParseSize("--memory-budget", f.memory_budget));
  }
  spec->spill_dir = f.spill_dir;
  return Status::OK();
}

Result<commands::OptimizeSpec> ToSpec(const OptimizeFlags& f) {
  commands::OptimizeSpec spec;
  spec.where = f.where;
  spec.reorg_purge = f.reorg;
  // EXPLAIN reads as "plan only": the decision log is shown and nothing is written.
  spec.dry_run = f.dry_run || f.explain;
  spec.autotune = f.autotune;
  if (f.threads < 0) return UsageError("--threads: must be >= 1 (0 = automatic), got {}", f.threads);
  spec.threads = f.threads;
  if (!f.target_file_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec.target_file_size, ParseSize("--target-file-size", f.target_file_size));
  }
  if (!f.min_file_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec.min_file_size, ParseSize("--min-file-size", f.min_file_size));
  }
  if (!f.batch_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec.batch_size, ParseSize("--batch-size", f.batch_size));
  }
  if (!f.copy_row_group_min_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec.copy_row_group_min_bytes,
                             ParseSize("--copy-row-groups-from", f.copy_row_group_min_size));
  }
  LITHIFY_RETURN_NOT_OK(AddClusteringFlags(f, &spec));
  if (f.runner == "process") {
    // Each bin as a child of this very binary (`lithify internal run-bin`).
    spec.runner = commands::BinRunnerKind::kProcess;
    spec.runner_program = "/proc/self/exe";
  } else if (f.runner != "local") {
    return UsageError("--runner: 'local' or 'process', got '{}'", f.runner);
  }
  if (f.ratio_given) {
    if (!(f.max_deleted_rows_ratio >= 0 && f.max_deleted_rows_ratio <= 1)) {
      return UsageError("--max-deleted-rows-ratio: must be within [0, 1], got {}", f.max_deleted_rows_ratio);
    }
    spec.max_deleted_rows_ratio = f.max_deleted_rows_ratio;
  }
  return spec;
}

// Draws "optimize: 3/12 bins, 140.0 MiB / 1.2 GiB read" on stderr, at most 10 times a second.
struct ProgressLine {
  std::string op;
  bool shown = false;
  std::chrono::steady_clock::time_point last{};
  void operator()(const exec::Progress& p) {
    auto now = std::chrono::steady_clock::now();
    if (p.bins_done != p.bins_total && now - last < std::chrono::milliseconds(100)) return;
    last = now;
    std::fprintf(stderr, "\r%s: %d/%d bins, %s / %s read, %s written   ", op.c_str(), p.bins_done, p.bins_total,
                 planner::FormatBytes(p.bytes_read).c_str(), planner::FormatBytes(p.bytes_total).c_str(),
                 planner::FormatBytes(p.bytes_written).c_str());
    std::fflush(stderr);
    shown = true;
  }
};

std::string VersionsText(const std::vector<int64_t>& v) {
  if (v.empty()) return "no commit";
  std::string s = v.size() == 1 ? "version " : "versions ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string HumanText(const commands::OptimizeResult& r, const OptimizeFlags& f) {
  const commands::OptimizeMetrics& m = r.metrics;
  const std::string verb = f.reorg ? "purged" : "optimized";
  std::string text;
  if (f.explain) {
    for (const std::string& line : r.log.ToText(20)) text += line + "\n";
  }
  if (r.dry_run) {
    text += fmt::format("dry run: would rewrite {} bins: {} files ({}) in {} partition(s); nothing was written\n",
                        r.plan.bins.size(), r.plan.total_input_files(),
                        planner::FormatBytes(r.plan.total_input_bytes()), r.plan.partitions_optimized);
  } else if (m.num_files_added > 0 || !r.versions.empty()) {
    text += fmt::format("{} {} bins: {} files -> {} files ({} -> {}), {}\n", verb,
                        r.plan.bins.size() - r.abandoned.size(), m.num_files_removed, m.num_files_added,
                        planner::FormatBytes(m.files_removed.total_size),
                        planner::FormatBytes(m.files_added.total_size), VersionsText(r.versions));
  } else {
    text += "nothing to do; no commit was written\n";
  }
  if (r.plan.mode == planner::PlanMode::kZOrder || r.plan.mode == planner::PlanMode::kLiquid) {
    std::string cols;
    for (const std::string& c : r.plan.columns) cols += (cols.empty() ? "" : ", ") + c;
    text += fmt::format("{} on {}", r.plan.mode == planner::PlanMode::kZOrder ? "Z-order" : "liquid clustering", cols);
    if (r.plan.mode == planner::PlanMode::kLiquid) {
      const planner::ClusteringInputStats& c = r.plan.clustering;
      text += fmt::format(": {} input ZCube(s), {} file(s) in matching cubes, {} other file(s), {} merged into {} "
                          "new ZCube(s)",
                          c.input_num_zcubes, c.input_zcube_files, c.input_other_files, c.merged_files,
                          c.num_output_zcubes);
    }
    if (r.clustering_sort.runs_spilled > 0) {
      text += fmt::format("; sort spilled {} run(s), {}", r.clustering_sort.runs_spilled,
                          planner::FormatBytes(r.clustering_sort.bytes_spilled));
    }
    text += "\n";
  }
  // When nothing was (or would be) done, say why instead of staying silent.
  if (r.plan.bins.empty() && !f.explain) {
    for (const std::string& line : r.log.summary) text += "  " + line + "\n";
  }
  for (const commands::AbandonedBin& a : r.abandoned) {
    text += fmt::format("abandoned bin {}: {}\n", a.bin_id, a.reason);
  }
  return text;
}

// The JSON document, the plan's and the decision log's file lists as placeholders
// ("plan-files:<bin index>", "log-files") that WriteJson streams.
nlohmann::ordered_json JsonOutput(const commands::OptimizeResult& r, const OptimizeFlags& f,
                                  const JsonStreamer& streamer) {
  nlohmann::ordered_json j;
  j["table"] = f.table;
  j["operation"] = f.reorg ? "REORG" : "OPTIMIZE";
  j["dryRun"] = r.dry_run;
  j["readVersion"] = r.read_version;
  j["version"] = r.versions.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.versions.back());
  j["versions"] = r.versions;
  j["metrics"] = commands::OptimizeMetricsToJson(r.metrics);
  j["plan"] = planner::PlanToJson(r.plan, streamer.Placeholder("plan-files:"));
  // The full log lists every file: only when asked for (--explain, --dry-run).
  if (f.explain || f.dry_run) {
    j["decisionLog"] = r.log.ToJson(streamer.Placeholder("log-files"));
  } else {
    j["decisionLog"] = nlohmann::ordered_json{{"summary", r.log.summary}};
  }
  nlohmann::ordered_json ab = nlohmann::ordered_json::array();
  for (const commands::AbandonedBin& a : r.abandoned) ab.push_back({{"bin", a.bin_id}, {"reason", a.reason}});
  j["abandonedBins"] = std::move(ab);
  if (r.plan.mode == planner::PlanMode::kZOrder || r.plan.mode == planner::PlanMode::kLiquid) {
    j["clusteringSort"] = {{"rows", r.clustering_sort.rows},
                           {"runsSpilled", r.clustering_sort.runs_spilled},
                           {"bytesSpilled", r.clustering_sort.bytes_spilled},
                           {"peakBufferedBytes", r.clustering_sort.peak_buffered_bytes}};
  }
  return j;
}

// The --json document, streamed: a plan or log of a million files is written file by file.
Status WriteJson(const commands::OptimizeResult& r, const OptimizeFlags& f) {
  JsonStreamer out;
  const nlohmann::ordered_json doc = JsonOutput(r, f, out);
  return out.Write(doc, [&](std::string_view name) -> Status {
    if (name == "log-files") {
      for (size_t i = 0; i < r.log.files.size(); ++i) LITHIFY_RETURN_NOT_OK(out.Item(r.log.FileToJson(i)));
      return Status::OK();
    }
    constexpr std::string_view kPlanFiles = "plan-files:";
    if (name.substr(0, kPlanFiles.size()) != kPlanFiles) return Status::Internal("unknown JSON placeholder");
    const std::string_view index = name.substr(kPlanFiles.size());
    size_t bin = 0;
    const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), bin);
    if (ec != std::errc() || end != index.data() + index.size() || bin >= r.plan.bins.size()) {
      return Status::Internal("JSON placeholder of no bin");
    }
    for (const planner::FileRef& file : r.plan.bins[bin].files) LITHIFY_RETURN_NOT_OK(out.Item(planner::FileRefToJson(file)));
    return Status::OK();
  });
}

Status RunOptimize(const OptimizeFlags& f, const Context& ctx) {
  if (f.reorg && !f.purge) return UsageError("reorg: give --purge (the only REORG operation lithify implements)");
  LITHIFY_ASSIGN_OR_RETURN(commands::OptimizeSpec spec, ToSpec(f));
  auto line = std::make_shared<ProgressLine>();
  line->op = f.reorg ? "reorg" : "optimize";
  commands::ProgressFn progress;
  if (ctx.progress && !ctx.json) progress = [line](const exec::Progress& p) { (*line)(p); };
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  Result<commands::OptimizeResult> r = commands::Optimize(loc.fs(), loc.path(), spec, progress);
  if (line->shown) std::fprintf(stderr, "\n");
  if (!r.ok()) {
    const Status& st = r.status();
    if (st.IsInvalidArgument() && st.message().rfind("predicate: ", 0) == 0) {
      return UsageError("--where: {}", st.message().substr(11));
    }
    if (st.IsInvalidArgument() && st.message().find("--where may only reference") != std::string::npos) {
      return UsageError("{}", st.message());
    }
    return st;
  }
  Status printed = ctx.json ? WriteJson(*r, f) : WriteStdout(HumanText(*r, f));
  if (printed.ok() && ctx.json) printed = WriteStdout("\n");
  if (printed.ok()) printed = FlushStdout();
  if (r->versions.empty()) return printed;
  return AfterCommit(fmt::format("{} of {}", VersionsText(r->versions), f.table), printed);
}

void AddCommonFlags(CLI::App* cmd, OptimizeFlags* f) {
  PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
  NonBlankOption(
      cmd->add_option("--where", f->where, "Partition predicate, e.g. \"date >= '2024-01-01'\" (partition columns only)"));
  cmd->add_option("--target-file-size", f->target_file_size,
                  "Bin capacity, e.g. 256mb (default: delta.targetFileSize, else 1g as Delta OSS)");
  cmd->add_option("--threads", f->threads, "Bins rewritten at once (default: the number of cores, at most 15)");
  cmd->add_flag("--dry-run", f->dry_run, "Plan only; write nothing");
  cmd->add_flag("--explain", f->explain,
                "Print the decision log (every file and bin, and why) and write nothing: implies --dry-run");
  // Hidden (tests): run each bin as a child process of this binary.
  cmd->add_option("--runner", f->runner, "local (threads) or process (a child per bin)")->group("");
}

}  // namespace

void RegisterOptimizeCommands(CLI::App& app, Runner* selected) {
  auto opt = std::make_shared<OptimizeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "optimize", "Compact small files (and files with many deleted rows) with Delta's bin-packing rules");
  AddCommonFlags(cmd, opt.get());
  cmd->add_option("--min-file-size", opt->min_file_size,
                  "Files smaller than this are candidates (default: the target file size)");
  cmd->add_option("--max-deleted-rows-ratio", opt->max_deleted_rows_ratio,
                  "Files with a larger share of deleted rows are candidates (default 0.05)");
  cmd->add_flag("--autotune", opt->autotune, "Size the target by table size (Databricks' autotune rule)");
  cmd->add_option("--zorder-by", opt->zorder_by,
                  "OPTIMIZE ... ZORDER BY these columns (comma-separated); refused on clustered tables");
  cmd->add_flag("--full", opt->full,
                "Liquid tables: also recluster files built from other clustering columns (OPTIMIZE FULL)");
  cmd->add_option("--min-cube-size", opt->min_cube_size, "Liquid: a ZCube this large is sealed (default 100g)");
  cmd->add_option("--target-cube-size", opt->target_cube_size, "Liquid: target size of a new ZCube (default 150g)");
  cmd->add_option("--memory-budget", opt->memory_budget,
                  "Clustering: memory for sorting bins (default 256mb); larger bins spill sorted runs to disk");
  PathOption(cmd->add_option("--spill-dir", opt->spill_dir,
                             "Clustering: an existing directory for temporary sort runs (default $TMPDIR)"));
  cmd->add_option("--batch-size", opt->batch_size,
                  "Commit bins in batches of about this many input bytes, e.g. 10g (Delta optimize.batchSize; "
                  "default: one commit)");
  cmd->add_option("--copy-row-groups-from", opt->copy_row_group_min_size,
                  "Input row groups at least this large (compressed, in the output codec, no deleted rows) are "
                  "copied without re-encoding (default 32mb; 0 = never)");
  cmd->footer("Prints 'optimized N bins: M files -> K files (X -> Y), version V', or why nothing was done. "
              "A second run on a compacted table writes no commit.");
  cmd->callback([selected, opt, cmd] {
    opt->ratio_given = cmd->count("--max-deleted-rows-ratio") > 0;
    *selected = [opt](const Context& ctx) { return RunOptimize(*opt, ctx); };
  });

  auto reorg = std::make_shared<OptimizeFlags>();
  reorg->reorg = true;
  CLI::App* rcmd = app.add_subcommand(
      "reorg", "REORG ... APPLY (PURGE): rewrite every file with deleted rows so no deletion vector remains");
  AddCommonFlags(rcmd, reorg.get());
  rcmd->add_flag("--purge", reorg->purge, "Rewrite files with deleted rows (required)");
  rcmd->callback([selected, reorg] {
    *selected = [reorg](const Context& ctx) { return RunOptimize(*reorg, ctx); };
  });
}

}  // namespace lithify::cli
