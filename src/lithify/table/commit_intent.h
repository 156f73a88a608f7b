// The commit side of the table-format seam: a command says WHAT it wants committed (a
// CommitIntent: the operation, its parameters and metrics, the files it removes and adds,
// what it read) and the format commits it (a TableCommitter: Delta's is
// delta/committer.h), answering "committed at version V" or a named conflict (a
// CommitOutcome). Nothing here knows a log format; the format turns an intent into its
// own actions (Delta: remove / add / commitInfo) and checks it against the commits that
// won in between with its own rules (Delta: delta/conflict.h).
//
// Batched commits (OPTIMIZE commits its plan batch by batch, and narrows a batch when a
// concurrent commit touched some of its inputs) are a sequence of intents: after a
// conflict, TableCommitter::Latest tells which files are still live on the newest version,
// and the caller commits a narrowed intent read at that version.
//
// Plain value types (thread-safe as any const value); a TableCommitter is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/table/file_entry.h"

namespace lithify::table {

// The identity of a live file of a version: its decoded, table-relative path and its
// deletion vector's unique id ("" without one). One path with another DV is another file
// (Delta's reconciliation key), so a concurrent new DV on an input reads as a removal.
struct FileKey {
  std::string path;
  std::string dv_unique_id;
  friend auto operator<=>(const FileKey&, const FileKey&) = default;
};
inline FileKey KeyOf(const FileEntry& f) { return {f.path, f.dv_unique_id()}; }

// A data file the command wrote and wants committed (a bin's exec::OutputFile, as the
// commit needs it). Written before the commit; invisible until a committed version adds it.
struct AddedFile {
  std::string path;  // relative to the table root, decoded (not URI-encoded)
  int64_t size = 0;
  int64_t num_records = 0;
  // The partition's values as the format records them (nullopt = null).
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t modification_time_ms = 0;
  // The file's statistics text exactly as written (Delta: the stats JSON); never reparsed.
  std::optional<std::string> stats;
  std::map<std::string, std::string> tags;  // e.g. ZCube ids
  std::optional<std::string> clustering_provider;  // e.g. "liquid"
  // Row-tracking fields when the writer assigned them; absent = the format assigns them.
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  friend bool operator==(const AddedFile&, const AddedFile&) = default;
};

// One rewrite unit: files removed and the files that replace them (an OPTIMIZE bin; a
// single group for most commands). The format writes groups in order, each group's
// removes before its adds, so a batched commit keeps the order it always had.
struct FileGroup {
  std::vector<FileEntry> removed;  // live files of the read version, as read
  std::vector<AddedFile> added;
};

// What the command's result depends on, for checking it against commits that won the
// versions between the read and the commit.
struct ReadSet {
  int64_t version = -1;  // the version read; the commit is attempted at version + 1 first
  // Files whose content was read: a concurrent removal of one (or a new DV on it) is a
  // conflict (Delta: ConcurrentDeleteReadException).
  std::vector<FileKey> files;
  // The result depends on every file: any concurrent data change conflicts.
  bool whole_table = false;
};

// How a format's committer commits (Delta: delta::TransactionOptions is this).
struct CommitOptions {
  // Commit attempts in total (first try plus rebases after lost races).
  int max_attempts = 20;
  // Clock for the commit's timestamps (ms since the epoch). Empty = the system clock.
  // Tests inject a fixed clock.
  std::function<int64_t()> now_ms;
  // Write the format's post-commit checkpoint when its interval says so (Delta: when the
  // version is a multiple of delta.checkpointInterval).
  bool checkpoint_on_interval = true;
};

struct CommitIntent {
  std::string operation;  // the format's operation name, e.g. "OPTIMIZE", "REORG"
  // Its parameters and metrics, as the format records them (Delta: operationParameters,
  // stored as given -- most values are JSON text --, and operationMetrics, all strings).
  nlohmann::json parameters = nlohmann::json::object();
  std::map<std::string, std::string> metrics;
  std::vector<FileGroup> groups;
  ReadSet read;
  // false: rows are rearranged, none added or deleted (compaction, REORG PURGE,
  // clustering). Then concurrent appends never conflict (Delta: every file action has
  // dataChange=false, which downgrades the commit to SnapshotIsolation).
  bool data_change = true;
  // Every row keeps its row id and row commit version (materialized by the rewrite);
  // Delta records it as the commitInfo tag delta.rowTracking.preserved=true.
  bool row_ids_preserved = false;

  size_t num_removed() const;
  size_t num_added() const;
  // No file removed or added: TableCommitter::Commit refuses it (InvalidArgument).
  bool empty() const { return num_removed() == 0 && num_added() == 0; }
};

// A named concurrent-modification conflict: nothing was committed.
struct CommitConflict {
  std::string exception;  // Delta's exception class, e.g. "ConcurrentDeleteReadException"
  Status status;          // the Conflict status, "<exception>: <detail>"
};

struct CommitOutcome {
  int64_t version = -1;  // the committed version (no conflict)
  std::optional<CommitConflict> conflict;
  bool committed() const { return !conflict.has_value(); }

  static CommitOutcome Committed(int64_t version) { return {version, std::nullopt}; }
  // `conflict` must be a Conflict status; the exception is the name leading its message
  // (the word ending in "Exception" before ": "), "" when there is none.
  static CommitOutcome Conflicted(Status conflict);
};

// The newest version as a narrowing caller needs it (after a conflict).
struct LatestFiles {
  int64_t version = -1;
  std::set<FileKey> live;  // every live file of that version
  // Why the format cannot write that version (e.g. a protocol it does not implement);
  // "" = writable.
  std::string write_blocked;
  // The partitioning changed since the committer's first read version: groups planned
  // per partition no longer line up.
  bool partitioning_changed = false;
};

class TableCommitter {
 public:
  virtual ~TableCommitter() = default;
  // Commits `intent` on top of intent.read.version: when other writers won versions in
  // between, their commits are checked against what the intent read and writes, and
  // without a conflict the intent is committed at the next free version.
  //  - a committed outcome: the version written;
  //  - a conflicted outcome: the format's named conflict; nothing written;
  //  - errors: InvalidArgument for an empty intent or an action set the format refuses,
  //    IOError / Corruption from storage (context: the table), never a conflict.
  virtual Result<CommitOutcome> Commit(const CommitIntent& intent) = 0;
  // The newest version and its live files (loads it).
  virtual Result<LatestFiles> Latest() = 0;
};

}  // namespace lithify::table
