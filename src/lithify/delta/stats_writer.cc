#include "lithify/delta/stats_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "lithify/base/civil_time.h"
#include "lithify/base/decimal_text.h"
#include "lithify/base/macros.h"
#include "lithify/base/utf8.h"
#include "lithify/parquet/statistics.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {
namespace {

using Kind = DataType::Kind;

// ---------------------------------------------------------------- UTF-8 helpers

// Decodes the code point at `s[i]`, returning its byte length (1 for an invalid byte,
// read as Latin-1 so that truncation still makes progress).
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b < 0x80) { *cp = b; return 1; }
  if (b >= 0xC2 && b < 0xE0 && cont(1)) { *cp = ((b & 0x1Fu) << 6) | at(1); return 2; }
  if (b >= 0xE0 && b < 0xF0 && cont(1) && cont(2)) {
    *cp = ((b & 0x0Fu) << 12) | (at(1) << 6) | at(2);
    if (*cp >= 0x800) return 3;
  }
  if (b >= 0xF0 && b < 0xF5 && cont(1) && cont(2) && cont(3)) {
    *cp = ((b & 0x07u) << 18) | (at(1) << 12) | (at(2) << 6) | at(3);
    if (*cp >= 0x10000 && *cp <= 0x10FFFF) return 4;
  }
  *cp = b;
  return 1;
}

// UTF-16 code units of a code point (Java's String.length unit, Delta's prefix unit).
int Utf16Units(uint32_t cp) { return cp >= 0x10000 ? 2 : 1; }

int64_t Utf16Length(std::string_view s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    i += DecodeUtf8(s, i, &cp);
    n += Utf16Units(cp);
  }
  return n;
}

// Byte offset of the prefix Delta's truncateMinStringAgg keeps: code points are taken
// while fewer than `units` UTF-16 units are taken (so a surrogate pair straddling the
// limit is kept whole). `*taken` receives the units kept.
size_t MinPrefixBytes(std::string_view s, int64_t units, int64_t* taken) {
  size_t i = 0;
  int64_t u = 0;
  while (i < s.size() && u < units) {
    uint32_t cp;
    i += DecodeUtf8(s, i, &cp);
    u += Utf16Units(cp);
  }
  *taken = u;
  return i;
}

constexpr std::string_view kUtf8MaxChar = "\xF4\x8F\xBF\xBF";  // U+10FFFF

// ---------------------------------------------------------------- number text

// Exact double text that parses back to the same double (and, for a float widened to
// double, to the same float).
std::string DoubleText(double d) {
  std::string s = fmt::format("{:.17g}", d);
  return s;
}

std::string JsonString(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false,
                                             nlohmann::json::error_handler_t::replace);
}

}  // namespace

// ---------------------------------------------------------------- configuration

Result<int> ParseNumIndexedCols(const std::map<std::string, std::string>& conf) {
  auto it = conf.find(prop::kDataSkippingNumIndexedCols.key());
  if (it == conf.end()) return kDefaultNumIndexedCols;
  const std::string& t = it->second;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || errno != 0 || v < -1 || v > (1 << 30)) {
    return Status::InvalidArgument(
        "delta.dataSkippingNumIndexedCols '{}' is not an integer >= -1", t);
  }
  return static_cast<int>(v);
}

// Splits "a.b, `x.y`.z" into column paths.
Result<std::vector<std::vector<std::string>>> ParseStatsColumns(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> path;
  std::string cur;
  bool quoted = false, any = false;
  auto end_part = [&]() -> Status {
    std::string t = cur;
    if (!any) {
      // Unquoted parts are trimmed of spaces.
      size_t b = t.find_first_not_of(" \t");
      size_t e = t.find_last_not_of(" \t");
      t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
    }
    if (t.empty()) {
      return Status::InvalidArgument("delta.dataSkippingStatsColumns '{}' has an empty column name",
                                     text);
    }
    path.push_back(t);
    cur.clear();
    any = false;
    return Status::OK();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '`') {
        if (i + 1 < text.size() && text[i + 1] == '`') { cur.push_back('`'); ++i; }
        else quoted = false;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '`') {
      // Quoted part: drop spaces before it.
      if (cur.find_first_not_of(" \t") == std::string::npos) cur.clear();
      quoted = true;
      any = true;
    } else if (c == '.') {
      LITHIFY_RETURN_NOT_OK(end_part());
    } else if (c == ',') {
      LITHIFY_RETURN_NOT_OK(end_part());
      out.push_back(std::move(path));
      path.clear();
    } else if (!(any && (c == ' ' || c == '\t'))) {
      cur.push_back(c);
    }
  }
  if (quoted) {
    return Status::InvalidArgument("delta.dataSkippingStatsColumns '{}' has an unclosed '`'", text);
  }
  LITHIFY_RETURN_NOT_OK(end_part());
  out.push_back(std::move(path));
  return out;
}

