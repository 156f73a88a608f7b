#include "lithify/parquet/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lithify/parquet/codec_test_util.h"

namespace lithify::parquet {
namespace {

constexpr CompressionCodec kWritable[] = {
    CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kGzip,
    CompressionCodec::kZstd,         CompressionCodec::kLz4Raw, CompressionCodec::kBrotli,
};

// Compressible but not trivial: runs of random symbols from a small alphabet.
std::vector<uint8_t> SampleData(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v;
  v.reserve(n);
  while (v.size() < n) {
    uint8_t sym = static_cast<uint8_t>('a' + rng() % 6);
    size_t run = 1 + rng() % 12;
    for (size_t i = 0; i < run && v.size() < n; ++i) v.push_back(sym);
  }
  return v;
}

ByteView View(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }

std::vector<uint8_t> Concat(ByteView a, ByteView b) {
  std::vector<uint8_t> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

void PutBigEndian32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(v >> shift));
}

TEST(CompressionTest, RoundTripEveryWritableCodec) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}}) {
    std::vector<uint8_t> data = SampleData(size, static_cast<uint32_t>(size));
    for (CompressionCodec codec : kWritable) {
      SCOPED_TRACE(testing::Message() << "codec " << static_cast<int>(codec) << " size " << size);
      ASSERT_TRUE(CanCompress(codec));
      ASSERT_TRUE(CanDecompress(codec));
      Buffer compressed;
      ASSERT_TRUE(Compress(codec, View(data), &compressed).ok());
      if (codec != CompressionCodec::kUncompressed && size == 70000) {
        EXPECT_LT(compressed.size(), size / 2);  // the data is highly compressible
      }
      std::vector<uint8_t> back(size + 1, 0xEE);
      Status st = Decompress(codec, compressed.view(), back.data(), size);
      ASSERT_TRUE(st.ok()) << st.ToString();
      back.pop_back();
      EXPECT_EQ(back, data);
    }
  }
}

TEST(CompressionTest, CompressReplacesOutputContent) {
  std::vector<uint8_t> data = SampleData(1000, 1);
  Buffer out;
  out.Append(std::string_view("stale bytes"));
  ASSERT_TRUE(Compress(CompressionCodec::kZstd, View(data), &out).ok());
  std::vector<uint8_t> back(1000);
  ASSERT_TRUE(Decompress(CompressionCodec::kZstd, out.view(), back.data(), back.size()).ok());
  EXPECT_EQ(back, data);
}

TEST(CompressionTest, LevelsAreHonouredAndValidated) {
  std::vector<uint8_t> data = SampleData(50000, 2);
  for (CompressionCodec codec :
       {CompressionCodec::kGzip, CompressionCodec::kZstd, CompressionCodec::kBrotli}) {
    Buffer fast, strong;
    ASSERT_TRUE(Compress(codec, View(data), &fast, {.level = 1}).ok());
    ASSERT_TRUE(Compress(codec, View(data), &strong, {.level = 9}).ok());
    EXPECT_LE(strong.size(), fast.size()) << static_cast<int>(codec);
    std::vector<uint8_t> back(data.size());
    ASSERT_TRUE(Decompress(codec, strong.view(), back.data(), back.size()).ok());
    EXPECT_EQ(back, data);
    Buffer bad;
    EXPECT_TRUE(Compress(codec, View(data), &bad, {.level = 1000}).IsInvalidArgument());
  }
}

TEST(CompressionTest, WrongOutputSizeIsCorruption) {
  std::vector<uint8_t> data = SampleData(5000, 3);
  for (CompressionCodec codec : kWritable) {
    SCOPED_TRACE(static_cast<int>(codec));
    Buffer compressed;
    ASSERT_TRUE(Compress(codec, View(data), &compressed).ok());
    std::vector<uint8_t> out(data.size() + 10);
    EXPECT_TRUE(Decompress(codec, compressed.view(), out.data(), data.size() - 1).IsCorruption());
    EXPECT_TRUE(Decompress(codec, compressed.view(), out.data(), data.size() + 1).IsCorruption());
  }
}

