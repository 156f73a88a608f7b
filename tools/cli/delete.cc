// `lithify delete TABLE (--where PRED | --all) [--no-auto-compact] [--json]`: flags ->
// commands::DeleteRows; renders the outcome (and the post-commit auto compaction's) as
// text or, with --json, as an object with Delta's metrics.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/delete.h"
#include "lithify/io/filesystem.h"
#include "tools/cli/auto_compact_render.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

struct DeleteFlags {
  std::string table;
  std::string where;
  bool where_given = false;
  bool all = false;
  bool no_auto_compact = false;  // --no-auto-compact
};

// The delete's report: text, or one JSON object with Delta's metrics.
Status Print(const DeleteFlags& f, const commands::DeleteResult& r, const Context& ctx) {
  const auto& m = r.metrics;
  auto metric = [&](const char* k) {
    auto it = m.find(k);
    return it == m.end() ? int64_t{0} : it->second;
  };
  const int64_t touched = metric("numRemovedFiles") + metric("numDeletionVectorsAdded") +
                          metric("numDeletionVectorsUpdated");
  const int64_t dvs = metric("numDeletionVectorsAdded") + metric("numDeletionVectorsUpdated");
  if (ctx.json) {
    nlohmann::ordered_json j;
    j["table"] = f.table;
    j["read_version"] = r.read_version;
    j["version"] = r.commit ? nlohmann::ordered_json(r.commit->version) : nlohmann::ordered_json(nullptr);
    j["deleted_rows"] = metric("numDeletedRows");
    j["files_touched"] = touched;
    j["files_scanned"] = r.files_scanned;
    j["deletion_vectors_written"] = dvs;
    j["deletion_vector_files_written"] = r.dv_files_written;
    j["message"] = r.message;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m) metrics[k] = v;
    j["metrics"] = std::move(metrics);
    j["autoCompaction"] = AutoCompactJson(r.auto_compaction, r.auto_compaction_warning);
    LITHIFY_RETURN_NOT_OK(
        WriteStdout(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"));
    return FlushStdout();
  }
  std::string text;
  if (r.commit) {
    text = fmt::format(
        "version {}: deleted {} rows; files touched {} (removed {}, added {}); deletion vectors written {} in {} "
        "file(s)\n",
        r.commit->version, metric("numDeletedRows"), touched, metric("numRemovedFiles"), metric("numAddedFiles"),
        dvs, r.dv_files_written);
  } else {
    text = r.message + "\n";
  }
  text += AutoCompactText(r.auto_compaction, r.auto_compaction_warning);
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

Status RunDelete(const DeleteFlags& f, const Context& ctx) {
  // Deleting every row must be asked for explicitly.
  if (f.where_given && f.all) return UsageError("--where and --all cannot be used together");
  if (!f.where_given && !f.all) return UsageError("give --where PREDICATE, or --all to delete every row");
  if (f.where_given && f.where.empty()) return UsageError("--where: the predicate is empty");
  commands::DeleteSpec spec;
  spec.predicate = f.where;
  spec.auto_compact.allowed = !f.no_auto_compact;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  Result<commands::DeleteResult> r = commands::DeleteRows(loc.fs(), loc.path(), spec);
  if (!r.ok()) {
    const Status& st = r.status();
    if (st.IsInvalidArgument() && st.message().rfind("predicate: ", 0) == 0) {
      return UsageError("--where: {}", st.message().substr(11));
    }
    return st;
  }
  Status printed = Print(f, *r, ctx);
  if (!r->commit) return printed;
  return AfterCommit(CommittedText(f.table, r->commit->version, r->auto_compaction), printed);
}

}  // namespace

void RegisterDeleteCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<DeleteFlags>();
  CLI::App* cmd = app.add_subcommand(
      "delete",
      "Delete the rows of a Delta table matching --where (deletion vectors when "
      "delta.enableDeletionVectors=true, else a copy-on-write rewrite of the affected files)");
  PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
  NonBlankOption(cmd->add_option("--where", f->where,
                                 "Rows to delete, e.g. \"part = 3 AND x > 10\" (required unless --all; NULL deletes "
                                 "nothing)"));
  cmd->add_flag("--all", f->all, "Delete every row (instead of --where)");
  cmd->add_flag("--no-auto-compact", f->no_auto_compact,
                "Skip the post-commit auto compaction even if delta.autoOptimize.autoCompact enables it");
  cmd->footer("Prints the new version, deleted rows, files touched and deletion vectors written; with --json "
              "an object including Delta's operationMetrics. No matching row: nothing is committed.");
  cmd->callback([selected, f, cmd] {
    f->where_given = cmd->count("--where") > 0;
    *selected = [f](const Context& ctx) { return RunDelete(*f, ctx); };
  });
}

}  // namespace lithify::cli
