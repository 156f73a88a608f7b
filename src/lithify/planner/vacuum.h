// VACUUM deletion sets: which files and directories under a table root may be deleted.
//
// Pure set arithmetic after delta-maintenance-facts.md §9 (Delta's VacuumCommand): the
// caller gathers the facts (a recursive listing for FULL, or the removed paths of the
// commits since the last vacuum for LITE; the live files and tombstones of the current
// snapshot; the clock; the retention) and deletes what comes back. Nothing here touches
// storage or reads a clock, so retention arithmetic is testable to the millisecond.
//
// The format's part (TablePolicy, policy.h): which path components are hidden and the
// retention check with its error names. Rules (Delta's policy where noted):
//  - Horizon: delete_before = now - retention (retention defaults to the table's, for
//    Delta delta.deletedFileRetentionDuration, 7 days).
//  - Protected ("valid") set: every live file, its 'u' deletion-vector file, and every
//    tombstone deleted at or after the horizon with its DV file; plus every ancestor
//    directory of those. Absolute-path DVs ('p') are outside the table: never passed.
//  - Hidden paths are never considered: any path with a component the policy calls
//    hidden (Delta: starting with '_' or '.', except names starting with `_delta_index`,
//    `_change_data` or `<partitionColumn>=`; `metadata` too on UniForm-Iceberg tables).
//    So `_delta_log` and everything under it are never deleted.
//  - A file is deleted when it is not protected and its modification time is before the
//    horizon (untracked old files, expired tombstones, their DV files).
//  - Temporaries of killed writers (ListedEntry::is_temporary: the file system's own
//    in-progress write files, which no version can reference) are deleted once modified
//    before the horizon, like untracked files, unless a directory above them is hidden
//    (so nothing under `_delta_log` is touched); their own dot-prefixed names do not
//    make them hidden. They keep their directories from being deleted in the same run.
//  - Foreign files (lithify's guard against tables created over someone's folder): the
//    untracked files a run would delete whose paths do not look like a table writer's
//    (LooksLikeTableWriterFile). ForeignFilesRefusal says when they are too many for
//    VACUUM to proceed without being told explicitly.
//  - A directory is deleted when it is not protected, holds no file at all in the
//    listing (of any age, hidden or not) and was itself last modified before the
//    horizon. Delta deletes a directory when no *old* file lies beneath it, with a
//    non-recursive delete that fails (or is a no-op on object stores) when young files
//    remain; requiring a truly empty directory gives the same outcome without relying on
//    the store to refuse. The age rule is lithify's: a directory a writer has just
//    created for the file it is about to write is not pulled from under it. Directories
//    emptied by a run are deleted by a run after the retention has passed again.
//
// Pure functions; thread-safe. Inputs are only read during the call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"

