// Table creation and alteration planning: property validation, protocol selection and
// Delta's CREATE / ALTER validations. (The schema DDL parser is ddl_parser.cc, the schema
// JSON writer schema.cc, beside its reader.)
#include "lithify/delta/ddl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <set>

#include "lithify/base/byte_size.h"
#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/base/text.h"
#include "lithify/base/utf8.h"
#include "lithify/base/uuid.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/json_util.h"
#include "lithify/delta/stats_writer.h"
#include "lithify/delta/table_features.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

namespace {

using Kind = DataType::Kind;
using OJson = nlohmann::ordered_json;

constexpr size_t kMaxClusteringColumns = 4;  // clusteredTable.numClusteringColumnsLimit
constexpr int64_t kDefaultNumIndexedCols = 32;

bool IEquals(std::string_view a, std::string_view b) { return AsciiLower(a) == AsciiLower(b); }

// ---- schema walking ----------------------------------------------------------------

// Characters Delta refuses in column names unless column mapping is on (Parquet and
// Hive-style paths cannot carry them).
constexpr std::string_view kInvalidNameChars = " ,;{}()\n\t=";

// Duplicate (case-insensitive) and empty names at every level; with `plain_names`
// (no column mapping) also the characters Delta refuses.
Status CheckNames(const DataType& t, const std::string& where, bool plain_names) {
  if (t.kind == Kind::kStruct) {
    std::set<std::string> seen;
    for (const auto& f : t.fields) {
      if (f.name.empty()) return Status::InvalidArgument("empty column name{}", where);
      if (plain_names && f.name.find_first_of(kInvalidNameChars) != std::string::npos) {
        return Status::InvalidArgument(
            "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES: column name '{}'{} contains one of ' ,;{{}}()\\n\\t='; "
            "set delta.columnMapping.mode=name to allow it", f.name, where);
      }
      if (!seen.insert(AsciiLower(f.name)).second) {
        return Status::InvalidArgument(
            "DELTA_DUPLICATE_COLUMNS_FOUND: duplicate column name '{}'{} (column names are case-insensitive)",
            f.name, where);
      }
      LITHIFY_RETURN_NOT_OK(CheckNames(f.type, fmt::format(" in '{}'", f.name), plain_names));
    }
  } else if (t.kind == Kind::kArray && t.element) {
    return CheckNames(*t.element, where, plain_names);
  } else if (t.kind == Kind::kMap && t.key && t.value) {
    LITHIFY_RETURN_NOT_OK(CheckNames(*t.key, where, plain_names));
    return CheckNames(*t.value, where, plain_names);
  }
  return Status::OK();
}

bool HasKind(const DataType& t, Kind k) {
  if (t.kind == k) return true;
  for (const auto& f : t.fields) {
    if (HasKind(f.type, k)) return true;
  }
  if (t.element && HasKind(*t.element, k)) return true;
  if (t.key && HasKind(*t.key, k)) return true;
  return t.value && HasKind(*t.value, k);
}

// Splits "a.b" / "`a.b`.c" into parts.
Result<std::vector<std::string>> SplitColumnPath(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '`') {
      if (quoted && i + 1 < text.size() && text[i + 1] == '`') {
        parts.back() += '`';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  if (quoted) return Status::InvalidArgument("column '{}': unbalanced '`'", text);
  for (auto& p : parts) {
    if (p.empty()) return Status::InvalidArgument("column '{}': empty name part", text);
  }
  return parts;
}

std::string JoinPath(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '.';
    out += p.find('.') != std::string::npos ? "`" + p + "`" : p;
  }
  return out;
}

const StructField* FindFieldCi(const DataType& st, std::string_view name) {
  for (const auto& f : st.fields) {
    if (f.name == name) return &f;
  }
  const StructField* found = nullptr;
  for (const auto& f : st.fields) {
    if (IEquals(f.name, name)) {
      if (found != nullptr) return nullptr;
      found = &f;
    }
  }
  return found;
}

// Resolves a logical path through nested structs; the fields from the top down.
Result<std::vector<const StructField*>> ResolveFields(const StructType& schema,
                                                      const std::vector<std::string>& path) {
  std::vector<const StructField*> chain;
  const DataType* cur = &schema;
  for (const auto& part : path) {
    if (cur->kind != Kind::kStruct) {
      return Status::InvalidArgument("column '{}' does not exist: '{}' is not a struct", JoinPath(path),
                                     chain.back()->name);
    }
    const StructField* f = FindFieldCi(*cur, part);
    if (f == nullptr) {
      std::string names;
      for (const auto& g : cur->fields) names += (names.empty() ? "" : ", ") + g.name;
      return Status::InvalidArgument("column '{}' does not exist (available: {})", JoinPath(path), names);
    }
    chain.push_back(f);
    cur = &f->type;
  }
  return chain;
}

std::vector<std::string> Names(const std::vector<const StructField*>& chain) {
  std::vector<std::string> out;
  for (const auto* f : chain) out.push_back(f->name);
  return out;
}

// Leaf columns depth-first (structs expanded; arrays and maps are one leaf each), as
// Delta counts them for delta.dataSkippingNumIndexedCols.
void CollectLeaves(const DataType& t, std::vector<std::string>& prefix,
                   std::vector<std::vector<std::string>>& out) {
  for (const auto& f : t.fields) {
    prefix.push_back(AsciiLower(f.name));
    if (f.type.kind == Kind::kStruct) {
      CollectLeaves(f.type, prefix, out);
    } else {
      out.push_back(prefix);
    }
    prefix.pop_back();
  }
}

// ---- properties --------------------------------------------------------------------

// Each property's type is checked with the parser of the code that reads it (see
// ValidateTableProperty), so a value accepted here cannot break a later command.

bool StartsWithCi(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && IEquals(s.substr(0, prefix.size()), prefix);
}

std::string KnownKeys() {
  std::string out;
  for (const auto& p : KnownTableProperties()) {
    if (p.type == PropertyType::kManaged) continue;
    out += (out.empty() ? "" : ", ") + std::string(p.name);
  }
  return out + ", delta.feature.<name>";
}

bool ParseI64(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) != 0) ++i;
    size_t start = i;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) == 0) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

