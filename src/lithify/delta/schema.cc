// Schema parsing, column mapping and partition value typing.
#include "lithify/base/civil_time.h"
#include "lithify/delta/schema.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"
#include "lithify/delta/json_util.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

using json::Json;

namespace {

Result<DataType> ParseType(const Json& j, int depth);

Result<DataType> ParsePrimitive(const std::string& name) {
  using K = DataType::Kind;
  static const std::map<std::string, K, std::less<>> kNames = {
      {"boolean", K::kBoolean}, {"byte", K::kByte}, {"short", K::kShort},
      {"integer", K::kInteger}, {"long", K::kLong}, {"float", K::kFloat},
      {"double", K::kDouble},   {"string", K::kString}, {"binary", K::kBinary},
      {"date", K::kDate},       {"timestamp", K::kTimestamp},
      {"timestamp_ntz", K::kTimestampNtz}, {"variant", K::kVariant}, {"void", K::kVoid},
  };
  DataType t;
  auto it = kNames.find(name);
  if (it != kNames.end()) {
    t.kind = it->second;
    return t;
  }
  int p = 0, s = 0;
  char tail = 0;
  // "decimal(p,s)" with optional spaces after the comma; bare "decimal" is (10,0).
  if (name == "decimal") {
    p = 10;
  } else if (std::sscanf(name.c_str(), "decimal(%d, %d%c", &p, &s, &tail) != 3 || tail != ')' ||
             name.back() != ')') {
    return Status::Corruption("unknown data type '{}'", name);
  }
  if (p < 1 || p > 38 || s < 0 || s > p) {
    return Status::Corruption("decimal type '{}' has precision/scale out of range", name);
  }
  t.kind = K::kDecimal;
  t.precision = p;
  t.scale = s;
  return t;
}

Result<StructField> ParseField(const Json& j, int depth) {
  StructField f;
  LITHIFY_ASSIGN_OR_RETURN(f.name, json::ReqString(j, "name"));
  const Json* type = json::Field(j, "type");
  if (type == nullptr) return Status::Corruption("field '{}' has no type", f.name);
  LITHIFY_ASSIGN_OR_RETURN_CTX(f.type, ParseType(*type, depth + 1), "field '{}'", f.name);
  LITHIFY_ASSIGN_OR_RETURN(auto nullable, json::OptBool(j, "nullable"));
  f.nullable = nullable.value_or(true);
  if (const Json* md = json::Field(j, "metadata"); md != nullptr && md->is_object()) {
    for (auto it = md->begin(); it != md->end(); ++it) f.metadata[it.key()] = json::Dump(it.value());
  }
  return f;
}

Result<DataType> ParseType(const Json& j, int depth) {
  if (depth > kMaxTypeNesting) return Status::Corruption("schema nested deeper than {} levels", kMaxTypeNesting);
  if (j.is_string()) return ParsePrimitive(j.get<std::string>());
  if (!j.is_object()) return Status::Corruption("data type is neither a name nor an object");
  LITHIFY_ASSIGN_OR_RETURN(std::string kind, json::ReqString(j, "type"));
  DataType t;
  if (kind == "struct") {
    t.kind = DataType::Kind::kStruct;
    const Json* fields = json::Field(j, "fields");
    if (fields == nullptr || !fields->is_array()) return Status::Corruption("struct without fields");
    for (const Json& f : *fields) {
      LITHIFY_ASSIGN_OR_RETURN(auto field, ParseField(f, depth));
      t.fields.push_back(std::move(field));
    }
    return t;
  }
  if (kind == "array") {
    t.kind = DataType::Kind::kArray;
    const Json* e = json::Field(j, "elementType");
    if (e == nullptr) return Status::Corruption("array without elementType");
    LITHIFY_ASSIGN_OR_RETURN(auto element, ParseType(*e, depth + 1));
    t.element = std::make_shared<const DataType>(std::move(element));
    LITHIFY_ASSIGN_OR_RETURN(auto cn, json::OptBool(j, "containsNull"));
    t.contains_null = cn.value_or(true);
    return t;
  }
  if (kind == "map") {
    t.kind = DataType::Kind::kMap;
    const Json* k = json::Field(j, "keyType");
    const Json* v = json::Field(j, "valueType");
    if (k == nullptr || v == nullptr) return Status::Corruption("map without keyType/valueType");
    LITHIFY_ASSIGN_OR_RETURN(auto key, ParseType(*k, depth + 1));
    LITHIFY_ASSIGN_OR_RETURN(auto value, ParseType(*v, depth + 1));
    t.key = std::make_shared<const DataType>(std::move(key));
    t.value = std::make_shared<const DataType>(std::move(value));
    LITHIFY_ASSIGN_OR_RETURN(auto vcn, json::OptBool(j, "valueContainsNull"));
    t.value_contains_null = vcn.value_or(true);
    return t;
  }
  return Status::Corruption("unknown data type '{}'", kind);
}

std::string Unquote(const std::string& json_text) {
  auto j = json::Parse(json_text);
  if (j.ok() && j->is_string()) return j->get<std::string>();
  return json_text;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

const StructField* FindField(const DataType& st, std::string_view name) {
  for (const auto& f : st.fields) {
    if (f.name == name) return &f;
  }
  const StructField* found = nullptr;
  for (const auto& f : st.fields) {
    if (EqualsIgnoreCase(f.name, name)) {
      if (found != nullptr) return nullptr;  // ambiguous
      found = &f;
    }
  }
  return found;
}

// ---- partition value text ----------------------------------------------------------

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseDate(std::string_view s, int64_t* days) {
  // [-]YYYY-MM-DD (years may have more than 4 digits)
  size_t start = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t dash1 = s.find('-', start);
  if (dash1 == std::string_view::npos || s.size() != dash1 + 6 || s[dash1 + 3] != '-') return false;
  int64_t y;
  unsigned m, d;
  if (!ParseInt(s.substr(start, dash1 - start), &y) || !ParseInt(s.substr(dash1 + 1, 2), &m) ||
      !ParseInt(s.substr(dash1 + 4, 2), &d)) {
    return false;
  }
  if (s[0] == '-') y = -y;
  // February 29 only in leap years: a day that does not exist is malformed, not the next one.
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, m, d);
  return true;
}

// "YYYY-MM-DD[ T]HH:MM:SS[.f{1,9}][Z|+HH:MM|-HH:MM]" -> micros (offset applied).
bool ParseTimestamp(std::string_view s, int64_t* micros) {
  if (s.size() < 19) return false;
  size_t sep = s.find_first_of(" T");
  if (sep == std::string_view::npos) return false;
  int64_t days;
  if (!ParseDate(s.substr(0, sep), &days)) return false;
  std::string_view t = s.substr(sep + 1);
  if (t.size() < 8 || t[2] != ':' || t[5] != ':') return false;
  int h, mi, se;
  if (!ParseInt(t.substr(0, 2), &h) || !ParseInt(t.substr(3, 2), &mi) || !ParseInt(t.substr(6, 2), &se) ||
      h > 23 || mi > 59 || se > 59) {
    return false;
  }
  t.remove_prefix(8);
  int64_t frac = 0;
  if (!t.empty() && t[0] == '.') {
    size_t n = 1;
    while (n < t.size() && std::isdigit(static_cast<unsigned char>(t[n]))) ++n;
    std::string digits(t.substr(1, n - 1));
    if (digits.empty() || digits.size() > 9) return false;
    digits.resize(6, '0');  // micros; extra nanosecond digits truncated
    digits.resize(6);
    if (!ParseInt(std::string_view(digits), &frac)) return false;
    t.remove_prefix(n);
  }
  int64_t offset_s = 0;
  if (t == "Z") {
    t = {};
  } else if (t.size() == 6 && (t[0] == '+' || t[0] == '-') && t[3] == ':') {
    int oh, om;
    if (!ParseInt(t.substr(1, 2), &oh) || !ParseInt(t.substr(4, 2), &om)) return false;
    offset_s = (oh * 3600 + om * 60) * (t[0] == '-' ? -1 : 1);
    t = {};
  }
  if (!t.empty()) return false;
  int64_t secs = days * kSecondsPerDay + h * 3600 + mi * 60 + se - offset_s;
  *micros = secs * 1000000 + frac;
  return true;
}

bool ParseDecimal(std::string_view s, int precision, int scale, __int128* out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t dot = s.find('.');
  std::string_view ip = s.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (ip.empty() && fp.empty()) return false;
  __int128 v = 0;
  int digits = 0;
  for (char c : ip) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
    if (v != 0) ++digits;
    if (digits > 38) return false;
  }
  if (static_cast<int>(fp.size()) > scale) {
    // Extra fraction digits must be zeros (no silent rounding).
    for (size_t i = scale; i < fp.size(); ++i) {
      if (fp[i] != '0') return false;
    }
    fp = fp.substr(0, scale);
  }
  for (char c : fp) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  for (int i = static_cast<int>(fp.size()); i < scale; ++i) v *= 10;
  __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  if (v >= limit) return false;
  *out = neg ? -v : v;
  return true;
}

}  // namespace

