// File skipping on min/max statistics. Each column's statistics are first turned into
// a Bounds value (what is *proved* about the live values), then each leaf asks whether
// any value within the bounds could make it TRUE.
#include "lithify/expr/stats_eval.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lithify::expr {

namespace {

// What the statistics prove about one column's non-null values.
struct Bounds {
  const BoundColumn* column = nullptr;
  std::optional<Value> lower;            // every value >= lower
  std::optional<Value> upper;            // every value <= upper (inclusive)
  std::optional<Value> upper_exclusive;  // every value < upper_exclusive
  bool all_null = false;                 // nullCount == numRecords
  bool no_nulls = false;                 // nullCount == 0
  std::string name;                      // column text for reasons
  std::string min_text, max_text;        // the statistics as given, for reasons
};

bool IsNaN(const Value& v) { return IsFloatKind(v.kind()) && std::isnan(v.double_value()); }

Bounds MakeBounds(const BoundColumn& column, const ColumnStats* s, const FileStats& file) {
  Bounds b;
  b.column = &column;
  b.name = ColumnPathText(column.path);
  if (s == nullptr) return b;
  if (s->null_count) {
    b.no_nulls = *s->null_count == 0;
    b.all_null = file.num_records && *s->null_count == *file.num_records;
  }
  const std::optional<Value>& mn = s->min;
  const std::optional<Value>& mx = s->max;
  if (mn && !mn->is_null()) b.min_text = DisplayText(*mn);
  if (mx && !mx->is_null()) b.max_text = DisplayText(*mx);
  TypeKind k = column.type.kind;
  if (IsFloatKind(k) && ((mn && !mn->is_null() && IsNaN(*mn)) || (mx && !mx->is_null() && IsNaN(*mx)))) {
    return b;  // a writer that puts NaN into min/max follows no order we can rely on
  }
  if (mn && !mn->is_null()) b.lower = *mn;
  if (!mx || mx->is_null()) return b;
  if (IsFloatKind(k) && s->max_may_exclude_nan) return b;
  if (IsBytesKind(k) && s->max_may_be_truncated) {
    if (std::optional<std::string> succ = PrefixSuccessor(mx->bytes())) {
      b.upper_exclusive = k == TypeKind::kString ? Value::String(*succ) : Value::Binary(*succ);
    }
    return b;
  }
  if ((k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz) &&
      s->timestamps_truncated_to_millis && mx->kind() == k &&
      mx->int_value() <= std::numeric_limits<int64_t>::max() - 999) {
    int64_t up = mx->int_value() + 999;
    b.upper = k == TypeKind::kTimestamp ? Value::Timestamp(up) : Value::TimestampNtz(up);
    return b;
  }
  b.upper = *mx;
  return b;
}

// Comparison that treats incomparable values as "unknown" (nullopt).
std::optional<int> Cmp(const Value& a, const Value& b) { return CompareValues(a, b); }
bool Less(const std::optional<Value>& a, const Value& b) {
  if (!a) return false;
  std::optional<int> c = Cmp(*a, b);
  return c && *c < 0;
}
bool LessEq(const std::optional<Value>& a, const Value& b) {
  if (!a) return false;
  std::optional<int> c = Cmp(*a, b);
  return c && *c <= 0;
}
bool Greater(const std::optional<Value>& a, const Value& b) {
  if (!a) return false;
  std::optional<int> c = Cmp(*a, b);
  return c && *c > 0;
}
bool GreaterEq(const std::optional<Value>& a, const Value& b) {
  if (!a) return false;
  std::optional<int> c = Cmp(*a, b);
  return c && *c >= 0;
}

std::string MinReason(const Bounds& b) { return fmt::format("min({}) = {}", b.name, b.min_text); }
std::string MaxReason(const Bounds& b) {
  std::string r = fmt::format("max({}) = {}", b.name, b.max_text);
  if (b.upper_exclusive) r += " (possibly truncated)";
  return r;
}

// Whether no value within the bounds can equal v; sets *why.
bool OutsideBounds(const Bounds& b, const Value& v, std::string* why) {
  if (Greater(b.lower, v)) {
    *why = MinReason(b);
    return true;
  }
  if (Less(b.upper, v) || LessEq(b.upper_exclusive, v)) {
    *why = MaxReason(b);
    return true;
  }
  return false;
}

// The single value every row has, when the bounds prove it.
const Value* Singleton(const Bounds& b) {
  if (!b.lower || !b.upper) return nullptr;
  std::optional<int> c = Cmp(*b.lower, *b.upper);
  return c && *c == 0 ? &*b.lower : nullptr;
}

// Whether `col op lit` is FALSE/NULL for every value within the bounds.
bool CompareSkips(const Bounds& b, CompareOp op, const Value& lit, std::string* why) {
  switch (op) {
    case CompareOp::kEq: return OutsideBounds(b, lit, why);
    case CompareOp::kNe: {
      const Value* only = Singleton(b);
      if (only == nullptr || Cmp(*only, lit).value_or(1) != 0) return false;
      *why = fmt::format("min({0}) = max({0}) = {1}", b.name, b.min_text);
      return true;
    }
    case CompareOp::kLt:
      if (!GreaterEq(b.lower, lit)) return false;
      *why = MinReason(b);
      return true;
    case CompareOp::kLe:
      if (!Greater(b.lower, lit)) return false;
      *why = MinReason(b);
      return true;
    case CompareOp::kGt:
      // Byte strings are dense: some v with lit < v < upper_exclusive exists iff
      // lit < upper_exclusive, so the exclusive bound skips under the same test as >=.
      if (!LessEq(b.upper, lit) && !LessEq(b.upper_exclusive, lit)) return false;
      *why = MaxReason(b);
      return true;
    case CompareOp::kGe:
      if (!Less(b.upper, lit) && !LessEq(b.upper_exclusive, lit)) return false;
      *why = MaxReason(b);
      return true;
  }
  return false;
}

bool InSkips(const Bounds& b, const BoundNode& n, std::string* why) {
  if (n.negated) {
    if (n.list_has_null) {
      *why = "NOT IN with NULL in the list is never TRUE";
      return true;
    }
    const Value* only = Singleton(b);
    if (only == nullptr) return false;
    for (const Value& v : n.values) {
      if (Cmp(*only, v).value_or(1) == 0) {
        *why = fmt::format("min({0}) = max({0}) = {1}", b.name, b.min_text);
        return true;
      }
    }
    return false;
  }
  std::vector<std::string> reasons;
  for (const Value& v : n.values) {
    std::string r;
    if (!OutsideBounds(b, v, &r)) return false;
    if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
  }
  *why = reasons.empty() ? "the list holds only NULL" : fmt::format("{}", fmt::join(reasons, ", "));
  return true;
}

class Skipper {
 public:
  Skipper(const BoundExpr& e, std::span<const ColumnStats> stats, const FileStats& file)
      : e_(e) {
    for (size_t i = 0; i < e.columns().size(); ++i) {
      const ColumnStats* s = i < stats.size() ? &stats[i] : nullptr;
      bounds_.push_back(MakeBounds(e.columns()[i], s, file));
    }
  }

