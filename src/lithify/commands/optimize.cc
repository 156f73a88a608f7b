#include "lithify/commands/optimize.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/commands/cluster.h"
#include "lithify/commands/scan.h"
#include "lithify/delta/write_gate.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/stats.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/exec/batch_conform.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rewrite.h"
#include "lithify/planner/compaction.h"
#include "lithify/planner/target_size.h"

namespace lithify::commands {

namespace {

using FileKeyT = std::pair<std::string, std::string>;  // (path, DV unique id)
using PartitionValuesT = std::map<std::string, std::optional<std::string>>;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool IsTrue(const std::map<std::string, std::string>& props, const std::string& key) {
  auto it = props.find(key);
  return it != props.end() && AsciiLower(it->second) == "true";
}

std::string OperationName(const OptimizeSpec& spec) { return spec.reorg_purge ? "REORG" : "OPTIMIZE"; }

// ---- validation ------------------------------------------------------------------------

Status ValidateSpec(const OptimizeSpec& spec) {
  const std::string op = OperationName(spec);
  if (spec.target_file_size && *spec.target_file_size <= 0) {
    return Status::InvalidArgument("{}: the target file size must be positive, got {}", op, *spec.target_file_size);
  }
  if (spec.min_file_size && *spec.min_file_size < 0) {
    return Status::InvalidArgument("{}: the minimum file size must not be negative, got {}", op, *spec.min_file_size);
  }
  if (spec.max_deleted_rows_ratio &&
      (std::isnan(*spec.max_deleted_rows_ratio) || *spec.max_deleted_rows_ratio < 0 || *spec.max_deleted_rows_ratio > 1)) {
    return Status::InvalidArgument("{}: the maximum deleted-rows ratio must be within [0, 1], got {}", op,
                                   *spec.max_deleted_rows_ratio);
  }
  if (spec.batch_size && *spec.batch_size <= 0) {
    return Status::InvalidArgument("{}: the batch size must be positive, got {}", op, *spec.batch_size);
  }
  if (spec.threads < 0) return Status::InvalidArgument("{}: threads must not be negative, got {}", op, spec.threads);
  if (!spec.spill_dir.empty()) {
    // A missing directory would be created by the first spilled run, somewhere the user
    // did not mean (a typo); sort runs go only into a directory that exists.
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.spill_dir, ec)) {
      return Status::InvalidArgument("{}: the spill directory '{}' does not exist or is not a directory", op,
                                     spec.spill_dir);
    }
  }
  return Status::OK();
}

// What lithify cannot do on this table, refused before anything is written.
Status CheckTableSupported(const delta::Snapshot& snap, const OptimizeSpec& spec) {
  const std::string op = OperationName(spec);
  const std::string& root = snap.table_root();
  if (!snap.CanWrite()) return Status::NotSupported("{}: lithify cannot write this table: {}", root, snap.write_block_reason());
  // Rewrites keep every row as it is, so the data features (constraints, generated and
  // identity columns, append-only) allow them (delta/write_gate.h).
  LITHIFY_RETURN_NOT_OK(delta::CheckWriteOperation(snap, delta::WriteOperation::kRewrite).WithContext(root));
  if (snap.protocol().HasReaderFeature("catalogManaged") || snap.protocol().HasWriterFeature("catalogManaged")) {
    return Status::NotSupported("{}: {} is blocked on catalog-managed tables (as in Delta)", root, op);
  }
  auto dom = snap.domain_metadata().find("delta.clustering");
  if ((spec.reorg_purge || spec.auto_compact_partitions) && dom != snap.domain_metadata().end() &&
      dom->second.configuration.find("[[") != std::string::npos) {
    return Status::NotSupported("{}: the table is liquid-clustered; {} there is clustering (Delta), which lithify "
                                "implements for OPTIMIZE only",
                                root, op);
  }
  return Status::OK();
}

// Delta's verifyPartitionPredicates: --where may reference partition columns only.
Status CheckWherePartitionOnly(const ScanContext& ctx, const OptimizeSpec& spec) {
  if (!ctx.predicate) return Status::OK();
  const delta::Snapshot& snap = *ctx.snapshot;
  for (const expr::BoundColumn& c : ctx.predicate->columns()) {
    bool partition = false;
    if (c.path.size() == 1) {
      for (const std::string& p : snap.partition_columns()) partition = partition || AsciiLower(p) == AsciiLower(c.path[0]);
    }
    if (!partition) {
      std::string parts;
      for (const std::string& p : snap.partition_columns()) parts += (parts.empty() ? "" : ", ") + p;
      return Status::InvalidArgument("{} --where may only reference partition columns; '{}' is not one ({})",
                                     OperationName(spec), expr::ColumnPathText(c.path),
                                     parts.empty() ? "the table is not partitioned" : "partition columns: " + parts);
    }
  }
  return Status::OK();
}

// ---- row tracking (PROTOCOL.md "Row Tracking"; delta-maintenance-facts.md §8) -----------

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

Result<RowTracking> RowTrackingOf(const delta::Snapshot& snap, const std::string& op) {
  RowTracking rt;
  if (!IsTrue(snap.properties(), "delta.enableRowTracking") || !snap.protocol().HasWriterFeature("rowTracking")) {
    return rt;
  }
  auto id = snap.properties().find("delta.rowTracking.materializedRowIdColumnName");
  auto ver = snap.properties().find("delta.rowTracking.materializedRowCommitVersionColumnName");
  if (id == snap.properties().end() || ver == snap.properties().end() || id->second.empty() ||
      ver->second.empty()) {
    return Status::NotSupported(
        "{}: {} on a row-tracking table needs delta.rowTracking.materializedRowIdColumnName and "
        "materializedRowCommitVersionColumnName in the table configuration; they are missing",
        snap.table_root(), op);
  }
  if (snap.column_mapping_mode() == delta::ColumnMappingMode::kId) {
    return Status::NotSupported(
        "{}: {} on a row-tracking table in column mapping mode 'id' is not implemented (the materialized "
        "row-tracking columns would need field ids that no table column may ever reuse)",
        snap.table_root(), op);
  }
  rt.enabled = true;
  rt.row_id_column = id->second;
  rt.commit_version_column = ver->second;
  return rt;
}

