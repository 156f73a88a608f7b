// Batch evaluation on hand-built RowBatches (levels form), cross-checked against the row
// evaluator: fixed cases per type, error cases, and a seeded property test where random
// predicates over random batches must select exactly the rows the row evaluator selects.
#include "lithify/expr/batch_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace lithify::expr {
namespace {

using parquet::PhysicalType;
using parquet::TimeUnit;

// One column of a test batch: its logical type, physical layout and the values.
struct TestColumn {
  std::string name;  // dotted
  DataType type;
  BatchColumn layout;
  std::vector<Value> values;  // one per row; null Values are nulls
  // For nested leaves (max_def 2): rows where the enclosing struct itself is null.
  std::vector<bool> parent_null = {};
};

void AppendBigEndian(int128_t v, int width, std::string* out) {
  for (int i = width - 1; i >= 0; --i) {
    out->push_back(static_cast<char>(static_cast<uint8_t>((static_cast<unsigned __int128>(v) >> (8 * i)) & 0xFF)));
  }
}

// Encodes a value physically, independently of the evaluator's decoders.
void Encode(const TestColumn& c, const Value& v, parquet::ColumnValues* out) {
  const BatchColumn& l = c.layout;
  auto put = [&](auto x) { out->fixed.Append(&x, sizeof x); };
  switch (c.type.kind) {
    case TypeKind::kBoolean: out->fixed.PushBack(v.bool_value() ? 1 : 0); break;
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
      if (l.physical == PhysicalType::kFloat) put(static_cast<float>(v.double_value()));
      else put(v.double_value());
      break;
    case TypeKind::kString:
    case TypeKind::kBinary:
      if (l.physical == PhysicalType::kByteArray) {
        out->data.Append(v.bytes());
        out->offsets.push_back(static_cast<int64_t>(out->data.size()));
      } else {
        out->fixed.Append(v.bytes());
      }
      break;
    case TypeKind::kDecimal:
      if (l.physical == PhysicalType::kInt32) put(static_cast<int32_t>(v.unscaled()));
      else if (l.physical == PhysicalType::kInt64) put(static_cast<int64_t>(v.unscaled()));
      else {
        std::string be;
        int width = l.physical == PhysicalType::kFixedLenByteArray ? l.type_length : 16;
        AppendBigEndian(v.unscaled(), width, &be);
        if (l.physical == PhysicalType::kByteArray) {
          out->data.Append(be);
          out->offsets.push_back(static_cast<int64_t>(out->data.size()));
        } else {
          out->fixed.Append(be);
        }
      }
      break;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      int64_t us = v.int_value();
      if (l.physical == PhysicalType::kInt96) {
        int64_t days = us / 86400000000LL - (us % 86400000000LL < 0 ? 1 : 0);
        int64_t nanos = (us - days * 86400000000LL) * 1000;
        put(nanos);
        put(static_cast<uint32_t>(days + 2440588));
      } else if (l.unit == TimeUnit::kMillis) {
        put(us / 1000);  // test values are whole milliseconds
      } else if (l.unit == TimeUnit::kNanos) {
        put(us * 1000 + 999);  // sub-microsecond digits must not change the answer
      } else {
        put(us);
      }
      break;
    }
    default:
      if (l.physical == PhysicalType::kInt32) put(static_cast<int32_t>(v.int_value()));
      else put(v.int_value());
  }
  ++out->count;
}

parquet::ColumnData BuildColumn(const TestColumn& c) {
  parquet::ColumnData d;
  d.values.type = c.layout.physical;
  d.values.type_length = c.layout.type_length;
  d.num_levels = static_cast<int64_t>(c.values.size());
  if (c.layout.physical == PhysicalType::kByteArray) d.values.offsets.push_back(0);
  for (size_t r = 0; r < c.values.size(); ++r) {
    const Value& v = c.values[r];
    if (c.layout.max_def > 0) {
      bool parent_null = r < c.parent_null.size() && c.parent_null[r];
      d.def_levels.push_back(v.is_null() ? static_cast<int16_t>(parent_null ? 0 : c.layout.max_def - 1)
                                         : c.layout.max_def);
    }
    if (!v.is_null()) Encode(c, v, &d.values);
  }
  if (d.values.count == 0) d.values.offsets.clear();
  return d;
}