// `delta.feature.<name>`: the canonical name of a settable feature (table_features.h).
Result<std::string> ValidateFeatureProperty(std::string_view key, std::string_view value) {
  std::string_view name = key.substr(kFeaturePrefix.size());
  const TableFeature* feature = FindSettableFeature(name);
  if (feature == nullptr) {
    return Status::NotSupported("table feature '{}' ({}) cannot be enabled by lithify", name, key);
  }
  if (!IEquals(value, "supported") && !IEquals(value, "enabled")) {
    return Status::InvalidArgument("property '{}': expected 'supported' or 'enabled', got '{}'", key, value);
  }
  return std::string(feature->name);
}

// ---- features and protocols ----------------------------------------------------------

// The features a table with this schema, configuration and clustering needs.
std::set<std::string> RequiredFeatures(const StructType& schema, const std::map<std::string, std::string>& config,
                                       bool clustered, const std::set<std::string>& explicit_features) {
  std::set<std::string> f = explicit_features;
  if (IsExactlyTrue(config, prop::kAppendOnly)) f.insert("appendOnly");
  std::string mode = PropertyOr(config, prop::kColumnMappingMode);
  if (mode != "none") f.insert("columnMapping");
  if (IsExactlyTrue(config, prop::kEnableDeletionVectors)) f.insert("deletionVectors");
  if (IsExactlyTrue(config, prop::kEnableRowTracking)) f.insert("rowTracking");
  if (IsExactlyTrue(config, prop::kEnableInCommitTimestamps)) f.insert("inCommitTimestamp");
  if (clustered) f.insert("clustering");
  if (HasKind(schema, Kind::kTimestampNtz)) f.insert("timestampNtz");
  if (f.count("rowTracking") || f.count("clustering")) f.insert("domainMetadata");
  return f;
}

bool IsTableFeaturesProtocol(const Protocol& p) { return p.min_writer_version >= 7 || p.min_reader_version >= 3; }

// The minimal protocol supporting `features`, never below `base` (when given).
Protocol ProtocolFor(const std::set<std::string>& features, const Protocol* base) {
  std::set<std::string> all = features;
  std::set<std::string> reader;
  if (base != nullptr) {
    for (const auto& f : SupportedFeatures(*base)) all.insert(f);
    if (base->reader_features) reader.insert(base->reader_features->begin(), base->reader_features->end());
  }
  bool legacy = base == nullptr || !IsTableFeaturesProtocol(*base);
  for (const auto& f : all) {
    const TableFeature* d = FindTableFeature(f);
    if (d == nullptr || !d->has_legacy_protocol()) legacy = false;
  }
  Protocol p;
  if (legacy) {
    p.min_reader_version = base ? base->min_reader_version : 1;
    p.min_writer_version = base ? std::max(base->min_writer_version, 2) : 2;
    for (const auto& f : features) {
      const TableFeature* d = FindTableFeature(f);
      p.min_reader_version = std::max(p.min_reader_version, d->legacy_reader);
      p.min_writer_version = std::max(p.min_writer_version, d->legacy_writer);
    }
    return p;
  }
  for (const auto& f : all) {
    const TableFeature* d = FindTableFeature(f);
    if (d != nullptr && d->reader_writer()) reader.insert(f);
  }
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>(all.begin(), all.end());
  p.min_reader_version = reader.empty() ? 1 : 3;
  if (base != nullptr) p.min_reader_version = std::max(p.min_reader_version, base->min_reader_version);
  if (p.min_reader_version >= 3) p.reader_features = std::vector<std::string>(reader.begin(), reader.end());
  return p;
}

