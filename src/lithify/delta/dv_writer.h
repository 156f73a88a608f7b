// Writing deletion-vector files (PROTOCOL.md "Deletion Vector File Storage Format";
// ../shared/docs/delta-maintenance-facts.md §7.3).
//
// A DV file holds the DVs of several data files, bin-packed by the caller (Delta packs
// up to delta's packing.targetSize, 2 MiB). Layout, all integers big-endian:
//   byte  version = 1
//   per DV: int32 size | size bytes of portable RoaringBitmapArray | int32 CRC-32 of them
// Each DV gets a descriptor with storageType 'u', pathOrInlineDv = random prefix +
// Z85(16 UUID bytes), offset = the position of its size field, sizeInBytes and
// cardinality. The file is written through FileSystem::Create, so it becomes visible
// only when complete; it is referenced only once a commit names it.
//
// Stateless and thread-safe (each call writes its own new file).
#pragma once

#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/deletion_vector.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {

// Writes `dvs` (in order) into one new file `<table_root>/<random_prefix>/
// deletion_vector_<uuid>.bin` and returns their descriptors, in the same order.
// Errors: InvalidArgument for an empty list, a null or empty DV (Delta never commits an
// empty DV), a prefix that is not a plain relative directory, or a file that would
// exceed int32 offsets; IOError from storage (then nothing is visible).
Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectorFile(
    io::FileSystem* fs, std::string_view table_root, const std::vector<const DeletionVector*>& dvs,
    std::string_view random_prefix = "");

// Groups DVs of the given serialized sizes into files of about `target_bytes` each
// (in order, a new file when the next DV would pass the target; a DV larger than the
// target gets a file of its own). Returns,
// per file, the indexes into `sizes`. Pure.
std::vector<std::vector<size_t>> PackDeletionVectors(const std::vector<int64_t>& sizes,
                                                     int64_t target_bytes);

// Delta's default DV file packing target (packing.targetSize): 2 MiB.
inline constexpr int64_t kDvPackingTargetBytes = int64_t{2} << 20;

}  // namespace lithify::delta
