// Rendering of the post-commit auto-compaction outcome shared by `append` and `delete`
// (commands/auto_compact.h): one human line, or a JSON value; and what both committed.
// Rendering only; pure.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "lithify/commands/auto_compact.h"

namespace lithify::cli {

// "" when auto compaction did not run; else one line (plus a warning line on failure).
inline std::string AutoCompactText(const std::optional<commands::OptimizeResult>& r,
                                   const std::optional<std::string>& warning) {
  if (warning) return fmt::format("warning: auto compaction failed (the write is committed): {}\n", *warning);
  if (!r) return "";
  if (r->versions.empty()) {
    std::string why = r->log.summary.empty() ? "no touched partition qualifies" : r->log.summary.back();
    return fmt::format("auto compaction: nothing to do ({})\n", why);
  }
  return fmt::format("auto compaction: {} files -> {} files, version {}\n", r->metrics.num_files_removed,
                     r->metrics.num_files_added, r->versions.back());
}

// null when it did not run; {"versions":[..],"numFilesRemoved":..,"numFilesAdded":..,
// "partitionsOptimized":..,"summary":[..]} when it ran; {"error": "..."} when it failed.
inline nlohmann::ordered_json AutoCompactJson(const std::optional<commands::OptimizeResult>& r,
                                              const std::optional<std::string>& warning) {
  if (warning) return nlohmann::ordered_json{{"error", *warning}};
  if (!r) return nullptr;
  nlohmann::ordered_json j;
  j["versions"] = r->versions;
  j["numFilesRemoved"] = r->metrics.num_files_removed;
  j["numFilesAdded"] = r->metrics.num_files_added;
  j["partitionsOptimized"] = r->metrics.partitions_optimized;
  j["summary"] = r->log.summary;
  return j;
}

// What append / delete committed, for AfterCommit: "version 5 of TABLE", plus the
// versions of the post-commit auto compaction when it committed.
inline std::string CommittedText(const std::string& table, int64_t version,
                                 const std::optional<commands::OptimizeResult>& auto_compaction) {
  std::string text = fmt::format("version {} of {}", version, table);
  if (auto_compaction && !auto_compaction->versions.empty()) {
    text += fmt::format(" (and auto compaction version {})", fmt::join(auto_compaction->versions, ", "));
  }
  return text;
}

}  // namespace lithify::cli
