// `lithify scan|files|describe`: the Delta read-side commands. Flags -> commands::
// options; rendering of their results as text or JSON (--json). No logic beyond that.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/civil_time.h"
#include "lithify/base/macros.h"
#include "lithify/commands/describe.h"
#include "lithify/commands/files.h"
#include "lithify/commands/scan.h"
#include "lithify/expr/value.h"
#include "lithify/io/filesystem.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

using nlohmann::ordered_json;

// A bad predicate or an unknown --columns entry is user input: a usage error (exit 2).
Status MapPredicateError(const Status& st) {
  if (st.IsInvalidArgument() && st.message().rfind("predicate: ", 0) == 0) {
    return UsageError("--where: {}", st.message().substr(11));
  }
  if (st.IsInvalidArgument() && st.message().rfind("columns: ", 0) == 0) {
    return UsageError("--columns: {}", st.message().substr(9));
  }
  return st;
}

struct VersionFlags {
  int64_t version = -1;
  std::string timestamp;
  bool version_given = false;
  bool timestamp_given = false;
};

Result<delta::VersionSpec> ToVersionSpec(const VersionFlags& f) {
  if (f.version_given && f.timestamp_given) {
    return UsageError("--version and --timestamp cannot be used together");
  }
  if (f.version_given) {
    if (f.version < 0) return UsageError("--version must be a non-negative version, not {}", f.version);
    return delta::VersionSpec::AtVersion(f.version);
  }
  if (f.timestamp_given) {
    bool had_zone = false;
    // A timestamp without a zone is taken as UTC.
    Result<int64_t> micros = expr::ParseTimestamp(f.timestamp, &had_zone);
    if (!micros.ok()) return UsageError("--timestamp: {}", micros.status().message());
    int64_t ms = *micros / 1000 - (*micros % 1000 < 0 ? 1 : 0);
    return delta::VersionSpec::AtTimestamp(ms);
  }
  return delta::VersionSpec::Latest();
}

void AddVersionFlags(CLI::App* cmd, VersionFlags* f, bool with_timestamp) {
  cmd->add_option("--version", f->version, "Read this table version (time travel)");
  if (with_timestamp) {
    cmd->add_option("--timestamp", f->timestamp,
                    "Read the version active at this time ('YYYY-MM-DD[ HH:MM:SS][Z|+HH:MM]', UTC "
                    "when no zone is given)");
  }
}

void ReadVersionFlags(CLI::App* cmd, VersionFlags* f) {
  f->version_given = cmd->count("--version") > 0;
  f->timestamp_given = cmd->get_option_no_throw("--timestamp") != nullptr && cmd->count("--timestamp") > 0;
}

// ---- scan ----

struct ScanFlags {
  std::string table;
  VersionFlags version;
  std::string where;
  std::vector<std::string> columns;
  int64_t limit = -1;
  bool limit_given = false;
  std::string format = "jsonl";
  bool count = false;
  bool no_skipping = false;
};

Status RunScan(const ScanFlags& f, const Context& ctx) {
  commands::ScanOptions opts;
  LITHIFY_ASSIGN_OR_RETURN(opts.version, ToVersionSpec(f.version));
  LITHIFY_ASSIGN_OR_RETURN(parquet::RowFormat format,
                           CheckRowOutputFlags(f.format, f.limit_given, f.limit, f.columns));
  opts.where = f.where;
  opts.columns = f.columns;
  opts.limit = f.limit_given ? f.limit : -1;
  opts.count_only = f.count;
  opts.prune_files = !f.no_skipping;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  std::unique_ptr<commands::ScanSink> sink = commands::NewRenderSink(format, WriteStdout);
  Result<commands::ScanResult> r = commands::Scan(loc.fs(), loc.path(), opts, sink.get());
  if (!r.ok()) return MapPredicateError(r.status());
  if (f.count) {
    if (ctx.json) {
      LITHIFY_RETURN_NOT_OK(WriteStdout(ordered_json{{"count", r->rows}}.dump() + "\n"));
    } else {
      LITHIFY_RETURN_NOT_OK(WriteStdout(fmt::format("{}\n", r->rows)));
    }
  }
  return FlushStdout();
}

// ---- files ----

struct FilesFlags {
  std::string table;
  VersionFlags version;
  std::string where;
};

std::string PartitionText(const commands::FileReportRow& row) {
  std::string s;
  for (const auto& [k, v] : row.partition_values) {
    if (!s.empty()) s += ",";
    s += k + "=" + (v ? *v : "null");
  }
  return s;
}

