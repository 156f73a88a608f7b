#include "lithify/planner/plan.h"

#include <limits>

#include "lithify/base/macros.h"

namespace lithify::planner {

namespace {

using Json = nlohmann::json;

constexpr std::pair<PlanMode, std::string_view> kModeNames[] = {
    {PlanMode::kCompaction, "compaction"},
    {PlanMode::kReorgPurge, "reorg_purge"},
    {PlanMode::kAutoCompaction, "auto_compaction"},
    {PlanMode::kZOrder, "zorder"},
    {PlanMode::kLiquid, "liquid"},
};

// Field readers: nlohmann's typed getters throw on a mismatch, so every read checks the
// type first and the whole decoder stays exception-free.
const Json* Member(const Json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

Result<int64_t> GetInt(const Json& j, const char* name) {
  const Json* m = Member(j, name);
  if (m == nullptr || !m->is_number_integer()) {
    return Status::InvalidArgument("plan JSON: '{}' must be an integer", name);
  }
  return m->get<int64_t>();
}

Result<double> GetDouble(const Json& j, const char* name) {
  const Json* m = Member(j, name);
  if (m == nullptr || !m->is_number()) {
    return Status::InvalidArgument("plan JSON: '{}' must be a number", name);
  }
  return m->get<double>();
}

Result<std::string> GetString(const Json& j, const char* name) {
  const Json* m = Member(j, name);
  if (m == nullptr || !m->is_string()) {
    return Status::InvalidArgument("plan JSON: '{}' must be a string", name);
  }
  return m->get<std::string>();
}

Result<const Json*> GetArray(const Json& j, const char* name) {
  const Json* m = Member(j, name);
  if (m == nullptr || !m->is_array()) {
    return Status::InvalidArgument("plan JSON: '{}' must be an array", name);
  }
  return m;
}

// Members added after plans were first serialized: absent means the default.
Result<int64_t> GetOptionalInt(const Json& j, const char* name, int64_t fallback) {
  if (Member(j, name) == nullptr) return fallback;
  return GetInt(j, name);
}

Result<bool> GetOptionalBool(const Json& j, const char* name) {
  const Json* m = Member(j, name);
  if (m == nullptr) return false;
  if (!m->is_boolean()) return Status::InvalidArgument("plan JSON: '{}' must be a boolean", name);
  return m->get<bool>();
}

Result<std::vector<std::string>> GetOptionalStrings(const Json& j, const char* name) {
  std::vector<std::string> out;
  const Json* m = Member(j, name);
  if (m == nullptr) return out;
  if (!m->is_array()) return Status::InvalidArgument("plan JSON: '{}' must be an array", name);
  for (const Json& e : *m) {
    if (!e.is_string()) {
      return Status::InvalidArgument("plan JSON: '{}' must hold strings only", name);
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

Json ClusteringToJson(const ClusteringInputStats& c) {
  return Json{{"input_zcube_files", c.input_zcube_files},
              {"input_zcube_bytes", c.input_zcube_bytes},
              {"input_other_files", c.input_other_files},
              {"input_other_bytes", c.input_other_bytes},
              {"input_num_zcubes", c.input_num_zcubes},
              {"merged_files", c.merged_files},
              {"merged_bytes", c.merged_bytes},
              {"num_output_zcubes", c.num_output_zcubes}};
}

Result<ClusteringInputStats> ClusteringFromJson(const Json& j) {
  ClusteringInputStats c;
  const Json* m = Member(j, "clustering");
  if (m == nullptr) return c;
  if (!m->is_object()) return Status::InvalidArgument("plan JSON: 'clustering' must be an object");
  LITHIFY_ASSIGN_OR_RETURN(c.input_zcube_files, GetInt(*m, "input_zcube_files"));
  LITHIFY_ASSIGN_OR_RETURN(c.input_zcube_bytes, GetInt(*m, "input_zcube_bytes"));
  LITHIFY_ASSIGN_OR_RETURN(c.input_other_files, GetInt(*m, "input_other_files"));
  LITHIFY_ASSIGN_OR_RETURN(c.input_other_bytes, GetInt(*m, "input_other_bytes"));
  LITHIFY_ASSIGN_OR_RETURN(c.input_num_zcubes, GetInt(*m, "input_num_zcubes"));
  LITHIFY_ASSIGN_OR_RETURN(c.merged_files, GetInt(*m, "merged_files"));
  LITHIFY_ASSIGN_OR_RETURN(c.merged_bytes, GetInt(*m, "merged_bytes"));
  LITHIFY_ASSIGN_OR_RETURN(c.num_output_zcubes, GetInt(*m, "num_output_zcubes"));
  return c;
}

Json PartitionToJson(const std::map<std::string, std::optional<std::string>>& values) {
  Json out = Json::object();
  for (const auto& [k, v] : values) out[k] = v ? Json(*v) : Json(nullptr);
  return out;
}

Result<std::map<std::string, std::optional<std::string>>> PartitionFromJson(const Json& j) {
  const Json* m = Member(j, "partition_values");
  if (m == nullptr || !m->is_object()) {
    return Status::InvalidArgument("plan JSON: 'partition_values' must be an object");
  }
  std::map<std::string, std::optional<std::string>> out;
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (it->is_null()) {
      out[it.key()] = std::nullopt;
    } else if (it->is_string()) {
      out[it.key()] = it->get<std::string>();
    } else {
      return Status::InvalidArgument("plan JSON: partition value '{}' must be a string or null",
                                     it.key());
    }
  }
  return out;
}

Json FileToJson(const FileRef& f) {
  return Json{{"path", f.path},
              {"dv_unique_id", f.dv_unique_id},
              {"size", f.size},
              {"num_records", f.num_records ? Json(*f.num_records) : Json(nullptr)},
              {"deleted_rows", f.deleted_rows}};
}

Result<FileRef> FileFromJson(const Json& j) {
  FileRef f;
  LITHIFY_ASSIGN_OR_RETURN(f.path, GetString(j, "path"));
  LITHIFY_ASSIGN_OR_RETURN(f.dv_unique_id, GetString(j, "dv_unique_id"));
  LITHIFY_ASSIGN_OR_RETURN(f.size, GetInt(j, "size"));
  LITHIFY_ASSIGN_OR_RETURN(f.deleted_rows, GetInt(j, "deleted_rows"));
  const Json* n = Member(j, "num_records");
  if (n != nullptr && !n->is_null()) {
    LITHIFY_ASSIGN_OR_RETURN(f.num_records, GetInt(j, "num_records"));
  }
  return f;
}

Result<Bin> BinFromJson(const Json& j, size_t index) {
  Bin b;
  LITHIFY_ASSIGN_OR_RETURN(int64_t id, GetInt(j, "id"));
  if (id != static_cast<int64_t>(index)) {
    return Status::InvalidArgument("plan JSON: bin {} has id {}", index, id);
  }
  b.id = static_cast<int>(id);
  LITHIFY_ASSIGN_OR_RETURN(b.partition_values, PartitionFromJson(j));
  LITHIFY_ASSIGN_OR_RETURN(b.total_bytes, GetInt(j, "total_bytes"));
  LITHIFY_ASSIGN_OR_RETURN(int64_t output_files, GetOptionalInt(j, "output_files", 1));
  if (output_files < 1 || output_files > std::numeric_limits<int>::max()) {
    return Status::InvalidArgument("plan JSON: bin {} has output_files {}", index, output_files);
  }
  b.output_files = static_cast<int>(output_files);
  LITHIFY_ASSIGN_OR_RETURN(const Json* files, GetArray(j, "files"));
  for (const Json& f : *files) {
    LITHIFY_ASSIGN_OR_RETURN(FileRef ref, FileFromJson(f));
    b.files.push_back(std::move(ref));
  }
  return b;
}

Result<Batch> BatchFromJson(const Json& j, size_t num_bins) {
  Batch batch;
  LITHIFY_ASSIGN_OR_RETURN(const Json* ids, GetArray(j, "bin_ids"));
  for (const Json& id : *ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        id.get<int64_t>() >= static_cast<int64_t>(num_bins)) {
      return Status::InvalidArgument("plan JSON: batch names bin {} of {}", id.dump(), num_bins);
    }
    batch.bin_ids.push_back(id.get<int>());
  }
  return batch;
}

}  // namespace

std::string_view PlanModeName(PlanMode mode) {
  for (const auto& [m, name] : kModeNames) {
    if (m == mode) return name;
  }
  return "unknown";
}

Result<PlanMode> PlanModeFromName(std::string_view name) {
  for (const auto& [m, n] : kModeNames) {
    if (n == name) return m;
  }
  return Status::InvalidArgument("unknown plan mode '{}'", name);
}

int64_t Plan::total_input_files() const {
  int64_t n = 0;
  for (const Bin& b : bins) n += static_cast<int64_t>(b.files.size());
  return n;
}

int64_t Plan::total_input_bytes() const {
  int64_t n = 0;
  for (const Bin& b : bins) n += b.total_bytes;
  return n;
}

nlohmann::json FileRefToJson(const FileRef& f) { return FileToJson(f); }

nlohmann::json PlanToJson(const Plan& plan, std::string_view files_placeholder) {
  Json bins = Json::array();
  for (size_t i = 0; i < plan.bins.size(); ++i) {
    const Bin& b = plan.bins[i];
    Json files = Json::array();
    if (!files_placeholder.empty()) {
      files = std::string(files_placeholder) + std::to_string(i);
    } else {
      for (const FileRef& f : b.files) files.push_back(FileToJson(f));
    }
    bins.push_back(Json{{"id", b.id},
                        {"partition_values", PartitionToJson(b.partition_values)},
                        {"files", std::move(files)},
                        {"total_bytes", b.total_bytes},
                        {"output_files", b.output_files}});
  }
  Json batches = Json::array();
  for (const Batch& batch : plan.batches) batches.push_back(Json{{"bin_ids", batch.bin_ids}});
  return Json{{"mode", PlanModeName(plan.mode)},
              {"min_file_size", plan.min_file_size},
              {"max_file_size", plan.max_file_size},
              {"max_deleted_rows_ratio", plan.max_deleted_rows_ratio},
              {"target_size_source", plan.target_size_source},
              {"bins", std::move(bins)},
              {"batches", std::move(batches)},
              {"total_considered_files", plan.total_considered_files},
              {"total_files_skipped", plan.total_files_skipped},
              {"partitions_optimized", plan.partitions_optimized},
              {"columns", plan.columns},
              {"min_cube_size", plan.min_cube_size},
              {"target_cube_size", plan.target_cube_size},
              {"full", plan.full},
              {"clustering", ClusteringToJson(plan.clustering)}};
}

Result<Plan> PlanFromJson(const nlohmann::json& j) {
  Plan plan;
  LITHIFY_ASSIGN_OR_RETURN(std::string mode, GetString(j, "mode"));
  LITHIFY_ASSIGN_OR_RETURN(plan.mode, PlanModeFromName(mode));
  LITHIFY_ASSIGN_OR_RETURN(plan.min_file_size, GetInt(j, "min_file_size"));
  LITHIFY_ASSIGN_OR_RETURN(plan.max_file_size, GetInt(j, "max_file_size"));
  LITHIFY_ASSIGN_OR_RETURN(plan.max_deleted_rows_ratio, GetDouble(j, "max_deleted_rows_ratio"));
  LITHIFY_ASSIGN_OR_RETURN(plan.target_size_source, GetString(j, "target_size_source"));
  LITHIFY_ASSIGN_OR_RETURN(plan.total_considered_files, GetInt(j, "total_considered_files"));
  LITHIFY_ASSIGN_OR_RETURN(plan.total_files_skipped, GetInt(j, "total_files_skipped"));
  LITHIFY_ASSIGN_OR_RETURN(plan.partitions_optimized, GetInt(j, "partitions_optimized"));
  LITHIFY_ASSIGN_OR_RETURN(plan.columns, GetOptionalStrings(j, "columns"));
  LITHIFY_ASSIGN_OR_RETURN(plan.min_cube_size, GetOptionalInt(j, "min_cube_size", 0));
  LITHIFY_ASSIGN_OR_RETURN(plan.target_cube_size, GetOptionalInt(j, "target_cube_size", 0));
  LITHIFY_ASSIGN_OR_RETURN(plan.full, GetOptionalBool(j, "full"));
  LITHIFY_ASSIGN_OR_RETURN(plan.clustering, ClusteringFromJson(j));
  LITHIFY_ASSIGN_OR_RETURN(const Json* bins, GetArray(j, "bins"));
  for (size_t i = 0; i < bins->size(); ++i) {
    LITHIFY_ASSIGN_OR_RETURN(Bin b, BinFromJson((*bins)[i], i));
    plan.bins.push_back(std::move(b));
  }
  LITHIFY_ASSIGN_OR_RETURN(const Json* batches, GetArray(j, "batches"));
  for (const Json& batch : *batches) {
    LITHIFY_ASSIGN_OR_RETURN(Batch b, BatchFromJson(batch, plan.bins.size()));
    plan.batches.push_back(std::move(b));
  }
  return plan;
}

}  // namespace lithify::planner
