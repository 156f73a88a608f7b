// Page compression codecs: thin, bounds-checked wrappers over the system libraries.
//
// Every decompressor is told the exact output size (from the page header) and must
// produce exactly that many bytes; no size read from the compressed bytes is trusted
// beyond `out_size`. None of the wrapped libraries throw, so no exception handling is
// needed here. All functions are stateless and thread-safe.
#include "lithify/parquet/compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <libdeflate.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <new>
#include <string>

#include "lithify/base/macros.h"

namespace lithify::parquet {
namespace {

// Defaults used when CompressOptions::level is 0 (documented in compression.h).
constexpr int kZstdDefaultLevel = 3;
constexpr int kGzipDefaultLevel = 6;
constexpr int kBrotliDefaultQuality = 1;

// Some libraries take int or uInt sizes; pages are < 2 GiB by format (int32 sizes).
constexpr size_t kMaxIntSize = static_cast<size_t>(INT_MAX);

// A valid destination pointer for zero-length outputs (libraries reject nullptr).
uint8_t* NonNull(uint8_t* p) {
  static uint8_t dummy;
  return p != nullptr ? p : &dummy;
}
const uint8_t* NonNull(const uint8_t* p) {
  static const uint8_t dummy = 0;
  return p != nullptr ? p : &dummy;
}

Status SizeMismatch(std::string_view codec, size_t got, size_t want) {
  return Status::Corruption("{} page decompressed to {} bytes, header says {}", codec, got,
                            want);
}

Status DecompressUncompressed(ByteView in, uint8_t* out, size_t out_size) {
  if (in.size() != out_size) return SizeMismatch("UNCOMPRESSED", in.size(), out_size);
  if (out_size > 0) std::memcpy(out, in.data(), out_size);
  return Status::OK();
}

Status DecompressSnappy(ByteView in, uint8_t* out, size_t out_size) {
  const char* src = reinterpret_cast<const char*>(NonNull(in.data()));
  size_t len = 0;
  if (!snappy::GetUncompressedLength(src, in.size(), &len)) {
    return Status::Corruption("SNAPPY page has a malformed length header");
  }
  if (len != out_size) return SizeMismatch("SNAPPY", len, out_size);
  // RawUncompress validates every copy against the declared length, which we have
  // just checked equals the buffer size.
  if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(NonNull(out)))) {
    return Status::Corruption("SNAPPY page is malformed");
  }
  return Status::OK();
}

