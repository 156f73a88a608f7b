// chunk_copy_bench: does copying column chunks without decoding pay? Rewrites the same
// inputs with parquet::RewriteFiles twice in one process, alternating:
//   decode: every row group decoded and re-encoded (zstd, the compaction inner loop);
//   copy:   row groups of at least MIN_BYTES compressed copied byte for byte
//           (RewriteOptions::copy_row_group_min_bytes, FileWriter::AppendRowGroupCopy).
// Both outputs are then read back completely and compared value for value (the run
// fails if they differ), and the copy output's row groups are counted.
//
//   chunk_copy_bench OUT_DIR MIN_BYTES RUNS FILE...
//
// Prints one JSON object per run and mode: {"mode","seconds","cpu_seconds","bytes_in",
// "bytes_out","row_groups","row_groups_copied"}, then {"same_rows":true}.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lithify/base/allocator.h"
#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rewrite.h"

namespace lp = lithify::parquet;

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int Fail(const lithify::Status& s) {
  std::fprintf(stderr, "chunk_copy_bench: %s\n", s.ToString().c_str());
  return 1;
}

// Row count and a checksum of every leaf's levels and values, in order.
lithify::Result<std::pair<int64_t, uint64_t>> Digest(lithify::io::FileSystem* fs, const std::string& path) {
  LITHIFY_ASSIGN_OR_RETURN(auto reader, lp::FileReader::Open(fs, path));
  int64_t rows = 0;
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  lp::RowBatch batch;
  for (int c = 0; c < reader->schema().num_leaves(); ++c) {
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      LITHIFY_ASSIGN_OR_RETURN(auto stream, reader->OpenRowGroup(rg, {c}));
      for (;;) {
        LITHIFY_ASSIGN_OR_RETURN(bool more, stream->Next(&batch));
        if (!more) break;
        if (c == 0) rows += batch.num_rows;
        const lp::ColumnData& col = batch.columns[0];
        mix(col.def_levels.data(), col.def_levels.size() * sizeof(int16_t));
        mix(col.rep_levels.data(), col.rep_levels.size() * sizeof(int16_t));
        for (int64_t i = 0; i < col.values.count; ++i) {
          if (col.values.is_byte_array()) {
            std::string_view v = col.values.binary(i);
            mix(v.data(), v.size());
          } else {
            mix(col.values.fixed_at(i), static_cast<size_t>(col.values.width()));
          }
        }
      }
    }
  }
  return std::make_pair(rows, h);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: chunk_copy_bench OUT_DIR MIN_BYTES RUNS FILE...\n");
    return 2;
  }
  lithify::TuneAllocatorForStreaming();
  const std::string out_dir = argv[1];
  const int64_t min_bytes = std::atoll(argv[2]);
  const int runs = std::atoi(argv[3]);
  std::vector<std::string> inputs(argv + 4, argv + argc);
  auto fs = lithify::io::NewLocalFileSystem();
  const std::string outs[2] = {out_dir + "/decode.parquet", out_dir + "/copy.parquet"};
  for (int run = 0; run < runs; ++run) {
    for (int k = 0; k < 2; ++k) {
      const int mode = (run % 2 == 0) ? k : 1 - k;  // alternate the order
      lp::RewriteOptions opts;
      opts.copy_row_group_min_bytes = mode == 1 ? min_bytes : 0;
      (void)fs->Delete(outs[mode]);
      const double cpu0 = CpuSeconds();
      const auto t0 = std::chrono::steady_clock::now();
      auto r = lp::RewriteFiles(fs.get(), inputs, outs[mode], opts);
      if (!r.ok()) return Fail(r.status());
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf(
          "{\"mode\":\"%s\",\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"bytes_in\":%lld,\"bytes_out\":%lld,"
          "\"row_groups\":%lld,\"row_groups_copied\":%lld}\n",
          mode == 1 ? "copy" : "decode", secs, CpuSeconds() - cpu0, static_cast<long long>(r->bytes_in),
          static_cast<long long>(r->bytes_out), static_cast<long long>(r->row_groups),
          static_cast<long long>(r->row_groups_copied));
      std::fflush(stdout);
    }
  }
  auto a = Digest(fs.get(), outs[0]);
  if (!a.ok()) return Fail(a.status());
  auto b = Digest(fs.get(), outs[1]);
  if (!b.ok()) return Fail(b.status());
  if (*a != *b) {
    std::fprintf(stderr, "chunk_copy_bench: the outputs differ (%lld vs %lld rows)\n",
                 static_cast<long long>(a->first), static_cast<long long>(b->first));
    return 1;
  }
  std::printf("{\"same_rows\":true,\"rows\":%lld}\n", static_cast<long long>(a->first));
  return 0;
}
