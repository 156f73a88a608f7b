#include "lithify/delta/logical_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/parquet/schema_builder.h"
#include "lithify/parquet/value_writer.h"

namespace lithify::delta {

using delta::DataType;
using parquet::ColumnData;
using parquet::ColumnValues;
using parquet::NodeKind;
using parquet::PhysicalType;
using parquet::Repetition;
using DK = delta::DataType::Kind;

namespace {

// ---- output schema ----

Result<parquet::FieldSpec> SpecOf(const std::string& name, const DataType& t) {
  using parquet::FieldSpec;
  using parquet::FieldType;
  switch (t.kind) {
    case DK::kBoolean: return FieldSpec::Boolean(name);
    case DK::kByte: return FieldSpec::Byte(name);
    case DK::kShort: return FieldSpec::Short(name);
    case DK::kInteger: return FieldSpec::Int(name);
    case DK::kLong: return FieldSpec::Long(name);
    case DK::kFloat: return FieldSpec::Float(name);
    case DK::kDouble: return FieldSpec::Double(name);
    case DK::kDecimal: return FieldSpec::Decimal(name, t.precision, t.scale);
    case DK::kString: return FieldSpec::String(name);
    case DK::kBinary: return FieldSpec::Binary(name);
    case DK::kDate: return FieldSpec::Date(name);
    case DK::kTimestamp: return FieldSpec::Timestamp(name);
    case DK::kTimestampNtz: return FieldSpec::TimestampNtz(name);
    // A void column has no values in any file: any leaf type renders its nulls.
    case DK::kVoid: return FieldSpec::Int(name);
    case DK::kVariant:
      return Status::NotSupported("column '{}': variant columns cannot be read by lithify", name);
    case DK::kStruct: {
      std::vector<FieldSpec> children;
      for (const delta::StructField& f : t.fields) {
        LITHIFY_ASSIGN_OR_RETURN(FieldSpec c, SpecOf(f.name, f.type));
        children.push_back(std::move(c));
      }
      return FieldSpec::Struct(name, std::move(children));
    }
    case DK::kArray: {
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec e, SpecOf("element", *t.element));
      return FieldSpec::List(name, std::move(e));
    }
    case DK::kMap: {
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec k, SpecOf("key", *t.key));
      LITHIFY_ASSIGN_OR_RETURN(FieldSpec v, SpecOf("value", *t.value));
      return FieldSpec::Map(name, std::move(k), std::move(v));
    }
  }
  return Status::Internal("unknown Delta type");
}

struct LeafWalk {
  const parquet::Schema& schema;
  std::vector<OutputLeaf>* leaves;
  int top_field;
  bool is_partition;

  void Visit(const DataType& t, int node, std::vector<std::string>& path, bool repeated) {
    const parquet::SchemaNode& n = schema.node(node);
    if (t.is_primitive()) {
      OutputLeaf& l = (*leaves)[n.leaf_index];
      l.logical_path = path;
      l.type = &t;
      l.top_field = top_field;
      l.is_partition = is_partition;
      l.repeated = repeated;
      return;
    }
    switch (t.kind) {
      case DK::kStruct:
        for (size_t i = 0; i < t.fields.size(); ++i) {
          path.push_back(t.fields[i].name);
          Visit(t.fields[i].type, n.children[i], path, repeated);
          path.pop_back();
        }
        return;
      case DK::kArray:
        path.push_back("element");
        Visit(*t.element, n.element_node, path, true);
        path.pop_back();
        return;
      case DK::kMap:
        path.push_back("key");
        Visit(*t.key, n.key_node, path, true);
        path.back() = "value";
        Visit(*t.value, n.value_node, path, true);
        path.pop_back();
        return;
      default: return;
    }
  }
};

// ---- value conversion ----

using parquet::ValueWriter;

bool IsMicrosInt64(const parquet::ColumnDescriptor& leaf) {
  return leaf.physical_type == PhysicalType::kInt64 &&
         parquet::Int64TimeUnit(leaf) == parquet::TimeUnit::kMicros;
}

