#include "lithify/exec/cluster_bin.h"

#include <utility>

#include "lithify/base/macros.h"

namespace lithify::exec {

namespace {

class ClusterSink final : public BinSink {
 public:
  ClusterSink(ClusteringBinIo* owner, BinIo* inner, const planner::Bin& bin, std::unique_ptr<ExternalSorter> sorter,
              ClusterBinStats stats)
      : owner_(owner), inner_(inner), bin_(bin), sorter_(std::move(sorter)), stats_(stats) {}

  // The sorter keeps its rows: a lent batch is copied, a given one taken as it is (the
  // executor gives every batch it reads; the copy was a fifth of a clustering's CPU).
  Status Write(const parquet::RowBatch& batch) override { return sorter_->AddCopy(batch); }
  Status Take(parquet::RowBatch batch) override { return sorter_->Add(std::move(batch)); }

  Result<std::vector<OutputFile>> Finish() override {
    std::vector<OutputFile> outs;
    const std::vector<int64_t> cuts = EqualCuts(sorter_->rows(), bin_.output_files);
    auto finish_current = [&]() -> Status {
      if (!current_) return Status::OK();
      std::unique_ptr<BinSink> s = std::move(current_);
      LITHIFY_ASSIGN_OR_RETURN(std::vector<OutputFile> o, s->Finish());
      outs.insert(outs.end(), o.begin(), o.end());
      return Status::OK();
    };
    auto open = [&]() -> Status {
      LITHIFY_ASSIGN_OR_RETURN(current_, inner_->OpenSink(bin_));
      ++stats_.files_written;
      return Status::OK();
    };
    if (sorter_->rows() > 0) LITHIFY_RETURN_NOT_OK(open());
    const ExternalSorter::EmitFn emit = [&](const parquet::RowBatch& b) { return current_->Write(b); };
    const std::function<Status()> on_cut = [&]() -> Status {
      LITHIFY_RETURN_NOT_OK(finish_current());
      return open();
    };
    LITHIFY_RETURN_NOT_OK(sorter_->Finish(cuts, emit, on_cut));
    LITHIFY_RETURN_NOT_OK(finish_current());
    stats_.sort = sorter_->stats();
    owner_->Record(bin_.id, stats_);
    return outs;
  }

  void Abort() override {
    if (current_) current_->Abort();
    current_.reset();
    sorter_.reset();  // removes the temporary runs
  }

 private:
  ClusteringBinIo* owner_;
  BinIo* inner_;
  const planner::Bin& bin_;
  std::unique_ptr<ExternalSorter> sorter_;
  ClusterBinStats stats_;
  std::unique_ptr<BinSink> current_;
};

}  // namespace

std::vector<int64_t> EqualCuts(int64_t rows, int files) {
  std::vector<int64_t> cuts;
  for (int i = 1; i < files; ++i) {
    const int64_t c = static_cast<int64_t>((static_cast<__int128>(rows) * i) / files);
    if (c > 0 && c < rows && (cuts.empty() || c > cuts.back())) cuts.push_back(c);
  }
  return cuts;
}

Result<std::unique_ptr<ClusteringBinIo>> ClusteringBinIo::Make(BinIo* inner, ClusterOptions options) {
  if (inner == nullptr) return Status::InvalidArgument("clustering: no inner BinIo");
  if (options.schema == nullptr) return Status::InvalidArgument("clustering: no write schema");
  if (options.columns.empty()) return Status::InvalidArgument("clustering: no clustering columns");
  for (int c : options.columns) {
    if (c < 0 || c >= options.schema->num_leaves()) {
      return Status::InvalidArgument("clustering: column {} is not a leaf of the write schema", c);
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(planner::CurveEncoder enc,
                           planner::CurveEncoder::Make(options.curve, static_cast<int>(options.columns.size()),
                                                       options.num_range_ids));
  return std::unique_ptr<ClusteringBinIo>(new ClusteringBinIo(inner, std::move(options), std::move(enc)));
}

Result<std::unique_ptr<BinSink>> ClusteringBinIo::OpenSink(const planner::Bin& bin) {
  // Pass 1: sample the clustering columns over the whole bin, reading only them: the
  // projected batches hold them as columns 0..k-1.
  std::vector<int> projected(options_.columns.size());
  for (size_t i = 0; i < projected.size(); ++i) projected[i] = static_cast<int>(i);
  RangeSampler sampler(projected, options_.sample_size, static_cast<uint64_t>(bin.id) * 7919 + 42);
  for (const planner::FileRef& f : bin.files) {
    LITHIFY_RETURN_NOT_OK(
        inner_->ReadColumns(bin, f, options_.columns, [&](parquet::RowBatch b) { return sampler.Add(b); }));
  }
  ClusterBinStats stats;
  stats.sample_bytes = sampler.bytes();
  LITHIFY_ASSIGN_OR_RETURN(CurveKeyer keyer,
                           CurveKeyer::Make(encoder_, options_.columns, sampler.Bounds(options_.num_range_ids)));
  const int width = keyer.key_width();
  auto key_fn = [keyer = std::move(keyer)](const parquet::RowBatch& b, std::string* keys) {
    return keyer.Keys(b, keys);
  };
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<ExternalSorter> sorter,
                           ExternalSorter::Make(options_.schema, width, std::move(key_fn), options_.sort));
  return std::unique_ptr<BinSink>(new ClusterSink(this, inner_, bin, std::move(sorter), stats));
}

std::map<int, ClusterBinStats> ClusteringBinIo::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void ClusteringBinIo::Record(int bin, const ClusterBinStats& s) {
  std::lock_guard<std::mutex> l(mu_);
  stats_[bin] = s;
}

}  // namespace lithify::exec
