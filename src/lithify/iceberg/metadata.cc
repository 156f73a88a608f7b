#include "lithify/iceberg/metadata.h"

#include <set>

#include "lithify/base/macros.h"

namespace lithify::iceberg {

namespace {

constexpr int kMaxFormatVersion = 3;

Result<std::map<std::string, std::string>> StringMap(const json::Json& o, std::string_view name) {
  std::map<std::string, std::string> out;
  const json::Json* f = json::Field(o, name);
  if (f == nullptr) return out;
  if (!f->is_object()) return Status::Corruption("'{}' is not an object", name);
  for (auto it = f->begin(); it != f->end(); ++it) {
    if (it->is_string()) {
      out[it.key()] = it->get<std::string>();
    } else if (!it->is_null()) {
      // Some writers put numbers or booleans into summaries; keep their JSON text.
      out[it.key()] = json::Dump(*it);
    }
  }
  return out;
}

Result<Snapshot> ParseSnapshot(const json::Json& j, int version) {
  Snapshot s;
  LITHIFY_ASSIGN_OR_RETURN(s.snapshot_id, json::ReqInt(j, "snapshot-id"));
  LITHIFY_ASSIGN_OR_RETURN(s.parent_snapshot_id, json::OptInt(j, "parent-snapshot-id"));
  LITHIFY_ASSIGN_OR_RETURN(auto seq, json::OptInt(j, "sequence-number"));
  if (!seq && version >= 2) return Status::Corruption("snapshot {}: missing 'sequence-number'", s.snapshot_id);
  s.sequence_number = seq.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(s.timestamp_ms, json::ReqInt(j, "timestamp-ms"));
  LITHIFY_ASSIGN_OR_RETURN(auto list, json::OptString(j, "manifest-list"));
  if (list) {
    s.manifest_list = *list;
  } else {
    LITHIFY_ASSIGN_OR_RETURN(const json::Json* manifests, json::OptArray(j, "manifests"));
    if (manifests == nullptr || version >= 2) {
      return Status::Corruption("snapshot {}: missing 'manifest-list'", s.snapshot_id);
    }
    for (const json::Json& m : *manifests) {
      if (!m.is_string()) return Status::Corruption("snapshot {}: 'manifests' holds a non-string", s.snapshot_id);
      s.manifests.push_back(m.get<std::string>());
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(s.summary, StringMap(j, "summary"));
  if (version >= 2 && !s.summary.count("operation")) {
    return Status::Corruption("snapshot {}: summary without 'operation'", s.snapshot_id);
  }
  LITHIFY_ASSIGN_OR_RETURN(s.schema_id, json::OptInt32(j, "schema-id"));
  LITHIFY_ASSIGN_OR_RETURN(s.first_row_id, json::OptInt(j, "first-row-id"));
  LITHIFY_ASSIGN_OR_RETURN(s.added_rows, json::OptInt(j, "added-rows"));
  LITHIFY_ASSIGN_OR_RETURN(s.key_id, json::OptString(j, "key-id"));
  return s;
}

Result<SnapshotRef> ParseRef(const json::Json& j) {
  SnapshotRef r;
  LITHIFY_ASSIGN_OR_RETURN(r.snapshot_id, json::ReqInt(j, "snapshot-id"));
  LITHIFY_ASSIGN_OR_RETURN(r.type, json::ReqString(j, "type"));
  if (r.type != "branch" && r.type != "tag") return Status::Corruption("unknown ref type '{}'", r.type);
  LITHIFY_ASSIGN_OR_RETURN(r.min_snapshots_to_keep, json::OptInt32(j, "min-snapshots-to-keep"));
  LITHIFY_ASSIGN_OR_RETURN(r.max_snapshot_age_ms, json::OptInt(j, "max-snapshot-age-ms"));
  LITHIFY_ASSIGN_OR_RETURN(r.max_ref_age_ms, json::OptInt(j, "max-ref-age-ms"));
  return r;
}

Result<StatisticsFile> ParseStatistics(const json::Json& j, bool partition) {
  StatisticsFile s;
  LITHIFY_ASSIGN_OR_RETURN(s.snapshot_id, json::ReqInt(j, "snapshot-id"));
  LITHIFY_ASSIGN_OR_RETURN(s.statistics_path, json::ReqString(j, "statistics-path"));
  LITHIFY_ASSIGN_OR_RETURN(s.file_size_in_bytes, json::ReqInt(j, "file-size-in-bytes"));
  if (!partition) {
    LITHIFY_ASSIGN_OR_RETURN(s.file_footer_size_in_bytes, json::OptInt(j, "file-footer-size-in-bytes"));
    LITHIFY_ASSIGN_OR_RETURN(const json::Json* blobs, json::OptArray(j, "blob-metadata"));
    if (blobs != nullptr) {
      for (const json::Json& b : *blobs) {
        LITHIFY_ASSIGN_OR_RETURN(std::string type, json::ReqString(b, "type"));
        s.blob_types.push_back(std::move(type));
      }
    }
  }
  return s;
}

// Parses the list field `name` with `parse`, naming the entry on failure.
template <typename T, typename F>
Status ParseList(const json::Json& j, std::string_view name, bool required, std::vector<T>* out, F parse) {
  const json::Json* arr = nullptr;
  if (required) {
    LITHIFY_ASSIGN_OR_RETURN(arr, json::ReqArray(j, name));
  } else {
    LITHIFY_ASSIGN_OR_RETURN(arr, json::OptArray(j, name));
  }
  if (arr == nullptr) return Status::OK();
  for (size_t i = 0; i < arr->size(); ++i) {
    Result<T> v = parse((*arr)[i]);
    if (!v.ok()) return v.status().WithContextF("'{}' entry {}", name, i);
    out->push_back(std::move(*v));
  }
  return Status::OK();
}

Status ParseSchemas(const json::Json& j, TableMetadata* m) {
  const int v = m->format_version;
  LITHIFY_RETURN_NOT_OK(ParseList(j, "schemas", v >= 2, &m->schemas, ParseSchema));
  LITHIFY_ASSIGN_OR_RETURN(auto current, json::OptInt32(j, "current-schema-id"));
  if (m->schemas.empty()) {
    const json::Json* legacy = json::Field(j, "schema");
    if (legacy == nullptr) return Status::Corruption("missing 'schemas'");
    Result<Schema> s = ParseSchema(*legacy);
    if (!s.ok()) return s.status().WithContext("'schema'");
    m->schemas.push_back(std::move(*s));
    m->current_schema_id = m->schemas.back().schema_id;
    return Status::OK();
  }
  if (!current) return Status::Corruption("missing 'current-schema-id'");
  m->current_schema_id = *current;
  std::set<int32_t> ids;
  for (const Schema& s : m->schemas) {
    if (!ids.insert(s.schema_id).second) return Status::Corruption("schema id {} is used twice", s.schema_id);
  }
  if (m->FindSchema(*current) == nullptr) {
    return Status::Corruption("current-schema-id {} names no schema", *current);
  }
  return Status::OK();
}

Status ParseSpecs(const json::Json& j, TableMetadata* m) {
  const int v = m->format_version;
  auto parse = [v](const json::Json& s) { return ParsePartitionSpec(s, v); };
  LITHIFY_RETURN_NOT_OK(ParseList(j, "partition-specs", v >= 2, &m->partition_specs, parse));
  LITHIFY_ASSIGN_OR_RETURN(auto def, json::OptInt32(j, "default-spec-id"));
  if (m->partition_specs.empty()) {
    const json::Json* legacy = json::Field(j, "partition-spec");
    if (legacy == nullptr) return Status::Corruption("missing 'partition-specs'");
    Result<PartitionSpec> s = ParsePartitionFields(*legacy, 0, v);
    if (!s.ok()) return s.status().WithContext("'partition-spec'");
    m->partition_specs.push_back(std::move(*s));
    def = 0;
  }
  if (!def) return Status::Corruption("missing 'default-spec-id'");
  m->default_spec_id = *def;
  if (m->FindSpec(*def) == nullptr) return Status::Corruption("default-spec-id {} names no spec", *def);
  LITHIFY_ASSIGN_OR_RETURN(auto last, json::OptInt32(j, "last-partition-id"));
  if (!last && v >= 2) return Status::Corruption("missing 'last-partition-id'");
  int32_t max_id = 999;
  for (const PartitionSpec& s : m->partition_specs) {
    for (const PartitionField& f : s.fields) max_id = std::max(max_id, f.field_id);
  }
  m->last_partition_id = last.value_or(max_id);
  return Status::OK();
}

Status ParseSortOrders(const json::Json& j, TableMetadata* m) {
  const int v = m->format_version;
  LITHIFY_RETURN_NOT_OK(ParseList(j, "sort-orders", v >= 2, &m->sort_orders, ParseSortOrder));
  LITHIFY_ASSIGN_OR_RETURN(auto def, json::OptInt32(j, "default-sort-order-id"));
  if (!def && v >= 2) return Status::Corruption("missing 'default-sort-order-id'");
  m->default_sort_order_id = def.value_or(0);
  if (def && !m->sort_orders.empty()) {
    bool found = false;
    for (const SortOrder& o : m->sort_orders) found |= o.order_id == *def;
    if (!found) return Status::Corruption("default-sort-order-id {} names no sort order", *def);
  }
  return Status::OK();
}

Status ParseSnapshots(const json::Json& j, TableMetadata* m) {
  const int v = m->format_version;
  auto parse = [v](const json::Json& s) { return ParseSnapshot(s, v); };
  LITHIFY_RETURN_NOT_OK(ParseList(j, "snapshots", false, &m->snapshots, parse));
  std::set<int64_t> ids;
  for (const Snapshot& s : m->snapshots) {
    if (!ids.insert(s.snapshot_id).second) return Status::Corruption("snapshot id {} is listed twice", s.snapshot_id);
    if (v >= 2 && s.sequence_number > m->last_sequence_number) {
      return Status::Corruption("snapshot {} has sequence number {} above last-sequence-number {}",
                                s.snapshot_id, s.sequence_number, m->last_sequence_number);
    }
  }
  // Sequence numbers never go backwards along a snapshot's ancestry.
  for (const Snapshot& s : m->snapshots) {
    if (!s.parent_snapshot_id) continue;
    const Snapshot* p = m->FindSnapshot(*s.parent_snapshot_id);
    // Snapshots kept from before a v1 -> v2 upgrade all read as 0, so only a numbered
    // child is checked.
    if (p != nullptr && v >= 2 && s.sequence_number > 0 && p->sequence_number >= s.sequence_number) {
      return Status::Corruption("snapshot {} has sequence number {}, not above its parent {}'s {}",
                                s.snapshot_id, s.sequence_number, p->snapshot_id, p->sequence_number);
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(m->current_snapshot_id, json::OptInt(j, "current-snapshot-id"));
  if (m->current_snapshot_id == -1) m->current_snapshot_id.reset();  // v1 writers' "none"
  if (m->current_snapshot_id && m->FindSnapshot(*m->current_snapshot_id) == nullptr) {
    return Status::Corruption("current-snapshot-id {} names no snapshot", *m->current_snapshot_id);
  }
  if (const json::Json* refs = json::Field(j, "refs")) {
    if (!refs->is_object()) return Status::Corruption("'refs' is not an object");
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      Result<SnapshotRef> r = ParseRef(*it);
      if (!r.ok()) return r.status().WithContextF("ref '{}'", it.key());
      if (m->FindSnapshot(r->snapshot_id) == nullptr) {
        return Status::Corruption("ref '{}' names unknown snapshot {}", it.key(), r->snapshot_id);
      }
      m->refs[it.key()] = std::move(*r);
    }
  }
  if (m->current_snapshot_id && !m->refs.count("main")) {
    m->refs["main"] = SnapshotRef{*m->current_snapshot_id, "branch", {}, {}, {}};
  }
  auto log_entry = [](const json::Json& e) -> Result<SnapshotLogEntry> {
    SnapshotLogEntry l;
    LITHIFY_ASSIGN_OR_RETURN(l.timestamp_ms, json::ReqInt(e, "timestamp-ms"));
    LITHIFY_ASSIGN_OR_RETURN(l.snapshot_id, json::ReqInt(e, "snapshot-id"));
    return l;
  };
  LITHIFY_RETURN_NOT_OK(ParseList(j, "snapshot-log", false, &m->snapshot_log, log_entry));
  auto meta_entry = [](const json::Json& e) -> Result<MetadataLogEntry> {
    MetadataLogEntry l;
    LITHIFY_ASSIGN_OR_RETURN(l.timestamp_ms, json::ReqInt(e, "timestamp-ms"));
    LITHIFY_ASSIGN_OR_RETURN(l.metadata_file, json::ReqString(e, "metadata-file"));
    return l;
  };
  return ParseList(j, "metadata-log", false, &m->metadata_log, meta_entry);
}

Result<TableMetadata> Parse(const json::Json& j) {
  if (!j.is_object()) return Status::Corruption("table metadata is not a JSON object");
  TableMetadata m;
  LITHIFY_ASSIGN_OR_RETURN(int64_t version, json::ReqInt(j, "format-version"));
  if (version < 1) return Status::Corruption("format-version {} is not a version", version);
  if (version > kMaxFormatVersion) {
    return Status::NotSupported("Iceberg format version {} (lithify reads 1 to {})", version, kMaxFormatVersion);
  }
  m.format_version = static_cast<int>(version);
  const int v = m.format_version;
  LITHIFY_ASSIGN_OR_RETURN(auto uuid, json::OptString(j, "table-uuid"));
  if (!uuid && v >= 2) return Status::Corruption("missing 'table-uuid'");
  m.table_uuid = uuid.value_or("");
  LITHIFY_ASSIGN_OR_RETURN(m.location, json::ReqString(j, "location"));
  LITHIFY_ASSIGN_OR_RETURN(auto seq, json::OptInt(j, "last-sequence-number"));
  if (!seq && v >= 2) return Status::Corruption("missing 'last-sequence-number'");
  m.last_sequence_number = seq.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(m.last_updated_ms, json::ReqInt(j, "last-updated-ms"));
  LITHIFY_ASSIGN_OR_RETURN(m.last_column_id, json::ReqInt32(j, "last-column-id"));
  LITHIFY_RETURN_NOT_OK(ParseSchemas(j, &m));
  LITHIFY_RETURN_NOT_OK(ParseSpecs(j, &m));
  LITHIFY_RETURN_NOT_OK(ParseSortOrders(j, &m));
  LITHIFY_ASSIGN_OR_RETURN(m.properties, StringMap(j, "properties"));
  LITHIFY_RETURN_NOT_OK(ParseSnapshots(j, &m));
  LITHIFY_RETURN_NOT_OK(ParseList(j, "statistics", false, &m.statistics,
                                  [](const json::Json& s) { return ParseStatistics(s, false); }));
  LITHIFY_RETURN_NOT_OK(ParseList(j, "partition-statistics", false, &m.partition_statistics,
                                  [](const json::Json& s) { return ParseStatistics(s, true); }));
  LITHIFY_ASSIGN_OR_RETURN(m.next_row_id, json::OptInt(j, "next-row-id"));
  // v3 requires next-row-id, but writers of metadata-only v3 tables omit it; it matters
  // only to writers.
  LITHIFY_ASSIGN_OR_RETURN(const json::Json* keys, json::OptArray(j, "encryption-keys"));
  m.encryption_keys = keys == nullptr ? 0 : keys->size();
  return m;
}

}  // namespace

const Schema& TableMetadata::current_schema() const { return *FindSchema(current_schema_id); }

const Schema* TableMetadata::FindSchema(int32_t id) const {
  for (const Schema& s : schemas) {
    if (s.schema_id == id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::FindSpec(int32_t id) const {
  for (const PartitionSpec& s : partition_specs) {
    if (s.spec_id == id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::FindSnapshot(int64_t id) const {
  for (const Snapshot& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? FindSnapshot(*current_snapshot_id) : nullptr;
}

Result<TableMetadata> ParseTableMetadata(std::string_view text, const std::string& path) {
  Result<json::Json> j = json::Parse(text);
  if (!j.ok()) return j.status().WithContext(path);
  Result<TableMetadata> m = Parse(*j);
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

Result<const Snapshot*> SelectSnapshot(const TableMetadata& m, const SnapshotSelector& s) {
  using K = SnapshotSelector::Kind;
  switch (s.kind) {
    case K::kCurrent: return m.CurrentSnapshot();
    case K::kId: {
      const Snapshot* snap = m.FindSnapshot(s.snapshot_id);
      if (snap == nullptr) return Status::NotFound("snapshot {} is not in the table", s.snapshot_id);
      return snap;
    }
    case K::kRef: {
      auto it = m.refs.find(s.ref);
      if (it == m.refs.end()) return Status::NotFound("no branch or tag named '{}'", s.ref);
      return m.FindSnapshot(it->second.snapshot_id);
    }
    case K::kTimestamp: {
      // The spec's rule (Appendix F): the snapshot log entry just at or before the time.
      const SnapshotLogEntry* best = nullptr;
      for (const SnapshotLogEntry& e : m.snapshot_log) {
        if (e.timestamp_ms <= s.timestamp_ms && (best == nullptr || e.timestamp_ms >= best->timestamp_ms)) best = &e;
      }
      if (best == nullptr) {
        return Status::NotFound("no snapshot was current at {} ms (the snapshot log starts later or is empty)",
                                s.timestamp_ms);
      }
      const Snapshot* snap = m.FindSnapshot(best->snapshot_id);
      if (snap == nullptr) {
        return Status::NotFound("snapshot {} current at {} ms has expired", best->snapshot_id, s.timestamp_ms);
      }
      return snap;
    }
  }
  return Status::Internal("unknown snapshot selector");
}

}  // namespace lithify::iceberg
