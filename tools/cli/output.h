// Row output shared by `parquet cat` and `scan`: standard-output writes and the checks
// of their common --format / --limit / --columns flags.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "nlohmann/json.hpp"
#include "lithify/parquet/rows_json.h"

namespace lithify::cli {

// fwrite / fflush of standard output; IOError when it fails.
Status WriteStdout(std::string_view text);
Status FlushStdout();

// Streaming a large JSON document: `doc` holds placeholders (JsonStreamer::Placeholder)
// where big arrays go; Write prints `doc` as dump(-1, ' ', false, replace) would, each
// placeholder replaced by the array fill(name) emits item by item (Item), so that a
// document of a million files is never built whole, as a tree or as one string.
class JsonStreamer {
 public:
  JsonStreamer();
  // A string value that Write replaces; `name` must not contain '"' or '\\'.
  std::string Placeholder(std::string_view name) const;
  // `fill` calls Item once per element of the array named `name`.
  Status Write(const nlohmann::ordered_json& doc, const std::function<Status(std::string_view name)>& fill);
  Status Item(const nlohmann::json& item);

 private:
  Status Flush();
  std::string token_;   // random: no value of the document can be mistaken for a placeholder
  std::string buffer_;  // written to standard output in pieces of ~1 MiB
  bool first_item_ = true;
};

// The row format --format names ('jsonl' or 'csv'), after checking that a given --limit
// is non-negative and no --columns entry is empty; a usage error otherwise.
Result<parquet::RowFormat> CheckRowOutputFlags(const std::string& format, bool limit_given,
                                               int64_t limit,
                                               const std::vector<std::string>& columns);

}  // namespace lithify::cli
