// The schema DDL parser: Spark-style column definitions -> a Delta StructType, for
// `lithify create --schema`. Pure; thread-safe.
#pragma once

#include <string_view>

#include "lithify/base/result.h"
#include "lithify/delta/schema.h"

namespace lithify::delta {

// Parses Spark-style column definitions: "name type [NOT NULL] [COMMENT 'text'], ...".
// Types (keywords case-insensitive): boolean, byte/tinyint, short/smallint,
// int/integer, long/bigint, float/real, double, decimal[(p[,s])] (bare = (10,0)),
// string, binary, date, timestamp, timestamp_ntz, struct<a: int, b string>, array<T>,
// map<K,V>. Names are identifiers ([A-Za-z0-9_]+) or `back quoted` (`` inside is one
// backquote). A COMMENT becomes the field metadata "comment" (as Spark stores it).
// InvalidArgument "schema DDL: at position N: expected X, found 'Y'" (N is the 0-based
// byte offset). Duplicate names are checked by the planners, not here.
Result<StructType> ParseSchemaDdl(std::string_view ddl);

}  // namespace lithify::delta
