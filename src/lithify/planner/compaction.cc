#include "lithify/planner/compaction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "lithify/base/macros.h"

namespace lithify::planner {

namespace {

using table::FileEntry;

// The rules one planning run applies (already validated and resolved per mode).
struct Rules {
  const TablePolicy* policy = nullptr;
  PlanMode mode = PlanMode::kCompaction;
  int64_t min_file_size = 0;
  int64_t max_file_size = 0;
  double max_deleted_rows_ratio = 0;
  std::optional<int64_t> batch_size;
  std::string target_size_source;
  std::string scope_description;
  int64_t min_num_files = 0;
  const std::function<bool(const FileEntry&)>* must_rewrite = nullptr;
};

// Files grouped by partition values; groups in ascending order of their values.
struct Grouping {
  std::vector<int> group_of;                   // per file
  std::vector<const PartitionValues*> values;  // per group, points into the files
};

// An unambiguous identity for a set of partition values (lengths prefix every part, so
// no value can imitate a separator).
void AppendPart(std::string& key, std::string_view part) {
  key += std::to_string(part.size());
  key += ':';
  key += part;
}

std::string PartitionKey(const PartitionValues& values) {
  std::string key;
  for (const auto& [name, value] : values) {
    AppendPart(key, name);
    if (value) {
      key += 'v';
      AppendPart(key, *value);
    } else {
      key += 'n';
    }
  }
  return key;
}

Grouping GroupByPartition(const std::vector<FileEntry>& files) {
  Grouping g;
  g.group_of.resize(files.size());
  std::unordered_map<std::string, int> index;
  std::vector<int> first_file;
  std::string key;
  for (size_t i = 0; i < files.size(); ++i) {
    // Writers emit runs of files of one partition: skip the hash for a repeat.
    if (i > 0 && files[i].partition_values == files[i - 1].partition_values) {
      g.group_of[i] = g.group_of[i - 1];
      continue;
    }
    key = PartitionKey(files[i].partition_values);
    auto [it, inserted] = index.try_emplace(key, static_cast<int>(first_file.size()));
    if (inserted) first_file.push_back(static_cast<int>(i));
    g.group_of[i] = it->second;
  }
  // Renumber the groups in ascending order of their values.
  std::vector<int> order(first_file.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return files[first_file[a]].partition_values < files[first_file[b]].partition_values;
  });
  std::vector<int> rank(order.size());
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int>(r);
  for (int& grp : g.group_of) grp = rank[grp];
  g.values.resize(order.size());
  for (size_t r = 0; r < order.size(); ++r) g.values[r] = &files[first_file[order[r]]].partition_values;
  return g;
}

// The file's verdict: nullopt = candidate. Files the command forces are candidates
// whatever the format's rule says; the rule itself is the policy's.
std::optional<FileVerdict> Verdict(const FileEntry& f, const Rules& r) {
  if (r.must_rewrite != nullptr && *r.must_rewrite && (*r.must_rewrite)(f)) return std::nullopt;
  return r.policy->CompactionVerdict(
      f, CandidateThresholds{r.mode, r.min_file_size, r.max_deleted_rows_ratio});
}

bool IsCandidate(const FileEntry& f, const Rules& r) { return !Verdict(f, r).has_value(); }

// The bin loop of §1.5 over one partition's candidates as (size, file index), sorted
// ascending. Empty bins (Delta emits one when the first file alone exceeds the maximum)
// are not returned: outside the multi-dimensional modes they are always dropped.
std::vector<std::vector<int>> PackPartition(const std::vector<std::pair<int64_t, int>>& sorted,
                                            int64_t max_bin) {
  std::vector<std::vector<int>> bins;
  std::vector<int> cur;
  int64_t cur_size = 0;
  for (const auto& [size, i] : sorted) {
    if (size + cur_size > max_bin) {
      if (!cur.empty()) bins.push_back(std::move(cur));
      cur = {i};
      cur_size = size;
    } else {
      cur.push_back(i);
      cur_size += size;
    }
  }
  if (!cur.empty()) bins.push_back(std::move(cur));
  return bins;
}

bool KeepBin(size_t num_files, PlanMode mode) {
  return num_files > 1 || (num_files == 1 && mode == PlanMode::kReorgPurge);
}

std::string BinReason(const std::vector<int>& bin, int64_t bytes, const Rules& r, bool kept) {
  if (bin.size() > 1) {
    return fmt::format("{} files combine into one file of at most the target {}", bin.size(),
                       FormatBytes(r.max_file_size));
  }
  if (kept) return "single file with deleted rows: REORG PURGE rewrites it without them";
  std::string reason = "single file: rewriting one file into one file changes nothing";
  if (bytes > r.max_file_size) {
    reason += fmt::format(" (it alone exceeds the target {})", FormatBytes(r.max_file_size));
  }
  return reason;
}

// State of one planning run, so the phases below stay small.
class Planner {
 public:
  Planner(const std::vector<FileEntry>& files, const Grouping& grouping, const Rules& rules,
          DecisionLog* log)
      : files_(files), grouping_(grouping), rules_(rules), log_(log) {}

