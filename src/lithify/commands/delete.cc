#include "lithify/commands/delete.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/base/uuid.h"
#include "lithify/commands/scan.h"
#include "lithify/delta/checkpoint_writer.h"
#include "lithify/delta/data_writer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/delta/scan_plan.h"
#include "lithify/delta/stats.h"
#include "lithify/delta/write_gate.h"
#include "lithify/expr/batch_eval.h"
#include "lithify/expr/expr.h"
#include "lithify/expr/stats_eval.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/delta/table_properties.h"
#include "lithify/io/uri.h"

namespace lithify::commands {

// Delete judges files with Delta's scan planning (delta/scan_plan.h).
using delta::FileDecision;
using delta::FileJudge;
using delta::KeptFiles;
using delta::PlanKeptFiles;
using delta::PrepareScan;
using delta::ScanContext;
using table::FileVerdict;

namespace {

using Clock = std::chrono::steady_clock;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// ---- statistics skipping of one file (the commit's ReadPredicate) --------------------

// A concurrently added file may match the predicate unless its partition values or
// statistics prove otherwise (scan's FileJudge, the rules PlanScan applies); unreadable
// statistics or partition values count as a possible match.
bool AddMayMatch(const FileJudge& judge, const delta::AddFile& add) {
  table::FileEntry f;
  f.partition_values = add.partition_values;
  if (add.stats && !add.stats->empty()) {
    Result<table::FileStats> st = delta::ParseStats(*add.stats);
    if (!st.ok()) return true;
    f.stats = std::move(*st);
  }
  Result<FileDecision> d = judge.Decide(f);
  return !d.ok() || d->verdict == FileVerdict::kKept;
}

// ---- copy-on-write: output-schema batches -> data-file-schema batches ----------------

// The nodes from the top-level field down to `leaf`.
std::vector<const parquet::SchemaNode*> PathNodes(const parquet::Schema& s, int leaf) {
  std::vector<const parquet::SchemaNode*> nodes;
  for (int n = s.leaf(leaf).node; n > 0; n = s.node(n).parent) nodes.push_back(&s.node(n));
  std::reverse(nodes.begin(), nodes.end());
  return nodes;
}

// How one output leaf becomes one data-file leaf: the output schema makes every field
// nullable, the data-file schema follows the table's nullability, so definition levels
// are renumbered; a level meaning "null at a step the file requires" cannot be written.
struct LeafMapping {
  int out_index = -1;   // position of the leaf in the read batch
  int file_leaf = -1;   // leaf in the data-file schema
  std::vector<int16_t> def_map;  // output def level -> file def level (-1: not allowed)
};

Result<LeafMapping> MapLeaf(const parquet::Schema& out, int out_leaf, const parquet::Schema& file,
                            int file_leaf) {
  const parquet::ColumnDescriptor& od = out.leaf(out_leaf);
  const parquet::ColumnDescriptor& fd = file.leaf(file_leaf);
  if (od.physical_type != fd.physical_type || od.type_length != fd.type_length) {
    return Status::NotSupported(
        "rewriting column '{}': the table reads it as physical type {} but writes {}", od.dotted_path,
        static_cast<int>(od.physical_type), static_cast<int>(fd.physical_type));
  }
  std::vector<const parquet::SchemaNode*> on = PathNodes(out, out_leaf);
  std::vector<const parquet::SchemaNode*> fn = PathNodes(file, file_leaf);
  if (on.size() != fn.size()) {
    return Status::NotSupported("rewriting column '{}': its nesting differs from the data-file schema's",
                                od.dotted_path);
  }
  LeafMapping m;
  m.file_leaf = file_leaf;
  m.def_map.assign(static_cast<size_t>(od.max_def) + 1, -1);
  int16_t o = 0;
  int16_t f = 0;
  for (size_t i = 0; i < on.size(); ++i) {
    const bool o_rep = on[i]->repetition == parquet::Repetition::kRepeated;
    const bool f_rep = fn[i]->repetition == parquet::Repetition::kRepeated;
    if (o_rep != f_rep) {
      return Status::NotSupported("rewriting column '{}': its nesting differs from the data-file schema's",
                                  od.dotted_path);
    }
    const bool o_opt = on[i]->repetition != parquet::Repetition::kRequired;
    const bool f_opt = fn[i]->repetition != parquet::Repetition::kRequired;
    if (o_opt) {
      // Output level `o` means: defined down to here, this node absent.
      if (f_opt) m.def_map[o] = f;
      ++o;
    }
    if (f_opt) ++f;
  }
  m.def_map[o] = f;
  return m;
}

Result<parquet::RowBatch> ToFileBatch(parquet::RowBatch in, const std::vector<LeafMapping>& maps,
                                      const parquet::Schema& file) {
  parquet::RowBatch out;
  out.num_rows = in.num_rows;
  out.first_row_index = in.first_row_index;
  out.columns.reserve(maps.size());
  for (const LeafMapping& m : maps) {
    parquet::ColumnData c = std::move(in.columns[m.out_index]);
    const parquet::ColumnDescriptor& fd = file.leaf(m.file_leaf);
    if (fd.max_def == 0) {
      for (int16_t d : c.def_levels) {
        if (m.def_map[d] < 0) return Status::InvalidArgument("column '{}' is not nullable but holds a null", fd.dotted_path);
      }
      c.def_levels.clear();
    } else {
      for (int16_t& d : c.def_levels) {
        if (d < 0 || static_cast<size_t>(d) >= m.def_map.size() || m.def_map[d] < 0) {
          return Status::InvalidArgument("column '{}' is not nullable but holds a null", fd.dotted_path);
        }
        d = m.def_map[d];
      }
    }
    c.leaf_index = m.file_leaf;
    c.descr = &fd;
    out.columns.push_back(std::move(c));
  }
  return out;
}

// ---- the command -----------------------------------------------------------------------

// The outcome for one scanned file.
struct FileMatches {
  const table::FileEntry* file = nullptr;
  std::vector<uint64_t> rows;  // matched live physical row indexes, ascending
  int64_t live_rows = 0;
};

class Deleter {
 public:
  Deleter(io::FileSystem* fs, const DeleteSpec& spec, ScanContext ctx)
      : fs_(fs), spec_(spec), ctx_(std::move(ctx)), snap_(*ctx_.snapshot) {}

