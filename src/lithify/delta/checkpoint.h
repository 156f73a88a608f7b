// Checkpoint reading: the actions stored in checkpoint files and sidecars.
//
// PROTOCOL.md "Checkpoints", "Sidecar Files", "V2 Spec" and Appendix "Checkpoint
// Schema": a Parquet checkpoint (classic, multi-part part, UUID-named, or a sidecar)
// has one row per action with one non-null struct column among add, remove, metaData,
// protocol, txn, domainMetadata, checkpointMetadata and sidecar; a UUID-named JSON
// checkpoint has one action per line like a commit.
//
// First slice (documented trade-off): Parquet rows are rendered with
// parquet::RenderRows to canonical JSON (maps become arrays of {key,value}, which the
// action parser accepts) and parsed with the same code as commit lines. Only the action
// columns are projected; `add.stats_parsed` is kept (some writers store statistics only
// there); `partitionValues_parsed` is skipped. Memory is bounded by one row group of
// the checkpoint plus its rendering. A native nested-value extractor over RowBatch can
// replace the rendering later without changing this interface.
//
// Stateless; thread-safe.
#pragma once

#include <functional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {

using ActionSink = std::function<Status(Action&&)>;

// Calls `sink` for every action of the Parquet checkpoint/sidecar at `path`, in file
// order. Errors carry the path (and row) as context; a sink error stops the read and is
// returned unchanged.
Status ReadParquetCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink);

// Same for a JSON (UUID-named V2) checkpoint: "<path> line N: ..." on malformed lines.
Status ReadJsonCheckpoint(io::FileSystem* fs, const std::string& path, const ActionSink& sink);

}  // namespace lithify::delta
