// `lithify checkpoint TABLE [--json]`: writes a classic Parquet checkpoint of the latest
// version and prints what was written. Rendering only; the work is
// commands::Checkpoint.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/checkpoint.h"
#include "lithify/io/filesystem.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

struct CheckpointFlags {
  std::string table;
};

Status RunCheckpoint(const CheckpointFlags& f, const Context& ctx) {
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(delta::CheckpointWriteResult r, commands::Checkpoint(loc.fs(), loc.path()));
  Status printed;
  if (ctx.json) {
    nlohmann::ordered_json j;
    j["version"] = r.version;
    j["path"] = r.path;
    j["actions"] = r.num_actions;
    j["addFiles"] = r.num_add_files;
    j["sizeInBytes"] = r.size_bytes;
    printed = WriteStdout(j.dump() + "\n");
  } else {
    printed = WriteStdout(fmt::format(
        "checkpoint written\nversion      {}\npath         {}\nactions      {}\nadd files    {}\nsize         {} "
        "bytes\n",
        r.version, r.path, r.num_actions, r.num_add_files, r.size_bytes));
  }
  if (printed.ok()) printed = FlushStdout();
  return AfterCommit(fmt::format("the checkpoint of version {} of {} ({})", r.version, f.table, r.path), printed);
}

}  // namespace

void RegisterCheckpointCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<CheckpointFlags>();
  CLI::App* cmd = app.add_subcommand(
      "checkpoint", "Write a Parquet checkpoint of a Delta table's latest version (and _last_checkpoint)");
  PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
  cmd->callback([selected, f] { *selected = [f](const Context& ctx) { return RunCheckpoint(*f, ctx); }; });
}

}  // namespace lithify::cli
