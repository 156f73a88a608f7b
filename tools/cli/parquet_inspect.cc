// `lithify parquet inspect FILE [--json]`: the footer of one Parquet file: writer,
// key-value metadata, schema tree, and per row group / column chunk the layout and
// statistics (min/max decoded with the canonical value formatting of `parquet cat`).
// Reads the footer only.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/io/filesystem.h"
#include "lithify/base/text.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"
#include "tools/cli/parquet_commands.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

using json = nlohmann::ordered_json;
using parquet::LogicalType;

struct InspectOptions {
  std::string file;
};

const char* UnitName(parquet::TimeUnit u) {
  switch (u) {
    case parquet::TimeUnit::kMillis: return "MILLIS";
    case parquet::TimeUnit::kMicros: return "MICROS";
    case parquet::TimeUnit::kNanos: return "NANOS";
  }
  return "UNKNOWN";
}

// "DECIMAL(10,2)", "TIMESTAMP(MICROS,UTC)", "INT(8,unsigned)", ...; empty when absent.
std::string LogicalTypeText(const LogicalType& lt) {
  using K = LogicalType::Kind;
  switch (lt.kind) {
    case K::kNone: return "";
    case K::kString: return "STRING";
    case K::kMap: return "MAP";
    case K::kList: return "LIST";
    case K::kEnum: return "ENUM";
    case K::kDecimal: return fmt::format("DECIMAL({},{})", lt.precision, lt.scale);
    case K::kDate: return "DATE";
    case K::kTime:
    case K::kTimestamp:
      return fmt::format("{}({},{})", lt.kind == K::kTime ? "TIME" : "TIMESTAMP", UnitName(lt.unit),
                         lt.is_adjusted_to_utc ? "UTC" : "local");
    case K::kInteger:
      return fmt::format("INT({},{})", static_cast<int>(lt.bit_width),
                         lt.is_signed ? "signed" : "unsigned");
    case K::kUnknown: return "UNKNOWN";
    case K::kJson: return "JSON";
    case K::kBson: return "BSON";
    case K::kUuid: return "UUID";
    case K::kFloat16: return "FLOAT16";
    case K::kVariant: return "VARIANT";
    case K::kGeometry: return "GEOMETRY";
    case K::kGeography: return "GEOGRAPHY";
    case K::kUnsupported: return fmt::format("UNSUPPORTED(field {})", lt.thrift_field_id);
  }
  return "UNSUPPORTED";
}

