#include "lithify/delta/json_util.h"

#include <limits>

#include "lithify/base/macros.h"

namespace lithify::delta::json {

namespace {

constexpr int kMaxDepth = 128;

// Scans bracket depth outside strings; nlohmann's parser itself is iterative, but deep
// values are pointless in the log and costly to destroy, so they are refused up front.
bool TooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Result<Json> Parse(std::string_view text) {
  if (TooDeep(text)) return Status::Corruption("JSON nested deeper than {} levels", kMaxDepth);
  Json j = Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("malformed JSON");
  return j;
}

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const Json* Field(const Json& o, std::string_view field) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(field);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<std::string>> OptString(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<std::string>();
  if (!f->is_string()) return Status::Corruption("field '{}' is not a string", field);
  return std::optional<std::string>(f->get_ref<const std::string&>());
}

Result<std::optional<int64_t>> OptInt(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<int64_t>();
  if (f->is_number_unsigned()) {
    uint64_t u = f->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Corruption("field '{}' is out of the 64-bit range", field);
    }
    return std::optional<int64_t>(static_cast<int64_t>(u));
  }
  if (f->is_number_integer()) return std::optional<int64_t>(f->get<int64_t>());
  return Status::Corruption("field '{}' is not an integer", field);
}

Result<std::optional<bool>> OptBool(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<bool>();
  if (!f->is_boolean()) return Status::Corruption("field '{}' is not a boolean", field);
  return std::optional<bool>(f->get<bool>());
}

Result<std::string> ReqString(const Json& o, std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptString(o, field));
  if (!v) return Status::Corruption("missing field '{}'", field);
  return std::move(*v);
}

Result<int64_t> ReqInt(const Json& o, std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptInt(o, field));
  if (!v) return Status::Corruption("missing field '{}'", field);
  return *v;
}

Result<std::map<std::string, std::optional<std::string>>> OptStringMap(const Json& o,
                                                                       std::string_view field) {
  std::map<std::string, std::optional<std::string>> out;
  const Json* f = Field(o, field);
  if (f == nullptr) return out;
  auto value_of = [&](const Json& v) -> Result<std::optional<std::string>> {
    if (v.is_null()) return std::optional<std::string>();
    if (!v.is_string()) return Status::Corruption("map '{}' has a non-string value", field);
    return std::optional<std::string>(v.get_ref<const std::string&>());
  };
  if (f->is_object()) {
    for (auto it = f->begin(); it != f->end(); ++it) {
      LITHIFY_ASSIGN_OR_RETURN(out[it.key()], value_of(it.value()));
    }
    return out;
  }
  if (f->is_array()) {  // canonical JSON of a Parquet MAP: [{"key":k,"value":v}, ...]
    for (const Json& e : *f) {
      const Json* k = Field(e, "key");
      if (k == nullptr || !k->is_string()) {
        return Status::Corruption("map '{}' has an entry without a string key", field);
      }
      auto vit = e.find("value");
      LITHIFY_ASSIGN_OR_RETURN(out[k->get<std::string>()],
                               vit == e.end() ? Result<std::optional<std::string>>(std::nullopt)
                                              : value_of(*vit));
    }
    return out;
  }
  return Status::Corruption("field '{}' is not a map", field);
}

Result<std::map<std::string, std::string>> OptStringMapNoNulls(const Json& o,
                                                              std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto m, OptStringMap(o, field));
  std::map<std::string, std::string> out;
  for (auto& [k, v] : m) {
    if (v) out.emplace(k, std::move(*v));
  }
  return out;
}

Result<std::vector<std::string>> OptStringArray(const Json& o, std::string_view field) {
  std::vector<std::string> out;
  const Json* f = Field(o, field);
  if (f == nullptr) return out;
  if (!f->is_array()) return Status::Corruption("field '{}' is not an array", field);
  for (const Json& e : *f) {
    if (!e.is_string()) return Status::Corruption("field '{}' has a non-string element", field);
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace lithify::delta::json
