#include "lithify/base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lithify/base/busy_pool.h"

namespace lithify {
namespace {

// Counts how many callers are inside at once and the most ever seen.
struct InFlight {
  std::atomic<int> now{0};
  std::atomic<int> max{0};
  void Enter() {
    const int n = ++now;
    int m = max.load();
    while (n > m && !max.compare_exchange_weak(m, n)) {
    }
  }
  void Leave() { --now; }
};

TEST(ParallelFor, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    for (int limit : {1, 3, 16}) {
      std::vector<std::atomic<int>> seen(1000);
      Status st = ParallelFor(pool, seen.size(), limit, [&](size_t i) {
        ++seen[i];
        return Status::OK();
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].load(), 1) << i << " threads " << threads;
    }
  }
}

TEST(ParallelFor, EmptyRangeCallsNothing) {
  ThreadPool pool(2);
  EXPECT_TRUE(ParallelFor(pool, 0, 4, [](size_t) { return Status::Internal("called"); }).ok());
}

// A task on the pool that itself waits for pool work: the inner waiter runs its own
// tasks, so even a pool of one thread (held by the outer task) completes.
TEST(ParallelFor, NestedCompletesOnSmallPools) {
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    std::atomic<int> leaves{0};
    Status st = ParallelFor(pool, 8, 8, [&](size_t) {
      return ParallelFor(pool, 8, 8, [&](size_t) {
        return ParallelFor(pool, 4, 4, [&](size_t) {
          ++leaves;
          return Status::OK();
        });
      });
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(leaves.load(), 8 * 8 * 4) << "threads " << threads;
  }
}

TEST(TaskGroup, NestedGroupInsideTaskOnOneThread) {
  ThreadPool pool(1);
  TaskGroup outer(pool, 4);
  std::atomic<int> done{0};
  for (int t = 0; t < 4; ++t) {
    outer.Run([&] {
      TaskGroup inner(pool, 4);
      for (int k = 0; k < 4; ++k) inner.Run([&] { ++done; });
      return inner.Wait();
    });
  }
  ASSERT_TRUE(outer.Wait().ok());
  EXPECT_EQ(done.load(), 16);
}

// The sequential loop's error: the lowest failed index, whichever fails first in time.
TEST(ParallelFor, ReturnsLowestFailedIndex) {
  ThreadPool pool(4);
  for (int round = 0; round < 20; ++round) {
    Status st = ParallelFor(pool, 200, 8, [&](size_t i) {
      if (i == 37 || i == 38 || i == 150) return Status::IOError("index {}", i);
      return Status::OK();
    });
    EXPECT_EQ(st.message(), "index 37");
  }
}

TEST(ParallelFor, RunsEverythingBelowAFailureAndStopsAboveIt) {
  ThreadPool pool(2);
  // Many indices: between index 10 setting its flag and ParallelFor recording its error,
  // the other workers may run on (a preempted thread on a loaded machine once let all of
  // 500 run); they cannot run through 200,000 in that window.
  std::vector<std::atomic<int>> seen(200000);
  std::atomic<bool> ten_failed{false};
  Status st = ParallelFor(pool, seen.size(), 4, [&](size_t i) {
    // Indices above 10 wait for its failure (10 is always held by a running worker), so
    // only those handed out before the failure was recorded can run.
    while (i > 10 && !ten_failed.load()) std::this_thread::yield();
    ++seen[i];
    if (i != 10) return Status::OK();
    ten_failed = true;
    return Status::IOError("ten");
  });
  EXPECT_EQ(st.message(), "ten");
  for (size_t i = 0; i <= 10; ++i) EXPECT_EQ(seen[i].load(), 1) << i;
  int above = 0;
  for (size_t i = 11; i < seen.size(); ++i) above += seen[i].load();
  EXPECT_LT(above, static_cast<int>(seen.size()) - 11);  // not handed out to the end
}

TEST(ParallelFor, ExceptionBecomesStatus) {
  ThreadPool pool(2);
  Status st = ParallelFor(pool, 10, 4, [](size_t i) -> Status {
    if (i == 3) throw std::runtime_error("boom");
    return Status::OK();
  });
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("boom"), std::string::npos);
  // Sequential path (one at a time) too.
  st = ParallelFor(pool, 10, 1, [](size_t i) -> Status {
    if (i == 3) throw std::runtime_error("boom");
    return Status::OK();
  });
  EXPECT_EQ(st.code(), StatusCode::kInternal);
}

TEST(ParallelFor, ConcurrencyLimitRespected) {
  ThreadPool pool(8);
  for (int limit : {1, 2, 3, 5}) {
    InFlight f;
    Status st = ParallelFor(pool, 300, limit, [&](size_t) {
      f.Enter();
      for (volatile int spin = 0; spin < 2000; ++spin) {
      }
      f.Leave();
      return Status::OK();
    });
    ASSERT_TRUE(st.ok());
    EXPECT_LE(f.max.load(), limit);
    EXPECT_GE(f.max.load(), 1);
  }
}

// A limit above the pool's size (IO-bound work): never more than the pool's threads
// plus the waiter.
TEST(ParallelFor, LimitAbovePoolSizeIsBoundedByThePool) {
  ThreadPool pool(2);
  InFlight f;
  Status st = ParallelFor(pool, 300, 16, [&](size_t) {
    f.Enter();
    for (volatile int spin = 0; spin < 2000; ++spin) {
    }
    f.Leave();
    return Status::OK();
  });
  ASSERT_TRUE(st.ok());
  EXPECT_LE(f.max.load(), 3);
}

TEST(TaskGroup, LimitRespectedAndFirstErrorInAddOrder) {
  ThreadPool pool(6);
  TaskGroup group(pool, 3);
  InFlight f;
  for (int t = 0; t < 100; ++t) {
    group.Run([&, t]() -> Status {
      f.Enter();
      for (volatile int spin = 0; spin < 2000; ++spin) {
      }
      f.Leave();
      if (t == 70 || t == 20) return Status::IOError("task {}", t);
      return Status::OK();
    });
  }
  Status st = group.Wait();
  EXPECT_EQ(st.message(), "task 20");
  EXPECT_LE(f.max.load(), 3);
  // Reusable, the error reported once.
  group.Run([] {});
  EXPECT_TRUE(group.Wait().ok());
}

TEST(TaskGroup, RunsEveryTaskAfterAnError) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  {
    TaskGroup group(pool, 2);
    for (int t = 0; t < 50; ++t) {
      group.Run([&, t]() -> Status {
        ++ran;
        return t == 0 ? Status::IOError("first") : Status::OK();
      });
    }
    EXPECT_EQ(group.Wait().message(), "first");
  }
  EXPECT_EQ(ran.load(), 50);
}

