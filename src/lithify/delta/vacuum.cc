#include "lithify/base/nesting.h"
#include "lithify/delta/vacuum.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string_view>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/base/thread_pool.h"
#include "lithify/delta/write_gate.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/log_segment.h"
#include "lithify/delta/maintenance_policy.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/transaction.h"

namespace lithify::delta {

namespace {

constexpr int64_t kHourMs = 3'600'000;
constexpr std::string_view kLogDirName = "_delta_log";
constexpr const char* kDeleteBeforeParameter = "deleteBeforeMillis";

using PathSet = std::unordered_set<std::string>;
using SnapshotPtr = std::shared_ptr<const delta::Snapshot>;

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string StripTrailingSlashes(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

// RETAIN n HOURS -> ms. Delta rounds to whole hours; a negative value stays negative
// after rounding so that -0.4 hours is refused like -1.
Result<std::optional<int64_t>> RetentionMs(std::optional<double> hours) {
  if (!hours) return std::optional<int64_t>();
  if (!std::isfinite(*hours) || std::fabs(*hours) > 1e9) {
    return Status::InvalidArgument("retain: {} hours is not a usable retention", *hours);
  }
  int64_t ms = static_cast<int64_t>(std::llround(*hours)) * kHourMs;
  if (*hours < 0 && ms == 0) ms = -1;
  return std::optional<int64_t>(ms);
}

// The files a reader may still need; checked again right before deleting anything.
struct References {
  PathSet live, live_dv, young;  // young: tombstones at/after the horizon and their DVs
  std::vector<planner::LiveFile> live_files;
  std::vector<planner::Tombstone> tombstones;
  // What the log references, for the foreign-files guard: distinct data-file paths of
  // live files and tombstones, and their bytes (as recorded).
  int64_t referenced_files = 0;
  int64_t referenced_bytes = 0;
  bool Contains(const std::string& p) const {
    return live.contains(p) || live_dv.contains(p) || young.contains(p);
  }
};

// The table-relative path of a 'u' DV file; "" for inline and absolute DVs (outside the
// table: never ours to delete or protect).
Result<std::string> DvFile(const delta::DeletionVectorDescriptor* dv) {
  if (dv == nullptr || dv->storage_type != 'u') return std::string();
  return delta::RelativeDvFilePath(*dv);
}

Result<References> CollectReferences(const delta::Snapshot& snap, int64_t horizon_ms) {
  References refs;
  refs.live_files.reserve(snap.live_files().size());
  for (delta::LiveFileView f : snap.live_files()) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(std::string dv, DvFile(f.deletion_vector()), "live file '{}'", f.path());
    refs.live.emplace(f.path());
    if (!dv.empty()) refs.live_dv.insert(dv);
    refs.live_files.push_back(planner::LiveFile{std::string(f.path()), std::move(dv)});
    refs.referenced_bytes += f.size();
  }
  PathSet removed;
  for (const delta::Tombstone& t : snap.tombstones()) {
    if (!refs.live.contains(t.path) && removed.insert(t.path).second) {
      refs.referenced_bytes += t.remove.size.value_or(0);
    }
    const delta::DeletionVectorDescriptor* d = t.remove.deletion_vector ? &*t.remove.deletion_vector : nullptr;
    LITHIFY_ASSIGN_OR_RETURN_CTX(std::string dv, DvFile(d), "tombstone '{}'", t.path);
    // Delta reads a missing deletionTimestamp as 0: expired.
    const int64_t ts = t.remove.deletion_timestamp.value_or(0);
    if (ts >= horizon_ms) {
      refs.young.insert(t.path);
      if (!dv.empty()) refs.young.insert(dv);
    }
    refs.tombstones.push_back(planner::Tombstone{t.path, ts, std::move(dv)});
  }
  refs.referenced_files = static_cast<int64_t>(refs.live.size() + removed.size());
  return refs;
}

// FULL: every file and directory under the root, relative to it (directories only where
// the file system has real ones), and the file system's temporaries of killed writers.
// Entries outside the root (a listing that does not share the prefix) are dropped: they
// are never candidates.
Result<std::vector<planner::ListedEntry>> ListTable(io::FileSystem* fs, const std::string& root) {
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto files, fs->ListRecursive(root), "vacuum: listing '{}'", root);
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto dirs, fs->ListDirectoriesRecursive(root), "vacuum: listing '{}'", root);
  LITHIFY_ASSIGN_OR_RETURN_CTX(auto temps, fs->ListTemporariesRecursive(root), "vacuum: listing '{}'", root);
  const std::string prefix = root + "/";
  std::vector<planner::ListedEntry> out;
  out.reserve(files.size() + dirs.size() + temps.size());
  auto add = [&](const io::FileInfo& f, bool is_dir, bool is_temporary) {
    if (f.path.size() <= prefix.size() || f.path.compare(0, prefix.size(), prefix) != 0) return;
    out.push_back(planner::ListedEntry{f.path.substr(prefix.size()), is_dir ? 0 : static_cast<int64_t>(f.size),
                                       f.mtime_ms, is_dir, is_temporary});
  };
  for (const io::FileInfo& f : files) {
    if (!f.is_dir) add(f, false, false);
  }
  for (const io::FileInfo& d : dirs) add(d, true, false);
  for (const io::FileInfo& t : temps) add(t, false, true);
  return out;
}

