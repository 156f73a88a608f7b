// Parquet input: a plan matching the file's schema to the table's (ParquetPlanner), then
// record assembly from levels, one cursor per leaf (Assembler). See ingest_parquet.h.
#include "lithify/commands/ingest_parquet.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "lithify/base/civil_time.h"
#include "lithify/base/decimal_text.h"
#include "lithify/base/macros.h"
#include "lithify/base/utf8.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/metadata.h"

namespace lithify::commands::ingest_internal {
namespace {

using parquet::PhysicalType;
using parquet::SchemaNode;
using parquet::NodeKind;
using parquet::Repetition;

// What a Parquet leaf holds, after its annotations.
struct LeafSource {
  enum class Kind { kBool, kInt, kFloat, kDouble, kDecimal, kDate, kTimestamp, kInt96, kString, kBytes, kOther };
  Kind kind = Kind::kOther;
  PhysicalType physical = PhysicalType::kInt32;
  int bits = 64;
  bool is_signed = true;
  int precision = 0;
  int scale = 0;
  parquet::TimeUnit unit = parquet::TimeUnit::kMicros;
  bool utc = true;
  std::string desc;  // for messages, e.g. "INT64 TIMESTAMP(NANOS)"
};

LeafSource Classify(const parquet::SchemaElement& e) {
  using LK = parquet::LogicalType::Kind;
  using CT = parquet::ConvertedType;
  using K = LeafSource::Kind;
  LeafSource s;
  s.physical = e.type.value_or(PhysicalType::kByteArray);
  s.desc = parquet::PhysicalTypeName(s.physical);
  const auto& lt = e.logical_type;
  const std::optional<CT> ct = e.converted_type;
  const bool is_int = s.physical == PhysicalType::kInt32 || s.physical == PhysicalType::kInt64;
  const bool is_bin = s.physical == PhysicalType::kByteArray || s.physical == PhysicalType::kFixedLenByteArray;
  if ((lt.kind == LK::kDecimal || (lt.kind == LK::kNone && ct == CT::kDecimal)) && (is_int || is_bin)) {
    s.kind = K::kDecimal;
    s.precision = lt.kind == LK::kDecimal ? lt.precision : e.precision.value_or(0);
    s.scale = lt.kind == LK::kDecimal ? lt.scale : e.scale.value_or(0);
    s.desc += fmt::format(" DECIMAL({},{})", s.precision, s.scale);
    return s;
  }
  switch (s.physical) {
    case PhysicalType::kBoolean: s.kind = K::kBool; return s;
    case PhysicalType::kFloat: s.kind = lt.kind == LK::kNone ? K::kFloat : K::kOther; return s;
    case PhysicalType::kDouble: s.kind = lt.kind == LK::kNone ? K::kDouble : K::kOther; return s;
    case PhysicalType::kInt96: s.kind = K::kInt96; return s;
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      s.bits = s.physical == PhysicalType::kInt32 ? 32 : 64;
      if (lt.kind == LK::kDate || (lt.kind == LK::kNone && ct == CT::kDate)) {
        s.kind = s.physical == PhysicalType::kInt32 ? K::kDate : K::kOther;
        s.desc += " DATE";
        return s;
      }
      if (lt.kind == LK::kTimestamp && s.physical == PhysicalType::kInt64) {
        s.kind = K::kTimestamp;
        s.unit = lt.unit;
        s.utc = lt.is_adjusted_to_utc;
        s.desc += fmt::format(" TIMESTAMP({}, {})",
                              s.unit == parquet::TimeUnit::kMillis ? "MILLIS" : s.unit == parquet::TimeUnit::kMicros ? "MICROS" : "NANOS",
                              s.utc ? "UTC" : "local");
        return s;
      }
      if (lt.kind == LK::kNone && (ct == CT::kTimestampMillis || ct == CT::kTimestampMicros) &&
          s.physical == PhysicalType::kInt64) {
        s.kind = K::kTimestamp;
        s.unit = ct == CT::kTimestampMillis ? parquet::TimeUnit::kMillis : parquet::TimeUnit::kMicros;
        s.utc = true;
        s.desc += ct == CT::kTimestampMillis ? " TIMESTAMP_MILLIS" : " TIMESTAMP_MICROS";
        return s;
      }
      if (lt.kind == LK::kInteger) {
        s.kind = K::kInt;
        s.bits = lt.bit_width;
        s.is_signed = lt.is_signed;
        s.desc += fmt::format(" INTEGER({}, {})", s.bits, s.is_signed ? "signed" : "unsigned");
        return s;
      }
      if (lt.kind != LK::kNone) return s;  // TIME etc.
      if (!ct.has_value()) {
        s.kind = K::kInt;
        return s;
      }
      switch (*ct) {
        case CT::kInt8: s.kind = K::kInt; s.bits = 8; return s;
        case CT::kInt16: s.kind = K::kInt; s.bits = 16; return s;
        case CT::kInt32: s.kind = K::kInt; s.bits = 32; return s;
        case CT::kInt64: s.kind = K::kInt; s.bits = 64; return s;
        case CT::kUint8: s.kind = K::kInt; s.bits = 8; s.is_signed = false; return s;
        case CT::kUint16: s.kind = K::kInt; s.bits = 16; s.is_signed = false; return s;
        case CT::kUint32: s.kind = K::kInt; s.bits = 32; s.is_signed = false; return s;
        case CT::kUint64: s.kind = K::kInt; s.bits = 64; s.is_signed = false; return s;
        default: return s;
      }
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: {
      const bool stringy = lt.kind == LK::kString || lt.kind == LK::kEnum || lt.kind == LK::kJson ||
                           (lt.kind == LK::kNone && (ct == CT::kUtf8 || ct == CT::kEnum || ct == CT::kJson));
      if (stringy && s.physical == PhysicalType::kByteArray) {
        s.kind = K::kString;
        s.desc += " STRING";
      } else if (lt.kind == LK::kNone || lt.kind == LK::kUuid || lt.kind == LK::kBson) {
        s.kind = K::kBytes;
      }
      return s;
    }
  }
  return s;
}

bool Compatible(const LeafSource& s, const DataType& t) {
  using K = LeafSource::Kind;
  switch (t.kind) {
    case TypeKind::kBoolean: return s.kind == K::kBool;
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong: return s.kind == K::kInt;  // narrowing is range-checked per value
    case TypeKind::kFloat: return s.kind == K::kFloat;
    case TypeKind::kDouble: return s.kind == K::kFloat || s.kind == K::kDouble || (s.kind == K::kInt && s.bits <= 32);
    case TypeKind::kDecimal: return s.kind == K::kDecimal || s.kind == K::kInt;
    case TypeKind::kString: return s.kind == K::kString || (s.kind == K::kBytes && s.physical == PhysicalType::kByteArray);
    case TypeKind::kBinary: return s.kind == K::kString || s.kind == K::kBytes;
    case TypeKind::kDate: return s.kind == K::kDate;
    case TypeKind::kTimestamp: return (s.kind == K::kTimestamp && s.utc) || s.kind == K::kInt96;
    case TypeKind::kTimestampNtz: return s.kind == K::kTimestamp && !s.utc;
    default: return false;
  }
}

struct Plan {
  const DataType* type = nullptr;
  bool nullable = true;
  int node = -1;  // Parquet node; -1: absent from the file (always null)
  std::string path;
  LeafSource source;           // leaves
  std::vector<Plan> children;  // struct: per table field; array: {element}; map: {key, value}
};

class ParquetPlanner {
 public:
  ParquetPlanner(const parquet::Schema& s, const std::string& file) : s_(s), file_(file) {}