// A nullable long field whose logical and physical name is `name`.
delta::StructField HiddenLongField(const std::string& name, delta::ColumnMappingMode mode) {
  delta::StructField f;
  f.name = name;
  f.type.kind = delta::DataType::Kind::kLong;
  f.nullable = true;
  if (mode != delta::ColumnMappingMode::kNone) {
    f.metadata["delta.columnMapping.physicalName"] = nlohmann::json(name).dump();
  }
  return f;
}

// Replaces the nulls of a flat nullable INT64 column by value_of(row).
template <typename F>
void FillNulls(parquet::ColumnData* c, int64_t rows, F value_of) {
  if (c->def_levels.empty()) return;  // no nulls possible
  const int16_t max_def = c->descr->max_def;
  Buffer out(static_cast<size_t>(rows) * 8);
  int64_t k = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t v = c->def_levels[i] == max_def ? c->values.value<int64_t>(k++) : value_of(i);
    std::memcpy(out.data() + i * 8, &v, 8);
    c->def_levels[i] = max_def;
  }
  c->values.fixed = std::move(out);
  c->values.count = rows;
}

// ---- the Delta side of the executor ----------------------------------------------------

// An output file as the bin's result carries it (exec::OutputFile, serializable) and
// back: both runners' results reach the commit through AddOf, so an in-process and an
// out-of-process run commit the same add actions.
exec::OutputFile OutputOf(const delta::AddFile& a, std::string rel_path, int64_t num_records) {
  exec::OutputFile o;
  o.path = std::move(rel_path);
  o.size = a.size;
  o.num_records = num_records;
  o.partition_values = a.partition_values;
  o.modification_time = a.modification_time;
  o.stats = a.stats;
  o.tags = a.tags;
  o.base_row_id = a.base_row_id;
  o.default_row_commit_version = a.default_row_commit_version;
  return o;
}

delta::AddFile AddOf(const exec::OutputFile& o) {
  delta::AddFile a;
  a.path = delta::EncodeActionPath(o.path);
  a.partition_values = o.partition_values;
  a.size = o.size;
  a.modification_time = o.modification_time;
  a.data_change = false;  // OPTIMIZE rearranges data; it adds none
  a.stats = o.stats;
  a.tags = o.tags;
  a.base_row_id = o.base_row_id;
  a.default_row_commit_version = o.default_row_commit_version;
  return a;
}

class DeltaSink final : public exec::BinSink {
 public:
  DeltaSink(std::unique_ptr<delta::DataFileWriter> writer, PartitionValuesT pv)
      : writer_(std::move(writer)), pv_(std::move(pv)) {}
  Status Write(const parquet::RowBatch& batch) override { return writer_->WriteBatch(pv_, batch); }
  Result<std::vector<exec::OutputFile>> Finish() override;
  void Abort() override { writer_->Abort(); }

 private:
  std::unique_ptr<delta::DataFileWriter> writer_;
  PartitionValuesT pv_;
};

Result<std::vector<exec::OutputFile>> DeltaSink::Finish() {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::AddFile> adds, writer_->Finish());
  std::vector<exec::OutputFile> outs;
  for (delta::AddFile& a : adds) {
    Result<std::string> decoded = delta::DecodeActionPath(a.path);
    int64_t records = 0;
    if (a.stats) {
      Result<table::FileStats> st = delta::ParseStats(*a.stats);
      if (st.ok() && st->num_records) records = *st->num_records;
    }
    // Delta drops output files without rows (every input row was deleted).
    if (records == 0) continue;
    outs.push_back(OutputOf(a, decoded.ok() ? *decoded : a.path, records));
  }
  return outs;
}

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
  static Result<std::unique_ptr<DeltaBinIo>> Make(io::FileSystem* fs, const ScanContext& ctx, RowTracking rt);
  Status ReadFile(const planner::Bin& bin, const planner::FileRef& file, const EmitFn& emit) override;
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
  const table::FileEntry* Find(const planner::FileRef& f) const {
    auto it = by_key_.find({f.path, f.dv_unique_id});
    return it == by_key_.end() ? nullptr : it->second;
  }

 private:
  DeltaBinIo(io::FileSystem* fs, const ScanContext& ctx) : fs_(fs), ctx_(ctx), snap_(*ctx.snapshot) {}
  void MaterializeRowTracking(const table::FileEntry& f, const std::vector<int64_t>& row_index,
                              parquet::RowBatch* batch) const;

  // A bin the fast path can take: its inputs (full paths, entries) and the rows each
  // keeps after its DV.
  struct ColumnarBin {
    std::vector<std::string> paths;
    std::vector<const table::FileEntry*> files;
    std::vector<int64_t> kept_rows;
    bool any_dv = false;
  };
  // nullopt when the bin must be streamed (see the class comment); errors of reading
  // an input's footer name the file.
  Result<std::optional<ColumnarBin>> PrepareColumnar(const planner::Bin& bin) const;
  // The output's path relative to the table root, in the bin's partition directory.
  Result<std::string> NewOutputPath(const planner::Bin& bin, parquet::CompressionCodec codec) const;
  // Delta statistics of a file just written: from its footer, else by reading it back.
  Result<std::string> OutputStats(const std::string& path, const parquet::FileMetaData& footer) const;

  io::FileSystem* fs_;
  const ScanContext& ctx_;
  const delta::Snapshot& snap_;
  RowTracking rt_;
  // With row tracking: the table schema plus the two materialized columns, read and
  // written like table columns. `rows_` is ctx_.rows or rt_rows_; `out_` its output.
  std::unique_ptr<delta::DeltaLiveRows> rt_rows_;
  const delta::DeltaLiveRows* rows_ = nullptr;
  const delta::OutputSchema* out_ = nullptr;
  delta::WriteContext write_context_;
  parquet::Schema file_schema_;
  std::vector<int> data_leaves_;  // read leaves that are written (non-partition)
  std::unique_ptr<exec::BatchConformer> conformer_;
  std::map<FileKeyT, const table::FileEntry*> by_key_;
  int64_t row_group_bytes_ = 0;  // 0 = the writer's default
  // The fast path's pieces of DataFileWriter.
  bool columnar_ = true;
  int64_t copy_row_group_min_bytes_ = 0;
  std::vector<std::string> part_physical_;
  std::shared_ptr<const delta::StatsPlan> stats_plan_;
};

