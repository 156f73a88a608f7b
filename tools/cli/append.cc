// `lithify append TABLE (--from FILE... [--format F] | --generate ROWS [--seed S]
// [--files N] [--start TIME] [--span DURATION] [--customers N]) [--codec C]
// [--target-file-size BYTES] [--optimize-write] [--no-auto-compact] [--json]`: flags ->
// commands::AppendRows; prints the committed version, files, rows and bytes, and the
// outcome of the post-commit auto compaction. Rendering only.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/append.h"
#include "lithify/expr/value.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/registry.h"
#include "lithify/io/uri.h"
#include "lithify/parquet/compression.h"
#include "tools/cli/auto_compact_render.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

struct AppendFlags {
  std::string table;
  std::vector<std::string> from;
  std::string format;
  int64_t generate = -1;
  uint64_t seed = 1;
  int files = 1;
  std::string start;
  std::string span;
  int64_t customers = 0;
  std::string codec = "zstd";
  std::string target_file_size;
  bool optimize_write = false;   // --optimize-write (else the table's property decides)
  bool no_auto_compact = false;  // --no-auto-compact
  bool generate_given = false, files_given = false, seed_given = false, start_given = false,
       span_given = false, customers_given = false;
};

// "123", "64k", "128MiB", "1g": bytes (binary multiples).
Result<int64_t> ParseBytes(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15) return UsageError("--target-file-size: '{}' is not a byte count", text);
  int64_t n = std::stoll(text.substr(0, i));
  std::string unit;
  for (char c : text.substr(i)) unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gb" || unit == "gib") shift = 30;
  if (shift < 0) return UsageError("--target-file-size: unknown unit in '{}'", text);
  if (n <= 0) return UsageError("--target-file-size must be positive, not '{}'", text);
  return n << shift;
}

// "90s", "15m", "12h", "7d", "2w", "500ms"; a bare number is milliseconds.
Result<int64_t> ParseDurationMs(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15) return UsageError("--span: '{}' is not a duration like 12h or 7d", text);
  int64_t n = std::stoll(text.substr(0, i));
  const std::string unit = text.substr(i);
  int64_t mult = 0;
  if (unit.empty() || unit == "ms") mult = 1;
  else if (unit == "s") mult = 1000;
  else if (unit == "m") mult = 60'000;
  else if (unit == "h") mult = 3'600'000;
  else if (unit == "d") mult = 86'400'000;
  else if (unit == "w") mult = 7 * 86'400'000LL;
  if (mult == 0) return UsageError("--span: unknown unit in '{}' (ms, s, m, h, d, w)", text);
  return n * mult;
}

Result<commands::AppendSpec> ToSpec(const AppendFlags& f) {
  commands::AppendSpec spec;
  if (f.from.empty() == !f.generate_given) {
    return UsageError("give either --from FILE... or --generate ROWS");
  }
  if (!f.from.empty()) {
    if (f.files_given || f.seed_given || f.start_given || f.span_given || f.customers_given) {
      return UsageError("--seed, --files, --start, --span and --customers go with --generate");
    }
    spec.inputs = f.from;
    if (!f.format.empty()) {
      auto fmt = commands::InputFormatFromName(f.format);
      if (!fmt.ok()) return UsageError("--format: {}", fmt.status().message());
      spec.format = *fmt;
    }
  } else {
    if (!f.format.empty()) return UsageError("--format goes with --from");
    if (f.generate < 0) return UsageError("--generate needs a non-negative row count, not {}", f.generate);
    if (f.files < 1) return UsageError("--files must be at least 1, not {}", f.files);
    commands::GeneratorOptions g;
    g.rows = f.generate;
    g.seed = f.seed;
    if (f.start_given) {
      bool had_zone = false;
      auto micros = expr::ParseTimestamp(f.start, &had_zone);
      if (!micros.ok()) return UsageError("--start: {}", micros.status().message());
      g.start_time_ms = *micros / 1000 - (*micros % 1000 < 0 ? 1 : 0);
    }
    if (f.span_given) {
      LITHIFY_ASSIGN_OR_RETURN(g.time_span_ms, ParseDurationMs(f.span));
    }
    if (f.customers_given) {
      if (f.customers < 1) return UsageError("--customers must be at least 1, not {}", f.customers);
      g.num_customers = f.customers;
    }
    spec.generate = g;
    spec.num_files = f.files;
  }
  auto codec = parquet::ParseCodecName(f.codec);
  if (!codec.ok()) return UsageError("--codec: {}", codec.status().message());
  if (!parquet::CanCompress(*codec)) return UsageError("--codec: lithify cannot write {}", f.codec);
  spec.writer.parquet.codec = *codec;
  if (!f.target_file_size.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(spec.writer.target_file_size_bytes, ParseBytes(f.target_file_size));
  }
  if (f.optimize_write) spec.optimize_write = true;
  spec.auto_compact.allowed = !f.no_auto_compact;
  return spec;
}

