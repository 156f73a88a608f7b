// lithify: keeps lakehouse tables healthy. See `lithify --help`.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lithify/base/allocator.h"
#include "lithify/base/version.h"
#include "lithify/io/http/http.h"
#include "tools/cli/cli.h"

namespace lithify::cli {
namespace {

bool IsUsageError(const Status& s) {
  return s.IsInvalidArgument() && s.message().rfind("usage: ", 0) == 0;
}

bool IsCommittedError(const Status& s) { return s.message().rfind(kCommittedPrefix, 0) == 0; }

void PrintJsonError(std::string_view code, const std::string& msg, bool committed = false) {
  nlohmann::json j = {{"error", {{"code", std::string(code)}, {"message", msg}}}};
  if (committed) j["error"]["committed"] = true;
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

int ReportError(const Status& s, const Context& ctx) {
  const bool committed = IsCommittedError(s);
  std::string msg = IsUsageError(s) ? s.message().substr(7)
                    : committed     ? s.message().substr(kCommittedPrefix.size())
                                    : s.message();
  if (ctx.json) PrintJsonError(StatusCodeName(s.code()), msg, committed);
  std::cerr << "lithify: error: " << msg << std::endl;
  return IsUsageError(s) ? 2 : committed ? kExitCommittedOutputFailed : 1;
}

// --json anywhere before a "--": known before parsing, so that a parse error can be
// reported as JSON too (CLI11 stops before it sets the flag).
bool JsonRequested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

// The first word that names no command where a command is expected ("lithify bogus",
// "lithify describe bogus"); empty when there is none. Only the top level and the
// command groups are walked: they take flags without values, so every other word there
// is a command name.
std::string UnknownCommand(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "lithify";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") return "";
    if (!a.empty() && a[0] == '-') continue;
    std::vector<CLI::App*> subs = at->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return "";
    CLI::App* next = nullptr;
    for (CLI::App* sub : subs) {
      if (sub->check_name(a)) next = sub;
    }
    if (next == nullptr) return fmt::format("unknown command '{}' for {} (see {} --help)", a, path, path);
    path += " " + a;
    at = next;
  }
  return "";
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
  ctx.json = JsonRequested(argc, argv);
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
  RegisterInternalCommands(app, &selected);

  if (std::string unknown = UnknownCommand(app, argc, argv); !unknown.empty()) {
    return ReportError(UsageError("{}", unknown), ctx);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (ctx.json) PrintJsonError(StatusCodeName(StatusCode::kInvalidArgument), e.what());
    app.exit(e);
    return 2;
  }
  if (!selected) {
    if (ctx.json) PrintJsonError(StatusCodeName(StatusCode::kInvalidArgument), "a command is required");
    std::cerr << app.help();
    return 2;
  }
  Status st = CheckPathOptions();
  if (!st.ok()) return ReportError(st, ctx);
  try {
    st = selected(ctx);
  } catch (const std::bad_alloc&) {
    st = Status::Internal("out of memory");
  } catch (const std::exception& e) {
    st = Status::Internal("unexpected exception: {}", e.what());
  }
  // For benchmarks and tests of what a command costs on an object store: one line on
  // stderr with the HTTP requests sent (io/http/http.h), whatever the outcome.
  if (const char* v = std::getenv("LITHIFY_REQUEST_STATS"); v != nullptr && std::string_view(v) == "1") {
    std::fprintf(stderr, "lithify requests: %s\n", io::http::CountedRequests().Json().c_str());
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
