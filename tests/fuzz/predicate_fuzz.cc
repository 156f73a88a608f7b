// libFuzzer target: the --where predicate language. Each input is parsed; a predicate
// that parses must print (ToString) to text that parses back to an equal tree, bind
// against a fixed schema of every column type, and -- when it binds -- evaluate on a row
// and on file statistics. Deep nesting (issue 14) must be refused by the parser, never
// overflow the stack in a later walk. Seeds: tests/fuzz/seeds/predicate.
// Any status is fine; a crash, sanitizer report or broken invariant (abort) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "lithify/expr/bound.h"
#include "lithify/expr/expr.h"
#include "lithify/expr/stats_eval.h"

namespace {

using namespace lithify::expr;

const std::vector<BoundColumn>& Columns() {
  static const std::vector<BoundColumn> columns = {
      {{"b"}, DataType::Of(TypeKind::kBoolean)},   {{"i"}, DataType::Of(TypeKind::kInt32)},
      {{"l"}, DataType::Of(TypeKind::kInt64)},     {{"d"}, DataType::Of(TypeKind::kFloat64)},
      {{"m"}, DataType::Decimal(20, 5)},           {{"s"}, DataType::Of(TypeKind::kString)},
      {{"dt"}, DataType::Of(TypeKind::kDate)},     {{"ts"}, DataType::Of(TypeKind::kTimestamp)},
      {{"st", "x"}, DataType::Of(TypeKind::kInt32)}};
  return columns;
}

// A value of the column's type, for a row and for min/max statistics.
Value Sample(const DataType& type, int64_t n) {
  switch (type.kind) {
    case TypeKind::kBoolean: return Value::Boolean(n % 2 == 0);
    case TypeKind::kFloat64: return Value::Floating(TypeKind::kFloat64, static_cast<double>(n) / 4);
    case TypeKind::kString: return Value::String(std::string(static_cast<size_t>(n % 5), 'k'));
    case TypeKind::kInt32:
    case TypeKind::kInt64: return Value::Integer(type.kind, n);
    default: return Value::Null(type);
  }
}

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lithify::Result<Expr> e = Parse(text);
  if (!e.ok()) return 0;
  const std::string canon = ToString(*e);
  lithify::Result<Expr> again = Parse(canon);
  Check(again.ok() && *again == *e && ToString(*again) == canon);
  (void)ReferencedColumns(*e);
  lithify::Result<BoundExpr> bound = Bind(*e, ResolverFromColumns(Columns()));
  if (!bound.ok()) return 0;
  (void)ToString(*bound, bound->root());
  std::vector<Value> row;
  std::vector<ColumnStats> stats;
  for (const BoundColumn& c : bound->columns()) {
    row.push_back(Sample(c.type, 3));
    ColumnStats s;
    if (!Sample(c.type, 1).is_null()) {  // no bounds for the kinds sampled as NULL
      s.min = Sample(c.type, 1);
      s.max = Sample(c.type, 8);
    }
    s.null_count = 0;
    stats.push_back(std::move(s));
  }
  (void)EvaluateRow(*bound, row);
  FileStats file;
  file.num_records = 10;
  (void)CanSkip(*bound, stats, file);
  return 0;
}