Result<std::unique_ptr<DeltaBinIo>> DeltaBinIo::Make(io::FileSystem* fs, const ScanContext& ctx, RowTracking rt) {
  std::unique_ptr<DeltaBinIo> io(new DeltaBinIo(fs, ctx));
  const delta::Snapshot& snap = *ctx.snapshot;
  io->rt_ = std::move(rt);
  io->write_context_ = delta::WriteContext::FromSnapshot(snap);
  io->rows_ = ctx.rows.get();
  if (io->rt_.enabled) {
    delta::StructType rt_schema = snap.schema();
    rt_schema.fields.push_back(HiddenLongField(io->rt_.row_id_column, snap.column_mapping_mode()));
    rt_schema.fields.push_back(HiddenLongField(io->rt_.commit_version_column, snap.column_mapping_mode()));
    io->write_context_.schema = rt_schema;
    LITHIFY_ASSIGN_OR_RETURN(io->rt_rows_, delta::DeltaLiveRows::Make(fs, ctx.snapshot, std::move(rt_schema)));
    io->rows_ = io->rt_rows_.get();
  }
  io->out_ = &io->rows_->output();
  LITHIFY_ASSIGN_OR_RETURN(io->file_schema_, delta::BuildDataFileSchema(io->write_context_));
  const delta::OutputSchema& out = *io->out_;
  for (int l = 0; l < out.schema().num_leaves(); ++l) {
    if (!out.leaves()[l].is_partition) io->data_leaves_.push_back(l);
  }
  // The read batch holds data_leaves_ in order: batch column i is read leaf data_leaves_[i].
  Result<exec::BatchConformer> conf = exec::BatchConformer::Make(out.schema(), io->data_leaves_, io->file_schema_);
  if (!conf.ok()) return conf.status().WithContext(snap.table_root());
  io->conformer_ = std::make_unique<exec::BatchConformer>(std::move(*conf));
  for (const table::FileEntry& f : snap.files()) io->by_key_[{f.path, f.dv_unique_id()}] = &f;
  const delta::WriteContext& wc = io->write_context_;
  LITHIFY_ASSIGN_OR_RETURN(io->part_physical_, delta::PhysicalPartitionColumns(wc));
  LITHIFY_ASSIGN_OR_RETURN(io->stats_plan_, delta::StatsPlan::Make(wc.schema, wc.partition_columns,
                                                                   wc.column_mapping_mode, wc.configuration,
                                                                   io->file_schema_));
  return io;
}

// The materialized columns are the last two read leaves (the last two top-level fields).
void DeltaBinIo::MaterializeRowTracking(const table::FileEntry& f, const std::vector<int64_t>& row_index,
                                        parquet::RowBatch* batch) const {
  const size_t n = batch->columns.size();
  if (f.base_row_id) {
    const int64_t base = *f.base_row_id;
    FillNulls(&batch->columns[n - 2], batch->num_rows, [&](int64_t i) { return base + row_index[i]; });
  }
  if (f.default_row_commit_version) {
    const int64_t v = *f.default_row_commit_version;
    FillNulls(&batch->columns[n - 1], batch->num_rows, [&](int64_t) { return v; });
  }
}

// Live rows through the one primitive (delta/live_rows.h), conformed to the data-file
// schema.
Status DeltaBinIo::ReadFile(const planner::Bin& bin, const planner::FileRef& ref, const EmitFn& emit) {
  const table::FileEntry* f = Find(ref);
  if (f == nullptr) return Status::Internal("{}: not a live file of version {}", ref.path, snap_.version());
  const std::string path = io::JoinPath(snap_.table_root(), f->path);
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> rows, rows_->OpenEntry(*f, data_leaves_));
  table::LiveBatch live;
  for (int rg = 0;; ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, rows->Next(&live));
    if (!more) break;
    parquet::RowBatch& batch = live.batch;
    if (batch.num_rows == 0) continue;
    // Row ids come from the file row indexes the primitive keeps for every live row.
    if (rt_.enabled) MaterializeRowTracking(*f, live.row_index, &batch);
    LITHIFY_ASSIGN_OR_RETURN_CTX(parquet::RowBatch out, conformer_->Conform(std::move(batch)), "{}: row group {}",
                                 path, rg);
    LITHIFY_RETURN_NOT_OK_CTX(emit(std::move(out)), "{}: row group {}", path, rg);
  }
  return Status::OK();
}

Result<std::unique_ptr<exec::BinSink>> DeltaBinIo::OpenSink(const planner::Bin& bin) {
  delta::DataWriterOptions opts;
  // Compaction writes exactly one file per bin (Delta: coalesce(1)), however the output
  // compresses compared to its inputs.
  opts.target_file_size_bytes = std::numeric_limits<int64_t>::max();
  opts.max_open_files = 1;
  if (row_group_bytes_ > 0) opts.parquet.row_group_size_bytes = row_group_bytes_;
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<delta::DataFileWriter> w,
                           delta::DataFileWriter::Open(fs_, snap_.table_root(), write_context_, opts));
  return std::unique_ptr<exec::BinSink>(new DeltaSink(std::move(w), bin.partition_values));
}

