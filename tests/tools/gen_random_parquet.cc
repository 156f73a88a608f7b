// lithify_testgen: writes a seeded random Parquet file through lithify's writer and the
// rows it holds as canonical JSON lines, for the DuckDB round-trip oracle.
//
//   lithify_testgen --seed S --out FILE.parquet --expect FILE.jsonl [--rows N] [--codec C]
//
// The schema (1-8 top-level fields over every Delta type, nullable and required, structs,
// lists and maps nested up to depth 3), the values (extremes, NaN, infinities, -0.0,
// empty/long/unicode strings, all-null columns, dates and timestamps before 1970) and
// the writer settings (codec, dictionary on/off and fallback, small pages and row
// groups, page checksums) all derive from the seed, so a failing seed reproduces.
// The expected JSON is rendered here from the generator's own value tree, deliberately
// not through rows_json.cc, so that the oracle checks lithify's renderer independently.
// Single-threaded.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::testgen {
namespace {

using parquet::FieldSpec;
using parquet::FieldType;
using parquet::Value;

constexpr int kMaxDepth = 3;
constexpr int64_t kMinDate = DaysFromCivil(1, 1, 1);
constexpr int64_t kMaxDate = DaysFromCivil(9999, 12, 31);

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  // Uniform in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  bool Chance(double p) { return Real(0, 1) < p; }
  double Real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  uint64_t Bits() { return gen_(); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[static_cast<size_t>(Int(0, static_cast<int64_t>(v.size()) - 1))]; }

 private:
  std::mt19937_64 gen_;
};

// --------------------------------------------------------------------------- schema

// Per-field generation knobs that are not part of the Parquet schema.
struct FieldPlan {
  FieldSpec spec;
  bool all_null = false;  // every value of a nullable field is null
  std::vector<FieldPlan> children;
};

FieldType RandomPrimitive(Rng& rng) {
  static const std::vector<FieldType> kTypes = {
      FieldType::kBoolean, FieldType::kByte, FieldType::kShort, FieldType::kInt,
      FieldType::kLong, FieldType::kFloat, FieldType::kDouble, FieldType::kString,
      FieldType::kBinary, FieldType::kDecimal, FieldType::kDate, FieldType::kTimestamp,
      FieldType::kTimestampNtz};
  return rng.Pick(kTypes);
}

FieldPlan PrimitivePlan(Rng& rng, std::string name, FieldType t, bool nullable) {
  FieldPlan p;
  p.spec = FieldSpec::Primitive(std::move(name), t, nullable);
  if (t == FieldType::kDecimal) {
    // Favour the physical-type boundaries (9, 18, 38 digits).
    static const std::vector<int> kPrecisions = {1, 5, 9, 10, 18, 19, 25, 38};
    p.spec.precision = rng.Pick(kPrecisions);
    p.spec.scale = static_cast<int32_t>(rng.Int(0, p.spec.precision));
  }
  return p;
}

FieldPlan RandomPlan(Rng& rng, const std::string& name, int depth, bool nullable) {
  FieldPlan p;
  int choice = depth < kMaxDepth ? static_cast<int>(rng.Int(0, 9)) : 0;
  if (choice == 7) {
    int n = static_cast<int>(rng.Int(1, 3));
    std::vector<FieldSpec> specs;
    for (int i = 0; i < n; ++i) {
      p.children.push_back(RandomPlan(rng, fmt::format("f{}", i), depth + 1, rng.Chance(0.7)));
      specs.push_back(p.children.back().spec);
    }
    p.spec = FieldSpec::Struct(name, std::move(specs), nullable);
  } else if (choice == 8) {
    p.children.push_back(RandomPlan(rng, "element", depth + 1, rng.Chance(0.7)));
    p.spec = FieldSpec::List(name, p.children[0].spec, nullable);
    p.children[0].spec = p.spec.children[0];
  } else if (choice == 9) {
    // DuckDB needs unique non-null keys; keep keys to types whose equality is exact.
    static const std::vector<FieldType> kKeyTypes = {FieldType::kInt, FieldType::kLong,
                                                     FieldType::kString, FieldType::kDate,
                                                     FieldType::kShort};
    p.children.push_back(PrimitivePlan(rng, "key", rng.Pick(kKeyTypes), false));
    p.children.push_back(RandomPlan(rng, "value", depth + 1, rng.Chance(0.7)));
    p.spec = FieldSpec::Map(name, p.children[0].spec, p.children[1].spec, nullable);
    p.children[0].spec = p.spec.children[0];
    p.children[1].spec = p.spec.children[1];
  } else {
    p = PrimitivePlan(rng, name, RandomPrimitive(rng), nullable);
  }
  p.all_null = nullable && rng.Chance(0.08);
  return p;
}