std::string DataType::ToString() const {
  switch (kind) {
    case Kind::kBoolean: return "boolean";
    case Kind::kByte: return "byte";
    case Kind::kShort: return "short";
    case Kind::kInteger: return "integer";
    case Kind::kLong: return "long";
    case Kind::kFloat: return "float";
    case Kind::kDouble: return "double";
    case Kind::kDecimal: return fmt::format("decimal({},{})", precision, scale);
    case Kind::kString: return "string";
    case Kind::kBinary: return "binary";
    case Kind::kDate: return "date";
    case Kind::kTimestamp: return "timestamp";
    case Kind::kTimestampNtz: return "timestamp_ntz";
    case Kind::kVariant: return "variant";
    case Kind::kVoid: return "void";
    case Kind::kStruct: return "struct";
    case Kind::kArray: return "array";
    case Kind::kMap: return "map";
  }
  return "?";
}

std::optional<std::string> StructField::physical_name() const {
  auto it = metadata.find("delta.columnMapping.physicalName");
  if (it == metadata.end()) return std::nullopt;
  return Unquote(it->second);
}

std::optional<int64_t> StructField::field_id() const {
  auto it = metadata.find("delta.columnMapping.id");
  if (it == metadata.end()) return std::nullopt;
  int64_t v;
  if (!ParseInt(std::string_view(it->second), &v)) return std::nullopt;
  return v;
}