// Also the legacy DATE converted type: Delta reads files older writers made.
bool IsDateLeaf(const parquet::ColumnDescriptor& leaf) {
  const parquet::SchemaElement& e = *leaf.element;
  return e.logical_type.kind == parquet::LogicalType::Kind::kDate ||
         e.converted_type == parquet::ConvertedType::kDate;
}

// Converts the dense values of file leaf `in_leaf` to the output leaf's physical form for
// Delta type `t` (see the header for the list of conversions).
Result<ColumnValues> ConvertValues(ColumnValues in, const parquet::ColumnDescriptor& in_leaf,
                                   const DataType& t, const parquet::ColumnDescriptor& out_leaf) {
  const PhysicalType ip = in.type;
  const PhysicalType op = out_leaf.physical_type;
  auto mismatch = [&]() {
    return Status::Corruption("column '{}': Parquet type {} cannot hold Delta type {}",
                              in_leaf.dotted_path, parquet::PhysicalTypeName(ip), t.ToString());
  };
  const int64_t n = in.count;
  ValueWriter w(out_leaf, n);
  expr::BatchColumn bc;
  LITHIFY_ASSIGN_OR_RETURN(bc, expr::DescribeLeaf(in_leaf, 0));
  switch (t.kind) {
    case DK::kBoolean:
      if (ip != PhysicalType::kBoolean) return mismatch();
      return in;
    case DK::kByte: case DK::kShort: case DK::kInteger: case DK::kLong:
      if (ip == op) return in;
      if (ip == PhysicalType::kInt32) {
        for (int64_t i = 0; i < n; ++i) w.Int64(in.value<int32_t>(i));
      } else if (ip == PhysicalType::kInt64) {
        for (int64_t i = 0; i < n; ++i) w.Int32(static_cast<int32_t>(in.value<int64_t>(i)));
      } else {
        return mismatch();
      }
      return w.Finish();
    case DK::kFloat:
    case DK::kDouble:
      if (ip == op) return in;
      for (int64_t i = 0; i < n; ++i) {
        double d;
        switch (ip) {
          case PhysicalType::kFloat: d = in.value<float>(i); break;
          case PhysicalType::kDouble: d = in.value<double>(i); break;
          case PhysicalType::kInt32: d = in.value<int32_t>(i); break;
          case PhysicalType::kInt64: d = static_cast<double>(in.value<int64_t>(i)); break;
          default: return mismatch();
        }
        if (op == PhysicalType::kFloat) w.Float(static_cast<float>(d)); else w.Double(d);
      }
      return w.Finish();
    case DK::kDecimal: {
      const int32_t fs = parquet::DecimalFileScale(in_leaf);
      if (fs > t.scale) {
        return Status::NotSupported("column '{}': decimal scale {} in the file is above the table's {}",
                                    in_leaf.dotted_path, fs, t.scale);
      }
      if (ip == op && fs == t.scale && in.type_length == out_leaf.type_length) return in;
      if (ip != PhysicalType::kInt32 && ip != PhysicalType::kInt64 &&
          ip != PhysicalType::kFixedLenByteArray && ip != PhysicalType::kByteArray) {
        return mismatch();
      }
      const expr::int128_t mul = expr::Pow10(t.scale - fs);
      const expr::DataType dt = expr::DataType::Decimal(expr::kMaxDecimalPrecision, fs);
      for (int64_t i = 0; i < n; ++i) {
        w.Decimal(expr::DecodeValue(in, bc, dt, i).unscaled() * mul);
      }
      return w.Finish();
    }
    case DK::kString:
    case DK::kBinary:
      if (ip == PhysicalType::kByteArray) return in;
      if (ip != PhysicalType::kFixedLenByteArray) return mismatch();
      for (int64_t i = 0; i < n; ++i) {
        w.Bytes({reinterpret_cast<const char*>(in.fixed_at(i)), static_cast<size_t>(in.type_length)});
      }
      return w.Finish();
    case DK::kDate:
      if (ip != PhysicalType::kInt32) return mismatch();
      return in;
    case DK::kTimestamp:
    case DK::kTimestampNtz: {
      if (ip == PhysicalType::kInt64 && IsMicrosInt64(in_leaf)) return in;
      if (ip == PhysicalType::kInt32 && IsDateLeaf(in_leaf)) {  // date -> timestamp_ntz widening
        for (int64_t i = 0; i < n; ++i) w.Int64(DaysToMicros(in.value<int32_t>(i)));
        return w.Finish();
      }
      if (ip != PhysicalType::kInt64 && ip != PhysicalType::kInt96) return mismatch();
      const expr::DataType dt = expr::DataType::Of(expr::TypeKind::kTimestamp);
      for (int64_t i = 0; i < n; ++i) w.Int64(expr::DecodeValue(in, bc, dt, i).int_value());
      return w.Finish();
    }
    case DK::kVoid:
      if (n != 0) return mismatch();
      return w.Finish();
    default: return mismatch();
  }
}

