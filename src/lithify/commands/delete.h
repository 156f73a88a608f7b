// Delete: removes the rows of a Delta table that match a predicate, as Delta's DELETE
// does, in one commit.
//
//   Load the latest snapshot -> bind the predicate (delta/scan_plan.h PrepareScan: logical names,
//   partition columns included) -> skip files by partition values and statistics
//   (PlanScan) -> per remaining file, one row group at a time, read the predicate
//   columns with the file's current deletion vector applied and collect the physical
//   row indexes of the live rows where the predicate is TRUE (NULL deletes nothing,
//   SQL semantics) -> per file with matches:
//     * every live row matches: remove the file;
//     * `delta.enableDeletionVectors=true`: the old DV united with the matches becomes
//       the file's new DV (packed several to a DV file, ~2 MiB each, dv_writer.h); the
//       file is removed with its old DV and re-added, same path, with the new DV, its
//       stats marked "tightBounds":false;
//     * otherwise copy-on-write: the surviving rows are rewritten (DataFileWriter, the
//       file's partition) into new files with fresh stats and the old file is removed.
//   -> one Transaction: ReadPredicate(the predicate), ReadFiles(every file read),
//      operation "DELETE" with Delta's parameters and operationMetrics.
// An empty predicate deletes every row: every file is removed without being read
// (Transaction::ReadWholeTable).
//
// Memory: one row group of the predicate columns (or, for a rewrite, of the data
// columns) of one file, plus the new DVs waiting for their DV file (bounded by the
// packing target). Data and DV files written before a failed commit stay as orphans
// that no version references (VACUUM removes them).
//
// After the commit, auto compaction (auto_compact.h) runs when the table enables it, on
// the partitions the delete added files to (files re-added with a new DV, copy-on-write
// rewrites; whole-file removals add none); its failure is only a warning in the result.
//
// Stateless; concurrent DeleteRows calls on one table are arbitrated by the Transaction
// (a conflicting concurrent change fails with Conflict).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/commands/auto_compact.h"
#include "lithify/delta/dv_writer.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

struct DeleteSpec {
  // Predicate text (expr language, logical column names); empty = delete all rows.
  std::string predicate;
  // Clock, attempts and checkpointing of the commit (tests inject a fixed clock).
  delta::TransactionOptions transaction;
  // Target bytes per DV file (Delta's deletionVectors.packing.targetSize).
  int64_t dv_file_target_bytes = delta::kDvPackingTargetBytes;
  // Post-commit auto compaction; `allowed = false` is --no-auto-compact. Its commit uses
  // this spec's `transaction` options.
  AutoCompactOptions auto_compact;
};

struct DeleteResult {
  // The commit; none when no row matched (then nothing was written).
  std::optional<delta::CommitResult> commit;
  int64_t read_version = -1;  // the version the delete read
  // Delta's DELETE operationMetrics (DeltaOperationMetrics.DELETE) as numbers:
  // numDeletedRows, numRemovedFiles (files removed entirely or rewritten),
  // numAddedFiles (rewritten files), numDeletionVectorsAdded (new DVs on files that had
  // none), numDeletionVectorsUpdated (files whose DV grew), numDeletionVectorsRemoved
  // (DVs of files removed entirely), numAddedChangeFiles (0), numCopiedRows (rows
  // rewritten), numAddedBytes, numRemovedBytes, executionTimeMs, scanTimeMs,
  // rewriteTimeMs. A DV re-add is counted in the DV metrics, not as added/removed files.
  std::map<std::string, int64_t> metrics;
  int64_t files_scanned = 0;      // data files read to evaluate the predicate
  int64_t dv_files_written = 0;
  // Human summary, e.g. "no rows matched 'x > 5'; nothing was committed".
  std::string message;
  // Auto compaction after the commit: set when it ran; the warning when it failed.
  std::optional<OptimizeResult> auto_compaction;
  std::optional<std::string> auto_compaction_warning;
};

// Runs the delete (see the header comment). Errors:
//  - InvalidArgument prefixed "predicate: " for a predicate that does not parse or
//    bind (an unknown column is named);
//  - InvalidArgument "DELTA_CANNOT_MODIFY_APPEND_ONLY: ..." for an append-only table
//    (delta.appendOnly=true; the feature gate of delta/write_gate.h, which allows a
//    delete on tables with constraints, generated or identity columns: it creates no values);
//  - NotSupported: the protocol blocks writes, or delta.enableDeletionVectors=true on a
//    table whose protocol lacks the deletionVectors feature;
//  - the snapshot's errors (NotFound, Corruption), data-file errors naming the file,
//    Conflict from the commit.
Result<DeleteResult> DeleteRows(io::FileSystem* fs, const std::string& table_root,
                                const DeleteSpec& spec);

}  // namespace lithify::commands
