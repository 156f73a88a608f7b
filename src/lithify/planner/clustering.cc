#include "lithify/planner/clustering.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "lithify/base/macros.h"
#include "lithify/planner/compaction.h"

namespace lithify::planner {

namespace {

using table::FileEntry;

int OutputFiles(int64_t bytes, int64_t max_file_size) {
  const int64_t n = std::max<int64_t>(1, bytes / max_file_size);
  return static_cast<int>(std::min<int64_t>(n, std::numeric_limits<int>::max()));
}

Status CheckPositive(int64_t v, const char* what) {
  if (v <= 0) return Status::InvalidArgument("{} must be positive, got {}", what, v);
  return Status::OK();
}

Status CheckBatchSize(const std::optional<int64_t>& batch_size) {
  if (batch_size && *batch_size <= 0) {
    return Status::InvalidArgument("batch size must be positive, got {}", *batch_size);
  }
  return Status::OK();
}

// Adds a bin to the plan and (when logging) to the log; `files` are indexes into `all`.
void AddBin(const std::vector<FileEntry>& all, const std::vector<int>& files, int64_t bytes,
            const PartitionValues& partition, int log_partition, std::string reason, Plan* plan,
            DecisionLog* log) {
  Bin b;
  b.id = static_cast<int>(plan->bins.size());
  b.partition_values = partition;
  b.files.reserve(files.size());
  for (int i : files) b.files.push_back(FileRefOf(all[i]));
  b.total_bytes = bytes;
  b.output_files = OutputFiles(bytes, plan->max_file_size);
  plan->bins.push_back(std::move(b));
  if (log == nullptr) return;
  BinDecision bd;
  bd.id = static_cast<int>(log->bins.size());
  bd.plan_bin_id = plan->bins.back().id;
  bd.partition = log_partition;
  bd.files = static_cast<int64_t>(files.size());
  bd.bytes = bytes;
  bd.kept = true;
  bd.reason = std::move(reason);
  PartitionDecision& pd = log->partitions[log_partition];
  pd.bins.push_back(bd.id);
  ++pd.bins_kept;
  for (int i : files) log->files[i].bin = bd.id;
  log->bins.push_back(std::move(bd));
}

std::string ColumnList(const std::vector<std::string>& columns) {
  return fmt::format("{}", fmt::join(columns, ", "));
}

// ---- Z-order --------------------------------------------------------------------------

struct PartitionLess {
  bool operator()(const PartitionValues* a, const PartitionValues* b) const { return *a < *b; }
};

// Groups in-scope files by partition values (ascending order of the values, which makes
// plans reproducible; Delta visits them in hash order).
struct ZOrderGroups {
  std::vector<const PartitionValues*> values;  // per group
  std::vector<std::vector<int>> files;         // per group, input order
};

ZOrderGroups GroupInScope(const std::vector<FileEntry>& files, const std::vector<bool>& in_scope) {
  std::map<const PartitionValues*, int, PartitionLess> index;
  std::vector<int> group_of(files.size(), -1);
  int prev = -1;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!in_scope[i]) continue;
    if (prev >= 0 && files[i].partition_values == files[prev].partition_values) {
      group_of[i] = group_of[prev];
    } else {
      auto [it, inserted] =
          index.try_emplace(&files[i].partition_values, static_cast<int>(index.size()));
      group_of[i] = it->second;
    }
    prev = static_cast<int>(i);
  }
  ZOrderGroups g;
  std::vector<int> rank(index.size());
  for (const auto& [values, id] : index) {
    rank[id] = static_cast<int>(g.values.size());
    g.values.push_back(values);
  }
  g.files.resize(g.values.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (group_of[i] >= 0) g.files[rank[group_of[i]]].push_back(static_cast<int>(i));
  }
  return g;
}

std::string ZOrderBinReason(size_t num_files, int64_t bytes, const Plan& plan) {
  const int out = OutputFiles(bytes, plan.max_file_size);
  if (num_files == 1) {
    return fmt::format(
        "single file, rewritten anyway: Z-order keeps single-file bins (so ZORDER BY is not "
        "idempotent); written as {} file{} sorted by ({})",
        out, out == 1 ? "" : "s", ColumnList(plan.columns));
  }
  return fmt::format("all {} files of the partition are rewritten in Z-order by ({}) as {} file{}",
                     num_files, ColumnList(plan.columns), out, out == 1 ? "" : "s");
}