  Status Top(const delta::StructType& schema, std::vector<Plan>* out) {
    const auto& pq_fields = s_.top_level_fields();
    std::vector<bool> used(pq_fields.size(), false);
    out->resize(schema.fields.size());
    for (size_t f = 0; f < schema.fields.size(); ++f) {
      const auto& field = schema.fields[f];
      int idx = FindChild(pq_fields, field.name);
      Plan& p = (*out)[f];
      if (idx < 0) {
        if (!field.nullable) return Error(field.name, "missing from the file, and the column is NOT NULL");
        p.type = &field.type;
        p.path = field.name;
        continue;
      }
      used[idx] = true;
      LITHIFY_RETURN_NOT_OK(Field(pq_fields[idx], false, field.type, field.nullable, field.name, &p));
    }
    for (size_t i = 0; i < pq_fields.size(); ++i) {
      if (!used[i]) return Error(s_.node(pq_fields[i]).name, "not in the table schema");
    }
    return Status::OK();
  }

 private:
  Status Error(std::string_view path, std::string_view what) const {
    return Status::InvalidArgument("{}: column '{}': {}", file_, path, what);
  }

  int FindChild(const std::vector<int>& children, std::string_view name) const {
    for (size_t i = 0; i < children.size(); ++i) {
      if (s_.node(children[i]).name == name) return static_cast<int>(i);
    }
    for (size_t i = 0; i < children.size(); ++i) {
      if (EqualsIgnoreCase(s_.node(children[i]).name, name)) return static_cast<int>(i);
    }
    return -1;
  }