namespace {

bool NameEq(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool IsMinMaxKind(Kind k) {
  switch (k) {
    case Kind::kByte: case Kind::kShort: case Kind::kInteger: case Kind::kLong:
    case Kind::kFloat: case Kind::kDouble: case Kind::kDecimal: case Kind::kDate:
    case Kind::kTimestamp: case Kind::kTimestampNtz: case Kind::kString:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---------------------------------------------------------------- building blocks

std::string TruncateStatsMin(std::string_view utf8, int prefix_len) {
  if (Utf16Length(utf8) <= prefix_len) return std::string(utf8);
  if (prefix_len <= 0) return "";
  int64_t taken;
  return std::string(utf8.substr(0, MinPrefixBytes(utf8, prefix_len, &taken)));
}

std::optional<std::string> TruncateStatsMax(std::string_view utf8, int prefix_len) {
  const int64_t total = Utf16Length(utf8);
  if (total <= prefix_len) return std::string(utf8);
  if (prefix_len <= 0) return std::nullopt;
  const int64_t max_len = 2 * static_cast<int64_t>(prefix_len);
  int64_t units;
  size_t pos = MinPrefixBytes(utf8, prefix_len, &units);
  while (units <= max_len) {
    if (pos >= utf8.size()) return std::string(utf8);
    uint32_t cp;
    size_t n = DecodeUtf8(utf8, pos, &cp);
    if (cp == 0x10FFFF && n == 4) {  // the tie-breaker itself cannot follow a prefix: skip it
      pos += n;
      units += 2;
      continue;
    }
    std::string out(utf8.substr(0, pos));
    if (cp < 0x7F) {
      out.push_back('\x7F');
    } else {
      out.append(kUtf8MaxChar);
    }
    return out;
  }
  return std::nullopt;
}

std::string FormatStatsTimestamp(int64_t micros, bool utc) {
  const int64_t ms = FloorDiv(micros, 1000);
  const DayTime t = SplitDays(ms, kMillisPerDay);
  const int64_t secs = t.time_of_day / 1000;
  return fmt::format("{}T{:02}:{:02}:{:02}.{:03}{}", IsoDateText(t.days), secs / 3600,
                     secs / 60 % 60, secs % 60, t.time_of_day % 1000, utc ? "Z" : "");
}

// ---------------------------------------------------------------- StatsPlan

namespace {

// Every listed path names a data column (not a partition column) of the table.
Status CheckStatsColumnPaths(const StructType& table_schema, const std::vector<std::string>& partition_columns,
                             const std::vector<std::vector<std::string>>& wanted) {
  for (const auto& path : wanted) {
    const DataType* t = &table_schema;
    bool ok = true;
    for (size_t i = 0; i < path.size() && ok; ++i) {
      if (t->kind != Kind::kStruct) { ok = false; break; }
      const StructField* hit = nullptr;
      for (const StructField& f : t->fields) {
        if (NameEq(f.name, path[i])) { hit = &f; break; }
      }
      const bool partition = hit != nullptr && i == 0 &&
                             std::any_of(partition_columns.begin(), partition_columns.end(),
                                         [&](const std::string& p) { return NameEq(p, hit->name); });
      if (!hit || partition) { ok = false; break; }
      t = &hit->type;
    }
    if (!ok) {
      std::string joined;
      for (const auto& p : path) joined += (joined.empty() ? "" : ".") + p;
      return Status::InvalidArgument(
          "delta.dataSkippingStatsColumns names '{}', which is not a data column of the table", joined);
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckStatsConfiguration(const StructType& table_schema, const std::vector<std::string>& partition_columns,
                               const std::map<std::string, std::string>& configuration) {
  LITHIFY_RETURN_NOT_OK(ParseNumIndexedCols(configuration).status());
  auto sc = configuration.find(prop::kDataSkippingStatsColumns.key());
  if (sc == configuration.end()) return Status::OK();
  LITHIFY_ASSIGN_OR_RETURN(auto wanted, ParseStatsColumns(sc->second));
  return CheckStatsColumnPaths(table_schema, partition_columns, wanted);
}

Result<std::shared_ptr<const StatsPlan>> StatsPlan::Make(
    const StructType& table_schema, const std::vector<std::string>& partition_columns,
    ColumnMappingMode mode, const std::map<std::string, std::string>& configuration,
    const parquet::Schema& file_schema) {
  auto plan = std::shared_ptr<StatsPlan>(new StatsPlan());
  LITHIFY_ASSIGN_OR_RETURN(int num_indexed, ParseNumIndexedCols(configuration));

  // Requested stats columns (logical paths), when the list is set.
  std::optional<std::vector<std::vector<std::string>>> wanted;
  auto sc = configuration.find(prop::kDataSkippingStatsColumns.key());
  if (sc != configuration.end()) {
    LITHIFY_ASSIGN_OR_RETURN(wanted, ParseStatsColumns(sc->second));
  }
  auto is_partition = [&](const StructField& f) {
    for (const std::string& p : partition_columns) {
      if (NameEq(p, f.name)) return true;
    }
    return false;
  };

  std::vector<bool> wanted_used;
  if (wanted) LITHIFY_RETURN_NOT_OK(CheckStatsColumnPaths(table_schema, partition_columns, *wanted));
  // Whether the logical path `prefix` (or an ancestor) is listed.
  auto listed = [&](const std::vector<std::string>& logical) {
    for (const auto& path : *wanted) {
      if (path.size() > logical.size()) continue;
      bool match = true;
      for (size_t i = 0; i < path.size(); ++i) match = match && NameEq(path[i], logical[i]);
      if (match) return true;
    }
    return false;
  };
  auto listed_below = [&](const std::vector<std::string>& logical) {
    for (const auto& path : *wanted) {
      if (path.size() <= logical.size()) continue;
      bool match = true;
      for (size_t i = 0; i < logical.size(); ++i) match = match && NameEq(path[i], logical[i]);
      if (match) return true;
    }
    return false;
  };

  int64_t budget = num_indexed < 0 ? INT64_MAX : num_indexed;
  std::vector<std::string> logical, physical;
  std::vector<int> parquet_node;  // file-schema node per level

  std::function<Status(const DataType&, int)> walk = [&](const DataType& st, int node) -> Status {
    for (const StructField& f : st.fields) {
      if (!wanted && budget <= 0) return Status::OK();
      if (node == 0 && is_partition(f)) continue;
      LITHIFY_ASSIGN_OR_RETURN(std::string phys, PhysicalName(f, mode));
      int child = -1;
      for (int c : file_schema.node(node).children) {
        if (file_schema.node(c).name == phys) { child = c; break; }
      }
      if (child < 0) {
        return Status::Internal("column '{}' is missing from the data file schema", phys);
      }
      logical.push_back(f.name);
      physical.push_back(phys);
      if (f.type.kind == Kind::kStruct) {
        if (!wanted || listed(logical) || listed_below(logical)) {
          LITHIFY_RETURN_NOT_OK(walk(f.type, child));
        }
      } else if (!wanted || listed(logical)) {
        Column col;
        col.physical_path = physical;
        col.kind = f.type.kind;
        col.precision = f.type.precision;
        col.scale = f.type.scale;
        col.min_max = IsMinMaxKind(f.type.kind);
        std::vector<int> leaves = file_schema.LeavesUnder(child);
        if (leaves.empty()) return Status::Internal("column '{}' has no leaf", phys);
        col.leaf = leaves[0];
        const parquet::SchemaNode& node = file_schema.node(child);
        col.null_def = node.max_def;
        // Footer bounds follow the leaf's type-defined sort order; StatsCollector
        // compares strings as unsigned bytes and everything else as signed numbers.
        const parquet::SortOrder order =
            f.type.kind == Kind::kString ? parquet::SortOrder::kUnsigned : parquet::SortOrder::kSigned;
        col.flat_leaf = node.is_leaf() && node.max_rep == 0 &&
                        (!col.min_max || parquet::LeafSortOrder(node.element) == order);
        plan->columns_.push_back(std::move(col));
        --budget;
      }
      logical.pop_back();
      physical.pop_back();
    }
    return Status::OK();
  };
  LITHIFY_RETURN_NOT_OK(walk(table_schema, 0));
  return std::shared_ptr<const StatsPlan>(std::move(plan));
}

// ---------------------------------------------------------------- StatsCollector

// Running statistics of one column. Numbers are kept in their widest exact form.
struct StatsCollector::Acc {
  int64_t null_count = 0;
  bool has = false;
  int64_t imin = 0, imax = 0;          // integer kinds, dates, timestamps
  double dmin = 0, dmax = 0;           // float/double (NaN excluded)
  bool nan = false;                    // float/double: a NaN was seen (no min/max then)
  __int128 qmin = 0, qmax = 0;         // decimals (unscaled)
  std::string smin, smax;              // strings (full, byte order)
};

StatsCollector::StatsCollector(std::shared_ptr<const StatsPlan> plan) : plan_(std::move(plan)) {
  Reset();
}

void StatsCollector::Reset() {
  num_records_ = 0;
  accs_.clear();
  for (size_t i = 0; i < plan_->columns().size(); ++i) accs_.push_back(std::make_shared<Acc>());
}

namespace {

__int128 ReadBigEndianSigned(const uint8_t* p, size_t n) {
  if (n == 0) return 0;
  __int128 v = (p[0] & 0x80) ? -1 : 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

template <typename T>
void MinMax(bool* has, T* lo, T* hi, T v) {
  if (!*has) { *lo = *hi = v; *has = true; return; }
  if (v < *lo) *lo = v;
  if (*hi < v) *hi = v;
}

}  // namespace

void StatsCollector::Update(const parquet::RowBatch& batch) {
  num_records_ += batch.num_rows;
  const auto& cols = plan_->columns();
  for (size_t ci = 0; ci < cols.size(); ++ci) {
    const StatsPlan::Column& pc = cols[ci];
    Acc& a = *accs_[ci];
    if (pc.leaf < 0 || static_cast<size_t>(pc.leaf) >= batch.columns.size()) continue;
    const parquet::ColumnData& cd = batch.columns[pc.leaf];
    // Null count: a row's first level entry tells whether the field itself is defined.
    if (!cd.def_levels.empty()) {
      for (int64_t i = 0; i < cd.num_levels; ++i) {
        if (!cd.rep_levels.empty() && cd.rep_levels[i] != 0) continue;
        if (cd.def_levels[i] < pc.null_def) ++a.null_count;
      }
    }
    if (!pc.min_max) continue;
    const parquet::ColumnValues& v = cd.values;
    switch (v.type) {
      case parquet::PhysicalType::kInt32:
        for (int64_t i = 0; i < v.count; ++i) {
          if (pc.kind == Kind::kDecimal) MinMax<__int128>(&a.has, &a.qmin, &a.qmax, v.value<int32_t>(i));
          else MinMax<int64_t>(&a.has, &a.imin, &a.imax, v.value<int32_t>(i));
        }
        break;
      case parquet::PhysicalType::kInt64:
        for (int64_t i = 0; i < v.count; ++i) {
          if (pc.kind == Kind::kDecimal) MinMax<__int128>(&a.has, &a.qmin, &a.qmax, v.value<int64_t>(i));
          else MinMax<int64_t>(&a.has, &a.imin, &a.imax, v.value<int64_t>(i));
        }
        break;
      case parquet::PhysicalType::kFloat:
        for (int64_t i = 0; i < v.count; ++i) {
          double d = v.value<float>(i);
          if (std::isnan(d)) a.nan = true;
          else MinMax<double>(&a.has, &a.dmin, &a.dmax, d);
        }
        break;
      case parquet::PhysicalType::kDouble:
        for (int64_t i = 0; i < v.count; ++i) {
          double d = v.value<double>(i);
          if (std::isnan(d)) a.nan = true;
          else MinMax<double>(&a.has, &a.dmin, &a.dmax, d);
        }
        break;
      case parquet::PhysicalType::kFixedLenByteArray:
        if (pc.kind == Kind::kDecimal) {
          for (int64_t i = 0; i < v.count; ++i) {
            MinMax<__int128>(&a.has, &a.qmin, &a.qmax, ReadBigEndianSigned(v.fixed_at(i), v.width()));
          }
        }
        break;
      case parquet::PhysicalType::kByteArray:
        if (pc.kind == Kind::kString) {
          for (int64_t i = 0; i < v.count; ++i) {
            std::string_view s = v.binary(i);
            if (!a.has) { a.smin = a.smax = std::string(s); a.has = true; continue; }
            if (s < std::string_view(a.smin)) a.smin.assign(s);
            if (std::string_view(a.smax) < s) a.smax.assign(s);
          }
        } else if (pc.kind == Kind::kDecimal) {
          for (int64_t i = 0; i < v.count; ++i) {
            std::string_view s = v.binary(i);
            MinMax<__int128>(&a.has, &a.qmin, &a.qmax,
                             ReadBigEndianSigned(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
          }
        }
        break;
      default:
        break;
    }
  }
}

namespace {

// One footer bound decoded the way Update reads values; false when the bytes cannot be
// the PLAIN value Update would have seen (wrong width, NaN).
bool DecodeBound(const StatsPlan::Column& c, parquet::PhysicalType type, std::string_view b,
                 int64_t* i, double* d, __int128* q, std::string* s) {
  using PT = parquet::PhysicalType;
  auto load = [&](auto v) {
    if (b.size() != sizeof(v)) return false;
    std::memcpy(&v, b.data(), sizeof(v));
    if constexpr (std::is_floating_point_v<decltype(v)>) {
      if (std::isnan(v)) return false;
      *d = v;
    } else if (c.kind == Kind::kDecimal) {
      *q = v;
    } else {
      *i = v;
    }
    return true;
  };
  switch (type) {
    case PT::kInt32: return load(int32_t{0});
    case PT::kInt64: return load(int64_t{0});
    case PT::kFloat: return load(float{0});
    case PT::kDouble: return load(double{0});
    case PT::kFixedLenByteArray:
    case PT::kByteArray:
      if (c.kind == Kind::kString && type == PT::kByteArray) {
        s->assign(b);
        return true;
      }
      if (c.kind != Kind::kDecimal || b.empty() || b.size() > 16) return false;
      *q = ReadBigEndianSigned(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      return true;
    default:
      return false;  // Update collects nothing there; refuse rather than mimic
  }
}

}  // namespace

Result<bool> StatsCollector::UpdateFromFooter(const parquet::FileMetaData& footer) {
  const auto& cols = plan_->columns();
  std::vector<Acc> accs(cols.size());
  int64_t records = 0;
  for (const parquet::RowGroup& rg : footer.row_groups) records += rg.num_rows;
  for (size_t ci = 0; ci < cols.size(); ++ci) {
    const StatsPlan::Column& c = cols[ci];
    if (!c.flat_leaf) return false;
    Acc& a = accs[ci];
    for (size_t r = 0; r < footer.row_groups.size(); ++r) {
      const parquet::RowGroup& rg = footer.row_groups[r];
      if (c.leaf < 0 || static_cast<size_t>(c.leaf) >= rg.columns.size()) {
        return Status::InvalidArgument("row group {} has {} column chunks; statistics column leaf {} is missing", r,
                                       rg.columns.size(), c.leaf);
      }
      const auto& md = rg.columns[c.leaf].meta_data;
      if (!md || !md->statistics || !md->statistics->null_count) return false;
      const parquet::Statistics& st = *md->statistics;
      const int64_t nulls = *st.null_count;
      if (nulls < 0 || nulls > rg.num_rows) return false;
      a.null_count += nulls;
      if (!c.min_max) continue;
      const bool floating = md->type == parquet::PhysicalType::kFloat || md->type == parquet::PhysicalType::kDouble;
      if (floating && nulls < rg.num_rows) {
        // min/max leave NaN out; only nan_count tells whether the chunk holds any.
        if (!st.nan_count || *st.nan_count < 0) return false;
        if (*st.nan_count > 0) a.nan = true;
      }
      if (a.nan || nulls == rg.num_rows) continue;
      if (!st.min_value || !st.max_value) return false;
      const bool binary = md->type == parquet::PhysicalType::kByteArray ||
                          md->type == parquet::PhysicalType::kFixedLenByteArray;
      if (binary && (st.is_min_value_exact != true || st.is_max_value_exact != true)) return false;
      Acc lo, hi;
      if (!DecodeBound(c, md->type, *st.min_value, &lo.imin, &lo.dmin, &lo.qmin, &lo.smin) ||
          !DecodeBound(c, md->type, *st.max_value, &hi.imin, &hi.dmin, &hi.qmin, &hi.smin)) {
        return false;
      }
      for (const Acc* b : {&lo, &hi}) {
        switch (md->type) {
          case parquet::PhysicalType::kFloat: case parquet::PhysicalType::kDouble:
            MinMax<double>(&a.has, &a.dmin, &a.dmax, b->dmin);
            break;
          case parquet::PhysicalType::kByteArray:
            if (c.kind == Kind::kString) {
              if (!a.has) { a.smin = a.smax = b->smin; a.has = true; break; }
              if (b->smin < a.smin) a.smin = b->smin;
              if (a.smax < b->smin) a.smax = b->smin;
              break;
            }
            [[fallthrough]];
          default:
            if (c.kind == Kind::kDecimal) MinMax<__int128>(&a.has, &a.qmin, &a.qmax, b->qmin);
            else MinMax<int64_t>(&a.has, &a.imin, &a.imax, b->imin);
        }
      }
    }
  }
  num_records_ = records;
  for (size_t ci = 0; ci < cols.size(); ++ci) *accs_[ci] = std::move(accs[ci]);
  return true;
}

Result<std::optional<std::string>> StatsJsonFromFooter(std::shared_ptr<const StatsPlan> plan,
                                                       const parquet::FileMetaData& footer) {
  StatsCollector c(std::move(plan));
  LITHIFY_ASSIGN_OR_RETURN(bool exact, c.UpdateFromFooter(footer));
  if (!exact) return std::optional<std::string>();
  return std::optional<std::string>(c.ToJson());
}

namespace {

// A JSON object under construction: keys in insertion order, leaves as raw JSON text.
struct Node {
  std::string raw;  // non-empty for leaves
  // Children in insertion order. Names and nodes are parallel vectors because
  // std::pair<std::string, Node> would need Node complete here (clang rejects it).
  std::vector<std::string> names;
  std::vector<Node> kids;

  Node& Child(const std::string& k) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == k) return kids[i];
    }
    names.push_back(k);
    kids.emplace_back();
    return kids.back();
  }
  void Put(const std::vector<std::string>& path, std::string text) {
    Node* n = this;
    for (const std::string& k : path) n = &n->Child(k);
    n->raw = std::move(text);
  }
  void Write(std::string* out) const {
    if (!raw.empty()) { out->append(raw); return; }
    out->push_back('{');
    bool first = true;
    for (size_t i = 0; i < kids.size(); ++i) {
      if (!first) out->push_back(',');
      first = false;
      out->append(JsonString(names[i]));
      out->push_back(':');
      kids[i].Write(out);
    }
    out->push_back('}');
  }
};

// JSON text of a bound; nullopt when none can be written (see the header).
std::optional<std::string> BoundText(const StatsPlan::Column& c, const StatsCollector* /*unused*/,
                                     bool is_max, int64_t i, double d, __int128 q,
                                     const std::string& s) {
  switch (c.kind) {
    case Kind::kByte: case Kind::kShort: case Kind::kInteger: case Kind::kLong:
      return fmt::format("{}", i);
    case Kind::kDate:
      return JsonString(IsoDateText(i));
    case Kind::kTimestamp:
      return JsonString(FormatStatsTimestamp(i, /*utc=*/true));
    case Kind::kTimestampNtz:
      return JsonString(FormatStatsTimestamp(i, /*utc=*/false));
    case Kind::kFloat: case Kind::kDouble:
      if (!std::isfinite(d)) return std::nullopt;  // JSON has no infinities
      return DoubleText(d == 0 ? 0.0 : d);         // -0.0 and +0.0 alike (see the header)
    case Kind::kDecimal:
      return DecimalText(q, c.scale);
    case Kind::kString: {
      std::optional<std::string> t = is_max ? TruncateStatsMax(s) : TruncateStatsMin(s);
      if (!t || !IsValidUtf8(*t)) return std::nullopt;  // no bound rather than a wrong one
      return JsonString(*t);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string StatsCollector::ToJson() const {
  Node mins, maxs, nulls;
  const auto& cols = plan_->columns();
  for (size_t ci = 0; ci < cols.size(); ++ci) {
    const StatsPlan::Column& c = cols[ci];
    const Acc& a = *accs_[ci];
    nulls.Put(c.physical_path, fmt::format("{}", a.null_count));
    if (!c.min_max || !a.has || a.nan) continue;
    auto lo = BoundText(c, this, false, a.imin, a.dmin, a.qmin, a.smin);
    auto hi = BoundText(c, this, true, a.imax, a.dmax, a.qmax, a.smax);
    if (lo) mins.Put(c.physical_path, *lo);
    if (hi) maxs.Put(c.physical_path, *hi);
  }
  std::string out = fmt::format("{{\"numRecords\":{}", num_records_);
  auto section = [&](const char* name, const Node& n) {
    if (n.kids.empty()) return;
    out += fmt::format(",\"{}\":", name);
    n.Write(&out);
  };
  section("minValues", mins);
  section("maxValues", maxs);
  section("nullCount", nulls);
  out.push_back('}');
  return out;
}

}  // namespace lithify::delta
