#include "lithify/base/allocator.h"

#include <cstdlib>  // defines __GLIBC__ (via features.h) before it is tested below

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lithify {

void TuneAllocatorForStreaming() {
#if defined(__GLIBC__)
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit (HEAP_MAX_SIZE / 2);
  // buffers below it are served from the heap and reused, only larger ones are mapped.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

}  // namespace lithify
