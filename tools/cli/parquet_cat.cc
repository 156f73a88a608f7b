// `lithify parquet cat FILE [--columns a,b.c] [--limit N] [--format jsonl|csv]`: prints
// rows in the canonical form (lithify/parquet/rows_json.h), streaming each row group in
// batches (FileReader::OpenRowGroup) so memory stays bounded by one batch of the
// projected columns, and --limit stops decoding once enough rows were printed.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"
#include "tools/cli/output.h"
#include "tools/cli/parquet_commands.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

struct CatOptions {
  std::string file;
  std::vector<std::string> columns;
  int64_t limit = -1;
  bool limit_given = false;
  std::string format = "jsonl";
};


// The top-level field (child of the root) that contains schema node `n`.
int TopLevelField(const parquet::Schema& schema, int n) {
  while (n > 0 && schema.node(n).parent > 0) n = schema.node(n).parent;
  return n;
}

// Leaves to read and the top-level fields to print (in schema order). With no
// --columns every leaf is read; a nested path selects its top-level field, which then
// renders with only the selected members.
Status PlanProjection(const parquet::Schema& schema, const std::vector<std::string>& columns,
                      std::vector<int>* leaves, std::vector<int>* fields) {
  std::vector<bool> selected(schema.nodes().size(), false);
  if (columns.empty()) {
    leaves->clear();  // OpenRowGroup: empty means all leaves
    for (int leaf = 0; leaf < schema.num_leaves(); ++leaf) {
      selected[TopLevelField(schema, schema.leaf(leaf).node)] = true;
    }
  } else {
    LITHIFY_ASSIGN_OR_RETURN(*leaves, parquet::ResolveColumns(schema, columns));
    for (int leaf : *leaves) selected[TopLevelField(schema, schema.leaf(leaf).node)] = true;
  }
  for (int field : schema.top_level_fields()) {
    if (selected[field]) fields->push_back(field);
  }
  return Status::OK();
}

Status RunCat(const CatOptions& opts, const Context&) {
  LITHIFY_ASSIGN_OR_RETURN(
      parquet::RowFormat format,
      CheckRowOutputFlags(opts.format, opts.limit_given, opts.limit, opts.columns));

  Result<OpenedLocation> loc = OpenLocation(opts.file);
  if (!loc.ok()) return NameFile(loc.status(), opts.file);
  Result<std::unique_ptr<parquet::FileReader>> opened = parquet::FileReader::Open(loc->fs(), loc->path());
  if (!opened.ok()) return NameFile(opened.status(), opts.file);
  parquet::FileReader& reader = **opened;
  const parquet::Schema& schema = reader.schema();

  std::vector<int> leaves;
  std::vector<int> fields;
  LITHIFY_RETURN_NOT_OK(NameFile(PlanProjection(schema, opts.columns, &leaves, &fields), opts.file));

  std::string out;
  if (format == parquet::RowFormat::kCsv) {
    out = parquet::CsvHeader(schema, fields);
    LITHIFY_RETURN_NOT_OK(WriteStdout(out));
  }
  int64_t remaining = opts.limit_given ? opts.limit : -1;  // -1: no limit
  parquet::RowBatch batch;  // reused: its buffers are recycled between batches
  for (int rg = 0; rg < reader.num_row_groups() && remaining != 0; ++rg) {
    // A small --limit also keeps the batches small: nothing past it is decoded.
    int64_t batch_rows = parquet::FileReader::kDefaultBatchRows;
    if (remaining > 0) batch_rows = std::min(batch_rows, remaining);
    Result<std::unique_ptr<parquet::RowGroupStream>> stream =
        reader.OpenRowGroup(rg, leaves, batch_rows);
    if (!stream.ok()) return NameFile(stream.status(), opts.file);
    while (remaining != 0) {
      Result<bool> more = (*stream)->Next(&batch);
      if (!more.ok()) return NameFile(more.status(), opts.file);
      if (!*more) break;
      out.clear();
      Status st = parquet::RenderRows(schema, fields, batch, format, remaining, &out);
      if (!st.ok()) return NameFile(st.WithContextF("row group {}", rg), opts.file);
      LITHIFY_RETURN_NOT_OK(WriteStdout(out));
      if (remaining > 0) remaining -= std::min(remaining, batch.num_rows);
    }
  }
  return FlushStdout();
}

}  // namespace

void RegisterParquetCat(CLI::App& parquet, Runner* selected) {
  auto opts = std::make_shared<CatOptions>();
  CLI::App* cmd = parquet.add_subcommand(
      "cat", "Print rows as JSON lines (canonical values) or CSV");
  PathOption(cmd->add_option("file", opts->file, "Parquet file")->required());
  cmd->add_option("--columns", opts->columns,
                  "Columns to print, comma-separated; a nested path (b.c) prints field b "
                  "with only the selected members")
      ->delimiter(',');
  cmd->add_option("--limit", opts->limit, "Print at most N rows");
  cmd->add_option("--format", opts->format, "Output format: jsonl (default) or csv");
  cmd->callback([selected, opts, cmd] {
    opts->limit_given = cmd->count("--limit") > 0;
    *selected = [opts](const Context& ctx) { return RunCat(*opts, ctx); };
  });
}

}  // namespace lithify::cli
