// `lithify scan|files|describe`: the read-side commands, on Delta and Iceberg tables
// (the format is detected from what the location holds). Flags -> commands::
// options; rendering of their results as text or JSON (--json). No logic beyond that.
#include <cstdio>
#include <functional>
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
#include "lithify/table/version_selector.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"
#include "tools/cli/table_format_flags.h"

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

// --timestamp in milliseconds since the epoch (nullopt when not given).
Result<std::optional<int64_t>> TimestampMs(const VersionFlags& f) {
  if (!f.timestamp_given) return std::optional<int64_t>();
  bool had_zone = false;
  // A timestamp without a zone is taken as UTC.
  Result<int64_t> micros = expr::ParseTimestamp(f.timestamp, &had_zone);
  if (!micros.ok()) return UsageError("--timestamp: {}", micros.status().message());
  return std::optional<int64_t>(*micros / 1000 - (*micros % 1000 < 0 ? 1 : 0));
}

Result<table::VersionSelector> ToVersionSpec(const VersionFlags& f) {
  if (f.version_given && f.timestamp_given) {
    return UsageError("--version and --timestamp cannot be used together");
  }
  if (f.version_given) {
    if (f.version < 0) return UsageError("--version must be a non-negative version, not {}", f.version);
    return table::VersionSelector::AtVersion(f.version);
  }
  LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> ms, TimestampMs(f));
  if (ms) return table::VersionSelector::AtTimestamp(*ms);
  return table::VersionSelector::Latest();
}

Result<table::VersionSelector> ToSelector(const VersionFlags& v, const IcebergFlags& f) {
  LITHIFY_ASSIGN_OR_RETURN(std::optional<int64_t> ms, TimestampMs(v));
  return IcebergSelector(f, ms);
}

// The table's format, refusing flags of the other one.
Result<formats::TableFormat> Format(const OpenedLocation& loc, const IcebergFlags& ice, const VersionFlags& v) {
  return DetectFormat(loc, ice, v.version_given);
}

