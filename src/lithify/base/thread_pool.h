// The process's threads for bounded parallel work (issue 15): one ThreadPool type, two
// process-wide instances, and two ways to use them -- TaskGroup (tasks added one by one,
// waited for together) and ParallelFor (indices 0..n-1).
//
// Why two pools. CpuPool() has hardware_concurrency threads (LITHIFY_THREADS=N in the
// environment: N, read once, for benchmarks comparing thread counts of one binary): work that wants cores
// (decoding a checkpoint, parsing commits, decoding manifests) gains nothing from more.
// IoPool() has up to kIoPoolThreads: work whose caller fixes its concurrency to hide
// latency -- 16 footer reads in flight on a 2-core machine, 8 ranged GETs, parallel
// deletes, bins that wait on object stores or on child processes (the executor's
// `threads` is the user's choice, Delta's optimize.maxThreads, honoured above the core
// count). A group limit alone on one core-sized pool could not give 16 requests in
// flight on 2 cores; one big pool would oversubscribe the cores with decoding work.
// Threads are started lazily, one when a task is queued and no thread is idle, so a
// process that never asks for parallel IO never has IO threads.
//
// Caller-runs (no deadlock under nesting). A group's waiter (TaskGroup::Wait,
// ParallelFor) never just blocks while its group has queued tasks: it takes them off
// the group's queue and runs them itself. It blocks only while every unfinished task of
// its group is running on some other thread, and those make progress by the same rule.
// So a task running on a pool thread may itself wait for pool work (an executor bin
// whose reader fetches ranges in parallel), on a pool of one thread, or when no thread
// can be started at all: progress never depends on a free pool thread. Parallelism may
// be less than asked when the pool is busy; correctness never depends on it.
//
// Contract.
//  * Bounds: at most `max_parallel` tasks of a group run at once (the waiter running one
//    counts); a pool never runs more than its size on its own threads, plus each waiter.
//  * Ordering: a group's tasks start in the order they were added; they may finish in
//    any order. ParallelFor hands out indices in increasing order.
//  * Errors: tasks return Status (void tasks count as OK); an exception thrown by a task
//    never escapes its thread: it becomes Status::Internal. TaskGroup::Wait returns the
//    error of the earliest-added failed task. ParallelFor returns what the sequential
//    loop `for i: RETURN_NOT_OK(fn(i))` returns: the failure of the lowest index.
//  * Cancellation: a TaskGroup runs every task added (a task that should stop early
//    checks its caller's flag). ParallelFor stops handing out indices above a failed
//    one; indices already running finish, lower ones still run (that is what makes the
//    error the sequential one). Nothing is ever interrupted.
//  * Lifetime: a TaskGroup's destructor waits for its tasks, so a task may capture the
//    caller's locals by reference. The process-wide pools are never destroyed: at exit
//    their threads are idle (every caller waits for its own work before returning) and
//    are not joined, so exit never waits on a pool. In a fork()ed child the process-wide
//    pools start afresh (the parent's threads do not exist there); a group created
//    before the fork must not be used in the child.
//  * A ThreadPool constructed by hand (tests) must outlive every group using it; its
//    destructor joins its threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "lithify/base/status.h"

namespace lithify {

class ThreadPool {
 public:
  // Up to `threads` (at least 1) threads, started as work arrives.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int max_threads() const { return max_threads_; }

 private:
  friend class TaskGroup;
  // Runs `job` on a pool thread later. Jobs never throw and never block on other jobs
  // (they are TaskGroup tickets: "run queued tasks of this group").
  void Post(std::function<void()> job);
  void Work();

  const int max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stop_ = false;
};

// The size of IoPool(): enough for the widest IO fan-out (executor bins times their
// footer reads), small enough that a runaway caller cannot start thousands of threads.
inline constexpr int kIoPoolThreads = 64;

// The process-wide pools, created on first use (see the header comment).
ThreadPool& CpuPool();
ThreadPool& IoPool();
// Tests: replaces CpuPool() by a pool of `threads` from now on (the old one is kept
// alive, groups using it finish there).
void ReplaceCpuPoolForTesting(int threads);

// Tasks added one by one and waited for together. Used by one thread (the one adding
// and waiting); the tasks themselves may run anywhere.
class TaskGroup {
 public:
  TaskGroup(ThreadPool& pool, int max_parallel);
  ~TaskGroup();  // Wait(), the status dropped
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Queues `task` (returning Status or void); it may start at once on a pool thread.
  template <typename F>
  void Run(F&& task) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      Add([t = std::forward<F>(task)]() mutable {
        t();
        return Status::OK();
      });
    } else {
      Add(std::function<Status()>(std::forward<F>(task)));
    }
  }

  // Runs queued tasks on this thread, waits for the running ones; then returns the
  // error of the earliest-added failed task since the last Wait, else OK. The group may
  // be used again afterwards.
  Status Wait();

 private:
  struct State;
  void Add(std::function<Status()> task);

  ThreadPool& pool_;
  std::shared_ptr<State> state_;  // shared with the tickets still in the pool's queue
};

// Calls fn(i) for every i in [0, n), at most `max_parallel` at once (the caller runs
// some itself); returns the lowest failed index's error, as the sequential loop would,
// and starts no index above a failed one (see the contract above).
Status ParallelFor(ThreadPool& pool, size_t n, int max_parallel, const std::function<Status(size_t)>& fn);

}  // namespace lithify
