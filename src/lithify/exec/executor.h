// Executor: runs the bins of a Plan -- read every input file's live rows, write them
// into the bin's output -- at most `threads` at once on the process's IO pool
// (base/thread_pool.h).
//
// The executor is format-neutral: it knows bins (planner/plan.h) and Parquet batches,
// not Delta. The table format plugs in through BinIo:
//   * ReadFile streams one input file's live rows (deletion vectors applied, mapped
//     onto the current schema, conformed to the write schema) one row group at a time;
//   * OpenSink starts the bin's output (one file per bin for compaction: Delta's
//     coalesce(1)) and Finish closes it, returning the files written with everything
//     the commit needs (OutputFile), so that a bin's result is a self-contained value
//     (bin_runner.h) the committer may receive from another process;
//   * optionally, RewriteWhole writes a bin's output in one go where the adapter knows a
//     faster way than rows (e.g. concatenating same-schema files column by column);
//     RewriteBin tries it first and streams through ReadFile/OpenSink when it declines.
// Memory: each running streamed bin holds one input row group plus the output's
// buffered row group, so the whole run holds `threads` of each, never a whole bin (a
// RewriteWhole bin holds what its adapter states).
//
// Scheduling: bins are started in the order given, at most `threads` at once (the
// calling thread runs bins too; a bin may itself use the pools without deadlock). A
// failing bin stops the start of further bins (those report Cancelled); bins already
// running finish. Progress is reported through one callback, called under a lock (never
// concurrently) after every input file and every finished bin.
//
// RunBins is thread-safe as far as the BinIo is: ReadFile and OpenSink are called
// concurrently for distinct bins; one BinSink is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/planner/plan.h"

namespace lithify::exec {

// One output file of a bin: everything the committer needs to write its add action,
// in neutral terms, so that a bin's result can travel between processes
// (bin_runner.h: BinResultToJson). Filled by the format adapter's sink.
struct OutputFile {
  std::string path;  // relative to the table root, decoded (not URI-encoded)
  int64_t size = 0;
  int64_t num_records = 0;
  // The partition's values as the format records them (nullopt = null).
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t modification_time = 0;  // ms since the epoch
  // The file's statistics exactly as computed from the written data (Delta: the stats
  // JSON text); carried as text, never parsed through a double.
  std::optional<std::string> stats;
  std::map<std::string, std::string> tags;  // e.g. ZCube ids (set by the committer side)
  // Row-tracking fields when the writer assigned them (OPTIMIZE leaves them to the commit).
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  // What the column-at-a-time path copied without re-encoding (parquet/rewrite.h).
  int64_t row_groups_copied = 0;
  int64_t pages_copied = 0;

  friend bool operator==(const OutputFile&, const OutputFile&) = default;
};

// The output of one bin. Used by one thread.
class BinSink {
 public:
  virtual ~BinSink() = default;
  // Appends rows (a batch of the write schema).
  virtual Status Write(const parquet::RowBatch& batch) = 0;
  // Appends rows the caller gives up: a sink that keeps rows (clustering's sorter) takes
  // the batch's memory instead of copying it. The default writes it as Write does.
  virtual Status Take(parquet::RowBatch batch) { return Write(batch); }
  // Closes the output; returns the files written (none when no row was written).
  virtual Result<std::vector<OutputFile>> Finish() = 0;
  // Discards the output (files already closed may remain as uncommitted orphans).
  virtual void Abort() = 0;
};

// Format adapter. See the header comment for the threading contract.
class BinIo {
 public:
  virtual ~BinIo() = default;
  using EmitFn = std::function<Status(parquet::RowBatch)>;
  // Streams the live rows of `file` (an input of `bin`) to `emit`, one batch per row
  // group or smaller; stops at the first error (emit's included). Errors name the file.
  virtual Status ReadFile(const planner::Bin& bin, const planner::FileRef& file, const EmitFn& emit) = 0;
  // The live rows of `file` as ReadFile streams them, holding only the write-batch
  // columns `columns` (batch column i is write column columns[i]), for a pass that looks
  // at a few columns' values (clustering's sample) and should not decode the rest. The
  // values are ReadFile's; levels and descriptors may be those of the format's reading
  // schema (the table's NOT NULL is not applied). The default reads every column through
  // ReadFile and keeps those.
  virtual Status ReadColumns(const planner::Bin& bin, const planner::FileRef& file, const std::vector<int>& columns,
                             const EmitFn& emit);
  // Starts the output of `bin`.
  virtual Result<std::unique_ptr<BinSink>> OpenSink(const planner::Bin& bin) = 0;

