// `lithify diagnose TABLE [--target-file-size SIZE] [--autotune] [--min-cube-size SIZE]
//  [--json]`: flags -> commands::Diagnose; renders the layout facts and the numbered
// findings (most important first, each with its recommendation and effect) as text or,
// with --json, as DiagnosisToJson.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/diagnose.h"
#include "lithify/commands/iceberg_read.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/target_size.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"
#include "tools/cli/table_format_flags.h"

namespace lithify::cli {
namespace {

using planner::FormatBytes;

struct DiagnoseFlags {
  std::string table;
  std::string target_file_size;
  std::string min_cube_size;
  bool autotune = false;
  IcebergFlags ice;
};

// An Iceberg table's diagnosis as text: the summary facts, then the numbered findings.
std::string IcebergText(const nlohmann::ordered_json& d) {
  const auto& s = d["summary"];
  std::string t = fmt::format("diagnose {} (Iceberg v{}) at snapshot {}\n", d["table"].get<std::string>(),
                              d["format-version"].dump(), d["current-snapshot-id"].dump());
  t += fmt::format("layout: {} data files, {}, average {}; {} partitions, at most {} files in one\n",
                   s["files"].dump(), FormatBytes(s["bytes"].get<int64_t>()),
                   FormatBytes(s["averageFileSize"].get<int64_t>()), s["partitions"].dump(),
                   s["maxFilesPerPartition"].dump());
  t += fmt::format("target file size: {}; small files: {}\n", FormatBytes(s["targetFileSizeBytes"].get<int64_t>()),
                   s["smallFiles"].dump());
  t += fmt::format("delete files: {} {} on {} data files; deleted-row ratio {:.4f}\n", s["deleteFiles"].dump(),
                   s["deleteFilesByContent"].dump(), s["dataFilesWithDeletes"].dump(),
                   s["deletedRowRatio"].get<double>());
  t += fmt::format("snapshots: {}, {} awaiting expiry\n", s["snapshots"].dump(), s["snapshotsAwaitingExpiry"].dump());
  int n = 0;
  for (const auto& f : d["findings"]) {
    t += fmt::format("{}. [{}] {} ({})\n   {}\n   -> {}\n", ++n, f["severity"].get<std::string>(),
                     f["title"].get<std::string>(), f["code"].get<std::string>(), f["detail"].get<std::string>(),
                     f["recommendation"].get<std::string>());
  }
  if (n == 0) t += "no findings\n";
  return t;
}

Status RunIcebergDiagnose(const DiagnoseFlags& f, const commands::DiagnoseOptions& o, const Context& ctx,
                          const OpenedLocation& loc) {
  if (!f.min_cube_size.empty() || f.autotune) {
    return UsageError("--min-cube-size and --autotune are for Delta tables; this is an Iceberg table");
  }
  commands::IcebergDiagnoseOptions io;
  io.location_map = f.ice.location_map;
  io.target_file_size = o.target_file_size;
  LITHIFY_ASSIGN_OR_RETURN(nlohmann::ordered_json d, commands::DiagnoseIceberg(loc.fs(), loc.path(), io));
  if (ctx.json) {
    LITHIFY_RETURN_NOT_OK(
        WriteStdout(d.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"));
  } else {
    LITHIFY_RETURN_NOT_OK(WriteStdout(IcebergText(d)));
  }
  return FlushStdout();
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string Count(int64_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

std::string Facts(const commands::Diagnosis& d) {
  std::string t = fmt::format("diagnose {} at version {}\n", d.table_root, d.version);
  t += fmt::format("layout: {} files, {}, average {}; scan tasks {}; ", d.num_files, FormatBytes(d.total_bytes),
                   FormatBytes(d.avg_file_size), d.scan_tasks);
  t += d.partition_columns.empty()
           ? std::string("not partitioned\n")
           : fmt::format("{} partitions by {}, {} with a single file\n", d.num_partitions, Join(d.partition_columns, ", "),
                         d.partitions_never_compact);
  if (!d.partition_columns.empty()) {
    std::string h;
    for (const commands::PartitionHistogramBucket& b : d.files_per_partition) {
      if (b.partitions == 0) continue;
      h += fmt::format("{}{} with {} file{} ({})", h.empty() ? "" : "; ", b.partitions, b.label, b.label == "1" ? "" : "s",
                       FormatBytes(b.bytes));
    }
    t += "partitions: " + h + "\n";
  }
  t += fmt::format("target file size: {} (from {})\n", FormatBytes(d.target_file_size), d.target_size_source);
  const commands::OptimizeSummary& o = d.optimize;
  if (o.bins > 0) {
    t += fmt::format("OPTIMIZE now ({}): {} ({}) in {} -> {}\n", o.mode, Count(o.input_files, "file"),
                     FormatBytes(o.input_bytes), Count(o.bins, "bin"), Count(o.output_files, "file"));
  } else {
    std::string cause;
    for (const std::string& s : o.summary) {
      if (s.rfind("nothing to", 0) == 0) cause = s;
    }
    t += fmt::format("OPTIMIZE now ({}): {}\n", o.mode, cause.empty() ? "nothing to do" : cause);
  }
  const commands::AutoCompactionStatus& ac = d.auto_compaction;
  t += fmt::format("auto compaction: {} ({}); {}: {}\n", ac.enabled ? "enabled" : "disabled", ac.enabled_source,
                   ac.can_trigger ? "can trigger" : "can never trigger", ac.reason);
  if (d.clustering) {
    const commands::ClusteringStatus& c = *d.clustering;
    t += fmt::format("clustering by {}: {} ZCubes ({} sealed, {} open), {} unclustered files, {} files from other keys\n",
                     Join(c.columns, ", "), c.zcubes, c.sealed_zcubes, c.open_zcubes, c.unclustered_files,
                     c.stale_files);
  }
  if (d.files_with_deletion_vectors > 0) {
    t += fmt::format("deletion vectors: {} files hide {} rows\n", d.files_with_deletion_vectors, d.deleted_rows);
  }
  t += fmt::format("tombstones: {} ({}), {} past the retention", d.vacuum.tombstones, FormatBytes(d.vacuum.tombstone_bytes),
                   d.vacuum.expired);
  if (d.vacuum.vacuumed > 0) {
    t += fmt::format("; {} more ({}) already deleted by the VACUUM ending at version {}", d.vacuum.vacuumed,
                     FormatBytes(d.vacuum.vacuumed_bytes), d.vacuum.last_vacuum_version.value_or(-1));
  }
  t += "\n";
  return t;
}

std::string ToText(const commands::Diagnosis& d) {
  std::string t = Facts(d);
  t += "\nfindings:\n";
  int n = 0;
  for (const commands::Finding& f : d.findings) {
    t += fmt::format("{}. [{}] {} ({})\n", ++n, commands::SeverityName(f.severity), f.title, f.code);
    t += fmt::format("   {}\n", f.detail);
    t += fmt::format("   recommendation: {}\n", f.recommendation);
    if (f.effect) {
      t += fmt::format("   effect{}: {}\n", f.effect->simulated ? " (simulated)" : "", f.effect->description);
    }
  }
  return t;
}

Status RunDiagnose(const DiagnoseFlags& f, const Context& ctx) {
  commands::DiagnoseOptions o;
  if (!f.target_file_size.empty()) {
    Result<int64_t> v = planner::ParseByteSize(f.target_file_size);
    if (!v.ok() || *v <= 0) return UsageError("--target-file-size: expected a positive size such as 128mb, got '{}'", f.target_file_size);
    o.target_file_size = *v;
  }
  if (!f.min_cube_size.empty()) {
    Result<int64_t> v = planner::ParseByteSize(f.min_cube_size);
    if (!v.ok() || *v <= 0) return UsageError("--min-cube-size: expected a positive size such as 100gb, got '{}'", f.min_cube_size);
    o.min_cube_size = *v;
    o.target_cube_size = std::max(o.target_cube_size, *v);
  }
  o.autotune = f.autotune;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat format, DetectFormat(loc, f.ice, false));
  if (format == formats::TableFormat::kIceberg) return RunIcebergDiagnose(f, o, ctx, loc);
  LITHIFY_ASSIGN_OR_RETURN(commands::Diagnosis d, commands::Diagnose(loc.fs(), loc.path(), o));
  if (ctx.json) {
    LITHIFY_RETURN_NOT_OK(WriteStdout(
        commands::DiagnosisToJson(d).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"));
  } else {
    LITHIFY_RETURN_NOT_OK(WriteStdout(ToText(d)));
  }
  return FlushStdout();
}

}  // namespace

void RegisterDiagnoseCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<DiagnoseFlags>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose",
      "Explain a table's layout from its metadata: file sizes, files per partition, what OPTIMIZE would do, "
      "whether auto compaction can trigger, clustering, deleted rows, tombstones; findings with recommendations");
  PathOption(cmd->add_option("table", f->table, "Table: a Delta or Iceberg table folder, a path or a URI")->required());
  AddIcebergFlags(cmd, &f->ice, false);
  cmd->add_option("--target-file-size", f->target_file_size,
                  "Target size as for optimize (default: delta.targetFileSize, else 1 GiB), e.g. 256mb");
  cmd->add_flag("--autotune", f->autotune, "Size the target by table size, as optimize --autotune");
  cmd->add_option("--min-cube-size", f->min_cube_size,
                  "Liquid clustering: a ZCube at or above this size is sealed (default 100gb)");
  cmd->footer(
      "Reads only the Delta log or the Iceberg metadata and manifests (no data file). Findings are numbered, most important first; each names a "
      "stable code (docs/diagnose.md), a recommendation and, where the planners can compute it, the effect. "
      "Exit 1 when the path is not a Delta or Iceberg table, 2 for usage errors.");
  cmd->callback([selected, f] { *selected = [f](const Context& ctx) { return RunDiagnose(*f, ctx); }; });
}

}  // namespace lithify::cli
