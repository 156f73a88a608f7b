#include "lithify/iceberg/manifest_pipeline.h"

#include <gtest/gtest.h>

#include <vector>

#include "lithify/base/busy_pool.h"
#include "lithify/base/macros.h"

namespace lithify::iceberg {
namespace {

// Manifest k holds (k % 4) * 700 entries (several batches, so lanes fill their queues),
// entry j numbered k * 100000 + j; `bad` fails after half of its entries.
Status ReadNumbered(size_t k, const ManifestPipeline::EntrySink& sink, size_t bad) {
  const size_t n = (k % 4) * 700;
  for (size_t j = 0; j < n; ++j) {
    if (k == bad && j == n / 2) return Status::Corruption("manifest {} is damaged", k);
    ManifestEntry e;
    e.sequence_number = static_cast<int64_t>(k * 100000 + j);
    LITHIFY_RETURN_NOT_OK(sink(std::move(e)));
  }
  return Status::OK();
}

// What planning sees: every entry in manifest order, and the first error.
struct Drained {
  std::vector<int64_t> seen;
  Status status;
};

Drained DrainAll(size_t count, int threads, size_t bad) {
  ManifestPipeline p(count, threads,
                     [bad](size_t k, const ManifestPipeline::EntrySink& sink) { return ReadNumbered(k, sink, bad); });
  Drained d;
  for (size_t k = 0; k < count && d.status.ok(); ++k) {
    d.status = p.Drain(k, [&](ManifestEntry&& e) {
      d.seen.push_back(e.sequence_number);
      return Status::OK();
    });
  }
  return d;
}

TEST(ManifestPipeline, SequentialOrderAndErrorWhateverTheThreads) {
  for (size_t bad : {size_t{1000}, size_t{6}}) {
    const Drained one = DrainAll(11, 1, bad);
    for (int threads : {2, 3, 8}) {
      const Drained many = DrainAll(11, threads, bad);
      EXPECT_EQ(many.seen, one.seen) << threads;
      EXPECT_EQ(many.status.ToString(), one.status.ToString()) << threads;
    }
  }
}

// Lanes block on their full queues, which only the consumer empties: with every pool
// thread busy, Drain reads the lanes the pool never started itself.
TEST(ManifestPipeline, CompletesWhenThePoolIsBusy) {
  const Drained one = DrainAll(9, 1, 1000);
  BusyCpuPool busy;
  const Drained many = DrainAll(9, 3, 1000);
  EXPECT_TRUE(many.status.ok());
  EXPECT_EQ(many.seen, one.seen);
}

// A consumer that stops early (an error) leaves no lane running.
TEST(ManifestPipeline, StoppingEarlyEndsTheLanes) {
  ManifestPipeline p(12, 3, [](size_t k, const ManifestPipeline::EntrySink& sink) { return ReadNumbered(k, sink, 1000); });
  Status st = p.Drain(0, [](ManifestEntry&&) { return Status::OK(); });
  EXPECT_TRUE(st.ok());
  st = p.Drain(1, [](ManifestEntry&&) { return Status::Cancelled("enough"); });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
}  // the destructor returns: nothing waits on a full queue

}  // namespace
}  // namespace lithify::iceberg
