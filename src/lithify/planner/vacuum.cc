#include "lithify/planner/vacuum.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/planner/policy.h"

namespace lithify::planner {

namespace {

using PathSet = std::unordered_set<std::string_view>;

std::string_view Normalize(std::string_view p) {
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  return p;
}

// Calls fn on every proper ancestor directory of `path` ("a/b/c" -> "a/b", "a").
template <typename Fn>
void ForEachAncestor(std::string_view path, Fn&& fn) {
  for (size_t pos = path.rfind('/'); pos != std::string_view::npos && pos > 0;
       pos = path.rfind('/', pos - 1)) {
    fn(path.substr(0, pos));
  }
}

bool IsHiddenPath(std::string_view path, const TablePolicy& policy, const VacuumOptions& o) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (policy.IsHiddenName(path.substr(start, end - start), o.partition_columns)) return true;
    start = end + 1;
  }
  return false;
}

// The valid set plus what explains a deletion (expired tombstones and their DVs).
struct Snapshot {
  PathSet valid;
  std::unordered_map<std::string_view, VacuumReason> expired;
};

void Protect(PathSet& valid, std::string_view path) {
  path = Normalize(path);
  if (path.empty()) return;
  valid.insert(path);
  ForEachAncestor(path, [&](std::string_view dir) { valid.insert(dir); });
}

Snapshot BuildSnapshot(const std::vector<LiveFile>& live, const std::vector<Tombstone>& tombstones,
                       int64_t delete_before_ms) {
  Snapshot s;
  s.valid.reserve(live.size() * 2 + tombstones.size());
  for (const LiveFile& f : live) {
    Protect(s.valid, f.path);
    Protect(s.valid, f.dv_path);
  }
  for (const Tombstone& t : tombstones) {
    if (t.deletion_timestamp_ms >= delete_before_ms) {
      Protect(s.valid, t.path);
      Protect(s.valid, t.dv_path);
    } else {
      s.expired.emplace(Normalize(t.path), VacuumReason::kExpiredTombstone);
      if (!t.dv_path.empty()) {
        s.expired.emplace(Normalize(t.dv_path), VacuumReason::kExpiredDeletionVector);
      }
    }
  }
  return s;
}

Result<VacuumPlan> StartPlan(const TablePolicy& policy, const VacuumOptions& o) {
  LITHIFY_RETURN_NOT_OK(policy.CheckVacuumRetention(o));
  VacuumPlan plan;
  plan.retention_ms = o.retention_ms.value_or(o.table_retention_ms);
  plan.delete_before_ms = o.now_ms - plan.retention_ms;
  return plan;
}

constexpr size_t kForeignExamples = 5;

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// A canonical UUID (8-4-4-4-12 hex digits) anywhere in `name`.
bool ContainsUuid(std::string_view name) {
  constexpr size_t kLen = 36;
  for (size_t i = 0; i + kLen <= name.size(); ++i) {
    bool ok = true;
    for (size_t k = 0; k < kLen && ok; ++k) {
      const char c = name[i + k];
      ok = (k == 8 || k == 13 || k == 18 || k == 23) ? c == '-' : IsHex(c);
    }
    if (ok) return true;
  }
  return false;
}

// Decides one non-hidden file: protected, too young, or deleted (with the reason).
// `listed`: it comes from a listing (FULL), so an untracked file may be foreign; LITE
// candidates come from the log and were all referenced once.
void DecideFile(const ListedEntry& e, std::string_view path, const Snapshot& s, bool listed, VacuumPlan& plan) {
  if (s.valid.contains(path)) {
    ++plan.files_protected;
  } else if (e.modification_time_ms >= plan.delete_before_ms) {
    ++plan.files_too_young;
  } else {
    auto it = s.expired.find(path);
    VacuumReason reason = it == s.expired.end() ? VacuumReason::kUntrackedFile : it->second;
    if (e.is_temporary) {
      reason = VacuumReason::kAbandonedTemporary;
      ++plan.temporaries_to_delete;
      plan.temporary_bytes_to_delete += e.size;
    } else if (listed && reason == VacuumReason::kUntrackedFile && !LooksLikeTableWriterFile(path)) {
      ++plan.foreign_files;
      plan.foreign_bytes += e.size;
      if (plan.foreign_examples.size() < kForeignExamples) plan.foreign_examples.emplace_back(path);
    }
    plan.deletions.push_back(VacuumDeletion{std::string(path), false, e.size, reason});
    ++plan.files_to_delete;
    plan.bytes_to_delete += e.size;
  }
}

// The directory part of `path` ("" for a file at the root).
std::string_view DirectoryOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

size_t Depth(std::string_view p) { return static_cast<size_t>(std::count(p.begin(), p.end(), '/')); }

struct ListedDir {
  std::string_view path;
  int64_t modification_time_ms;
};

