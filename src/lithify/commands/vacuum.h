// Vacuum: deletes the files of a Delta table that no version within the retention
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
//   -> guard rails re-checked here, independently of the planner: nothing under
//      `_delta_log`, nothing outside the root, no live file, no live DV file, no young
//      tombstone -- a violation is Internal and deletes nothing
//   -> unless dry run: commit "VACUUM START" (numFilesToDelete, sizeOfDataToDelete),
//      delete the files (bounded parallelism; deletes are idempotent), then the empty
//      directories, commit
//      "VACUUM END" (status COMPLETED, numDeletedFiles, numVacuumedDirectories), write
//      `_delta_log/_last_vacuum_info` = {"latestCommitVersionOutsideOfRetentionWindow":N}.
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

namespace lithify::commands {

struct VacuumSpec {
  // RETAIN n HOURS; unset = the table's delta.deletedFileRetentionDuration.
  std::optional<double> retain_hours;
  bool dry_run = false;
  bool lite = false;
  // spark.databricks.delta.retentionDurationCheck.enabled = false.
  bool disable_retention_check = false;
  // The clock in ms since the epoch; 0 = the system clock (tests inject).
  int64_t now_ms = 0;
  // Deletes in flight at once (>= 1).
  int delete_parallelism = 8;
};

// Why listed files were kept (each file counted once, in this order of precedence).
struct VacuumProtected {
  int64_t live = 0;                // a live data file
  int64_t live_dv = 0;             // the DV file of a live file
  int64_t young_tombstone = 0;     // removed at or after the horizon (or its DV file)
  int64_t hidden = 0;              // skipped by the hidden-path rule (incl. _delta_log)
  int64_t newer_than_horizon = 0;  // unreferenced but modified at or after the horizon
};

struct VacuumResult {
  std::string table_root;
  int64_t read_version = -1;
  bool lite = false;
  bool dry_run = false;
  int64_t now_ms = 0;
  int64_t retention_ms = 0;        // in effect
  int64_t table_retention_ms = 0;  // delta.deletedFileRetentionDuration
  bool retention_check_enabled = true;
  int64_t delete_before_ms = 0;    // the horizon
  // What is (dry run: would be) deleted, paths relative to the root, with reasons.
  std::vector<planner::VacuumDeletion> deletions;
  int64_t files_to_delete = 0;
  int64_t bytes_to_delete = 0;
  int64_t dirs_to_delete = 0;
  VacuumProtected protected_files;
  int64_t files_considered = 0;  // listed files (FULL) or log candidates (LITE)
  // LITE: the commits read; FULL: unset.
  std::optional<int64_t> lite_from_version, lite_to_version;
  // Real runs: what happened.
  int64_t files_deleted = 0;
  int64_t dirs_deleted = 0;
  std::optional<int64_t> start_version;  // the VACUUM START commit
  std::optional<int64_t> end_version;    // the VACUUM END commit
  // The value written to _delta_log/_last_vacuum_info, when written.
  std::optional<int64_t> last_vacuum_info;
};

// Runs VACUUM on the Delta table at `root` (see the header comment). Errors:
//  - InvalidArgument: DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE / _TOO_SHORT, a retain
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

}  // namespace lithify::commands
