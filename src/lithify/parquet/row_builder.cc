#include "lithify/parquet/row_builder.h"

#include <cstring>

#include "lithify/base/macros.h"

namespace lithify::parquet {
namespace {

using LK = LogicalType::Kind;

const char* KindName(Value::Kind k) {
  switch (k) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return "boolean";
    case Value::Kind::kInt: return "integer";
    case Value::Kind::kDouble: return "double";
    case Value::Kind::kBytes: return "string/bytes";
    case Value::Kind::kDecimal: return "decimal";
    case Value::Kind::kList: return "list";
    case Value::Kind::kStruct: return "struct";
    case Value::Kind::kMap: return "map";
  }
  return "?";
}

__int128 Pow10(int p) {
  __int128 r = 1;
  for (int i = 0; i < p; ++i) r *= 10;
  return r;
}

bool IsDecimal(const SchemaElement& e) {
  return e.logical_type.kind == LK::kDecimal ||
         (e.converted_type && *e.converted_type == ConvertedType::kDecimal);
}

int32_t DecimalPrecision(const SchemaElement& e) {
  if (e.logical_type.kind == LK::kDecimal) return e.logical_type.precision;
  return e.precision.value_or(38);
}

// Inclusive integer range of an INT32/INT64 column from its annotations.
void IntegerRange(const SchemaElement& e, int64_t* lo, int64_t* hi) {
  bool is_64 = e.type == PhysicalType::kInt64;
  int bits = is_64 ? 64 : 32;
  bool is_signed = true;
  if (e.logical_type.kind == LK::kInteger) {
    bits = e.logical_type.bit_width;
    is_signed = e.logical_type.is_signed;
  } else if (e.converted_type) {
    switch (*e.converted_type) {
      case ConvertedType::kInt8: bits = 8; break;
      case ConvertedType::kInt16: bits = 16; break;
      case ConvertedType::kUint8: bits = 8; is_signed = false; break;
      case ConvertedType::kUint16: bits = 16; is_signed = false; break;
      case ConvertedType::kUint32: bits = 32; is_signed = false; break;
      case ConvertedType::kUint64: bits = 64; is_signed = false; break;
      default: break;
    }
  }
  if (bits <= 0 || bits > 64) bits = is_64 ? 64 : 32;
  if (is_signed) {
    *lo = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
    *hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits >= 63 ? INT64_MAX : (int64_t{1} << bits) - 1;
  }
}

// Big-endian two's complement of `v` in exactly `width` bytes (width <= 16).
void DecimalBytes(__int128 v, int width, uint8_t* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(v & 0xFF);
    v >>= 8;  // arithmetic shift keeps the sign
  }
}

int MinimalDecimalWidth(__int128 v) {
  int width = 1;
  while (width < 16) {
    __int128 lo = -(static_cast<__int128>(1) << (8 * width - 1));
    __int128 hi = (static_cast<__int128>(1) << (8 * width - 1)) - 1;
    if (v >= lo && v <= hi) break;
    ++width;
  }
  return width;
}

}  // namespace

Value Value::Map(std::vector<std::pair<Value, Value>> entries) {
  Value v(Kind::kMap);
  v.children_.reserve(entries.size() * 2);
  for (auto& [k, val] : entries) {
    v.children_.push_back(std::move(k));
    v.children_.push_back(std::move(val));
  }
  return v;
}

Result<Value> ParseDecimal(std::string_view text, int32_t precision, int32_t scale) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("'{}' is not a decimal({},{}): {}", text, precision, scale, why);
  };
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  __int128 v = 0;
  int digits = 0, frac = 0;
  bool any = false, dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return bad("unexpected character");
    any = true;
    if (dot) {
      if (++frac > scale) return bad("too many fraction digits");
    }
    if (digits > 0 || c != '0') ++digits;
    if (digits > 38) return bad("too many digits");
    v = v * 10 + (c - '0');
  }
  if (!any) return bad("no digits");
  for (; frac < scale; ++frac) {
    v *= 10;
    if (digits > 0) ++digits;
  }
  if (v >= Pow10(precision)) return bad("too many digits");
  return Value::Decimal(neg ? -v : v);
}

RowBatchBuilder::RowBatchBuilder(const Schema& schema) : schema_(schema) {
  leaves_under_.resize(schema.nodes().size());
  for (size_t n = 0; n < schema.nodes().size(); ++n) {
    leaves_under_[n] = schema.LeavesUnder(static_cast<int>(n));
  }
  Reset();
}

