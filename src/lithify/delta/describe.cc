#include "lithify/base/nesting.h"
#include "lithify/delta/describe.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/log_segment.h"

namespace lithify::delta {

namespace {

// Logical dotted path of a physical path (column mapping), or the physical path itself
// when no field matches.
std::string LogicalPath(const StructType& schema, ColumnMappingMode mode,
                        const std::vector<std::string>& physical) {
  const DataType* t = &schema;
  std::string out;
  for (const std::string& p : physical) {
    const StructField* found = nullptr;
    if (t != nullptr && t->kind == DataType::Kind::kStruct) {
      for (const StructField& f : t->fields) {
        std::string phys = f.name;
        if (mode != ColumnMappingMode::kNone) {
          if (auto pn = f.physical_name()) phys = *pn;
        }
        if (phys == p || f.name == p) { found = &f; break; }
      }
    }
    if (!out.empty()) out += ".";
    out += found ? found->name : p;
    t = found ? &found->type : nullptr;
  }
  return out;
}

// delta.clustering: {"clusteringColumns":[["a"],["b","c"]]}; the older delta.liquid
// domain: {"clusteringColumns":[{"physicalName":["a"]}]}. Unparseable configurations
// yield no columns (describe is a report, not a validator).
std::vector<std::vector<std::string>> ClusteringPaths(const std::string& configuration) {
  std::vector<std::vector<std::string>> out;
  // (Deeper than any configuration: refused before a tree is built, like malformed text.)
  if (JsonNestedDeeper(configuration)) return out;
  nlohmann::json j = nlohmann::json::parse(configuration, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("clusteringColumns") || !j["clusteringColumns"].is_array()) return out;
  for (const auto& c : j["clusteringColumns"]) {
    const nlohmann::json* arr = &c;
    if (c.is_object() && c.contains("physicalName")) arr = &c["physicalName"];
    std::vector<std::string> path;
    if (arr->is_array()) {
      for (const auto& p : *arr) {
        if (p.is_string()) path.push_back(p.get<std::string>());
      }
    } else if (arr->is_string()) {
      path.push_back(arr->get<std::string>());
    }
    if (!path.empty()) out.push_back(std::move(path));
  }
  return out;
}

}  // namespace

std::vector<std::string> TableFeatures(const Protocol& p) {
  std::set<std::string> f;
  if (p.reader_features) f.insert(p.reader_features->begin(), p.reader_features->end());
  if (p.writer_features) f.insert(p.writer_features->begin(), p.writer_features->end());
  // Legacy protocol versions imply features (PROTOCOL.md "Table Features", table of
  // legacy writer versions); a writer-7 table may still carry legacy reader version 2.
  if (!p.writer_features) {
    if (p.min_writer_version >= 2) { f.insert("appendOnly"); f.insert("invariants"); }
    if (p.min_writer_version >= 3) f.insert("checkConstraints");
    if (p.min_writer_version >= 4) { f.insert("changeDataFeed"); f.insert("generatedColumns"); }
    if (p.min_writer_version >= 5) f.insert("columnMapping");
    if (p.min_writer_version >= 6) f.insert("identityColumns");
  }
  if (!p.reader_features && p.min_reader_version >= 2) f.insert("columnMapping");
  return {f.begin(), f.end()};
}

Result<TableDetail> DescribeDetail(io::FileSystem* fs, const std::string& table_root,
                                   VersionSpec version, std::shared_ptr<const Snapshot>* keep) {
  Result<std::shared_ptr<const Snapshot>> loaded = Snapshot::Load(
      fs, table_root, version, LoadOptions{StatsMode::kNone});  // detail needs no stats
  if (!loaded.ok()) {
    const Status& st = loaded.status();
    if (st.message().find(table_root) != std::string::npos) return st;
    return st.WithContext(table_root);
  }
  const Snapshot& s = **loaded;
  TableDetail d;
  d.id = s.metadata().id;
  d.name = s.metadata().name;
  d.description = s.metadata().description;
  d.location = s.table_root();
  d.created_at_ms = s.metadata().created_time;
  d.last_modified_ms = s.timestamp_ms();
  d.version = s.version();
  d.partition_columns = s.partition_columns();
  for (const char* domain : {"delta.clustering", "delta.liquid"}) {
    auto it = s.domain_metadata().find(domain);
    if (it == s.domain_metadata().end() || !d.clustering_columns.empty()) continue;
    for (const auto& path : ClusteringPaths(it->second.configuration)) {
      d.clustering_columns.push_back(LogicalPath(s.schema(), s.column_mapping_mode(), path));
    }
  }
  // The compact live-file store: no FileEntry is built for a count and a sum.
  d.num_files = static_cast<int64_t>(s.live_files().size());
  for (LiveFileView f : s.live_files()) d.size_in_bytes += f.size();
  d.properties = s.properties();
  d.min_reader_version = s.protocol().min_reader_version;
  d.min_writer_version = s.protocol().min_writer_version;
  d.table_features = TableFeatures(s.protocol());
  if (keep != nullptr) *keep = std::move(*loaded);
  return d;
}

Result<std::vector<HistoryEntry>> DescribeHistory(io::FileSystem* fs, const std::string& table_root,
                                                  int64_t limit) {
  const std::string log_dir = io::JoinPath(table_root, "_delta_log");
  LITHIFY_ASSIGN_OR_RETURN(std::vector<LogFile> files, ListLogFiles(fs, log_dir));
  std::vector<const LogFile*> commits;
  for (const LogFile& f : files) {
    if (f.name.type == LogFileType::kCommit) commits.push_back(&f);
  }
  if (commits.empty()) {
    bool any = !files.empty();
    if (!any) return Status::NotFound("{}: no Delta table (no commits in _delta_log)", table_root);
  }
  // Delta's history timestamps are the commit files' modification times made strictly
  // increasing (a commit not after its predecessor counts as predecessor + 1 ms), unless
  // the commit carries an in-commit timestamp.
  std::sort(commits.begin(), commits.end(),
            [](const LogFile* a, const LogFile* b) { return a->name.version < b->name.version; });
  std::vector<int64_t> adjusted(commits.size());
  for (size_t i = 0; i < commits.size(); ++i) {
    adjusted[i] = commits[i]->mtime_ms;
    if (i > 0 && adjusted[i] <= adjusted[i - 1]) adjusted[i] = adjusted[i - 1] + 1;
  }
  std::reverse(commits.begin(), commits.end());
  std::reverse(adjusted.begin(), adjusted.end());
  std::vector<HistoryEntry> out;
  for (size_t i = 0; i < commits.size(); ++i) {
    const LogFile* f = commits[i];
    if (limit >= 0 && static_cast<int64_t>(out.size()) >= limit) break;
    Result<Buffer> bytes = fs->ReadFile(f->path);
    if (!bytes.ok()) return bytes.status().WithContext(f->path);
    const std::string name = "_delta_log/" + CommitFileName(f->name.version);
    LITHIFY_ASSIGN_OR_RETURN(std::vector<Action> actions,
                             ParseCommitFile(AsStringView(bytes->view()), name));
    HistoryEntry e;
    e.version = f->name.version;
    e.timestamp_ms = adjusted[i];
    for (const Action& a : actions) {
      if (const auto* ci = std::get_if<CommitInfo>(&a)) {
        e.commit_info = ci->json;
        if (ci->in_commit_timestamp) e.timestamp_ms = *ci->in_commit_timestamp;
        break;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string IsoMillisText(int64_t ms) {
  const auto [days, rem] = SplitDays(ms, kMillisPerDay);
  return fmt::format("{}T{:02}:{:02}:{:02}.{:03}Z", IsoDateText(days), rem / 3600000, rem / 60000 % 60,
                     rem / 1000 % 60, rem % 1000);
}

nlohmann::ordered_json TableDetailToJson(const TableDetail& d) {
  using J = nlohmann::ordered_json;
  J j;
  j["format"] = d.format;
  j["id"] = d.id;
  j["name"] = d.name ? J(*d.name) : J(nullptr);
  j["description"] = d.description ? J(*d.description) : J(nullptr);
  j["location"] = d.location;
  j["createdAt"] = d.created_at_ms ? J(IsoMillisText(*d.created_at_ms)) : J(nullptr);
  j["lastModified"] = IsoMillisText(d.last_modified_ms);
  j["version"] = d.version;
  j["partitionColumns"] = d.partition_columns;
  j["clusteringColumns"] = d.clustering_columns;
  j["numFiles"] = d.num_files;
  j["sizeInBytes"] = d.size_in_bytes;
  J props = J::object();
  for (const auto& [k, v] : d.properties) props[k] = v;
  j["properties"] = props;
  j["minReaderVersion"] = d.min_reader_version;
  j["minWriterVersion"] = d.min_writer_version;
  j["tableFeatures"] = d.table_features;
  return j;
}

nlohmann::ordered_json HistoryEntryToJson(const HistoryEntry& e) {
  static constexpr const char* kHistoryFields[] = {
      "userId", "userName", "operation", "operationParameters", "job", "notebook", "clusterId",
      "readVersion", "isolationLevel", "isBlindAppend", "operationMetrics", "userMetadata",
      "engineInfo"};
  nlohmann::ordered_json j;
  j["version"] = e.version;
  j["timestamp"] = IsoMillisText(e.timestamp_ms);
  // The fields are copied into the output and dumped, both recursively: a commitInfo
  // nested deeper than the shared limit is shown as empty, like an unparseable one.
  nlohmann::json ci = e.commit_info && !JsonNestedDeeper(*e.commit_info)
                          ? nlohmann::json::parse(*e.commit_info, nullptr, false)
                          : nlohmann::json::object();
  if (!ci.is_object()) ci = nlohmann::json::object();
  for (const char* k : kHistoryFields) {
    if (ci.contains(k)) j[k] = ci[k];
  }
  return j;
}

}  // namespace lithify::delta
