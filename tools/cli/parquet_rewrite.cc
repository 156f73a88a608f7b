// `lithify parquet rewrite OUT IN... [--codec C] [--level N] [--row-group-size BYTES]
//  [--page-size BYTES] [--no-dictionary]`: concatenates Parquet files that share one
// schema into a single new file, re-encoding and re-compressing as asked. Data streams
// one input row group at a time in the levels form (no record assembly), so memory is
// bounded by one input row group plus one output row group. The output becomes visible
// only when everything succeeded.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "tools/cli/parquet_commands.h"

namespace lithify::cli {
namespace {

struct RewriteOptions {
  std::string out;
  std::vector<std::string> inputs;
  std::string codec = "zstd";
  int level = 0;
  int64_t row_group_size = 128ll << 20;
  int64_t page_size = 1ll << 20;
  bool no_dictionary = false;
};

constexpr const char* kFooter =
    "All inputs must have the same schema (names, types, repetition, annotations and field "
    "ids; the root's name may differ). Rows are written in input order; row groups are "
    "re-cut by --row-group-size and may span inputs. Key-value metadata: a pair is kept "
    "only if every input has it with the same value (schema-derived entries such as "
    "ARROW:schema stay valid because the schema is unchanged); others are dropped. "
    "BYTES accept suffixes such as 64MB or 512KB (powers of 1024).";

// "a.b.c" of schema node n.
std::string NodePath(const parquet::Schema& s, int n) {
  std::string path;
  for (; n > 0; n = s.node(n).parent) path = path.empty() ? s.node(n).name : s.node(n).name + "." + path;
  return path;
}

const char* LogicalName(parquet::LogicalType::Kind k) {
  using K = parquet::LogicalType::Kind;
  switch (k) {
    case K::kNone: return "";
    case K::kString: return "STRING";
    case K::kMap: return "MAP";
    case K::kList: return "LIST";
    case K::kEnum: return "ENUM";
    case K::kDecimal: return "DECIMAL";
    case K::kDate: return "DATE";
    case K::kTime: return "TIME";
    case K::kTimestamp: return "TIMESTAMP";
    case K::kInteger: return "INTEGER";
    case K::kUnknown: return "UNKNOWN";
    case K::kJson: return "JSON";
    case K::kBson: return "BSON";
    case K::kUuid: return "UUID";
    case K::kFloat16: return "FLOAT16";
    case K::kVariant: return "VARIANT";
    case K::kGeometry: return "GEOMETRY";
    case K::kGeography: return "GEOGRAPHY";
    case K::kUnsupported: return "(unknown logical type)";
  }
  return "";
}

// "optional INT64 TIMESTAMP(MICROS,utc)"-like summary of one schema element.
std::string Describe(const parquet::SchemaElement& e) {
  std::string d = e.repetition_type ? parquet::RepetitionName(*e.repetition_type) : "";
  d += " ";
  d += e.type ? parquet::PhysicalTypeName(*e.type) : fmt::format("group({} fields)", e.num_children.value_or(0));
  if (e.type_length) d += fmt::format("({})", *e.type_length);
  if (e.converted_type) d += fmt::format(" {}", parquet::ConvertedTypeName(*e.converted_type));
  const parquet::LogicalType& lt = e.logical_type;
  if (lt.kind != parquet::LogicalType::Kind::kNone) {
    d += fmt::format(" {}", LogicalName(lt.kind));
    if (lt.kind == parquet::LogicalType::Kind::kTimestamp || lt.kind == parquet::LogicalType::Kind::kTime) {
      static const char* kUnits[] = {"MILLIS", "MICROS", "NANOS"};
      d += fmt::format("({},{})", kUnits[static_cast<int>(lt.unit) % 3],
                       lt.is_adjusted_to_utc ? "utc" : "local");
    } else if (lt.kind == parquet::LogicalType::Kind::kInteger) {
      d += fmt::format("({},{})", lt.bit_width, lt.is_signed ? "signed" : "unsigned");
    }
  }
  if (e.precision || e.scale) d += fmt::format(" ({},{})", e.precision.value_or(0), e.scale.value_or(0));
  if (e.field_id) d += fmt::format(" id={}", *e.field_id);
  return d;
}

bool SameElement(const parquet::SchemaElement& a, const parquet::SchemaElement& b) {
  return a.name == b.name && a.type == b.type && a.type_length == b.type_length &&
         a.repetition_type == b.repetition_type && a.num_children == b.num_children &&
         a.converted_type == b.converted_type && a.scale == b.scale &&
         a.precision == b.precision && a.field_id == b.field_id &&
         a.logical_type == b.logical_type;
}

// InvalidArgument naming `path` and the first column where `s` differs from `first`.
Status CompareSchemas(const parquet::Schema& first, const std::string& first_path,
                      const parquet::Schema& s, const std::string& path) {
  const size_t n = std::min(first.nodes().size(), s.nodes().size());
  for (size_t i = 1; i < n; ++i) {
    const auto& a = first.node(static_cast<int>(i)).element;
    const auto& b = s.node(static_cast<int>(i)).element;
    if (!SameElement(a, b)) {
      return Status::InvalidArgument(
          "{}: schema differs from {}: column '{}' is {} there but column '{}' is {} here", path,
          first_path, NodePath(first, static_cast<int>(i)), Describe(a),
          NodePath(s, static_cast<int>(i)), Describe(b));
    }
  }
  if (first.nodes().size() != s.nodes().size()) {
    const parquet::Schema& longer = first.nodes().size() > s.nodes().size() ? first : s;
    return Status::InvalidArgument("{}: schema differs from {}: column '{}' exists only in {}",
                                   path, first_path, NodePath(longer, static_cast<int>(n)),
                                   &longer == &first ? first_path : path);
  }
  return Status::OK();
}

// Pairs present with the same value in every input, in the first input's order.
std::vector<parquet::KeyValue> CommonKeyValues(
    const std::vector<std::vector<parquet::KeyValue>>& all) {
  std::vector<parquet::KeyValue> out;
  if (all.empty()) return out;
  for (const parquet::KeyValue& kv : all[0]) {
    bool everywhere = true;
    for (size_t i = 1; i < all.size() && everywhere; ++i) {
      everywhere = std::find(all[i].begin(), all[i].end(), kv) != all[i].end();
    }
    if (everywhere) out.push_back(kv);
  }
  return out;
}

bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  auto ca = std::filesystem::weakly_canonical(a, ea);
  auto cb = std::filesystem::weakly_canonical(b, eb);
  if (ea || eb) return a == b;
  return ca == cb;
}

void Progress(const Context& ctx, size_t done, size_t total, int64_t rows, bool last) {
  if (!ctx.progress) return;
  std::fprintf(stderr, "\rrewrite: %zu/%zu files, %lld rows%s", done, total,
               static_cast<long long>(rows), last ? "\n" : "");
  std::fflush(stderr);
}

Status RunRewrite(const RewriteOptions& o, const Context& ctx) {
  const auto started = std::chrono::steady_clock::now();
  parquet::WriterOptions wopts;
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
  if (o.page_size <= 0) return UsageError("--page-size must be positive");
  for (const std::string& in : o.inputs) {
    if (SamePath(in, o.out)) {
      return UsageError("the output '{}' is also an input; write to a new file", o.out);
    }
  }
  wopts.compression_level = o.level;
  wopts.row_group_size_bytes = o.row_group_size;
  wopts.page_size_bytes = o.page_size;
  wopts.enable_dictionary = !o.no_dictionary;

  auto fs = io::NewLocalFileSystem();
  // Pass 1: footers only, so a schema mismatch fails before anything is written.
  parquet::Schema schema;
  std::vector<std::vector<parquet::KeyValue>> kvs;
  int64_t bytes_in = 0;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs.get(), o.inputs[i]));
    LITHIFY_ASSIGN_OR_RETURN(io::FileInfo info, fs->Head(o.inputs[i]));
    bytes_in += static_cast<int64_t>(info.size);
    if (i == 0) {
      schema = reader->schema();
    } else {
      LITHIFY_RETURN_NOT_OK(CompareSchemas(schema, o.inputs[0], reader->schema(), o.inputs[i]));
    }
    kvs.push_back(reader->metadata().key_value_metadata);
  }
  wopts.key_value_metadata = CommonKeyValues(kvs);

  // Pass 2: stream every row group into one writer.
  LITHIFY_ASSIGN_OR_RETURN(auto stream, fs->Create(o.out));
  LITHIFY_ASSIGN_OR_RETURN(auto writer, parquet::FileWriter::Open(std::move(stream), schema, wopts));
  int64_t rows = 0;
  Progress(ctx, 0, o.inputs.size(), rows, false);
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    LITHIFY_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs.get(), o.inputs[i]));
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      LITHIFY_ASSIGN_OR_RETURN_CTX(parquet::RowBatch batch, reader->ReadRowGroup(rg, {}), "{}",
                                   o.inputs[i]);
      LITHIFY_RETURN_NOT_OK_CTX(writer->WriteBatch(batch), "{}: row group {}", o.inputs[i], rg);
      rows += batch.num_rows;
      Progress(ctx, i, o.inputs.size(), rows, false);
    }
    Progress(ctx, i + 1, o.inputs.size(), rows, i + 1 == o.inputs.size());
  }
  LITHIFY_ASSIGN_OR_RETURN_CTX(parquet::FileMetaData md, writer->Close(), "{}", o.out);
  LITHIFY_ASSIGN_OR_RETURN(io::FileInfo out_info, fs->Head(o.out));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (ctx.json) {
    nlohmann::json j = {{"output", o.out},
                        {"files", o.inputs.size()},
                        {"rows", rows},
                        {"bytes_in", bytes_in},
                        {"bytes_out", out_info.size},
                        {"row_groups", md.row_groups.size()},
                        {"codec", parquet::CodecName(wopts.codec)},
                        {"seconds", seconds}};
    std::cout << j.dump() << std::endl;
  } else {
    std::cout << fmt::format("rewrote {} file{} ({} rows, {} bytes) into {}: {} bytes, {} row group{}, {}, {:.2f} s",
                             o.inputs.size(), o.inputs.size() == 1 ? "" : "s", rows, bytes_in,
                             o.out, out_info.size, md.row_groups.size(),
                             md.row_groups.size() == 1 ? "" : "s",
                             parquet::CodecName(wopts.codec), seconds)
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
  cmd->add_option("OUT", opts->out, "Output file (must not be one of the inputs)")->required();
  cmd->add_option("IN", opts->inputs, "Input files")->required();
  cmd->add_option("--codec", opts->codec, "zstd|snappy|gzip|lz4_raw|brotli|none (default zstd)");
  cmd->add_option("--level", opts->level, "Compression level (0 = codec default)");
  cmd->add_option("--row-group-size", opts->row_group_size,
                  "Target row group size in BYTES (default 128MB)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("--page-size", opts->page_size, "Target data page size in BYTES (default 1MB)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_flag("--no-dictionary", opts->no_dictionary, "Write PLAIN pages only");
  cmd->callback([selected, opts] {
    *selected = [opts](const Context& ctx) { return RunRewrite(*opts, ctx); };
  });
}

}  // namespace lithify::cli