void StartLog(DecisionLog* log, const Plan& plan, const std::string& scope) {
  *log = DecisionLog{};
  log->mode = plan.mode;
  log->min_file_size = plan.min_file_size;
  log->max_file_size = plan.max_file_size;
  log->target_size_source = plan.target_size_source;
  log->scope_description = scope;
  log->columns = plan.columns;
  log->min_cube_size = plan.min_cube_size;
  log->target_cube_size = plan.target_cube_size;
  log->full = plan.full;
}

// ---- Liquid ---------------------------------------------------------------------------

// What the liquid planner knows about one file, in ZCUBE_ID order.
struct LiquidFile {
  int index = 0;                        // into the input vector
  const std::string* id = nullptr;      // ZCUBE_ID tag (sort key), nullptr = none
  bool cube = false;                    // both ZCube tags (Delta's ZCubeInfo is defined)
  bool matching = false;                // cube built from the current columns
  bool other_provider = false;          // clusteringProvider set and not "liquid"
  int log_cube = -1;                    // index in DecisionLog::cubes
};

class LiquidPlanner {
 public:
  LiquidPlanner(const TablePolicy& policy, const std::vector<FileEntry>& files,
                const LiquidOptions& o, DecisionLog* log)
      : policy_(policy), files_(files), o_(o), log_(log) {}

  Result<Plan> Run() {
    StartPlan();
    LITHIFY_RETURN_NOT_OK(Classify());
    if (log_ != nullptr) LogInputs();
    std::vector<int> candidates;  // positions in sorted_
    std::vector<int> skipped;
    for (size_t p = 0; p < sorted_.size(); ++p) {
      (PassesProviderFilter(sorted_[p]) ? candidates : skipped).push_back(static_cast<int>(p));
    }
    std::vector<int> small = DropSealedCubes(candidates);
    std::vector<int> survivors;
    if (o_.full && !skipped.empty()) {
      survivors = std::move(small);
      survivors.insert(survivors.end(), skipped.begin(), skipped.end());
    } else {
      survivors = DropLoneCube(small);
    }
    Pack(survivors);
    Finish(survivors);
    return std::move(plan_);
  }

 private:
  void StartPlan() {
    plan_.mode = PlanMode::kLiquid;
    plan_.max_file_size = o_.max_file_size;
    plan_.target_size_source = o_.target_size_source;
    plan_.columns = o_.clustering_columns;
    plan_.min_cube_size = o_.min_cube_size;
    plan_.target_cube_size = std::max(o_.target_cube_size, o_.min_cube_size);
    plan_.full = o_.full;
    plan_.total_considered_files = static_cast<int64_t>(files_.size());
  }

  // Sorts by ZCUBE_ID (absent first; Scala's stable sortBy on Option[String]) and
  // resolves each file's cube facts, parsing every distinct ZCUBE_ZORDER_BY once.
  Status Classify() {
    sorted_.resize(files_.size());
    for (size_t i = 0; i < files_.size(); ++i) {
      const FileEntry& f = files_[i];
      if (!f.partition_values.empty()) {
        return Status::InvalidArgument(
            "liquid clustering plans unpartitioned tables only, but file '{}' has partition "
            "values",
            f.path);
      }
      LiquidFile& lf = sorted_[i];
      lf.index = static_cast<int>(i);
      lf.id = policy_.CubeId(f);
      lf.other_provider = policy_.ClusteredByOtherProvider(f);
      const std::string* zorder_by = policy_.CubeColumnsText(f);
      if (lf.id != nullptr && zorder_by != nullptr) {
        lf.cube = true;
        LITHIFY_ASSIGN_OR_RETURN(lf.matching, Matches(f, *zorder_by));
      }
    }
    std::stable_sort(sorted_.begin(), sorted_.end(), [](const LiquidFile& a, const LiquidFile& b) {
      if (a.id == nullptr || b.id == nullptr) return a.id == nullptr && b.id != nullptr;
      return *a.id < *b.id;
    });
    return Status::OK();
  }

