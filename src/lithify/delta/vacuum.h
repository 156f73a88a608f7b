// Delta's VACUUM (the generic `vacuum` command, commands/vacuum.h, reaches it through
// formats/vacuum.h): deletes the files of a Delta table that no version within the retention
// window needs, with Delta's rules (delta-maintenance-facts.md §9, VacuumCommand).
//
//   load the latest snapshot (no stats) -> horizon = now - retention
//   -> gather candidates:
//        FULL: a recursive listing of the table root (relative paths, sizes, mtimes);
//        LITE: the remove paths (and their 'u' DV files) and cdc paths of the commits
//              after `_delta_log/_last_vacuum_info` up to the commit active at the
//              horizon (DELTA_CANNOT_VACUUM_LITE when the log was cleaned past it)
//   -> planner::PlanVacuum / PlanVacuumLite (protected = live files, their DV files,
//      tombstones at or after the horizon and their DV files; hidden `_`/`.` paths are
//      never considered except `_delta_index*`, `_change_data*`, `<partitionCol>=`)
//   -> FULL: the file system's temporaries of killed writers
//      (io::FileSystem::ListTemporariesRecursive) join the listing; the planner deletes
//      those older than the horizon ("abandoned_temporary"): no version can reference
//      them, and a writer still writing one keeps touching it
//   -> FULL: the foreign-files guard (planner::ForeignFilesRefusal): when the untracked
//      files to delete that are not named like a table writer's files outnumber or
//      outweigh the files the log references (live files and tombstones), the table was
//      most likely created over a folder holding other data; a real run is refused
//      (LITHIFY_VACUUM_FOREIGN_FILES, nothing deleted or committed) unless
//      allow_foreign_files; a dry run reports the refusal it would meet
//   -> guard rails re-checked here, independently of the planner: nothing under
//      `_delta_log`, nothing outside the root, no live file, no live DV file, no young
//      tombstone -- a violation is Internal and deletes nothing
//   -> unless dry run: commit "VACUUM START" (numFilesToDelete, sizeOfDataToDelete),
//      delete the files (bounded parallelism; deletes are idempotent), then the empty
//      directories, commit
//      "VACUUM END" (status COMPLETED, numDeletedFiles, numVacuumedDirectories), write
//      `_delta_log/_last_vacuum_info` = {"latestCommitVersionOutsideOfRetentionWindow":N}.
//      VACUUM START also records the horizon as operationParameters.deleteBeforeMillis
//      and the temporaries as operationMetrics.numTemporaryFilesToDelete (lithify
//      extensions; Delta's readers ignore them), so `diagnose` knows what was deleted.
//      A failure after VACUUM START is followed by a best-effort "VACUUM END" with
//      status FAILED; the original error is returned. A crash at any point leaves the
//      table readable: only unreferenced files are ever deleted, and a second run
//      finishes the job.
//
// Retention policy (decided for lithify): `retain_hours` is honoured (rounded to whole
// hours, as Delta does), unlike Delta >= 4.1 whose vacuum.retentionWindowIgnore
// ignores RETAIN unless it is 0. A retention shorter than the table's
// delta.deletedFileRetentionDuration is refused (DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT)
// unless disable_retention_check; a negative one always
// (DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE). Both are InvalidArgument.
//
// Differences from Delta, on purpose:
//  - Directories: on file systems with real directories (io::FileSystem::
//    ListDirectoriesRecursive), a non-hidden directory that held nothing when listed is
//    deleted after the files, deepest first, with a non-recursive delete (one a writer
//    filled in the meantime is kept). Delta deletes a directory when no *old* file lies
//    beneath it and lets the non-recursive delete fail otherwise; the outcome is the
//    same. Directories emptied by this run go in the next one, as in Delta. Object
//    stores have no directories; numVacuumedDirectories counts what was removed.
//  - A FULL run also writes `_last_vacuum_info` (Delta writes null there after FULL,
//    which disables LITE on tables whose log was cleaned).
//  - LITE records the window end no later than the commit before the first remove
//    stamped at or after the horizon (a writer clock ahead of the storage clock), so
//    such a tombstone is seen again by the next LITE run once it expires.
//  - The LITE gate accepts last-vacuum version == earliest commit - 1 (Delta refuses it
//    although no commit is missing).
//
// Stateless; safe to call concurrently with readers and writers of the table (a file
// written after the horizon is never deleted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/vacuum.h"
#include "lithify/planner/vacuum_report.h"

namespace lithify::delta {

using planner::VacuumProtected;
using planner::VacuumResult;
using planner::VacuumSpec;


// Runs VACUUM on the Delta table at `root` (see the header comment). Errors:
//  - InvalidArgument: LITHIFY_VACUUM_FOREIGN_FILES (the foreign-files guard refused a
//    real run; nothing deleted or committed),
//    DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE / _TOO_SHORT, a retain
//    that is not a finite number, a malformed delta.deletedFileRetentionDuration,
//    DELTA_CANNOT_VACUUM_LITE (LITE after the log was cleaned past the last vacuum);
//  - NotSupported: the protocol blocks writes (also for dry runs: unknown writer
//    features may reference files lithify cannot see);
//  - Internal: a planned deletion violating a guard rail (nothing is deleted);
//  - the snapshot's errors (NotFound, Corruption); IOError from storage (after
//    VACUUM START, a VACUUM END with status FAILED is attempted first).
Result<VacuumResult> Vacuum(io::FileSystem* fs, const std::string& root, const VacuumSpec& spec);

// The name of the LITE state file inside `_delta_log`.
inline constexpr const char* kLastVacuumInfoFile = "_last_vacuum_info";

// The latest VACUUM that completed, as its commits record it.
struct CompletedVacuum {
  int64_t start_version = -1;  // VACUUM START
  int64_t end_version = -1;    // VACUUM END with status COMPLETED
  // Every file removed before this instant (and not live) was deleted by that run: the
  // deleteBeforeMillis lithify records, else (another engine's VACUUM) the START commit's
  // timestamp minus the retention it records, which can only be later than the horizon
  // that run used by the time it spent planning.
  int64_t delete_before_ms = 0;
};

// Walks the commit files from `version` down to the first COMPLETED "VACUUM END" and its
// "VACUUM START" (commitInfo only). Stops early (nullopt) at a commit older than
// `not_before_ms` (a VACUUM before that cannot have deleted what the caller asks about),
// at a FAILED or unmatched END, or when the log holds no earlier commit. Errors: IOError
// from storage; Corruption for a malformed commitInfo line of a VACUUM commit.
Result<std::optional<CompletedVacuum>> FindLastCompletedVacuum(io::FileSystem* fs, const std::string& root,
                                                               int64_t version, int64_t not_before_ms);

}  // namespace lithify::delta