// `_delta_log/_last_vacuum_info`: nullopt when absent, null or unreadable JSON (a hint
// whose absence only makes LITE start earlier or refuse).
Result<std::optional<int64_t>> ReadLastVacuumInfo(io::FileSystem* fs, const std::string& log_dir) {
  auto bytes = fs->ReadFile(io::JoinPath(log_dir, kLastVacuumInfoFile));
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return std::optional<int64_t>();
    return bytes.status();
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  if (JsonNestedDeeper(text)) return std::optional<int64_t>();  // unreadable, as malformed
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_object()) return std::optional<int64_t>();
  auto it = j.find("latestCommitVersionOutsideOfRetentionWindow");
  if (it == j.end() || !it->is_number_integer()) return std::optional<int64_t>();
  return std::optional<int64_t>(it->get<int64_t>());
}

// The latest commit active at the horizon (Delta's getActiveCommitAtTime with
// canReturnLastCommit); nullopt when every commit is younger than the horizon.
Result<std::optional<int64_t>> WindowEnd(io::FileSystem* fs, const std::string& root, const delta::Snapshot& snap,
                                         int64_t horizon_ms) {
  if (snap.timestamp_ms() <= horizon_ms) return std::optional<int64_t>(snap.version());
  auto v = delta::VersionAtTimestamp(fs, root, horizon_ms);
  if (!v.ok()) {
    if (v.status().IsNotFound()) return std::optional<int64_t>();
    return v.status();
  }
  return std::optional<int64_t>(std::min(*v, snap.version()));
}

struct LiteWindow {
  std::vector<planner::ListedEntry> candidates;
  std::optional<int64_t> from, to;
  std::optional<int64_t> record;  // what _last_vacuum_info may say after this run
};

// Adds the candidates of one commit; returns whether a remove in it is stamped at or
// after the horizon.
Result<bool> AddCommitCandidates(io::FileSystem* fs, const std::string& root, const delta::LogFile& commit,
                                 int64_t horizon_ms, std::vector<planner::ListedEntry>* out) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer bytes, fs->ReadFile(commit.path));
  const std::string name = std::string(kLogDirName) + "/" + delta::CommitFileName(commit.name.version);
  LITHIFY_ASSIGN_OR_RETURN(
      auto actions,
      delta::ParseCommitFileFast(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), name));
  bool young = false;
  for (const delta::Action& a : actions) {
    if (const auto* rm = std::get_if<delta::RemoveFile>(&a)) {
      auto rel = delta::RelativizeDataPath(root, rm->path);
      if (!rel.ok()) continue;  // outside the table (or undecodable): never ours
      const int64_t ts = rm->deletion_timestamp.value_or(0);
      young = young || ts >= horizon_ms;
      out->push_back(planner::ListedEntry{std::move(rel).value(), rm->size.value_or(0), ts, false});
      const delta::DeletionVectorDescriptor* d = rm->deletion_vector ? &*rm->deletion_vector : nullptr;
      LITHIFY_ASSIGN_OR_RETURN_CTX(std::string dv, DvFile(d), "{}: remove '{}'", name, rm->path);
      if (!dv.empty()) out->push_back(planner::ListedEntry{std::move(dv), 0, ts, false});
    } else if (const auto* cdc = std::get_if<delta::AddCdcFile>(&a)) {
      auto rel = delta::RelativizeDataPath(root, cdc->path);
      if (rel.ok()) out->push_back(planner::ListedEntry{std::move(rel).value(), cdc->size, 0, false});
    }
  }
  return young;
}