  Result<bool> Matches(const FileEntry& f, const std::string& zorder_by) {
    if (zorder_by == last_zorder_by_) return last_matching_;
    auto columns = policy_.ParseCubeColumns(zorder_by);
    if (!columns.ok()) {
      return Status::Corruption("file '{}': tag {} is not a JSON array of strings: {}", f.path,
                                policy_.CubeColumnsName(), zorder_by);
    }
    last_zorder_by_ = zorder_by;
    last_matching_ = *columns == o_.clustering_columns;
    return last_matching_;
  }

  // Step 1: provider and clustering columns.
  bool PassesProviderFilter(const LiquidFile& lf) const {
    return !lf.other_provider && !(lf.cube && !lf.matching);
  }

  // Step 2, Delta's filterOutLargeZCubes over `in` (positions, ZCUBE_ID order): runs of
  // one ZCUBE_ID among files with both tags are cubes; a cube whose estimated logical
  // size reaches min_cube_size is dropped. Other files pass and close the current run
  // (without forgetting its id, as Delta).
  std::vector<int> DropSealedCubes(const std::vector<int>& in) {
    std::vector<int> out;
    out.reserve(in.size());
    std::vector<int> run;
    int64_t run_size = 0;
    const std::string* run_id = nullptr;
    auto flush = [&] {
      if (run_size >= o_.min_cube_size) {
        for (int p : run) Verdict(p, FileVerdict::kSealedCube);
        if (!run.empty() && log_ != nullptr) log_->cubes[sorted_[run[0]].log_cube].sealed = true;
      } else {
        out.insert(out.end(), run.begin(), run.end());
      }
      run.clear();
      run_size = 0;
    };
    for (int p : in) {
      const LiquidFile& lf = sorted_[p];
      if (!lf.cube) {
        flush();
        out.push_back(p);
        continue;
      }
      if (run_id == nullptr || *lf.id != *run_id) {
        flush();
        run_id = lf.id;
      }
      run.push_back(p);
      run_size += EstimatedLogicalSize(files_[lf.index]);
    }
    flush();
    return out;
  }

  // Step 4, Delta's filterOutSingleZCubes: while no unclustered file and no second cube
  // has been seen, the current cube is alone and is dropped when its run ends.
  std::vector<int> DropLoneCube(const std::vector<int>& in) {
    std::vector<int> out;
    out.reserve(in.size());
    std::vector<int> run;
    bool single = true;
    const std::string* run_id = nullptr;
    auto flush = [&] {
      if (single) {
        for (int p : run) Verdict(p, FileVerdict::kLoneCube);
      } else {
        out.insert(out.end(), run.begin(), run.end());
      }
      run.clear();
    };
    for (int p : in) {
      const LiquidFile& lf = sorted_[p];
      if (!lf.cube) {
        flush();
        single = false;
        out.push_back(p);
        continue;
      }
      if (run_id == nullptr) {
        run_id = lf.id;
      } else if (*lf.id != *run_id) {
        run_id = lf.id;
        single = false;
        flush();
      }
      run.push_back(p);
    }
    flush();
    return out;
  }

  // Step 5: Delta's bin loop at max(target, min) over physical sizes; every non-empty bin
  // is kept (Delta also emits an empty bin when the first file alone exceeds the
  // capacity; it writes nothing, so it is not planned).
  void Pack(const std::vector<int>& survivors) {
    if (log_ != nullptr) {
      for (int p : survivors) log_->files[sorted_[p].index].verdict = FileVerdict::kCandidate;
    }
    std::vector<int> cur;
    int64_t cur_size = 0;
    for (int p : survivors) {
      const int64_t size = files_[sorted_[p].index].size;
      if (size + cur_size > plan_.target_cube_size) {
        EmitBin(cur, cur_size);
        cur.clear();
        cur_size = 0;
      }
      cur.push_back(sorted_[p].index);
      cur_size += size;
    }
    EmitBin(cur, cur_size);
  }

