// Append: adds rows to a Delta table as one blind-append commit ("WRITE", mode Append).
//
//   load the snapshot -> check lithify may write it (the protocol, then the table
//   features per operation: delta/write_gate.h) -> stream rows (input files via
//   ingest.h, or the synthetic generator) into a delta::DataFileWriter -> Finish ->
//   one Transaction with the AddFiles.
// The commit reads nothing (isBlindAppend), so it never conflicts with concurrent
// appends and only conflicts with metadata/protocol changes.
//
// Table features: CHECK constraints and column invariants are evaluated on every row
// before it is written (delta/row_constraints.h); a violation is InvalidArgument
// "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: ..." naming the input, row, constraint and
// values, and commits nothing (the files already written are deleted, as below). A
// constraint lithify cannot evaluate, a generated, identity or default-valued column is
// NotSupported "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: ..." naming it, before anything is
// written. NOT NULL columns are enforced by ingest.
//
// Inputs are checked first: every input is opened and validated (exists, readable, of
// its format, header / schema matching the table, first row converting;
// commands::CheckInput) before the first data file is written, so such a failure leaves
// nothing behind. Anything later before the commit (a bad row further on, an IO failure
// while writing) aborts the writer, commits nothing and deletes the data files already
// closed (no version references them); the message says how many, and names any that
// could not be deleted (VACUUM removes those). Directories they leave empty stay for
// VACUUM: removing one could pull it from under a concurrent writer about to use it. A
// commit that failed with a storage error whose outcome may be unknown keeps its files
// (they may be committed). Input that does not match the table schema is InvalidArgument naming the
// file, line/row, column and value. NotSupported when the table's protocol blocks
// writes. Memory is bounded: rows flow in batches, at most max_open_files files open.
//
// Files: without optimized writes every input file is written to its own files (one
// per partition it holds rows for, rolled at the target size), as Spark writes one file
// per task and partition. Optimized writes (`optimize_write`, or table property
// delta.autoOptimize.optimizeWrite=true) bin all rows of the append per partition into
// files of the target size (writer.target_file_size_bytes, 128 MiB by default) instead.
// --files N for generated rows always splits as asked: the rows are cut into N
// consecutive chunks of nearly equal size (one per row when there are fewer rows), and
// each chunk is written to its own files, one per partition it holds rows for.
//
// After the commit, auto compaction (auto_compact.h) runs when the table enables it, on
// the partitions the append added files to; its outcome is in the result and its
// failure is only a warning there (the append stays committed).
//
// Stateless; concurrent appends to one table are safe (optimistic concurrency).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/commands/auto_compact.h"
#include "lithify/commands/generator.h"
#include "lithify/commands/ingest.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

struct AppendSpec {
  // Input files (--from); read in order. Exactly one of inputs / generate is used.
  std::vector<std::string> inputs;
  // Format of every input; empty = from each file's extension.
  std::optional<InputFormat> format;
  // --generate: synthetic rows.
  std::optional<GeneratorOptions> generate;
  // --files: cut generated rows into N chunks, each its own files (see above); >= 1.
  int num_files = 1;
  delta::DataWriterOptions writer;
  // Transaction options (tests inject a clock).
  delta::TransactionOptions transaction;
  // Called after every batch written with the rows written so far (progress display).
  std::function<void(int64_t rows)> progress;
  // Optimized writes: nullopt = the table's delta.autoOptimize.optimizeWrite (a value
  // other than true/false is InvalidArgument); true/false = --optimize-write.
  std::optional<bool> optimize_write;
  // Post-commit auto compaction; `allowed = false` is --no-auto-compact. Its commit uses
  // this spec's `transaction` options.
  AutoCompactOptions auto_compact;
};

struct AppendMetrics {
  int64_t num_files = 0;
  int64_t num_output_rows = 0;
  int64_t num_output_bytes = 0;
};

struct AppendResult {
  delta::CommitResult commit;
  AppendMetrics metrics;
  bool optimized_write = false;
  // Auto compaction after the commit: set when it ran (no commit of its own when no
  // touched partition qualified); the warning when it failed.
  std::optional<OptimizeResult> auto_compaction;
  std::optional<std::string> auto_compaction_warning;
};

// Appends per the spec to the table at `root`. InvalidArgument for an empty spec
// (no inputs and no generator, or both) or num_files < 1.
Result<AppendResult> AppendRows(io::FileSystem* fs, const std::string& root,
                                const AppendSpec& spec);

}  // namespace lithify::commands
