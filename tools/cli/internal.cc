// Hidden commands the lithify binary runs in itself, not for users:
// `lithify internal run-bin TABLE --plan PLAN.json --bin N --at-version V [--no-columnar]
//  [--copy-row-groups-from BYTES] [--json]`: runs one bin of a serialized plan
// (planner::PlanToJson) on the table at version V, writing its output files into the
// table, and prints the bin's result (exec::BinResultToJson) on stdout. Commits nothing:
// the planning process (exec::ProcessBinRunner) commits the results it collects. Errors
// exit 1 (with --json: a JSON error object on stdout) and leave no output of the bin.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/optimize.h"
#include "lithify/exec/bin_runner.h"
#include "tools/cli/cli.h"
#include "tools/cli/output.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

struct RunBinFlags {
  std::string table;
  std::string plan_file;
  int bin = -1;
  int64_t version = -1;
  bool no_columnar = false;
  int64_t copy_row_group_min_bytes = int64_t{32} << 20;
};

Result<planner::Plan> ReadPlan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("{}: cannot open the plan file", path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument("{}: the plan is not JSON", path);
  Result<planner::Plan> plan = planner::PlanFromJson(j);
  if (!plan.ok()) return plan.status().WithContext(path);
  return plan;
}

Status RunBin(const RunBinFlags& f) {
  if (f.bin < 0) return UsageError("--bin: must be >= 0, got {}", f.bin);
  if (f.version < 0) return UsageError("--at-version: must be >= 0, got {}", f.version);
  if (f.copy_row_group_min_bytes < 0) return UsageError("--copy-row-groups-from: must be >= 0");
  commands::RunBinSpec spec;
  LITHIFY_ASSIGN_OR_RETURN(spec.plan, ReadPlan(f.plan_file));
  spec.bin_id = f.bin;
  spec.version = f.version;
  spec.columnar_rewrite = !f.no_columnar;
  spec.copy_row_group_min_bytes = f.copy_row_group_min_bytes;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(exec::BinResult r, commands::RunPlanBin(loc.fs(), loc.path(), spec));
  Status printed = WriteStdout(exec::BinResultToJson(r).dump() + "\n");
  if (printed.ok()) printed = FlushStdout();
  if (!printed.ok()) {
    // The parent will not learn of these files: remove them (nothing references them).
    for (const exec::OutputFile& o : r.outputs) (void)loc.fs()->Delete(io::JoinPath(loc.path(), o.path));
  }
  return printed;
}

}  // namespace

void RegisterInternalCommands(CLI::App& app, Runner* selected) {
  CLI::App* internal = app.add_subcommand("internal", "");
  internal->group("");  // hidden from --help
  internal->require_subcommand(1);
  auto f = std::make_shared<RunBinFlags>();
  CLI::App* cmd = internal->add_subcommand("run-bin", "Run one bin of a serialized plan and print its result");
  PathOption(cmd->add_option("table", f->table, "Table location")->required());
  PathOption(cmd->add_option("--plan", f->plan_file, "The plan (JSON)")->required());
  cmd->add_option("--bin", f->bin, "The bin id")->required();
  cmd->add_option("--at-version", f->version, "The table version the plan was made at")->required();
  cmd->add_flag("--no-columnar", f->no_columnar, "Stream every bin (no column-at-a-time path)");
  cmd->add_option("--copy-row-groups-from", f->copy_row_group_min_bytes, "As optimize's, in bytes");
  cmd->callback([selected, f] { *selected = [f](const Context&) { return RunBin(*f); }; });
}

}  // namespace lithify::cli