// Writes a JSON document (one line) and flushes.
Status WriteJson(const ordered_json& j) {
  LITHIFY_RETURN_NOT_OK(WriteStdout(j.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n"));
  return FlushStdout();
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
  IcebergFlags ice;
};

Status RenderCount(int64_t rows, const Context& ctx) {
  if (ctx.json) return WriteStdout(ordered_json{{"count", rows}}.dump() + "\n");
  return WriteStdout(fmt::format("{}\n", rows));
}

Status RunScan(const ScanFlags& f, const Context& ctx) {
  commands::ScanOptions opts;
  LITHIFY_ASSIGN_OR_RETURN(table::VersionSelector delta_version, ToVersionSpec(f.version));
  LITHIFY_ASSIGN_OR_RETURN(parquet::RowFormat format,
                           CheckRowOutputFlags(f.format, f.limit_given, f.limit, f.columns));
  opts.where = f.where;
  opts.columns = f.columns;
  opts.limit = f.limit_given ? f.limit : -1;
  opts.count_only = f.count;
  opts.prune_files = !f.no_skipping;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat table_format, Format(loc, f.ice, f.version));
  opts.format = table_format;
  if (table_format == formats::TableFormat::kIceberg) {
    LITHIFY_ASSIGN_OR_RETURN(opts.version, ToSelector(f.version, f.ice));
    opts.location_map = f.ice.location_map;
  } else {
    opts.version = delta_version;
  }
  // One scan for both formats (commands/scan.h over the format's table::TableScan).
  std::unique_ptr<commands::ScanSink> sink = commands::NewRenderSink(format, WriteStdout);
  Result<commands::ScanResult> r = commands::Scan(loc.fs(), loc.path(), opts, sink.get());
  if (!r.ok()) return MapPredicateError(r.status());
  if (f.count) LITHIFY_RETURN_NOT_OK(RenderCount(r->rows, ctx));
  return FlushStdout();
}

// ---- files ----

struct FilesFlags {
  std::string table;
  VersionFlags version;
  std::string where;
  IcebergFlags ice;
};

// The frame both formats' `files` text shares: the header, the predicate, one line per
// file (the verdict first and the reason last when there is a predicate; `describe`
// writes the format's fields between them) and the summary line.
std::string FilesText(const ordered_json& j, const std::string& header,
                      const std::function<std::string(const ordered_json&)>& describe,
                      const std::function<std::string(const ordered_json&, bool)>& summary) {
  const bool with_verdict = j.contains("predicate");
  std::string text = header + "\n";
  if (with_verdict) text += fmt::format("predicate: {}\n", j["predicate"].get<std::string>());
  for (const ordered_json& row : j["files"]) {
    std::string line;
    if (with_verdict) line += fmt::format("{:<18} ", row["verdict"].get<std::string>());
    line += describe(row);
    if (row.contains("reason")) line += "  (" + row["reason"].get<std::string>() + ")";
    text += line + "\n";
  }
  return text + summary(j["summary"], with_verdict);
}

// Iceberg: path, size, rows, partition, delete files.
std::string IcebergFilesText(const ordered_json& j) {
  return FilesText(
      j, fmt::format("{} snapshot {}", j["table"].get<std::string>(), j["snapshot-id"].dump()),
      [](const ordered_json& row) {
        std::string line = row["file_path"].get<std::string>();
        line += fmt::format("  size={}  rows={}", row["file_size_in_bytes"].dump(), row["record_count"].dump());
        if (!row["partition"].empty()) line += "  partition" + row["partition"].dump();
        if (!row["deletes"].empty()) line += fmt::format("  deletes={}", row["deletes"].size());
        return line;
      },
      [](const ordered_json& s, bool with_verdict) {
        std::string text = fmt::format("{} files", s["files"].dump());
        if (with_verdict) text += fmt::format(": {} kept, {} skipped by stats", s["kept"].dump(), s["skippedByStats"].dump());
        return text + fmt::format("; {} delete files\n", s["deleteFiles"].dump());
      });
}

// Delta: path, size, rows, DV, partition values, tags, clustering provider; the counts,
// and with a predicate the lookup cost.
std::string DeltaFilesText(const ordered_json& j) {
  return FilesText(
      j, fmt::format("{} version {}", j["table"].get<std::string>(), j["version"].dump()),
      [](const ordered_json& row) {
        std::string line = row["path"].get<std::string>();
        line += fmt::format("  size={}", row["size"].dump());
        line += row["numRecords"].is_null() ? std::string("  rows=?") : fmt::format("  rows={}", row["numRecords"].dump());
        if (!row["deletionVectorCardinality"].is_null()) line += fmt::format("  dv={}", row["deletionVectorCardinality"].dump());
        if (!row["partitionValues"].empty()) {
          std::string p;
          for (const auto& [k, v] : row["partitionValues"].items()) {
            p += (p.empty() ? "" : ",") + k + "=" + (v.is_null() ? std::string("null") : v.get<std::string>());
          }
          line += "  partition[" + p + "]";
        }
        for (const auto& [k, v] : row["tags"].items()) line += fmt::format("  tag:{}={}", k, v.get<std::string>());
        if (!row["clusteringProvider"].is_null()) line += "  clustering=" + row["clusteringProvider"].get<std::string>();
        return line;
      },
      [&j](const ordered_json& s, bool with_verdict) {
        std::string text = fmt::format("{} files", s["files"].dump());
        if (with_verdict) {
          text += fmt::format(": {} kept, {} skipped by partition, {} skipped by stats", s["kept"].dump(),
                              s["skippedByPartition"].dump(), s["skippedByStats"].dump());
        }
        text += "\n";
        if (with_verdict) text += commands::LookupCostText(j) + "\n";
        return text;
      });
}

Status RunFiles(const FilesFlags& f, const Context& ctx) {
  commands::FilesOptions opts;
  opts.where = f.where;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat table_format, Format(loc, f.ice, f.version));
  opts.format = table_format;
  if (table_format == formats::TableFormat::kIceberg) {
    LITHIFY_ASSIGN_OR_RETURN(opts.version, ToSelector(f.version, f.ice));
    opts.location_map = f.ice.location_map;
  } else {
    LITHIFY_ASSIGN_OR_RETURN(opts.version, ToVersionSpec(f.version));
  }
  // One files command for both formats (commands/files.h); each answers in its own names.
  Result<commands::FilesListing> r = commands::ListTableFiles(loc.fs(), loc.path(), opts);
  if (!r.ok()) return MapPredicateError(r.status());
  if (ctx.json) return WriteJson(r->document);
  LITHIFY_RETURN_NOT_OK(WriteStdout(table_format == formats::TableFormat::kIceberg ? IcebergFilesText(r->document)
                                                                                  : DeltaFilesText(r->document)));
  return FlushStdout();
}

