// Spark's scan-task arithmetic over file sizes (FileSourceScanExec / FilePartition).
#include <algorithm>
#include <functional>

#include "lithify/planner/scan_cost.h"

namespace lithify::planner {

int64_t ChargedScanTasks(const std::vector<int64_t>& sizes, int64_t open_cost,
                         int64_t max_partition_bytes) {
  if (sizes.empty()) return 0;
  ChargedScanTaskCounter counter(open_cost, max_partition_bytes);
  for (int64_t s : sizes) counter.Add(s);
  return counter.Tasks();
}

int64_t SparkScanTasks(const std::vector<int64_t>& sizes, int64_t open_cost,
                       int64_t max_partition_bytes, int64_t parallelism) {
  if (sizes.empty() || max_partition_bytes <= 0) return 0;
  int64_t total = 0;
  for (int64_t s : sizes) total += s + open_cost;
  const int64_t bytes_per_core = total / std::max<int64_t>(parallelism, 1);
  const int64_t max_split = std::min(max_partition_bytes, std::max(open_cost, bytes_per_core));
  if (max_split <= 0) return 0;
  // Parquet is splittable: every file becomes chunks of at most max_split bytes.
  std::vector<int64_t> chunks;
  chunks.reserve(sizes.size());
  for (int64_t s : sizes) {
    for (int64_t offset = 0; offset < s; offset += max_split) {
      chunks.push_back(std::min(s - offset, max_split));
    }
  }
  std::sort(chunks.begin(), chunks.end(), std::greater<>());
  int64_t partitions = 0;
  int64_t current = 0;
  bool open = false;  // the current partition holds a chunk
  for (int64_t c : chunks) {
    if (current + c > max_split && open) {
      ++partitions;
      current = 0;
      open = false;
    } else if (current + c > max_split) {
      current = 0;  // Spark's closePartition on an empty partition only resets the size
    }
    current += c + open_cost;
    open = true;
  }
  if (open) ++partitions;
  return partitions;
}

}  // namespace lithify::planner
