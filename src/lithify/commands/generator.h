// Synthetic data generator: realistic rows for any Delta schema (`lithify append
// --generate N`, benchmarks, demos).
//
// Columns are filled by name and type:
//   - the event-time column (a timestamp named like event_time / ts / *time*, else the
//     first timestamp column) increases through [start, start + span) with jitter;
//   - a date column named like *date* is derived from the event time (UTC day);
//   - an integer column named customer_id or *_id is Zipf-skewed over
//     [1, num_customers] with exponent customer_skew;
//   - amount / price (decimal or double): positive, log-normal-ish, at the column's scale;
//   - category / type / status / country strings: small fixed vocabularies, skewed;
//   - note / text / comment / description strings: random words, 0-200 chars, sometimes
//     null;
//   - *hash* / *md5* / *sha* strings: 32 random hex digits (an MD5 digest's text);
//   - any other column: random values of its type (nested too), null at ~5% where nullable;
//   - a partition column (options.partition_columns) never gets one value per row: unless
//     its name gives it a small domain already (a *date* date, category, country,
//     status, type), it takes one of kPartitionDomain values of its type (integers 1..8,
//     eight words, dates and timestamps from the event time's UTC day, ...), never null.
// NOT NULL columns never get nulls. Rows follow the value conventions of ingest.h.
//
// Deterministic: the same (schema, options) gives the same rows, independent of
// batch_rows. Thread-safety: stateless; concurrent calls are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lithify/base/status.h"
#include "lithify/commands/ingest.h"
#include "lithify/delta/schema.h"

namespace lithify::commands {

// Distinct values a generated partition column takes at most (see above).
inline constexpr int kPartitionDomain = 8;

struct GeneratorOptions {
  int64_t rows = 0;
  uint64_t seed = 1;
  int64_t start_time_ms = 1767225600000;  // 2026-01-01T00:00:00Z
  int64_t time_span_ms = 86400000;
  int64_t num_customers = 1000000;
  double customer_skew = 1.1;
  std::vector<std::string> partition_columns;  // the table's (case-insensitive names)
};

// Generates options.rows rows of `schema` and hands them to `sink` in batches of at most
// `batch_rows` (>= 1). InvalidArgument for negative rows / span / num_customers < 1, a
// non-positive skew, or a column type that cannot be generated (variant, void) when
// it is NOT NULL. A sink error stops generation and is returned.
Status GenerateRows(const delta::StructType& schema, const GeneratorOptions& options,
                    const RowSink& sink, size_t batch_rows = 8192);

// The demo table's DDL: "event_time timestamp, event_date date, customer_id long,
// amount decimal(12,2), category string, country string, note string".
std::string DemoSchemaDdl();

}  // namespace lithify::commands
