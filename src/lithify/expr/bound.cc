// Binding (resolution, negation normal form, coercion, folding) and row evaluation.
#include "lithify/expr/bound.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"

namespace lithify::expr {

// ---- three-valued logic ----

Truth Not(Truth a) {
  return a == Truth::kNull ? Truth::kNull : (a == Truth::kTrue ? Truth::kFalse : Truth::kTrue);
}
Truth And(Truth a, Truth b) {
  if (a == Truth::kFalse || b == Truth::kFalse) return Truth::kFalse;
  if (a == Truth::kNull || b == Truth::kNull) return Truth::kNull;
  return Truth::kTrue;
}
Truth Or(Truth a, Truth b) {
  if (a == Truth::kTrue || b == Truth::kTrue) return Truth::kTrue;
  if (a == Truth::kNull || b == Truth::kNull) return Truth::kNull;
  return Truth::kFalse;
}
std::string_view TruthText(Truth t) {
  return t == Truth::kTrue ? "TRUE" : (t == Truth::kFalse ? "FALSE" : "NULL");
}

namespace {

Truth FromBool(bool b) { return b ? Truth::kTrue : Truth::kFalse; }

bool Holds(int c, CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

// ---- resolver ----

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string CloseNames(const std::vector<BoundColumn>& columns, const std::string& wanted) {
  std::vector<std::pair<size_t, std::string>> scored;
  size_t limit = std::max<size_t>(2, wanted.size() / 2);
  for (const BoundColumn& c : columns) {
    std::string name = ColumnPathText(c.path);
    size_t d = EditDistance(name, wanted);
    if (d <= limit) scored.emplace_back(d, std::move(name));
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (scored.empty()) return fmt::format(" ({} columns available)", columns.size());
  std::string out = "; close names: ";
  for (size_t i = 0; i < scored.size() && i < 3; ++i) {
    if (i > 0) out += ", ";
    out += scored[i].second;
  }
  return out;
}

bool IsPrefix(const ColumnPath& prefix, const ColumnPath& path, bool fold_case) {
  if (prefix.size() >= path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (fold_case ? AsciiLower(prefix[i]) != AsciiLower(path[i]) : prefix[i] != path[i]) return false;
  }
  return true;
}

// ---- binding ----

std::string ColumnDesc(const BoundColumn& c) {
  return fmt::format("{} column '{}'", TypeName(c.type), ColumnPathText(c.path));
}

Status Incomparable(const BoundColumn& c, const Value& lit) {
  std::string hint;
  if (IsBytesKind(c.type.kind) && !IsBytesKind(lit.kind())) hint = " (quote it to compare as text)";
  return Status::InvalidArgument("cannot compare {} with {} literal {}{}", ColumnDesc(c),
                                 TypeName(lit.type()), LiteralText(lit), hint);
}

Status BadText(const BoundColumn& c, const Status& st) {
  return Status::InvalidArgument("{} is {}: {}", fmt::format("column '{}'", ColumnPathText(c.path)),
                                 TypeName(c.type), st.message());
}

// Integer value of a decimal whose fraction is zero and that fits int64.
std::optional<int64_t> ExactInt(const Value& d) {
  int128_t p = Pow10(d.type().scale);
  if (d.unscaled() % p != 0) return std::nullopt;
  int128_t q = d.unscaled() / p;
  if (q < std::numeric_limits<int64_t>::min() || q > std::numeric_limits<int64_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(q);
}

// `unscaled`/`scale` rescaled exactly to `to_scale` within 38 digits, if possible.
std::optional<int128_t> Rescale(int128_t unscaled, int32_t scale, int32_t to_scale) {
  if (to_scale >= scale) {
    int shift = to_scale - scale;
    if (DecimalDigits(unscaled) + shift > kMaxDecimalPrecision) return std::nullopt;
    return unscaled * Pow10(shift);
  }
  int128_t p = Pow10(scale - to_scale);
  if (unscaled % p != 0) return std::nullopt;
  return unscaled / p;
}

Result<Value> CoerceNumber(const BoundColumn& c, const Value& lit);

Result<Value> ParseTextAsNumber(const BoundColumn& c, const Value& lit) {
  Result<Value> n = ParseNumber(lit.bytes());
  if (!n.ok()) return BadText(c, n.status());
  return CoerceNumber(c, *n);
}

// Numeric literal against a numeric column.
Result<Value> CoerceNumber(const BoundColumn& c, const Value& lit) {
  TypeKind ck = c.type.kind, lk = lit.kind();
  if (lk == TypeKind::kString) return ParseTextAsNumber(c, lit);
  if (!IsNumericKind(lk)) return Incomparable(c, lit);
  if (IsIntegerKind(ck)) {
    if (lk == TypeKind::kDecimal) {
      if (std::optional<int64_t> i = ExactInt(lit)) return Value::Int64(*i);
    }
    return lit;  // CompareValues is exact for int vs decimal/double
  }
  if (IsFloatKind(ck)) {
    if (lk == TypeKind::kDecimal) {
      return Value::Float64(static_cast<double>(lit.unscaled()) /
                            static_cast<double>(Pow10(lit.type().scale)));
    }
    if (IsIntegerKind(lk)) {
      // Only when exact: 2^53 + 1 must not silently equal 2^53.
      auto d = static_cast<double>(lit.int_value());
      if (d < 9223372036854775808.0 && static_cast<int64_t>(d) == lit.int_value()) {
        return Value::Float64(d);
      }
    }
    return lit;
  }
  // DECIMAL column: bring integers and decimals to the column's scale when exact, so
  // evaluators compare unscaled integers directly.
  int32_t s = c.type.scale;
  int128_t unscaled = 0;
  int32_t scale = 0;
  if (IsIntegerKind(lk)) {
    unscaled = lit.int_value();
  } else if (lk == TypeKind::kDecimal) {
    unscaled = lit.unscaled();
    scale = lit.type().scale;
  } else {
    return lit;  // float: compared through double, as CompareValues defines
  }
  if (std::optional<int128_t> r = Rescale(unscaled, scale, s)) {
    int32_t precision = std::max(c.type.precision, DecimalDigits(*r));
    return Value::Decimal(*r, std::min(precision, kMaxDecimalPrecision), s);
  }
  return lit;
}

Result<Value> CoerceTemporal(const BoundColumn& c, const Value& lit) {
  TypeKind ck = c.type.kind, lk = lit.kind();
  if (lk == TypeKind::kString) {
    if (ck == TypeKind::kDate) {
      Result<int32_t> d = ParseDate(lit.bytes());
      if (!d.ok()) return BadText(c, d.status());
      return Value::Date(*d);
    }
    bool had_zone = false;
    Result<int64_t> ts = ParseTimestamp(lit.bytes(), &had_zone);
    if (!ts.ok()) return BadText(c, ts.status());
    if (ck == TypeKind::kTimestampNtz && had_zone) {
      return BadText(c, Status::InvalidArgument("'{}' has a time zone", lit.bytes()));
    }
    return ck == TypeKind::kTimestamp ? Value::Timestamp(*ts) : Value::TimestampNtz(*ts);
  }
  if (!IsTemporalKind(lk)) return Incomparable(c, lit);
  if ((ck == TypeKind::kTimestamp && lk == TypeKind::kTimestampNtz) ||
      (ck == TypeKind::kTimestampNtz && lk == TypeKind::kTimestamp)) {
    return Incomparable(c, lit);
  }
  if (lk == TypeKind::kDate && ck != TypeKind::kDate) {
    int64_t micros = lit.int_value() * kMicrosPerDay;
    return ck == TypeKind::kTimestamp ? Value::Timestamp(micros) : Value::TimestampNtz(micros);
  }
  return lit;  // same kind, or a timestamp against a DATE column (compared exactly)
}

// Converts a non-null literal for comparison with column `c`.
Result<Value> CoerceLiteral(const BoundColumn& c, const Value& lit) {
  TypeKind ck = c.type.kind, lk = lit.kind();
  if (IsNumericKind(ck)) return CoerceNumber(c, lit);
  if (IsTemporalKind(ck)) return CoerceTemporal(c, lit);
  switch (ck) {
    case TypeKind::kBoolean:
      if (lk == TypeKind::kBoolean) return lit;
      if (lk == TypeKind::kString) {
        std::string l = AsciiLower(lit.bytes());
        if (l == "true" || l == "false") return Value::Boolean(l == "true");
        return BadText(c, Status::InvalidArgument("'{}' is not TRUE or FALSE", lit.bytes()));
      }
      return Incomparable(c, lit);
    case TypeKind::kString:
      if (lk == TypeKind::kString) return lit;
      return Incomparable(c, lit);
    case TypeKind::kBinary:
      if (IsBytesKind(lk)) return Value::Binary(lit.bytes());
      return Incomparable(c, lit);
    default: return Incomparable(c, lit);
  }
}

bool Comparable(const DataType& a, const DataType& b) {
  if (IsNumericKind(a.kind) && IsNumericKind(b.kind)) return true;
  if (IsBytesKind(a.kind) && IsBytesKind(b.kind)) return true;
  if (a.kind == TypeKind::kBoolean && b.kind == TypeKind::kBoolean) return true;
  if (IsTemporalKind(a.kind) && IsTemporalKind(b.kind)) {
    return !((a.kind == TypeKind::kTimestamp && b.kind == TypeKind::kTimestampNtz) ||
             (a.kind == TypeKind::kTimestampNtz && b.kind == TypeKind::kTimestamp));
  }
  return false;
}

BoundNode Constant(Truth t) {
  BoundNode n;
  n.kind = BoundKind::kConstant;
  n.constant = t;
  return n;
}

// AND/OR of bound children with constant folding and flattening.
BoundNode Connective(BoundKind kind, std::vector<BoundNode> parts) {
  const Truth absorbing = kind == BoundKind::kAnd ? Truth::kFalse : Truth::kTrue;
  const Truth neutral = kind == BoundKind::kAnd ? Truth::kTrue : Truth::kFalse;
  BoundNode out;
  out.kind = kind;
  for (BoundNode& p : parts) {
    if (p.kind == BoundKind::kConstant && p.constant == absorbing) return Constant(absorbing);
    if (p.kind == BoundKind::kConstant && p.constant == neutral) continue;
    if (p.kind == kind) {
      for (BoundNode& c : p.children) out.children.push_back(std::move(c));
    } else {
      out.children.push_back(std::move(p));
    }
  }
  if (out.children.empty()) return Constant(neutral);
  if (out.children.size() == 1) return std::move(out.children[0]);
  return out;
}

class Binder {
 public:
  explicit Binder(const ColumnResolver& resolver) : resolver_(resolver) {}

  Result<BoundNode> Bind(const Expr& e, bool negate) {
    switch (e.kind()) {
      case ExprKind::kNot: return Bind(e.children()[0], !negate);
      case ExprKind::kAnd:
      case ExprKind::kOr: return BindConnective(e, negate);
      case ExprKind::kCompare: {
        CompareOp op = negate ? NegateOp(e.op()) : e.op();
        return BindCompare(e.children()[0], op, e.children()[1]);
      }
      case ExprKind::kBetween: return BindBetween(e, negate);
      case ExprKind::kIn: return BindIn(e, negate != e.negated());
      case ExprKind::kIsNull: return BindIsNull(e.children()[0], negate != e.negated());
      case ExprKind::kColumn: return BindBooleanColumn(e, negate);
      case ExprKind::kLiteral: return BindBooleanLiteral(e.literal(), negate);
    }
    return Status::Internal("unknown expression kind");
  }

  std::vector<BoundColumn> TakeColumns() { return std::move(columns_); }

 private:
  // An operand: a column ordinal or a literal.
  struct Operand {
    int column = -1;
    Value literal;
  };

  Result<int> ColumnOrdinal(const ColumnPath& path) {
    ColumnPath resolved = path;
    LITHIFY_ASSIGN_OR_RETURN(DataType type, resolver_(path, &resolved));
    if (type.kind == TypeKind::kNull) {
      return Status::InvalidArgument("column '{}' has no comparable type", ColumnPathText(path));
    }
    if (type.kind == TypeKind::kDecimal &&
        (type.precision < 1 || type.precision > kMaxDecimalPrecision || type.scale < 0 ||
         type.scale > type.precision)) {
      return Status::NotSupported("column '{}': {} (predicates support up to 38 digits)",
                                  ColumnPathText(path), TypeName(type));
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].path == resolved) return static_cast<int>(i);
    }
    columns_.push_back({std::move(resolved), type});
    return static_cast<int>(columns_.size() - 1);
  }

  Result<Operand> BindOperand(const Expr& e) {
    Operand o;
    if (e.kind() == ExprKind::kLiteral) {
      o.literal = e.literal();
      return o;
    }
    if (e.kind() != ExprKind::kColumn) {
      return Status::InvalidArgument("expected a column or literal operand, found {}", ToString(e));
    }
    LITHIFY_ASSIGN_OR_RETURN(o.column, ColumnOrdinal(e.column()));
    return o;
  }

  Result<BoundNode> BindConnective(const Expr& e, bool negate) {
    bool is_and = (e.kind() == ExprKind::kAnd) != negate;  // De Morgan
    std::vector<BoundNode> parts;
    for (const Expr& c : e.children()) {
      LITHIFY_ASSIGN_OR_RETURN(BoundNode b, Bind(c, negate));
      parts.push_back(std::move(b));
    }
    return Connective(is_and ? BoundKind::kAnd : BoundKind::kOr, std::move(parts));
  }

  Result<BoundNode> BindCompare(const Expr& left, CompareOp op, const Expr& right) {
    LITHIFY_ASSIGN_OR_RETURN(Operand l, BindOperand(left));
    LITHIFY_ASSIGN_OR_RETURN(Operand r, BindOperand(right));
    if (l.column < 0 && r.column >= 0) {
      std::swap(l, r);
      op = MirrorOp(op);
    }
    if (l.column < 0) return FoldLiterals(l.literal, op, r.literal);
    const BoundColumn& col = columns_[static_cast<size_t>(l.column)];
    BoundNode n;
    n.kind = BoundKind::kCompare;
    n.op = op;
    n.column = l.column;
    if (r.column >= 0) {
      const BoundColumn& rc = columns_[static_cast<size_t>(r.column)];
      if (!Comparable(col.type, rc.type)) {
        return Status::InvalidArgument("cannot compare {} with {}", ColumnDesc(col), ColumnDesc(rc));
      }
      n.right_column = r.column;
      return n;
    }
    if (r.literal.is_null()) return Constant(Truth::kNull);
    LITHIFY_ASSIGN_OR_RETURN(n.literal, CoerceLiteral(col, r.literal));
    return n;
  }

  Result<BoundNode> FoldLiterals(const Value& a, CompareOp op, const Value& b) {
    if (a.is_null() || b.is_null()) return Constant(Truth::kNull);
    std::optional<int> c = CompareValues(a, b);
    if (!c) {
      return Status::InvalidArgument("cannot compare {} literal {} with {} literal {}",
                                     TypeName(a.type()), LiteralText(a), TypeName(b.type()),
                                     LiteralText(b));
    }
    return Constant(FromBool(Holds(*c, op)));
  }

  Result<BoundNode> BindBetween(const Expr& e, bool negate) {
    const auto& c = e.children();
    std::vector<BoundNode> parts;
    bool outside = negate != e.negated();  // NOT BETWEEN: x < low OR x > high
    LITHIFY_ASSIGN_OR_RETURN(BoundNode lo,
                             BindCompare(c[0], outside ? CompareOp::kLt : CompareOp::kGe, c[1]));
    LITHIFY_ASSIGN_OR_RETURN(BoundNode hi,
                             BindCompare(c[0], outside ? CompareOp::kGt : CompareOp::kLe, c[2]));
    parts.push_back(std::move(lo));
    parts.push_back(std::move(hi));
    return Connective(outside ? BoundKind::kOr : BoundKind::kAnd, std::move(parts));
  }

  Result<BoundNode> BindIn(const Expr& e, bool negated) {
    const auto& c = e.children();
    LITHIFY_ASSIGN_OR_RETURN(Operand x, BindOperand(c[0]));
    BoundNode n;
    n.kind = BoundKind::kIn;
    n.negated = negated;
    n.column = x.column;
    const BoundColumn* col = x.column >= 0 ? &columns_[static_cast<size_t>(x.column)] : nullptr;
    for (size_t i = 1; i < c.size(); ++i) {
      if (c[i].kind() != ExprKind::kLiteral) {
        return Status::InvalidArgument("IN lists hold literals only, found {}", ToString(c[i]));
      }
      const Value& v = c[i].literal();
      if (v.is_null()) {
        n.list_has_null = true;
        continue;
      }
      if (col != nullptr) {
        LITHIFY_ASSIGN_OR_RETURN(Value cv, CoerceLiteral(*col, v));
        n.values.push_back(std::move(cv));
      } else {
        n.values.push_back(v);
      }
    }
    auto less = [](const Value& a, const Value& b) { return CompareValues(a, b).value_or(0) < 0; };
    auto same = [](const Value& a, const Value& b) { return CompareValues(a, b).value_or(1) == 0; };
    std::stable_sort(n.values.begin(), n.values.end(), less);
    n.values.erase(std::unique(n.values.begin(), n.values.end(), same), n.values.end());
    if (col == nullptr) return FoldIn(x.literal, n);
    return n;
  }

  Result<BoundNode> FoldIn(const Value& x, const BoundNode& in) {
    if (x.is_null()) return Constant(Truth::kNull);
    for (const Value& v : in.values) {
      if (!CompareValues(x, v)) {
        return Status::InvalidArgument("cannot compare {} literal {} with {} literal {}",
                                       TypeName(x.type()), LiteralText(x), TypeName(v.type()),
                                       LiteralText(v));
      }
    }
    return Constant(InTruth(x, in));
  }

  Result<BoundNode> BindIsNull(const Expr& operand, bool negated) {
    LITHIFY_ASSIGN_OR_RETURN(Operand x, BindOperand(operand));
    if (x.column < 0) return Constant(FromBool(x.literal.is_null() != negated));
    BoundNode n;
    n.kind = BoundKind::kIsNull;
    n.negated = negated;
    n.column = x.column;
    return n;
  }

  Result<BoundNode> BindBooleanColumn(const Expr& e, bool negate) {
    LITHIFY_ASSIGN_OR_RETURN(int ordinal, ColumnOrdinal(e.column()));
    const BoundColumn& col = columns_[static_cast<size_t>(ordinal)];
    if (col.type.kind != TypeKind::kBoolean) {
      return Status::InvalidArgument("{} is not a predicate (compare it with something)",
                                     ColumnDesc(col));
    }
    BoundNode n;
    n.kind = BoundKind::kCompare;
    n.op = negate ? CompareOp::kNe : CompareOp::kEq;
    n.column = ordinal;
    n.literal = Value::Boolean(true);
    return n;
  }

  Result<BoundNode> BindBooleanLiteral(const Value& v, bool negate) {
    if (v.is_null()) return Constant(Truth::kNull);
    if (v.kind() != TypeKind::kBoolean) {
      return Status::InvalidArgument("{} literal {} is not a predicate", TypeName(v.type()),
                                     LiteralText(v));
    }
    return Constant(FromBool(v.bool_value() != negate));
  }

  const ColumnResolver& resolver_;
  std::vector<BoundColumn> columns_;
};

Truth EvalNode(const BoundNode& n, std::span<const Value> row) {
  switch (n.kind) {
    case BoundKind::kConstant: return n.constant;
    case BoundKind::kCompare: {
      const Value& v = row[static_cast<size_t>(n.column)];
      if (v.is_null()) return Truth::kNull;
      if (n.right_column < 0) return CompareTruth(v, n.op, n.literal);
      const Value& r = row[static_cast<size_t>(n.right_column)];
      return r.is_null() ? Truth::kNull : CompareTruth(v, n.op, r);
    }
    case BoundKind::kIn: {
      const Value& v = row[static_cast<size_t>(n.column)];
      return v.is_null() ? Truth::kNull : InTruth(v, n);
    }
    case BoundKind::kIsNull:
      return FromBool(row[static_cast<size_t>(n.column)].is_null() != n.negated);
    case BoundKind::kAnd: {
      Truth t = Truth::kTrue;
      for (const BoundNode& c : n.children) {
        t = And(t, EvalNode(c, row));
        if (t == Truth::kFalse) break;
      }
      return t;
    }
    case BoundKind::kOr: {
      Truth t = Truth::kFalse;
      for (const BoundNode& c : n.children) {
        t = Or(t, EvalNode(c, row));
        if (t == Truth::kTrue) break;
      }
      return t;
    }
  }
  return Truth::kNull;
}

void PrintBound(const BoundExpr& e, const BoundNode& n, std::string* out) {
  auto col = [&](int i) { return ColumnPathText(e.columns()[static_cast<size_t>(i)].path); };
  switch (n.kind) {
    case BoundKind::kConstant: *out += TruthText(n.constant); return;
    case BoundKind::kCompare:
      *out += fmt::format("{} {} {}", col(n.column), CompareOpText(n.op),
                          n.right_column >= 0 ? col(n.right_column) : LiteralText(n.literal));
      return;
    case BoundKind::kIn: {
      *out += fmt::format("{} {}IN (", col(n.column), n.negated ? "NOT " : "");
      for (size_t i = 0; i < n.values.size(); ++i) {
        *out += (i > 0 ? ", " : "") + LiteralText(n.values[i]);
      }
      if (n.list_has_null) *out += n.values.empty() ? "NULL" : ", NULL";
      *out += ")";
      return;
    }
    case BoundKind::kIsNull:
      *out += fmt::format("{} IS {}NULL", col(n.column), n.negated ? "NOT " : "");
      return;
    case BoundKind::kAnd:
    case BoundKind::kOr:
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i > 0) *out += n.kind == BoundKind::kAnd ? " AND " : " OR ";
        const BoundNode& c = n.children[i];
        bool parens = c.kind == BoundKind::kAnd || c.kind == BoundKind::kOr;
        if (parens) *out += "(";
        PrintBound(e, c, out);
        if (parens) *out += ")";
      }
      return;
  }
}

}  // namespace

