// `lithify checkpoint`: load the latest snapshot and write its checkpoint.
#include "lithify/commands/checkpoint.h"

#include <chrono>

#include "lithify/base/macros.h"
#include "lithify/delta/snapshot.h"

namespace lithify::commands {

Result<delta::CheckpointWriteResult> Checkpoint(io::FileSystem* fs, const std::string& table_root,
                                                const CheckpointOptions& options) {
  delta::LoadOptions load;
  load.stats = delta::StatsMode::kRaw;
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto snap,
                               delta::Snapshot::Load(fs, table_root, delta::VersionSpec::Latest(), load),
                               "{}", table_root);
  int64_t now_ms = options.now_ms;
  if (now_ms < 0) {
    now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  }
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto result, delta::WriteCheckpoint(*snap, now_ms), "{}", table_root);
  return result;
}

}  // namespace lithify::commands
