#include "lithify/io/prefetch.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lithify/base/macros.h"

namespace lithify::io {

Result<std::unique_ptr<PrefetchedFile>> PrefetchedFile::Make(RandomAccessFile* base,
                                                             std::vector<ReadRange> ranges) {
  std::erase_if(ranges, [](const ReadRange& r) { return r.length == 0; });
  std::sort(ranges.begin(), ranges.end(),
            [](const ReadRange& a, const ReadRange& b) { return a.offset < b.offset; });
  LITHIFY_ASSIGN_OR_RETURN(std::vector<Buffer> data, base->ReadRanges(ranges));
  std::vector<Piece> pieces;
  pieces.reserve(ranges.size());
  uint64_t bytes = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    bytes += data[i].size();
    pieces.push_back(Piece{ranges[i].offset, std::move(data[i])});
  }
  return std::unique_ptr<PrefetchedFile>(new PrefetchedFile(base, std::move(pieces), bytes));
}

Status PrefetchedFile::ReadAt(uint64_t offset, size_t length, uint8_t* out) {
  // The last piece starting at or before `offset` is the only one that can contain it
  // whole, unless pieces overlap; then an earlier, longer one may -- scan back briefly.
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                             [](uint64_t off, const Piece& p) { return off < p.offset; });
  for (int tries = 0; it != pieces_.begin() && tries < 4; ++tries) {
    --it;
    const uint64_t end = it->offset + it->data.size();
    if (offset >= it->offset && offset <= end && length <= end - offset) {
      if (length > 0) std::memcpy(out, it->data.data() + (offset - it->offset), length);
      return Status::OK();
    }
  }
  return base_->ReadAt(offset, length, out);
}

}  // namespace lithify::io
