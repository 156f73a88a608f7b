#include "lithify/base/large_alloc.h"

#include <cstdlib>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace lithify {

size_t LargeAllocationSize(size_t bytes) {
  if (bytes < kLargeBlock) return bytes;
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

void* AllocateLarge(size_t bytes) {
  if (bytes < kLargeBlock) return ::operator new(bytes);
  const size_t rounded = LargeAllocationSize(bytes);
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
#ifdef __linux__
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without THP it fails harmlessly
#endif
  return p;
}

void FreeLarge(void* p, size_t bytes) {
  if (bytes < kLargeBlock) {
    ::operator delete(p);
  } else {
    std::free(p);
  }
}

}  // namespace lithify
