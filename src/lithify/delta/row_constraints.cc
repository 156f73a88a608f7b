#include "lithify/delta/row_constraints.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lithify/base/dotted_path.h"
#include "lithify/base/macros.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {
namespace {

using DK = DataType::Kind;
using expr::TypeKind;


struct Leaf {
  std::vector<int> field_path;
  std::vector<std::string> names;
  expr::DataType type;
};

// Primitive columns reachable through structs only: a field inside an array or a map
// has no single value per row, so a check naming one cannot bind (and is refused).
void CollectLeaves(const DataType& t, std::vector<int>& idx, std::vector<std::string>& names, std::vector<Leaf>* out) {
  for (size_t i = 0; i < t.fields.size(); ++i) {
    const StructField& f = t.fields[i];
    idx.push_back(static_cast<int>(i));
    names.push_back(f.name);
    if (f.type.kind == DK::kStruct) {
      CollectLeaves(f.type, idx, names, out);
    } else if (auto et = ExprTypeOf(f.type)) {
      out->push_back({idx, names, *et});
    }
    idx.pop_back();
    names.pop_back();
  }
}

// The SQL text of a delta.invariants value: field metadata holds JSON texts, and Delta
// stores this one as a JSON string whose content is {"expression":{"expression":"..."}}
// (an object in place of the string is read too).
Result<std::string> InvariantExpression(const std::string& json_text) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_string()) j = nlohmann::json::parse(j.get<std::string>(), nullptr, false);
  if (j.is_object() && j.contains("expression") && j["expression"].is_object() &&
      j["expression"].contains("expression") && j["expression"]["expression"].is_string()) {
    return j["expression"]["expression"].get<std::string>();
  }
  return Status::InvalidArgument("delta.invariants is not {{\"expression\":{{\"expression\":\"...\"}}}}: {}", json_text);
}

void CollectInvariants(const DataType& t, const std::string& prefix,
                       std::vector<std::pair<std::string, std::string>>* out) {
  for (const StructField& f : t.fields) {
    const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
    if (auto it = f.metadata.find("delta.invariants"); it != f.metadata.end()) out->emplace_back(path, it->second);
    if (f.type.kind == DK::kStruct) CollectInvariants(f.type, path, out);
  }
}

}  // namespace

Result<expr::Value> ToExprValue(const parquet::Value& v, const expr::DataType& type, const std::string& name) {
  using PK = parquet::Value::Kind;
  if (v.is_null()) return expr::Value::Null(type);
  auto mismatch = [&]() {
    return Status::InvalidArgument("column '{}': the value is not of the column's type {}", name,
                                   expr::TypeName(type));
  };
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (v.kind() != PK::kBool) return mismatch();
      return expr::Value::Boolean(v.bool_value());
    case TypeKind::kInt8: case TypeKind::kInt16: case TypeKind::kInt32: case TypeKind::kInt64:
      if (v.kind() != PK::kInt) return mismatch();
      return expr::Value::Integer(type.kind, v.int_value());
    case TypeKind::kFloat32: case TypeKind::kFloat64: {
      double d;
      if (v.kind() == PK::kDouble) d = v.double_value();
      else if (v.kind() == PK::kInt) d = static_cast<double>(v.int_value());
      else return mismatch();
      // A float column stores the value rounded to float: check what is stored.
      if (type.kind == TypeKind::kFloat32) d = static_cast<float>(d);
      return expr::Value::Floating(type.kind, d);
    }
    case TypeKind::kDecimal:
      if (v.kind() != PK::kDecimal) return mismatch();
      if (expr::DecimalDigits(v.decimal()) > type.precision) return mismatch();
      return expr::Value::Decimal(v.decimal(), type.precision, type.scale);
    case TypeKind::kString:
      if (v.kind() != PK::kBytes) return mismatch();
      return expr::Value::String(v.bytes());
    case TypeKind::kBinary:
      if (v.kind() != PK::kBytes) return mismatch();
      return expr::Value::Binary(v.bytes());
    case TypeKind::kDate:
      if (v.kind() != PK::kInt) return mismatch();
      return expr::Value::Date(static_cast<int32_t>(v.int_value()));
    case TypeKind::kTimestamp:
      if (v.kind() != PK::kInt) return mismatch();
      return expr::Value::Timestamp(v.int_value());
    case TypeKind::kTimestampNtz:
      if (v.kind() != PK::kInt) return mismatch();
      return expr::Value::TimestampNtz(v.int_value());
    default:
      return mismatch();
  }
}

namespace {

std::string ValueText(const expr::Value& v) { return v.is_null() ? "null" : expr::DisplayText(v); }

}  // namespace

std::optional<expr::DataType> ExprTypeOf(const DataType& t) {
  switch (t.kind) {
    case DataType::Kind::kBoolean: return expr::DataType::Of(expr::TypeKind::kBoolean);
    case DataType::Kind::kByte: return expr::DataType::Of(expr::TypeKind::kInt8);
    case DataType::Kind::kShort: return expr::DataType::Of(expr::TypeKind::kInt16);
    case DataType::Kind::kInteger: return expr::DataType::Of(expr::TypeKind::kInt32);
    case DataType::Kind::kLong: return expr::DataType::Of(expr::TypeKind::kInt64);
    case DataType::Kind::kFloat: return expr::DataType::Of(expr::TypeKind::kFloat32);
    case DataType::Kind::kDouble: return expr::DataType::Of(expr::TypeKind::kFloat64);
    case DataType::Kind::kDecimal: return expr::DataType::Decimal(t.precision, t.scale);
    case DataType::Kind::kString: return expr::DataType::Of(expr::TypeKind::kString);
    case DataType::Kind::kBinary: return expr::DataType::Of(expr::TypeKind::kBinary);
    case DataType::Kind::kDate: return expr::DataType::Of(expr::TypeKind::kDate);
    case DataType::Kind::kTimestamp: return expr::DataType::Of(expr::TypeKind::kTimestamp);
    case DataType::Kind::kTimestampNtz: return expr::DataType::Of(expr::TypeKind::kTimestampNtz);
    default: return std::nullopt;
  }
}