  // `excluded[i]` set: file i is not considered, with that verdict.
  // `notes`: per group, recorded on the log's partition (may be empty).
  Plan Run(const std::vector<std::optional<FileVerdict>>& excluded,
           const std::vector<std::string>& notes) {
    StartPlan();
    StartLog(excluded, notes);
    std::vector<std::vector<int>> candidates = SelectCandidates(excluded);
    for (size_t g = 0; g < candidates.size(); ++g) PackGroup(static_cast<int>(g), candidates[g]);
    FinishPlan();
    if (log_ != nullptr) log_->Summarize();
    return std::move(plan_);
  }

 private:
  void StartPlan() {
    plan_.mode = rules_.mode;
    plan_.min_file_size = rules_.min_file_size;
    plan_.max_file_size = rules_.max_file_size;
    plan_.max_deleted_rows_ratio = rules_.max_deleted_rows_ratio;
    plan_.target_size_source = rules_.target_size_source;
  }

  void StartLog(const std::vector<std::optional<FileVerdict>>& excluded,
                const std::vector<std::string>& notes) {
    if (log_ == nullptr) return;
    *log_ = DecisionLog{};
    log_->mode = rules_.mode;
    log_->min_file_size = rules_.min_file_size;
    log_->max_file_size = rules_.max_file_size;
    log_->max_deleted_rows_ratio = rules_.max_deleted_rows_ratio;
    log_->target_size_source = rules_.target_size_source;
    log_->scope_description = rules_.scope_description;
    log_->min_num_files = rules_.min_num_files;
    // A group appears in the log when any of its files is inside the predicate.
    log_partition_.assign(grouping_.values.size(), -1);
    for (size_t i = 0; i < files_.size(); ++i) {
      if (excluded[i] == FileVerdict::kOutsidePredicate) continue;
      int& p = log_partition_[grouping_.group_of[i]];
      if (p < 0) p = 0;  // mark; numbered below in group order
    }
    for (size_t g = 0; g < log_partition_.size(); ++g) {
      if (log_partition_[g] < 0) continue;
      log_partition_[g] = static_cast<int>(log_->partitions.size());
      PartitionDecision pd;
      pd.partition = PartitionText(*grouping_.values[g]);
      if (g < notes.size()) pd.note = notes[g];
      log_->partitions.push_back(std::move(pd));
    }
    log_->files.reserve(files_.size());
  }

  std::vector<std::vector<int>> SelectCandidates(
      const std::vector<std::optional<FileVerdict>>& excluded) {
    std::vector<std::vector<int>> candidates(grouping_.values.size());
    for (size_t i = 0; i < files_.size(); ++i) {
      const FileEntry& f = files_[i];
      const int g = grouping_.group_of[i];
      FileVerdict verdict = FileVerdict::kCandidate;
      if (excluded[i]) {
        verdict = *excluded[i];
      } else {
        ++plan_.total_considered_files;
        if (std::optional<FileVerdict> v = Verdict(f, rules_)) {
          verdict = *v;
        } else {
          candidates[g].push_back(static_cast<int>(i));
        }
      }
      if (log_ != nullptr) LogFile(f, g, verdict);
    }
    return candidates;
  }