struct TestBatch {
  std::vector<TestColumn> columns;
  int64_t rows = 0;

  ColumnResolver Resolver() const {
    std::vector<BoundColumn> cols;
    for (const TestColumn& c : columns) {
      ColumnPath path;
      size_t start = 0;
      for (size_t dot; (dot = c.name.find('.', start)) != std::string::npos; start = dot + 1) {
        path.push_back(c.name.substr(start, dot - start));
      }
      path.push_back(c.name.substr(start));
      cols.push_back({path, c.type});
    }
    return ResolverFromColumns(cols);
  }

  const TestColumn& Find(const BoundColumn& b) const {
    for (const TestColumn& c : columns) {
      if (c.name == ColumnPathText(b.path)) return c;
    }
    ADD_FAILURE() << "no column " << ColumnPathText(b.path);
    return columns[0];
  }

  // Evaluates with both evaluators and checks that they agree; returns the selection.
  std::vector<bool> Check(std::string_view text) const {
    Result<Expr> e = Parse(text);
    EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    Result<BoundExpr> b = Bind(*e, Resolver());
    EXPECT_TRUE(b.ok()) << text << ": " << b.status().ToString();
    if (!b.ok()) return {};
    parquet::RowBatch batch;
    batch.num_rows = rows;
    std::vector<BatchColumn> layouts;
    for (const BoundColumn& bc : b->columns()) {
      const TestColumn& c = Find(bc);
      BatchColumn l = c.layout;
      l.index = static_cast<int>(batch.columns.size());
      batch.columns.push_back(BuildColumn(c));
      layouts.push_back(l);
    }
    Result<std::vector<bool>> got = EvaluateBatch(*b, batch, layouts);
    EXPECT_TRUE(got.ok()) << text << ": " << got.status().ToString();
    if (!got.ok()) return {};
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<Value> row;
      for (const BoundColumn& bc : b->columns()) row.push_back(Find(bc).values[r]);
      bool want = EvaluateRow(*b, row) == Truth::kTrue;
      EXPECT_EQ((*got)[r], want) << text << " (bound: " << ToString(*b, b->root()) << ") row " << r;
    }
    return *got;
  }
};

BatchColumn Layout(PhysicalType p, int16_t max_def, int32_t type_length = 0,
                   TimeUnit unit = TimeUnit::kMicros) {
  BatchColumn l;
  l.physical = p;
  l.max_def = max_def;
  l.type_length = type_length;
  l.unit = unit;
  return l;
}

Value NullOf(TypeKind k) { return Value::Null(DataType::Of(k)); }

TestBatch FixedBatch() {
  TestBatch b;
  b.rows = 5;
  const DataType dec = DataType::Decimal(12, 2);
  const DataType decw = DataType::Decimal(30, 3);
  b.columns = {
      {"i", DataType::Of(TypeKind::kInt32), Layout(PhysicalType::kInt32, 1),
       {Value::Integer(TypeKind::kInt32, 1), NullOf(TypeKind::kInt32), Value::Integer(TypeKind::kInt32, -7),
        Value::Integer(TypeKind::kInt32, 2147483647), Value::Integer(TypeKind::kInt32, 5)}},
      {"s", DataType::Of(TypeKind::kString), Layout(PhysicalType::kByteArray, 1),
       {Value::String("apple"), Value::String(""), NullOf(TypeKind::kString), Value::String("\xc3\xa9t\xc3\xa9"),
        Value::String("banana")}},
      {"dt", DataType::Of(TypeKind::kDate), Layout(PhysicalType::kInt32, 0),
       {Value::Date(19753), Value::Date(0), Value::Date(-1), Value::Date(19754), Value::Date(19753)}},
      {"ts", DataType::Of(TypeKind::kTimestamp), Layout(PhysicalType::kInt64, 1, 0, TimeUnit::kMillis),
       {Value::Timestamp(1706702400000000), Value::Timestamp(0), NullOf(TypeKind::kTimestamp),
        Value::Timestamp(-1000), Value::Timestamp(1706702400001000)}},
      {"m", dec, Layout(PhysicalType::kInt64, 1),
       {Value::Decimal(1234, 12, 2), Value::Decimal(-50, 12, 2), NullOf(TypeKind::kDecimal),
        Value::Decimal(0, 12, 2), Value::Decimal(99999, 12, 2)}},
      {"w", decw, Layout(PhysicalType::kFixedLenByteArray, 1, 13),
       {Value::Decimal(int128_t{1} << 80, 30, 3), Value::Decimal(-(int128_t{1} << 80), 30, 3),
        Value::Decimal(1500, 30, 3), NullOf(TypeKind::kDecimal), Value::Decimal(-1, 30, 3)}},
      {"st.x", DataType::Of(TypeKind::kInt64), Layout(PhysicalType::kInt64, 2),
       {Value::Int64(10), NullOf(TypeKind::kInt64), NullOf(TypeKind::kInt64), Value::Int64(30),
        Value::Int64(40)},
       {false, true, false, false, false}},
  };
  return b;
}

