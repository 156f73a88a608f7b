#include "lithify/delta/stats.h"

#include "lithify/base/macros.h"
#include "lithify/delta/json_util.h"

namespace lithify::delta {

using json::Json;

namespace {

std::optional<table::Value> JsonScalar(const Json& j) {
  if (j.is_boolean()) return table::Value::Boolean(j.get<bool>());
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return table::Value::Double(static_cast<double>(u));
    return table::Value::Int64(static_cast<int64_t>(u));
  }
  if (j.is_number_integer()) return table::Value::Int64(j.get<int64_t>());
  if (j.is_number_float()) return table::Value::Double(j.get<double>());
  if (j.is_string()) return table::Value::String(j.get<std::string>());
  return std::nullopt;  // null or a container: no bound
}

enum class Part { kMin, kMax, kNullCount };

void Collect(const Json& j, Part part, std::vector<std::string>* path, table::FileStats* out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    path->push_back(it.key());
    const Json& v = it.value();
    if (v.is_object()) {
      Collect(v, part, path, out);
    } else if (part == Part::kNullCount) {
      if (v.is_number_integer()) out->columns[*path].null_count = v.get<int64_t>();
    } else if (auto s = JsonScalar(v)) {
      auto& cs = out->columns[*path];
      (part == Part::kMin ? cs.min : cs.max) = std::move(*s);
    }
    path->pop_back();
  }
}

}  // namespace

Result<table::FileStats> ParseStats(std::string_view text) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(Json j, json::Parse(text), "stats");
  if (!j.is_object()) return Status::Corruption("stats: not a JSON object");
  table::FileStats s;
  s.raw = std::string(text);
  LITHIFY_ASSIGN_OR_RETURN_CTX(s.num_records, json::OptInt(j, "numRecords"), "stats");
  LITHIFY_ASSIGN_OR_RETURN_CTX(s.tight_bounds, json::OptBool(j, "tightBounds"), "stats");
  if (s.num_records && *s.num_records < 0) {
    return Status::Corruption("stats: numRecords {} is negative", *s.num_records);
  }
  std::vector<std::string> path;
  if (const Json* f = json::Field(j, "minValues")) Collect(*f, Part::kMin, &path, &s);
  if (const Json* f = json::Field(j, "maxValues")) Collect(*f, Part::kMax, &path, &s);
  if (const Json* f = json::Field(j, "nullCount")) Collect(*f, Part::kNullCount, &path, &s);
  return s;
}

}  // namespace lithify::delta