TEST(CompressionTest, GarbageAndTruncatedInputFailWithoutCrashing) {
  std::mt19937 rng(4);
  std::vector<uint8_t> garbage(300);
  for (auto& b : garbage) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> data = SampleData(4000, 5);
  std::vector<uint8_t> out(data.size());
  for (CompressionCodec codec : kWritable) {
    SCOPED_TRACE(static_cast<int>(codec));
    EXPECT_FALSE(Decompress(codec, View(garbage), out.data(), out.size()).ok());
    if (codec == CompressionCodec::kUncompressed) continue;
    Buffer compressed;
    ASSERT_TRUE(Compress(codec, View(data), &compressed).ok());
    for (size_t cut : {size_t{0}, size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
      Status st = Decompress(codec, compressed.view().first(cut), out.data(), out.size());
      EXPECT_TRUE(st.IsCorruption()) << cut << " " << st.ToString();
    }
  }
  EXPECT_FALSE(Decompress(CompressionCodec::kLz4, View(garbage), out.data(), out.size()).ok());
}

TEST(CompressionTest, ConcatenatedGzipMembersDecodeToConcatenation) {
  std::vector<uint8_t> a = SampleData(3000, 6);
  std::vector<uint8_t> b = SampleData(1234, 7);
  Buffer ca, cb;
  ASSERT_TRUE(Compress(CompressionCodec::kGzip, View(a), &ca).ok());
  ASSERT_TRUE(Compress(CompressionCodec::kGzip, View(b), &cb).ok());
  std::vector<uint8_t> both = Concat(ca.view(), cb.view());
  std::vector<uint8_t> expect = Concat(View(a), View(b));
  std::vector<uint8_t> out(expect.size());
  Status st = Decompress(CompressionCodec::kGzip, View(both), out.data(), out.size());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, expect);
  // Only the first member's size: the second member overflows the output.
  EXPECT_TRUE(Decompress(CompressionCodec::kGzip, View(both), out.data(), a.size()).IsCorruption());
  // Trailing garbage after a member is not silently ignored.
  std::vector<uint8_t> tail = Concat(ca.view(), AsBytes("junk"));
  EXPECT_TRUE(Decompress(CompressionCodec::kGzip, View(tail), out.data(), a.size()).IsCorruption());
}

TEST(CompressionTest, HadoopFramedLz4) {
  std::vector<uint8_t> a = SampleData(2000, 8);
  std::vector<uint8_t> b = SampleData(3000, 9);
  Buffer ra, rb;
  ASSERT_TRUE(Compress(CompressionCodec::kLz4Raw, View(a), &ra).ok());
  ASSERT_TRUE(Compress(CompressionCodec::kLz4Raw, View(b), &rb).ok());
  std::vector<uint8_t> expect = Concat(View(a), View(b));
  std::vector<uint8_t> out(expect.size());

  // Two blocks, one chunk each.
  std::vector<uint8_t> framed;
  PutBigEndian32(&framed, static_cast<uint32_t>(a.size()));
  PutBigEndian32(&framed, static_cast<uint32_t>(ra.size()));
  framed.insert(framed.end(), ra.data(), ra.data() + ra.size());
  PutBigEndian32(&framed, static_cast<uint32_t>(b.size()));
  PutBigEndian32(&framed, static_cast<uint32_t>(rb.size()));
  framed.insert(framed.end(), rb.data(), rb.data() + rb.size());
  ASSERT_TRUE(Decompress(CompressionCodec::kLz4, View(framed), out.data(), out.size()).ok());
  EXPECT_EQ(out, expect);

  // One block made of two chunks (Hadoop's BlockCompressorStream may split a block).
  std::vector<uint8_t> chunked;
  PutBigEndian32(&chunked, static_cast<uint32_t>(expect.size()));
  PutBigEndian32(&chunked, static_cast<uint32_t>(ra.size()));
  chunked.insert(chunked.end(), ra.data(), ra.data() + ra.size());
  PutBigEndian32(&chunked, static_cast<uint32_t>(rb.size()));
  chunked.insert(chunked.end(), rb.data(), rb.data() + rb.size());
  std::fill(out.begin(), out.end(), 0);
  ASSERT_TRUE(Decompress(CompressionCodec::kLz4, View(chunked), out.data(), out.size()).ok());
  EXPECT_EQ(out, expect);

  // Framing with a wrong size fails (the raw fallback cannot parse it either).
  std::vector<uint8_t> lying = framed;
  lying[3] ^= 1;
  EXPECT_TRUE(Decompress(CompressionCodec::kLz4, View(lying), out.data(), out.size()).IsCorruption());
  // Truncated framing.
  EXPECT_TRUE(Decompress(CompressionCodec::kLz4, View(framed).first(framed.size() - 3),
                         out.data(), out.size())
                  .IsCorruption());
}

