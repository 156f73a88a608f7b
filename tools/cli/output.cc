#include "tools/cli/output.h"

#include <cstdio>

#include "lithify/base/macros.h"
#include "lithify/base/uuid.h"
#include "tools/cli/cli.h"

namespace lithify::cli {

Status WriteStdout(std::string_view text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("writing to standard output failed");
  }
  return Status::OK();
}

JsonStreamer::JsonStreamer() : token_(NewUuid()) {}

std::string JsonStreamer::Placeholder(std::string_view name) const {
  return "\x01" + token_ + ":" + std::string(name);
}

Status JsonStreamer::Flush() {
  Status st = WriteStdout(buffer_);
  buffer_.clear();
  return st;
}

Status JsonStreamer::Item(const nlohmann::json& item) {
  if (!first_item_) buffer_ += ',';
  first_item_ = false;
  buffer_ += item.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return buffer_.size() >= (size_t{1} << 20) ? Flush() : Status::OK();
}

Status JsonStreamer::Write(const nlohmann::ordered_json& doc,
                           const std::function<Status(std::string_view name)>& fill) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  // A placeholder dumps as "\u0001<token>:<name>" (quotes included).
  const std::string mark = "\"\\u0001" + token_ + ":";
  size_t pos = 0;
  for (;;) {
    const size_t at = text.find(mark, pos);
    if (at == std::string::npos) break;
    const size_t name_begin = at + mark.size();
    const size_t end = text.find('"', name_begin);
    if (end == std::string::npos) return Status::Internal("unterminated JSON placeholder");
    buffer_.append(text, pos, at - pos);
    buffer_ += '[';
    first_item_ = true;
    LITHIFY_RETURN_NOT_OK(fill(std::string_view(text).substr(name_begin, end - name_begin)));
    buffer_ += ']';
    pos = end + 1;
  }
  buffer_.append(text, pos, std::string::npos);
  return Flush();
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
