#include "lithify/planner/decision_log.h"

#include <fmt/format.h>

#include <algorithm>

namespace lithify::planner {

namespace {

using Json = nlohmann::json;

std::string Percent(double ratio) { return fmt::format("{:.1f}%", ratio * 100.0); }

std::optional<double> DeletedRatio(const FileDecision& f) {
  if (!f.num_records) return std::nullopt;
  // Same arithmetic as Delta (double division): 0 physical rows with deletions is +inf.
  return static_cast<double>(f.deleted_rows) / static_cast<double>(*f.num_records);
}

std::string PartitionLabel(const std::string& p) {
  return p.empty() ? std::string("(unpartitioned table)") : p;
}

std::string ScopeLabel(const std::string& scope) {
  return scope.empty() ? std::string("the whole table") : scope;
}

// The facts Summarize reasons over, gathered in one pass.
struct Facts {
  int64_t files = 0, in_scope = 0, candidates = 0, dv_only_singletons = 0;
  int64_t partitions_in_scope = 0, partitions_with_candidates = 0;
  int64_t single_candidate_partitions = 0, single_file_partitions = 0;
  int64_t bins_kept = 0, bins_dropped = 0, files_kept = 0, bytes_kept = 0;
  int64_t partitions_kept = 0, smallest_candidate = -1, selected_partitions = 0;
};

Facts Gather(const DecisionLog& log) {
  Facts f;
  f.files = static_cast<int64_t>(log.files.size());
  for (const FileDecision& d : log.files) {
    if (d.verdict == FileVerdict::kOutsidePredicate ||
        d.verdict == FileVerdict::kPartitionNotSelected) {
      continue;
    }
    ++f.in_scope;
    if (d.verdict != FileVerdict::kCandidate) continue;
    ++f.candidates;
    if (f.smallest_candidate < 0 || d.size < f.smallest_candidate) f.smallest_candidate = d.size;
    const BinDecision* b = d.bin >= 0 ? &log.bins[d.bin] : nullptr;
    if (log.mode == PlanMode::kCompaction && b != nullptr && !b->kept && b->files == 1 &&
        d.size >= log.min_file_size) {
      ++f.dv_only_singletons;
    }
  }
  for (const PartitionDecision& p : log.partitions) {
    if (p.files == 0) continue;
    ++f.partitions_in_scope;
    if (p.candidates > 0) ++f.partitions_with_candidates;
    if (p.candidates == 1) ++f.single_candidate_partitions;
    if (p.files == 1) ++f.single_file_partitions;
    if (p.bins_kept > 0) ++f.partitions_kept;
    if (p.note.rfind("selected", 0) == 0) ++f.selected_partitions;
  }
  for (const BinDecision& b : log.bins) {
    if (!b.kept) { ++f.bins_dropped; continue; }
    ++f.bins_kept;
    f.files_kept += b.files;
    f.bytes_kept += b.bytes;
  }
  return f;
}

// Why nothing can be compacted, in the order a data engineer would check it.
std::string StructuralCause(const DecisionLog& log, const Facts& f) {
  if (f.files == 0) return "the table has no data files";
  if (log.mode == PlanMode::kAutoCompaction && f.selected_partitions == 0) {
    return fmt::format(
        "no partition the commit touched holds at least minNumFiles ({}) small files; "
        "auto compaction waits until one does",
        log.min_num_files);
  }
  if (f.in_scope == 0) {
    return fmt::format("the predicate {} matched none of the {} files", log.scope_description,
                       f.files);
  }
  if (f.candidates == 0) {
    if (log.mode == PlanMode::kReorgPurge) {
      return fmt::format("none of the {} files has deleted rows; there is nothing to purge",
                         f.in_scope);
    }
    return fmt::format(
        "no file qualifies: all {} files are at least minFileSize ({}) and none has more than "
        "{} deleted rows",
        f.in_scope, FormatBytes(log.min_file_size), Percent(log.max_deleted_rows_ratio));
  }
  if (f.single_candidate_partitions == f.partitions_with_candidates) {
    if (f.single_file_partitions == f.partitions_in_scope) {
      return fmt::format(
          "every partition receives at most one file; no target size or schedule changes "
          "this ({} partitions, 1 file each)",
          f.partitions_in_scope);
    }
    return fmt::format(
        "every partition has at most one file below minFileSize ({}; {} partitions with one "
        "each); its other files are already large, so there is nothing to combine it with",
        FormatBytes(log.min_file_size), f.partitions_with_candidates);
  }
  if (f.smallest_candidate * 2 > log.max_file_size) {
    return fmt::format(
        "every candidate is larger than half the target ({}; the smallest is {}), so no two "
        "fit in one bin and a single file is never rewritten",
        FormatBytes(log.max_file_size), FormatBytes(f.smallest_candidate));
  }
  return fmt::format(
      "every bin holds a single file: within each partition no two candidates fit together "
      "under the target ({})",
      FormatBytes(log.max_file_size));
}

std::string FileLine(const DecisionLog& log, const FileDecision& f) {
  return fmt::format("    {} {}: {}", f.path, FormatBytes(f.size), log.FileReason(f));
}

Json FileJson(const DecisionLog& log, const FileDecision& f) {
  return Json{{"path", f.path},
              {"size", f.size},
              {"num_records", f.num_records ? Json(*f.num_records) : Json(nullptr)},
              {"deleted_rows", f.deleted_rows},
              {"has_deletion_vector", f.has_deletion_vector},
              {"partition", f.partition >= 0 ? Json(log.partitions[f.partition].partition)
                                             : Json(nullptr)},
              {"verdict", FileVerdictName(f.verdict)},
              {"bin", f.bin},
              {"cube", f.cube},
              {"reason", log.FileReason(f)}};
}

bool IsClusteringMode(PlanMode mode) {
  return mode == PlanMode::kZOrder || mode == PlanMode::kLiquid;
}

std::string Columns(const std::vector<std::string>& columns) {
  return fmt::format("{}", fmt::join(columns, ", "));
}

std::string CubeLabel(const CubeDecision& c) {
  return fmt::format("ZCube {} ({} files, {}, estimated {})", c.id, c.files, FormatBytes(c.bytes),
                     FormatBytes(c.estimated_bytes));
}

// The reason for a verdict of the multi-dimensional modes, naming the cube and the rule.
std::string ClusteringFileReason(const DecisionLog& log, const FileDecision& f) {
  const CubeDecision* c = f.cube >= 0 ? &log.cubes[f.cube] : nullptr;
  switch (f.verdict) {
    case FileVerdict::kSealedCube:
      return fmt::format("sealed: its {} has reached minCubeSize {}; it is complete and left as is",
                         c != nullptr ? CubeLabel(*c) : std::string("ZCube"),
                         FormatBytes(log.min_cube_size));
    case FileVerdict::kOtherClusteringKeys:
      return fmt::format(
          "built from other clustering columns {} (the table is clustered by ({})); left as is, "
          "OPTIMIZE FULL reclusters it",
          c != nullptr ? c->zorder_by : std::string("?"), Columns(log.columns));
    case FileVerdict::kOtherProvider:
      return "written by another clustering provider (clusteringProvider is not \"liquid\"); "
             "left as is";
    case FileVerdict::kLoneCube:
      return fmt::format(
          "lone cube: its {} is the only unsealed cube and no other file is waiting to be "
          "clustered, so there is nothing to merge it with",
          c != nullptr ? CubeLabel(*c) : std::string("ZCube"));
    default:
      break;
  }
  // Candidates.
  std::string why;
  if (log.mode == PlanMode::kZOrder) {
    why = "Z-order rewrites every file of its partition";
  } else if (c == nullptr) {
    why = "not in any ZCube yet";
  } else if (!c->matching) {
    why = fmt::format("built from other clustering columns {}, reclustered by OPTIMIZE FULL",
                      c->zorder_by);
  } else {
    why = fmt::format("its {} is below minCubeSize {}", CubeLabel(*c),
                      FormatBytes(log.min_cube_size));
  }
  std::string text = "candidate: " + why;
  if (f.bin >= 0) text += fmt::format("; bin {} (kept)", log.bins[f.bin].id);
  return text;
}

// Counts of the multi-dimensional modes' verdicts.
struct ClusterFacts {
  int64_t files = 0, in_scope = 0, candidates = 0, sealed = 0, other_keys = 0,
          other_provider = 0, lone = 0;
  int64_t sealed_cubes = 0, bins = 0, bin_files = 0, bin_bytes = 0, output_files = 0;
};

ClusterFacts GatherClustering(const DecisionLog& log) {
  ClusterFacts f;
  f.files = static_cast<int64_t>(log.files.size());
  for (const FileDecision& d : log.files) {
    switch (d.verdict) {
      case FileVerdict::kOutsidePredicate: continue;
      case FileVerdict::kCandidate: ++f.candidates; break;
      case FileVerdict::kSealedCube: ++f.sealed; break;
      case FileVerdict::kOtherClusteringKeys: ++f.other_keys; break;
      case FileVerdict::kOtherProvider: ++f.other_provider; break;
      case FileVerdict::kLoneCube: ++f.lone; break;
      default: break;
    }
    ++f.in_scope;
  }
  for (const CubeDecision& c : log.cubes) f.sealed_cubes += c.sealed;
  for (const BinDecision& b : log.bins) {
    if (!b.kept) continue;
    ++f.bins;
    f.bin_files += b.files;
    f.bin_bytes += b.bytes;
  }
  return f;
}

// Why a liquid plan is empty, from the verdicts.
std::string LiquidCause(const DecisionLog& log, const ClusterFacts& f) {
  if (f.files == 0) return "the table has no data files";
  const CubeDecision* lone = nullptr;
  for (const FileDecision& d : log.files) {
    if (d.verdict == FileVerdict::kLoneCube && d.cube >= 0) lone = &log.cubes[d.cube];
  }
  std::vector<std::string> others;
  if (f.sealed > 0) {
    others.push_back(fmt::format("{} files in {} sealed ZCubes (>= minCubeSize {})", f.sealed,
                                 f.sealed_cubes, FormatBytes(log.min_cube_size)));
  }
  if (f.other_keys > 0) {
    others.push_back(fmt::format(
        "{} files built from other clustering columns (OPTIMIZE FULL reclusters them)",
        f.other_keys));
  }
  if (f.other_provider > 0) {
    others.push_back(fmt::format("{} files of another clustering provider", f.other_provider));
  }
  const std::string rest = others.empty() ? "" : fmt::format("; the rest is {}", fmt::join(others, ", "));
  if (lone != nullptr) {
    return fmt::format(
        "the only unsealed cube has no new files to merge with: {} stays as it is until new "
        "data arrives{}",
        CubeLabel(*lone), rest);
  }
  if (f.sealed == f.in_scope) {
    return fmt::format(
        "every remaining file belongs to a sealed ZCube (>= minCubeSize {}; {} files in {} "
        "cubes); nothing to cluster",
        FormatBytes(log.min_cube_size), f.sealed, f.sealed_cubes);
  }
  if (others.empty()) return "no file is left to cluster";
  return fmt::format("every file stays as it is: {}", fmt::join(others, ", "));
}

void SummarizeClustering(DecisionLog& log) {
  const ClusterFacts f = GatherClustering(log);
  log.summary.clear();
  log.summary.push_back(fmt::format("considered {} of {} files in {} partitions (scope: {})",
                                    f.in_scope, f.files, log.partitions.size(),
                                    ScopeLabel(log.scope_description)));
  if (log.mode == PlanMode::kZOrder) {
    log.summary.push_back(fmt::format(
        "{} files ({}) in {} partitions are rewritten in Z-order by ({}); one bin per partition",
        f.bin_files, FormatBytes(f.bin_bytes), f.bins, Columns(log.columns)));
    if (f.bins == 0) {
      log.summary.push_back(
          "nothing to cluster: " +
          (f.files == 0 ? std::string("the table has no data files")
                        : fmt::format("the predicate {} matched none of the {} files",
                                      log.scope_description, f.files)));
    }
    return;
  }
  log.summary.push_back(fmt::format(
      "{} candidate files become {} new ZCubes ({} files, {}); left as is: {} in sealed cubes, "
      "{} built from other clustering columns, {} of another provider, {} in a lone cube",
      f.candidates, f.bins, f.bin_files, FormatBytes(f.bin_bytes), f.sealed, f.other_keys,
      f.other_provider, f.lone));
  if (f.bins == 0) {
    log.summary.push_back("nothing to cluster: " + LiquidCause(log, f));
  } else if (f.other_keys > 0 && !log.full) {
    log.summary.push_back(fmt::format(
        "{} files built from other clustering columns are left as is; OPTIMIZE FULL "
        "reclusters them",
        f.other_keys));
  }
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024 && bytes > -1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while ((v >= 1024.0 || v <= -1024.0) && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", v, kUnits[unit]);
}

std::string_view FileVerdictName(FileVerdict v) {
  switch (v) {
    case FileVerdict::kCandidate: return "candidate";
    case FileVerdict::kTooLarge: return "too_large";
    case FileVerdict::kTooFewDeletedRows: return "too_few_deleted_rows";
    case FileVerdict::kNoDeletedRows: return "no_deleted_rows";
    case FileVerdict::kOutsidePredicate: return "outside_predicate";
    case FileVerdict::kPartitionNotSelected: return "partition_not_selected";
    case FileVerdict::kSealedCube: return "sealed_cube";
    case FileVerdict::kOtherClusteringKeys: return "other_clustering_keys";
    case FileVerdict::kOtherProvider: return "other_provider";
    case FileVerdict::kLoneCube: return "lone_cube";
  }
  return "unknown";
}

std::string DecisionLog::FileReason(const FileDecision& f) const {
  const std::optional<double> ratio = DeletedRatio(f);
  switch (f.verdict) {
    case FileVerdict::kTooLarge:
      return fmt::format("too large: {} >= minFileSize {}", FormatBytes(f.size),
                         FormatBytes(min_file_size));
    case FileVerdict::kTooFewDeletedRows:
      return fmt::format("too few deleted rows: {} deleted ({} <= {}) and {} >= minFileSize {}",
                         f.deleted_rows, Percent(ratio.value_or(0)),
                         Percent(max_deleted_rows_ratio), FormatBytes(f.size),
                         FormatBytes(min_file_size));
    case FileVerdict::kNoDeletedRows:
      return "no deleted rows to purge";
    case FileVerdict::kOutsidePredicate:
      return fmt::format("outside the predicate {}", scope_description);
    case FileVerdict::kPartitionNotSelected:
      return fmt::format("partition not auto-compacted: {}",
                         f.partition >= 0 ? partitions[f.partition].note : std::string());
    case FileVerdict::kSealedCube:
    case FileVerdict::kOtherClusteringKeys:
    case FileVerdict::kOtherProvider:
    case FileVerdict::kLoneCube:
      return ClusteringFileReason(*this, f);
    case FileVerdict::kCandidate:
      if (IsClusteringMode(mode)) return ClusteringFileReason(*this, f);
      break;
  }
  std::vector<std::string> why;
  if (f.forced) why.push_back("rewrite requested by the caller");
  if (f.size < min_file_size) {
    why.push_back(fmt::format("{} < minFileSize {}", FormatBytes(f.size),
                              FormatBytes(min_file_size)));
  }
  if (f.has_deletion_vector && !f.num_records) {
    why.push_back("deletion vector without numRecords");
  } else if (ratio && *ratio > max_deleted_rows_ratio) {
    why.push_back(fmt::format("{} deleted rows ({} > {})", f.deleted_rows, Percent(*ratio),
                              Percent(max_deleted_rows_ratio)));
  }
  std::string text = fmt::format("candidate: {}", fmt::join(why, ", "));
  if (f.bin >= 0) {
    const BinDecision& b = bins[f.bin];
    text += b.kept ? fmt::format("; bin {} (kept)", b.id)
                   : fmt::format("; bin {} dropped: {}", b.id, b.reason);
  }
  return text;
}

void DecisionLog::Summarize() {
  if (IsClusteringMode(mode)) {
    SummarizeClustering(*this);
    return;
  }
  const Facts f = Gather(*this);
  summary.clear();
  summary.push_back(fmt::format("considered {} of {} files in {} partitions (scope: {})",
                                f.in_scope, f.files, f.partitions_in_scope,
                                ScopeLabel(scope_description)));
  summary.push_back(fmt::format(
      "{} candidates; {} bins kept ({} files, {}) in {} partitions; {} bins dropped; {} files "
      "skipped",
      f.candidates, f.bins_kept, f.files_kept, FormatBytes(f.bytes_kept), f.partitions_kept,
      f.bins_dropped, f.in_scope - f.files_kept));
  if (f.bins_kept == 0) summary.push_back("nothing to compact: " + StructuralCause(*this, f));
  if (f.dv_only_singletons > 0) {
    summary.push_back(fmt::format(
        "{} files qualify only for their deleted rows but sit alone in their bins; OPTIMIZE "
        "never rewrites a single file, REORG TABLE ... APPLY (PURGE) does",
        f.dv_only_singletons));
  }
}

std::vector<std::string> DecisionLog::ToText(int max_files_per_partition) const {
  std::vector<std::string> out;
  const std::string source = target_size_source.empty() ? "" : " from " + target_size_source;
  if (mode == PlanMode::kZOrder) {
    out.push_back(fmt::format("zorder by ({}): output file size (maxFileSize) {}{}, scope: {}",
                              Columns(columns), FormatBytes(max_file_size), source,
                              ScopeLabel(scope_description)));
  } else if (mode == PlanMode::kLiquid) {
    out.push_back(fmt::format(
        "liquid clustering by ({}){}: minCubeSize {}, target cube size {}, output file size "
        "(maxFileSize) {}{}",
        Columns(columns), full ? " FULL" : "", FormatBytes(min_cube_size),
        FormatBytes(target_cube_size), FormatBytes(max_file_size), source));
  } else {
    out.push_back(fmt::format(
        "{}: minFileSize {}, target (maxFileSize) {}{}, maxDeletedRowsRatio {}, scope: {}",
        PlanModeName(mode), FormatBytes(min_file_size), FormatBytes(max_file_size), source,
        Percent(max_deleted_rows_ratio), ScopeLabel(scope_description)));
  }
  for (const std::string& s : summary) out.push_back("summary: " + s);
  const size_t cube_limit = max_files_per_partition < 0
                                ? cubes.size()
                                : std::min(cubes.size(), static_cast<size_t>(max_files_per_partition));
  for (size_t i = 0; i < cube_limit; ++i) {
    const CubeDecision& c = cubes[i];
    out.push_back(fmt::format("cube {}: {} files, {} (estimated {}), by {}: {}", c.id, c.files,
                              FormatBytes(c.bytes), FormatBytes(c.estimated_bytes), c.zorder_by,
                              !c.matching ? "other clustering columns"
                              : c.sealed  ? "sealed"
                                          : "below minCubeSize"));
  }
  if (cube_limit < cubes.size()) out.push_back(fmt::format("... {} more cubes", cubes.size() - cube_limit));

  std::vector<std::vector<int>> by_partition(partitions.size());
  std::vector<int> outside;
  for (size_t i = 0; i < files.size(); ++i) {
    const int p = files[i].partition;
    (p >= 0 ? by_partition[p] : outside).push_back(static_cast<int>(i));
  }
  auto list_files = [&](const std::vector<int>& idx) {
    const size_t limit = max_files_per_partition < 0
                             ? idx.size()
                             : std::min(idx.size(), static_cast<size_t>(max_files_per_partition));
    for (size_t i = 0; i < limit; ++i) out.push_back(FileLine(*this, files[idx[i]]));
    if (limit < idx.size()) out.push_back(fmt::format("    ... {} more files", idx.size() - limit));
  };
  for (size_t p = 0; p < partitions.size(); ++p) {
    const PartitionDecision& pd = partitions[p];
    out.push_back(fmt::format("partition {}: {} files, {} candidates, {} bins kept, {} dropped{}",
                              PartitionLabel(pd.partition), pd.files, pd.candidates,
                              pd.bins_kept, pd.bins_dropped,
                              pd.note.empty() ? "" : " (" + pd.note + ")"));
    for (int b : pd.bins) {
      const BinDecision& bd = bins[b];
      out.push_back(fmt::format("  bin {}: {} files, {}: {}: {}", bd.id, bd.files,
                                FormatBytes(bd.bytes), bd.kept ? "kept" : "dropped", bd.reason));
    }
    list_files(by_partition[p]);
  }
  if (!outside.empty()) {
    out.push_back(fmt::format("outside the predicate {}: {} files", scope_description,
                              outside.size()));
    list_files(outside);
  }
  return out;
}

nlohmann::json DecisionLog::FileToJson(size_t i) const { return FileJson(*this, files[i]); }

nlohmann::json DecisionLog::ToJson(std::string_view files_placeholder) const {
  Json jfiles = Json::array();
  if (!files_placeholder.empty()) {
    jfiles = std::string(files_placeholder);
  } else {
    for (const FileDecision& f : files) jfiles.push_back(FileJson(*this, f));
  }
  Json jparts = Json::array();
  for (const PartitionDecision& p : partitions) {
    jparts.push_back(Json{{"partition", p.partition},
                          {"files", p.files},
                          {"candidates", p.candidates},
                          {"candidate_bytes", p.candidate_bytes},
                          {"bins", p.bins},
                          {"bins_kept", p.bins_kept},
                          {"bins_dropped", p.bins_dropped},
                          {"note", p.note}});
  }
  Json jbins = Json::array();
  for (const BinDecision& b : bins) {
    jbins.push_back(Json{{"id", b.id},
                         {"plan_bin_id", b.plan_bin_id},
                         {"partition", partitions[b.partition].partition},
                         {"files", b.files},
                         {"bytes", b.bytes},
                         {"kept", b.kept},
                         {"reason", b.reason}});
  }
  Json jcubes = Json::array();
  for (const CubeDecision& c : cubes) {
    jcubes.push_back(Json{{"id", c.id},
                          {"zorder_by", c.zorder_by},
                          {"matching", c.matching},
                          {"files", c.files},
                          {"bytes", c.bytes},
                          {"estimated_bytes", c.estimated_bytes},
                          {"sealed", c.sealed}});
  }
  return Json{{"mode", PlanModeName(mode)},
              {"columns", columns},
              {"min_cube_size", min_cube_size},
              {"target_cube_size", target_cube_size},
              {"full", full},
              {"cubes", std::move(jcubes)},
              {"min_file_size", min_file_size},
              {"max_file_size", max_file_size},
              {"max_deleted_rows_ratio", max_deleted_rows_ratio},
              {"target_size_source", target_size_source},
              {"scope", scope_description},
              {"summary", summary},
              {"partitions", std::move(jparts)},
              {"bins", std::move(jbins)},
              {"files", std::move(jfiles)}};
}

}  // namespace lithify::planner
