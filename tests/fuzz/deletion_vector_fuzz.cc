// libFuzzer target: deletion vector bytes (PROTOCOL.md Appendix "Deletion Vector Format"
// and "Deletion Vector File Storage Format").
//
// Seeds are real `deletion_vector_*.bin` files (scripts/fuzz.sh collects them), whose
// framing is: 1 version byte, then per DV a big-endian size, the RoaringBitmapArray and a
// big-endian CRC-32. Each input is read five ways:
//  1. As a bare RoaringBitmapArray (DeletionVector::Deserialize), both whole and from
//     offset 5 (past the version byte and size of a DV file's first DV, so file seeds
//     reach the bitmap decoder). Whatever parses must be self-consistent: ToVector
//     strictly ascending with `cardinality()` entries, Contains and KeepMask agreeing
//     with it, Serialize -> Deserialize giving the same rows.
//  2. As a DV file loaded through LoadDeletionVector with offset, sizeInBytes and
//     cardinality taken from the input's first bytes (framing, CRC and size checks).
//  3. As a bitmap wrapped in correct framing (size prefix + CRC), so the CRC check does
//     not hide the decoder behind it, with the true and a wrong cardinality.
//  4. As Z85 text (an inline DV's pathOrInlineDv): Z85Decode, and LoadDeletionVector
//     with storageType 'i'; and the bitmap bytes Z85-encoded as a valid inline DV.
//  5. As a 'u' descriptor's pathOrInlineDv (prefix + Z85 UUID -> relative file path).
// Any status is fine; a crash, sanitizer report or broken invariant (abort) is a bug.
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/io/filesystem.h"

namespace {

namespace delta = lithify::delta;
using lithify::AsBytes;
using lithify::ByteView;

constexpr std::string_view kRoot = "/t";
constexpr std::string_view kDvPath = "/t/dv.bin";
// KeepMask windows stay small: a mask is one bit per row and the fuzzer picks ranges.
constexpr uint64_t kMaxMaskRows = 1 << 12;

uint32_t Be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}
uint64_t Le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
void PutBe32(std::string* out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>(v >> s));
}

void CheckConsistent(const delta::DeletionVector& dv, ByteView input) {
  std::vector<uint64_t> rows = dv.ToVector();
  if (rows.size() != dv.cardinality()) std::abort();
  if (std::adjacent_find(rows.begin(), rows.end(), std::greater_equal<uint64_t>()) != rows.end()) {
    std::abort();  // not strictly ascending
  }
  for (size_t i = 0; i < rows.size() && i < 64; ++i) {
    if (!dv.Contains(rows[i])) std::abort();
  }
  // A window chosen by the input: around a deleted row when there is one, else anywhere.
  uint64_t first = input.size() >= 8 ? Le64(input.data() + input.size() - 8) : 0;
  if (!rows.empty()) first = rows[first % rows.size()] - std::min<uint64_t>(first % 7, rows[0]);
  uint64_t n = input.empty() ? 0 : input[0] % kMaxMaskRows;
  if (first > UINT64_MAX - n) n = UINT64_MAX - first;  // the window must not wrap
  std::vector<bool> keep = dv.KeepMask(first, n);
  if (keep.size() != n) std::abort();
  for (uint64_t i = 0; i < n; ++i) {
    if (keep[i] == dv.Contains(first + i)) std::abort();  // mask and lookup disagree
  }
  auto again = delta::DeletionVector::Deserialize(AsBytes(dv.Serialize()));
  if (!again.ok() || again->ToVector() != rows) std::abort();  // serializer round trip
}

void FuzzBitmap(ByteView bytes) {
  auto dv = delta::DeletionVector::Deserialize(bytes);
  if (dv.ok()) CheckConsistent(*dv, bytes);
}

// Loads `file` as the DV file of a 'p' descriptor built from the other arguments.
void LoadFromFile(std::string_view file, int32_t offset, int32_t size, int64_t cardinality) {
  auto fs = lithify::io::NewMemoryFileSystem();
  if (!fs->WriteFile(kDvPath, AsBytes(file)).ok()) std::abort();
  delta::DeletionVectorDescriptor d;
  d.storage_type = 'p';
  d.path_or_inline_dv = std::string("file://") + std::string(kDvPath);
  d.offset = offset;
  d.size_in_bytes = size;
  d.cardinality = cardinality;
  auto dv = delta::LoadDeletionVector(fs.get(), kRoot, d);
  if (dv.ok()) {
    if (dv->cardinality() != static_cast<uint64_t>(cardinality)) std::abort();
    return;
  }
  if (!dv.status().IsCorruption() && !dv.status().IsNotSupported()) std::abort();
  // Errors name the DV file (the contract: "Corruption naming the DV file and offset").
  if (dv.status().message().find(kDvPath) == std::string::npos) std::abort();
}

