// ColumnChunkReader (private to the reader library): decodes the pages of one column
// chunk into a ColumnData in levels form.
//
// The caller hands over the chunk's bytes (already read from the file); the reader
// walks page headers, verifies CRCs, decompresses each page into a reused scratch
// buffer, decodes levels and values and appends them to the output. The dictionary and
// scratch buffers are kept between chunks so a FileReader reading many row groups
// allocates little. One instance is used by one thread at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/status.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet::internal {

struct ChunkReadOptions {
  bool verify_checksums = true;
  // Upper bound of the decoded levels + values of one chunk (a hostile page can claim
  // billions of RLE-encoded values in a few bytes).
  int64_t max_decoded_bytes = int64_t{2} << 30;
};

class ColumnChunkReader {
 public:
  // Decodes all pages of a chunk. `chunk` holds the chunk's bytes starting at its first
  // page; `num_rows` is the row group's row count, checked against the rows decoded.
  // Errors are "page P: problem" (P counts every page of the chunk from 0) or a
  // chunk-level problem; the caller adds file/row group/column context.
  Status Read(const ColumnDescriptor& descr, const ColumnMetaData& meta, ByteView chunk,
              int64_t num_rows, const ChunkReadOptions& options, ColumnData* out);

 private:
  Status ReadDictionaryPage(const PageHeader& header, ByteView page);
  Status ReadDataPageV1(const PageHeader& header, ByteView page);
  Status ReadDataPageV2(const PageHeader& header, ByteView page);
  // Decodes the levels of a page: `rep`/`def` hold the level bytes without prefix.
  Status DecodeLevels(int32_t num_values, ByteView rep, Encoding rep_encoding, ByteView def,
                      Encoding def_encoding, int64_t* non_null);
  Status DecodeValues(Encoding encoding, ByteView in, int64_t n);
  Status DecodeDictionaryIndices(ByteView in, int64_t n);
  Status GatherFromDictionary(int64_t n);
  Status ChargeMemory(int64_t bytes);
  // Returns the page bytes after decompression (`page` itself when uncompressed).
  Result<ByteView> Decompressed(ByteView page, int64_t uncompressed_size);

  // Per-chunk state.
  const ColumnDescriptor* descr_ = nullptr;
  CompressionCodec codec_ = CompressionCodec::kUncompressed;
  ChunkReadOptions options_;
  ColumnData* out_ = nullptr;
  int64_t levels_read_ = 0;
  int64_t rows_read_ = 0;
  int64_t expected_levels_ = 0;  // the chunk's num_values
  int64_t expected_rows_ = 0;    // the row group's num_rows
  int64_t decoded_bytes_ = 0;
  bool has_dictionary_ = false;

  // Reused across chunks.
  Buffer scratch_;
  ColumnValues dict_;
  std::vector<uint32_t> indices_;
};

}  // namespace lithify::parquet::internal
