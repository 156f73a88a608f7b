// Byte buffers.
//
// ByteView is a non-owning view of bytes (std::span<const uint8_t>). Buffer is an
// owning, growable byte array whose Resize() does NOT zero new bytes: codecs and
// decoders write every byte they reserve, and zeroing megabytes per page is measurable.
// Buffer is move-only; it is not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <utility>

namespace lithify {

using ByteView = std::span<const uint8_t>;

inline ByteView AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::string_view AsStringView(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t size) { Resize(size); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  ~Buffer() { std::free(data_); }

  static Buffer CopyOf(ByteView bytes) {
    Buffer b;
    b.Append(bytes);
    return b;
  }

  // Never null, even when empty, so that `data() + 0` and memcpy/memcmp of zero bytes are
  // well-defined (UBSan rejects a null pointer there even for a length of 0).
  uint8_t* data() { return data_ != nullptr ? data_ : EmptyBytes(); }
  const uint8_t* data() const { return data_ != nullptr ? data_ : EmptyBytes(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  ByteView view() const { return {data(), size_}; }
  std::span<uint8_t> mutable_view() { return {data(), size_}; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  uint8_t operator[](size_t i) const { return data_[i]; }

  void Reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  // Reserves exactly for a buffer filled once to about `n` bytes and then reused (a
  // whole column chunk): from kLargeBlock (base/large_alloc.h) on, the memory is
  // 2 MiB-aligned and advised for transparent huge pages, so filling it costs a page
  // fault per 2 MiB instead of per 4 KiB. Keeps the contents.
  void ReserveLarge(size_t n);
  // New bytes are uninitialized.
  void Resize(size_t n) {
    Reserve(n);
    size_ = n;
  }
  void Clear() { size_ = 0; }
  void Append(const void* p, size_t n) {
    if (n == 0) return;
    Reserve(size_ + n);
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void Append(ByteView b) { Append(b.data(), b.size()); }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void PushBack(uint8_t v) {
    if (size_ == capacity_) Reserve(size_ + 1);
    data_[size_++] = v;
  }
  template <typename T>
  void AppendValue(const T& v) { Append(&v, sizeof(T)); }
  // Releases excess capacity (used before long-lived retention).
  void ShrinkToFit() {
    if (size_ == capacity_ || size_ == 0) return;
    auto* p = static_cast<uint8_t*>(std::realloc(data_, size_));
    if (p) { data_ = p; capacity_ = size_; }
  }

 private:
  // Out of line (buffer.cc): geometric growth. Huge pages for every large buffer were
  // tried (base/large_alloc.h): 40% fewer page faults in a two-thread rewrite, but the
  // one-thread rewrite's peak grew from 65 to 150 MiB, so only ReserveLarge uses them.
  void Grow(size_t n);
  static uint8_t* EmptyBytes() {
    alignas(16) static uint8_t empty[16] = {};  // never written: size() is 0 when used
    return empty;
  }
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace lithify
