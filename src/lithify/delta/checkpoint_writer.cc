// Checkpoint writer: implementation pending (work in progress).
#include "lithify/delta/checkpoint_writer.h"

namespace lithify::delta {

Result<CheckpointWriteResult> WriteCheckpoint(const Snapshot& snapshot, int64_t now_ms) {
  (void)snapshot;
  (void)now_ms;
  return Status::NotSupported("checkpoint writing is not implemented yet");
}

}  // namespace lithify::delta