// One constant partition value repeated `n` times in the output leaf's physical form.
Result<ColumnValues> ConstantValues(const table::Value& v, const DataType& t,
                                    const parquet::ColumnDescriptor& out, int64_t n) {
  ValueWriter w(out, n);
  using VK = table::Value::Kind;
  for (int64_t i = 0; i < n; ++i) {
    switch (t.kind) {
      case DK::kBoolean: w.Bool(v.boolean()); break;
      case DK::kByte: case DK::kShort: case DK::kInteger: w.Int32(static_cast<int32_t>(v.int64())); break;
      case DK::kLong: w.Int64(v.int64()); break;
      case DK::kFloat: w.Float(static_cast<float>(v.kind() == VK::kDouble ? v.dbl() : v.int64())); break;
      case DK::kDouble: w.Double(v.kind() == VK::kDouble ? v.dbl() : static_cast<double>(v.int64())); break;
      case DK::kDecimal: {
        if (v.kind() != VK::kDecimal) return Status::Internal("partition value is not a decimal");
        expr::int128_t u = v.unscaled();
        if (v.scale() < t.scale) u *= expr::Pow10(t.scale - v.scale());
        if (v.scale() > t.scale) u /= expr::Pow10(v.scale() - t.scale);
        w.Decimal(u);
        break;
      }
      case DK::kString: case DK::kBinary: w.Bytes(v.str()); break;
      case DK::kDate: w.Int32(static_cast<int32_t>(v.int64())); break;
      case DK::kTimestamp: case DK::kTimestampNtz: w.Int64(v.int64()); break;
      default:
        return Status::NotSupported("partition column of type {}", t.ToString());
    }
  }
  return w.Finish();
}

// ---- file -> output leaf plans ----

// One step on the path from the root to a leaf: whether it adds a definition level in
// the file (f) and in the output (o), and whether it is the repeated step of a list/map.
struct Step {
  int16_t f = 0;
  int16_t o = 0;
  bool repeated = false;
};

struct LeafPlan {
  enum class Kind { kFile, kDonor, kNull, kPartition } kind = Kind::kNull;
  int out_leaf = -1;
  int file_leaf = -1;   // kFile / kDonor
  int read_index = -1;  // position of file_leaf among the leaves read
  std::vector<int16_t> def_map;  // file def level -> output def level
  int16_t rep_cap = 0;           // kDonor: keep only entries with rep <= rep_cap
  std::optional<table::Value> partition_value;
};

// def_map over `steps` for a file leaf with `file_max_def`: the number of leading steps
// defined at file level d gives the output level.
std::vector<int16_t> DefMap(const std::vector<Step>& steps, int16_t file_max_def) {
  std::vector<int16_t> map(file_max_def + 1, 0);
  for (int d = 0; d <= file_max_def; ++d) {
    int cum_f = 0;
    int16_t out = 0;
    for (const Step& s : steps) {
      if (cum_f + s.f > d) break;
      cum_f += s.f;
      out = static_cast<int16_t>(out + s.o);
    }
    map[d] = out;
  }
  return map;
}

