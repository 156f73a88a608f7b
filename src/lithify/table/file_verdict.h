// Why a reader opens a data file or not: the verdict of a scan plan (the format's
// planning) on one live file, shared by scan, files and OPTIMIZE's --where scope.
// Pure; thread-safe.
#pragma once

#include <string_view>

namespace lithify::table {

enum class FileVerdict { kKept, kSkippedByPartition, kSkippedByStats };

// "kept", "skipped-partition", "skipped-stats" (the names `files --json` prints).
constexpr std::string_view FileVerdictName(FileVerdict v) {
  switch (v) {
    case FileVerdict::kKept: return "kept";
    case FileVerdict::kSkippedByPartition: return "skipped-partition";
    case FileVerdict::kSkippedByStats: return "skipped-stats";
  }
  return "?";
}

}  // namespace lithify::table
