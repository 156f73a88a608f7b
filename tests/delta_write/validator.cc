// Delta log validator (see validator.h).
#include "tests/delta_write/validator.h"

#include <nlohmann/json.hpp>

#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <variant>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/snapshot.h"
#include "lithify/parquet/file_reader.h"

namespace lithify::delta_write {

namespace {

using delta::Action;
using delta::AddFile;
using nlohmann::json;
using parquet::PhysicalType;

// ---- rules' shared state -------------------------------------------------------------

class Checker {
 public:
  Checker(io::FileSystem* fs, std::string root)
      : fs_(fs), root_(std::move(root)), log_dir_(io::JoinPath(root_, "_delta_log")) {}

  Result<std::vector<Violation>> Run();

 private:
  template <typename... Args>
  void Violate(const char* rule, fmt::format_string<Args...> f, Args&&... a) {
    out_.push_back(Violation{rule, fmt::format(f, std::forward<Args>(a)...)});
  }

  Status CheckContiguity();
  Status CheckCommits();
  void CheckCommitLines(int64_t v, std::string_view text, std::vector<Action>* actions,
                        std::vector<std::string>* keys);
  void CheckFeatures(int64_t v, const std::vector<Action>& actions, const std::vector<std::string>& keys);
  void CheckPath(int64_t v, const char* kind, const std::string& path);
  void CheckPartitionValues(int64_t v, const AddFile& a);
  Status CheckFiles();
  void CheckDataFile(const std::string& rel, const std::optional<std::string>& stats,
                     const std::optional<delta::DeletionVectorDescriptor>& dv, bool live);
  Status CheckCheckpoints();

  io::FileSystem* fs_;
  std::string root_;
  std::string log_dir_;
  std::vector<Violation> out_;
  std::vector<delta::LogFile> files_;
  std::vector<delta::LogFile> commits_;
  // State while walking the commits.
  std::optional<delta::Protocol> protocol_;
  std::optional<delta::Metadata> metadata_;
  std::vector<std::string> physical_partition_columns_;
  std::optional<int64_t> last_ict_;
  std::map<std::string, int64_t> txn_ids_;
  // Commit adds whose data file may still be checked: (relative path, stats, dv).
  struct AddRef {
    std::string path;
    std::optional<std::string> stats;
    std::optional<delta::DeletionVectorDescriptor> dv;
  };
  std::vector<AddRef> commit_adds_;
};

std::string Name(const delta::LogFile& f) {
  size_t slash = f.path.rfind('/');
  return "_delta_log/" + f.path.substr(slash == std::string::npos ? 0 : slash + 1);
}

Status Checker::CheckContiguity() {
  std::optional<int64_t> first_checkpoint;
  for (const auto& f : files_) {
    if (f.name.type == delta::LogFileType::kCommit) commits_.push_back(f);
    if (f.name.is_checkpoint() && !first_checkpoint) first_checkpoint = f.name.version;
  }
  if (commits_.empty()) return Status::OK();
  int64_t expect = commits_.front().name.version;
  if (expect != 0) {
    if (!first_checkpoint || *first_checkpoint + 1 < expect) {
      Violate("contiguous-versions", "the log starts at version {} without a checkpoint to start from", expect);
    }
  }
  for (const auto& c : commits_) {
    if (c.name.version != expect) {
      Violate("contiguous-versions", "versions {}..{} are missing (next commit is {})", expect,
              c.name.version - 1, c.name.version);
    }
    expect = c.name.version + 1;
  }
  return Status::OK();
}

bool IsKnownAction(const std::string& key) {
  static const std::set<std::string> kKnown = {"add", "remove", "metaData", "protocol", "txn", "commitInfo",
                                               "domainMetadata", "cdc", "checkpointMetadata", "sidecar"};
  return kKnown.count(key) > 0;
}

void Checker::CheckCommitLines(int64_t v, std::string_view text, std::vector<Action>* actions,
                               std::vector<std::string>* keys) {
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      Violate("one-action-per-line", "version {} line {}: not a JSON object: '{}'", v, line_no,
              line.substr(0, 80));
      continue;
    }
    if (j.size() != 1) {
      Violate("one-action-per-line", "version {} line {}: {} keys in one action line", v, line_no, j.size());
      continue;
    }
    const std::string key = j.begin().key();
    if (!IsKnownAction(key)) {
      Violate("one-action-per-line", "version {} line {}: unknown action '{}'", v, line_no, key);
      continue;
    }
    auto parsed = delta::ParseActionLine(line);
    if (!parsed.ok() || !parsed->has_value()) {
      Violate("one-action-per-line", "version {} line {}: malformed '{}' action: {}", v, line_no, key,
              parsed.ok() ? "not recognized" : parsed.status().message());
      continue;
    }
    actions->push_back(std::move(**parsed));
    keys->push_back(key);
  }
}

// Whether `p` supports feature `f`: listed in the feature lists at writer 7 / reader 3,
// else implied by the legacy versions (only columnMapping has legacy versions among the
// features checked here).
bool Supports(const delta::Protocol& p, std::string_view f, bool reader_writer) {
  bool writer = p.min_writer_version >= 7 ? p.HasWriterFeature(f)
                                          : (f == "columnMapping" && p.min_writer_version >= 5);
  if (!writer || !reader_writer) return writer;
  return p.min_reader_version >= 3 ? p.HasReaderFeature(f)
                                   : (f == "columnMapping" && p.min_reader_version >= 2);
}