Result<StructType> ParseSchema(std::string_view schema_string) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(Json j, json::Parse(schema_string), "schemaString");
  LITHIFY_ASSIGN_OR_RETURN_CTX(DataType t, ParseType(j, 0), "schemaString");
  if (t.kind != DataType::Kind::kStruct) return Status::Corruption("schemaString is not a struct");
  return t;
}

std::string_view ColumnMappingModeName(ColumnMappingMode mode) {
  switch (mode) {
    case ColumnMappingMode::kNone: return "none";
    case ColumnMappingMode::kId: return "id";
    case ColumnMappingMode::kName: return "name";
  }
  return "?";
}

Result<ColumnMappingMode> ParseColumnMappingMode(const std::map<std::string, std::string>& configuration) {
  auto it = configuration.find(prop::kColumnMappingMode.key());
  if (it == configuration.end() || it->second == "none") return ColumnMappingMode::kNone;
  if (it->second == "name") return ColumnMappingMode::kName;
  if (it->second == "id") return ColumnMappingMode::kId;
  return Status::Corruption("unknown delta.columnMapping.mode '{}'", it->second);
}

Result<PhysicalColumn> ResolvePhysicalColumn(const StructType& schema,
                                             const std::vector<std::string>& logical_path,
                                             ColumnMappingMode mode) {
  if (logical_path.empty()) return Status::InvalidArgument("empty column path");
  PhysicalColumn out;
  const DataType* current = &schema;
  for (size_t i = 0; i < logical_path.size(); ++i) {
    if (current->kind != DataType::Kind::kStruct) {
      return Status::NotFound("column '{}': '{}' is not a struct", fmt::join(logical_path, "."),
                              logical_path[i - 1]);
    }
    const StructField* f = FindField(*current, logical_path[i]);
    if (f == nullptr) return Status::NotFound("column '{}' not found", fmt::join(logical_path, "."));
    std::string physical = f->name;
    int64_t id = f->field_id().value_or(-1);
    if (mode != ColumnMappingMode::kNone) {
      auto pn = f->physical_name();
      if (!pn) {
        return Status::Corruption("column '{}' has no delta.columnMapping.physicalName in {} mode",
                                  f->name, ColumnMappingModeName(mode));
      }
      if (mode == ColumnMappingMode::kId && id < 0) {
        return Status::Corruption("column '{}' has no delta.columnMapping.id in id mode", f->name);
      }
      physical = *pn;
    }
    out.path.push_back(std::move(physical));
    out.field_ids.push_back(id);
    out.field = f;
    current = &f->type;
  }
  return out;
}

