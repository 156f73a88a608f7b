// Snapshot: the state of a Delta table at one version, reconstructed from its log.
//
// Load() runs the read path of PROTOCOL.md as small named steps:
//   resolve the version (latest / by number / by timestamp)
//   -> LoadLogSegment (newest complete checkpoint + contiguous commits)
//   -> replay newest-first: commits (each file's actions last-to-first), then the
//      checkpoint parts and their sidecars, keeping the first (= newest) action per key
//      ("Action Reconciliation": files by (path, deletionVector.uniqueId), txn by appId,
//      domainMetadata by domain, latest protocol and metaData)
//   -> protocol gate (reader features lithify cannot honour are NotSupported)
//   -> parse the schema, column mapping mode and partition columns.
// Memory: the live files in compact form (LiveFileStore, about 80 bytes per file plus
// its path, partition values and -- unless StatsMode::kNone -- stats text), the
// tombstones and a set of the file keys seen in commits (checkpoint keys are unique by
// construction and are not remembered); actions are not retained. Checkpoint files are
// streamed batch by batch (decoding and extraction overlap on two threads: a CPU-pool
// task of base/thread_pool.h and the loading thread).
// table::FileEntry values are built only when files() is first called.
//
// A Snapshot is immutable once loaded and safe to share across threads (hold it by
// shared_ptr<const Snapshot>). It does not own the FileSystem, which must outlive it.
//
// Intended use by scan / describe / planning commands:
//   LITHIFY_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(fs, root));
//   // counts, sizes, paths, partition values, raw stats: no FileEntry is built
//   for (delta::LiveFileView f : snap->live_files()) total += f.size();
//   // planners and scans that want parsed statistics:
//   for (const table::FileEntry& f : snap->files()) {
//     ... open io::JoinPath(snap->table_root(), f.path) ...
//     if (f.deletion_vector) LoadDeletionVector(fs, snap->table_root(), *f.deletion_vector);
//     physical column names: ResolvePhysicalColumn(snap->schema(), {"a","b"},
//                                                  snap->column_mapping_mode())
//   }
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/live_files.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/schema.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/file_entry.h"
#include "lithify/table/version_selector.h"

namespace lithify::delta {

// Which version to load: the format-neutral selector (a ref, which Delta does not have,
// is refused by Load).
using VersionSpec = table::VersionSelector;

// A remove action that survived reconciliation: a tombstone VACUUM must respect until
// it expires (deletion_timestamp + delta.deletedFileRetentionDuration).
struct Tombstone {
  std::string path;   // decoded, relative to the table root
  RemoveFile remove;  // the action as logged (path still URI-encoded)
};

// What Load keeps of each live file's `stats` (Appendix "Per-file Statistics").
// Parsed statistics cost about 2 KB per file (the per-column map of table::Values) and
// most of the replay time; callers that need none (describe detail, counts) or only
// some files' (they can run delta::ParseStats on `raw` later) choose less.
enum class StatsMode {
  kParsed,  // FileEntry::stats fully parsed (default; scans and planners skip with it)
  kRaw,     // FileEntry::stats holds only `raw` (the text); no validation of it
  kNone,    // FileEntry::stats is always absent
  // FileEntry::stats holds only num_records (read by a scanner from the usual layout,
  // `{"numRecords":N,...}`, else by a full parse of that file's text): what bin-packing
  // planners need, at a fraction of kParsed's time and memory on 1,000,000 files.
  // Malformed stats fail the load only when the full parse is needed.
  kNumRecords,
};

struct LoadOptions {
  StatsMode stats = StatsMode::kParsed;
  // Threads for replay: with 2, commit files are parsed two at a time, and a Parquet
  // checkpoint is decoded on a second thread (CPU-pool tasks, base/thread_pool.h; the
  // loading thread does that work itself when no pool thread is free) while it turns the
  // previous batch into live files. 0 = automatic (2 when the machine has more than one
  // core), 1 = all on the loading thread. The result (files, order, first error) does
  // not depend on it.
  int threads = 0;
};

class Snapshot {
 public:
  // Loads `table_root` (a FileSystem path; its log is `<table_root>/_delta_log`).
  // Errors:
  //  - NotFound: no Delta log; a version beyond the latest or before the earliest
  //    reconstructable one; a timestamp before the first or after the last commit.
  //  - Corruption: malformed commit lines ("_delta_log/<v>.json line 3: ..."), a gap in
  //    the commits, a checkpoint that cannot be read, no protocol or metaData in the
  //    segment, a live file whose path lies outside the table root (files are reconciled
  //    by canonical path first: `/x`, `file:/x` and `file:///x` are one file, so an add
  //    outside the root that a newer remove cancels is no error), malformed stats / DV
  //    descriptors.
  //  - NotSupported: a reader version above 3, or a reader feature lithify does not
  //    implement (named in the message).
  static Result<std::shared_ptr<const Snapshot>> Load(io::FileSystem* fs, std::string table_root,
                                                      VersionSpec spec = VersionSpec::Latest());
  static Result<std::shared_ptr<const Snapshot>> Load(io::FileSystem* fs, std::string table_root,
                                                      VersionSpec spec, LoadOptions options);

