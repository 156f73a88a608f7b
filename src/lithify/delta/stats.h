// Per-file statistics JSON (Appendix "Per-file Statistics") -> table::FileStats.
//
// `stats` is a JSON object: numRecords, tightBounds, and per-column minValues /
// maxValues / nullCount objects nested like the (physical) schema. Leaves become
// table::ColumnStats keyed by their path; bounds are typed by their JSON kind (the
// column's Delta type is applied by consumers that know it); numbers that no int64 holds
// keep their text (table::Value::Number), so decimals stay exact. Stateless; thread-safe.
#pragma once

#include <string_view>

#include "lithify/base/result.h"
#include "lithify/table/file_entry.h"

namespace lithify::delta {

// Corruption for malformed JSON or a non-object; unknown keys are ignored; a mistyped
// numRecords/tightBounds is Corruption. `raw` of the result is `text`.
Result<table::FileStats> ParseStats(std::string_view text);

// `text` with tightBounds set to false (what a deletion vector makes of a file's stats:
// the bounds still bound the live rows, but need not be reached by them), every other
// member kept exactly as written -- numbers are never passed through a double.
// Corruption for malformed JSON or a non-object.
Result<std::string> StatsWithWideBounds(std::string_view text);

}  // namespace lithify::delta
