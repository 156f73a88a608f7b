#include "lithify/iceberg/files_report.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "lithify/base/macros.h"
#include "lithify/expr/expr.h"
#include "lithify/iceberg/reader.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::iceberg {

using nlohmann::ordered_json;

namespace {

ordered_json PartitionJson(const TableMetadata& m, const PlannedFile& f) {
  ordered_json out = ordered_json::object();
  const PartitionSpec* spec = m.FindSpec(f.spec_id);
  for (size_t i = 0; i < f.file.partition.size(); ++i) {
    std::string name = spec != nullptr && i < spec->fields.size() ? spec->fields[i].name : fmt::format("{}", i);
    const table::Value& v = f.file.partition[i];
    out[name] = v.is_null() ? ordered_json(nullptr) : ordered_json(v.ToString());
  }
  return out;
}

ordered_json FileRowJson(const TableMetadata& m, const FileRow& row, bool with_verdict) {
  const PlannedFile& f = row.file;
  ordered_json j;
  j["file_path"] = f.file.recorded_path;
  j["file_format"] = f.file.file_format;
  j["file_size_in_bytes"] = f.file.file_size_in_bytes;
  j["record_count"] = f.file.record_count;
  j["spec_id"] = f.spec_id;
  j["partition"] = PartitionJson(m, f);
  j["data_sequence_number"] = f.data_sequence_number;
  j["file_sequence_number"] = f.file_sequence_number;
  ordered_json dels = ordered_json::array();
  for (const DeleteFile& d : f.deletes) {
    ordered_json dj;
    dj["content"] = std::string(DeleteKindName(d.kind));
    dj["file_path"] = d.file.recorded_path;
    dj["record_count"] = d.file.record_count;
    dj["data_sequence_number"] = d.data_sequence_number;
    if (d.kind == DeleteFile::Kind::kEquality) dj["equality_ids"] = d.file.equality_ids;
    dels.push_back(std::move(dj));
  }
  j["deletes"] = std::move(dels);
  if (with_verdict) {
    j["verdict"] = row.kept ? "kept" : "skipped-stats";
    if (!row.reason.empty()) j["reason"] = row.reason;
  }
  return j;
}

void Count(FilesReport* r) {
  std::unordered_set<std::string> deletes;
  for (const FileRow& row : r->files) {
    ++r->files_total;
    r->bytes_total += row.file.file.file_size_in_bytes;
    if (row.kept) {
      ++r->kept;
      r->bytes_kept += row.file.file.file_size_in_bytes;
      r->rows_kept += row.file.file.record_count;
    } else {
      ++r->skipped_by_stats;
    }
    for (const DeleteFile& d : row.file.deletes) {
      deletes.insert(DeleteFileKey(d));
    }
  }
  r->delete_files = static_cast<int64_t>(deletes.size());
}

}  // namespace

std::string_view DeleteKindName(DeleteFile::Kind k) {
  switch (k) {
    case DeleteFile::Kind::kPositionFile: return "position_deletes";
    case DeleteFile::Kind::kDeletionVector: return "deletion_vector";
    case DeleteFile::Kind::kEquality: return "equality_deletes";
  }
  return "unknown";
}

std::string DeleteFileKey(const DeleteFile& d) {
  return d.file.path + "#" + std::to_string(d.file.content_offset.value_or(-1));
}

Result<FilesReport> ListFiles(io::FileSystem* fs, const std::string& location, const SnapshotSelector& snapshot,
                              const std::vector<std::string>& location_map, const std::string& where) {
  FilesReport r;
  LITHIFY_ASSIGN_OR_RETURN(r.table, OpenIcebergTable(fs, location, location_map));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, r.table->Select(snapshot));
  if (snap != nullptr) r.snapshot_id = snap->snapshot_id;
  PlanOptions plan;
  if (!where.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(expr::Expr e, ParseScanPredicate(where));
    // Bind once up front so a bad predicate is a usage error even on an empty table.
    LITHIFY_ASSIGN_OR_RETURN(OutputSchema out, OutputSchema::Build(r.table->metadata().current_schema()));
    LITHIFY_RETURN_NOT_OK(CheckScanPredicate(out.schema(), where));
    r.predicate = expr::ToString(e);
    plan.where = std::move(e);
    plan.skipped = [&r](PlannedFile&& f, std::string reason) -> Status {
      r.files.push_back({std::move(f), false, std::move(reason)});
      return Status::OK();
    };
  }
  LITHIFY_RETURN_NOT_OK(r.table->PlanFiles(snap, plan, [&r](PlannedFile&& f) -> Status {
    r.files.push_back({std::move(f), true, ""});
    return Status::OK();
  }));
  Count(&r);
  // Kept ones arrive through the sink, skipped ones through `skipped`, interleaved in
  // manifest order already; the table of files reads best grouped by path.
  std::stable_sort(r.files.begin(), r.files.end(),
                   [](const FileRow& a, const FileRow& b) { return a.file.file.path < b.file.file.path; });
  return r;
}

ordered_json FilesReportToJson(const FilesReport& r) {
  const TableMetadata& m = r.table->metadata();
  ordered_json out;
  out["table"] = m.location;
  out["format"] = "iceberg";
  out["metadata-file"] = r.table->metadata_path();
  out["snapshot-id"] = r.snapshot_id ? ordered_json(*r.snapshot_id) : ordered_json(nullptr);
  if (r.predicate) out["predicate"] = *r.predicate;
  ordered_json files = ordered_json::array();
  for (const FileRow& row : r.files) files.push_back(FileRowJson(m, row, r.predicate.has_value()));
  out["files"] = std::move(files);
  out["summary"] = {{"files", r.files_total},
                    {"kept", r.kept},
                    {"skippedByStats", r.skipped_by_stats},
                    {"deleteFiles", r.delete_files}};
  if (r.predicate) {
    out["lookupCost"] = {{"filesOpened", r.kept},
                         {"filesTotal", r.files_total},
                         {"bytesOpened", r.bytes_kept},
                         {"bytesTotal", r.bytes_total},
                         {"rowsInOpenedFiles", r.rows_kept}};
  }
  return out;
}

}  // namespace lithify::iceberg
