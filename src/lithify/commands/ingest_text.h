// The scalar text parsers of the text formats (JSON Lines values, CSV fields): one set,
// so a value means the same in a JSONL line and in a CSV field. The forms accepted are
// ingest.h's ("Text forms accepted"). Internal to lithify_commands.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "lithify/base/result.h"
#include "lithify/commands/ingest_common.h"

namespace lithify::commands::ingest_internal {

// The value of a primitive column of `type` from its text. `quoted`: the text was a
// JSON string or a quoted CSV field (it shapes the messages, and nothing else).
// InvalidArgument naming the offending value (without the column: the caller adds it);
// NotSupported for a non-primitive type.
Result<Value> ScalarFromText(std::string_view text, bool quoted, const DataType& type);

}  // namespace lithify::commands::ingest_internal
