#include "lithify/iceberg/schema.h"

#include <charconv>
#include <set>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::iceberg {

namespace {


std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

bool ParseInt32(std::string_view s, int32_t* out) {
  std::string t = Trim(s);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && p == t.data() + t.size();
}

// "name[N]" -> N.
bool BracketParam(std::string_view text, std::string_view name, int32_t* out) {
  if (text.size() < name.size() + 3 || text.substr(0, name.size()) != name ||
      text[name.size()] != '[' || text.back() != ']') {
    return false;
  }
  return ParseInt32(text.substr(name.size() + 1, text.size() - name.size() - 2), out);
}

Result<Type> ParsePrimitive(const std::string& s) {
  static const std::map<std::string, TypeId, std::less<>> kNames = {
      {"unknown", TypeId::kUnknown},       {"boolean", TypeId::kBoolean},
      {"int", TypeId::kInt},               {"long", TypeId::kLong},
      {"float", TypeId::kFloat},           {"double", TypeId::kDouble},
      {"date", TypeId::kDate},             {"time", TypeId::kTime},
      {"timestamp", TypeId::kTimestamp},   {"timestamptz", TypeId::kTimestampTz},
      {"timestamp_ns", TypeId::kTimestampNs}, {"timestamptz_ns", TypeId::kTimestampTzNs},
      {"string", TypeId::kString},         {"uuid", TypeId::kUuid},
      {"binary", TypeId::kBinary},         {"variant", TypeId::kVariant},
      {"geometry", TypeId::kGeometry},     {"geography", TypeId::kGeography},
  };
  if (auto it = kNames.find(s); it != kNames.end()) return Type::Primitive(it->second);
  Type t;
  if (BracketParam(s, "fixed", &t.length)) {
    if (t.length <= 0) return Status::Corruption("type '{}': fixed length must be positive", s);
    t.id = TypeId::kFixed;
    return t;
  }
  if (s.rfind("decimal(", 0) == 0 && s.back() == ')') {
    std::string_view in(s);
    in = in.substr(8, in.size() - 9);
    size_t comma = in.find(',');
    if (comma != std::string_view::npos && ParseInt32(in.substr(0, comma), &t.precision) &&
        ParseInt32(in.substr(comma + 1), &t.scale)) {
      if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
        return Status::Corruption("type '{}': precision must be 1..38 and scale 0..precision", s);
      }
      t.id = TypeId::kDecimal;
      return t;
    }
  }
  for (auto [prefix, id] : {std::pair{"geometry(", TypeId::kGeometry},
                            std::pair{"geography(", TypeId::kGeography}}) {
    if (s.rfind(prefix, 0) == 0 && s.back() == ')') {
      t.id = id;
      t.text = s;
      return t;
    }
  }
  return Status::Corruption("unknown type '{}'", s);
}

Result<NestedField> ParseField(const json::Json& j, int depth) {
  NestedField f;
  LITHIFY_ASSIGN_OR_RETURN(f.id, json::ReqInt32(j, "id"));
  LITHIFY_ASSIGN_OR_RETURN(f.name, json::ReqString(j, "name"));
  LITHIFY_ASSIGN_OR_RETURN(auto req, json::OptBool(j, "required"));
  if (!req) return Status::Corruption("field '{}': missing 'required'", f.name);
  f.required = *req;
  const json::Json* t = json::Field(j, "type");
  if (t == nullptr) return Status::Corruption("field '{}': missing 'type'", f.name);
  Result<Type> type = ParseType(*t, depth + 1);
  if (!type.ok()) return type.status().WithContextF("field '{}'", f.name);
  f.type = std::move(*type);
  LITHIFY_ASSIGN_OR_RETURN(auto doc, json::OptString(j, "doc"));
  f.doc = doc.value_or("");
  if (const json::Json* d = json::Field(j, "initial-default")) f.initial_default = *d;
  if (const json::Json* d = json::Field(j, "write-default")) f.write_default = *d;
  return f;
}

Result<NestedField> ChildField(const json::Json& j, std::string_view id_key, std::string_view type_key,
                               std::string_view required_key, std::string name, bool always_required,
                               int depth) {
  NestedField f;
  f.name = std::move(name);
  LITHIFY_ASSIGN_OR_RETURN(f.id, json::ReqInt32(j, id_key));
  if (always_required) {
    f.required = true;
  } else {
    LITHIFY_ASSIGN_OR_RETURN(auto r, json::OptBool(j, required_key));
    if (!r) return Status::Corruption("missing '{}'", required_key);
    f.required = *r;
  }
  const json::Json* t = json::Field(j, type_key);
  if (t == nullptr) return Status::Corruption("missing '{}'", type_key);
  LITHIFY_ASSIGN_OR_RETURN(f.type, ParseType(*t, depth + 1));
  return f;
}

