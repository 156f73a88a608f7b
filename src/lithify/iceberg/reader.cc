#include "lithify/iceberg/reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_set>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/iceberg/deletes.h"
#include "lithify/iceberg/values.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/schema_builder.h"
#include "lithify/parquet/value_writer.h"

namespace lithify::iceberg {

using parquet::ColumnData;
using parquet::ColumnValues;
using parquet::LogicalType;
using parquet::NodeKind;
using parquet::PhysicalType;
using parquet::Repetition;
using parquet::SchemaElement;

namespace {

// ---- output schema ----

SchemaElement Leaf(const std::string& name, PhysicalType p) {
  SchemaElement e;
  e.name = name;
  e.type = p;
  e.repetition_type = Repetition::kOptional;
  return e;
}

Status AddElements(const NestedField& f, const std::string& name, std::vector<SchemaElement>* out,
                   std::vector<const NestedField*>* fields) {
  const Type& t = f.type;
  SchemaElement e;
  auto push = [&](SchemaElement el, const NestedField* nf) {
    el.field_id = nf != nullptr ? std::optional<int32_t>(nf->id) : std::nullopt;
    out->push_back(std::move(el));
    fields->push_back(nf);
  };
  auto timestamp = [&](bool utc, parquet::TimeUnit unit) {
    e = Leaf(name, PhysicalType::kInt64);
    e.logical_type.kind = LogicalType::Kind::kTimestamp;
    e.logical_type.is_adjusted_to_utc = utc;
    e.logical_type.unit = unit;
  };
  switch (t.id) {
    case TypeId::kUnknown: e = Leaf(name, PhysicalType::kInt32); break;
    case TypeId::kBoolean: e = Leaf(name, PhysicalType::kBoolean); break;
    case TypeId::kInt: e = Leaf(name, PhysicalType::kInt32); break;
    case TypeId::kLong: e = Leaf(name, PhysicalType::kInt64); break;
    case TypeId::kFloat: e = Leaf(name, PhysicalType::kFloat); break;
    case TypeId::kDouble: e = Leaf(name, PhysicalType::kDouble); break;
    case TypeId::kDecimal:
      if (t.precision <= 9) {
        e = Leaf(name, PhysicalType::kInt32);
      } else if (t.precision <= 18) {
        e = Leaf(name, PhysicalType::kInt64);
      } else {
        e = Leaf(name, PhysicalType::kFixedLenByteArray);
        e.type_length = parquet::DecimalByteWidth(t.precision);
      }
      e.logical_type.kind = LogicalType::Kind::kDecimal;
      e.logical_type.precision = t.precision;
      e.logical_type.scale = t.scale;
      e.converted_type = parquet::ConvertedType::kDecimal;
      e.precision = t.precision;
      e.scale = t.scale;
      break;
    case TypeId::kDate:
      e = Leaf(name, PhysicalType::kInt32);
      e.logical_type.kind = LogicalType::Kind::kDate;
      e.converted_type = parquet::ConvertedType::kDate;
      break;
    case TypeId::kTime:
      e = Leaf(name, PhysicalType::kInt64);
      e.logical_type.kind = LogicalType::Kind::kTime;
      e.logical_type.unit = parquet::TimeUnit::kMicros;
      break;
    case TypeId::kTimestamp: timestamp(false, parquet::TimeUnit::kMicros); break;
    case TypeId::kTimestampTz: timestamp(true, parquet::TimeUnit::kMicros); break;
    case TypeId::kTimestampNs: timestamp(false, parquet::TimeUnit::kNanos); break;
    case TypeId::kTimestampTzNs: timestamp(true, parquet::TimeUnit::kNanos); break;
    case TypeId::kString:
      e = Leaf(name, PhysicalType::kByteArray);
      e.logical_type.kind = LogicalType::Kind::kString;
      e.converted_type = parquet::ConvertedType::kUtf8;
      break;
    case TypeId::kUuid:
      e = Leaf(name, PhysicalType::kFixedLenByteArray);
      e.type_length = 16;
      e.logical_type.kind = LogicalType::Kind::kUuid;
      break;
    case TypeId::kFixed:
      e = Leaf(name, PhysicalType::kFixedLenByteArray);
      e.type_length = t.length;
      break;
    case TypeId::kBinary: e = Leaf(name, PhysicalType::kByteArray); break;
    case TypeId::kVariant: case TypeId::kGeometry: case TypeId::kGeography:
      return Status::NotSupported("column '{}' of type {}: lithify cannot read {} columns", name,
                                  t.ToString(), t.ToString());
    case TypeId::kStruct: {
      e.name = name;
      e.repetition_type = Repetition::kOptional;
      e.num_children = static_cast<int32_t>(t.fields.size());
      if (t.fields.empty()) return Status::NotSupported("column '{}': a struct without fields", name);
      push(std::move(e), &f);
      for (const NestedField& c : t.fields) LITHIFY_RETURN_NOT_OK(AddElements(c, c.name, out, fields));
      return Status::OK();
    }
    case TypeId::kList: {
      e.name = name;
      e.repetition_type = Repetition::kOptional;
      e.num_children = 1;
      e.logical_type.kind = LogicalType::Kind::kList;
      e.converted_type = parquet::ConvertedType::kList;
      push(std::move(e), &f);
      SchemaElement mid;
      mid.name = "list";
      mid.repetition_type = Repetition::kRepeated;
      mid.num_children = 1;
      push(std::move(mid), nullptr);
      return AddElements(t.fields[0], "element", out, fields);
    }
    case TypeId::kMap: {
      e.name = name;
      e.repetition_type = Repetition::kOptional;
      e.num_children = 1;
      e.logical_type.kind = LogicalType::Kind::kMap;
      e.converted_type = parquet::ConvertedType::kMap;
      push(std::move(e), &f);
      SchemaElement mid;
      mid.name = "key_value";
      mid.repetition_type = Repetition::kRepeated;
      mid.num_children = 2;
      push(std::move(mid), nullptr);
      const size_t key_at = out->size();
      LITHIFY_RETURN_NOT_OK(AddElements(t.fields[0], "key", out, fields));
      (*out)[key_at].repetition_type = Repetition::kRequired;
      return AddElements(t.fields[1], "value", out, fields);
    }
  }
  push(std::move(e), &f);
  return Status::OK();
}

// ---- value conversion ----

using parquet::ValueWriter;

bool Is(const parquet::ColumnDescriptor& leaf, LogicalType::Kind k) { return leaf.element->logical_type.kind == k; }

Result<ColumnValues> Convert(ColumnValues in, const parquet::ColumnDescriptor& fl, const Type& t,
                             const parquet::ColumnDescriptor& ol) {
  const PhysicalType ip = in.type;
  const PhysicalType op = ol.physical_type;
  auto mismatch = [&]() {
    return Status::Corruption("column '{}': Parquet type {} cannot hold Iceberg type {}", fl.dotted_path,
                              parquet::PhysicalTypeName(ip), t.ToString());
  };
  const int64_t n = in.count;
  ValueWriter w(ol, n);
  switch (t.id) {
    case TypeId::kBoolean:
      if (ip != PhysicalType::kBoolean) return mismatch();
      return in;
    case TypeId::kInt: case TypeId::kLong:
      if (ip == op) return in;
      if (ip == PhysicalType::kInt32 && op == PhysicalType::kInt64) {
        for (int64_t i = 0; i < n; ++i) w.Int64(in.value<int32_t>(i));
        return w.Finish();
      }
      if (ip == PhysicalType::kInt64 && op == PhysicalType::kInt32) {
        for (int64_t i = 0; i < n; ++i) w.Int32(static_cast<int32_t>(in.value<int64_t>(i)));
        return w.Finish();
      }
      return mismatch();
    case TypeId::kFloat: case TypeId::kDouble:
      if (ip == op) return in;
      if (ip == PhysicalType::kFloat && op == PhysicalType::kDouble) {
        for (int64_t i = 0; i < n; ++i) w.Double(in.value<float>(i));
        return w.Finish();
      }
      return mismatch();
    case TypeId::kDecimal: {
      const int32_t fs = parquet::DecimalFileScale(fl);
      if (fs != t.scale) {
        return Status::Corruption("column '{}': decimal scale {} in the file, {} in the table", fl.dotted_path, fs,
                                  t.scale);
      }
      if (ip == op && in.type_length == ol.type_length) return in;
      if (ip != PhysicalType::kInt32 && ip != PhysicalType::kInt64 && ip != PhysicalType::kFixedLenByteArray &&
          ip != PhysicalType::kByteArray) {
        return mismatch();
      }
      LITHIFY_ASSIGN_OR_RETURN(expr::BatchColumn bc, expr::DescribeLeaf(fl, 0));
      const expr::DataType dt = expr::DataType::Decimal(expr::kMaxDecimalPrecision, fs);
      for (int64_t i = 0; i < n; ++i) w.Decimal(expr::DecodeValue(in, bc, dt, i).unscaled());
      return w.Finish();
    }
    case TypeId::kDate:
      if (ip != PhysicalType::kInt32) return mismatch();
      return in;
    case TypeId::kTime:
      if (ip == PhysicalType::kInt64) return in;
      if (ip == PhysicalType::kInt32) {  // TIME_MILLIS
        for (int64_t i = 0; i < n; ++i) w.Int64(int64_t{in.value<int32_t>(i)} * 1000);
        return w.Finish();
      }
      return mismatch();
    case TypeId::kTimestamp: case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: case TypeId::kTimestampTzNs: {
      const bool nanos = t.id == TypeId::kTimestampNs || t.id == TypeId::kTimestampTzNs;
      if (ip == PhysicalType::kInt32 && Is(fl, LogicalType::Kind::kDate)) {  // date -> timestamp promotion
        const int64_t per_day = nanos ? kMicrosPerDay * 1000 : kMicrosPerDay;
        for (int64_t i = 0; i < n; ++i) w.Int64(in.value<int32_t>(i) * per_day);
        return w.Finish();
      }
      if (ip == PhysicalType::kInt64) {
        const parquet::TimeUnit u = parquet::Int64TimeUnit(fl);
        if ((nanos && u == parquet::TimeUnit::kNanos) || (!nanos && u == parquet::TimeUnit::kMicros)) return in;
        for (int64_t i = 0; i < n; ++i) {
          int64_t v = in.value<int64_t>(i);
          if (nanos) v = u == parquet::TimeUnit::kMillis ? v * 1000000 : v * 1000;
          else v = u == parquet::TimeUnit::kMillis ? MillisToMicros(v) : NanosToMicros(v);
          w.Int64(v);
        }
        return w.Finish();
      }
      if (ip == PhysicalType::kInt96) {
        LITHIFY_ASSIGN_OR_RETURN(expr::BatchColumn bc, expr::DescribeLeaf(fl, 0));
        const expr::DataType dt = expr::DataType::Of(expr::TypeKind::kTimestamp);
        for (int64_t i = 0; i < n; ++i) {
          const int64_t micros = expr::DecodeValue(in, bc, dt, i).int_value();
          w.Int64(nanos ? micros * 1000 : micros);
        }
        return w.Finish();
      }
      return mismatch();
    }
    case TypeId::kString: case TypeId::kBinary:
      if (ip == PhysicalType::kByteArray) return in;
      if (ip != PhysicalType::kFixedLenByteArray) return mismatch();
      for (int64_t i = 0; i < n; ++i) {
        w.Bytes({reinterpret_cast<const char*>(in.fixed_at(i)), static_cast<size_t>(in.type_length)});
      }
      return w.Finish();
    case TypeId::kUuid: case TypeId::kFixed:
      if (ip == PhysicalType::kFixedLenByteArray && in.type_length == ol.type_length) return in;
      if (ip == PhysicalType::kByteArray) {
        for (int64_t i = 0; i < n; ++i) {
          std::string_view b = in.binary(i);
          if (static_cast<int32_t>(b.size()) != ol.type_length) return mismatch();
          w.Bytes(b);
        }
        return w.Finish();
      }
      return mismatch();
    case TypeId::kUnknown:
      return w.Finish();  // an unknown column reads as null whatever the file holds
    default: return mismatch();
  }
}

// A constant value in the output leaf's physical form, `n` times.
Result<ColumnValues> Constant(const table::Value& v, const Type& t, const parquet::ColumnDescriptor& ol, int64_t n) {
  using K = table::Value::Kind;
  ValueWriter w(ol, n);
  for (int64_t i = 0; i < n; ++i) {
    switch (t.id) {
      case TypeId::kBoolean: w.Bool(v.boolean()); break;
      case TypeId::kInt: w.Int32(static_cast<int32_t>(v.int64())); break;
      case TypeId::kDate: w.Int32(static_cast<int32_t>(v.int64())); break;
      case TypeId::kLong: case TypeId::kTime:
      case TypeId::kTimestamp: case TypeId::kTimestampTz:
      case TypeId::kTimestampNs: case TypeId::kTimestampTzNs: w.Int64(v.int64()); break;
      case TypeId::kFloat: w.Float(static_cast<float>(v.kind() == K::kDouble ? v.dbl() : v.int64())); break;
      case TypeId::kDouble: w.Double(v.kind() == K::kDouble ? v.dbl() : static_cast<double>(v.int64())); break;
      case TypeId::kDecimal: {
        if (v.kind() != K::kDecimal) return Status::Internal("constant is not a decimal");
        __int128 u = v.unscaled();
        if (v.scale() < t.scale) u *= expr::Pow10(t.scale - v.scale());
        w.Decimal(u);
        break;
      }
      case TypeId::kString: case TypeId::kBinary: w.Bytes(v.str()); break;
      case TypeId::kUuid: case TypeId::kFixed:
        if (static_cast<int32_t>(v.str().size()) != ol.type_length) {
          return Status::Corruption("a {} constant of {} bytes", t.ToString(), v.str().size());
        }
        w.Bytes(v.str());
        break;
      default: return Status::NotSupported("constant values of type {}", t.ToString());
    }
  }
  return w.Finish();
}

// ---- file -> output leaf plans ----

struct Step {
  int16_t f = 0;  // adds a def level in the file
  int16_t o = 0;  // adds a def level in the output
  bool repeated = false;
};

struct LeafPlan {
  enum class Kind { kFile, kDonor, kNull, kConstant } kind = Kind::kNull;
  int out_leaf = -1;
  int file_leaf = -1;
  int read_index = -1;
  std::vector<int16_t> def_map;
  int16_t rep_cap = 0;
  int16_t present_level = 0;  // kDonor: the output def level of "parent present"
  // kNull / kConstant: the def level of every row; kDonor: the level that replaces
  // present_level. Above the parent when missing structs are present by default
  // (initial-default {}); max_def exactly when a constant fills the leaf.
  int16_t fill_level = 0;
  std::optional<table::Value> constant;  // kConstant / kDonor: the value where present
};

// How far defaults fill a chain of fields missing from the file, below the first missing
// one's parent: `levels` output def levels are present by default (structs whose
// initial-default is {}); `open` is false once a missing field defaults to null, so
// nothing under it takes a default.
struct Fill {
  int16_t levels = 0;
  bool open = true;
};

// Whether a struct missing from a file is present by default: its initial-default is {}
// (the spec allows only null or an empty struct; sub-field defaults are the fields' own).
Result<bool> StructPresentByDefault(const NestedField& f, const std::string& name) {
  if (!f.initial_default || f.initial_default->is_null()) return false;
  if (f.initial_default->is_object() && f.initial_default->empty()) return true;
  return Status::Corruption("initial-default of struct '{}' is {}: a struct default must be null or {{}}", name,
                            json::Dump(*f.initial_default));
}

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

// Field ids of the file's nodes: stored ids, else the name mapping, else -1.
std::vector<int32_t> FileIds(const parquet::Schema& file, const NameMapping* mapping) {
  std::vector<int32_t> ids(file.nodes().size(), -1);
  bool any = false;
  for (size_t i = 1; i < file.nodes().size(); ++i) {
    if (file.node(static_cast<int>(i)).element.field_id) {
      ids[i] = *file.node(static_cast<int>(i)).element.field_id;
      any = true;
    }
  }
  if (any || mapping == nullptr) return ids;
  std::function<void(int, const std::vector<NameMapping::Field>&)> apply =
      [&](int node, const std::vector<NameMapping::Field>& fields) {
        const parquet::SchemaNode& n = file.node(node);
        auto find = [&](const std::string& name) -> const NameMapping::Field* {
          for (const NameMapping::Field& f : fields) {
            if (std::find(f.names.begin(), f.names.end(), name) != f.names.end()) return &f;
          }
          return nullptr;
        };
        auto visit = [&](int child, const std::string& name) {
          if (child < 0) return;
          const NameMapping::Field* f = find(name);
          if (f == nullptr) return;
          if (f->field_id) ids[child] = *f->field_id;
          apply(child, f->fields);
        };
        if (n.kind == NodeKind::kList && node != 0) {
          visit(n.element_node, "element");
        } else if (n.kind == NodeKind::kMap && node != 0) {
          visit(n.key_node, "key");
          visit(n.value_node, "value");
        } else {
          for (int c : n.children) visit(c, file.node(c).name);
        }
      };
  apply(0, mapping->fields);
  return ids;
}

class Planner {
 public:
  Planner(const OutputSchema& out, const parquet::Schema& file, std::vector<int32_t> ids, const std::string& path,
          const std::map<int32_t, table::Value>& partition_constants)
      : out_(out), file_(file), ids_(std::move(ids)), path_(path), partition_(partition_constants) {}

