// CSV input: an incremental RFC 4180 record splitter fed chunk by chunk, fields
// converted by ingest_text's scalar parsers. See ingest_csv.h.
#include "lithify/commands/ingest_csv.h"

#include "lithify/base/macros.h"
#include "lithify/commands/ingest_text.h"

namespace lithify::commands::ingest_internal {
namespace {

struct CsvField {
  std::string text;
  bool quoted = false;
};

// Incremental RFC 4180 record splitter; fn(record, first_line) per record.
class CsvSplitter {
 public:
  template <typename Fn>
  Status Feed(std::string_view chunk, Fn&& fn) {
    for (char c : chunk) {
      switch (state_) {
        case State::kFieldStart:
          if (c == '"') {
            field_.quoted = true;
            state_ = State::kQuoted;
            break;
          }
          state_ = State::kUnquoted;
          [[fallthrough]];
        case State::kUnquoted:
          if (c == ',') {
            EndField();
          } else if (c == '\n') {
            if (!field_.quoted && !field_.text.empty() && field_.text.back() == '\r') field_.text.pop_back();
            LITHIFY_RETURN_NOT_OK(EndRecord(fn));
          } else if (c == '"') {
            return Status::InvalidArgument("line {}: quote character inside an unquoted field", line_);
          } else {
            field_.text.push_back(c);
          }
          break;
        case State::kQuoted:
          if (c == '"') {
            state_ = State::kAfterQuote;
          } else {
            if (c == '\n') ++line_;
            field_.text.push_back(c);
          }
          break;
        case State::kAfterQuote:
          if (c == '"') {
            field_.text.push_back('"');
            state_ = State::kQuoted;
          } else if (c == ',') {
            EndField();
          } else if (c == '\n') {
            LITHIFY_RETURN_NOT_OK(EndRecord(fn));
          } else if (c == '\r') {
            // CRLF after a closing quote.
          } else {
            return Status::InvalidArgument("line {}: unexpected character '{}' after a closing quote",
                                           line_, c);
          }
          break;
      }
    }
    return Status::OK();
  }

  template <typename Fn>
  Status Finish(Fn&& fn) {
    if (state_ == State::kQuoted) {
      return Status::InvalidArgument("line {}: unterminated quoted field (started on line {})", line_,
                                     record_line_);
    }
    if (state_ == State::kUnquoted && !field_.text.empty() && field_.text.back() == '\r') {
      field_.text.pop_back();
    }
    if (state_ != State::kFieldStart || !record_.empty()) return EndRecord(fn);
    return Status::OK();
  }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kAfterQuote };

  void EndField() {
    record_.push_back(std::move(field_));
    field_ = CsvField();
    state_ = State::kFieldStart;
  }
  template <typename Fn>
  Status EndRecord(Fn&& fn) {
    EndField();
    int64_t first = record_line_;
    ++line_;
    record_line_ = line_;
    // A blank line is no record.
    bool blank = record_.size() == 1 && !record_[0].quoted && record_[0].text.empty();
    Status st = blank ? Status::OK() : fn(record_, first);
    record_.clear();
    return st;
  }

  State state_ = State::kFieldStart;
  CsvField field_;
  std::vector<CsvField> record_;
  int64_t line_ = 1;
  int64_t record_line_ = 1;
};

}  // namespace

Status ReadCsv(io::FileSystem* fs, const std::string& path, const delta::StructType& schema,
               RowBatcher* batcher) {
  const auto& fields = schema.fields;
  std::vector<int> column_of;  // CSV column -> schema field
  bool have_header = false;
  auto on_record = [&](std::vector<CsvField>& rec, int64_t line) -> Status {
    auto ctx = [&](const Status& st) { return st.WithContextF("{} line {}", path, line); };
    if (!have_header) {
      have_header = true;
      if (!rec.empty() && rec[0].text.rfind("\xEF\xBB\xBF", 0) == 0) rec[0].text.erase(0, 3);
      std::vector<bool> seen(fields.size(), false);
      for (const CsvField& h : rec) {
        int f = FindField(fields, h.text);
        if (f == -2) {
          return ctx(Status::InvalidArgument("header column '{}' matches several columns", h.text));
        }
        if (f < 0) return ctx(Status::InvalidArgument("unknown column '{}' in the header", h.text));
        if (seen[f]) return ctx(Status::InvalidArgument("column '{}' appears twice in the header", h.text));
        if (!fields[f].type.is_primitive()) {
          return ctx(Status::InvalidArgument(
              "column '{}' is {}; CSV input supports only primitive columns", fields[f].name,
              fields[f].type.ToString()));
        }
        seen[f] = true;
        column_of.push_back(f);
      }
      for (size_t f = 0; f < fields.size(); ++f) {
        if (!seen[f] && !fields[f].nullable) {
          return ctx(Status::InvalidArgument(
              "column '{}' is NOT NULL but missing from the header", fields[f].name));
        }
      }
      return Status::OK();
    }
    if (rec.size() != column_of.size()) {
      return ctx(Status::InvalidArgument("{} fields, but the header has {}", rec.size(),
                                         column_of.size()));
    }
    std::vector<Value> row(fields.size());
    for (size_t c = 0; c < rec.size(); ++c) {
      const delta::StructField& field = fields[column_of[c]];
      PathFrame frame{nullptr, field.name};
      Result<Value> v = (!rec[c].quoted && rec[c].text.empty())
                            ? NullValue(field.nullable, &frame)
                            : ScalarFromText(rec[c].text, rec[c].quoted, field.type);
      if (!v.ok()) {
        Status st = v.status();
        if (st.message().rfind("column '", 0) != 0) st = ColumnError(&frame, st);
        return ctx(st);
      }
      row[column_of[c]] = std::move(v).value();
    }
    return batcher->Add(std::move(row));
  };
  LITHIFY_ASSIGN_OR_RETURN(ChunkReader reader, ChunkReader::Open(fs, path));
  CsvSplitter splitter;
  while (true) {
    LITHIFY_ASSIGN_OR_RETURN(std::string_view chunk, reader.Next());
    if (chunk.empty()) break;
    Status st = splitter.Feed(chunk, on_record);
    if (!st.ok()) return st.message().rfind("line ", 0) == 0 ? st.WithContext(path) : st;
  }
  Status st = splitter.Finish(on_record);
  if (!st.ok()) return st.message().rfind("line ", 0) == 0 ? st.WithContext(path) : st;
  if (!have_header) return Status::InvalidArgument("{}: empty CSV file (a header row is required)", path);
  return Status::OK();
}

}  // namespace lithify::commands::ingest_internal
