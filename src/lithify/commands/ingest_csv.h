// CSV input (ingest.h: "CSV"): RFC 4180 (quoted fields, doubled quotes, embedded
// newlines, CRLF), a header row of column names required (a UTF-8 BOM before it is
// dropped), columns in any order and any subset of the nullable ones; an empty unquoted
// field is null, "" an empty string; only primitive columns. Internal to
// lithify_commands.
#pragma once

#include <string>

#include "lithify/commands/ingest_common.h"

namespace lithify::commands::ingest_internal {

// Reads `path` as CSV into rows of `schema`, handed to `batcher`. Errors name the file,
// the line (the first line of a record) and the column.
Status ReadCsv(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
               RowBatcher* batcher);

}  // namespace lithify::commands::ingest_internal
