#include "lithify/base/nesting.h"
#include "lithify/delta/data_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/uuid.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::delta {
namespace {

using Kind = DataType::Kind;
using parquet::FieldSpec;
using parquet::FieldType;

constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

bool NameEq(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Delta's `delta.columnMapping.nested.ids` of an array/map field: "<path>.element",
// "<path>.key", "<path>.value" -> Parquet field id of the nested element.
std::map<std::string, int32_t> NestedIds(const StructField& f) {
  std::map<std::string, int32_t> out;
  auto it = f.metadata.find("delta.columnMapping.nested.ids");
  if (it == f.metadata.end()) return out;
  if (JsonNestedDeeper(it->second)) return out;
  nlohmann::json j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (auto& [k, v] : j.items()) {
    if (v.is_number_integer()) out[k] = static_cast<int32_t>(v.get<int64_t>());
  }
  return out;
}

Result<FieldSpec> TypeSpec(const std::string& name, const DataType& t, bool nullable,
                           const std::string& id_path, const std::map<std::string, int32_t>& nested,
                           ColumnMappingMode mode);

// The FieldSpec of a field (physical name, field id under column mapping).
Result<FieldSpec> FieldToSpec(const StructField& f, ColumnMappingMode mode) {
  LITHIFY_ASSIGN_OR_RETURN(std::string phys, PhysicalName(f, mode));
  LITHIFY_ASSIGN_OR_RETURN(FieldSpec spec,
                           TypeSpec(phys, f.type, f.nullable, phys, NestedIds(f), mode));
  if (mode != ColumnMappingMode::kNone) {
    auto id = f.field_id();
    if (!id) {
      if (mode == ColumnMappingMode::kId) {
        return Status::Corruption("column '{}' has no delta.columnMapping.id in id mode", f.name);
      }
    } else {
      spec.field_id = static_cast<int32_t>(*id);
    }
  }
  return spec;
}

Result<FieldSpec> TypeSpec(const std::string& name, const DataType& t, bool nullable,
                           const std::string& id_path, const std::map<std::string, int32_t>& nested,
                           ColumnMappingMode mode) {
  auto with_nested_id = [&](FieldSpec s, const std::string& path) {
    auto it = nested.find(path);
    if (it != nested.end()) s.field_id = it->second;
    return s;
  };
  switch (t.kind) {
    case Kind::kBoolean: return FieldSpec::Boolean(name, nullable);
    case Kind::kByte: return FieldSpec::Byte(name, nullable);
    case Kind::kShort: return FieldSpec::Short(name, nullable);
    case Kind::kInteger: return FieldSpec::Int(name, nullable);
    case Kind::kLong: return FieldSpec::Long(name, nullable);
    case Kind::kFloat: return FieldSpec::Float(name, nullable);
    case Kind::kDouble: return FieldSpec::Double(name, nullable);
    case Kind::kString: return FieldSpec::String(name, nullable);
    case Kind::kBinary: return FieldSpec::Binary(name, nullable);
    case Kind::kDate: return FieldSpec::Date(name, nullable);
    case Kind::kTimestamp: return FieldSpec::Timestamp(name, nullable);
    case Kind::kTimestampNtz: return FieldSpec::TimestampNtz(name, nullable);
    case Kind::kDecimal: return FieldSpec::Decimal(name, t.precision, t.scale, nullable);
    case Kind::kStruct: {
      std::vector<FieldSpec> kids;
      for (const StructField& f : t.fields) {
        LITHIFY_ASSIGN_OR_RETURN(FieldSpec k, FieldToSpec(f, mode));
        kids.push_back(std::move(k));
      }
      return FieldSpec::Struct(name, std::move(kids), nullable);
    }
    case Kind::kArray: {
      const std::string p = id_path + ".element";
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec el, TypeSpec("element", *t.element, t.contains_null, p,
                                                      nested, mode));
      return FieldSpec::List(name, with_nested_id(std::move(el), p), nullable);
    }
    case Kind::kMap: {
      const std::string pk = id_path + ".key", pv = id_path + ".value";
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec k, TypeSpec("key", *t.key, false, pk, nested, mode));
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec v, TypeSpec("value", *t.value, t.value_contains_null, pv,
                                                     nested, mode));
      return FieldSpec::Map(name, with_nested_id(std::move(k), pk),
                            with_nested_id(std::move(v), pv), nullable);
    }
    default:
      return Status::NotSupported("column '{}': writing type {} is not supported", name,
                                  t.ToString());
  }
}

