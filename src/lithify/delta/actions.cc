// Action JSON parsing and serialization (PROTOCOL.md "Actions").
#include "lithify/delta/actions.h"

#include <algorithm>

#include "lithify/base/macros.h"
#include "lithify/delta/action_fields.h"
#include "lithify/delta/json_util.h"
#include "lithify/io/uri.h"

namespace lithify::delta {

using json::Json;

namespace {

using namespace action_fields;  // NOLINT: the field tables' names
using StringMap = std::map<std::string, std::string>;
using PartitionMap = std::map<std::string, std::optional<std::string>>;

// ---- parsing ---------------------------------------------------------------------

// `field`: the action's deletionVector field (add's and remove's have the same name).
Result<std::optional<DeletionVectorDescriptor>> ParseDv(const Json& o, std::string_view field) {
  const Json* f = json::Field(o, field);
  if (f == nullptr) return std::optional<DeletionVectorDescriptor>();
  LITHIFY_ASSIGN_OR_RETURN(std::string st, json::ReqString(*f, Name(kDvStorageType)));
  LITHIFY_ASSIGN_OR_RETURN(std::string location, json::ReqString(*f, Name(kDvPathOrInlineDv)));
  LITHIFY_ASSIGN_OR_RETURN(auto offset, json::OptInt(*f, Name(kDvOffset)));
  LITHIFY_ASSIGN_OR_RETURN(int64_t size, json::ReqInt(*f, Name(kDvSizeInBytes)));
  LITHIFY_ASSIGN_OR_RETURN(int64_t cardinality, json::ReqInt(*f, Name(kDvCardinality)));
  LITHIFY_ASSIGN_OR_RETURN(auto max_row_index, json::OptInt(*f, Name(kDvMaxRowIndex)));
  LITHIFY_ASSIGN_OR_RETURN(DeletionVectorDescriptor dv,
                           MakeDescriptor(st, std::move(location), offset, size, cardinality,
                                          max_row_index));
  return std::optional<DeletionVectorDescriptor>(std::move(dv));
}

// Checkpoint rows carry parsed statistics as a struct; keep its JSON rendering so the
// stats parser sees the same shape as the `stats` string.
Result<std::optional<std::string>> ParseStatsParsed(const Json& o) {
  const Json* f = json::Field(o, "stats_parsed");
  if (f == nullptr) return std::optional<std::string>();
  if (!f->is_object()) return Status::Corruption("field 'stats_parsed' is not a struct");
  return std::optional<std::string>(json::Dump(*f));
}

Result<AddFile> ParseAdd(const Json& o) {
  AddFile a;
  LITHIFY_ASSIGN_OR_RETURN(a.path, json::ReqString(o, Name(kAddPath)));
  LITHIFY_ASSIGN_OR_RETURN(a.partition_values, json::OptStringMap(o, Name(kAddPartitionValues)));
  LITHIFY_ASSIGN_OR_RETURN(a.size, json::ReqInt(o, Name(kAddSize)));
  LITHIFY_ASSIGN_OR_RETURN(auto mtime, json::OptInt(o, Name(kAddModificationTime)));
  a.modification_time = mtime.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto dc, json::OptBool(o, Name(kAddDataChange)));
  a.data_change = dc.value_or(true);
  LITHIFY_ASSIGN_OR_RETURN(a.stats, json::OptString(o, Name(kAddStats)));
  LITHIFY_ASSIGN_OR_RETURN(a.stats_parsed, ParseStatsParsed(o));
  LITHIFY_ASSIGN_OR_RETURN(a.tags, json::OptStringMapNoNulls(o, Name(kAddTags)));
  LITHIFY_ASSIGN_OR_RETURN(a.deletion_vector, ParseDv(o, Name(kAddDeletionVector)));
  LITHIFY_ASSIGN_OR_RETURN(a.base_row_id, json::OptInt(o, Name(kAddBaseRowId)));
  LITHIFY_ASSIGN_OR_RETURN(a.default_row_commit_version, json::OptInt(o, Name(kAddDefaultRowCommitVersion)));
  LITHIFY_ASSIGN_OR_RETURN(a.clustering_provider, json::OptString(o, Name(kAddClusteringProvider)));
  if (a.size < 0) return Status::Corruption("add.size {} is negative", a.size);
  return a;
}

Result<RemoveFile> ParseRemove(const Json& o) {
  RemoveFile r;
  LITHIFY_ASSIGN_OR_RETURN(r.path, json::ReqString(o, Name(kRemovePath)));
  LITHIFY_ASSIGN_OR_RETURN(r.deletion_timestamp, json::OptInt(o, Name(kRemoveDeletionTimestamp)));
  LITHIFY_ASSIGN_OR_RETURN(auto dc, json::OptBool(o, Name(kRemoveDataChange)));
  r.data_change = dc.value_or(true);
  LITHIFY_ASSIGN_OR_RETURN(r.extended_file_metadata, json::OptBool(o, Name(kRemoveExtendedFileMetadata)));
  if (json::Field(o, Name(kRemovePartitionValues)) != nullptr) {
    LITHIFY_ASSIGN_OR_RETURN(r.partition_values, json::OptStringMap(o, Name(kRemovePartitionValues)));
  }
  LITHIFY_ASSIGN_OR_RETURN(r.size, json::OptInt(o, Name(kRemoveSize)));
  LITHIFY_ASSIGN_OR_RETURN(r.stats, json::OptString(o, Name(kRemoveStats)));
  LITHIFY_ASSIGN_OR_RETURN(r.tags, json::OptStringMapNoNulls(o, Name(kRemoveTags)));
  LITHIFY_ASSIGN_OR_RETURN(r.deletion_vector, ParseDv(o, Name(kRemoveDeletionVector)));
  LITHIFY_ASSIGN_OR_RETURN(r.base_row_id, json::OptInt(o, Name(kRemoveBaseRowId)));
  LITHIFY_ASSIGN_OR_RETURN(r.default_row_commit_version, json::OptInt(o, Name(kRemoveDefaultRowCommitVersion)));
  return r;
}

Result<AddCdcFile> ParseCdc(const Json& o) {
  AddCdcFile c;
  LITHIFY_ASSIGN_OR_RETURN(c.path, json::ReqString(o, "path"));
  LITHIFY_ASSIGN_OR_RETURN(c.partition_values, json::OptStringMap(o, "partitionValues"));
  LITHIFY_ASSIGN_OR_RETURN(auto size, json::OptInt(o, "size"));
  c.size = size.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(auto dc, json::OptBool(o, "dataChange"));
  c.data_change = dc.value_or(false);
  LITHIFY_ASSIGN_OR_RETURN(c.tags, json::OptStringMapNoNulls(o, "tags"));
  return c;
}

Result<int32_t> ReqInt32(const Json& o, std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(int64_t v, json::ReqInt(o, field));
  if (v < INT32_MIN || v > INT32_MAX) return Status::Corruption("field '{}' out of range", field);
  return static_cast<int32_t>(v);
}

Result<Protocol> ParseProtocol(const Json& o) {
  Protocol p;
  LITHIFY_ASSIGN_OR_RETURN(p.min_reader_version, ReqInt32(o, Name(kProtocolMinReaderVersion)));
  LITHIFY_ASSIGN_OR_RETURN(p.min_writer_version, ReqInt32(o, Name(kProtocolMinWriterVersion)));
  if (json::Field(o, Name(kProtocolReaderFeatures)) != nullptr) {
    LITHIFY_ASSIGN_OR_RETURN(p.reader_features, json::OptStringArray(o, Name(kProtocolReaderFeatures)));
  }
  if (json::Field(o, Name(kProtocolWriterFeatures)) != nullptr) {
    LITHIFY_ASSIGN_OR_RETURN(p.writer_features, json::OptStringArray(o, Name(kProtocolWriterFeatures)));
  }
  return p;
}

Result<Metadata> ParseMetadata(const Json& o) {
  Metadata m;
  LITHIFY_ASSIGN_OR_RETURN(m.id, json::ReqString(o, Name(kMetadataId)));
  LITHIFY_ASSIGN_OR_RETURN(m.name, json::OptString(o, Name(kMetadataName)));
  LITHIFY_ASSIGN_OR_RETURN(m.description, json::OptString(o, Name(kMetadataDescription)));
  if (const Json* f = json::Field(o, Name(kMetadataFormat))) {
    LITHIFY_ASSIGN_OR_RETURN(auto provider, json::OptString(*f, Name(kFormatProvider)));
    if (provider) m.format.provider = *provider;
    LITHIFY_ASSIGN_OR_RETURN(m.format.options, json::OptStringMapNoNulls(*f, Name(kFormatOptions)));
  }
  // Some writers (Delta Live Tables) commit a first metaData without schemaString and
  // replace it later; only the winning metaData must have one (checked by Snapshot).
  LITHIFY_ASSIGN_OR_RETURN(auto schema, json::OptString(o, Name(kMetadataSchemaString)));
  m.schema_string = schema.value_or("");
  LITHIFY_ASSIGN_OR_RETURN(m.partition_columns, json::OptStringArray(o, Name(kMetadataPartitionColumns)));
  LITHIFY_ASSIGN_OR_RETURN(m.created_time, json::OptInt(o, Name(kMetadataCreatedTime)));
  LITHIFY_ASSIGN_OR_RETURN(m.configuration, json::OptStringMapNoNulls(o, Name(kMetadataConfiguration)));
  return m;
}

Result<Txn> ParseTxn(const Json& o) {
  Txn t;
  LITHIFY_ASSIGN_OR_RETURN(t.app_id, json::ReqString(o, Name(kTxnAppId)));
  LITHIFY_ASSIGN_OR_RETURN(t.version, json::ReqInt(o, Name(kTxnVersion)));
  LITHIFY_ASSIGN_OR_RETURN(t.last_updated, json::OptInt(o, Name(kTxnLastUpdated)));
  return t;
}

Result<CommitInfo> ParseCommitInfo(const Json& o) {
  CommitInfo c;
  // commitInfo is free-form: a mistyped optional field is ignored rather than fatal,
  // except inCommitTimestamp, which time travel depends on.
  auto ts = json::OptInt(o, "timestamp");
  if (ts.ok()) c.timestamp = *ts;
  LITHIFY_ASSIGN_OR_RETURN(c.in_commit_timestamp, json::OptInt(o, "inCommitTimestamp"));
  auto op = json::OptString(o, "operation");
  if (op.ok()) c.operation = *op;
  c.json = json::Dump(o);
  return c;
}

Result<DomainMetadata> ParseDomainMetadata(const Json& o) {
  DomainMetadata d;
  LITHIFY_ASSIGN_OR_RETURN(d.domain, json::ReqString(o, Name(kDomainDomain)));
  LITHIFY_ASSIGN_OR_RETURN(auto conf, json::OptString(o, Name(kDomainConfiguration)));
  d.configuration = conf.value_or("");
  LITHIFY_ASSIGN_OR_RETURN(auto removed, json::OptBool(o, Name(kDomainRemoved)));
  d.removed = removed.value_or(false);
  return d;
}

Result<CheckpointMetadata> ParseCheckpointMetadata(const Json& o) {
  CheckpointMetadata c;
  LITHIFY_ASSIGN_OR_RETURN(c.version, json::ReqInt(o, Name(kCheckpointMetadataVersion)));
  LITHIFY_ASSIGN_OR_RETURN(c.tags, json::OptStringMapNoNulls(o, Name(kCheckpointMetadataTags)));
  return c;
}

Result<Sidecar> ParseSidecar(const Json& o) {
  Sidecar s;
  LITHIFY_ASSIGN_OR_RETURN(s.path, json::ReqString(o, Name(kSidecarPath)));
  LITHIFY_ASSIGN_OR_RETURN(s.size_in_bytes, json::ReqInt(o, Name(kSidecarSizeInBytes)));
  LITHIFY_ASSIGN_OR_RETURN(auto mtime, json::OptInt(o, Name(kSidecarModificationTime)));
  s.modification_time = mtime.value_or(0);
  LITHIFY_ASSIGN_OR_RETURN(s.tags, json::OptStringMapNoNulls(o, Name(kSidecarTags)));
  return s;
}

template <typename T, typename F>
Result<std::optional<Action>> Wrap(const Json& body, std::string_view kind, F parse) {
  if (!body.is_object()) return Status::Corruption("'{}' action is not an object", kind);
  Result<T> r = parse(body);
  if (!r.ok()) return r.status().WithContextF("'{}' action", kind);
  return std::optional<Action>(Action(std::move(r).value()));
}

// Dispatches on the first known action key with a non-null value (checkpoint rows
// have every action column, all null but one).
Result<std::optional<Action>> ParseActionObject(const Json& o) {
  if (!o.is_object()) return Status::Corruption("action is not a JSON object");
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it->is_null()) continue;
    const std::string& k = it.key();
    const Json& b = it.value();
    if (k == kAddAction) return Wrap<AddFile>(b, k, ParseAdd);
    if (k == kRemoveAction) return Wrap<RemoveFile>(b, k, ParseRemove);
    if (k == kMetadataAction) return Wrap<Metadata>(b, k, ParseMetadata);
    if (k == kProtocolAction) return Wrap<Protocol>(b, k, ParseProtocol);
    if (k == kTxnAction) return Wrap<Txn>(b, k, ParseTxn);
    if (k == "commitInfo") return Wrap<CommitInfo>(b, k, ParseCommitInfo);
    if (k == kDomainMetadataAction) return Wrap<DomainMetadata>(b, k, ParseDomainMetadata);
    if (k == kCheckpointMetadataAction) return Wrap<CheckpointMetadata>(b, k, ParseCheckpointMetadata);
    if (k == kSidecarAction) return Wrap<Sidecar>(b, k, ParseSidecar);
    if (k == "cdc") return Wrap<AddCdcFile>(b, k, ParseCdc);
  }
  return std::optional<Action>();
}

