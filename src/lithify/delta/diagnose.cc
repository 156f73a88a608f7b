#include "lithify/base/nesting.h"
#include "lithify/delta/diagnose.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/delta/vacuum.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/snapshot.h"
#include "lithify/planner/clustering.h"
#include "lithify/planner/compaction.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/scan_cost.h"
#include "lithify/planner/target_size.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

namespace {

using planner::FormatBytes;
using table::FileEntry;
using PartitionValuesT = std::map<std::string, std::optional<std::string>>;
using J = nlohmann::ordered_json;

// Findings of equal severity are ordered by this rank (lower first): structural causes
// that no schedule fixes come before work a command can do, and warnings against
// compaction come last.
enum Rank {
  kRankHealthy = -1,  // the verdict leads when nothing is wrong
  kRankStaleKeys = 0,
  kRankNeverCompact,
  kRankDeletedRows,
  kRankSmallFiles,
  kRankAutoCompaction,
  kRankTombstones,
  kRankOpenCubes,
  kRankNotWorthIt,
  kRankOldPartitions,
  kRankDoublesStorage,
};

struct RankedFinding {
  Finding finding;
  int rank = 0;
};

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Percent(double ratio) { return fmt::format("{:.1f}%", ratio * 100.0); }

// Spark's split arithmetic (planner/scan_cost.h) with the options' openCost/maxPartitionBytes.
planner::ChargedScanTaskCounter ScanTaskCounter(const DiagnoseOptions& o) {
  return planner::ChargedScanTaskCounter(o.open_cost_bytes, o.max_partition_bytes);
}

// Bytes a rewrite keeps of a file: its size scaled by live / physical rows.
int64_t LiveBytes(const FileEntry& f) {
  auto n = f.num_records();
  if (!n || *n <= 0 || !f.deletion_vector) return f.size;
  const double live = static_cast<double>(std::max<int64_t>(0, *n - f.deletion_vector->cardinality));
  return static_cast<int64_t>(std::llround(static_cast<double>(f.size) * live / static_cast<double>(*n)));
}

// A copy with what the planners read (no per-column statistics), so that what-if plans
// over modified file lists cost little memory.
FileEntry Slim(const FileEntry& f) {
  FileEntry s;
  s.path = f.path;
  s.size = f.size;
  s.modification_time_ms = f.modification_time_ms;
  s.partition_values = f.partition_values;
  if (auto n = f.num_records()) {
    s.stats.emplace();
    s.stats->num_records = n;
  }
  s.deletion_vector = f.deletion_vector;
  s.tags = f.tags;
  s.clustering_provider = f.clustering_provider;
  return s;
}

// Output files of a bin (several for a clustering bin larger than the file size).
int64_t OutputFilesOf(const planner::Bin& b) { return std::max<int64_t>(1, b.output_files); }

// What a plan does to the table: files and scan tasks before and after.
struct Outcome {
  int64_t files_before = 0;
  int64_t files_after = 0;
  int64_t bytes_rewritten = 0;
  int64_t input_files = 0;
  int64_t output_files = 0;
  int64_t tasks_before = 0;
  int64_t tasks_after = 0;
  int64_t deleted_rows_purged = 0;
};

// Memory: one map entry per planned input (views into the plan), not per table file.
Outcome OutcomeOf(const std::vector<FileEntry>& files, const planner::Plan& plan, const DiagnoseOptions& o) {
  using Key = std::pair<std::string_view, std::string_view>;  // (path, DV unique id)
  std::map<Key, int64_t> live_of;  // planned input -> bytes its rows keep (-1: not live)
  for (const planner::Bin& b : plan.bins) {
    for (const planner::FileRef& r : b.files) live_of.emplace(Key{r.path, r.dv_unique_id}, -1);
  }
  Outcome out;
  planner::ChargedScanTaskCounter before = ScanTaskCounter(o), after = ScanTaskCounter(o);
  for (const FileEntry& f : files) {
    before.Add(f.size);
    auto it = live_of.find(Key{f.path, f.dv_unique_id()});
    if (it == live_of.end()) {
      after.Add(f.size);  // untouched
    } else {
      it->second = LiveBytes(f);
    }
  }
  for (const planner::Bin& b : plan.bins) {
    int64_t live = 0;
    for (const planner::FileRef& r : b.files) {
      const int64_t l = live_of[Key{r.path, r.dv_unique_id}];
      live += l >= 0 ? l : r.size;
      out.bytes_rewritten += r.size;
      out.deleted_rows_purged += r.deleted_rows;
      ++out.input_files;
    }
    // A bin whose rows were all deleted writes nothing (Delta drops empty outputs).
    const int64_t outputs = live > 0 ? OutputFilesOf(b) : 0;
    for (int64_t k = 0; k < outputs; ++k) after.Add(live / outputs);
    out.output_files += outputs;
  }
  out.files_before = static_cast<int64_t>(files.size());
  out.files_after = out.files_before - out.input_files + out.output_files;
  out.tasks_before = before.Tasks();
  out.tasks_after = after.Tasks();
  return out;
}

FindingEffect EffectOf(const Outcome& oc, bool simulated, std::string description) {
  FindingEffect e;
  e.description = std::move(description);
  e.simulated = simulated;
  e.files_before = oc.files_before;
  e.files_after = oc.files_after;
  e.bytes_rewritten = oc.bytes_rewritten;
  e.scan_tasks_before = oc.tasks_before;
  e.scan_tasks_after = oc.tasks_after;
  return e;
}

// ---- the facts -------------------------------------------------------------------------

struct Facts {
  io::FileSystem* fs = nullptr;
  const delta::Snapshot* snap = nullptr;
  DiagnoseOptions options;
  int64_t now_ms = 0;
  std::vector<FileEntry> files;  // slim copies
  std::vector<std::string> clustering;  // logical dotted names; empty = not clustered
  planner::CompactionOptions compaction;  // as `lithify optimize` would plan
  planner::Plan plan;                     // OPTIMIZE now
  planner::DecisionLog log;
  Outcome plan_outcome;
  bool liquid = false;  // the plan came from the liquid planner
  // Per partition: files, bytes, newest modification time, small (candidate) files.
  struct Partition {
    int64_t files = 0;
    int64_t bytes = 0;
    int64_t newest_ms = 0;
    int64_t small = 0;
  };
  std::map<PartitionValuesT, Partition> partitions;
  int64_t physical_rows = 0;  // over files with numRecords
};

std::vector<std::string> DottedNames(const std::vector<std::vector<std::string>>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::string s;
    for (const std::string& part : p) s += (s.empty() ? "" : ".") + part;
    out.push_back(std::move(s));
  }
  return out;
}