TEST(CompressionTest, Lz4FallsBackToRawBlock) {
  std::vector<uint8_t> data = SampleData(5000, 10);
  Buffer raw;
  ASSERT_TRUE(Compress(CompressionCodec::kLz4Raw, View(data), &raw).ok());
  std::vector<uint8_t> out(data.size());
  Status st = Decompress(CompressionCodec::kLz4, raw.view(), out.data(), out.size());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, data);
}

TEST(CompressionTest, LzoIsNotSupported) {
  EXPECT_FALSE(CanDecompress(CompressionCodec::kLzo));
  EXPECT_FALSE(CanCompress(CompressionCodec::kLzo));
  EXPECT_FALSE(CanCompress(CompressionCodec::kLz4));
  uint8_t out[4];
  Status st = Decompress(CompressionCodec::kLzo, AsBytes("abcd"), out, 4);
  EXPECT_TRUE(st.IsNotSupported());
  EXPECT_NE(st.message().find("LZO"), std::string::npos);
  Buffer b;
  EXPECT_TRUE(Compress(CompressionCodec::kLzo, AsBytes("abcd"), &b).IsNotSupported());
  EXPECT_TRUE(Decompress(static_cast<CompressionCodec>(42), AsBytes("abcd"), out, 4).IsNotSupported());
}

TEST(CompressionTest, UncompressedSizeMustMatch) {
  uint8_t out[8];
  EXPECT_TRUE(Decompress(CompressionCodec::kUncompressed, AsBytes("abc"), out, 4).IsCorruption());
  ASSERT_TRUE(Decompress(CompressionCodec::kUncompressed, AsBytes("abcd"), out, 4).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 4), "abcd");
}

TEST(CompressionTest, ParseCodecName) {
  EXPECT_EQ(*ParseCodecName("zstd"), CompressionCodec::kZstd);
  EXPECT_EQ(*ParseCodecName("ZSTD"), CompressionCodec::kZstd);
  EXPECT_EQ(*ParseCodecName("Snappy"), CompressionCodec::kSnappy);
  EXPECT_EQ(*ParseCodecName("gzip"), CompressionCodec::kGzip);
  EXPECT_EQ(*ParseCodecName("lz4_raw"), CompressionCodec::kLz4Raw);
  EXPECT_EQ(*ParseCodecName("brotli"), CompressionCodec::kBrotli);
  EXPECT_EQ(*ParseCodecName("none"), CompressionCodec::kUncompressed);
  EXPECT_EQ(*ParseCodecName("UNCOMPRESSED"), CompressionCodec::kUncompressed);
  Result<CompressionCodec> bad = ParseCodecName("lzo");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("zstd"), std::string::npos);
  EXPECT_FALSE(ParseCodecName("").ok());
}

