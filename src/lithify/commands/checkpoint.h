// Checkpoint command: writes a classic Parquet checkpoint of a Delta table's latest
// version (delta::WriteCheckpoint) and the `_last_checkpoint` hint.
//
// The snapshot is loaded with StatsMode::kRaw: the stats text is copied into the
// checkpoint verbatim, never parsed. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "lithify/base/result.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

struct CheckpointOptions {
  // Decides which tombstones have expired (delta.deletedFileRetentionDuration);
  // < 0 = the wall clock.
  int64_t now_ms = -1;
};

// Errors: NotFound when `table_root` holds no Delta log; the snapshot's Corruption /
// NotSupported; InvalidArgument for a malformed delta.deletedFileRetentionDuration;
// IOError from storage. Each names the table.
Result<delta::CheckpointWriteResult> Checkpoint(io::FileSystem* fs, const std::string& table_root,
                                                const CheckpointOptions& options = {});

}  // namespace lithify::commands