void DecideDirectories(const std::vector<ListedDir>& dirs, const PathSet& valid, const PathSet& non_empty,
                       VacuumPlan& plan) {
  std::vector<std::string_view> empty;
  for (const auto& [d, mtime] : dirs) {
    // A directory changed within the retention window may be one a writer just made
    // for the file it is about to put there: kept, like a young file.
    if (valid.contains(d) || non_empty.contains(d) || mtime >= plan.delete_before_ms) {
      ++plan.dirs_kept;
    } else {
      empty.push_back(d);
    }
  }
  std::stable_sort(empty.begin(), empty.end(),
                   [](std::string_view a, std::string_view b) { return Depth(a) > Depth(b); });
  for (std::string_view d : empty) {
    plan.deletions.push_back(VacuumDeletion{std::string(d), true, 0, VacuumReason::kEmptyDirectory});
    ++plan.dirs_to_delete;
  }
}

}  // namespace

std::string_view VacuumReasonName(VacuumReason r) {
  switch (r) {
    case VacuumReason::kUntrackedFile: return "untracked_file";
    case VacuumReason::kExpiredTombstone: return "expired_tombstone";
    case VacuumReason::kExpiredDeletionVector: return "expired_deletion_vector";
    case VacuumReason::kEmptyDirectory: return "empty_directory";
    case VacuumReason::kAbandonedTemporary: return "abandoned_temporary";
  }
  return "unknown";
}

Status CheckVacuumRetention(const TablePolicy& policy, const VacuumOptions& o) {
  return policy.CheckVacuumRetention(o);
}

Result<VacuumPlan> PlanVacuum(const TablePolicy& policy, const std::vector<ListedEntry>& listing,
                              const std::vector<LiveFile>& live,
                              const std::vector<Tombstone>& tombstones,
                              const VacuumOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(VacuumPlan plan, StartPlan(policy, options));
  const Snapshot snap = BuildSnapshot(live, tombstones, plan.delete_before_ms);
  PathSet non_empty;  // directories with at least one listed file beneath them
  std::vector<ListedDir> dirs;
  for (const ListedEntry& e : listing) {
    const std::string_view path = Normalize(e.path);
    if (path.empty()) continue;
    // A temporary's own name is dot-prefixed; only the directories above it count.
    if (IsHiddenPath(e.is_temporary && !e.is_dir ? DirectoryOf(path) : path, policy, options)) {
      ++plan.entries_hidden;
      // A hidden subdirectory is never deleted, so it keeps its parents too.
      ForEachAncestor(path, [&](std::string_view d) { non_empty.insert(d); });
      continue;
    }
    if (e.is_dir) {
      dirs.push_back(ListedDir{path, e.modification_time_ms});
      continue;
    }
    ForEachAncestor(path, [&](std::string_view d) { non_empty.insert(d); });
    DecideFile(e, path, snap, /*listed=*/true, plan);
  }
  DecideDirectories(dirs, snap.valid, non_empty, plan);
  return plan;
}

bool LooksLikeTableWriterFile(std::string_view path) {
  path = Normalize(path);
  const std::string_view dir = DirectoryOf(path);
  const std::string_view name = dir.empty() ? path : path.substr(dir.size() + 1);
  if (name.starts_with("part-") && name.ends_with(".parquet")) return true;
  if (ContainsUuid(name)) return true;
  for (std::string_view d = dir; !d.empty(); d = DirectoryOf(d)) {
    const size_t slash = d.rfind('/');
    const std::string_view component = slash == std::string_view::npos ? d : d.substr(slash + 1);
    const size_t eq = component.find('=');
    if (eq != std::string_view::npos && eq > 0) return true;
  }
  return false;
}

std::optional<std::string> ForeignFilesRefusal(const VacuumPlan& plan, int64_t referenced_files,
                                               int64_t referenced_bytes) {
  const bool outnumber = plan.foreign_files > referenced_files;
  const bool outweigh = plan.foreign_bytes > referenced_bytes;
  if (plan.foreign_files == 0 || (!outnumber && !outweigh)) return std::nullopt;
  std::string examples;
  for (const std::string& e : plan.foreign_examples) examples += (examples.empty() ? "'" : ", '") + e + "'";
  if (plan.foreign_files > static_cast<int64_t>(plan.foreign_examples.size())) examples += ", ...";
  return fmt::format(
      "{} untracked file(s) of {} bytes that no version references and whose names do not look like a table "
      "writer's ({}) {} the {} file(s) of {} bytes the log references (live files and tombstones); the table "
      "was probably created over a folder that already held other files, and VACUUM would delete them",
      plan.foreign_files, plan.foreign_bytes, examples,
      outnumber && outweigh ? "outnumber and outweigh" : (outnumber ? "outnumber" : "outweigh"), referenced_files,
      referenced_bytes);
}

Result<VacuumPlan> PlanVacuumLite(const TablePolicy& policy,
                                  const std::vector<ListedEntry>& candidates,
                                  const std::vector<LiveFile>& live,
                                  const std::vector<Tombstone>& tombstones,
                                  const VacuumOptions& options) {
  LITHIFY_ASSIGN_OR_RETURN(VacuumPlan plan, StartPlan(policy, options));
  const Snapshot snap = BuildSnapshot(live, tombstones, plan.delete_before_ms);
  PathSet seen;
  for (const ListedEntry& e : candidates) {
    const std::string_view path = Normalize(e.path);
    if (path.empty() || e.is_dir || !seen.insert(path).second) continue;
    if (IsHiddenPath(path, policy, options)) {
      ++plan.entries_hidden;
      continue;
    }
    DecideFile(e, path, snap, /*listed=*/false, plan);
  }
  return plan;
}

}  // namespace lithify::planner
