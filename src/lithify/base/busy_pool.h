// BusyCpuPool: for tests. Replaces CpuPool() by a pool of one thread and keeps that
// thread busy until destroyed, so that CPU-pool work can only run on its waiters (the
// caller-runs rule of thread_pool.h): code that would wait for a free pool thread hangs
// under it instead of passing by luck. The destructor frees the thread and puts a pool
// of hardware_concurrency threads back.
#pragma once

#include <atomic>
#include <optional>
#include <thread>

#include "lithify/base/thread_pool.h"

namespace lithify {

class BusyCpuPool {
 public:
  BusyCpuPool() {
    ReplaceCpuPoolForTesting(1);
    holder_.emplace(CpuPool(), 1);
    holder_->Run([this] {
      started_ = true;
      started_.notify_all();
      release_.wait(false);
    });
    started_.wait(false);  // running on the pool's thread, not queued
  }
  ~BusyCpuPool() {
    release_ = true;
    release_.notify_all();
    (void)holder_->Wait();
    ReplaceCpuPoolForTesting(static_cast<int>(std::thread::hardware_concurrency()));
  }
  BusyCpuPool(const BusyCpuPool&) = delete;
  BusyCpuPool& operator=(const BusyCpuPool&) = delete;

 private:
  std::atomic<bool> started_{false};
  std::atomic<bool> release_{false};
  std::optional<TaskGroup> holder_;
};

}  // namespace lithify
