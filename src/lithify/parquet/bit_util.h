// Private bit-level helpers for the Parquet encodings and the Thrift compact protocol
// (not installed, not part of the public codec API): little-endian loads/stores, ULEB128
// and zigzag varints, and an LSB-first bit packer. Header-only so the inner loops
// inline; every function is pure or works on caller-owned memory, hence thread-safe.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lithify/base/buffer.h"

namespace lithify::parquet::bit_util {

static_assert(std::endian::native == std::endian::little,
              "the Parquet encodings are implemented for little-endian hosts only");

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <typename T>
inline void StoreLE(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
inline T LoadLE(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Reads a ULEB128 value of at most 64 bits at data[*pos], advancing *pos. False when the
// bytes end first or the value does not fit in 64 bits.
inline bool ReadUleb128(const uint8_t* data, size_t size, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= size) return false;
    uint8_t b = data[(*pos)++];
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (shift == 63 && (b & 0xFE) != 0) return false;
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

inline void AppendUleb128(uint64_t v, Buffer* out) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = static_cast<uint8_t>(v);
  out->Append(tmp, n);
}

// Zigzag in the unsigned domain so no signed shift or overflow is involved.
inline uint64_t ZigzagEncode(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  return (u << 1) ^ (0 - (u >> 63));
}
inline uint64_t ZigzagDecode(uint64_t u) { return (u >> 1) ^ (0 - (u & 1)); }

// Packs `count` values of `width` bits (0..64) LSB-first into dst, which must have room
// for ceil(count * width / 8) bytes; returns the number of bytes written. Values are
// masked to `width` bits.
template <typename T>
inline size_t PackBits(const T* values, size_t count, int width, uint8_t* dst) {
  if (width == 0) return 0;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint8_t* const start = dst;
  uint64_t acc = 0;
  int bits = 0;  // always < 64
  for (size_t i = 0; i < count; ++i) {
    uint64_t v = static_cast<uint64_t>(values[i]) & mask;
    acc |= v << bits;
    int total = bits + width;
    if (total >= 64) {
      std::memcpy(dst, &acc, 8);
      dst += 8;
      int used = 64 - bits;  // bits of v already stored
      acc = used == 64 ? 0 : v >> used;
      bits = total - 64;
    } else {
      bits = total;
    }
  }
  size_t tail = static_cast<size_t>(bits + 7) / 8;
  std::memcpy(dst, &acc, tail);
  return static_cast<size_t>(dst - start) + tail;
}

}  // namespace lithify::parquet::bit_util
