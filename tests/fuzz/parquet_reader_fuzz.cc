// libFuzzer target: a whole Parquet file through the reader and the row renderer.
//
// The input is the file's bytes. Every error the library returns is acceptable; the
// target only looks for crashes, out-of-bounds accesses, undefined behaviour, leaks,
// unbounded allocations and hangs (the sanitizers and libFuzzer's limits report those).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/rows_json.h"

namespace {

// A few hundred bytes of RLE can legitimately describe gigabytes of values (the corpus
// has such a file); the reader cuts off at this limit so runs stay within libFuzzer's
// RSS limit and per-input timeout.
constexpr int64_t kMaxDecodedChunkBytes = int64_t{16} << 20;
// Rendering is per-row code; the first rows of a batch exercise it as well as millions.
constexpr int64_t kMaxRenderedRows = int64_t{1} << 16;

void ReadEverything(lithify::parquet::FileReader& reader) {
  const auto& schema = reader.schema();
  const std::vector<int>& fields = schema.top_level_fields();
  (void)lithify::parquet::CsvHeader(schema, fields);
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    (void)reader.RowGroupFirstRow(rg);
    auto batch = reader.ReadRowGroup(rg, /*leaves=*/{});
    if (!batch.ok()) continue;
    std::string out;
    (void)lithify::parquet::RenderRows(schema, fields, *batch,
                                       lithify::parquet::RowFormat::kJsonLines, kMaxRenderedRows,
                                       &out);
    out.clear();
    (void)lithify::parquet::RenderRows(schema, fields, *batch,
                                       lithify::parquet::RowFormat::kCsv, kMaxRenderedRows, &out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = lithify::io::NewBufferFile("fuzz.parquet",
                                         lithify::Buffer::CopyOf(lithify::ByteView(data, size)));
  lithify::parquet::ReadOptions options;
  // Mutated pages rarely keep a valid CRC; alternate so decoders see them half the time
  // while the checksum path is still exercised.
  options.verify_checksums = (size % 2) == 0;
  options.max_decoded_chunk_bytes = kMaxDecodedChunkBytes;
  auto reader = lithify::parquet::FileReader::Open(std::move(file), options);
  if (reader.ok()) ReadEverything(**reader);
  return 0;
}