// ---- serialization ---------------------------------------------------------------

Json MapJson(const StringMap& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

Json PartitionJson(const PartitionMap& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v ? Json(*v) : Json(nullptr);
  return j;
}

template <typename T>
void PutOpt(Json& j, std::string_view key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

Json DvJson(const DeletionVectorDescriptor& dv) {
  Json j = Json::object();
  j[Name(kDvStorageType)] = std::string(1, dv.storage_type);
  j[Name(kDvPathOrInlineDv)] = dv.path_or_inline_dv;
  PutOpt(j, Name(kDvOffset), dv.offset);
  j[Name(kDvSizeInBytes)] = dv.size_in_bytes;
  j[Name(kDvCardinality)] = dv.cardinality;
  PutOpt(j, Name(kDvMaxRowIndex), dv.max_row_index);
  return j;
}

Json ToJson(const AddFile& a) {
  Json j = Json::object();
  j[Name(kAddPath)] = a.path;
  j[Name(kAddPartitionValues)] = PartitionJson(a.partition_values);
  j[Name(kAddSize)] = a.size;
  j[Name(kAddModificationTime)] = a.modification_time;
  j[Name(kAddDataChange)] = a.data_change;
  PutOpt(j, Name(kAddStats), a.stats);
  if (a.stats_parsed) {
    auto parsed = json::Parse(*a.stats_parsed);
    if (parsed.ok()) j["stats_parsed"] = std::move(parsed).value();
  }
  if (!a.tags.empty()) j[Name(kAddTags)] = MapJson(a.tags);
  if (a.deletion_vector) j[Name(kAddDeletionVector)] = DvJson(*a.deletion_vector);
  PutOpt(j, Name(kAddBaseRowId), a.base_row_id);
  PutOpt(j, Name(kAddDefaultRowCommitVersion), a.default_row_commit_version);
  PutOpt(j, Name(kAddClusteringProvider), a.clustering_provider);
  return Json{{kAddAction, j}};
}

Json ToJson(const RemoveFile& r) {
  Json j = Json::object();
  j[Name(kRemovePath)] = r.path;
  PutOpt(j, Name(kRemoveDeletionTimestamp), r.deletion_timestamp);
  j[Name(kRemoveDataChange)] = r.data_change;
  PutOpt(j, Name(kRemoveExtendedFileMetadata), r.extended_file_metadata);
  if (r.partition_values) j[Name(kRemovePartitionValues)] = PartitionJson(*r.partition_values);
  PutOpt(j, Name(kRemoveSize), r.size);
  PutOpt(j, Name(kRemoveStats), r.stats);
  if (!r.tags.empty()) j[Name(kRemoveTags)] = MapJson(r.tags);
  if (r.deletion_vector) j[Name(kRemoveDeletionVector)] = DvJson(*r.deletion_vector);
  PutOpt(j, Name(kRemoveBaseRowId), r.base_row_id);
  PutOpt(j, Name(kRemoveDefaultRowCommitVersion), r.default_row_commit_version);
  return Json{{kRemoveAction, j}};
}

Json ToJson(const Metadata& m) {
  Json j = Json::object();
  j[Name(kMetadataId)] = m.id;
  PutOpt(j, Name(kMetadataName), m.name);
  PutOpt(j, Name(kMetadataDescription), m.description);
  Json format = Json::object();
  format[Name(kFormatProvider)] = m.format.provider;
  format[Name(kFormatOptions)] = MapJson(m.format.options);
  j[Name(kMetadataFormat)] = std::move(format);
  j[Name(kMetadataSchemaString)] = m.schema_string;
  j[Name(kMetadataPartitionColumns)] = m.partition_columns;
  PutOpt(j, Name(kMetadataCreatedTime), m.created_time);
  j[Name(kMetadataConfiguration)] = MapJson(m.configuration);
  return Json{{kMetadataAction, j}};
}

Json ToJson(const Protocol& p) {
  Json j = Json::object();
  j[Name(kProtocolMinReaderVersion)] = p.min_reader_version;
  j[Name(kProtocolMinWriterVersion)] = p.min_writer_version;
  PutOpt(j, Name(kProtocolReaderFeatures), p.reader_features);
  PutOpt(j, Name(kProtocolWriterFeatures), p.writer_features);
  return Json{{kProtocolAction, j}};
}

Json ToJson(const Txn& t) {
  Json j = Json::object();
  j[Name(kTxnAppId)] = t.app_id;
  j[Name(kTxnVersion)] = t.version;
  PutOpt(j, Name(kTxnLastUpdated), t.last_updated);
  return Json{{kTxnAction, j}};
}

Json ToJson(const CommitInfo& c) {
  auto parsed = json::Parse(c.json);
  Json j = parsed.ok() && parsed->is_object() ? std::move(parsed).value() : Json::object();
  PutOpt(j, "timestamp", c.timestamp);
  PutOpt(j, "inCommitTimestamp", c.in_commit_timestamp);
  PutOpt(j, "operation", c.operation);
  return Json{{"commitInfo", j}};
}

Json ToJson(const DomainMetadata& d) {
  Json j = Json::object();
  j[Name(kDomainDomain)] = d.domain;
  j[Name(kDomainConfiguration)] = d.configuration;
  j[Name(kDomainRemoved)] = d.removed;
  return Json{{kDomainMetadataAction, j}};
}

Json ToJson(const CheckpointMetadata& c) {
  Json j = Json::object();
  j[Name(kCheckpointMetadataVersion)] = c.version;
  if (!c.tags.empty()) j[Name(kCheckpointMetadataTags)] = MapJson(c.tags);
  return Json{{kCheckpointMetadataAction, j}};
}

Json ToJson(const Sidecar& s) {
  Json j = Json::object();
  j[Name(kSidecarPath)] = s.path;
  j[Name(kSidecarSizeInBytes)] = s.size_in_bytes;
  j[Name(kSidecarModificationTime)] = s.modification_time;
  if (!s.tags.empty()) j[Name(kSidecarTags)] = MapJson(s.tags);
  return Json{{kSidecarAction, j}};
}

Json ToJson(const AddCdcFile& c) {
  Json j = Json{{"path", c.path}, {"size", c.size}, {"dataChange", c.data_change}};
  j["partitionValues"] = PartitionJson(c.partition_values);
  if (!c.tags.empty()) j["tags"] = MapJson(c.tags);
  return Json{{"cdc", j}};
}

}  // namespace

bool Protocol::HasReaderFeature(std::string_view f) const {
  return reader_features &&
         std::find(reader_features->begin(), reader_features->end(), f) != reader_features->end();
}

bool Protocol::HasWriterFeature(std::string_view f) const {
  return writer_features &&
         std::find(writer_features->begin(), writer_features->end(), f) != writer_features->end();
}

Result<std::optional<Action>> ParseActionLine(std::string_view line) {
  size_t first = line.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::optional<Action>();
  LITHIFY_ASSIGN_OR_RETURN(Json j, json::Parse(line));
  return ParseActionObject(j);
}

Result<std::vector<Action>> ParseCommitFile(std::string_view content, std::string_view name) {
  std::vector<Action> out;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    ++line_no;
    auto r = ParseActionLine(content.substr(pos, end - pos));
    if (!r.ok()) return r.status().WithContextF("{} line {}", name, line_no);
    if (r->has_value()) out.push_back(std::move(**r));
    pos = end + 1;
  }
  return out;
}

