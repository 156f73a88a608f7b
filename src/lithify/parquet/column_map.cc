#include "lithify/parquet/column_map.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/parquet/rewrite.h"

namespace lithify::parquet {
namespace {

using LK = LogicalType::Kind;

// Definition-level contribution of one step down a leaf's path: a field, a list's or
// map's repeated level, an element, a key or a value (f: in the file, t: in the target).
struct Step {
  int16_t f = 0;
  int16_t t = 0;
};

std::string NodePath(const Schema& s, int n) {
  std::string path;
  for (; n > 0; n = s.node(n).parent) path = path.empty() ? s.node(n).name : s.node(n).name + "." + path;
  return path.empty() ? "<root>" : path;
}

const char* UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMillis: return "MILLIS";
    case TimeUnit::kMicros: return "MICROS";
    case TimeUnit::kNanos: return "NANOS";
  }
  return "?";
}

std::string Integer(int bits, bool is_signed) { return fmt::format("INTEGER({},{})", bits, is_signed ? "signed" : "unsigned"); }
std::string Time(const char* what, TimeUnit u, bool utc) {
  return fmt::format("{}({},{})", what, UnitName(u), utc ? "UTC" : "local");
}

// What the values of a leaf mean, the same text for a converted type and its logical
// twin (see the header); nullopt for annotations that are compared as written.
std::optional<std::string> Meaning(const SchemaElement& e) {
  std::string phys = PhysicalTypeName(*e.type);
  if (e.type == PhysicalType::kFixedLenByteArray) phys += fmt::format("({})", e.type_length.value_or(0));
  auto with = [&](const std::string& m) { return std::optional<std::string>(phys + " " + m); };
  const LogicalType& l = e.logical_type;
  switch (l.kind) {
    case LK::kNone: break;
    case LK::kString: return with("STRING");
    case LK::kEnum: return with("ENUM");
    case LK::kJson: return with("JSON");
    case LK::kBson: return with("BSON");
    case LK::kDate: return with("DATE");
    case LK::kDecimal: return with(fmt::format("DECIMAL({},{})", l.precision, l.scale));
    case LK::kInteger: return with(Integer(l.bit_width, l.is_signed));
    case LK::kTime: return with(Time("TIME", l.unit, l.is_adjusted_to_utc));
    case LK::kTimestamp: return with(Time("TIMESTAMP", l.unit, l.is_adjusted_to_utc));
    default: return std::nullopt;
  }
  if (!e.converted_type) {
    if (e.type == PhysicalType::kInt32) return with(Integer(32, true));
    if (e.type == PhysicalType::kInt64) return with(Integer(64, true));
    return with("(none)");
  }
  using CT = ConvertedType;
  switch (*e.converted_type) {
    case CT::kUtf8: return with("STRING");
    case CT::kEnum: return with("ENUM");
    case CT::kJson: return with("JSON");
    case CT::kBson: return with("BSON");
    case CT::kDate: return with("DATE");
    case CT::kDecimal: return with(fmt::format("DECIMAL({},{})", e.precision.value_or(-1), e.scale.value_or(0)));
    case CT::kTimeMillis: return with(Time("TIME", TimeUnit::kMillis, true));
    case CT::kTimeMicros: return with(Time("TIME", TimeUnit::kMicros, true));
    case CT::kTimestampMillis: return with(Time("TIMESTAMP", TimeUnit::kMillis, true));
    case CT::kTimestampMicros: return with(Time("TIMESTAMP", TimeUnit::kMicros, true));
    case CT::kInt8: return with(Integer(8, true));
    case CT::kInt16: return with(Integer(16, true));
    case CT::kInt32: return with(Integer(32, true));
    case CT::kInt64: return with(Integer(64, true));
    case CT::kUint8: return with(Integer(8, false));
    case CT::kUint16: return with(Integer(16, false));
    case CT::kUint32: return with(Integer(32, false));
    case CT::kUint64: return with(Integer(64, false));
    default: return std::nullopt;
  }
}