  std::map<int, LeafPlan> plans;

  int FindChild(int file_node, const NestedField& f) const {
    const parquet::SchemaNode& n = file_.node(file_node);
    for (int c : n.children) {
      if (ids_[c] == f.id) return c;
    }
    // Files without any ids (and no mapping) are matched by name.
    bool file_has_ids = false;
    for (int c : n.children) file_has_ids |= ids_[c] >= 0;
    if (!file_has_ids) {
      for (int c : n.children) {
        if (file_.node(c).name == f.name) return c;
      }
    }
    return -1;
  }

  // The value a missing field reads as: identity partition value (top level), else
  // initial-default, else null.
  Result<std::optional<table::Value>> MissingValue(const NestedField& f, bool top_level) const {
    if (f.type.is_nested()) return std::optional<table::Value>();
    if (top_level) {
      if (auto it = partition_.find(f.id); it != partition_.end()) return std::optional<table::Value>(it->second);
    }
    if (f.initial_default && f.type.is_primitive()) {
      Result<table::Value> v = FromJsonValue(f.type, *f.initial_default);
      if (!v.ok()) return v.status().WithContextF("initial-default of '{}'", f.name);
      return std::optional<table::Value>(std::move(*v));
    }
    return std::optional<table::Value>();
  }

  // `fill`: how defaults fill the missing chain above `f` (when `f` or an ancestor is
  // missing from the file; see Fill).
  Status Visit(const NestedField& f, int out_node, int file_node, std::vector<Step>& steps, size_t missing_at,
               int donor_node, const std::string& name, bool top_level, Fill fill) {
    const parquet::Schema& os = out_.schema();
    const parquet::SchemaNode& on = os.node(out_node);
    const parquet::SchemaNode* fn = file_node >= 0 ? &file_.node(file_node) : nullptr;
    const Type& t = f.type;
    auto shape_error = [&](std::string_view what) {
      return Status::Corruption("{}: column '{}': file has {} where the table has {}", path_, name, what,
                                t.ToString());
    };
    if (t.is_primitive()) {
      LeafPlan p;
      p.out_leaf = on.leaf_index;
      if (fn != nullptr && t.id != TypeId::kUnknown) {
        if (!fn->is_leaf()) return shape_error("a group");
        p.kind = LeafPlan::Kind::kFile;
        p.file_leaf = fn->leaf_index;
        const parquet::ColumnDescriptor& fl = file_.leaf(fn->leaf_index);
        int16_t sum_f = 0;
        for (const Step& s : steps) sum_f = static_cast<int16_t>(sum_f + s.f);
        if (sum_f != fl.max_def) {
          return Status::Corruption("{}: column '{}': level layout mismatch", path_, name);
        }
        p.def_map = DefMap(steps, fl.max_def);
      } else {
        std::optional<table::Value> v;
        if (fill.open) {
          LITHIFY_ASSIGN_OR_RETURN(v, MissingValue(f, top_level));
          if (v && v->is_null()) v.reset();
        }
        const parquet::ColumnDescriptor& ol = os.leaf(on.leaf_index);
        std::vector<int> under = donor_node > 0 ? file_.LeavesUnder(donor_node) : std::vector<int>{};
        if (under.empty()) {
          p.kind = v ? LeafPlan::Kind::kConstant : LeafPlan::Kind::kNull;
          p.fill_level = v ? ol.max_def : fill.levels;
          p.constant = std::move(v);
        } else {
          p.kind = LeafPlan::Kind::kDonor;
          p.file_leaf = under.front();
          std::vector<Step> prefix(steps.begin(), steps.begin() + missing_at);
          p.def_map = DefMap(prefix, file_.leaf(p.file_leaf).max_def);
          for (const Step& s : prefix) {
            p.rep_cap = static_cast<int16_t>(p.rep_cap + (s.repeated ? 1 : 0));
            p.present_level = static_cast<int16_t>(p.present_level + s.o);
          }
          p.fill_level = v ? ol.max_def : static_cast<int16_t>(p.present_level + fill.levels);
          p.constant = std::move(v);
        }
        if (p.fill_level > ol.max_def) return Status::Internal("{}: column '{}': default level", path_, name);
      }
      plans[p.out_leaf] = std::move(p);
      return Status::OK();
    }
    switch (t.id) {
      case TypeId::kStruct: {
        if (fn != nullptr && (fn->is_leaf() || fn->kind != NodeKind::kStruct)) {
          return shape_error(fn->is_leaf() ? "a primitive" : "a list or map");
        }
        // Members of a missing struct: present by default only under {} (and an open chain).
        Fill inner;
        if (fn == nullptr) {
          inner = fill;
          LITHIFY_ASSIGN_OR_RETURN(bool present, StructPresentByDefault(f, name));
          if (inner.open && present) ++inner.levels;
          else inner.open = false;
        }
        for (size_t i = 0; i < t.fields.size(); ++i) {
          const NestedField& c = t.fields[i];
          const int child = fn != nullptr ? FindChild(file_node, c) : -1;
          Step s;
          s.o = 1;
          if (child >= 0) s.f = file_.node(child).repetition == Repetition::kOptional ? 1 : 0;
          steps.push_back(s);
          size_t m = missing_at;
          int donor = donor_node;
          if (fn != nullptr && child < 0) {
            m = steps.size() - 1;
            donor = file_node;
          }
          LITHIFY_RETURN_NOT_OK(Visit(c, on.children[i], child, steps, m, donor, name + "." + c.name, false, inner));
          steps.pop_back();
        }
        return Status::OK();
      }
      case TypeId::kList: {
        LITHIFY_ASSIGN_OR_RETURN(Fill inner, NestedFill(f, fn, fill, name));
        int f_rep = -1, f_elem = -1;
        if (fn != nullptr) {
          if (fn->kind != NodeKind::kList) return shape_error("no list");
          f_rep = fn->repeated_node;
          f_elem = fn->element_node;
        }
        steps.push_back(Step{static_cast<int16_t>(fn ? 1 : 0), 1, true});
        Step e;
        e.o = 1;
        if (fn != nullptr && f_elem != f_rep) e.f = file_.node(f_elem).repetition == Repetition::kOptional ? 1 : 0;
        steps.push_back(e);
        LITHIFY_RETURN_NOT_OK(Visit(t.fields[0], on.element_node, f_elem, steps, missing_at, donor_node,
                                    name + ".element", false, inner));
        steps.resize(steps.size() - 2);
        return Status::OK();
      }
      case TypeId::kMap: {
        LITHIFY_ASSIGN_OR_RETURN(Fill inner, NestedFill(f, fn, fill, name));
        int f_key = -1, f_val = -1;
        if (fn != nullptr) {
          if (fn->kind != NodeKind::kMap) return shape_error("no map");
          f_key = fn->key_node;
          f_val = fn->value_node;
        }
        steps.push_back(Step{static_cast<int16_t>(fn ? 1 : 0), 1, true});
        Step k;
        if (f_key >= 0) k.f = file_.node(f_key).repetition == Repetition::kOptional ? 1 : 0;
        steps.push_back(k);
        LITHIFY_RETURN_NOT_OK(
            Visit(t.fields[0], on.key_node, f_key, steps, missing_at, donor_node, name + ".key", false, inner));
        steps.pop_back();
        Step v;
        v.o = 1;
        size_t m = missing_at;
        int donor = donor_node;
        Fill value_fill = inner;
        if (f_val >= 0) {
          v.f = file_.node(f_val).repetition == Repetition::kOptional ? 1 : 0;
        } else if (fn != nullptr) {
          m = steps.size();
          donor = fn->repeated_node;
          value_fill = Fill{};  // a value missing under present entries: its own default
        }
        steps.push_back(v);
        LITHIFY_RETURN_NOT_OK(
            Visit(t.fields[1], on.value_node, f_val, steps, m, donor, name + ".value", false, value_fill));
        steps.resize(steps.size() - 2);
        return Status::OK();
      }
      default: return Status::Internal("unexpected Iceberg type");
    }
  }

