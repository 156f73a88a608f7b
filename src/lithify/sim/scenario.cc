// Scenario keys: one table drives parsing, defaults, range checks, ScenarioToJson and the
// help text, so `lithify simulate --help`, the panel and docs/simulator.md cannot drift.
#include <fmt/format.h>

#include <cmath>
#include <set>
#include <string_view>

#include "lithify/base/civil_time.h"
#include "lithify/base/excerpt.h"
#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/sim/internal.h"
#include "lithify/sim/simulate.h"

namespace lithify::sim {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

enum class KeyType { kInteger, kNumber, kBoolean, kString, kEnum, kStringList };

std::string_view TypeName(KeyType t) {
  switch (t) {
    case KeyType::kInteger: return "integer";
    case KeyType::kNumber: return "number";
    case KeyType::kBoolean: return "boolean";
    case KeyType::kString: return "string";
    case KeyType::kEnum: return "enum";
    case KeyType::kStringList: return "string_list";
  }
  return "?";
}

using Apply = void (*)(Scenario&, const json&);
using Get = json (*)(const Scenario&);

struct KeySpec {
  const char* key;
  KeyType type;
  const char* group;
  const char* unit;  // "" = none
  json def;          // default in the key's unit; null = derived (the help says how)
  double min = 0;    // numbers/integers: the value; lists: the length
  double max = 0;
  std::vector<std::string> allowed;  // enums
  const char* help;
  Apply apply;
  Get get;
};

int64_t MiBToBytes(double v) { return std::llround(v * static_cast<double>(kMiB)); }
int64_t GiBToBytes(double v) { return std::llround(v * static_cast<double>(kGiB)); }
double BytesToMiB(int64_t b) { return static_cast<double>(b) / static_cast<double>(kMiB); }
double BytesToGiB(int64_t b) { return static_cast<double>(b) / static_cast<double>(kGiB); }

std::vector<std::string> Strings(const json& v) { return v.get<std::vector<std::string>>(); }

// The table. Lambdas without captures decay to the function pointers above.
const std::vector<KeySpec>& Keys() {
  static const std::vector<KeySpec> keys = {
      // ---- workload
      {"days", KeyType::kInteger, "workload", "days", 1, 1, 3650, {},
       "Duration in days (exclusive with hours).",
       [](Scenario& s, const json& v) { s.hours = v.get<int64_t>() * 24; },
       [](const Scenario& s) { return s.hours % 24 == 0 ? json(s.hours / 24) : json(); }},
      {"hours", KeyType::kInteger, "workload", "hours", nullptr, 1, 87600, {},
       "Duration in hours (exclusive with days).",
       [](Scenario& s, const json& v) { s.hours = v.get<int64_t>(); },
       [](const Scenario& s) { return s.hours % 24 != 0 ? json(s.hours) : json(); }},
      {"partition_by", KeyType::kEnum, "workload", "", "none", 0, 0,
       {"none", "daily", "hourly", "15min", "5min"},
       "Time partitioning of the ingested data: date, date/hour or date/hour/minute columns.",
       [](Scenario& s, const json& v) { s.partition_by = v.get<std::string>(); },
       [](const Scenario& s) { return json(s.partition_by); }},
      {"cluster_by", KeyType::kStringList, "workload", "", json::array(), 0, 4, {},
       "Liquid clustering columns (logical names, at most 4 as Delta); needs partition_by "
       "none. Defaults to [\"key\"] when maintenance is liquid.",
       [](Scenario& s, const json& v) { s.cluster_by = Strings(v); },
       [](const Scenario& s) { return json(s.cluster_by); }},
      {"batches_per_hour", KeyType::kNumber, "workload", "1/hour", 1, 0.001, 3600, {},
       "Ingest commits per hour; below 1 means one batch every 1/x hours.",
       [](Scenario& s, const json& v) { s.batches_per_hour = v.get<double>(); },
       [](const Scenario& s) { return json(s.batches_per_hour); }},
      {"files_per_batch", KeyType::kInteger, "workload", "files", 1, 1, 100000, {},
       "Files a batch writes into each partition it covers (Spark: one per task and "
       "partition).",
       [](Scenario& s, const json& v) { s.files_per_batch = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.files_per_batch); }},
      {"mb_per_hour", KeyType::kNumber, "workload", "MiB", 100, 0, 1e7, {},
       "Ingest rate (exclusive with gb_per_day).",
       [](Scenario& s, const json& v) { s.bytes_per_hour = v.get<double>() * kMiB; },
       [](const Scenario& s) { return json(s.bytes_per_hour / kMiB); }},
      {"gb_per_day", KeyType::kNumber, "workload", "GiB", nullptr, 0, 1e6, {},
       "Ingest rate per day (exclusive with mb_per_hour).",
       [](Scenario& s, const json& v) { s.bytes_per_hour = v.get<double>() * kGiB / 24.0; },
       [](const Scenario& s) { return json(); }},
      {"size_jitter", KeyType::kNumber, "workload", "", 0, 0, 1, {},
       "File size spread within a batch: each file weighs 1 + jitter * U[-1,1) (seeded); "
       "0 = equal sizes. The batch's bytes are kept.",
       [](Scenario& s, const json& v) { s.size_jitter = v.get<double>(); },
       [](const Scenario& s) { return json(s.size_jitter); }},
      {"seed", KeyType::kInteger, "workload", "", 1, 0, 9007199254740992.0, {},
       "Seed of the size jitter.",
       [](Scenario& s, const json& v) { s.seed = v.get<uint64_t>(); },
       [](const Scenario& s) { return json(s.seed); }},
      {"delete_fraction_per_day", KeyType::kNumber, "workload", "", 0, 0, 1, {},
       "Fraction of every live file's live rows deleted at each day's end by deletion "
       "vectors (one DELETE commit per day).",
       [](Scenario& s, const json& v) { s.delete_fraction_per_day = v.get<double>(); },
       [](const Scenario& s) { return json(s.delete_fraction_per_day); }},
      {"row_bytes", KeyType::kInteger, "workload", "bytes", 100, 1, 1e9, {},
       "Bytes per row: row counts (numRecords) are size / row_bytes.",
       [](Scenario& s, const json& v) { s.row_bytes = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.row_bytes); }},
      {"optimize_write", KeyType::kBoolean, "workload", "", false, 0, 0, {},
       "Delta optimized writes: a batch's files per partition are bin-packed "
       "(BinPackBySize) into files of optimize_write_bin_size_mb.",
       [](Scenario& s, const json& v) { s.optimize_write = v.get<bool>(); },
       [](const Scenario& s) { return json(s.optimize_write); }},
      {"optimize_write_bin_size_mb", KeyType::kNumber, "workload", "MiB", 512, 1, 1e6, {},
       "optimizeWrite.binSize.",
       [](Scenario& s, const json& v) { s.optimize_write_bin_size = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.optimize_write_bin_size)); }},
      {"start_date", KeyType::kString, "workload", "", "2026-01-01", 0, 0, {},
       "Date of the first day (YYYY-MM-DD), the first partition value.",
       [](Scenario& s, const json& v) { s.start_date = v.get<std::string>(); },
       [](const Scenario& s) { return json(s.start_date); }},
      // ---- maintenance
      {"maintenance", KeyType::kEnum, "maintenance", "", "none", 0, 0,
       {"none", "optimize", "reorg", "auto_compact", "zorder", "liquid"},
       "Policy: OPTIMIZE (bin-packing), REORG PURGE, auto compaction after every commit, "
       "OPTIMIZE ZORDER BY, or OPTIMIZE of a liquid-clustered table.",
       [](Scenario& s, const json& v) { s.maintenance = v.get<std::string>(); },
       [](const Scenario& s) { return json(s.maintenance); }},
      {"schedule", KeyType::kEnum, "maintenance", "", "nightly", 0, 0,
       {"every_batch", "hourly", "nightly"},
       "When optimize/reorg/zorder/liquid run (auto_compact always runs after each commit).",
       [](Scenario& s, const json& v) { s.schedule = v.get<std::string>(); },
       [](const Scenario& s) { return json(s.schedule); }},
      {"target_file_size_mb", KeyType::kNumber, "maintenance", "MiB", 1024, 0.001, 1e7, {},
       "OPTIMIZE/REORG bin capacity and Z-order output file size (optimize.maxFileSize).",
       [](Scenario& s, const json& v) { s.target_file_size = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.target_file_size)); }},
      {"min_file_size_mb", KeyType::kNumber, "maintenance", "MiB", nullptr, 0, 1e7, {},
       "OPTIMIZE candidate threshold (size < this); default: the target size, as `lithify "
       "optimize`.",
       [](Scenario& s, const json& v) { s.min_file_size = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.min_file_size)); }},
      {"max_deleted_rows_ratio", KeyType::kNumber, "maintenance", "", 0.05, 0, 1, {},
       "optimize.maxDeletedRowsRatio: a file with more deleted rows is a candidate.",
       [](Scenario& s, const json& v) { s.max_deleted_rows_ratio = v.get<double>(); },
       [](const Scenario& s) { return json(s.max_deleted_rows_ratio); }},
      {"auto_compact_max_file_size_mb", KeyType::kNumber, "maintenance", "MiB", 128, 0.001, 1e7,
       {}, "autoCompact.maxFileSize (bin capacity).",
       [](Scenario& s, const json& v) { s.auto_compact_max_file_size = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.auto_compact_max_file_size)); }},
      {"auto_compact_min_file_size_mb", KeyType::kNumber, "maintenance", "MiB", nullptr, 0, 1e7,
       {}, "autoCompact.minFileSize; default: half the maximum.",
       [](Scenario& s, const json& v) { s.auto_compact_min_file_size = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) {
         return s.auto_compact_min_file_size ? json(BytesToMiB(*s.auto_compact_min_file_size))
                                             : json();
       }},
      {"auto_compact_min_num_files", KeyType::kInteger, "maintenance", "files", 50, 1, 1e9, {},
       "autoCompact.minNumFiles: small files a touched partition needs to compact.",
       [](Scenario& s, const json& v) { s.auto_compact_min_num_files = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.auto_compact_min_num_files); }},
      {"auto_compact_max_num_partitions", KeyType::kInteger, "maintenance", "", 128, 1, 1e9, {},
       "autoCompact.maxNumModifiedPartitions.",
       [](Scenario& s, const json& v) { s.auto_compact_max_num_partitions = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.auto_compact_max_num_partitions); }},
      {"zorder_by", KeyType::kStringList, "maintenance", "", json::array({"key"}), 1, 32, {},
       "ZORDER BY columns (the point-lookup key is the first).",
       [](Scenario& s, const json& v) { s.zorder_by = Strings(v); },
       [](const Scenario& s) { return json(s.zorder_by); }},
      {"zorder_window_days", KeyType::kInteger, "maintenance", "days", 0, 0, 3650, {},
       "Z-order only the partitions of the last N days (WHERE date >= ...); 0 = whole table. "
       "Needs a partitioned table.",
       [](Scenario& s, const json& v) { s.zorder_window_days = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.zorder_window_days); }},
      {"min_cube_size_gb", KeyType::kNumber, "maintenance", "GiB", 100, 0.001, 1e6, {},
       "Liquid: clustering minCubeSize.threshold; a ZCube this large is sealed.",
       [](Scenario& s, const json& v) { s.min_cube_size = GiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToGiB(s.min_cube_size)); }},
      {"target_cube_size_gb", KeyType::kNumber, "maintenance", "GiB", 150, 0.001, 1e6, {},
       "Liquid: minCubeSize.targetCubeSize; bins hold max(target, min) bytes.",
       [](Scenario& s, const json& v) { s.target_cube_size = GiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToGiB(s.target_cube_size)); }},
      {"output_file_size_gb", KeyType::kNumber, "maintenance", "GiB", 1, 0.001, 1e6, {},
       "Liquid: output file size (optimize.maxFileSize); a cube of B bytes is written as "
       "max(1, B / this) files.",
       [](Scenario& s, const json& v) { s.output_file_size = GiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToGiB(s.output_file_size)); }},
      {"change_keys_on_day", KeyType::kInteger, "maintenance", "day", 0, 0, 3650, {},
       "Liquid: ALTER TABLE CLUSTER BY new_cluster_by before that day's ingest; 0 = never.",
       [](Scenario& s, const json& v) { s.change_keys_on_day = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.change_keys_on_day); }},
      {"new_cluster_by", KeyType::kStringList, "maintenance", "", json::array(), 0, 4, {},
       "Liquid: the clustering columns after the change; [] = each column + \"_v2\".",
       [](Scenario& s, const json& v) { s.new_cluster_by = Strings(v); },
       [](const Scenario& s) { return json(s.new_cluster_by); }},
      {"full_on_day", KeyType::kInteger, "maintenance", "day", 0, 0, 3650, {},
       "Liquid: the first run at or after the end of that day is OPTIMIZE FULL; 0 = never.",
       [](Scenario& s, const json& v) { s.full_on_day = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.full_on_day); }},
      {"retention_hours", KeyType::kInteger, "maintenance", "hours", 168, 0, 1e6, {},
       "delta.deletedFileRetentionDuration: a tombstone is live this long.",
       [](Scenario& s, const json& v) { s.retention_hours = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.retention_hours); }},
      // ---- readouts
      {"open_cost_mb", KeyType::kNumber, "readouts", "MiB", 4, 0, 1e6, {},
       "spark.sql.files.openCostInBytes.",
       [](Scenario& s, const json& v) { s.open_cost = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.open_cost)); }},
      {"max_partition_mb", KeyType::kNumber, "readouts", "MiB", 128, 0.001, 1e6, {},
       "spark.sql.files.maxPartitionBytes.",
       [](Scenario& s, const json& v) { s.max_partition_bytes = MiBToBytes(v.get<double>()); },
       [](const Scenario& s) { return json(BytesToMiB(s.max_partition_bytes)); }},
      {"spark_parallelism", KeyType::kInteger, "readouts", "cores", 8, 1, 1e6, {},
       "Spark defaultParallelism (minPartitionNum) in the FilePartition packing.",
       [](Scenario& s, const json& v) { s.spark_parallelism = v.get<int64_t>(); },
       [](const Scenario& s) { return json(s.spark_parallelism); }},
      {"log_detail", KeyType::kEnum, "readouts", "", "summary", 0, 0, {"summary", "full"},
       "Per step: the decision log's summary and bin reasons, or the whole log.",
       [](Scenario& s, const json& v) { s.log_detail = v.get<std::string>(); },
       [](const Scenario& s) { return json(s.log_detail); }},
  };
  return keys;
}

