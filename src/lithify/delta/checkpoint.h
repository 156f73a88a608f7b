// Checkpoint reading: the actions stored in checkpoint files and sidecars.
//
// PROTOCOL.md "Checkpoints", "Sidecar Files", "V2 Spec" and Appendix "Checkpoint
// Schema": a Parquet checkpoint (classic, multi-part part, UUID-named, or a sidecar)
// has one row per action with one non-null struct column among add, remove, metaData,
// protocol, txn, domainMetadata, checkpointMetadata and sidecar; a UUID-named JSON
// checkpoint has one action per line like a commit.
//
// Parquet checkpoints are read with CheckpointExtractor (checkpoint_extract.h): only the
// leaves of the fields the action structs hold are decoded, streamed row group by row
// group in batches (FileReader::OpenRowGroup), and rows become actions directly from
// the levels form. Memory is bounded by one batch (kCheckpointBatchRows rows) plus
// the reader's pages and dictionaries, whatever the checkpoint size.
//
// The first slice, kept as ReadParquetCheckpointRendered, renders rows with
// parquet::RenderRows to canonical JSON (maps become arrays of {key,value}) and parses
// them like commit lines. It is the fallback for files whose action columns have a shape
// the extractor does not handle, and the reference the extractor is tested against.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/live_files.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {

using ActionSink = std::function<Status(Action&&)>;

// Calls `sink` for every action of the Parquet checkpoint/sidecar at `path`, in file
// order. Errors carry the path (and row) as context; a sink error stops the read and is
// returned unchanged.
Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink);
// `read_stats` false: the statistics of add/remove (stats, stats_parsed) are neither
// decoded nor delivered (they read as absent); everything else is as above.
Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats);

// As above; `on_rows`, when set, is called once with the file's row count (from the
// footer) before the first action, so that callers can size their containers.
Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             bool read_stats, const std::function<void(int64_t)>& on_rows);

struct CheckpointReadOptions {
  // false: the statistics of add/remove (stats, stats_parsed) are neither decoded nor
  // delivered (they read as absent).
  bool read_stats = true;
  // When set, called once with the file's row count (from the footer, capped by the
  // file size) before the first action, so that callers can size their containers.
  std::function<void(int64_t)> on_rows;
  // When set, add actions go here as views into the decoded batch (valid only during the
  // call; no AddFile is built) instead of to the action sink. An error stops the read
  // and is returned unchanged.
  std::function<Status(const AddFileView&)> on_add;
  // Optional, with on_add: classify the add paths of each batch ahead of on_add, in two
  // steps. `add_path_keys` must be a pure function of the paths (thread-safe, reading
  // no state that changes): it runs wherever the batch is decoded (a CPU-pool thread,
  // or the calling thread when that one decodes).
  // `add_path_hints` runs on the calling thread just before the batch's rows go to the
  // sinks, with the same paths and the keys, and writes the hints (zeroed beforehand)
  // that on_add receives as AddFileView::path_hint. `paths[i]` is batch row i's add.path
  // as logged (empty when the row has none). Without both, every hint is 0.
  std::function<void(std::span<const std::string_view> paths, std::span<uint64_t> keys)> add_path_keys;
  std::function<void(std::span<const std::string_view> paths, std::span<const uint64_t> keys,
                     std::span<uint32_t> hints)>
      add_path_hints;
  // Threads: with 2 or more, batches are decoded by a task on the CPU pool
  // (base/thread_pool.h) while the calling thread extracts actions from the previous
  // one (memory: one more batch). 0 =
  // automatic (2 when the machine has more than one core). Sinks are always called on
  // the calling thread, in file order, so the result does not depend on it.
  int threads = 0;
};

// The general form of the overloads above.
Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink,
                             const CheckpointReadOptions& options);

// The rendering path (reference / fallback): same contract, whole row groups at a time.
Status ReadParquetCheckpointRendered(io::FileSystem* fs, const std::string& path,
                                     const ActionSink& sink);

// Rows per streamed checkpoint batch.
inline constexpr int64_t kCheckpointBatchRows = 16 * 1024;

// Same for a JSON (UUID-named V2) checkpoint: "<path> line N: ..." on malformed lines.
Status ReadJsonCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink);

}  // namespace lithify::delta