  // The fill under a list or map: a present one's members start afresh; a missing one
  // reads as null (a non-null list or map initial-default is refused by name), so
  // nothing under it takes a default.
  static Result<Fill> NestedFill(const NestedField& f, const parquet::SchemaNode* fn, Fill fill,
                                 const std::string& name) {
    if (fn != nullptr) return Fill{};
    if (fill.open && f.initial_default && !f.initial_default->is_null()) {
      return Status::NotSupported("column '{}': a non-null initial-default for a {} ({})", name,
                                  f.type.id == TypeId::kList ? "list" : "map", json::Dump(*f.initial_default));
    }
    fill.open = false;
    return fill;
  }

 private:
  const OutputSchema& out_;
  const parquet::Schema& file_;
  std::vector<int32_t> ids_;
  const std::string& path_;
  const std::map<int32_t, table::Value>& partition_;
};

}  // namespace

// ---- OutputSchema ----

Result<OutputSchema> OutputSchema::Build(const Schema& schema) {
  OutputSchema o;
  o.iceberg_ = schema;
  if (o.iceberg_.fields.empty()) return Status::InvalidArgument("the table schema has no columns");
  std::vector<SchemaElement> elements;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(o.iceberg_.fields.size());
  elements.push_back(root);
  o.node_fields_.push_back(nullptr);
  for (const NestedField& f : o.iceberg_.fields) {
    LITHIFY_RETURN_NOT_OK(AddElements(f, f.name, &elements, &o.node_fields_));
  }
  LITHIFY_ASSIGN_OR_RETURN(o.schema_, parquet::Schema::FromElements(std::move(elements)));
  return o;
}

std::vector<int> OutputSchema::LeavesFor(const std::vector<int32_t>& ids) const {
  std::vector<int> out;
  for (int l = 0; l < schema_.num_leaves(); ++l) {
    if (ids.empty()) {
      out.push_back(l);
      continue;
    }
    // A leaf belongs to a field id when the field or one of its ancestors has it.
    for (int n = schema_.leaf(l).node; n > 0; n = schema_.node(n).parent) {
      const NestedField* f = node_fields_[n];
      if (f != nullptr && std::find(ids.begin(), ids.end(), f->id) != ids.end()) {
        out.push_back(l);
        break;
      }
    }
  }
  return out;
}

// ---- reading one file ----

namespace {

// Reads `file` as batches of `out`'s `leaves` (no deletes).
class FileProjection {
 public:
  static Result<std::unique_ptr<FileProjection>> Open(const IcebergTable& table, const OutputSchema& out,
                                                      const DataFile& file, const PartitionSpec* spec,
                                                      std::vector<int> leaves) {
    auto p = std::unique_ptr<FileProjection>(new FileProjection());
    p->out_ = &out;
    LITHIFY_ASSIGN_OR_RETURN(p->reader_, parquet::FileReader::Open(table.fs(), file.path));
    const parquet::Schema& fs = p->reader_->schema();
    std::optional<NameMapping> mapping;
    const auto& props = table.metadata().properties;
    if (auto it = props.find("schema.name-mapping.default"); it != props.end()) {
      Result<NameMapping> m = NameMapping::Parse(it->second);
      if (!m.ok()) return m.status().WithContext("schema.name-mapping.default");
      mapping = std::move(*m);
    }
    // Identity partition values, by source field id.
    std::map<int32_t, table::Value> partition;
    if (spec != nullptr) {
      for (size_t i = 0; i < spec->fields.size() && i < file.partition.size(); ++i) {
        if (spec->fields[i].transform.kind == Transform::Kind::kIdentity) {
          partition[spec->fields[i].source_id] = file.partition[i];
        }
      }
    }
    Planner planner(out, fs, FileIds(fs, mapping ? &*mapping : nullptr), file.path, partition);
    if (leaves.empty()) leaves = out.LeavesFor({});
    const parquet::Schema& os = out.schema();
    std::vector<bool> top_needed(os.top_level_fields().size(), false);
    for (int l : leaves) {
      int n = os.leaf(l).node;
      while (os.node(n).parent != 0) n = os.node(n).parent;
      const auto& tops = os.top_level_fields();
      top_needed[std::find(tops.begin(), tops.end(), n) - tops.begin()] = true;
    }
    for (size_t i = 0; i < top_needed.size(); ++i) {
      if (!top_needed[i]) continue;
      const NestedField& f = out.iceberg_schema().fields[i];
      const int child = planner.FindChild(0, f);
      Step s;
      s.o = 1;
      if (child >= 0) s.f = fs.node(child).repetition == Repetition::kOptional ? 1 : 0;
      std::vector<Step> steps{s};
      LITHIFY_RETURN_NOT_OK(planner.Visit(f, os.top_level_fields()[i], child, steps, 0, 0, f.name, true, Fill{}));
    }
    std::map<int, int> read_index;
    for (int l : leaves) {
      LeafPlan lp = planner.plans.at(l);
      if (lp.kind == LeafPlan::Kind::kFile || lp.kind == LeafPlan::Kind::kDonor) {
        auto [it, inserted] = read_index.emplace(lp.file_leaf, static_cast<int>(p->read_leaves_.size()));
        if (inserted) p->read_leaves_.push_back(lp.file_leaf);
        lp.read_index = it->second;
      }
      p->plans_.push_back(std::move(lp));
    }
    return p;
  }

