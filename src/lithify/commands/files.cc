#include "lithify/commands/files.h"

#include "lithify/base/macros.h"
#include "lithify/planner/decision_log.h"

namespace lithify::commands {

Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& table_root,
                              const FilesOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx, PrepareScan(fs, table_root, options.version, options.where));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<FileDecision> plan, PlanScan(ctx, /*prune=*/true));
  FilesReport report;
  report.snapshot = ctx.snapshot;
  if (ctx.predicate) report.predicate = expr::ToString(*ctx.predicate, ctx.predicate->root());
  const delta::StructType& schema = ctx.snapshot->schema();
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

std::string LookupCostText(const FilesReport& r) {
  if (!r.predicate) return "";
  const double pct = r.files_total ? 100.0 * static_cast<double>(r.kept) / static_cast<double>(r.files_total) : 0.0;
  return fmt::format("lookup cost: opens {} of {} files ({:.1f}%), {} of {}", r.kept, r.files_total, pct,
                     planner::FormatBytes(r.bytes_kept), planner::FormatBytes(r.bytes_total));
}

}  // namespace lithify::commands