// ---- column mapping ------------------------------------------------------------------

void AssignColumnMapping(DataType& t, int64_t& next_id);

void AssignChild(std::shared_ptr<const DataType>& child, int64_t& next_id) {
  if (!child) return;
  DataType copy = *child;
  AssignColumnMapping(copy, next_id);
  child = std::make_shared<const DataType>(std::move(copy));
}

// Pre-order depth-first ids, as Delta assigns them (a struct before its fields).
void AssignColumnMapping(DataType& t, int64_t& next_id) {
  for (auto& f : t.fields) {
    f.metadata["delta.columnMapping.id"] = std::to_string(++next_id);
    f.metadata["delta.columnMapping.physicalName"] = json::QuotedString("col-" + NewUuid());
    AssignColumnMapping(f.type, next_id);
  }
  AssignChild(t.element, next_id);
  AssignChild(t.key, next_id);
  AssignChild(t.value, next_id);
}

// ---- clustering ----------------------------------------------------------------------

// Validates clustering columns against the schema and statistics settings; returns the
// logical paths in the schema's spelling.
Result<std::vector<std::vector<std::string>>> ValidateClustering(
    const StructType& schema, const std::map<std::string, std::string>& config,
    const std::vector<std::string>& columns) {
  if (columns.size() > kMaxClusteringColumns) {
    return Status::InvalidArgument(
        "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS: {} clustering columns given; at most {} are allowed",
        columns.size(), kMaxClusteringColumns);
  }
  std::vector<std::vector<std::string>> leaves;
  std::vector<std::string> prefix;
  CollectLeaves(schema, prefix, leaves);
  int64_t num_indexed = kDefaultNumIndexedCols;
  ParseI64(PropertyOr(config, prop::kDataSkippingNumIndexedCols), &num_indexed);
  std::optional<std::vector<std::vector<std::string>>> stats_columns;
  if (auto it = config.find(prop::kDataSkippingStatsColumns.key()); it != config.end()) {
    stats_columns.emplace();
    size_t start = 0;
    while (start <= it->second.size()) {
      size_t comma = std::min(it->second.find(',', start), it->second.size());
      std::string item(it->second.substr(start, comma - start));
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      if (auto parts = SplitColumnPath(item); parts.ok()) {
        std::vector<std::string> lower;
        for (const auto& p : *parts) lower.push_back(AsciiLower(p));
        stats_columns->push_back(std::move(lower));
      }
      start = comma + 1;
    }
  }
  std::vector<std::vector<std::string>> out;
  std::set<std::vector<std::string>> seen;
  for (const auto& text : columns) {
    LITHIFY_ASSIGN_OR_RETURN(auto parts, SplitColumnPath(text));
    LITHIFY_ASSIGN_OR_RETURN_CTX(auto chain, ResolveFields(schema, parts), "clustering column");
    std::vector<std::string> names = Names(chain);
    const DataType& type = chain.back()->type;
    std::string shown = JoinPath(names);
    if (type.kind == Kind::kStruct || type.kind == Kind::kArray || type.kind == Kind::kMap ||
        type.kind == Kind::kVariant || type.kind == Kind::kVoid) {
      return Status::InvalidArgument(
          "DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED: clustering column '{}' has type {}, which "
          "does not support data skipping", shown, type.ToString());
    }
    if (type.kind == Kind::kBoolean || type.kind == Kind::kBinary) {
      return Status::InvalidArgument(
          "DELTA_CLUSTERING_COLUMN_MISSING_STATS: clustering column '{}' has type {}, for which Delta "
          "collects no min/max statistics", shown, type.ToString());
    }
    std::vector<std::string> lower;
    for (const auto& n : names) lower.push_back(AsciiLower(n));
    bool has_stats;
    if (stats_columns) {
      has_stats = std::any_of(stats_columns->begin(), stats_columns->end(), [&](const auto& s) {
        return s.size() <= lower.size() && std::equal(s.begin(), s.end(), lower.begin());
      });
    } else {
      auto pos = std::find(leaves.begin(), leaves.end(), lower) - leaves.begin();
      has_stats = num_indexed < 0 || pos < num_indexed;
    }
    if (!has_stats) {
      return Status::InvalidArgument(
          "DELTA_CLUSTERING_COLUMN_MISSING_STATS: clustering column '{}' has no statistics: it is not "
          "among the first {} leaf columns (delta.dataSkippingNumIndexedCols){}",
          shown, num_indexed, stats_columns ? " nor in delta.dataSkippingStatsColumns" : "");
    }
    if (!seen.insert(lower).second) {
      return Status::InvalidArgument("clustering column '{}' is listed twice", shown);
    }
    out.push_back(std::move(names));
  }
  return out;
}

