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

// Parses one JSON document. Corruption for malformed JSON or nesting deeper than
// kMaxJsonNesting (base/nesting.h: 1000) levels, checked on the text before anything is
// built (the deepest legitimate action is a few levels, a schema string three per type
// level; the limit keeps hostile input from exhausting the stack later).
Result<Json> Parse(std::string_view text);

// Serializes compactly; invalid UTF-8 in strings is replaced (never throws).
std::string Dump(const Json& j);
// The same for an ordered_json (members in insertion order: Delta's schemaString and
// domain metadata keep their key order).
std::string Dump(const nlohmann::ordered_json& j);
// The JSON string literal of `s`, quoted and escaped as Dump writes it.
std::string QuotedString(std::string_view s);

// Streams `text` through `sax` (nlohmann's SAX interface; number_float receives the
// number's text as written, which the DOM drops after rounding it to a double). The
// same depth limit as Parse is checked first. Corruption for malformed JSON or when
// the handler stops the parse (then `stopped` is the message).
Status SaxParse(std::string_view text, Json::json_sax_t* sax, std::string_view stopped = "malformed JSON");

// `object`, a JSON object's text, re-serialised compactly with its top-level member
// `key` set to the JSON text `value` (replaced where it stands, or appended last).
// Every other value is kept exactly: numbers as written (a DOM round trip would turn
// the decimal 9970418458088.79529 into 9970418458088.795 and 10^38-1 into 1e+38),
// strings re-escaped. Corruption for malformed JSON or a non-object.
Result<std::string> SetMember(std::string_view object, std::string_view key, std::string_view value);

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