void RowBatchBuilder::Reset() {
  batch_ = RowBatch{};
  batch_.columns.resize(static_cast<size_t>(schema_.num_leaves()));
  for (int i = 0; i < schema_.num_leaves(); ++i) {
    ColumnData& c = batch_.columns[i];
    c.leaf_index = i;
    c.descr = &schema_.leaf(i);
    c.values.type = c.descr->physical_type;
    c.values.type_length = c.descr->type_length;
    if (c.values.is_byte_array()) c.values.offsets.push_back(0);
  }
}

RowBatch RowBatchBuilder::Finish() {
  RowBatch out = std::move(batch_);
  Reset();
  return out;
}

int64_t RowBatchBuilder::EstimatedBytes() const {
  int64_t total = 0;
  for (const ColumnData& c : batch_.columns) {
    total += static_cast<int64_t>(c.values.fixed.size() + c.values.data.size() +
                                  8 * c.values.offsets.size() +
                                  2 * (c.def_levels.size() + c.rep_levels.size()));
  }
  return total;
}

std::string RowBatchBuilder::NodePath(int node) const {
  std::string path;
  for (int n = node; n > 0; n = schema_.node(n).parent) {
    path = path.empty() ? schema_.node(n).name : schema_.node(n).name + "." + path;
  }
  return path;
}

Status RowBatchBuilder::Append(const std::vector<Value>& row) {
  const auto& fields = schema_.top_level_fields();
  if (row.size() != fields.size()) {
    return Status::InvalidArgument("row has {} values, the schema has {} top-level fields",
                                   row.size(), fields.size());
  }
  marks_.resize(batch_.columns.size());
  for (size_t i = 0; i < batch_.columns.size(); ++i) {
    const ColumnData& c = batch_.columns[i];
    marks_[i] = {c.num_levels, c.values.count, c.values.fixed.size(), c.values.data.size()};
  }
  Status st;
  for (size_t f = 0; f < fields.size() && st.ok(); ++f) {
    st = EmitField(fields[f], row[f], 0, 0, 0);
  }
  if (!st.ok()) {
    for (size_t i = 0; i < batch_.columns.size(); ++i) {
      ColumnData& c = batch_.columns[i];
      const Mark& m = marks_[i];
      c.num_levels = m.levels;
      if (!c.def_levels.empty()) c.def_levels.resize(static_cast<size_t>(m.levels));
      if (!c.rep_levels.empty()) c.rep_levels.resize(static_cast<size_t>(m.levels));
      c.values.count = m.count;
      c.values.fixed.Resize(m.fixed);
      c.values.data.Resize(m.data);
      if (c.values.is_byte_array()) c.values.offsets.resize(static_cast<size_t>(m.count) + 1);
    }
    return st;
  }
  ++batch_.num_rows;
  return Status::OK();
}

void RowBatchBuilder::EmitNull(int node, int16_t def, int16_t rep) {
  for (int leaf : leaves_under_[node]) {
    ColumnData& c = batch_.columns[leaf];
    if (c.descr->max_def > 0) c.def_levels.push_back(def);
    if (c.descr->max_rep > 0) c.rep_levels.push_back(rep);
    ++c.num_levels;
  }
}

Status RowBatchBuilder::EmitField(int node, const Value& v, int16_t def, int16_t rep,
                                  int16_t rep_depth) {
  const SchemaNode& n = schema_.node(node);
  if (n.repetition == Repetition::kRepeated) {
    // A bare repeated field: a required list of required elements.
    return EmitRepeated(node, v, def, rep, rep_depth);
  }
  if (v.is_null()) {
    if (n.repetition == Repetition::kRequired) {
      return Status::InvalidArgument("column '{}': null in a required field", NodePath(node));
    }
    EmitNull(node, def, rep);
    return Status::OK();
  }
  int16_t d = n.repetition == Repetition::kOptional ? static_cast<int16_t>(def + 1) : def;
  return EmitContent(node, v, d, rep, rep_depth);
}