// LITE: candidates from the commits (last vacuum, window end], one commit in memory at a
// time.
Result<LiteWindow> GatherLite(io::FileSystem* fs, const std::string& root, const delta::Snapshot& snap,
                              int64_t horizon_ms) {
  const std::string log_dir = io::JoinPath(root, kLogDirName);
  LiteWindow w;
  LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> end, WindowEnd(fs, root, snap, horizon_ms));
  LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> last, ReadLastVacuumInfo(fs, log_dir));
  LITHIFY_ASSIGN_OR_RETURN(auto files, delta::ListLogFiles(fs, log_dir));
  std::optional<int64_t> earliest;
  for (const delta::LogFile& f : files) {
    if (f.name.type == delta::LogFileType::kCommit) {
      earliest = f.name.version;
      break;
    }
  }
  const int64_t first = earliest.value_or(snap.version() + 1);
  if (first != 0 && (!last || *last + 1 < first)) {
    return Status::InvalidArgument(
        "DELTA_CANNOT_VACUUM_LITE: {}: the log no longer holds every commit since the last vacuum (earliest "
        "commit {}, last vacuum covered up to {}); run a FULL vacuum",
        root, first, last ? std::to_string(*last) : std::string("nothing"));
  }
  if (!end) return w;
  const int64_t start = last ? *last + 1 : first;
  w.record = *end;
  if (start > *end) return w;
  w.from = start;
  w.to = *end;
  for (const delta::LogFile& f : files) {
    if (f.name.type != delta::LogFileType::kCommit || f.name.version < start || f.name.version > *end) continue;
    LITHIFY_ASSIGN_OR_RETURN(bool young, AddCommitCandidates(fs, root, f, horizon_ms, &w.candidates));
    // A tombstone not yet expired must be seen again by the next LITE run.
    if (young && f.name.version - 1 < *w.record) w.record = f.name.version - 1;
  }
  return w;
}

// Every directory above a referenced path ("a/b" for "a/b/c.parquet"); empty when the
// plan deletes no directory (the common case: no need to build it).
PathSet AncestorDirectories(const References& refs, const planner::VacuumPlan& plan) {
  PathSet dirs;
  if (plan.dirs_to_delete == 0) return dirs;
  for (const PathSet* set : {&refs.live, &refs.live_dv, &refs.young}) {
    for (const std::string& p : *set) {
      for (size_t slash = p.rfind('/'); slash != std::string::npos && slash > 0; slash = p.rfind('/', slash - 1)) {
        if (!dirs.insert(p.substr(0, slash)).second) break;  // its ancestors are in already
      }
    }
  }
  return dirs;
}