// GZIP pages may hold several concatenated gzip members (e.g. written by streaming
// compressors); each member is inflated in turn into the same output. The window-bits
// value 32+MAX_WBITS auto-detects gzip or zlib headers, accepting old writers that
// emitted zlib-wrapped deflate under the GZIP codec.
Status DecompressGzip(ByteView in, uint8_t* out, size_t out_size) {
  if (in.size() > UINT_MAX || out_size > UINT_MAX) {
    return Status::NotSupported("GZIP pages larger than 4 GiB");
  }
  z_stream zs{};
  if (inflateInit2(&zs, 32 + MAX_WBITS) != Z_OK) {
    return Status::Internal("inflateInit2 failed");
  }
  zs.next_in = const_cast<Bytef*>(NonNull(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = NonNull(out);
  zs.avail_out = static_cast<uInt>(out_size);
  Status st;
  while (true) {
    int rc = inflate(&zs, Z_FINISH);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      // Another member follows.
      if (inflateReset(&zs) != Z_OK) {
        st = Status::Internal("inflateReset failed");
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) {
      st = Status::Corruption("GZIP page decompresses to more than the {} bytes its header says",
                              out_size);
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_in == 0)) {
      st = Status::Corruption("GZIP page is truncated");
    } else if (rc == Z_OK) {
      // Z_FINISH with output space and input left only returns Z_OK on progress; the
      // loop retries until an end state, but guard against a stall all the same.
      if (zs.avail_out == 0) {
        st = Status::Corruption(
            "GZIP page decompresses to more than the {} bytes its header says", out_size);
      } else {
        continue;
      }
    } else {
      st = Status::Corruption("GZIP page is malformed: {}",
                              zs.msg != nullptr ? zs.msg : "inflate error");
    }
    break;
  }
  size_t produced = out_size - zs.avail_out;
  inflateEnd(&zs);
  LITHIFY_RETURN_NOT_OK(st);
  if (produced != out_size) return SizeMismatch("GZIP", produced, out_size);
  return Status::OK();
}

// One zstd context per thread, kept for the thread's life: ZSTD_compress and
// ZSTD_decompress allocate and initialise a fresh context (window and hash tables, about
// 1-2 MiB at level 3) on every call, i.e. on every page. A context carries no state from
// one frame to the next (each call starts a new frame with the given level), so reusing it
// gives byte-identical output; thread_local keeps concurrent column tasks apart.
struct ZstdContexts {
  ZSTD_CCtx* cctx = nullptr;
  ZSTD_DCtx* dctx = nullptr;
  ZstdContexts() = default;
  ZstdContexts(const ZstdContexts&) = delete;
  ZstdContexts& operator=(const ZstdContexts&) = delete;
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};

ZstdContexts& ThreadZstd() {
  thread_local ZstdContexts contexts;
  return contexts;
}

Status DecompressZstd(ByteView in, uint8_t* out, size_t out_size) {
  ZstdContexts& z = ThreadZstd();
  if (z.dctx == nullptr && (z.dctx = ZSTD_createDCtx()) == nullptr) throw std::bad_alloc();
  // ZSTD_decompressDCtx handles concatenated frames and fails (dstSize_tooSmall) rather
  // than writing past out_size.
  size_t rc = ZSTD_decompressDCtx(z.dctx, NonNull(out), out_size, NonNull(in.data()), in.size());
  if (ZSTD_isError(rc)) {
    return Status::Corruption("ZSTD page is malformed: {}", ZSTD_getErrorName(rc));
  }
  if (rc != out_size) return SizeMismatch("ZSTD", rc, out_size);
  return Status::OK();
}

Status DecompressLz4Raw(ByteView in, uint8_t* out, size_t out_size) {
  if (in.size() > kMaxIntSize || out_size > kMaxIntSize) {
    return Status::NotSupported("LZ4 pages larger than 2 GiB");
  }
  int rc = LZ4_decompress_safe(reinterpret_cast<const char*>(NonNull(in.data())),
                               reinterpret_cast<char*>(NonNull(out)),
                               static_cast<int>(in.size()), static_cast<int>(out_size));
  if (rc < 0) return Status::Corruption("LZ4 block is malformed");
  if (static_cast<size_t>(rc) != out_size) return SizeMismatch("LZ4", rc, out_size);
  return Status::OK();
}

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) |
         uint32_t{p[3]};
}

// Hadoop's BlockCompressorStream framing: a sequence of blocks, each
// [BE32 uncompressed size] followed by one or more [BE32 compressed size][lz4 block]
// chunks that together decompress to that size. Returns false (without a Status) when
// the bytes are not such framing, so the caller can try the raw-block interpretation.
bool TryDecompressHadoopLz4(ByteView in, uint8_t* out, size_t out_size) {
  size_t ipos = 0;
  size_t opos = 0;
  while (ipos < in.size()) {
    if (in.size() - ipos < 4) return false;
    size_t block_raw = LoadBigEndian32(in.data() + ipos);
    ipos += 4;
    if (block_raw > out_size - opos) return false;
    size_t block_end = opos + block_raw;
    do {
      if (in.size() - ipos < 4) return false;
      size_t chunk = LoadBigEndian32(in.data() + ipos);
      ipos += 4;
      if (chunk > in.size() - ipos || chunk > kMaxIntSize) return false;
      int rc = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + ipos),
                                   reinterpret_cast<char*>(out + opos),
                                   static_cast<int>(chunk),
                                   static_cast<int>(block_end - opos));
      if (rc < 0) return false;
      // A chunk must make progress unless the whole block is empty.
      if (rc == 0 && block_end != opos) return false;
      ipos += chunk;
      opos += static_cast<size_t>(rc);
    } while (opos < block_end);
  }
  return opos == out_size;
}