Status ResolveTarget(const Facts& f, Diagnosis* d, planner::CompactionOptions* co) {
  planner::TargetSizeInputs ts;
  ts.explicit_bytes = f.options.target_file_size;
  const auto& props = f.snap->properties();
  if (auto it = props.find(delta::kTargetFileSizeProperty); it != props.end()) ts.table_property = it->second;
  ts.autotune = f.options.autotune;
  ts.table_bytes = d->total_bytes;
  Result<std::pair<int64_t, std::string>> target = planner::ResolveTargetFileSize(delta::DeltaPolicy(), ts);
  if (!target.ok()) return target.status().WithContext(f.snap->table_root());
  d->target_file_size = target->first;
  d->target_size_source = target->second;
  co->mode = planner::PlanMode::kCompaction;
  co->max_file_size = target->first;
  co->min_file_size = target->first;  // Delta OSS: optimize.minFileSize = maxFileSize
  co->max_deleted_rows_ratio = 0.05;
  co->target_size_source = target->second;
  return Status::OK();
}

void Layout(Facts* f, Diagnosis* d) {
  planner::ChargedScanTaskCounter tasks = ScanTaskCounter(f->options);
  for (const FileEntry& e : f->files) {
    d->total_bytes += e.size;
    tasks.Add(e.size);
    Facts::Partition& p = f->partitions[e.partition_values];
    ++p.files;
    p.bytes += e.size;
    p.newest_ms = std::max(p.newest_ms, e.modification_time_ms);
    if (e.deletion_vector) {
      ++d->files_with_deletion_vectors;
      d->deleted_rows += e.deletion_vector->cardinality;
    }
    if (auto n = e.num_records()) f->physical_rows += *n;
  }
  d->num_files = static_cast<int64_t>(f->files.size());
  d->avg_file_size = d->num_files > 0 ? d->total_bytes / d->num_files : 0;
  d->scan_tasks = tasks.Tasks();
  d->num_partitions = static_cast<int64_t>(f->partitions.size());
  static const std::vector<std::pair<int64_t, int64_t>> kBuckets = {{1, 1}, {2, 4}, {5, 9}, {10, 49}, {50, 99}, {100, -1}};
  for (auto [lo, hi] : kBuckets) {
    PartitionHistogramBucket b;
    b.label = hi < 0 ? fmt::format("{}+", lo) : lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
    b.min_files = lo;
    b.max_files = hi;
    d->files_per_partition.push_back(std::move(b));
  }
  for (const auto& [values, p] : f->partitions) {
    for (PartitionHistogramBucket& b : d->files_per_partition) {
      if (p.files >= b.min_files && (b.max_files < 0 || p.files <= b.max_files)) {
        ++b.partitions;
        b.files += p.files;
        b.bytes += p.bytes;
        break;
      }
    }
    if (p.files == 1) ++d->partitions_never_compact;
  }
}

// Small files per partition by the plan's candidate rule, read back from the log.
void CountSmallFiles(Facts* f) {
  for (const planner::FileDecision& fd : f->log.files) {
    if (fd.verdict != planner::FileVerdict::kCandidate) continue;
    const FileEntry* e = nullptr;
    // The log keeps input order, which is f->files' order.
    const size_t i = static_cast<size_t>(&fd - f->log.files.data());
    if (i < f->files.size() && f->files[i].path == fd.path) e = &f->files[i];
    if (e != nullptr) ++f->partitions[e->partition_values].small;
  }
}

planner::LiquidOptions LiquidOptionsOf(const Facts& f, bool full) {
  planner::LiquidOptions lo;
  lo.clustering_columns = f.clustering;
  lo.min_cube_size = f.options.min_cube_size;
  lo.target_cube_size = f.options.target_cube_size;
  lo.max_file_size = f.compaction.max_file_size;
  lo.full = full;
  lo.target_size_source = f.compaction.target_size_source;
  return lo;
}

// OPTIMIZE now: the liquid planner on a clustered table, else compaction. A liquid
// planner that reports NotSupported falls back to compaction (noted in the summary).
Status PlanOptimizeNow(Facts* f, Diagnosis* d) {
  std::string note;
  if (!f->clustering.empty() && f->snap->partition_columns().empty()) {
    Result<planner::Plan> p = planner::PlanLiquid(delta::DeltaPolicy(), f->files, LiquidOptionsOf(*f, false), &f->log);
    if (p.ok()) {
      f->plan = std::move(*p);
      f->liquid = true;
    } else if (p.status().IsNotSupported()) {
      note = "liquid clustering planner unavailable (" + p.status().message() + "); compaction shown instead";
    } else {
      return p.status().WithContext(f->snap->table_root());
    }
  }
  if (!f->liquid) {
    Result<planner::Plan> p = planner::PlanCompaction(delta::DeltaPolicy(), f->files, f->compaction, &f->log);
    if (!p.ok()) return p.status().WithContext(f->snap->table_root());
    f->plan = std::move(*p);
    if (!note.empty()) f->log.summary.push_back(note);
  }
  f->plan_outcome = OutcomeOf(f->files, f->plan, f->options);
  OptimizeSummary& s = d->optimize;
  s.mode = std::string(planner::PlanModeName(f->plan.mode));
  s.bins = static_cast<int64_t>(f->plan.bins.size());
  s.input_files = f->plan_outcome.input_files;
  s.input_bytes = f->plan_outcome.bytes_rewritten;
  s.output_files = f->plan_outcome.output_files;
  s.partitions = f->plan.partitions_optimized;
  s.summary = f->log.summary;
  return Status::OK();
}

// ---- auto compaction -------------------------------------------------------------------

// The table switches as append/delete read them; an invalid value (which makes those
// writes warn) counts as disabled here, named by its property.
AutoCompactSwitch TableAutoCompactSwitch(const std::map<std::string, std::string>& props) {
  Result<AutoCompactSwitch> sw = ResolveAutoCompactSwitch(props);
  return sw.ok() ? *sw : AutoCompactSwitch{false, std::string(delta::prop::kAutoCompact.name)};
}

