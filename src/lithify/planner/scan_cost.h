// Spark's scan-task arithmetic over file sizes (FileSourceScanExec / FilePartition): the
// one cost model behind the simulator's and diagnose's "scan tasks" readouts.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace lithify::planner {

// The charged-bytes estimate accumulated file by file (no vector of sizes needed):
// ceil(sum(size + open_cost) / max_partition_bytes); 0 for no files or for
// max_partition_bytes <= 0.
class ChargedScanTaskCounter {
 public:
  ChargedScanTaskCounter(int64_t open_cost, int64_t max_partition_bytes)
      : open_cost_(open_cost), max_partition_bytes_(max_partition_bytes) {}
  void Add(int64_t size) { charged_ += size + open_cost_; }
  int64_t Tasks() const {
    return max_partition_bytes_ <= 0 ? 0 : (charged_ + max_partition_bytes_ - 1) / max_partition_bytes_;
  }

 private:
  int64_t open_cost_;
  int64_t max_partition_bytes_;
  int64_t charged_ = 0;
};

// The same estimate over a list of sizes.
int64_t ChargedScanTasks(const std::vector<int64_t>& sizes, int64_t open_cost,
                         int64_t max_partition_bytes);
// Spark's FilePartition.getFilePartitions: maxSplitBytes = min(max_partition_bytes,
// max(open_cost, sum(size + open_cost) / parallelism)); files split into chunks of at
// most maxSplitBytes (Parquet is splittable); chunks sorted by length descending and
// packed, a partition closed when current + chunk > maxSplitBytes, each chunk charging
// its length + open_cost. Returns the number of partitions (tasks).
int64_t SparkScanTasks(const std::vector<int64_t>& sizes, int64_t open_cost,
                       int64_t max_partition_bytes, int64_t parallelism);

}  // namespace lithify::planner