TEST(CompressionTest, Crc32KnownValues) {
  EXPECT_EQ(Crc32(AsBytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(Crc32(AsBytes("")), 0u);
  EXPECT_EQ(Crc32(ByteView{}), 0u);
}

// ============================================================ corpus pages

using testing_util::CorpusPath;
using testing_util::DecodedPage;
using testing_util::ReadChunkPages;
using testing_util::ReadFooter;
using testing_util::ReadWholeFile;

// Decompresses every page of every column chunk; returns them in file order.
std::vector<std::vector<DecodedPage>> AllPages(const std::vector<uint8_t>& file,
                                               CompressionCodec expect_codec) {
  std::vector<std::vector<DecodedPage>> out;
  Result<FileMetaData> md = ReadFooter(file);
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  if (!md.ok()) return out;
  for (const RowGroup& rg : md->row_groups) {
    for (const ColumnChunk& cc : rg.columns) {
      EXPECT_TRUE(cc.meta_data.has_value());
      if (!cc.meta_data) continue;
      EXPECT_EQ(cc.meta_data->codec, expect_codec);
      Result<std::vector<DecodedPage>> pages = ReadChunkPages(file, *cc.meta_data);
      EXPECT_TRUE(pages.ok()) << pages.status().ToString();
      if (pages.ok()) out.push_back(std::move(*pages));
    }
  }
  return out;
}

TEST(CorpusCodecTest, EveryPageDecompressesAndChecksumsMatch) {
  struct File { const char* path; CompressionCodec codec; };
  const File files[] = {
      {"data/hadoop_lz4_compressed.parquet", CompressionCodec::kLz4},
      {"data/hadoop_lz4_compressed_larger.parquet", CompressionCodec::kLz4},
      {"data/non_hadoop_lz4_compressed.parquet", CompressionCodec::kLz4},
      {"data/lz4_raw_compressed.parquet", CompressionCodec::kLz4Raw},
      {"data/lz4_raw_compressed_larger.parquet", CompressionCodec::kLz4Raw},
      {"data/concatenated_gzip_members.parquet", CompressionCodec::kGzip},
      {"data/byte_stream_split_extended.gzip.parquet", CompressionCodec::kGzip},
      {"data/alltypes_plain.snappy.parquet", CompressionCodec::kSnappy},
      {"data/datapage_v1-snappy-compressed-checksum.parquet", CompressionCodec::kSnappy},
      {"data/datapage_v1-uncompressed-checksum.parquet", CompressionCodec::kUncompressed},
      {"data/rle-dict-snappy-checksum.parquet", CompressionCodec::kSnappy},
      {"data/datapage_v2.snappy.parquet", CompressionCodec::kSnappy},
      {"data/datapage_v2_empty_datapage.snappy.parquet", CompressionCodec::kSnappy},
      {"data/byte_stream_split.zstd.parquet", CompressionCodec::kZstd},
      {"data/delta_length_byte_array.parquet", CompressionCodec::kZstd},
  };
  for (const File& f : files) {
    SCOPED_TRACE(f.path);
    std::vector<uint8_t> file = ReadWholeFile(CorpusPath(std::string("parquet-testing/") + f.path));
    ASSERT_FALSE(file.empty());
    size_t pages = 0, checked = 0;
    for (const auto& chunk : AllPages(file, f.codec)) {
      for (const DecodedPage& page : chunk) {
        ++pages;
        if (page.header.crc) {
          EXPECT_EQ(Crc32(page.stored), static_cast<uint32_t>(*page.header.crc));
          ++checked;
        }
      }
    }
    EXPECT_GT(pages, 0u);
    if (std::string(f.path).find("checksum") != std::string::npos) {
      EXPECT_GT(checked, 0u);
    }
  }
}

TEST(CorpusCodecTest, CorruptChecksumIsDetected) {
  std::vector<uint8_t> file =
      ReadWholeFile(CorpusPath("parquet-testing/data/datapage_v1-corrupt-checksum.parquet"));
  size_t mismatches = 0;
  for (const auto& chunk : AllPages(file, CompressionCodec::kUncompressed)) {
    for (const DecodedPage& page : chunk) {
      if (page.header.crc && Crc32(page.stored) != static_cast<uint32_t>(*page.header.crc)) {
        ++mismatches;
      }
    }
  }
  EXPECT_GT(mismatches, 0u);
}

TEST(CorpusCodecTest, ConcatenatedGzipMembersHoldOneTo513) {
  std::vector<uint8_t> file =
      ReadWholeFile(CorpusPath("parquet-testing/data/concatenated_gzip_members.parquet"));
  auto chunks = AllPages(file, CompressionCodec::kGzip);
  ASSERT_EQ(chunks.size(), 1u);
  std::vector<uint64_t> values;
  for (const DecodedPage& page : chunks[0]) {
    size_t n = 0;
    if (page.header.data_page_header) {
      n = static_cast<size_t>(page.header.data_page_header->num_values);
    } else if (page.header.data_page_header_v2) {
      const auto& v2 = *page.header.data_page_header_v2;
      n = static_cast<size_t>(v2.num_values - v2.num_nulls);
    } else {
      continue;
    }
    // PLAIN UINT64 values end the page, after any levels.
    ASSERT_GE(page.body.size(), n * 8);
    const uint8_t* p = page.body.data() + page.body.size() - n * 8;
    for (size_t i = 0; i < n; ++i) {
      uint64_t v;
      std::memcpy(&v, p + i * 8, 8);
      values.push_back(v);
    }
  }
  ASSERT_EQ(values.size(), 513u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], i + 1);
}

// duckdb's generated files: one table written with every codec; decompressed pages must
// equal those of the uncompressed twin.
TEST(CorpusCodecTest, EveryCodecMatchesUncompressedTwin) {
  for (int version : {1, 2}) {
    const std::string dir = "duckdb/data/parquet-testing/compression/generated/data_page=" +
                            std::to_string(version) + "_";
    std::vector<uint8_t> plain_file = ReadWholeFile(CorpusPath(dir + "NONE.parquet"));
    auto expect = AllPages(plain_file, CompressionCodec::kUncompressed);
    ASSERT_FALSE(expect.empty());
    struct Twin { const char* name; CompressionCodec codec; };
    for (Twin t : {Twin{"SNAPPY", CompressionCodec::kSnappy}, Twin{"GZIP", CompressionCodec::kGzip},
                   Twin{"BROTLI", CompressionCodec::kBrotli}, Twin{"LZ4", CompressionCodec::kLz4Raw},
                   Twin{"ZSTD", CompressionCodec::kZstd}}) {
      SCOPED_TRACE(testing::Message() << "v" << version << " " << t.name);
      std::vector<uint8_t> file = ReadWholeFile(CorpusPath(dir + t.name + ".parquet"));
      auto got = AllPages(file, t.codec);
      ASSERT_EQ(got.size(), expect.size());
      for (size_t c = 0; c < got.size(); ++c) {
        ASSERT_EQ(got[c].size(), expect[c].size());
        for (size_t p = 0; p < got[c].size(); ++p) EXPECT_EQ(got[c][p].body, expect[c][p].body);
      }
    }
  }
}

// Crc32 is libdeflate's; page checksums written by other writers are zlib's polynomial.
TEST(CompressionTest, Crc32AgreesWithZlib) {
  std::mt19937_64 rng(5);
  std::vector<uint8_t> data(70000);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t len : {size_t{1}, size_t{7}, size_t{8}, size_t{63}, size_t{64}, size_t{255},
                     size_t{4096}, size_t{65537}, data.size()}) {
    const size_t off = rng() % 16;
    ByteView v(data.data() + off, std::min(len, data.size() - off));
    EXPECT_EQ(Crc32(v), static_cast<uint32_t>(crc32_z(0, v.data(), v.size()))) << len;
  }
}

}  // namespace
}  // namespace lithify::parquet
