#include "lithify/iceberg/manifest_pipeline.h"

#include <atomic>

#include "lithify/base/macros.h"

namespace lithify::iceberg {

ManifestPipeline::ManifestPipeline(size_t count, int threads, ReadFn read) : count_(count), read_(std::move(read)) {
  const size_t n = threads <= 1 ? 0 : std::min<size_t>(static_cast<size_t>(threads), count);
  for (size_t i = 0; i < n; ++i) lanes_.push_back(std::make_unique<Lane>());
  if (n == 0) return;
  workers_.emplace(CpuPool(), static_cast<int>(n));
  for (size_t i = 0; i < n; ++i) workers_->Run([this, i] { Work(i); });
}

ManifestPipeline::~ManifestPipeline() {
  stop_ = true;
  for (auto& lane : lanes_) {
    std::lock_guard<std::mutex> lock(lane->mu);
    lane->cv.notify_all();
  }
  if (workers_) (void)workers_->Wait();  // a lane still queued runs here and ends at once
}

Status ManifestPipeline::Push(Lane& lane, Batch&& batch) {
  std::unique_lock<std::mutex> lock(lane.mu);
  lane.cv.wait(lock, [&] { return stop_ || lane.queue.size() < kQueuedBatches; });
  if (stop_) return Status::Cancelled("planning stopped");
  lane.queue.push_back(std::move(batch));
  lane.cv.notify_all();
  return Status::OK();
}

ManifestPipeline::Batch ManifestPipeline::Pop(Lane& lane) {
  std::unique_lock<std::mutex> lock(lane.mu);
  lane.cv.wait(lock, [&] { return !lane.queue.empty(); });
  Batch b = std::move(lane.queue.front());
  lane.queue.pop_front();
  lane.cv.notify_all();
  return b;
}

void ManifestPipeline::Work(size_t lane_index) {
  Lane& lane = *lanes_[lane_index];
  {
    std::lock_guard<std::mutex> lock(lane.mu);
    if (lane.state != LaneState::kQueued) return;  // Drain took it over
    lane.state = LaneState::kRunning;
  }
  for (size_t k = lane_index; k < count_ && !stop_; k += lanes_.size()) {
    Batch batch;
    batch.manifest = k;
    batch.entries.reserve(kBatchEntries);  // entries are large: no reallocation moves
    Status st = read_(k, [&](ManifestEntry&& e) -> Status {
      batch.entries.push_back(std::move(e));
      if (batch.entries.size() < kBatchEntries) return Status::OK();
      Batch full;
      full.manifest = k;
      std::swap(full.entries, batch.entries);
      batch.entries.reserve(kBatchEntries);
      return Push(lane, std::move(full));
    });
    if (stop_) return;
    batch.last = true;
    batch.status = std::move(st);
    const bool failed = !batch.status.ok();
    if (!Push(lane, std::move(batch)).ok() || failed) return;  // after an error the consumer stops here
  }
}

bool ManifestPipeline::TakeOverIfQueued(Lane& lane) {
  std::lock_guard<std::mutex> lock(lane.mu);
  if (lane.state == LaneState::kQueued) lane.state = LaneState::kTaken;
  return lane.state == LaneState::kTaken;
}

Status ManifestPipeline::Drain(size_t k, const EntrySink& sink) {
  if (lanes_.empty()) return read_(k, sink);
  Lane& lane = *lanes_[k % lanes_.size()];
  if (TakeOverIfQueued(lane)) return read_(k, sink);
  for (;;) {
    Batch b = Pop(lane);
    if (b.manifest != k) return Status::Internal("manifest pipeline: got manifest {} while draining {}", b.manifest, k);
    for (ManifestEntry& e : b.entries) LITHIFY_RETURN_NOT_OK(sink(std::move(e)));
    if (b.last) return b.status;
  }
}

}  // namespace lithify::iceberg