// ---- describe ----

struct DescribeFlags {
  std::string table;
  VersionFlags version;
  int64_t limit = -1;
  bool limit_given = false;
  IcebergFlags ice;
};

// The options of both describe commands: the version (Delta's --version / --timestamp,
// Iceberg's --snapshot-id / --ref / --timestamp) and the format already detected.
Result<commands::DescribeOptions> DescribeOptionsOf(const DescribeFlags& f, formats::TableFormat format) {
  commands::DescribeOptions opts;
  opts.format = format;
  opts.limit = f.limit_given ? f.limit : -1;
  if (format == formats::TableFormat::kIceberg) {
    LITHIFY_ASSIGN_OR_RETURN(opts.version, ToSelector(f.version, f.ice));
    opts.location_map = f.ice.location_map;
  } else {
    LITHIFY_ASSIGN_OR_RETURN(opts.version, ToVersionSpec(f.version));
  }
  return opts;
}

Status RunDetail(const DescribeFlags& f, const Context& ctx) {
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat table_format, Format(loc, f.ice, f.version));
  LITHIFY_ASSIGN_OR_RETURN(commands::DescribeOptions opts, DescribeOptionsOf(f, table_format));
  // The process exits after printing: the snapshot (hundreds of MB for a million files)
  // is left to the OS instead of being freed block by block.
  opts.keep_until_exit = true;
  LITHIFY_ASSIGN_OR_RETURN(commands::Description d, commands::DescribeTableDetail(loc.fs(), loc.path(), opts));
  if (ctx.json) return WriteJson(d.document);
  // One "key  value" line per field; Iceberg's keys are longer.
  const int width = table_format == formats::TableFormat::kIceberg ? 22 : 18;
  std::string text;
  for (const auto& [k, v] : d.document.items()) {
    text += fmt::format("{:<{}} {}\n", k, width, v.is_string() ? v.get<std::string>() : v.dump());
  }
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