// The destructor waits: tasks may use the caller's locals.
TEST(TaskGroup, DestructorWaits) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  {
    TaskGroup group(pool, 2);
    for (int t = 0; t < 20; ++t) group.Run([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 20);
}

TEST(ThreadPool, DestroyedWithNoPendingWork) {
  { ThreadPool idle(4); }  // never used: no thread was started
  {
    ThreadPool used(4);
    ASSERT_TRUE(ParallelFor(used, 10, 4, [](size_t) { return Status::OK(); }).ok());
  }  // joins its idle threads
  SUCCEED();
}

TEST(ThreadPool, ProcessWidePoolsAndReplacement) {
  EXPECT_GE(CpuPool().max_threads(), 1);
  EXPECT_EQ(IoPool().max_threads(), kIoPoolThreads);
  ReplaceCpuPoolForTesting(1);
  EXPECT_EQ(CpuPool().max_threads(), 1);
  std::atomic<int> leaves{0};
  Status st = ParallelFor(CpuPool(), 4, 4, [&](size_t) {
    return ParallelFor(IoPool(), 4, 16, [&](size_t) {
      return ParallelFor(CpuPool(), 4, 4, [&](size_t) {
        ++leaves;
        return Status::OK();
      });
    });
  });
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(leaves.load(), 64);
}

// Every pool thread held by unrelated work: the waiters do all of it themselves.
TEST(ParallelFor, CompletesWhenEveryPoolThreadIsBusy) {
  BusyCpuPool busy;
  std::atomic<int> leaves{0};
  Status st = ParallelFor(CpuPool(), 6, 3, [&](size_t) {
    TaskGroup inner(CpuPool(), 2);
    for (int k = 0; k < 5; ++k) inner.Run([&] { ++leaves; });
    return inner.Wait();
  });
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(leaves.load(), 30);
}

}  // namespace
}  // namespace lithify