  Result<DeleteResult> Run();

 private:
  Status Prepare();
  Result<FileMatches> ScanFile(const table::FileEntry& f);
  Result<int64_t> CountLiveRows(const table::FileEntry& f);
  Status RemoveWhole(const table::FileEntry& f, int64_t live_rows);
  Status AddDv(const table::FileEntry& f, const std::vector<uint64_t>& rows);
  Status FlushDvs();
  Status Rewrite(const FileMatches& m);
  delta::RemoveFile MakeRemove(const table::FileEntry& f) const;

  io::FileSystem* fs_;
  const DeleteSpec& spec_;
  ScanContext ctx_;
  const delta::Snapshot& snap_;
  std::string root_;
  std::unique_ptr<delta::Transaction> txn_;
  bool use_dvs_ = false;

  // Predicate reading.
  std::vector<int> pred_leaves_;
  std::vector<expr::BatchColumn> bcols_;

  // DVs waiting for their DV file: the file they belong to and the new bitmap.
  std::vector<std::pair<const table::FileEntry*, delta::DeletionVector>> pending_dvs_;
  int64_t pending_dv_bytes_ = 0;

  // Copy-on-write.
  std::unique_ptr<delta::DataFileWriter> writer_;
  std::vector<LeafMapping> leaf_maps_;
  std::vector<int> data_leaves_;