std::vector<bool> Sel(std::initializer_list<int> rows, int n = 5) {
  std::vector<bool> v(static_cast<size_t>(n));
  for (int r : rows) v[static_cast<size_t>(r)] = true;
  return v;
}

TEST(BatchEvalTest, IntegersWithNullsAndWideLiterals) {
  TestBatch b = FixedBatch();
  EXPECT_EQ(b.Check("i > 0"), Sel({0, 3, 4}));
  EXPECT_EQ(b.Check("i <> 1"), Sel({2, 3, 4}));  // NULL row not selected
  EXPECT_EQ(b.Check("i IS NULL"), Sel({1}));
  EXPECT_EQ(b.Check("NOT (i IS NOT NULL)"), Sel({1}));
  EXPECT_EQ(b.Check("i < 3000000000"), Sel({0, 2, 3, 4}));
  EXPECT_EQ(b.Check("i > 2147483646.5"), Sel({3}));  // generic path, exact
  EXPECT_EQ(b.Check("i IN (5, -7, NULL)"), Sel({2, 4}));
  EXPECT_EQ(b.Check("i NOT IN (5, -7)"), Sel({0, 3}));
  EXPECT_EQ(b.Check("i NOT IN (5, NULL)"), Sel({}));
  EXPECT_EQ(b.Check("i BETWEEN -7 AND 1"), Sel({0, 2}));
  EXPECT_EQ(b.Check("i NOT BETWEEN -7 AND 1"), Sel({3, 4}));
}

TEST(BatchEvalTest, StringsDatesTimestamps) {
  TestBatch b = FixedBatch();
  EXPECT_EQ(b.Check("s >= 'b'"), Sel({3, 4}));  // bytes: 0xC3 > 'b'
  EXPECT_EQ(b.Check("s = ''"), Sel({1}));
  EXPECT_EQ(b.Check("s IN ('banana', 'apple')"), Sel({0, 4}));
  EXPECT_EQ(b.Check("dt = '2024-01-31'"), Sel({0, 4}));
  EXPECT_EQ(b.Check("dt < DATE '1970-01-01'"), Sel({2}));
  EXPECT_EQ(b.Check("dt > TIMESTAMP '2024-01-31 00:00:00Z'"), Sel({3}));  // generic date vs timestamp
  EXPECT_EQ(b.Check("ts > '2024-01-31 12:00:00'"), Sel({4}));
  EXPECT_EQ(b.Check("ts < '1970-01-01'"), Sel({3}));
  EXPECT_EQ(b.Check("ts BETWEEN DATE '1970-01-01' AND '2024-01-31 12:00:00'"), Sel({0, 1}));
}

TEST(BatchEvalTest, DecimalsOnInt64AndFixedLenByteArray) {
  TestBatch b = FixedBatch();
  EXPECT_EQ(b.Check("m > 0"), Sel({0, 4}));
  EXPECT_EQ(b.Check("m = 12.34"), Sel({0}));
  EXPECT_EQ(b.Check("m < -0.499"), Sel({1}));  // literal finer than the scale
  EXPECT_EQ(b.Check("m IN (0, 999.99)"), Sel({3, 4}));
  EXPECT_EQ(b.Check("w > 1000000000000000000000"), Sel({0}));  // 2^80 / 1000 = 1.2e21
  EXPECT_EQ(b.Check("w < 0"), Sel({1, 4}));
  EXPECT_EQ(b.Check("w = 1.5"), Sel({2}));
  EXPECT_EQ(b.Check("w = -0.001"), Sel({4}));
}