void Checker::CheckFeatures(int64_t v, const std::vector<Action>& actions, const std::vector<std::string>& keys) {
  if (!protocol_ || !metadata_) return;  // reported by the replay (no protocol/metaData)
  const delta::Protocol& p = *protocol_;
  auto need = [&](const char* feature, bool rw, const std::string& why) {
    if (!Supports(p, feature, rw)) {
      Violate("protocol-features", "version {}: {} but the protocol ({},{}) does not support '{}'", v, why,
              p.min_reader_version, p.min_writer_version, feature);
    }
  };
  bool dv = false, row_ids = false, domains = false, clustering = false;
  for (const Action& a : actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      dv = dv || add->deletion_vector.has_value();
      row_ids = row_ids || add->base_row_id || add->default_row_commit_version;
      clustering = clustering || add->clustering_provider.has_value();
    }
    domains = domains || std::holds_alternative<delta::DomainMetadata>(a);
  }
  if (dv) need("deletionVectors", true, "an add has a deletion vector");
  if (row_ids) need("rowTracking", false, "an add has baseRowId/defaultRowCommitVersion");
  if (domains) need("domainMetadata", false, "it has domainMetadata actions");
  if (clustering) need("clustering", false, "an add has clusteringProvider");
  const auto& conf = metadata_->configuration;
  auto mode = conf.find("delta.columnMapping.mode");
  if (mode != conf.end() && mode->second != "none") {
    need("columnMapping", true, fmt::format("delta.columnMapping.mode is '{}'", mode->second));
  }
  auto ict = conf.find("delta.enableInCommitTimestamps");
  if (ict == conf.end() || ict->second != "true") {
    last_ict_.reset();
    return;
  }
  need("inCommitTimestamp", false, "delta.enableInCommitTimestamps is true");
  const delta::CommitInfo* ci = actions.empty() ? nullptr : std::get_if<delta::CommitInfo>(&actions[0]);
  if (ci == nullptr || keys.empty() || keys[0] != "commitInfo" || !ci->in_commit_timestamp) {
    Violate("in-commit-timestamp", "version {}: in-commit timestamps are enabled but the first action is not a commitInfo with inCommitTimestamp", v);
    return;
  }
  if (last_ict_ && *ci->in_commit_timestamp <= *last_ict_) {
    Violate("in-commit-timestamp", "version {}: inCommitTimestamp {} does not increase (previous {})", v,
            *ci->in_commit_timestamp, *last_ict_);
  }
  last_ict_ = ci->in_commit_timestamp;
}

void Checker::CheckPath(int64_t v, const char* kind, const std::string& path) {
  auto decoded = delta::DecodeActionPath(path);
  if (!decoded.ok()) {
    Violate("relative-paths", "version {}: {} path '{}' has a malformed escape", v, kind, path);
    return;
  }
  size_t colon = path.find(':'), slash = path.find('/');
  bool scheme = colon != std::string::npos && (slash == std::string::npos || colon < slash);
  if (path.empty() || path[0] == '/' || scheme) {
    Violate("relative-paths", "version {}: {} path '{}' is not relative", v, kind, path);
    return;
  }
  size_t pos = 0;
  const std::string& d = *decoded;
  while (pos <= d.size()) {
    size_t end = d.find('/', pos);
    if (end == std::string::npos) end = d.size();
    std::string_view seg(d.data() + pos, end - pos);
    if (seg == ".." || seg.empty()) {
      Violate("relative-paths", "version {}: {} path '{}' has an empty or '..' segment", v, kind, path);
      return;
    }
    pos = end + 1;
  }
}