Status DecompressHadoopLz4(ByteView in, uint8_t* out, size_t out_size) {
  if (in.size() > kMaxIntSize || out_size > kMaxIntSize) {
    return Status::NotSupported("LZ4 pages larger than 2 GiB");
  }
  if (TryDecompressHadoopLz4(in, NonNull(out), out_size)) return Status::OK();
  // Older parquet-cpp wrote raw LZ4 blocks under the LZ4 codec.
  return DecompressLz4Raw(in, out, out_size);
}

Status DecompressBrotli(ByteView in, uint8_t* out, size_t out_size) {
  size_t decoded = out_size;
  BrotliDecoderResult rc =
      BrotliDecoderDecompress(in.size(), NonNull(in.data()), &decoded, NonNull(out));
  if (rc != BROTLI_DECODER_RESULT_SUCCESS) {
    return Status::Corruption("BROTLI page is malformed or larger than its header says");
  }
  if (decoded != out_size) return SizeMismatch("BROTLI", decoded, out_size);
  return Status::OK();
}

// ---------------------------------------------------------------- compressors

Status CompressSnappy(ByteView in, Buffer* out) {
  out->Resize(snappy::MaxCompressedLength(in.size()));
  size_t n = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(NonNull(in.data())), in.size(),
                      reinterpret_cast<char*>(out->data()), &n);
  out->Resize(n);
  return Status::OK();
}

Status CompressGzip(ByteView in, Buffer* out, int level) {
  if (level == 0) level = kGzipDefaultLevel;
  if (level < 1 || level > 9) {
    return Status::InvalidArgument("GZIP level must be 1..9, got {}", level);
  }
  if (in.size() > UINT_MAX) return Status::NotSupported("GZIP pages larger than 4 GiB");
  z_stream zs{};
  // 16+MAX_WBITS: gzip wrapper, as Compression.md requires.
  if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out->Resize(bound);
  zs.next_in = const_cast<Bytef*>(NonNull(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out->data();
  zs.avail_out = static_cast<uInt>(std::min<size_t>(bound, UINT_MAX));
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal("deflate failed ({})", rc);
  out->Resize(produced);
  return Status::OK();
}

Status CompressZstd(ByteView in, Buffer* out, int level) {
  if (level == 0) level = kZstdDefaultLevel;
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("ZSTD level must be {}..{}, got {}", ZSTD_minCLevel(),
                                   ZSTD_maxCLevel(), level);
  }
  out->Resize(ZSTD_compressBound(in.size()));
  ZstdContexts& z = ThreadZstd();
  if (z.cctx == nullptr && (z.cctx = ZSTD_createCCtx()) == nullptr) throw std::bad_alloc();
  size_t rc = ZSTD_compressCCtx(z.cctx, out->data(), out->size(), NonNull(in.data()), in.size(),
                                level);
  if (ZSTD_isError(rc)) return Status::Internal("ZSTD_compress: {}", ZSTD_getErrorName(rc));
  out->Resize(rc);
  return Status::OK();
}

Status CompressLz4Raw(ByteView in, Buffer* out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::NotSupported("LZ4 pages larger than {} bytes", LZ4_MAX_INPUT_SIZE);
  }
  int bound = LZ4_compressBound(static_cast<int>(in.size()));
  out->Resize(static_cast<size_t>(bound));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(NonNull(in.data())),
                               reinterpret_cast<char*>(out->data()),
                               static_cast<int>(in.size()), bound);
  if (n <= 0) return Status::Internal("LZ4_compress_default failed");
  out->Resize(static_cast<size_t>(n));
  return Status::OK();
}

Status CompressBrotli(ByteView in, Buffer* out, int level) {
  if (level == 0) level = kBrotliDefaultQuality;
  if (level < BROTLI_MIN_QUALITY || level > BROTLI_MAX_QUALITY) {
    return Status::InvalidArgument("BROTLI quality must be {}..{}, got {}",
                                   BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY, level);
  }
  size_t bound = BrotliEncoderMaxCompressedSize(in.size());
  if (bound == 0) return Status::NotSupported("BROTLI input of {} bytes", in.size());
  out->Resize(bound);
  size_t n = bound;
  if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in.size(),
                             NonNull(in.data()), &n, out->data())) {
    return Status::Internal("BrotliEncoderCompress failed");
  }
  out->Resize(n);
  return Status::OK();
}

}  // namespace