// {"clusteringColumns":[["col-a"],["s","x"]]}: physical name paths.
Result<std::string> ClusteringDomainJson(const StructType& schema, ColumnMappingMode mode,
                                         const std::vector<std::vector<std::string>>& logical) {
  OJson cols = OJson::array();
  for (const auto& path : logical) {
    LITHIFY_ASSIGN_OR_RETURN(PhysicalColumn pc, ResolvePhysicalColumn(schema, path, mode));
    cols.push_back(pc.path);
  }
  OJson j;
  j["clusteringColumns"] = std::move(cols);
  return json::Dump(j);
}

// Physical name paths of a delta.clustering configuration mapped back to logical names
// (a part that matches no field is kept as it is).
std::vector<std::vector<std::string>> LogicalClustering(const StructType& schema, ColumnMappingMode mode,
                                                        const std::string& configuration) {
  std::vector<std::vector<std::string>> out;
  if (JsonNestedDeeper(configuration)) return out;
  OJson j = OJson::parse(configuration, nullptr, false);
  if (!j.is_object() || !j.contains("clusteringColumns") || !j["clusteringColumns"].is_array()) return out;
  for (const auto& c : j["clusteringColumns"]) {
    std::vector<std::string> path;
    if (c.is_string()) path.push_back(c.get<std::string>());
    if (c.is_array()) {
      for (const auto& p : c) {
        if (p.is_string()) path.push_back(p.get<std::string>());
      }
    }
    std::vector<std::string> logical;
    const DataType* cur = &schema;
    for (const auto& part : path) {
      const StructField* match = nullptr;
      if (cur != nullptr) {
        for (const auto& f : cur->fields) {
          std::string phys = mode == ColumnMappingMode::kNone ? f.name : f.physical_name().value_or(f.name);
          if (phys == part) match = &f;
        }
      }
      logical.push_back(match ? match->name : part);
      cur = match && match->type.kind == Kind::kStruct ? &match->type : nullptr;
    }
    if (!logical.empty()) out.push_back(std::move(logical));
  }
  return out;
}

std::vector<std::string> DottedNames(const std::vector<std::vector<std::string>>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(JoinPath(p));
  return out;
}

std::string JsonArrayText(const std::vector<std::string>& v) { return json::Dump(OJson(v)); }

std::string JsonObjectText(const std::map<std::string, std::string>& m) {
  OJson j = OJson::object();
  for (const auto& [k, v] : m) j[k] = v;
  return json::Dump(j);
}

// ---- shared planning steps ------------------------------------------------------------

// Applies user properties to `config`: validated, normalized; delta.feature.* go to
// `features` instead.
Status ApplyProperties(const std::map<std::string, std::string>& props, std::map<std::string, std::string>& config,
                       std::set<std::string>& features) {
  for (const auto& [k, v] : props) {
    if (StartsWithCi(k, kFeaturePrefix)) {
      LITHIFY_ASSIGN_OR_RETURN(std::string f, ValidateFeatureProperty(k, v));
      features.insert(f);
      continue;
    }
    LITHIFY_ASSIGN_OR_RETURN(auto kv, ValidateTableProperty(k, v));
    config[kv.first] = kv.second;
  }
  return Status::OK();
}

Status CheckStatsColumns(const StructType& schema, const std::map<std::string, std::string>& config) {
  auto it = config.find(prop::kDataSkippingStatsColumns.key());
  if (it == config.end()) return Status::OK();
  size_t start = 0;
  while (start <= it->second.size()) {
    size_t comma = std::min(it->second.find(',', start), it->second.size());
    std::string item = it->second.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    LITHIFY_ASSIGN_OR_RETURN_CTX(auto parts, SplitColumnPath(item), "{}", prop::kDataSkippingStatsColumns.name);
    LITHIFY_RETURN_NOT_OK_CTX(ResolveFields(schema, parts).status(), "{}", prop::kDataSkippingStatsColumns.name);
    start = comma + 1;
  }
  return Status::OK();
}