Result<table::Value> ParsePartitionValue(const DataType& type,
                                         const std::optional<std::string>& text) {
  using K = DataType::Kind;
  if (!text || text->empty()) return table::Value::Null();
  const std::string& s = *text;
  auto bad = [&]() {
    return Status::Corruption("partition value '{}' is not a valid {}", s, type.ToString());
  };
  switch (type.kind) {
    case K::kString: return table::Value::String(s);
    case K::kBinary: return table::Value::Binary(s);
    case K::kBoolean:
      if (s == "true") return table::Value::Boolean(true);
      if (s == "false") return table::Value::Boolean(false);
      return bad();
    case K::kByte:
    case K::kShort:
    case K::kInteger:
    case K::kLong: {
      int64_t v;
      if (!ParseInt(std::string_view(s), &v)) return bad();
      int64_t lo = type.kind == K::kByte ? INT8_MIN : type.kind == K::kShort ? INT16_MIN
                 : type.kind == K::kInteger ? INT32_MIN : INT64_MIN;
      int64_t hi = type.kind == K::kByte ? INT8_MAX : type.kind == K::kShort ? INT16_MAX
                 : type.kind == K::kInteger ? INT32_MAX : INT64_MAX;
      if (v < lo || v > hi) return bad();
      return table::Value::Int64(v);
    }
    case K::kFloat:
    case K::kDouble: {
      if (s == "NaN") return table::Value::Double(std::nan(""));
      if (s == "Infinity") return table::Value::Double(HUGE_VAL);
      if (s == "-Infinity") return table::Value::Double(-HUGE_VAL);
      char* end = nullptr;
      errno = 0;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) return bad();
      return table::Value::Double(d);
    }
    case K::kDecimal: {
      __int128 v;
      if (!ParseDecimal(s, type.precision, type.scale, &v)) return bad();
      return table::Value::Decimal(v, type.precision, type.scale);
    }
    case K::kDate: {
      int64_t days;
      if (!ParseDate(s, &days)) return bad();
      return table::Value::Date(days);
    }
    case K::kTimestamp:
    case K::kTimestampNtz: {
      int64_t micros;
      if (!ParseTimestamp(s, &micros)) return bad();
      return type.kind == K::kTimestamp ? table::Value::Timestamp(micros)
                                        : table::Value::TimestampNtz(micros);
    }
    default:
      return Status::NotSupported("partition column of type {}", type.ToString());
  }
}

Result<std::string> PhysicalName(const StructField& f, ColumnMappingMode mode) {
  if (mode == ColumnMappingMode::kNone) return f.name;
  auto p = f.physical_name();
  if (!p) {
    return Status::Corruption("column '{}' has no delta.columnMapping.physicalName in {} mode",
                              f.name, ColumnMappingModeName(mode));
  }
  return *p;
}

// ---- schema JSON (the writer of what ParseSchema reads) ----------------------------

namespace {

using OJson = nlohmann::ordered_json;
using Kind = DataType::Kind;

OJson TypeJson(const DataType& t);

OJson MetadataJson(const std::map<std::string, std::string>& md) {
  OJson out = OJson::object();
  for (const auto& [k, v] : md) {
    // (The value is dumped again with the schema: a deep one is kept as a string.)
    OJson parsed = JsonNestedDeeper(v) ? OJson(OJson::value_t::discarded)
                                       : OJson::parse(v, nullptr, /*allow_exceptions=*/false);
    out[k] = parsed.is_discarded() ? OJson(v) : std::move(parsed);
  }
  return out;
}

OJson FieldJson(const StructField& f) {
  OJson j;
  j["name"] = f.name;
  j["type"] = TypeJson(f.type);
  j["nullable"] = f.nullable;
  j["metadata"] = MetadataJson(f.metadata);
  return j;
}

OJson TypeJson(const DataType& t) {
  switch (t.kind) {
    case Kind::kStruct: {
      OJson fields = OJson::array();
      for (const auto& f : t.fields) fields.push_back(FieldJson(f));
      OJson j;
      j["type"] = "struct";
      j["fields"] = std::move(fields);
      return j;
    }
    case Kind::kArray: {
      OJson j;
      j["type"] = "array";
      j["elementType"] = t.element ? TypeJson(*t.element) : OJson("void");
      j["containsNull"] = t.contains_null;
      return j;
    }
    case Kind::kMap: {
      OJson j;
      j["type"] = "map";
      j["keyType"] = t.key ? TypeJson(*t.key) : OJson("void");
      j["valueType"] = t.value ? TypeJson(*t.value) : OJson("void");
      j["valueContainsNull"] = t.value_contains_null;
      return j;
    }
    default:
      return t.ToString();
  }
}

bool SamePtr(const std::shared_ptr<const DataType>& a, const std::shared_ptr<const DataType>& b) {
  if (!a || !b) return !a && !b;
  return SameType(*a, *b);
}

}  // namespace

std::string SchemaToJson(const StructType& schema) { return json::Dump(TypeJson(schema)); }

bool SameType(const DataType& a, const DataType& b) {
  if (a.kind != b.kind || a.precision != b.precision || a.scale != b.scale ||
      a.contains_null != b.contains_null || a.value_contains_null != b.value_contains_null ||
      a.fields.size() != b.fields.size()) {
    return false;
  }
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const StructField& x = a.fields[i];
    const StructField& y = b.fields[i];
    if (x.name != y.name || x.nullable != y.nullable || x.metadata != y.metadata || !SameType(x.type, y.type)) {
      return false;
    }
  }
  return SamePtr(a.element, b.element) && SamePtr(a.key, b.key) && SamePtr(a.value, b.value);
}

}  // namespace lithify::delta