  std::map<std::string, int64_t> m_;
  int64_t files_scanned_ = 0;
  int64_t dv_files_written_ = 0;
  int64_t rewrite_ms_ = 0;
  std::vector<delta::FileKey> read_files_;
  std::vector<table::FileEntry> kept_;  // the files the predicate may match, snapshot order
  std::vector<planner::PartitionValues> touched_;  // partitions of the adds (auto compaction)
};

delta::RemoveFile Deleter::MakeRemove(const table::FileEntry& f) const {
  delta::RemoveFile r;
  r.path = delta::EncodeActionPath(f.path);
  r.deletion_timestamp = txn_->NowMs();
  r.data_change = true;
  r.extended_file_metadata = true;
  r.partition_values = f.partition_values;
  r.size = f.size;
  if (f.stats && !f.stats->raw.empty()) r.stats = f.stats->raw;
  r.tags = f.tags;
  if (f.deletion_vector) r.deletion_vector = delta::DeletionVectorDescriptor::FromRef(*f.deletion_vector);
  r.base_row_id = f.base_row_id;
  r.default_row_commit_version = f.default_row_commit_version;
  return r;
}

Status Deleter::Prepare() {
  root_ = snap_.table_root();
  if (!snap_.CanWrite()) {
    return Status::NotSupported("{}: lithify cannot write this table: {}", root_, snap_.write_block_reason());
  }
  use_dvs_ = delta::IsTrueIgnoringCase(snap_.properties(), delta::prop::kEnableDeletionVectors);
  // The per-operation feature gate (delta/write_gate.h): an append-only table refuses
  // deletes, before any file is written (the commit would refuse the removes anyway).
  // A delete creates no values, so constraints, invariants, generated and identity
  // columns stay true: DV and copy-on-write deletes keep surviving rows as they are.
  Status gate = delta::CheckWriteOperation(
      snap_, use_dvs_ ? delta::WriteOperation::kDeleteDv : delta::WriteOperation::kDeleteCopyOnWrite);
  if (!gate.ok()) return gate.WithContextF("{}: cannot delete", root_);
  if (use_dvs_ && !snap_.protocol().HasWriterFeature("deletionVectors")) {
    return Status::NotSupported(
        "{}: delta.enableDeletionVectors is true but the table protocol (reader {}, writer {}) does not "
        "list the deletionVectors feature; upgrade the protocol or unset the property",
        root_, snap_.protocol().min_reader_version, snap_.protocol().min_writer_version);
  }
  LITHIFY_ASSIGN_OR_RETURN(txn_, delta::Transaction::Begin(ctx_.snapshot, spec_.transaction));
  for (const char* k : {"numDeletedRows", "numRemovedFiles", "numAddedFiles", "numDeletionVectorsAdded",
                        "numDeletionVectorsRemoved", "numDeletionVectorsUpdated", "numAddedChangeFiles",
                        "numCopiedRows", "numAddedBytes", "numRemovedBytes", "executionTimeMs",
                        "scanTimeMs", "rewriteTimeMs"}) {
    m_[k] = 0;
  }
  if (!ctx_.predicate) return Status::OK();
  const delta::OutputSchema& out = *ctx_.output;
  std::set<int> leaves;
  for (const expr::BoundColumn& c : ctx_.predicate->columns()) {
    int l = out.FindLeaf(c.path);
    if (l < 0) return Status::Internal("predicate column '{}' has no output leaf", expr::ColumnPathText(c.path));
    leaves.insert(l);
  }
  pred_leaves_.assign(leaves.begin(), leaves.end());
  for (const expr::BoundColumn& c : ctx_.predicate->columns()) {
    int l = out.FindLeaf(c.path);
    int idx = static_cast<int>(std::find(pred_leaves_.begin(), pred_leaves_.end(), l) - pred_leaves_.begin());
    LITHIFY_ASSIGN_OR_RETURN(expr::BatchColumn bc, expr::DescribeLeaf(out.schema().leaf(l), idx));
    bcols_.push_back(bc);
  }
  return Status::OK();
}

Result<int64_t> Deleter::CountLiveRows(const table::FileEntry& f) {
  if (auto n = f.num_live_records()) return *n;
  // A snapshot that kept the stats text only (a constant predicate plans with kRaw).
  LITHIFY_ASSIGN_OR_RETURN(std::optional<table::FileStats> stats, delta::DeltaLiveRows::ParsedStats(f));
  if (stats && stats->num_records) {
    return *stats->num_records - (f.deletion_vector ? f.deletion_vector->cardinality : 0);
  }
  const std::string path = io::ResolveLocation(root_, f.path);
  Result<std::unique_ptr<parquet::FileReader>> reader = parquet::FileReader::Open(fs_, path);
  if (!reader.ok()) return NameFile(reader.status(), path);
  int64_t n = 0;
  for (const auto& rg : (*reader)->metadata().row_groups) n += rg.num_rows;
  if (f.deletion_vector) n -= f.deletion_vector->cardinality;
  return n;
}

// Matches are live rows (deletes already applied by the live-rows primitive), by file
// row index.
Result<FileMatches> Deleter::ScanFile(const table::FileEntry& f) {
  FileMatches m;
  m.file = &f;
  const std::string path = io::ResolveLocation(root_, f.path);
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> rows, ctx_.rows->OpenEntry(f, pred_leaves_));
  table::LiveBatch live;
  for (int rg = 0;; ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, rows->Next(&live));
    if (!more) break;
    const parquet::RowBatch& batch = live.batch;
    if (batch.num_rows == 0) continue;
    Result<std::vector<bool>> sel = expr::EvaluateBatch(*ctx_.predicate, batch, bcols_);
    if (!sel.ok()) return NameFile(sel.status().WithContextF("row group {}", rg), path);
    m.live_rows += batch.num_rows;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      if ((*sel)[i]) m.rows.push_back(static_cast<uint64_t>(live.row_index[i]));
    }
  }
  return m;
}