Repetition RepOf(const parquet::SchemaNode& n) { return n.repetition; }

class Planner {
 public:
  Planner(const OutputSchema& out, delta::ColumnMappingMode mode, const parquet::Schema& file,
          const std::string& file_path)
      : out_(out), mode_(mode), file_(file), path_(file_path) {}

  std::map<int, LeafPlan> plans;  // by output leaf

  // The file child of group `file_node` holding Delta field `f`, or -1.
  int FindChild(int file_node, const delta::StructField& f) const {
    const parquet::SchemaNode& n = file_.node(file_node);
    std::string want = f.name;
    if (mode_ != delta::ColumnMappingMode::kNone) {
      if (auto p = f.physical_name()) want = *p;
    }
    if (mode_ == delta::ColumnMappingMode::kId) {
      if (auto id = f.field_id()) {
        for (int c : n.children) {
          if (file_.node(c).element.field_id && *file_.node(c).element.field_id == *id) return c;
        }
      }
    }
    for (int c : n.children) {
      if (file_.node(c).name == want) return c;
    }
    // Spark resolves columns case-insensitively when unambiguous.
    int found = -1;
    for (int c : n.children) {
      if (AsciiLower(file_.node(c).name) == AsciiLower(want)) {
        if (found >= 0) return -1;
        found = c;
      }
    }
    return found;
  }