// Terminal-safe text: control characters escaped, long values cut with their size.
std::string Printable(std::string_view s, size_t max_chars = 100) {
  std::string out;
  for (size_t i = 0; i < s.size() && out.size() < max_chars; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (out.size() >= max_chars && s.size() > max_chars) {
    out += fmt::format("... ({} bytes)", s.size());
  }
  return out;
}

std::string PhysicalText(const parquet::SchemaElement& e) {
  std::string t = parquet::PhysicalTypeName(*e.type);
  if (*e.type == parquet::PhysicalType::kFixedLenByteArray && e.type_length) {
    t += fmt::format("({})", *e.type_length);
  }
  return t;
}

// ---- human output ----

void PrintSchemaNode(const parquet::Schema& schema, int n, int depth, std::string* out) {
  const parquet::SchemaNode& node = schema.node(n);
  const parquet::SchemaElement& e = node.element;
  std::string line(static_cast<size_t>(2 + 2 * depth), ' ');
  if (n == 0) {
    line += "message " + Printable(node.name);
  } else {
    line += parquet::RepetitionName(node.repetition);
    line += ' ';
    line += node.is_leaf() ? PhysicalText(e) : std::string("group");
    line += ' ';
    line += Printable(node.name);
  }
  std::string logical = LogicalTypeText(e.logical_type);
  if (!logical.empty()) line += " (" + logical + ")";
  if (e.converted_type) {
    line += fmt::format(" [converted {}", parquet::ConvertedTypeName(*e.converted_type));
    if (*e.converted_type == parquet::ConvertedType::kDecimal) {
      line += fmt::format("({},{})", e.precision.value_or(0), e.scale.value_or(0));
    }
    line += "]";
  }
  if (e.field_id) line += fmt::format(" id={}", *e.field_id);
  *out += line + "\n";
  for (int c : node.children) PrintSchemaNode(schema, c, depth + 1, out);
}

std::string Opt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string StatValue(const parquet::Schema& schema, int leaf, const std::string& bytes) {
  return Printable(parquet::FormatStatValue(schema, leaf, bytes), 80);
}

void PrintStatistics(const parquet::Schema& schema, int leaf, const parquet::Statistics& s,
                     std::string* out) {
  std::string line = "      stats:";
  if (s.min_value || s.max_value) {
    if (s.min_value) line += " min=" + StatValue(schema, leaf, *s.min_value);
    if (s.max_value) line += " max=" + StatValue(schema, leaf, *s.max_value);
  } else if (s.min || s.max) {
    // Deprecated fields, ordered by signed comparison: shown but labelled.
    if (s.min) line += " legacy_min=" + StatValue(schema, leaf, *s.min);
    if (s.max) line += " legacy_max=" + StatValue(schema, leaf, *s.max);
  }
  if (s.null_count) line += fmt::format(" nulls={}", *s.null_count);
  if (s.distinct_count) line += fmt::format(" distinct={}", *s.distinct_count);
  if (s.nan_count) line += fmt::format(" nans={}", *s.nan_count);
  if (s.is_min_value_exact) line += fmt::format(" min_exact={}", *s.is_min_value_exact);
  if (s.is_max_value_exact) line += fmt::format(" max_exact={}", *s.is_max_value_exact);
  *out += line + "\n";
}

std::string EncodingsText(const std::vector<parquet::Encoding>& encodings) {
  std::string t;
  for (size_t i = 0; i < encodings.size(); ++i) {
    if (i > 0) t += ',';
    t += parquet::EncodingName(encodings[i]);
  }
  return t.empty() ? "-" : t;
}

std::string ChunkPath(const parquet::Schema& schema, const parquet::ColumnChunk& chunk, int leaf) {
  if (leaf < schema.num_leaves()) return Printable(schema.leaf(leaf).dotted_path);
  if (chunk.meta_data) {
    std::string p;
    for (const std::string& part : chunk.meta_data->path_in_schema) {
      if (!p.empty()) p += '.';
      p += part;
    }
    return Printable(p);
  }
  return fmt::format("#{}", leaf);
}

std::string HumanReport(const parquet::FileReader& reader) {
  const parquet::FileMetaData& md = reader.metadata();
  const parquet::Schema& schema = reader.schema();
  std::string out;
  out += fmt::format("file: {}\n", Printable(reader.path(), 4096));
  out += fmt::format("created_by: {}\n", md.created_by ? Printable(*md.created_by) : "-");
  out += fmt::format("version: {}\nrows: {}\nrow groups: {}\n", md.version, md.num_rows,
                     md.row_groups.size());
  if (!md.key_value_metadata.empty()) {
    out += "key-value metadata:\n";
    for (const parquet::KeyValue& kv : md.key_value_metadata) {
      out += fmt::format("  {}: {}\n", Printable(kv.key),
                         kv.value ? Printable(*kv.value) : std::string("(null)"));
    }
  }
  out += "schema:\n";
  if (!schema.nodes().empty()) PrintSchemaNode(schema, 0, 0, &out);
  for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
    const parquet::RowGroup& group = md.row_groups[rg];
    out += fmt::format("row group {}: {} rows, {} bytes", rg, group.num_rows,
                       group.total_byte_size);
    if (group.total_compressed_size) {
      out += fmt::format(" ({} compressed)", *group.total_compressed_size);
    }
    out += "\n";
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const parquet::ColumnChunk& chunk = group.columns[c];
      const int leaf = static_cast<int>(c);
      out += fmt::format("    {}:", ChunkPath(schema, chunk, leaf));
      if (!chunk.meta_data) {
        out += chunk.has_crypto_metadata ? " encrypted\n" : " no metadata\n";
        continue;
      }
      const parquet::ColumnMetaData& m = *chunk.meta_data;
      out += fmt::format(
          " {} {} [{}] values={} compressed={} uncompressed={} data_page_offset={} "
          "dictionary_page_offset={}\n",
          parquet::PhysicalTypeName(m.type), parquet::CodecName(m.codec),
          EncodingsText(m.encodings), m.num_values, m.total_compressed_size,
          m.total_uncompressed_size, m.data_page_offset, Opt(m.dictionary_page_offset));
      if (m.statistics) PrintStatistics(schema, leaf, *m.statistics, &out);
    }
  }
  return out;
}

// ---- JSON output ----

// FormatStatValue yields canonical JSON text; embed it as a JSON value.
json StatJson(const parquet::Schema& schema, int leaf, const std::string& bytes) {
  json v = json::parse(parquet::FormatStatValue(schema, leaf, bytes), nullptr, false);
  return v.is_discarded() ? json("<unparseable>") : v;
}

json SchemaJson(const parquet::Schema& schema, int n) {
  const parquet::SchemaNode& node = schema.node(n);
  const parquet::SchemaElement& e = node.element;
  json j = {{"name", node.name}};
  if (n > 0) j["repetition"] = parquet::RepetitionName(node.repetition);
  if (node.is_leaf()) {
    j["physical_type"] = parquet::PhysicalTypeName(*e.type);
    if (e.type_length) j["type_length"] = *e.type_length;
  }
  std::string logical = LogicalTypeText(e.logical_type);
  if (!logical.empty()) j["logical_type"] = logical;
  if (e.converted_type) j["converted_type"] = parquet::ConvertedTypeName(*e.converted_type);
  if (e.scale) j["scale"] = *e.scale;
  if (e.precision) j["precision"] = *e.precision;
  if (e.field_id) j["field_id"] = *e.field_id;
  if (!node.is_leaf()) {
    json children = json::array();
    for (int c : node.children) children.push_back(SchemaJson(schema, c));
    j["children"] = std::move(children);
  }
  return j;
}

