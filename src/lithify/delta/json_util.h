// Internal adapter over nlohmann::json for the delta module (not installed, not used
// outside src/lithify/delta).
//
// nlohmann throws on type mismatches and on dumping invalid UTF-8; every access here is
// checked first and parsing runs with exceptions disabled, so no exception leaves this
// adapter. Errors are Corruption messages without location; callers add the file and
// line. Stateless; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"

namespace lithify::delta::json {

using Json = nlohmann::json;

// Parses one JSON document. Corruption for malformed JSON or nesting deeper than 128
// (the deepest legitimate action is a few levels; the limit keeps hostile input from
// exhausting the stack).
Result<Json> Parse(std::string_view text);

// Serializes compactly; invalid UTF-8 in strings is replaced (never throws).
std::string Dump(const Json& j);

// Field accessors on an object `o` (which may be any JSON value; a non-object has no
// fields). Absent and null fields read as nullopt; a present field of the wrong type is
// Corruption naming `field`.
Result<std::optional<std::string>> OptString(const Json& o, std::string_view field);
Result<std::optional<int64_t>> OptInt(const Json& o, std::string_view field);
Result<std::optional<bool>> OptBool(const Json& o, std::string_view field);
// Required variants: absent/null is Corruption "missing field".
Result<std::string> ReqString(const Json& o, std::string_view field);
Result<int64_t> ReqInt(const Json& o, std::string_view field);
// A Map[String,String] either as a JSON object (commit files) or as an array of
// {"key":k,"value":v} (canonical JSON of a Parquet MAP in checkpoints). Null values are
// kept as nullopt. Absent/null field: empty map.
Result<std::map<std::string, std::optional<std::string>>> OptStringMap(const Json& o,
                                                                       std::string_view field);
// Like OptStringMap but null values are dropped (tags, configuration).
Result<std::map<std::string, std::string>> OptStringMapNoNulls(const Json& o,
                                                              std::string_view field);
Result<std::vector<std::string>> OptStringArray(const Json& o, std::string_view field);
// The field's value or nullptr when absent/null.
const Json* Field(const Json& o, std::string_view field);

}  // namespace lithify::delta::json