  // Called with n when the first n inputs of the bin (bin.files order) are fully read;
  // n never decreases between calls.
  using FilesDoneFn = std::function<void(size_t n)>;
  // Optional fast path: writes the whole output of `bin` itself. nullopt = not
  // applicable to this bin, decided before anything is written (RewriteBin then streams
  // the bin); otherwise the files written (none when no row survived), with what the
  // commit needs kept as after BinSink::Finish. On error the output is discarded as by
  // BinSink::Abort. Thread-safety as ReadFile/OpenSink. The default declines.
  virtual Result<std::optional<std::vector<OutputFile>>> RewriteWhole(const planner::Bin& bin,
                                                                      const FilesDoneFn& files_done) {
    (void)bin;
    (void)files_done;
    return std::optional<std::vector<OutputFile>>();
  }
};

// What one bin did.
struct BinResult {
  int bin_id = -1;
  Status status;  // OK, the bin's error, or Cancelled when it never started
  std::vector<planner::FileRef> inputs;  // the inputs consumed (the bin's files, in order)
  std::vector<OutputFile> outputs;
  int64_t files_read = 0;
  int64_t bytes_read = 0;  // input file sizes
  int64_t rows_written = 0;
  int64_t bytes_written = 0;
  bool rewritten_whole = false;  // written by BinIo::RewriteWhole (not streamed)
};

// Running totals for a progress display.
struct Progress {
  int bins_total = 0;
  int bins_done = 0;
  int64_t files_total = 0;
  int64_t files_read = 0;
  int64_t bytes_total = 0;  // input bytes of all bins
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t rows_written = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

struct ExecOptions {
  // Bins at once (>= 1); more than the number of bins is pointless and clamped, and at
  // most kIoPoolThreads + 1 (the IO pool and the calling thread) can run.
  int threads = 1;
  ProgressFn progress;  // may be empty
};

// The default worker count: the hardware concurrency (at least 1), at most Delta's
// optimize.maxThreads (15).
int DefaultThreads();

// Rewrites one bin: BinIo::RewriteWhole when it accepts the bin, else opens the sink,
// streams every input in order into it, finishes. On any error the sink is aborted and
// the error returned (naming the file). `on_file` (may be empty) is called once per
// input file, in order, after it is read, with its size.
Result<BinResult> RewriteBin(const planner::Bin& bin, BinIo* io,
                             const std::function<void(int64_t bytes)>& on_file = {});

// Runs `bin_ids` (indexes into plan.bins) per the options; one BinResult per id, in the
// order given. InvalidArgument for an unknown bin id or threads < 1; bin failures are
// reported in the results, not as the return status.
Result<std::vector<BinResult>> RunBins(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                       BinIo* io, const ExecOptions& options);

// The scheduling of RunBins with any way of running one bin (bin_runner.h: a child
// process per bin): `run_one` is called concurrently for distinct bins on at most
// options.threads workers, with an `on_file` progress hook it may call per input.
using RunOneFn =
    std::function<Result<BinResult>(const planner::Bin& bin, const std::function<void(int64_t bytes)>& on_file)>;
Result<std::vector<BinResult>> ScheduleBins(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                            const ExecOptions& options, const RunOneFn& run_one);

}  // namespace lithify::exec
