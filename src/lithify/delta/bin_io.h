// The Delta side of the executor (exec/executor.h): DeltaBinIo reads a bin's inputs
// through Delta's live-rows primitive (delta/live_rows.h) and writes its output as Delta
// data files (delta/data_writer.h), or concatenates same-schema inputs column by column
// (parquet::RewriteFiles); a bin's output files travel as exec::OutputFile (OutputOf), so
// the commit (delta/committer.h) builds the same add actions whichever runner ran the bin.
// Row tracking (PROTOCOL.md "Row Tracking"): RowTrackingOf tells whether the rewrite must
// materialize row ids and commit versions, and into which hidden columns.
//
// Library lithify_delta_exec (above delta/ and exec/): delta/ itself does not depend on
// the executor. See commands/optimize.h for what OPTIMIZE / REORG do with it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/live_rows.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/delta/data_writer.h"
#include "lithify/exec/batch_conform.h"
#include "lithify/exec/executor.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_map.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"
#include "lithify/planner/plan.h"

namespace lithify::delta {

// Row ids and row commit versions must survive the rewrite: new files get fresh
// baseRowId / defaultRowCommitVersion at commit, so each row's stable values are written
// into the materialized columns the table's configuration names (hidden from the
// schema): the materialized value when the input has one, else baseRowId + the row's
// physical index / the input's defaultRowCommitVersion.
struct RowTracking {
  bool enabled = false;
  std::string row_id_column;
  std::string commit_version_column;
};

// NotSupported naming the table when row tracking is on but lithify cannot preserve it
// (missing materialized column names, column mapping mode 'id'). `op` names the command.
Result<RowTracking> RowTrackingOf(const Snapshot& snap, const std::string& op);

// An output file as the bin's result carries it (exec::OutputFile, serializable): both
// runners' results reach the commit as table::AddedFile (exec::AddedFileOf), so an
// in-process and an out-of-process run commit the same add actions.
exec::OutputFile OutputOf(const AddFile& a, std::string rel_path, int64_t num_records);

// Reads inputs through the logical reader (current schema, column mapping, missing
// columns null, dropped columns ignored), applies DVs, conforms to the data-file schema.
//
// Column-at-a-time fast path (RewriteWhole): when every input of a bin already has
// exactly the data-file schema (physical names, field ids, types, annotations,
// repetition: parquet::CompareSchemas) and no row-tracking value has to be materialized,
// the logical reader would be the identity; the bin is then written by
// parquet::RewriteFiles (each input column chunk decoded once, memory about one column
// chunk, DVs as its row filter) with the writer options, file naming and AddFile of
// DataFileWriter, and the Delta statistics come from the output's footer
// (delta::StatsJsonFromFooter), or from reading the output back where the footer is not
// exact. Bins of any other shape are streamed.
class DeltaBinIo final : public exec::BinIo {
 public:
  // `rows` reads `snapshot`'s live rows (outlives the adapter); `rt` from RowTrackingOf.
  static Result<std::unique_ptr<DeltaBinIo>> Make(io::FileSystem* fs, std::shared_ptr<const Snapshot> snapshot,
                                                 const DeltaLiveRows* rows, RowTracking rt);
  Status ReadFile(const planner::Bin& bin, const planner::FileRef& file, const EmitFn& emit) override;
  // Reads only the data leaves of `columns` (deletion vectors applied, not conformed).
  Status ReadColumns(const planner::Bin& bin, const planner::FileRef& file, const std::vector<int>& columns,
                     const EmitFn& emit) override;
  Result<std::unique_ptr<exec::BinSink>> OpenSink(const planner::Bin& bin) override;
  Result<std::optional<std::vector<exec::OutputFile>>> RewriteWhole(const planner::Bin& bin,
                                                                    const FilesDoneFn& files_done) override;
  // Off: every bin is streamed (tests compare both paths).
  void set_columnar(bool on, int64_t copy_row_group_min_bytes) {
    columnar_ = on;
    copy_row_group_min_bytes_ = copy_row_group_min_bytes;
  }

