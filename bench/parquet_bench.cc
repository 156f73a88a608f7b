// parquet_bench: decode-only and encode-only throughput of lithify's Parquet codec.
//
//   parquet_bench decode FILE...        read every row group of every file, all columns
//   parquet_bench encode OUT FILE...    decode all inputs into memory first (untimed),
//                                       then time writing them into OUT (zstd)
//   parquet_bench rewrite OUT FILE...   parquet::RewriteFiles (column at a time, zstd)
//
// Prints one JSON object: {"mode", "files", "rows", "input_bytes", "seconds"}.
// Driven by bench/rewrite_bench.mjs, which measures DuckDB on the same inputs.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "lithify/base/allocator.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/rewrite.h"

namespace lp = lithify::parquet;

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Fail(const lithify::Status& s) {
  std::fprintf(stderr, "parquet_bench: %s\n", s.ToString().c_str());
  return 1;
}

int Decode(const std::vector<std::string>& files) {
  auto fs = lithify::io::NewLocalFileSystem();
  int64_t rows = 0, bytes = 0;
  lp::RowBatch batch;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& f : files) {
    auto reader = lp::FileReader::Open(fs.get(), f);
    if (!reader.ok()) return Fail(reader.status());
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      // The streaming path, as compaction uses it: one reused batch.
      auto stream = (*reader)->OpenRowGroup(rg, {});
      if (!stream.ok()) return Fail(stream.status());
      while (true) {
        auto more = (*stream)->Next(&batch);
        if (!more.ok()) return Fail(more.status());
        if (!*more) break;
        rows += batch.num_rows;
      }
    }
    auto info = fs->Head(f);
    if (info.ok()) bytes += static_cast<int64_t>(info->size);
  }
  std::printf("{\"mode\":\"decode\",\"files\":%zu,\"rows\":%lld,\"input_bytes\":%lld,\"seconds\":%.4f}\n",
              files.size(), static_cast<long long>(rows), static_cast<long long>(bytes),
              Seconds(t0));
  return 0;
}

int Encode(const std::string& out, const std::vector<std::string>& files) {
  auto fs = lithify::io::NewLocalFileSystem();
  std::vector<lp::RowBatch> batches;
  lp::Schema schema;
  int64_t rows = 0, bytes = 0;
  std::vector<std::unique_ptr<lp::FileReader>> readers;  // batches point into schemas
  for (const auto& f : files) {
    auto reader = lp::FileReader::Open(fs.get(), f);
    if (!reader.ok()) return Fail(reader.status());
    if (readers.empty()) schema = (*reader)->schema();
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      auto batch = (*reader)->ReadRowGroup(rg, {});
      if (!batch.ok()) return Fail(batch.status());
      rows += batch->num_rows;
      batches.push_back(std::move(*batch));
    }
    auto info = fs->Head(f);
    if (info.ok()) bytes += static_cast<int64_t>(info->size);
    readers.push_back(std::move(*reader));
  }
  auto t0 = std::chrono::steady_clock::now();
  auto stream = fs->Create(out);
  if (!stream.ok()) return Fail(stream.status());
  auto writer = lp::FileWriter::Open(std::move(*stream), schema, {});
  if (!writer.ok()) return Fail(writer.status());
  for (const auto& b : batches) {
    auto st = (*writer)->WriteBatch(b);
    if (!st.ok()) return Fail(st);
  }
  auto md = (*writer)->Close();
  if (!md.ok()) return Fail(md.status());
  std::printf("{\"mode\":\"encode\",\"files\":%zu,\"rows\":%lld,\"input_bytes\":%lld,\"seconds\":%.4f}\n",
              files.size(), static_cast<long long>(rows), static_cast<long long>(bytes),
              Seconds(t0));
  return 0;
}

int Rewrite(const std::string& out, const std::vector<std::string>& files) {
  auto fs = lithify::io::NewLocalFileSystem();
  auto t0 = std::chrono::steady_clock::now();
  auto res = lp::RewriteFiles(fs.get(), files, out, {});
  if (!res.ok()) return Fail(res.status());
  std::printf("{\"mode\":\"rewrite\",\"files\":%zu,\"rows\":%lld,\"input_bytes\":%lld,"
              "\"output_bytes\":%lld,\"row_groups\":%lld,\"seconds\":%.4f}\n",
              files.size(), static_cast<long long>(res->rows),
              static_cast<long long>(res->bytes_in), static_cast<long long>(res->bytes_out),
              static_cast<long long>(res->row_groups), Seconds(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  lithify::TuneAllocatorForStreaming();
  if (argc < 3) {
    std::fprintf(stderr, "usage: parquet_bench decode FILE... | encode OUT FILE... | rewrite OUT FILE...\n");
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "decode") return Decode({argv + 2, argv + argc});
  if (mode == "encode" && argc >= 4) return Encode(argv[2], {argv + 3, argv + argc});
  if (mode == "rewrite" && argc >= 4) return Rewrite(argv[2], {argv + 3, argv + argc});
  std::fprintf(stderr, "usage: parquet_bench decode FILE... | encode OUT FILE... | rewrite OUT FILE...\n");
  return 2;
}
