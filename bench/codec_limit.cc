// codec_limit: the time the compression codecs alone need for a rewrite (issue 18, "toward
// the codec limit"). A rewrite (OPTIMIZE, parquet rewrite, DuckDB's COPY) cannot be faster
// than decompressing every page it reads plus compressing every page it writes; this
// measures exactly that work on the same bytes, with lithify's codec functions, one thread:
//   - every page of every column chunk of the INPUT files is decompressed with its codec;
//   - every page of the OUTPUT files is decompressed (untimed, to recover what the writer
//     compressed) and then compressed again with the output's codec at --level (timed).
// Only the codec calls are timed (thread CPU time), not reading files or parsing headers,
// so the figure is a floor: a bench script divides the rewrite's CPU time by it.
// A rewrite that copies a page as stored (lithify's page and row-group copies) need not
// compress it again: output pages byte-identical to an input page are counted apart
// ("copied_pages"), and "needed_seconds" leaves out their compression. Their input's
// decompression stays in: statistics are computed from the values, so every input page
// is decoded either way.
//
//   codec_limit --level N --inputs @LIST|FILE... --outputs @LIST|FILE...
//
// @LIST is a file with one path per line (2,000 paths exceed one argument list). Prints
// one JSON object: {"decompress_seconds","compress_seconds","codec_seconds",
// "input_files","input_pages","input_compressed_bytes","input_uncompressed_bytes",
// "output_files","output_pages","output_uncompressed_bytes","output_compressed_bytes",
// "recompressed_bytes"} (recompressed_bytes: what the codec produced here, next to what the
// writer stored, as a check that the level matches).
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/metadata.h"

namespace lp = lithify::parquet;
using lithify::ByteView;
using lithify::Status;

namespace {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Totals {
  double decompress_seconds = 0;
  double compress_seconds = 0;
  int64_t input_files = 0, input_pages = 0, input_compressed = 0, input_uncompressed = 0;
  int64_t output_files = 0, output_pages = 0, output_uncompressed = 0, output_compressed = 0;
  int64_t recompressed = 0;
  // Input pages by their stored bytes (a 64-bit hash of body + size), to recognise pages
  // copied into the outputs.
  std::unordered_set<uint64_t> input_pages_seen;
  int64_t copied_pages = 0;
  double copied_seconds = 0;  // compress time of copied pages
};

uint64_t PageKey(ByteView body) {
  const uint64_t h = std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  return h ^ (static_cast<uint64_t>(body.size()) * 0x9E3779B97F4A7C15ull);
}

// The part of a page body the codec covers: a v2 page stores its levels uncompressed
// ahead of the compressed values, and may not be compressed at all.
struct CodecSpan {
  size_t prefix = 0;        // bytes stored as is (v2 levels)
  bool compressed = true;   // false: the values are stored uncompressed too
};

CodecSpan SpanOf(const lp::PageHeader& h) {
  CodecSpan s;
  if (h.data_page_header_v2) {
    const auto& v2 = *h.data_page_header_v2;
    s.prefix = static_cast<size_t>(v2.definition_levels_byte_length) +
               static_cast<size_t>(v2.repetition_levels_byte_length);
    s.compressed = v2.is_compressed;
  }
  return s;
}

// Calls fn(header, stored body bytes) for every page of one column chunk.
template <typename Fn>
Status ForEachPage(lithify::io::RandomAccessFile* file, const lp::ColumnMetaData& md, Fn fn) {
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
      *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  std::vector<uint8_t> chunk(static_cast<size_t>(md.total_compressed_size));
  LITHIFY_RETURN_NOT_OK(file->ReadAt(static_cast<uint64_t>(start), chunk.size(), chunk.data()));
  size_t pos = 0;
  while (pos < chunk.size()) {
    size_t header_size = 0;
    LITHIFY_ASSIGN_OR_RETURN(lp::PageHeader h, lp::ParsePageHeader(
        ByteView(chunk.data() + pos, chunk.size() - pos), &header_size));
    pos += header_size;
    const auto body_size = static_cast<size_t>(h.compressed_page_size);
    if (body_size > chunk.size() - pos) {
      return Status::Corruption("{}: page runs past its column chunk", file->path());
    }
    LITHIFY_RETURN_NOT_OK(fn(h, ByteView(chunk.data() + pos, body_size)));
    pos += body_size;
  }
  return Status::OK();
}

// Decompresses one page body into `out` (the whole uncompressed body, levels included).
Status DecompressPage(lp::CompressionCodec codec, const lp::PageHeader& h, ByteView body,
                      std::vector<uint8_t>* out) {
  const CodecSpan span = SpanOf(h);
  out->resize(static_cast<size_t>(h.uncompressed_page_size));
  if (span.prefix > body.size() || span.prefix > out->size()) {
    return Status::Corruption("page levels longer than the page");
  }
  std::copy(body.data(), body.data() + span.prefix, out->data());
  ByteView values(body.data() + span.prefix, body.size() - span.prefix);
  if (!span.compressed || codec == lp::CompressionCodec::kUncompressed) {
    if (values.size() != out->size() - span.prefix) return Status::Corruption("page size mismatch");
    std::copy(values.data(), values.data() + values.size(), out->data() + span.prefix);
    return Status::OK();
  }
  return lp::Decompress(codec, values, out->data() + span.prefix, out->size() - span.prefix);
}

using ChunkFn = Status (*)(lithify::io::RandomAccessFile*, const lp::ColumnMetaData&, int, Totals*);

Status ForEachChunk(lithify::io::FileSystem* fs, const std::string& path, int level, Totals* t,
                    ChunkFn fn) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, lp::FileReader::Open(fs, path));
  LITHIFY_ASSIGN_OR_RETURN(auto file, fs->OpenForRead(path));
  for (const lp::RowGroup& rg : reader->metadata().row_groups) {
    for (const lp::ColumnChunk& cc : rg.columns) {
      if (!cc.meta_data) return Status::NotSupported("{}: column chunk without metadata", path);
      LITHIFY_RETURN_NOT_OK(fn(file.get(), *cc.meta_data, level, t));
    }
  }
  return Status::OK();
}

