#include "lithify/delta/live_rows.h"

#include <algorithm>
#include <cctype>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/stats.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/io/uri.h"

namespace lithify::delta {

namespace {

// One open data file: its reader, its DV, and (unless only rows are wanted) the adapter
// that maps its row groups onto the output schema.
class DeltaFileRows final : public table::LiveRowsReader {
 public:
  DeltaFileRows(std::string path, std::unique_ptr<parquet::FileReader> reader, std::optional<DeletionVector> dv,
                std::unique_ptr<FileAdapter> adapter)
      : path_(std::move(path)), reader_(std::move(reader)), dv_(std::move(dv)), adapter_(std::move(adapter)) {}

  Result<bool> Next(table::LiveBatch* out) override {
    if (rg_ >= reader_->num_row_groups()) return false;
    const int rg = rg_++;
    parquet::RowBatch& batch = out->batch;
    if (adapter_) {
      Result<parquet::RowBatch> rb = adapter_->ReadRowGroup(rg);
      if (!rb.ok()) return NameFile(rb.status().WithContextF("row group {}", rg), path_);
      batch = std::move(*rb);
    } else {
      // Rows only: the footer and the DV are enough.
      batch = parquet::RowBatch{};
      batch.num_rows = reader_->metadata().row_groups[rg].num_rows;
      batch.first_row_index = reader_->RowGroupFirstRow(rg);
    }
    const int64_t first = batch.first_row_index;
    out->row_index.clear();
    if (!dv_) {
      out->row_index.resize(static_cast<size_t>(batch.num_rows));
      for (int64_t i = 0; i < batch.num_rows; ++i) out->row_index[i] = first + i;
      return true;
    }
    std::vector<bool> keep = dv_->KeepMask(static_cast<uint64_t>(first), static_cast<uint64_t>(batch.num_rows));
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      if (keep[i]) out->row_index.push_back(first + i);
    }
    const int64_t kept = static_cast<int64_t>(out->row_index.size());
    deleted_ += batch.num_rows - kept;
    if (kept == batch.num_rows) return true;
    if (adapter_) {
      parquet::FilterRows(&batch, keep);
    } else {
      batch.num_rows = kept;
    }
    return true;
  }

  int64_t deleted_rows() const override { return deleted_; }

 private:
  std::string path_;
  std::unique_ptr<parquet::FileReader> reader_;
  std::optional<DeletionVector> dv_;
  std::unique_ptr<FileAdapter> adapter_;
  int rg_ = 0;
  int64_t deleted_ = 0;
};

}  // namespace

Result<std::unique_ptr<DeltaLiveRows>> DeltaLiveRows::Make(io::FileSystem* fs, std::shared_ptr<const Snapshot> snapshot,
                                                           std::optional<StructType> schema) {
  std::unique_ptr<DeltaLiveRows> r(new DeltaLiveRows());
  r->fs_ = fs;
  r->snapshot_ = std::move(snapshot);
  const Snapshot& s = *r->snapshot_;
  r->schema_ = std::make_unique<StructType>(schema ? std::move(*schema) : s.schema());
  const StructType& st = *r->schema_;
  if (st.fields.empty()) return Status::InvalidArgument("{}: the table has no columns in its schema", s.table_root());
  Result<OutputSchema> out = OutputSchema::Build(st, s.partition_columns());
  if (!out.ok()) return out.status().WithContext(s.table_root());
  r->out_ = std::make_unique<OutputSchema>(std::move(*out));

  // Partition columns: their physical names (the log's partitionValues keys).
  r->partition_keys_.assign(st.fields.size(), "");
  table::TableVersion& v = r->version_;
  for (size_t i = 0; i < st.fields.size(); ++i) {
    const std::string& name = st.fields[i].name;
    bool part = std::any_of(s.partition_columns().begin(), s.partition_columns().end(),
                            [&](const std::string& p) { return AsciiLower(p) == AsciiLower(name); });
    if (!part) continue;
    Result<PhysicalColumn> pc = ResolvePhysicalColumn(st, {name}, s.column_mapping_mode());
    if (!pc.ok()) return pc.status().WithContext(s.table_root());
    r->partition_keys_[i] = pc->path.front();
    table::PartitionField pf;
    pf.name = name;
    if (auto id = st.fields[i].field_id()) pf.source_field_id = static_cast<int32_t>(*id);
    v.partition_fields.push_back(std::move(pf));
  }

  v.format = "delta";
  v.location = s.table_root();
  v.version = s.version();
  v.properties = s.properties();
  for (const OutputLeaf& l : r->out_->leaves()) {
    table::TableColumn c;
    c.logical_path = l.logical_path;
    c.is_partition = l.is_partition;
    c.repeated = l.repeated;
    c.physical_path = l.logical_path;
    if (!l.repeated) {
      Result<PhysicalColumn> pc = ResolvePhysicalColumn(st, l.logical_path, s.column_mapping_mode());
      if (pc.ok()) {
        c.physical_path = pc->path;
        if (!pc->field_ids.empty() && pc->field_ids.back() >= 0) c.field_id = static_cast<int32_t>(pc->field_ids.back());
      }
    }
    v.columns.push_back(std::move(c));
  }
  return r;
}

