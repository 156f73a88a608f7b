#include "lithify/base/buffer.h"

#include <new>
#include <utility>

#include "lithify/base/large_alloc.h"

namespace lithify {

void Buffer::Grow(size_t n) {
  // Geometric growth for appends, but never more than needed for one big Resize: a page
  // of just over 1 GiB must not reserve 2 GiB.
  size_t cap = std::max<size_t>(n, capacity_ < 32 ? 64 : capacity_ * 2);
  if (n > 2 * capacity_) cap = n;
  // An empty buffer has nothing to keep: realloc would copy its whole old capacity.
  if (size_ == 0 && data_ != nullptr) {
    std::free(std::exchange(data_, nullptr));
    capacity_ = 0;
  }
  auto* p = static_cast<uint8_t*>(std::realloc(data_, cap));
  if (p == nullptr) throw std::bad_alloc();
  data_ = p;
  capacity_ = cap;
}

void Buffer::ReserveLarge(size_t n) {
  if (n <= capacity_) return;
  if (n < kLargeBlock) return Reserve(n);
  // AllocateLarge's blocks of kLargeBlock or more may be freed (and realloc'd) as malloc's.
  auto* p = static_cast<uint8_t*>(AllocateLarge(n));
  if (size_ > 0) std::memcpy(p, data_, size_);
  std::free(data_);
  data_ = p;
  capacity_ = LargeAllocationSize(n);
}

}  // namespace lithify
