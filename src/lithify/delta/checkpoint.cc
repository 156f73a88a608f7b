// Checkpoint reading: direct extraction, or canonical JSON rendering (see checkpoint.h).
#include "lithify/delta/checkpoint.h"

#include <algorithm>
#include <string_view>

#include "lithify/base/macros.h"
#include "lithify/delta/checkpoint_extract.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"

namespace lithify::delta {

namespace {

// Appendix "Checkpoint Schema": the action columns replay needs.
constexpr std::string_view kActionColumns[] = {"add",  "remove",         "metaData",
                                               "protocol", "txn",        "domainMetadata",
                                               "checkpointMetadata", "sidecar"};

bool IsActionColumn(std::string_view name) {
  for (auto c : kActionColumns) {
    if (c == name) return true;
  }
  return false;
}

// Top-level action fields present in the file and the leaves to read for them
// (everything under each, except add.partitionValues_parsed which replay ignores).
void ProjectActions(const parquet::Schema& schema, std::vector<int>* fields,
                    std::vector<int>* leaves) {
  for (int node : schema.top_level_fields()) {
    if (!IsActionColumn(schema.node(node).name)) continue;
    fields->push_back(node);
    for (int leaf : schema.LeavesUnder(node)) {
      const auto& path = schema.leaf(leaf).path;
      if (path.size() >= 2 && path[0] == "add" && path[1] == "partitionValues_parsed") continue;
      leaves->push_back(leaf);
    }
  }
}

Status ParseLines(std::string_view text, const std::string& path, int64_t first_row,
                  const ActionSink& sink) {
  size_t pos = 0;
  int64_t row = first_row;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    auto action = ParseActionLine(text.substr(pos, end - pos));
    if (!action.ok()) return action.status().WithContextF("{} row {}", path, row);
    if (action->has_value()) LITHIFY_RETURN_NOT_OK(sink(std::move(**action)));
    pos = end + 1;
    ++row;
  }
  return Status::OK();
}

}  // namespace

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink) {
  return ReadParquetCheckpoint(fs, path, sink, /*read_stats=*/true);
}

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats) {
  return ReadParquetCheckpoint(fs, path, sink, read_stats, nullptr);
}

Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats, const std::function<void(int64_t)>& on_rows) {
  LITHIFY_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  const uint64_t file_size = file->size();
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(std::move(file)));
  if (on_rows) {
    // The footer's count is only a hint: a hostile footer must not make the caller
    // reserve gigabytes, and no real checkpoint row takes fewer than 8 bytes.
    on_rows(std::clamp<int64_t>(reader->metadata().num_rows, 0, static_cast<int64_t>(file_size / 8)));
  }
  auto extractor = CheckpointExtractor::Make(reader->schema(), read_stats);
  if (extractor == nullptr) {
    // No action columns, or a shape only the generic rendering handles.
    return ReadParquetCheckpointRendered(fs, path, sink);
  }
  parquet::RowBatch batch;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(auto stream,
                                 reader->OpenRowGroup(rg, extractor->leaves(), kCheckpointBatchRows),
                                 "{}: row group {}", path, rg);
    while (true) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&batch));
      if (!more) break;
      LITHIFY_RETURN_NOT_OK(extractor->Extract(&batch, path, sink));
    }
  }
  return Status::OK();
}

Status ReadParquetCheckpointRendered(io::FileSystem* fs, const std::string& path,
                                     const ActionSink& sink) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  std::vector<int> fields, leaves;
  ProjectActions(reader->schema(), &fields, &leaves);
  if (fields.empty()) return Status::Corruption("{}: no action columns (not a Delta checkpoint)", path);
  std::string rendered;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(auto batch, reader->ReadRowGroup(rg, leaves));
    rendered.clear();
    LITHIFY_RETURN_NOT_OK_CTX(parquet::RenderRows(reader->schema(), fields, batch,
                                                  parquet::RowFormat::kJsonLines, -1, &rendered),
                              "{}: row group {}", path, rg);
    LITHIFY_RETURN_NOT_OK(ParseLines(rendered, path, reader->RowGroupFirstRow(rg), sink));
  }
  return Status::OK();
}

Status ReadJsonCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer data, fs->ReadFile(path));
  std::string_view text = AsStringView(data.view());
  size_t pos = 0;
  int64_t line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    auto action = ParseActionLine(text.substr(pos, end - pos));
    if (!action.ok()) return action.status().WithContextF("{} line {}", path, line);
    if (action->has_value()) LITHIFY_RETURN_NOT_OK(sink(std::move(**action)));
    pos = end + 1;
  }
  return Status::OK();
}

}  // namespace lithify::delta
