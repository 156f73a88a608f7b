#include "lithify/commands/append.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/delta/generated_columns.h"
#include "lithify/delta/identity.h"
#include "lithify/delta/row_constraints.h"
#include "lithify/delta/write_gate.h"
#include "lithify/delta/table_properties.h"

namespace lithify::commands {
namespace {

Status CheckSpec(const AppendSpec& spec) {
  if (spec.inputs.empty() && !spec.generate) {
    return Status::InvalidArgument("append needs input files or a row generator");
  }
  if (!spec.inputs.empty() && spec.generate) {
    return Status::InvalidArgument("append takes input files or a row generator, not both");
  }
  if (spec.num_files < 1) {
    return Status::InvalidArgument("the number of files must be at least 1, got {}", spec.num_files);
  }
  return Status::OK();
}

// Streams generated rows, closing every open file at each of num_files - 1 evenly
// spaced row boundaries so that each partition gets up to num_files files.
Status WriteGenerated(const delta::StructType& schema, const std::vector<std::string>& partition_columns,
                      const AppendSpec& spec, const delta::RowConstraintChecker& checks,
                      delta::IdentityAssigner* identity, const delta::GeneratedColumns& generated,
                      delta::DataFileWriter* writer) {
  GeneratorOptions g = *spec.generate;
  g.partition_columns = partition_columns;
  // Chunk k of N ends at row floor(k * rows / N): N chunks of nearly equal size, so N
  // files on an unpartitioned table whenever rows >= N (empty chunks write nothing).
  const int64_t chunks = std::max(spec.num_files, 1);
  auto chunk_end = [&](int64_t k) { return static_cast<int64_t>(static_cast<__int128>(g.rows) * k / chunks); };
  int64_t chunk = 1;
  int64_t cut = chunk_end(chunk);
  int64_t done = 0;
  auto sink = [&](std::vector<std::vector<parquet::Value>>&& rows) -> Status {
    // The generator's values of identity and generated columns are replaced: the table
    // generates them.
    Status checked = identity->Assign(&rows, done + 1, /*replace_explicit=*/true);
    if (checked.ok()) checked = generated.Apply(&rows, done + 1, /*replace_explicit=*/true);
    if (checked.ok()) checked = checks.Check(rows, done + 1);
    if (!checked.ok()) return checked.WithContext("generated rows");
    size_t pos = 0;
    while (pos < rows.size()) {
      while (cut == done) cut = chunk_end(++chunk);  // skips empty chunks; the last ends at rows
      const size_t take = std::min<size_t>(rows.size() - pos, static_cast<size_t>(cut - done));
      if (pos == 0 && take == rows.size()) {
        LITHIFY_RETURN_NOT_OK(writer->WriteRows(rows));
      } else {
        std::vector<std::vector<parquet::Value>> part(std::make_move_iterator(rows.begin() + pos),
                                                      std::make_move_iterator(rows.begin() + pos + take));
        LITHIFY_RETURN_NOT_OK(writer->WriteRows(part));
      }
      pos += take;
      done += static_cast<int64_t>(take);
      if (done == cut && chunk < chunks) LITHIFY_RETURN_NOT_OK(writer->CloseOpenFiles());
    }
    if (spec.progress) spec.progress(done);
    return Status::OK();
  };
  return GenerateRows(schema, g, sink);
}

InputFormat FormatOf(const AppendSpec& spec, const std::string& path) {
  return spec.format ? *spec.format : InputFormatFromPath(path);
}

// Without optimized writes each input gets its own files (Spark: one file per task and
// partition); with them, rows of all inputs share each partition's file.
// Every batch gets its identity values, then its generated columns' values (computed,
// or given ones checked), and is checked against the table's constraints before it is
// written -- and before the writer takes its partition values (rows are numbered from 1
// within each input). `schema` is the input schema (identity and generated columns
// nullable: inputs may omit them).
Status WriteInputs(io::FileSystem* fs, const delta::StructType& schema, const AppendSpec& spec,
                   bool optimize_write, const delta::RowConstraintChecker& checks, delta::IdentityAssigner* identity,
                   const delta::GeneratedColumns& generated, delta::DataFileWriter* writer) {
  for (const std::string& path : spec.inputs) {
    const InputFormat format = FormatOf(spec, path);
    int64_t rows_read = 0;
    auto sink = [&](std::vector<std::vector<parquet::Value>>&& rows) -> Status {
      Status st = identity->Assign(&rows, rows_read + 1);
      if (st.ok()) st = generated.Apply(&rows, rows_read + 1);
      if (st.ok()) st = checks.Check(rows, rows_read + 1);
      rows_read += static_cast<int64_t>(rows.size());
      if (st.ok()) st = writer->WriteRows(rows);
      if (!st.ok()) return st.WithContextF("{}", path);
      if (spec.progress) spec.progress(writer->rows_written());
      return Status::OK();
    };
    LITHIFY_RETURN_NOT_OK(ReadInput(fs, path, format, schema, sink));
    if (!optimize_write) LITHIFY_RETURN_NOT_OK(writer->CloseOpenFiles());
  }
  return Status::OK();
}

// Every input is opened and checked (commands::CheckInput) before the first data file
// is written, so a missing or mismatching input leaves nothing behind.
Status CheckInputs(io::FileSystem* fs, const delta::StructType& schema, const AppendSpec& spec) {
  for (const std::string& path : spec.inputs) {
    LITHIFY_RETURN_NOT_OK(CheckInput(fs, path, FormatOf(spec, path), schema));
  }
  return Status::OK();
}

// The failure of an append before its commit: nothing committed. `written` are the data
// files it had written (relative paths): deleted again when `discard`, since no version
// references them; else (a commit whose outcome is unknown) left for VACUUM.
Status NothingCommitted(io::FileSystem* fs, const std::string& root, const Status& st,
                        const std::vector<std::string>& written, bool discard = true) {
  if (written.empty()) return st.WithContext("append failed, nothing was committed");
  if (!discard) {
    return st.WithContextF(
        "append failed, nothing was committed ({} data file(s) already written are not part of "
        "the table and will be removed by VACUUM)",
        written.size());
  }
  Status first;
  int64_t kept = 0;
  for (const std::string& rel : written) {
    Status d = fs->Delete(io::JoinPath(root, rel));
    if (d.ok()) continue;
    ++kept;
    if (first.ok()) first = d;
  }
  if (kept == 0) {
    return st.WithContextF(
        "append failed, nothing was committed (the {} data file(s) already written were deleted again; VACUUM "
        "removes any directory they leave empty)",
        written.size());
  }
  return st.WithContextF(
      "append failed, nothing was committed ({} data file(s) already written; {} could not be deleted ({}) and "
      "are not part of the table: VACUUM removes them)",
      written.size(), kept, first.message());
}

// A failed commit that certainly wrote nothing (a conflict or a refused action set), as
// opposed to a storage error whose outcome may be unknown.
bool CertainlyNotCommitted(const Status& st) {
  return st.code() == StatusCode::kConflict || st.IsInvalidArgument() || st.IsNotSupported() ||
         st.IsAlreadyExists();
}

// Delta's precedence: the write option, else the table property, else off.
Result<bool> OptimizeWriteEnabled(const AppendSpec& spec, const std::map<std::string, std::string>& props) {
  if (spec.optimize_write) return *spec.optimize_write;
  auto it = props.find(delta::prop::kOptimizeWrite.key());
  if (it == props.end()) return false;
  std::string v = it->second;
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "false") return v == "true";
  return Status::InvalidArgument("invalid value '{}' for table property delta.autoOptimize.optimizeWrite "
                                 "(allowed: true, false)",
                                 it->second);
}

std::string PartitionByText(const std::vector<std::string>& cols) {
  return nlohmann::json(cols).dump();
}

}  // namespace