// Guard rails, independent of the planner.
Status CheckDeletion(const planner::VacuumDeletion& d, const References& refs, const PathSet& ref_dirs) {
  std::string_view p = d.path;
  auto refuse = [&](std::string_view why) {
    return Status::Internal("vacuum: refusing to delete '{}': {}; nothing was deleted", d.path, why);
  };
  if (p.empty() || p.front() == '/') return refuse("not a path relative to the table root");
  size_t start = 0;
  for (bool first = true; start <= p.size(); first = false) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view seg = p.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return refuse("not a path inside the table root");
    if (first && seg == kLogDirName) return refuse("it is under _delta_log");
    start = end + 1;
  }
  if (d.is_dir) {
    // The planner deletes only directories that held nothing when listed; never one
    // above a referenced file (checked again here, independently).
    if (ref_dirs.contains(d.path)) return refuse("a referenced file lies beneath it");
    return Status::OK();
  }
  if (refs.live.contains(d.path)) return refuse("it is a live file");
  if (refs.live_dv.contains(d.path)) return refuse("it is the deletion vector file of a live file");
  if (refs.young.contains(d.path)) return refuse("it is a tombstone inside the retention window");
  return Status::OK();
}

VacuumProtected CountProtected(const std::vector<planner::ListedEntry>& considered, const References& refs,
                               const planner::VacuumPlan& plan) {
  VacuumProtected p;
  p.hidden = plan.entries_hidden;
  p.newer_than_horizon = plan.files_too_young;
  std::unordered_set<std::string_view> seen;
  for (const planner::ListedEntry& e : considered) {
    if (!seen.insert(e.path).second) continue;
    if (refs.live.contains(e.path)) {
      ++p.live;
    } else if (refs.live_dv.contains(e.path)) {
      ++p.live_dv;
    } else if (refs.young.contains(e.path)) {
      ++p.young_tombstone;
    }
  }
  return p;
}

// Deletes every file with at most `parallelism` deletes in flight (on the IO pool: they
// wait on the store); a failure stops handing out work, and the error returned is the
// first by plan order among the deletes made. Deletes are idempotent, so a rerun is safe.
Status DeleteFiles(io::FileSystem* fs, const std::string& root, const std::vector<planner::VacuumDeletion>& dels,
                   int parallelism, int64_t* deleted) {
  std::atomic<int64_t> done{0};
  Status first = ParallelFor(IoPool(), dels.size(), std::max(parallelism, 1), [&](size_t i) -> Status {
    LITHIFY_RETURN_NOT_OK_CTX(fs->Delete(io::JoinPath(root, dels[i].path)), "vacuum: deleting '{}'", dels[i].path);
    ++done;
    return Status::OK();
  });
  *deleted = done.load();
  return first;
}

// Deletes empty directories one at a time in the plan's order (deepest first, so a
// directory whose only content was an empty directory goes too). One that is no longer
// empty (a writer is putting a file there) is kept, as Delta's non-recursive delete
// keeps it; any other error stops and is returned.
Status DeleteDirectories(io::FileSystem* fs, const std::string& root,
                         const std::vector<planner::VacuumDeletion>& dirs, int64_t* deleted) {
  for (const planner::VacuumDeletion& d : dirs) {
    LITHIFY_ASSIGN_OR_RETURN_CTX(bool removed, fs->DeleteEmptyDirectory(io::JoinPath(root, d.path)),
                                 "vacuum: deleting directory '{}'", d.path);
    if (removed) ++*deleted;
  }
  return Status::OK();
}

Result<int64_t> CommitOperation(const SnapshotPtr& snap, std::string op, nlohmann::json params,
                                std::map<std::string, std::string> metrics) {
  LITHIFY_ASSIGN_OR_RETURN(auto txn, delta::Transaction::Begin(snap));
  txn->SetOperation(std::move(op), std::move(params), std::move(metrics));
  LITHIFY_ASSIGN_OR_RETURN(delta::CommitResult r, txn->Commit());
  return r.version;
}

Status WriteLastVacuumInfo(io::FileSystem* fs, const std::string& root, int64_t version) {
  const std::string text =
      nlohmann::json{{"latestCommitVersionOutsideOfRetentionWindow", version}}.dump() + "\n";
  return fs
      ->WriteFile(io::JoinPath(io::JoinPath(root, kLogDirName), kLastVacuumInfoFile),
                  ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()))
      .WithContext("vacuum: writing _delta_log/_last_vacuum_info");
}