  // Visits the value of Delta type `t` at output node `out_node`; `file_node` is its
  // counterpart in the file (-1 when absent, then `missing_at`/`donor_node` say where
  // the file stopped having it).
  Status Visit(const DataType& t, int out_node, int file_node, std::vector<Step>& steps,
               size_t missing_at, int donor_node, const std::string& name) {
    const parquet::Schema& os = out_.schema();
    const parquet::SchemaNode& on = os.node(out_node);
    const parquet::SchemaNode* fn = file_node >= 0 ? &file_.node(file_node) : nullptr;
    auto shape_error = [&](std::string_view what) {
      return Status::Corruption("{}: column '{}': file has {} where the table has {}", path_, name,
                                what, t.ToString());
    };
    if (t.is_primitive()) {
      LeafPlan p;
      p.out_leaf = on.leaf_index;
      if (fn != nullptr) {
        if (!fn->is_leaf()) return shape_error("a group");
        p.kind = LeafPlan::Kind::kFile;
        p.file_leaf = fn->leaf_index;
        int16_t sum_f = 0;
        for (const Step& s : steps) sum_f = static_cast<int16_t>(sum_f + s.f);
        const parquet::ColumnDescriptor& fl = file_.leaf(fn->leaf_index);
        if (sum_f != fl.max_def) {
          return Status::Internal("{}: column '{}': level layout mismatch ({} vs {})", path_, name,
                                  sum_f, fl.max_def);
        }
        p.def_map = DefMap(steps, fl.max_def);
      } else {
        std::vector<int> under = donor_node > 0 ? file_.LeavesUnder(donor_node) : std::vector<int>{};
        if (under.empty()) {
          p.kind = LeafPlan::Kind::kNull;
        } else {
          p.kind = LeafPlan::Kind::kDonor;
          p.file_leaf = under.front();
          std::vector<Step> prefix(steps.begin(), steps.begin() + missing_at);
          p.def_map = DefMap(prefix, file_.leaf(p.file_leaf).max_def);
          for (const Step& s : prefix) p.rep_cap = static_cast<int16_t>(p.rep_cap + (s.repeated ? 1 : 0));
        }
      }
      plans[p.out_leaf] = std::move(p);
      return Status::OK();
    }
    switch (t.kind) {
      case DK::kStruct: {
        if (fn != nullptr && (fn->is_leaf() || fn->kind != NodeKind::kStruct)) {
          // A bare repeated group reads as a list; anything else is a shape mismatch.
          return shape_error(fn->is_leaf() ? "a primitive" : "a list or map");
        }
        for (size_t i = 0; i < t.fields.size(); ++i) {
          const delta::StructField& f = t.fields[i];
          int child = fn != nullptr ? FindChild(file_node, f) : -1;
          Step s;
          s.o = 1;
          if (child >= 0) s.f = RepOf(file_.node(child)) == Repetition::kOptional ? 1 : 0;
          steps.push_back(s);
          size_t m = missing_at;
          int donor = donor_node;
          if (fn != nullptr && child < 0) {
            m = steps.size() - 1;
            donor = file_node;
          }
          LITHIFY_RETURN_NOT_OK(Visit(f.type, on.children[i], child, steps, m, donor,
                                      name.empty() ? f.name : name + "." + f.name));
          steps.pop_back();
        }
        return Status::OK();
      }
      case DK::kArray: {
        int f_rep = -1, f_elem = -1;
        if (fn != nullptr) {
          if (fn->kind != NodeKind::kList) return shape_error("no list");
          f_rep = fn->repeated_node;
          f_elem = fn->element_node;
        }
        steps.push_back(Step{static_cast<int16_t>(fn ? 1 : 0), 1, true});
        Step e;
        e.o = 1;
        if (fn != nullptr && f_elem != f_rep) {
          e.f = RepOf(file_.node(f_elem)) == Repetition::kOptional ? 1 : 0;
        }
        steps.push_back(e);
        LITHIFY_RETURN_NOT_OK(Visit(*t.element, on.element_node, f_elem, steps, missing_at,
                                    donor_node, name + ".element"));
        steps.resize(steps.size() - 2);
        return Status::OK();
      }
      case DK::kMap: {
        int f_key = -1, f_val = -1;
        if (fn != nullptr) {
          if (fn->kind != NodeKind::kMap) return shape_error("no map");
          f_key = fn->key_node;
          f_val = fn->value_node;
        }
        steps.push_back(Step{static_cast<int16_t>(fn ? 1 : 0), 1, true});
        Step k;
        if (f_key >= 0) k.f = RepOf(file_.node(f_key)) == Repetition::kOptional ? 1 : 0;
        steps.push_back(k);
        LITHIFY_RETURN_NOT_OK(Visit(*t.key, on.key_node, f_key, steps, missing_at, donor_node,
                                    name + ".key"));
        steps.pop_back();
        Step v;
        v.o = 1;
        size_t m = missing_at;
        int donor = donor_node;
        if (f_val >= 0) {
          v.f = RepOf(file_.node(f_val)) == Repetition::kOptional ? 1 : 0;
        } else if (fn != nullptr) {
          m = steps.size();
          donor = fn->repeated_node;
        }
        steps.push_back(v);
        LITHIFY_RETURN_NOT_OK(Visit(*t.value, on.value_node, f_val, steps, m, donor,
                                    name + ".value"));
        steps.resize(steps.size() - 2);
        return Status::OK();
      }
      default: return Status::Internal("unexpected Delta type");
    }
  }

 private:
  const OutputSchema& out_;
  delta::ColumnMappingMode mode_;
  const parquet::Schema& file_;
  const std::string& path_;
};

}  // namespace

// ---- OutputSchema ----

Result<OutputSchema> OutputSchema::Build(const delta::StructType& schema,
                                         const std::vector<std::string>& partition_columns) {
  OutputSchema o;
  o.delta_schema_ = &schema;
  std::vector<parquet::FieldSpec> specs;
  for (const delta::StructField& f : schema.fields) {
    LITHIFY_ASSIGN_OR_RETURN(parquet::FieldSpec s, SpecOf(f.name, f.type));
    specs.push_back(std::move(s));
  }
  if (specs.empty()) return Status::NotSupported("the table schema has no columns");
  LITHIFY_ASSIGN_OR_RETURN(o.schema_, parquet::BuildSchema(specs));
  o.leaves_.resize(o.schema_.num_leaves());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    bool part = false;
    for (const std::string& p : partition_columns) {
      if (AsciiLower(p) == AsciiLower(schema.fields[i].name)) part = true;
    }
    LeafWalk w{o.schema_, &o.leaves_, static_cast<int>(i), part};
    std::vector<std::string> path{schema.fields[i].name};
    w.Visit(schema.fields[i].type, o.schema_.top_level_fields()[i], path, false);
  }
  return o;
}

