#include "lithify/delta/generated_columns.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/delta/row_constraints.h"

namespace lithify::delta {
namespace {

constexpr const char* kGenerationExpression = "delta.generationExpression";

bool HasGenerated(const DataType& t) {
  for (const StructField& f : t.fields) {
    if (f.metadata.count(kGenerationExpression) != 0 || HasGenerated(f.type)) return true;
  }
  return t.element && HasGenerated(*t.element);
}

Status Refusal(const std::string& column, const std::string& expression, const Status& why) {
  return Status::NotSupported(
      "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature generatedColumns (column {} GENERATED ALWAYS AS ({})): "
      "lithify cannot compute this generation expression ({}), so it refuses the append rather than commit values "
      "the feature does not guarantee",
      column, expression, why.message());
}

// The computed value in the column's type: equal types, or an integer widened.
expr::Value InColumnType(const expr::Value& v, const expr::DataType& column) {
  if (v.is_null()) return expr::Value::Null(column);
  if (expr::IsIntegerKind(v.kind()) && v.kind() != column.kind) return expr::Value::Integer(column.kind, v.int_value());
  return v;
}

bool AssignableTo(const expr::DataType& result, const expr::DataType& column) {
  if (result.kind == expr::TypeKind::kNull || result == column) return true;
  if (!expr::IsIntegerKind(result.kind) || !expr::IsIntegerKind(column.kind)) return false;
  return static_cast<int>(result.kind) <= static_cast<int>(column.kind);  // kInt8 < kInt16 < kInt32 < kInt64
}

parquet::Value ToRowValue(const expr::Value& v) {
  if (v.is_null()) return parquet::Value::Null();
  switch (v.kind()) {
    case expr::TypeKind::kBoolean: return parquet::Value::Bool(v.bool_value());
    case expr::TypeKind::kString: return parquet::Value::String(v.bytes());
    default: return parquet::Value::Int(v.int_value());  // integers, DATE days, timestamp micros
  }
}

std::string Shown(const expr::Value& v) { return v.is_null() ? "null" : expr::DisplayText(v); }

}  // namespace

std::string GenerationExpression(const StructField& f) {
  auto it = f.metadata.find(kGenerationExpression);
  if (it == f.metadata.end()) return {};
  auto j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  return j.is_string() ? j.get<std::string>() : it->second;
}

Result<GeneratedColumns> GeneratedColumns::Make(const StructType& schema) {
  GeneratedColumns g;
  for (const StructField& f : schema.fields) {
    g.inputs_.push_back({f.name, ExprTypeOf(f.type).value_or(expr::DataType::Of(expr::TypeKind::kNull))});
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const StructField& f = schema.fields[i];
    if (HasGenerated(f.type)) {
      return Status::NotSupported(
          "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature generatedColumns: column {} holds a generated column "
          "inside a nested type; lithify computes top-level generated columns only, so it refuses the append",
          f.name);
    }
    if (f.metadata.count(kGenerationExpression) == 0) continue;
    Column c;
    c.index = static_cast<int>(i);
    c.name = f.name;
    c.expression = GenerationExpression(f);
    const auto column_type = ExprTypeOf(f.type);
    if (!column_type) {
      return Refusal(c.name, c.expression, Status::NotSupported("the column's type is not supported"));
    }
    c.type = *column_type;
    auto compiled = expr::ScalarExpr::Compile(c.expression, g.inputs_);
    if (!compiled.ok()) return Refusal(c.name, c.expression, compiled.status());
    if (!AssignableTo(compiled->type(), c.type)) {
      return Refusal(c.name, c.expression,
                     Status::NotSupported("the expression's type {} is not the column's type {}",
                                          expr::SparkTypeName(compiled->type()), expr::SparkTypeName(c.type)));
    }
    for (int ref : compiled->referenced_columns()) {
      const StructField& used = schema.fields[ref];
      if (ref == c.index || used.metadata.count(kGenerationExpression) != 0) {
        return Refusal(c.name, c.expression,
                       Status::NotSupported("it reads the generated column {}", used.name));
      }
    }
    c.compiled = std::move(*compiled);
    g.columns_.push_back(std::move(c));
  }
  return g;
}

StructType GeneratedColumns::InputSchema(const StructType& schema) const {
  StructType s = schema;
  for (const Column& c : columns_) s.fields[c.index].nullable = true;
  return s;
}

Status GeneratedColumns::Apply(std::vector<std::vector<parquet::Value>>* rows, int64_t first_row,
                               bool replace_explicit) const {
  if (columns_.empty()) return Status::OK();
  std::vector<expr::Value> values(inputs_.size());
  for (size_t r = 0; r < rows->size(); ++r) {
    std::vector<parquet::Value>& row = (*rows)[r];
    const int64_t row_number = first_row + static_cast<int64_t>(r);
    for (const Column& c : columns_) {
      if (static_cast<size_t>(c.index) >= row.size()) {
        return Status::Internal("generated column {}: row {} has {} values", c.name, row_number, row.size());
      }
      for (int ref : c.compiled.referenced_columns()) {
        if (static_cast<size_t>(ref) >= row.size()) {
          return Status::Internal("generated column {}: row {} has {} values", c.name, row_number, row.size());
        }
        auto v = ToExprValue(row[ref], inputs_[ref].type, inputs_[ref].name);
        if (!v.ok()) return v.status().WithContextF("row {}", row_number);
        values[ref] = std::move(*v);
      }
      auto computed = c.compiled.Evaluate(values);
      if (!computed.ok()) {
        return Status::InvalidArgument(
            "generated column {} (GENERATED ALWAYS AS ({})): row {}: {}; lithify does not guess the value, so the "
            "append is refused",
            c.name, c.expression, row_number, computed.status().message());
      }
      const expr::Value value = InColumnType(*computed, c.type);
      parquet::Value& given = row[c.index];
      if (given.is_null() || replace_explicit) {
        given = ToRowValue(value);
        continue;
      }
      auto explicit_value = ToExprValue(given, c.type, c.name);
      if (!explicit_value.ok()) return explicit_value.status().WithContextF("row {}", row_number);
      if (*explicit_value == value) continue;
      std::string shown = fmt::format("{} : {}", c.name, Shown(*explicit_value));
      for (int ref : c.compiled.referenced_columns()) {
        shown += fmt::format(", {} : {}", inputs_[ref].name, Shown(values[ref]));
      }
      return Status::InvalidArgument(
          "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: CHECK constraint Generated Column ({} <=> {}) violated by row {} "
          "with values: {} (the generation expression gives {})",
          c.name, c.expression, row_number, shown, Shown(value));
    }
  }
  return Status::OK();
}

}  // namespace lithify::delta