  // `once`: the node is a repeated field taken as one element (its repetition is
  // handled by the enclosing list).
  Status Field(int node, bool once, const DataType& type, bool nullable, const std::string& path,
               Plan* p) {
    const SchemaNode& sn = s_.node(node);
    p->type = &type;
    p->nullable = nullable;
    p->node = node;
    p->path = path;
    auto incompatible = [&](std::string_view found) {
      return Error(path, fmt::format("the file has {}, which cannot be read as {}", found, type.ToString()));
    };
    const bool as_leaf = sn.is_leaf() && (once || sn.kind == NodeKind::kPrimitive);
    const bool as_struct = !sn.is_leaf() && (once || sn.kind == NodeKind::kStruct);
    if (type.is_primitive()) {
      if (!as_leaf) return incompatible(sn.kind == NodeKind::kList ? "a list" : sn.kind == NodeKind::kMap ? "a map" : "a group");
      p->source = Classify(sn.element);
      if (!Compatible(p->source, type)) return incompatible(p->source.desc);
      return Status::OK();
    }
    switch (type.kind) {
      case TypeKind::kStruct: {
        if (!as_struct) return incompatible(sn.is_leaf() ? Classify(sn.element).desc : "a list or map");
        std::vector<bool> used(sn.children.size(), false);
        p->children.resize(type.fields.size());
        for (size_t f = 0; f < type.fields.size(); ++f) {
          const auto& field = type.fields[f];
          std::string child_path = path + "." + field.name;
          int idx = FindChild(sn.children, field.name);
          if (idx < 0) {
            if (!field.nullable) return Error(child_path, "missing from the file, and the field is NOT NULL");
            p->children[f].type = &field.type;
            p->children[f].path = child_path;
            continue;
          }
          used[idx] = true;
          LITHIFY_RETURN_NOT_OK(Field(sn.children[idx], false, field.type, field.nullable, child_path, &p->children[f]));
        }
        for (size_t i = 0; i < sn.children.size(); ++i) {
          if (!used[i]) return Error(path + "." + s_.node(sn.children[i]).name, "not in the table schema");
        }
        return Status::OK();
      }
      case TypeKind::kArray: {
        if (once || sn.kind != NodeKind::kList) return incompatible("no list");
        p->children.resize(1);
        return Field(sn.element_node, sn.element_node == sn.repeated_node, *type.element,
                     type.contains_null, path + ".element", &p->children[0]);
      }
      case TypeKind::kMap: {
        if (once || sn.kind != NodeKind::kMap) return incompatible("no map");
        p->children.resize(2);
        LITHIFY_RETURN_NOT_OK(Field(sn.key_node, false, *type.key, false, path + ".key", &p->children[0]));
        if (sn.value_node < 0) {
          if (!type.value_contains_null) return Error(path, "the file's map has no values, and values are NOT NULL");
          p->children[1].type = type.value.get();
          p->children[1].path = path + ".value";
          return Status::OK();
        }
        return Field(sn.value_node, false, *type.value, type.value_contains_null, path + ".value",
                     &p->children[1]);
      }
      default:
        return Error(path, fmt::format("type {} cannot be ingested", type.ToString()));
    }
  }

  const parquet::Schema& s_;
  const std::string& file_;
};

class Assembler {
 public:
  explicit Assembler(const parquet::Schema& s) : s_(s) {
    first_leaf_.resize(s.nodes().size(), -1);
    leaves_under_.resize(s.nodes().size());
    for (size_t n = 0; n < s.nodes().size(); ++n) {
      leaves_under_[n] = s.LeavesUnder(static_cast<int>(n));
      if (!leaves_under_[n].empty()) first_leaf_[n] = leaves_under_[n][0];
    }
  }