// Runs the auto-compaction planner as if a commit had touched every partition.
Status AutoCompaction(const Facts& f, Diagnosis* d) {
  AutoCompactionStatus& ac = d->auto_compaction;
  AutoCompactSwitch sw = TableAutoCompactSwitch(f.snap->properties());
  ac.enabled = sw.enabled;
  ac.enabled_source = sw.source;
  planner::AutoCompactionOptions ao;
  ao.max_num_partitions = std::numeric_limits<int64_t>::max();
  ac.min_num_files = ao.min_num_files;
  std::vector<planner::PartitionValues> touched;
  for (const auto& [values, p] : f.partitions) touched.push_back(values);
  planner::DecisionLog log;
  Result<planner::Plan> plan = planner::PlanAutoCompaction(delta::DeltaPolicy(), f.files, touched, ao, &log);
  if (!plan.ok()) return plan.status().WithContext(f.snap->table_root());
  int64_t multi_file_partitions = 0;
  for (const planner::PartitionDecision& p : log.partitions) {
    if (p.note.rfind("selected", 0) == 0) ++ac.qualifying_partitions;
    if (p.files > 1) ++multi_file_partitions;
  }
  // Small files per partition by auto compaction's own thresholds: the OPTIMIZE rules
  // it runs, with its minFileSize / maxFileSize (the log counts every partition).
  planner::CompactionOptions rules = f.compaction;
  rules.min_file_size = ao.min_file_size.value_or(ao.max_file_size / 2);
  rules.max_file_size = ao.max_file_size;
  rules.max_deleted_rows_ratio = ao.max_deleted_rows_ratio;
  planner::DecisionLog small_log;
  Result<planner::Plan> small_plan = planner::PlanCompaction(delta::DeltaPolicy(), f.files, rules, &small_log);
  if (!small_plan.ok()) return small_plan.status().WithContext(f.snap->table_root());
  int64_t fullest = 0;
  for (const planner::PartitionDecision& p : small_log.partitions) fullest = std::max(fullest, p.candidates);
  ac.max_candidates_in_a_partition = fullest;
  const std::string small = FormatBytes(ao.max_file_size / 2);
  if (f.files.empty()) {
    ac.reason = "the table has no files";
  } else if (ac.qualifying_partitions > 0) {
    ac.can_trigger = true;
    ac.reason = fmt::format("{} partition(s) hold at least minNumFiles ({}) files below {}; a write there triggers it",
                            ac.qualifying_partitions, ao.min_num_files, small);
  } else if (multi_file_partitions == 0 && f.partitions.size() > 1) {
    ac.reason = fmt::format(
        "every partition holds one file and none is written again, so none can reach minNumFiles ({}) files below {}",
        ao.min_num_files, small);
  } else {
    // Files keep arriving in some partition: it qualifies once enough accumulate.
    ac.can_trigger = true;
    ac.reason = fmt::format(
        "no partition holds minNumFiles ({}) files below {} yet (the fullest has {}); it triggers once one does",
        ao.min_num_files, small, fullest);
  }
  return Status::OK();
}

// ---- clustering ------------------------------------------------------------------------

// ZCUBE_ZORDER_BY is a JSON array of logical names; compare as a list of strings.
bool SameKeys(const std::string& tag, const std::vector<std::string>& columns) {
  if (JsonNestedDeeper(tag)) return false;
  nlohmann::json j = nlohmann::json::parse(tag, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array() || j.size() != columns.size()) return false;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!j[i].is_string() || j[i].get<std::string>() != columns[i]) return false;
  }
  return true;
}

std::string KeysText(const std::vector<std::string>& columns) {
  nlohmann::json j = columns;
  return j.dump();
}

void Clustering(const Facts& f, Diagnosis* d) {
  if (f.clustering.empty()) return;
  ClusteringStatus c;
  c.columns = f.clustering;
  std::map<std::string, int64_t> cube_bytes;  // current-key cubes: logical bytes
  std::set<std::string> stale_keys;
  for (const FileEntry& e : f.files) {
    auto id = e.tags.find(delta::kZCubeIdTag);
    auto by = e.tags.find(delta::kZCubeZOrderByTag);
    const bool foreign_provider = e.clustering_provider && *e.clustering_provider != delta::kLiquidClusteringProvider;
    if (id == e.tags.end()) {
      if (foreign_provider) {
        ++c.stale_files;
        c.stale_bytes += e.size;
        stale_keys.insert("clusteringProvider " + *e.clustering_provider);
      } else {
        ++c.unclustered_files;
        c.unclustered_bytes += e.size;
      }
      continue;
    }
    const std::string keys = by == e.tags.end() ? "" : by->second;
    if (foreign_provider || !SameKeys(keys, f.clustering)) {
      ++c.stale_files;
      c.stale_bytes += e.size;
      stale_keys.insert(keys.empty() ? "(no ZCUBE_ZORDER_BY)" : keys);
      continue;
    }
    cube_bytes[id->second] += planner::EstimatedLogicalSize(e);
  }
  c.stale_keys.assign(stale_keys.begin(), stale_keys.end());
  c.zcubes = static_cast<int64_t>(cube_bytes.size());
  for (const auto& [id, bytes] : cube_bytes) {
    if (bytes >= f.options.min_cube_size) {
      ++c.sealed_zcubes;
      c.sealed_bytes += bytes;
    } else {
      ++c.open_zcubes;
      c.open_bytes += bytes;
    }
  }
  if (!f.liquid) {
    // Without the liquid planner: OPTIMIZE merges open cubes and unclustered files when
    // there is more than one cube's worth of candidates (Delta's single-cube filter).
    const bool merges = c.unclustered_files > 0 || c.open_zcubes >= 2;
    c.projected_nightly_rewrite_bytes = merges ? c.open_bytes + c.unclustered_bytes : 0;
  } else {
    c.projected_nightly_rewrite_bytes = f.plan_outcome.bytes_rewritten;
  }
  d->clustering = std::move(c);
}

// ---- findings --------------------------------------------------------------------------

std::string PartitionColumnsText(const Facts& f) {
  std::string s;
  for (const std::string& c : f.snap->partition_columns()) s += (s.empty() ? "" : ", ") + c;
  return s;
}

// The first top-level timestamp (else date) column that is not a partition column: the
// natural clustering key once the time partitions go.
std::string TimeColumn(const delta::Snapshot& snap) {
  std::string date;
  for (const delta::StructField& field : snap.schema().fields) {
    const auto& parts = snap.partition_columns();
    if (std::find(parts.begin(), parts.end(), field.name) != parts.end()) continue;
    const auto k = field.type.kind;
    if (k == delta::DataType::Kind::kTimestamp || k == delta::DataType::Kind::kTimestampNtz) return field.name;
    if (k == delta::DataType::Kind::kDate && date.empty()) date = field.name;
  }
  return date;
}