// The conversion that reads a file leaf meaning `fm` as a target leaf meaning `tm`
// (Meaning; see the header), kNone when none does (the leaves may still be equivalent).
ValueConversion ConversionOf(const std::optional<std::string>& fm, const std::optional<std::string>& tm) {
  if (!fm || !tm || *fm == *tm) return ValueConversion::kNone;
  const bool int32 = *fm == "INT32 INTEGER(8,signed)" || *fm == "INT32 INTEGER(16,signed)" ||
                     *fm == "INT32 INTEGER(32,signed)";
  if (*tm == "INT64 INTEGER(64,signed)" && int32) return ValueConversion::kInt32ToInt64;
  if (*tm == "DOUBLE (none)" && int32) return ValueConversion::kInt32ToDouble;
  if (*tm == "DOUBLE (none)" && *fm == "FLOAT (none)") return ValueConversion::kFloatToDouble;
  if (*tm == "INT64 TIMESTAMP(MICROS,UTC)" && *fm == "INT96 (none)") return ValueConversion::kInt96ToMicros;
  if ((*tm == "INT64 TIMESTAMP(MICROS,UTC)" && *fm == "INT64 TIMESTAMP(MILLIS,UTC)") ||
      (*tm == "INT64 TIMESTAMP(MICROS,local)" && *fm == "INT64 TIMESTAMP(MILLIS,local)")) {
    return ValueConversion::kMillisToMicros;
  }
  if (*tm == "INT64 TIMESTAMP(MICROS,local)" && *fm == "INT32 DATE") return ValueConversion::kDaysToMicros;
  return ValueConversion::kNone;
}

template <typename In, typename F>
void ConvertEach(const ColumnValues& in, uint8_t* out, F f) {
  for (int64_t i = 0; i < in.count; ++i) {
    const auto v = f(in.value<In>(i));
    std::memcpy(out + i * 8, &v, 8);
  }
}

const char* KindName(NodeKind k) {
  switch (k) {
    case NodeKind::kPrimitive: return "a primitive";
    case NodeKind::kStruct: return "a struct";
    case NodeKind::kList: return "a list";
    case NodeKind::kMap: return "a map";
  }
  return "?";
}

bool IsBareRepeated(const SchemaNode& n, int index) {
  return n.kind == NodeKind::kList && n.repeated_node == index && n.element_node == index;
}

class Mapper {
 public:
  Mapper(const Schema& f, const Schema& t, const ColumnMapOptions& o) : f_(f), t_(t), o_(o) {
    map_.leaves.resize(static_cast<size_t>(t.num_leaves()));
  }

  Result<ColumnMap> Run() {
    std::vector<Step> steps;
    LITHIFY_RETURN_NOT_OK(Children(0, 0, &steps));
    map_.same_schema = CompareSchemas(t_, "target", f_, "file").ok();
    return std::move(map_);
  }

 private:
  Status Refuse(int tn, const std::string& why) const {
    return Status::NotSupported("column '{}': {}", NodePath(t_, tn), why);
  }

  // A non-repeated step (a field, an element, a key or a value) with the repetitions the
  // two sides read as, then its contents.
  Status Step1(int fn, Repetition fr, int tn, Repetition tr, std::vector<Step>* steps) {
    if (fr == Repetition::kRepeated || tr == Repetition::kRepeated) {
      return Refuse(tn, "an unannotated repeated field (in the file or the target)");
    }
    if (fr == Repetition::kOptional && tr == Repetition::kRequired) {
      return Refuse(tn, "optional in the file, required in the target (the file may hold nulls)");
    }
    if (fr == Repetition::kRequired && tr == Repetition::kOptional && !o_.allow_required_to_optional) {
      return Refuse(tn, "required in the file, optional in the target");
    }
    steps->push_back({static_cast<int16_t>(fr == Repetition::kOptional), static_cast<int16_t>(tr == Repetition::kOptional)});
    Status s = Content(fn, tn, steps);
    steps->pop_back();
    return s;
  }

  Status Field(int fn, int tn, std::vector<Step>* steps) {
    if (IsBareRepeated(f_.node(fn), fn) || IsBareRepeated(t_.node(tn), tn)) {
      return Refuse(tn, "an unannotated repeated field (in the file or the target)");
    }
    return Step1(fn, f_.node(fn).repetition, tn, t_.node(tn).repetition, steps);
  }

