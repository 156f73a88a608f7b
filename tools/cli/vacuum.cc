// `lithify vacuum TABLE [--retain HOURS] [--dry-run] [--lite] [--disable-retention-check]
//  [--json]`: flags -> commands::Vacuum; renders what is (or would be) deleted and why,
// the horizon, and what was protected, as text or, with --json, as one object.
#include <cmath>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/commands/vacuum.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/decision_log.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

constexpr size_t kPathsShown = 20;

struct VacuumFlags {
  std::string table;
  double retain_hours = 0;
  bool retain_given = false;
  bool dry_run = false;
  bool lite = false;
  bool disable_retention_check = false;
  bool allow_foreign_files = false;
};

std::string Hours(int64_t ms) { return fmt::format("{:g} hours", static_cast<double>(ms) / 3'600'000.0); }

nlohmann::ordered_json ToJson(const commands::VacuumResult& r) {
  using J = nlohmann::ordered_json;
  auto opt = [](const std::optional<int64_t>& v) { return v ? J(*v) : J(nullptr); };
  J j;
  j["table"] = r.table_root;
  j["mode"] = r.lite ? "LITE" : "FULL";
  j["dry_run"] = r.dry_run;
  j["read_version"] = r.read_version;
  j["now_ms"] = r.now_ms;
  j["retention_ms"] = r.retention_ms;
  j["table_retention_ms"] = r.table_retention_ms;
  j["retention_check_enabled"] = r.retention_check_enabled;
  j["delete_before_ms"] = r.delete_before_ms;
  j["delete_before"] = IsoTimestampMicrosText(r.delete_before_ms * 1000, true);
  j["files_considered"] = r.files_considered;
  j["files_to_delete"] = r.files_to_delete;
  j["bytes_to_delete"] = r.bytes_to_delete;
  j["dirs_to_delete"] = r.dirs_to_delete;
  j["files_deleted"] = r.files_deleted;
  j["dirs_deleted"] = r.dirs_deleted;
  j["temporaries_to_delete"] = r.temporaries_to_delete;
  j["temporary_bytes_to_delete"] = r.temporary_bytes_to_delete;
  j["foreign_files"] = {{"files", r.foreign_files},
                        {"bytes", r.foreign_bytes},
                        {"referenced_files", r.referenced_files},
                        {"referenced_bytes", r.referenced_bytes},
                        {"refusal", r.foreign_refusal ? J(*r.foreign_refusal) : J(nullptr)}};
  j["protected"] = {{"live", r.protected_files.live},
                    {"live_deletion_vector", r.protected_files.live_dv},
                    {"young_tombstone", r.protected_files.young_tombstone},
                    {"hidden", r.protected_files.hidden},
                    {"newer_than_horizon", r.protected_files.newer_than_horizon}};
  j["lite_from_version"] = opt(r.lite_from_version);
  j["lite_to_version"] = opt(r.lite_to_version);
  j["vacuum_start_version"] = opt(r.start_version);
  j["vacuum_end_version"] = opt(r.end_version);
  j["last_vacuum_info"] = opt(r.last_vacuum_info);
  J dels = J::array();
  for (const planner::VacuumDeletion& d : r.deletions) {
    dels.push_back({{"path", d.path},
                    {"is_dir", d.is_dir},
                    {"size", d.size},
                    {"reason", planner::VacuumReasonName(d.reason)}});
  }
  j["deletions"] = std::move(dels);
  return j;
}