int FindField(const StructType& schema, std::string_view name) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (schema.fields[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (NameEq(schema.fields[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

bool HiveEscapes(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  return std::string_view("\"#%'*/:=?\\{[]^").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string PartitionTimestampText(int64_t micros, bool utc) {
  (void)utc;  // both kinds are written as the wall clock in UTC
  std::string iso = IsoTimestampMicrosText(micros, false);  // ...THH:MM:SS.ffffff
  size_t t = iso.find('T');
  if (t != std::string::npos) iso[t] = ' ';
  if (FloorMod(micros, 1000000) == 0) iso.resize(iso.size() - 7);  // drop ".000000"
  return iso;
}

std::string DoublePartitionText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Copies rows [begin, end) of `b` (whole rows, levels and values).
parquet::RowBatch SliceRows(const parquet::RowBatch& b, int64_t begin, int64_t end) {
  parquet::RowBatch out;
  out.num_rows = end - begin;
  out.first_row_index = -1;
  out.columns.resize(b.columns.size());
  for (size_t c = 0; c < b.columns.size(); ++c) {
    const parquet::ColumnData& in = b.columns[c];
    parquet::ColumnData& o = out.columns[c];
    if (in.descr) o.Reset(*in.descr);
    o.leaf_index = in.leaf_index;
    o.values.type = in.values.type;
    o.values.type_length = in.values.type_length;
    std::vector<int64_t> starts = parquet::RowLevelStarts(in, b.num_rows);
    const int64_t lb = starts[begin], le = starts[end];
    const int16_t max_def = in.descr ? in.descr->max_def : 0;
    int64_t vb = 0, ve = 0;
    if (in.def_levels.empty()) {
      vb = lb;
      ve = le;
    } else {
      for (int64_t i = 0; i < le; ++i) {
        if (in.def_levels[i] == max_def) {
          if (i < lb) ++vb;
          ++ve;
        }
      }
    }
    o.num_levels = le - lb;
    if (!in.def_levels.empty()) o.def_levels.assign(in.def_levels.begin() + lb, in.def_levels.begin() + le);
    if (!in.rep_levels.empty()) o.rep_levels.assign(in.rep_levels.begin() + lb, in.rep_levels.begin() + le);
    o.values.AppendRange(in.values, vb, ve);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- building blocks

WriteContext WriteContext::FromSnapshot(const Snapshot& snapshot) {
  WriteContext c;
  c.schema = snapshot.schema();
  c.partition_columns = snapshot.partition_columns();
  c.column_mapping_mode = snapshot.column_mapping_mode();
  c.configuration = snapshot.properties();
  return c;
}

Result<WriteContext> WriteContext::FromMetadata(const Metadata& metadata) {
  WriteContext c;
  LITHIFY_ASSIGN_OR_RETURN(c.schema, ParseSchema(metadata.schema_string));
  LITHIFY_ASSIGN_OR_RETURN(c.column_mapping_mode, ParseColumnMappingMode(metadata.configuration));
  c.partition_columns = metadata.partition_columns;
  c.configuration = metadata.configuration;
  return c;
}

Result<parquet::Schema> BuildDataFileSchema(const WriteContext& context) {
  std::vector<FieldSpec> specs;
  for (const StructField& f : context.schema.fields) {
    bool is_partition = false;
    for (const std::string& p : context.partition_columns) is_partition |= NameEq(p, f.name);
    if (is_partition) continue;
    LITHIFY_ASSIGN_OR_RETURN(FieldSpec s, FieldToSpec(f, context.column_mapping_mode));
    specs.push_back(std::move(s));
  }
  if (specs.empty()) {
    return Status::InvalidArgument("the table has no data columns (every column is a partition column)");
  }
  auto schema = parquet::BuildSchema(specs, "spark_schema");
  if (!schema.ok()) return schema.status().WithContext("data file schema");
  return schema;
}

Result<std::optional<std::string>> SerializePartitionValue(const DataType& type,
                                                           const parquet::Value& v) {
  using VK = parquet::Value::Kind;
  if (v.is_null()) return std::optional<std::string>();
  auto wrong = [&]() {
    static constexpr std::string_view kNames[] = {"null", "boolean", "integer", "double", "bytes",
                                                  "decimal", "list", "struct", "map"};
    return Status::InvalidArgument("a {} value does not fit partition type {}",
                                   kNames[static_cast<int>(v.kind())], type.ToString());
  };
  std::string out;
  switch (type.kind) {
    case Kind::kBoolean:
      if (v.kind() != VK::kBool) return wrong();
      out = v.bool_value() ? "true" : "false";
      break;
    case Kind::kByte: case Kind::kShort: case Kind::kInteger: case Kind::kLong:
      if (v.kind() != VK::kInt) return wrong();
      out = fmt::format("{}", v.int_value());
      break;
    case Kind::kFloat: case Kind::kDouble:
      if (v.kind() == VK::kDouble) out = DoublePartitionText(v.double_value());
      else if (v.kind() == VK::kInt) out = DoublePartitionText(static_cast<double>(v.int_value()));
      else return wrong();
      break;
    case Kind::kDecimal:
      if (v.kind() == VK::kDecimal) out = DecimalText(v.decimal(), type.scale);
      else if (v.kind() == VK::kInt) {
        // An integer literal for a decimal column: exact only when it fits the precision.
        std::string digits = fmt::format("{}", v.int_value());
        const int int_digits = static_cast<int>(digits.size()) - (v.int_value() < 0 ? 1 : 0);
        if (v.int_value() != 0 && int_digits > type.precision - type.scale) {
          return Status::InvalidArgument("{} does not fit partition type {}", digits, type.ToString());
        }
        out = type.scale > 0 ? digits + "." + std::string(static_cast<size_t>(type.scale), '0') : digits;
      } else return wrong();
      break;
    case Kind::kString: case Kind::kBinary:
      if (v.kind() != VK::kBytes) return wrong();
      out = v.bytes();
      break;
    case Kind::kDate:
      if (v.kind() != VK::kInt) return wrong();
      out = IsoDateText(v.int_value());
      break;
    case Kind::kTimestamp: case Kind::kTimestampNtz:
      if (v.kind() != VK::kInt) return wrong();
      out = PartitionTimestampText(v.int_value(), type.kind == Kind::kTimestamp);
      break;
    default:
      return Status::NotSupported("partition column type {} is not supported", type.ToString());
  }
  if (out.empty()) return std::optional<std::string>();  // "" is null for partition values
  return std::optional<std::string>(std::move(out));
}

std::string EscapePartitionPathValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if (HiveEscapes(c)) out += fmt::format("%{:02X}", c);
    else out.push_back(ch);
  }
  return out;
}

std::string PartitionDirectory(const std::vector<std::string>& physical_names,
                               const std::vector<std::optional<std::string>>& values) {
  std::string dir;
  for (size_t i = 0; i < physical_names.size(); ++i) {
    dir += EscapePartitionPathValue(physical_names[i]);
    dir.push_back('=');
    const auto& v = i < values.size() ? values[i] : std::nullopt;
    if (!v || v->empty()) dir += kHiveDefaultPartition;
    else dir += EscapePartitionPathValue(*v);
    dir.push_back('/');
  }
  return dir;
}

std::string_view CodecFileNameTag(parquet::CompressionCodec codec) {
  using C = parquet::CompressionCodec;
  switch (codec) {
    case C::kSnappy: return "snappy";
    case C::kGzip: return "gz";
    case C::kLzo: return "lzo";
    case C::kBrotli: return "br";
    case C::kLz4: return "lz4hadoop";
    case C::kZstd: return "zstd";
    case C::kLz4Raw: return "lz4raw";
    default: return "";
  }
}

Result<std::vector<std::string>> PhysicalPartitionColumns(const WriteContext& ctx) {
  std::vector<std::string> out;
  for (const std::string& pc : ctx.partition_columns) {
    int i = FindField(ctx.schema, pc);
    if (i < 0) {
      return Status::InvalidArgument("partition column '{}' is not a column of the table", pc);
    }
    const StructField& f = ctx.schema.fields[i];
    if (!f.type.is_primitive()) {
      return Status::InvalidArgument("partition column '{}' has non-primitive type {}", pc,
                                     f.type.ToString());
    }
    LITHIFY_ASSIGN_OR_RETURN(std::string phys, PhysicalName(f, ctx.column_mapping_mode));
    out.push_back(std::move(phys));
  }
  return out;
}

parquet::WriterOptions DataFileParquetOptions(parquet::WriterOptions options) {
  options.max_statistics_size = std::max(options.max_statistics_size, 1 << 20);
  return options;
}

std::string NewDataFileName(parquet::CompressionCodec codec) {
  std::string_view tag = CodecFileNameTag(codec);
  return fmt::format("part-00000-{}-c000{}{}.parquet", NewUuid(), tag.empty() ? "" : ".", tag);
}

AddFile MakeDataFileAdd(const std::string& rel_path,
                        const std::map<std::string, std::optional<std::string>>& partition_values,
                        int64_t size, std::string stats) {
  AddFile a;
  a.path = EncodeActionPath(rel_path);
  for (const auto& [name, v] : partition_values) {
    a.partition_values[name] = v && !v->empty() ? v : std::nullopt;
  }
  a.size = size;
  a.modification_time = NowMs();
  a.data_change = true;
  a.stats = std::move(stats);
  return a;
}

// ---------------------------------------------------------------- DataFileWriter

struct DataFileWriter::Impl {
  io::FileSystem* fs = nullptr;
  std::string root;
  WriteContext ctx;
  DataWriterOptions opts;
  parquet::Schema file_schema;
  std::shared_ptr<const StatsPlan> stats_plan;
  // Per partition column (table order): its index among the top-level fields, its
  // physical name and type.
  std::vector<int> part_field;
  std::vector<std::string> part_physical;
  std::vector<int> data_field;  // top-level fields that go into data files

  // One partition's state; `writer` is set while a file is open.
  struct Partition {
    std::map<std::string, std::optional<std::string>> values;
    std::string rel_path;
    std::unique_ptr<parquet::FileWriter> writer;
    std::unique_ptr<StatsCollector> stats;
    int64_t rows = 0;
    uint64_t opened_seq = 0;
  };
  std::map<std::string, Partition> partitions;  // by directory
  int open_files = 0;
  uint64_t seq = 0;
  int64_t rows_given = 0;
  int64_t rows_written = 0;
  std::vector<AddFile> added;
  std::vector<std::string> closed;  // relative paths of `added`, kept after Finish
  Status error;
  bool finished = false;

  Status Fail(Status st) {
    if (error.ok()) error = st;
    AbandonAll();
    return st;
  }

  void AbandonAll() {
    for (auto& [dir, p] : partitions) {
      if (p.writer) {
        p.writer->Abandon();
        p.writer.reset();
        --open_files;
      }
    }
  }

  Status CloseFile(Partition& p) {
    if (!p.writer) return Status::OK();
    auto meta = p.writer->Close();
    int64_t size = p.writer->EstimatedFileSize();
    p.writer.reset();
    --open_files;
    if (!meta.ok()) return meta.status().WithContextF("{}", io::JoinPath(root, p.rel_path));
    added.push_back(MakeDataFileAdd(p.rel_path, p.values, size, p.stats->ToJson()));
    closed.push_back(p.rel_path);
    p.rows = 0;
    return Status::OK();
  }

  // Closes the open file with the most bytes (ties: the oldest) to make room.
  Status EvictOne() {
    Partition* victim = nullptr;
    int64_t best = -1;
    for (auto& [dir, p] : partitions) {
      if (!p.writer) continue;
      int64_t size = p.writer->EstimatedFileSize();
      if (size > best || (size == best && p.opened_seq < victim->opened_seq)) {
        best = size;
        victim = &p;
      }
    }
    return victim ? CloseFile(*victim) : Status::OK();
  }

  // Optimized writes: flush row groups instead of closing files (see DataWriterOptions).
  Status FlushAllRowGroups() {
    for (auto& [dir, p] : partitions) {
      if (p.writer) LITHIFY_RETURN_NOT_OK_CTX(p.writer->FlushRowGroup(), "{}", io::JoinPath(root, p.rel_path));
    }
    return Status::OK();
  }

  Status OpenFile(const std::string& dir, Partition& p) {
    const int soft_cap = std::max(1, opts.max_open_files);
    if (opts.optimize_write) {
      while (open_files >= 8 * soft_cap) LITHIFY_RETURN_NOT_OK(EvictOne());
      if (open_files >= soft_cap) LITHIFY_RETURN_NOT_OK(FlushAllRowGroups());
    } else {
      while (open_files >= soft_cap) LITHIFY_RETURN_NOT_OK(EvictOne());
    }
    p.rel_path = dir + NewDataFileName(opts.parquet.codec);
    const std::string full = io::JoinPath(root, p.rel_path);
    LITHIFY_ASSIGN_OR_RETURN(auto out, fs->Create(full));  // the FileSystem names the path
    LITHIFY_ASSIGN_OR_RETURN_CTX(p.writer,
                                 parquet::FileWriter::Open(std::move(out), file_schema, opts.parquet),
                                 "{}", full);
    ++open_files;
    p.opened_seq = ++seq;
    p.rows = 0;
    if (!p.stats) p.stats = std::make_unique<StatsCollector>(stats_plan);
    p.stats->Reset();
    return Status::OK();
  }

  Status WriteInto(const std::string& dir, Partition& p, const parquet::RowBatch& batch) {
    int64_t offset = 0;
    while (offset < batch.num_rows) {
      if (!p.writer) LITHIFY_RETURN_NOT_OK(OpenFile(dir, p));
      int64_t take = batch.num_rows - offset;
      if (opts.max_rows_per_file > 0) take = std::min(take, opts.max_rows_per_file - p.rows);
      if (offset == 0 && take == batch.num_rows) {
        LITHIFY_RETURN_NOT_OK_CTX(p.writer->WriteBatch(batch), "{}", io::JoinPath(root, p.rel_path));
        p.stats->Update(batch);
      } else {
        parquet::RowBatch part = SliceRows(batch, offset, offset + take);
        LITHIFY_RETURN_NOT_OK_CTX(p.writer->WriteBatch(part), "{}", io::JoinPath(root, p.rel_path));
        p.stats->Update(part);
      }
      p.rows += take;
      rows_written += take;
      offset += take;
      if ((opts.max_rows_per_file > 0 && p.rows >= opts.max_rows_per_file) ||
          p.writer->EstimatedFileSize() >= opts.target_file_size_bytes) {
        LITHIFY_RETURN_NOT_OK(CloseFile(p));
      }
    }
    return Status::OK();
  }

  Partition& PartitionFor(const std::vector<std::optional<std::string>>& values, std::string* dir) {
    *dir = PartitionDirectory(part_physical, values);
    Partition& p = partitions[*dir];
    if (p.values.empty()) {
      for (size_t i = 0; i < part_physical.size(); ++i) {
        p.values[part_physical[i]] = values[i] && !values[i]->empty() ? values[i] : std::nullopt;
      }
    }
    return p;
  }
};

DataFileWriter::DataFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DataFileWriter::~DataFileWriter() { Abort(); }

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(io::FileSystem* fs,
                                                             std::string table_root,
                                                             WriteContext context,
                                                             DataWriterOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->fs = fs;
  impl->root = std::move(table_root);
  impl->ctx = std::move(context);
  impl->opts = std::move(options);
  if (impl->opts.target_file_size_bytes <= 0) {
    return Status::InvalidArgument("target file size must be positive, got {}",
                                   impl->opts.target_file_size_bytes);
  }
  // String bounds must be exact in the Parquet footer too before Delta's truncation.
  impl->opts.parquet = DataFileParquetOptions(std::move(impl->opts.parquet));
  const WriteContext& ctx = impl->ctx;
  if (ctx.schema.kind != Kind::kStruct) return Status::InvalidArgument("table schema is not a struct");
  LITHIFY_ASSIGN_OR_RETURN(impl->part_physical, PhysicalPartitionColumns(ctx));
  for (const std::string& pc : ctx.partition_columns) impl->part_field.push_back(FindField(ctx.schema, pc));
  for (size_t i = 0; i < ctx.schema.fields.size(); ++i) {
    if (std::find(impl->part_field.begin(), impl->part_field.end(), static_cast<int>(i)) ==
        impl->part_field.end()) {
      impl->data_field.push_back(static_cast<int>(i));
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(impl->file_schema, BuildDataFileSchema(ctx));
  LITHIFY_ASSIGN_OR_RETURN(impl->stats_plan,
                           StatsPlan::Make(ctx.schema, ctx.partition_columns,
                                           ctx.column_mapping_mode, ctx.configuration,
                                           impl->file_schema));
  return std::unique_ptr<DataFileWriter>(new DataFileWriter(std::move(impl)));
}

const parquet::Schema& DataFileWriter::file_schema() const { return impl_->file_schema; }

int64_t DataFileWriter::rows_written() const { return impl_->rows_written; }
int64_t DataFileWriter::files_closed() const { return static_cast<int64_t>(impl_->closed.size()); }
const std::vector<std::string>& DataFileWriter::closed_files() const { return impl_->closed; }

Status DataFileWriter::WriteRows(const std::vector<std::vector<parquet::Value>>& rows) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.finished) return Status::InvalidArgument("data writer already finished");
  const size_t arity = m.ctx.schema.fields.size();
  // Shred every row first so that a bad row leaves nothing of this call written.
  struct Pending {
    std::unique_ptr<parquet::RowBatchBuilder> builder;
  };
  std::map<std::string, Pending> pending;
  std::vector<std::optional<std::string>> values(m.part_field.size());
  std::vector<parquet::Value> data_row;
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const int64_t row_no = m.rows_given + static_cast<int64_t>(r) + 1;
    if (row.size() != arity) {
      return Status::InvalidArgument("row {}: has {} values, the table has {} columns", row_no,
                                     row.size(), arity);
    }
    for (size_t i = 0; i < m.part_field.size(); ++i) {
      const StructField& f = m.ctx.schema.fields[m.part_field[i]];
      if (row[m.part_field[i]].is_null() && !f.nullable) {
        return Status::InvalidArgument("row {}: column '{}': null in a NOT NULL column", row_no,
                                       f.name);
      }
      auto v = SerializePartitionValue(f.type, row[m.part_field[i]]);
      if (!v.ok()) return v.status().WithContextF("row {}: column '{}'", row_no, f.name);
      values[i] = std::move(*v);
    }
    data_row.clear();
    for (int i : m.data_field) data_row.push_back(row[i]);
    std::string dir = PartitionDirectory(m.part_physical, values);
    Pending& p = pending[dir];
    if (!p.builder) {
      m.PartitionFor(values, &dir);  // registers the partition's values
      p.builder = std::make_unique<parquet::RowBatchBuilder>(m.file_schema);
    }
    Status st = p.builder->Append(data_row);
    if (!st.ok()) return st.WithContextF("row {}", row_no);
  }
  m.rows_given += static_cast<int64_t>(rows.size());
  for (auto& [dir, p] : pending) {
    parquet::RowBatch batch = p.builder->Finish();
    Status st = m.WriteInto(dir, m.partitions[dir], batch);
    if (!st.ok()) return m.Fail(st);
  }
  return Status::OK();
}

Status DataFileWriter::WriteBatch(
    const std::map<std::string, std::optional<std::string>>& partition_values,
    const parquet::RowBatch& batch) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.finished) return Status::InvalidArgument("data writer already finished");
  if (partition_values.size() != m.part_physical.size()) {
    return Status::InvalidArgument("{} partition values given, the table has {} partition columns",
                                   partition_values.size(), m.part_physical.size());
  }
  std::vector<std::optional<std::string>> values;
  for (const std::string& name : m.part_physical) {
    auto it = partition_values.find(name);
    if (it == partition_values.end()) {
      return Status::InvalidArgument("partition value of column '{}' is missing", name);
    }
    values.push_back(it->second);
  }
  if (batch.columns.size() != static_cast<size_t>(m.file_schema.num_leaves())) {
    return Status::InvalidArgument("batch has {} columns, the data file schema has {} leaves",
                                   batch.columns.size(), m.file_schema.num_leaves());
  }
  if (batch.num_rows == 0) return Status::OK();
  std::string dir;
  Impl::Partition& p = m.PartitionFor(values, &dir);
  Status st = m.WriteInto(dir, p, batch);
  if (!st.ok()) return m.Fail(st);
  m.rows_given += batch.num_rows;
  return Status::OK();
}

Status DataFileWriter::CloseOpenFiles() {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  for (auto& [dir, p] : m.partitions) {
    Status st = m.CloseFile(p);
    if (!st.ok()) return m.Fail(st);
  }
  return Status::OK();
}

Result<std::vector<AddFile>> DataFileWriter::Finish() {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  if (m.finished) return Status::InvalidArgument("data writer already finished");
  LITHIFY_RETURN_NOT_OK(CloseOpenFiles());
  m.finished = true;
  return std::move(m.added);
}

void DataFileWriter::Abort() {
  if (impl_) impl_->AbandonAll();
}

}  // namespace lithify::delta