// Partitions holding one small file: OPTIMIZE never merges across partitions and never
// rewrites a single file, so these stay small whatever the target or schedule.
void NeverCompact(const Facts& f, const Diagnosis& d, std::vector<RankedFinding>* out) {
  if (f.snap->partition_columns().empty()) return;
  // A lone file counts when it is a compaction candidate and well below the target
  // (under 1/8 of it, 128 MiB by default): larger lone files already read efficiently.
  const int64_t small_enough = f.compaction.max_file_size / 8;
  int64_t lone_small = 0, lone_small_bytes = 0;
  for (const auto& [values, p] : f.partitions) {
    if (p.files == 1 && p.small == 1 && p.bytes < small_enough) {
      ++lone_small;
      lone_small_bytes += p.bytes;
    }
  }
  if (lone_small < 2) return;
  const double share = static_cast<double>(lone_small) / static_cast<double>(std::max<int64_t>(1, d.num_files));
  if (share < 0.25) return;
  RankedFinding r;
  r.rank = kRankNeverCompact;
  Finding& x = r.finding;
  x.code = "partitions_never_compact";
  x.severity = share >= 0.5 ? Severity::kCritical : Severity::kWarning;
  x.title = fmt::format("{} partitions hold a single small file each and can never be compacted", lone_small);
  x.detail = fmt::format(
      "{} of {} partitions ({} of {} files, {}) contain exactly one file, below {} (minFileSize {}); OPTIMIZE only "
      "merges files within a partition and never rewrites a lone file, so no target size or schedule changes "
      "this. The table is partitioned by {} and each partition receives one file; average file size {}.",
      lone_small, d.num_partitions, lone_small, d.num_files, FormatBytes(lone_small_bytes), FormatBytes(small_enough),
      FormatBytes(f.compaction.min_file_size), PartitionColumnsText(f), FormatBytes(d.avg_file_size));
  const std::string time_column = TimeColumn(*f.snap);
  x.recommendation = fmt::format(
      "Partition more coarsely (or not at all) and cluster by {} instead (`lithify create NEW --cluster-by {}`), "
      "then rewrite the data into it; partitions by {} are too fine for the volume written to each",
      time_column.empty() ? "the time column" : time_column, time_column.empty() ? "<column>" : time_column,
      PartitionColumnsText(f));
  x.numbers = {{"single_file_partitions", lone_small},
               {"partitions", d.num_partitions},
               {"files", d.num_files},
               {"bytes", lone_small_bytes},
               {"avg_file_size", d.avg_file_size},
               {"min_file_size", f.compaction.min_file_size}};
  // What-if: the same files without partition values, planned by the real planner --
  // liquid clustering by the time column when there is one (and the planner is
  // available), else compaction.
  std::vector<FileEntry> flat = f.files;
  for (FileEntry& e : flat) e.partition_values.clear();
  std::string clustered;
  Result<planner::Plan> p = Status::NotSupported("no time column");
  if (!time_column.empty()) {
    planner::LiquidOptions lo = LiquidOptionsOf(f, false);
    lo.clustering_columns = {time_column};
    p = planner::PlanLiquid(delta::DeltaPolicy(), flat, lo, nullptr);
    if (p.ok()) clustered = ", clustered by " + time_column;
  }
  if (!p.ok()) p = planner::PlanCompaction(delta::DeltaPolicy(), flat, f.compaction, nullptr);
  if (p.ok() && !p->bins.empty()) {
    Outcome oc = OutcomeOf(flat, *p, f.options);
    x.effect = EffectOf(oc, true,
                        fmt::format("without partition columns{}, OPTIMIZE would turn these {} files into about {} "
                                    "({} rewritten; scan tasks {} -> {})",
                                    clustered, oc.files_before,
                                    oc.files_after, FormatBytes(oc.bytes_rewritten), oc.tasks_before, oc.tasks_after));
  }
  out->push_back(std::move(r));
}

void StaleKeys(const Facts& f, const Diagnosis& d, std::vector<RankedFinding>* out) {
  if (!d.clustering || d.clustering->stale_files == 0) return;
  const ClusteringStatus& c = *d.clustering;
  const double share = static_cast<double>(c.stale_bytes) / static_cast<double>(std::max<int64_t>(1, d.total_bytes));
  RankedFinding r;
  r.rank = kRankStaleKeys;
  Finding& x = r.finding;
  x.code = "stale_clustering_keys";
  x.severity = share >= 0.5 ? Severity::kCritical : share >= 0.1 ? Severity::kWarning : Severity::kInfo;
  std::string keys;
  for (const std::string& k : c.stale_keys) keys += (keys.empty() ? "" : ", ") + k;
  x.title = fmt::format("{} files ({}) are clustered by other keys than the current {}", c.stale_files,
                        FormatBytes(c.stale_bytes), KeysText(c.columns));
  x.detail = fmt::format(
      "{} of {} files ({}, {} of the table) were clustered by {}, but the table is now clustered by {}. "
      "Plain OPTIMIZE skips files built from other clustering keys, so queries filtering on {} cannot skip them.",
      c.stale_files, d.num_files, FormatBytes(c.stale_bytes), Percent(share), keys, KeysText(c.columns),
      KeysText(c.columns));
  x.recommendation =
      "Recluster them with OPTIMIZE FULL (`lithify optimize TABLE --full`), which rewrites files built from other "
      "keys; a nightly plain OPTIMIZE never will";
  x.numbers = {{"stale_files", c.stale_files},
               {"stale_bytes", c.stale_bytes},
               {"files", d.num_files},
               {"bytes", d.total_bytes}};
  x.numbers["stale_keys"] = c.stale_keys;
  x.numbers["clustering_columns"] = c.columns;
  Result<planner::Plan> p = planner::PlanLiquid(delta::DeltaPolicy(), f.files, LiquidOptionsOf(f, true), nullptr);
  if (p.ok() && !p->bins.empty()) {
    Outcome oc = OutcomeOf(f.files, *p, f.options);
    x.effect = EffectOf(oc, false,
                        fmt::format("OPTIMIZE FULL would recluster {} files ({}) into {} by {}", oc.input_files,
                                    FormatBytes(oc.bytes_rewritten), oc.output_files, KeysText(c.columns)));
  }
  out->push_back(std::move(r));
}