  int num_row_groups() const { return reader_->num_row_groups(); }
  const std::string& path() const { return reader_->path(); }
  int64_t num_rows() const { return reader_->metadata().num_rows; }

  Result<parquet::RowBatch> ReadRowGroup(int rg) {
    const parquet::Schema& os = out_->schema();
    const parquet::Schema& fs = reader_->schema();
    parquet::RowBatch in;
    if (!read_leaves_.empty()) {
      LITHIFY_ASSIGN_OR_RETURN(in, reader_->ReadRowGroup(rg, read_leaves_));
    } else {
      in.num_rows = reader_->metadata().row_groups[rg].num_rows;
    }
    parquet::RowBatch out;
    out.num_rows = in.num_rows;
    out.first_row_index = reader_->RowGroupFirstRow(rg);
    std::vector<int> uses(read_leaves_.size(), 0);
    for (const LeafPlan& p : plans_) {
      if (p.kind == LeafPlan::Kind::kFile) ++uses[p.read_index];
    }
    for (const LeafPlan& p : plans_) {
      const parquet::ColumnDescriptor& ol = os.leaf(p.out_leaf);
      const Type& type = out_->field(ol.node)->type;
      ColumnData c;
      c.leaf_index = p.out_leaf;
      c.descr = &ol;
      c.values.type = ol.physical_type;
      c.values.type_length = ol.type_length;
      auto bad_level = [&](const parquet::ColumnDescriptor& fl, int16_t d) {
        return Status::Corruption("{}: column '{}': definition level {} out of range", path(), fl.dotted_path, d);
      };
      switch (p.kind) {
        case LeafPlan::Kind::kNull:
        case LeafPlan::Kind::kConstant: {
          const bool valid = p.kind == LeafPlan::Kind::kConstant;
          c.num_levels = in.num_rows;
          c.def_levels.assign(in.num_rows, p.fill_level);
          if (ol.max_rep > 0) c.rep_levels.assign(in.num_rows, 0);
          if (valid) {
            Result<ColumnValues> v = Constant(*p.constant, type, ol, in.num_rows);
            if (!v.ok()) return v.status().WithContext(path());
            c.values = std::move(*v);
          }
          break;
        }
        case LeafPlan::Kind::kFile: {
          ColumnData& src = in.columns[p.read_index];
          const parquet::ColumnDescriptor& fl = fs.leaf(p.file_leaf);
          c.num_levels = src.num_levels;
          c.def_levels.resize(src.num_levels);
          for (int64_t i = 0; i < src.num_levels; ++i) {
            const int16_t d = src.def_levels.empty() ? fl.max_def : src.def_levels[i];
            if (d < 0 || d > fl.max_def) return bad_level(fl, d);
            c.def_levels[i] = p.def_map[d];
          }
          if (ol.max_rep > 0) c.rep_levels = src.rep_levels;
          ColumnValues v;
          if (--uses[p.read_index] == 0) {
            v = std::move(src.values);
          } else {  // another output leaf reads the same file leaf
            v.type = src.values.type;
            v.type_length = src.values.type_length;
            v.AppendRange(src.values, 0, src.values.count);
          }
          Result<ColumnValues> conv = Convert(std::move(v), fl, type, ol);
          if (!conv.ok()) return conv.status().WithContext(path());
          c.values = std::move(*conv);
          if (type.id == TypeId::kUnknown) {
            for (int16_t& d : c.def_levels) d = std::min<int16_t>(d, static_cast<int16_t>(ol.max_def - 1));
          }
          break;
        }
        case LeafPlan::Kind::kDonor: {
          const ColumnData& src = in.columns[p.read_index];
          const parquet::ColumnDescriptor& fl = fs.leaf(p.file_leaf);
          int64_t present = 0;
          for (int64_t i = 0; i < src.num_levels; ++i) {
            const int16_t r = src.rep_levels.empty() ? 0 : src.rep_levels[i];
            if (r > p.rep_cap) continue;
            const int16_t d = src.def_levels.empty() ? fl.max_def : src.def_levels[i];
            if (d < 0 || d > fl.max_def) return bad_level(fl, d);
            int16_t od = p.def_map[d];
            if (od == p.present_level) {
              od = p.fill_level;
              if (od == ol.max_def) ++present;
            }
            c.def_levels.push_back(od);
            if (ol.max_rep > 0) c.rep_levels.push_back(r);
          }
          c.num_levels = static_cast<int64_t>(c.def_levels.size());
          if (present > 0) {
            Result<ColumnValues> v = Constant(*p.constant, type, ol, present);
            if (!v.ok()) return v.status().WithContext(path());
            c.values = std::move(*v);
          }
          break;
        }
      }
      out.columns.push_back(std::move(c));
    }
    return out;
  }

