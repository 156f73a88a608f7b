// Statistics audit (issue 14, acceptance 3): for every type Delta collects statistics on,
// tables are written through every path that produces Delta statistics -- append, delete
// with deletion vectors, copy-on-write delete, OPTIMIZE (column-at-a-time, with and
// without row-group copies, and streamed), REORG PURGE, Z-order and liquid clustering,
// checkpoints (stats carried in the checkpoint and read back from it alone) -- and after
// each step every live file's statistics are checked against the file's own rows:
//
//  - nullCount equals the file's null count (physical rows: after a DV the stats keep
//    describing them, with tightBounds false);
//  - every min/max holds for every non-null value under the type's order (timestamps:
//    value < max + 1 ms, the protocol truncating them to milliseconds; strings: UTF-8
//    byte order, the max possibly a truncated prefix plus Delta's tie-breaker), and
//    parses back exactly at the column's type (decimal text at the column's scale,
//    never rounded; floats as the exact double; timestamps within 0001..9999);
//  - tight bounds (a file without a DV) are the exact extremes (timestamps floored to
//    milliseconds, strings truncated to 32 UTF-16 units without splitting a code point);
//  - a float/double column that holds NaN has no min/max (an engine ordering NaN above
//    every value, as Spark does, would otherwise skip the file); boolean and binary
//    have none.
// The statistics JSON is parsed here independently of lithify's parser (its numbers
// as written), and the data side is cross-checked by scans with and without file
// skipping: `c <= file min` / `c >= file max` must count the same rows either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lithify/base/temp_dir.h"
#include "lithify/commands/append.h"
#include "lithify/commands/checkpoint.h"
#include "lithify/commands/create_alter.h"
#include "lithify/commands/delete.h"
#include "lithify/commands/optimize.h"
#include "lithify/commands/scan.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"