void FuzzFraming(ByteView in) {
  std::string_view all(reinterpret_cast<const char*>(in.data()), in.size());
  // (2) descriptor fields from a 12-byte header: offset, size, cardinality.
  if (in.size() >= 12) {
    auto offset = static_cast<int32_t>(Be32(in.data()) & 0x7FFFFFFF);
    auto size = static_cast<int32_t>(Be32(in.data() + 4) & 0x7FFFFFFF);
    auto card = static_cast<int64_t>(Be32(in.data() + 8));
    LoadFromFile(all.substr(12), offset % 64, size, card);
    LoadFromFile(all.substr(12), offset, size, card);
  }
  // Real DV files: the first DV starts at offset 1 and its size is the next 4 bytes.
  if (in.size() >= 5) {
    auto size = static_cast<int32_t>(Be32(in.data() + 1) & 0x7FFFFFFF);
    auto bitmap = delta::DeletionVector::Deserialize(
        in.subspan(5, std::min<size_t>(static_cast<size_t>(size), in.size() - 5)));
    LoadFromFile(all, 1, size, bitmap.ok() ? static_cast<int64_t>(bitmap->cardinality()) : 0);
  }
  // (3) the whole input framed correctly at a small offset.
  std::string file(in.empty() ? 0 : in[0] % 8, 'x');
  const auto offset = static_cast<int32_t>(file.size());
  PutBe32(&file, static_cast<uint32_t>(in.size()));
  file.append(all);
  PutBe32(&file, static_cast<uint32_t>(crc32(0L, in.data(), static_cast<uInt>(in.size()))));
  auto bitmap = delta::DeletionVector::Deserialize(in);
  const int64_t card = bitmap.ok() ? static_cast<int64_t>(bitmap->cardinality()) : 0;
  LoadFromFile(file, offset, static_cast<int32_t>(in.size()), card);
  LoadFromFile(file, offset, static_cast<int32_t>(in.size()), card + 1);
  LoadFromFile(file.substr(0, file.size() - 1), offset, static_cast<int32_t>(in.size()), card);
}

void FuzzInline(ByteView in) {
  std::string_view text(reinterpret_cast<const char*>(in.data()), in.size());
  // (4) the input as Z85 text.
  auto decoded = delta::Z85Decode(text);
  if (decoded.ok()) {
    if (decoded->size() != text.size() / 5 * 4) std::abort();
    auto encoded = delta::Z85Encode(*decoded);
    if (!encoded.ok()) std::abort();
    auto again = delta::Z85Decode(*encoded);
    if (!again.ok() || *again != *decoded) std::abort();  // decode is idempotent through encode
  }
  delta::DeletionVectorDescriptor d;
  d.storage_type = 'i';
  d.path_or_inline_dv = std::string(text);
  d.size_in_bytes = static_cast<int32_t>(decoded.ok() ? decoded->size() : text.size());
  d.cardinality = 0;
  (void)delta::LoadDeletionVector(nullptr, kRoot, d);
  // The input bytes as a bitmap, encoded as a valid inline DV (padded to 4 bytes).
  std::string padded(reinterpret_cast<const char*>(in.data()), in.size());
  padded.resize((padded.size() + 3) / 4 * 4, '\0');
  auto z85 = delta::Z85Encode(padded);
  if (!z85.ok()) std::abort();
  auto bitmap = delta::DeletionVector::Deserialize(in);
  d.path_or_inline_dv = *z85;
  d.size_in_bytes = static_cast<int32_t>(in.size());
  d.cardinality = bitmap.ok() ? static_cast<int64_t>(bitmap->cardinality()) : 0;
  auto v = delta::LoadDeletionVector(nullptr, kRoot, d);
  if (v.ok() != bitmap.ok()) std::abort();  // inline and raw decoding must agree
  // (5) the input as a relative DV's prefix + UUID.
  d.storage_type = 'u';
  d.path_or_inline_dv = std::string(text);
  auto rel = delta::RelativeDvFilePath(d);
  if (rel.ok() && (rel->front() == '/' || rel->find("..") != std::string::npos)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView in(data, size);
  FuzzBitmap(in);
  if (size > 5) FuzzBitmap(in.subspan(5));
  FuzzFraming(in);
  FuzzInline(in);
  return 0;
}