 private:
  FileProjection() = default;
  const OutputSchema* out_ = nullptr;
  std::unique_ptr<parquet::FileReader> reader_;
  std::vector<LeafPlan> plans_;
  std::vector<int> read_leaves_;
};

// Canonical key bytes of row `r` over flat columns `cols` of `batch` (null marker +
// physical value bytes), for equality deletes. Both sides are projected to the same
// output leaves, so equal values have equal bytes.
void RowKey(const parquet::RowBatch& batch, const std::vector<int>& cols, const std::vector<int64_t>& value_pos,
            int64_t r, std::string* key) {
  key->clear();
  for (size_t k = 0; k < cols.size(); ++k) {
    const ColumnData& c = batch.columns[cols[k]];
    const bool valid = c.def_levels.empty() || c.def_levels[r] == c.descr->max_def;
    if (!valid) {
      key->push_back('\0');
      continue;
    }
    key->push_back('\1');
    const int64_t i = value_pos[k];
    if (c.values.is_byte_array()) {
      std::string_view b = c.values.binary(i);
      const uint64_t n = b.size();
      key->append(reinterpret_cast<const char*>(&n), sizeof n);
      key->append(b);
    } else {
      key->append(reinterpret_cast<const char*>(c.values.fixed_at(i)), c.values.width());
    }
  }
}

// Keys of every row of a batch (advancing value positions per column).
void AllKeys(const parquet::RowBatch& batch, const std::vector<int>& cols, std::vector<std::string>* keys) {
  std::vector<int64_t> pos(cols.size(), 0);
  keys->resize(batch.num_rows);
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    RowKey(batch, cols, pos, r, &(*keys)[r]);
    for (size_t k = 0; k < cols.size(); ++k) {
      const ColumnData& c = batch.columns[cols[k]];
      if (c.def_levels.empty() || c.def_levels[r] == c.descr->max_def) ++pos[k];
    }
  }
}

// The chain of fields from a top-level field of `fields` down to field `id` (false when
// no field has the id).
bool FindChain(const std::vector<NestedField>& fields, int32_t id, std::vector<const NestedField*>* chain) {
  for (const NestedField& f : fields) {
    chain->push_back(&f);
    if (f.id == id || FindChain(f.type.fields, id, chain)) return true;
    chain->pop_back();
  }
  return false;
}

// An equality field the current schema no longer has (dropped after the delete was
// written): a top-level field that reaches it as the newest schema holding it has it
// (its struct ancestors keep their ids and defaults but only the one member on the way
// down), so data and delete files resolve it by field id like any column.
Result<NestedField> DroppedEqualityField(const TableMetadata& m, int32_t id, const std::string& delete_path) {
  const Schema* newest = nullptr;
  std::vector<const NestedField*> chain;
  for (const Schema& s : m.schemas) {
    std::vector<const NestedField*> c;
    if (FindChain(s.fields, id, &c) && (newest == nullptr || s.schema_id > newest->schema_id)) {
      newest = &s;
      chain = std::move(c);
    }
  }
  if (newest == nullptr) {
    return Status::NotSupported("{}: equality delete on field id {}, which no schema of the table has",
                                delete_path, id);
  }
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    if (chain[i]->type.id != TypeId::kStruct) {
      return Status::NotSupported("{}: equality delete on field id {} inside a list or map", delete_path, id);
    }
  }
  if (!chain.back()->type.is_primitive()) {
    return Status::NotSupported("{}: equality delete on field id {}, which is not a primitive column", delete_path,
                                id);
  }
  NestedField node = *chain.back();
  for (size_t i = chain.size() - 1; i-- > 0;) {
    NestedField parent = *chain[i];
    parent.type.fields = {std::move(node)};
    node = std::move(parent);
  }
  return node;
}

