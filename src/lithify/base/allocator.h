// Process-wide allocator tuning for programs that stream large buffers.
//
// Decoding and encoding Parquet allocates and frees multi-megabyte buffers once per
// page or batch. With glibc's defaults those go through mmap/munmap (or are trimmed
// back to the OS), so every batch pays page faults and kernel page clearing: profiling
// the decode benchmark showed over 25% of the time in exc_page_fault / clear_page. Raising
// the mmap and trim thresholds keeps freed buffers in the heap for the next batch. Peak
// memory is unchanged (it is bounded by the largest batch, which is already resident).
// Call once at the start of main(); not thread-safe with concurrent allocation.
#pragma once

namespace lithify {
void TuneAllocatorForStreaming();
}  // namespace lithify