json StatisticsJson(const parquet::Schema& schema, int leaf, const parquet::Statistics& s) {
  json j = json::object();
  if (s.min_value) j["min"] = StatJson(schema, leaf, *s.min_value);
  if (s.max_value) j["max"] = StatJson(schema, leaf, *s.max_value);
  if (s.min) j["legacy_min"] = StatJson(schema, leaf, *s.min);
  if (s.max) j["legacy_max"] = StatJson(schema, leaf, *s.max);
  if (s.null_count) j["null_count"] = *s.null_count;
  if (s.distinct_count) j["distinct_count"] = *s.distinct_count;
  if (s.nan_count) j["nan_count"] = *s.nan_count;
  if (s.is_min_value_exact) j["is_min_value_exact"] = *s.is_min_value_exact;
  if (s.is_max_value_exact) j["is_max_value_exact"] = *s.is_max_value_exact;
  return j;
}

json ChunkJson(const parquet::Schema& schema, const parquet::ColumnChunk& chunk, int leaf) {
  json j = {{"path", leaf < schema.num_leaves() ? schema.leaf(leaf).dotted_path : ""}};
  if (chunk.file_path) j["file_path"] = *chunk.file_path;
  if (!chunk.meta_data) {
    j["encrypted"] = chunk.has_crypto_metadata;
    return j;
  }
  const parquet::ColumnMetaData& m = *chunk.meta_data;
  json encodings = json::array();
  for (parquet::Encoding e : m.encodings) encodings.push_back(parquet::EncodingName(e));
  j["physical_type"] = parquet::PhysicalTypeName(m.type);
  j["codec"] = parquet::CodecName(m.codec);
  j["encodings"] = std::move(encodings);
  j["num_values"] = m.num_values;
  j["total_compressed_size"] = m.total_compressed_size;
  j["total_uncompressed_size"] = m.total_uncompressed_size;
  j["data_page_offset"] = m.data_page_offset;
  if (m.dictionary_page_offset) j["dictionary_page_offset"] = *m.dictionary_page_offset;
  if (m.index_page_offset) j["index_page_offset"] = *m.index_page_offset;
  if (chunk.column_index_offset) j["column_index_offset"] = *chunk.column_index_offset;
  if (chunk.offset_index_offset) j["offset_index_offset"] = *chunk.offset_index_offset;
  if (m.bloom_filter_offset) j["bloom_filter_offset"] = *m.bloom_filter_offset;
  if (m.statistics) j["statistics"] = StatisticsJson(schema, leaf, *m.statistics);
  return j;
}

json JsonReport(const parquet::FileReader& reader) {
  const parquet::FileMetaData& md = reader.metadata();
  const parquet::Schema& schema = reader.schema();
  json kvs = json::array();
  for (const parquet::KeyValue& kv : md.key_value_metadata) {
    kvs.push_back({{"key", kv.key}, {"value", kv.value ? json(*kv.value) : json(nullptr)}});
  }
  json groups = json::array();
  for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
    const parquet::RowGroup& group = md.row_groups[rg];
    json columns = json::array();
    for (size_t c = 0; c < group.columns.size(); ++c) {
      columns.push_back(ChunkJson(schema, group.columns[c], static_cast<int>(c)));
    }
    json g = {{"index", rg}, {"num_rows", group.num_rows},
              {"total_byte_size", group.total_byte_size}};
    if (group.total_compressed_size) g["total_compressed_size"] = *group.total_compressed_size;
    g["columns"] = std::move(columns);
    groups.push_back(std::move(g));
  }
  json j = {{"path", reader.path()},
            {"created_by", md.created_by ? json(*md.created_by) : json(nullptr)},
            {"version", md.version},
            {"num_rows", md.num_rows},
            {"key_value_metadata", std::move(kvs)}};
  j["schema"] = schema.nodes().empty() ? json(nullptr) : SchemaJson(schema, 0);
  j["row_groups"] = std::move(groups);
  return j;
}

Status RunInspect(const InspectOptions& opts, const Context& ctx) {
  Result<OpenedLocation> loc = OpenLocation(opts.file);
  if (!loc.ok()) return NameFile(loc.status(), opts.file);
  Result<std::unique_ptr<parquet::FileReader>> opened = parquet::FileReader::Open(loc->fs(), loc->path());
  if (!opened.ok()) return NameFile(opened.status(), opts.file);
  if (ctx.json) {
    // Footer strings may hold any bytes: invalid UTF-8 is replaced rather than thrown on.
    std::cout << JsonReport(**opened).dump(2, ' ', false, json::error_handler_t::replace)
              << std::endl;
  } else {
    std::cout << HumanReport(**opened) << std::flush;
  }
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

}  // namespace

void RegisterParquetInspect(CLI::App& parquet, Runner* selected) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* cmd = parquet.add_subcommand(
      "inspect", "Show a Parquet file's footer: schema, row groups, column chunks, statistics");
  PathOption(cmd->add_option("file", opts->file, "Parquet file")->required());
  cmd->callback([selected, opts] {
    *selected = [opts](const Context& ctx) { return RunInspect(*opts, ctx); };
  });
}

}  // namespace lithify::cli