TEST(BatchEvalTest, NestedLeafAndColumnPairs) {
  TestBatch b = FixedBatch();
  EXPECT_EQ(b.Check("st.x IS NULL"), Sel({1, 2}));
  EXPECT_EQ(b.Check("st.x >= 30"), Sel({3, 4}));
  EXPECT_EQ(b.Check("st.x > i"), Sel({0, 4}));  // NULL in either side: not selected
  EXPECT_EQ(b.Check("m < i"), Sel({3}));
  EXPECT_EQ(b.Check("TRUE"), Sel({0, 1, 2, 3, 4}));
  EXPECT_EQ(b.Check("i = NULL OR s = 'apple'"), Sel({0}));
}

TEST(BatchEvalTest, RejectsRepeatedColumnsAndBadBatches) {
  Result<BoundExpr> e = Bind(*Parse("a = 1"), ResolverFromColumns({{{"a"}, DataType::Of(TypeKind::kInt64)}}));
  ASSERT_TRUE(e.ok());
  parquet::RowBatch batch;
  batch.num_rows = 2;
  batch.columns.emplace_back();
  batch.columns[0].values.type = PhysicalType::kInt64;
  BatchColumn l = Layout(PhysicalType::kInt64, 1);
  l.index = 0;
  l.max_rep = 1;
  Result<std::vector<bool>> r = EvaluateBatch(*e, batch, std::span(&l, 1));
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  EXPECT_EQ(r.status().message(), "column 'a': predicates on repeated columns (inside a list or map)");

  l.max_rep = 0;
  batch.columns[0].def_levels = {1};  // one level for two rows
  r = EvaluateBatch(*e, batch, std::span(&l, 1));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();

  batch.columns[0].def_levels = {1, 0};  // one defined value, none present
  r = EvaluateBatch(*e, batch, std::span(&l, 1));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();

  BatchColumn wrong = Layout(PhysicalType::kByteArray, 1);
  wrong.index = 0;
  r = EvaluateBatch(*e, batch, std::span(&wrong, 1));
  EXPECT_TRUE(r.status().IsNotSupported());
  EXPECT_EQ(r.status().message(), "column 'a': INT64 stored as BYTE_ARRAY");

  l.index = 3;
  r = EvaluateBatch(*e, batch, std::span(&l, 1));
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

// ---- property test ----

struct Gen {
  std::mt19937_64 rng;
  int Pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

  // A random non-null value of `t` from a small domain, so equalities hit.
  Value Random(const DataType& t, const BatchColumn& l) {
    switch (t.kind) {
      case TypeKind::kBoolean: return Value::Boolean(Pick(2) == 0);
      case TypeKind::kInt32: return Value::Integer(TypeKind::kInt32, Pick(2) ? Pick(7) - 3 : (Pick(2) ? 2147483647 : -2147483647 - 1));
      case TypeKind::kInt64: return Value::Int64(Pick(7) - 3);
      case TypeKind::kFloat64: {
        const double pool[] = {-1.5, 0.0, -0.0, 2.0, 1e300, std::nan(""),
                               std::numeric_limits<double>::infinity(), 3.25};
        return Value::Float64(pool[Pick(8)]);
      }
      case TypeKind::kFloat32: return Value::Floating(TypeKind::kFloat32, Pick(5) * 0.5 - 1);
      case TypeKind::kString: {
        const char* pool[] = {"", "a", "ab", "b", "\xc3\xa9", "abc"};
        return Value::String(pool[Pick(6)]);
      }
      case TypeKind::kBinary: {
        std::string s(static_cast<size_t>(l.type_length), '\0');
        for (char& c : s) c = static_cast<char>(Pick(3) == 0 ? 0xFF : Pick(3));
        return Value::Binary(s);
      }
      case TypeKind::kDecimal: {
        int128_t u = Pick(9) - 4;
        if (t.precision > 18 && Pick(3) == 0) u = (int128_t{Pick(3) - 1} << 70) + Pick(3);
        return Value::Decimal(u * (Pick(2) ? 1 : 50), t.precision, t.scale);
      }
      case TypeKind::kDate: return Value::Date(Pick(5) - 2);
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz: {
        int64_t us = (int64_t{Pick(5)} - 2) * 86400000000LL / 2 + Pick(3) * 1000;
        return t.kind == TypeKind::kTimestamp ? Value::Timestamp(us) : Value::TimestampNtz(us);
      }
      default: return Value::Int64(0);
    }
  }
};

std::vector<TestColumn> PropertyColumns() {
  return {
      {"b", DataType::Of(TypeKind::kBoolean), Layout(PhysicalType::kBoolean, 1), {}},
      {"i", DataType::Of(TypeKind::kInt32), Layout(PhysicalType::kInt32, 1), {}},
      {"l", DataType::Of(TypeKind::kInt64), Layout(PhysicalType::kInt64, 0), {}},
      {"d", DataType::Of(TypeKind::kFloat64), Layout(PhysicalType::kDouble, 1), {}},
      {"f", DataType::Of(TypeKind::kFloat32), Layout(PhysicalType::kFloat, 1), {}},
      {"s", DataType::Of(TypeKind::kString), Layout(PhysicalType::kByteArray, 1), {}},
      {"fb", DataType::Of(TypeKind::kBinary), Layout(PhysicalType::kFixedLenByteArray, 1, 2), {}},
      {"m", DataType::Decimal(12, 2), Layout(PhysicalType::kInt64, 1), {}},
      {"mi", DataType::Decimal(7, 1), Layout(PhysicalType::kInt32, 1), {}},
      {"w", DataType::Decimal(25, 3), Layout(PhysicalType::kFixedLenByteArray, 1, 11), {}},
      {"wb", DataType::Decimal(30, 0), Layout(PhysicalType::kByteArray, 1), {}},
      {"dt", DataType::Of(TypeKind::kDate), Layout(PhysicalType::kInt32, 1), {}},
      {"ts", DataType::Of(TypeKind::kTimestamp), Layout(PhysicalType::kInt64, 1, 0, TimeUnit::kMillis), {}},
      {"tn", DataType::Of(TypeKind::kTimestampNtz), Layout(PhysicalType::kInt64, 1, 0, TimeUnit::kNanos), {}},
      {"t96", DataType::Of(TypeKind::kTimestamp), Layout(PhysicalType::kInt96, 1), {}},
      {"st.x", DataType::Of(TypeKind::kInt32), Layout(PhysicalType::kInt32, 2), {}},
  };
}

// A literal to compare with column `c`: mostly of its own type, sometimes of another
// comparable type (exercising the generic path), as SQL text.
std::string RandomLiteral(Gen& g, const TestColumn& c) {
  if (g.Pick(12) == 0) return "NULL";
  TypeKind k = c.type.kind;
  if (IsNumericKind(k) && g.Pick(4) == 0) {
    const char* pool[] = {"2.5", "-0.05", "1e0", "3000000000", "-1", "0.10", "99999999999999999999"};
    return pool[g.Pick(7)];
  }
  if (k == TypeKind::kDate && g.Pick(3) == 0) return "TIMESTAMP '1970-01-01 12:00:00Z'";
  if ((k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz) && g.Pick(3) == 0) {
    return "DATE '1970-01-01'";
  }
  std::string text = LiteralText(g.Random(c.type, c.layout));
  if (k == TypeKind::kTimestampNtz && text.rfind("TIMESTAMP '", 0) == 0) text.insert(9, "_NTZ");
  return text;
}

bool PairComparable(const TestColumn& a, const TestColumn& b) {
  TypeKind x = a.type.kind, y = b.type.kind;
  if (IsNumericKind(x) && IsNumericKind(y)) return true;
  if (IsBytesKind(x) && IsBytesKind(y)) return true;
  if (x == TypeKind::kDate && IsTemporalKind(y)) return true;
  return x == y;
}

std::string RandomAtom(Gen& g, const std::vector<TestColumn>& cols) {
  const TestColumn& c = cols[static_cast<size_t>(g.Pick(static_cast<int>(cols.size())))];
  const char* ops[] = {"=", "<>", "<", "<=", ">", ">="};
  switch (g.Pick(7)) {
    case 0: return fmt::format("{} IS {}NULL", c.name, g.Pick(2) ? "NOT " : "");
    case 1: {
      std::string list = RandomLiteral(g, c);
      for (int k = g.Pick(3); k > 0; --k) list += ", " + RandomLiteral(g, c);
      return fmt::format("{} {}IN ({})", c.name, g.Pick(3) == 0 ? "NOT " : "", list);
    }
    case 2:
      return fmt::format("{} {}BETWEEN {} AND {}", c.name, g.Pick(3) == 0 ? "NOT " : "",
                         RandomLiteral(g, c), RandomLiteral(g, c));
    case 3: {
      const TestColumn& o = cols[static_cast<size_t>(g.Pick(static_cast<int>(cols.size())))];
      if (PairComparable(c, o)) return fmt::format("{} {} {}", c.name, ops[g.Pick(6)], o.name);
      [[fallthrough]];
    }
    default:
      if (c.type.kind == TypeKind::kBoolean && g.Pick(2) == 0) return c.name;
      return fmt::format("{} {} {}", c.name, ops[g.Pick(6)], RandomLiteral(g, c));
  }
}

std::string RandomPredicate(Gen& g, const std::vector<TestColumn>& cols, int depth) {
  if (depth == 0 || g.Pick(3) == 0) {
    std::string atom = RandomAtom(g, cols);
    return g.Pick(5) == 0 ? "NOT (" + atom + ")" : atom;
  }
  std::string l = RandomPredicate(g, cols, depth - 1);
  std::string r = RandomPredicate(g, cols, depth - 1);
  std::string e = fmt::format("({}) {} ({})", l, g.Pick(2) ? "AND" : "OR", r);
  return g.Pick(4) == 0 ? "NOT (" + e + ")" : e;
}

TEST(BatchEvalTest, AgreesWithRowEvaluatorOnRandomBatches) {
  Gen g{std::mt19937_64(0x5eed)};
  int checked = 0, selected_rows = 0;
  for (int iter = 0; iter < 250; ++iter) {
    TestBatch b;
    b.columns = PropertyColumns();
    b.rows = g.Pick(12) + 1;
    for (TestColumn& c : b.columns) {
      for (int64_t r = 0; r < b.rows; ++r) {
        bool null = c.layout.max_def > 0 && g.Pick(4) == 0;
        c.values.push_back(null ? Value::Null(c.type) : g.Random(c.type, c.layout));
        c.parent_null.push_back(null && c.layout.max_def == 2 && g.Pick(2) == 0);
      }
    }
    for (int k = 0; k < 10; ++k) {
      std::string text = RandomPredicate(g, b.columns, 3);
      if (!Bind(*Parse(text), b.Resolver()).ok()) continue;  // e.g. 2.5 against a DATE
      std::vector<bool> sel = b.Check(text);
      selected_rows += static_cast<int>(std::count(sel.begin(), sel.end(), true));
      ++checked;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(checked, 2000);
  EXPECT_GT(selected_rows, 2000);  // the predicates select rows, not only nothing
}

TEST(BatchEvalTest, DescribesParquetLeaves) {
  parquet::SchemaElement e;
  e.name = "t";
  e.type = PhysicalType::kInt64;
  e.logical_type.kind = parquet::LogicalType::Kind::kTimestamp;
  e.logical_type.unit = TimeUnit::kNanos;
  e.logical_type.is_adjusted_to_utc = false;
  parquet::ColumnDescriptor d;
  d.dotted_path = "t";
  d.physical_type = PhysicalType::kInt64;
  d.max_def = 1;
  d.element = &e;
  EXPECT_EQ(*LogicalTypeOf(d), DataType::Of(TypeKind::kTimestampNtz));
  BatchColumn l = *DescribeLeaf(d, 3);
  EXPECT_EQ(l.index, 3);
  EXPECT_EQ(l.unit, TimeUnit::kNanos);
  EXPECT_EQ(l.max_def, 1);

  e.logical_type = {};
  e.converted_type = parquet::ConvertedType::kDecimal;
  e.precision = 9;
  e.scale = 2;
  e.type = PhysicalType::kInt32;
  d.physical_type = PhysicalType::kInt32;
  EXPECT_EQ(*LogicalTypeOf(d), DataType::Decimal(9, 2));
  e.converted_type = parquet::ConvertedType::kUint32;
  EXPECT_EQ(*LogicalTypeOf(d), DataType::Of(TypeKind::kInt64));
  EXPECT_TRUE(DescribeLeaf(d, 0)->is_unsigned);
  e.converted_type = parquet::ConvertedType::kTimeMillis;
  Result<DataType> time = LogicalTypeOf(d);
  EXPECT_TRUE(time.status().IsNotSupported());
  EXPECT_EQ(time.status().message(), "column 't': TIME columns in predicates");
}

}  // namespace
}  // namespace lithify::expr