// START -> deletes -> END -> _last_vacuum_info. After START, any failure is recorded
// by a best-effort END with status FAILED.
Status Execute(io::FileSystem* fs, const SnapshotPtr& snap, const VacuumSpec& spec,
               std::optional<int64_t> specified_ms, std::optional<int64_t> record, VacuumResult* r) {
  nlohmann::json params = {{"retentionCheckEnabled", r->retention_check_enabled},
                           {"defaultRetentionMillis", r->table_retention_ms}};
  if (specified_ms) params["specifiedRetentionMillis"] = *specified_ms;
  // lithify extensions: the exact horizon (diagnose tells what this run deleted) and the
  // temporaries among the files to delete.
  params[kDeleteBeforeParameter] = r->delete_before_ms;
  LITHIFY_ASSIGN_OR_RETURN(
      r->start_version,
      CommitOperation(snap, "VACUUM START", std::move(params),
                      {{"numFilesToDelete", std::to_string(r->files_to_delete)},
                       {"sizeOfDataToDelete", std::to_string(r->bytes_to_delete)},
                       {"numTemporaryFilesToDelete", std::to_string(r->temporaries_to_delete)}}));
  std::vector<planner::VacuumDeletion> files, dirs;
  for (const planner::VacuumDeletion& d : r->deletions) (d.is_dir ? dirs : files).push_back(d);
  Status st = DeleteFiles(fs, r->table_root, files, spec.delete_parallelism, &r->files_deleted);
  if (st.ok()) st = DeleteDirectories(fs, r->table_root, dirs, &r->dirs_deleted);
  const char* status = st.ok() ? "COMPLETED" : "FAILED";
  auto end = CommitOperation(snap, "VACUUM END", {{"status", status}},
                             {{"numDeletedFiles", std::to_string(r->files_deleted)},
                              {"numVacuumedDirectories", std::to_string(r->dirs_deleted)}});
  if (!st.ok()) return st;  // the deletion error matters more than END's
  LITHIFY_RETURN_NOT_OK(end.status().WithContext("vacuum: committing VACUUM END"));
  r->end_version = *end;
  if (record) {
    LITHIFY_RETURN_NOT_OK(WriteLastVacuumInfo(fs, r->table_root, *record));
    r->last_vacuum_info = record;
  }
  return Status::OK();
}

// An integer operation parameter, written as a JSON number (lithify) or a string of
// digits (Delta writes operationParameters as strings).
std::optional<int64_t> IntegerParameter(const nlohmann::json& params, const char* key) {
  auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (!it->is_string()) return std::nullopt;
  const std::string& t = it->get_ref<const std::string&>();
  if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(t);
}

// The commitInfo object of a commit whose text names a VACUUM operation; nullopt for
// every other commit (not parsed: a quick substring test keeps the walk cheap).
Result<std::optional<nlohmann::json>> VacuumCommitInfo(io::FileSystem* fs, const delta::LogFile& f) {
  LITHIFY_ASSIGN_OR_RETURN(Buffer bytes, fs->ReadFile(f.path));
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find("VACUUM ") == std::string_view::npos) return std::optional<nlohmann::json>();
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.find("\"commitInfo\"") == std::string_view::npos) continue;
    if (JsonNestedDeeper(line)) {
      return Status::Corruption("{}/{}: commitInfo line nested deeper than {} levels", kLogDirName,
                                delta::CommitFileName(f.name.version), kMaxJsonNesting);
    }
    auto j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (!j.is_object()) {
      return Status::Corruption("{}/{}: malformed commitInfo line", kLogDirName,
                                delta::CommitFileName(f.name.version));
    }
    auto it = j.find("commitInfo");
    if (it != j.end() && it->is_object()) return std::optional<nlohmann::json>(std::move(*it));
  }
  return std::optional<nlohmann::json>();
}

