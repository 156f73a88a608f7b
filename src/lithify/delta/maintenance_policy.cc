#include "lithify/delta/maintenance_policy.h"

#include <nlohmann/json.hpp>

#include "lithify/base/nesting.h"

namespace lithify::delta {

namespace {

using Json = nlohmann::json;

const std::string* Tag(const table::FileEntry& f, const char* name) {
  auto it = f.tags.find(name);
  return it == f.tags.end() ? nullptr : &it->second;
}

}  // namespace

std::string ZCubeZOrderByValue(const std::vector<std::string>& logical_columns) {
  return Json(logical_columns).dump();
}

Result<std::vector<std::string>> ParseZCubeZOrderBy(std::string_view value) {
  const Json j = JsonNestedDeeper(value) ? Json() : Json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) {
    return Status::InvalidArgument("{} '{}' is not a JSON array", kZCubeZOrderByTag, value);
  }
  std::vector<std::string> out;
  out.reserve(j.size());
  for (const Json& e : j) {
    if (!e.is_string()) {
      return Status::InvalidArgument("{} '{}' holds a non-string", kZCubeZOrderByTag, value);
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

DeltaMaintenancePolicy DeltaMaintenancePolicy::ForProperties(
    const std::map<std::string, std::string>& properties) {
  auto it = properties.find(kUniversalFormatProperty);
  return DeltaMaintenancePolicy(it != properties.end() && it->second.find("iceberg") != std::string::npos);
}

std::optional<planner::FileVerdict> DeltaMaintenancePolicy::CompactionVerdict(
    const table::FileEntry& f, const planner::CandidateThresholds& t) const {
  using planner::FileVerdict;
  const FileVerdict other = t.mode == planner::PlanMode::kReorgPurge ? FileVerdict::kNoDeletedRows
                            : f.deletion_vector                     ? FileVerdict::kTooFewDeletedRows
                                                                    : FileVerdict::kTooLarge;
  // §1.3: strict < on size, strict > on the deleted-row ratio, and a DV without
  // numRecords always qualifies (its ratio is unknown).
  if (f.size < t.min_file_size) return std::nullopt;
  if (!f.deletion_vector) return other;
  const std::optional<int64_t> n = f.num_records();
  if (!n) return std::nullopt;
  const double ratio = static_cast<double>(f.deletion_vector->cardinality) / static_cast<double>(*n);
  if (ratio > t.max_deleted_rows_ratio) return std::nullopt;
  return other;
}

const std::string* DeltaMaintenancePolicy::CubeId(const table::FileEntry& f) const {
  return Tag(f, kZCubeIdTag);
}

const std::string* DeltaMaintenancePolicy::CubeColumnsText(const table::FileEntry& f) const {
  return Tag(f, kZCubeZOrderByTag);
}

Result<std::vector<std::string>> DeltaMaintenancePolicy::ParseCubeColumns(std::string_view text) const {
  return ParseZCubeZOrderBy(text);
}

bool DeltaMaintenancePolicy::ClusteredByOtherProvider(const table::FileEntry& f) const {
  return f.clustering_provider.has_value() && *f.clustering_provider != kLiquidClusteringProvider;
}

bool DeltaMaintenancePolicy::IsHiddenName(std::string_view name,
                                          const std::vector<std::string>& partition_columns) const {
  if (uniform_iceberg_ && name == "metadata") return true;
  if (name.empty() || (name[0] != '.' && name[0] != '_')) return false;
  if (name.starts_with("_delta_index") || name.starts_with("_change_data")) return false;
  for (const std::string& c : partition_columns) {
    if (name.size() > c.size() && name.starts_with(c) && name[c.size()] == '=') return false;
  }
  return true;
}

Status DeltaMaintenancePolicy::CheckVacuumRetention(const planner::VacuumOptions& o) const {
  if (!o.retention_ms) return Status::OK();
  const int64_t r = *o.retention_ms;
  if (r < 0) {
    return Status::InvalidArgument(
        "DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE: the retention period must not be negative "
        "(got {} ms)",
        r);
  }
  if (o.retention_check_enabled && r < o.table_retention_ms) {
    return Status::InvalidArgument(
        "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT: a retention of {} hours is shorter than the "
        "table's {} ({} hours); files still needed by readers or concurrent writers could be "
        "deleted. Disable the retention check only if no reader or writer can be using them",
        r / 3'600'000.0, kDeletedFileRetentionProperty, o.table_retention_ms / 3'600'000.0);
  }
  return Status::OK();
}

const DeltaMaintenancePolicy& DeltaPolicy() {
  static const DeltaMaintenancePolicy policy;
  return policy;
}

void DeltaMaintenancePolicy::MarkCubeMember(table::FileEntry* file, const std::string& cube_id,
                                            const std::string& columns_text) const {
  file->tags[kZCubeIdTag] = cube_id;
  file->tags[kZCubeZOrderByTag] = columns_text;
  file->clustering_provider = kLiquidClusteringProvider;
}

}  // namespace lithify::delta
