// Batch evaluation: validation of the levels form, typed loaders over the dense values,
// one loop per (domain, operator), and the generic Value path for the rest.
#include "lithify/expr/batch_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"

namespace lithify::expr {

using parquet::ColumnData;
using parquet::ColumnValues;
using parquet::PhysicalType;
using parquet::TimeUnit;

namespace {

constexpr uint8_t kFalse = static_cast<uint8_t>(Truth::kFalse);
constexpr uint8_t kTrue = static_cast<uint8_t>(Truth::kTrue);
constexpr uint8_t kNull = static_cast<uint8_t>(Truth::kNull);

// ---- physical decoding ----

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

int64_t Int96ToMicros(const uint8_t* p) { return Int96Micros(Load<int64_t>(p), Load<uint32_t>(p + 8)); }

// Big-endian two's complement (DECIMAL on FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY). Values of
// precision <= 38 fit 16 bytes; longer encodings only repeat the sign, so their last 16
// bytes carry the value.
int128_t DecodeBigEndian(const uint8_t* p, size_t n) {
  if (n == 0) return 0;
  if (n > 16) {
    p += n - 16;
    n = 16;
  }
  using U = unsigned __int128;
  U u = (p[0] & 0x80) != 0 ? ~U{0} : U{0};
  for (size_t i = 0; i < n; ++i) u = (u << 8) | p[i];
  return static_cast<int128_t>(u);
}

std::string_view BytesAt(const ColumnValues& v, int64_t i) {
  if (v.is_byte_array()) return v.binary(i);
  size_t w = v.width();
  return {reinterpret_cast<const char*>(v.fixed.data()) + static_cast<size_t>(i) * w, w};
}

int64_t IntAt(const ColumnValues& v, const BatchColumn& c, int64_t i) {
  const uint8_t* p = v.fixed.data();
  switch (c.physical) {
    case PhysicalType::kBoolean: return p[i] != 0 ? 1 : 0;
    case PhysicalType::kInt32:
      return c.is_unsigned ? int64_t{Load<uint32_t>(p + 4 * i)} : int64_t{Load<int32_t>(p + 4 * i)};
    case PhysicalType::kInt96: return Int96ToMicros(p + 12 * i);
    default: return Load<int64_t>(p + 8 * i);
  }
}

}  // namespace

Value DecodeValue(const ColumnValues& v, const BatchColumn& c, const DataType& type, int64_t i) {
  const uint8_t* p = v.fixed.data();
  switch (type.kind) {
    case TypeKind::kBoolean: return Value::Boolean(p[i] != 0);
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: {
      double d = c.physical == PhysicalType::kFloat ? double{Load<float>(p + 4 * i)}
                                                     : Load<double>(p + 8 * i);
      return Value::Floating(type.kind, d);
    }
    case TypeKind::kDecimal: {
      int128_t u = c.physical == PhysicalType::kInt32 || c.physical == PhysicalType::kInt64
                       ? int128_t{IntAt(v, c, i)}
                       : [&] {
                           std::string_view b = BytesAt(v, i);
                           return DecodeBigEndian(reinterpret_cast<const uint8_t*>(b.data()), b.size());
                         }();
      return Value::Decimal(u, type.precision, type.scale);
    }
    case TypeKind::kString: return Value::String(std::string(BytesAt(v, i)));
    case TypeKind::kBinary: return Value::Binary(std::string(BytesAt(v, i)));
    case TypeKind::kDate: return Value::Date(static_cast<int32_t>(IntAt(v, c, i)));
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      int64_t t = IntAt(v, c, i);
      if (c.physical == PhysicalType::kInt64 && c.unit == TimeUnit::kMillis) t = MillisToMicros(t);
      if (c.physical == PhysicalType::kInt64 && c.unit == TimeUnit::kNanos) t = NanosToMicros(t);
      return type.kind == TypeKind::kTimestamp ? Value::Timestamp(t) : Value::TimestampNtz(t);
    }
    case TypeKind::kNull: return Value();
    default: return Value::Integer(type.kind, IntAt(v, c, i));
  }
}

