#include "tools/cli/output.h"

#include <cstdio>

#include "tools/cli/cli.h"

namespace lithify::cli {

Status WriteStdout(std::string_view text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("writing to standard output failed");
  }
  return Status::OK();
}

Status FlushStdout() {
  if (std::fflush(stdout) != 0) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

Status AfterCommit(std::string_view committed, const Status& report) {
  if (report.ok()) return report;
  return Status(report.code(),
                fmt::format("{}{} was committed, but reporting it failed: {}; the change is in the table, do not "
                            "run the command again",
                            kCommittedPrefix, committed, report.message()));
}

Result<parquet::RowFormat> CheckRowOutputFlags(const std::string& format, bool limit_given,
                                               int64_t limit,
                                               const std::vector<std::string>& columns) {
  parquet::RowFormat row_format;
  if (format == "jsonl") {
    row_format = parquet::RowFormat::kJsonLines;
  } else if (format == "csv") {
    row_format = parquet::RowFormat::kCsv;
  } else {
    return UsageError("--format must be 'jsonl' or 'csv', not '{}'", format);
  }
  if (limit_given && limit < 0) {
    return UsageError("--limit must be a non-negative number of rows, not {}", limit);
  }
  for (const std::string& c : columns) {
    if (c.empty()) return UsageError("--columns has an empty column name");
  }
  return row_format;
}

}  // namespace lithify::cli