std::string ActionToJson(const Action& action) {
  return std::visit([](const auto& a) { return json::Dump(ToJson(a)); }, action);
}

Result<std::string> DecodeActionPath(std::string_view uri_path) { return io::PercentDecode(uri_path); }

namespace {

Status OutsideRoot(std::string_view uri_path, std::string_view table_root) {
  return Status::Corruption("path '{}' is outside the table root '{}'", uri_path, table_root);
}

// The decoded form of an absolute action path (a URI or a '/' path) relative to the
// table root, or Corruption when it lies outside. A local root accepts '/' paths and
// file: URIs of this host; an object-store root accepts URIs of the same store
// (scheme aliases folded, see io::CanonicalLocation) and '/' paths within its
// authority, which Hadoop resolves against the root's file system.
Result<std::string> RelativizeAbsolute(std::string_view table_root, std::string_view uri_path) {
  std::string root = io::CanonicalLocation(table_root);
  std::string decoded;
  const bool root_is_uri = io::HasScheme(root);
  if (io::HasScheme(uri_path) && io::SchemeOf(uri_path) == "file") {
    if (root_is_uri) return OutsideRoot(uri_path, table_root);
    auto local = io::FileUriToPath(uri_path);
    if (!local.ok()) {
      // Another host's path is outside; a malformed escape stays a malformed escape.
      LITHIFY_RETURN_NOT_OK(DecodeActionPath(uri_path).status());
      return OutsideRoot(uri_path, table_root);
    }
    decoded = std::move(local).value();
  } else if (io::HasScheme(uri_path)) {
    if (!root_is_uri) return OutsideRoot(uri_path, table_root);
    LITHIFY_ASSIGN_OR_RETURN(decoded, DecodeActionPath(uri_path));
    decoded = io::CanonicalLocation(decoded);
  } else {
    LITHIFY_ASSIGN_OR_RETURN(decoded, DecodeActionPath(uri_path));
    if (root_is_uri) {
      auto parts = io::SplitUri(root);
      if (!parts.ok()) return OutsideRoot(uri_path, table_root);
      decoded = parts->scheme + "://" + parts->authority + decoded;
    }
  }
  if (decoded.size() <= root.size() + 1 || decoded.compare(0, root.size(), root) != 0 ||
      decoded[root.size()] != '/') {
    return OutsideRoot(uri_path, table_root);
  }
  return decoded.substr(root.size() + 1);
}

// The segments of a '/'-separated path without empty and "." segments. A ".." segment
// removes the one before it when `resolve_dotdot` (nothing above the first), else the
// path is refused: false.
bool PathSegments(std::string_view path, bool resolve_dotdot, std::vector<std::string_view>* out) {
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(pos, end - pos);
    if (seg == "..") {
      if (!resolve_dotdot) return false;
      if (!out->empty()) out->pop_back();
    } else if (!seg.empty() && seg != ".") {
      out->push_back(seg);
    }
    pos = end + 1;
  }
  return true;
}