// `out`'s schema with the dropped equality fields of `file`'s deletes appended as hidden
// top-level fields (named apart from the current ones; matched by id). nullopt when every
// equality field is in the current schema. Appending keeps every current leaf's index.
Result<std::optional<Schema>> WithDroppedEqualityFields(const IcebergTable& table, const OutputSchema& out,
                                                        const PlannedFile& file) {
  // The schema is copied only once a dropped field turns up: files without such deletes
  // (nearly all) pay one lookup per equality id, not a schema copy per opened file.
  std::optional<Schema> ext;
  std::unordered_set<int32_t> added;
  std::unordered_set<std::string> names;
  for (const DeleteFile& d : file.deletes) {
    if (d.kind != DeleteFile::Kind::kEquality) continue;
    for (int32_t id : d.file.equality_ids) {
      if (!out.LeavesFor({id}).empty() || !added.insert(id).second) continue;
      LITHIFY_ASSIGN_OR_RETURN(NestedField f, DroppedEqualityField(table.metadata(), id, d.file.recorded_path));
      if (!ext) {
        ext = out.iceberg_schema();
        for (const NestedField& g : ext->fields) names.insert(g.name);
      }
      if (!names.insert(f.name).second) {
        f.name += "#" + std::to_string(id);
        names.insert(f.name);
      }
      ext->fields.push_back(std::move(f));
    }
  }
  return ext;
}

