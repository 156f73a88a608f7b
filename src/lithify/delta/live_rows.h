// Delta's side of the live-rows primitive (table/live_rows.h).
//
// DeltaLiveRows is built once per snapshot (or per snapshot schema with extra hidden
// columns: OPTIMIZE's materialized row-tracking columns) and opens one reader per live
// file: the Parquet file through lithify's reader, mapped onto the table's logical
// schema by the logical reader (logical_reader.h: column mapping by physical name or
// field id, legacy layouts, type widening, missing columns null), partition columns
// filled from the log's partition values (typed by the column's Delta type), the file's
// deletion vector applied, and the file row index of every live row kept.
//
// The DeltaLiveFile a caller opens carries the snapshot's FileEntry; OpenEntry opens a
// FileEntry directly (the Delta commands plan on FileEntry values).
// Immutable after Make; readers may be opened from several threads. The snapshot and
// the FileSystem must outlive it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/live_files.h"
#include "lithify/delta/logical_reader.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/file_entry.h"
#include "lithify/table/live_rows.h"

namespace lithify::delta {

// A live file of a Delta snapshot: the neutral fields plus the snapshot's entry.
struct DeltaLiveFile : table::LiveFile {
  const table::FileEntry* entry = nullptr;  // points into the snapshot
};

class DeltaLiveRows final : public table::LiveRows {
 public:
  // `schema` replaces the snapshot's schema when given (its first fields must be the
  // snapshot's; extra fields are data columns, never partitions). NotSupported for a
  // schema lithify cannot read (variant), InvalidArgument for one without columns;
  // errors name the table root.
  static Result<std::unique_ptr<DeltaLiveRows>> Make(io::FileSystem* fs, std::shared_ptr<const Snapshot> snapshot,
                                                     std::optional<StructType> schema = std::nullopt);

  const parquet::Schema& schema() const override { return out_->schema(); }
  const table::TableVersion& version() const override { return version_; }
  Result<std::unique_ptr<table::LiveRowsReader>> Open(const table::LiveFile& file,
                                                      const std::vector<int>& leaves) const override;

  // Opens a live file of the snapshot by its entry (see table::LiveRows::Open).
  Result<std::unique_ptr<table::LiveRowsReader>> OpenEntry(const table::FileEntry& f,
                                                           const std::vector<int>& leaves) const;
  // The neutral description of `f` (partition key: spec 0, the partition columns in
  // table order).
  Result<DeltaLiveFile> Describe(const table::FileEntry& f) const;

  const OutputSchema& output() const { return *out_; }
  const Snapshot& snapshot() const { return *snapshot_; }
  // Per top-level field of schema(): the partition column's physical name (log key), "".
  const std::vector<std::string>& partition_keys() const { return partition_keys_; }
  // Typed partition values of `f` by top-level field (nullopt for non-partition fields
  // and null values). Corruption naming the file for an unparseable value.
  Result<std::vector<std::optional<table::Value>>> PartitionValues(const table::FileEntry& f) const;
  // The same for a file of the snapshot's compact store (no FileEntry built).
  Result<std::vector<std::optional<table::Value>>> PartitionValues(const LiveFileView& f) const;
  // The parsed statistics of `f`: its own when the snapshot parsed them (StatsMode::kParsed),
  // else parsed now from the stored text (StatsMode::kRaw, for callers that prune by
  // partition first and parse only the files they keep); nullopt when `f` has none.
  // Corruption naming the file for malformed statistics.
  static Result<std::optional<table::FileStats>> ParsedStats(const table::FileEntry& f);
  // The same for a file of the compact store: its stats text parsed now (a store keeps
  // text only), or numRecords alone when that is all the store kept (StatsMode::kNumRecords).
  static Result<std::optional<table::FileStats>> ParsedStats(const LiveFileView& f);

 private:
  DeltaLiveRows() = default;
  // PartitionValues over any map holding the log's partition values: `lookup(key)` is
  // nullopt for an absent key, else the value text (nullopt = JSON null).
  template <typename Lookup>
  Result<std::vector<std::optional<table::Value>>> TypePartitionValues(std::string_view path,
                                                                       const Lookup& lookup) const;

  io::FileSystem* fs_ = nullptr;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<StructType> schema_;  // stable address: out_ points into it
  std::unique_ptr<OutputSchema> out_;
  std::vector<std::string> partition_keys_;
  table::TableVersion version_;
};

}  // namespace lithify::delta