  // The write batches' schema (every batch ReadFile emits has its leaves, in order).
  const parquet::Schema& file_schema() const { return file_schema_; }
  // Clustering keeps output row groups within its memory budget (the writer buffers one).
  void set_row_group_bytes(int64_t bytes) { row_group_bytes_ = bytes; }
  // Column chunks a columnar bin encodes at once (exec::BinIoOptions::column_threads).
  void set_column_threads(int threads) { column_threads_ = threads; }
  const table::FileEntry* Find(const planner::FileRef& f) const {
    auto it = by_key_.find({f.path, f.dv_unique_id});
    return it == by_key_.end() ? nullptr : it->second;
  }

 private:
  using FileKeyT = std::pair<std::string, std::string>;  // (path, DV unique id)
  DeltaBinIo(io::FileSystem* fs, std::shared_ptr<const Snapshot> snapshot)
      : fs_(fs), snapshot_(std::move(snapshot)), snap_(*snapshot_) {}
  // Streams the live batches of `ref`'s leaves `leaves` (read-schema leaf numbers) to
  // fn(entry, batch, path, row group); empty batches are skipped. The one reading loop of
  // ReadFile and ReadColumns.
  using LiveBatchFn =
      std::function<Status(const table::FileEntry& f, table::LiveBatch& live, const std::string& path, int rg)>;
  Status ForEachLiveBatch(const planner::FileRef& ref, const std::vector<int>& leaves, const LiveBatchFn& fn) const;
  void MaterializeRowTracking(const table::FileEntry& f, const std::vector<int64_t>& row_index,
                              parquet::RowBatch* batch) const;

  // A bin the fast path can take: its inputs (full paths, entries) and the rows each
  // keeps after its DV.
  struct ColumnarBin {
    std::vector<std::string> paths;
    // The readers that checked each input's schema (null past the budget below), handed
    // to RewriteFiles so that the footer is read once and the file opened once.
    std::vector<std::unique_ptr<parquet::FileReader>> readers;
    std::vector<int64_t> sizes;
    std::vector<const table::FileEntry*> files;
    std::vector<int64_t> kept_rows;
    std::vector<parquet::ColumnMap> maps;  // each input's leaves onto the data-file schema
    bool any_dv = false;
  };
  // nullopt when the bin must be streamed (see the class comment); errors of reading
  // an input's footer name the file. The readers stay open for the rewrite: up to
  // kMaxHeldLocalInputs of local files (file handles), and remote files while the bytes
  // they keep (io::RandomAccessFile::held_bytes: at most 64 KiB each) stay within
  // kMaxHeldRemoteBytes; the others' footers are read again by RewriteFiles.
  static constexpr int kMaxHeldLocalInputs = 256;
  static constexpr uint64_t kMaxHeldRemoteBytes = uint64_t{256} << 20;
  Result<std::optional<ColumnarBin>> PrepareColumnar(const planner::Bin& bin) const;
  // The output's path relative to the table root, in the bin's partition directory.
  Result<std::string> NewOutputPath(const planner::Bin& bin, parquet::CompressionCodec codec) const;
  // Delta statistics of a file just written: from its footer, else by reading it back.
  Result<std::string> OutputStats(const std::string& path, const parquet::FileMetaData& footer) const;

  io::FileSystem* fs_;
  std::shared_ptr<const Snapshot> snapshot_;
  const delta::Snapshot& snap_;
  RowTracking rt_;
  // With row tracking: the table schema plus the two materialized columns, read and
  // written like table columns. `rows_` is the snapshot's live rows or rt_rows_; `out_` its output.
  std::unique_ptr<delta::DeltaLiveRows> rt_rows_;
  const delta::DeltaLiveRows* rows_ = nullptr;
  const delta::OutputSchema* out_ = nullptr;
  delta::WriteContext write_context_;
  parquet::Schema file_schema_;
  std::vector<int> data_leaves_;  // read leaves that are written (non-partition)
  std::unique_ptr<exec::BatchConformer> conformer_;
  std::map<FileKeyT, const table::FileEntry*> by_key_;
  int64_t row_group_bytes_ = 0;  // 0 = the writer's default
  int column_threads_ = 0;       // 0 = the CPU pool's size
  // The fast path's pieces of DataFileWriter.
  bool columnar_ = true;
  int64_t copy_row_group_min_bytes_ = 0;
  std::vector<std::string> part_physical_;
  std::shared_ptr<const delta::StatsPlan> stats_plan_;
};

}  // namespace lithify::delta