struct EqualityDelete {
  std::vector<int32_t> ids;
  std::vector<int> out_leaves;  // output leaves of the ids, in order
  std::unordered_set<std::string> keys;
};

}  // namespace

// Inherits the nulls of a flat optional INT64 row-lineage column of `b` (positions
// first_row_index + r, before deletes): `base` + position for _row_id, `constant` for the
// sequence number; rows stay null when neither is given.
void InheritLineage(ColumnData* c, int64_t first_row, std::optional<int64_t> base, std::optional<int64_t> constant) {
  if (!base && !constant) return;
  const int16_t max_def = c->descr->max_def;
  if (max_def == 0) return;  // required: every row holds its value
  Buffer filled;
  filled.Resize(static_cast<size_t>(c->num_levels) * sizeof(int64_t));
  int64_t next = 0;
  for (int64_t r = 0; r < c->num_levels; ++r) {
    int64_t v;
    if (c->def_levels[r] == max_def) {
      v = c->values.value<int64_t>(next++);
    } else {
      v = base ? *base + first_row + r : *constant;
      c->def_levels[r] = max_def;
    }
    std::memcpy(filled.data() + r * sizeof(int64_t), &v, sizeof v);
  }
  c->values.fixed = std::move(filled);
  c->values.count = c->num_levels;
}

struct LiveRowsReader::Impl {
  const OutputSchema* out = nullptr;
  // Row lineage: positions in `leaves` of the metadata columns asked for (-1: not read),
  // and what their nulls inherit.
  int row_id_col = -1, sequence_col = -1;
  std::optional<int64_t> first_row_id;
  int64_t data_sequence_number = 0;
  // The output schema plus dropped equality fields (only when a delete names one); the
  // projection reads through it, and handed-out columns point back into `out`.
  std::unique_ptr<OutputSchema> extended;
  std::unique_ptr<FileProjection> proj;
  std::vector<int> leaves;
  int rg = 0;
  std::vector<uint64_t> deleted;  // sorted positions (DV and position deletes)
  std::vector<EqualityDelete> equality;
  std::vector<int> eq_extra;      // output leaves read only for equality matching (appended)
  size_t visible = 0;             // columns handed out (the rest are eq_extra)
  int64_t deleted_rows = 0;
};

LiveRowsReader::LiveRowsReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LiveRowsReader::~LiveRowsReader() = default;
int64_t LiveRowsReader::deleted_rows() const { return impl_->deleted_rows; }

Result<std::unique_ptr<LiveRowsReader>> LiveRowsReader::Open(const IcebergTable& table, const OutputSchema& out,
                                                             const PlannedFile& file, std::vector<int> leaves,
                                                             bool rows_only) {
  auto impl = std::make_unique<Impl>();
  impl->out = &out;
  LITHIFY_ASSIGN_OR_RETURN(std::optional<Schema> ext, WithDroppedEqualityFields(table, out, file));
  if (ext) {
    LITHIFY_ASSIGN_OR_RETURN(OutputSchema o, OutputSchema::Build(*ext));
    impl->extended = std::make_unique<OutputSchema>(std::move(o));
  }
  const OutputSchema& read = impl->extended ? *impl->extended : out;
  // Rows only: one leaf is read (the row groups' row counts come with a column).
  if (rows_only) leaves = {0};
  if (leaves.empty()) leaves = out.LeavesFor({});
  const PartitionSpec* spec = table.metadata().FindSpec(file.spec_id);
  // Deletes first: positions, then equality key sets (their columns join the projection).
  std::vector<int> all = leaves;
  for (const DeleteFile& d : file.deletes) {
    if (d.kind == DeleteFile::Kind::kEquality) {
      EqualityDelete e;
      e.ids = d.file.equality_ids;
      for (int32_t id : e.ids) {
        std::vector<int> l = read.LeavesFor({id});
        if (l.size() != 1 || read.schema().leaf(l[0]).max_rep > 0) {
          return Status::NotSupported("{}: equality delete on field id {}, which is not a flat column",
                                      d.file.recorded_path, id);
        }
        e.out_leaves.push_back(l[0]);
      }
      LITHIFY_ASSIGN_OR_RETURN(auto dp, FileProjection::Open(table, read, d.file, nullptr, e.out_leaves));
      std::vector<int> cols(e.out_leaves.size());
      for (size_t k = 0; k < cols.size(); ++k) cols[k] = static_cast<int>(k);
      std::vector<std::string> keys;
      for (int rg = 0; rg < dp->num_row_groups(); ++rg) {
        LITHIFY_ASSIGN_OR_RETURN(parquet::RowBatch b, dp->ReadRowGroup(rg));
        AllKeys(b, cols, &keys);
        for (std::string& k : keys) e.keys.insert(std::move(k));
      }
      for (int l : e.out_leaves) {
        if (std::find(all.begin(), all.end(), l) == all.end()) {
          all.push_back(l);
          impl->eq_extra.push_back(l);
        }
      }
      impl->equality.push_back(std::move(e));
    } else {
      Status st = LoadPositionDeletes(table, file, d, &impl->deleted);
      if (!st.ok()) return st;
    }
  }
  std::sort(impl->deleted.begin(), impl->deleted.end());
  impl->deleted.erase(std::unique(impl->deleted.begin(), impl->deleted.end()), impl->deleted.end());
  impl->visible = rows_only ? 0 : leaves.size();
  impl->leaves = all;
  for (size_t k = 0; k < impl->visible; ++k) {
    const NestedField* f = read.field(read.schema().leaf(all[k]).node);
    if (f == nullptr || read.schema().leaf(all[k]).max_rep > 0) continue;
    if (f->id == kRowIdFieldId) impl->row_id_col = static_cast<int>(k);
    if (f->id == kLastUpdatedSequenceNumberFieldId) impl->sequence_col = static_cast<int>(k);
  }
  impl->first_row_id = file.file.first_row_id;
  impl->data_sequence_number = file.data_sequence_number;
  LITHIFY_ASSIGN_OR_RETURN(impl->proj, FileProjection::Open(table, read, file.file, spec, all));
  if (impl->proj->num_rows() != file.file.record_count) {
    return Status::Corruption("{}: the file holds {} rows, its manifest entry says {}", file.file.path,
                              impl->proj->num_rows(), file.file.record_count);
  }
  return std::unique_ptr<LiveRowsReader>(new LiveRowsReader(std::move(impl)));
}

