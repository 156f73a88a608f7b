// The lithify command-line front end: flag parsing and rendering only, no logic.
//
// Every command registers a CLI11 subcommand and a runner. main() parses, runs the
// selected runner and maps its Status to the exit code: 0 ok, 1 failure, 2 usage error
// (CLI11 parse errors and InvalidArgument raised while interpreting flags), 3 committed
// but the output failed (AfterCommit: the table changed, so the command must not be
// retried as if nothing had happened).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "lithify/base/status.h"

namespace lithify::cli {

struct Context {
  bool json = false;      // --json: machine-readable output on stdout
  bool progress = false;  // stderr is a terminal: long work may show progress
};

// A selected command: runs with the parsed context. A Status with code
// kInvalidArgument whose message starts with "usage: " exits 2; other errors exit 1.
using Runner = std::function<Status(const Context&)>;

// Each command file provides one Register function; `selected` receives the runner of
// the subcommand the user chose.
void RegisterParquetCommands(CLI::App& app, Runner* selected);
// `scan`, `files`, `describe detail|history` (tools/cli/table_commands.cc).
void RegisterTableCommands(CLI::App& app, Runner* selected);
// Write side, one file each: create_alter.cc, append.cc, checkpoint.cc, delete.cc.
void RegisterCreateAlterCommands(CLI::App& app, Runner* selected);
void RegisterAppendCommand(CLI::App& app, Runner* selected);
void RegisterCheckpointCommand(CLI::App& app, Runner* selected);
void RegisterDeleteCommand(CLI::App& app, Runner* selected);
void RegisterOptimizeCommands(CLI::App&, Runner*);
void RegisterVacuumCommand(CLI::App&, Runner*);
void RegisterSimulateCommand(CLI::App&, Runner*);
void RegisterServeCommand(CLI::App&, Runner*);
void RegisterDiagnoseCommand(CLI::App&, Runner*);
// Hidden: `internal run-bin` (tools/cli/internal.cc), the process runner's child.
void RegisterInternalCommands(CLI::App&, Runner*);

// Marks `opt` (a TABLE, file or directory argument) as a path and returns it. Before the
// selected command runs, CheckPathOptions() refuses an empty or blank value of a marked
// option (a usage error: "" must not silently mean the current folder) and a URI such as
// whose scheme no storage backend serves, such as gs://bucket/t (NotSupported "URIs are
// not supported yet: gs://bucket/t"). Not
// thread-safe: call while registering commands.
CLI::Option* PathOption(CLI::Option* opt);
// Marks `opt` as one whose given value must not be empty or blank (--where ""): a usage
// error from CheckPathOptions(), instead of the flag being taken as absent.
CLI::Option* NonBlankOption(CLI::Option* opt);
Status CheckPathOptions();

// A usage error (exit code 2) raised after parsing, e.g. conflicting flags.
template <typename... Args>
Status UsageError(fmt::format_string<Args...> f, Args&&... a) {
  return Status::InvalidArgument("usage: {}", fmt::format(f, std::forward<Args>(a)...));
}

// Exit code 3: the command committed, then failed to report it.
inline constexpr int kExitCommittedOutputFailed = 3;
inline constexpr std::string_view kCommittedPrefix = "committed: ";

// What a committing command returns once its commit is in the log: OK when `report`
// (rendering and printing the result) is, else an error whose message starts with
// kCommittedPrefix and says what was committed (`committed`, e.g. "version 5 of t"), so
// main() exits 3 and a script does not retry a write that already happened.
Status AfterCommit(std::string_view committed, const Status& report);

}  // namespace lithify::cli