Result<AppendResult> AppendRows(io::FileSystem* fs, const std::string& root,
                                const AppendSpec& spec) {
  LITHIFY_RETURN_NOT_OK(CheckSpec(spec));
  delta::LoadOptions load;
  // A blind append reads no file: existing files' stats are not needed (row tracking
  // uses the new adds' numRecords and the domain's high-water mark), and skipping
  // them keeps memory flat on tables with millions of files.
  load.stats = delta::StatsMode::kNone;
  LITHIFY_ASSIGN_OR_RETURN(auto snapshot,
                           delta::Snapshot::Load(fs, root, delta::VersionSpec::Latest(), load));
  if (!snapshot->CanWrite()) {
    return Status::NotSupported("cannot append to {}: {}", root, snapshot->write_block_reason());
  }
  // The per-operation feature gate (delta/write_gate.h): column defaults and generation
  // expressions lithify cannot compute refuse the append; identity columns get generated
  // values (delta/identity.h), generated columns computed ones (delta/generated_columns.h);
  // CHECK constraints and invariants are evaluated on every row, and one lithify cannot
  // evaluate refuses the append. Refusals come before anything is written.
  Status gate = delta::CheckWriteOperation(*snapshot, delta::WriteOperation::kAppend);
  if (!gate.ok()) return gate.WithContextF("cannot append to {}, nothing was committed", root);
  auto checks = delta::RowConstraintChecker::Make(snapshot->schema(), snapshot->properties());
  if (!checks.ok()) return checks.status().WithContextF("cannot append to {}, nothing was committed", root);
  auto identity = delta::IdentityAssigner::Make(snapshot->schema());
  if (!identity.ok()) return identity.status().WithContextF("cannot append to {}, nothing was committed", root);
  auto generated = delta::GeneratedColumns::Make(snapshot->schema());
  if (!generated.ok()) return generated.status().WithContextF("cannot append to {}, nothing was committed", root);
  const delta::StructType input_schema = generated->InputSchema(identity->InputSchema(snapshot->schema()));
  LITHIFY_ASSIGN_OR_RETURN(const bool optimize_write, OptimizeWriteEnabled(spec, snapshot->properties()));
  Status checked = CheckInputs(fs, input_schema, spec);
  if (!checked.ok()) return checked.WithContext("append failed before writing anything, nothing was committed");
  delta::DataWriterOptions writer_options = spec.writer;
  writer_options.optimize_write = optimize_write;
  LITHIFY_ASSIGN_OR_RETURN(
      auto writer, delta::DataFileWriter::Open(fs, root, delta::WriteContext::FromSnapshot(*snapshot),
                                               writer_options));
  Status st = spec.generate
                  ? WriteGenerated(snapshot->schema(), snapshot->partition_columns(), spec, *checks, &*identity,
                                   *generated, writer.get())
                  : WriteInputs(fs, input_schema, spec, optimize_write, *checks, &*identity, *generated,
                                writer.get());
  if (!st.ok()) {
    writer->Abort();
    return NothingCommitted(fs, root, st, writer->closed_files());
  }
  auto adds = writer->Finish();
  if (!adds.ok()) {
    writer->Abort();
    return NothingCommitted(fs, root, adds.status(), writer->closed_files());
  }

  AppendResult result;
  result.optimized_write = optimize_write;
  result.metrics.num_files = static_cast<int64_t>(adds->size());
  for (const delta::AddFile& a : *adds) {
    result.metrics.num_output_bytes += a.size;
  }
  result.metrics.num_output_rows = writer->rows_written();

  auto txn = delta::Transaction::Begin(snapshot, spec.transaction);
  if (!txn.ok()) return NothingCommitted(fs, root, txn.status(), writer->closed_files());
  // The identity columns' new high-water marks, in the commit that writes their values;
  // a concurrent identity append then conflicts (MetadataChangedException) instead of
  // committing overlapping values.
  auto metadata = identity->UpdatedMetadata(snapshot->metadata(), snapshot->schema());
  if (!metadata.ok()) return NothingCommitted(fs, root, metadata.status(), writer->closed_files());
  if (*metadata) {
    (*txn)->AddAction(std::move(**metadata));
    (*txn)->SetCommitInfoExtra({{"tags", {{"delta.identity.schemaUpdate", "true"}}}});  // as Databricks tags it
  }
  std::vector<planner::PartitionValues> touched;
  for (delta::AddFile& a : *adds) {
    touched.push_back(a.partition_values);
    (*txn)->AddAction(std::move(a));
  }
  nlohmann::json params = {{"mode", "Append"},
                           {"partitionBy", PartitionByText(snapshot->partition_columns())}};
  (*txn)->SetOperation("WRITE", std::move(params),
                       {{"numFiles", std::to_string(result.metrics.num_files)},
                        {"numOutputRows", std::to_string(result.metrics.num_output_rows)},
                        {"numOutputBytes", std::to_string(result.metrics.num_output_bytes)}});
  auto commit = (*txn)->Commit();
  if (!commit.ok()) {
    return NothingCommitted(fs, root, commit.status(), writer->closed_files(), CertainlyNotCommitted(commit.status()));
  }
  result.commit = std::move(*commit);
  AutoCompactOptions ac = spec.auto_compact;
  ac.transaction = spec.transaction;
  AutoCompactOutcome outcome = RunAutoCompactHook(fs, root, snapshot->properties(), touched, ac);
  result.auto_compaction = std::move(outcome.result);
  result.auto_compaction_warning = std::move(outcome.warning);
  return result;
}

}  // namespace lithify::commands