// --------------------------------------------------------------------------- values

std::string RandomUtf8(Rng& rng, size_t min_len, size_t max_len) {
  static const std::vector<std::string> kPieces = {
      "a", "b", "z", "A", " ", "0", "9", "é", "ß", "Ω", "日本", "語", "😀", "🦀", "\u00a0",
      "\"", "\\", "\n", "\t", "\x01", "\x1f", "/", "\u2028", "\U0010FFFF", "~"};
  size_t target = static_cast<size_t>(rng.Int(static_cast<int64_t>(min_len),
                                               static_cast<int64_t>(max_len)));
  std::string s;
  while (s.size() < target) s += rng.Pick(kPieces);
  return s;
}

std::string RandomString(Rng& rng) {
  switch (rng.Int(0, 7)) {
    case 0: return "";
    case 1: return RandomUtf8(rng, 65, 200);  // longer than the statistics limit
    case 2: return std::string(static_cast<size_t>(rng.Int(65, 100)), 'z') + RandomUtf8(rng, 0, 3);
    case 3: return "\U0010FFFF\U0010FFFF" + RandomUtf8(rng, 70, 90);  // max-byte prefix
    case 4: return fmt::format("k{}", rng.Int(0, 20));  // repeats: dictionary hits
    default: return RandomUtf8(rng, 0, 12);
  }
}

std::string RandomBytes(Rng& rng) {
  size_t n = rng.Chance(0.1) ? 0 : static_cast<size_t>(rng.Int(1, rng.Chance(0.2) ? 120 : 16));
  std::string s(n, '\0');
  bool ff = rng.Chance(0.1);  // 0xFF runs exercise truncation carry
  for (auto& c : s) c = static_cast<char>(ff ? 0xFF : rng.Int(0, 255));
  return s;
}

int64_t RandomInteger(Rng& rng, int64_t lo, int64_t hi) {
  switch (rng.Int(0, 6)) {
    case 0: return lo;
    case 1: return hi;
    case 2: return 0;
    case 3: return rng.Int(std::max<int64_t>(lo, -3), std::min<int64_t>(hi, 3));
    case 4: return rng.Int(std::max<int64_t>(lo, -1000), std::min<int64_t>(hi, 1000));
    default: return rng.Int(lo, hi);
  }
}

double RandomDouble(Rng& rng) {
  switch (rng.Int(0, 12)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return -0.0;
    case 4: return 0.0;
    case 5: return std::numeric_limits<double>::max();
    case 6: return -std::numeric_limits<double>::denorm_min();
    case 7: return static_cast<double>(rng.Int(-100, 100)) / 8;
    case 8: {
      uint64_t bits = rng.Bits();
      double d;
      std::memcpy(&d, &bits, 8);
      return std::isnan(d) ? 1.5 : d;
    }
    default: return rng.Real(-1e6, 1e6);
  }
}

float RandomFloat(Rng& rng) {
  switch (rng.Int(0, 10)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return -0.0f;
    case 4: return std::numeric_limits<float>::max();
    case 5: return std::numeric_limits<float>::denorm_min();
    case 6: {
      uint32_t bits = static_cast<uint32_t>(rng.Bits());
      float f;
      std::memcpy(&f, &bits, 4);
      return std::isnan(f) ? 2.5f : f;
    }
    default: return static_cast<float>(rng.Int(-1000000, 1000000)) / 1024.0f;
  }
}

__int128 Pow10(int p) {
  __int128 r = 1;
  for (int i = 0; i < p; ++i) r *= 10;
  return r;
}

__int128 RandomDecimal(Rng& rng, int precision) {
  __int128 max = Pow10(precision) - 1;
  switch (rng.Int(0, 5)) {
    case 0: return max;
    case 1: return -max;
    case 2: return 0;
    default: {
      int digits = static_cast<int>(rng.Int(1, precision));
      __int128 v = 0;
      for (int i = 0; i < digits; ++i) v = v * 10 + rng.Int(0, 9);
      return rng.Chance(0.5) ? -v : v;
    }
  }
}