std::string OperationOf(const nlohmann::json& ci) {
  auto it = ci.find("operation");
  return it != ci.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json& ParametersOf(const nlohmann::json& ci) {
  static const nlohmann::json kNone = nlohmann::json::object();
  auto it = ci.find("operationParameters");
  return it != ci.end() && it->is_object() ? *it : kNone;
}

// The horizon a VACUUM START recorded (see CompletedVacuum::delete_before_ms).
int64_t HorizonOf(const nlohmann::json& ci, const delta::LogFile& f) {
  const nlohmann::json& params = ParametersOf(ci);
  if (auto exact = IntegerParameter(params, kDeleteBeforeParameter)) return *exact;
  int64_t ts = f.mtime_ms;
  for (const char* key : {"inCommitTimestamp", "timestamp"}) {
    auto it = ci.find(key);
    if (it != ci.end() && it->is_number_integer()) {
      ts = it->get<int64_t>();
      break;
    }
  }
  std::optional<int64_t> retention = IntegerParameter(params, "specifiedRetentionMillis");
  if (!retention) retention = IntegerParameter(params, "defaultRetentionMillis");
  return ts - retention.value_or(delta::kDefaultDeletedFileRetentionMs);
}

}  // namespace

Result<std::optional<CompletedVacuum>> FindLastCompletedVacuum(io::FileSystem* fs, const std::string& root,
                                                               int64_t version, int64_t not_before_ms) {
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::LogFile> files,
                           delta::ListLogFiles(fs, io::JoinPath(StripTrailingSlashes(root), kLogDirName)));
  std::vector<const delta::LogFile*> commits;
  for (const delta::LogFile& f : files) {
    if (f.name.type == delta::LogFileType::kCommit && f.name.version <= version) commits.push_back(&f);
  }
  std::sort(commits.begin(), commits.end(),
            [](const delta::LogFile* a, const delta::LogFile* b) { return a->name.version > b->name.version; });
  std::optional<int64_t> end_version;
  for (const delta::LogFile* f : commits) {
    if (!end_version && f->mtime_ms < not_before_ms) break;
    LITHIFY_ASSIGN_OR_RETURN(std::optional<nlohmann::json> ci, VacuumCommitInfo(fs, *f));
    if (!ci) continue;
    const std::string op = OperationOf(*ci);
    if (!end_version) {
      auto status = ParametersOf(*ci).find("status");
      if (op == "VACUUM END" && status != ParametersOf(*ci).end() && *status == "COMPLETED") {
        end_version = f->name.version;
      }
      continue;
    }
    if (op == "VACUUM END") break;  // an END without its START in between: not ours to pair
    if (op == "VACUUM START") {
      return std::optional<CompletedVacuum>(CompletedVacuum{f->name.version, *end_version, HorizonOf(*ci, *f)});
    }
  }
  return std::optional<CompletedVacuum>();
}