  void Reset(const parquet::RowBatch* batch) {
    batch_ = batch;
    lpos_.assign(batch->columns.size(), 0);
    vpos_.assign(batch->columns.size(), 0);
  }

  Result<Value> Field(const Plan& p) {
    if (p.node < 0) return NullOr(p);
    const SchemaNode& sn = s_.node(p.node);
    if (sn.repetition == Repetition::kOptional) {
      LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(first_leaf_[p.node], p));
      if (d < sn.max_def) {
        LITHIFY_RETURN_NOT_OK(Skip(p.node, p));
        return NullOr(p);
      }
    }
    return Content(p, p.node);
  }

  // Every level and value of the batch must have been used.
  Status CheckConsumed() const {
    for (size_t c = 0; c < batch_->columns.size(); ++c) {
      const auto& col = batch_->columns[c];
      if (lpos_[c] != col.num_levels || vpos_[c] != col.values.count) {
        return Status::Corruption("column '{}': levels and values do not match the schema",
                                  s_.leaf(static_cast<int>(c)).dotted_path);
      }
    }
    return Status::OK();
  }

 private:
  Status Inconsistent(const Plan& p) const {
    return Status::Corruption("column '{}': inconsistent definition/repetition levels", p.path);
  }
  Result<Value> NullOr(const Plan& p) const {
    if (!p.nullable) {
      return Status::InvalidArgument("column '{}': null is not allowed (the column is NOT NULL)", p.path);
    }
    return Value::Null();
  }
  Result<int16_t> Def(int leaf, const Plan& p) const {
    if (leaf < 0) return Inconsistent(p);
    const auto& c = batch_->columns[leaf];
    if (lpos_[leaf] >= c.num_levels) return Inconsistent(p);
    return c.def_levels.empty() ? c.descr->max_def : c.def_levels[lpos_[leaf]];
  }
  // Repetition level at the cursor, or -1 at the end of the batch.
  int16_t PeekRep(int leaf) const {
    const auto& c = batch_->columns[leaf];
    if (lpos_[leaf] >= c.num_levels) return -1;
    return c.rep_levels.empty() ? 0 : c.rep_levels[lpos_[leaf]];
  }
  Status Skip(int node, const Plan& p) {
    for (int leaf : leaves_under_[node]) {
      if (lpos_[leaf] >= batch_->columns[leaf].num_levels) return Inconsistent(p);
      ++lpos_[leaf];
    }
    return Status::OK();
  }

  Result<Value> Content(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    switch (sn.kind) {
      case NodeKind::kPrimitive: return Leaf(p, sn.leaf_index);
      case NodeKind::kStruct: return Struct(p, node);
      case NodeKind::kList:
      case NodeKind::kMap: return Repeated(p, node);
    }
    return Inconsistent(p);
  }

  // One occurrence of a repeated node used as a list element.
  Result<Value> Once(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    if (sn.is_leaf()) return Leaf(p, sn.leaf_index);
    return Struct(p, node);
  }

  Result<Value> Struct(const Plan& p, int node) {
    (void)node;
    std::vector<Value> fields;
    fields.reserve(p.children.size());
    for (const Plan& c : p.children) {
      LITHIFY_ASSIGN_OR_RETURN(Value v, Field(c));
      fields.push_back(std::move(v));
    }
    return Value::Struct(std::move(fields));
  }

  Result<Value> Repeated(const Plan& p, int node) {
    const SchemaNode& sn = s_.node(node);
    const SchemaNode& rn = s_.node(sn.repeated_node);
    const int fl = first_leaf_[node];
    LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(fl, p));
    const bool is_map = sn.kind == NodeKind::kMap;
    if (d < rn.max_def) {
      LITHIFY_RETURN_NOT_OK(Skip(node, p));
      return is_map ? Value::Map({}) : Value::List({});
    }
    std::vector<Value> items;
    std::vector<std::pair<Value, Value>> entries;
    while (true) {
      const int64_t before = lpos_[fl];
      if (is_map) {
        LITHIFY_ASSIGN_OR_RETURN(Value k, Field(p.children[0]));
        LITHIFY_ASSIGN_OR_RETURN(Value v, Field(p.children[1]));
        entries.emplace_back(std::move(k), std::move(v));
      } else if (sn.element_node == sn.repeated_node) {
        LITHIFY_ASSIGN_OR_RETURN(Value v, Once(p.children[0], sn.element_node));
        items.push_back(std::move(v));
      } else {
        LITHIFY_ASSIGN_OR_RETURN(Value v, Field(p.children[0]));
        items.push_back(std::move(v));
      }
      if (lpos_[fl] == before) return Inconsistent(p);  // no progress: malformed
      if (PeekRep(fl) != rn.max_rep) break;
    }
    if (is_map) return Value::Map(std::move(entries));
    return Value::List(std::move(items));
  }