Status RowBatchBuilder::EmitRepeated(int node, const Value& list, int16_t def, int16_t rep,
                                     int16_t rep_depth) {
  if (list.kind() != Value::Kind::kList) {
    return Status::InvalidArgument("column '{}': expected a list, got {}", NodePath(node),
                                   KindName(list.kind()));
  }
  if (list.items().empty()) {
    EmitNull(node, def, rep);
    return Status::OK();
  }
  const int16_t d = static_cast<int16_t>(def + 1);
  const int16_t depth = static_cast<int16_t>(rep_depth + 1);
  for (size_t i = 0; i < list.items().size(); ++i) {
    const Value& item = list.items()[i];
    if (item.is_null()) {
      return Status::InvalidArgument("column '{}': null element in a list of required elements",
                                     NodePath(node));
    }
    LITHIFY_RETURN_NOT_OK(EmitContent(node, item, d, i == 0 ? rep : depth, depth));
  }
  return Status::OK();
}

Status RowBatchBuilder::EmitContent(int node, const Value& v, int16_t d, int16_t rep,
                                    int16_t rep_depth) {
  const SchemaNode& n = schema_.node(node);
  if (n.is_leaf()) return EmitLeaf(node, v, d, rep);
  auto expect = [&](Value::Kind k) -> Status {
    if (v.kind() == k) return Status::OK();
    return Status::InvalidArgument("column '{}': expected a {}, got {}", NodePath(node),
                                   KindName(k), KindName(v.kind()));
  };
  if (n.kind == NodeKind::kList && n.repeated_node != node) {
    LITHIFY_RETURN_NOT_OK(expect(Value::Kind::kList));
    const int r = n.repeated_node;
    const int e = n.element_node;
    if (v.items().empty()) {
      EmitNull(node, d, rep);
      return Status::OK();
    }
    const int16_t dr = static_cast<int16_t>(d + 1);
    const int16_t depth = static_cast<int16_t>(rep_depth + 1);
    for (size_t i = 0; i < v.items().size(); ++i) {
      const Value& item = v.items()[i];
      const int16_t ri = i == 0 ? rep : depth;
      if (e == r) {
        // Two-level list: the repeated node is the element and cannot be null.
        if (item.is_null()) {
          return Status::InvalidArgument("column '{}': null element in a list of required elements",
                                         NodePath(node));
        }
        LITHIFY_RETURN_NOT_OK(EmitContent(r, item, dr, ri, depth));
      } else {
        LITHIFY_RETURN_NOT_OK(EmitField(e, item, dr, ri, depth));
      }
    }
    return Status::OK();
  }
  if (n.kind == NodeKind::kMap && n.repeated_node != node) {
    LITHIFY_RETURN_NOT_OK(expect(Value::Kind::kMap));
    const SchemaNode& kv = schema_.node(n.repeated_node);
    if (v.map_size() == 0) {
      EmitNull(node, d, rep);
      return Status::OK();
    }
    const int16_t dr = static_cast<int16_t>(d + 1);
    const int16_t depth = static_cast<int16_t>(rep_depth + 1);
    for (size_t i = 0; i < v.map_size(); ++i) {
      const int16_t ri = i == 0 ? rep : depth;
      for (int child : kv.children) {
        if (child == n.key_node) {
          LITHIFY_RETURN_NOT_OK(EmitField(child, v.map_key(i), dr, ri, depth));
        } else if (child == n.value_node) {
          LITHIFY_RETURN_NOT_OK(EmitField(child, v.map_value(i), dr, ri, depth));
        } else {
          LITHIFY_RETURN_NOT_OK(EmitField(child, Value::Null(), dr, ri, depth));
        }
      }
    }
    return Status::OK();
  }
  LITHIFY_RETURN_NOT_OK(expect(Value::Kind::kStruct));
  if (v.items().size() != n.children.size()) {
    return Status::InvalidArgument("column '{}': struct value has {} fields, the schema has {}",
                                   NodePath(node), v.items().size(), n.children.size());
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    LITHIFY_RETURN_NOT_OK(EmitField(n.children[i], v.items()[i], d, rep, rep_depth));
  }
  return Status::OK();
}