void SetRowTrackingColumns(std::map<std::string, std::string>& config) {
  if (!IsExactlyTrue(config, prop::kEnableRowTracking)) return;
  config.try_emplace(prop::kMaterializedRowIdColumnName.key(), "_row-id-col-" + NewUuid());
  config.try_emplace(prop::kMaterializedRowCommitVersionColumnName.key(),
                     "_row-commit-version-col-" + NewUuid());
}

Result<std::vector<std::string>> ValidatePartitionColumns(const StructType& schema,
                                                          const std::vector<std::string>& columns) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& c : columns) {
    const StructField* f = FindFieldCi(schema, c);
    if (f == nullptr) {
      std::string names;
      for (const auto& g : schema.fields) names += (names.empty() ? "" : ", ") + g.name;
      return Status::InvalidArgument("partition column '{}' is not a top-level column of the schema ({})", c, names);
    }
    if (!f->type.is_primitive() || f->type.kind == Kind::kVariant || f->type.kind == Kind::kVoid) {
      return Status::InvalidArgument("partition column '{}' has type {}; partition columns must be of a primitive type",
                                     f->name, f->type.ToString());
    }
    if (!seen.insert(AsciiLower(f->name)).second) {
      return Status::InvalidArgument("partition column '{}' is listed twice", f->name);
    }
    out.push_back(f->name);
  }
  if (!out.empty() && out.size() == schema.fields.size()) {
    return Status::InvalidArgument(
        "DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION: every column is a partition column; at least one "
        "data column is needed");
  }
  return out;
}

const Metadata* FindMetadata(const std::vector<Action>& actions) {
  for (const auto& a : actions) {
    if (const auto* m = std::get_if<Metadata>(&a)) return m;
  }
  return nullptr;
}

}  // namespace

// ---- public ----------------------------------------------------------------------------

Result<std::pair<std::string, std::string>> ValidateTableProperty(std::string_view key, std::string_view value) {
  if (StartsWithCi(key, kFeaturePrefix)) {
    LITHIFY_ASSIGN_OR_RETURN(std::string f, ValidateFeatureProperty(key, value));
    return std::make_pair(std::string(kFeaturePrefix) + f, AsciiLower(value));
  }
  if (!StartsWithCi(key, "delta.")) return std::make_pair(std::string(key), std::string(value));
  // A CHECK constraint set as a property would hold from the next write on but was
  // never checked against the rows already in the table (Delta's ALTER TABLE ADD
  // CONSTRAINT scans them first). lithify does not add constraints, so it refuses.
  if (StartsWithCi(key, kConstraintPrefix)) {
    return Status::InvalidArgument(
        "DELTA_ADD_CONSTRAINTS: '{}' is a CHECK constraint, not a table property: lithify does not add CHECK "
        "constraints (use ALTER TABLE ... ADD CONSTRAINT in Delta, which validates the existing rows)",
        key);
  }
  const TableProperty* d = FindTableProperty(key);
  if (d == nullptr) {
    return Status::InvalidArgument("DELTA_UNKNOWN_CONFIGURATION: unknown Delta table property '{}' (lithify knows: {})",
                                   key, KnownKeys());
  }
  std::string k(d->name);
  std::string v(value);
  auto bad = [&](std::string_view expected) {
    return Status::InvalidArgument("property '{}': expected {}, got '{}'", k, expected, value);
  };
  switch (d->type) {
    case PropertyType::kManaged:
      return Status::InvalidArgument("property '{}' is managed by lithify and cannot be set", k);
    case PropertyType::kBool:
      if (!IEquals(v, "true") && !IEquals(v, "false")) return bad("true or false");
      v = AsciiLower(v);
      if (k == prop::kEnableChangeDataFeed.name && v == "true") {
        return Status::NotSupported("delta.enableChangeDataFeed=true: lithify does not write change data files");
      }
      break;
    case PropertyType::kInt: {
      int64_t n;
      if (!ParseI64(v, &n)) return bad("an integer");
      if (n < d->min) return bad(fmt::format("an integer >= {}", d->min));
      if (n > d->max) return bad(fmt::format("an integer <= {} (Delta reads it as a 32-bit integer)", d->max));
      if (k == prop::kDataSkippingNumIndexedCols.name) {
        // The statistics writer's own parser (it also bounds the count).
        Result<int> cols = ParseNumIndexedCols({{k, v}});
        if (!cols.ok()) return bad(fmt::format("an integer in [-1, {}]", 1 << 30));
      }
      break;
    }
    case PropertyType::kInterval: {
      // VACUUM, checkpoints and diagnose read the value with ParseIntervalMs: one it
      // refuses (months, out of range) would break them later.
      Result<int64_t> ms = ParseIntervalMs(v);
      if (!ms.ok()) {
        return Status::InvalidArgument(
            "DELTA_INVALID_INTERVAL: property '{}': {} (expected an interval such as 'interval 7 days', weeks .. "
            "microseconds, at most about 106 million days)",
            k, ms.status().message());
      }
      break;
    }
    case PropertyType::kSize: {
      // OPTIMIZE and diagnose read delta.targetFileSize with ParseByteSize.
      Result<int64_t> bytes = ParseByteSize(v);
      if (!bytes.ok() || *bytes <= 0) {
        return bad(fmt::format("a positive size in bytes, optionally with a unit (b, kb, mb, gb, tb, pb){}",
                               bytes.ok() ? "" : " -- " + bytes.status().message()));
      }
      break;
    }
    case PropertyType::kCheckpointPolicy:
      v = AsciiLower(v);
      if (v == "v2") {
        return Status::NotSupported("delta.checkpointPolicy=v2: lithify writes classic checkpoints only");
      }
      if (v != "classic") return bad("classic or v2");
      break;
    case PropertyType::kIsolation:
      if (!IEquals(v, "Serializable")) return bad("Serializable (the only isolation level Delta tables accept)");
      v = "Serializable";
      break;
    case PropertyType::kMappingMode:
      v = AsciiLower(v);
      if (v != "none" && v != "name" && v != "id") return bad("none, name or id");
      break;
    case PropertyType::kColumnList: {
      // The statistics writer's parser of delta.dataSkippingStatsColumns.
      Result<std::vector<std::vector<std::string>>> cols = ParseStatsColumns(v);
      if (Words(v).empty() || !cols.ok()) {
        return bad(fmt::format("a comma-separated list of columns{}",
                               cols.ok() ? "" : " -- " + cols.status().message()));
      }
      break;
    }
  }
  return std::make_pair(k, v);
}

