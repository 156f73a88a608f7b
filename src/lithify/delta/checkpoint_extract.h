// Direct extraction of Delta actions from checkpoint batches in levels form.
//
// Internal to the delta module (used by checkpoint.cc). A CheckpointExtractor is bound
// to one checkpoint file's Parquet schema: it resolves the action columns of PROTOCOL.md
// Appendix "Checkpoint Schema" to leaf columns once, and then turns each RowBatch of
// those leaves (definition/repetition levels plus dense values, see column_batch.h)
// straight into AddFile / RemoveFile / Metadata / ... structs, with no intermediate
// JSON. Only the fields the action structs hold are projected (e.g. not
// add.partitionValues_parsed), which also saves decoding.
//
// Semantics are those of the JSON path (ParseActionLine over the canonical rendering of
// the row): same defaults, same required fields, same Corruption cases ("'add' action:
// missing field 'path'"), map entries last-wins, and a row with several non-null action
// columns dispatched on the alphabetically first one (the rendering's key order). Two
// documented differences, both on values the JSON path would itself mangle: integers are
// read by physical type (logical annotations such as TIMESTAMP on a long are ignored
// instead of rendering as text) and string bytes are kept as stored (the rendering
// replaces invalid UTF-8).
//
// `add.stats_parsed`, a free-form struct, is still rendered to JSON, but only its own
// leaves and only when the file has it.
//
// Shapes outside the checkpoint schema (a known field with an unexpected physical type,
// a map that is not a MAP of strings, ...) make Make() return nullptr: the caller then
// uses the rendering path, which reports such rows exactly as before.
//
// Levels are validated while walking (value indices within the value count, level
// counts consistent across a map's key and value), so a hostile file yields Corruption.
//
// Not thread-safe; one extractor per file being read.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/live_files.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::delta {

class CheckpointExtractor {
 public:
  using Sink = std::function<Status(Action&&)>;

  // nullptr when the schema has no action column or an action field has a shape the
  // extractor does not handle (see above). `schema` must outlive the extractor.
  // `read_stats` false: add.stats / add.stats_parsed / remove.stats are not projected and
  // read as null (for callers that drop statistics anyway; they are most of the bytes).
  static std::unique_ptr<CheckpointExtractor> Make(const parquet::Schema& schema, bool read_stats = true);
  virtual ~CheckpointExtractor() = default;

  // Leaf columns to read, in the order Extract expects them in the batch.
  virtual const std::vector<int>& leaves() const = 0;

  using AddSink = std::function<Status(const AddFileView&)>;

  // Calls `sink` for each row of `batch` that holds an action, in row order. The batch's
  // columns must be leaves() in order; `batch` may be modified (columns moved out).
  // With `on_add`, add actions go to it instead, as views into the batch (no AddFile is
  // built; same validation). Errors are located like the rendering path's: "<file> row
  // <file row index>: 'add' action: missing field 'path'". A sink error is returned
  // unchanged.
  // `hints`, when not null, holds one value per batch row, handed to on_add as
  // AddFileView::path_hint.
  virtual Status Extract(parquet::RowBatch* batch, const std::string& file, const Sink& sink,
                         const AddSink* on_add, const uint32_t* hints) = 0;
  Status Extract(parquet::RowBatch* batch, const std::string& file, const Sink& sink,
                 const AddSink* on_add) {
    return Extract(batch, file, sink, on_add, nullptr);
  }
  Status Extract(parquet::RowBatch* batch, const std::string& file, const Sink& sink) {
    return Extract(batch, file, sink, nullptr, nullptr);
  }

  // Fills `paths` with every row's add.path of `batch` (empty for rows without one);
  // false, leaving it empty, when add.path is not one level per row with consistent
  // value counts (a damaged file, which Extract then reports as usual). The views point
  // into the batch. Const and independent of Extract's state: it may run on another
  // thread, on another batch, while Extract runs.
  virtual bool AddPaths(const parquet::RowBatch& batch, std::vector<std::string_view>* paths) const = 0;
};

}  // namespace lithify::delta