// Physical names of the partition columns (column mapping aware).
std::vector<std::string> PhysicalPartitionColumns(const delta::Metadata& m, const delta::Protocol& p) {
  std::vector<std::string> out;
  auto schema = delta::ParseSchema(m.schema_string);
  delta::ColumnMappingMode mode = delta::ColumnMappingMode::kNone;
  if (Supports(p, "columnMapping", true)) {
    auto parsed = delta::ParseColumnMappingMode(m.configuration);
    if (parsed.ok()) mode = *parsed;
  }
  for (const auto& c : m.partition_columns) {
    if (schema.ok()) {
      auto phys = delta::ResolvePhysicalColumn(*schema, {c}, mode);
      if (phys.ok() && phys->path.size() == 1) {
        out.push_back(phys->path[0]);
        continue;
      }
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Checker::CheckPartitionValues(int64_t v, const AddFile& a) {
  std::vector<std::string> keys;
  for (const auto& [k, val] : a.partition_values) keys.push_back(k);
  if (keys != physical_partition_columns_) {
    Violate("partition-values", "version {}: add '{}' has partitionValues keys [{}], the partition columns are [{}]",
            v, a.path, fmt::join(keys, ","), fmt::join(physical_partition_columns_, ","));
  }
}

Status Checker::CheckCommits() {
  // A log starting after 0 starts from the state of the checkpoint before it.
  if (!commits_.empty() && commits_.front().name.version > 0) {
    auto base = delta::Snapshot::Load(fs_, root_, delta::VersionSpec::AtVersion(commits_.front().name.version - 1),
                                      delta::LoadOptions{delta::StatsMode::kNone});
    if (base.ok()) {
      protocol_ = (*base)->protocol();
      metadata_ = (*base)->metadata();
      physical_partition_columns_ = PhysicalPartitionColumns(*metadata_, *protocol_);
    }
  }
  for (const auto& c : commits_) {
    const int64_t v = c.name.version;
    LITHIFY_ASSIGN_OR_RETURN(Buffer data, fs_->ReadFile(c.path));
    std::vector<Action> actions;
    std::vector<std::string> keys;
    CheckCommitLines(v, AsStringView(data.view()), &actions, &keys);
    int commit_infos = 0;
    for (const Action& a : actions) {
      if (const auto* p = std::get_if<delta::Protocol>(&a)) protocol_ = *p;
      if (const auto* m = std::get_if<delta::Metadata>(&a)) metadata_ = *m;
      if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) {
        ++commit_infos;
        json j = json::parse(ci->json, nullptr, false);
        const json* id = j.is_object() && j.contains("txnId") ? &j["txnId"] : nullptr;
        // Every lithify commit carries a txnId; older engines (Spark before 3.x, delta-rs)
        // may omit it, which is legal.
        const bool ours = j.is_object() && j.contains("engineInfo") && j["engineInfo"].is_string() &&
                          j["engineInfo"].get<std::string>().rfind("lithify/", 0) == 0;
        if (id == nullptr || !id->is_string()) {
          if (ours) Violate("unique-txn-id", "version {}: commitInfo has no txnId", v);
        } else if (auto [it, fresh] = txn_ids_.emplace(id->get<std::string>(), v); !fresh) {
          Violate("unique-txn-id", "version {}: txnId '{}' was already used by version {}", v, it->first, it->second);
        }
      }
    }
    if (commit_infos != 1) Violate("one-commit-info", "version {} ({}) has {} commitInfo actions", v, Name(c), commit_infos);
    if (protocol_ && metadata_) physical_partition_columns_ = PhysicalPartitionColumns(*metadata_, *protocol_);
    CheckFeatures(v, actions, keys);
    for (const Action& a : actions) {
      if (const auto* add = std::get_if<AddFile>(&a)) {
        CheckPath(v, "add", add->path);
        if (metadata_) CheckPartitionValues(v, *add);
        auto rel = delta::RelativizeDataPath(root_, add->path);
        if (rel.ok()) commit_adds_.push_back(AddRef{*rel, add->stats, add->deletion_vector});
      } else if (const auto* rm = std::get_if<delta::RemoveFile>(&a)) {
        CheckPath(v, "remove", rm->path);
      }
    }
  }
  return Status::OK();
}

// ---- statistics against the data ----------------------------------------------------

enum class Domain { kNone, kInt, kDouble, kDecimal, kString, kBool, kDate, kTimestamp };

struct LeafType {
  Domain domain = Domain::kNone;
  int32_t scale = 0;
  parquet::TimeUnit unit = parquet::TimeUnit::kMicros;
  bool int96 = false;
  bool is_unsigned = false;
  bool is_float = false;  // FLOAT: bounds are compared after rounding to float
};

LeafType TypeOf(const parquet::ColumnDescriptor& d) {
  using LK = parquet::LogicalType::Kind;
  using CT = parquet::ConvertedType;
  const parquet::SchemaElement& e = *d.element;
  const LK lk = e.logical_type.kind;
  const std::optional<CT> ct = e.converted_type;
  LeafType t;
  const bool decimal = lk == LK::kDecimal || ct == CT::kDecimal;
  if (decimal) {
    t.domain = Domain::kDecimal;
    t.scale = lk == LK::kDecimal ? e.logical_type.scale : e.scale.value_or(0);
    return t;
  }
  switch (d.physical_type) {
    case PhysicalType::kBoolean: t.domain = Domain::kBool; break;
    case PhysicalType::kInt32:
      if (lk == LK::kDate || ct == CT::kDate) t.domain = Domain::kDate;
      else if (lk == LK::kTime || ct == CT::kTimeMillis) t.domain = Domain::kNone;
      else {
        t.domain = Domain::kInt;
        t.is_unsigned = (lk == LK::kInteger && !e.logical_type.is_signed) || ct == CT::kUint32;
      }
      break;
    case PhysicalType::kInt64:
      if (lk == LK::kTimestamp) {
        t.domain = Domain::kTimestamp;
        t.unit = e.logical_type.unit;
      } else if (ct == CT::kTimestampMillis || ct == CT::kTimestampMicros) {
        t.domain = Domain::kTimestamp;
        t.unit = ct == CT::kTimestampMillis ? parquet::TimeUnit::kMillis : parquet::TimeUnit::kMicros;
      } else if (lk == LK::kTime || ct == CT::kTimeMicros) {
        t.domain = Domain::kNone;
      } else if ((lk == LK::kInteger && !e.logical_type.is_signed) || ct == CT::kUint64) {
        t.domain = Domain::kNone;  // uint64 does not fit the comparisons below
      } else {
        t.domain = Domain::kInt;
      }
      break;
    case PhysicalType::kInt96: t.domain = Domain::kTimestamp; t.int96 = true; break;
    case PhysicalType::kFloat: t.domain = Domain::kDouble; t.is_float = true; break;
    case PhysicalType::kDouble: t.domain = Domain::kDouble; break;
    case PhysicalType::kByteArray:
      if (lk == LK::kString || lk == LK::kEnum || lk == LK::kJson || ct == CT::kUtf8 || ct == CT::kEnum ||
          ct == CT::kJson) {
        t.domain = Domain::kString;
      }
      break;
    default: break;
  }
  return t;
}

// The actual min/max/null count of one column of one file.
struct Actual {
  int64_t nulls = 0;
  bool any = false;  // a non-null, non-NaN value was seen
  int64_t imin = 0, imax = 0;
  long double dmin = 0, dmax = 0;
  std::string smin, smax;
};

__int128 DecimalFromBytes(std::string_view b) {
  __int128 v = (!b.empty() && (static_cast<unsigned char>(b[0]) & 0x80)) ? -1 : 0;
  for (unsigned char c : b) v = (v << 8) | c;
  return v;
}

int64_t TimestampMicros(const LeafType& t, const parquet::ColumnValues& vals, int64_t i) {
  if (t.int96) {
    const uint8_t* p = vals.fixed_at(i);
    int64_t nanos;
    int32_t julian;
    std::memcpy(&nanos, p, 8);
    std::memcpy(&julian, p + 8, 4);
    return (static_cast<int64_t>(julian) - 2440588) * 86400000000LL + FloorDiv(nanos, 1000);
  }
  int64_t v = vals.value<int64_t>(i);
  switch (t.unit) {
    case parquet::TimeUnit::kMillis: return v * 1000;
    case parquet::TimeUnit::kNanos: return FloorDiv(v, 1000);
    default: return v;
  }
}

void Accumulate(const LeafType& t, const parquet::ColumnValues& vals, Actual* a) {
  for (int64_t i = 0; i < vals.count; ++i) {
    switch (t.domain) {
      case Domain::kInt:
      case Domain::kDate:
      case Domain::kBool:
      case Domain::kTimestamp: {
        int64_t x;
        if (t.domain == Domain::kTimestamp) x = TimestampMicros(t, vals, i);
        else if (t.domain == Domain::kBool) x = vals.fixed_at(i)[0] != 0;
        else if (vals.type == PhysicalType::kInt32) x = t.is_unsigned ? static_cast<int64_t>(vals.value<uint32_t>(i)) : vals.value<int32_t>(i);
        else x = vals.value<int64_t>(i);
        if (!a->any || x < a->imin) a->imin = x;
        if (!a->any || x > a->imax) a->imax = x;
        a->any = true;
        break;
      }
      case Domain::kDouble:
      case Domain::kDecimal: {
        long double x;
        if (t.domain == Domain::kDouble) {
          x = vals.type == PhysicalType::kFloat ? vals.value<float>(i) : vals.value<double>(i);
          if (std::isnan(x)) continue;
        } else {
          __int128 u;
          if (vals.type == PhysicalType::kInt32) u = vals.value<int32_t>(i);
          else if (vals.type == PhysicalType::kInt64) u = vals.value<int64_t>(i);
          else if (vals.type == PhysicalType::kByteArray) u = DecimalFromBytes(vals.binary(i));
          else u = DecimalFromBytes({reinterpret_cast<const char*>(vals.fixed_at(i)), vals.width()});
          x = static_cast<long double>(u) / std::pow(10.0L, t.scale);
        }
        if (!a->any || x < a->dmin) a->dmin = x;
        if (!a->any || x > a->dmax) a->dmax = x;
        a->any = true;
        break;
      }
      case Domain::kString: {
        std::string_view s = vals.binary(i);
        if (!a->any || s < a->smin) a->smin = std::string(s);
        if (!a->any || s > a->smax) a->smax = std::string(s);
        a->any = true;
        break;
      }
      case Domain::kNone: return;
    }
  }
}

// "YYYY-MM-DD" -> days.
std::optional<int64_t> ParseDate(std::string_view s) {
  int y, m, d;
  char tail;
  std::string str(s);
  if (std::sscanf(str.c_str(), "%d-%d-%d%c", &y, &m, &d, &tail) != 3) return std::nullopt;
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

// "YYYY-MM-DDTHH:MM:SS[.fff...][Z|+HH:MM]" -> microseconds (the offset applied).
std::optional<int64_t> ParseTimestamp(std::string_view s) {
  if (s.size() < 19) return std::nullopt;
  auto days = ParseDate(s.substr(0, 10));
  int hh, mm, ss;
  std::string t(s.substr(11, 8));
  if (!days || (s[10] != 'T' && s[10] != ' ') || std::sscanf(t.c_str(), "%d:%d:%d", &hh, &mm, &ss) != 3) return std::nullopt;
  int64_t micros = (*days * 86400 + hh * 3600 + mm * 60 + ss) * 1000000LL;
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    int64_t frac = 0, scale = 100000;
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, scale /= 10) {
      if (scale > 0) frac += (s[i] - '0') * scale;
    }
    micros += frac;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-') && i + 6 <= s.size()) {
    int oh = 0, om = 0;
    std::string off(s.substr(i + 1, 5));
    if (std::sscanf(off.c_str(), "%d:%d", &oh, &om) != 2) return std::nullopt;
    int64_t off_us = (oh * 3600 + om * 60) * 1000000LL;
    micros += s[i] == '+' ? -off_us : off_us;
    i += 6;
  } else if (i < s.size() && s[i] == 'Z') {
    ++i;
  }
  if (i != s.size()) return std::nullopt;
  return micros;
}

// Delta truncates long string maxima to a prefix followed by a tie-breaker character.
bool MaxStringHolds(const std::string& stat, const std::string& actual) {
  if (stat >= actual) return true;
  for (std::string_view tie : {std::string_view("\xEF\xBF\xBF"), std::string_view("\xF4\x8F\xBF\xBF")}) {
    if (stat.size() >= tie.size() && stat.compare(stat.size() - tie.size(), tie.size(), tie) == 0) {
      std::string prefix = stat.substr(0, stat.size() - tie.size());
      if (actual.compare(0, prefix.size(), prefix) == 0) return true;
    }
  }
  return false;
}

// Checks one bound; returns a description of the failure or "".
std::string CheckBound(const LeafType& t, const Actual& a, const json& stat, bool is_min) {
  if (stat.is_null() || t.domain == Domain::kNone) return "";
  if (!a.any) return t.domain == Domain::kDouble ? "" : "the column has no non-null value";
  auto fail = [&](const std::string& actual) {
    return fmt::format("{} {} but the data's {} is {}", is_min ? "minValues" : "maxValues", stat.dump(),
                       is_min ? "minimum" : "maximum", actual);
  };
  switch (t.domain) {
    case Domain::kInt:
    case Domain::kBool: {
      if (t.domain == Domain::kBool ? !stat.is_boolean() : !stat.is_number()) return "mistyped bound " + stat.dump();
      long double s = stat.is_boolean() ? (stat.get<bool>() ? 1 : 0) : stat.get<long double>();
      if (is_min ? s > a.imin : s < a.imax) return fail(std::to_string(is_min ? a.imin : a.imax));
      return "";
    }
    case Domain::kDouble:
    case Domain::kDecimal: {
      if (!stat.is_number()) return "mistyped bound " + stat.dump();
      long double s = stat.get<long double>();
      if (t.is_float) s = static_cast<float>(s);
      long double x = is_min ? a.dmin : a.dmax;
      long double tol = 1e-9L * std::max(1.0L, std::fabs(x));
      if (is_min ? s > x + tol : s < x - tol) return fail(fmt::format("{}", static_cast<double>(x)));
      return "";
    }
    case Domain::kDate: {
      auto d = stat.is_string() ? ParseDate(stat.get<std::string>()) : std::nullopt;
      if (!d) return "mistyped bound " + stat.dump();
      if (is_min ? *d > a.imin : *d < a.imax) return fail(IsoDateText(is_min ? a.imin : a.imax));
      return "";
    }
    case Domain::kTimestamp: {
      auto us = stat.is_string() ? ParseTimestamp(stat.get<std::string>()) : std::nullopt;
      if (!us) return "mistyped bound " + stat.dump();
      // Stats are truncated to milliseconds: the max may be up to 999us below the data.
      if (is_min ? *us > a.imin : *us + 999 < a.imax) return fail(IsoTimestampMicrosText(is_min ? a.imin : a.imax, true));
      return "";
    }
    case Domain::kString: {
      if (!stat.is_string()) return "mistyped bound " + stat.dump();
      const std::string s = stat.get<std::string>();
      bool ok = is_min ? s <= a.smin : MaxStringHolds(s, a.smax);
      return ok ? "" : fail(json(is_min ? a.smin : a.smax).dump(-1, ' ', false, json::error_handler_t::replace));
    }
    case Domain::kNone: break;
  }
  return "";
}

// Flattens a stats object (nested by struct) into leaf paths.
void Flatten(const json& j, std::vector<std::string>* prefix, std::map<std::vector<std::string>, json>* out) {
  if (!j.is_object()) {
    (*out)[*prefix] = j;
    return;
  }
  for (const auto& [k, v] : j.items()) {
    prefix->push_back(k);
    Flatten(v, prefix, out);
    prefix->pop_back();
  }
}

struct ColumnCheck {
  std::vector<std::string> path;
  int node = -1;  // -1: the column is not in the file
  int leaf = -1;  // the leaf read (first under node)
  bool bounds = false;  // a flat primitive leaf: min/max are checked
  LeafType type;
  Actual actual;
  std::optional<json> min, max, null_count;
};

Result<int> FindByPath(const parquet::Schema& s, const std::vector<std::string>& path) {
  int node = 0;
  for (const auto& name : path) {
    int next = -1;
    for (int c : s.node(node).children) {
      if (s.node(c).name == name) next = c;
    }
    if (next < 0) return -1;
    node = next;
  }
  return node;
}

// Reads the stats columns of one data file and checks the bounds and null counts.
void CheckStatsAgainstData(parquet::FileReader* reader, const json& stats, const std::string& rel,
                           std::vector<Violation>* out) {
  std::map<std::vector<std::string>, ColumnCheck> cols;
  auto collect = [&](const char* key, std::optional<json> ColumnCheck::*field) {
    if (!stats.contains(key) || !stats[key].is_object()) return;
    std::map<std::vector<std::string>, json> flat;
    std::vector<std::string> prefix;
    Flatten(stats[key], &prefix, &flat);
    for (auto& [path, v] : flat) {
      ColumnCheck& c = cols[path];
      c.path = path;
      c.*field = v;
    }
  };
  collect("minValues", &ColumnCheck::min);
  collect("maxValues", &ColumnCheck::max);
  collect("nullCount", &ColumnCheck::null_count);
  const parquet::Schema& schema = reader->schema();
  std::vector<int> leaves;
  for (auto& [path, c] : cols) {
    auto node = FindByPath(schema, path);
    c.node = node.ok() ? *node : -1;
    if (c.node <= 0) continue;
    auto under = schema.LeavesUnder(c.node);
    if (under.empty()) {
      c.node = -1;
      continue;
    }
    c.leaf = under[0];
    const auto& n = schema.node(c.node);
    c.bounds = n.is_leaf() && n.max_rep == 0;
    if (c.bounds) c.type = TypeOf(schema.leaf(c.leaf));
    if (std::find(leaves.begin(), leaves.end(), c.leaf) == leaves.end()) leaves.push_back(c.leaf);
  }
  const int64_t rows = reader->metadata().num_rows;
  if (!leaves.empty()) {
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      auto stream = reader->OpenRowGroup(rg, leaves);
      if (!stream.ok()) {
        out->push_back({"num-records", fmt::format("data file '{}': {}", rel, stream.status().message())});
        return;
      }
      parquet::RowBatch batch;
      while (true) {
        auto more = (*stream)->Next(&batch);
        if (!more.ok()) {
          out->push_back({"num-records", fmt::format("data file '{}': {}", rel, more.status().message())});
          return;
        }
        if (!*more) break;
        for (auto& [path, c] : cols) {
          if (c.node <= 0) continue;
          size_t idx = std::find(leaves.begin(), leaves.end(), c.leaf) - leaves.begin();
          const parquet::ColumnData& col = batch.columns[idx];
          const int16_t node_def = schema.node(c.node).max_def;
          for (int64_t l = 0; l < col.num_levels; ++l) {
            bool row_start = col.rep_levels.empty() || col.rep_levels[l] == 0;
            int16_t d = col.def_levels.empty() ? schema.leaf(c.leaf).max_def : col.def_levels[l];
            if (row_start && d < node_def) ++c.actual.nulls;
          }
          if (c.bounds) Accumulate(c.type, col.values, &c.actual);
        }
      }
    }
  }
  for (auto& [path, c] : cols) {
    const std::string col = fmt::format("{}", fmt::join(path, "."));
    if (c.node <= 0) {
      // Not in the file: every row reads as null.
      c.actual.nulls = rows;
    }
    if (c.null_count && c.null_count->is_number_integer() && c.null_count->get<int64_t>() != c.actual.nulls) {
      out->push_back({"null-count", fmt::format("data file '{}': column '{}': nullCount {} but the data has {} nulls",
                                                rel, col, c.null_count->dump(), c.actual.nulls)});
    }
    for (bool is_min : {true, false}) {
      const std::optional<json>& b = is_min ? c.min : c.max;
      if (!b || b->is_null()) continue;
      if (c.node <= 0) {
        out->push_back({"stats-bounds", fmt::format("data file '{}': column '{}' has a bound {} but is not in the file",
                                                    rel, col, b->dump())});
        continue;
      }
      if (!c.bounds) continue;
      std::string why = CheckBound(c.type, c.actual, *b, is_min);
      if (!why.empty()) out->push_back({"stats-bounds", fmt::format("data file '{}': column '{}': {}", rel, col, why)});
    }
  }
}