// "a/b/c" of {"a", "b", "c"}.
std::string JoinSegments(const std::vector<std::string_view>& segs) {
  std::string out;
  for (std::string_view seg : segs) {
    if (!out.empty()) out.push_back('/');
    out.append(seg);
  }
  return out;
}

}  // namespace

Result<std::string> RelativizeDataPath(std::string_view table_root, std::string_view uri_path) {
  std::string rel;
  if (IsAbsoluteActionPath(uri_path)) {
    LITHIFY_ASSIGN_OR_RETURN(rel, RelativizeAbsolute(table_root, uri_path));
  } else {
    LITHIFY_ASSIGN_OR_RETURN(rel, DecodeActionPath(uri_path));
  }
  // Normalize "a/./b" and reject any ".." segment: a relative path must stay inside.
  std::vector<std::string_view> segs;
  if (!PathSegments(rel, /*resolve_dotdot=*/false, &segs)) {
    return Status::Corruption("path '{}' escapes the table root", uri_path);
  }
  const std::string norm = JoinSegments(segs);
  if (norm.empty()) return Status::Corruption("path '{}' names no file", uri_path);
  return norm;
}

bool IsAbsoluteActionPath(std::string_view uri_path) {
  return io::HasScheme(uri_path) || (!uri_path.empty() && uri_path.front() == '/');
}