  Result<Value> Leaf(const Plan& p, int leaf) {
    const auto& c = batch_->columns[leaf];
    LITHIFY_ASSIGN_OR_RETURN(int16_t d, Def(leaf, p));
    if (d != c.descr->max_def) return Inconsistent(p);
    if (vpos_[leaf] >= c.values.count) return Inconsistent(p);
    const int64_t i = vpos_[leaf]++;
    ++lpos_[leaf];
    Result<Value> v = Convert(p, c.values, i);
    if (!v.ok()) return Status(v.status().code(), fmt::format("column '{}': {}", p.path, v.status().message()));
    return v;
  }

  static Result<Value> Convert(const Plan& p, const parquet::ColumnValues& vals, int64_t i) {
    using K = LeafSource::Kind;
    const LeafSource& s = p.source;
    const DataType& t = *p.type;
    switch (s.kind) {
      case K::kBool: return Value::Bool(vals.fixed_at(i)[0] != 0);
      case K::kFloat: return Value::Double(static_cast<double>(vals.value<float>(i)));
      case K::kDouble: return Value::Double(vals.value<double>(i));
      case K::kDate: return Value::Int(vals.value<int32_t>(i));
      case K::kInt: {
        __int128 v;
        if (s.physical == PhysicalType::kInt32) {
          int32_t raw = vals.value<int32_t>(i);
          v = s.is_signed ? __int128{raw} : __int128{static_cast<uint32_t>(raw)};
        } else {
          int64_t raw = vals.value<int64_t>(i);
          v = s.is_signed ? __int128{raw} : __int128{static_cast<uint64_t>(raw)};
        }
        if (t.kind == TypeKind::kDouble) return Value::Double(static_cast<double>(v));
        if (t.kind == TypeKind::kDecimal) return Rescale(v, 0, t);
        auto [lo, hi] = IntRange(t.kind);
        if (v < lo || v > hi) {
          return Status::InvalidArgument("{} is out of range for {}", DecimalText(v, 0), t.ToString());
        }
        return Value::Int(static_cast<int64_t>(v));
      }
      case K::kDecimal: {
        __int128 v = 0;
        if (s.physical == PhysicalType::kInt32) {
          v = vals.value<int32_t>(i);
        } else if (s.physical == PhysicalType::kInt64) {
          v = vals.value<int64_t>(i);
        } else {
          std::string_view b = s.physical == PhysicalType::kByteArray
                                   ? vals.binary(i)
                                   : std::string_view(reinterpret_cast<const char*>(vals.fixed_at(i)), vals.width());
          LITHIFY_ASSIGN_OR_RETURN(v, BigEndianDecimal(b));
        }
        return Rescale(v, s.scale, t);
      }
      case K::kTimestamp: {
        int64_t raw = vals.value<int64_t>(i);
        if (s.unit == parquet::TimeUnit::kMicros) return Value::Int(raw);
        if (s.unit == parquet::TimeUnit::kMillis) {
          if (raw > std::numeric_limits<int64_t>::max() / 1000 || raw < std::numeric_limits<int64_t>::min() / 1000) {
            return Status::InvalidArgument("{} milliseconds is out of range for {}", raw, t.ToString());
          }
          return Value::Int(raw * 1000);
        }
        if (raw % 1000 != 0) {
          return Status::InvalidArgument("{} nanoseconds has sub-microsecond digits; {} stores microseconds",
                                         raw, t.ToString());
        }
        return Value::Int(raw / 1000);
      }
      case K::kInt96: {
        const uint8_t* b = vals.fixed_at(i);
        int64_t nanos;
        uint32_t jd;
        std::memcpy(&nanos, b, 8);
        std::memcpy(&jd, b + 8, 4);
        if (nanos % 1000 != 0) {
          return Status::InvalidArgument("INT96 value has sub-microsecond digits; {} stores microseconds",
                                         t.ToString());
        }
        __int128 micros = (static_cast<__int128>(jd) - kJulianDayOfEpoch) * kMicrosPerDay + nanos / 1000;
        if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) {
          return Status::InvalidArgument("INT96 value is out of range for {}", t.ToString());
        }
        return Value::Int(static_cast<int64_t>(micros));
      }
      case K::kString:
      case K::kBytes: {
        std::string_view b = s.physical == PhysicalType::kByteArray
                                 ? vals.binary(i)
                                 : std::string_view(reinterpret_cast<const char*>(vals.fixed_at(i)), vals.width());
        if (t.kind == TypeKind::kString) {
          if (!IsValidUtf8(b)) return Status::InvalidArgument("string value is not valid UTF-8");
          return Value::String(std::string(b));
        }
        return Value::Bytes(std::string(b));
      }
      case K::kOther: break;
    }
    return Status::Internal("unexpected Parquet source type {}", s.desc);
  }

  static Result<__int128> BigEndianDecimal(std::string_view b) {
    if (b.empty()) return __int128{0};
    const bool neg = static_cast<unsigned char>(b[0]) & 0x80;
    // Drop sign-extension bytes beyond 16.
    while (b.size() > 16) {
      unsigned char lead = static_cast<unsigned char>(b[0]);
      if (lead != (neg ? 0xFF : 0x00)) return Status::InvalidArgument("decimal value exceeds 38 digits");
      b.remove_prefix(1);
    }
    unsigned __int128 u = neg ? ~static_cast<unsigned __int128>(0) : 0;
    for (char c : b) u = (u << 8) | static_cast<unsigned char>(c);
    return static_cast<__int128>(u);
  }

  static Result<Value> Rescale(__int128 v, int from_scale, const DataType& t) {
    const __int128 limit = Pow10(t.precision);
    if (t.scale >= from_scale) {
      const __int128 mul = Pow10(t.scale - from_scale);
      // Exact check of |v| * mul < 10^precision without overflow.
      if ((v < 0 ? -v : v) > (limit - 1) / mul) {
        return Status::InvalidArgument("{} has more digits than {} allows", DecimalText(v, from_scale), t.ToString());
      }
      return Value::Decimal(v * mul);
    }
    const __int128 div = Pow10(from_scale - t.scale);
    if (v % div != 0) {
      return Status::InvalidArgument("{} has more digits after the point than {} allows",
                                     DecimalText(v, from_scale), t.ToString());
    }
    v /= div;
    if (v >= limit || v <= -limit) {
      return Status::InvalidArgument("{} has more digits than {} allows", DecimalText(v * div, from_scale), t.ToString());
    }
    return Value::Decimal(v);
  }

  const parquet::Schema& s_;
  const parquet::RowBatch* batch_ = nullptr;
  std::vector<int> first_leaf_;
  std::vector<std::vector<int>> leaves_under_;
  std::vector<int64_t> lpos_;
  std::vector<int64_t> vpos_;
};

}  // namespace

