// Tests of exec::RunBins / RewriteBin with an in-memory BinIo: every input row reaches
// its bin's sink exactly once, failures stop the run and abort sinks, concurrency is
// bounded by the thread count, progress adds up.
#include "lithify/exec/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace lithify::exec {
namespace {

// Each input file "has" as many rows as its size; a batch carries only num_rows.
class FakeIo final : public BinIo {
 public:
  std::mutex mu;
  std::map<int, int64_t> rows_per_bin;  // finished bins only
  std::set<int> aborted;
  std::string fail_path;  // ReadFile fails for this input
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};

  class Sink final : public BinSink {
   public:
    Sink(FakeIo* io, int bin) : io_(io), bin_(bin) {}
    ~Sink() override { --io_->running; }
    Status Write(const parquet::RowBatch& b) override {
      rows_ += b.num_rows;
      return Status::OK();
    }
    Result<std::vector<OutputFile>> Finish() override {
      std::lock_guard<std::mutex> l(io_->mu);
      io_->rows_per_bin[bin_] = rows_;
      return std::vector<OutputFile>{{"out-" + std::to_string(bin_), rows_ * 10, rows_}};
    }
    void Abort() override {
      std::lock_guard<std::mutex> l(io_->mu);
      io_->aborted.insert(bin_);
    }

   private:
    FakeIo* io_;
    int bin_;
    int64_t rows_ = 0;
  };

  Status ReadFile(const planner::Bin&, const planner::FileRef& f, const EmitFn& emit) override {
    if (f.path == fail_path) return Status::Corruption("{}: bad page", f.path);
    for (int64_t done = 0; done < f.size; done += 3) {  // several "row groups"
      parquet::RowBatch b;
      b.num_rows = std::min<int64_t>(3, f.size - done);
      Status st = emit(std::move(b));
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  Result<std::unique_ptr<BinSink>> OpenSink(const planner::Bin& bin) override {
    int now = ++running;
    int prev = max_running.load();
    while (now > prev && !max_running.compare_exchange_weak(prev, now)) {
    }
    return std::unique_ptr<BinSink>(new Sink(this, bin.id));
  }
};

planner::Plan MakePlan(int bins, int files_per_bin) {
  planner::Plan p;
  for (int b = 0; b < bins; ++b) {
    planner::Bin bin;
    bin.id = b;
    for (int f = 0; f < files_per_bin; ++f) {
      planner::FileRef r;
      r.path = "b" + std::to_string(b) + "-f" + std::to_string(f);
      r.size = 1 + b + f;
      bin.files.push_back(r);
      bin.total_bytes += r.size;
    }
    p.bins.push_back(bin);
  }
  return p;
}

std::vector<int> AllBins(const planner::Plan& p) {
  std::vector<int> ids;
  for (const auto& b : p.bins) ids.push_back(b.id);
  return ids;
}

TEST(ExecutorTest, EveryRowReachesItsBinOnce) {
  planner::Plan plan = MakePlan(7, 4);
  FakeIo io;
  std::vector<Progress> seen;
  ExecOptions opts;
  opts.threads = 2;
  opts.progress = [&](const Progress& p) { seen.push_back(p); };  // serialized by RunBins
  auto r = RunBins(plan, AllBins(plan), &io, opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 7u);
  for (const BinResult& br : *r) {
    ASSERT_TRUE(br.status.ok()) << br.status.ToString();
    EXPECT_EQ(br.files_read, 4);
    EXPECT_EQ(br.rows_written, plan.bins[br.bin_id].total_bytes);
    EXPECT_EQ(io.rows_per_bin.at(br.bin_id), plan.bins[br.bin_id].total_bytes);
    ASSERT_EQ(br.outputs.size(), 1u);
  }
  EXPECT_LE(io.max_running.load(), 2);
  ASSERT_FALSE(seen.empty());
  const Progress& last = seen.back();
  EXPECT_EQ(last.bins_done, 7);
  EXPECT_EQ(last.files_read, 28);
  EXPECT_EQ(last.bytes_read, plan.total_input_bytes());
  EXPECT_EQ(last.bytes_total, plan.total_input_bytes());
  EXPECT_TRUE(io.aborted.empty());
}

TEST(ExecutorTest, FailureAbortsTheBinAndStopsLaterBins) {
  planner::Plan plan = MakePlan(5, 2);
  FakeIo io;
  io.fail_path = "b1-f1";
  ExecOptions opts;
  opts.threads = 1;  // sequential: bins after the failure must not start
  auto r = RunBins(plan, AllBins(plan), &io, opts);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].status.ok());
  EXPECT_TRUE((*r)[1].status.IsCorruption());
  EXPECT_NE((*r)[1].status.message().find("b1-f1"), std::string::npos);
  EXPECT_EQ(io.aborted, (std::set<int>{1}));
  for (int i = 2; i < 5; ++i) EXPECT_TRUE((*r)[i].status.code() == StatusCode::kCancelled) << i;
  EXPECT_EQ(io.rows_per_bin.count(2), 0u);
}