std::vector<std::string> SupportedFeatures(const Protocol& p) {
  std::set<std::string> out;
  if (p.writer_features) out.insert(p.writer_features->begin(), p.writer_features->end());
  if (p.reader_features) out.insert(p.reader_features->begin(), p.reader_features->end());
  if (p.min_writer_version < 7) {
    for (const TableFeature& f : KnownTableFeatures()) {
      if (f.has_legacy_protocol() && f.legacy_writer <= p.min_writer_version) out.insert(std::string(f.name));
    }
  }
  if (p.min_reader_version == 2) out.insert("columnMapping");
  return {out.begin(), out.end()};
}

Result<std::vector<Action>> PlanCreateTable(const NewTableSpec& spec, int64_t now_ms) {
  if (spec.schema.kind != Kind::kStruct || spec.schema.fields.empty()) {
    return Status::InvalidArgument("a table needs at least one column");
  }
  std::map<std::string, std::string> config;
  std::set<std::string> explicit_features;
  LITHIFY_RETURN_NOT_OK(ApplyProperties(spec.properties, config, explicit_features));
  LITHIFY_ASSIGN_OR_RETURN(ColumnMappingMode mode, ParseColumnMappingMode(config));
  LITHIFY_RETURN_NOT_OK(CheckNames(spec.schema, "", mode == ColumnMappingMode::kNone));
  LITHIFY_RETURN_NOT_OK(CheckStatsColumns(spec.schema, config));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<std::string> partitions,
                           ValidatePartitionColumns(spec.schema, spec.partition_columns));
  LITHIFY_RETURN_NOT_OK(CheckStatsConfiguration(spec.schema, partitions, config));
  const bool clustered = !spec.clustering_columns.empty();
  if (clustered && !partitions.empty()) {
    return Status::InvalidArgument(
        "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY: a table cannot be both partitioned (by {}) and clustered",
        JsonArrayText(partitions));
  }
  if (explicit_features.count("clustering") && !clustered) {
    return Status::InvalidArgument(
        "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED: use --cluster-by to create a "
        "clustered table instead of delta.feature.clustering");
  }
  LITHIFY_ASSIGN_OR_RETURN(auto clustering, ValidateClustering(spec.schema, config, spec.clustering_columns));

  StructType schema = spec.schema;
  if (mode != ColumnMappingMode::kNone) {
    int64_t max_id = 0;
    AssignColumnMapping(schema, max_id);
    config[prop::kColumnMappingMaxColumnId.key()] = std::to_string(max_id);
  }
  SetRowTrackingColumns(config);

  std::vector<Action> actions;
  actions.push_back(ProtocolFor(RequiredFeatures(schema, config, clustered, explicit_features), nullptr));
  Metadata m;
  m.id = NewUuid();
  m.name = spec.name;
  m.description = spec.description;
  m.schema_string = SchemaToJson(schema);
  m.partition_columns = std::move(partitions);
  m.created_time = now_ms;
  m.configuration = std::move(config);
  actions.push_back(std::move(m));
  if (clustered) {
    LITHIFY_ASSIGN_OR_RETURN(std::string domain, ClusteringDomainJson(schema, mode, clustering));
    actions.push_back(DomainMetadata{"delta.clustering", std::move(domain), false});
  }
  return actions;
}

