// Position deletes for one data file: from a deletion vector (a Puffin
// `deletion-vector-v1` blob: 4-byte big-endian length of magic + vector, magic D1 D3 39 64,
// the portable 64-bit Roaring bitmap, big-endian CRC-32 of magic + vector; cardinality
// must equal the manifest's record_count) or from a position delete file (rows of
// file_path 2147483546 / pos 2147483545 whose file_path is the data file's recorded path).
// Errors are Corruption naming the delete file. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/iceberg/table.h"

namespace lithify::iceberg {

// Appends the deleted positions of `file` that `d` holds to `out` (unsorted).
Status LoadPositionDeletes(const IcebergTable& table, const PlannedFile& file, const DeleteFile& d,
                           std::vector<uint64_t>* out);

// Parses a deletion-vector-v1 blob (exposed for tests and fuzzing); `what` names it.
Result<std::vector<uint64_t>> ParseDeletionVectorBlob(ByteView blob, const std::string& what);

}  // namespace lithify::iceberg
