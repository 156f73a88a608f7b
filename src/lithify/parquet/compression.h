// Page compression codecs (parquet-format Compression.md).
//
// Stateless free functions; safe from any thread. Decompression always knows the exact
// uncompressed size from the page header and fails with Corruption if the codec
// produces a different amount, so a lying header can never overflow a buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lithify/base/buffer.h"
#include "lithify/base/status.h"
#include "lithify/parquet/metadata.h"

namespace lithify::parquet {

// True for the codecs this build can decompress: UNCOMPRESSED, SNAPPY, GZIP (also
// several concatenated members), BROTLI, LZ4 (Hadoop framing, falling back to raw LZ4
// block when the framing does not parse, as parquet-cpp does), ZSTD, LZ4_RAW.
// LZO is not supported (NotSupported naming it).
bool CanDecompress(CompressionCodec codec);

// Decompresses `in` into exactly `out_size` bytes at `out`.
// Corruption if the input is malformed or decompresses to a different size.
Status Decompress(CompressionCodec codec, ByteView in, uint8_t* out, size_t out_size);

struct CompressOptions {
  // Codec-specific level; 0 means lithify's default: ZSTD 3 (zstd's own default, as
  // DuckDB uses; compaction output is long-lived, and on the rewrite benchmark level 1 made
  // files 26% larger for a 12% speed gain: docs/benchmarks.md), GZIP 6, BROTLI quality 1. Ignored by SNAPPY, LZ4_RAW and UNCOMPRESSED. A level out
  // of the codec's range is InvalidArgument.
  int level = 0;
};

// True for codecs this build can write: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, BROTLI.
bool CanCompress(CompressionCodec codec);

// Replaces `out`'s content with the compressed form of `in`.
Status Compress(CompressionCodec codec, ByteView in, Buffer* out,
                const CompressOptions& options = {});

// Parses "zstd", "snappy", "gzip", "lz4_raw", "brotli", "none"/"uncompressed"
// (case-insensitive). InvalidArgument listing the accepted names otherwise.
Result<CompressionCodec> ParseCodecName(std::string_view name);

// CRC-32 as used for page checksums (the zlib/gzip polynomial).
uint32_t Crc32(ByteView data);

}  // namespace lithify::parquet