namespace lithify::planner {

class TablePolicy;  // policy.h

// One entry of a recursive listing of the table root (or one LITE candidate).
struct ListedEntry {
  std::string path;  // relative to the table root, '/'-separated; a trailing '/' is ignored
  int64_t size = 0;
  int64_t modification_time_ms = 0;
  bool is_dir = false;
  // A writer's temporary (io::FileSystem::ListTemporariesRecursive), never a table file.
  bool is_temporary = false;
};

// A live file of the snapshot.
struct LiveFile {
  std::string path;     // relative to the table root (decoded)
  std::string dv_path;  // relative path of its 'u' deletion-vector file; "" = none
};

// A remove action still in the snapshot (not yet expired from the log).
struct Tombstone {
  std::string path;
  int64_t deletion_timestamp_ms = 0;
  std::string dv_path;  // as in LiveFile
};

struct VacuumOptions {
  int64_t now_ms = 0;
  // RETAIN n HOURS after the command's own policy (e.g. Delta 4.1 ignores RETAIN unless
  // it is 0); unset = table_retention_ms.
  std::optional<int64_t> retention_ms;
  // The table's retention (Delta: deletedFileRetentionDuration). Must be set.
  int64_t table_retention_ms = 0;
  // Whether a retention shorter than the table's is refused (Delta:
  // spark.databricks.delta.retentionDurationCheck.enabled).
  bool retention_check_enabled = true;
  std::vector<std::string> partition_columns;  // as in directory names
};

enum class VacuumReason {
  kUntrackedFile,           // never referenced by the snapshot (or its tombstone is gone)
  kExpiredTombstone,        // removed before the horizon
  kExpiredDeletionVector,   // DV file of an expired tombstone
  kEmptyDirectory,
  kAbandonedTemporary,      // a killed writer's temporary, older than the horizon
};

// "untracked_file", "expired_tombstone", "expired_deletion_vector", "empty_directory",
// "abandoned_temporary".
std::string_view VacuumReasonName(VacuumReason r);

struct VacuumDeletion {
  std::string path;
  bool is_dir = false;
  int64_t size = 0;
  VacuumReason reason = VacuumReason::kUntrackedFile;
};

struct VacuumPlan {
  int64_t delete_before_ms = 0;  // the horizon
  int64_t retention_ms = 0;      // the retention in effect
  // Files first (listing order), then directories, deepest first, so non-recursive
  // deletes succeed in order.
  std::vector<VacuumDeletion> deletions;
  int64_t files_to_delete = 0;
  int64_t dirs_to_delete = 0;
  int64_t bytes_to_delete = 0;
  int64_t files_protected = 0;  // listed files in the valid set
  int64_t files_too_young = 0;  // unprotected files modified at or after the horizon
  int64_t entries_hidden = 0;   // listed entries skipped by the hidden-path rule
  int64_t dirs_kept = 0;        // directories protected or not empty
  // Of the deletions: killed writers' temporaries (also in files_/bytes_to_delete).
  int64_t temporaries_to_delete = 0;
  int64_t temporary_bytes_to_delete = 0;
  // Of the untracked deletions: those not named like a table writer's files.
  int64_t foreign_files = 0;
  int64_t foreign_bytes = 0;
  std::vector<std::string> foreign_examples;  // the first few, in listing order
};

// Whether a table-relative path looks like a file a Delta (or Iceberg) writer puts in a
// table: it lies under a partition-style directory (a component "k=v" with a non-empty
// k), or its file name contains a UUID in the canonical 8-4-4-4-12 hex form (Spark,
// Databricks, delta-rs, Trino, Flink and lithify name every data, CDC and deletion-vector
// file with one: part-00000-<uuid>-c000.snappy.parquet, deletion_vector_<uuid>.bin,
// 20240101_..._<uuid>), or it is named part-*.parquet. Pure.
bool LooksLikeTableWriterFile(std::string_view path);

// The foreign-files guard: a plan whose foreign files outnumber the files the log
// references (live files plus tombstones, distinct paths), or outweigh their bytes, would
// delete a folder's own content rather than a table's leftovers: the table was most likely
// created over a folder that already held other files. Returns the refusal message (naming
// examples, both counts and how to proceed) or nullopt when the plan may run. A plan
// without foreign files is never refused, so a long-lived table whose expired tombstones
// left their data files untracked vacuums normally.
std::optional<std::string> ForeignFilesRefusal(const VacuumPlan& plan, int64_t referenced_files,
                                               int64_t referenced_bytes);

// The horizon check alone: the policy's (Delta: InvalidArgument whose message starts
// with "DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE" for a negative retention, or with
// "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT" when the retention is shorter than the
// table's and the check is enabled).
Status CheckVacuumRetention(const TablePolicy& policy, const VacuumOptions& options);

// VACUUM FULL over a recursive listing of the table root. Errors: CheckVacuumRetention.
Result<VacuumPlan> PlanVacuum(const TablePolicy& policy, const std::vector<ListedEntry>& listing,
                              const std::vector<LiveFile>& live,
                              const std::vector<Tombstone>& tombstones,
                              const VacuumOptions& options);

// VACUUM LITE: `candidates` are the paths the command gathered from the log (remove paths
// with modification time = deletionTimestamp and their DV files; cdc paths with time 0).
// Same horizon, hidden-path rule and valid set as FULL; duplicates collapse; no
// directories are deleted. Errors: CheckVacuumRetention.
Result<VacuumPlan> PlanVacuumLite(const TablePolicy& policy,
                                  const std::vector<ListedEntry>& candidates,
                                  const std::vector<LiveFile>& live,
                                  const std::vector<Tombstone>& tombstones,
                                  const VacuumOptions& options);

}  // namespace lithify::planner