Result<std::optional<table::FileStats>> DeltaLiveRows::ParsedStats(const table::FileEntry& f) {
  if (!f.stats) return std::optional<table::FileStats>();
  const table::FileStats& s = *f.stats;
  // Parsed at load: the record count or a column is there (raw-only entries have neither).
  if (s.raw.empty() || s.num_records || s.tight_bounds || !s.columns.empty()) return std::optional(s);
  Result<table::FileStats> parsed = ParseStats(s.raw);
  if (!parsed.ok()) return parsed.status().WithContextF("add '{}': stats", f.path);
  return std::optional(std::move(*parsed));
}

Result<std::optional<table::FileStats>> DeltaLiveRows::ParsedStats(const LiveFileView& f) {
  std::optional<std::string_view> raw = f.stats_raw();
  // What ToFileEntry would hold: the text, or only the count (kNumRecords), or nothing.
  if (!raw || raw->empty()) {
    if (!raw && !f.num_records()) return std::optional<table::FileStats>();
    table::FileStats s;
    s.num_records = f.num_records();
    return std::optional(std::move(s));
  }
  Result<table::FileStats> parsed = ParseStats(*raw);
  if (!parsed.ok()) return parsed.status().WithContextF("add '{}': stats", f.path());
  return std::optional(std::move(*parsed));
}

template <typename Lookup>
Result<std::vector<std::optional<table::Value>>> DeltaLiveRows::TypePartitionValues(std::string_view path,
                                                                                    const Lookup& lookup) const {
  const StructType& schema = *schema_;
  std::vector<std::optional<table::Value>> values(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const std::string& key = partition_keys_[i];
    if (key.empty()) continue;
    std::optional<std::string> text;
    if (std::optional<std::optional<std::string_view>> found = lookup(key); found && *found) {
      text.emplace(**found);
    }
    Result<table::Value> v = ParsePartitionValue(schema.fields[i].type, text);
    if (!v.ok()) return v.status().WithContextF("{}: partition column '{}'", path, schema.fields[i].name);
    if (!v->is_null()) values[i] = std::move(*v);
  }
  return values;
}

Result<std::vector<std::optional<table::Value>>> DeltaLiveRows::PartitionValues(const table::FileEntry& f) const {
  return TypePartitionValues(f.path, [&f](const std::string& key) -> std::optional<std::optional<std::string_view>> {
    auto it = f.partition_values.find(key);
    if (it == f.partition_values.end()) return std::nullopt;
    if (!it->second) return std::optional<std::string_view>();
    return std::optional<std::string_view>(*it->second);
  });
}

Result<std::vector<std::optional<table::Value>>> DeltaLiveRows::PartitionValues(const LiveFileView& f) const {
  const StringMapView values = f.partition_values();
  return TypePartitionValues(f.path(), [&values](const std::string& key) { return values.Find(key); });
}

Result<DeltaLiveFile> DeltaLiveRows::Describe(const table::FileEntry& f) const {
  DeltaLiveFile lf;
  lf.entry = &f;
  lf.path = io::ResolveLocation(snapshot_->table_root(), f.path);
  lf.size_bytes = f.size;
  lf.records = f.num_records();
  LITHIFY_ASSIGN_OR_RETURN(std::vector<std::optional<table::Value>> pv, PartitionValues(f));
  for (size_t i = 0; i < pv.size(); ++i) {
    if (!partition_keys_[i].empty()) lf.partition.values.push_back(std::move(pv[i]));
  }
  if (f.deletion_vector) {
    table::DeleteInfo d;
    d.kind = table::DeleteKind::kDeletionVector;
    if (f.deletion_vector->storage_type != "i") d.path = f.deletion_vector->location;
    d.rows = f.deletion_vector->cardinality;
    lf.deletes.push_back(std::move(d));
  }
  return lf;
}

Result<std::unique_ptr<table::LiveRowsReader>> DeltaLiveRows::Open(const table::LiveFile& file,
                                                                   const std::vector<int>& leaves) const {
  const auto* d = dynamic_cast<const DeltaLiveFile*>(&file);
  if (d == nullptr || d->entry == nullptr) {
    return Status::InvalidArgument("{}: not a live file of Delta table {}", file.path, snapshot_->table_root());
  }
  return OpenEntry(*d->entry, leaves);
}

Result<std::unique_ptr<table::LiveRowsReader>> DeltaLiveRows::OpenEntry(const table::FileEntry& f,
                                                                        const std::vector<int>& leaves) const {
  const std::string& root = snapshot_->table_root();
  std::string path = io::ResolveLocation(root, f.path);
  Result<std::unique_ptr<parquet::FileReader>> reader = parquet::FileReader::Open(fs_, path);
  if (!reader.ok()) return NameFile(reader.status(), path);
  std::optional<DeletionVector> dv;
  if (f.deletion_vector) {
    Result<DeletionVector> loaded = LoadDeletionVector(fs_, root, *f.deletion_vector);
    if (!loaded.ok()) return loaded.status().WithContextF("{}: deletion vector", path);
    dv.emplace(std::move(*loaded));
  }
  std::unique_ptr<FileAdapter> adapter;
  if (!leaves.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(auto pv, PartitionValues(f));
    Result<std::unique_ptr<FileAdapter>> made =
        FileAdapter::Make(*out_, snapshot_->column_mapping_mode(), reader->get(), leaves, pv);
    if (!made.ok()) return NameFile(made.status(), path);
    adapter = std::move(*made);
  }
  return std::unique_ptr<table::LiveRowsReader>(
      new DeltaFileRows(std::move(path), std::move(*reader), std::move(dv), std::move(adapter)));
}

}  // namespace lithify::delta