ColumnResolver ResolverFromColumns(std::vector<BoundColumn> columns) {
  return [columns = std::move(columns)](const ColumnPath& path,
                                        ColumnPath* resolved) -> Result<DataType> {
    for (const BoundColumn& c : columns) {
      if (c.path == path) return c.type;
    }
    const BoundColumn* match = nullptr;
    for (const BoundColumn& c : columns) {
      if (c.path.size() != path.size()) continue;
      bool same = true;
      for (size_t i = 0; i < path.size() && same; ++i) same = AsciiLower(c.path[i]) == AsciiLower(path[i]);
      if (!same) continue;
      if (match != nullptr) {
        return Status::InvalidArgument("column '{}' is ambiguous: '{}' and '{}' differ only in case",
                                       ColumnPathText(path), ColumnPathText(match->path),
                                       ColumnPathText(c.path));
      }
      match = &c;
    }
    if (match != nullptr) {
      *resolved = match->path;
      return match->type;
    }
    std::string name = ColumnPathText(path);
    std::vector<std::string> fields;
    for (const BoundColumn& c : columns) {
      if (IsPrefix(path, c.path, true) && fields.size() < 3) fields.push_back(ColumnPathText(c.path));
    }
    if (!fields.empty()) {
      return Status::InvalidArgument("column '{}' is a struct; name one of its fields, e.g. {}",
                                     name, fmt::join(fields, ", "));
    }
    return Status::NotFound("column '{}' not found{}", name, CloseNames(columns, name));
  };
}

