// The simulation loop: synthetic ingest, daily deletes and scheduled maintenance, each run
// planned by the real planner functions and applied to the synthetic live file list.
#include "lithify/sim/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <unordered_map>

#include "lithify/base/macros.h"
#include "lithify/planner/policy.h"
#include "lithify/planner/clustering.h"
#include "lithify/planner/compaction.h"
#include "lithify/sim/internal.h"

namespace lithify::sim {

namespace {

using table::FileEntry;
using PartitionValues = std::map<std::string, std::optional<std::string>>;

// Two instants closer than this are the same instant (batch intervals such as 3600/7 s
// are not exact in binary).
constexpr double kEps = 1e-6;
constexpr double kInf = std::numeric_limits<double>::infinity();

// splitmix64: small, seedable, identical on every platform (std:: distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  double Symmetric() { return static_cast<double>(Next() >> 11) * 0x1.0p-52 - 1.0; }

 private:
  uint64_t state_;
};

// Which slice of the lookup key's range a file covers: slices == 0 means the whole range
// (an ingested or compacted file); otherwise slice `slice` of `slices` equal slices of its
// cube's or partition's range, valid for the key `keyed_by` (ZCUBE_ZORDER_BY text).
struct KeyRange {
  int32_t slice = 0;
  int32_t slices = 0;
  std::string keyed_by;
};

// `total` split into `n` near-equal parts (the first `total % n` get one more).
int64_t EvenPart(int64_t total, int64_t n, int64_t i) {
  return total / n + (i < total % n ? 1 : 0);
}

std::string PartitionPath(const PartitionValues& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    out += name;
    out += '=';
    out += value ? *value : std::string("__HIVE_DEFAULT_PARTITION__");
    out += '/';
  }
  return out;
}

class Simulation {
 public:
  Simulation(const Scenario& s, const planner::TablePolicy& policy)
      : s_(s),
        policy_(policy),
        rng_(s.seed),
        start_days_(internal::DaysOf(s.start_date)),
        partition_seconds_(internal::PartitionSeconds(s.partition_by)),
        columns_(s.cluster_by) {}

