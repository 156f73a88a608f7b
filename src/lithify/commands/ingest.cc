// Ingest: user files (JSON Lines, CSV, Parquet) -> rows of parquet::Value in a Delta
// schema. See ingest.h for the contract. This file is the orchestration: format names,
// batching, the "no rows" rule and CheckInput. Each format is its own unit
// (ingest_jsonl, ingest_csv, ingest_parquet); the text formats share one set of scalar
// parsers (ingest_text), and all three the pieces in ingest_common.
#include "lithify/commands/ingest.h"

#include "lithify/base/macros.h"
#include "lithify/commands/ingest_common.h"
#include "lithify/commands/ingest_csv.h"
#include "lithify/commands/ingest_jsonl.h"
#include "lithify/commands/ingest_parquet.h"

namespace lithify::commands {

using namespace ingest_internal;  // NOLINT: the readers' shared vocabulary

Result<InputFormat> InputFormatFromName(std::string_view name) {
  if (EqualsIgnoreCase(name, "parquet")) return InputFormat::kParquet;
  if (EqualsIgnoreCase(name, "jsonl") || EqualsIgnoreCase(name, "json") ||
      EqualsIgnoreCase(name, "ndjson")) {
    return InputFormat::kJsonl;
  }
  if (EqualsIgnoreCase(name, "csv")) return InputFormat::kCsv;
  return Status::InvalidArgument("unknown input format '{}' (expected parquet, jsonl or csv)", name);
}

InputFormat InputFormatFromPath(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  if (dot == std::string_view::npos) return InputFormat::kParquet;
  std::string_view ext = base.substr(dot + 1);
  if (EqualsIgnoreCase(ext, "jsonl") || EqualsIgnoreCase(ext, "json") || EqualsIgnoreCase(ext, "ndjson")) {
    return InputFormat::kJsonl;
  }
  if (EqualsIgnoreCase(ext, "csv")) return InputFormat::kCsv;
  return InputFormat::kParquet;
}

Status ReadInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                 const delta::StructType& schema, const RowSink& sink, size_t batch_rows) {
  if (batch_rows == 0) return Status::InvalidArgument("batch_rows must be at least 1");
  if (schema.kind != TypeKind::kStruct) {
    return Status::InvalidArgument("the table schema must be a struct, got {}", schema.ToString());
  }
  int64_t rows = 0;
  const RowSink counting = [&](std::vector<std::vector<Value>>&& batch) {
    rows += static_cast<int64_t>(batch.size());
    return sink(std::move(batch));
  };
  RowBatcher batcher(counting, batch_rows);
  switch (format) {
    case InputFormat::kJsonl:
      LITHIFY_RETURN_NOT_OK(ReadJsonl(fs, path, schema, &batcher));
      break;
    case InputFormat::kCsv:
      LITHIFY_RETURN_NOT_OK(ReadCsv(fs, path, schema, &batcher));
      break;
    case InputFormat::kParquet:
      LITHIFY_RETURN_NOT_OK(ReadParquet(fs, path, schema, batch_rows, &batcher));
      break;
  }
  LITHIFY_RETURN_NOT_OK(batcher.Flush());
  if (rows == 0) {
    const char* what = format == InputFormat::kJsonl ? "empty JSON Lines file"
                       : format == InputFormat::kCsv ? "CSV file with a header but no rows"
                                                     : "Parquet file without rows";
    return Status::InvalidArgument("{}: {} (nothing to append)", path, what);
  }
  return Status::OK();
}

Status CheckInput(io::FileSystem* fs, const std::string& path, InputFormat format,
                  const delta::StructType& schema) {
  // The reading path itself, stopped after the first row: whatever it accepts here it
  // accepts when the rows are read for real, and no second parser can disagree.
  bool stopped = false;
  Status st = ReadInput(
      fs, path, format, schema,
      [&](std::vector<std::vector<Value>>&&) {
        stopped = true;
        return Status::Cancelled("first row read");
      },
      1);
  return stopped ? Status::OK() : st;
}


}  // namespace lithify::commands