void CollectIds(const Type& t, std::vector<int32_t>* ids) {
  for (const NestedField& f : t.fields) {
    ids->push_back(f.id);
    CollectIds(f.type, ids);
  }
}

}  // namespace

std::string Type::ToString() const {
  switch (id) {
    case TypeId::kUnknown: return "unknown";
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt: return "int";
    case TypeId::kLong: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal: return fmt::format("decimal({},{})", precision, scale);
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestampTz: return "timestamptz";
    case TypeId::kTimestampNs: return "timestamp_ns";
    case TypeId::kTimestampTzNs: return "timestamptz_ns";
    case TypeId::kString: return "string";
    case TypeId::kUuid: return "uuid";
    case TypeId::kFixed: return fmt::format("fixed[{}]", length);
    case TypeId::kBinary: return "binary";
    case TypeId::kVariant: return "variant";
    case TypeId::kGeometry: return text.empty() ? "geometry" : text;
    case TypeId::kGeography: return text.empty() ? "geography" : text;
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) s += ", ";
        s += fmt::format("{}: {}: {}", fields[i].id, fields[i].name, fields[i].type.ToString());
      }
      return s + ">";
    }
    case TypeId::kList: return "list<" + fields.at(0).type.ToString() + ">";
    case TypeId::kMap:
      return "map<" + fields.at(0).type.ToString() + ", " + fields.at(1).type.ToString() + ">";
  }
  return "?";
}

Result<Type> ParseType(const json::Json& j, int depth) {
  if (depth > kMaxTypeNesting) return Status::Corruption("type nested deeper than {} levels", kMaxTypeNesting);
  if (j.is_string()) return ParsePrimitive(j.get_ref<const std::string&>());
  if (!j.is_object()) return Status::Corruption("a type must be a string or an object");
  LITHIFY_ASSIGN_OR_RETURN(std::string kind, json::ReqString(j, "type"));
  Type t;
  if (kind == "struct") {
    t.id = TypeId::kStruct;
    LITHIFY_ASSIGN_OR_RETURN(const json::Json* fields, json::ReqArray(j, "fields"));
    for (const json::Json& f : *fields) {
      LITHIFY_ASSIGN_OR_RETURN(NestedField nf, ParseField(f, depth));
      t.fields.push_back(std::move(nf));
    }
    return t;
  }
  if (kind == "list") {
    t.id = TypeId::kList;
    LITHIFY_ASSIGN_OR_RETURN(NestedField e, ChildField(j, "element-id", "element", "element-required",
                                                       "element", false, depth));
    t.fields.push_back(std::move(e));
    return t;
  }
  if (kind == "map") {
    t.id = TypeId::kMap;
    LITHIFY_ASSIGN_OR_RETURN(NestedField k, ChildField(j, "key-id", "key", "", "key", true, depth));
    LITHIFY_ASSIGN_OR_RETURN(NestedField v, ChildField(j, "value-id", "value", "value-required",
                                                       "value", false, depth));
    t.fields.push_back(std::move(k));
    t.fields.push_back(std::move(v));
    return t;
  }
  return Status::Corruption("unknown nested type '{}'", kind);
}

Result<Schema> ParseSchema(const json::Json& j) {
  LITHIFY_ASSIGN_OR_RETURN(std::string kind, json::ReqString(j, "type"));
  if (kind != "struct") return Status::Corruption("a schema must be a struct, not '{}'", kind);
  LITHIFY_ASSIGN_OR_RETURN(Type t, ParseType(j));
  Schema s;
  LITHIFY_ASSIGN_OR_RETURN(auto id, json::OptInt32(j, "schema-id"));
  s.schema_id = id.value_or(0);
  s.fields = std::move(t.fields);
  std::vector<int32_t> ids;
  Type root;
  root.id = TypeId::kStruct;
  root.fields = s.fields;
  CollectIds(root, &ids);
  std::set<int32_t> seen;
  for (int32_t i : ids) {
    if (!seen.insert(i).second) return Status::Corruption("schema {}: field id {} is used twice", s.schema_id, i);
  }
  if (const json::Json* idf = json::Field(j, "identifier-field-ids")) {
    if (!idf->is_array()) return Status::Corruption("'identifier-field-ids' is not an array");
    for (const json::Json& v : *idf) {
      if (!v.is_number_integer()) return Status::Corruption("'identifier-field-ids' holds a non-integer");
      s.identifier_field_ids.push_back(v.get<int32_t>());
    }
  }
  return s;
}