PlannedOperation CreateTableOperation(const std::vector<Action>& actions) {
  PlannedOperation op{"CREATE TABLE", nlohmann::json::object()};
  const Metadata* m = FindMetadata(actions);
  std::vector<std::string> clustering;
  for (const auto& a : actions) {
    const auto* d = std::get_if<DomainMetadata>(&a);
    if (d == nullptr || d->domain != "delta.clustering" || m == nullptr) continue;
    auto schema = ParseSchema(m->schema_string);
    auto mode = ParseColumnMappingMode(m->configuration);
    if (schema.ok() && mode.ok()) clustering = DottedNames(LogicalClustering(*schema, *mode, d->configuration));
  }
  op.parameters["isManaged"] = "false";
  op.parameters["description"] = m && m->description ? nlohmann::json(*m->description) : nlohmann::json(nullptr);
  op.parameters["partitionBy"] = JsonArrayText(m ? m->partition_columns : std::vector<std::string>{});
  op.parameters["clusterBy"] = JsonArrayText(clustering);
  op.parameters["properties"] = JsonObjectText(m ? m->configuration : std::map<std::string, std::string>{});
  return op;
}

std::vector<std::vector<std::string>> ClusteringColumnsOf(const Snapshot& snapshot) {
  auto it = snapshot.domain_metadata().find("delta.clustering");
  if (it == snapshot.domain_metadata().end()) return {};
  return LogicalClustering(snapshot.schema(), snapshot.column_mapping_mode(), it->second.configuration);
}

namespace {

// The configuration after applying the spec's sets and unsets.
Status ApplyAlterProperties(const Snapshot& snapshot, const AlterSpec& spec,
                            std::map<std::string, std::string>& config, std::set<std::string>& features) {
  const std::string old_mode = PropertyOr(config, prop::kColumnMappingMode);
  const bool old_ict = IsExactlyTrue(config, prop::kEnableInCommitTimestamps);
  const bool old_row_tracking = IsExactlyTrue(config, prop::kEnableRowTracking);
  LITHIFY_RETURN_NOT_OK(ApplyProperties(spec.set_properties, config, features));
  if (PropertyOr(config, prop::kColumnMappingMode) != old_mode) {
    return Status::NotSupported("changing delta.columnMapping.mode (from '{}' to '{}') is not supported by lithify",
                                old_mode, PropertyOr(config, prop::kColumnMappingMode));
  }
  if (IsExactlyTrue(config, prop::kEnableRowTracking) && !old_row_tracking && !snapshot.live_files().empty()) {
    return Status::NotSupported(
        "enabling row tracking on a table that has files needs a row-id backfill, which lithify does not "
        "implement");
  }
  for (const auto& raw : spec.unset_properties) {
    std::string key = raw;
    if (const TableProperty* p = FindTableProperty(raw)) key = std::string(p->name);
    if (StartsWithCi(raw, kFeaturePrefix)) {
      return Status::NotSupported("'{}': dropping table features is not supported by lithify", raw);
    }
    const TableProperty* d = FindTableProperty(key);
    if (d != nullptr && (d->type == PropertyType::kManaged || d->type == PropertyType::kMappingMode)) {
      return Status::NotSupported("property '{}' cannot be unset: lithify does not change it on existing tables", key);
    }
    if (config.erase(key) == 0 && !spec.unset_if_exists) {
      return Status::InvalidArgument(
          "DELTA_UNSET_NON_EXISTENT_PROPERTY: cannot unset '{}': the table has no such property", key);
    }
  }
  const bool new_ict = IsExactlyTrue(config, prop::kEnableInCommitTimestamps);
  if (new_ict && !old_ict) {
    config[prop::kInCommitTimestampEnablementVersion.key()] = std::to_string(snapshot.version() + 1);
    config[prop::kInCommitTimestampEnablementTimestamp.key()] = std::to_string(spec.now_ms);
  } else if (!new_ict && old_ict) {
    config.erase(prop::kInCommitTimestampEnablementVersion.key());
    config.erase(prop::kInCommitTimestampEnablementTimestamp.key());
  }
  SetRowTrackingColumns(config);
  return Status::OK();
}

}  // namespace

