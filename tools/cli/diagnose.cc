// `lithify diagnose TABLE [--target-file-size SIZE] [--autotune] [--min-cube-size SIZE]
//  [--json]`: flags -> commands::DiagnoseTable; renders the format's document: the layout
// facts and the numbered findings (most important first, each with its recommendation and
// effect) as text, or with --json the document itself.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/diagnose.h"
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

std::string Join(const nlohmann::ordered_json& names, const char* sep) {
  std::string s;
  for (const auto& x : names) s += (s.empty() ? "" : sep) + x.get<std::string>();
  return s;
}

std::string Count(int64_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

int64_t Int(const nlohmann::ordered_json& j) { return j.get<int64_t>(); }

// A Delta table's layout facts (delta/diagnose.h's DiagnosisToJson document).
std::string DeltaFacts(const nlohmann::ordered_json& d) {
  std::string t = fmt::format("diagnose {} at version {}\n", d["table"].get<std::string>(), d["version"].dump());
  t += fmt::format("layout: {} files, {}, average {}; scan tasks {}; ", d["num_files"].dump(),
                   FormatBytes(Int(d["total_bytes"])), FormatBytes(Int(d["avg_file_size"])), d["scan_tasks"].dump());
  const bool partitioned = !d["partition_columns"].empty();
  t += !partitioned ? std::string("not partitioned\n")
                    : fmt::format("{} partitions by {}, {} with a single file\n", d["num_partitions"].dump(),
                                  Join(d["partition_columns"], ", "), d["partitions_never_compact"].dump());
  if (partitioned) {
    std::string h;
    for (const auto& b : d["files_per_partition"]) {
      if (Int(b["partitions"]) == 0) continue;
      const std::string label = b["label"].get<std::string>();
      h += fmt::format("{}{} with {} file{} ({})", h.empty() ? "" : "; ", b["partitions"].dump(), label,
                       label == "1" ? "" : "s", FormatBytes(Int(b["bytes"])));
    }
    t += "partitions: " + h + "\n";
  }
  t += fmt::format("target file size: {} (from {})\n", FormatBytes(Int(d["target_file_size"])),
                   d["target_size_source"].get<std::string>());
  const auto& o = d["optimize"];
  const std::string mode = o["mode"].get<std::string>();
  if (Int(o["bins"]) > 0) {
    t += fmt::format("OPTIMIZE now ({}): {} ({}) in {} -> {}\n", mode, Count(Int(o["input_files"]), "file"),
                     FormatBytes(Int(o["input_bytes"])), Count(Int(o["bins"]), "bin"),
                     Count(Int(o["output_files"]), "file"));
  } else {
    std::string cause;
    for (const auto& s : o["summary"]) {
      if (s.get<std::string>().rfind("nothing to", 0) == 0) cause = s.get<std::string>();
    }
    t += fmt::format("OPTIMIZE now ({}): {}\n", mode, cause.empty() ? "nothing to do" : cause);
  }
  const auto& ac = d["auto_compaction"];
  t += fmt::format("auto compaction: {} ({}); {}: {}\n", ac["enabled"].get<bool>() ? "enabled" : "disabled",
                   ac["enabled_source"].get<std::string>(),
                   ac["can_trigger"].get<bool>() ? "can trigger" : "can never trigger", ac["reason"].get<std::string>());
  if (!d["clustering"].is_null()) {
    const auto& c = d["clustering"];
    t += fmt::format("clustering by {}: {} ZCubes ({} sealed, {} open), {} unclustered files, {} files from other keys\n",
                     Join(c["columns"], ", "), c["zcubes"].dump(), c["sealed_zcubes"].dump(), c["open_zcubes"].dump(),
                     c["unclustered_files"].dump(), c["stale_files"].dump());
  }
  if (Int(d["files_with_deletion_vectors"]) > 0) {
    t += fmt::format("deletion vectors: {} files hide {} rows\n", d["files_with_deletion_vectors"].dump(),
                     d["deleted_rows"].dump());
  }
  const auto& v = d["vacuum"];
  t += fmt::format("tombstones: {} ({}), {} past the retention", v["tombstones"].dump(),
                   FormatBytes(Int(v["tombstone_bytes"])), v["expired"].dump());
  if (Int(v["vacuumed"]) > 0) {
    t += fmt::format("; {} more ({}) already deleted by the VACUUM ending at version {}", v["vacuumed"].dump(),
                     FormatBytes(Int(v["vacuumed_bytes"])),
                     v["last_vacuum_version"].is_null() ? int64_t{-1} : Int(v["last_vacuum_version"]));
  }
  t += "\n";
  return t;
}

// A Delta table's diagnosis as text: the facts, then the numbered findings with their
// recommendation and effect.
std::string DeltaText(const nlohmann::ordered_json& d) {
  std::string t = DeltaFacts(d);
  t += "\nfindings:\n";
  int n = 0;
  for (const auto& f : d["findings"]) {
    t += fmt::format("{}. [{}] {} ({})\n", ++n, f["severity"].get<std::string>(), f["title"].get<std::string>(),
                     f["code"].get<std::string>());
    t += fmt::format("   {}\n", f["detail"].get<std::string>());
    t += fmt::format("   recommendation: {}\n", f["recommendation"].get<std::string>());
    if (!f["effect"].is_null()) {
      t += fmt::format("   effect{}: {}\n", f["effect"]["simulated"].get<bool>() ? " (simulated)" : "",
                       f["effect"]["description"].get<std::string>());
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
  }
  o.autotune = f.autotune;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(o.format, DetectFormat(loc, f.ice, false));
  if (o.format == formats::TableFormat::kIceberg && (!f.min_cube_size.empty() || f.autotune)) {
    return UsageError("--min-cube-size and --autotune are for Delta tables; this is an Iceberg table");
  }
  o.location_map = f.ice.location_map;
  // One diagnose for both formats (commands/diagnose.h); each answers in its own document.
  LITHIFY_ASSIGN_OR_RETURN(commands::TableDiagnosis d, commands::DiagnoseTable(loc.fs(), loc.path(), o));
  if (ctx.json) {
    LITHIFY_RETURN_NOT_OK(
        WriteStdout(d.document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"));
  } else {
    LITHIFY_RETURN_NOT_OK(WriteStdout(d.format == formats::TableFormat::kIceberg ? IcebergText(d.document)
                                                                               : DeltaText(d.document)));
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