// The append's report: text, or one JSON object.
Status Print(const AppendFlags& f, const commands::AppendResult& r, const Context& ctx) {
  const commands::AppendMetrics& m = r.metrics;
  if (ctx.json) {
    nlohmann::ordered_json j;
    j["version"] = r.commit.version;
    j["numFiles"] = m.num_files;
    j["numOutputRows"] = m.num_output_rows;
    j["numOutputBytes"] = m.num_output_bytes;
    j["attempts"] = r.commit.attempts;
    j["checkpointWritten"] = r.commit.checkpoint_written;
    if (r.commit.checkpoint_error) j["checkpointError"] = *r.commit.checkpoint_error;
    j["optimizedWrite"] = r.optimized_write;
    j["autoCompaction"] = AutoCompactJson(r.auto_compaction, r.auto_compaction_warning);
    LITHIFY_RETURN_NOT_OK(WriteStdout(j.dump() + "\n"));
    return FlushStdout();
  }
  std::string text = fmt::format(
      "appended to {}\nversion      {}\nfiles added  {}\nrows         {}\nbytes        {}\n",
      f.table, r.commit.version, m.num_files, m.num_output_rows, m.num_output_bytes);
  if (r.commit.checkpoint_error) {
    text += fmt::format("warning: the post-commit checkpoint failed: {}\n", *r.commit.checkpoint_error);
  }
  text += AutoCompactText(r.auto_compaction, r.auto_compaction_warning);
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

Status RunAppend(const AppendFlags& f, const Context& ctx) {
  LITHIFY_ASSIGN_OR_RETURN(commands::AppendSpec spec, ToSpec(f));
  bool progress_shown = false;
  if (ctx.progress) {
    int64_t next = 1'000'000;
    spec.progress = [&](int64_t rows) {
      if (rows < next) return;
      next = rows + 1'000'000;
      std::fprintf(stderr, "\rappend: %lld rows written", static_cast<long long>(rows));
      std::fflush(stderr);
      progress_shown = true;
    };
  }
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  // Inputs may live elsewhere than the table (local files into an s3:// table, ...): then
  // every path goes to the store of its own scheme (file: inputs resolved to local paths).
  io::FileSystem* fs = loc.fs();
  std::shared_ptr<io::FileSystem> routing;
  for (std::string& in : spec.inputs) {
    if (io::SchemeOf(in) == "file") {
      LITHIFY_ASSIGN_OR_RETURN(in, io::FileUriToPath(in));
    }
    if (io::SplitUri(in).ok() != io::SplitUri(loc.path()).ok() ||
        (io::HasScheme(in) && io::SchemeOf(in) != io::SchemeOf(loc.path()))) {
      routing = io::NewRoutingFileSystem();
    }
  }
  if (routing) fs = routing.get();
  Result<commands::AppendResult> r = commands::AppendRows(fs, loc.path(), spec);
  if (progress_shown) std::fprintf(stderr, "\n");
  if (!r.ok()) return r.status();
  return AfterCommit(CommittedText(f.table, r->commit.version, r->auto_compaction), Print(f, *r, ctx));
}

}  // namespace

void RegisterAppendCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<AppendFlags>();
  CLI::App* cmd = app.add_subcommand(
      "append", "Append rows from files (Parquet, JSON Lines, CSV) or generated rows to a Delta table");
  PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
  PathOption(cmd->add_option("--from", f->from, "Input files, read in order")->expected(1, -1));
  cmd->add_option("--format", f->format, "Input format: parquet, jsonl or csv (default: by extension)");
  cmd->add_option("--generate", f->generate, "Generate this many synthetic rows");
  cmd->add_option("--seed", f->seed, "Generator seed (default 1)");
  cmd->add_option("--files", f->files,
                  "Cut the generated rows into N chunks of nearly equal size, each written to its own file "
                  "(one per partition it holds rows for; a file per row when there are fewer rows than N). "
                  "Default 1");
  cmd->footer("--generate fills each partition column from at most 8 values (dates and timestamps: the "
              "event time's day), so a partitioned table gets a handful of partitions, not one per row.\n"
              "Generated columns (GENERATED ALWAYS AS) are computed for rows that leave them out or null and "
              "checked on rows that give them; TIMESTAMP values turned into dates, hours or text are taken in "
              "UTC (Spark's session time zone on Databricks by default). An expression lithify cannot compute "
              "exactly refuses the append, naming the column.");
  cmd->add_option("--start", f->start, "Generated event time start, e.g. 2026-01-01T00:00:00Z");
  cmd->add_option("--span", f->span, "Generated event time span, e.g. 1d, 12h, 90m (default 1d)");
  cmd->add_option("--customers", f->customers, "Distinct generated customer ids");
  cmd->add_option("--codec", f->codec, "Parquet compression: zstd (default), snappy, gzip, lz4_raw, brotli, none");
  cmd->add_option("--target-file-size", f->target_file_size,
                  "Roll to a new data file past this size (bytes; k/m/g suffixes; default 128m)");
  cmd->add_flag("--optimize-write", f->optimize_write,
                "Bin the rows of all inputs per partition into target-sized files instead of one file per "
                "input (default: the table's delta.autoOptimize.optimizeWrite)");
  cmd->add_flag("--no-auto-compact", f->no_auto_compact,
                "Skip the post-commit auto compaction even if delta.autoOptimize.autoCompact enables it");
  cmd->callback([selected, f, cmd] {
    f->generate_given = cmd->count("--generate") > 0;
    f->files_given = cmd->count("--files") > 0;
    f->seed_given = cmd->count("--seed") > 0;
    f->start_given = cmd->count("--start") > 0;
    f->span_given = cmd->count("--span") > 0;
    f->customers_given = cmd->count("--customers") > 0;
    *selected = [f](const Context& ctx) { return RunAppend(*f, ctx); };
  });
}

}  // namespace lithify::cli
