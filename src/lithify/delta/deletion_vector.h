// Deletion vectors: descriptors, the Z85 codec, the RoaringBitmapArray bitmap and the DV
// file framing (PROTOCOL.md "Deletion Vectors", Appendix "Deletion Vector Format" and
// "Deletion Vector File Storage Format").
//
// A DeletionVectorDescriptor is what an add/remove action says about its DV; it is
// parsed with the action and carried into table::DeletionVectorRef (the planner's opaque
// handle). LoadDeletionVector turns a descriptor into a DeletionVector: the set of
// deleted row indexes of one data file, answering Contains() in O(log n) and producing a
// keep-mask for a row range (what parquet::FilterRows takes). On-disk DVs are verified
// against the descriptor: size prefix, CRC-32 and cardinality; any mismatch is
// Corruption naming the DV file and offset.
//
// DeletionVector is immutable after loading and safe to share across threads; loading
// functions are stateless.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/file_entry.h"
#include "lithify/table/roaring_bitmap_array.h"

namespace lithify::delta {

// PROTOCOL.md "Deletion Vector Descriptor Schema".
struct DeletionVectorDescriptor {
  char storage_type = 'u';             // 'u' uuid-relative, 'i' inline, 'p' absolute path
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;       // absent for 'i'; interpret absent as 0 otherwise
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;
  std::optional<int64_t> max_row_index;  // transient; never part of identity

  // "Derived Fields": `<storageType><pathOrInlineDv>` plus `@<offset>` when present.
  std::string UniqueId() const;
  table::DeletionVectorRef ToRef() const;
  static DeletionVectorDescriptor FromRef(const table::DeletionVectorRef& ref);
  friend bool operator==(const DeletionVectorDescriptor&, const DeletionVectorDescriptor&) = default;
};

// Checks the descriptor's own consistency (known storage type, sizes non-negative, an
// inline DV has no offset, a 'u' DV has at least the 20 UUID characters). Corruption.
Status ValidateDescriptor(const DeletionVectorDescriptor& dv);

// Builds a descriptor from the fields as the log stores them (a commit line's JSON object
// or a checkpoint row's struct), then validates it: a one-character storage type,
// offset and sizeInBytes within 32 bits, and ValidateDescriptor. Corruption otherwise.
Result<DeletionVectorDescriptor> MakeDescriptor(std::string_view storage_type,
                                                std::string path_or_inline_dv,
                                                std::optional<int64_t> offset,
                                                int64_t size_in_bytes, int64_t cardinality,
                                                std::optional<int64_t> max_row_index);

// Z85 (ZeroMQ RFC 32) decoding. Corruption for a length that is not a multiple of 5 or
// a character outside the alphabet. A group above 2^32 keeps its low 32 bits, as
// Delta's reader does (some writers pad that way).
Result<std::string> Z85Decode(std::string_view text);
// Encoding of bytes whose length is a multiple of 4 (InvalidArgument otherwise).
Result<std::string> Z85Encode(std::string_view bytes);

// For storageType 'u': the DV file path relative to the table root,
// `<random prefix>/deletion_vector_<uuid>.bin` (no directory when the prefix is empty).
Result<std::string> RelativeDvFilePath(const DeletionVectorDescriptor& dv);

// The deleted row indexes of one data file (the bitmap codec is format-neutral).
using DeletionVector = table::RoaringBitmapArray;

// Loads the DV described by `dv` for a table rooted at `table_root`:
// 'i' decodes inline Z85 data; 'u' reads `<table_root>/<RelativeDvFilePath>`; 'p' reads
// the absolute path (a `file:` URI or plain absolute path; other schemes NotSupported).
// Framing (big-endian): at `offset` a 4-byte size that must equal sizeInBytes, the
// bitmap, a 4-byte CRC-32 of the bitmap. Cardinality must equal dv.cardinality.
// Errors: NotFound for a missing DV file, Corruption for any mismatch.
Result<DeletionVector> LoadDeletionVector(io::FileSystem* fs, std::string_view table_root,
                                          const DeletionVectorDescriptor& dv);
// Same, from the planner's handle of a FileEntry.
Result<DeletionVector> LoadDeletionVector(io::FileSystem* fs, std::string_view table_root,
                                          const table::DeletionVectorRef& dv);

}  // namespace lithify::delta