  void LogFile(const FileEntry& f, int group, FileVerdict verdict) {
    FileDecision d = FileDecisionOf(f);
    d.verdict = verdict;
    d.forced = verdict == FileVerdict::kCandidate && rules_.must_rewrite != nullptr &&
               *rules_.must_rewrite && (*rules_.must_rewrite)(f);
    if (verdict != FileVerdict::kOutsidePredicate) {
      d.partition = log_partition_[group];
      PartitionDecision& pd = log_->partitions[d.partition];
      if (verdict != FileVerdict::kPartitionNotSelected) ++pd.files;
      if (verdict == FileVerdict::kCandidate) {
        ++pd.candidates;
        pd.candidate_bytes += f.size;
      }
    }
    log_->files.push_back(std::move(d));
  }

  void PackGroup(int group, const std::vector<int>& candidates) {
    if (candidates.empty()) return;
    // Sorting (size, index) pairs is the stable sort by size (indexes ascend within a
    // group) without touching the FileEntry array in every comparison.
    std::vector<std::pair<int64_t, int>> keyed;
    keyed.reserve(candidates.size());
    for (int i : candidates) keyed.emplace_back(files_[i].size, i);
    std::sort(keyed.begin(), keyed.end());
    for (const std::vector<int>& bin : PackPartition(keyed, rules_.max_file_size)) {
      int64_t bytes = 0;
      for (int i : bin) bytes += files_[i].size;
      const bool kept = KeepBin(bin.size(), rules_.mode);
      int plan_id = -1;
      if (kept) plan_id = AddBin(group, bin, bytes);
      if (log_ != nullptr) LogBin(group, bin, bytes, kept, plan_id);
    }
  }

  int AddBin(int group, const std::vector<int>& bin, int64_t bytes) {
    Bin b;
    b.id = static_cast<int>(plan_.bins.size());
    b.partition_values = *grouping_.values[group];
    b.files.reserve(bin.size());
    for (int i : bin) b.files.push_back(FileRefOf(files_[i]));
    b.total_bytes = bytes;
    plan_.bins.push_back(std::move(b));
    if (last_group_kept_ != group) ++plan_.partitions_optimized;
    last_group_kept_ = group;
    return plan_.bins.back().id;
  }

  void LogBin(int group, const std::vector<int>& bin, int64_t bytes, bool kept, int plan_id) {
    BinDecision bd;
    bd.id = static_cast<int>(log_->bins.size());
    bd.plan_bin_id = plan_id;
    bd.partition = log_partition_[group];
    bd.files = static_cast<int64_t>(bin.size());
    bd.bytes = bytes;
    bd.kept = kept;
    bd.reason = BinReason(bin, bytes, rules_, kept);
    PartitionDecision& pd = log_->partitions[bd.partition];
    pd.bins.push_back(bd.id);
    ++(kept ? pd.bins_kept : pd.bins_dropped);
    for (int i : bin) log_->files[i].bin = bd.id;
    log_->bins.push_back(std::move(bd));
  }

  void FinishPlan() {
    plan_.total_files_skipped = plan_.total_considered_files - plan_.total_input_files();
    plan_.batches = MakeBatches(plan_, rules_.batch_size);
  }

