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
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

enum class RowFormat { kJsonLines, kCsv };

// Renders rows [0, limit) of `batch` (limit < 0: all). `batch.columns` must contain
// every leaf under each field in `fields` (top-level node indices). Appends to `out`.
// For CSV, nested values are written as their canonical JSON text and a header line is
// NOT written (see CsvHeader).
Status RenderRows(const Schema& schema, const std::vector<int>& fields, const RowBatch& batch,
                  RowFormat format, int64_t limit, std::string* out);

std::string CsvHeader(const Schema& schema, const std::vector<int>& fields);

}  // namespace lithify::parquet
