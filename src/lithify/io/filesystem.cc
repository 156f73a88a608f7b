// The non-virtual helpers of the FileSystem contract and the in-memory buffer file.
#include "lithify/io/filesystem.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "lithify/base/macros.h"

namespace lithify::io {

namespace {

// Checks [offset, offset + length) against `size` without overflowing, so no caller
// allocates or copies for a range the file cannot satisfy.
Status CheckRange(const std::string& path, uint64_t size, uint64_t offset, size_t length) {
  if (offset > size || length > size - offset) {
    return Status::IOError("{}: read of {} bytes at offset {} is past the end of the file ({} bytes)",
                           path, length, offset, size);
  }
  return Status::OK();
}

class BufferFile final : public RandomAccessFile {
 public:
  BufferFile(std::string path, Buffer data) : path_(std::move(path)), data_(std::move(data)) {}

  uint64_t size() const override { return data_.size(); }
  const std::string& path() const override { return path_; }

  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    LITHIFY_RETURN_NOT_OK(CheckRange(path_, data_.size(), offset, length));
    // memcpy with a null source is UB even for zero bytes (empty Buffer has no data).
    if (length > 0) std::memcpy(out, data_.data() + offset, length);
    return Status::OK();
  }

 private:
  const std::string path_;
  const Buffer data_;  // immutable after construction, so concurrent reads are safe
};

}  // namespace

std::vector<ReadRange> CoalesceRanges(std::vector<ReadRange> ranges, uint64_t gap,
                                      uint64_t max_size) {
  std::erase_if(ranges, [](const ReadRange& r) { return r.length == 0; });
  std::sort(ranges.begin(), ranges.end(), [](const ReadRange& a, const ReadRange& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.length > b.length;
  });
  std::vector<ReadRange> out;
  for (const ReadRange& r : ranges) {
    if (!out.empty()) {
      ReadRange& last = out.back();
      const uint64_t last_end = last.offset + last.length;
      const uint64_t end = std::max(last_end, r.offset + r.length);
      // Overlapping or contained ranges always merge; nearby ones within the size cap.
      const bool overlaps = r.offset <= last_end && end == last_end;
      const bool near = r.offset <= last_end || r.offset - last_end <= gap;
      if (overlaps || (max_size > 0 && near && end - last.offset <= max_size)) {
        last.length = end - last.offset;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

Result<std::vector<Buffer>> RandomAccessFile::ReadRanges(const std::vector<ReadRange>& ranges) {
  const uint64_t file_size = size();
  for (const ReadRange& r : ranges) {
    if (r.length > SIZE_MAX) return Status::IOError("{}: read of {} bytes does not fit in memory", path(), r.length);
    LITHIFY_RETURN_NOT_OK(CheckRange(path(), file_size, r.offset, static_cast<size_t>(r.length)));
  }
  const ReadProfile profile = read_profile();
  std::vector<ReadRange> merged = CoalesceRanges(ranges, profile.coalesce_gap, profile.max_coalesced);
  std::vector<Buffer> out;
  out.reserve(ranges.size());
  for (const ReadRange& r : ranges) out.emplace_back(static_cast<size_t>(r.length));
  for (const ReadRange& m : merged) {
    LITHIFY_ASSIGN_OR_RETURN(Buffer bytes, Read(m.offset, static_cast<size_t>(m.length)));
    CopyCoveredRanges(m, bytes.view(), ranges, &out);
  }
  return out;
}

void CopyCoveredRanges(const ReadRange& merged, ByteView bytes,
                       const std::vector<ReadRange>& ranges, std::vector<Buffer>* out) {
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ReadRange& r = ranges[i];
    if (r.length == 0 || r.offset < merged.offset ||
        r.offset + r.length > merged.offset + merged.length) {
      continue;
    }
    std::memcpy((*out)[i].data(), bytes.data() + (r.offset - merged.offset), static_cast<size_t>(r.length));
  }
}

Result<FileSystem::FilePage> FileSystem::ListFilesPage(std::string_view dir,
                                                       std::string_view start_after,
                                                       size_t page_size) {
  if (page_size == 0) return Status::InvalidArgument("ListFilesPage: page_size must be >= 1");
  LITHIFY_ASSIGN_OR_RETURN(std::vector<FileInfo> all, ListFrom(dir, start_after));
  FilePage page;
  for (FileInfo& info : all) {
    if (!info.is_dir) page.files.push_back(std::move(info));
  }
  return page;
}

Result<Buffer> RandomAccessFile::Read(uint64_t offset, size_t length) {
  // Validate before allocating: a corrupt length field must not become a huge allocation.
  LITHIFY_RETURN_NOT_OK(CheckRange(path(), size(), offset, length));
  Buffer out(length);
  LITHIFY_RETURN_NOT_OK(ReadAt(offset, length, out.data()));
  return out;
}

Status FileSystem::DeleteMany(const std::vector<std::string>& paths) {
  Status first;
  for (const auto& p : paths) {
    Status st = Delete(p);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Result<std::vector<FileInfo>> FileSystem::ListDirectoriesRecursive(std::string_view) {
  return std::vector<FileInfo>{};
}

Result<bool> FileSystem::DeleteEmptyDirectory(std::string_view) { return true; }

Result<std::vector<FileInfo>> FileSystem::ListTemporariesRecursive(std::string_view) {
  return std::vector<FileInfo>{};
}

Result<Buffer> FileSystem::ReadFile(std::string_view path) {
  LITHIFY_ASSIGN_OR_RETURN(auto file, OpenForRead(path));
  const uint64_t size = file->size();
  if (size > SIZE_MAX) return Status::IOError("{}: file of {} bytes does not fit in memory", path, size);
  return file->Read(0, static_cast<size_t>(size));
}

Status FileSystem::WriteFile(std::string_view path, ByteView data) {
  LITHIFY_ASSIGN_OR_RETURN(auto out, Create(path));
  Status st = out->Append(data);
  if (!st.ok()) {
    out->Abort();
    return st;
  }
  return out->Close();
}

std::unique_ptr<RandomAccessFile> NewBufferFile(std::string path, Buffer data) {
  return std::make_unique<BufferFile>(std::move(path), std::move(data));
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  while (!a.empty() && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  std::string out;
  out.reserve(a.size() + 1 + b.size());
  out.append(a);
  out.push_back('/');
  out.append(b);
  return out;
}

}  // namespace lithify::io