SchemaIndex::SchemaIndex(const Schema& schema) {
  for (const NestedField& f : schema.fields) Add(f, -1, false);
}

void SchemaIndex::Add(const NestedField& f, int32_t parent, bool repeated) {
  by_id_[f.id] = Entry{&f, parent, repeated};
  const bool child_repeated = repeated || f.type.id == TypeId::kList || f.type.id == TypeId::kMap;
  for (const NestedField& c : f.type.fields) Add(c, f.id, child_repeated);
}

const NestedField* SchemaIndex::Find(int32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second.field;
}

bool SchemaIndex::Repeated(int32_t id) const {
  auto it = by_id_.find(id);
  return it != by_id_.end() && it->second.repeated;
}

std::string SchemaIndex::Name(int32_t id) const {
  std::string out;
  for (int guard = 0; guard < 64; ++guard) {
    auto it = by_id_.find(id);
    if (it == by_id_.end()) break;
    out = out.empty() ? it->second.field->name : it->second.field->name + "." + out;
    id = it->second.parent;
    if (id < 0) break;
  }
  return out;
}

Result<Transform> Transform::Parse(std::string_view text) {
  Transform t;
  t.text = std::string(text);
  if (text == "identity") t.kind = Kind::kIdentity;
  else if (text == "year") t.kind = Kind::kYear;
  else if (text == "month") t.kind = Kind::kMonth;
  else if (text == "day") t.kind = Kind::kDay;
  else if (text == "hour") t.kind = Kind::kHour;
  else if (text == "void") t.kind = Kind::kVoid;
  else if (BracketParam(text, "bucket", &t.param)) {
    if (t.param <= 0) return Status::Corruption("transform '{}': bucket count must be positive", text);
    t.kind = Kind::kBucket;
  } else if (BracketParam(text, "truncate", &t.param)) {
    if (t.param <= 0) return Status::Corruption("transform '{}': width must be positive", text);
    t.kind = Kind::kTruncate;
  } else {
    t.kind = Kind::kUnknown;
  }
  return t;
}

Result<Type> Transform::ResultType(const Type& source) const {
  const TypeId s = source.id;
  auto bad = [&]() {
    return Status::InvalidArgument("transform '{}' does not apply to type {}", text, source.ToString());
  };
  auto is_temporal = [&]() {
    return s == TypeId::kDate || s == TypeId::kTimestamp || s == TypeId::kTimestampTz ||
           s == TypeId::kTimestampNs || s == TypeId::kTimestampTzNs;
  };
  switch (kind) {
    case Kind::kIdentity:
      if (!source.is_primitive() || s == TypeId::kVariant || s == TypeId::kGeometry ||
          s == TypeId::kGeography) {
        return bad();
      }
      return source;
    case Kind::kVoid: return source.is_primitive() ? source : Type::Primitive(TypeId::kInt);
    case Kind::kBucket:
      if (s == TypeId::kBoolean || s == TypeId::kFloat || s == TypeId::kDouble || !source.is_primitive() ||
          s == TypeId::kUnknown || s == TypeId::kVariant || s == TypeId::kGeometry || s == TypeId::kGeography) {
        return bad();
      }
      return Type::Primitive(TypeId::kInt);
    case Kind::kTruncate:
      if (s != TypeId::kInt && s != TypeId::kLong && s != TypeId::kDecimal && s != TypeId::kString &&
          s != TypeId::kBinary) {
        return bad();
      }
      return source;
    case Kind::kYear: case Kind::kMonth: case Kind::kDay:
      if (!is_temporal()) return bad();
      // day's result is `int` in the spec but days since the epoch; readers (Java, PyIceberg)
      // store it as a date in manifests.
      return Type::Primitive(kind == Kind::kDay ? TypeId::kDate : TypeId::kInt);
    case Kind::kHour:
      if (!is_temporal() || s == TypeId::kDate) return bad();
      return Type::Primitive(TypeId::kInt);
    case Kind::kUnknown: return Type::Primitive(TypeId::kUnknown);
  }
  return bad();
}

bool PartitionSpec::unpartitioned() const {
  for (const PartitionField& f : fields) {
    if (f.transform.kind != Transform::Kind::kVoid) return false;
  }
  return true;
}

