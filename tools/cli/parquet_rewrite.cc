// `lithify parquet rewrite OUT IN... [--codec C] [--level N] [--row-group-size BYTES]
//  [--page-size BYTES] [--no-dictionary] [--no-page-copy]`: concatenates Parquet files that share one
// schema into a single new file, re-encoding and re-compressing as asked. The work is
// parquet::RewriteFiles (column at a time: memory is bounded by one input column chunk
// batch plus one output column chunk's dictionary pages, not by a row group). The output
// becomes visible only when everything succeeded.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/rewrite.h"
#include "lithify/io/registry.h"
#include "tools/cli/parquet_commands.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

struct RewriteOptions {
  std::string out;
  std::vector<std::string> inputs;
  std::string codec = "zstd";
  int level = 0;
  int64_t row_group_size = 128ll << 20;
  int64_t page_size = 0;  // 0: the writer's defaults (1 MiB, 4 MiB for PLAIN strings)
  bool no_dictionary = false;
  bool no_page_copy = false;
};

constexpr const char* kFooter =
    "All inputs must have the same schema (names, types, repetition, annotations and field "
    "ids; the root's name may differ). Rows are written in input order; row groups are "
    "re-cut by --row-group-size (compressed bytes): consecutive input row groups, possibly "
    "of several inputs, are packed up to it, and one larger than it is split into row "
    "groups of nearly equal row counts (at least 1024 rows each). Key-value metadata: a pair is kept "
    "only if every input has it with the same value (schema-derived entries such as "
    "ARROW:schema stay valid because the schema is unchanged); others are dropped. "
    "BYTES accept suffixes such as 64MB or 512KB (powers of 1024).";

bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  auto ca = std::filesystem::weakly_canonical(a, ea);
  auto cb = std::filesystem::weakly_canonical(b, eb);
  if (ea || eb) return a == b;
  return ca == cb;
}

void Progress(const Context& ctx, const parquet::RewriteProgress& p) {
  if (!ctx.progress) return;
  std::fprintf(stderr, "\rrewrite: row group %d/%d, column %d/%d, %lld rows written   ",
               p.row_groups_done + (p.columns_done < p.columns_total ? 1 : 0),
               p.row_groups_total, p.columns_done, p.columns_total,
               static_cast<long long>(p.rows_written));
  std::fflush(stderr);
}

Status RunRewrite(const RewriteOptions& o, const Context& ctx) {
  const auto started = std::chrono::steady_clock::now();
  parquet::RewriteOptions ropts;
  parquet::WriterOptions& wopts = ropts.writer;
  {
    auto codec = parquet::ParseCodecName(o.codec);
    if (!codec.ok()) return UsageError("--codec: {}", codec.status().message());
    wopts.codec = *codec;
  }
  if (o.level != 0) {
    Buffer probe;
    parquet::CompressOptions copts;
    copts.level = o.level;
    Status st = parquet::Compress(wopts.codec, AsBytes("probe"), &probe, copts);
    if (!st.ok()) return UsageError("--level {}: {}", o.level, st.message());
  }
  if (o.row_group_size <= 0) return UsageError("--row-group-size must be positive");
  if (o.page_size < 0) return UsageError("--page-size must be positive");
  for (const std::string& in : o.inputs) {
    if (SamePath(in, o.out)) {
      return UsageError("the output '{}' is also an input; write to a new file", o.out);
    }
  }
  wopts.compression_level = o.level;
  wopts.row_group_size_bytes = o.row_group_size;
  if (o.page_size > 0) {
    wopts.page_size_bytes = o.page_size;
    wopts.byte_array_page_size_bytes = o.page_size;  // an explicit size is every page's
  }
  wopts.enable_dictionary = !o.no_dictionary;
  // An explicit level asks for every page compressed at it; copied pages keep theirs.
  ropts.copy_plain_pages = !o.no_page_copy && o.level == 0;
  ropts.split_row_groups = true;
  ropts.progress = [&ctx](const parquet::RewriteProgress& p) { Progress(ctx, p); };

  // Inputs and output may each live anywhere: resolve them and route by location.
  RegisterStorageBackends();
  std::vector<std::string> inputs;
  for (const std::string& in : o.inputs) {
    LITHIFY_ASSIGN_OR_RETURN(io::OpenedLocation loc, io::OpenFileSystem(in));
    inputs.push_back(std::move(loc.path));
  }
  LITHIFY_ASSIGN_OR_RETURN(io::OpenedLocation out, io::OpenFileSystem(o.out));
  std::shared_ptr<io::FileSystem> fs = io::NewRoutingFileSystem();
  LITHIFY_ASSIGN_OR_RETURN(parquet::RewriteResult r,
                           parquet::RewriteFiles(fs.get(), inputs, out.path, ropts));
  if (ctx.progress) std::fprintf(stderr, "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const char* codec = parquet::CodecName(wopts.codec);
  if (ctx.json) {
    nlohmann::json j = {{"output", o.out},        {"files", r.files},
                        {"rows", r.rows},         {"bytes_in", r.bytes_in},
                        {"bytes_out", r.bytes_out}, {"row_groups", r.row_groups},
                        {"pages_copied", r.pages_copied},
                        {"codec", codec},         {"seconds", seconds}};
    std::cout << j.dump() << std::endl;
  } else {
    std::cout << fmt::format(
                     "rewrote {} file{} ({} rows, {} bytes) into {}: {} bytes, {} row group{}, "
                     "{}, {} page{} copied unchanged, {:.2f} s",
                     r.files, r.files == 1 ? "" : "s", r.rows, r.bytes_in, o.out, r.bytes_out,
                     r.row_groups, r.row_groups == 1 ? "" : "s", codec, r.pages_copied,
                     r.pages_copied == 1 ? "" : "s", seconds)
              << std::endl;
  }
  return Status::OK();
}

}  // namespace

void RegisterParquetRewrite(CLI::App& parquet, Runner* selected) {
  auto opts = std::make_shared<RewriteOptions>();
  CLI::App* cmd = parquet.add_subcommand(
      "rewrite", "Concatenate Parquet files with one schema into a new file, re-encoded");
  cmd->footer(kFooter);
  PathOption(cmd->add_option("OUT", opts->out, "Output file (must not be one of the inputs)")->required());
  PathOption(cmd->add_option("IN", opts->inputs, "Input files")->required());
  cmd->add_option("--codec", opts->codec, "zstd|snappy|gzip|lz4_raw|brotli|none (default zstd)");
  cmd->add_option("--level", opts->level, "Compression level (0 = codec default)");
  cmd->add_option("--row-group-size", opts->row_group_size,
                  "Target row group size in BYTES, compressed (default 128MB): smaller input row groups are "
                  "packed, larger ones split")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("--page-size", opts->page_size, "Target data page size in BYTES (default 1MB, 4MB for PLAIN strings)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_flag("--no-dictionary", opts->no_dictionary, "Write PLAIN pages only");
  cmd->add_flag("--no-page-copy", opts->no_page_copy,
                "Re-encode every page (by default PLAIN input pages already in the output codec "
                "are copied unchanged once the output column is PLAIN; also off with --level)");
  cmd->callback([selected, opts] {
    *selected = [opts](const Context& ctx) { return RunRewrite(*opts, ctx); };
  });
}

}  // namespace lithify::cli