Result<BoundExpr> Bind(const Expr& e, const ColumnResolver& resolver) {
  Binder binder(resolver);
  LITHIFY_ASSIGN_OR_RETURN(BoundNode root, binder.Bind(e, false));
  return BoundExpr(std::move(root), binder.TakeColumns());
}

std::string ToString(const BoundExpr& e, const BoundNode& node) {
  std::string out;
  PrintBound(e, node, &out);
  return out;
}

Truth EvaluateRow(const BoundExpr& e, std::span<const Value> row) { return EvalNode(e.root(), row); }

Truth CompareTruth(const Value& value, CompareOp op, const Value& literal) {
  std::optional<int> c = CompareValues(value, literal);
  if (!c) return Truth::kNull;
  return FromBool(Holds(*c, op));
}

Truth InTruth(const Value& value, const BoundNode& in) {
  auto it = std::lower_bound(in.values.begin(), in.values.end(), value,
                             [](const Value& a, const Value& b) {
                               return CompareValues(a, b).value_or(0) < 0;
                             });
  bool found = it != in.values.end() && CompareValues(*it, value).value_or(1) == 0;
  if (found) return FromBool(!in.negated);
  if (in.list_has_null) return Truth::kNull;
  return FromBool(in.negated);
}

}  // namespace lithify::expr