  void EmitBin(const std::vector<int>& bin, int64_t bytes) {
    if (bin.empty()) return;
    const int out = OutputFiles(bytes, plan_.max_file_size);
    std::string reason = fmt::format(
        "{} file{} ({}) become{} one new ZCube clustered by ({}), written as {} file{}",
        bin.size(), bin.size() == 1 ? "" : "s", FormatBytes(bytes), bin.size() == 1 ? "s" : "",
        ColumnList(plan_.columns), out, out == 1 ? "" : "s");
    AddBin(files_, bin, bytes, {}, 0, std::move(reason), &plan_, log_);
    if (log_ != nullptr) {
      log_->partitions[0].candidates += static_cast<int64_t>(bin.size());
      log_->partitions[0].candidate_bytes += bytes;
    }
  }

  void Verdict(int p, FileVerdict v) {
    if (log_ != nullptr) log_->files[sorted_[p].index].verdict = v;
  }

  // The log's files (input order, each with its step-1 verdict until a later step
  // overrides it), its one partition and its cubes (ZCUBE_ID order).
  void LogInputs() {
    StartLog(log_, plan_, "");
    log_->partitions.push_back(PartitionDecision{});
    log_->partitions[0].files = static_cast<int64_t>(files_.size());
    log_->files.reserve(files_.size());
    for (const FileEntry& f : files_) {
      FileDecision d = FileDecisionOf(f);
      d.partition = 0;
      log_->files.push_back(std::move(d));
    }
    for (LiquidFile& lf : sorted_) {
      FileDecision& d = log_->files[lf.index];
      d.verdict = lf.other_provider ? FileVerdict::kOtherProvider
                  : (lf.cube && !lf.matching) ? FileVerdict::kOtherClusteringKeys
                                              : FileVerdict::kCandidate;
      if (!lf.cube) continue;
      if (log_->cubes.empty() || log_->cubes.back().id != *lf.id) {
        CubeDecision c;
        c.id = *lf.id;
        c.zorder_by = *policy_.CubeColumnsText(files_[lf.index]);
        c.matching = lf.matching;
        log_->cubes.push_back(std::move(c));
      }
      lf.log_cube = static_cast<int>(log_->cubes.size()) - 1;
      d.cube = lf.log_cube;
      CubeDecision& c = log_->cubes.back();
      ++c.files;
      c.bytes += files_[lf.index].size;
      c.estimated_bytes += EstimatedLogicalSize(files_[lf.index]);
    }
  }

  void Finish(const std::vector<int>& survivors) {
    ClusteringInputStats& s = plan_.clustering;
    const std::string* last_cube = nullptr;
    for (const LiquidFile& lf : sorted_) {
      const int64_t size = files_[lf.index].size;
      // ZCubeFileStatsCollector: "matching" cubes are those of the current columns, or
      // of any columns with FULL.
      if (lf.cube && (lf.matching || o_.full)) {
        if (last_cube == nullptr || *last_cube != *lf.id) ++s.input_num_zcubes;
        last_cube = lf.id;
        ++s.input_zcube_files;
        s.input_zcube_bytes += size;
      } else {
        ++s.input_other_files;
        s.input_other_bytes += size;
      }
    }
    for (int p : survivors) {
      ++s.merged_files;
      s.merged_bytes += files_[sorted_[p].index].size;
    }
    s.num_output_zcubes = static_cast<int64_t>(plan_.bins.size());
    plan_.partitions_optimized = plan_.bins.empty() ? 0 : 1;
    plan_.total_files_skipped = plan_.total_considered_files - plan_.total_input_files();
    plan_.batches = MakeBatches(plan_, o_.batch_size);
    if (log_ != nullptr) log_->Summarize();
  }

  const TablePolicy& policy_;
  const std::vector<FileEntry>& files_;
  const LiquidOptions& o_;
  DecisionLog* log_;
  Plan plan_;
  std::vector<LiquidFile> sorted_;
  std::string last_zorder_by_;
  bool last_matching_ = false;
};

}  // namespace

Curve CurveFor(PlanMode mode, size_t num_columns) {
  return mode == PlanMode::kLiquid && num_columns >= 2 ? Curve::kHilbert : Curve::kZOrder;
}

