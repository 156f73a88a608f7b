// Delta's scan planning; see scan_plan.h.
#include "lithify/delta/scan_plan.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "lithify/base/decimal_text.h"
#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/expr/expr.h"
#include "lithify/expr/stats_eval.h"

namespace lithify::delta {

namespace {

// The partition-only part of a bound predicate: a predicate implied by the original
// that references only partition columns, or nullopt when none exists (then partition
// values cannot exclude a file). AND keeps its reducible children (dropping a conjunct
// only weakens it); OR needs every child reducible. The tree is NOT-free (NNF), so
// weakening leaves is sound.
std::optional<expr::BoundNode> PartitionOnly(const expr::BoundNode& n,
                                             const std::vector<bool>& is_partition) {
  using expr::BoundKind;
  switch (n.kind) {
    case BoundKind::kConstant: return n;
    case BoundKind::kCompare:
    case BoundKind::kIn:
    case BoundKind::kIsNull:
      if (!is_partition[n.column]) return std::nullopt;
      if (n.right_column >= 0 && !is_partition[n.right_column]) return std::nullopt;
      return n;
    case BoundKind::kAnd: {
      expr::BoundNode out = n;
      out.children.clear();
      for (const expr::BoundNode& c : n.children) {
        if (auto r = PartitionOnly(c, is_partition)) out.children.push_back(std::move(*r));
      }
      if (out.children.empty()) return std::nullopt;
      if (out.children.size() == 1) return std::move(out.children.front());
      return out;
    }
    case BoundKind::kOr: {
      expr::BoundNode out = n;
      out.children.clear();
      for (const expr::BoundNode& c : n.children) {
        auto r = PartitionOnly(c, is_partition);
        if (!r) return std::nullopt;
        out.children.push_back(std::move(*r));
      }
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<expr::Value> ToExprValue(const table::Value& v, const expr::DataType& type) {
  using VK = table::Value::Kind;
  using expr::TypeKind;
  if (v.is_null()) return expr::Value::Null(type);
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (v.kind() != VK::kBoolean) return std::nullopt;
      return expr::Value::Boolean(v.boolean());
    case TypeKind::kInt8: case TypeKind::kInt16: case TypeKind::kInt32: case TypeKind::kInt64:
      if (v.kind() != VK::kInt64) return std::nullopt;
      return expr::Value::Integer(type.kind, v.int64());
    case TypeKind::kFloat32: case TypeKind::kFloat64: {
      double d;
      if (v.kind() == VK::kDouble) d = v.dbl();
      else if (v.kind() == VK::kInt64) d = static_cast<double>(v.int64());
      else return std::nullopt;
      // A float statistic is a float (Delta parses it at the column's type): "0.7" is
      // 0.7f, which is below the double 0.7.
      if (type.kind == TypeKind::kFloat32) d = static_cast<float>(d);
      return expr::Value::Floating(type.kind, d);
    }
    case TypeKind::kDecimal: {
      expr::int128_t u;
      if (v.kind() == VK::kDecimal) {
        if (v.scale() > type.scale) return std::nullopt;
        u = v.unscaled() * expr::Pow10(type.scale - v.scale());
      } else if (v.kind() == VK::kInt64 || v.kind() == VK::kString ||
                 (v.kind() == VK::kDouble && !v.number_text().empty())) {
        // JSON statistics of decimals: exact from the number's text (or a checkpoint's
        // stats_parsed rendering, which quotes decimals); a value the type cannot hold
        // exactly gives no bound.
        const std::string text = v.kind() == VK::kInt64 ? std::to_string(v.int64())
                                 : v.kind() == VK::kString ? v.str() : v.number_text();
        Result<__int128> exact = ParseDecimalText(text, type.precision, type.scale, text);
        if (!exact.ok()) return std::nullopt;
        u = *exact;
      } else if (v.kind() == VK::kDouble) {
        // A bare double (no text): the nearest decimal is exact only while the error of
        // the double times 10^scale stays below half a unit, |unscaled| < 2^50.
        double scaled = v.dbl() * static_cast<double>(expr::Pow10(type.scale));
        if (!std::isfinite(scaled) || std::fabs(scaled) >= 1125899906842624.0) return std::nullopt;
        u = static_cast<expr::int128_t>(std::llround(scaled));
      } else {
        return std::nullopt;
      }
      if (expr::DecimalDigits(u) > type.precision) return std::nullopt;
      return expr::Value::Decimal(u, type.precision, type.scale);
    }
    case TypeKind::kString:
      if (v.kind() != VK::kString) return std::nullopt;
      return expr::Value::String(v.str());
    case TypeKind::kBinary:
      if (v.kind() != VK::kBinary && v.kind() != VK::kString) return std::nullopt;
      return expr::Value::Binary(v.str());
    case TypeKind::kDate:
      if (v.kind() == VK::kDate) return expr::Value::Date(static_cast<int32_t>(v.int64()));
      if (v.kind() == VK::kString) {
        auto d = expr::ParseDate(v.str());
        if (d.ok()) return expr::Value::Date(*d);
      }
      return std::nullopt;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      int64_t micros;
      if (v.kind() == VK::kTimestamp || v.kind() == VK::kTimestampNtz) {
        micros = v.int64();
      } else if (v.kind() == VK::kString) {
        bool zone = false;
        auto t = expr::ParseTimestamp(v.str(), &zone);
        if (!t.ok()) return std::nullopt;
        micros = *t;
      } else {
        return std::nullopt;
      }
      return type.kind == TypeKind::kTimestamp ? expr::Value::Timestamp(micros)
                                               : expr::Value::TimestampNtz(micros);
    }
    default: return std::nullopt;
  }
}

Result<ScanContext> PrepareScan(io::FileSystem* fs, const std::string& table_root,
                                VersionSpec version, std::string_view where,
                                const LoadOptions& load) {
  ScanContext ctx;
  Result<std::shared_ptr<const Snapshot>> snap = Snapshot::Load(fs, table_root, version, load);
  if (!snap.ok()) return NameFile(snap.status(), table_root);
  ctx.snapshot = std::move(*snap);
  const Snapshot& s = *ctx.snapshot;
  // A log-only table may have no schema at all (no schemaString): it has no columns, and
  // Scan reads it as empty when it has no files.
  if (!s.schema().fields.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(ctx.rows, DeltaLiveRows::Make(fs, ctx.snapshot));
    ctx.output = &ctx.rows->output();
    ctx.partition_keys = ctx.rows->partition_keys();
  }

  if (!where.empty()) {
    if (!ctx.output) return Status::InvalidArgument("predicate: the table has no columns");
    Result<expr::Expr> parsed = expr::Parse(where);
    if (!parsed.ok()) return Status::InvalidArgument("predicate: {}", parsed.status().message());
    Result<expr::BoundExpr> bound =
        expr::Bind(*parsed, expr::ResolverFromColumns(ctx.output->BindableColumns()));
    if (!bound.ok()) {
      if (bound.status().IsInvalidArgument() || bound.status().IsNotFound()) {
        return Status::InvalidArgument("predicate: {}", bound.status().message());
      }
      return bound.status();
    }
    ctx.predicate.emplace(std::move(*bound));
  }
  return ctx;
}

namespace {

// TypedPartitionValues of a FileEntry or a store view.
template <typename File>
Result<std::vector<std::optional<table::Value>>> PartitionValuesOf(const ScanContext& ctx, const File& f) {
  if (!ctx.rows) return std::vector<std::optional<table::Value>>();
  return ctx.rows->PartitionValues(f);
}

}  // namespace

Result<std::vector<std::optional<table::Value>>> TypedPartitionValues(const ScanContext& ctx,
                                                                      const table::FileEntry& f) {
  return PartitionValuesOf(ctx, f);
}

FileJudge FileJudge::Make(const ScanContext& ctx) {
  FileJudge j;
  j.ctx_ = &ctx;
  const expr::BoundExpr& pred = *ctx.predicate;
  const Snapshot& snap = *ctx.snapshot;
  const StructType& schema = snap.schema();
  const size_t ncols = pred.columns().size();
  // Per bound column: its Delta top-level field when it is a partition column, else -1;
  // and the physical statistics path.
  j.part_field_.assign(ncols, -1);
  j.is_partition_.assign(ncols, false);
  j.stats_path_.resize(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const expr::ColumnPath& path = pred.columns()[c].path;
    if (path.size() == 1) {
      for (size_t i = 0; i < schema.fields.size(); ++i) {
        if (schema.fields[i].name == path[0] && !ctx.partition_keys[i].empty()) {
          j.part_field_[c] = static_cast<int>(i);
          j.is_partition_[c] = true;
        }
      }
    }
    if (!j.is_partition_[c]) {
      Result<PhysicalColumn> pc =
          ResolvePhysicalColumn(schema, path, snap.column_mapping_mode());
      if (pc.ok()) j.stats_path_[c] = pc->path;
    }
  }
  if (auto r = PartitionOnly(pred.root(), j.is_partition_)) {
    j.part_pred_ = std::make_shared<expr::BoundExpr>(std::move(*r), pred.columns());
  }
  return j;
}

Result<FileDecision> FileJudge::Decide(const table::FileEntry& f) const {
  LITHIFY_ASSIGN_OR_RETURN(Judgement j, Run(f, /*explain=*/true));
  return FileDecision{&f, j.verdict, std::move(j.reason), j.num_records};
}

std::vector<expr::Value> FileJudge::PartitionRow(const std::vector<std::optional<table::Value>>& pv) const {
  const expr::BoundExpr& pred = *ctx_->predicate;
  const size_t ncols = pred.columns().size();
  std::vector<expr::Value> row(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const expr::DataType& t = pred.columns()[c].type;
    row[c] = expr::Value::Null(t);
    if (part_field_[c] >= 0 && pv[part_field_[c]]) {
      if (auto v = ToExprValue(*pv[part_field_[c]], t)) row[c] = std::move(*v);
    }
  }
  return row;
}

Result<bool> FileJudge::SkipsByPartition(const LiveFileView& f) const {
  // Parsed even without a partition-only part: an unparseable value fails Judge too.
  LITHIFY_ASSIGN_OR_RETURN(auto pv, PartitionValuesOf(*ctx_, f));
  if (!part_pred_) return false;
  return expr::EvaluateRow(*part_pred_, PartitionRow(pv)) != expr::Truth::kTrue;
}

Result<FileVerdict> FileJudge::Judge(const LiveFileView& f) const {
  LITHIFY_ASSIGN_OR_RETURN(Judgement j, Run(f, /*explain=*/false));
  return j.verdict;
}

template <typename File>
Result<FileJudge::Judgement> FileJudge::Run(const File& f, bool explain) const {
  const expr::BoundExpr& pred = *ctx_->predicate;
  const size_t ncols = pred.columns().size();
  LITHIFY_ASSIGN_OR_RETURN(auto pv, PartitionValuesOf(*ctx_, f));
  Judgement d;
  const std::vector<expr::Value> row = PartitionRow(pv);
  if (part_pred_) {
    expr::Truth t = expr::EvaluateRow(*part_pred_, row);
    if (t != expr::Truth::kTrue) {
      d.verdict = FileVerdict::kSkippedByPartition;
      if (!explain) return d;  // the reason text would cost more than the verdict
      std::string values;
      for (size_t c = 0; c < ncols; ++c) {
        if (!is_partition_[c]) continue;
        if (!values.empty()) values += ", ";
        values += expr::ColumnPathText(pred.columns()[c].path) + "=" +
                  (row[c].is_null() ? std::string("null") : expr::DisplayText(row[c]));
      }
      d.reason = fmt::format("{} is {} for partition {}", expr::ToString(*part_pred_, part_pred_->root()),
                             expr::TruthText(t), values);
      return d;
    }
  }
  // Statistics (partition columns contribute their exact values). A snapshot loaded with
  // StatsMode::kRaw parses them only here, for the files the partition values keep.
  LITHIFY_ASSIGN_OR_RETURN(std::optional<table::FileStats> stats, DeltaLiveRows::ParsedStats(f));
  std::vector<expr::ColumnStats> cs(ncols);
  expr::FileStats fst;
  if (stats) fst.num_records = stats->num_records;
  d.num_records = fst.num_records;
  if (stats && stats->tight_bounds) fst.tight_bounds = *stats->tight_bounds;
  for (size_t c = 0; c < ncols; ++c) {
    const expr::DataType& t = pred.columns()[c].type;
    if (is_partition_[c]) {
      cs[c].max_may_be_truncated = false;
      cs[c].timestamps_truncated_to_millis = false;
      cs[c].max_may_exclude_nan = false;
      if (!row[c].is_null()) {
        cs[c].min = row[c];
        cs[c].max = row[c];
        cs[c].null_count = 0;
      } else if (part_field_[c] >= 0 && !pv[part_field_[c]] && fst.num_records) {
        cs[c].null_count = *fst.num_records;
      }
      continue;
    }
    if (!stats || stats_path_[c].empty()) continue;
    const table::ColumnStats* s = stats->Find(stats_path_[c]);
    if (s == nullptr) continue;
    if (s->min) {
      if (auto v = ToExprValue(*s->min, t); v && !v->is_null()) cs[c].min = std::move(*v);
    }
    if (s->max) {
      if (auto v = ToExprValue(*s->max, t); v && !v->is_null()) cs[c].max = std::move(*v);
    }
    cs[c].null_count = s->null_count;
  }
  expr::SkipDecision sd = expr::CanSkip(pred, cs, fst);
  if (sd.skip) {
    d.verdict = FileVerdict::kSkippedByStats;
    if (explain) d.reason = std::move(sd.reason);
  }
  return d;
}

Result<std::vector<FileDecision>> PlanScan(const ScanContext& ctx, bool prune) {
  const Snapshot& snap = *ctx.snapshot;
  std::vector<FileDecision> out;
  out.reserve(snap.files().size());
  if (!ctx.predicate || !prune) {
    for (const table::FileEntry& f : snap.files()) out.push_back({&f, FileVerdict::kKept, ""});
    return out;
  }
  const FileJudge judge = FileJudge::Make(ctx);
  for (const table::FileEntry& f : snap.files()) {
    LITHIFY_ASSIGN_OR_RETURN(FileDecision d, judge.Decide(f));
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// Whether store file `a` comes before `b` in snapshot order (path, then DV unique id).
bool SnapshotOrderLess(const LiveFileView& a, const LiveFileView& b) {
  if (int c = a.path().compare(b.path()); c != 0) return c < 0;
  return a.dv_unique_id() < b.dv_unique_id();
}

}  // namespace

Result<KeptFiles> PlanKeptFiles(const ScanContext& ctx, bool prune) {
  const LiveFileStore& live = ctx.snapshot->live_files();
  KeptFiles out;
  out.files_total = static_cast<int64_t>(live.size());
  if (!ctx.predicate || !prune) {
    out.files = live.SortedOrder();
    return out;
  }
  const FileJudge judge = FileJudge::Make(ctx);
  // The partition step depends on a file's partition values only, and a large table has
  // far fewer partitions than files: it runs once per distinct (canonically encoded)
  // value map. The keys are views into the store's arena.
  struct PartitionOutcome {
    bool failed = false;
    bool skip = false;
  };
  std::unordered_map<std::string_view, PartitionOutcome> by_partition;
  // Judged in store order (no sort of the skipped files); PlanScan stops at the first
  // failing file of snapshot order, so the earliest failure is the one returned.
  std::optional<uint32_t> failed;
  auto fail = [&](uint32_t i) {
    if (!failed || SnapshotOrderLess(live[i], live[*failed])) failed = i;
  };
  for (uint32_t i = 0; i < live.size(); ++i) {
    const LiveFileView f = live[i];
    auto [it, fresh] = by_partition.try_emplace(f.partition_values().encoded());
    if (fresh) {
      Result<bool> skip = judge.SkipsByPartition(f);
      it->second = skip.ok() ? PartitionOutcome{false, *skip} : PartitionOutcome{true, false};
    }
    if (it->second.failed) {
      fail(i);
      continue;
    }
    if (it->second.skip) {
      ++out.skipped_by_partition;
      continue;
    }
    Result<FileVerdict> v = judge.Judge(f);
    if (!v.ok()) {
      fail(i);
      continue;
    }
    if (*v == FileVerdict::kKept) out.files.push_back(i);
    if (*v == FileVerdict::kSkippedByStats) ++out.skipped_by_stats;
    if (*v == FileVerdict::kSkippedByPartition) ++out.skipped_by_partition;  // not reached
  }
  // The error as Judge words it for that file (it names the file).
  if (failed) return judge.Judge(live[*failed]).status();
  out.files = live.SortedOrder(std::move(out.files));
  return out;
}

}  // namespace lithify::delta