Status RowBatchBuilder::EmitLeaf(int node, const Value& v, int16_t def, int16_t rep) {
  const SchemaNode& n = schema_.node(node);
  ColumnData& c = batch_.columns[n.leaf_index];
  const ColumnDescriptor& d = *c.descr;
  const SchemaElement& e = *d.element;
  auto mismatch = [&](const char* expected) {
    return Status::InvalidArgument("column '{}': expected {}, got {}", d.dotted_path, expected,
                                   KindName(v.kind()));
  };
  ColumnValues& out = c.values;
  auto check_decimal = [&](__int128* unscaled) -> Status {
    if (v.kind() != Value::Kind::kDecimal) return mismatch("a decimal");
    __int128 limit = Pow10(DecimalPrecision(e));
    if (v.decimal() >= limit || v.decimal() <= -limit) {
      return Status::InvalidArgument("column '{}': decimal has more than {} digits",
                                     d.dotted_path, DecimalPrecision(e));
    }
    *unscaled = v.decimal();
    return Status::OK();
  };
  switch (d.physical_type) {
    case PhysicalType::kBoolean:
      if (v.kind() != Value::Kind::kBool) return mismatch("a boolean");
      out.fixed.PushBack(v.bool_value() ? 1 : 0);
      break;
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      int64_t x;
      if (IsDecimal(e)) {
        __int128 u;
        LITHIFY_RETURN_NOT_OK(check_decimal(&u));
        x = static_cast<int64_t>(u);
      } else {
        if (v.kind() != Value::Kind::kInt) return mismatch("an integer");
        int64_t lo, hi;
        IntegerRange(e, &lo, &hi);
        x = v.int_value();
        if (x < lo || x > hi) {
          return Status::InvalidArgument("column '{}': {} is out of range [{}, {}]",
                                         d.dotted_path, x, lo, hi);
        }
      }
      if (d.physical_type == PhysicalType::kInt32) {
        // Unsigned 32-bit values keep their bit pattern.
        out.fixed.AppendValue(static_cast<int32_t>(static_cast<uint32_t>(x)));
      } else {
        out.fixed.AppendValue(x);
      }
      break;
    }
    case PhysicalType::kFloat:
    case PhysicalType::kDouble: {
      double x;
      if (v.kind() == Value::Kind::kDouble) {
        x = v.double_value();
      } else if (v.kind() == Value::Kind::kInt) {
        x = static_cast<double>(v.int_value());
      } else {
        return mismatch("a number");
      }
      if (d.physical_type == PhysicalType::kFloat) {
        out.fixed.AppendValue(static_cast<float>(x));
      } else {
        out.fixed.AppendValue(x);
      }
      break;
    }
    case PhysicalType::kByteArray: {
      if (IsDecimal(e)) {
        __int128 u;
        LITHIFY_RETURN_NOT_OK(check_decimal(&u));
        uint8_t bytes[16];
        int w = MinimalDecimalWidth(u);
        DecimalBytes(u, w, bytes);
        out.data.Append(bytes, static_cast<size_t>(w));
      } else {
        if (v.kind() != Value::Kind::kBytes) return mismatch("a string or bytes");
        out.data.Append(std::string_view(v.bytes()));
      }
      out.offsets.push_back(static_cast<int64_t>(out.data.size()));
      break;
    }
    case PhysicalType::kFixedLenByteArray:
    case PhysicalType::kInt96: {
      const auto width = static_cast<int32_t>(PhysicalTypeWidth(d.physical_type, d.type_length));
      if (IsDecimal(e) && d.physical_type == PhysicalType::kFixedLenByteArray) {
        __int128 u;
        LITHIFY_RETURN_NOT_OK(check_decimal(&u));
        if (MinimalDecimalWidth(u) > width) {
          return Status::InvalidArgument("column '{}': decimal does not fit {} bytes",
                                         d.dotted_path, width);
        }
        size_t pos = out.fixed.size();
        out.fixed.Resize(pos + static_cast<size_t>(width));
        // Sign-extend: leading bytes beyond 16 are all sign bytes.
        uint8_t* dst = out.fixed.data() + pos;
        int lead = width > 16 ? width - 16 : 0;
        std::memset(dst, u < 0 ? 0xFF : 0x00, static_cast<size_t>(lead));
        DecimalBytes(u, width - lead, dst + lead);
      } else {
        if (v.kind() != Value::Kind::kBytes) return mismatch("bytes");
        if (v.bytes().size() != static_cast<size_t>(width)) {
          return Status::InvalidArgument("column '{}': value has {} bytes, the column holds {}",
                                         d.dotted_path, v.bytes().size(), width);
        }
        out.fixed.Append(std::string_view(v.bytes()));
      }
      break;
    }
  }
  ++out.count;
  if (d.max_def > 0) c.def_levels.push_back(def);
  if (d.max_rep > 0) c.rep_levels.push_back(rep);
  ++c.num_levels;
  return Status::OK();
}

}  // namespace lithify::parquet
