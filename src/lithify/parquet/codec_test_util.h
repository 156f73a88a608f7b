// Test-only helpers for the codec tests: read a shared-corpus Parquet file and walk the
// pages of a column chunk, decompressing each with the codec under test. Deliberately
// minimal (no schema handling beyond flat columns); the real reader lives in
// column_reader.cc. Not thread-safe; used from single-threaded tests only.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/metadata.h"
#include "lithify_test_paths.h"

namespace lithify::parquet::testing_util {

inline std::string CorpusPath(const std::string& rel) {
  return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus/" + rel;
}

inline std::vector<uint8_t> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline Result<FileMetaData> ReadFooter(const std::vector<uint8_t>& file) {
  if (file.size() < 12 || std::memcmp(file.data() + file.size() - 4, "PAR1", 4) != 0) {
    return Status::Corruption("not a parquet file");
  }
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  if (len > file.size() - 12) return Status::Corruption("bad footer length");
  return ParseFileMetaData(ByteView(file).subspan(file.size() - 8 - len, len));
}

struct DecodedPage {
  PageHeader header;
  ByteView stored;            // page bytes after the header, as in the file
  std::vector<uint8_t> body;  // decompressed (V2: levels followed by values)
};

// Walks and decompresses every page of a column chunk.
inline Result<std::vector<DecodedPage>> ReadChunkPages(const std::vector<uint8_t>& file,
                                                       const ColumnMetaData& md) {
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
      *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  const int64_t end = start + md.total_compressed_size;
  if (start < 0 || end > static_cast<int64_t>(file.size())) {
    return Status::Corruption("chunk outside file");
  }
  std::vector<DecodedPage> pages;
  size_t pos = static_cast<size_t>(start);
  while (pos < static_cast<size_t>(end)) {
    size_t header_size = 0;
    LITHIFY_ASSIGN_OR_RETURN(
        PageHeader h,
        ParsePageHeader(ByteView(file).subspan(pos, static_cast<size_t>(end) - pos),
                        &header_size));
    pos += header_size;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
        static_cast<size_t>(h.compressed_page_size) > static_cast<size_t>(end) - pos) {
      return Status::Corruption("page outside chunk");
    }
    DecodedPage page;
    page.stored = ByteView(file).subspan(pos, static_cast<size_t>(h.compressed_page_size));
    pos += static_cast<size_t>(h.compressed_page_size);
    page.body.resize(static_cast<size_t>(h.uncompressed_page_size));
    size_t prefix = 0;  // V2 levels are stored uncompressed
    bool compressed = true;
    if (h.data_page_header_v2) {
      prefix = static_cast<size_t>(h.data_page_header_v2->definition_levels_byte_length) +
               static_cast<size_t>(h.data_page_header_v2->repetition_levels_byte_length);
      compressed = h.data_page_header_v2->is_compressed;
      if (prefix > page.stored.size() || prefix > page.body.size()) {
        return Status::Corruption("bad V2 level lengths");
      }
      std::memcpy(page.body.data(), page.stored.data(), prefix);
    }
    ByteView payload = page.stored.subspan(prefix);
    const size_t out_size = page.body.size() - prefix;
    // A V2 page without values may store nothing at all (no codec frame).
    if (!(h.data_page_header_v2 && payload.empty() && out_size == 0)) {
      LITHIFY_RETURN_NOT_OK(Decompress(compressed ? md.codec : CompressionCodec::kUncompressed,
                                       payload, page.body.data() + prefix, out_size));
    }
    page.header = std::move(h);
    pages.push_back(std::move(page));
  }
  return pages;
}

}  // namespace lithify::parquet::testing_util