  // The file field of struct `fn` that target field `tc` maps to, or -1: by field id when
  // the target field has one and any file field has one, else by name.
  int FindChild(int fn, int tc) const {
    const SchemaElement& te = t_.node(tc).element;
    bool file_ids = false;
    for (int c : f_.node(fn).children) file_ids |= f_.node(c).element.field_id.has_value();
    for (int c : f_.node(fn).children) {
      const SchemaElement& fe = f_.node(c).element;
      if (o_.match_field_ids && te.field_id && file_ids ? fe.field_id == te.field_id : fe.name == te.name) return c;
    }
    return -1;
  }

  Status Children(int fn, int tn, std::vector<Step>* steps) {
    for (int tc : t_.node(tn).children) {
      const int fc = FindChild(fn, tc);
      if (fc < 0) return Refuse(tc, "missing in the file");
      LITHIFY_RETURN_NOT_OK(Field(fc, tc, steps));
    }
    return Status::OK();
  }

  // The element of a list (or the repeated level itself, for 2-level lists) reads as
  // required when it is the repeated level.
  Repetition ElementRepetition(const Schema& s, int list) const {
    const SchemaNode& n = s.node(list);
    return n.element_node == n.repeated_node ? Repetition::kRequired : s.node(n.element_node).repetition;
  }

  Status Content(int fn, int tn, std::vector<Step>* steps) {
    const SchemaNode& f = f_.node(fn);
    const SchemaNode& t = t_.node(tn);
    if (f.kind != t.kind) return Refuse(tn, fmt::format("{} in the file, {} in the target", KindName(f.kind), KindName(t.kind)));
    switch (t.kind) {
      case NodeKind::kPrimitive: return Leaf(fn, tn, *steps);
      case NodeKind::kStruct: return Children(fn, tn, steps);
      case NodeKind::kList: {
        steps->push_back({1, 1});  // the repeated level
        Status s = Step1(f.element_node, ElementRepetition(f_, fn), t.element_node, ElementRepetition(t_, tn), steps);
        steps->pop_back();
        return s;
      }
      case NodeKind::kMap: {
        if (t.value_node >= 0 && f.value_node < 0) return Refuse(tn, "a map without values in the file");
        steps->push_back({1, 1});
        Status s = Field(f.key_node, t.key_node, steps);
        if (s.ok() && t.value_node >= 0) s = Field(f.value_node, t.value_node, steps);
        steps->pop_back();
        return s;
      }
    }
    return Status::Internal("unknown node kind");
  }

  Status Leaf(int fn, int tn, const std::vector<Step>& steps) {
    const SchemaElement& fe = f_.node(fn).element;
    const SchemaElement& te = t_.node(tn).element;
    const std::optional<std::string> fm = Meaning(fe), tm = Meaning(te);
    const ValueConversion conversion = ConversionOf(fm, tm);
    if (conversion != ValueConversion::kNone) {
      // Read through the conversion (the header's list).
    } else if (!fm || !tm) {
      const bool same = fe.type == te.type && fe.type_length == te.type_length && fe.converted_type == te.converted_type &&
                        fe.logical_type == te.logical_type && fe.scale == te.scale && fe.precision == te.precision;
      if (!same) return Refuse(tn, "an annotation without a known equivalent differs");
    } else if (*fm != *tm) {
      return Refuse(tn, fmt::format("{} in the file, {} in the target", *fm, *tm));
    }
    const ColumnDescriptor& fd = f_.leaf(f_.node(fn).leaf_index);
    const ColumnDescriptor& td = t_.leaf(t_.node(tn).leaf_index);
    std::vector<int16_t> pf{0}, pt{0};
    for (const Step& s : steps) {
      pf.push_back(static_cast<int16_t>(pf.back() + s.f));
      pt.push_back(static_cast<int16_t>(pt.back() + s.t));
    }
    if (pf.back() != fd.max_def || pt.back() != td.max_def || fd.max_rep != td.max_rep) {
      return Refuse(tn, fmt::format("levels do not line up (file def {} rep {}, target def {} rep {})", fd.max_def,
                                    fd.max_rep, td.max_def, td.max_rep));
    }
    LeafMap& m = map_.leaves[static_cast<size_t>(t_.node(tn).leaf_index)];
    m.file_leaf = f_.node(fn).leaf_index;
    m.conversion = conversion;
    // File level d: the deepest step whose prefix still sums to d is the last node
    // defined (required nodes below a defined one are defined too).
    std::vector<int16_t> def_map(static_cast<size_t>(fd.max_def) + 1);
    bool same = fd.max_def == td.max_def;
    for (size_t j = 0; j < pf.size(); ++j) def_map[static_cast<size_t>(pf[j])] = pt[j];
    for (size_t d = 0; d < def_map.size(); ++d) same &= def_map[d] == static_cast<int16_t>(d);
    if (!same) m.def_map = std::move(def_map);
    return Status::OK();
  }