Result<std::optional<DeltaBinIo::ColumnarBin>> DeltaBinIo::PrepareColumnar(const planner::Bin& bin) const {
  const std::optional<ColumnarBin> no;
  if (!columnar_ || row_group_bytes_ > 0 || bin.files.empty()) return no;
  ColumnarBin cb;
  for (const planner::FileRef& ref : bin.files) {
    const table::FileEntry* f = Find(ref);
    if (f == nullptr) return Status::Internal("{}: not a live file of version {}", ref.path, snap_.version());
    // Row tracking: ids and commit versions of such a file are written into its rows.
    if (rt_.enabled && (f->base_row_id || f->default_row_commit_version)) return no;
    std::string path = io::JoinPath(snap_.table_root(), f->path);
    LITHIFY_ASSIGN_OR_RETURN_CTX(std::unique_ptr<parquet::FileReader> reader, parquet::FileReader::Open(fs_, path),
                                 "{}", path);
    if (!parquet::CompareSchemas(file_schema_, "the data-file schema", reader->schema(), path).ok()) return no;
    int64_t rows = 0;
    for (const parquet::RowGroup& rg : reader->metadata().row_groups) rows += std::max<int64_t>(rg.num_rows, 0);
    if (f->deletion_vector) {
      cb.any_dv = true;
      rows -= std::min<int64_t>(rows, static_cast<int64_t>(f->deletion_vector->cardinality));
    }
    cb.paths.push_back(std::move(path));
    cb.files.push_back(f);
    cb.kept_rows.push_back(rows);
  }
  return std::optional<ColumnarBin>(std::move(cb));
}

Result<std::string> DeltaBinIo::NewOutputPath(const planner::Bin& bin, parquet::CompressionCodec codec) const {
  std::vector<std::optional<std::string>> values;
  for (const std::string& name : part_physical_) {
    auto it = bin.partition_values.find(name);
    if (it == bin.partition_values.end()) {
      return Status::Internal("bin {}: partition value of column '{}' is missing", bin.id, name);
    }
    values.push_back(it->second);
  }
  return delta::PartitionDirectory(part_physical_, values) + delta::NewDataFileName(codec);
}

Result<std::string> DeltaBinIo::OutputStats(const std::string& path, const parquet::FileMetaData& footer) const {
  LITHIFY_ASSIGN_OR_RETURN_CTX(std::optional<std::string> json, delta::StatsJsonFromFooter(stats_plan_, footer),
                               "{}", path);
  if (json) return std::move(*json);
  // Not exact from the footer (e.g. an array column among the statistics columns).
  LITHIFY_ASSIGN_OR_RETURN_CTX(std::unique_ptr<parquet::FileReader> reader, parquet::FileReader::Open(fs_, path),
                               "{}", path);
  delta::StatsCollector stats(stats_plan_);
  parquet::RowBatch batch;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(auto stream, reader->OpenRowGroup(rg, {}), "{}: row group {}", path, rg);
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(bool more, stream->Next(&batch), "{}: row group {}", path, rg);
      if (!more) break;
      stats.Update(batch);
    }
  }
  return stats.ToJson();
}

Result<std::optional<std::vector<exec::OutputFile>>> DeltaBinIo::RewriteWhole(const planner::Bin& bin,
                                                                              const FilesDoneFn& files_done) {
  LITHIFY_ASSIGN_OR_RETURN(std::optional<ColumnarBin> cb, PrepareColumnar(bin));
  if (!cb) return std::optional<std::vector<exec::OutputFile>>();
  parquet::RewriteOptions ro;
  ro.writer = delta::DataFileParquetOptions(parquet::WriterOptions{});  // as OpenSink's DataFileWriter
  ro.copy_row_group_min_bytes = copy_row_group_min_bytes_;
  ro.split_row_groups = true;  // decoded row groups above the target are re-cut, as the writer would cut them
  LITHIFY_ASSIGN_OR_RETURN(std::string rel, NewOutputPath(bin, ro.writer.codec));
  const std::string full = io::JoinPath(snap_.table_root(), rel);
  // DVs by file row index; one input's DV cached (the rewrite visits inputs in order).
  int dv_input = -1;
  std::optional<delta::DeletionVector> dv;
  if (cb->any_dv) {
    ro.row_filter = [&](int input, int64_t first_row, int64_t num_rows) -> Result<std::vector<bool>> {
      const table::FileEntry& f = *cb->files[input];
      if (!f.deletion_vector) return std::vector<bool>(static_cast<size_t>(num_rows), true);
      if (dv_input != input) {
        dv.reset();
        LITHIFY_ASSIGN_OR_RETURN_CTX(dv, delta::LoadDeletionVector(fs_, snap_.table_root(), *f.deletion_vector),
                                     "{}: deletion vector", cb->paths[input]);
        dv_input = input;
      }
      return dv->KeepMask(static_cast<uint64_t>(first_row), static_cast<uint64_t>(num_rows));
    };
  }
  // Inputs are consumed in order: input i is done once the rows written reach the rows
  // the inputs up to i keep.
  std::vector<int64_t> kept_through(cb->kept_rows.size());
  int64_t kept = 0;
  for (size_t i = 0; i < kept_through.size(); ++i) kept_through[i] = kept += cb->kept_rows[i];
  ro.progress = [&](const parquet::RewriteProgress& p) {
    files_done(static_cast<size_t>(std::upper_bound(kept_through.begin(), kept_through.end(), p.rows_written) -
                                   kept_through.begin()));
  };
  LITHIFY_ASSIGN_OR_RETURN(parquet::RewriteResult written, parquet::RewriteFiles(fs_, cb->paths, full, ro));
  std::vector<exec::OutputFile> outs;
  if (written.rows == 0) {
    // Delta writes no file when every input row was deleted.
    (void)fs_->Delete(full);
    return std::optional<std::vector<exec::OutputFile>>(std::move(outs));
  }
  Result<std::string> stats = OutputStats(full, written.footer);
  if (!stats.ok()) {
    (void)fs_->Delete(full);  // no commit will reference it
    return stats.status();
  }
  const delta::AddFile add = delta::MakeDataFileAdd(rel, bin.partition_values, written.bytes_out, std::move(*stats));
  exec::OutputFile out = OutputOf(add, rel, written.rows);
  out.row_groups_copied = written.row_groups_copied;
  out.pages_copied = written.pages_copied;
  outs.push_back(std::move(out));
  return std::optional<std::vector<exec::OutputFile>>(std::move(outs));
}

// ---- commit ----------------------------------------------------------------------------

