// lithify: keeps lakehouse tables healthy. See `lithify --help`.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lithify/base/allocator.h"
#include "lithify/base/version.h"
#include "tools/cli/cli.h"

namespace lithify::cli {
namespace {

bool IsUsageError(const Status& s) {
  return s.IsInvalidArgument() && s.message().rfind("usage: ", 0) == 0;
}

bool IsCommittedError(const Status& s) { return s.message().rfind(kCommittedPrefix, 0) == 0; }

int ReportError(const Status& s, const Context& ctx) {
  const bool committed = IsCommittedError(s);
  std::string msg = IsUsageError(s) ? s.message().substr(7)
                    : committed     ? s.message().substr(kCommittedPrefix.size())
                                    : s.message();
  if (ctx.json) {
    nlohmann::json j = {{"error", {{"code", std::string(StatusCodeName(s.code()))},
                                   {"message", msg}}}};
    if (committed) j["error"]["committed"] = true;
    std::cout << j.dump() << std::endl;
  }
  std::cerr << "lithify: error: " << msg << std::endl;
  return IsUsageError(s) ? 2 : committed ? kExitCommittedOutputFailed : 1;
}

int Main(int argc, char** argv) {
  CLI::App app{"lithify: reads, writes and maintains lakehouse tables (Delta Lake).\n"
               "Exit codes: 0 ok, 1 failure, 2 usage error, 3 committed but the output failed (the write is in "
               "the table: do not retry it).",
               "lithify"};
  app.set_version_flag("--version", std::string("lithify ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough(true);
  Context ctx;
  ctx.progress = isatty(STDERR_FILENO) != 0;
  app.add_flag("--json", ctx.json, "Machine-readable JSON output on stdout");
  Runner selected;
  RegisterParquetCommands(app, &selected);
  RegisterTableCommands(app, &selected);
  RegisterCreateAlterCommands(app, &selected);
  RegisterAppendCommand(app, &selected);
  RegisterDeleteCommand(app, &selected);
  RegisterCheckpointCommand(app, &selected);
  RegisterOptimizeCommands(app, &selected);
  RegisterVacuumCommand(app, &selected);
  RegisterSimulateCommand(app, &selected);
  RegisterServeCommand(app, &selected);
  RegisterDiagnoseCommand(app, &selected);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (!selected) {
    std::cerr << app.help();
    return 2;
  }
  Status st;
  try {
    st = selected(ctx);
  } catch (const std::bad_alloc&) {
    st = Status::Internal("out of memory");
  } catch (const std::exception& e) {
    st = Status::Internal("unexpected exception: {}", e.what());
  }
  if (!st.ok()) return ReportError(st, ctx);
  return 0;
}

}  // namespace
}  // namespace lithify::cli

int main(int argc, char** argv) {
  lithify::TuneAllocatorForStreaming();
  return lithify::cli::Main(argc, argv);
}
