// Internal adapter over nlohmann::json for the iceberg module (not used outside
// src/lithify/iceberg).
//
// Parsing runs with exceptions disabled and every access is type-checked first, so no
// nlohmann exception leaves this adapter. Errors are Corruption messages naming the
// field; callers add the file. Stateless; thread-safe.
//
// (delta/json_util.h holds the same kind of adapter for the Delta module; iceberg may not
// include delta/, so the few accessors it needs are here. A base-level JSON adapter
// would serve both.)
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lithify/base/result.h"

namespace lithify::iceberg::json {

using Json = nlohmann::json;

// One JSON document; Corruption for malformed JSON or nesting deeper than
// kMaxJsonNesting (base/nesting.h) levels, checked on the text first.
Result<Json> Parse(std::string_view text);
std::string Dump(const Json& j);

// The field's value, or nullptr when absent or null (or `o` is not an object).
const Json* Field(const Json& o, std::string_view name);
Result<std::optional<int64_t>> OptInt(const Json& o, std::string_view name);
Result<int64_t> ReqInt(const Json& o, std::string_view name);
Result<std::optional<std::string>> OptString(const Json& o, std::string_view name);
Result<std::string> ReqString(const Json& o, std::string_view name);
Result<std::optional<bool>> OptBool(const Json& o, std::string_view name);
// A required array / object field (Corruption when absent or of another type).
Result<const Json*> ReqArray(const Json& o, std::string_view name);
// An optional array (nullptr when absent); Corruption when present and not an array.
Result<const Json*> OptArray(const Json& o, std::string_view name);
// 32-bit integer field (Corruption when out of range).
Result<int32_t> ReqInt32(const Json& o, std::string_view name);
Result<std::optional<int32_t>> OptInt32(const Json& o, std::string_view name);

}  // namespace lithify::iceberg::json