  Result<SimResult> Run() {
    LITHIFY_RETURN_NOT_OK(Validate());
    const auto started = std::chrono::steady_clock::now();
    const std::clock_t cpu_started = std::clock();
    const double interval = 3600.0 / s_.batches_per_hour;
    const double end = static_cast<double>(s_.hours) * 3600.0;
    const auto batches =
        static_cast<int64_t>(std::floor(static_cast<double>(s_.hours) * s_.batches_per_hour + kEps));
    int64_t k = 0, h = 1, d = 1;
    while (true) {
      const double tb = k < batches ? static_cast<double>(k + 1) * interval : kInf;
      const double th = static_cast<double>(h) * 3600.0 <= end + kEps ? h * 3600.0 : kInf;
      const double td = static_cast<double>(d) * 86400.0 <= end + kEps ? d * 86400.0 : kInf;
      const double t = std::min({tb, th, td});
      if (t == kInf) break;
      const bool batch = tb <= t + kEps, hour = th <= t + kEps, day = td <= t + kEps;
      if (batch) {
        LITHIFY_RETURN_NOT_OK(Batch(k, interval, t));
        ++k;
      }
      if (day) LITHIFY_RETURN_NOT_OK(DayEnd(t));
      const bool scheduled = (batch && s_.schedule == "every_batch") ||
                             (hour && s_.schedule == "hourly") ||
                             (day && s_.schedule == "nightly");
      if (scheduled && s_.maintenance != "none" && s_.maintenance != "auto_compact") {
        LITHIFY_RETURN_NOT_OK(Maintain(t, {}));
      }
      if (hour) ++h;
      if (day) ++d;
    }
    Finish(end);
    result_.elapsed_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    result_.cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_started) / CLOCKS_PER_SEC;
    return std::move(result_);
  }

 private:
  Status Validate() const {
    if (s_.batches_per_hour <= 0 || s_.files_per_batch < 1 || s_.hours < 1 || s_.row_bytes < 1) {
      return Status::InvalidArgument(
          "simulate: hours, batches_per_hour, files_per_batch and row_bytes must be positive "
          "(build scenarios with ScenarioFromJson)");
    }
    return Status::OK();
  }

  // Bytes ingested from the start to `seconds`: rounding the running total (instead of
  // each batch) keeps every day's total exact, e.g. 10 GiB a day to the byte.
  int64_t Cumulative(long double seconds) const {
    return std::llround(static_cast<long double>(s_.bytes_per_hour) * seconds / 3600.0L);
  }

  PartitionValues PartitionOf(int64_t bucket) const {
    PartitionValues v;
    const auto start = static_cast<int64_t>(std::llround(bucket * partition_seconds_));
    v["date"] = internal::DateText(start_days_ + start / 86400);
    if (partition_seconds_ < 86400) v["hour"] = fmt::format("{:02}", start % 86400 / 3600);
    if (partition_seconds_ < 3600) v["minute"] = fmt::format("{:02}", start % 3600 / 60);
    return v;
  }

  // The batch's bytes per partition its interval [a, b) covers.
  std::vector<std::pair<PartitionValues, int64_t>> Shares(double a, double b) const {
    std::vector<std::pair<PartitionValues, int64_t>> shares;
    if (partition_seconds_ == 0) {
      shares.emplace_back(PartitionValues{}, Cumulative(b) - Cumulative(a));
      return shares;
    }
    const double len = partition_seconds_;
    for (auto bucket = static_cast<int64_t>(std::floor((a + kEps) / len));
         static_cast<double>(bucket) * len < b - kEps; ++bucket) {
      const double lo = std::max(a, static_cast<double>(bucket) * len);
      const double hi = std::min(b, static_cast<double>(bucket + 1) * len);
      shares.emplace_back(PartitionOf(bucket), Cumulative(hi) - Cumulative(lo));
    }
    return shares;
  }

  // File sizes of one partition's share: files_per_batch files weighted 1 + jitter * U,
  // the share's bytes kept exactly; then optimized writes merge them.
  std::vector<int64_t> FileSizes(int64_t bytes) {
    const int64_t n = s_.files_per_batch;
    std::vector<int64_t> sizes(n);
    if (s_.size_jitter == 0) {
      for (int64_t i = 0; i < n; ++i) sizes[i] = EvenPart(bytes, n, i);
    } else {
      std::vector<double> w(n);
      double sum = 0;
      for (double& x : w) sum += (x = 1.0 + s_.size_jitter * rng_.Symmetric());
      int64_t given = 0;
      for (int64_t i = 0; i + 1 < n; ++i) {
        sizes[i] = std::llround(static_cast<double>(bytes) * w[i] / sum);
        given += sizes[i];
      }
      sizes[n - 1] = std::max<int64_t>(0, bytes - given);
    }
    if (s_.optimize_write) {
      std::vector<int64_t> merged;
      for (const std::vector<int>& group : planner::BinPackBySize(sizes, s_.optimize_write_bin_size)) {
        int64_t total = 0;
        for (int i : group) total += sizes[i];
        merged.push_back(total);
      }
      sizes = std::move(merged);
    }
    std::erase(sizes, int64_t{0});
    return sizes;
  }

  FileEntry NewFile(const PartitionValues& values, int64_t size, int64_t rows, double t) {
    FileEntry f;
    f.path = fmt::format("{}part-{:08}.parquet", PartitionPath(values), next_file_++);
    f.size = size;
    f.modification_time_ms = std::llround(t * 1000);
    f.partition_values = values;
    f.stats.emplace();
    f.stats->num_records = rows;
    return f;
  }

  void AddLive(FileEntry f, KeyRange range) {
    live_.push_back(std::move(f));
    ranges_.push_back(std::move(range));
  }

  Status Batch(int64_t k, double interval, double t) {
    const double a = static_cast<double>(k) * interval;
    if (s_.change_keys_on_day > 0 && !keys_changed_ &&
        a >= static_cast<double>(s_.change_keys_on_day - 1) * 86400.0 - kEps) {
      ChangeKeys();
    }
    std::vector<PartitionValues> touched;
    for (auto& [values, bytes] : Shares(a, a + interval)) {
      std::vector<int64_t> sizes = FileSizes(bytes);
      if (sizes.empty()) continue;
      for (int64_t size : sizes) {
        const int64_t rows = std::max<int64_t>(1, size / s_.row_bytes);
        AddLive(NewFile(values, size, rows, t), {});
        result_.totals.rows_ingested += rows;
        ingested_sizes_.push_back(size);
        result_.totals.bytes_ingested += size;
      }
      touched.push_back(std::move(values));
    }
    ++result_.totals.batches;
    if (s_.maintenance == "auto_compact" && !touched.empty()) {
      return Maintain(t, touched);  // Delta's post-commit hook
    }
    return Status::OK();
  }

  void ChangeKeys() {
    keys_changed_ = true;
    if (!s_.new_cluster_by.empty()) {
      columns_ = s_.new_cluster_by;
      return;
    }
    for (std::string& c : columns_) c += "_v2";
  }

  // The day's DELETE: every live file loses delete_fraction_per_day of its live rows
  // through a new deletion vector (a file losing all of them is removed, as Delta does).
  Status DayEnd(double t) {
    if (s_.delete_fraction_per_day <= 0) return Status::OK();
    std::vector<char> removed(live_.size(), 0);
    std::vector<PartitionValues> touched;
    bool any_removed = false;
    for (size_t i = 0; i < live_.size(); ++i) {
      FileEntry& f = live_[i];
      const int64_t physical = f.num_records().value_or(0);
      const int64_t deleted = f.deletion_vector ? f.deletion_vector->cardinality : 0;
      const int64_t alive = physical - deleted;
      const int64_t del =
          std::llround(static_cast<double>(alive) * s_.delete_fraction_per_day);
      if (del <= 0) continue;
      result_.totals.rows_deleted += std::min(del, alive);
      if (touched.empty() || touched.back() != f.partition_values) {
        touched.push_back(f.partition_values);
      }
      if (del >= alive) {
        removed[i] = 1;
        any_removed = true;
        AddTombstone(t);
        continue;
      }
      table::DeletionVectorRef dv;
      dv.storage_type = "u";
      dv.unique_id = fmt::format("dv{:08}", next_dv_++);
      dv.location = dv.unique_id;
      dv.size_in_bytes = 40;
      dv.cardinality = deleted + del;
      f.deletion_vector = std::move(dv);
    }
    if (any_removed) Compact(removed);
    if (s_.maintenance == "auto_compact" && !touched.empty()) return Maintain(t, touched);
    return Status::OK();
  }

  void AddTombstone(double t) {
    tombstone_times_.push_back(t);
    ++result_.totals.tombstones;
  }

  int64_t LiveTombstones(double t) const {
    const double horizon = t - static_cast<double>(s_.retention_hours) * 3600.0;
    return static_cast<int64_t>(
        tombstone_times_.end() -
        std::upper_bound(tombstone_times_.begin(), tombstone_times_.end(), horizon + kEps));
  }

  void Compact(const std::vector<char>& removed) {
    size_t out = 0;
    for (size_t i = 0; i < live_.size(); ++i) {
      if (removed[i]) continue;
      if (out != i) {
        live_[out] = std::move(live_[i]);
        ranges_[out] = std::move(ranges_[i]);
      }
      ++out;
    }
    live_.resize(out);
    ranges_.resize(out);
  }

  // ---- readouts over the live files

  std::vector<int64_t> LiveSizes() const {
    std::vector<int64_t> sizes;
    sizes.reserve(live_.size());
    for (const FileEntry& f : live_) sizes.push_back(f.size);
    return sizes;
  }

  // The key a point lookup filters on, as ZCUBE_ZORDER_BY text; "" = no clustering key.
  std::string LookupKey() const {
    if (s_.maintenance == "liquid" || !columns_.empty()) {
      return policy_.CubeColumnsValue(columns_);
    }
    if (s_.maintenance == "zorder") return policy_.CubeColumnsValue(s_.zorder_by);
    return "";
  }

  // Expected files a point lookup opens: a file clustered on the lookup key covers
  // 1/slices of its group's key range; any other file covers all of it.
  double LookupFiles() const {
    const std::string key = LookupKey();
    std::map<int32_t, int64_t> by_slices;
    for (const KeyRange& r : ranges_) {
      ++by_slices[r.slices > 0 && !key.empty() && r.keyed_by == key ? r.slices : 1];
    }
    double total = 0;
    for (const auto& [slices, files] : by_slices) {
      total += static_cast<double>(files) / static_cast<double>(slices);
    }
    return std::round(total * 1e6) / 1e6;
  }

  // (sealed, open) ZCubes among the live files.
  std::pair<int64_t, int64_t> Cubes() const {
    std::unordered_map<std::string, int64_t> size;
    for (const FileEntry& f : live_) {
      if (const std::string* id = policy_.CubeId(f)) size[*id] += planner::EstimatedLogicalSize(f);
    }
    int64_t sealed = 0;
    for (const auto& [id, bytes] : size) sealed += bytes >= s_.min_cube_size ? 1 : 0;
    return {sealed, static_cast<int64_t>(size.size()) - sealed};
  }

  void Measure(int64_t* files, int64_t* charged, int64_t* spark, double* lookup) const {
    const std::vector<int64_t> sizes = LiveSizes();
    *files = static_cast<int64_t>(sizes.size());
    *charged = ChargedScanTasks(sizes, s_.open_cost, s_.max_partition_bytes);
    *spark = SparkScanTasks(sizes, s_.open_cost, s_.max_partition_bytes, s_.spark_parallelism);
    *lookup = LookupFiles();
  }

  // ---- maintenance

  std::string Operation(bool full) const {
    if (s_.maintenance == "auto_compact") return "auto_compaction";
    if (s_.maintenance == "liquid") return full ? "liquid_full" : "liquid";
    return s_.maintenance;
  }

  Status Maintain(double t, const std::vector<PartitionValues>& touched) {
    SimStep step;
    step.index = static_cast<int>(result_.steps.size());
    step.day = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(t / 86400.0 - kEps)));
    step.hour = std::round(t / 3600.0 * 1e6) / 1e6;
    PlanContext ctx;
    ctx.day = step.day;
    ctx.full = s_.full_on_day > 0 && !full_done_ &&
               t >= static_cast<double>(s_.full_on_day) * 86400.0 - kEps;
    if (ctx.full) full_done_ = true;
    ctx.clustering_columns = columns_;
    ctx.touched = touched;
    step.operation = Operation(ctx.full);
    Measure(&step.files_before, &step.scan_tasks_before, &step.spark_scan_tasks_before,
            &step.lookup_files_before);

    planner::DecisionLog log;
    LITHIFY_ASSIGN_OR_RETURN(const planner::Plan plan, PlanMaintenance(s_, live_, ctx, &log, policy_));
    LITHIFY_RETURN_NOT_OK(Apply(plan, t, &step));

    for (const planner::BinDecision& b : log.bins) {
      ++(b.kept ? step.kept_reasons : step.dropped_reasons)[b.reason];
      if (!b.kept) ++step.bins_dropped;
    }
    step.bins_kept = static_cast<int64_t>(plan.bins.size());
    step.summary = log.summary;
    if (s_.log_detail == "full") step.log = log.ToJson();
    Measure(&step.files_after, &step.scan_tasks_after, &step.spark_scan_tasks_after,
            &step.lookup_files_after);
    step.tombstones_live = LiveTombstones(t);
    std::tie(step.cubes_sealed, step.cubes_open) = Cubes();

    SimTotals& tot = result_.totals;
    ++tot.maintenance_runs;
    tot.bins_kept += step.bins_kept;
    tot.bins_dropped += step.bins_dropped;
    tot.num_files_added += step.num_files_added;
    tot.num_files_removed += step.num_files_removed;
    tot.bytes_read += step.bytes_read;
    tot.bytes_written += step.bytes_written;
    step.bytes_ingested = tot.bytes_ingested;
    step.write_amplification =
        tot.bytes_ingested > 0
            ? static_cast<double>(tot.bytes_written) / static_cast<double>(tot.bytes_ingested)
            : 0;
    result_.steps.push_back(std::move(step));
    return Status::OK();
  }

  // Replaces each kept bin's inputs by its outputs: output_files files splitting the
  // bin's live bytes and rows evenly (a rewrite drops deleted rows; Delta drops output
  // files of 0 rows).
  Status Apply(const planner::Plan& plan, double t, SimStep* step) {
    if (plan.bins.empty()) return Status::OK();
    std::unordered_map<std::string_view, size_t> index;
    index.reserve(live_.size());
    for (size_t i = 0; i < live_.size(); ++i) index.emplace(live_[i].path, i);
    std::vector<char> removed(live_.size(), 0);
    std::vector<std::pair<FileEntry, KeyRange>> added;
    for (const planner::Bin& bin : plan.bins) {
      int64_t bytes = 0, rows = 0;
      for (const planner::FileRef& ref : bin.files) {
        auto it = index.find(ref.path);
        if (it == index.end() || removed[it->second]) {
          return Status::Internal("simulate: plan names '{}', which is not live", ref.path);
        }
        const FileEntry& f = live_[it->second];
        removed[it->second] = 1;
        bytes += planner::EstimatedLogicalSize(f);
        rows += f.num_live_records().value_or(f.size / s_.row_bytes);
        AddTombstone(t);
      }
      step->bytes_read += bin.total_bytes;
      step->num_files_removed += static_cast<int64_t>(bin.files.size());
      if (rows == 0) continue;
      const int64_t n = std::max(1, bin.output_files);
      const std::string cube = plan.mode == planner::PlanMode::kLiquid
                                   ? fmt::format("zcube-{:08}", next_cube_++)
                                   : std::string();
      const std::string keyed_by =
          plan.mode == planner::PlanMode::kLiquid ? policy_.CubeColumnsValue(plan.columns)
          : plan.mode == planner::PlanMode::kZOrder ? policy_.CubeColumnsValue(s_.zorder_by)
                                                    : std::string();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t size = EvenPart(bytes, n, i);
        FileEntry f = NewFile(bin.partition_values, size, EvenPart(rows, n, i), t);
        KeyRange range;
        if (!keyed_by.empty() && n > 1) {
          range = KeyRange{static_cast<int32_t>(i), static_cast<int32_t>(n), keyed_by};
        }
        if (!cube.empty()) policy_.MarkCubeMember(&f, cube, keyed_by);
        step->bytes_written += size;
        ++step->num_files_added;
        added.emplace_back(std::move(f), std::move(range));
      }
    }
    index.clear();  // views into live_ paths die with Compact
    Compact(removed);
    for (auto& [f, range] : added) AddLive(std::move(f), std::move(range));
    step->tombstones = step->num_files_removed;
    return Status::OK();
  }

  void Finish(double end) {
    SimTotals& tot = result_.totals;
    tot.files_before = static_cast<int64_t>(ingested_sizes_.size());
    tot.scan_tasks_before = ChargedScanTasks(ingested_sizes_, s_.open_cost, s_.max_partition_bytes);
    tot.spark_scan_tasks_before =
        SparkScanTasks(ingested_sizes_, s_.open_cost, s_.max_partition_bytes, s_.spark_parallelism);
    Measure(&tot.files_after, &tot.scan_tasks_after, &tot.spark_scan_tasks_after, &tot.lookup_files);
    for (const FileEntry& f : live_) {
      tot.bytes_live += f.size;
      tot.rows_live += f.num_live_records().value_or(0);
      tot.dv_files += f.deletion_vector ? 1 : 0;
    }
    tot.write_amplification =
        tot.bytes_ingested > 0
            ? static_cast<double>(tot.bytes_written) / static_cast<double>(tot.bytes_ingested)
            : 0;
    tot.tombstones_live = LiveTombstones(end);
    std::tie(tot.cubes_sealed, tot.cubes_open) = Cubes();
    std::vector<const PartitionValues*> parts;
    for (const FileEntry& f : live_) parts.push_back(&f.partition_values);
    std::sort(parts.begin(), parts.end(), [](auto* a, auto* b) { return *a < *b; });
    tot.partitions = static_cast<int64_t>(
        std::unique(parts.begin(), parts.end(), [](auto* a, auto* b) { return *a == *b; }) -
        parts.begin());
    result_.scenario = s_;
  }

  const Scenario& s_;
  const planner::TablePolicy& policy_;  // the table format's maintenance policy
  Rng rng_;
  const int64_t start_days_;
  const double partition_seconds_;
  std::vector<std::string> columns_;  // current clustering columns
  bool keys_changed_ = false;
  bool full_done_ = false;
  std::vector<FileEntry> live_;
  std::vector<KeyRange> ranges_;  // parallel to live_
  std::vector<int64_t> ingested_sizes_;
  std::vector<double> tombstone_times_;  // ascending
  int64_t next_file_ = 0;
  int64_t next_cube_ = 0;
  int64_t next_dv_ = 0;
  SimResult result_;
};

}  // namespace

