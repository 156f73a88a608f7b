#include "lithify/delta/bin_io.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/base/thread_pool.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/stats.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rewrite.h"
#include "lithify/delta/table_properties.h"
#include "lithify/io/uri.h"

namespace lithify::delta {

namespace {

using PartitionValuesT = std::map<std::string, std::optional<std::string>>;

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


}  // namespace


Result<RowTracking> RowTrackingOf(const delta::Snapshot& snap, const std::string& op) {
  RowTracking rt;
  if (!IsTrueIgnoringCase(snap.properties(), prop::kEnableRowTracking) || !snap.protocol().HasWriterFeature("rowTracking")) {
    return rt;
  }
  auto id = snap.properties().find(prop::kMaterializedRowIdColumnName.key());
  auto ver = snap.properties().find(prop::kMaterializedRowCommitVersionColumnName.key());
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

Result<std::unique_ptr<DeltaBinIo>> DeltaBinIo::Make(io::FileSystem* fs, std::shared_ptr<const Snapshot> snapshot,
                                                     const DeltaLiveRows* rows, RowTracking rt) {
  std::unique_ptr<DeltaBinIo> io(new DeltaBinIo(fs, snapshot));
  const delta::Snapshot& snap = *snapshot;
  io->rt_ = std::move(rt);
  io->write_context_ = delta::WriteContext::FromSnapshot(snap);
  io->rows_ = rows;
  if (io->rt_.enabled) {
    delta::StructType rt_schema = snap.schema();
    rt_schema.fields.push_back(HiddenLongField(io->rt_.row_id_column, snap.column_mapping_mode()));
    rt_schema.fields.push_back(HiddenLongField(io->rt_.commit_version_column, snap.column_mapping_mode()));
    io->write_context_.schema = rt_schema;
    LITHIFY_ASSIGN_OR_RETURN(io->rt_rows_, delta::DeltaLiveRows::Make(fs, snapshot, std::move(rt_schema)));
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
Status DeltaBinIo::ForEachLiveBatch(const planner::FileRef& ref, const std::vector<int>& leaves,
                                    const LiveBatchFn& fn) const {
  const table::FileEntry* f = Find(ref);
  if (f == nullptr) return Status::Internal("{}: not a live file of version {}", ref.path, snap_.version());
  const std::string path = io::ResolveLocation(snap_.table_root(), f->path);
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> rows, rows_->OpenEntry(*f, leaves));
  table::LiveBatch live;
  for (int rg = 0;; ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, rows->Next(&live));
    if (!more) break;
    if (live.batch.num_rows == 0) continue;
    LITHIFY_RETURN_NOT_OK(fn(*f, live, path, rg));
  }
  return Status::OK();
}

Status DeltaBinIo::ReadFile(const planner::Bin& bin, const planner::FileRef& ref, const EmitFn& emit) {
  return ForEachLiveBatch(ref, data_leaves_, [&](const table::FileEntry& f, table::LiveBatch& live,
                                                 const std::string& path, int rg) -> Status {
    // Row ids come from the file row indexes the primitive keeps for every live row.
    if (rt_.enabled) MaterializeRowTracking(f, live.row_index, &live.batch);
    LITHIFY_ASSIGN_OR_RETURN_CTX(parquet::RowBatch out, conformer_->Conform(std::move(live.batch)),
                                 "{}: row group {}", path, rg);
    LITHIFY_RETURN_NOT_OK_CTX(emit(std::move(out)), "{}: row group {}", path, rg);
    return Status::OK();
  });
}

Status DeltaBinIo::ReadColumns(const planner::Bin& bin, const planner::FileRef& ref, const std::vector<int>& columns,
                               const EmitFn& emit) {
  // Row tracking fills its columns from the whole batch's row indexes: the general path.
  if (rt_.enabled) return exec::BinIo::ReadColumns(bin, ref, columns, emit);
  std::vector<int> leaves;
  for (int c : columns) {
    if (c < 0 || c >= static_cast<int>(data_leaves_.size())) {
      return Status::InvalidArgument("{}: no write column {} to read", ref.path, c);
    }
    leaves.push_back(data_leaves_[c]);
  }
  return ForEachLiveBatch(ref, leaves, [&](const table::FileEntry&, table::LiveBatch& live, const std::string& path,
                                           int rg) -> Status {
    LITHIFY_RETURN_NOT_OK_CTX(emit(std::move(live.batch)), "{}: row group {}", path, rg);
    return Status::OK();
  });
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

namespace {

// Opens `paths` and reads their footers, kOpenAhead at a time: on an
// object store an open is one request (the footer comes with it), so a bin of small files
// is bound by round trips, not by bytes, unless several are in flight. Results by index.
constexpr size_t kOpenAhead = 16;

struct OpenedFooter {
  std::unique_ptr<parquet::FileReader> reader;
  int64_t size = 0;
  bool remote = false;
  uint64_t held = 0;  // bytes the open file keeps in memory
};

std::vector<Result<OpenedFooter>> OpenFooters(io::FileSystem* fs, const std::vector<std::string>& paths) {
  std::vector<Result<OpenedFooter>> out;
  out.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) out.emplace_back(Status::Internal("footer not read"));
  auto open_one = [&](size_t i) -> Result<OpenedFooter> {
    LITHIFY_ASSIGN_OR_RETURN_CTX(std::unique_ptr<io::RandomAccessFile> file, fs->OpenForRead(paths[i]), "{}",
                                 paths[i]);
    OpenedFooter o;
    o.size = static_cast<int64_t>(file->size());
    o.remote = file->read_profile().remote;
    o.held = file->held_bytes();
    LITHIFY_ASSIGN_OR_RETURN_CTX(o.reader, parquet::FileReader::Open(std::move(file)), "{}", paths[i]);
    return o;
  };
  // Every path is opened (errors stay in `out`, by index), on the IO pool: the work is
  // round trips, and kOpenAhead is more than the cores.
  (void)ParallelFor(IoPool(), paths.size(), static_cast<int>(kOpenAhead), [&](size_t i) {
    out[i] = open_one(i);
    return Status::OK();
  });
  return out;
}

}  // namespace

Result<std::optional<DeltaBinIo::ColumnarBin>> DeltaBinIo::PrepareColumnar(const planner::Bin& bin) const {
  if (!columnar_ || row_group_bytes_ > 0 || bin.files.empty()) return std::optional<ColumnarBin>();
  std::vector<const table::FileEntry*> files;
  for (const planner::FileRef& ref : bin.files) {
    const table::FileEntry* f = Find(ref);
    if (f == nullptr) return Status::Internal("{}: not a live file of version {}", ref.path, snap_.version());
    // Row tracking: ids and commit versions of such a file are written into its rows.
    if (rt_.enabled && (f->base_row_id || f->default_row_commit_version)) return std::optional<ColumnarBin>();
    files.push_back(f);
  }
  ColumnarBin cb;
  int held_local = 0;
  uint64_t held_remote = 0;
  // Footers are read a window at a time (memory: one window of readers beyond those kept).
  const size_t window = kOpenAhead * 4;
  for (size_t first = 0; first < files.size(); first += window) {
    std::vector<std::string> paths;
    for (size_t i = first; i < std::min(files.size(), first + window); ++i) {
      paths.push_back(io::ResolveLocation(snap_.table_root(), files[i]->path));
    }
    std::vector<Result<OpenedFooter>> opened = OpenFooters(fs_, paths);
    for (size_t k = 0; k < paths.size(); ++k) {
      const table::FileEntry* f = files[first + k];
      LITHIFY_ASSIGN_OR_RETURN(OpenedFooter o, std::move(opened[k]));
      std::unique_ptr<parquet::FileReader> reader = std::move(o.reader);
      const int64_t size = o.size;
      const bool remote = o.remote;
      const uint64_t held = o.held;
      // Files of other writers qualify when their columns map one to one onto the
      // data-file schema without changing values (parquet/column_map.h); others stream.
      // Fields are matched as the logical reader resolves them: by id only in id mode.
      parquet::ColumnMapOptions mo;
      mo.match_field_ids = snap_.column_mapping_mode() == delta::ColumnMappingMode::kId;
      Result<parquet::ColumnMap> map = parquet::MapColumns(reader->schema(), file_schema_, mo);
      if (!map.ok()) return std::optional<ColumnarBin>();
      int64_t rows = 0;
      for (const parquet::RowGroup& rg : reader->metadata().row_groups) rows += std::max<int64_t>(rg.num_rows, 0);
      if (f->deletion_vector) {
        cb.any_dv = true;
        rows -= std::min<int64_t>(rows, static_cast<int64_t>(f->deletion_vector->cardinality));
      }
      const bool keep = remote ? held_remote + held <= kMaxHeldRemoteBytes : held_local < kMaxHeldLocalInputs;
      if (keep) {
        if (remote) held_remote += held;
        if (!remote) ++held_local;
      } else {
        reader.reset();
      }
      cb.paths.push_back(std::move(paths[k]));
      cb.readers.push_back(std::move(reader));
      cb.sizes.push_back(size);
      cb.files.push_back(f);
      cb.kept_rows.push_back(rows);
      cb.maps.push_back(std::move(*map));
    }
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
  ro.threads = column_threads_;
  ro.split_row_groups = true;  // decoded row groups above the target are re-cut, as the writer would cut them
  // The output has the table's data-file schema, whatever annotations the inputs carry.
  ro.output_schema = file_schema_;
  ro.column_maps = std::move(cb->maps);
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
  std::vector<parquet::RewriteInput> inputs;
  for (size_t i = 0; i < cb->paths.size(); ++i) {
    inputs.push_back({cb->paths[i], std::move(cb->readers[i]), cb->sizes[i]});
  }
  LITHIFY_ASSIGN_OR_RETURN(parquet::RewriteResult written, parquet::RewriteInputs(fs_, std::move(inputs), full, ro));
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

}  // namespace lithify::delta
