// The Iceberg read-side entry point, in the shape of the format-neutral table seam to
// come: open a table -> a snapshot view (schema with field ids, partition specs,
// properties, snapshots) -> the live data files, each with its typed partition tuple,
// sequence numbers, statistics and the delete files that apply to it -> a live-rows
// reader per data file (reader.h).
//
// Planning (PlanFiles) reads the delete manifests first and indexes their live entries
// (delete files are few next to data files), then streams the data manifests one entry at
// a time, so memory holds the delete index plus one manifest block, never the table's file
// list (PlanFiles hands each live data file to a sink). The spec's applicability rules:
//   * a deletion vector applies to the data file its referenced_data_file names, when the
//     data file's data sequence number is <= the DV's and the partition is the same;
//   * a position delete file applies when its referenced_data_file (if set) names the data
//     file, data sequence number <=, same spec and partition, and no DV applies;
//   * an equality delete file applies when the data sequence number is strictly lower and
//     the partition is the same or the delete's spec is unpartitioned.
// Entries with status DELETED are not live. A deletion vector naming a data file that is
// not live in the snapshot is Corruption (writers must drop a DV with its data file).
// With a predicate, data files are skipped conservatively from their partition values
// and column bounds / null counts (expr::CanSkip): skipped files are counted, never read;
// whole data manifests are skipped first from the manifest list's partition summaries
// (identity, year/month/day/hour and truncate fields give ranges of their source column),
// and then not read at all unless PlanOptions::skipped asks for every skipped file.
//
// Unsupported features are refused by name (NotSupported): encryption, ORC and Avro data
// files, multi-argument transforms, v3 row lineage columns are not produced.
//
// An IcebergTable is immutable after Open and may be shared across threads; PlanFiles is
// reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/expr.h"
#include "lithify/iceberg/location.h"
#include "lithify/iceberg/manifest.h"
#include "lithify/iceberg/metadata.h"
#include "lithify/io/filesystem.h"

namespace lithify::iceberg {

struct OpenOptions {
  LocationMap locations;
};

// A delete file (or deletion vector) that applies to a data file.
struct DeleteFile {
  enum class Kind { kPositionFile, kDeletionVector, kEquality };
  Kind kind = Kind::kPositionFile;
  DataFile file;  // path mapped; referenced_data_file, content offset/size for DVs
  int64_t data_sequence_number = 0;
  int32_t spec_id = 0;
};

struct PlannedFile {
  DataFile file;
  int32_t spec_id = 0;
  int64_t data_sequence_number = 0;
  int64_t file_sequence_number = 0;
  std::vector<DeleteFile> deletes;
};

struct PlanOptions {
  std::optional<expr::Expr> where;  // skip files that cannot hold a matching row
  // When set, receives every skipped data file with the reason (`files --where` explains
  // skipping); an error stops planning.
  std::function<Status(PlannedFile&&, std::string reason)> skipped;
  // Planned data files carry the statistics skipping needs (bounds and null counts of the
  // predicate's columns; none without a predicate) unless every map is asked for here:
  // decoding an entry's other statistics is most of planning's work and nothing reads them.
  bool all_stats = false;
  // Data manifests decoded at once (manifest_pipeline.h); the planned files, their order and
  // the first error are the same for every value.
  int threads = 2;
};

struct PlanStats {
  int64_t manifests = 0;
  int64_t data_files = 0;     // live data files considered
  int64_t skipped_files = 0;  // by the predicate (incl. the files of unread manifests)
  int64_t skipped_manifests = 0;  // data manifests excluded by their partition summaries
  int64_t delete_files = 0;   // live delete files and DVs indexed
};

class IcebergTable {
 public:
  // Locates the current metadata (location.h) and parses it. Errors name the file.
  static Result<std::shared_ptr<const IcebergTable>> Open(std::shared_ptr<io::FileSystem> fs,
                                                          std::string_view location, OpenOptions options = {});

  const TableMetadata& metadata() const { return metadata_; }
  const std::string& metadata_path() const { return metadata_path_; }
  const std::string& located_by() const { return located_by_; }
  const LocationMap& locations() const { return options_.locations; }
  io::FileSystem* fs() const { return fs_.get(); }
  std::shared_ptr<io::FileSystem> shared_fs() const { return fs_; }

  // The snapshot a read sees (nullptr: the table has no snapshot; it reads empty).
  Result<const Snapshot*> Select(const SnapshotSelector& s) const { return SelectSnapshot(metadata_, s); }

  // Streams every live data file of `snapshot` (with its deletes) to `sink`.
  Status PlanFiles(const Snapshot* snapshot, const PlanOptions& options,
                   const std::function<Status(PlannedFile&&)>& sink, PlanStats* stats = nullptr) const;
  // Convenience: all of them (tests, small tables).
  Result<std::vector<PlannedFile>> PlanAll(const Snapshot* snapshot, const PlanOptions& options = {},
                                           PlanStats* stats = nullptr) const;

 private:
  IcebergTable() = default;
  std::shared_ptr<io::FileSystem> fs_;
  OpenOptions options_;
  TableMetadata metadata_;
  std::string metadata_path_;
  std::string located_by_;
};

// Keys a partition tuple with its spec id (for grouping and delete matching).
std::string PartitionKey(int32_t spec_id, const std::vector<table::Value>& partition);

}  // namespace lithify::iceberg