std::string ToText(const commands::VacuumResult& r) {
  std::string t = fmt::format("vacuum {} of {} at version {}{}\n", r.lite ? "LITE" : "FULL", r.table_root,
                              r.read_version, r.dry_run ? " (dry run: nothing deleted, nothing committed)" : "");
  t += fmt::format("horizon: files removed or written before {} are eligible (retention {}; table's {}{})\n",
                   IsoTimestampMicrosText(r.delete_before_ms * 1000, true), Hours(r.retention_ms), Hours(r.table_retention_ms),
                   r.retention_check_enabled ? "" : "; retention check DISABLED");
  if (r.lite) {
    if (r.lite_from_version) {
      t += fmt::format("log: read commits {}..{}\n", *r.lite_from_version, *r.lite_to_version);
    } else {
      t += "log: no commit outside the retention window since the last vacuum\n";
    }
  }
  t += fmt::format("{} {} file(s), {}{}{}\n", r.dry_run ? "would delete" : "deleting", r.files_to_delete,
                   planner::FormatBytes(r.bytes_to_delete),
                   r.dirs_to_delete > 0 ? fmt::format(" and {} empty director{}", r.dirs_to_delete,
                                                      r.dirs_to_delete == 1 ? "y" : "ies")
                                        : "",
                   r.deletions.empty() ? "" : ":");
  for (size_t i = 0; i < r.deletions.size() && i < kPathsShown; ++i) {
    const planner::VacuumDeletion& d = r.deletions[i];
    if (d.is_dir) {
      t += fmt::format("  {}/  ({})\n", d.path, planner::VacuumReasonName(d.reason));
    } else {
      t += fmt::format("  {}  ({}, {})\n", d.path, planner::VacuumReasonName(d.reason), planner::FormatBytes(d.size));
    }
  }
  if (r.deletions.size() > kPathsShown) {
    t += fmt::format("  ... and {} more (use --json for every path)\n", r.deletions.size() - kPathsShown);
  }
  if (r.temporaries_to_delete > 0) {
    t += fmt::format("of which {} temporary file(s) of killed writers ({})\n", r.temporaries_to_delete,
                     planner::FormatBytes(r.temporary_bytes_to_delete));
  }
  if (r.foreign_refusal) {
    t += fmt::format("{}: {}\n", r.dry_run ? "warning: a real run would be refused" : "warning (--allow-foreign-files)",
                     *r.foreign_refusal);
  }
  const commands::VacuumProtected& p = r.protected_files;
  t += fmt::format(
      "protected: {} live files, {} deletion-vector files of live files, {} files removed within the retention "
      "window, {} newer than the horizon; {} hidden entries skipped (_delta_log, _*, .*)\n",
      p.live, p.live_dv, p.young_tombstone, p.newer_than_horizon, p.hidden);
  if (!r.dry_run) {
    t += fmt::format("deleted {} files and {} empty directories; committed VACUUM START at version {} and VACUUM END at version {}\n",
                     r.files_deleted, r.dirs_deleted, r.start_version.value_or(-1), r.end_version.value_or(-1));
  }
  return t;
}

Status RunVacuum(const VacuumFlags& f, const Context& ctx) {
  commands::VacuumSpec spec;
  if (f.retain_given) {
    if (!std::isfinite(f.retain_hours) || f.retain_hours < 0) {
      return UsageError("--retain: must be a non-negative number of hours, got {}", f.retain_hours);
    }
    spec.retain_hours = f.retain_hours;
  }
  spec.dry_run = f.dry_run;
  spec.lite = f.lite;
  spec.disable_retention_check = f.disable_retention_check;
  spec.allow_foreign_files = f.allow_foreign_files;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(commands::VacuumResult r, commands::Vacuum(loc.fs(), loc.path(), spec));
  Status printed =
      ctx.json ? WriteStdout(ToJson(r).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n")
               : WriteStdout(ToText(r));
  if (printed.ok()) printed = FlushStdout();
  if (r.dry_run) return printed;
  return AfterCommit(fmt::format("VACUUM of {} (VACUUM START at version {}, VACUUM END at version {}, {} files deleted)",
                                 f.table, r.start_version.value_or(-1), r.end_version.value_or(-1), r.files_deleted),
                     printed);
}

}  // namespace

void RegisterVacuumCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<VacuumFlags>();
  CLI::App* cmd = app.add_subcommand(
      "vacuum",
      "Delete files no version within the retention window needs: untracked files and files removed before "
      "the horizon (now - retention); never live files, their deletion vectors, _delta_log or hidden paths");
  PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
  cmd->add_option("--retain", f->retain_hours,
                  "Retention in hours (default: the table's delta.deletedFileRetentionDuration, 7 days); "
                  "shorter than the table's is refused unless --disable-retention-check");
  cmd->add_flag("--dry-run", f->dry_run, "Only list what would be deleted; commit nothing");
  cmd->add_flag("--lite", f->lite,
                "LITE: find candidates in the log since the last vacuum instead of listing the table");
  cmd->add_flag("--disable-retention-check", f->disable_retention_check,
                "Allow a retention shorter than the table's (readers of older versions may fail)");
  cmd->add_flag("--allow-foreign-files", f->allow_foreign_files,
                "Delete untracked files even when they look like a folder's own content rather than a table's "
                "leftovers (see below)");
  cmd->footer(
      "Prints the horizon, the files (first 20) that are or would be deleted with their reason, the bytes, and "
      "what was protected; with --json every path. A real run commits VACUUM START and VACUUM END.\n"
      "Temporaries of killed lithify writers (.<name>.tmp-<16 hex digits>) older than the horizon are deleted "
      "too (reason abandoned_temporary).\n"
      "Foreign files: untracked files whose names do not look like a table writer's (no k=v partition "
      "directory, no UUID in the name, not part-*.parquet). When they outnumber the files the log references "
      "(live files and tombstones) or outweigh their bytes, the table was probably created over a folder that "
      "held other data, and a real run is refused (LITHIFY_VACUUM_FOREIGN_FILES) unless --allow-foreign-files; "
      "--dry-run shows them and the refusal.\n"
      "Exit 1 when the retention is refused (DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT) or foreign files are, "
      "2 for usage errors, 3 when the run committed but its output could not be written.");
  cmd->callback([selected, f, cmd] {
    f->retain_given = cmd->count("--retain") > 0;
    *selected = [f](const Context& ctx) { return RunVacuum(*f, ctx); };
  });
}

}  // namespace lithify::cli
