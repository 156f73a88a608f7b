// PrefetchedFile: a RandomAccessFile whose chosen ranges were read ahead in one go.
//
// A reader that knows which byte ranges it will need (the column chunks of a row group)
// reads them with one ReadRanges call -- on an object store a few coalesced, concurrent
// requests instead of one request per window -- and then reads through this file as
// usual: reads inside a prefetched range are served from memory, any other read goes
// to the base file. Memory is the prefetched bytes; the caller bounds them.
//
// Thread-safety: like RandomAccessFile (the prefetched bytes are immutable); the base
// file must outlive it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/io/filesystem.h"

namespace lithify::io {

class PrefetchedFile final : public RandomAccessFile {
 public:
  // Reads `ranges` of `base` (ReadRanges) and keeps them.
  static Result<std::unique_ptr<PrefetchedFile>> Make(RandomAccessFile* base,
                                                      std::vector<ReadRange> ranges);

  uint64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override;
  // Reads are memory copies now, so readers need not read ahead for it.
  ReadProfile read_profile() const override { return {}; }
  uint64_t prefetched_bytes() const { return bytes_; }

 private:
  struct Piece {
    uint64_t offset;
    Buffer data;
  };
  PrefetchedFile(RandomAccessFile* base, std::vector<Piece> pieces, uint64_t bytes)
      : base_(base), pieces_(std::move(pieces)), bytes_(bytes) {}

  RandomAccessFile* const base_;
  const std::vector<Piece> pieces_;  // sorted by offset
  const uint64_t bytes_;
};

}  // namespace lithify::io