Result<VacuumResult> Vacuum(io::FileSystem* fs, const std::string& root_in, const VacuumSpec& spec) {
  if (fs == nullptr) return Status::InvalidArgument("vacuum: no file system");
  const std::string root = StripTrailingSlashes(root_in);
  LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> specified_ms, RetentionMs(spec.retain_hours));
  LITHIFY_ASSIGN_OR_RETURN(SnapshotPtr snap, delta::Snapshot::Load(fs, root, delta::VersionSpec::Latest(),
                                                                   delta::LoadOptions{delta::StatsMode::kNone}));
  if (!snap->CanWrite()) {
    return Status::NotSupported("vacuum: {}: cannot maintain this table: {}", root, snap->write_block_reason());
  }
  // VACUUM deletes only unreferenced files: every data feature allows it (delta/write_gate.h).
  LITHIFY_RETURN_NOT_OK(delta::CheckWriteOperation(*snap, delta::WriteOperation::kVacuum).WithContextF("vacuum: {}", root));
  LITHIFY_ASSIGN_OR_RETURN(int64_t table_ms, delta::TombstoneRetentionMs(snap->metadata()));

  VacuumResult r;
  r.table_root = root;
  r.read_version = snap->version();
  r.lite = spec.lite;
  r.dry_run = spec.dry_run;
  r.now_ms = spec.now_ms != 0 ? spec.now_ms : SystemNowMs();
  r.table_retention_ms = table_ms;
  r.retention_check_enabled = !spec.disable_retention_check;

  planner::VacuumOptions opt;
  opt.now_ms = r.now_ms;
  opt.retention_ms = specified_ms;
  opt.table_retention_ms = table_ms;
  opt.retention_check_enabled = r.retention_check_enabled;
  // Delta matches `<col>=` with the logical partition column names.
  opt.partition_columns = snap->partition_columns();
  // UniForm-Iceberg tables hide their `metadata` directory from VACUUM too.
  const delta::DeltaMaintenancePolicy policy = delta::DeltaMaintenancePolicy::ForProperties(snap->properties());
  LITHIFY_RETURN_NOT_OK(planner::CheckVacuumRetention(policy, opt).WithContext(root));
  r.retention_ms = specified_ms.value_or(table_ms);
  r.delete_before_ms = r.now_ms - r.retention_ms;

  LITHIFY_ASSIGN_OR_RETURN(References refs, CollectReferences(*snap, r.delete_before_ms));
  std::vector<planner::ListedEntry> considered;
  std::optional<int64_t> record;
  Result<planner::VacuumPlan> plan = Status::Internal("vacuum: not planned");
  if (spec.lite) {
    LITHIFY_ASSIGN_OR_RETURN(LiteWindow w, GatherLite(fs, root, *snap, r.delete_before_ms));
    considered = std::move(w.candidates);
    r.lite_from_version = w.from;
    r.lite_to_version = w.to;
    record = w.record;
    plan = planner::PlanVacuumLite(policy, considered, refs.live_files, refs.tombstones, opt);
  } else {
    LITHIFY_ASSIGN_OR_RETURN(considered, ListTable(fs, root));
    if (!spec.dry_run) {
      LITHIFY_ASSIGN_OR_RETURN(record, WindowEnd(fs, root, *snap, r.delete_before_ms));
    }
    plan = planner::PlanVacuum(policy, considered, refs.live_files, refs.tombstones, opt);
  }
  if (!plan.ok()) return plan.status().WithContext(root);
  const PathSet ref_dirs = AncestorDirectories(refs, *plan);
  for (const planner::VacuumDeletion& d : plan->deletions) LITHIFY_RETURN_NOT_OK(CheckDeletion(d, refs, ref_dirs));

  r.protected_files = CountProtected(considered, refs, *plan);
  {
    std::unordered_set<std::string_view> unique;
    for (const planner::ListedEntry& e : considered) unique.insert(e.path);
    r.files_considered = static_cast<int64_t>(unique.size());
  }
  r.files_to_delete = plan->files_to_delete;
  r.bytes_to_delete = plan->bytes_to_delete;
  r.dirs_to_delete = plan->dirs_to_delete;
  r.temporaries_to_delete = plan->temporaries_to_delete;
  r.temporary_bytes_to_delete = plan->temporary_bytes_to_delete;
  r.foreign_files = plan->foreign_files;
  r.foreign_bytes = plan->foreign_bytes;
  r.referenced_files = refs.referenced_files;
  r.referenced_bytes = refs.referenced_bytes;
  if (!spec.lite) r.foreign_refusal = planner::ForeignFilesRefusal(*plan, r.referenced_files, r.referenced_bytes);
  r.deletions = std::move(plan->deletions);
  if (spec.dry_run) return r;
  if (r.foreign_refusal && !spec.allow_foreign_files) {
    return Status::InvalidArgument(
        "LITHIFY_VACUUM_FOREIGN_FILES: refusing to vacuum {}: {}. Nothing was deleted and nothing was committed. "
        "Move those files out of the table directory (or see them all with `lithify vacuum --dry-run --json`), "
        "or run again with --allow-foreign-files to delete them",
        root, *r.foreign_refusal);
  }
  LITHIFY_RETURN_NOT_OK(Execute(fs, snap, spec, specified_ms, record, &r));
  return r;
}

}  // namespace lithify::delta
