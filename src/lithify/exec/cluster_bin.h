// ClusteringBinIo: turns any BinIo into one that writes each bin clustered on a curve
// (Z-order or Hilbert over per-column range ids), for OPTIMIZE ZORDER BY and liquid
// clustering (delta-maintenance-facts.md §3, §4).
//
// It decorates the format's BinIo: ReadFile passes through; OpenSink(bin) first reads the
// clustering columns of the whole bin through the inner ReadColumns (only those columns
// are decoded) to sample them (RangeSampler, range_ids.h), then returns a sink that keys every row (CurveKeyer) and
// hands it to an ExternalSorter (external_sort.h) under the memory budget. Finish streams
// the rows in key order into bin.output_files consecutive inner sinks (each opened with
// the inner OpenSink, so the format writes one file per sink), cut at equal row counts:
// the output is range-partitioned on the curve key and sorted within each file. Delta
// instead range-partitions on (key, a random noise byte) without sorting inside files;
// sorting inside files only tightens the per-file statistics (better skipping), and
// every row lands in the file whose key range holds it either way.
//
// The clustering columns are therefore read twice (sample, then rows); temporary sort runs are removed
// whatever happens. Memory per running bin: the sample (sample_size values per column)
// plus the sorter's budget. Thread-safe as far as the inner BinIo is: distinct bins may
// run concurrently; per-bin statistics are kept under a lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "lithify/exec/executor.h"
#include "lithify/exec/external_sort.h"
#include "lithify/exec/range_ids.h"
#include "lithify/planner/curves.h"

namespace lithify::exec {

struct ClusterOptions {
  planner::Curve curve = planner::Curve::kZOrder;
  // Batch column indexes (in the write batches) of the curve's columns, in curve order.
  std::vector<int> columns;
  int num_range_ids = planner::kDefaultNumRangeIds;
  int64_t sample_size = kDefaultRangeSampleSize;
  // The write batches' schema (every leaf, in order); must outlive the BinIo.
  const parquet::Schema* schema = nullptr;
  SortOptions sort;  // memory budget per running bin, spill location
};

// What clustering one bin took.
struct ClusterBinStats {
  SortStats sort;
  int64_t sample_bytes = 0;
  int files_written = 0;  // inner sinks opened
};

class ClusteringBinIo final : public BinIo {
 public:
  // InvalidArgument for no columns, no schema, or a curve the column count does not allow.
  static Result<std::unique_ptr<ClusteringBinIo>> Make(BinIo* inner, ClusterOptions options);

  Status ReadFile(const planner::Bin& bin, const planner::FileRef& file, const EmitFn& emit) override {
    return inner_->ReadFile(bin, file, emit);
  }
  Status ReadColumns(const planner::Bin& bin, const planner::FileRef& file, const std::vector<int>& columns,
                     const EmitFn& emit) override {
    return inner_->ReadColumns(bin, file, columns, emit);
  }
  Result<std::unique_ptr<BinSink>> OpenSink(const planner::Bin& bin) override;

  // Statistics of the bins finished so far, by bin id.
  std::map<int, ClusterBinStats> stats() const;
  void Record(int bin, const ClusterBinStats& s);

 private:
  ClusteringBinIo(BinIo* inner, ClusterOptions options, planner::CurveEncoder encoder)
      : inner_(inner), options_(std::move(options)), encoder_(std::move(encoder)) {}
  BinIo* inner_;
  ClusterOptions options_;
  planner::CurveEncoder encoder_;
  mutable std::mutex mu_;
  std::map<int, ClusterBinStats> stats_;
};

// Row counts at which a bin of `rows` rows written as `files` files is cut: rows * i /
// files for i = 1..files-1, without duplicates or ends (fewer files when rows < files).
std::vector<int64_t> EqualCuts(int64_t rows, int files);

}  // namespace lithify::exec