void Checker::CheckDataFile(const std::string& rel, const std::optional<std::string>& stats_text,
                            const std::optional<delta::DeletionVectorDescriptor>& dv, bool live) {
  const std::string full = io::JoinPath(root_, rel);
  auto reader = parquet::FileReader::Open(fs_, full);
  if (!reader.ok()) {
    if (reader.status().IsNotFound()) {
      if (live) Violate("data-file-exists", "live add '{}': the data file does not exist", rel);
      return;
    }
    Violate("num-records", "data file '{}' cannot be read: {}", rel, reader.status().message());
    return;
  }
  const int64_t rows = (*reader)->metadata().num_rows;
  if (stats_text) {
    json stats = json::parse(*stats_text, nullptr, false);
    if (!stats.is_object()) {
      Violate("num-records", "add '{}': stats are not a JSON object", rel);
    } else {
      if (stats.contains("numRecords") && stats["numRecords"].is_number_integer() &&
          stats["numRecords"].get<int64_t>() != rows) {
        Violate("num-records", "add '{}': stats.numRecords {} but the file has {} rows", rel,
                stats["numRecords"].get<int64_t>(), rows);
      }
      bool tight = !(stats.contains("tightBounds") && stats["tightBounds"] == false);
      if (tight) CheckStatsAgainstData(reader->get(), stats, rel, &out_);
    }
  }
  if (dv) {
    auto bitmap = delta::LoadDeletionVector(fs_, root_, *dv);
    if (!bitmap.ok()) {
      if (live || !bitmap.status().IsNotFound()) {
        Violate("deletion-vector", "add '{}': deletion vector {}: {}", rel, dv->UniqueId(), bitmap.status().message());
      }
      return;
    }
    if (static_cast<int64_t>(bitmap->cardinality()) != dv->cardinality) {
      Violate("deletion-vector", "add '{}': DV cardinality {} but the bitmap holds {} rows", rel, dv->cardinality,
              bitmap->cardinality());
    }
    auto all = bitmap->ToVector();
    if (!all.empty() && static_cast<int64_t>(all.back()) >= rows) {
      Violate("deletion-vector", "add '{}': DV deletes row {} but the file has {} rows", rel, all.back(), rows);
    }
  }
}

