#include "lithify/iceberg/describe.h"

#include <algorithm>
#include <unordered_set>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::iceberg {

using nlohmann::ordered_json;

namespace {

std::string TimestampText(int64_t ms) { return IsoTimestampMicrosText(ms * 1000, true); }

ordered_json SchemaJson(const Schema& s) {
  ordered_json fields = ordered_json::array();
  for (const NestedField& f : s.fields) {
    fields.push_back({{"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", f.type.ToString()}});
  }
  return {{"schema-id", s.schema_id}, {"fields", std::move(fields)}};
}

ordered_json SpecJson(const PartitionSpec& spec) {
  ordered_json fields = ordered_json::array();
  for (const PartitionField& f : spec.fields) {
    fields.push_back(
        {{"name", f.name}, {"transform", f.transform.text}, {"source-id", f.source_id}, {"field-id", f.field_id}});
  }
  return {{"spec-id", spec.spec_id}, {"fields", std::move(fields)}};
}

ordered_json SortOrderJson(const SortOrder& order) {
  ordered_json fields = ordered_json::array();
  for (const SortField& f : order.fields) {
    fields.push_back({{"transform", f.transform.text}, {"source-id", f.source_id},
                      {"direction", f.direction}, {"null-order", f.null_order}});
  }
  return {{"order-id", order.order_id}, {"fields", std::move(fields)}};
}

ordered_json StringMapJson(const std::map<std::string, std::string>& m) {
  ordered_json out = ordered_json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

// The snapshots reachable from the current one through parent ids.
std::unordered_set<int64_t> CurrentAncestors(const TableMetadata& m) {
  std::unordered_set<int64_t> out;
  for (const Snapshot* s = m.CurrentSnapshot(); s != nullptr && out.insert(s->snapshot_id).second;) {
    s = s->parent_snapshot_id ? m.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return out;
}

}  // namespace

Result<ordered_json> DescribeDetail(io::FileSystem* fs, const std::string& location, const SnapshotSelector& snapshot,
                                    const std::vector<std::string>& location_map) {
  LITHIFY_ASSIGN_OR_RETURN(auto table, OpenIcebergTable(fs, location, location_map));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, table->Select(snapshot));
  const TableMetadata& m = table->metadata();
  int64_t files = 0, bytes = 0, records = 0;
  LITHIFY_RETURN_NOT_OK(table->PlanFiles(snap, {}, [&](PlannedFile&& f) -> Status {
    ++files;
    bytes += f.file.file_size_in_bytes;
    records += f.file.record_count;
    return Status::OK();
  }));
  ordered_json j;
  j["format"] = "iceberg";
  j["format-version"] = m.format_version;
  j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  j["metadata-file"] = table->metadata_path();
  j["located-by"] = table->located_by();
  j["current-snapshot-id"] = m.current_snapshot_id ? ordered_json(*m.current_snapshot_id) : ordered_json(nullptr);
  j["snapshot-id"] = snap != nullptr ? ordered_json(snap->snapshot_id) : ordered_json(nullptr);
  j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-updated"] = TimestampText(m.last_updated_ms);
  j["schema"] = SchemaJson(m.current_schema());
  j["default-spec-id"] = m.default_spec_id;
  ordered_json specs = ordered_json::array();
  for (const PartitionSpec& s : m.partition_specs) specs.push_back(SpecJson(s));
  j["partition-specs"] = std::move(specs);
  j["default-sort-order-id"] = m.default_sort_order_id;
  ordered_json orders = ordered_json::array();
  for (const SortOrder& o : m.sort_orders) orders.push_back(SortOrderJson(o));
  j["sort-orders"] = std::move(orders);
  j["properties"] = StringMapJson(m.properties);
  ordered_json refs = ordered_json::object();
  for (const auto& [name, ref] : m.refs) refs[name] = {{"snapshot-id", ref.snapshot_id}, {"type", ref.type}};
  j["refs"] = std::move(refs);
  j["snapshots"] = m.snapshots.size();
  j["numFiles"] = files;
  j["sizeInBytes"] = bytes;
  j["numRecords"] = records;
  return j;
}

Result<ordered_json> DescribeHistory(io::FileSystem* fs, const std::string& location,
                                     const std::vector<std::string>& location_map, int64_t limit) {
  LITHIFY_ASSIGN_OR_RETURN(auto table, OpenIcebergTable(fs, location, location_map));
  const TableMetadata& m = table->metadata();
  std::vector<const Snapshot*> snaps;
  for (const Snapshot& s : m.snapshots) snaps.push_back(&s);
  std::stable_sort(snaps.begin(), snaps.end(), [](const Snapshot* a, const Snapshot* b) {
    if (a->timestamp_ms != b->timestamp_ms) return a->timestamp_ms > b->timestamp_ms;
    return a->sequence_number > b->sequence_number;
  });
  const std::unordered_set<int64_t> ancestors = CurrentAncestors(m);
  ordered_json out = ordered_json::array();
  for (const Snapshot* s : snaps) {
    if (limit >= 0 && static_cast<int64_t>(out.size()) >= limit) break;
    ordered_json j;
    j["snapshot-id"] = s->snapshot_id;
    j["parent-snapshot-id"] = s->parent_snapshot_id ? ordered_json(*s->parent_snapshot_id) : ordered_json(nullptr);
    j["sequence-number"] = s->sequence_number;
    j["timestamp-ms"] = s->timestamp_ms;
    j["timestamp"] = TimestampText(s->timestamp_ms);
    auto op = s->summary.find("operation");
    j["operation"] = op != s->summary.end() ? ordered_json(op->second) : ordered_json(nullptr);
    j["summary"] = StringMapJson(s->summary);
    j["manifest-list"] = s->manifest_list;
    j["is-current-ancestor"] = ancestors.count(s->snapshot_id) > 0;
    ordered_json refs = ordered_json::array();
    for (const auto& [name, ref] : m.refs) {
      if (ref.snapshot_id == s->snapshot_id) refs.push_back(name);
    }
    j["refs"] = std::move(refs);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace lithify::iceberg
