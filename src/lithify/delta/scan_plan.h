// Delta's scan planning: a Delta table version with a bound predicate, and which of its
// live files a reader of that predicate must open.
//
//   PrepareScan  loads the snapshot (latest / version / timestamp), builds the live rows
//                (delta/live_rows.h) and binds the predicate against the table schema
//                (logical names, partition columns included; Delta names are
//                case-insensitive).
//   FileJudge    judges a file: first by partition values (the predicate's
//                partition-only part, evaluated on the typed values), then by statistics
//                (expr::CanSkip on min/max/nullCount, partition columns contributing
//                their exact values).
//   PlanScan / PlanKeptFiles  the judge over every live file.
//
// Pure given a snapshot: no data file is opened, so `files --where` explains exactly what
// a scan would read, and OPTIMIZE's --where scope is the same judgement. The reading
// itself is format-neutral (commands/scan.h over table/live_rows.h).
// Immutable values; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/live_rows.h"
#include "lithify/delta/snapshot.h"
#include "lithify/expr/bound.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/file_entry.h"
#include "lithify/table/file_verdict.h"
#include "lithify/table/value.h"

namespace lithify::delta {

using table::FileVerdict;

// Why a file is or is not read.
struct FileDecision {
  const table::FileEntry* file = nullptr;  // points into the snapshot
  FileVerdict verdict = FileVerdict::kKept;
  std::string reason;                       // empty when kept
  // The file's physical row count from its statistics, when they record it and the file
  // was judged on them (files pruned by partition values never parse theirs).
  std::optional<int64_t> num_records;
};

// A bound predicate over a table version, with the facts planning needs.
struct ScanContext {
  std::shared_ptr<const Snapshot> snapshot;
  // The live rows of the snapshot; null when the schema has no columns (log-only tables).
  std::unique_ptr<DeltaLiveRows> rows;
  // rows->output() (null with rows).
  const OutputSchema* output = nullptr;
  std::optional<expr::BoundExpr> predicate;
  // Per Delta top-level field: the partition column's physical name (log key), or "".
  std::vector<std::string> partition_keys;
};

// Loads the snapshot, builds the output schema and binds `where`. Errors: the snapshot's
// (NotFound, Corruption, NotSupported naming the reader feature); InvalidArgument from
// the parser/binder, prefixed "predicate: " (the CLI reports it as a usage error).
// `load` chooses what the snapshot keeps of per-file statistics (OPTIMIZE plans with
// numRecords only); a predicate that needs statistics then judges files conservatively.
Result<ScanContext> PrepareScan(io::FileSystem* fs, const std::string& table_root,
                                VersionSpec version, std::string_view where,
                                const LoadOptions& load = {});

// Typed partition values of `f`, by Delta top-level field (nullopt for non-partition
// fields and null values). Corruption naming the file for an unparseable value.
Result<std::vector<std::optional<table::Value>>> TypedPartitionValues(const ScanContext& ctx,
                                                                      const table::FileEntry& f);

// Converts a typed partition value / statistic to an expr value of `type` (nullopt when
// it cannot be represented exactly, e.g. a decimal statistic with more digits than the
// type holds, or a bare double of a wide decimal; decimals are read from the number's
// text, never through a double).
std::optional<expr::Value> ToExprValue(const table::Value& v, const expr::DataType& type);

// Judges one file against a context's predicate: first its partition values (the
// predicate's partition-only part), then its statistics (partition columns giving exact
// bounds). PlanScan runs it over the snapshot's files; writers also run it over files a
// concurrent commit added (delete's conflict check). Make requires ctx.predicate; ctx
// must outlive the judge. Decide's FileDecision::file points at `f`. Immutable after
// Make; Decide and Judge are thread-safe.
class FileJudge {
 public:
  static FileJudge Make(const ScanContext& ctx);
  // Corruption naming the file for an unparseable partition value.
  Result<FileDecision> Decide(const table::FileEntry& f) const;
  // The verdict alone, for a file of the snapshot's compact store: no FileEntry and no
  // reason text are built (PlanKeptFiles). Same verdicts and errors as Decide on the
  // file's FileEntry.
  Result<FileVerdict> Judge(const LiveFileView& f) const;
  // Whether the partition step alone skips `f` (false without a partition-only part);
  // fails where Judge fails on the partition values. A function of f's partition values
  // only, so a caller may reuse it for every file with the same values.
  Result<bool> SkipsByPartition(const LiveFileView& f) const;

 private:
  struct Judgement {
    FileVerdict verdict = FileVerdict::kKept;
    std::string reason;  // only when explaining
    std::optional<int64_t> num_records;
  };
  // `File` is table::FileEntry or LiveFileView (DeltaLiveRows reads both).
  template <typename File>
  Result<Judgement> Run(const File& f, bool explain) const;
  // Per bound column: the file's partition value as an expr value (null when the
  // column is no partition column or the value cannot be represented).
  std::vector<expr::Value> PartitionRow(const std::vector<std::optional<table::Value>>& pv) const;

  const ScanContext* ctx_ = nullptr;
  std::vector<int> part_field_;                       // Delta top-level field, or -1
  std::vector<bool> is_partition_;
  std::vector<std::vector<std::string>> stats_path_;  // physical stats path, or empty
  std::shared_ptr<const expr::BoundExpr> part_pred_;  // partition-only part, if any
};

// Decides every live file (snapshot order). With no predicate or prune == false every
// file is kept. Builds the snapshot's FileEntry vector and a decision with its reason
// per file: for reports that show every file (files --where) and planners that work on
// FileEntry values anyway (OPTIMIZE --where).
Result<std::vector<FileDecision>> PlanScan(const ScanContext& ctx, bool prune = true);

// What a scan reads: the kept files, and how many files each verdict had.
struct KeptFiles {
  // Indices into ctx.snapshot->live_files(), in snapshot order (path, DV unique id),
  // the order PlanScan lists them in.
  std::vector<uint32_t> files;
  int64_t files_total = 0;
  int64_t skipped_by_partition = 0;
  int64_t skipped_by_stats = 0;
};

// PlanScan's verdicts, kept files only: every file is judged on the snapshot's compact
// store (FileJudge::Judge), and nothing is kept of a skipped file but its count, so
// planning with a predicate that prunes most of a million files costs about the replay
// and no more memory than the store plus one index per kept file (a snapshot loaded
// with StatsMode::kRaw parses the stats of the files partition values keep only). The
// error is PlanScan's: the first failing file in snapshot order.
Result<KeptFiles> PlanKeptFiles(const ScanContext& ctx, bool prune = true);

}  // namespace lithify::delta
