// Parquet input (ingest.h: "Parquet"): the file's columns matched to the table's by
// name (case-insensitive), then records assembled from levels with lossless conversions
// only (INT32 -> long, float -> double, timestamp millis/nanos/INT96 -> micros, exact
// decimal rescale). A missing nullable column is null; a missing NOT NULL column, an
// extra column or an incompatible type is InvalidArgument naming the file and column.
// Streamed row group by row group. Internal to lithify_commands.
#pragma once

#include <cstddef>
#include <string>

#include "lithify/commands/ingest_common.h"

namespace lithify::commands::ingest_internal {

// Reads the Parquet file `path` into rows of `schema`, handed to `batcher`; the file is
// read in batches of at most `read_batch_rows` rows (capped at 2^20). Errors name the
// file and the row (1-based); Corruption for levels that do not match the schema.
Status ReadParquet(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
                   size_t read_batch_rows, RowBatcher* batcher);

}  // namespace lithify::commands::ingest_internal