// RemoveFile as Delta's removeWithTimestamp(dataChange=false): stats trimmed to numRecords.
delta::RemoveFile MakeRemove(const table::FileEntry& f, int64_t now_ms) {
  delta::RemoveFile r;
  r.path = delta::EncodeActionPath(f.path);
  r.deletion_timestamp = now_ms;
  r.data_change = false;
  r.extended_file_metadata = true;
  r.partition_values = f.partition_values;
  r.size = f.size;
  if (auto n = f.num_records()) r.stats = fmt::format("{{\"numRecords\":{}}}", *n);
  r.tags = f.tags;
  if (f.deletion_vector) r.deletion_vector = delta::DeletionVectorDescriptor::FromRef(*f.deletion_vector);
  r.base_row_id = f.base_row_id;
  r.default_row_commit_version = f.default_row_commit_version;
  return r;
}

// Delta's OptimizeStats percentiles over the added sizes: s[0], s[n/4], s[n/2], s[3n/4], s[n-1].
std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added, const std::vector<const table::FileEntry*>& removed) {
  std::sort(added.begin(), added.end());
  std::map<std::string, std::string> m;
  int64_t added_bytes = 0, removed_bytes = 0, dvs = 0;
  for (int64_t s : added) added_bytes += s;
  for (const table::FileEntry* f : removed) {
    removed_bytes += f->size;
    if (f->deletion_vector) ++dvs;
  }
  const size_t n = added.size();
  m["numAddedFiles"] = std::to_string(n);
  m["numRemovedFiles"] = std::to_string(removed.size());
  m["numAddedBytes"] = std::to_string(added_bytes);
  m["numRemovedBytes"] = std::to_string(removed_bytes);
  if (n > 0) {
    m["minFileSize"] = std::to_string(added[0]);
    m["p25FileSize"] = std::to_string(added[n / 4]);
    m["p50FileSize"] = std::to_string(added[n / 2]);
    m["p75FileSize"] = std::to_string(added[3 * n / 4]);
    m["maxFileSize"] = std::to_string(added[n - 1]);
  }
  m["numDeletionVectorsRemoved"] = std::to_string(dvs);
  return m;
}

nlohmann::json OperationParameters(const OptimizeSpec& spec, const planner::Plan& plan) {
  nlohmann::json p = nlohmann::json::object();
  // Delta stores the predicate list (and zOrderBy / clusterBy) as JSON text.
  const std::string& where = spec.auto_compact_partitions ? spec.auto_compact_predicate : spec.where;
  p["predicate"] = (where.empty() ? nlohmann::json::array() : nlohmann::json::array({where}))
                       .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (spec.reorg_purge) {
    p["applyPurge"] = true;
  } else {
    p["zOrderBy"] = "[]";
    p["clusterBy"] = "[]";
    p["auto"] = spec.auto_compact_partitions.has_value();
    AddClusteringParameters(plan, &p);
  }
  return p;
}

struct BatchCommitter {
  io::FileSystem* fs;
  const std::string& root;
  const OptimizeSpec& spec;
  const planner::Plan& plan;
  DeltaBinIo& bio;
  // The add actions of every bin run so far (from its result), by bin id.
  const std::map<int, std::vector<delta::AddFile>>& adds;
  bool row_tracking = false;

  // Commits `bins` (already rewritten) on `snapshot`; on a concurrent removal of an input,
  // abandons the affected bins and commits the rest on the latest version.
  Result<std::optional<int64_t>> Commit(std::shared_ptr<const delta::Snapshot> snapshot, std::vector<int> bins,
                                        std::vector<AbandonedBin>* abandoned,
                                        std::vector<int>* committed_bins);

 private:
  bool HasAdds(const std::vector<int>& bins) {
    for (int b : bins) {
      if (!AddsOf(b).empty()) return true;
    }
    return false;
  }

 public:
  const std::vector<delta::AddFile>& AddsOf(int bin) const {
    static const std::vector<delta::AddFile> kNone;
    auto it = adds.find(bin);
    return it == adds.end() ? kNone : it->second;
  }
};

Result<std::optional<int64_t>> BatchCommitter::Commit(std::shared_ptr<const delta::Snapshot> snapshot,
                                                      std::vector<int> bins, std::vector<AbandonedBin>* abandoned,
                                                      std::vector<int>* committed_bins) {
  const std::vector<std::string> partition_columns = snapshot->partition_columns();
  for (int attempt = 0; attempt < 10; ++attempt) {
    // Delta: no commit when the batch produced no file (its removes are not committed either).
    if (!HasAdds(bins)) return std::optional<int64_t>();
    LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<delta::Transaction> txn,
                             delta::Transaction::Begin(snapshot, spec.transaction));
    const int64_t now = txn->NowMs();
    std::vector<delta::FileKey> read;
    std::vector<int64_t> added;
    std::vector<const table::FileEntry*> removed;
    for (int b : bins) {
      for (const planner::FileRef& ref : plan.bins[b].files) {
        const table::FileEntry* f = bio.Find(ref);
        if (f == nullptr) return Status::Internal("bin {}: input '{}' vanished from the plan's version", b, ref.path);
        read.push_back({f->path, f->dv_unique_id()});
        txn->AddAction(MakeRemove(*f, now));
        removed.push_back(f);
      }
      for (const delta::AddFile& a : AddsOf(b)) {
        txn->AddAction(a);
        added.push_back(a.size);
      }
    }
    txn->ReadFiles(read);
    if (row_tracking) txn->SetCommitInfoExtra({{"tags", {{"delta.rowTracking.preserved", "true"}}}});
    txn->SetOperation(OperationName(spec), OperationParameters(spec, plan), OperationMetrics(added, removed));
    Result<delta::CommitResult> r = txn->Commit();
    if (r.ok()) {
      *committed_bins = bins;
      return std::optional<int64_t>(r->version);
    }
    if (!r.status().IsConflict()) return r.status().WithContext(root);
    // Lost to a conflicting commit: which inputs are still live on the latest version?
    const Status conflict = r.status();
    LITHIFY_ASSIGN_OR_RETURN(snapshot, delta::Snapshot::Load(fs, root));
    if (snapshot->partition_columns() != partition_columns) {
      return conflict.WithContextF("{}: the partition columns changed concurrently", root);
    }
    std::set<FileKeyT> live;
    for (const table::FileEntry& f : snapshot->files()) live.insert({f.path, f.dv_unique_id()});
    std::vector<int> keep;
    for (int b : bins) {
      std::string gone;
      for (const planner::FileRef& ref : plan.bins[b].files) {
        if (!live.count({ref.path, ref.dv_unique_id})) {
          gone = ref.path;
          break;
        }
      }
      if (gone.empty()) {
        keep.push_back(b);
      } else {
        abandoned->push_back({b, fmt::format("input '{}' was removed or given a new deletion vector by a concurrent "
                                             "commit (latest version {}): {}",
                                             gone, snapshot->version(), conflict.message())});
      }
    }
    if (keep.size() == bins.size()) {
      // Nothing of ours was touched (e.g. a metadata change): Delta retries the same actions.
      if (!snapshot->CanWrite()) return conflict.WithContext(root);
    }
    bins = std::move(keep);
    if (bins.empty()) return std::optional<int64_t>();
  }
  return Status::Conflict("MaxCommitRetriesExceededException", "{}: gave up after 10 conflicting commits", root);
}

