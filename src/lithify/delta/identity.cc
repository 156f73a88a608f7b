#include "lithify/delta/identity.h"

#include <fmt/format.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/delta/ddl.h"

namespace lithify::delta {
namespace {

constexpr const char* kStart = "delta.identity.start";
constexpr const char* kStep = "delta.identity.step";
constexpr const char* kHighWaterMark = "delta.identity.highWaterMark";
constexpr const char* kAllowExplicit = "delta.identity.allowExplicitInsert";

// A metadata value (JSON text) as a long: a JSON integer, or a string holding one (tables
// written by some engines store the identity keys as strings).
Result<std::optional<int64_t>> LongEntry(const StructField& f, const char* key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::optional<int64_t>();
  auto j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (j.is_number_integer()) return std::optional<int64_t>(j.get<int64_t>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    size_t used = 0;
    try {
      const long long v = std::stoll(s, &used);
      if (used == s.size()) return std::optional<int64_t>(v);
    } catch (const std::exception&) {
    }
  }
  return Status::InvalidArgument("identity column {}: metadata {} is {}, not a long", f.name, key, it->second);
}

Result<std::optional<bool>> BoolEntry(const StructField& f, const char* key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::optional<bool>();
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (j.is_boolean()) return std::optional<bool>(j.get<bool>());
  if (j.is_string() && (j.get<std::string>() == "true" || j.get<std::string>() == "false")) {
    return std::optional<bool>(j.get<std::string>() == "true");
  }
  return Status::InvalidArgument("identity column {}: metadata {} is {}, not a boolean", f.name, key, it->second);
}

// floor(a / b) for b != 0.
__int128 FloorDiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

bool HasNestedIdentity(const DataType& t) {
  for (const StructField& f : t.fields) {
    if (IsIdentityField(f) || HasNestedIdentity(f.type)) return true;
  }
  if (t.element && HasNestedIdentity(*t.element)) return true;
  return false;
}

}  // namespace

bool IsIdentityField(const StructField& f) {
  for (const auto& [k, v] : f.metadata) {
    if (k.rfind("delta.identity.", 0) == 0) return true;
  }
  return false;
}

Result<IdentityAssigner::Column> IdentityAssigner::ColumnOf(const StructField& f, int index) {
  if (f.type.kind != DataType::Kind::kLong) {
    return Status::InvalidArgument("identity column {} is not of type long (Delta identity columns are BIGINT)",
                                   f.name);
  }
  Column c;
  c.index = index;
  c.name = f.name;
  LITHIFY_ASSIGN_OR_RETURN(auto start, LongEntry(f, kStart));
  LITHIFY_ASSIGN_OR_RETURN(auto step, LongEntry(f, kStep));
  LITHIFY_ASSIGN_OR_RETURN(auto hwm, LongEntry(f, kHighWaterMark));
  LITHIFY_ASSIGN_OR_RETURN(auto allow, BoolEntry(f, kAllowExplicit));
  if (!start || !step) {
    return Status::InvalidArgument("identity column {}: metadata {} and {} are required", f.name, kStart, kStep);
  }
  if (*step == 0) {
    return Status::InvalidArgument("DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP: identity column {}: step cannot be 0",
                                   f.name);
  }
  c.start = *start;
  c.step = *step;
  c.allow_explicit = allow.value_or(false);
  c.high_water_mark = hwm;
  if (hwm) {
    // The smallest k >= 0 with start + k * step beyond the mark: k > (hwm - start) / step
    // for either sign of step (dividing by a negative step flips the inequality).
    const __int128 k = FloorDiv(static_cast<__int128>(*hwm) - c.start, c.step) + 1;
    c.next_k = k < 0 ? 0 : k;
  }
  return c;
}

Result<IdentityAssigner> IdentityAssigner::Make(const StructType& schema) {
  IdentityAssigner a;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const StructField& f = schema.fields[i];
    if (HasNestedIdentity(f.type)) {
      return Status::InvalidArgument("column {} holds a nested identity column; Delta identity columns are top-level",
                                     f.name);
    }
    if (!IsIdentityField(f)) continue;
    LITHIFY_ASSIGN_OR_RETURN(Column c, ColumnOf(f, static_cast<int>(i)));
    a.columns_.push_back(std::move(c));
  }
  return a;
}

StructType IdentityAssigner::InputSchema(const StructType& schema) const {
  StructType s = schema;
  for (const Column& c : columns_) s.fields[c.index].nullable = true;
  return s;
}

Result<int64_t> IdentityAssigner::NextValue(Column* c) {
  const __int128 v = static_cast<__int128>(c->start) + c->next_k * c->step;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    return Status::InvalidArgument(
        "identity column {}: the next value overflows a long (start {}, step {}, high-water mark {}); nothing "
        "can be generated",
        c->name, c->start, c->step, c->high_water_mark ? std::to_string(*c->high_water_mark) : "none");
  }
  ++c->next_k;
  c->high_water_mark = static_cast<int64_t>(v);
  c->generated = true;
  return static_cast<int64_t>(v);
}

Status IdentityAssigner::Assign(std::vector<std::vector<parquet::Value>>* rows, int64_t first_row,
                                bool replace_explicit) {
  for (size_t r = 0; r < rows->size(); ++r) {
    std::vector<parquet::Value>& row = (*rows)[r];
    for (Column& c : columns_) {
      if (c.index >= static_cast<int>(row.size())) {
        return Status::Internal("identity column {}: row {} has {} values", c.name, first_row + r, row.size());
      }
      parquet::Value& v = row[c.index];
      if (!v.is_null() && !replace_explicit) {
        if (c.allow_explicit) continue;
        return Status::InvalidArgument(
            "DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED: providing values for GENERATED ALWAYS AS "
            "IDENTITY column {} is not supported (row {} gives {}); leave the column out and lithify generates it",
            c.name, first_row + static_cast<int64_t>(r), v.int_value());
      }
      LITHIFY_ASSIGN_OR_RETURN(const int64_t next, NextValue(&c));
      v = parquet::Value::Int(next);
    }
  }
  return Status::OK();
}

Result<std::optional<Metadata>> IdentityAssigner::UpdatedMetadata(const Metadata& current,
                                                                   const StructType& schema) const {
  bool any = false;
  StructType updated = schema;
  for (const Column& c : columns_) {
    if (!c.generated) continue;
    any = true;
    updated.fields[c.index].metadata[kHighWaterMark] = std::to_string(*c.high_water_mark);
  }
  if (!any) return std::optional<Metadata>();
  Metadata m = current;
  m.schema_string = SchemaToJson(updated);
  return std::optional<Metadata>(std::move(m));
}

}  // namespace lithify::delta