Status Deleter::RemoveWhole(const table::FileEntry& f, int64_t live_rows) {
  txn_->AddAction(MakeRemove(f));
  m_["numRemovedFiles"] += 1;
  m_["numRemovedBytes"] += f.size;
  m_["numDeletedRows"] += live_rows;
  if (f.deletion_vector) m_["numDeletionVectorsRemoved"] += 1;
  return Status::OK();
}

Status Deleter::AddDv(const table::FileEntry& f, const std::vector<uint64_t>& rows) {
  std::vector<uint64_t> all = rows;
  if (f.deletion_vector) {
    LITHIFY_ASSIGN_OR_RETURN(delta::DeletionVector old, delta::LoadDeletionVector(fs_, root_, *f.deletion_vector));
    std::vector<uint64_t> prev = old.ToVector();
    std::vector<uint64_t> merged;
    merged.reserve(prev.size() + all.size());
    std::set_union(prev.begin(), prev.end(), all.begin(), all.end(), std::back_inserter(merged));
    all = std::move(merged);
    m_["numDeletionVectorsUpdated"] += 1;
  } else {
    m_["numDeletionVectorsAdded"] += 1;
  }
  m_["numDeletedRows"] += static_cast<int64_t>(rows.size());
  delta::DeletionVector dv = delta::DeletionVector::FromRows(all);
  const int64_t framed = static_cast<int64_t>(dv.Serialize().size()) + 8;
  if (!pending_dvs_.empty() && pending_dv_bytes_ + framed > spec_.dv_file_target_bytes) {
    LITHIFY_RETURN_NOT_OK(FlushDvs());
  }
  pending_dvs_.emplace_back(&f, std::move(dv));
  pending_dv_bytes_ += framed;
  return Status::OK();
}