// ---- metrics ---------------------------------------------------------------------------

FileSizeMetrics SizeMetrics(const std::vector<int64_t>& sizes) {
  FileSizeMetrics m;
  m.total_files = static_cast<int64_t>(sizes.size());
  for (int64_t s : sizes) {
    m.total_size += s;
    m.min = m.min ? std::min(*m.min, s) : s;
    m.max = m.max ? std::max(*m.max, s) : s;
  }
  m.avg = m.total_files ? static_cast<double>(m.total_size) / static_cast<double>(m.total_files) : 0.0;
  return m;
}

void FillPlanMetrics(const planner::Plan& plan, const delta::Snapshot& snap, OptimizeMetrics* m) {
  m->partitions_optimized = plan.partitions_optimized;
  m->num_bins = static_cast<int64_t>(plan.bins.size());
  m->num_batches = std::max<int64_t>(1, static_cast<int64_t>(plan.batches.size()));
  m->total_considered_files = plan.total_considered_files;
  m->total_files_skipped = plan.total_files_skipped;
  m->num_table_columns = static_cast<int64_t>(snap.schema().fields.size());
  // The statistics writer's reading of the property (-1: every column).
  Result<int> parsed = delta::ParseNumIndexedCols(snap.properties());
  const int64_t indexed = parsed.ok() ? *parsed : delta::kDefaultNumIndexedCols;
  m->num_table_columns_with_stats = indexed < 0 ? m->num_table_columns : std::min(indexed, m->num_table_columns);
}

// The plan's bins run in this process (the thread pool over `bin_io`) or each in a child
// process `runner_program internal run-bin ROOT --at-version V ...` (RunPlanBin there).
Result<std::unique_ptr<exec::BinRunner>> MakeRunner(const OptimizeSpec& spec, const std::string& root,
                                                    int64_t version, const planner::Plan& plan,
                                                    exec::BinIo* bin_io) {
  if (spec.runner == BinRunnerKind::kLocal) return std::unique_ptr<exec::BinRunner>(new exec::LocalBinRunner(bin_io));
  if (spec.runner_program.empty()) {
    return Status::InvalidArgument("{}: the process runner needs the lithify program's path", OperationName(spec));
  }
  if (plan.mode == planner::PlanMode::kZOrder || plan.mode == planner::PlanMode::kLiquid) {
    return Status::NotSupported("{}: {} bins cannot run out of process yet (only compaction and REORG bins)",
                                root, planner::PlanModeName(plan.mode));
  }
  std::vector<std::string> args{"--json", "internal", "run-bin", root, "--at-version", std::to_string(version),
                                "--copy-row-groups-from", std::to_string(spec.copy_row_group_min_bytes)};
  if (!spec.columnar_rewrite) args.push_back("--no-columnar");
  return std::unique_ptr<exec::BinRunner>(new exec::ProcessBinRunner(spec.runner_program, std::move(args)));
}

}  // namespace

Result<exec::BinResult> RunPlanBin(io::FileSystem* fs, const std::string& root, const RunBinSpec& spec) {
  const planner::Plan& plan = spec.plan;
  if (spec.bin_id < 0 || spec.bin_id >= static_cast<int>(plan.bins.size())) {
    return Status::InvalidArgument("run-bin: bin {} is not in the plan ({} bins)", spec.bin_id, plan.bins.size());
  }
  if (plan.mode == planner::PlanMode::kZOrder || plan.mode == planner::PlanMode::kLiquid) {
    return Status::NotSupported("run-bin: {} bins cannot run out of process yet (only compaction and REORG bins)",
                                planner::PlanModeName(plan.mode));
  }
  OptimizeSpec os;
  os.reorg_purge = plan.mode == planner::PlanMode::kReorgPurge;
  delta::LoadOptions load;
  load.stats = delta::StatsMode::kNumRecords;
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, root, delta::VersionSpec::AtVersion(spec.version), "", load));
  const delta::Snapshot& snap = *ctx.snapshot;
  LITHIFY_RETURN_NOT_OK(CheckTableSupported(snap, os));
  LITHIFY_ASSIGN_OR_RETURN(RowTracking rt, RowTrackingOf(snap, OperationName(os)));
  if (!ctx.output) return Status::NotSupported("{}: the table has no columns in its schema", root);
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<DeltaBinIo> bio, DeltaBinIo::Make(fs, ctx, rt));
  bio->set_columnar(spec.columnar_rewrite, spec.copy_row_group_min_bytes);
  const planner::Bin& bin = plan.bins[spec.bin_id];
  // The plan must be of this version: every input live (same path and DV) here.
  for (const planner::FileRef& ref : bin.files) {
    if (bio->Find(ref) == nullptr) {
      return Status::InvalidArgument("{}: bin {}: input '{}' is not a live file of version {} (a plan of another "
                                     "version?)",
                                     root, bin.id, ref.path, snap.version());
    }
  }
  Result<exec::BinResult> r = exec::RewriteBin(bin, bio.get());
  if (!r.ok()) return r.status().WithContextF("{}: bin {}", root, bin.id);
  r->status = Status::OK();
  return r;
}