  io::FileSystem* fs() const { return fs_; }
  const std::string& table_root() const { return table_root_; }
  int64_t version() const { return version_; }
  // Commit timestamp in ms: the commit's inCommitTimestamp when in-commit timestamps are
  // enabled at this version, else the commit file's modification time (the checkpoint's
  // when the commit file is gone).
  int64_t timestamp_ms() const { return timestamp_ms_; }
  const LogSegment& log_segment() const { return segment_; }

  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  const StructType& schema() const { return schema_; }
  const std::vector<std::string>& partition_columns() const { return metadata_.partition_columns; }
  // metaData.configuration (table properties such as delta.appendOnly).
  const std::map<std::string, std::string>& properties() const { return metadata_.configuration; }
  ColumnMappingMode column_mapping_mode() const { return column_mapping_mode_; }

  // Live logical files in compact form, in replay order (see live_files.h). Cheap: use
  // it when counts, sizes, paths, partition values or raw stats suffice.
  const LiveFileStore& live_files() const { return live_; }
  // Live logical files as FileEntry values, sorted by (path, DV unique id). Built from
  // live_files() on the first call (thread-safe; later calls return the same vector);
  // with StatsMode::kParsed they are built during Load, which reports malformed stats.
  // Costs about 450 bytes per file plus its parsed statistics.
  const std::vector<table::FileEntry>& files() const;
  // Unexpired-as-far-as-the-log-knows tombstones, sorted by path (sorted on the first
  // call, thread-safe; commands that never ask, such as describe, skip the sort).
  const std::vector<Tombstone>& tombstones() const;
  // Latest txn per appId.
  const std::map<std::string, Txn>& txns() const { return txns_; }
  // Live (not removed) domain metadata per domain.
  const std::map<std::string, DomainMetadata>& domain_metadata() const { return domains_; }
  // The commitInfo of the snapshot version's commit file, when present.
  const std::optional<CommitInfo>& commit_info() const { return commit_info_; }

  // Whether lithify may write this table: false when the writer version or a writer
  // feature is unknown to lithify; write_block_reason() then names it.
  bool CanWrite() const { return write_block_reason_.empty(); }
  const std::string& write_block_reason() const { return write_block_reason_; }

  // Sum of live rows (numRecords - DV cardinality) over all files; nullopt when any
  // file lacks numRecords or the sum overflows int64 (garbage statistics).
  std::optional<int64_t> NumLiveRecords() const;

  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

 private:
  friend class SnapshotBuilder;
  Snapshot() = default;

  io::FileSystem* fs_ = nullptr;
  std::string table_root_;
  int64_t version_ = -1;
  int64_t timestamp_ms_ = 0;
  LogSegment segment_;
  Protocol protocol_;
  Metadata metadata_;
  StructType schema_;
  ColumnMappingMode column_mapping_mode_ = ColumnMappingMode::kNone;
  LoadOptions options_;
  LiveFileStore live_;
  // files(): built once from live_ (eagerly with kParsed, from parsed_stats_).
  mutable std::once_flag files_once_;
  mutable std::vector<table::FileEntry> files_;
  mutable std::once_flag tombstones_once_;
  mutable std::vector<Tombstone> tombstones_;  // in replay order until tombstones() sorts them
  std::map<std::string, Txn> txns_;
  std::map<std::string, DomainMetadata> domains_;
  std::optional<CommitInfo> commit_info_;
  std::string write_block_reason_;
};

// PROTOCOL.md "Table Features" / "Reader Version Requirements": OK when lithify can
// read a table with this protocol, else NotSupported naming the reader version or the
// first unsupported reader feature.
Status CheckReadSupported(const Protocol& protocol);
// Empty when lithify knows every writer feature and the writer version, else the reason.
std::string WriteBlockReason(const Protocol& protocol);

// The version active at `timestamp_ms` (Delta time travel semantics: the latest version
// whose commit timestamp <= timestamp_ms). Commit timestamps are in-commit timestamps
// for versions at or after their enablement (`delta.enableInCommitTimestamps`) and
// otherwise file modification times made strictly increasing (a commit whose time is
// not after its predecessor's counts as predecessor + 1 ms, as Delta does).
// NotFound when the timestamp precedes the earliest commit or follows the latest.
Result<int64_t> VersionAtTimestamp(io::FileSystem* fs, const std::string& table_root,
                                   int64_t timestamp_ms);

}  // namespace lithify::delta
