// Synthetic rows for a Delta schema. See generator.h for the contract.
//
// Every column gets a "role" once, from its name and type; rows are then produced by
// one sequential pseudo-random stream (xoshiro256**, seeded through splitmix64), so the
// output depends only on (schema, options) and not on how rows are batched.
#include "lithify/commands/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"

namespace lithify::commands {
namespace {

using parquet::Value;
using delta::DataType;
using TypeKind = delta::DataType::Kind;

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s_) w = SplitMix(&x);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) (n > 0); the multiply-shift bias is negligible here.
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
  bool Chance(double p) { return Uniform() < p; }
  // Approximately standard normal (Irwin-Hall of 4 uniforms, rescaled): cheap and
  // smooth enough for synthetic amounts.
  double Normal() { return (Uniform() + Uniform() + Uniform() + Uniform() - 2.0) * 1.7320508075688772; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> s_{};
};

// Zipf over ranks [1, n] with exponent s > 0, by rejection-inversion (Hörmann and
// Derflinger, "Rejection-inversion to generate variates from monotone discrete
// distributions", 1996): O(1) per sample without a table, for any n.
class Zipf {
 public:
  Zipf(int64_t n, double s) : n_(n), s_(s) {
    h_x1_ = H(1.5) - 1.0;
    h_n_ = H(static_cast<double>(n) + 0.5);
    threshold_ = 2.0 - HInv(H(2.5) - Pow(2.0));
  }
  int64_t Sample(Rng* rng) const {
    while (true) {
      const double u = h_n_ + rng->Uniform() * (h_x1_ - h_n_);
      const double x = HInv(u);
      auto k = static_cast<int64_t>(x + 0.5);
      k = std::clamp<int64_t>(k, 1, n_);
      const auto kd = static_cast<double>(k);
      if (kd - x <= threshold_ || u >= H(kd + 0.5) - Pow(kd)) return k;
    }
  }

 private:
  double Pow(double x) const { return std::exp(-s_ * std::log(x)); }
  // (expm1(t) / t) and (log1p(t) / t), continuous at 0.
  static double Expm1Ratio(double t) { return std::abs(t) > 1e-8 ? std::expm1(t) / t : 1.0 + t / 2.0; }
  static double Log1pRatio(double t) { return std::abs(t) > 1e-8 ? std::log1p(t) / t : 1.0 - t / 2.0; }
  // Integral of x^-s: (x^(1-s) - 1) / (1 - s), or log(x) when s == 1.
  double H(double x) const {
    const double lx = std::log(x);
    return Expm1Ratio((1.0 - s_) * lx) * lx;
  }
  double HInv(double y) const {
    double t = y * (1.0 - s_);
    t = std::max(t, -1.0);
    return std::exp(Log1pRatio(t) * y);
  }

  int64_t n_;
  double s_;
  double h_x1_ = 0, h_n_ = 0, threshold_ = 0;
};

// A small vocabulary drawn with weights 1/(rank+1).
class Vocabulary {
 public:
  explicit Vocabulary(std::vector<std::string_view> words) : words_(std::move(words)) {
    double total = 0;
    for (size_t i = 0; i < words_.size(); ++i) {
      total += 1.0 / static_cast<double>(i + 1);
      cdf_.push_back(total);
    }
    for (double& c : cdf_) c /= total;
  }
  std::string_view Pick(Rng* rng) const {
    const double u = rng->Uniform();
    auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
    return words_[std::min<size_t>(static_cast<size_t>(it - cdf_.begin()), words_.size() - 1)];
  }

 private:
  std::vector<std::string_view> words_;
  std::vector<double> cdf_;
};

const Vocabulary& Categories() {
  static const Vocabulary v({"electronics", "groceries", "clothing", "home", "toys", "books", "sports",
                             "beauty", "garden", "automotive", "music", "office"});
  return v;
}
const Vocabulary& Countries() {
  static const Vocabulary v({"US", "DE", "GB", "FR", "JP", "IN", "BR", "CA", "ES", "IT", "NL", "SE",
                             "PL", "MX", "AU", "KR"});
  return v;
}
const Vocabulary& Statuses() {
  static const Vocabulary v({"completed", "pending", "shipped", "cancelled", "refunded", "failed"});
  return v;
}
const Vocabulary& Types() {
  static const Vocabulary v({"purchase", "view", "click", "refund", "signup", "login", "logout"});
  return v;
}
constexpr std::array<std::string_view, 32> kWords = {
    "the", "order", "arrived", "late", "customer", "asked", "for", "a", "refund", "package",
    "was", "damaged", "great", "service", "will", "buy", "again", "delivery", "fast", "item",
    "missing", "from", "box", "called", "support", "twice", "gift", "wrap", "please", "thanks",
    "color", "size"};