void DeletedRows(const Facts& f, const Diagnosis& d, std::vector<RankedFinding>* out) {
  if (d.deleted_rows == 0 || f.physical_rows <= 0) return;
  const double ratio = static_cast<double>(d.deleted_rows) / static_cast<double>(f.physical_rows);
  if (ratio <= f.compaction.max_deleted_rows_ratio) return;
  RankedFinding r;
  r.rank = kRankDeletedRows;
  Finding& x = r.finding;
  x.code = "deleted_rows_awaiting_purge";
  x.severity = ratio >= 0.2 ? Severity::kCritical : Severity::kWarning;
  int64_t dv_bytes = 0, dead_bytes = 0;  // dead: the deleted rows' share of each file
  for (const FileEntry& e : f.files) {
    if (!e.deletion_vector) continue;
    dv_bytes += e.size;
    dead_bytes += e.size - LiveBytes(e);
  }
  x.title = fmt::format("{} of {} rows ({}) are deleted but still stored and read", d.deleted_rows, f.physical_rows,
                        Percent(ratio));
  x.detail = fmt::format(
      "{} files ({}) carry deletion vectors hiding {} rows; every scan still reads about {} of dead rows and "
      "applies the vectors. Above {} deleted rows a file is an OPTIMIZE candidate, but OPTIMIZE skips a file "
      "alone in its bin; REORG PURGE rewrites every file with deleted rows.",
      d.files_with_deletion_vectors, FormatBytes(dv_bytes), d.deleted_rows, FormatBytes(dead_bytes),
      Percent(f.compaction.max_deleted_rows_ratio));
  x.recommendation = "Purge them: `lithify reorg TABLE --purge` (or `lithify optimize TABLE`, which also merges "
                     "small files but leaves a lone file with deleted rows as it is)";
  x.numbers = {{"deleted_rows", d.deleted_rows},
               {"physical_rows", f.physical_rows},
               {"files_with_deletion_vectors", d.files_with_deletion_vectors},
               {"bytes_with_deletion_vectors", dv_bytes},
               {"dead_bytes", dead_bytes}};
  planner::CompactionOptions purge = f.compaction;
  purge.mode = planner::PlanMode::kReorgPurge;
  Result<planner::Plan> p = planner::PlanCompaction(delta::DeltaPolicy(), f.files, purge, nullptr);
  if (p.ok() && !p->bins.empty()) {
    Outcome oc = OutcomeOf(f.files, *p, f.options);
    x.effect = EffectOf(oc, false,
                        fmt::format("REORG PURGE would rewrite {} files ({}) and drop {} deleted rows; files {} -> {}",
                                    oc.input_files, FormatBytes(oc.bytes_rewritten), oc.deleted_rows_purged,
                                    oc.files_before, oc.files_after));
  }
  out->push_back(std::move(r));
}

// Fewer files removed than this is "few small files": not worth a rewrite.
constexpr int64_t kMinFilesWorthCompacting = 10;

// Whether OPTIMIZE now is worth its rewrite: the per-file overhead saved (open cost per
// file removed) against the bytes rewritten, and the scan tasks saved.
void SmallFiles(const Facts& f, const Diagnosis& d, std::vector<RankedFinding>* out) {
  const Outcome& oc = f.plan_outcome;
  if (f.plan.bins.empty()) return;
  const int64_t files_saved = oc.files_before - oc.files_after;
  const int64_t overhead_saved = files_saved * f.options.open_cost_bytes;
  const int64_t tasks_saved = oc.tasks_before - oc.tasks_after;
  const bool worth = files_saved >= kMinFilesWorthCompacting && overhead_saved * 4 >= oc.bytes_rewritten;
  RankedFinding r;
  Finding& x = r.finding;
  x.numbers = {{"files_rewritten", oc.input_files},
               {"bytes_rewritten", oc.bytes_rewritten},
               {"files_saved", files_saved},
               {"overhead_saved_bytes", overhead_saved},
               {"scan_tasks_before", oc.tasks_before},
               {"scan_tasks_after", oc.tasks_after},
               {"target_file_size", d.target_file_size}};
  x.effect = EffectOf(oc, false,
                      fmt::format("OPTIMIZE would rewrite {} files ({}) into {}; files {} -> {}, scan tasks {} -> {}",
                                  oc.input_files, FormatBytes(oc.bytes_rewritten), oc.output_files, oc.files_before,
                                  oc.files_after, oc.tasks_before, oc.tasks_after));
  if (worth) {
    r.rank = kRankSmallFiles;
    x.code = "small_files";
    x.severity = Severity::kWarning;
    x.title = fmt::format("{} small files in {} partition(s) can be rewritten into {}", oc.input_files,
                          std::max<int64_t>(1, f.plan.partitions_optimized), oc.output_files);
    x.detail = fmt::format(
        "average file size {} against a target of {} ({}); OPTIMIZE would remove {} files, saving about {} of "
        "per-file open cost and {} scan tasks for {} rewritten",
        FormatBytes(d.avg_file_size), FormatBytes(d.target_file_size), d.target_size_source, files_saved,
        FormatBytes(overhead_saved), tasks_saved, FormatBytes(oc.bytes_rewritten));
    x.recommendation = f.liquid ? "Run `lithify optimize TABLE`: it clusters them into new ZCubes (try `--dry-run` first)"
                                : "Run `lithify optimize TABLE` (try `--dry-run --explain` first)";
  } else {
    r.rank = kRankNotWorthIt;
    x.code = "compaction_not_worth_it";
    x.severity = Severity::kInfo;
    x.title = fmt::format("OPTIMIZE would rewrite {} to remove only {} files", FormatBytes(oc.bytes_rewritten),
                          files_saved);
    x.detail = files_saved < kMinFilesWorthCompacting
                   ? fmt::format(
                         "merging {} files into {} saves {} scan tasks ({} -> {}) and {} files' open cost: too few "
                         "files for the rewrite to matter (fewer than {} would go)",
                         oc.input_files, oc.output_files, tasks_saved, oc.tasks_before, oc.tasks_after, files_saved,
                         kMinFilesWorthCompacting)
                   : fmt::format(
                         "the {} files it would merge are already large: the open cost saved ({} at {} per file) is "
                         "small against the {} rewritten, and scan tasks go {} -> {}",
                         oc.input_files, FormatBytes(overhead_saved), FormatBytes(f.options.open_cost_bytes),
                         FormatBytes(oc.bytes_rewritten), oc.tasks_before, oc.tasks_after);
    x.recommendation = "Leave the table as it is until more small files accumulate";
  }
  out->push_back(std::move(r));
}

