// Checkpoint writer: a classic single-file Parquet checkpoint (PROTOCOL.md
// "Checkpoints", Appendix "Checkpoint Schema") and the `_last_checkpoint` file.
//
// The checkpoint holds the snapshot's state as rows of struct columns: protocol,
// metaData, txn, add (live files, dataChange=false, stats as the JSON string),
// remove (tombstones not yet expired under delta.deletedFileRetentionDuration),
// domainMetadata. It is written with FileSystem::Create, so readers never see a partial
// checkpoint; `_last_checkpoint` is replaced after it. Spark, delta-rs, DuckDB and
// lithify's own reader read it back to the same replay.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "lithify/base/result.h"
#include "lithify/delta/snapshot.h"

namespace lithify::delta {

struct CheckpointWriteResult {
  int64_t version = -1;
  std::string path;          // the checkpoint file
  int64_t num_actions = 0;   // rows written
  int64_t num_add_files = 0;
  int64_t size_bytes = 0;
};

// Writes `<version>.checkpoint.parquet` for `snapshot` (loaded with StatsMode kRaw or
// kParsed, so stats text is kept) and then `_last_checkpoint`. `now_ms` decides which
// tombstones have expired. Errors: IOError from storage; InvalidArgument for a snapshot
// loaded with StatsMode::kNone.
Result<CheckpointWriteResult> WriteCheckpoint(const Snapshot& snapshot, int64_t now_ms);

}  // namespace lithify::delta