Result<std::vector<Action>> PlanAlterTable(const Snapshot& snapshot, const AlterSpec& spec) {
  if (spec.empty()) return Status::InvalidArgument("ALTER TABLE: nothing to change");
  std::map<std::string, std::string> config = snapshot.properties();
  std::set<std::string> explicit_features;
  LITHIFY_RETURN_NOT_OK(ApplyAlterProperties(snapshot, spec, config, explicit_features));
  LITHIFY_RETURN_NOT_OK(CheckStatsColumns(snapshot.schema(), config));
  LITHIFY_RETURN_NOT_OK(CheckStatsConfiguration(snapshot.schema(), snapshot.partition_columns(), config));

  const bool was_clustered = snapshot.protocol().HasWriterFeature("clustering") ||
                             snapshot.domain_metadata().count("delta.clustering") > 0;
  std::optional<DomainMetadata> domain;
  bool clustered = was_clustered;
  if (spec.clustering_columns) {
    if (!snapshot.partition_columns().empty()) {
      return Status::InvalidArgument(
          "DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED: the table is partitioned by {}; "
          "a partitioned table cannot be clustered", JsonArrayText(snapshot.partition_columns()));
    }
    if (spec.clustering_columns->empty() && !was_clustered) {
      return Status::InvalidArgument("CLUSTER BY NONE: the table is not clustered");
    }
    LITHIFY_ASSIGN_OR_RETURN(auto logical, ValidateClustering(snapshot.schema(), config, *spec.clustering_columns));
    LITHIFY_ASSIGN_OR_RETURN(std::string json, ClusteringDomainJson(snapshot.schema(), snapshot.column_mapping_mode(),
                                                                    logical));
    domain = DomainMetadata{"delta.clustering", std::move(json), false};
    clustered = clustered || !logical.empty();
  }
  if (explicit_features.count("clustering") && !clustered) {
    return Status::InvalidArgument(
        "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED: use --cluster-by to cluster a table "
        "instead of delta.feature.clustering");
  }

  std::vector<Action> actions;
  const Protocol& old = snapshot.protocol();
  std::set<std::string> needed = RequiredFeatures(snapshot.schema(), config, clustered, explicit_features);
  std::vector<std::string> have = SupportedFeatures(old);
  if (!std::includes(have.begin(), have.end(), needed.begin(), needed.end())) {
    actions.push_back(ProtocolFor(needed, &old));
  }
  if (!spec.set_properties.empty() || !spec.unset_properties.empty()) {
    Metadata m = snapshot.metadata();
    m.configuration = std::move(config);
    actions.push_back(std::move(m));
  }
  if (domain) actions.push_back(std::move(*domain));
  return actions;
}

Result<PlannedOperation> AlterTableOperation(const Snapshot& snapshot, const AlterSpec& spec) {
  const int kinds = (spec.set_properties.empty() ? 0 : 1) + (spec.unset_properties.empty() ? 0 : 1) +
                    (spec.clustering_columns ? 1 : 0);
  if (kinds != 1) {
    return Status::InvalidArgument("ALTER TABLE operation: exactly one of set, unset or cluster-by is expected");
  }
  PlannedOperation op{"", nlohmann::json::object()};
  if (!spec.set_properties.empty()) {
    std::map<std::string, std::string> props;
    for (const auto& [k, v] : spec.set_properties) {
      auto kv = ValidateTableProperty(k, v);
      if (kv.ok()) props[kv->first] = kv->second; else props[k] = v;
    }
    op.name = "SET TBLPROPERTIES";
    op.parameters["properties"] = JsonObjectText(props);
  } else if (!spec.unset_properties.empty()) {
    std::vector<std::string> keys;
    for (const auto& k : spec.unset_properties) {
      const TableProperty* d = FindTableProperty(k);
      keys.push_back(d ? std::string(d->name) : k);
    }
    op.name = "UNSET TBLPROPERTIES";
    op.parameters["properties"] = JsonArrayText(keys);
    op.parameters["ifExists"] = spec.unset_if_exists ? "true" : "false";
  } else {
    std::vector<std::string> next = *spec.clustering_columns;
    auto logical = ValidateClustering(snapshot.schema(), snapshot.properties(), *spec.clustering_columns);
    if (logical.ok()) next = DottedNames(*logical);
    op.name = "CLUSTER BY";
    op.parameters["oldClusteringColumns"] = JsonArrayText(DottedNames(ClusteringColumnsOf(snapshot)));
    op.parameters["newClusteringColumns"] = JsonArrayText(next);
  }
  return op;
}

}  // namespace lithify::delta