Value RandomValue(Rng& rng, const FieldPlan& p) {
  const FieldSpec& f = p.spec;
  if (p.all_null || (f.nullable && rng.Chance(0.15))) return Value::Null();
  switch (f.type) {
    case FieldType::kBoolean: return Value::Bool(rng.Chance(0.5));
    case FieldType::kByte: return Value::Int(RandomInteger(rng, -128, 127));
    case FieldType::kShort: return Value::Int(RandomInteger(rng, -32768, 32767));
    case FieldType::kInt: return Value::Int(RandomInteger(rng, INT32_MIN, INT32_MAX));
    case FieldType::kLong: return Value::Int(RandomInteger(rng, INT64_MIN, INT64_MAX));
    case FieldType::kFloat: return Value::Double(RandomFloat(rng));
    case FieldType::kDouble: return Value::Double(RandomDouble(rng));
    case FieldType::kString: return Value::String(RandomString(rng));
    case FieldType::kBinary: return Value::Bytes(RandomBytes(rng));
    case FieldType::kDecimal: return Value::Decimal(RandomDecimal(rng, f.precision));
    case FieldType::kDate: return Value::Int(RandomInteger(rng, kMinDate, kMaxDate));
    case FieldType::kTimestamp:
    case FieldType::kTimestampNtz:
      return Value::Int(RandomInteger(rng, kMinDate * kMicrosPerDay,
                                      (kMaxDate + 1) * kMicrosPerDay - 1));
    case FieldType::kStruct: {
      std::vector<Value> fields;
      for (const FieldPlan& c : p.children) fields.push_back(RandomValue(rng, c));
      return Value::Struct(std::move(fields));
    }
    case FieldType::kList: {
      std::vector<Value> items;
      int64_t n = rng.Int(0, 4);
      for (int64_t i = 0; i < n; ++i) items.push_back(RandomValue(rng, p.children[0]));
      return Value::List(std::move(items));
    }
    case FieldType::kMap: {
      std::vector<std::pair<Value, Value>> entries;
      std::vector<std::string> seen;  // keys rendered, for uniqueness
      int64_t n = rng.Int(0, 4);
      for (int64_t i = 0; i < n; ++i) {
        Value k = RandomValue(rng, p.children[0]);
        std::string key = k.kind() == Value::Kind::kBytes ? "s" + k.bytes()
                                                          : fmt::format("i{}", k.int_value());
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        entries.emplace_back(std::move(k), RandomValue(rng, p.children[1]));
      }
      return Value::Map(std::move(entries));
    }
  }
  return Value::Null();
}

// --------------------------------------------------------------------------- JSON

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          *out += fmt::format("\\u{:04x}", c);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