Status ReadParquet(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                   size_t read_batch_rows, RowBatcher* batcher) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  const parquet::Schema& ps = reader->schema();
  std::vector<Plan> plans;
  LITHIFY_RETURN_NOT_OK(ParquetPlanner(ps, path).Top(schema, &plans));
  Assembler assembler(ps);
  parquet::RowBatch batch;
  const auto rows_per_batch = static_cast<int64_t>(std::min<size_t>(read_batch_rows, 1 << 20));
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(rg, {}, rows_per_batch));
    while (true) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&batch));
      if (!more) break;
      assembler.Reset(&batch);
      for (int64_t r = 0; r < batch.num_rows; ++r) {
        std::vector<Value> row;
        row.reserve(plans.size());
        for (const Plan& p : plans) {
          Result<Value> v = assembler.Field(p);
          if (!v.ok()) return v.status().WithContextF("{} row {}", path, batch.first_row_index + r + 1);
          row.push_back(std::move(v).value());
        }
        LITHIFY_RETURN_NOT_OK(batcher->Add(std::move(row)));
      }
      LITHIFY_RETURN_NOT_OK_CTX(assembler.CheckConsumed(), "{} row group {}", path, rg);
    }
  }
  return Status::OK();
}

}  // namespace lithify::commands::ingest_internal