std::vector<int> OutputSchema::LeavesOfField(int i) const {
  return schema_.LeavesUnder(schema_.top_level_fields()[i]);
}

std::vector<expr::BoundColumn> OutputSchema::BindableColumns() const {
  std::vector<expr::BoundColumn> cols;
  for (const OutputLeaf& l : leaves_) {
    if (l.repeated || l.type == nullptr) continue;
    if (auto t = ExprTypeOf(*l.type)) cols.push_back({l.logical_path, *t});
  }
  return cols;
}

int OutputSchema::FindLeaf(const std::vector<std::string>& logical_path) const {
  for (size_t i = 0; i < leaves_.size(); ++i) {
    if (leaves_[i].logical_path == logical_path) return static_cast<int>(i);
  }
  return -1;
}

// ---- FileAdapter ----

struct FileAdapter::Impl {
  const OutputSchema* out = nullptr;
  parquet::FileReader* reader = nullptr;
  std::vector<LeafPlan> plans;   // in batch order
  std::vector<int> read_leaves;  // file leaves to read
};

FileAdapter::FileAdapter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileAdapter::~FileAdapter() = default;

int FileAdapter::num_row_groups() const { return impl_->reader->num_row_groups(); }

Result<std::unique_ptr<FileAdapter>> FileAdapter::Make(
    const OutputSchema& out, delta::ColumnMappingMode mode, parquet::FileReader* reader,
    std::vector<int> leaves, const std::vector<std::optional<table::Value>>& partition_values) {
  auto impl = std::make_unique<Impl>();
  impl->out = &out;
  impl->reader = reader;
  const parquet::Schema& file = reader->schema();
  Planner planner(out, mode, file, reader->path());
  const delta::StructType& ds = out.delta_schema();
  std::vector<bool> top_needed(ds.fields.size(), false);
  for (int l : leaves) top_needed[out.leaves()[l].top_field] = true;
  for (size_t i = 0; i < ds.fields.size(); ++i) {
    if (!top_needed[i]) continue;
    const int out_node = out.schema().top_level_fields()[i];
    bool is_partition = !out.LeavesOfField(static_cast<int>(i)).empty() &&
                        out.leaves()[out.LeavesOfField(static_cast<int>(i)).front()].is_partition;
    if (is_partition) {
      LeafPlan p;
      p.kind = LeafPlan::Kind::kPartition;
      p.out_leaf = out.schema().node(out_node).leaf_index;
      if (i < partition_values.size() && partition_values[i]) p.partition_value = partition_values[i];
      planner.plans[p.out_leaf] = std::move(p);
      continue;
    }
    const delta::StructField& f = ds.fields[i];
    int child = planner.FindChild(0, f);
    Step s;
    s.o = 1;
    if (child >= 0) s.f = file.node(child).repetition == Repetition::kOptional ? 1 : 0;
    std::vector<Step> steps{s};
    LITHIFY_RETURN_NOT_OK(planner.Visit(f.type, out_node, child, steps, 0, 0, f.name));
  }
  std::map<int, int> read_index;
  for (int l : leaves) {
    LeafPlan p = planner.plans.at(l);
    if (p.kind == LeafPlan::Kind::kFile || p.kind == LeafPlan::Kind::kDonor) {
      auto [it, inserted] = read_index.emplace(p.file_leaf, static_cast<int>(impl->read_leaves.size()));
      if (inserted) impl->read_leaves.push_back(p.file_leaf);
      p.read_index = it->second;
    }
    impl->plans.push_back(std::move(p));
  }
  return std::unique_ptr<FileAdapter>(new FileAdapter(std::move(impl)));
}