// Delta: one line per commit (version, time, operation) and the commitInfo fields
// DESCRIBE HISTORY shows under it.
std::string DeltaHistoryText(const ordered_json& h) {
  std::string text;
  for (const ordered_json& j : h) {
    text += fmt::format("version {}  {}  {}\n", j["version"].dump(), j["timestamp"].get<std::string>(),
                        j.contains("operation") && j["operation"].is_string()
                            ? j["operation"].get<std::string>() : std::string("(no commitInfo)"));
    for (const auto& [k, v] : j.items()) {
      if (k == "version" || k == "timestamp" || k == "operation") continue;
      text += fmt::format("    {}: {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  return text;
}

// Iceberg: one line per snapshot (id, time, operation, sequence number) and its summary.
std::string IcebergHistoryText(const ordered_json& h) {
  std::string text;
  for (const ordered_json& s : h) {
    text += fmt::format("snapshot {}  {}  {}  sequence {}{}\n", s["snapshot-id"].dump(),
                        s["timestamp"].get<std::string>(),
                        s["operation"].is_string() ? s["operation"].get<std::string>() : std::string("(no operation)"),
                        s["sequence-number"].dump(), s["is-current-ancestor"].get<bool>() ? "" : "  (not an ancestor of the current snapshot)");
    for (const auto& [k, v] : s["summary"].items()) {
      if (k != "operation") text += fmt::format("    {}: {}\n", k, v.get<std::string>());
    }
  }
  return text;
}

Status RunHistory(const DescribeFlags& f, const Context& ctx) {
  if (f.limit_given && f.limit < 0) return UsageError("--limit must be non-negative, not {}", f.limit);
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat table_format, Format(loc, f.ice, f.version));
  LITHIFY_ASSIGN_OR_RETURN(commands::DescribeOptions opts, DescribeOptionsOf(f, table_format));
  opts.version = {};  // history lists every version
  LITHIFY_ASSIGN_OR_RETURN(commands::Description h, commands::DescribeTableHistory(loc.fs(), loc.path(), opts));
  if (ctx.json) return WriteJson(h.document);
  LITHIFY_RETURN_NOT_OK(WriteStdout(table_format == formats::TableFormat::kIceberg ? IcebergHistoryText(h.document)
                                                                                  : DeltaHistoryText(h.document)));
  return FlushStdout();
}

constexpr const char* kTableHelp =
    "Table: a Delta or Iceberg table folder (or an Iceberg *.metadata.json), a path or a URI";

}  // namespace

void RegisterTableCommands(CLI::App& app, Runner* selected) {
  {
    auto f = std::make_shared<ScanFlags>();
    CLI::App* cmd = app.add_subcommand("scan", "Print the rows of a Delta or Iceberg table (canonical JSON lines or CSV)");
    PathOption(cmd->add_option("table", f->table, kTableHelp)->required());
    AddVersionFlags(cmd, &f->version, true);
    AddIcebergFlags(cmd, &f->ice, true);
    NonBlankOption(cmd->add_option("--where", f->where, "Predicate, e.g. \"part = 3 AND x > 10\""));
    cmd->add_option("--columns", f->columns, "Columns to print, comma-separated (a.b selects a struct member; Iceberg v3 tables also "
                    "have the row-lineage columns _row_id and _last_updated_sequence_number)")
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
      ReadIcebergFlags(cmd, &f->ice);
      *selected = [f](const Context& ctx) { return RunScan(*f, ctx); };
    });
  }
  {
    auto f = std::make_shared<FilesFlags>();
    CLI::App* cmd = app.add_subcommand("files", "List the live data files of a Delta or Iceberg table; with --where, "
                                                "which files a scan reads and why others are skipped");
    PathOption(cmd->add_option("table", f->table, kTableHelp)->required());
    AddVersionFlags(cmd, &f->version, true);
    AddIcebergFlags(cmd, &f->ice, true);
    NonBlankOption(cmd->add_option("--where", f->where, "Predicate to explain file skipping for"));
    cmd->callback([selected, f, cmd] {
      ReadVersionFlags(cmd, &f->version);
      ReadIcebergFlags(cmd, &f->ice);
      *selected = [f](const Context& ctx) { return RunFiles(*f, ctx); };
    });
  }
  {
    CLI::App* describe = app.add_subcommand("describe", "Describe a Delta or Iceberg table (detail, history)");
    describe->require_subcommand(1);
    auto d = std::make_shared<DescribeFlags>();
    CLI::App* detail = describe->add_subcommand(
        "detail", "DESCRIBE DETAIL (Delta's fields; Iceberg's format-version, snapshots, specs, sort orders, refs)");
    PathOption(detail->add_option("table", d->table, kTableHelp)->required());
    AddVersionFlags(detail, &d->version, true);
    AddIcebergFlags(detail, &d->ice, true);
    detail->callback([selected, d, detail] {
      ReadVersionFlags(detail, &d->version);
      ReadIcebergFlags(detail, &d->ice);
      *selected = [d](const Context& ctx) { return RunDetail(*d, ctx); };
    });
    auto h = std::make_shared<DescribeFlags>();
    CLI::App* history = describe->add_subcommand(
        "history", "DESCRIBE HISTORY, newest first (Delta commits; Iceberg snapshots with their summaries)");
    PathOption(history->add_option("table", h->table, kTableHelp)->required());
    history->add_option("--limit", h->limit, "Show at most N commits or snapshots");
    AddIcebergFlags(history, &h->ice, false);
    history->callback([selected, h, history] {
      h->limit_given = history->count("--limit") > 0;
      *selected = [h](const Context& ctx) { return RunHistory(*h, ctx); };
    });
  }
}

}  // namespace lithify::cli
