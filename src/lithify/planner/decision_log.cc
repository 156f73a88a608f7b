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
              {"reason", log.FileReason(f)}};
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
    case FileVerdict::kCandidate:
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
  out.push_back(fmt::format(
      "{}: minFileSize {}, target (maxFileSize) {}{}, maxDeletedRowsRatio {}, scope: {}",
      PlanModeName(mode), FormatBytes(min_file_size), FormatBytes(max_file_size),
      target_size_source.empty() ? "" : " from " + target_size_source,
      Percent(max_deleted_rows_ratio), ScopeLabel(scope_description)));
  for (const std::string& s : summary) out.push_back("summary: " + s);

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

nlohmann::json DecisionLog::ToJson() const {
  Json jfiles = Json::array();
  for (const FileDecision& f : files) jfiles.push_back(FileJson(*this, f));
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
  return Json{{"mode", PlanModeName(mode)},
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