// Bins of the plan in partitions nobody writes to any more whose files are already large
// enough that a scan gives each its own task: rewriting them buys almost nothing.
void OldPartitions(const Facts& f, std::vector<RankedFinding>* out) {
  if (f.plan.bins.empty() || f.snap->partition_columns().empty()) return;
  const int64_t horizon = f.now_ms - f.options.old_partition_age_ms;
  int64_t bins = 0, files = 0, bytes = 0;
  std::set<PartitionValuesT> parts;
  for (const planner::Bin& b : f.plan.bins) {
    auto it = f.partitions.find(b.partition_values);
    if (it == f.partitions.end() || it->second.newest_ms >= horizon) continue;
    const int64_t avg = b.total_bytes / std::max<size_t>(1, b.files.size());
    if (avg * 2 < f.options.max_partition_bytes) continue;
    ++bins;
    files += static_cast<int64_t>(b.files.size());
    bytes += b.total_bytes;
    parts.insert(b.partition_values);
  }
  if (bins == 0) return;
  RankedFinding r;
  r.rank = kRankOldPartitions;
  Finding& x = r.finding;
  x.code = "old_partitions_at_size";
  x.severity = Severity::kInfo;
  x.title = fmt::format("OPTIMIZE would rewrite {} in {} old partitions whose files are already large", FormatBytes(bytes),
                        parts.size());
  x.detail = fmt::format(
      "{} files in {} partitions untouched for {} days average at least {} each; a scan already reads each in about "
      "one task, so merging them saves little against {} rewritten",
      files, parts.size(), f.options.old_partition_age_ms / 86'400'000, FormatBytes(f.options.max_partition_bytes / 2),
      FormatBytes(bytes));
  x.recommendation = "Scope OPTIMIZE to recent partitions with `--where` on the partition columns";
  x.numbers = {{"partitions", static_cast<int64_t>(parts.size())}, {"files", files}, {"bytes", bytes}};
  out->push_back(std::move(r));
}

void DoublesStorage(const Facts& f, const Diagnosis& d, std::vector<RankedFinding>* out) {
  const int64_t bytes = f.plan_outcome.bytes_rewritten;
  if (bytes == 0 || bytes * 10 < d.total_bytes) return;
  RankedFinding r;
  r.rank = kRankDoublesStorage;
  Finding& x = r.finding;
  x.code = "rewrite_doubles_storage";
  x.severity = Severity::kInfo;
  const double days = static_cast<double>(d.vacuum.retention_ms) / 86'400'000.0;
  x.title = fmt::format("a rewrite keeps {} of replaced files on storage for {:g} days", FormatBytes(bytes), days);
  x.detail = fmt::format(
      "the {} OPTIMIZE would replace ({} of the table) stay referenced by the snapshots inside the retention window "
      "(delta.deletedFileRetentionDuration, {:g} days) until VACUUM removes them, so storage grows to about {} "
      "meanwhile",
      FormatBytes(bytes), Percent(static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(1, d.total_bytes))),
      days, FormatBytes(d.total_bytes + bytes));
  x.recommendation = "Budget the extra storage, and run `lithify vacuum TABLE` once the retention has passed";
  x.numbers = {{"bytes_rewritten", bytes},
               {"table_bytes", d.total_bytes},
               {"retention_ms", d.vacuum.retention_ms},
               {"peak_bytes", d.total_bytes + bytes}};
  out->push_back(std::move(r));
}

void AutoCompactionFinding(const Diagnosis& d, std::vector<RankedFinding>* out) {
  const AutoCompactionStatus& ac = d.auto_compaction;
  if (!ac.enabled || ac.can_trigger || d.num_files == 0) return;
  RankedFinding r;
  r.rank = kRankAutoCompaction;
  Finding& x = r.finding;
  x.code = "auto_compaction_never_triggers";
  x.severity = Severity::kWarning;
  x.title = "auto compaction is enabled but can never trigger";
  x.detail = fmt::format("enabled by {}; {}", ac.enabled_source, ac.reason);
  x.recommendation = "Do not rely on auto compaction for this layout; fix the partitioning (see above) or schedule "
                     "`lithify optimize`";
  x.numbers = {{"min_num_files", ac.min_num_files},
               {"max_candidates_in_a_partition", ac.max_candidates_in_a_partition},
               {"partitions", d.num_partitions}};
  out->push_back(std::move(r));
}

void OpenCubes(const Diagnosis& d, std::vector<RankedFinding>* out) {
  if (!d.clustering) return;
  const ClusteringStatus& c = *d.clustering;
  if (c.projected_nightly_rewrite_bytes == 0 && c.unclustered_files == 0) return;
  RankedFinding r;
  r.rank = kRankOpenCubes;
  Finding& x = r.finding;
  x.code = "open_zcubes";
  x.severity = Severity::kInfo;
  x.title = fmt::format("{} open ZCubes and {} unclustered files; a nightly OPTIMIZE rewrites about {}", c.open_zcubes,
                        c.unclustered_files, FormatBytes(c.projected_nightly_rewrite_bytes));
  x.detail = fmt::format(
      "{} ZCubes by {}: {} sealed ({}, at or above the minimum cube size and never rewritten again), {} open ({}); "
      "{} files ({}) are not clustered yet. Each OPTIMIZE merges the open cubes and new files until a cube seals",
      c.zcubes, KeysText(c.columns), c.sealed_zcubes, FormatBytes(c.sealed_bytes), c.open_zcubes,
      FormatBytes(c.open_bytes), c.unclustered_files, FormatBytes(c.unclustered_bytes));
  x.recommendation = "Expect this rewrite on every OPTIMIZE until the open cubes seal; schedule it off-peak";
  x.numbers = {{"zcubes", c.zcubes},
               {"sealed_zcubes", c.sealed_zcubes},
               {"sealed_bytes", c.sealed_bytes},
               {"open_zcubes", c.open_zcubes},
               {"open_bytes", c.open_bytes},
               {"unclustered_files", c.unclustered_files},
               {"unclustered_bytes", c.unclustered_bytes},
               {"projected_nightly_rewrite_bytes", c.projected_nightly_rewrite_bytes}};
  out->push_back(std::move(r));
}