// The reconciliation key of a path outside the table root (RelativizeDataPath refused it
// as outside). `/x/y`, `file:/x/y`, `file:///x/y` and `file://localhost/x/y` all become
// the decoded absolute path "/x/y", and a relative path with ".." segments is resolved
// against the root, with "." and empty segments dropped; URIs of other stores keep their
// decoded, canonical URI (io::CanonicalLocation) with the path part normalized the same
// way. In-root keys are relative (never start with '/', contain no ".." segment and no
// scheme), so the two kinds cannot collide.
std::string OutsideRootKey(std::string_view root, std::string_view uri) {
  std::string full;
  if (io::SchemeOf(uri) == "file") {
    auto local = io::FileUriToPath(uri);
    full = local.ok() ? std::move(local).value() : std::string(uri);
  } else {
    auto decoded = DecodeActionPath(uri);
    full = decoded.ok() ? std::move(decoded).value() : std::string(uri);
    if (!io::HasScheme(full) && (full.empty() || full.front() != '/')) {
      full = std::string(root) + "/" + full;
    }
  }
  // "scheme://authority" stays as it is; only the path after it is normalized.
  std::string prefix;
  if (io::HasScheme(full)) {
    full = io::CanonicalLocation(full);
    size_t authority = full.find("//");
    size_t slash = authority == std::string::npos ? full.find('/') : full.find('/', authority + 2);
    if (slash == std::string::npos) return full;
    prefix = full.substr(0, slash);
    full.erase(0, slash);
  }
  std::vector<std::string_view> segs;
  PathSegments(full, /*resolve_dotdot=*/true, &segs);
  std::string key = prefix;
  for (std::string_view seg : segs) {
    key.push_back('/');
    key.append(seg);
  }
  return key.empty() ? std::string("/") : key;
}

Result<std::string> DataFileKey(std::string_view table_root, std::string_view uri_path) {
  auto rel = RelativizeDataPath(table_root, uri_path);
  if (rel.ok() || !IsAbsoluteActionPath(uri_path)) return rel;
  if (rel.status().message().find("outside the table root") == std::string::npos) return rel;
  return OutsideRootKey(table_root, uri_path);
}

}  // namespace lithify::delta
