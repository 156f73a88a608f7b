// RoaringBitmapArray: a set of 64-bit row positions stored as 32-bit Roaring bitmaps
// keyed by the high 32 bits, in the "portable" serialization both Delta
// (PROTOCOL.md "Deletion Vector Format") and Iceberg v3 (Puffin `deletion-vector-v1`)
// use: little-endian magic 1681511377 (bytes D1 D3 39 64), an 8-byte bucket count, then
// per bucket a 4-byte key and a 32-bit portable Roaring bitmap. The bytes are validated
// before CRoaring sees them (see the .cc), so hostile input is Corruption, never a crash.
//
// Immutable after loading; safe to share across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"

namespace lithify::table {

// A set of 64-bit row positions: the deleted rows of one data file.
class RoaringBitmapArray {
 public:
  RoaringBitmapArray();
  ~RoaringBitmapArray();
  RoaringBitmapArray(RoaringBitmapArray&&) noexcept;
  RoaringBitmapArray& operator=(RoaringBitmapArray&&) noexcept;

  // Parses the RoaringBitmapArray "portable" serialization (little-endian magic
  // 1681511377, int64 bucket count, per bucket int32 high key + 32-bit portable roaring
  // bitmap) and the legacy "native" form (magic 1681511376, little- or big-endian
  // header). Corruption on malformed
  // bytes, keys that are negative or not ascending, or trailing garbage.
  static Result<RoaringBitmapArray> Deserialize(ByteView bytes);
  // Serializes in the portable format (for tests and, later, writers).
  std::string Serialize() const;
  // Builds from explicit row indexes (tests, writers).
  static RoaringBitmapArray FromRows(const std::vector<uint64_t>& rows);

  uint64_t cardinality() const;
  bool Contains(uint64_t row_index) const;
  // keep[i] is false iff row first_row + i is deleted, for i in [0, n).
  std::vector<bool> KeepMask(uint64_t first_row, uint64_t n) const;
  // All deleted rows in ascending order (tests and diagnostics; O(cardinality)).
  std::vector<uint64_t> ToVector() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lithify::table
