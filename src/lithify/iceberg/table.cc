#include "lithify/iceberg/table.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/expr/bound.h"
#include "lithify/expr/stats_eval.h"
#include "lithify/iceberg/manifest_pipeline.h"
#include "lithify/iceberg/values.h"

namespace lithify::iceberg {

namespace {

std::optional<expr::DataType> ExprType(const Type& t) {
  using expr::DataType;
  using expr::TypeKind;
  switch (t.id) {
    case TypeId::kBoolean: return DataType::Of(TypeKind::kBoolean);
    case TypeId::kInt: return DataType::Of(TypeKind::kInt32);
    case TypeId::kLong: return DataType::Of(TypeKind::kInt64);
    case TypeId::kFloat: return DataType::Of(TypeKind::kFloat32);
    case TypeId::kDouble: return DataType::Of(TypeKind::kFloat64);
    case TypeId::kDecimal: return DataType::Decimal(t.precision, t.scale);
    case TypeId::kDate: return DataType::Of(TypeKind::kDate);
    case TypeId::kTimestamp: return DataType::Of(TypeKind::kTimestampNtz);
    case TypeId::kTimestampTz: return DataType::Of(TypeKind::kTimestamp);
    case TypeId::kString: return DataType::Of(TypeKind::kString);
    case TypeId::kBinary: case TypeId::kFixed: return DataType::Of(TypeKind::kBinary);
    default: return std::nullopt;  // time, uuid, nanosecond timestamps: not skipped on
  }
}

std::optional<expr::Value> ToExpr(const table::Value& v, const expr::DataType& t) {
  using K = table::Value::Kind;
  using expr::TypeKind;
  switch (v.kind()) {
    case K::kNull: return expr::Value::Null(t);
    case K::kBoolean: return expr::Value::Boolean(v.boolean());
    case K::kInt64: return expr::Value::Integer(expr::IsIntegerKind(t.kind) ? t.kind : TypeKind::kInt64, v.int64());
    case K::kDouble: return expr::Value::Floating(expr::IsFloatKind(t.kind) ? t.kind : TypeKind::kFloat64, v.dbl());
    case K::kString: return expr::Value::String(v.str());
    case K::kBinary: return expr::Value::Binary(v.str());
    case K::kDate: return expr::Value::Date(static_cast<int32_t>(v.int64()));
    case K::kTimestamp: return expr::Value::Timestamp(v.int64());
    case K::kTimestampNtz: return expr::Value::TimestampNtz(v.int64());
    case K::kDecimal:
      if (v.scale() != t.scale) return std::nullopt;
      return expr::Value::Decimal(v.unscaled(), t.precision, t.scale);
  }
  return std::nullopt;
}

// Checked a * b + c (the range arithmetic below must never overflow on hostile bounds).
std::optional<int64_t> MulAdd(int64_t a, int64_t b, int64_t c) {
  int64_t m = 0, r = 0;
  if (__builtin_mul_overflow(a, b, &m) || __builtin_add_overflow(m, c, &r)) return std::nullopt;
  return r;
}

// The first day of month `m` counted from 1970-01 (negative before).
int64_t MonthStartDay(int64_t m) {
  const int64_t y = m >= 0 ? m / 12 : -((-m + 11) / 12);
  return DaysFromCivil(1970 + y, static_cast<unsigned>(m - y * 12 + 1), 1);
}

// The source values a partition value range [lo, hi] of an order-preserving transform
// covers, as expression values of the source column's type, or nothing when the transform
// cannot be inverted into a range (bucket, void, truncated decimals, unknown) or the range
// overflows. *max_truncated: the upper end is a prefix (truncated strings), not a maximum.
std::optional<std::pair<expr::Value, expr::Value>> SourceRange(const Transform& t, const table::Value& lo,
                                                               const table::Value& hi, const expr::DataType& et,
                                                               bool* max_truncated) {
  using K = Transform::Kind;
  using expr::TypeKind;
  *max_truncated = false;
  if (t.kind == K::kIdentity) {
    auto a = ToExpr(lo, et), b = ToExpr(hi, et);
    if (!a || !b) return std::nullopt;
    *max_truncated = et.kind == TypeKind::kString || et.kind == TypeKind::kBinary;
    return std::pair{*a, *b};
  }
  const bool is_int = lo.kind() == table::Value::Kind::kInt64 || lo.kind() == table::Value::Kind::kDate;
  if (!is_int || lo.kind() != hi.kind()) {
    if (t.kind == K::kTruncate && lo.kind() == table::Value::Kind::kString && et.kind == TypeKind::kString) {
      *max_truncated = true;  // truncate(W) keeps a prefix: values start with the upper bound
      return std::pair{expr::Value::String(lo.str()), expr::Value::String(hi.str())};
    }
    return std::nullopt;
  }
  int64_t l = lo.int64(), h = hi.int64();
  // [first, last] in the source's unit: days for dates, microseconds for timestamps.
  std::optional<int64_t> first, last;
  const bool date = et.kind == TypeKind::kDate;
  const bool ts = et.kind == TypeKind::kTimestamp || et.kind == TypeKind::kTimestampNtz;
  constexpr int64_t kMicrosPerDay = 86'400'000'000, kMicrosPerHour = 3'600'000'000;
  auto days_to_unit = [&](int64_t first_day, int64_t next_first_day) {
    if (date) {
      first = first_day;
      last = next_first_day - 1;
    } else {
      first = MulAdd(first_day, kMicrosPerDay, 0);
      last = MulAdd(next_first_day, kMicrosPerDay, -1);
    }
  };
  // Calendar transforms are only inverted within +-1,000,000 years of the epoch.
  constexpr int64_t kMaxYears = 1'000'000;
  auto within = [](int64_t a, int64_t b, int64_t limit) { return a >= -limit && a <= limit && b >= -limit && b <= limit; };
  switch (t.kind) {
    case K::kYear:
      if ((!date && !ts) || !within(l, h, kMaxYears)) return std::nullopt;
      days_to_unit(DaysFromCivil(1970 + l, 1, 1), DaysFromCivil(1970 + h + 1, 1, 1));
      break;
    case K::kMonth:
      if ((!date && !ts) || !within(l, h, 12 * kMaxYears)) return std::nullopt;
      days_to_unit(MonthStartDay(l), MonthStartDay(h + 1));
      break;
    case K::kDay:
      if ((!date && !ts) || !within(l, h, 366 * kMaxYears)) return std::nullopt;
      days_to_unit(l, h + 1);
      break;
    case K::kHour:
      if (!ts || !within(l, h, 24 * 366 * kMaxYears)) return std::nullopt;
      first = MulAdd(l, kMicrosPerHour, 0);
      last = MulAdd(h + 1, kMicrosPerHour, -1);
      break;
    case K::kTruncate:
      if (!expr::IsIntegerKind(et.kind) || t.param <= 0) return std::nullopt;
      first = l;
      if (!__builtin_add_overflow(h, int64_t{t.param} - 1, &h)) last = h;
      break;
    default:
      return std::nullopt;
  }
  if (!first || !last) return std::nullopt;
  auto make = [&](int64_t v) -> std::optional<expr::Value> {
    if (date) {
      if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
      return expr::Value::Date(static_cast<int32_t>(v));
    }
    if (et.kind == TypeKind::kTimestamp) return expr::Value::Timestamp(v);
    if (et.kind == TypeKind::kTimestampNtz) return expr::Value::TimestampNtz(v);
    return expr::Value::Integer(et.kind, v);
  };
  auto a = make(*first), b = make(*last);
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

// The predicate bound against the current schema's flat primitive columns.
struct Skipper {
  std::optional<expr::BoundExpr> bound;
  std::vector<int32_t> field_ids;  // per bound column
  std::vector<Type> types;

  static Result<Skipper> Make(const Schema& schema, const std::optional<expr::Expr>& where) {
    Skipper s;
    if (!where) return s;
    std::vector<expr::BoundColumn> cols;
    std::map<std::vector<std::string>, std::pair<int32_t, Type>> by_path;
    std::function<void(const NestedField&, std::vector<std::string>&)> walk =
        [&](const NestedField& f, std::vector<std::string>& path) {
          path.push_back(f.name);
          if (f.type.id == TypeId::kStruct) {
            for (const NestedField& c : f.type.fields) walk(c, path);
          } else if (auto t = ExprType(f.type)) {
            cols.push_back({path, *t});
            by_path[path] = {f.id, f.type};
          }
          path.pop_back();
        };
    std::vector<std::string> path;
    for (const NestedField& f : schema.fields) walk(f, path);
    // A predicate on a column without a statistics order here (uuid, fixed, nested
    // members of lists) skips nothing: the reader still filters the rows it returns.
    Result<expr::BoundExpr> bound = expr::Bind(*where, expr::ResolverFromColumns(cols));
    if (!bound.ok()) return s;
    expr::BoundExpr b = std::move(*bound);
    for (const expr::BoundColumn& c : b.columns()) {
      auto it = by_path.find(c.path);
      s.field_ids.push_back(it == by_path.end() ? -1 : it->second.first);
      s.types.push_back(it == by_path.end() ? Type() : it->second.second);
    }
    s.bound = std::move(b);
    return s;
  }

  // Whether `f` cannot hold a matching row; *reason says why when it cannot.
  bool Skip(const DataFile& f, const PartitionSpec* spec, std::string* reason) const {
    if (!bound) return false;
    std::vector<expr::ColumnStats> stats(field_ids.size());
    for (size_t i = 0; i < field_ids.size(); ++i) {
      const int32_t id = field_ids[i];
      const expr::DataType& et = bound->columns()[i].type;
      expr::ColumnStats& cs = stats[i];
      cs.timestamps_truncated_to_millis = false;
      auto bound_of = [&](const std::map<int32_t, std::string>& m) -> std::optional<expr::Value> {
        auto it = m.find(id);
        if (it == m.end()) return std::nullopt;
        Result<table::Value> v = DecodeBinaryValue(types[i], it->second);
        if (!v.ok()) return std::nullopt;
        return ToExpr(*v, et);
      };
      cs.min = bound_of(f.lower_bounds);
      cs.max = bound_of(f.upper_bounds);
      if (auto it = f.null_value_counts.find(id); it != f.null_value_counts.end()) cs.null_count = it->second;
      // An identity partition value bounds the column exactly.
      if (spec != nullptr) {
        for (size_t p = 0; p < spec->fields.size() && p < f.partition.size(); ++p) {
          const PartitionField& pf = spec->fields[p];
          if (pf.source_id != id || pf.transform.kind != Transform::Kind::kIdentity) continue;
          const table::Value& pv = f.partition[p];
          if (pv.is_null()) {
            if (!cs.null_count) cs.null_count = f.record_count;
            continue;
          }
          if (auto v = ToExpr(pv, et)) {
            if (!cs.min) cs.min = v;
            if (!cs.max) cs.max = v;
            if (et.kind == expr::TypeKind::kString || et.kind == expr::TypeKind::kBinary) {
              cs.max_may_be_truncated = !(cs.max == v);
            }
            if (!cs.null_count) cs.null_count = 0;
          }
        }
      }
    }
    expr::FileStats fstats;
    fstats.num_records = f.record_count;
    expr::SkipDecision d = expr::CanSkip(*bound, stats, fstats);
    if (d.skip) *reason = std::move(d.reason);
    return d.skip;
  }

  // Whether no file of data manifest `mf` can hold a matching row, judged from the
  // manifest list's partition field summaries alone (the manifest is then never read).
  // A source column takes its range from the first partition field on it whose transform
  // can be inverted (identity, year/month/day/hour, truncate); a summary without bounds, a
  // spec that does not match the summaries, or a float column that may hold NaN skips
  // nothing.
  bool SkipManifest(const ManifestFile& mf, const PartitionSpec* spec, std::string* reason) const {
    if (!bound || spec == nullptr || spec->fields.size() != mf.partitions.size()) return false;
    std::vector<expr::ColumnStats> stats(field_ids.size());
    bool any = false;
    for (size_t i = 0; i < field_ids.size(); ++i) {
      const expr::DataType& et = bound->columns()[i].type;
      expr::ColumnStats& cs = stats[i];
      cs.timestamps_truncated_to_millis = false;
      for (size_t p = 0; p < spec->fields.size(); ++p) {
        const PartitionField& pf = spec->fields[p];
        const FieldSummary& fs = mf.partitions[p];
        if (pf.source_id != field_ids[i] || pf.source_ids.size() > 1) continue;
        if (!fs.contains_null && !cs.null_count) cs.null_count = 0;
        if (cs.min || !fs.lower_bound || !fs.upper_bound) continue;
        if (expr::IsFloatKind(et.kind) && fs.contains_nan.value_or(true)) continue;
        Result<Type> rt = pf.transform.ResultType(types[i]);
        if (!rt.ok()) continue;
        Result<table::Value> lo = DecodeBinaryValue(*rt, *fs.lower_bound);
        Result<table::Value> hi = DecodeBinaryValue(*rt, *fs.upper_bound);
        if (!lo.ok() || !hi.ok() || lo->is_null() || hi->is_null()) continue;
        bool truncated = false;
        if (auto range = SourceRange(pf.transform, *lo, *hi, et, &truncated)) {
          cs.min = std::move(range->first);
          cs.max = std::move(range->second);
          cs.max_may_be_truncated = truncated;
          cs.max_may_exclude_nan = expr::IsFloatKind(et.kind) && fs.contains_nan.value_or(true);
        }
      }
      any = any || cs.min.has_value() || cs.null_count.has_value();
    }
    if (!any) return false;
    expr::SkipDecision d = expr::CanSkip(*bound, stats, expr::FileStats{});
    if (d.skip) *reason = "manifest partition summary: " + std::move(d.reason);
    return d.skip;
  }
};

struct DeleteIndex {
  // Deletion vectors by the recorded path of the data file they reference.
  std::unordered_map<std::string, DeleteFile> dvs;
  // Position delete files by partition key.
  std::unordered_map<std::string, std::vector<DeleteFile>> positions;
  // Equality deletes: partitioned by key, and global (unpartitioned spec).
  std::unordered_map<std::string, std::vector<DeleteFile>> equality;
  std::vector<DeleteFile> global_equality;
  std::unordered_set<std::string> dv_targets_seen;

  Status Add(const TableMetadata& m, const LocationMap& map, ManifestEntry&& e, const std::string& manifest) {
    DeleteFile d;
    d.data_sequence_number = e.sequence_number;
    d.spec_id = e.spec_id;
    const std::string key = PartitionKey(e.spec_id, e.file.partition);
    if (e.file.content == FileContent::kEqualityDeletes) {
      d.kind = DeleteFile::Kind::kEquality;
      if (e.file.file_format != "PARQUET") {
        return Status::NotSupported("{} equality delete files ('{}')", e.file.file_format, e.file.recorded_path);
      }
      d.file = std::move(e.file);
      const PartitionSpec* spec = m.FindSpec(d.spec_id);
      if (spec == nullptr || spec->unpartitioned()) global_equality.push_back(std::move(d));
      else equality[key].push_back(std::move(d));
      return Status::OK();
    }
    if (e.file.file_format == "PUFFIN") {
      d.kind = DeleteFile::Kind::kDeletionVector;
      if (!e.file.referenced_data_file || !e.file.content_offset || !e.file.content_size_in_bytes) {
        return Status::Corruption("{}: deletion vector '{}' without referenced_data_file, content_offset and "
                                  "content_size_in_bytes", manifest, e.file.recorded_path);
      }
      // Keyed by the mapped location, so differently spelled URIs of one file meet.
      std::string target = map.Apply(*e.file.referenced_data_file);
      d.file = std::move(e.file);
      auto [it, inserted] = dvs.emplace(target, std::move(d));
      if (!inserted) {
        return Status::Corruption("{}: two deletion vectors for data file '{}' in one snapshot", manifest, target);
      }
      return Status::OK();
    }
    if (e.file.file_format != "PARQUET") {
      return Status::NotSupported("{} position delete files ('{}')", e.file.file_format, e.file.recorded_path);
    }
    d.kind = DeleteFile::Kind::kPositionFile;
    d.file = std::move(e.file);
    positions[key].push_back(std::move(d));
    return Status::OK();
  }

  bool empty() const { return dvs.empty() && positions.empty() && equality.empty() && global_equality.empty(); }

  void Attach(const LocationMap& map, PlannedFile* p) {
    if (empty()) return;  // most tables: no delete file, nothing to key per data file
    const std::string key = PartitionKey(p->spec_id, p->file.partition);
    bool has_dv = false;
    if (auto it = dvs.find(p->file.path); it != dvs.end()) {
      dv_targets_seen.insert(it->first);
      if (p->data_sequence_number <= it->second.data_sequence_number &&
          PartitionKey(it->second.spec_id, it->second.file.partition) == key) {
        p->deletes.push_back(it->second);
        has_dv = true;
      }
    }
    if (!has_dv) {
      if (auto it = positions.find(key); it != positions.end()) {
        for (const DeleteFile& d : it->second) {
          if (d.file.referenced_data_file && *d.file.referenced_data_file != p->file.recorded_path &&
              map.Apply(*d.file.referenced_data_file) != p->file.path) {
            continue;
          }
          if (p->data_sequence_number <= d.data_sequence_number) p->deletes.push_back(d);
        }
      }
    }
    auto equality_from = [&](const std::vector<DeleteFile>& list) {
      for (const DeleteFile& d : list) {
        if (p->data_sequence_number < d.data_sequence_number) p->deletes.push_back(d);
      }
    };
    if (auto it = equality.find(key); it != equality.end()) equality_from(it->second);
    equality_from(global_equality);
  }
};

}  // namespace

std::string PartitionKey(int32_t spec_id, const std::vector<table::Value>& partition) {
  std::string key(reinterpret_cast<const char*>(&spec_id), sizeof spec_id);
  for (const table::Value& v : partition) AppendKey(v, &key);
  return key;
}

Result<std::shared_ptr<const IcebergTable>> IcebergTable::Open(std::shared_ptr<io::FileSystem> fs,
                                                               std::string_view location, OpenOptions options) {
  LITHIFY_ASSIGN_OR_RETURN(MetadataLocation loc, LocateMetadata(fs.get(), location));
  LITHIFY_ASSIGN_OR_RETURN(std::string text, ReadMetadataText(fs.get(), loc.path));
  LITHIFY_ASSIGN_OR_RETURN(TableMetadata m, ParseTableMetadata(text, loc.path));
  std::shared_ptr<IcebergTable> t(new IcebergTable());
  t->fs_ = std::move(fs);
  t->options_ = std::move(options);
  t->metadata_ = std::move(m);
  t->metadata_path_ = loc.path;
  t->located_by_ = loc.how;
  return std::shared_ptr<const IcebergTable>(std::move(t));
}

Status IcebergTable::PlanFiles(const Snapshot* snapshot, const PlanOptions& options,
                               const std::function<Status(PlannedFile&&)>& sink, PlanStats* stats) const {
  PlanStats local;
  PlanStats& st = stats != nullptr ? *stats : local;
  st = PlanStats();
  if (snapshot == nullptr) return Status::OK();
  if (metadata_.encryption_keys > 0) {
    return Status::NotSupported("{}: encryption (the table lists {} encryption-keys)", metadata_path_,
                                metadata_.encryption_keys);
  }
  LITHIFY_ASSIGN_OR_RETURN(Skipper skipper, Skipper::Make(metadata_.current_schema(), options.where));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests,
                           ReadManifests(fs_.get(), metadata_, *snapshot, options_.locations));
  st.manifests = static_cast<int64_t>(manifests.size());
  DeleteIndex index;
  for (const ManifestFile& mf : manifests) {
    if (mf.content != 1) continue;
    LITHIFY_RETURN_NOT_OK(ReadManifest(fs_.get(), metadata_, *snapshot, mf, options_.locations,
                                       [&](ManifestEntry&& e) {
                                         if (e.status == 2) return Status::OK();
                                         ++st.delete_files;
                                         return index.Add(metadata_, options_.locations, std::move(e), mf.path);
                                       }));
  }
  StatsSelection data_stats = StatsSelection::All();
  if (!options.all_stats) {
    std::vector<int32_t> ids;
    for (int32_t id : skipper.field_ids) {
      if (id >= 0) ids.push_back(id);
    }
    data_stats = StatsSelection::Columns(std::move(ids));
  }
  // A data manifest whose partition summaries exclude the predicate is not read, unless
  // the caller wants every skipped file (files --where): then its files are reported with
  // the manifest's reason. Unread manifests make the dangling-DV check impossible.
  struct DataManifest {
    const ManifestFile* mf;
    const PartitionSpec* spec;
    bool pruned;
    std::string reason;
  };
  std::vector<DataManifest> data;
  std::vector<const ManifestFile*> to_read;
  for (const ManifestFile& mf : manifests) {
    if (mf.content != 0) continue;
    DataManifest d{&mf, metadata_.FindSpec(mf.spec_id), false, {}};
    d.pruned = skipper.SkipManifest(mf, d.spec, &d.reason);
    if (!d.pruned || options.skipped) to_read.push_back(&mf);
    data.push_back(std::move(d));
  }
  ManifestPipeline pipeline(to_read.size(), options.threads,
                            [&](size_t k, const ManifestPipeline::EntrySink& entry_sink) {
                              return ReadManifest(fs_.get(), metadata_, *snapshot, *to_read[k], options_.locations,
                                                  entry_sink, data_stats);
                            });
  bool unread = false;
  size_t next_read = 0;
  for (const DataManifest& d : data) {
    if (d.pruned) ++st.skipped_manifests;
    if (d.pruned && !options.skipped) {
      unread = true;
      const int64_t n = int64_t{d.mf->added_files_count.value_or(0)} + d.mf->existing_files_count.value_or(0);
      st.data_files += n;
      st.skipped_files += n;
      continue;
    }
    LITHIFY_RETURN_NOT_OK(pipeline.Drain(next_read++, [&](ManifestEntry&& e) -> Status {
      if (e.status == 2) return Status::OK();
      ++st.data_files;
      if (e.file.file_format != "PARQUET") {
        return Status::NotSupported("{} data files ('{}'): lithify reads Parquet data files only",
                                    e.file.file_format, e.file.recorded_path);
      }
      PlannedFile p{std::move(e.file), e.spec_id, e.sequence_number, e.file_sequence_number, {}};
      // DVs are matched before skipping so a DV naming a skipped file is not dangling.
      index.Attach(options_.locations, &p);
      std::string reason = d.reason;
      if (d.pruned || skipper.Skip(p.file, d.spec, &reason)) {
        ++st.skipped_files;
        return options.skipped ? options.skipped(std::move(p), std::move(reason)) : Status::OK();
      }
      return sink(std::move(p));
    }));
  }
  for (const auto& [target, dv] : index.dvs) {
    if (!unread && !index.dv_targets_seen.count(target)) {
      return Status::Corruption("deletion vector in '{}' references data file '{}', which is not live in "
                                "snapshot {}", dv.file.recorded_path, target, snapshot->snapshot_id);
    }
  }
  return Status::OK();
}

Result<std::vector<PlannedFile>> IcebergTable::PlanAll(const Snapshot* snapshot, const PlanOptions& options,
                                                       PlanStats* stats) const {
  std::vector<PlannedFile> out;
  LITHIFY_RETURN_NOT_OK(PlanFiles(snapshot, options, [&](PlannedFile&& p) {
    out.push_back(std::move(p));
    return Status::OK();
  }, stats));
  return out;
}

}  // namespace lithify::iceberg