  const std::vector<FileEntry>& files_;
  const Grouping& grouping_;
  const Rules& rules_;
  DecisionLog* log_;
  Plan plan_;
  std::vector<int> log_partition_;  // group -> index in log_->partitions (or -1)
  int last_group_kept_ = -1;
};

Status ValidateSizes(int64_t min_file_size, int64_t max_file_size, double ratio) {
  if (max_file_size <= 0) {
    return Status::InvalidArgument("maxFileSize (the target) must be positive, got {}",
                                   max_file_size);
  }
  if (min_file_size < 0) {
    return Status::InvalidArgument("minFileSize must not be negative, got {}", min_file_size);
  }
  if (!(ratio >= 0)) {  // also rejects NaN
    return Status::InvalidArgument("maxDeletedRowsRatio must be a number >= 0, got {}", ratio);
  }
  return Status::OK();
}

Result<Rules> CompactionRules(const TablePolicy& policy, const CompactionOptions& o) {
  if (o.mode != PlanMode::kCompaction && o.mode != PlanMode::kReorgPurge) {
    return Status::InvalidArgument("PlanCompaction does not plan mode '{}'", PlanModeName(o.mode));
  }
  if (o.batch_size && *o.batch_size <= 0) {
    return Status::InvalidArgument("batch size must be positive, got {}", *o.batch_size);
  }
  Rules r;
  r.policy = &policy;
  r.mode = o.mode;
  const bool reorg = o.mode == PlanMode::kReorgPurge;
  // REORG PURGE runs the compaction rule with minFileSize 0 and ratio 0 (§6), which
  // selects exactly the files with deleted rows or a DV of unknown ratio.
  r.min_file_size = reorg ? 0 : o.min_file_size;
  r.max_deleted_rows_ratio = reorg ? 0.0 : o.max_deleted_rows_ratio;
  r.max_file_size = o.max_file_size;
  LITHIFY_RETURN_NOT_OK(ValidateSizes(r.min_file_size, r.max_file_size, r.max_deleted_rows_ratio));
  r.batch_size = o.batch_size;
  r.target_size_source = o.target_size_source;
  r.scope_description = o.scope_description;
  r.must_rewrite = &o.must_rewrite;
  return r;
}

// Auto compaction: which groups run, and the note each group carries in the log.
struct Selection {
  std::vector<bool> selected;
  std::vector<std::string> notes;
};

Selection SelectAutoCompactionGroups(const std::vector<FileEntry>& files, const Grouping& g,
                                     const std::vector<PartitionValues>& touched,
                                     const Rules& rules, const AutoCompactionOptions& o) {
  const size_t n = g.values.size();
  std::vector<bool> is_touched(n, false);
  {
    std::unordered_map<std::string, int> key_to_group;
    for (size_t i = 0; i < n; ++i) key_to_group.emplace(PartitionKey(*g.values[i]), i);
    for (const PartitionValues& t : touched) {
      auto it = key_to_group.find(PartitionKey(t));
      if (it != key_to_group.end()) is_touched[it->second] = true;
    }
  }
  std::vector<int64_t> small(n, 0);
  for (size_t i = 0; i < files.size(); ++i) {
    if (is_touched[g.group_of[i]] && IsCandidate(files[i], rules)) ++small[g.group_of[i]];
  }
  std::vector<int> qualifying;
  Selection s{std::vector<bool>(n, false), std::vector<std::string>(n)};
  for (size_t i = 0; i < n; ++i) {
    if (!is_touched[i]) {
      s.notes[i] = "not touched by the commit";
    } else if (small[i] < o.min_num_files) {
      s.notes[i] = fmt::format("touched, but only {} small files (fewer than minNumFiles {})",
                               small[i], o.min_num_files);
    } else {
      qualifying.push_back(static_cast<int>(i));
    }
  }
  std::stable_sort(qualifying.begin(), qualifying.end(),
                   [&](int a, int b) { return small[a] > small[b]; });
  for (size_t k = 0; k < qualifying.size(); ++k) {
    const int i = qualifying[k];
    if (static_cast<int64_t>(k) < o.max_num_partitions) {
      s.selected[i] = true;
      s.notes[i] = fmt::format("selected: touched, {} small files (at least minNumFiles {})",
                               small[i], o.min_num_files);
    } else {
      s.notes[i] = fmt::format(
          "touched with {} small files, but beyond maxNumModifiedPartitions ({})", small[i],
          o.max_num_partitions);
    }
  }
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string PartitionText(const PartitionValues& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    if (!out.empty()) out += '/';
    out += name;
    out += '=';
    out += value ? *value : std::string("null");
  }
  return out;
}

Result<Plan> PlanCompaction(const TablePolicy& policy, const std::vector<table::FileEntry>& files,
                            const CompactionOptions& options, DecisionLog* log) {
  LITHIFY_ASSIGN_OR_RETURN(const Rules rules, CompactionRules(policy, options));
  const Grouping grouping = GroupByPartition(files);
  std::vector<std::optional<FileVerdict>> excluded(files.size());
  if (options.in_scope) {
    for (size_t i = 0; i < files.size(); ++i) {
      if (!options.in_scope(files[i])) excluded[i] = FileVerdict::kOutsidePredicate;
    }
  }
  return Planner(files, grouping, rules, log).Run(excluded, {});
}

Result<Plan> PlanAutoCompaction(const TablePolicy& policy,
                                const std::vector<table::FileEntry>& files,
                                const std::vector<PartitionValues>& touched_partitions,
                                const AutoCompactionOptions& options, DecisionLog* log) {
  if (options.min_num_files < 1 || options.max_num_partitions < 1) {
    return Status::InvalidArgument(
        "auto compaction: minNumFiles and maxNumModifiedPartitions must be at least 1, got {} "
        "and {}",
        options.min_num_files, options.max_num_partitions);
  }
  Rules rules;
  rules.policy = &policy;
  rules.mode = PlanMode::kAutoCompaction;
  rules.max_file_size = options.max_file_size;
  rules.min_file_size = options.min_file_size.value_or(options.max_file_size / 2);
  rules.max_deleted_rows_ratio = options.max_deleted_rows_ratio;
  LITHIFY_RETURN_NOT_OK(
      ValidateSizes(rules.min_file_size, rules.max_file_size, rules.max_deleted_rows_ratio));
  rules.target_size_source = options.target_size_source;
  rules.scope_description = "partitions touched by the commit";
  rules.min_num_files = options.min_num_files;

  const Grouping grouping = GroupByPartition(files);
  const Selection sel =
      SelectAutoCompactionGroups(files, grouping, touched_partitions, rules, options);
  std::vector<std::optional<FileVerdict>> excluded(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (!sel.selected[grouping.group_of[i]]) excluded[i] = FileVerdict::kPartitionNotSelected;
  }
  return Planner(files, grouping, rules, log).Run(excluded, sel.notes);
}

std::vector<std::vector<int>> BinPackBySize(const std::vector<int64_t>& sizes, int64_t max) {
  std::vector<int> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] < sizes[b]; });
  std::vector<std::vector<int>> groups;
  std::vector<int> cur;
  int64_t cur_size = 0;
  for (int i : order) {
    const int64_t size = sizes[i];
    if (cur_size >= max || size + cur_size > max) {
      if (!cur.empty()) groups.push_back(std::move(cur));
      cur = {i};
      cur_size = size;
    } else {
      cur.push_back(i);
      cur_size += size;
    }
  }
  if (!cur.empty()) groups.push_back(std::move(cur));
  return groups;
}

