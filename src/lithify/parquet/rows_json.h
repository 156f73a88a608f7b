// Canonical row rendering: every lithify command that prints rows uses this.
//
// One JSON object per row; keys are top-level column names in schema order; values
// follow the canonical mapping (docs/canonical-json.md): null; booleans; integers exact
// over 64 bits; floats as shortest round-trip numbers, with "NaN", "Infinity",
// "-Infinity" as strings; strings; binary/fixed as base64; UUID 8-4-4-4-12; decimals as
// strings with exactly `scale` fraction digits; DATE "YYYY-MM-DD"; TIME
// "HH:MM:SS.ffffff"; timestamps "YYYY-MM-DDTHH:MM:SS.ffffff[Z]" (9 digits for nanos and
// INT96); lists as arrays; structs as objects; maps as arrays of {"key":k,"value":v}.
// Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

enum class RowFormat { kJsonLines, kCsv };

// Renders rows [0, limit) of `batch` (limit < 0: all). `fields` are top-level node
// indices (children of the root); each row renders them in the given order. A field's
// value is assembled from the leaves under it that are present in `batch.columns`:
// struct members without any present leaf are left out (this is how a projection of
// "b.c" renders `b` with only member `c`); a field with no present leaf at all is
// InvalidArgument. Appends one line ('\n'-terminated) per row to `out`.
//
// The levels and values are validated while rendering (def/rep levels consistent with
// the schema and across the leaves of a field, value counts, BYTE_ARRAY offsets), so a
// batch decoded from a hostile file yields Corruption, never an out-of-range access.
//
// Strings whose bytes are not valid UTF-8 render with each maximal invalid subsequence
// replaced by U+FFFD (the Unicode "maximal subpart" practice), so output is always valid
// JSON / UTF-8. JSON escapes: \" \\ \b \f \n \r \t, other control characters as
// \u00xx; nothing else is escaped.
//
// For CSV (RFC 4180 quoting, '\n' line ends), a top-level primitive is written as its
// canonical value without JSON quoting (a string's text, "12.30", NaN), null is an
// empty field, an empty string is `""`, and nested values (structs, lists, maps) are
// written as their canonical JSON text. A header line is NOT written (see CsvHeader).
Status RenderRows(const Schema& schema, const std::vector<int>& fields, const RowBatch& batch,
                  RowFormat format, int64_t limit, std::string* out);

// The CSV header line for `fields` (column names, quoted as needed), '\n'-terminated.
std::string CsvHeader(const Schema& schema, const std::vector<int>& fields);

// The canonical JSON text of one value of leaf column `leaf` given its PLAIN encoding
// without length prefix (the form of Statistics min/max), e.g. `12`, `"abc"`,
// `"2024-01-01"`. Truncated BYTE_ARRAY statistics are fine (any length). A value whose
// size does not fit the physical type (or an unknown leaf) renders as a JSON string
// starting with "<malformed", so callers can always embed the result as JSON.
std::string FormatStatValue(const Schema& schema, int leaf, std::string_view plain_bytes);

}  // namespace lithify::parquet