// Writes the pending DVs to one DV file and records remove(old) + add(same path, new DV).
Status Deleter::FlushDvs() {
  if (pending_dvs_.empty()) return Status::OK();
  std::vector<const delta::DeletionVector*> ptrs;
  for (const auto& [f, dv] : pending_dvs_) ptrs.push_back(&dv);
  std::string prefix;
  if (delta::IsTrueIgnoringCase(snap_.properties(), delta::prop::kRandomizeFilePrefixes)) {
    // Delta: delta.randomPrefixLength (default 2) alphanumerics.
    const std::string uuid = NewUuid();
    prefix = uuid.substr(0, 2);
  }
  LITHIFY_ASSIGN_OR_RETURN(std::vector<delta::DeletionVectorDescriptor> descs,
                           delta::WriteDeletionVectorFile(fs_, root_, ptrs, prefix));
  ++dv_files_written_;
  for (size_t i = 0; i < pending_dvs_.size(); ++i) {
    const table::FileEntry& f = *pending_dvs_[i].first;
    delta::RemoveFile remove = MakeRemove(f);
    delta::AddFile add;
    add.path = remove.path;
    add.partition_values = f.partition_values;
    add.size = f.size;
    add.modification_time = f.modification_time_ms;
    add.data_change = true;
    if (f.stats && !f.stats->raw.empty()) {
      // The bounds still cover the live rows but are no longer exact for them. Only that
      // member changes: every bound keeps its text (a DOM round trip would pass the
      // numbers through doubles and turn a decimal max into a value below the data).
      Result<std::string> wide = delta::StatsWithWideBounds(f.stats->raw);
      if (wide.ok()) add.stats = std::move(*wide);
    }
    add.tags = f.tags;
    add.deletion_vector = descs[i];
    add.base_row_id = f.base_row_id;
    add.default_row_commit_version = f.default_row_commit_version;
    add.clustering_provider = f.clustering_provider;
    txn_->AddAction(std::move(remove));
    touched_.push_back(add.partition_values);
    txn_->AddAction(std::move(add));
  }
  pending_dvs_.clear();
  pending_dv_bytes_ = 0;
  return Status::OK();
}

Status Deleter::Rewrite(const FileMatches& m) {
  const Clock::time_point start = Clock::now();
  const table::FileEntry& f = *m.file;
  const delta::OutputSchema& out = *ctx_.output;
  if (!writer_) {
    LITHIFY_ASSIGN_OR_RETURN(writer_, delta::DataFileWriter::Open(fs_, root_, delta::WriteContext::FromSnapshot(snap_)));
    const parquet::Schema& fs = writer_->file_schema();
    for (int l = 0; l < out.schema().num_leaves(); ++l) {
      if (!out.leaves()[l].is_partition) data_leaves_.push_back(l);
    }
    if (static_cast<int>(data_leaves_.size()) != fs.num_leaves()) {
      return Status::NotSupported("{}: the table's data columns ({} leaves) do not match the data-file schema ({} leaves)",
                                  root_, data_leaves_.size(), fs.num_leaves());
    }
    for (size_t i = 0; i < data_leaves_.size(); ++i) {
      LITHIFY_ASSIGN_OR_RETURN(LeafMapping lm, MapLeaf(out.schema(), data_leaves_[i], fs, static_cast<int>(i)));
      lm.out_index = static_cast<int>(i);
      leaf_maps_.push_back(std::move(lm));
    }
  }
  const std::string path = io::ResolveLocation(root_, f.path);
  LITHIFY_ASSIGN_OR_RETURN(std::unique_ptr<table::LiveRowsReader> rows, ctx_.rows->OpenEntry(f, data_leaves_));
  table::LiveBatch live;
  size_t next_match = 0;
  int64_t copied = 0;
  for (int rg = 0;; ++rg) {
    LITHIFY_ASSIGN_OR_RETURN(bool more, rows->Next(&live));
    if (!more) break;
    parquet::RowBatch& batch = live.batch;
    std::vector<bool> keep(static_cast<size_t>(batch.num_rows), true);
    bool any_dropped = false;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      const uint64_t row = static_cast<uint64_t>(live.row_index[i]);
      while (next_match < m.rows.size() && m.rows[next_match] < row) ++next_match;
      if (next_match < m.rows.size() && m.rows[next_match] == row) {
        keep[i] = false;
        any_dropped = true;
      }
    }
    if (any_dropped) parquet::FilterRows(&batch, keep);
    if (batch.num_rows == 0) continue;
    copied += batch.num_rows;
    Result<parquet::RowBatch> fb = ToFileBatch(std::move(batch), leaf_maps_, writer_->file_schema());
    if (!fb.ok()) return NameFile(fb.status().WithContextF("row group {}", rg), path);
    Status st = writer_->WriteBatch(f.partition_values, *fb);
    if (!st.ok()) return NameFile(st.WithContextF("rewriting row group {}", rg), path);
  }
  txn_->AddAction(MakeRemove(f));
  m_["numRemovedFiles"] += 1;
  m_["numRemovedBytes"] += f.size;
  m_["numDeletedRows"] += static_cast<int64_t>(m.rows.size());
  m_["numCopiedRows"] += copied;
  if (f.deletion_vector) m_["numDeletionVectorsRemoved"] += 1;
  rewrite_ms_ += MillisSince(start);
  return Status::OK();
}