void Tombstones(const Diagnosis& d, std::vector<RankedFinding>* out) {
  const VacuumStatus& v = d.vacuum;
  if (v.tombstones == 0) return;
  RankedFinding r;
  r.rank = kRankTombstones;
  Finding& x = r.finding;
  x.code = "tombstones_awaiting_vacuum";
  x.severity = v.expired_bytes > 0 && v.expired_bytes * 10 >= d.total_bytes ? Severity::kWarning : Severity::kInfo;
  x.title = fmt::format("{} removed files ({}) await VACUUM; {} ({}) are past the retention", v.tombstones,
                        FormatBytes(v.tombstone_bytes), v.expired, FormatBytes(v.expired_bytes));
  x.detail = fmt::format(
      "the log records {} removed files ({}, as recorded) that no longer belong to the current version; {} of them "
      "({}) were removed more than {:g} days ago (delta.deletedFileRetentionDuration), so a VACUUM now {}",
      v.tombstones, FormatBytes(v.tombstone_bytes), v.expired, FormatBytes(v.expired_bytes),
      static_cast<double>(v.retention_ms) / 86'400'000.0,
      v.expired > 0 ? "deletes those that are still on storage" : "deletes none of them");
  x.recommendation = v.expired > 0 ? "Run `lithify vacuum TABLE` (try `--dry-run` first)"
                                   : "Nothing to do yet: they expire after the retention window";
  x.numbers = {{"tombstones", v.tombstones},
               {"tombstone_bytes", v.tombstone_bytes},
               {"expired", v.expired},
               {"expired_bytes", v.expired_bytes},
               {"retention_ms", v.retention_ms}};
  out->push_back(std::move(r));
}

Status TombstoneFacts(const Facts& f, Diagnosis* d) {
  Result<int64_t> retention = delta::TombstoneRetentionMs(f.snap->metadata());
  if (!retention.ok()) return retention.status().WithContext(f.snap->table_root());
  VacuumStatus& v = d->vacuum;
  v.retention_ms = *retention;
  // A remove whose path is still live only retired an older deletion vector of that
  // file: VACUUM keeps the file, so it is not counted. A file removed after DV updates
  // has one tombstone per retired state: counted once, expired when its latest is.
  std::set<std::string_view> live;
  for (const FileEntry& e : f.files) live.insert(e.path);
  struct Removed {
    int64_t size = 0;
    int64_t latest_ms = std::numeric_limits<int64_t>::min();
  };
  std::map<std::string_view, Removed> removed;
  int64_t oldest_ms = std::numeric_limits<int64_t>::max();
  for (const delta::Tombstone& t : f.snap->tombstones()) {
    if (live.count(t.path) > 0) continue;
    Removed& r = removed[t.path];
    r.size = std::max(r.size, t.remove.size.value_or(0));
    r.latest_ms = std::max(r.latest_ms, t.remove.deletion_timestamp.value_or(0));
    oldest_ms = std::min(oldest_ms, r.latest_ms);
  }
  // Files a completed VACUUM already deleted stay in the log as tombstones until a
  // checkpoint drops them: not awaiting VACUUM. Only a VACUUM committed after the oldest
  // removal can have deleted one (an hour of slack for the writers' and the storage's
  // clocks), so the walk back through the commits stops there.
  std::optional<delta::CompletedVacuum> last;
  if (!removed.empty()) {
    constexpr int64_t kClockSlackMs = 3'600'000;
    const int64_t not_before = oldest_ms < std::numeric_limits<int64_t>::min() + kClockSlackMs
                                   ? std::numeric_limits<int64_t>::min()
                                   : oldest_ms - kClockSlackMs;
    LITHIFY_ASSIGN_OR_RETURN(last, delta::FindLastCompletedVacuum(f.fs, f.snap->table_root(), f.snap->version(), not_before));
  }
  if (last) v.last_vacuum_version = last->end_version;
  for (const auto& [path, r] : removed) {
    if (last && r.latest_ms < last->delete_before_ms) {
      ++v.vacuumed;
      v.vacuumed_bytes += r.size;
      continue;
    }
    ++v.tombstones;
    v.tombstone_bytes += r.size;
    if (r.latest_ms + v.retention_ms < f.now_ms) {
      ++v.expired;
      v.expired_bytes += r.size;
    }
  }
  return Status::OK();
}

void Order(std::vector<RankedFinding>* ranked, Diagnosis* d) {
  std::stable_sort(ranked->begin(), ranked->end(), [](const RankedFinding& a, const RankedFinding& b) {
    if (a.finding.severity != b.finding.severity) return a.finding.severity > b.finding.severity;
    return a.rank < b.rank;
  });
  for (RankedFinding& r : *ranked) d->findings.push_back(std::move(r.finding));
}

void Healthy(const Diagnosis& d, std::vector<RankedFinding>* out) {
  for (const RankedFinding& r : *out) {
    if (r.finding.severity != Severity::kInfo) return;
  }
  RankedFinding r;
  r.rank = kRankHealthy;
  Finding& x = r.finding;
  x.code = d.num_files == 0 ? "empty_table" : "healthy_layout";
  x.severity = Severity::kInfo;
  x.title = d.num_files == 0 ? "the table has no data files" : "no layout problem found";
  x.detail = fmt::format("{} files, {} in {} partition(s), average file size {}; target file size {} ({})",
                         d.num_files, FormatBytes(d.total_bytes), d.num_partitions, FormatBytes(d.avg_file_size),
                         FormatBytes(d.target_file_size), d.target_size_source);
  x.recommendation = "Nothing to do";
  x.numbers = {{"files", d.num_files}, {"bytes", d.total_bytes}, {"avg_file_size", d.avg_file_size}};
  out->insert(out->begin(), std::move(r));
}

Status ValidateOptions(const DiagnoseOptions& o) {
  if (o.target_file_size && *o.target_file_size <= 0) {
    return Status::InvalidArgument("diagnose: the target file size must be positive, got {}", *o.target_file_size);
  }
  if (o.min_cube_size <= 0 || o.target_cube_size <= 0) {
    return Status::InvalidArgument("diagnose: cube sizes must be positive, got {} and {}", o.min_cube_size,
                                   o.target_cube_size);
  }
  if (o.open_cost_bytes < 0 || o.max_partition_bytes <= 0) {
    return Status::InvalidArgument("diagnose: openCostInBytes must be >= 0 and maxPartitionBytes > 0, got {} and {}",
                                   o.open_cost_bytes, o.max_partition_bytes);
  }
  if (o.old_partition_age_ms < 0) {
    return Status::InvalidArgument("diagnose: the old-partition age must not be negative, got {}", o.old_partition_age_ms);
  }
  return Status::OK();
}

}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "info";
}

