// libFuzzer target: the Thrift-compact footer and page-header parsers.
//
// Seeds are whole Parquet files (the same corpus as parquet_reader_fuzz), so the input
// is read three ways: as raw FileMetaData bytes, as the footer of a file (the bytes
// before "<len>PAR1"), and as a page header (at offset 4 of a file, where the first
// column chunk usually starts, or at offset 0 otherwise). Whatever parses must
// serialize to bytes that parse again: a writer must never emit a footer or page header
// that lithify itself cannot read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "lithify/base/buffer.h"
#include "lithify/parquet/metadata.h"

namespace {

using lithify::Buffer;
using lithify::ByteView;

constexpr size_t kMagicSize = 4;
constexpr size_t kFooterTrailerSize = 8;  // 4-byte length + "PAR1"

bool HasMagic(const uint8_t* p) { return std::memcmp(p, "PAR1", kMagicSize) == 0; }

void FuzzFileMetaData(ByteView bytes) {
  auto md = lithify::parquet::ParseFileMetaData(bytes);
  if (!md.ok()) return;
  Buffer again;
  lithify::parquet::SerializeFileMetaData(*md, &again);
  if (!lithify::parquet::ParseFileMetaData(again.view()).ok()) {
    std::abort();  // round trip broken: the serializer wrote what the parser rejects
  }
}

void FuzzPageHeader(ByteView bytes) {
  size_t header_size = 0;
  auto ph = lithify::parquet::ParsePageHeader(bytes, &header_size);
  if (!ph.ok()) return;
  if (header_size == 0 || header_size > bytes.size()) std::abort();  // contract: within bytes
  Buffer again;
  lithify::parquet::SerializePageHeader(*ph, &again);
  size_t again_size = 0;
  if (!lithify::parquet::ParsePageHeader(again.view(), &again_size).ok() ||
      again_size != again.size()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView all(data, size);
  FuzzFileMetaData(all);

  const bool leading_magic = size >= kMagicSize && HasMagic(data);
  FuzzPageHeader(leading_magic ? all.subspan(kMagicSize) : all);

  if (size >= kMagicSize + kFooterTrailerSize && HasMagic(data + size - kMagicSize)) {
    uint32_t footer_len;
    std::memcpy(&footer_len, data + size - kFooterTrailerSize, sizeof(footer_len));
    // Little-endian on disk; the fuzz hosts are little-endian.
    if (footer_len <= size - kFooterTrailerSize) {
      FuzzFileMetaData(all.subspan(size - kFooterTrailerSize - footer_len, footer_len));
    }
  }
  return 0;
}
