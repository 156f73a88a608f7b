// ExternalSorter: sorts the rows of many RowBatches by a fixed-width byte key under a
// memory budget, spilling sorted runs to temporary files and merging them back as a
// stream. This is the inner loop of Z-order and liquid clustering (a bin far larger than
// memory is sorted by its curve key and cut into files).
//
//   Make(schema, key_width, key_fn, options) -> Add(batch)* -> Finish(cuts, emit, on_cut)
//
// Keys: key_fn appends key_width bytes per row of a batch; rows are ordered by their
// keys compared as unsigned bytes (memcmp), ties in arrival order (the sort is stable,
// so equal keys keep the input order). key_fn is called once per added batch: runs keep
// the keys with the rows.
//
// Memory: buffered batches, their keys and the row index are counted (BatchBytes) and
// held under options.memory_budget: before a batch would push the total over it, the
// buffered rows are sorted and written as one run (sort_run.h: blocks of the batches' own
// buffers and keys, each at most 1/128 of the budget). A single batch larger than the
// budget is accepted alone (the caller bounds input batches). The merge holds one block
// per run, and merges at most 3/8 of the budget's worth of blocks at once (24 runs, about
// 12 budgets of input); more runs are first merged in groups. The number of runs is about
// input bytes / (budget / 2).
// stats().peak_buffered_bytes reports the high-water mark of counted bytes: the chunk,
// the batch being emitted, a run's write buffer, the merge's blocks, keys and row
// indexes. Not counted: what the caller does with emitted batches (its writer;
// ClusteringBinIo's callers keep that to a quarter of the budget) and the batch Add is
// given.
//
// Temporary files are created in a fresh directory (options.spill_dir, default a mkdtemp
// directory under $TMPDIR or /tmp) and unlinked at once (sort_run.h), so they go with the
// sorter or the process, whatever happens (Finish, an error, abandonment, a crash). Errors
// name the run file.
//
// Output: Finish emits every row exactly once in key order, in batches of at most
// options.output_batch_rows rows whose columns point at `schema`'s leaves. `cuts` are
// ascending row counts (0 < cut < rows()) at which a batch always ends; after the batch
// ending at a cut, on_cut() is called (callers start a new output file there, which
// range-partitions the output on the key).
//
// With options.threads > 1 the sorter runs two threads of its own next to the caller's:
// a full chunk is sorted and written on one while Add buffers the next, and Finish calls
// emit and on_cut on the other, in order and one at a time, while the merge goes on
// (batches wait in a queue of at most an output batch's bytes, counted in the peak);
// Finish returns after the last call. Not thread-safe: one caller, one sorter per bin.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::exec {

struct SortOptions {
  int64_t memory_budget = int64_t{256} << 20;  // bytes of buffered rows + keys (>= 1)
  std::string spill_dir;                       // "" = a fresh mkdtemp directory
  int64_t output_batch_rows = 16 * 1024;       // rows per emitted batch (>= 1)
  // 2 or more: a full chunk is sorted and written on a thread of its own while Add
  // buffers the next (two chunks of a quarter of the budget instead of one of half), and
  // emitted batches are handed to the caller on another while the merge goes on.
  int threads = 1;
};

struct SortStats {
  int64_t rows = 0;                 // rows added
  int64_t runs_spilled = 0;         // sorted runs written to temporary files
  int64_t bytes_spilled = 0;        // their total file size
  int64_t peak_buffered_bytes = 0;  // high-water mark of counted bytes (see header)
};

// Counted bytes of a batch: levels, values, offsets and payload.
int64_t BatchBytes(const parquet::RowBatch& batch);

// Appends rows [begin, end) of `src` to `dst` (same columns; nested columns included:
// a row's level range starts at each repetition level 0). `dst` must have as many columns
// as `src`, initialized with ColumnData::Reset.
void AppendRows(const parquet::RowBatch& src, int64_t begin, int64_t end, parquet::RowBatch* dst);

class ExternalSorter {
 public:
  using KeyFn = std::function<Status(const parquet::RowBatch& batch, std::string* keys)>;
  using EmitFn = std::function<Status(const parquet::RowBatch& batch)>;

  // `schema` describes the batches (every leaf, in leaf order) and must outlive the
  // sorter. InvalidArgument for key_width < 1 or a non-positive budget / batch size.
  static Result<std::unique_ptr<ExternalSorter>> Make(const parquet::Schema* schema, int key_width, KeyFn key_fn,
                                                      SortOptions options = {});
  ~ExternalSorter();

  // Takes the rows of `batch` (columns: every leaf of the schema, in order).
  Status Add(parquet::RowBatch batch);
  // The same for a batch the caller keeps (its rows are copied).
  Status AddCopy(const parquet::RowBatch& batch);
  // Emits all rows in key order (see the header comment). Call once.
  Status Finish(const std::vector<int64_t>& cuts, const EmitFn& emit, const std::function<Status()>& on_cut);

  int64_t rows() const;
  const SortStats& stats() const;

 private:
  struct Impl;
  explicit ExternalSorter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lithify::exec