Result<Diagnosis> Diagnose(io::FileSystem* fs, const std::string& root, const DiagnoseOptions& options) {
  LITHIFY_RETURN_NOT_OK(ValidateOptions(options));
  Result<std::shared_ptr<const delta::Snapshot>> loaded = delta::Snapshot::Load(fs, root);
  if (!loaded.ok()) {
    const Status& st = loaded.status();
    return st.message().find(root) != std::string::npos ? st : st.WithContext(root);
  }
  const delta::Snapshot& snap = **loaded;
  Facts f;
  f.fs = fs;
  f.snap = &snap;
  f.options = options;
  f.now_ms = options.now_ms != 0 ? options.now_ms : WallMs();
  f.files.reserve(snap.files().size());
  for (const FileEntry& e : snap.files()) f.files.push_back(Slim(e));
  f.clustering = DottedNames(delta::ClusteringColumnsOf(snap));

  Diagnosis d;
  d.table_root = snap.table_root();
  d.version = snap.version();
  d.partition_columns = snap.partition_columns();
  Layout(&f, &d);
  LITHIFY_RETURN_NOT_OK(ResolveTarget(f, &d, &f.compaction));
  LITHIFY_RETURN_NOT_OK(PlanOptimizeNow(&f, &d));
  CountSmallFiles(&f);
  LITHIFY_RETURN_NOT_OK(AutoCompaction(f, &d));
  Clustering(f, &d);
  LITHIFY_RETURN_NOT_OK(TombstoneFacts(f, &d));

  std::vector<RankedFinding> ranked;
  StaleKeys(f, d, &ranked);
  NeverCompact(f, d, &ranked);
  DeletedRows(f, d, &ranked);
  SmallFiles(f, d, &ranked);
  AutoCompactionFinding(d, &ranked);
  OpenCubes(d, &ranked);
  Tombstones(d, &ranked);
  OldPartitions(f, &ranked);
  DoublesStorage(f, d, &ranked);
  Healthy(d, &ranked);
  Order(&ranked, &d);
  return d;
}

namespace {

J EffectToJson(const FindingEffect& e) {
  J j;
  j["description"] = e.description;
  j["simulated"] = e.simulated;
  j["files_before"] = e.files_before;
  j["files_after"] = e.files_after;
  j["bytes_rewritten"] = e.bytes_rewritten;
  j["scan_tasks_before"] = e.scan_tasks_before;
  j["scan_tasks_after"] = e.scan_tasks_after;
  return j;
}

}  // namespace

nlohmann::ordered_json DiagnosisToJson(const Diagnosis& d) {
  J j;
  j["table"] = d.table_root;
  j["version"] = d.version;
  j["num_files"] = d.num_files;
  j["total_bytes"] = d.total_bytes;
  j["avg_file_size"] = d.avg_file_size;
  j["scan_tasks"] = d.scan_tasks;
  j["partition_columns"] = d.partition_columns;
  j["num_partitions"] = d.num_partitions;
  J hist = J::array();
  for (const PartitionHistogramBucket& b : d.files_per_partition) {
    hist.push_back({{"label", b.label},
                    {"min_files", b.min_files},
                    {"max_files", b.max_files < 0 ? J(nullptr) : J(b.max_files)},
                    {"partitions", b.partitions},
                    {"files", b.files},
                    {"bytes", b.bytes}});
  }
  j["files_per_partition"] = std::move(hist);
  j["partitions_never_compact"] = d.partitions_never_compact;
  j["target_file_size"] = d.target_file_size;
  j["target_size_source"] = d.target_size_source;
  j["optimize"] = {{"mode", d.optimize.mode},
                   {"bins", d.optimize.bins},
                   {"input_files", d.optimize.input_files},
                   {"input_bytes", d.optimize.input_bytes},
                   {"output_files", d.optimize.output_files},
                   {"partitions", d.optimize.partitions},
                   {"summary", d.optimize.summary}};
  const AutoCompactionStatus& ac = d.auto_compaction;
  j["auto_compaction"] = {{"enabled", ac.enabled},
                          {"enabled_source", ac.enabled_source},
                          {"can_trigger", ac.can_trigger},
                          {"qualifying_partitions", ac.qualifying_partitions},
                          {"min_num_files", ac.min_num_files},
                          {"max_candidates_in_a_partition", ac.max_candidates_in_a_partition},
                          {"reason", ac.reason}};
  if (d.clustering) {
    const ClusteringStatus& c = *d.clustering;
    j["clustering"] = {{"columns", c.columns},
                       {"zcubes", c.zcubes},
                       {"sealed_zcubes", c.sealed_zcubes},
                       {"sealed_bytes", c.sealed_bytes},
                       {"open_zcubes", c.open_zcubes},
                       {"open_bytes", c.open_bytes},
                       {"stale_files", c.stale_files},
                       {"stale_bytes", c.stale_bytes},
                       {"stale_keys", c.stale_keys},
                       {"unclustered_files", c.unclustered_files},
                       {"unclustered_bytes", c.unclustered_bytes},
                       {"projected_nightly_rewrite_bytes", c.projected_nightly_rewrite_bytes}};
  } else {
    j["clustering"] = nullptr;
  }
  j["vacuum"] = {{"tombstones", d.vacuum.tombstones},
                 {"tombstone_bytes", d.vacuum.tombstone_bytes},
                 {"expired", d.vacuum.expired},
                 {"expired_bytes", d.vacuum.expired_bytes},
                 {"retention_ms", d.vacuum.retention_ms},
                 {"vacuumed", d.vacuum.vacuumed},
                 {"vacuumed_bytes", d.vacuum.vacuumed_bytes},
                 {"last_vacuum_version", d.vacuum.last_vacuum_version ? J(*d.vacuum.last_vacuum_version) : J(nullptr)}};
  j["files_with_deletion_vectors"] = d.files_with_deletion_vectors;
  j["deleted_rows"] = d.deleted_rows;
  J findings = J::array();
  for (const Finding& x : d.findings) {
    J fj;
    fj["code"] = x.code;
    fj["severity"] = SeverityName(x.severity);
    fj["title"] = x.title;
    fj["detail"] = x.detail;
    fj["recommendation"] = x.recommendation;
    fj["effect"] = x.effect ? EffectToJson(*x.effect) : J(nullptr);
    fj["numbers"] = x.numbers;
    findings.push_back(std::move(fj));
  }
  j["findings"] = std::move(findings);
  return j;
}

}  // namespace lithify::delta
