#include "lithify/delta/files_report.h"

#include "lithify/base/macros.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/expr/bound.h"

namespace lithify::delta {

using nlohmann::ordered_json;
using table::FileVerdict;

Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& table_root, const FilesOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, table_root, options.version, options.where));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<FileDecision> plan, PlanScan(ctx, /*prune=*/true));
  FilesReport report;
  report.snapshot = ctx.snapshot;
  if (ctx.predicate) report.predicate = expr::ToString(*ctx.predicate, ctx.predicate->root());
  const StructType& schema = ctx.snapshot->schema();
  for (FileDecision& d : plan) {
    FileReportRow row;
    row.file = d.file;
    row.verdict = d.verdict;
    row.reason = std::move(d.reason);
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const std::string& key = ctx.partition_keys[i];
      if (key.empty()) continue;
      auto it = d.file->partition_values.find(key);
      std::optional<std::string> v;
      if (it != d.file->partition_values.end() && it->second && !it->second->empty()) v = it->second;
      row.partition_values.emplace_back(schema.fields[i].name, std::move(v));
    }
    ++report.files_total;
    report.bytes_total += d.file->size;
    switch (row.verdict) {
      case FileVerdict::kKept:
        ++report.kept;
        report.bytes_kept += d.file->size;
        report.rows_kept += d.file->num_records().value_or(0);
        break;
      case FileVerdict::kSkippedByPartition: ++report.skipped_by_partition; break;
      case FileVerdict::kSkippedByStats: ++report.skipped_by_stats; break;
    }
    report.files.push_back(std::move(row));
  }
  return report;
}

namespace {

ordered_json FileRowJson(const FileReportRow& row, bool with_verdict) {
  const table::FileEntry& e = *row.file;
  ordered_json j;
  j["path"] = e.path;
  j["size"] = e.size;
  ordered_json pv = ordered_json::object();
  for (const auto& [k, v] : row.partition_values) pv[k] = v ? ordered_json(*v) : ordered_json(nullptr);
  j["partitionValues"] = pv;
  j["numRecords"] = e.num_records() ? ordered_json(*e.num_records()) : ordered_json(nullptr);
  j["deletionVectorCardinality"] =
      e.deletion_vector ? ordered_json(e.deletion_vector->cardinality) : ordered_json(nullptr);
  ordered_json tags = ordered_json::object();
  for (const auto& [k, v] : e.tags) tags[k] = v;
  j["tags"] = tags;
  j["clusteringProvider"] = e.clustering_provider ? ordered_json(*e.clustering_provider) : ordered_json(nullptr);
  if (with_verdict) {
    j["verdict"] = std::string(table::FileVerdictName(row.verdict));
    if (!row.reason.empty()) j["reason"] = row.reason;
  }
  return j;
}

}  // namespace

ordered_json FilesReportToJson(const FilesReport& rep) {
  const bool with_verdict = rep.predicate.has_value();
  ordered_json out;
  out["table"] = rep.snapshot->table_root();
  out["version"] = rep.snapshot->version();
  if (with_verdict) out["predicate"] = *rep.predicate;
  ordered_json files = ordered_json::array();
  for (const FileReportRow& row : rep.files) files.push_back(FileRowJson(row, with_verdict));
  out["files"] = std::move(files);
  out["summary"] = {{"files", rep.files_total},
                    {"kept", rep.kept},
                    {"skippedByPartition", rep.skipped_by_partition},
                    {"skippedByStats", rep.skipped_by_stats}};
  if (with_verdict) {
    out["lookupCost"] = {{"filesOpened", rep.kept},
                         {"filesTotal", rep.files_total},
                         {"bytesOpened", rep.bytes_kept},
                         {"bytesTotal", rep.bytes_total},
                         {"rowsInOpenedFiles", rep.rows_kept}};
  }
  return out;
}

}  // namespace lithify::delta