TEST(ExecutorTest, RejectsUnknownBinsAndZeroThreads) {
  planner::Plan plan = MakePlan(2, 1);
  FakeIo io;
  ExecOptions opts;
  EXPECT_TRUE(RunBins(plan, {5}, &io, opts).status().IsInvalidArgument());
  opts.threads = 0;
  EXPECT_TRUE(RunBins(plan, {0}, &io, opts).status().IsInvalidArgument());
  EXPECT_GE(DefaultThreads(), 1);
  EXPECT_LE(DefaultThreads(), 15);
}

TEST(ExecutorTest, SubsetOfBinsRunsOnlyThose) {
  planner::Plan plan = MakePlan(4, 1);
  FakeIo io;
  ExecOptions opts;
  opts.threads = 3;
  auto r = RunBins(plan, {3, 1}, &io, opts);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].bin_id, 3);
  EXPECT_EQ((*r)[1].bin_id, 1);
  EXPECT_EQ(io.rows_per_bin.size(), 2u);
}

// Writes even bins itself (RewriteWhole), declines odd ones (streamed through `inner`);
// fails the bin whose id is `fail_bin`.
class WholeIo final : public BinIo {
 public:
  FakeIo inner;
  int fail_bin = -1;
  std::mutex mu;
  std::vector<size_t> reported;  // files_done arguments, in call order

  Status ReadFile(const planner::Bin& b, const planner::FileRef& f, const EmitFn& emit) override {
    return inner.ReadFile(b, f, emit);
  }
  Result<std::unique_ptr<BinSink>> OpenSink(const planner::Bin& b) override { return inner.OpenSink(b); }
  Result<std::optional<std::vector<OutputFile>>> RewriteWhole(const planner::Bin& bin,
                                                              const FilesDoneFn& files_done) override {
    if (bin.id % 2 == 1) return std::optional<std::vector<OutputFile>>();
    if (bin.id == fail_bin) return Status::IOError("out-{}: disk full", bin.id);
    // Reports the first input only: the executor accounts for the rest at the end.
    files_done(1);
    {
      std::lock_guard<std::mutex> l(mu);
      reported.push_back(1);
    }
    return std::optional<std::vector<OutputFile>>(
        std::vector<OutputFile>{{"whole-" + std::to_string(bin.id), 5, bin.total_bytes}});
  }
};

TEST(ExecutorTest, RewriteWholeTakesTheBinsItAcceptsAndProgressCountsEveryFile) {
  planner::Plan plan = MakePlan(6, 3);
  WholeIo io;
  std::vector<Progress> seen;
  ExecOptions opts;
  opts.threads = 2;
  opts.progress = [&](const Progress& p) { seen.push_back(p); };
  auto r = RunBins(plan, AllBins(plan), &io, opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const BinResult& br : *r) {
    ASSERT_TRUE(br.status.ok()) << br.status.ToString();
    const bool even = br.bin_id % 2 == 0;
    EXPECT_EQ(br.rewritten_whole, even);
    EXPECT_EQ(br.files_read, 3);
    EXPECT_EQ(br.rows_written, plan.bins[br.bin_id].total_bytes);
    ASSERT_EQ(br.outputs.size(), 1u);
    EXPECT_EQ(br.outputs[0].path.starts_with("whole-"), even);
    EXPECT_EQ(io.inner.rows_per_bin.count(br.bin_id), even ? 0u : 1u);  // no sink for whole bins
  }
  EXPECT_EQ(io.reported.size(), 3u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().files_read, 18);
  EXPECT_EQ(seen.back().bytes_read, plan.total_input_bytes());
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].files_read, seen[i - 1].files_read);
}

TEST(ExecutorTest, RewriteWholeFailureFailsTheBin) {
  planner::Plan plan = MakePlan(1, 2);
  WholeIo io;
  io.fail_bin = 0;
  auto r = RunBins(plan, AllBins(plan), &io, ExecOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_TRUE((*r)[0].status.IsIOError()) << (*r)[0].status.ToString();
  EXPECT_NE((*r)[0].status.message().find("disk full"), std::string::npos);
  EXPECT_FALSE((*r)[0].rewritten_whole);
}

}  // namespace
}  // namespace lithify::exec