enum class Role {
  kRandom, kEventTime, kEventDate, kSequentialId, kZipfId, kAmount, kCategory, kCountry,
  kStatus, kType, kText, kHash, kPartition,
};

// Roles whose values already come from a small domain (a partition column keeps them).
bool SmallDomain(Role r) {
  return r == Role::kEventDate || r == Role::kCategory || r == Role::kCountry || r == Role::kStatus ||
         r == Role::kType;
}

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool IsInteger(TypeKind k) {
  return k == TypeKind::kByte || k == TypeKind::kShort || k == TypeKind::kInteger || k == TypeKind::kLong;
}
bool IsTimestamp(TypeKind k) { return k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz; }

int64_t IntMax(TypeKind k) {
  switch (k) {
    case TypeKind::kByte: return 127;
    case TypeKind::kShort: return 32767;
    case TypeKind::kInteger: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

struct Column {
  const delta::StructField* field = nullptr;
  Role role = Role::kRandom;
};

// Assigns roles: the event-time column first (a timestamp named like event_time / ts /
// *time*, else the first timestamp), then the others by name; partition columns last.
std::vector<Column> AssignRoles(const delta::StructType& schema, const std::vector<std::string>& partitions,
                                int* event_time) {
  std::vector<Column> cols(schema.fields.size());
  *event_time = -1;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    cols[i].field = &schema.fields[i];
    const std::string name = AsciiLower(schema.fields[i].name);
    if (IsTimestamp(schema.fields[i].type.kind) && *event_time < 0 &&
        (name == "ts" || Contains(name, "time") || name == "timestamp")) {
      *event_time = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < schema.fields.size() && *event_time < 0; ++i) {
    if (IsTimestamp(schema.fields[i].type.kind)) *event_time = static_cast<int>(i);
  }
  if (*event_time >= 0) cols[*event_time].role = Role::kEventTime;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (static_cast<int>(i) == *event_time) continue;
    const DataType& t = cols[i].field->type;
    const std::string name = AsciiLower(cols[i].field->name);
    Role& role = cols[i].role;
    if (t.kind == TypeKind::kDate && Contains(name, "date")) {
      role = Role::kEventDate;
    } else if (IsInteger(t.kind) && name == "id") {
      role = Role::kSequentialId;
    } else if (IsInteger(t.kind) && (name == "customer_id" || EndsWith(name, "_id"))) {
      role = Role::kZipfId;
    } else if ((t.kind == TypeKind::kDecimal || t.kind == TypeKind::kDouble || t.kind == TypeKind::kFloat) &&
               (Contains(name, "amount") || Contains(name, "price"))) {
      role = Role::kAmount;
    } else if (t.kind == TypeKind::kString) {
      if (Contains(name, "categor")) {
        role = Role::kCategory;
      } else if (Contains(name, "country")) {
        role = Role::kCountry;
      } else if (Contains(name, "status")) {
        role = Role::kStatus;
      } else if (Contains(name, "type")) {
        role = Role::kType;
      } else if (Contains(name, "note") || Contains(name, "text") || Contains(name, "comment") ||
                 Contains(name, "description")) {
        role = Role::kText;
      } else if (Contains(name, "hash") || Contains(name, "md5") || Contains(name, "sha")) {
        role = Role::kHash;
      }
    }
  }
  for (Column& c : cols) {
    const std::string name = AsciiLower(c.field->name);
    const bool partition =
        std::any_of(partitions.begin(), partitions.end(), [&](const std::string& p) { return AsciiLower(p) == name; });
    if (partition && !SmallDomain(c.role) && c.field->type.kind != TypeKind::kBoolean) c.role = Role::kPartition;
  }
  return cols;
}

Status CheckGeneratable(const DataType& t, bool nullable, const std::string& path) {
  if (t.kind == TypeKind::kVariant || t.kind == TypeKind::kVoid) {
    if (!nullable) {
      return Status::InvalidArgument("column '{}': cannot generate values of type {} (NOT NULL)", path,
                                     t.ToString());
    }
    return Status::OK();
  }
  if (t.kind == TypeKind::kStruct) {
    for (const auto& f : t.fields) LITHIFY_RETURN_NOT_OK(CheckGeneratable(f.type, f.nullable, path + "." + f.name));
  } else if (t.kind == TypeKind::kArray) {
    LITHIFY_RETURN_NOT_OK(CheckGeneratable(*t.element, t.contains_null, path + ".element"));
  } else if (t.kind == TypeKind::kMap) {
    LITHIFY_RETURN_NOT_OK(CheckGeneratable(*t.key, false, path + ".key"));
    LITHIFY_RETURN_NOT_OK(CheckGeneratable(*t.value, t.value_contains_null, path + ".value"));
  }
  return Status::OK();
}

class Generator {
 public:
  Generator(const delta::StructType& schema, const GeneratorOptions& o)
      : o_(o), rng_(o.seed), cols_(AssignRoles(schema, o.partition_columns, &event_time_)) {
    const int64_t n = std::max<int64_t>(o.num_customers, 1);
    zipf_.emplace(n, o.customer_skew);
    // An odd multiplier coprime with n permutes ranks into ids, so the most frequent
    // customers are not simply 1, 2, 3.
    mult_ = 2654435761ULL % static_cast<uint64_t>(n);
    while (std::gcd(mult_, static_cast<uint64_t>(n)) != 1) ++mult_;
    offset_ = static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887) % static_cast<uint64_t>(n);
    start_us_ = o.start_time_ms * 1000;
    span_us_ = std::max<int64_t>(o.time_span_ms, 1) * 1000;
  }

  std::vector<Value> Row(int64_t index) {
    // The event time first: the date column derives from it.
    int64_t event_us = start_us_;
    if (event_time_ >= 0 || NeedsEventTime()) event_us = EventTime(index);
    std::vector<Value> row;
    row.reserve(cols_.size());
    for (const Column& c : cols_) row.push_back(ColumnValue(c, index, event_us));
    return row;
  }

 private:
  // Whether a column derives from the event time without being it (dates, and the day
  // of a date or timestamp partition column).
  bool NeedsEventTime() const {
    for (const Column& c : cols_) {
      if (c.role == Role::kEventDate) return true;
      if (c.role == Role::kPartition && (c.field->type.kind == TypeKind::kDate || IsTimestamp(c.field->type.kind))) {
        return true;
      }
    }
    return false;
  }

  // One of kPartitionDomain values of the column's type.
  Value PartitionValue(const DataType& t, int64_t event_us) {
    const auto k = static_cast<int64_t>(rng_.Below(kPartitionDomain)) + 1;
    switch (t.kind) {
      case TypeKind::kDate: return Value::Int(FloorDiv(event_us, kMicrosPerDay));
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz: return Value::Int(FloorDiv(event_us, kMicrosPerDay) * kMicrosPerDay);
      case TypeKind::kString: return Value::String(std::string(kWords[static_cast<size_t>(k - 1)]));
      case TypeKind::kBinary: return Value::Bytes(std::string(1, static_cast<char>(k)));
      case TypeKind::kFloat:
      case TypeKind::kDouble: return Value::Double(static_cast<double>(k));
      case TypeKind::kDecimal: return Value::Decimal(k);  // unscaled: fits any precision
      default: return Value::Int(k);                      // byte .. long
    }
  }

  // Evenly spread over [start, start + span) in row order, jittered by up to two rows'
  // worth of time and kept inside the range.
  int64_t EventTime(int64_t index) {
    const double rows = static_cast<double>(std::max<int64_t>(o_.rows, 1));
    double pos = (static_cast<double>(index) + 4.0 * rng_.Uniform() - 1.5) / rows;
    pos = std::clamp(pos, 0.0, 1.0);
    auto off = static_cast<int64_t>(pos * static_cast<double>(span_us_));
    off = std::min(off, span_us_ - 1);
    return start_us_ + off;
  }

  Value ColumnValue(const Column& c, int64_t index, int64_t event_us) {
    const DataType& t = c.field->type;
    const bool nullable = c.field->nullable;
    switch (c.role) {
      case Role::kEventTime: return Value::Int(event_us);
      case Role::kEventDate: return Value::Int(FloorDiv(event_us, kMicrosPerDay));
      case Role::kSequentialId: return Value::Int(std::min<int64_t>(index + 1, IntMax(t.kind)));
      case Role::kZipfId: {
        const int64_t n = std::min<int64_t>(o_.num_customers, IntMax(t.kind));
        const uint64_t rank = static_cast<uint64_t>(zipf_->Sample(&rng_) - 1);
        const auto id = static_cast<int64_t>((static_cast<unsigned __int128>(rank) * mult_ + offset_) %
                                             static_cast<uint64_t>(o_.num_customers)) + 1;
        return Value::Int(n < o_.num_customers ? (id - 1) % n + 1 : id);
      }
      case Role::kAmount: {
        const double x = std::exp(3.5 + 1.1 * rng_.Normal());  // median about 33
        if (t.kind == TypeKind::kDecimal) {
          const __int128 max = Pow10(t.precision) - 1;
          static constexpr std::array<double, 19> kPow10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                                            1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
          __int128 v = static_cast<__int128>(std::llround(x * kPow10[std::min(t.scale, 18)]));
          for (int s = 18; s < t.scale; ++s) v *= 10;
          return Value::Decimal(std::clamp<__int128>(v, 1, max));
        }
        return Value::Double(std::round(x * 100.0) / 100.0);
      }
      case Role::kCategory: return Value::String(std::string(Categories().Pick(&rng_)));
      case Role::kCountry: return Value::String(std::string(Countries().Pick(&rng_)));
      case Role::kStatus: return Value::String(std::string(Statuses().Pick(&rng_)));
      case Role::kType: return Value::String(std::string(Types().Pick(&rng_)));
      case Role::kText:
        if (nullable && rng_.Chance(0.2)) return Value::Null();
        return Value::String(Text());
      case Role::kHash: return Value::String(Hash());
      case Role::kPartition: return PartitionValue(t, event_us);
      case Role::kRandom: break;
    }
    return Random(t, nullable, 0);
  }

  // 32 lower-case hex digits of 128 random bits, as an MD5 digest prints: a high-entropy
  // string no dictionary helps with (issue 18's benchmark mix).
  std::string Hash() {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s(32, '0');
    for (int half = 0; half < 2; ++half) {
      uint64_t bits = rng_.Next();
      for (int i = 0; i < 16; ++i, bits >>= 4) s[half * 16 + i] = kHex[bits & 15];
    }
    return s;
  }

  std::string Text() {
    const auto target = static_cast<size_t>(rng_.Below(201));
    std::string s;
    s.reserve(target + 16);
    while (s.size() < target) {
      if (!s.empty()) s.push_back(' ');
      s.append(kWords[rng_.Below(kWords.size())]);
    }
    if (s.size() > 200) s.resize(200);
    return s;
  }

  Value Random(const DataType& t, bool nullable, int depth) {
    if (t.kind == TypeKind::kVariant || t.kind == TypeKind::kVoid) return Value::Null();
    if (nullable && rng_.Chance(0.05)) return Value::Null();
    switch (t.kind) {
      case TypeKind::kBoolean: return Value::Bool(rng_.Next() & 1);
      case TypeKind::kByte: return Value::Int(static_cast<int8_t>(rng_.Next()));
      case TypeKind::kShort: return Value::Int(static_cast<int16_t>(rng_.Next()));
      case TypeKind::kInteger: return Value::Int(static_cast<int32_t>(rng_.Below(2000001)) - 1000000);
      case TypeKind::kLong: return Value::Int(static_cast<int64_t>(rng_.Below(2000000001)) - 1000000000);
      case TypeKind::kFloat: return Value::Double(static_cast<float>(rng_.Uniform() * 2000.0 - 1000.0));
      case TypeKind::kDouble: return Value::Double(rng_.Uniform() * 2000.0 - 1000.0);
      case TypeKind::kDecimal: {
        const int digits = std::min(t.precision, 18);
        const auto bound = static_cast<uint64_t>(Pow10(digits));
        __int128 v = static_cast<__int128>(rng_.Below(bound));
        return Value::Decimal(rng_.Next() & 1 ? -v : v);
      }
      case TypeKind::kString: return Value::String(std::string(kWords[rng_.Below(kWords.size())]));
      case TypeKind::kBinary: {
        std::string b(rng_.Below(17), '\0');
        for (char& ch : b) ch = static_cast<char>(rng_.Next());
        return Value::Bytes(std::move(b));
      }
      case TypeKind::kDate:
        return Value::Int(FloorDiv(start_us_, kMicrosPerDay) - 3650 + static_cast<int64_t>(rng_.Below(3651)));
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampNtz:
        return Value::Int(start_us_ + static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(span_us_))));
      case TypeKind::kStruct: {
        std::vector<Value> fields;
        fields.reserve(t.fields.size());
        for (const auto& f : t.fields) fields.push_back(Random(f.type, f.nullable, depth + 1));
        return Value::Struct(std::move(fields));
      }
      case TypeKind::kArray: {
        const uint64_t n = depth > 4 ? 0 : rng_.Below(5);
        std::vector<Value> items;
        items.reserve(n);
        for (uint64_t i = 0; i < n; ++i) items.push_back(Random(*t.element, t.contains_null, depth + 1));
        return Value::List(std::move(items));
      }
      case TypeKind::kMap: {
        uint64_t n = depth > 4 ? 0 : rng_.Below(4);
        if (t.key->kind == TypeKind::kBoolean) n = std::min<uint64_t>(n, 2);
        std::vector<std::pair<Value, Value>> entries;
        for (uint64_t i = 0; i < n; ++i) {
          entries.emplace_back(DistinctKey(*t.key, i), Random(*t.value, t.value_contains_null, depth + 1));
        }
        return Value::Map(std::move(entries));
      }
      default: return Value::Null();
    }
  }

  // The i-th key of a map: distinct for distinct i (i < 4), of the key's type.
  Value DistinctKey(const DataType& t, uint64_t i) {
    const auto n = static_cast<int64_t>(i);
    switch (t.kind) {
      case TypeKind::kBoolean: return Value::Bool(i == 1);
      case TypeKind::kFloat:
      case TypeKind::kDouble: return Value::Double(static_cast<double>(n));
      case TypeKind::kDecimal: return Value::Decimal(n);
      case TypeKind::kString: return Value::String(fmt::format("{}{}", kWords[rng_.Below(kWords.size())], n));
      case TypeKind::kBinary: return Value::Bytes(std::string(1, static_cast<char>(n)));
      case TypeKind::kStruct: {
        // Structs as keys: the first field carries the distinction.
        std::vector<Value> fields;
        for (size_t f = 0; f < t.fields.size(); ++f) {
          fields.push_back(f == 0 ? DistinctKey(t.fields[f].type, i) : Random(t.fields[f].type, false, 5));
        }
        return Value::Struct(std::move(fields));
      }
      case TypeKind::kArray: return Value::List({DistinctKey(*t.element, i)});
      case TypeKind::kMap: return Value::Map({{DistinctKey(*t.key, i), Random(*t.value, false, 5)}});
      default: return Value::Int(n);  // integers, dates, timestamps
    }
  }

  const GeneratorOptions& o_;
  Rng rng_;
  int event_time_ = -1;
  std::vector<Column> cols_;
  std::optional<Zipf> zipf_;
  uint64_t mult_ = 1;
  uint64_t offset_ = 0;
  int64_t start_us_ = 0;
  int64_t span_us_ = 1;
};

}  // namespace

