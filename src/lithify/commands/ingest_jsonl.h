// JSON Lines input (ingest.h: "JSONL"): one object per line, blank lines skipped; keys
// match column names case-insensitively, an unknown key is an error, a missing key is
// null. Values: the canonical JSON scan prints, plus ingest.h's friendly forms; numbers
// keep their literal text (never through a double). Internal to lithify_commands.
#pragma once

#include <string>

#include "lithify/commands/ingest_common.h"

namespace lithify::commands::ingest_internal {

// Reads `path` as JSON Lines into rows of `schema`, handed to `batcher`. Errors name the
// file, the line (1-based) and the column.
Status ReadJsonl(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                 RowBatcher* batcher);

}  // namespace lithify::commands::ingest_internal
