#include "lithify/commands/scan.h"

#include <algorithm>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/formats/open_table.h"

namespace lithify::commands {

namespace {

class RenderSink final : public ScanSink {
 public:
  RenderSink(parquet::RowFormat format, std::function<Status(std::string_view)> write)
      : format_(format), write_(std::move(write)) {}
  Status Begin(const parquet::Schema& schema, const std::vector<int>& fields) override {
    schema_ = &schema;
    fields_ = fields;
    if (format_ == parquet::RowFormat::kCsv) return write_(parquet::CsvHeader(schema, fields));
    return Status::OK();
  }
  Status Rows(const parquet::RowBatch& batch, int64_t n) override {
    out_.clear();
    LITHIFY_RETURN_NOT_OK(parquet::RenderRows(*schema_, fields_, batch, format_, n, &out_));
    return write_(out_);
  }

 private:
  parquet::RowFormat format_;
  std::function<Status(std::string_view)> write_;
  const parquet::Schema* schema_ = nullptr;
  std::vector<int> fields_;
  std::string out_;
};

}  // namespace

std::unique_ptr<ScanSink> NewRenderSink(parquet::RowFormat format,
                                        std::function<Status(std::string_view)> write) {
  return std::make_unique<RenderSink>(format, std::move(write));
}

Status ScanLiveFile(table::LiveRowsReader* reader, const std::string& path, const LiveScan& scan,
                    int64_t* remaining, ScanSink* sink, ScanResult* result) {
  table::LiveBatch live;
  for (int rg = 0; *remaining != 0; ++rg) {
    Result<bool> more = reader->Next(&live);
    if (!more.ok()) return NameFile(more.status(), path);
    if (!*more) break;
    parquet::RowBatch& batch = live.batch;
    if (scan.count_row_groups) ++result->row_groups_read;
    if (scan.predicate != nullptr && batch.num_rows > 0) {
      Result<std::vector<bool>> sel = expr::EvaluateBatch(*scan.predicate, batch, scan.predicate_columns);
      if (!sel.ok()) return NameFile(sel.status().WithContextF("row group {}", rg), path);
      parquet::FilterRows(&batch, *sel);
    }
    // Predicate-only columns must not render inside a projected struct.
    size_t w = 0;
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      if (i < scan.rendered.size() && !scan.rendered[i]) continue;
      if (w != i) batch.columns[w] = std::move(batch.columns[i]);
      ++w;
    }
    batch.columns.resize(w);
    int64_t n = batch.num_rows;
    if (*remaining > 0) n = std::min(n, *remaining);
    if (n > 0 && sink != nullptr && scan.render) {
      Status st = sink->Rows(batch, n);
      if (!st.ok()) return NameFile(st.WithContextF("row group {}", rg), path);
    }
    result->rows += n;
    if (*remaining > 0) *remaining -= n;
  }
  return Status::OK();
}

Result<ScanResult> Scan(table::TableScan& scan, const ScanOptions& options, ScanSink* sink) {
  if (scan.schema() == nullptr) return ScanResult{};  // no columns and no file
  LITHIFY_RETURN_NOT_OK(scan.Plan(options.prune_files));
  const bool render = sink != nullptr && !options.count_only;
  if (render) LITHIFY_RETURN_NOT_OK(sink->Begin(*scan.schema(), scan.fields()));
  LiveScan live = scan.live_scan();
  live.render = render;
  ScanResult result;
  int64_t remaining = options.limit;  // < 0: unlimited
  table::ScanFileCounts counts;
  LITHIFY_RETURN_NOT_OK(scan.ForEachFile(
      [&](const std::string& path, const table::OpenLiveRows& open) -> Result<bool> {
        if (remaining == 0) return false;
        ++result.files_read;
        LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> reader, open(live.leaves));
        LITHIFY_RETURN_NOT_OK(ScanLiveFile(reader.get(), path, live, &remaining, sink, &result));
        return remaining != 0;
      },
      &counts));
  result.files_total = counts.files_total;
  result.files_skipped_partition = counts.skipped_by_partition;
  result.files_skipped_stats = counts.skipped_by_stats;
  return result;
}

Result<ScanResult> Scan(io::FileSystem* fs, const std::string& location, const ScanOptions& options, ScanSink* sink) {
  table::ScanRequest request;
  request.version = options.version;
  request.location_map = options.location_map;
  request.where = options.where;
  request.columns = options.columns;
  request.count_only = options.count_only;
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::TableScan> scan,
                           formats::OpenTableScan(fs, location, request, options.format));
  return Scan(*scan, options, sink);
}

}  // namespace lithify::commands