namespace lithify::commands {
namespace {

using json = nlohmann::json;

// ---------------------------------------------------------------- the table

enum class T { kInt, kFloat, kDouble, kDecimal, kString, kDate, kTs, kTsNtz, kNone };

struct Column {
  std::string name;
  T type;
  int precision = 0, scale = 0;
};

const std::vector<Column>& Columns() {
  static const std::vector<Column> cols = {
      {"id", T::kInt},       {"i8", T::kInt},         {"i16", T::kInt},         {"i32", T::kInt},
      {"i64", T::kInt},      {"f32", T::kFloat},      {"f64", T::kDouble},      {"d5", T::kDecimal, 5, 2},
      {"d18", T::kDecimal, 18, 6}, {"d20", T::kDecimal, 20, 5}, {"d38", T::kDecimal, 38, 0},
      {"d38s", T::kDecimal, 38, 18}, {"s", T::kString},   {"dt", T::kDate},         {"ts", T::kTs},
      {"tsn", T::kTsNtz},    {"b", T::kNone},         {"bin", T::kNone},
  };
  return cols;
}

constexpr const char* kDdl =
    "id long NOT NULL, i8 byte, i16 short, i32 int, i64 long, f32 float, f64 double, d5 decimal(5,2), "
    "d18 decimal(18,6), d20 decimal(20,5), d38 decimal(38,0), d38s decimal(38,18), s string, dt date, "
    "ts timestamp, tsn timestamp_ntz, b boolean, bin binary";

const std::string kD38Max(38, '9');
const std::string kLongAscii = std::string(40, 'z');
// 31 ASCII units, then a surrogate pair straddling Delta's 32-unit prefix.
const std::string kStraddle = std::string(31, 'm') + "\xF0\x9F\x98\x80" + "tail";
// 40 x U+10FFFF: no string above its prefix exists, so no max can be written.
std::string MaxCodePoints() {
  std::string s;
  for (int i = 0; i < 40; ++i) s += "\xF4\x8F\xBF\xBF";
  return s;
}
// Non-ASCII of 2, 3 and 4 bytes, 33 characters long.
std::string Mixed() {
  std::string s;
  for (int i = 0; i < 11; ++i) s += "é中😀";
  return s;
}

// One batch of rows (one append = one data file). `nan` puts NaN into the float columns.
std::vector<json> Rows(int base, int kind) {
  std::vector<json> rows;
  const json null;
  auto row = [&](int i) {
    json r;
    r["id"] = base + i;
    return r;
  };
  if (kind == 0) {  // ordinary values, both zeros
    for (int i = 0; i < 6; ++i) {
      json r = row(i);
      r["i8"] = i - 3;
      r["i16"] = 1000 * i - 2000;
      r["i32"] = 100000 * i;
      r["i64"] = int64_t{1} << (40 + i);
      r["f32"] = i == 0 ? -0.0 : i == 1 ? 0.0 : 0.1 * i;
      r["f64"] = i == 0 ? 0.0 : i == 1 ? -0.0 : -1.25 * i;
      r["d5"] = fmt::format("{}.{:02}", i * 7, i * 13);
      r["d18"] = fmt::format("-{}.{:06}", i * 1234567, i * 11);
      r["d20"] = i == 3 ? "9970418458088.79529" : fmt::format("{}.5", i * 1000);
      r["d38"] = fmt::format("{}", i * 123456789);
      r["d38s"] = fmt::format("{}.{:018}", i, i * 7);
      r["s"] = std::string(1, static_cast<char>('a' + i)) + "é";
      r["dt"] = fmt::format("2024-01-{:02}", i + 1);
      r["ts"] = fmt::format("2023-11-14T22:13:20.12{}456Z", i);
      r["tsn"] = fmt::format("1969-12-31T23:59:59.99{}001", i);
      r["b"] = i % 2 == 0;
      r["bin"] = "AAE=";
      rows.push_back(r);
    }
  } else if (kind == 1) {  // the types' extremes
    for (int i = 0; i < 6; ++i) {
      json r = row(i);
      const bool hi = i % 2 == 1;
      r["i8"] = hi ? 127 : -128;
      r["i16"] = hi ? 32767 : -32768;
      r["i32"] = hi ? INT32_MAX : INT32_MIN;
      r["i64"] = hi ? INT64_MAX : INT64_MIN;
      r["f32"] = i == 0 ? json("-Infinity") : i == 1 ? json(3.4028234663852886e38) : json(1.401298464324817e-45);
      r["f64"] = i == 0 ? json(-1.7976931348623157e308) : i == 1 ? json("Infinity") : json(4.9406564584124654e-324);
      r["d5"] = hi ? "999.99" : "-999.99";
      r["d18"] = hi ? "999999999999.999999" : "-999999999999.999999";
      r["d20"] = hi ? "999999999999999.99999" : "-999999999999999.99999";
      r["d38"] = hi ? kD38Max : "-" + kD38Max;
      r["d38s"] = hi ? "99999999999999999999.999999999999999999" : "-99999999999999999999.999999999999999999";
      static const std::vector<std::string> strings = {kLongAscii, kStraddle, Mixed(), "", "\x7f\x7f", MaxCodePoints()};
      r["s"] = strings[static_cast<size_t>(i)];
      r["dt"] = hi ? "9999-12-31" : "0001-01-01";
      r["ts"] = hi ? "9999-12-31T23:59:59.999999Z" : "0001-01-01T00:00:00.000000Z";
      r["tsn"] = hi ? "9999-12-31T23:59:59.999999" : "0001-01-01T00:00:00.000001";
      r["b"] = hi;
      r["bin"] = "";
      rows.push_back(r);
    }
  } else if (kind == 2) {  // NaN among ordinary values
    for (int i = 0; i < 5; ++i) {
      json r = row(i);
      r["i32"] = -i;
      r["f32"] = i == 2 ? json("NaN") : json(1.5 * i);
      r["f64"] = i == 4 ? json("NaN") : json(-0.5 * i);
      r["d38"] = "-" + std::string(20, '9');
      // Unscaled values below 2^53 whose nearest double, times 10^scale, rounds to a
      // neighbour: a reader going through doubles gets min 9001456378.717381 and max
      // 88978197257.37611, and skips this file for the rows at its own extremes.
      r["d18"] = i == 0 ? "9001456378.717380" : "9001456378.717390";
      r["d20"] = i == 1 ? "88978197257.37612" : "88978197257.37600";
      r["s"] = "nan row";
      r["ts"] = "1970-01-01T00:00:00.000999Z";
      rows.push_back(r);
    }
  } else {  // mostly nulls; one float column only NaN
    for (int i = 0; i < 4; ++i) {
      json r = row(i);
      r["f64"] = i == 0 ? json("NaN") : null;
      r["d20"] = i == 3 ? json("-0.00001") : null;
      rows.push_back(r);
    }
  }
  return rows;
}

std::string WriteJsonl(const std::string& dir, int n, const std::vector<json>& rows) {
  const std::string path = fmt::format("{}/in-{}.jsonl", dir, n);
  std::string text;
  for (const json& r : rows) text += r.dump() + "\n";
  auto fs = io::NewLocalFileSystem();
  EXPECT_TRUE(fs->WriteFile(path, ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size())).ok());
  return path;
}

// ---------------------------------------------------------------- stats JSON, as written

// Leaves of a stats object by section and column: strings decoded, numbers as their text.
struct StatLeaf {
  bool is_string = false;
  bool is_number = false;
  std::string text;
};
struct ParsedStats {
  std::optional<int64_t> num_records;
  std::optional<bool> tight_bounds;
  std::map<std::string, std::map<std::string, StatLeaf>> sections;  // section -> column -> leaf
};

class Leaves : public json::json_sax_t {
 public:
  explicit Leaves(ParsedStats* out) : out_(out) {}
  bool null() override { return Put({}); }
  bool boolean(bool v) override {
    if (path_.size() == 1 && path_[0] == "tightBounds") out_->tight_bounds = v;
    return Put({false, false, v ? "true" : "false"});
  }
  bool number_integer(number_integer_t v) override { return Put({false, true, std::to_string(v)}); }
  bool number_unsigned(number_unsigned_t v) override { return Put({false, true, std::to_string(v)}); }
  bool number_float(number_float_t, const string_t& s) override { return Put({false, true, s}); }
  bool string(string_t& v) override { return Put({true, false, v}); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    path_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    path_.back() = k;
    return true;
  }
  bool end_object() override {
    path_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return false; }  // stats hold no arrays
  bool end_array() override { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool Put(StatLeaf leaf) {
    if (path_.size() == 1 && path_[0] == "numRecords") out_->num_records = std::stoll(leaf.text);
    if (path_.size() == 2) out_->sections[path_[0]][path_[1]] = std::move(leaf);
    return true;
  }
  ParsedStats* out_;
  std::vector<std::string> path_;
};

std::optional<ParsedStats> ParseAsWritten(const std::string& text) {
  ParsedStats p;
  Leaves sax(&p);
  if (!json::sax_parse(text, &sax)) return std::nullopt;
  return p;
}

// ---------------------------------------------------------------- exact readers

// Decimal text -> unscaled at `scale`; nullopt unless exact and within `precision`.
std::optional<__int128> ExactDecimal(const std::string& t, int precision, int scale) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  std::string digits;
  int frac = 0;
  bool dot = false;
  for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
    if (t[i] == '.') {
      if (dot) return std::nullopt;
      dot = true;
    } else if (t[i] >= '0' && t[i] <= '9') {
      digits.push_back(t[i]);
      if (dot) ++frac;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (i < t.size()) frac -= std::stoi(t.substr(i + 1));
  while (frac > scale && digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    --frac;
  }
  if (frac > scale) return std::nullopt;
  digits.append(static_cast<size_t>(scale - frac), '0');
  size_t first = digits.find_first_not_of('0');
  std::string sig = first == std::string::npos ? "" : digits.substr(first);
  if (static_cast<int>(sig.size()) > precision) return std::nullopt;
  __int128 v = 0;
  for (char c : sig) v = v * 10 + (c - '0');
  return neg ? -v : v;
}

std::optional<int64_t> ExactInt(const std::string& t) {
  if (t.empty() || t.find_first_not_of("-0123456789") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

std::optional<double> ExactDouble(const std::string& t) {
  char* end = nullptr;
  double d = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(d)) return std::nullopt;
  return d;
}

int64_t DaysOf(int y, unsigned m, unsigned d) {
  using namespace std::chrono;
  return sys_days(year_month_day(year(y), month(m), day(d))).time_since_epoch().count();
}

// "YYYY-MM-DD" -> days; "YYYY-MM-DDTHH:MM:SS.mmm[Z]" -> microseconds (years 0001..9999).
std::optional<int64_t> ExactDate(const std::string& t) {
  int y;
  unsigned m, d;
  char tail;
  if (t.size() != 10 || std::sscanf(t.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3 || y < 1 || y > 9999) {
    return std::nullopt;
  }
  return DaysOf(y, m, d);
}
std::optional<int64_t> ExactStatsTimestamp(const std::string& t, bool utc) {
  if (t.size() != (utc ? 24u : 23u) || (utc && t.back() != 'Z') || t[10] != 'T' || t[19] != '.') return std::nullopt;
  auto days = ExactDate(t.substr(0, 10));
  unsigned hh, mm, ss, ms;
  if (!days || std::sscanf(t.c_str() + 11, "%2u:%2u:%2u.%3u", &hh, &mm, &ss, &ms) != 4) return std::nullopt;
  return ((*days * 86400 + hh * 3600 + mm * 60 + ss) * 1000 + ms) * 1000;
}

bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}
// UTF-16 units of valid UTF-8.
size_t Utf16Units(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xC0) != 0x80) n += b >= 0xF0 ? 2 : 1;
  }
  return n;
}

