// BinRunner: where the bins of a Plan run.
//
// A bin's result (executor.h: BinResult -- the inputs it consumed, its output files with
// their statistics and metadata, its metrics) is a plain value with a JSON form, so a
// bin can run in this process or in another one and the planning process commits what
// it collects either way. Two runners:
//   * LocalBinRunner: the bounded thread pool of executor.h over a BinIo (the format
//     adapter) -- the in-process behaviour;
//   * ProcessBinRunner: each bin as a child process (a program that runs one bin of a
//     serialized plan and prints its BinResult JSON on stdout, e.g. `lithify internal
//     run-bin`), at most options.threads children at once.
// Both return one BinResult per bin id, in the order given, with failures reported in the
// results (as RunBins). A runner writes output files but never commits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/exec/executor.h"
#include "lithify/planner/plan.h"
#include "lithify/table/commit_intent.h"

namespace lithify::exec {

// JSON form of a successful bin's result:
// {"binId":0,"inputs":[{"path":..,"dvUniqueId":..,"size":..,"numRecords":..|null,
//  "deletedRows":..}],"outputs":[{"path":..,"size":..,"numRecords":..,
//  "partitionValues":{"p":"a","q":null},"modificationTime":..,"stats":"<text>"|null,
//  "tags":{..},"baseRowId":..|null,"defaultRowCommitVersion":..|null,
//  "rowGroupsCopied":..,"pagesCopied":..}],"filesRead":..,"bytesRead":..,"rowsWritten":..,
//  "bytesWritten":..,"rewrittenWhole":false}. Integers are exact (int64); stats stays the
// writer's text byte for byte. The status is not serialized (a failed bin is an error).
nlohmann::json BinResultToJson(const BinResult& r);
// Inverse of BinResultToJson (status OK). InvalidArgument naming the member for a missing
// or mistyped one. Never throws.
Result<BinResult> BinResultFromJson(const nlohmann::json& j);

// A bin's output file as a commit intent adds it (table/commit_intent.h): every field the
// commit records (path, size, records, partition values, modification time, stats text,
// tags, row-tracking fields); the copy counts stay in the result.
table::AddedFile AddedFileOf(const OutputFile& o);

class BinRunner {
 public:
  virtual ~BinRunner() = default;
  // Runs `bin_ids` (indexes into plan.bins). InvalidArgument for an unknown id or
  // threads < 1; bin failures are in the results (Cancelled for bins never started).
  virtual Result<std::vector<BinResult>> Run(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                             const ExecOptions& options) = 0;
};

// The thread pool of executor.h: RunBins over `io` (not owned; outlives the runner).
class LocalBinRunner final : public BinRunner {
 public:
  explicit LocalBinRunner(BinIo* io) : io_(io) {}
  Result<std::vector<BinResult>> Run(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                     const ExecOptions& options) override {
    return RunBins(plan, bin_ids, io_, options);
  }

 private:
  BinIo* io_;
};

// Runs each bin as `program args... --plan PLAN_FILE --bin ID`: the plan is written once
// per Run as PlanToJson to a temporary file (removed afterwards); the child's stdout must
// be one BinResult JSON (exit 0) or a JSON error object {"error":{"message":..}} (non-zero
// exit), which becomes the bin's error, prefixed with the program. The child's stderr is
// inherited. A result whose bin id or inputs differ from the plan's bin is an Internal
// error (the child ran something else). Progress: per finished bin (a child does not
// report per file).
class ProcessBinRunner final : public BinRunner {
 public:
  ProcessBinRunner(std::string program, std::vector<std::string> args)
      : program_(std::move(program)), args_(std::move(args)) {}
  Result<std::vector<BinResult>> Run(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                     const ExecOptions& options) override;

 private:
  std::string program_;
  std::vector<std::string> args_;
};

// Runs `argv` (argv[0] a path, no shell) with stdin from /dev/null and stderr inherited;
// returns (exit status, stdout). A child killed by a signal is an IOError naming it.
struct ChildOutput {
  int exit_code = 0;
  std::string out;
};
Result<ChildOutput> RunChild(const std::vector<std::string>& argv);

}  // namespace lithify::exec
