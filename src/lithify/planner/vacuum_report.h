// A VACUUM run's request and report, in no format's terms (Delta's VACUUM fills them:
// delta/vacuum.h; the generic command is commands/vacuum.h). What each field means for
// Delta is said beside it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/planner/vacuum.h"

namespace lithify::planner {

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
  // `vacuum --allow-foreign-files`: run even when the foreign-files guard refuses.
  bool allow_foreign_files = false;
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
  std::vector<VacuumDeletion> deletions;
  int64_t files_to_delete = 0;
  int64_t bytes_to_delete = 0;
  int64_t dirs_to_delete = 0;
  VacuumProtected protected_files;
  int64_t files_considered = 0;  // listed files (FULL) or log candidates (LITE)
  // Of the deletions: killed writers' temporaries (FULL).
  int64_t temporaries_to_delete = 0;
  int64_t temporary_bytes_to_delete = 0;
  // The foreign-files guard (FULL): untracked deletions not named like a table writer's
  // files, what the log references, and the refusal (set when the guard refused: a dry
  // run reports it; a real run only got here with allow_foreign_files).
  int64_t foreign_files = 0;
  int64_t foreign_bytes = 0;
  int64_t referenced_files = 0;
  int64_t referenced_bytes = 0;
  std::optional<std::string> foreign_refusal;
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

}  // namespace lithify::planner