Result<parquet::RowBatch> FileAdapter::ReadRowGroup(int rg) {
  const parquet::Schema& os = impl_->out->schema();
  const parquet::Schema& fs = impl_->reader->schema();
  parquet::RowBatch in;
  if (!impl_->read_leaves.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(in, impl_->reader->ReadRowGroup(rg, impl_->read_leaves));
  } else {
    in.num_rows = impl_->reader->metadata().row_groups[rg].num_rows;
    in.first_row_index = impl_->reader->RowGroupFirstRow(rg);
  }
  parquet::RowBatch out;
  out.num_rows = in.num_rows;
  out.first_row_index = impl_->reader->RowGroupFirstRow(rg);
  // A file leaf feeding a kFile plan gives its values away; count uses first.
  std::vector<int> file_uses(impl_->read_leaves.size(), 0);
  for (const LeafPlan& p : impl_->plans) {
    if (p.kind == LeafPlan::Kind::kFile) ++file_uses[p.read_index];
  }
  for (const LeafPlan& p : impl_->plans) {
    const parquet::ColumnDescriptor& ol = os.leaf(p.out_leaf);
    ColumnData c;
    c.leaf_index = p.out_leaf;
    c.descr = &ol;
    c.values.type = ol.physical_type;
    c.values.type_length = ol.type_length;
    switch (p.kind) {
      case LeafPlan::Kind::kNull:
      case LeafPlan::Kind::kPartition: {
        const bool valid = p.kind == LeafPlan::Kind::kPartition && p.partition_value &&
                           !p.partition_value->is_null();
        c.num_levels = in.num_rows;
        c.def_levels.assign(in.num_rows, valid ? ol.max_def : 0);
        if (ol.max_rep > 0) c.rep_levels.assign(in.num_rows, 0);
        if (valid) {
          LITHIFY_ASSIGN_OR_RETURN(c.values, ConstantValues(*p.partition_value,
                                                            *impl_->out->leaves()[p.out_leaf].type,
                                                            ol, in.num_rows));
        }
        break;
      }
      case LeafPlan::Kind::kFile: {
        ColumnData& src = in.columns[p.read_index];
        const parquet::ColumnDescriptor& fl = fs.leaf(p.file_leaf);
        c.num_levels = src.num_levels;
        c.def_levels.resize(src.num_levels);
        for (int64_t i = 0; i < src.num_levels; ++i) {
          int16_t d = src.def_levels.empty() ? fl.max_def : src.def_levels[i];
          if (d < 0 || d > fl.max_def) {
            return Status::Corruption("{}: column '{}': definition level {} out of range",
                                      impl_->reader->path(), fl.dotted_path, d);
          }
          c.def_levels[i] = p.def_map[d];
        }
        if (ol.max_rep > 0) c.rep_levels = src.rep_levels;
        ColumnValues v = --file_uses[p.read_index] == 0 ? std::move(src.values) : ColumnValues{};
        Result<ColumnValues> conv =
            ConvertValues(std::move(v), fl, *impl_->out->leaves()[p.out_leaf].type, ol);
        if (!conv.ok()) return conv.status().WithContext(impl_->reader->path());
        c.values = std::move(*conv);
        break;
      }
      case LeafPlan::Kind::kDonor: {
        const ColumnData& src = in.columns[p.read_index];
        const parquet::ColumnDescriptor& fl = fs.leaf(p.file_leaf);
        for (int64_t i = 0; i < src.num_levels; ++i) {
          int16_t r = src.rep_levels.empty() ? 0 : src.rep_levels[i];
          if (r > p.rep_cap) continue;
          int16_t d = src.def_levels.empty() ? fl.max_def : src.def_levels[i];
          if (d < 0 || d > fl.max_def) {
            return Status::Corruption("{}: column '{}': definition level {} out of range",
                                      impl_->reader->path(), fl.dotted_path, d);
          }
          c.def_levels.push_back(p.def_map[d]);
          if (ol.max_rep > 0) c.rep_levels.push_back(r);
        }
        c.num_levels = static_cast<int64_t>(c.def_levels.size());
        break;
      }
    }
    out.columns.push_back(std::move(c));
  }
  return out;
}

}  // namespace lithify::delta