std::string Base64(std::string_view in) {
  static const char* kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (rest == 2) v |= uint8_t(in[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string DecimalText(__int128 v, int scale) {
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : v;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) {
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return neg ? "-" + digits : digits;
}

template <typename T>
std::string FloatText(T v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  return fmt::format("{}", v);  // shortest round-trip for T
}

void RenderJson(const FieldSpec& f, const Value& v, std::string* out) {
  if (v.is_null()) {
    *out += "null";
    return;
  }
  switch (f.type) {
    case FieldType::kBoolean: *out += v.bool_value() ? "true" : "false"; return;
    case FieldType::kByte: case FieldType::kShort: case FieldType::kInt: case FieldType::kLong:
      *out += std::to_string(v.int_value());
      return;
    case FieldType::kFloat: *out += FloatText(static_cast<float>(v.double_value())); return;
    case FieldType::kDouble: *out += FloatText(v.double_value()); return;
    case FieldType::kString: AppendJsonString(v.bytes(), out); return;
    case FieldType::kBinary: AppendJsonString(Base64(v.bytes()), out); return;
    case FieldType::kDecimal: AppendJsonString(DecimalText(v.decimal(), f.scale), out); return;
    case FieldType::kDate: AppendJsonString(IsoDateText(v.int_value()), out); return;
    case FieldType::kTimestamp:
      AppendJsonString(IsoTimestampMicrosText(v.int_value(), true), out);
      return;
    case FieldType::kTimestampNtz:
      AppendJsonString(IsoTimestampMicrosText(v.int_value(), false), out);
      return;
    case FieldType::kStruct:
      out->push_back('{');
      for (size_t i = 0; i < f.children.size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(f.children[i].name, out);
        out->push_back(':');
        RenderJson(f.children[i], v.items()[i], out);
      }
      out->push_back('}');
      return;
    case FieldType::kList:
      out->push_back('[');
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out->push_back(',');
        RenderJson(f.children[0], v.items()[i], out);
      }
      out->push_back(']');
      return;
    case FieldType::kMap:
      out->push_back('[');
      for (size_t i = 0; i < v.map_size(); ++i) {
        if (i) out->push_back(',');
        *out += "{\"key\":";
        RenderJson(f.children[0], v.map_key(i), out);
        *out += ",\"value\":";
        RenderJson(f.children[1], v.map_value(i), out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
  }
}

// --------------------------------------------------------------------------- main

struct Args {
  uint64_t seed = 0;
  std::string out;
  std::string expect;
  int64_t rows = -1;
  std::string codec;
};

Status Run(const Args& args) {
  Rng rng(args.seed);
  int num_fields = static_cast<int>(rng.Int(1, 8));
  std::vector<FieldPlan> plans;
  std::vector<FieldSpec> specs;
  for (int i = 0; i < num_fields; ++i) {
    plans.push_back(RandomPlan(rng, fmt::format("c{}", i), 1, rng.Chance(0.75)));
    specs.push_back(plans.back().spec);
  }
  LITHIFY_ASSIGN_OR_RETURN(parquet::Schema schema, parquet::BuildSchema(specs));

  parquet::WriterOptions opts;
  static const std::vector<parquet::CompressionCodec> kCodecs = {
      parquet::CompressionCodec::kUncompressed, parquet::CompressionCodec::kSnappy,
      parquet::CompressionCodec::kGzip, parquet::CompressionCodec::kZstd,
      parquet::CompressionCodec::kLz4Raw};
  opts.codec = rng.Pick(kCodecs);
  if (!args.codec.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(opts.codec, parquet::ParseCodecName(args.codec));
  }
  opts.enable_dictionary = rng.Chance(0.7);
  opts.dictionary_page_size_limit = rng.Chance(0.3) ? rng.Int(16, 512) : (1 << 20);
  opts.page_size_bytes = rng.Chance(0.4) ? rng.Int(64, 4096) : (1 << 20);
  opts.row_group_size_bytes = rng.Chance(0.4) ? rng.Int(256, 16384) : (128 << 20);
  opts.write_page_checksums = rng.Chance(0.7);
  opts.key_value_metadata.push_back({"lithify.testgen.seed", std::to_string(args.seed)});

  int64_t rows = args.rows;
  if (rows < 0) {
    switch (rng.Int(0, 5)) {
      case 0: rows = 0; break;
      case 1: rows = 1; break;
      case 2: rows = rng.Int(2, 50); break;
      default: rows = rng.Int(51, 1500); break;
    }
  }
  const int64_t batch_rows = rng.Int(1, 600);

  auto fs = io::NewLocalFileSystem();
  LITHIFY_ASSIGN_OR_RETURN(auto stream, fs->Create(args.out));
  LITHIFY_ASSIGN_OR_RETURN(auto writer,
                           parquet::FileWriter::Open(std::move(stream), schema, opts));
  parquet::RowBatchBuilder builder(writer->schema());
  std::string expected;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<Value> row;
    expected.push_back('{');
    for (size_t i = 0; i < plans.size(); ++i) {
      row.push_back(RandomValue(rng, plans[i]));
      if (i) expected.push_back(',');
      AppendJsonString(plans[i].spec.name, &expected);
      expected.push_back(':');
      RenderJson(plans[i].spec, row.back(), &expected);
    }
    expected += "}\n";
    LITHIFY_RETURN_NOT_OK_CTX(builder.Append(row), "row {}", r);
    if (builder.num_rows() >= batch_rows) {
      LITHIFY_RETURN_NOT_OK(writer->WriteBatch(builder.Finish()));
    }
  }
  if (builder.num_rows() > 0) LITHIFY_RETURN_NOT_OK(writer->WriteBatch(builder.Finish()));
  LITHIFY_RETURN_NOT_OK(writer->Close().status());

  std::ofstream ef(args.expect, std::ios::binary | std::ios::trunc);
  ef << expected;
  ef.close();
  if (!ef) return Status::IOError("{}: cannot write", args.expect);
  return Status::OK();
}

}  // namespace
}  // namespace lithify::testgen

int main(int argc, char** argv) {
  lithify::testgen::Args args;
  CLI::App app{"Writes a seeded random Parquet file and its rows as canonical JSON lines"};
  app.add_option("--seed", args.seed, "Random seed")->required();
  app.add_option("--out", args.out, "Parquet file to write")->required();
  app.add_option("--expect", args.expect, "JSON lines file of the expected rows")->required();
  app.add_option("--rows", args.rows, "Number of rows (default: random, sometimes 0)");
  app.add_option("--codec", args.codec, "Compression codec (default: random)");
  CLI11_PARSE(app, argc, argv);
  lithify::Status st = lithify::testgen::Run(args);
  if (!st.ok()) {
    std::cerr << "lithify_testgen: " << st.ToString() << std::endl;
    return 1;
  }
  return 0;
}