// ---------------------------------------------------------------- the data side

struct Cell {
  bool null = true;
  int64_t i = 0;    // ints, dates, timestamps
  double d = 0;     // floats
  __int128 q = 0;   // decimals
  std::string s;    // strings
};

__int128 BigEndian(const uint8_t* p, size_t n) {
  __int128 v = (n > 0 && (p[0] & 0x80)) ? -1 : 0;
  for (size_t k = 0; k < n; ++k) v = (v << 8) | p[k];
  return v;
}

// Every row of a data file, per column (by name), physical rows (DVs not applied).
std::map<std::string, std::vector<Cell>> ReadCells(io::FileSystem* fs, const std::string& path) {
  std::map<std::string, std::vector<Cell>> out;
  auto reader = parquet::FileReader::Open(fs, path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  const parquet::Schema& schema = (*reader)->schema();
  for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
    auto stream = (*reader)->OpenRowGroup(rg, {});
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    if (!stream.ok()) return out;
    parquet::RowBatch batch;
    for (;;) {
      auto more = (*stream)->Next(&batch);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (int leaf = 0; leaf < schema.num_leaves(); ++leaf) {
        const parquet::ColumnData& cd = batch.columns[static_cast<size_t>(leaf)];
        const std::string& name = schema.leaf(leaf).dotted_path;
        const int16_t max_def = schema.leaf(leaf).max_def;
        const parquet::ColumnValues& v = cd.values;
        int64_t next = 0;
        for (int64_t r = 0; r < cd.num_levels; ++r) {
          Cell c;
          if (cd.IsValid(r, max_def)) {
            c.null = false;
            const int64_t k = next++;
            switch (v.type) {
              case parquet::PhysicalType::kInt32: c.i = v.value<int32_t>(k); c.q = c.i; break;
              case parquet::PhysicalType::kInt64: c.i = v.value<int64_t>(k); c.q = c.i; break;
              case parquet::PhysicalType::kFloat: c.d = v.value<float>(k); break;
              case parquet::PhysicalType::kDouble: c.d = v.value<double>(k); break;
              case parquet::PhysicalType::kFixedLenByteArray: c.q = BigEndian(v.fixed_at(k), v.width()); break;
              case parquet::PhysicalType::kByteArray: c.s = std::string(v.binary(k)); break;
              default: c.i = v.value<uint8_t>(k) ? 1 : 0; break;
            }
          }
          out[name].push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- the checks

int64_t FloorMs(int64_t us) { return us >= 0 ? us / 1000 * 1000 : -(((-us) + 999) / 1000 * 1000); }

std::string Text(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

// Checks one bound of column `c`. `vals` are the non-null, non-NaN values; `tight`
// whether the bound must be the exact extreme. Returns "" or what is wrong.
std::string CheckBound(const Column& c, const StatLeaf& b, const std::vector<const Cell*>& vals, bool is_min,
                       bool tight) {
  const char* side = is_min ? "min" : "max";
  auto wrong = [&](const std::string& why) { return fmt::format("{} {}: {}", side, b.text, why); };
  if (vals.empty()) return wrong("the column has no non-null value");
  switch (c.type) {
    case T::kInt: {
      auto x = b.is_number ? ExactInt(b.text) : std::nullopt;
      if (!x) return wrong("not an integer");
      int64_t lo = vals[0]->i, hi = lo;
      for (const Cell* v : vals) lo = std::min(lo, v->i), hi = std::max(hi, v->i);
      if (is_min ? *x > lo : *x < hi) return wrong(fmt::format("data has {}", is_min ? lo : hi));
      if (tight && *x != (is_min ? lo : hi)) return wrong(fmt::format("not tight (data {})", is_min ? lo : hi));
      return "";
    }
    case T::kFloat:
    case T::kDouble: {
      auto x = b.is_number ? ExactDouble(b.text) : std::nullopt;
      if (!x) return wrong("not a finite number");
      double lo = vals[0]->d, hi = lo;
      for (const Cell* v : vals) lo = std::min(lo, v->d), hi = std::max(hi, v->d);
      if (is_min ? *x > lo : *x < hi) return wrong(fmt::format("data has {:.17g}", is_min ? lo : hi));
      if (tight && *x != (is_min ? lo : hi)) return wrong(fmt::format("not tight (data {:.17g})", is_min ? lo : hi));
      return "";
    }
    case T::kDecimal: {
      auto x = b.is_number ? ExactDecimal(b.text, c.precision, c.scale) : std::nullopt;
      if (!x) return wrong(fmt::format("not an exact decimal({},{})", c.precision, c.scale));
      __int128 lo = vals[0]->q, hi = lo;
      for (const Cell* v : vals) lo = std::min(lo, v->q), hi = std::max(hi, v->q);
      if (is_min ? *x > lo : *x < hi) return wrong(fmt::format("data has unscaled {}", Text(is_min ? lo : hi)));
      if (tight && *x != (is_min ? lo : hi)) return wrong(fmt::format("not tight (unscaled {})", Text(is_min ? lo : hi)));
      return "";
    }
    case T::kDate:
    case T::kTs:
    case T::kTsNtz: {
      std::optional<int64_t> x;
      if (b.is_string) x = c.type == T::kDate ? ExactDate(b.text) : ExactStatsTimestamp(b.text, c.type == T::kTs);
      if (!x) return wrong("not a date/timestamp in the type's range and the stats format");
      int64_t lo = vals[0]->i, hi = lo;
      for (const Cell* v : vals) lo = std::min(lo, v->i), hi = std::max(hi, v->i);
      const bool ts = c.type != T::kDate;
      // Timestamps are truncated to milliseconds: the max bounds as "value < max + 1 ms".
      if (is_min ? *x > lo : (ts ? *x + 999 < hi : *x < hi)) return wrong(fmt::format("data has {}", is_min ? lo : hi));
      const int64_t want = ts ? FloorMs(is_min ? lo : hi) : (is_min ? lo : hi);
      if (tight && *x != want) return wrong(fmt::format("not the truncated extreme {}", want));
      return "";
    }
    case T::kString: {
      if (!b.is_string) return wrong("not a string");
      if (!ValidUtf8(b.text)) return wrong("invalid UTF-8 (a split code point?)");
      std::string lo = vals[0]->s, hi = lo;
      for (const Cell* v : vals) lo = std::min(lo, v->s), hi = std::max(hi, v->s);
      if (is_min ? b.text > lo : b.text < hi) return wrong("does not bound the data in UTF-8 byte order");
      if (tight && is_min && (lo.compare(0, b.text.size(), b.text) != 0 || Utf16Units(b.text) > 32 ||
                              (Utf16Units(lo) <= 32 && b.text != lo))) {
        return wrong("not the data's min truncated to 32 UTF-16 units");
      }
      if (tight && !is_min && Utf16Units(hi) <= 32 && b.text != hi) return wrong("not the data's max");
      return "";
    }
    case T::kNone: return wrong("boolean/binary columns get no min/max");
  }
  return "";
}

// Tight stats lack a bound only where none can be written: an infinite float extreme
// (JSON has no infinity), or a string max longer than the prefix (Delta's truncation
// may find no upper bound, e.g. for a run of U+10FFFF).
bool MayLackBound(const Column& c, const std::vector<const Cell*>& vals, bool is_min) {
  if (c.type == T::kFloat || c.type == T::kDouble) {
    return std::any_of(vals.begin(), vals.end(), [&](const Cell* v) { return std::isinf(v->d) && (v->d < 0) == is_min; });
  }
  if (c.type == T::kString && !is_min) {
    return std::any_of(vals.begin(), vals.end(), [](const Cell* v) { return Utf16Units(v->s) > 32; });
  }
  return false;
}

struct Audit {
  io::FileSystem* fs;
  std::string root;
  std::string step;
  int files_with_dv = 0;
  int files_checked = 0;

  void CheckFile(const table::FileEntry& f) {
    ++files_checked;
    SCOPED_TRACE(fmt::format("{}: {}", step, f.path));
    ASSERT_TRUE(f.stats.has_value() && !f.stats->raw.empty()) << "no stats";
    std::optional<ParsedStats> st = ParseAsWritten(f.stats->raw);
    ASSERT_TRUE(st.has_value()) << "unparsable stats " << f.stats->raw;
    SCOPED_TRACE(f.stats->raw);
    auto cells = ReadCells(fs, io::JoinPath(root, f.path));
    ASSERT_FALSE(cells.empty());
    const int64_t rows = static_cast<int64_t>(cells.begin()->second.size());
    EXPECT_EQ(st->num_records, rows);
    const bool wide = st->tight_bounds == false;
    if (f.deletion_vector) {
      ++files_with_dv;
      EXPECT_TRUE(wide) << "a file with a DV must say tightBounds=false";
    }
    for (const Column& c : Columns()) {
      SCOPED_TRACE(c.name);
      const std::vector<Cell>& col = cells[c.name];
      ASSERT_EQ(static_cast<int64_t>(col.size()), rows);
      int64_t nulls = 0;
      bool nan = false;
      std::vector<const Cell*> vals;
      for (const Cell& x : col) {
        if (x.null) ++nulls;
        else if ((c.type == T::kFloat || c.type == T::kDouble) && std::isnan(x.d)) nan = true;
        else vals.push_back(&x);
      }
      auto leaf = [&](const char* section) -> const StatLeaf* {
        auto s = st->sections.find(section);
        if (s == st->sections.end()) return nullptr;
        auto l = s->second.find(c.name);
        return l == s->second.end() ? nullptr : &l->second;
      };
      const StatLeaf* nc = leaf("nullCount");
      ASSERT_NE(nc, nullptr) << "no nullCount";
      EXPECT_EQ(nc->text, std::to_string(nulls)) << "nullCount";
      for (bool is_min : {true, false}) {
        const StatLeaf* b = leaf(is_min ? "minValues" : "maxValues");
        if (nan || c.type == T::kNone || vals.empty()) {
          EXPECT_EQ(b, nullptr) << (is_min ? "min" : "max") << " written although "
                                << (nan ? "the column holds NaN" : vals.empty() ? "no value" : "not eligible");
          continue;
        }
        if (b == nullptr) {
          if (!wide) {
            EXPECT_TRUE(MayLackBound(c, vals, is_min)) << (is_min ? "min" : "max") << " missing";
          }
          continue;
        }
        std::string why = CheckBound(c, *b, vals, is_min, !wide);
        EXPECT_EQ(why, "");
      }
    }
  }

  void Run(const std::string& label) {
    step = label;
    auto snap = delta::Snapshot::Load(fs, root, delta::VersionSpec::Latest(), delta::LoadOptions{delta::StatsMode::kRaw});
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    ASSERT_FALSE((*snap)->files().empty());
    for (const table::FileEntry& f : (*snap)->files()) CheckFile(f);
    CheckSkipping(**snap);
  }

  // A file whose min/max is wrong is skipped by `c <= min` or `c >= max` of the
  // file's own extremes: the row counts with and without skipping must agree.
  void CheckSkipping(const delta::Snapshot& snap) {
    std::set<std::string> preds;
    for (const table::FileEntry& f : snap.files()) {
      auto cells = ReadCells(fs, io::JoinPath(root, f.path));
      for (const Column& c : Columns()) {
        std::vector<const Cell*> vals;
        for (const Cell& x : cells[c.name]) {
          if (!x.null && !std::isnan(x.d)) vals.push_back(&x);
        }
        if (vals.empty()) continue;
        auto lit = [&](const Cell& x) -> std::string {
          switch (c.type) {
            case T::kInt: return std::to_string(x.i);
            case T::kDouble: return std::isinf(x.d) ? "" : fmt::format("{:.17g}", x.d);
            case T::kDecimal: {
              std::string t = Text(x.q < 0 ? -x.q : x.q);
              if (c.scale > 0) {
                if (t.size() <= static_cast<size_t>(c.scale)) t.insert(0, static_cast<size_t>(c.scale) + 1 - t.size(), '0');
                t.insert(t.size() - static_cast<size_t>(c.scale), ".");
              }
              return x.q < 0 ? "-" + t : t;
            }
            case T::kString: {
              std::string t;
              for (char ch : x.s) t += ch == '\'' ? std::string("''") : std::string(1, ch);
              return "'" + t + "'";
            }
            case T::kDate: {
              using namespace std::chrono;
              year_month_day ymd{sys_days{days{x.i}}};
              return fmt::format("DATE '{:04}-{:02}-{:02}'", static_cast<int>(ymd.year()),
                                 static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
            }
            case T::kTs:
            case T::kTsNtz: {
              using namespace std::chrono;
              const int64_t day = x.i >= 0 ? x.i / 86400000000 : -((-x.i + 86400000000 - 1) / 86400000000);
              const int64_t us = x.i - day * 86400000000;
              year_month_day ymd{sys_days{days{day}}};
              return fmt::format("{} '{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}{}'",
                                 c.type == T::kTs ? "TIMESTAMP" : "TIMESTAMP_NTZ", static_cast<int>(ymd.year()),
                                 static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                                 us / 3600000000, us / 60000000 % 60, us / 1000000 % 60, us % 1000000,
                                 c.type == T::kTs ? "Z" : "");
            }
            default: return "";
          }
        };
        auto less = [&](const Cell* a, const Cell* b) {
          switch (c.type) {
            case T::kDouble: return a->d < b->d;
            case T::kDecimal: return a->q < b->q;
            case T::kString: return a->s < b->s;
            default: return a->i < b->i;
          }
        };
        const Cell* lo = *std::min_element(vals.begin(), vals.end(), less);
        const Cell* hi = *std::max_element(vals.begin(), vals.end(), less);
        if (std::string l = lit(*lo); !l.empty()) preds.insert(fmt::format("{} <= {}", c.name, l));
        if (std::string h = lit(*hi); !h.empty()) preds.insert(fmt::format("{} >= {}", c.name, h));
      }
    }
    for (const std::string& p : preds) {
      SCOPED_TRACE(fmt::format("{}: --where \"{}\"", step, p));
      int64_t n[2];
      for (int prune = 0; prune < 2; ++prune) {
        ScanOptions o;
        o.where = p;
        o.count_only = true;
        o.prune_files = prune == 1;
        auto r = Scan(fs, root, o, nullptr);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        n[prune] = r->rows;
      }
      EXPECT_GT(n[0], 0);
      EXPECT_EQ(n[1], n[0]) << "file skipping lost rows";
    }
  }
};

// ---------------------------------------------------------------- the paths

class StatsAudit : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = io::NewLocalFileSystem(); }

  std::string MakeTable(const std::string& name, std::map<std::string, std::string> props,
                        std::vector<std::string> clustering = {}) {
    const std::string root = dir_.path() + "/" + name;
    delta::NewTableSpec spec;
    auto schema = delta::ParseSchemaDdl(kDdl);
    EXPECT_TRUE(schema.ok()) << schema.status().ToString();
    spec.schema = *schema;
    spec.properties = std::move(props);
    spec.clustering_columns = std::move(clustering);
    auto r = CreateTable(fs_.get(), root, spec);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return root;
  }

  // One append (one data file) per kind of rows.
  void AppendAll(const std::string& root, int base) {
    for (int kind = 0; kind < 4; ++kind) {
      AppendSpec spec;
      spec.inputs = {WriteJsonl(dir_.path(), ++inputs_, Rows(base + 100 * kind, kind))};
      spec.auto_compact.allowed = false;
      auto r = AppendRows(fs_.get(), root, spec);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }

  void Delete(const std::string& root, const std::string& pred) {
    DeleteSpec spec;
    spec.predicate = pred;
    spec.auto_compact.allowed = false;
    auto r = DeleteRows(fs_.get(), root, spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->commit.has_value());
  }

  void Optimize(const std::string& root, OptimizeSpec spec) {
    auto r = commands::Optimize(fs_.get(), root, spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GT(r->metrics.num_files_added, 0) << "nothing rewritten";
  }

  Audit Auditor(const std::string& root) { return Audit{fs_.get(), root, ""}; }

  TempDir dir_;
  std::unique_ptr<io::FileSystem> fs_;
  int inputs_ = 0;
};

const char* const kSomeOfEveryFile = "id IN (3, 101, 104, 202, 301, 1003, 1101, 1104, 1202, 1301)";

TEST_F(StatsAudit, AppendDeleteWithDvsReorgOptimizeAndCheckpoint) {
  const std::string root = MakeTable("dv", {{"delta.enableDeletionVectors", "true"}});
  AppendAll(root, 0);
  Audit a = Auditor(root);
  a.Run("append");
  Delete(root, kSomeOfEveryFile);
  a.Run("delete with deletion vectors");
  EXPECT_GE(a.files_with_dv, 4);

  OptimizeSpec reorg;
  reorg.reorg_purge = true;
  Optimize(root, reorg);
  a.Run("REORG PURGE");

  AppendAll(root, 1000);
  Delete(root, kSomeOfEveryFile);
  OptimizeSpec columnar;  // small row groups: merged, decoded, stats from the footer
  Optimize(root, columnar);
  a.Run("OPTIMIZE (column at a time)");

  AppendAll(root, 2000);
  OptimizeSpec copy;  // every input row group copied whole, footer statistics carried
  copy.copy_row_group_min_bytes = 1;
  Optimize(root, copy);
  a.Run("OPTIMIZE (row groups copied)");

  Delete(root, "id IN (2003, 2101)");
  auto cp = commands::Checkpoint(fs_.get(), root);
  ASSERT_TRUE(cp.ok()) << cp.status().ToString();
  a.Run("checkpoint");
  // The checkpoint alone: every commit it covers removed from a copy of the table.
  const std::string alone = dir_.path() + "/checkpoint-only";
  std::filesystem::copy(root, alone, std::filesystem::copy_options::recursive);
  auto snap = delta::Snapshot::Load(fs_.get(), root);
  ASSERT_TRUE(snap.ok());
  for (const auto& e : std::filesystem::directory_iterator(alone + "/_delta_log")) {
    if (e.path().extension() == ".json") std::filesystem::remove(e.path());
  }
  Audit b = Auditor(alone);
  b.Run("read back from the checkpoint alone");
  auto back = delta::Snapshot::Load(fs_.get(), alone, delta::VersionSpec::Latest(),
                                    delta::LoadOptions{delta::StatsMode::kRaw});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->version(), (*snap)->version());
  std::map<std::string, std::string> from_json, from_checkpoint;
  for (const auto& f : (*snap)->files()) from_json[f.path] = f.stats ? f.stats->raw : "";
  for (const auto& f : (*back)->files()) from_checkpoint[f.path] = f.stats ? f.stats->raw : "";
  EXPECT_EQ(from_checkpoint, from_json) << "the checkpoint must carry every stats text unchanged";
}

TEST_F(StatsAudit, CopyOnWriteDeleteStreamedOptimizeAndZOrder) {
  const std::string root = MakeTable("cow", {});
  AppendAll(root, 0);
  Delete(root, kSomeOfEveryFile);
  Audit a = Auditor(root);
  a.Run("copy-on-write delete");
  EXPECT_EQ(a.files_with_dv, 0);

  AppendAll(root, 1000);
  OptimizeSpec streamed;
  streamed.columnar_rewrite = false;
  Optimize(root, streamed);
  a.Run("OPTIMIZE (streamed)");

  AppendAll(root, 2000);
  OptimizeSpec z;
  z.zorder_by = {"i32", "s"};
  Optimize(root, z);
  a.Run("OPTIMIZE ZORDER BY");
}

TEST_F(StatsAudit, LiquidClustering) {
  const std::string root = MakeTable("liquid", {}, {"i64", "dt"});
  AppendAll(root, 0);
  AppendAll(root, 1000);
  OptimizeSpec full;
  full.full = true;
  Optimize(root, full);
  Audit a = Auditor(root);
  a.Run("OPTIMIZE FULL (liquid clustering)");
}

}  // namespace
}  // namespace lithify::commands