Status CheckPartitionOnlyPredicate(const std::vector<std::vector<std::string>>& referenced,
                                   const std::vector<std::string>& partition_columns) {
  for (const std::vector<std::string>& path : referenced) {
    const bool ok = path.size() == 1 &&
                    std::any_of(partition_columns.begin(), partition_columns.end(),
                                [&](const std::string& c) { return EqualsIgnoreCase(c, path[0]); });
    if (ok) continue;
    const std::string name = fmt::format("{}", fmt::join(path, "."));
    if (partition_columns.empty()) {
      return Status::InvalidArgument(
          "--where may reference only partition columns, and the table is not partitioned: "
          "'{}' is a data column",
          name);
    }
    return Status::InvalidArgument(
        "--where may reference only partition columns ({}): '{}' is not one",
        fmt::join(partition_columns, ", "), name);
  }
  return Status::OK();
}

std::vector<Batch> MakeBatches(const Plan& plan, const std::optional<int64_t>& batch_size) {
  std::vector<Batch> batches;
  if (!batch_size) {
    // Delta: one batch holding every bin, even when there are none (numBatches = 1).
    Batch all;
    for (const Bin& b : plan.bins) all.bin_ids.push_back(b.id);
    batches.push_back(std::move(all));
    return batches;
  }
  std::vector<int64_t> sizes;
  sizes.reserve(plan.bins.size());
  for (const Bin& b : plan.bins) sizes.push_back(b.total_bytes);
  for (std::vector<int>& group : BinPackBySize(sizes, *batch_size)) {
    batches.push_back(Batch{std::move(group)});  // bin ids are plan.bins indexes
  }
  return batches;
}

FileRef FileRefOf(const FileEntry& f) {
  return FileRef{f.path, f.dv_unique_id(), f.size, f.num_records(),
                 f.deletion_vector ? f.deletion_vector->cardinality : 0};
}

FileDecision FileDecisionOf(const FileEntry& f) {
  FileDecision d;
  d.path = f.path;
  d.size = f.size;
  d.num_records = f.num_records();
  d.has_deletion_vector = f.deletion_vector.has_value();
  d.deleted_rows = f.deletion_vector ? f.deletion_vector->cardinality : 0;
  return d;
}

}  // namespace lithify::planner
