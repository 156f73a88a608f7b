// Row output shared by `parquet cat` and `scan`: standard-output writes and the checks
// of their common --format / --limit / --columns flags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/parquet/rows_json.h"

namespace lithify::cli {

// fwrite / fflush of standard output; IOError when it fails.
Status WriteStdout(std::string_view text);
Status FlushStdout();

// The row format --format names ('jsonl' or 'csv'), after checking that a given --limit
// is non-negative and no --columns entry is empty; a usage error otherwise.
Result<parquet::RowFormat> CheckRowOutputFlags(const std::string& format, bool limit_given,
                                               int64_t limit,
                                               const std::vector<std::string>& columns);

}  // namespace lithify::cli