  const Schema& f_;
  const Schema& t_;
  const ColumnMapOptions& o_;
  ColumnMap map_;
};

}  // namespace

bool ColumnMap::identity_leaves() const {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const LeafMap& l = leaves[i];
    if (l.file_leaf != static_cast<int>(i) || !l.def_map.empty() || l.conversion != ValueConversion::kNone) return false;
  }
  return true;
}

bool ConversionFits(ValueConversion c, PhysicalType file, PhysicalType target) {
  using PT = PhysicalType;
  switch (c) {
    case ValueConversion::kNone: return file == target;
    case ValueConversion::kInt96ToMicros: return file == PT::kInt96 && target == PT::kInt64;
    case ValueConversion::kMillisToMicros: return file == PT::kInt64 && target == PT::kInt64;
    case ValueConversion::kInt32ToInt64:
    case ValueConversion::kDaysToMicros: return file == PT::kInt32 && target == PT::kInt64;
    case ValueConversion::kInt32ToDouble: return file == PT::kInt32 && target == PT::kDouble;
    case ValueConversion::kFloatToDouble: return file == PT::kFloat && target == PT::kDouble;
  }
  return false;
}

void ConvertLeafValues(const LeafMap& m, ColumnValues* values, Buffer* scratch) {
  if (m.conversion == ValueConversion::kNone) return;
  values->Materialize();  // conversions read and write plain values
  const ColumnValues& in = *values;
  scratch->Resize(static_cast<size_t>(in.count) * 8);  // every conversion writes 8-byte values
  uint8_t* out = scratch->data();
  PhysicalType type = PhysicalType::kInt64;
  switch (m.conversion) {
    case ValueConversion::kNone: return;
    case ValueConversion::kInt96ToMicros:
      for (int64_t i = 0; i < in.count; ++i) {
        int64_t nanos;
        uint32_t julian;
        std::memcpy(&nanos, in.fixed_at(i), 8);
        std::memcpy(&julian, in.fixed_at(i) + 8, 4);
        const int64_t micros = Int96Micros(nanos, julian);
        std::memcpy(out + i * 8, &micros, 8);
      }
      break;
    case ValueConversion::kMillisToMicros: ConvertEach<int64_t>(in, out, MillisToMicros); break;
    case ValueConversion::kInt32ToInt64: ConvertEach<int32_t>(in, out, [](int32_t v) { return int64_t{v}; }); break;
    case ValueConversion::kDaysToMicros:
      ConvertEach<int32_t>(in, out, [](int32_t v) { return DaysToMicros(v); });
      break;
    case ValueConversion::kInt32ToDouble:
      type = PhysicalType::kDouble;
      ConvertEach<int32_t>(in, out, [](int32_t v) { return static_cast<double>(v); });
      break;
    case ValueConversion::kFloatToDouble:
      type = PhysicalType::kDouble;
      ConvertEach<float>(in, out, [](float v) { return static_cast<double>(v); });
      break;
  }
  std::swap(values->fixed, *scratch);
  values->type = type;
  values->type_length = 0;
}

Result<ColumnMap> MapColumns(const Schema& file, const Schema& target, const ColumnMapOptions& options) {
  return Mapper(file, target, options).Run();
}

void RemapDefLevels(const LeafMap& m, int64_t num_levels, std::vector<int16_t>* def_levels) {
  if (m.def_map.empty()) return;
  if (def_levels->empty()) {
    def_levels->assign(static_cast<size_t>(num_levels), m.def_map[0]);
    return;
  }
  for (int16_t& d : *def_levels) d = m.def_map[static_cast<size_t>(d)];
}

}  // namespace lithify::parquet
