// Data manifests decoded ahead of planning on CPU-pool tasks, handed back in manifest order.
//
// Planning's cost is decoding manifests (inflate + Avro), and manifests are independent, so
// several can be decoded at once; but planning must see entries in exactly the order a
// sequential read gives (manifest by manifest, entry by entry), so that its output (and
// its first error) do not depend on the thread count. Manifest k of the list goes to
// lane k % threads; each lane is one task on the CPU pool (base/thread_pool.h) that
// decodes its manifests in order into batches and keeps at most kQueuedBatches of them
// waiting, so memory is bounded by threads x kQueuedBatches x kBatchEntries entries
// whatever the manifests' sizes. Drain(k) hands manifest k's entries to a sink on the
// caller's thread.
//
// A lane task blocks while its queue is full, which only the consumer relieves; so the
// consumer never waits for a lane the pool has not started: Drain takes such a lane over
// and reads its manifests itself, as with threads <= 1 (caller-runs; the task, when it
// starts, finds the lane taken and ends). It waits only on running lanes, which progress.
//
// With threads <= 1 no task is queued and Drain reads the manifest itself. The
// destructor stops the lanes and waits for them (a consumer that stops early, on an error
// or a sink's refusal, leaves no work behind).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/thread_pool.h"
#include "lithify/iceberg/manifest.h"

namespace lithify::iceberg {

class ManifestPipeline {
 public:
  using EntrySink = std::function<Status(ManifestEntry&&)>;
  // Reads manifest k (0 <= k < count) to a sink; called on a pool thread or the
  // caller's, for each k once.
  using ReadFn = std::function<Status(size_t k, const EntrySink& sink)>;

  static constexpr size_t kBatchEntries = 512;
  static constexpr size_t kQueuedBatches = 4;

  ManifestPipeline(size_t count, int threads, ReadFn read);
  ~ManifestPipeline();
  ManifestPipeline(const ManifestPipeline&) = delete;
  ManifestPipeline& operator=(const ManifestPipeline&) = delete;

  // Every entry of manifest k to `sink`, in order; then the manifest's read status. Calls
  // must go k = 0, 1, 2, ... (each once).
  Status Drain(size_t k, const EntrySink& sink);

 private:
  struct Batch {
    size_t manifest = 0;
    std::vector<ManifestEntry> entries;
    bool last = false;  // the manifest's final batch, carrying its status
    Status status;
  };
  enum class LaneState { kQueued, kRunning, kTaken };  // kTaken: read by Drain itself
  struct Lane {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Batch> queue;
    LaneState state = LaneState::kQueued;
  };

  void Work(size_t lane);
  Status Push(Lane& lane, Batch&& batch);  // waits for room; Cancelled once stopping
  Batch Pop(Lane& lane);
  // Whether Drain reads this lane itself: the pool had not started it (now or before).
  bool TakeOverIfQueued(Lane& lane);

  size_t count_;
  ReadFn read_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::atomic<bool> stop_{false};
  std::optional<TaskGroup> workers_;  // last: waited for before the lanes go
};

}  // namespace lithify::iceberg
