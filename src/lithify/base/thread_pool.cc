#include "lithify/base/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <system_error>

namespace lithify {

namespace {

// A task's outcome, an exception included: nothing may unwind out of a pool thread.
template <typename F>
Status CallCatching(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Status::Internal("a parallel task threw: {}", e.what());
  } catch (...) {
    return Status::Internal("a parallel task threw a non-standard exception");
  }
}

}  // namespace

// ---- ThreadPool ----

ThreadPool::ThreadPool(int threads) : max_threads_(std::max(threads, 1)) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Post(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.push_back(std::move(job));
  // A thread more only when the queued jobs outnumber the idle threads (an idle thread
  // already notified has not taken its job yet).
  if (jobs_.size() > idle_ && threads_.size() < static_cast<size_t>(max_threads_)) {
    try {
      threads_.emplace_back([this] { Work(); });
    } catch (const std::system_error&) {
      // No thread: the job waits for a busy one, or its group's waiter runs the work.
    }
  }
  cv_.notify_one();
}

void ThreadPool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    while (jobs_.empty() && !stop_) {
      ++idle_;
      cv_.wait(lock);
      --idle_;
    }
    if (jobs_.empty()) return;  // stopping, and nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // release what it holds before sleeping
    lock.lock();
  }
}

// ---- the process-wide pools ----

namespace {

std::atomic<ThreadPool*> g_cpu{nullptr};
std::atomic<ThreadPool*> g_io{nullptr};
// Pools that are no longer the process-wide ones, kept reachable (never destroyed: a
// group may still use them; and a leak checker must not report them).
std::atomic<ThreadPool*> g_parent_cpu{nullptr};
std::atomic<ThreadPool*> g_parent_io{nullptr};
std::mutex g_replaced_mu;
std::vector<ThreadPool*>* g_replaced = nullptr;

// In a fork()ed child the parent's pool threads do not exist: start afresh there.
void ForgetPoolsInChild() {
  g_parent_cpu.store(g_cpu.exchange(nullptr));
  g_parent_io.store(g_io.exchange(nullptr));
}

ThreadPool& Global(std::atomic<ThreadPool*>& slot, int threads) {
  static std::once_flag at_fork;
  std::call_once(at_fork, [] { pthread_atfork(nullptr, nullptr, ForgetPoolsInChild); });
  ThreadPool* pool = slot.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  auto* fresh = new ThreadPool(threads);  // never deleted: see the header on exit
  if (slot.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread created it first (no thread was started yet)
  return *pool;
}

// LITHIFY_THREADS=N (N >= 1) sizes the CPU pool instead of the core count, so that a
// benchmark can time 1 and 2 threads of the same binary; anything else is ignored.
int CpuThreads() {
  if (const char* env = std::getenv("LITHIFY_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1 && n <= 1024) return static_cast<int>(n);
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

ThreadPool& CpuPool() { return Global(g_cpu, CpuThreads()); }
ThreadPool& IoPool() { return Global(g_io, kIoPoolThreads); }

void ReplaceCpuPoolForTesting(int threads) {
  CpuPool();  // the fork handler is registered, and there is a pool to retire
  ThreadPool* old = g_cpu.exchange(new ThreadPool(threads));
  std::lock_guard<std::mutex> lock(g_replaced_mu);
  if (g_replaced == nullptr) g_replaced = new std::vector<ThreadPool*>();
  g_replaced->push_back(old);
}

// ---- TaskGroup ----

struct TaskGroup::State {
  explicit State(int limit) : max_parallel(std::max(limit, 1)) {}

  struct Task {
    size_t index;
    std::function<Status()> fn;
  };

  const int max_parallel;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Task> queued;
  int running = 0;         // tasks running, on pool threads or the waiter
  int pending_tickets = 0; // tickets in the pool's queue, not started yet
  int active_tickets = 0;  // tickets draining the queue on a pool thread
  size_t added = 0;
  size_t failed_index = std::numeric_limits<size_t>::max();
  Status failed;

  bool CanStart() const { return !queued.empty() && running < max_parallel; }

  // Pops and runs the oldest queued task (mu held on entry and exit, not while it runs).
  void RunOne(std::unique_lock<std::mutex>& lock) {
    Task t = std::move(queued.front());
    queued.pop_front();
    ++running;
    lock.unlock();
    Status st = CallCatching(t.fn);
    t.fn = nullptr;  // its captures go before the waiter is told
    lock.lock();
    --running;
    if (!st.ok() && t.index < failed_index) {
      failed_index = t.index;
      failed = std::move(st);
    }
    cv.notify_all();
  }

  // A pool thread's turn: runs queued tasks while the limit allows. A ticket that finds
  // the queue empty (the waiter ran the tasks) does nothing.
  void Ticket() {
    std::unique_lock<std::mutex> lock(mu);
    --pending_tickets;
    ++active_tickets;
    while (CanStart()) RunOne(lock);
    --active_tickets;
  }

  // Whether an added task needs one more ticket: not when a ticket that has not started
  // yet will take it, nor when the tickets already reach the limit.
  bool WantsTicket() const {
    return static_cast<size_t>(pending_tickets) < queued.size() && pending_tickets + active_tickets < max_parallel;
  }
};

TaskGroup::TaskGroup(ThreadPool& pool, int max_parallel)
    : pool_(pool), state_(std::make_shared<State>(max_parallel)) {}

TaskGroup::~TaskGroup() { (void)Wait(); }

void TaskGroup::Add(std::function<Status()> task) {
  bool post = false;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->queued.push_back({state_->added++, std::move(task)});
    post = state_->WantsTicket();
    if (post) ++state_->pending_tickets;
  }
  if (post) pool_.Post([s = state_] { s->Ticket(); });
}

Status TaskGroup::Wait() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    if (s.CanStart()) {
      s.RunOne(lock);  // caller-runs: never wait for a pool thread to take it
    } else if (s.queued.empty() && s.running == 0) {
      break;
    } else {
      s.cv.wait(lock);
    }
  }
  Status out = std::move(s.failed);
  s.failed = Status::OK();
  s.failed_index = std::numeric_limits<size_t>::max();
  return out;
}

// ---- ParallelFor ----

Status ParallelFor(ThreadPool& pool, size_t n, int max_parallel, const std::function<Status(size_t)>& fn) {
  const size_t workers = std::min(n, static_cast<size_t>(std::max(max_parallel, 1)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) {
      Status st = CallCatching([&] { return fn(i); });
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  std::atomic<size_t> next{0};
  // The lowest failed index so far: indices above it are not started.
  std::atomic<size_t> lowest_failed{std::numeric_limits<size_t>::max()};
  std::mutex mu;
  Status first;  // the error of lowest_failed
  auto work = [&] {
    for (size_t i = next++; i < n && i < lowest_failed.load(); i = next++) {
      Status st = CallCatching([&] { return fn(i); });
      if (st.ok()) continue;
      std::lock_guard<std::mutex> lock(mu);
      if (i < lowest_failed.load()) {
        lowest_failed.store(i);
        first = std::move(st);
      }
    }
  };
  TaskGroup group(pool, static_cast<int>(workers));
  for (size_t w = 0; w < workers; ++w) group.Run(work);
  (void)group.Wait();  // the workers report through `first`
  return first;
}

}  // namespace lithify