const KeySpec* FindKey(std::string_view key) {
  for (const KeySpec& k : Keys()) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

std::string RangeText(const KeySpec& k) {
  const std::string unit = *k.unit ? fmt::format(" {}", k.unit) : "";
  switch (k.type) {
    case KeyType::kInteger:
      return fmt::format("an integer in [{}, {}]{}", static_cast<int64_t>(k.min),
                         static_cast<int64_t>(k.max), unit);
    case KeyType::kNumber: return fmt::format("a number in [{}, {}]{}", k.min, k.max, unit);
    case KeyType::kBoolean: return "true or false";
    case KeyType::kString: return "a string";
    case KeyType::kEnum: return fmt::format("one of {}", fmt::join(k.allowed, ", "));
    case KeyType::kStringList:
      return fmt::format("an array of {} to {} non-empty strings", static_cast<int>(k.min),
                         static_cast<int>(k.max));
  }
  return "";
}

// The refused value as the error shows it. Only scalars and arrays of scalars are
// dumped: nlohmann's dump recurses, and a value parsed elsewhere (the panel's request
// body) may be nested arbitrarily deep.
std::string ShownValue(const json& v) {
  if (v.is_object()) return fmt::format("an object of {} keys", v.size());
  if (v.is_array()) {
    for (const json& e : v) {
      if (e.is_structured()) return fmt::format("an array of {} values, not all scalars", v.size());
    }
  }
  return Excerpt(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

Status BadValue(const KeySpec& k, const json& v) {
  return Status::InvalidArgument("scenario key '{}': must be {}, got {}", k.key, RangeText(k),
                                 ShownValue(v));
}

// Type and range check of one value.
Status CheckValue(const KeySpec& k, const json& v) {
  switch (k.type) {
    case KeyType::kInteger: {
      if (!v.is_number()) return BadValue(k, v);
      const double d = v.get<double>();
      if (v.is_number_float() && d != std::floor(d)) return BadValue(k, v);
      if (!(d >= k.min && d <= k.max)) return BadValue(k, v);
      return Status::OK();
    }
    case KeyType::kNumber: {
      if (!v.is_number()) return BadValue(k, v);
      const double d = v.get<double>();
      if (!(d >= k.min && d <= k.max)) return BadValue(k, v);
      return Status::OK();
    }
    case KeyType::kBoolean: return v.is_boolean() ? Status::OK() : BadValue(k, v);
    case KeyType::kString: return v.is_string() ? Status::OK() : BadValue(k, v);
    case KeyType::kEnum: {
      if (!v.is_string()) return BadValue(k, v);
      for (const std::string& a : k.allowed) {
        if (a == v.get<std::string>()) return Status::OK();
      }
      return BadValue(k, v);
    }
    case KeyType::kStringList: {
      if (!v.is_array() || v.size() < k.min || v.size() > k.max) return BadValue(k, v);
      std::set<std::string> seen;
      for (const json& e : v) {
        if (!e.is_string() || e.get<std::string>().empty()) return BadValue(k, v);
        if (!seen.insert(e.get<std::string>()).second) {
          return Status::InvalidArgument("scenario key '{}': column '{}' is named twice", k.key,
                                         Excerpt(e.get<std::string>()));
        }
      }
      return Status::OK();
    }
  }
  return BadValue(k, v);
}

bool ValidDate(const std::string& text) {
  unsigned y = 0, m = 0, d = 0;
  char tail = 0;
  if (text.size() != 10 || std::sscanf(text.c_str(), "%4u-%2u-%2u%c", &y, &m, &d, &tail) != 3) {
    return false;
  }
  if (m < 1 || m > 12 || d < 1) return false;
  const CivilDate c = CivilFromDays(DaysFromCivil(y, m, d));
  return c.month == m && c.day == d;
}

// Upper bound of the files the workload writes (before optimized writes), so a slider
// cannot ask for a simulation that does not fit in memory.
inline constexpr double kMaxFiles = 5'000'000;
inline constexpr double kMaxRunsPerBatchSchedule = 100'000;


// Rules that involve several keys.
Status CheckCombination(Scenario& s, const json& j) {
  if (j.contains("days") && j.contains("hours")) {
    return Status::InvalidArgument("scenario keys 'days' and 'hours' are exclusive: give one");
  }
  if (j.contains("mb_per_hour") && j.contains("gb_per_day")) {
    return Status::InvalidArgument(
        "scenario keys 'mb_per_hour' and 'gb_per_day' are exclusive: give one");
  }
  if (!ValidDate(s.start_date)) {
    return Status::InvalidArgument("scenario key 'start_date': must be a date YYYY-MM-DD, got \"{}\"",
                                   Excerpt(s.start_date));
  }
  if (!j.contains("min_file_size_mb")) s.min_file_size = s.target_file_size;
  const bool clustered = !s.cluster_by.empty() || s.maintenance == "liquid";
  if (clustered && s.partition_by != "none") {
    return Status::InvalidArgument(
        "scenario key 'partition_by': a liquid-clustered table (cluster_by or maintenance "
        "liquid) must be unpartitioned, so it must be none, got \"{}\"",
        s.partition_by);
  }
  if (s.maintenance == "liquid" && s.cluster_by.empty()) s.cluster_by = {"key"};
  if (!s.cluster_by.empty() && s.maintenance != "liquid" && s.maintenance != "none") {
    return Status::InvalidArgument(
        "scenario key 'maintenance': on a table with cluster_by, OPTIMIZE, REORG and auto "
        "compaction run liquid clustering (Delta), so it must be liquid or none, got \"{}\"",
        s.maintenance);
  }
  if (s.zorder_window_days > 0 && s.partition_by == "none") {
    return Status::InvalidArgument(
        "scenario key 'zorder_window_days': a window is a partition predicate and needs "
        "partition_by other than none (or 0 for the whole table)");
  }
  const int64_t days = (s.hours + 23) / 24;
  for (const char* key : {"change_keys_on_day", "full_on_day"}) {
    const int64_t v = std::string_view(key) == "full_on_day" ? s.full_on_day : s.change_keys_on_day;
    if (v == 0) continue;
    if (s.maintenance != "liquid") {
      return Status::InvalidArgument("scenario key '{}': needs maintenance liquid (or 0)", key);
    }
    if (v > days) {
      return Status::InvalidArgument("scenario key '{}': must be 0 or a day in [1, {}], got {}",
                                     key, days, v);
    }
  }
  if (!s.new_cluster_by.empty() && s.change_keys_on_day == 0) {
    return Status::InvalidArgument("scenario key 'new_cluster_by': needs change_keys_on_day");
  }
  const double batches = static_cast<double>(s.hours) * s.batches_per_hour;
  const double interval = 3600.0 / s.batches_per_hour;
  const double part = internal::PartitionSeconds(s.partition_by);
  const double parts_per_batch = part > 0 ? std::ceil(interval / part) + 1 : 1;
  const double files = batches * static_cast<double>(s.files_per_batch) * parts_per_batch;
  if (files > kMaxFiles) {
    return Status::InvalidArgument(
        "scenario keys 'days'/'hours', 'batches_per_hour', 'files_per_batch': the workload "
        "writes about {:.0f} files; at most {:.0f} are simulated",
        files, kMaxFiles);
  }
  // Every maintenance run plans over all live files: bound the number of runs too.
  const bool per_batch = s.maintenance == "auto_compact" ||
                         (s.maintenance != "none" && s.schedule == "every_batch");
  if (per_batch && batches > kMaxRunsPerBatchSchedule) {
    return Status::InvalidArgument(
        "scenario key 'schedule': running maintenance after each of {:.0f} batches is more "
        "than the {:.0f} runs simulated; use hourly or nightly, or fewer batches",
        batches, kMaxRunsPerBatchSchedule);
  }
  return Status::OK();
}

}  // namespace

ordered_json ScenarioKeysHelp() {
  ordered_json out = ordered_json::array();
  for (const KeySpec& k : Keys()) {
    ordered_json e;
    e["key"] = k.key;
    e["type"] = TypeName(k.type);
    e["group"] = k.group;
    e["unit"] = k.unit;
    e["default"] = k.def;
    if (k.type == KeyType::kInteger || k.type == KeyType::kNumber) {
      e["min"] = k.min;
      e["max"] = k.max;
    }
    if (k.type == KeyType::kStringList) {
      e["min_items"] = static_cast<int>(k.min);
      e["max_items"] = static_cast<int>(k.max);
    }
    if (!k.allowed.empty()) e["allowed"] = k.allowed;
    e["help"] = k.help;
    out.push_back(std::move(e));
  }
  return out;
}

Result<nlohmann::json> ScenarioValueFromText(std::string_view key, std::string_view text) {
  const KeySpec* k = FindKey(key);
  if (k == nullptr) return Status::InvalidArgument("unknown scenario key '{}'", Excerpt(key));
  const std::string t(text);
  switch (k->type) {
    case KeyType::kInteger:
    case KeyType::kNumber: {
      json v = json::parse(t, nullptr, /*allow_exceptions=*/false);
      if (!v.is_number()) return BadValue(*k, json(t));
      return v;
    }
    case KeyType::kBoolean:
      if (t == "true" || t == "1") return json(true);
      if (t == "false" || t == "0") return json(false);
      return BadValue(*k, json(t));
    case KeyType::kString:
    case KeyType::kEnum: return json(t);
    case KeyType::kStringList: {
      json list = json::array();
      size_t start = 0;
      while (start <= t.size() && !t.empty()) {
        const size_t comma = t.find(',', start);
        const size_t end = comma == std::string::npos ? t.size() : comma;
        std::string part = t.substr(start, end - start);
        while (!part.empty() && part.front() == ' ') part.erase(part.begin());
        while (!part.empty() && part.back() == ' ') part.pop_back();
        list.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (t == "none") list = json::array();
      return list;
    }
  }
  return BadValue(*k, json(t));
}

Result<nlohmann::json> ParseScenarioJson(std::string_view text) {
  if (JsonNestedDeeper(text)) {
    return Status::InvalidArgument("scenario JSON nested deeper than {} levels", kMaxJsonNesting);
  }
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false,
                       /*ignore_comments=*/true);
  if (j.is_discarded()) return Status::InvalidArgument("not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("a scenario is a JSON object");
  return j;
}

Result<Scenario> ScenarioFromJson(const json& j) {
  if (!j.is_object()) {
    return Status::InvalidArgument("a scenario must be a JSON object of keys, got {}",
                                   j.type_name());
  }
  Scenario s;
  for (const auto& [key, value] : j.items()) {
    const KeySpec* k = FindKey(key);
    if (k == nullptr) {
      std::vector<std::string> names;
      for (const KeySpec& spec : Keys()) names.emplace_back(spec.key);
      return Status::InvalidArgument("unknown scenario key '{}'; known keys: {}", Excerpt(key),
                                     fmt::join(names, ", "));
    }
    if (value.is_null()) continue;  // null = the default
    LITHIFY_RETURN_NOT_OK(CheckValue(*k, value));
  }
  for (const KeySpec& k : Keys()) {
    auto it = j.find(k.key);
    if (it != j.end() && !it->is_null()) k.apply(s, *it);
  }
  json present = json::object();
  for (const auto& [key, value] : j.items()) {
    if (!value.is_null()) present[key] = true;
  }
  LITHIFY_RETURN_NOT_OK(CheckCombination(s, present));
  return s;
}

ordered_json ScenarioToJson(const Scenario& s) {
  ordered_json out;
  for (const KeySpec& k : Keys()) {
    json v = k.get(s);
    if (!v.is_null()) out[k.key] = v;
  }
  return out;
}

}  // namespace lithify::sim