nlohmann::ordered_json OptimizeMetricsToJson(const OptimizeMetrics& m) {
  auto sizes = [](const FileSizeMetrics& s) {
    nlohmann::ordered_json j;
    j["min"] = s.min ? nlohmann::ordered_json(*s.min) : nlohmann::ordered_json(nullptr);
    j["max"] = s.max ? nlohmann::ordered_json(*s.max) : nlohmann::ordered_json(nullptr);
    j["avg"] = s.avg;
    j["totalFiles"] = s.total_files;
    j["totalSize"] = s.total_size;
    return j;
  };
  nlohmann::ordered_json j;
  j["numFilesAdded"] = m.num_files_added;
  j["numFilesRemoved"] = m.num_files_removed;
  j["filesAdded"] = sizes(m.files_added);
  j["filesRemoved"] = sizes(m.files_removed);
  j["partitionsOptimized"] = m.partitions_optimized;
  j["zOrderStats"] = m.zorder_stats;
  j["clusteringStats"] = m.clustering_stats;
  j["numBins"] = m.num_bins;
  j["numBatches"] = m.num_batches;
  j["totalConsideredFiles"] = m.total_considered_files;
  j["totalFilesSkipped"] = m.total_files_skipped;
  j["preserveInsertionOrder"] = m.preserve_insertion_order;
  j["numFilesSkippedToReduceWriteAmplification"] = m.num_files_skipped_to_reduce_write_amplification;
  j["numBytesSkippedToReduceWriteAmplification"] = m.num_bytes_skipped_to_reduce_write_amplification;
  j["startTimeMs"] = m.start_time_ms;
  j["endTimeMs"] = m.end_time_ms;
  j["totalClusterParallelism"] = m.total_cluster_parallelism;
  j["totalScheduledTasks"] = m.total_scheduled_tasks;
  j["autoCompactParallelismStats"] = nullptr;
  if (m.num_deletion_vectors_removed) {
    nlohmann::ordered_json dv;
    dv["numDeletionVectorsRemoved"] = *m.num_deletion_vectors_removed;
    dv["numDeletionVectorRowsRemoved"] = m.num_deletion_vector_rows_removed.value_or(0);
    j["deletionVectorStats"] = std::move(dv);
  } else {
    j["deletionVectorStats"] = nullptr;
  }
  j["numTableColumns"] = m.num_table_columns;
  j["numTableColumnsWithStats"] = m.num_table_columns_with_stats;
  j["numBinsRewrittenColumnar"] = m.num_bins_rewritten_columnar;  // lithify extensions
  j["numRowGroupsCopied"] = m.num_row_groups_copied;
  j["numPagesCopied"] = m.num_pages_copied;
  return j;
}

