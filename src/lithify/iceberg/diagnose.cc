#include "lithify/iceberg/diagnose.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <unordered_set>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/iceberg/files_report.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::iceberg {

using nlohmann::ordered_json;

namespace {

int64_t PropertyInt(const TableMetadata& m, const std::string& key, int64_t fallback) {
  auto it = m.properties.find(key);
  if (it == m.properties.end()) return fallback;
  try {
    size_t used = 0;
    int64_t v = std::stoll(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (...) {
  }
  return fallback;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

namespace {

// Iceberg's defaults (TableProperties / RewriteDataFiles / ExpireSnapshots).
constexpr int64_t kDefaultTargetFileSize = 512LL << 20;
constexpr int64_t kDefaultMaxSnapshotAgeMs = 5LL * 24 * 3600 * 1000;
constexpr int64_t kDefaultMinSnapshotsToKeep = 1;

ordered_json Finding(std::string code, std::string severity, std::string title, std::string detail,
                     std::string recommendation, ordered_json numbers) {
  return {{"code", std::move(code)},           {"severity", std::move(severity)},
          {"title", std::move(title)},         {"detail", std::move(detail)},
          {"recommendation", std::move(recommendation)}, {"numbers", std::move(numbers)}};
}

// Snapshots that ExpireSnapshots with the table's settings would remove now: not the
// head of a branch or tag, older than the max age, and not among the newest
// min-snapshots-to-keep ancestors of main.
std::vector<const Snapshot*> ExpirableSnapshots(const TableMetadata& m, int64_t now_ms) {
  const int64_t max_age = PropertyInt(m, "history.expire.max-snapshot-age-ms", kDefaultMaxSnapshotAgeMs);
  const int64_t min_keep = PropertyInt(m, "history.expire.min-snapshots-to-keep", kDefaultMinSnapshotsToKeep);
  std::unordered_set<int64_t> kept;
  for (const auto& [name, ref] : m.refs) kept.insert(ref.snapshot_id);
  int64_t n = 0;
  for (const Snapshot* s = m.CurrentSnapshot(); s != nullptr && n < min_keep; ++n) {
    if (!kept.insert(s->snapshot_id).second && n > 0) break;
    s = s->parent_snapshot_id ? m.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  std::vector<const Snapshot*> out;
  for (const Snapshot& s : m.snapshots) {
    if (kept.count(s.snapshot_id) == 0 && s.timestamp_ms < now_ms - max_age) out.push_back(&s);
  }
  return out;
}

}  // namespace

Result<ordered_json> Diagnose(io::FileSystem* fs, const std::string& location, const DiagnoseOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(auto table, OpenIcebergTable(fs, location, options.location_map));
  const TableMetadata& m = table->metadata();
  const Snapshot* snap = m.CurrentSnapshot();
  const int64_t now = options.now_ms != 0 ? options.now_ms : NowMs();
  const int64_t target =
      options.target_file_size.value_or(PropertyInt(m, "write.target-file-size-bytes", kDefaultTargetFileSize));
  const int64_t min_size = target * 3 / 4;

  int64_t files = 0, bytes = 0, records = 0, small = 0, small_bytes = 0, with_deletes = 0;
  int64_t max_deletes_per_file = 0, deleted_positions = 0, equality_rows = 0;
  std::map<std::string, int64_t> per_partition;  // key -> files
  std::unordered_set<std::string> delete_files;
  std::map<std::string, int64_t> delete_kinds;
  std::unordered_set<std::string> position_files_counted;
  LITHIFY_RETURN_NOT_OK(table->PlanFiles(snap, {}, [&](PlannedFile&& f) -> Status {
    ++files;
    bytes += f.file.file_size_in_bytes;
    records += f.file.record_count;
    if (f.file.file_size_in_bytes < min_size) {
      ++small;
      small_bytes += f.file.file_size_in_bytes;
    }
    ++per_partition[PartitionKey(f.spec_id, f.file.partition)];
    if (!f.deletes.empty()) ++with_deletes;
    max_deletes_per_file = std::max<int64_t>(max_deletes_per_file, static_cast<int64_t>(f.deletes.size()));
    for (const DeleteFile& d : f.deletes) {
      const bool first = delete_files.insert(DeleteFileKey(d)).second;
      if (first) ++delete_kinds[std::string(DeleteKindName(d.kind))];
      // A DV's record_count is its cardinality (for this file alone); a position delete
      // file's rows may name several data files, so it is counted once; equality deletes
      // delete an unknown number of rows and are reported apart.
      if (d.kind == DeleteFile::Kind::kDeletionVector) deleted_positions += d.file.record_count;
      if (d.kind == DeleteFile::Kind::kPositionFile && first) deleted_positions += d.file.record_count;
      if (d.kind == DeleteFile::Kind::kEquality && first) equality_rows += d.file.record_count;
    }
    return Status::OK();
  }));
  const std::vector<const Snapshot*> expirable = ExpirableSnapshots(m, now);

  ordered_json findings = ordered_json::array();
  if (small >= 2) {
    findings.push_back(Finding(
        "iceberg_small_files", small * 2 >= files ? "warning" : "info", "Small data files",
        fmt::format("{} of {} data files ({} bytes) are below min-file-size-bytes {} (75% of the target {}).", small,
                    files, small_bytes, min_size, target),
        "Compact them (Iceberg rewrite_data_files, bin-pack); lithify's Iceberg rewrite is not available yet.",
        {{"smallFiles", small}, {"smallBytes", small_bytes}, {"files", files}, {"minFileSizeBytes", min_size},
         {"targetFileSizeBytes", target}}));
  }
  if (!delete_files.empty()) {
    const double ratio = records > 0 ? static_cast<double>(deleted_positions) / static_cast<double>(records) : 0.0;
    findings.push_back(Finding(
        "iceberg_delete_files", ratio >= 0.1 || max_deletes_per_file >= 5 ? "warning" : "info",
        "Delete files applied at read time",
        fmt::format("{} delete files apply to {} of {} data files (at most {} on one file); at least {} of {} rows "
                    "are deleted by position{}.",
                    delete_files.size(), with_deletes, files, max_deletes_per_file, deleted_positions, records,
                    equality_rows > 0 ? fmt::format(", and {} equality-delete rows apply", equality_rows) : ""),
        "Rewrite the data files that carry deletes (rewrite_data_files with delete-file-threshold, or "
        "rewrite_position_delete_files) so readers stop merging them.",
        {{"deleteFiles", delete_files.size()}, {"dataFilesWithDeletes", with_deletes},
         {"maxDeleteFilesPerDataFile", max_deletes_per_file}, {"deletedPositions", deleted_positions},
         {"equalityDeleteRows", equality_rows}, {"records", records}}));
  }
  if (!expirable.empty()) {
    ordered_json ids = ordered_json::array();
    for (size_t i = 0; i < expirable.size() && i < 10; ++i) ids.push_back(expirable[i]->snapshot_id);
    findings.push_back(Finding(
        "iceberg_snapshots_awaiting_expiry", "info", "Snapshots awaiting expiry",
        fmt::format("{} of {} snapshots are older than history.expire.max-snapshot-age-ms and referenced by no "
                    "branch or tag; their unreferenced files stay in storage until they expire.",
                    expirable.size(), m.snapshots.size()),
        "Expire them (Iceberg expire_snapshots); lithify's expire-snapshots is not available yet.",
        {{"snapshots", m.snapshots.size()}, {"expirable", expirable.size()}, {"firstSnapshotIds", ids}}));
  }
  int64_t max_in_partition = 0;
  for (const auto& [k, n] : per_partition) max_in_partition = std::max(max_in_partition, n);

  ordered_json out;
  out["table"] = m.location;
  out["format"] = "iceberg";
  out["format-version"] = m.format_version;
  out["metadata-file"] = table->metadata_path();
  out["current-snapshot-id"] = snap != nullptr ? ordered_json(snap->snapshot_id) : ordered_json(nullptr);
  out["summary"] = {{"files", files},
                    {"bytes", bytes},
                    {"records", records},
                    {"averageFileSize", files > 0 ? bytes / files : 0},
                    {"partitions", per_partition.size()},
                    {"maxFilesPerPartition", max_in_partition},
                    {"targetFileSizeBytes", target},
                    {"smallFiles", small},
                    {"deleteFiles", delete_files.size()},
                    {"deleteFilesByContent", delete_kinds},
                    {"dataFilesWithDeletes", with_deletes},
                    {"deletedRowRatio", records > 0 ? static_cast<double>(deleted_positions) / records : 0.0},
                    {"snapshots", m.snapshots.size()},
                    {"snapshotsAwaitingExpiry", expirable.size()}};
  out["findings"] = std::move(findings);
  return out;
}

}  // namespace lithify::iceberg