Result<planner::Plan> PlanMaintenance(const Scenario& s, const std::vector<table::FileEntry>& live,
                                      const PlanContext& ctx, planner::DecisionLog* log,
                                      const planner::TablePolicy& policy) {
  if (s.maintenance == "optimize" || s.maintenance == "reorg") {
    // As commands::Optimize builds them from --target-file-size / --min-file-size.
    planner::CompactionOptions o;
    o.mode = s.maintenance == "reorg" ? planner::PlanMode::kReorgPurge
                                      : planner::PlanMode::kCompaction;
    o.min_file_size = s.min_file_size;
    o.max_file_size = s.target_file_size;
    o.max_deleted_rows_ratio = s.max_deleted_rows_ratio;
    o.target_size_source = "--target-file-size";
    return planner::PlanCompaction(policy, live, o, log);
  }
  if (s.maintenance == "auto_compact") {
    planner::AutoCompactionOptions o;
    o.max_file_size = s.auto_compact_max_file_size;
    o.min_file_size = s.auto_compact_min_file_size;
    o.max_deleted_rows_ratio = s.max_deleted_rows_ratio;
    o.min_num_files = s.auto_compact_min_num_files;
    o.max_num_partitions = s.auto_compact_max_num_partitions;
    o.target_size_source = "autoCompact.maxFileSize";
    return planner::PlanAutoCompaction(policy, live, ctx.touched, o, log);
  }
  if (s.maintenance == "zorder") {
    planner::ZOrderOptions o;
    o.zorder_by = s.zorder_by;
    o.max_file_size = s.target_file_size;
    o.target_size_source = "--target-file-size";
    if (s.zorder_window_days > 0) {
      const std::string cutoff = internal::DateText(internal::DaysOf(s.start_date) + ctx.day -
                                                    s.zorder_window_days);
      o.in_scope = [cutoff](const table::FileEntry& f) {
        auto it = f.partition_values.find("date");
        return it != f.partition_values.end() && it->second && *it->second >= cutoff;
      };
      o.scope_description = fmt::format("date >= '{}'", cutoff);
    }
    return planner::PlanZOrder(live, o, log);
  }
  if (s.maintenance == "liquid") {
    planner::LiquidOptions o;
    o.clustering_columns = ctx.clustering_columns.empty() ? s.cluster_by : ctx.clustering_columns;
    o.min_cube_size = s.min_cube_size;
    o.target_cube_size = s.target_cube_size;
    o.max_file_size = s.output_file_size;
    o.full = ctx.full;
    o.target_size_source = "output_file_size_gb";
    return planner::PlanLiquid(policy, live, o, log);
  }
  return Status::InvalidArgument("simulate: maintenance '{}' plans nothing", s.maintenance);
}

Result<SimResult> Simulate(const Scenario& scenario, const planner::TablePolicy& policy) {
  return Simulation(scenario, policy).Run();
}

}  // namespace lithify::sim