Result<OptimizeResult> Optimize(io::FileSystem* fs, const std::string& root, const OptimizeSpec& spec,
                                ProgressFn progress) {
  OptimizeResult result;
  result.dry_run = spec.dry_run;
  result.metrics.start_time_ms = WallMs();
  LITHIFY_RETURN_NOT_OK(ValidateSpec(spec));

  // 1. Snapshot, predicate, table checks.
  // Planning needs sizes, partitions, DVs, tags and numRecords, never column bounds
  // (--where is partition-only): parsed statistics would cost most of the planning time
  // and memory of a 1,000,000-file table.
  delta::LoadOptions load;
  load.stats = delta::StatsMode::kNumRecords;
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, root, delta::VersionSpec::Latest(), spec.where, load));
  const delta::Snapshot& snap = *ctx.snapshot;
  result.read_version = snap.version();
  // Clustering first: Delta refuses any --where on a clustered table by name.
  LITHIFY_ASSIGN_OR_RETURN(ClusteringRequest clustering, ResolveClustering(snap, spec));
  LITHIFY_RETURN_NOT_OK(CheckWherePartitionOnly(ctx, spec));
  LITHIFY_RETURN_NOT_OK(CheckTableSupported(snap, spec));
  LITHIFY_ASSIGN_OR_RETURN(RowTracking rt, RowTrackingOf(snap, OperationName(spec)));
  if (!ctx.output && !snap.files().empty()) {
    return Status::NotSupported("{}: the table has data files but no columns in its schema", root);
  }

  // 2. Scope: files whose partition values satisfy --where.
  // Without --where every file is in scope: skip the per-file judging (a third of the
  // planning time on a 1,000,000-file table).
  std::set<const table::FileEntry*> in_scope;
  if (!spec.where.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(std::vector<FileDecision> decisions, PlanScan(ctx, true));
    for (const FileDecision& d : decisions) {
      if (d.verdict == FileVerdict::kKept) in_scope.insert(d.file);
    }
  }

  // 3. Plan.
  planner::TargetSizeInputs ts;
  ts.explicit_bytes = spec.target_file_size;
  if (auto it = snap.properties().find(delta::kTargetFileSizeProperty); it != snap.properties().end()) ts.table_property = it->second;
  ts.autotune = spec.autotune;
  for (const table::FileEntry& f : snap.files()) ts.table_bytes += f.size;
  LITHIFY_ASSIGN_OR_RETURN(auto target, planner::ResolveTargetFileSize(delta::DeltaPolicy(), ts));
  planner::CompactionOptions co;
  co.mode = spec.reorg_purge ? planner::PlanMode::kReorgPurge : planner::PlanMode::kCompaction;
  co.max_file_size = target.first;
  co.min_file_size = spec.min_file_size.value_or(target.first);
  co.max_deleted_rows_ratio = spec.max_deleted_rows_ratio.value_or(0.05);
  co.batch_size = spec.batch_size;
  co.target_size_source = target.second;
  co.scope_description = spec.where;
  if (!spec.where.empty()) {
    co.in_scope = [&in_scope](const table::FileEntry& f) { return in_scope.count(&f) > 0; };
  }
  if (clustering.active()) {
    LITHIFY_ASSIGN_OR_RETURN(result.plan, PlanClustering(snap.files(), clustering, spec, target.first, target.second,
                                                         co.in_scope, &result.log));
  } else if (spec.auto_compact_partitions) {
    LITHIFY_ASSIGN_OR_RETURN(result.plan, planner::PlanAutoCompaction(delta::DeltaPolicy(), snap.files(), *spec.auto_compact_partitions,
                                                                      spec.auto_compact, &result.log));
  } else {
    LITHIFY_ASSIGN_OR_RETURN(result.plan, planner::PlanCompaction(delta::DeltaPolicy(), snap.files(), co, &result.log));
  }
  const planner::Plan& plan = result.plan;
  FillPlanMetrics(plan, snap, &result.metrics);
  if (plan.mode == planner::PlanMode::kLiquid) result.metrics.clustering_stats = ClusteringStatsJson(plan);
  if (plan.mode == planner::PlanMode::kZOrder) result.metrics.zorder_stats = ZOrderStatsJson(0, 0, 0);
  const int threads = spec.threads > 0 ? spec.threads : exec::DefaultThreads();
  result.metrics.total_cluster_parallelism = threads;
  if (spec.dry_run || plan.bins.empty()) {
    result.metrics.end_time_ms = WallMs();
    return result;
  }

  // 4. Execute and commit, batch by batch.
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<DeltaBinIo> bio, DeltaBinIo::Make(fs, ctx, rt));
  bio->set_columnar(spec.columnar_rewrite, spec.copy_row_group_min_bytes);
  exec::ExecOptions eo;
  eo.threads = threads;
  eo.progress = std::move(progress);
  // Clustering: bins are sorted on their curve key and cut into output_files files.
  exec::BinIo* bin_io = bio.get();
  std::unique_ptr<exec::ClusteringBinIo> cluster_io;
  if (clustering.active()) {
    LITHIFY_ASSIGN_OR_RETURN(cluster_io,
                             MakeClusteringIo(bio.get(), &bio->file_schema(), snap, clustering, spec, threads));
    bin_io = cluster_io.get();
    bio->set_row_group_bytes(ClusteringOutputRowGroupBytes(spec, threads));
  }
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<exec::BinRunner> runner, MakeRunner(spec, root, snap.version(), plan, bin_io));
  std::map<int, std::vector<delta::AddFile>> adds;  // by bin, from the bins' results
  BatchCommitter committer{fs, root, spec, plan, *bio, adds, rt.enabled};
  std::vector<int64_t> added_sizes, removed_sizes;
  int64_t dvs_removed = 0, dv_rows_removed = 0;
  bool any_dv = false;
  for (size_t b = 0; b < plan.batches.size(); ++b) {
    const std::vector<int>& ids = plan.batches[b].bin_ids;
    LITHIFY_ASSIGN_OR_RETURN(std::vector<exec::BinResult> runs, runner->Run(plan, ids, eo));
    result.metrics.total_scheduled_tasks += static_cast<int64_t>(runs.size());
    for (const exec::BinResult& r : runs) {
      if (!r.status.ok() && r.status.code() != StatusCode::kCancelled) return r.status.WithContext(root);
    }
    for (const exec::BinResult& r : runs) {
      if (!r.status.ok()) return r.status.WithContext(root);
      std::vector<delta::AddFile>& bin_adds = adds[r.bin_id];
      for (const exec::OutputFile& o : r.outputs) {
        bin_adds.push_back(AddOf(o));
        result.metrics.num_row_groups_copied += o.row_groups_copied;
        result.metrics.num_pages_copied += o.pages_copied;
      }
      if (r.rewritten_whole) ++result.metrics.num_bins_rewritten_columnar;
    }
    if (plan.mode == planner::PlanMode::kLiquid) {
      for (int id : ids) TagLiquidOutputs(plan.columns, id, &adds[id], &result.log);  // one new ZCube
    }
    if (spec.before_commit) LITHIFY_RETURN_NOT_OK(spec.before_commit(static_cast<int>(b)));
    std::vector<int> committed;
    LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> version,
                             committer.Commit(ctx.snapshot, ids, &result.abandoned, &committed));
    if (version) result.versions.push_back(*version);
    for (int id : committed) {
      for (const delta::AddFile& a : adds[id]) added_sizes.push_back(a.size);
      for (const planner::FileRef& ref : plan.bins[id].files) {
        removed_sizes.push_back(ref.size);
        if (const table::FileEntry* f = bio->Find(ref); f && f->deletion_vector) {
          any_dv = true;
          ++dvs_removed;
          dv_rows_removed += f->deletion_vector->cardinality;
        }
      }
    }
  }
  // Abandoned bins' outputs: no commit references them; remove them now (best effort).
  for (const AbandonedBin& a : result.abandoned) {
    for (const delta::AddFile& add : adds[a.bin_id]) {
      Result<std::string> rel = delta::DecodeActionPath(add.path);
      if (rel.ok() && fs->Delete(io::JoinPath(root, *rel)).ok()) ++result.orphans_deleted;
    }
  }
  OptimizeMetrics& m = result.metrics;
  m.num_files_added = static_cast<int64_t>(added_sizes.size());
  m.num_files_removed = static_cast<int64_t>(removed_sizes.size());
  m.files_added = SizeMetrics(added_sizes);
  m.files_removed = SizeMetrics(removed_sizes);
  m.total_files_skipped = m.total_considered_files - m.num_files_removed;
  if (any_dv) {
    m.num_deletion_vectors_removed = dvs_removed;
    m.num_deletion_vector_rows_removed = dv_rows_removed;
  }
  if (plan.mode == planner::PlanMode::kZOrder) {
    m.zorder_stats = ZOrderStatsJson(m.files_removed.total_files, m.files_removed.total_size, m.partitions_optimized);
  }
  if (cluster_io) {
    for (const auto& [bin, st] : cluster_io->stats()) {
      result.clustering_sort.rows += st.sort.rows;
      result.clustering_sort.runs_spilled += st.sort.runs_spilled;
      result.clustering_sort.bytes_spilled += st.sort.bytes_spilled;
      result.clustering_sort.peak_buffered_bytes =
          std::max(result.clustering_sort.peak_buffered_bytes, st.sort.peak_buffered_bytes);
    }
  }
  m.end_time_ms = WallMs();
  return result;
}

}  // namespace lithify::commands