bool CanDecompress(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
    case CompressionCodec::kSnappy:
    case CompressionCodec::kGzip:
    case CompressionCodec::kBrotli:
    case CompressionCodec::kLz4:
    case CompressionCodec::kZstd:
    case CompressionCodec::kLz4Raw:
      return true;
    case CompressionCodec::kLzo:
      return false;
  }
  return false;
}

Status Decompress(CompressionCodec codec, ByteView in, uint8_t* out, size_t out_size) {
  if (out == nullptr && out_size > 0) {
    return Status::InvalidArgument("Decompress: null output buffer");
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return DecompressUncompressed(in, out, out_size);
    case CompressionCodec::kSnappy:
      return DecompressSnappy(in, out, out_size);
    case CompressionCodec::kGzip:
      return DecompressGzip(in, out, out_size);
    case CompressionCodec::kBrotli:
      return DecompressBrotli(in, out, out_size);
    case CompressionCodec::kLz4:
      return DecompressHadoopLz4(in, out, out_size);
    case CompressionCodec::kZstd:
      return DecompressZstd(in, out, out_size);
    case CompressionCodec::kLz4Raw:
      return DecompressLz4Raw(in, out, out_size);
    case CompressionCodec::kLzo:
      return Status::NotSupported("LZO compression");
  }
  return Status::NotSupported("compression codec {}", static_cast<int>(codec));
}

bool CanCompress(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
    case CompressionCodec::kSnappy:
    case CompressionCodec::kGzip:
    case CompressionCodec::kZstd:
    case CompressionCodec::kLz4Raw:
    case CompressionCodec::kBrotli:
      return true;
    case CompressionCodec::kLz4:
    case CompressionCodec::kLzo:
      return false;
  }
  return false;
}

Status Compress(CompressionCodec codec, ByteView in, Buffer* out,
                const CompressOptions& options) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      out->Clear();
      out->Append(in);
      return Status::OK();
    case CompressionCodec::kSnappy:
      return CompressSnappy(in, out);
    case CompressionCodec::kGzip:
      return CompressGzip(in, out, options.level);
    case CompressionCodec::kZstd:
      return CompressZstd(in, out, options.level);
    case CompressionCodec::kLz4Raw:
      return CompressLz4Raw(in, out);
    case CompressionCodec::kBrotli:
      return CompressBrotli(in, out, options.level);
    case CompressionCodec::kLz4:
      return Status::NotSupported("writing Hadoop-framed LZ4 (deprecated; use LZ4_RAW)");
    case CompressionCodec::kLzo:
      return Status::NotSupported("LZO compression");
  }
  return Status::NotSupported("compression codec {}", static_cast<int>(codec));
}

Result<CompressionCodec> ParseCodecName(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "none" || lower == "uncompressed") return CompressionCodec::kUncompressed;
  if (lower == "snappy") return CompressionCodec::kSnappy;
  if (lower == "gzip") return CompressionCodec::kGzip;
  if (lower == "zstd") return CompressionCodec::kZstd;
  if (lower == "lz4_raw") return CompressionCodec::kLz4Raw;
  if (lower == "brotli") return CompressionCodec::kBrotli;
  return Status::InvalidArgument(
      "unknown compression codec '{}' (accepted: none, uncompressed, snappy, gzip, zstd, "
      "lz4_raw, brotli)",
      name);
}

uint32_t Crc32(ByteView data) {
  // libdeflate's CRC-32 (same polynomial and result as zlib's crc32) folds with
  // carry-less multiplication where the CPU has it: several times faster than zlib's
  // table-driven one, and every page written and read is checksummed.
  return libdeflate_crc32(0, NonNull(data.data()), data.size());
}

}  // namespace lithify::parquet