Result<PartitionSpec> ParsePartitionFields(const json::Json& fields, int32_t spec_id, int format_version) {
  if (!fields.is_array()) return Status::Corruption("partition spec fields are not an array");
  PartitionSpec spec;
  spec.spec_id = spec_id;
  int32_t next_v1_id = 1000;
  for (const json::Json& f : fields) {
    PartitionField pf;
    LITHIFY_ASSIGN_OR_RETURN(pf.name, json::ReqString(f, "name"));
    LITHIFY_ASSIGN_OR_RETURN(std::string transform, json::ReqString(f, "transform"));
    LITHIFY_ASSIGN_OR_RETURN(pf.transform, Transform::Parse(transform));
    LITHIFY_ASSIGN_OR_RETURN(auto source, json::OptInt32(f, "source-id"));
    if (const json::Json* ids = json::Field(f, "source-ids")) {
      if (!ids->is_array()) return Status::Corruption("partition field '{}': 'source-ids' is not an array", pf.name);
      for (const json::Json& v : *ids) {
        if (!v.is_number_integer()) return Status::Corruption("partition field '{}': bad 'source-ids'", pf.name);
        pf.source_ids.push_back(v.get<int32_t>());
      }
      if (!source && pf.source_ids.size() == 1) source = pf.source_ids.front();
    }
    if (!source && pf.source_ids.empty()) return Status::Corruption("partition field '{}': missing 'source-id'", pf.name);
    pf.source_id = source.value_or(0);
    LITHIFY_ASSIGN_OR_RETURN(auto fid, json::OptInt32(f, "field-id"));
    if (!fid && format_version >= 2) return Status::Corruption("partition field '{}': missing 'field-id'", pf.name);
    pf.field_id = fid.value_or(next_v1_id);
    next_v1_id = pf.field_id + 1;
    spec.fields.push_back(std::move(pf));
  }
  return spec;
}

Result<PartitionSpec> ParsePartitionSpec(const json::Json& j, int format_version) {
  LITHIFY_ASSIGN_OR_RETURN(int32_t id, json::ReqInt32(j, "spec-id"));
  LITHIFY_ASSIGN_OR_RETURN(const json::Json* fields, json::ReqArray(j, "fields"));
  return ParsePartitionFields(*fields, id, format_version);
}

Result<SortOrder> ParseSortOrder(const json::Json& j) {
  SortOrder o;
  LITHIFY_ASSIGN_OR_RETURN(o.order_id, json::ReqInt32(j, "order-id"));
  LITHIFY_ASSIGN_OR_RETURN(const json::Json* fields, json::ReqArray(j, "fields"));
  for (const json::Json& f : *fields) {
    SortField sf;
    LITHIFY_ASSIGN_OR_RETURN(std::string transform, json::ReqString(f, "transform"));
    LITHIFY_ASSIGN_OR_RETURN(sf.transform, Transform::Parse(transform));
    LITHIFY_ASSIGN_OR_RETURN(auto source, json::OptInt32(f, "source-id"));
    sf.source_id = source.value_or(0);
    LITHIFY_ASSIGN_OR_RETURN(sf.direction, json::ReqString(f, "direction"));
    LITHIFY_ASSIGN_OR_RETURN(sf.null_order, json::ReqString(f, "null-order"));
    o.fields.push_back(std::move(sf));
  }
  return o;
}

namespace {

Result<NameMapping::Field> ParseMappingField(const json::Json& j, int depth) {
  if (depth > kMaxTypeNesting) return Status::Corruption("name mapping nested deeper than {} levels", kMaxTypeNesting);
  NameMapping::Field f;
  LITHIFY_ASSIGN_OR_RETURN(const json::Json* names, json::OptArray(j, "names"));
  if (names != nullptr) {
    for (const json::Json& n : *names) {
      if (!n.is_string()) return Status::Corruption("name mapping: 'names' holds a non-string");
      f.names.push_back(n.get<std::string>());
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(f.field_id, json::OptInt32(j, "field-id"));
  LITHIFY_ASSIGN_OR_RETURN(const json::Json* fields, json::OptArray(j, "fields"));
  if (fields != nullptr) {
    for (const json::Json& c : *fields) {
      LITHIFY_ASSIGN_OR_RETURN(NameMapping::Field cf, ParseMappingField(c, depth + 1));
      f.fields.push_back(std::move(cf));
    }
  }
  return f;
}

}  // namespace

Result<NameMapping> NameMapping::Parse(std::string_view text) {
  LITHIFY_ASSIGN_OR_RETURN(json::Json j, json::Parse(text));
  if (!j.is_array()) return Status::Corruption("name mapping is not a JSON array");
  NameMapping m;
  for (const json::Json& f : j) {
    LITHIFY_ASSIGN_OR_RETURN(NameMapping::Field mf, ParseMappingField(f, 0));
    m.fields.push_back(std::move(mf));
  }
  return m;
}

}  // namespace lithify::iceberg