Status RunFiles(const FilesFlags& f, const Context& ctx) {
  commands::FilesOptions opts;
  LITHIFY_ASSIGN_OR_RETURN(opts.version, ToVersionSpec(f.version));
  opts.where = f.where;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  Result<commands::FilesReport> r = commands::ListFiles(loc.fs(), loc.path(), opts);
  if (!r.ok()) return MapPredicateError(r.status());
  const commands::FilesReport& rep = *r;
  const bool with_verdict = rep.predicate.has_value();
  if (ctx.json) {
    ordered_json out;
    out["table"] = rep.snapshot->table_root();
    out["version"] = rep.snapshot->version();
    if (with_verdict) out["predicate"] = *rep.predicate;
    ordered_json files = ordered_json::array();
    for (const commands::FileReportRow& row : rep.files) {
      const table::FileEntry& e = *row.file;
      ordered_json j;
      j["path"] = e.path;
      j["size"] = e.size;
      ordered_json pv = ordered_json::object();
      for (const auto& [k, v] : row.partition_values) pv[k] = v ? ordered_json(*v) : ordered_json(nullptr);
      j["partitionValues"] = pv;
      j["numRecords"] = e.num_records() ? ordered_json(*e.num_records()) : ordered_json(nullptr);
      j["deletionVectorCardinality"] =
          e.deletion_vector ? ordered_json(e.deletion_vector->cardinality) : ordered_json(nullptr);
      ordered_json tags = ordered_json::object();
      for (const auto& [k, v] : e.tags) tags[k] = v;
      j["tags"] = tags;
      j["clusteringProvider"] = e.clustering_provider ? ordered_json(*e.clustering_provider) : ordered_json(nullptr);
      if (with_verdict) {
        j["verdict"] = std::string(commands::FileVerdictName(row.verdict));
        if (!row.reason.empty()) j["reason"] = row.reason;
      }
      files.push_back(std::move(j));
    }
    out["files"] = std::move(files);
    out["summary"] = {{"files", rep.files_total},
                      {"kept", rep.kept},
                      {"skippedByPartition", rep.skipped_by_partition},
                      {"skippedByStats", rep.skipped_by_stats}};
    if (with_verdict) {
      out["lookupCost"] = {{"filesOpened", rep.kept},
                           {"filesTotal", rep.files_total},
                           {"bytesOpened", rep.bytes_kept},
                           {"bytesTotal", rep.bytes_total},
                           {"rowsInOpenedFiles", rep.rows_kept}};
    }
    LITHIFY_RETURN_NOT_OK(WriteStdout(out.dump() + "\n"));
    return FlushStdout();
  }
  std::string text = fmt::format("{} version {}\n", rep.snapshot->table_root(), rep.snapshot->version());
  if (with_verdict) text += fmt::format("predicate: {}\n", *rep.predicate);
  for (const commands::FileReportRow& row : rep.files) {
    const table::FileEntry& e = *row.file;
    std::string line;
    if (with_verdict) line += fmt::format("{:<18} ", commands::FileVerdictName(row.verdict));
    line += e.path;
    line += fmt::format("  size={}", e.size);
    line += e.num_records() ? fmt::format("  rows={}", *e.num_records()) : std::string("  rows=?");
    if (e.deletion_vector) line += fmt::format("  dv={}", e.deletion_vector->cardinality);
    if (!row.partition_values.empty()) line += "  partition[" + PartitionText(row) + "]";
    for (const auto& [k, v] : e.tags) line += fmt::format("  tag:{}={}", k, v);
    if (e.clustering_provider) line += "  clustering=" + *e.clustering_provider;
    if (!row.reason.empty()) line += "  (" + row.reason + ")";
    text += line + "\n";
  }
  text += fmt::format("{} files", rep.files_total);
  if (with_verdict) {
    text += fmt::format(": {} kept, {} skipped by partition, {} skipped by stats", rep.kept,
                        rep.skipped_by_partition, rep.skipped_by_stats);
  }
  text += "\n";
  if (with_verdict) text += commands::LookupCostText(rep) + "\n";
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

// ---- describe ----

struct DescribeFlags {
  std::string table;
  VersionFlags version;
  int64_t limit = -1;
  bool limit_given = false;
};

Status RunDetail(const DescribeFlags& f, const Context& ctx) {
  LITHIFY_ASSIGN_OR_RETURN(delta::VersionSpec spec, ToVersionSpec(f.version));
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  // The process exits after printing: the snapshot (hundreds of MB for a million files)
  // is left to the OS instead of being freed block by block (reachable, so no leak report).
  static auto* kept = new std::shared_ptr<const delta::Snapshot>();
  LITHIFY_ASSIGN_OR_RETURN(commands::TableDetail d, commands::DescribeDetail(loc.fs(), loc.path(), spec, kept));
  ordered_json j = commands::TableDetailToJson(d);
  if (ctx.json) {
    LITHIFY_RETURN_NOT_OK(WriteStdout(j.dump() + "\n"));
    return FlushStdout();
  }
  std::string text;
  for (const auto& [k, v] : j.items()) {
    text += fmt::format("{:<18} {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

// The DESCRIBE HISTORY columns, in Delta's order, taken from commitInfo when present.
Status RunHistory(const DescribeFlags& f, const Context& ctx) {
  if (f.limit_given && f.limit < 0) return UsageError("--limit must be non-negative, not {}", f.limit);
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(std::vector<commands::HistoryEntry> h,
                           commands::DescribeHistory(loc.fs(), loc.path(), f.limit_given ? f.limit : -1));
  if (ctx.json) {
    ordered_json arr = ordered_json::array();
    for (const auto& e : h) arr.push_back(commands::HistoryEntryToJson(e));
    LITHIFY_RETURN_NOT_OK(WriteStdout(arr.dump() + "\n"));
    return FlushStdout();
  }
  std::string text;
  for (const auto& e : h) {
    ordered_json j = commands::HistoryEntryToJson(e);
    text += fmt::format("version {}  {}  {}\n", e.version, j["timestamp"].get<std::string>(),
                        j.contains("operation") && j["operation"].is_string()
                            ? j["operation"].get<std::string>() : std::string("(no commitInfo)"));
    for (const auto& [k, v] : j.items()) {
      if (k == "version" || k == "timestamp" || k == "operation") continue;
      text += fmt::format("    {}: {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

}  // namespace

void RegisterTableCommands(CLI::App& app, Runner* selected) {
  {
    auto f = std::make_shared<ScanFlags>();
    CLI::App* cmd = app.add_subcommand("scan", "Print the rows of a Delta table (canonical JSON lines or CSV)");
    PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
    AddVersionFlags(cmd, &f->version, true);
    NonBlankOption(cmd->add_option("--where", f->where, "Predicate, e.g. \"part = 3 AND x > 10\""));
    cmd->add_option("--columns", f->columns, "Columns to print, comma-separated (a.b selects a struct member)")
        ->delimiter(',');
    cmd->add_option("--limit", f->limit, "Print at most N rows");
    cmd->add_option("--format", f->format, "Output format: jsonl (default) or csv");
    cmd->add_flag("--count", f->count, "Print only the number of rows");
    cmd->add_flag("--no-skipping", f->no_skipping,
                  "Read every live file (no partition/statistics skipping); --where then only "
                  "filters rows. For diagnosis and the pushdown tests");
    cmd->callback([selected, f, cmd] {
      f->limit_given = cmd->count("--limit") > 0;
      ReadVersionFlags(cmd, &f->version);
      *selected = [f](const Context& ctx) { return RunScan(*f, ctx); };
    });
  }
  {
    auto f = std::make_shared<FilesFlags>();
    CLI::App* cmd = app.add_subcommand("files", "List the live files of a Delta table; with --where, "
                                                "which files a scan reads and why others are skipped");
    PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
    AddVersionFlags(cmd, &f->version, true);
    NonBlankOption(cmd->add_option("--where", f->where, "Predicate to explain file skipping for"));
    cmd->callback([selected, f, cmd] {
      ReadVersionFlags(cmd, &f->version);
      *selected = [f](const Context& ctx) { return RunFiles(*f, ctx); };
    });
  }
  {
    CLI::App* describe = app.add_subcommand("describe", "Describe a Delta table (detail, history)");
    describe->require_subcommand(1);
    auto d = std::make_shared<DescribeFlags>();
    CLI::App* detail = describe->add_subcommand("detail", "Delta DESCRIBE DETAIL");
    PathOption(detail->add_option("table", d->table, "Delta table directory")->required());
    AddVersionFlags(detail, &d->version, true);
    detail->callback([selected, d, detail] {
      ReadVersionFlags(detail, &d->version);
      *selected = [d](const Context& ctx) { return RunDetail(*d, ctx); };
    });
    auto h = std::make_shared<DescribeFlags>();
    CLI::App* history = describe->add_subcommand("history", "Delta DESCRIBE HISTORY (newest first)");
    PathOption(history->add_option("table", h->table, "Delta table directory")->required());
    history->add_option("--limit", h->limit, "Show at most N commits");
    history->callback([selected, h, history] {
      h->limit_given = history->count("--limit") > 0;
      *selected = [h](const Context& ctx) { return RunHistory(*h, ctx); };
    });
  }
}

}  // namespace lithify::cli
