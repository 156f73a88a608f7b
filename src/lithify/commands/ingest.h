// Ingest: reads user input files (JSON Lines, CSV, Parquet) into rows of a Delta
// table's schema, for `lithify append --from FILE`.
//
// A row is one parquet::Value per top-level LOGICAL column of the Delta schema, in
// schema order (partition columns included). Value conventions (the data writer maps
// them to Parquet): boolean -> Bool; byte/short/integer/long -> Int (range-checked per
// type); float/double -> Double; decimal(p,s) -> Decimal (unscaled; more fraction digits
// than s or more than p digits is an error, never rounded); string -> String (valid
// UTF-8 required); binary -> Bytes; date -> Int (days since epoch); timestamp and
// timestamp_ntz -> Int (microseconds since epoch); struct -> Struct (fields in order);
// array -> List; map -> Map; null -> Null, only where nullable.
//
// Text forms accepted (JSONL values, CSV fields): the canonical JSON that `lithify scan`
// prints (docs/canonical-json.md), so scan output round-trips exactly, plus friendly
// forms: numbers for decimals, ISO timestamps with 'T' or ' ', optional fraction, 'Z' or
// a +HH:MM offset (converted to UTC), dates "YYYY-MM-DD". Binary is base64 (as scan
// prints it).
//
// JSONL: one object per line (blank lines skipped); keys match column names
// case-insensitively (as Spark); an unknown key is an error, a missing key is null.
// CSV: RFC 4180 (quoted fields, doubled quotes, embedded newlines), a header row of
// column names is required; an empty unquoted field is null, "" is an empty string;
// only primitive columns (a struct/array/map column is InvalidArgument). Parquet:
// columns matched by name (case-insensitive); lossless conversions (INT32 -> long,
// float -> double, timestamp millis/nanos/INT96 -> micros, exact decimal rescale); a
// missing nullable column is null; a missing NOT NULL column, an extra column or an
// incompatible type is InvalidArgument. Parquet is streamed row group by row group.
//
// Errors: InvalidArgument naming the file, the line (text formats) or row (Parquet,
// 1-based), the column and the offending value, e.g.
//   "input.jsonl line 17: column 'amount': 12.345 has more digits after the point than
//    decimal(12,2) allows".
// IO errors from the FileSystem pass through; Corruption for a malformed Parquet file.
// Memory is bounded by one batch of rows (plus one Parquet read batch).
//
// Thread-safety: the functions are stateless; concurrent calls are independent. The sink
// is called from the calling thread.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/delta/schema.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::commands {

enum class InputFormat { kParquet, kJsonl, kCsv };

// "parquet", "jsonl" (also "json", "ndjson"), "csv" (case-insensitive).
// InvalidArgument naming the unknown format.
Result<InputFormat> InputFormatFromName(std::string_view name);

// The exact unscaled value of decimal text ("-12.30", "1E+3", "0.0500", as JSON numbers
// and the text formats write decimals) at decimal(precision, scale); InvalidArgument when
// it has more significant fraction digits than `scale` or more digits than `precision`
// (never rounded). `quoted` only shapes the messages.
Result<__int128> ParseDecimalText(std::string_view text, int precision, int scale, bool quoted);

// By extension: .jsonl/.json/.ndjson -> kJsonl, .csv -> kCsv, anything else -> kParquet.
InputFormat InputFormatFromPath(std::string_view path);

// Receives batches of rows (each row: one Value per top-level column in schema order).
// A non-OK status stops reading and is returned by ReadInput unchanged.
using RowSink = std::function<Status(std::vector<std::vector<parquet::Value>>&& rows)>;

// Reads `path` in `format` and hands its rows to `sink` in batches of at most
// `batch_rows` (>= 1) rows, in file order. Rows before an error may already have been
// delivered; the caller discards them (append commits nothing on error). An input
// without rows is InvalidArgument naming the file, for every format alike (an empty or
// blank JSON Lines file, a CSV file with only a header -- as one without even a header
// --, a Parquet file without rows): an append of nothing is a mistake, not a version.
Status ReadInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                 const delta::StructType& schema, const RowSink& sink,
                 size_t batch_rows = 8192);

// Opens and validates `path` before anything is written: it exists and is readable, it
// is of `format` (a Parquet footer that parses), its header (CSV) or schema (Parquet)
// matches the table's, and its first row converts. Done by ReadInput itself, stopped
// after the first row, so the errors are ReadInput's (naming the file). A later row can
// still be refused when the whole file is read.
Status CheckInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                  const delta::StructType& schema);

}  // namespace lithify::commands
