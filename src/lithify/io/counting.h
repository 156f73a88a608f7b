// CountingFileSystem: a FileSystem decorator that counts what its callers ask of storage.
//
// On an object store every call is a request, so how many calls a command makes is a
// property worth testing ("diagnose opens no data file") and measuring (requests of a
// log replay or an OPTIMIZE). The decorator counts calls per operation kind (FsOp), the
// bytes read through the files it opened, and remembers which paths were opened for
// reading. Calls pass to the base unchanged (vectored reads stay vectored), so the
// counts are the calls the caller made; a backend's own request count (coalesced
// ranges, listing pages, retries) is the backend's to report.
//
// Thread-safety: like every FileSystem; counters are atomic, the opened-path list is
// guarded by a mutex. Files and streams it returns follow the base's rules and must not
// outlive it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lithify/io/filesystem.h"
#include "lithify/io/fs_op.h"

namespace lithify::io {

class CountingFileSystem final : public FileSystem {
 public:
  // `base` must outlive this object and everything it returns.
  explicit CountingFileSystem(FileSystem* base);
  // Shares ownership of the base (for callers that hand the decorator on).
  explicit CountingFileSystem(std::shared_ptr<FileSystem> base);

  int64_t calls(FsOp op) const { return calls_[static_cast<int>(op)].load(); }
  // Calls of every kind.
  int64_t total_calls() const;
  // Bytes returned by ReadAt and ReadRanges of files opened here.
  int64_t bytes_read() const { return bytes_read_.load(); }
  // Paths passed to OpenForRead, in call order (duplicates kept).
  std::vector<std::string> opened_paths() const;
  // One JSON object: {"head":N,...,"bytesRead":N,"opened":N}.
  std::string CountsJson() const;
  void Reset();

  // Used by the files it returns.
  void Count(FsOp op, uint64_t bytes = 0);

  Result<FileInfo> Head(std::string_view path) override;
  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override;
  Result<std::vector<FileInfo>> ListFrom(std::string_view dir, std::string_view start_after) override;
  Result<FilePage> ListFilesPage(std::string_view dir, std::string_view start_after,
                                 size_t page_size) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override;
  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override;
  Status PutIfAbsent(std::string_view path, ByteView data) override;
  Status Delete(std::string_view path) override;
  Status DeleteMany(const std::vector<std::string>& paths) override;
  Result<std::vector<FileInfo>> ListDirectoriesRecursive(std::string_view dir) override;
  Result<std::vector<FileInfo>> ListTemporariesRecursive(std::string_view dir) override;
  Result<bool> DeleteEmptyDirectory(std::string_view path) override;

 private:
  std::shared_ptr<FileSystem> owned_;
  FileSystem* const base_;
  std::atomic<int64_t> calls_[kNumFsOps] = {};
  std::atomic<int64_t> bytes_read_{0};
  mutable std::mutex mu_;
  std::vector<std::string> opened_;
};

}  // namespace lithify::io