namespace {

// ---- validation ----

bool Suits(const DataType& t, const BatchColumn& c) {
  PhysicalType p = c.physical;
  switch (t.kind) {
    case TypeKind::kBoolean: return p == PhysicalType::kBoolean;
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: return p == PhysicalType::kInt32 || p == PhysicalType::kInt64;
    case TypeKind::kFloat32:
    case TypeKind::kFloat64: return p == PhysicalType::kFloat || p == PhysicalType::kDouble;
    case TypeKind::kDecimal:
      return p == PhysicalType::kInt32 || p == PhysicalType::kInt64 || p == PhysicalType::kByteArray ||
             (p == PhysicalType::kFixedLenByteArray && c.type_length <= 16);
    case TypeKind::kString:
    case TypeKind::kBinary:
      return p == PhysicalType::kByteArray || p == PhysicalType::kFixedLenByteArray;
    case TypeKind::kDate: return p == PhysicalType::kInt32;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: return p == PhysicalType::kInt64 || p == PhysicalType::kInt96;
    case TypeKind::kNull: return false;
  }
  return false;
}

Status CheckValues(const ColumnValues& v, const BatchColumn& c, int64_t defined) {
  if (v.type != c.physical) {
    return Status::Corruption("values are {}, expected {}", parquet::PhysicalTypeName(v.type),
                              parquet::PhysicalTypeName(c.physical));
  }
  if (v.count != defined) {
    return Status::Corruption("{} values for {} defined levels", v.count, defined);
  }
  if (v.is_byte_array()) {
    if (v.count == 0) return Status::OK();
    if (v.offsets.size() != static_cast<size_t>(v.count) + 1 || v.offsets[0] != 0) {
      return Status::Corruption("BYTE_ARRAY offsets do not match the value count");
    }
    for (int64_t i = 0; i < v.count; ++i) {
      if (v.offsets[i + 1] < v.offsets[i]) return Status::Corruption("BYTE_ARRAY offsets decrease");
    }
    if (v.offsets.back() > static_cast<int64_t>(v.data.size())) {
      return Status::Corruption("BYTE_ARRAY offsets past the data");
    }
    return Status::OK();
  }
  if (c.physical == PhysicalType::kFixedLenByteArray && v.type_length != c.type_length) {
    return Status::Corruption("FIXED_LEN_BYTE_ARRAY width {}, expected {}", v.type_length, c.type_length);
  }
  if (v.width() == 0 && v.count > 0) return Status::Corruption("zero-width values");
  if (v.fixed.size() < static_cast<size_t>(v.count) * v.width()) {
    return Status::Corruption("{} bytes for {} values of width {}", v.fixed.size(), v.count, v.width());
  }
  return Status::OK();
}

Status CheckColumn(const parquet::RowBatch& batch, const BoundColumn& bound, const BatchColumn& c) {
  if (c.index < 0 || static_cast<size_t>(c.index) >= batch.columns.size()) {
    return Status::InvalidArgument("batch column index {} out of range ({} columns)", c.index,
                                   batch.columns.size());
  }
  const ColumnData& d = batch.columns[static_cast<size_t>(c.index)];
  if (c.max_rep > 0 || !d.rep_levels.empty()) {
    return Status::NotSupported("predicates on repeated columns (inside a list or map)");
  }
  if (!Suits(bound.type, c)) {
    return Status::NotSupported("{} stored as {}", TypeName(bound.type),
                                parquet::PhysicalTypeName(c.physical));
  }
  int64_t defined = batch.num_rows;
  if (c.max_def > 0) {
    if (d.def_levels.size() != static_cast<size_t>(batch.num_rows)) {
      return Status::Corruption("{} definition levels for {} rows", d.def_levels.size(), batch.num_rows);
    }
    defined = std::count(d.def_levels.begin(), d.def_levels.end(), c.max_def);
  } else if (!d.def_levels.empty() && d.def_levels.size() != static_cast<size_t>(batch.num_rows)) {
    return Status::Corruption("{} definition levels for {} rows", d.def_levels.size(), batch.num_rows);
  }
  return CheckValues(d.values, c, defined);
}

// ---- loops ----

template <CompareOp op>
bool Apply(int c) {
  if constexpr (op == CompareOp::kEq) return c == 0;
  if constexpr (op == CompareOp::kNe) return c != 0;
  if constexpr (op == CompareOp::kLt) return c < 0;
  if constexpr (op == CompareOp::kLe) return c <= 0;
  if constexpr (op == CompareOp::kGt) return c > 0;
  return c >= 0;
}

template <typename F>
void WithOp(CompareOp op, F&& f) {
  switch (op) {
    case CompareOp::kEq: f(std::integral_constant<CompareOp, CompareOp::kEq>{}); break;
    case CompareOp::kNe: f(std::integral_constant<CompareOp, CompareOp::kNe>{}); break;
    case CompareOp::kLt: f(std::integral_constant<CompareOp, CompareOp::kLt>{}); break;
    case CompareOp::kLe: f(std::integral_constant<CompareOp, CompareOp::kLe>{}); break;
    case CompareOp::kGt: f(std::integral_constant<CompareOp, CompareOp::kGt>{}); break;
    case CompareOp::kGe: f(std::integral_constant<CompareOp, CompareOp::kGe>{}); break;
  }
}

struct Leaf {
  const ColumnData* data = nullptr;
  const BatchColumn* bc = nullptr;
  const DataType* type = nullptr;
  int64_t rows = 0;
};

// Calls pred(load(value index)) for every non-null row; null rows get kNull.
template <typename LoadFn, typename Pred>
void Scan(const Leaf& l, LoadFn load, Pred pred, uint8_t* out) {
  if (l.bc->max_def == 0) {
    for (int64_t r = 0; r < l.rows; ++r) out[r] = pred(load(r));
    return;
  }
  const int16_t* def = l.data->def_levels.data();
  const int16_t md = l.bc->max_def;
  int64_t vi = 0;
  for (int64_t r = 0; r < l.rows; ++r) out[r] = def[r] == md ? pred(load(vi++)) : kNull;
}

template <typename T>
int Three(T a, T b) {
  return (a > b) - (a < b);
}

// Loaders: `f` is called with a callable int64_t -> domain value.
template <typename F>
void WithI64Loader(const Leaf& l, F&& f) {
  const uint8_t* p = l.data->values.fixed.data();
  const BatchColumn& c = *l.bc;
  switch (c.physical) {
    case PhysicalType::kBoolean: f([p](int64_t i) { return int64_t{p[i] != 0}; }); return;
    case PhysicalType::kInt32:
      if (c.is_unsigned) {
        f([p](int64_t i) { return int64_t{Load<uint32_t>(p + 4 * i)}; });
      } else {
        f([p](int64_t i) { return int64_t{Load<int32_t>(p + 4 * i)}; });
      }
      return;
    case PhysicalType::kInt96: f([p](int64_t i) { return Int96ToMicros(p + 12 * i); }); return;
    default: break;
  }
  bool temporal = l.type->kind == TypeKind::kTimestamp || l.type->kind == TypeKind::kTimestampNtz;
  if (temporal && c.unit == TimeUnit::kMillis) {
    f([p](int64_t i) { return MillisToMicros(Load<int64_t>(p + 8 * i)); });
  } else if (temporal && c.unit == TimeUnit::kNanos) {
    f([p](int64_t i) { return NanosToMicros(Load<int64_t>(p + 8 * i)); });
  } else {
    f([p](int64_t i) { return Load<int64_t>(p + 8 * i); });
  }
}

template <typename F>
void WithI128Loader(const Leaf& l, F&& f) {
  const ColumnValues& v = l.data->values;
  if (l.bc->physical == PhysicalType::kInt32 || l.bc->physical == PhysicalType::kInt64) {
    WithI64Loader(l, [&](auto load) { f([load](int64_t i) { return int128_t{load(i)}; }); });
    return;
  }
  f([&v](int64_t i) {
    std::string_view b = BytesAt(v, i);
    return DecodeBigEndian(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  });
}

template <typename F>
void WithF64Loader(const Leaf& l, F&& f) {
  const uint8_t* p = l.data->values.fixed.data();
  if (l.bc->physical == PhysicalType::kFloat) {
    f([p](int64_t i) { return double{Load<float>(p + 4 * i)}; });
  } else {
    f([p](int64_t i) { return Load<double>(p + 8 * i); });
  }
}

template <typename F>
void WithBytesLoader(const Leaf& l, F&& f) {
  const ColumnValues& v = l.data->values;
  if (v.is_byte_array()) {
    const char* data = reinterpret_cast<const char*>(v.data.data());
    const int64_t* off = v.offsets.data();
    f([data, off](int64_t i) {
      return std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
    });
  } else {
    const char* data = reinterpret_cast<const char*>(v.fixed.data());
    size_t w = v.width();
    f([data, w](int64_t i) { return std::string_view(data + static_cast<size_t>(i) * w, w); });
  }
}

// The typed form of a literal in the column's loop domain.
enum class Domain : uint8_t { kI64, kI128, kF64, kBytes, kGeneric };

struct Lit {
  Domain domain = Domain::kGeneric;
  int64_t i64 = 0;
  int128_t i128 = 0;
  double f64 = 0;
  std::string_view bytes;
};

Lit DomainOf(const Leaf& l, const Value& v) {
  Lit out;
  TypeKind ck = l.type->kind, vk = v.kind();
  PhysicalType p = l.bc->physical;
  if (ck == TypeKind::kBoolean && vk == TypeKind::kBoolean) {
    out.domain = Domain::kI64;
    out.i64 = v.bool_value() ? 1 : 0;
  } else if ((IsIntegerKind(ck) && IsIntegerKind(vk)) || (IsTemporalKind(ck) && ck == vk)) {
    out.domain = Domain::kI64;
    out.i64 = v.int_value();
  } else if (ck == TypeKind::kDecimal && vk == TypeKind::kDecimal && v.type().scale == l.type->scale) {
    bool fits = v.unscaled() >= std::numeric_limits<int64_t>::min() &&
                v.unscaled() <= std::numeric_limits<int64_t>::max();
    bool int_physical = p == PhysicalType::kInt32 || p == PhysicalType::kInt64;
    out.domain = fits && int_physical ? Domain::kI64 : Domain::kI128;
    out.i64 = fits ? static_cast<int64_t>(v.unscaled()) : 0;
    out.i128 = v.unscaled();
  } else if (IsFloatKind(ck) && IsFloatKind(vk)) {
    out.domain = Domain::kF64;
    out.f64 = v.double_value();
  } else if (IsBytesKind(ck) && IsBytesKind(vk)) {
    out.domain = Domain::kBytes;
    out.bytes = v.bytes();
  }
  return out;
}

// r -> dense value index, or -1 for a null row.
std::vector<int64_t> ValueIndexes(const Leaf& l) {
  std::vector<int64_t> idx(static_cast<size_t>(l.rows));
  int64_t vi = 0;
  for (int64_t r = 0; r < l.rows; ++r) {
    bool valid = l.bc->max_def == 0 || l.data->def_levels[r] == l.bc->max_def;
    idx[r] = valid ? vi++ : -1;
  }
  return idx;
}

class Evaluator {
 public:
  Evaluator(std::vector<Leaf> leaves, int64_t rows) : leaves_(std::move(leaves)), rows_(rows) {}

  std::vector<uint8_t> Eval(const BoundNode& n) {
    std::vector<uint8_t> out(static_cast<size_t>(rows_), kNull);
    switch (n.kind) {
      case BoundKind::kConstant: std::fill(out.begin(), out.end(), static_cast<uint8_t>(n.constant)); break;
      case BoundKind::kIsNull: IsNull(n, out.data()); break;
      case BoundKind::kCompare: Compare(n, out.data()); break;
      case BoundKind::kIn: In(n, out.data()); break;
      case BoundKind::kAnd:
      case BoundKind::kOr: Combine(n, &out); break;
    }
    return out;
  }

 private:
  const Leaf& LeafOf(int column) const { return leaves_[static_cast<size_t>(column)]; }

  void IsNull(const BoundNode& n, uint8_t* out) const {
    const Leaf& l = LeafOf(n.column);
    const uint8_t when_null = n.negated ? kFalse : kTrue;
    const uint8_t when_valid = n.negated ? kTrue : kFalse;
    for (int64_t r = 0; r < rows_; ++r) {
      bool valid = l.bc->max_def == 0 || l.data->def_levels[r] == l.bc->max_def;
      out[r] = valid ? when_valid : when_null;
    }
  }

  void Combine(const BoundNode& n, std::vector<uint8_t>* out) {
    static constexpr uint8_t kAndTable[3][3] = {{kFalse, kFalse, kFalse},
                                                {kFalse, kTrue, kNull},
                                                {kFalse, kNull, kNull}};
    static constexpr uint8_t kOrTable[3][3] = {{kFalse, kTrue, kNull},
                                               {kTrue, kTrue, kTrue},
                                               {kNull, kTrue, kNull}};
    const auto& table = n.kind == BoundKind::kAnd ? kAndTable : kOrTable;
    *out = Eval(n.children[0]);
    for (size_t i = 1; i < n.children.size(); ++i) {
      std::vector<uint8_t> c = Eval(n.children[i]);
      for (int64_t r = 0; r < rows_; ++r) (*out)[r] = table[(*out)[r]][c[r]];
    }
  }

  void Compare(const BoundNode& n, uint8_t* out) const {
    const Leaf& l = LeafOf(n.column);
    if (n.right_column >= 0) return CompareColumns(n, out);
    Lit lit = DomainOf(l, n.literal);
    WithOp(n.op, [&](auto opc) {
      constexpr CompareOp op = decltype(opc)::value;
      switch (lit.domain) {
        case Domain::kI64:
          WithI64Loader(l, [&](auto load) {
            Scan(l, load, [v = lit.i64](int64_t x) -> uint8_t { return Apply<op>(Three(x, v)); }, out);
          });
          return;
        case Domain::kI128:
          WithI128Loader(l, [&](auto load) {
            Scan(l, load, [v = lit.i128](int128_t x) -> uint8_t { return Apply<op>(Three(x, v)); }, out);
          });
          return;
        case Domain::kF64:
          WithF64Loader(l, [&](auto load) {
            Scan(l, load, [v = lit.f64](double x) -> uint8_t { return Apply<op>(CompareDoubles(x, v)); },
                 out);
          });
          return;
        case Domain::kBytes:
          WithBytesLoader(l, [&](auto load) {
            Scan(l, load, [v = lit.bytes](std::string_view x) -> uint8_t {
              return Apply<op>(Three(x.compare(v), 0));
            }, out);
          });
          return;
        case Domain::kGeneric: break;
      }
      GenericCompare(n, l, out);
    });
  }

  void GenericCompare(const BoundNode& n, const Leaf& l, uint8_t* out) const {
    std::vector<int64_t> idx = ValueIndexes(l);
    for (int64_t r = 0; r < rows_; ++r) {
      if (idx[r] < 0) continue;  // out is pre-filled with kNull
      Value v = DecodeValue(l.data->values, *l.bc, *l.type, idx[r]);
      out[r] = static_cast<uint8_t>(CompareTruth(v, n.op, n.literal));
    }
  }

  void CompareColumns(const BoundNode& n, uint8_t* out) const {
    const Leaf& a = LeafOf(n.column);
    const Leaf& b = LeafOf(n.right_column);
    std::vector<int64_t> ia = ValueIndexes(a), ib = ValueIndexes(b);
    for (int64_t r = 0; r < rows_; ++r) {
      if (ia[r] < 0 || ib[r] < 0) continue;
      Value va = DecodeValue(a.data->values, *a.bc, *a.type, ia[r]);
      Value vb = DecodeValue(b.data->values, *b.bc, *b.type, ib[r]);
      out[r] = static_cast<uint8_t>(CompareTruth(va, n.op, vb));
    }
  }

  // Membership result for a found / not-found value.
  static uint8_t Member(bool found, const BoundNode& n) {
    if (found) return n.negated ? kFalse : kTrue;
    if (n.list_has_null) return kNull;
    return n.negated ? kTrue : kFalse;
  }

  void In(const BoundNode& n, uint8_t* out) const {
    const Leaf& l = LeafOf(n.column);
    std::vector<Lit> lits;
    Domain d = n.values.empty() ? Domain::kGeneric : DomainOf(l, n.values[0]).domain;
    for (const Value& v : n.values) {
      lits.push_back(DomainOf(l, v));
      if (lits.back().domain != d) d = Domain::kGeneric;
    }
    // n.values is sorted under CompareValues, which each domain's order agrees with.
    switch (d) {
      case Domain::kI64: {
        std::vector<int64_t> set;
        for (const Lit& x : lits) set.push_back(x.i64);
        WithI64Loader(l, [&](auto load) {
          Scan(l, load, [&](int64_t x) -> uint8_t {
            return Member(std::binary_search(set.begin(), set.end(), x), n);
          }, out);
        });
        return;
      }
      case Domain::kI128: {
        std::vector<int128_t> set;
        for (const Lit& x : lits) set.push_back(x.i128);
        WithI128Loader(l, [&](auto load) {
          Scan(l, load, [&](int128_t x) -> uint8_t {
            return Member(std::binary_search(set.begin(), set.end(), x), n);
          }, out);
        });
        return;
      }
      case Domain::kF64: {
        std::vector<double> set;
        for (const Lit& x : lits) set.push_back(x.f64);
        auto less = [](double a, double b) { return CompareDoubles(a, b) < 0; };
        WithF64Loader(l, [&](auto load) {
          Scan(l, load, [&](double x) -> uint8_t {
            return Member(std::binary_search(set.begin(), set.end(), x, less), n);
          }, out);
        });
        return;
      }
      case Domain::kBytes: {
        std::vector<std::string_view> set;
        for (const Lit& x : lits) set.push_back(x.bytes);
        WithBytesLoader(l, [&](auto load) {
          Scan(l, load, [&](std::string_view x) -> uint8_t {
            return Member(std::binary_search(set.begin(), set.end(), x), n);
          }, out);
        });
        return;
      }
      case Domain::kGeneric: break;
    }
    std::vector<int64_t> idx = ValueIndexes(l);
    for (int64_t r = 0; r < rows_; ++r) {
      if (idx[r] < 0) continue;
      Value v = DecodeValue(l.data->values, *l.bc, *l.type, idx[r]);
      out[r] = static_cast<uint8_t>(InTruth(v, n));
    }
  }

  std::vector<Leaf> leaves_;
  int64_t rows_;
};

}  // namespace

Result<DataType> LogicalTypeOf(const parquet::ColumnDescriptor& leaf) {
  using K = parquet::LogicalType::Kind;
  using C = parquet::ConvertedType;
  const parquet::SchemaElement& e = *leaf.element;
  const PhysicalType p = leaf.physical_type;
  auto unsupported = [&](std::string_view what) {
    return Status::NotSupported("column '{}': {} columns in predicates", leaf.dotted_path, what);
  };
  switch (e.logical_type.kind) {
    case K::kString:
    case K::kEnum:
    case K::kJson: return DataType::Of(TypeKind::kString);
    case K::kDecimal: return DataType::Decimal(e.logical_type.precision, e.logical_type.scale);
    case K::kDate: return DataType::Of(TypeKind::kDate);
    case K::kTimestamp:
      return DataType::Of(e.logical_type.is_adjusted_to_utc ? TypeKind::kTimestamp
                                                            : TypeKind::kTimestampNtz);
    case K::kInteger: {
      int bits = e.logical_type.bit_width;
      if (!e.logical_type.is_signed) {
        if (bits >= 64) return unsupported("UINT64");
        bits *= 2;
      }
      return DataType::Of(bits <= 8 ? TypeKind::kInt8 : bits <= 16 ? TypeKind::kInt16
                                    : bits <= 32 ? TypeKind::kInt32 : TypeKind::kInt64);
    }
    case K::kTime: return unsupported("TIME");
    case K::kFloat16: return unsupported("FLOAT16");
    case K::kUuid:
    case K::kBson: return DataType::Of(TypeKind::kBinary);
    case K::kNone: break;
    default: return unsupported("this logical type's");
  }
  if (e.converted_type) {
    switch (*e.converted_type) {
      case C::kUtf8:
      case C::kEnum:
      case C::kJson: return DataType::Of(TypeKind::kString);
      case C::kDecimal: return DataType::Decimal(e.precision.value_or(kMaxDecimalPrecision), e.scale.value_or(0));
      case C::kDate: return DataType::Of(TypeKind::kDate);
      case C::kTimestampMillis:
      case C::kTimestampMicros: return DataType::Of(TypeKind::kTimestamp);
      case C::kInt8: return DataType::Of(TypeKind::kInt8);
      case C::kInt16: return DataType::Of(TypeKind::kInt16);
      case C::kInt32: return DataType::Of(TypeKind::kInt32);
      case C::kInt64: return DataType::Of(TypeKind::kInt64);
      case C::kUint8: return DataType::Of(TypeKind::kInt16);
      case C::kUint16: return DataType::Of(TypeKind::kInt32);
      case C::kUint32: return DataType::Of(TypeKind::kInt64);
      case C::kUint64: return unsupported("UINT64");
      case C::kTimeMillis:
      case C::kTimeMicros: return unsupported("TIME");
      case C::kInterval: return unsupported("INTERVAL");
      default: break;
    }
  }
  switch (p) {
    case PhysicalType::kBoolean: return DataType::Of(TypeKind::kBoolean);
    case PhysicalType::kInt32: return DataType::Of(TypeKind::kInt32);
    case PhysicalType::kInt64: return DataType::Of(TypeKind::kInt64);
    case PhysicalType::kInt96: return DataType::Of(TypeKind::kTimestamp);
    case PhysicalType::kFloat: return DataType::Of(TypeKind::kFloat32);
    case PhysicalType::kDouble: return DataType::Of(TypeKind::kFloat64);
    default: return DataType::Of(TypeKind::kBinary);
  }
}

Result<BatchColumn> DescribeLeaf(const parquet::ColumnDescriptor& leaf, int index) {
  BatchColumn c;
  c.index = index;
  c.physical = leaf.physical_type;
  c.type_length = leaf.type_length;
  c.max_def = leaf.max_def;
  c.max_rep = leaf.max_rep;
  const parquet::SchemaElement& e = *leaf.element;
  if (e.logical_type.kind == parquet::LogicalType::Kind::kTimestamp) c.unit = e.logical_type.unit;
  if (e.converted_type == parquet::ConvertedType::kTimestampMillis) c.unit = TimeUnit::kMillis;
  bool logical_unsigned = e.logical_type.kind == parquet::LogicalType::Kind::kInteger &&
                          !e.logical_type.is_signed;
  bool converted_unsigned = e.converted_type == parquet::ConvertedType::kUint8 ||
                            e.converted_type == parquet::ConvertedType::kUint16 ||
                            e.converted_type == parquet::ConvertedType::kUint32;
  c.is_unsigned = logical_unsigned || converted_unsigned;
  return c;
}

Result<std::vector<bool>> EvaluateBatch(const BoundExpr& e, const parquet::RowBatch& batch,
                                        std::span<const BatchColumn> columns) {
  if (columns.size() < e.columns().size()) {
    return Status::InvalidArgument("{} batch columns given for {} predicate columns", columns.size(),
                                   e.columns().size());
  }
  std::vector<Leaf> leaves;
  for (size_t i = 0; i < e.columns().size(); ++i) {
    const BoundColumn& bound = e.columns()[i];
    LITHIFY_RETURN_NOT_OK_CTX(CheckColumn(batch, bound, columns[i]), "column '{}'",
                              ColumnPathText(bound.path));
    Leaf l;
    l.data = &batch.columns[static_cast<size_t>(columns[i].index)];
    l.bc = &columns[i];
    l.type = &bound.type;
    l.rows = batch.num_rows;
    leaves.push_back(l);
  }
  Evaluator ev(std::move(leaves), batch.num_rows);
  std::vector<uint8_t> truth = ev.Eval(e.root());
  std::vector<bool> selected(truth.size());
  for (size_t r = 0; r < truth.size(); ++r) selected[r] = truth[r] == kTrue;
  return selected;
}

}  // namespace lithify::expr
