// Large allocations backed by transparent huge pages.
//
// Blocks of kLargeBlock (4 MiB) or more are 2 MiB-aligned, rounded up to whole 2 MiB
// pages and marked MADV_HUGEPAGE (Linux; elsewhere, or without THP, plain aligned
// memory): filling one costs a page fault per 2 MiB instead of per 4 KiB. Page faults
// were 15% of a million-file replay and 10% of an OPTIMIZE bin's samples on this
// project's VMs, where each fault is expensive. Smaller blocks come from operator new.
// Thread-safe.
#pragma once

#include <cstddef>

namespace lithify {

inline constexpr size_t kHugePage = size_t{2} << 20;
inline constexpr size_t kLargeBlock = size_t{4} << 20;

// The size AllocateLarge(bytes) really provides (bytes itself below kLargeBlock).
size_t LargeAllocationSize(size_t bytes);
// Never null (std::bad_alloc). Free with FreeLarge and the same `bytes`; a block of
// kLargeBlock or more is aligned_alloc's and may also be freed with std::free.
void* AllocateLarge(size_t bytes);
void FreeLarge(void* p, size_t bytes);

// std::allocator over AllocateLarge / FreeLarge.
template <typename T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <typename U>
  LargeAllocator(const LargeAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateLarge(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { FreeLarge(p, n * sizeof(T)); }
  friend bool operator==(const LargeAllocator&, const LargeAllocator&) { return true; }
};

}  // namespace lithify