Result<RowConstraintChecker> RowConstraintChecker::Make(const StructType& schema,
                                                        const std::map<std::string, std::string>& config) {
  RowConstraintChecker c;
  std::vector<Leaf> leaves;
  {
    std::vector<int> idx;
    std::vector<std::string> names;
    CollectLeaves(schema, idx, names, &leaves);
  }
  std::vector<expr::BoundColumn> bindable;
  for (const Leaf& l : leaves) bindable.push_back({l.names, l.type});
  const expr::ColumnResolver resolver = expr::ResolverFromColumns(bindable);

  auto add = [&](std::string_view feature, std::string label, const std::string& text) -> Status {
    auto refuse = [&](const Status& why) {
      return Status::NotSupported(
          "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature {}: {} ({}) cannot be evaluated by lithify ({}); the "
          "write is refused rather than committed unchecked",
          feature, label, text, why.message());
    };
    auto parsed = expr::Parse(text);
    if (!parsed.ok()) return refuse(parsed.status());
    auto bound = expr::Bind(*parsed, resolver);
    if (!bound.ok()) return refuse(bound.status());
    Rule check{std::move(label), text, std::move(*bound), {}};
    for (const expr::BoundColumn& bc : check.bound.columns()) {
      int found = -1;
      for (size_t i = 0; i < leaves.size() && found < 0; ++i) {
        if (leaves[i].names == bc.path) found = static_cast<int>(i);
      }
      if (found < 0) return refuse(Status::InvalidArgument("column '{}' not found", expr::ColumnPathText(bc.path)));
      // Columns are shared between checks: one Column per leaf used.
      int col = -1;
      for (size_t i = 0; i < c.columns_.size() && col < 0; ++i) {
        if (c.columns_[i].field_path == leaves[found].field_path) col = static_cast<int>(i);
      }
      if (col < 0) {
        c.columns_.push_back({leaves[found].field_path, JoinDotted(leaves[found].names), leaves[found].type});
        col = static_cast<int>(c.columns_.size()) - 1;
      }
      check.columns.push_back(col);
    }
    c.checks_.push_back(std::move(check));
    return Status::OK();
  };

  for (const auto& [k, v] : config) {
    if (k.size() > kConstraintPrefix.size() && k.compare(0, kConstraintPrefix.size(), kConstraintPrefix) == 0) {
      LITHIFY_RETURN_NOT_OK(add("checkConstraints", "CHECK constraint " + k.substr(kConstraintPrefix.size()), v));
    }
  }
  std::vector<std::pair<std::string, std::string>> invariants;
  CollectInvariants(schema, "", &invariants);
  for (const auto& [column, json_text] : invariants) {
    std::string label = "invariant on column " + column;
    auto text = InvariantExpression(json_text);
    if (!text.ok()) {
      return Status::NotSupported(
          "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature invariants: {} cannot be read ({}); the write is "
          "refused rather than committed unchecked",
          label, text.status().message());
    }
    LITHIFY_RETURN_NOT_OK(add("invariants", std::move(label), *text));
  }
  return c;
}

Status RowConstraintChecker::Check(const std::vector<std::vector<parquet::Value>>& rows, int64_t first_row) const {
  if (checks_.empty()) return Status::OK();
  std::vector<expr::Value> values(columns_.size());
  std::vector<expr::Value> args;
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<parquet::Value>& row = rows[r];
    for (size_t ci = 0; ci < columns_.size(); ++ci) {
      const Column& col = columns_[ci];
      const parquet::Value* v = nullptr;
      if (static_cast<size_t>(col.field_path[0]) < row.size()) v = &row[col.field_path[0]];
      for (size_t d = 1; v != nullptr && d < col.field_path.size(); ++d) {
        if (v->is_null()) break;
        if (v->kind() != parquet::Value::Kind::kStruct ||
            static_cast<size_t>(col.field_path[d]) >= v->items().size()) {
          return Status::InvalidArgument("row {}: column '{}': the value does not match the schema",
                                         first_row + static_cast<int64_t>(r), col.name);
        }
        v = &v->items()[col.field_path[d]];
      }
      if (v == nullptr) {
        return Status::InvalidArgument("row {}: has {} values, fewer than the schema's columns",
                                       first_row + static_cast<int64_t>(r), row.size());
      }
      auto ev = ToExprValue(*v, col.expr_type, col.name);
      if (!ev.ok()) return ev.status().WithContextF("row {}", first_row + static_cast<int64_t>(r));
      values[ci] = std::move(*ev);
    }
    for (const Rule& check : checks_) {
      args.clear();
      for (int ci : check.columns) args.push_back(values[ci]);
      if (expr::EvaluateRow(check.bound, args) != expr::Truth::kFalse) continue;
      std::string shown;
      for (int ci : check.columns) {
        shown += fmt::format("{}{} : {}", shown.empty() ? "" : ", ", columns_[ci].name, ValueText(values[ci]));
      }
      return Status::InvalidArgument(
          "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: {} ({}) violated by row {} with values: {}", check.label,
          check.expression, first_row + static_cast<int64_t>(r), shown);
    }
  }
  return Status::OK();
}

}  // namespace lithify::delta