Result<DeleteResult> Deleter::Run() {
  const Clock::time_point start = Clock::now();
  LITHIFY_RETURN_NOT_OK(Prepare());
  DeleteResult result;
  result.read_version = snap_.version();
  const std::string pred_text = spec_.predicate;

  // A constant predicate (no columns) is TRUE or not for every row alike.
  bool delete_all = !ctx_.predicate;
  bool delete_none = false;
  if (ctx_.predicate && ctx_.predicate->columns().empty()) {
    expr::Truth t = expr::EvaluateRow(*ctx_.predicate, {});
    delete_all = t == expr::Truth::kTrue;
    delete_none = !delete_all;
  }

  Clock::time_point scan_start = Clock::now();
  if (delete_all) {
    txn_->ReadWholeTable();
    for (const table::FileEntry& f : snap_.files()) {
      LITHIFY_ASSIGN_OR_RETURN(int64_t live, CountLiveRows(f));
      LITHIFY_RETURN_NOT_OK(RemoveWhole(f, live));
    }
  } else if (!delete_none) {
    auto judge = std::make_shared<FileJudge>(FileJudge::Make(ctx_));
    txn_->ReadPredicate(pred_text, [judge](const delta::AddFile& add) { return AddMayMatch(*judge, add); });
    LITHIFY_ASSIGN_OR_RETURN(KeptFiles plan, PlanKeptFiles(ctx_, true));
    // FileEntry values for the kept files only (pending DVs point at them until FlushDvs).
    kept_.reserve(plan.files.size());
    for (uint32_t i : plan.files) kept_.push_back(snap_.live_files()[i].ToFileEntry());
    for (const table::FileEntry& f : kept_) {
      ++files_scanned_;
      read_files_.push_back({f.path, f.dv_unique_id()});
      LITHIFY_ASSIGN_OR_RETURN(FileMatches fm, ScanFile(f));
      if (fm.rows.empty()) continue;
      if (static_cast<int64_t>(fm.rows.size()) == fm.live_rows) {
        LITHIFY_RETURN_NOT_OK(RemoveWhole(f, fm.live_rows));
      } else if (use_dvs_) {
        LITHIFY_RETURN_NOT_OK(AddDv(f, fm.rows));
      } else if (snap_.protocol().HasWriterFeature("rowTracking")) {
        // A rewrite must keep each surviving row's id (the materialized row-id columns);
        // this copy-on-write path does not write them yet, so refuse rather than renumber.
        // Nothing has been written: DVs are off and whole-file removes write no data.
        return Status::NotSupported(
            "{}: DELETE would rewrite {} on a row-tracking table, and lithify's copy-on-write "
            "delete does not yet preserve row ids; enable deletion vectors "
            "(lithify alter {} --set delta.enableDeletionVectors=true) and retry",
            root_, f.path, root_);
      } else {
        LITHIFY_RETURN_NOT_OK(Rewrite(fm));
      }
    }
    txn_->ReadFiles(read_files_);
  }
  LITHIFY_RETURN_NOT_OK(FlushDvs());
  if (writer_) {
    const Clock::time_point finish_start = Clock::now();
    Result<std::vector<delta::AddFile>> adds = writer_->Finish();
    if (!adds.ok()) return adds.status().WithContext(root_);
    for (delta::AddFile& a : *adds) {
      m_["numAddedFiles"] += 1;
      m_["numAddedBytes"] += a.size;
      touched_.push_back(a.partition_values);
      txn_->AddAction(std::move(a));
    }
    rewrite_ms_ += MillisSince(finish_start);
  }
  m_["rewriteTimeMs"] = rewrite_ms_;
  m_["scanTimeMs"] = std::max<int64_t>(0, MillisSince(scan_start) - rewrite_ms_);
  result.files_scanned = files_scanned_;
  result.dv_files_written = dv_files_written_;

  if (m_["numDeletedRows"] == 0 && m_["numRemovedFiles"] == 0) {
    m_["executionTimeMs"] = MillisSince(start);
    result.metrics = m_;
    result.message = pred_text.empty()
                         ? fmt::format("the table has no rows; nothing was committed")
                         : fmt::format("no rows matched '{}'; nothing was committed", pred_text);
    return result;
  }
  m_["executionTimeMs"] = MillisSince(start);
  std::map<std::string, std::string> metrics;
  for (const auto& [k, v] : m_) metrics[k] = std::to_string(v);
  nlohmann::json params = nlohmann::json::object();
  // Delta stores the predicate list as JSON text; invalid UTF-8 in it is replaced.
  params["predicate"] = (pred_text.empty() ? nlohmann::json::array() : nlohmann::json::array({pred_text}))
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  txn_->SetOperation("DELETE", std::move(params), std::move(metrics));
  Result<delta::CommitResult> commit = txn_->Commit();
  if (!commit.ok()) return commit.status().WithContext(root_);
  result.metrics = m_;
  result.message = fmt::format("deleted {} rows in version {}", m_["numDeletedRows"], commit->version);
  result.commit = std::move(*commit);
  AutoCompactOptions ac = spec_.auto_compact;
  ac.transaction = spec_.transaction;
  AutoCompactOutcome outcome = RunAutoCompactHook(fs_, root_, snap_.properties(), touched_, ac);
  result.auto_compaction = std::move(outcome.result);
  result.auto_compaction_warning = std::move(outcome.warning);
  return result;
}

}  // namespace

Result<DeleteResult> DeleteRows(io::FileSystem* fs, const std::string& table_root, const DeleteSpec& spec) {
  // With a predicate, statistics are parsed only for the files partition values keep
  // (PlanKeptFiles); removing every file needs every file's numRecords.
  delta::LoadOptions load;
  load.stats = spec.predicate.empty() ? delta::StatsMode::kParsed : delta::StatsMode::kRaw;
  LITHIFY_ASSIGN_OR_RETURN(ScanContext ctx,
                           PrepareScan(fs, table_root, delta::VersionSpec::Latest(), spec.predicate, load));
  if (!ctx.output && !ctx.snapshot->live_files().empty()) {
    return Status::NotSupported("{}: the table has data files but no columns in its schema", table_root);
  }
  Deleter d(fs, spec, std::move(ctx));
  return d.Run();
}

}  // namespace lithify::commands
