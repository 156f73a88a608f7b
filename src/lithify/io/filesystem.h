// FileSystem: lithify's only door to storage, shaped like an object store.
//
// Tables live on object stores (S3, GCS, ADLS) as often as on disks, so the interface
// offers what every object store offers and nothing POSIX-only: Head, sorted listing,
// ranged reads, whole-object creation whose content becomes visible only at Close,
// put-if-absent (the Delta commit primitive) and idempotent deletes. Paths are
// '/'-separated strings; for the local file system they are ordinary paths.
//
// Thread-safety: a FileSystem may be used from many threads at once. A RandomAccessFile
// supports concurrent ReadAt calls. An OutputStream is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/base/status.h"

namespace lithify::io {

struct FileInfo {
  std::string path;        // full path as given to / produced by the FileSystem
  uint64_t size = 0;       // bytes; 0 for directories
  int64_t mtime_ms = 0;    // last modification, milliseconds since the Unix epoch
  bool is_dir = false;
};

// Random-access reads of one immutable file.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Size in bytes, fixed when the file was opened.
  virtual uint64_t size() const = 0;
  // Reads exactly `length` bytes at `offset` into `out`. Reading past the end is
  // IOError naming the path (never a short read).
  virtual Status ReadAt(uint64_t offset, size_t length, uint8_t* out) = 0;
  // The path this file was opened with (for error messages).
  virtual const std::string& path() const = 0;

  // Convenience: ReadAt into a new Buffer.
  Result<Buffer> Read(uint64_t offset, size_t length);
};

// A file being written. Content is invisible to readers until Close() returns OK;
// if the stream is destroyed or Abort()ed before that, nothing is left behind.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Append(ByteView data) = 0;
  // Makes the whole content visible atomically (replacing any previous object).
  virtual Status Close() = 0;
  // Discards everything written; idempotent; no-op after Close.
  virtual void Abort() = 0;
  // Bytes appended so far.
  virtual uint64_t position() const = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Metadata of one file or directory. NotFound if absent.
  virtual Result<FileInfo> Head(std::string_view path) = 0;

  // Every file (not directory) under `dir` at any depth, sorted by path (byte order).
  // A missing directory lists as empty.
  virtual Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) = 0;

  // Files and directories directly inside `dir`, sorted by path, only those whose path
  // is > `start_after` (pass "" for all). A missing directory lists as empty.
  // This is the shape of an object-store LIST with start-after.
  virtual Result<std::vector<FileInfo>> ListFrom(std::string_view dir,
                                                 std::string_view start_after) = 0;

  // NotFound if absent.
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) = 0;

  // Starts writing `path` (parents are created as needed). Visible at Close; replaces
  // an existing file then.
  virtual Result<std::unique_ptr<OutputStream>> Create(std::string_view path) = 0;

  // Writes `data` at `path` only if nothing exists there, atomically: exactly one of
  // several racing callers succeeds; the others get AlreadyExists. Never leaves a
  // partial file visible.
  virtual Status PutIfAbsent(std::string_view path, ByteView data) = 0;

  // Removes a file. Deleting a missing file is OK (idempotent).
  virtual Status Delete(std::string_view path) = 0;

  // Directories. Object stores have none (a "directory" is only a prefix of keys), so
  // the defaults list none and delete nothing; file systems with real directories
  // override both (VACUUM removes the empty ones, as Delta does).
  // Every directory under `dir` at any depth (not `dir` itself; symbolic links are
  // neither listed nor followed), sorted by path. A missing directory lists as empty.
  virtual Result<std::vector<FileInfo>> ListDirectoriesRecursive(std::string_view dir);
  // Removes `path` if it is an empty directory (non-recursive): true when removed or
  // absent, false when it is not empty (kept: e.g. a writer is putting a file there,
  // in-flight temporaries included). NotSupported when it is not a directory.
  virtual Result<bool> DeleteEmptyDirectory(std::string_view path);
  // Deletes each path; returns the first error after attempting all.
  virtual Status DeleteMany(const std::vector<std::string>& paths);

  // The temporaries this FileSystem's own Create / PutIfAbsent write before content
  // becomes visible, under `dir` at any depth, sorted by path (the listings above never
  // show them). A writer killed mid-write leaves its temporary behind; VACUUM deletes
  // the old ones. Only the file system's exact temporary shape is returned, never a
  // user's hidden file. Object stores (and the memory file system) make objects visible
  // atomically without temporaries: the default lists none. Delete removes one.
  virtual Result<std::vector<FileInfo>> ListTemporariesRecursive(std::string_view dir);

  // Convenience: whole-file read.
  Result<Buffer> ReadFile(std::string_view path);
  // Convenience: Create + Append + Close.
  Status WriteFile(std::string_view path, ByteView data);
};

// The host's file system. Create writes to a temporary sibling
// (".<name>.tmp-<16 lowercase hex>") and renames at Close; PutIfAbsent uses link(2) from
// such a temporary, which fails atomically if the target exists.
std::unique_ptr<FileSystem> NewLocalFileSystem();

// A process-local in-memory file system (for tests and the simulator).
std::unique_ptr<FileSystem> NewMemoryFileSystem();

// An in-memory RandomAccessFile over owned bytes (for fuzz targets, tests and data
// already in memory). `path` is used only in error messages.
std::unique_ptr<RandomAccessFile> NewBufferFile(std::string path, Buffer data);

// Joins path segments with exactly one '/'.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace lithify::io
