// The commit of an OPTIMIZE / REORG batch on a Delta table: RemoveFile per input
// (dataChange=false, extendedFileMetadata, numRecords-only stats, the input's DV and
// row-tracking fields), the bins' AddFiles, Delta's operationMetrics, and lithify's
// conflict rule (commands/optimize.h "Conflicts"): bins whose inputs a concurrent commit
// removed or gave a new deletion vector are abandoned, the rest committed on the latest
// version. Library lithify_delta_exec (it needs DeltaBinIo's view of the inputs).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/bin_io.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/plan.h"
#include "lithify/table/file_entry.h"

namespace lithify::delta {

// RemoveFile as Delta's removeWithTimestamp(dataChange=false): stats trimmed to numRecords.
RemoveFile MakeRemove(const table::FileEntry& f, int64_t now_ms);

// Delta's OptimizeStats percentiles over the added sizes: s[0], s[n/4], s[n/2], s[3n/4], s[n-1].
std::map<std::string, std::string> OperationMetrics(std::vector<int64_t> added, const std::vector<const table::FileEntry*>& removed);

struct BatchCommitter {
  io::FileSystem* fs;
  const std::string& root;
  const TransactionOptions& options;
  const std::string& operation;         // "OPTIMIZE" or "REORG"
  const nlohmann::json& parameters;     // its operationParameters
  const planner::Plan& plan;
  DeltaBinIo& bio;
  // The add actions of every bin run so far (from its result), by bin id.
  const std::map<int, std::vector<delta::AddFile>>& adds;
  bool row_tracking = false;

  // Commits `bins` (already rewritten) on `snapshot`; on a concurrent removal of an input,
  // abandons the affected bins and commits the rest on the latest version.
  Result<std::optional<int64_t>> Commit(std::shared_ptr<const delta::Snapshot> snapshot, std::vector<int> bins,
                                        std::vector<std::pair<int, std::string>>* abandoned,
                                        std::vector<int>* committed_bins);

 private:
  bool HasAdds(const std::vector<int>& bins) {
    for (int b : bins) {
      if (!AddsOf(b).empty()) return true;
    }
    return false;
  }

 public:
  const std::vector<delta::AddFile>& AddsOf(int bin) const {
    static const std::vector<delta::AddFile> kNone;
    auto it = adds.find(bin);
    return it == adds.end() ? kNone : it->second;
  }
};


}  // namespace lithify::delta