Status Checker::CheckFiles() {
  auto snap = delta::Snapshot::Load(fs_, root_, delta::VersionSpec::Latest(), delta::LoadOptions{delta::StatsMode::kRaw});
  std::set<std::pair<std::string, std::string>> done;  // (path, stats)
  if (!snap.ok()) {
    // Usually a consequence of a violation already reported (a gap, a malformed line).
    if (out_.empty()) Violate("loadable", "the latest version cannot be loaded: {}", snap.status().ToString());
  } else {
    for (const auto& f : (*snap)->files()) {
      std::optional<std::string> stats;
      if (f.stats && !f.stats->raw.empty()) stats = f.stats->raw;
      std::optional<delta::DeletionVectorDescriptor> dv;
      if (f.deletion_vector) dv = delta::DeletionVectorDescriptor::FromRef(*f.deletion_vector);
      done.emplace(f.path, stats.value_or("") + "|" + (dv ? dv->UniqueId() : ""));
      CheckDataFile(f.path, stats, dv, /*live=*/true);
    }
  }
  for (const AddRef& a : commit_adds_) {
    if (!done.emplace(a.path, a.stats.value_or("") + "|" + (a.dv ? a.dv->UniqueId() : "")).second) continue;
    CheckDataFile(a.path, a.stats, a.dv, /*live=*/false);
  }
  return Status::OK();
}

