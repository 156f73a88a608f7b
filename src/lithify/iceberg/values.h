// Typed Iceberg values in the format-neutral table::Value vocabulary: partition tuples
// decoded from manifests (Avro datums), column bounds from the single-value binary
// serialization (format/spec.md Appendix D), and field defaults from the JSON
// single-value serialization.
//
// Kinds: boolean -> kBoolean; int, long, time (microseconds) -> kInt64; float, double ->
// kDouble; decimal -> kDecimal; date -> kDate; timestamp / timestamptz -> kTimestampNtz /
// kTimestamp in microseconds, timestamp_ns / timestamptz_ns the same kinds in NANOseconds
// (the column's own unit); string -> kString; uuid, fixed, binary -> kBinary (raw bytes,
// uuid big-endian). Bounds written before a type promotion are recognised by their length
// as the spec's table prescribes (4 bytes under long = int, under double = float, under a
// timestamp = date); a decimal bound of fewer bytes is the same unscaled value.
//
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "lithify/base/result.h"
#include "lithify/iceberg/avro.h"
#include "lithify/iceberg/json.h"
#include "lithify/iceberg/schema.h"
#include "lithify/table/value.h"

namespace lithify::iceberg {

// Corruption for bytes whose length does not fit the type; NotSupported for types
// without a binary form lithify reads (variant, geometry, geography, nested).
Result<table::Value> DecodeBinaryValue(const Type& type, std::string_view bytes);

// A partition value from its Avro datum (null -> Null).
Result<table::Value> FromAvroValue(const Type& type, const avro::Value& v);

// A default from its JSON form (null -> Null). Corruption for a value that does not fit.
Result<table::Value> FromJsonValue(const Type& type, const json::Json& j);

// Canonical bytes for hashing / equality (kind tag + payload), used to group partition
// tuples and match equality-delete keys.
void AppendKey(const table::Value& v, std::string* out);

}  // namespace lithify::iceberg