Status GenerateRows(const delta::StructType& schema, const GeneratorOptions& options,
                    const RowSink& sink, size_t batch_rows) {
  if (batch_rows == 0) return Status::InvalidArgument("batch_rows must be at least 1");
  if (options.rows < 0) return Status::InvalidArgument("rows must not be negative, got {}", options.rows);
  if (options.time_span_ms < 0) {
    return Status::InvalidArgument("time span must not be negative, got {} ms", options.time_span_ms);
  }
  if (options.num_customers < 1) {
    return Status::InvalidArgument("num_customers must be at least 1, got {}", options.num_customers);
  }
  if (!(options.customer_skew > 0) || !std::isfinite(options.customer_skew)) {
    return Status::InvalidArgument("customer_skew must be positive, got {}", options.customer_skew);
  }
  if (options.start_time_ms > std::numeric_limits<int64_t>::max() / 1000 - options.time_span_ms ||
      options.start_time_ms < std::numeric_limits<int64_t>::min() / 1000) {
    return Status::InvalidArgument("start time {} ms is out of range", options.start_time_ms);
  }
  if (schema.kind != TypeKind::kStruct) {
    return Status::InvalidArgument("the table schema must be a struct, got {}", schema.ToString());
  }
  for (const auto& f : schema.fields) LITHIFY_RETURN_NOT_OK(CheckGeneratable(f.type, f.nullable, f.name));
  Generator gen(schema, options);
  int64_t done = 0;
  while (done < options.rows) {
    const auto n = static_cast<int64_t>(std::min<uint64_t>(batch_rows, static_cast<uint64_t>(options.rows - done)));
    std::vector<std::vector<Value>> rows;
    rows.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows.push_back(gen.Row(done + i));
    done += n;
    LITHIFY_RETURN_NOT_OK(sink(std::move(rows)));
  }
  return Status::OK();
}

std::string DemoSchemaDdl() {
  return "event_time timestamp, event_date date, customer_id long, amount decimal(12,2), "
         "category string, country string, note string";
}

}  // namespace lithify::commands
