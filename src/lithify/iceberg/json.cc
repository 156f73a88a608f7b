#include "lithify/iceberg/json.h"

#include <limits>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::iceberg::json {


Result<Json> Parse(std::string_view text) {
  // Refused before nlohmann builds a tree that its dump and copy (and the schema walks)
  // would recurse through.
  if (JsonNestedDeeper(text)) return Status::Corruption("JSON nested deeper than {} levels", kMaxJsonNesting);
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("malformed JSON");
  return j;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

const Json* Field(const Json& o, std::string_view name) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(name);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<int64_t>> OptInt(const Json& o, std::string_view name) {
  const Json* f = Field(o, name);
  if (f == nullptr) return std::optional<int64_t>();
  if (f->is_number_integer()) return std::optional<int64_t>(f->get<int64_t>());
  if (f->is_number_unsigned()) {
    auto u = f->get<uint64_t>();
    // Java reads a JSON integer above 2^63 - 1 as its low 64 bits; some writers put
    // unsigned snapshot ids there.
    return std::optional<int64_t>(static_cast<int64_t>(u));
  }
  return Status::Corruption("field '{}' is not a 64-bit integer", name);
}

Result<int64_t> ReqInt(const Json& o, std::string_view name) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptInt(o, name));
  if (!v) return Status::Corruption("missing field '{}'", name);
  return *v;
}

Result<std::optional<int32_t>> OptInt32(const Json& o, std::string_view name) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptInt(o, name));
  if (!v) return std::optional<int32_t>();
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption("field '{}' is out of the 32-bit range", name);
  }
  return std::optional<int32_t>(static_cast<int32_t>(*v));
}

Result<int32_t> ReqInt32(const Json& o, std::string_view name) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptInt32(o, name));
  if (!v) return Status::Corruption("missing field '{}'", name);
  return *v;
}

Result<std::optional<std::string>> OptString(const Json& o, std::string_view name) {
  const Json* f = Field(o, name);
  if (f == nullptr) return std::optional<std::string>();
  if (!f->is_string()) return Status::Corruption("field '{}' is not a string", name);
  return std::optional<std::string>(f->get_ref<const std::string&>());
}

Result<std::string> ReqString(const Json& o, std::string_view name) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptString(o, name));
  if (!v) return Status::Corruption("missing field '{}'", name);
  return *v;
}

Result<std::optional<bool>> OptBool(const Json& o, std::string_view name) {
  const Json* f = Field(o, name);
  if (f == nullptr) return std::optional<bool>();
  if (!f->is_boolean()) return Status::Corruption("field '{}' is not a boolean", name);
  return std::optional<bool>(f->get<bool>());
}

Result<const Json*> OptArray(const Json& o, std::string_view name) {
  const Json* f = Field(o, name);
  if (f != nullptr && !f->is_array()) return Status::Corruption("field '{}' is not an array", name);
  return f;
}

Result<const Json*> ReqArray(const Json& o, std::string_view name) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* f, OptArray(o, name));
  if (f == nullptr) return Status::Corruption("missing field '{}'", name);
  return f;
}

}  // namespace lithify::iceberg::json