Result<bool> LiveRowsReader::Next(LiveBatch* out) {
  Impl& m = *impl_;
  if (m.rg >= m.proj->num_row_groups()) return false;
  LITHIFY_ASSIGN_OR_RETURN(parquet::RowBatch b, m.proj->ReadRowGroup(m.rg));
  ++m.rg;
  const int64_t first = b.first_row_index;
  if (m.row_id_col >= 0) InheritLineage(&b.columns[m.row_id_col], first, m.first_row_id, std::nullopt);
  if (m.sequence_col >= 0) InheritLineage(&b.columns[m.sequence_col], first, std::nullopt, m.data_sequence_number);
  std::vector<bool> keep(b.num_rows, true);
  auto lo = std::lower_bound(m.deleted.begin(), m.deleted.end(), static_cast<uint64_t>(first));
  for (auto it = lo; it != m.deleted.end() && *it < static_cast<uint64_t>(first + b.num_rows); ++it) {
    keep[*it - first] = false;
  }
  std::vector<std::string> keys;
  for (const EqualityDelete& e : m.equality) {
    std::vector<int> cols;
    for (int l : e.out_leaves) cols.push_back(static_cast<int>(std::find(m.leaves.begin(), m.leaves.end(), l) - m.leaves.begin()));
    AllKeys(b, cols, &keys);
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (keep[r] && e.keys.count(keys[r])) keep[r] = false;
    }
  }
  out->row_index.clear();
  for (int64_t r = 0; r < b.num_rows; ++r) {
    if (keep[r]) out->row_index.push_back(first + r);
  }
  m.deleted_rows += b.num_rows - static_cast<int64_t>(out->row_index.size());
  if (static_cast<int64_t>(out->row_index.size()) != b.num_rows) parquet::FilterRows(&b, keep);
  b.columns.resize(m.visible);
  if (m.extended) {
    for (ColumnData& c : b.columns) c.descr = &m.out->schema().leaf(c.leaf_index);
  }
  out->batch = std::move(b);
  return true;
}

// ---- IcebergLiveRows ----

Schema WithRowLineage(const Schema& schema) {
  Schema s = schema;
  for (const auto& column : {std::pair{kRowIdFieldId, kRowIdColumn},
                             std::pair{kLastUpdatedSequenceNumberFieldId, kLastUpdatedSequenceNumberColumn}}) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture those in a lambda.
    const int id = column.first;
    const std::string_view name = column.second;
    const bool taken = std::any_of(s.fields.begin(), s.fields.end(),
                                   [&](const NestedField& f) { return f.id == id || f.name == name; });
    if (taken) continue;
    NestedField f;
    f.id = id;
    f.name = name;
    f.type = Type::Primitive(TypeId::kLong);
    s.fields.push_back(std::move(f));
  }
  return s;
}

Result<std::unique_ptr<IcebergLiveRows>> IcebergLiveRows::Make(std::shared_ptr<const IcebergTable> table,
                                                               const Snapshot* snapshot, bool row_lineage) {
  const TableMetadata& m = table->metadata();
  if (row_lineage && m.format_version < 3) {
    return Status::InvalidArgument("{}: row lineage ({}, {}) needs format version 3; the table is version {}",
                                   table->metadata_path(), kRowIdColumn, kLastUpdatedSequenceNumberColumn,
                                   m.format_version);
  }
  LITHIFY_ASSIGN_OR_RETURN(OutputSchema out,
                           OutputSchema::Build(row_lineage ? WithRowLineage(m.current_schema()) : m.current_schema()));
  std::unique_ptr<IcebergLiveRows> r(new IcebergLiveRows(std::move(table), std::move(out)));
  table::TableVersion& v = r->version_;
  v.format = "iceberg";
  v.location = r->table_->metadata_path();
  v.version = snapshot != nullptr ? snapshot->snapshot_id : -1;
  v.properties = m.properties;
  const parquet::Schema& s = r->out_.schema();
  for (int i = 0; i < s.num_leaves(); ++i) {
    const parquet::ColumnDescriptor& d = s.leaf(i);
    table::TableColumn c;
    c.logical_path = d.path;
    c.physical_path = d.path;
    c.repeated = d.max_rep > 0;
    if (const NestedField* f = r->out_.field(d.node)) c.field_id = f->id;
    v.columns.push_back(std::move(c));
  }
  if (const PartitionSpec* spec = m.FindSpec(m.default_spec_id)) {
    for (const PartitionField& pf : spec->fields) v.partition_fields.push_back({pf.name, pf.source_id});
  }
  return r;
}

IcebergLiveFile IcebergLiveRows::Describe(PlannedFile file) const {
  IcebergLiveFile lf;
  lf.path = file.file.path;
  lf.size_bytes = file.file.file_size_in_bytes;
  lf.records = file.file.record_count;
  lf.partition.spec_id = file.spec_id;
  for (const table::Value& v : file.file.partition) {
    lf.partition.values.push_back(v.is_null() ? std::nullopt : std::optional<table::Value>(v));
  }
  for (const DeleteFile& d : file.deletes) {
    table::DeleteInfo di;
    di.kind = d.kind == DeleteFile::Kind::kDeletionVector ? table::DeleteKind::kDeletionVector
              : d.kind == DeleteFile::Kind::kEquality     ? table::DeleteKind::kEqualityDeletes
                                                          : table::DeleteKind::kPositionDeletes;
    di.path = d.file.path;
    di.rows = d.file.record_count;
    lf.deletes.push_back(std::move(di));
  }
  lf.planned = std::move(file);
  return lf;
}

Result<std::unique_ptr<table::LiveRowsReader>> IcebergLiveRows::Open(const table::LiveFile& file,
                                                                     const std::vector<int>& leaves) const {
  const auto* f = dynamic_cast<const IcebergLiveFile*>(&file);
  if (f == nullptr) {
    return Status::InvalidArgument("{}: not a live file of Iceberg table {}", file.path, table_->metadata_path());
  }
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<LiveRowsReader> r,
                           LiveRowsReader::Open(*table_, out_, f->planned, leaves, leaves.empty()));
  return std::unique_ptr<table::LiveRowsReader>(std::move(r));
}

}  // namespace lithify::iceberg