// Input: time the decompression of every page.
Status DecompressChunk(lithify::io::RandomAccessFile* file, const lp::ColumnMetaData& md, int,
                       Totals* t) {
  std::vector<uint8_t> page;
  return ForEachPage(file, md, [&](const lp::PageHeader& h, ByteView body) -> Status {
    const double c0 = ThreadCpuSeconds();
    LITHIFY_RETURN_NOT_OK(DecompressPage(md.codec, h, body, &page));
    t->decompress_seconds += ThreadCpuSeconds() - c0;
    t->input_pages_seen.insert(PageKey(body));
    t->input_pages += 1;
    t->input_compressed += static_cast<int64_t>(body.size());
    t->input_uncompressed += h.uncompressed_page_size;
    return Status::OK();
  });
}

// Output: recover each page's uncompressed bytes, then time compressing them again.
Status RecompressChunk(lithify::io::RandomAccessFile* file, const lp::ColumnMetaData& md, int level,
                       Totals* t) {
  std::vector<uint8_t> page;
  lithify::Buffer packed;
  lp::CompressOptions options;
  options.level = level;
  return ForEachPage(file, md, [&](const lp::PageHeader& h, ByteView body) -> Status {
    LITHIFY_RETURN_NOT_OK(DecompressPage(md.codec, h, body, &page));
    t->output_pages += 1;
    t->output_uncompressed += h.uncompressed_page_size;
    t->output_compressed += static_cast<int64_t>(body.size());
    const CodecSpan span = SpanOf(h);
    if (!span.compressed || md.codec == lp::CompressionCodec::kUncompressed) return Status::OK();
    ByteView values(page.data() + span.prefix, page.size() - span.prefix);
    const double c0 = ThreadCpuSeconds();
    LITHIFY_RETURN_NOT_OK(lp::Compress(md.codec, values, &packed, options));
    const double seconds = ThreadCpuSeconds() - c0;
    t->compress_seconds += seconds;
    if (t->input_pages_seen.count(PageKey(body)) != 0) {
      t->copied_pages += 1;
      t->copied_seconds += seconds;
    }
    t->recompressed += static_cast<int64_t>(span.prefix + packed.size());
    return Status::OK();
  });
}

// "@FILE" expands to FILE's lines; anything else is one path.
bool AddPaths(const std::string& arg, std::vector<std::string>* out) {
  if (arg.empty() || arg[0] != '@') {
    out->push_back(arg);
    return true;
  }
  std::ifstream in(arg.substr(1));
  if (!in) return false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out->push_back(line);
  }
  return true;
}

int Usage() {
  std::fprintf(stderr, "usage: codec_limit --level N --inputs @LIST|FILE... --outputs @LIST|FILE...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int level = 0;
  std::vector<std::string> inputs, outputs;
  std::vector<std::string>* into = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--level" && i + 1 < argc) {
      level = std::atoi(argv[++i]);
    } else if (a == "--inputs") {
      into = &inputs;
    } else if (a == "--outputs") {
      into = &outputs;
    } else if (into == nullptr || !AddPaths(a, into)) {
      return Usage();
    }
  }
  if (inputs.empty() || outputs.empty()) return Usage();
  auto fs = lithify::io::NewLocalFileSystem();
  Totals t;
  for (const std::string& p : inputs) {
    Status s = ForEachChunk(fs.get(), p, level, &t, DecompressChunk);
    if (!s.ok()) {
      std::fprintf(stderr, "codec_limit: %s: %s\n", p.c_str(), s.ToString().c_str());
      return 1;
    }
    t.input_files += 1;
  }
  for (const std::string& p : outputs) {
    Status s = ForEachChunk(fs.get(), p, level, &t, RecompressChunk);
    if (!s.ok()) {
      std::fprintf(stderr, "codec_limit: %s: %s\n", p.c_str(), s.ToString().c_str());
      return 1;
    }
    t.output_files += 1;
  }
  std::printf(
      "{\"decompress_seconds\":%.3f,\"compress_seconds\":%.3f,\"codec_seconds\":%.3f,"
      "\"input_files\":%lld,\"input_pages\":%lld,\"input_compressed_bytes\":%lld,"
      "\"input_uncompressed_bytes\":%lld,\"output_files\":%lld,\"output_pages\":%lld,"
      "\"output_uncompressed_bytes\":%lld,\"output_compressed_bytes\":%lld,"
      "\"recompressed_bytes\":%lld,\"copied_pages\":%lld,\"needed_seconds\":%.3f}\n",
      t.decompress_seconds, t.compress_seconds, t.decompress_seconds + t.compress_seconds,
      static_cast<long long>(t.input_files), static_cast<long long>(t.input_pages),
      static_cast<long long>(t.input_compressed), static_cast<long long>(t.input_uncompressed),
      static_cast<long long>(t.output_files), static_cast<long long>(t.output_pages),
      static_cast<long long>(t.output_uncompressed), static_cast<long long>(t.output_compressed),
      static_cast<long long>(t.recompressed), static_cast<long long>(t.copied_pages),
      t.decompress_seconds + t.compress_seconds - t.copied_seconds);
  return 0;
}
