// Builders for synthetic file lists in planner tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lithify/delta/maintenance_policy.h"
#include "lithify/planner/compaction.h"
#include "lithify/table/file_entry.h"

namespace lithify::planner::testing {

// The planner tests prove the mechanism under Delta's policy, whose rules they were
// written for (tests may link the modules that give the planner its policy).
inline const TablePolicy& Delta() { return delta::DeltaPolicy(); }

inline constexpr int64_t kMB = 1'000'000;  // decimal, as people say "about 1 MB"

// A live file of `size` bytes in `partition` with `records` physical rows and, when
// `deleted` is set, a deletion vector deleting that many rows.
inline table::FileEntry File(std::string path, int64_t size, PartitionValues partition = {},
                             std::optional<int64_t> records = 1000,
                             std::optional<int64_t> deleted = std::nullopt) {
  table::FileEntry f;
  f.path = std::move(path);
  f.size = size;
  f.partition_values = std::move(partition);
  if (records) {
    f.stats.emplace();
    f.stats->num_records = *records;
  }
  if (deleted) {
    table::DeletionVectorRef dv;
    dv.storage_type = "u";
    dv.location = "ab" + f.path;
    dv.cardinality = *deleted;
    dv.unique_id = "u" + dv.location;
    f.deletion_vector = dv;
  }
  return f;
}

}  // namespace lithify::planner::testing