int64_t EstimatedLogicalSize(const FileEntry& file) {
  const std::optional<int64_t> physical = file.num_records();
  if (!physical) return file.size;
  const int64_t deleted = file.deletion_vector ? file.deletion_vector->cardinality : 0;
  // Delta: (logical / (logical + deleted)) * size, truncated toward zero; 0/0 is NaN,
  // which Scala's toLong turns into 0.
  if (*physical == 0) return 0;
  const double ratio = static_cast<double>(*physical - deleted) / static_cast<double>(*physical);
  const double est = ratio * static_cast<double>(file.size);
  if (!(est > -9.2e18 && est < 9.2e18)) return est > 0 ? file.size : 0;
  return static_cast<int64_t>(est);
}

Result<Plan> PlanZOrder(const std::vector<FileEntry>& files, const ZOrderOptions& o,
                        DecisionLog* log) {
  if (o.zorder_by.empty()) {
    return Status::InvalidArgument("Z-order planning needs at least one ZORDER BY column");
  }
  LITHIFY_RETURN_NOT_OK(CheckPositive(o.max_file_size, "maxFileSize (the output file size)"));
  LITHIFY_RETURN_NOT_OK(CheckBatchSize(o.batch_size));
  Plan plan;
  plan.mode = PlanMode::kZOrder;
  plan.max_file_size = o.max_file_size;
  plan.target_size_source = o.target_size_source;
  plan.columns = o.zorder_by;

  std::vector<bool> in_scope(files.size(), true);
  if (o.in_scope) {
    for (size_t i = 0; i < files.size(); ++i) in_scope[i] = o.in_scope(files[i]);
  }
  const ZOrderGroups groups = GroupInScope(files, in_scope);
  if (log != nullptr) {
    StartLog(log, plan, o.scope_description);
    log->files.reserve(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      FileDecision d = FileDecisionOf(files[i]);
      if (!in_scope[i]) d.verdict = FileVerdict::kOutsidePredicate;
      log->files.push_back(std::move(d));
    }
  }
  for (size_t g = 0; g < groups.values.size(); ++g) {
    std::vector<std::pair<int64_t, int>> keyed;  // (size, index): the stable sort by size
    keyed.reserve(groups.files[g].size());
    int64_t bytes = 0;
    for (int i : groups.files[g]) {
      keyed.emplace_back(files[i].size, i);
      bytes += files[i].size;
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<int> bin;
    bin.reserve(keyed.size());
    for (const auto& [size, i] : keyed) bin.push_back(i);
    plan.total_considered_files += static_cast<int64_t>(bin.size());
    int log_partition = -1;
    if (log != nullptr) {
      log_partition = static_cast<int>(log->partitions.size());
      PartitionDecision pd;
      pd.partition = PartitionText(*groups.values[g]);
      pd.files = pd.candidates = static_cast<int64_t>(bin.size());
      pd.candidate_bytes = bytes;
      log->partitions.push_back(std::move(pd));
      for (int i : bin) log->files[i].partition = log_partition;
    }
    // maxBinSize is Long.MaxValue: the whole partition is one bin.
    AddBin(files, bin, bytes, *groups.values[g], log_partition,
           ZOrderBinReason(bin.size(), bytes, plan), &plan, log);
  }
  plan.partitions_optimized = static_cast<int64_t>(plan.bins.size());
  plan.total_files_skipped = plan.total_considered_files - plan.total_input_files();
  plan.batches = MakeBatches(plan, o.batch_size);
  if (log != nullptr) log->Summarize();
  return plan;
}

Result<Plan> PlanLiquid(const TablePolicy& policy, const std::vector<FileEntry>& files,
                        const LiquidOptions& o, DecisionLog* log) {
  if (o.clustering_columns.empty()) {
    return Status::InvalidArgument(
        "liquid clustering planning needs clustering columns (a table clustered by nothing "
        "is compacted instead)");
  }
  LITHIFY_RETURN_NOT_OK(CheckPositive(o.max_file_size, "maxFileSize (the output file size)"));
  LITHIFY_RETURN_NOT_OK(CheckPositive(o.target_cube_size, "the target cube size"));
  if (o.min_cube_size < 0) {
    return Status::InvalidArgument("the minimum cube size must not be negative, got {}",
                                   o.min_cube_size);
  }
  LITHIFY_RETURN_NOT_OK(CheckBatchSize(o.batch_size));
  return LiquidPlanner(policy, files, o, log).Run();
}

}  // namespace lithify::planner