  // True when no row can satisfy `n`; *why explains.
  bool Skips(const BoundNode& n, std::string* why) {
    switch (n.kind) {
      case BoundKind::kConstant:
        if (n.constant == Truth::kTrue) return false;
        *why = fmt::format("the predicate is always {}", TruthText(n.constant));
        return true;
      case BoundKind::kAnd: return AndSkips(n, why);
      case BoundKind::kOr: return OrSkips(n, why);
      default: break;
    }
    std::string leaf;
    if (!LeafSkips(n, &leaf)) return false;
    *why = fmt::format("{}: {}", ToString(e_, n), leaf);
    return true;
  }

 private:
  bool AndSkips(const BoundNode& n, std::string* why) {
    for (const BoundNode& c : n.children) {
      if (Skips(c, why)) return true;
    }
    return false;
  }

  bool OrSkips(const BoundNode& n, std::string* why) {
    std::vector<std::string> reasons;
    for (const BoundNode& c : n.children) {
      std::string r;
      if (!Skips(c, &r)) return false;
      reasons.push_back(std::move(r));
    }
    *why = fmt::format("{}", fmt::join(reasons, "; "));
    return true;
  }

  bool LeafSkips(const BoundNode& n, std::string* why) {
    const Bounds& b = bounds_[static_cast<size_t>(n.column)];
    if (n.kind == BoundKind::kIsNull) {
      if (!n.negated && b.no_nulls) {
        *why = fmt::format("nullCount({}) = 0", b.name);
        return true;
      }
      if (n.negated && b.all_null) {
        *why = fmt::format("nullCount({}) = numRecords", b.name);
        return true;
      }
      return false;
    }
    if (b.all_null) {
      *why = fmt::format("all values of {} are NULL (nullCount = numRecords)", b.name);
      return true;
    }
    if (n.kind == BoundKind::kIn) return InSkips(b, n, why);
    if (n.right_column >= 0) {
      const Bounds& r = bounds_[static_cast<size_t>(n.right_column)];
      if (!r.all_null) return false;
      *why = fmt::format("all values of {} are NULL (nullCount = numRecords)", r.name);
      return true;
    }
    return CompareSkips(b, n.op, n.literal, why);
  }

  const BoundExpr& e_;
  std::vector<Bounds> bounds_;
};

}  // namespace

std::optional<std::string> PrefixSuccessor(std::string_view s) {
  std::string out(s);
  while (!out.empty() && static_cast<unsigned char>(out.back()) == 0xFF) out.pop_back();
  if (out.empty()) return std::nullopt;
  out.back() = static_cast<char>(static_cast<unsigned char>(out.back()) + 1);
  return out;
}

SkipDecision CanSkip(const BoundExpr& e, std::span<const ColumnStats> columns,
                     const FileStats& file) {
  SkipDecision d;
  if (file.num_records && *file.num_records == 0) {
    d.skip = true;
    d.reason = "numRecords = 0";
    return d;
  }
  Skipper s(e, columns, file);
  d.skip = s.Skips(e.root(), &d.reason);
  if (!d.skip) d.reason.clear();
  if (d.skip && !file.tight_bounds) d.reason += " (wide bounds)";
  return d;
}

}  // namespace lithify::expr
