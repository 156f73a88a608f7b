#include "lithify/exec/executor.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"

namespace lithify::exec {

int DefaultThreads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(hw), 1, 15);
}

namespace {

void TakeOutputs(std::vector<OutputFile> outs, BinResult* r) {
  r->outputs = std::move(outs);
  for (const OutputFile& o : r->outputs) {
    r->rows_written += o.num_records;
    r->bytes_written += o.size;
  }
}

}  // namespace

Status BinIo::ReadColumns(const planner::Bin& bin, const planner::FileRef& file, const std::vector<int>& columns,
                          const EmitFn& emit) {
  return ReadFile(bin, file, [&](parquet::RowBatch b) -> Status {
    parquet::RowBatch out;
    out.num_rows = b.num_rows;
    out.first_row_index = b.first_row_index;
    for (int c : columns) {
      if (c < 0 || c >= static_cast<int>(b.columns.size())) {
        return Status::InvalidArgument("{}: no write column {} to read", file.path, c);
      }
      out.columns.push_back(std::move(b.columns[c]));
    }
    return emit(std::move(out));
  });
}

Result<BinResult> RewriteBin(const planner::Bin& bin, BinIo* io,
                             const std::function<void(int64_t)>& on_file) {
  BinResult r;
  r.bin_id = bin.id;
  r.inputs = bin.files;
  auto file_done = [&](const planner::FileRef& f) {
    ++r.files_read;
    r.bytes_read += f.size;
    if (on_file) on_file(f.size);
  };
  auto files_done = [&](size_t n) {
    n = std::min(n, bin.files.size());
    while (static_cast<size_t>(r.files_read) < n) file_done(bin.files[r.files_read]);
  };
  LITHIFY_ASSIGN_OR_RETURN(std::optional<std::vector<OutputFile>> whole, io->RewriteWhole(bin, files_done));
  if (whole) {
    files_done(bin.files.size());  // the adapter may report late; every input was read
    r.rewritten_whole = true;
    TakeOutputs(std::move(*whole), &r);
    return r;
  }
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<BinSink> sink, io->OpenSink(bin));
  auto write = [&](parquet::RowBatch batch) -> Status {
    if (batch.num_rows == 0) return Status::OK();
    return sink->Take(std::move(batch));  // read for this sink alone: nothing else needs it
  };
  for (const planner::FileRef& f : bin.files) {
    Status st = io->ReadFile(bin, f, write);
    if (!st.ok()) {
      sink->Abort();
      return st.message().find(f.path) == std::string::npos ? st.WithContext(f.path) : st;
    }
    file_done(f);
  }
  Result<std::vector<OutputFile>> outs = sink->Finish();
  if (!outs.ok()) {
    sink->Abort();
    return outs.status();
  }
  TakeOutputs(std::move(*outs), &r);
  return r;
}

Result<std::vector<BinResult>> RunBins(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                       BinIo* io, const ExecOptions& options) {
  return ScheduleBins(plan, bin_ids, options,
                      [io](const planner::Bin& bin, const std::function<void(int64_t)>& on_file) {
                        return RewriteBin(bin, io, on_file);
                      });
}

Result<std::vector<BinResult>> ScheduleBins(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                            const ExecOptions& options, const RunOneFn& run_one) {
  if (options.threads < 1) return Status::InvalidArgument("executor: threads must be >= 1, got {}", options.threads);
  Progress progress;
  for (int id : bin_ids) {
    if (id < 0 || id >= static_cast<int>(plan.bins.size())) {
      return Status::InvalidArgument("executor: bin {} is not in the plan ({} bins)", id, plan.bins.size());
    }
    progress.files_total += static_cast<int64_t>(plan.bins[id].files.size());
    progress.bytes_total += plan.bins[id].total_bytes;
  }
  progress.bins_total = static_cast<int>(bin_ids.size());

  std::vector<BinResult> results(bin_ids.size());
  for (size_t i = 0; i < bin_ids.size(); ++i) {
    results[i].bin_id = bin_ids[i];
    results[i].status = Status::Cancelled("bin {} was not started because another bin failed", bin_ids[i]);
  }
  std::mutex mu;  // guards progress and the callback
  auto report = [&](auto&& update) {
    std::lock_guard<std::mutex> lock(mu);
    update(progress);
    if (options.progress) options.progress(progress);
  };
  // One index per bin; a failed bin's Status stops ParallelFor from starting later bins
  // (they keep their Cancelled result), as the failure flag of the former worker loop did.
  auto run_bin = [&](size_t i) -> Status {
    const planner::Bin& bin = plan.bins[bin_ids[i]];
    auto on_file = [&](int64_t bytes) {
      report([&](Progress& p) {
        ++p.files_read;
        p.bytes_read += bytes;
      });
    };
    Result<BinResult> r = run_one(bin, on_file);
    if (!r.ok()) {
      results[i].status = r.status().WithContextF("bin {}", bin.id);
    } else {
      results[i] = std::move(*r);
      results[i].status = Status::OK();
    }
    report([&](Progress& p) {
      ++p.bins_done;
      if (results[i].status.ok()) {
        p.bytes_written += results[i].bytes_written;
        p.rows_written += results[i].rows_written;
      }
    });
    return results[i].status.ok() ? Status::OK() : Status::Cancelled("bin failed");
  };
  // The IO pool: a bin waits on object stores or on a child process (ProcessBinRunner),
  // and `threads` is the user's choice, honoured above the core count.
  (void)ParallelFor(IoPool(), bin_ids.size(), options.threads, run_bin);
  return results;
}

}  // namespace lithify::exec