// ---- checkpoints against the JSON replay --------------------------------------------

Status CopyInto(io::FileSystem* from, const std::string& path, io::FileSystem* to, const std::string& dest) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer data, from->ReadFile(path));
  return to->WriteFile(dest, data.view());
}

std::string Describe(const table::FileEntry& f) {
  json j;
  j["path"] = f.path;
  j["size"] = f.size;
  j["modificationTime"] = f.modification_time_ms;
  for (const auto& [k, v] : f.partition_values) j["partitionValues"][k] = v ? json(*v) : json(nullptr);
  if (f.stats && !f.stats->raw.empty()) {
    json s = json::parse(f.stats->raw, nullptr, false);
    j["stats"] = s.is_discarded() ? json(f.stats->raw) : s;
  }
  if (f.deletion_vector) j["dv"] = f.deletion_vector->unique_id + "/" + std::to_string(f.deletion_vector->cardinality);
  for (const auto& [k, v] : f.tags) j["tags"][k] = v;
  if (f.base_row_id) j["baseRowId"] = *f.base_row_id;
  if (f.default_row_commit_version) j["defaultRowCommitVersion"] = *f.default_row_commit_version;
  if (f.clustering_provider) j["clusteringProvider"] = *f.clustering_provider;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status Checker::CheckCheckpoints() {
  std::map<int64_t, std::vector<delta::LogFile>> by_version;
  for (const auto& f : files_) {
    if (f.name.is_checkpoint()) by_version[f.name.version].push_back(f);
  }
  std::set<int64_t> commit_versions;
  for (const auto& c : commits_) commit_versions.insert(c.name.version);
  auto sidecars = fs_->ListRecursive(io::JoinPath(log_dir_, "_sidecars"));
  for (const auto& [v, parts] : by_version) {
    // The JSON replay: the previous checkpoint (if needed) plus commits up to v.
    auto json_fs = io::NewMemoryFileSystem();
    int64_t from = 0;
    auto prev = by_version.lower_bound(v);
    bool have_all = true;
    for (int64_t x = 0; x <= v && have_all; ++x) have_all = commit_versions.count(x) > 0;
    if (!have_all) {
      if (prev == by_version.begin()) continue;  // nothing to compare with
      --prev;
      from = prev->first + 1;
      for (const auto& p : prev->second) {
        LITHIFY_RETURN_NOT_OK(CopyInto(fs_, p.path, json_fs.get(), "/t/_delta_log/" + Name(p).substr(11)));
      }
      bool ok = true;
      for (int64_t x = from; x <= v && ok; ++x) ok = commit_versions.count(x) > 0;
      if (!ok) continue;
    }
    for (const auto& c : commits_) {
      if (c.name.version >= from && c.name.version <= v) {
        LITHIFY_RETURN_NOT_OK(CopyInto(fs_, c.path, json_fs.get(), "/t/_delta_log/" + Name(c).substr(11)));
      }
    }
    auto ckpt_fs = io::NewMemoryFileSystem();
    for (const auto& p : parts) {
      LITHIFY_RETURN_NOT_OK(CopyInto(fs_, p.path, ckpt_fs.get(), "/t/_delta_log/" + Name(p).substr(11)));
    }
    if (sidecars.ok()) {
      for (const auto& s : *sidecars) {
        std::string rel = s.path.substr(log_dir_.size());
        LITHIFY_RETURN_NOT_OK(CopyInto(fs_, s.path, ckpt_fs.get(), "/t/_delta_log" + rel));
      }
    }
    delta::LoadOptions raw{delta::StatsMode::kRaw};
    auto want = delta::Snapshot::Load(json_fs.get(), "/t", delta::VersionSpec::AtVersion(v), raw);
    auto got = delta::Snapshot::Load(ckpt_fs.get(), "/t", delta::VersionSpec::AtVersion(v), raw);
    const std::string name = Name(parts.front());
    if (!want.ok()) continue;  // the log itself is broken: reported by the other rules
    if (!got.ok()) {
      Violate("checkpoint-replay", "{} cannot be read alone: {}", name, got.status().ToString());
      continue;
    }
    const delta::Snapshot& w = **want;
    const delta::Snapshot& g = **got;
    if (!(w.protocol() == g.protocol())) Violate("checkpoint-replay", "{}: protocol differs from the JSON replay", name);
    if (!(w.metadata() == g.metadata())) Violate("checkpoint-replay", "{}: metaData differs from the JSON replay", name);
    if (w.txns() != g.txns()) Violate("checkpoint-replay", "{}: txns differ from the JSON replay", name);
    if (w.domain_metadata() != g.domain_metadata()) {
      Violate("checkpoint-replay", "{}: domain metadata differs from the JSON replay", name);
    }
    std::set<std::string> wf, gf;
    for (const auto& f : w.files()) wf.insert(Describe(f));
    for (const auto& f : g.files()) gf.insert(Describe(f));
    std::vector<std::string> only_w, only_g;
    std::set_difference(wf.begin(), wf.end(), gf.begin(), gf.end(), std::back_inserter(only_w));
    std::set_difference(gf.begin(), gf.end(), wf.begin(), wf.end(), std::back_inserter(only_g));
    for (const auto& f : only_w) Violate("checkpoint-replay", "{}: live file missing or different: {}", name, f);
    for (const auto& f : only_g) Violate("checkpoint-replay", "{}: live file not in the JSON replay: {}", name, f);
    // Tombstones: the checkpoint's are the replay's minus expired ones.
    auto retention = delta::TombstoneRetentionMs(w.metadata());
    const int64_t written_ms = parts.front().mtime_ms;
    std::map<std::string, const delta::Tombstone*> gt;
    for (const auto& t : g.tombstones()) gt[t.path + "|" + (t.remove.deletion_vector ? t.remove.deletion_vector->UniqueId() : "")] = &t;
    for (const auto& t : w.tombstones()) {
      std::string key = t.path + "|" + (t.remove.deletion_vector ? t.remove.deletion_vector->UniqueId() : "");
      auto it = gt.find(key);
      if (it != gt.end()) {
        gt.erase(it);
        continue;
      }
      int64_t ts = t.remove.deletion_timestamp.value_or(0);
      if (retention.ok() && ts > written_ms - *retention) {
        Violate("checkpoint-replay", "{}: unexpired tombstone '{}' (deleted at {}) is missing", name, t.path, ts);
      }
    }
    for (const auto& [key, t] : gt) {
      Violate("checkpoint-replay", "{}: tombstone '{}' is not in the JSON replay", name, t->path);
    }
  }
  return Status::OK();
}

Result<std::vector<Violation>> Checker::Run() {
  LITHIFY_ASSIGN_OR_RETURN(files_, delta::ListLogFiles(fs_, log_dir_));
  if (files_.empty()) return Status::NotFound("{}: no Delta log", log_dir_);
  LITHIFY_RETURN_NOT_OK(CheckContiguity());
  LITHIFY_RETURN_NOT_OK(CheckCommits());
  LITHIFY_RETURN_NOT_OK(CheckFiles());
  LITHIFY_RETURN_NOT_OK(CheckCheckpoints());
  return std::move(out_);
}

}  // namespace

Result<std::vector<Violation>> CheckDeltaTable(io::FileSystem* fs, const std::string& root) {
  if (fs == nullptr) return Status::InvalidArgument("CheckDeltaTable: null FileSystem");
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  Checker checker(fs, r);
  return checker.Run();
}

Status ValidateDeltaTable(io::FileSystem* fs, const std::string& root) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<Violation> v, CheckDeltaTable(fs, root));
  if (v.empty()) return Status::OK();
  std::string msg = fmt::format("{}: {} Delta rule violation{}:", root, v.size(), v.size() == 1 ? "" : "s");
  for (const auto& x : v) msg += fmt::format("\n[{}] {}", x.rule, x.message);
  return Status::Corruption("{}", msg);
}

}  // namespace lithify::delta_write
