// FileSystem: lithify's only door to storage, shaped like an object store.
//
// Tables live on object stores (S3, GCS, ADLS) as often as on disks, so the interface
// offers what every object store offers and nothing POSIX-only: Head, sorted listing,
// ranged reads, whole-object creation whose content becomes visible only at Close,
// put-if-absent (the Delta commit primitive) and idempotent deletes. Paths are
// '/'-separated strings and always full: ordinary paths for the local file system, whole
// URIs for an object store ("s3://bucket/t/_delta_log/0.json"), so that JoinPath and a
// table log's absolute paths work the same on every store. io::OpenFileSystem
// (registry.h) picks the FileSystem for a location.
//
// Over a network every call is a request, so the interface lets callers say what they
// will need: ReadRanges takes several ranges at once (coalesced into few requests),
// read_profile() tells a reader how large a read is worth making, and ListFilesPage
// lists in bounded pages.
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

// One byte range of a file.
struct ReadRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// How reads of a file are best shaped. A local file reads any range cheaply (all zero);
// an object store pays a round trip per request, so nearby ranges are worth merging
// into one request and small reads are worth growing.
struct ReadProfile {
  // Ranges separated by at most this many bytes are read as one (ReadRanges).
  uint64_t coalesce_gap = 0;
  // A merged read grows to at most this many bytes (0: no merging).
  uint64_t max_coalesced = 0;
  // The smallest read worth a request: sequential readers read ahead at least this.
  uint64_t preferred_read = 0;
  // Whether every read is a network request (a reader then avoids reads it can skip).
  bool remote = false;
};

// Merges ranges (in any order) whose gaps are at most `gap` bytes into covering ranges
// of at most `max_size` bytes (a single range larger than that stays whole), sorted by
// offset. Empty ranges are dropped. `max_size` 0 merges nothing.
std::vector<ReadRange> CoalesceRanges(std::vector<ReadRange> ranges, uint64_t gap,
                                      uint64_t max_size);

// For ReadRanges implementations: copies every range of `ranges` that lies inside
// `merged` from `bytes` (the content of `merged`) into (*out)[i], which is sized already.
void CopyCoveredRanges(const ReadRange& merged, ByteView bytes,
                       const std::vector<ReadRange>& ranges, std::vector<Buffer>* out);

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

  // Reads several ranges: result[i] holds ranges[i]. Ranges may overlap and come in any
  // order. The default coalesces them by read_profile() and reads each merged range with
  // one ReadAt; an object store overrides it to issue the merged reads concurrently.
  // Any range past the end is IOError naming the path (nothing is returned then).
  virtual Result<std::vector<Buffer>> ReadRanges(const std::vector<ReadRange>& ranges);
  // How reads of this file are best shaped (see ReadProfile).
  virtual ReadProfile read_profile() const { return {}; }
  // Bytes of the file's content this open file keeps in memory (an object store's file
  // keeps what its open read, see io/http/remote_file.h), so that a caller keeping many
  // files open can bound their memory.
  virtual uint64_t held_bytes() const { return 0; }

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

  // The next *files* directly inside `dir` whose path is > `start_after`, sorted by
  // path: one listing request's worth on an object store (at most `page_size`, >= 1),
  // everything at once on a store that reads a directory whole anyway (the default,
  // which filters ListFrom). `more` tells whether files may follow; the next page
  // starts after the last one returned. Directories are left out (their order relative
  // to files differs between stores).
  struct FilePage {
    std::vector<FileInfo> files;
    bool more = false;
  };
  virtual Result<FilePage> ListFilesPage(std::string_view dir, std::string_view start_after,
                                         size_t page_size);

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
// such a temporary, which fails atomically if the target exists. Paths are local paths: a
// path with a URI scheme ("s3://...", "file:/...") is refused with NotSupported
// (io::OpenFileSystem turns a file: URI into a path first), so that a URI can never become
// a directory named "s3:" by accident.
std::unique_ptr<FileSystem> NewLocalFileSystem();

// A process-local in-memory file system (for tests and the simulator).
std::unique_ptr<FileSystem> NewMemoryFileSystem();

// An in-memory RandomAccessFile over owned bytes (for fuzz targets, tests and data
// already in memory). `path` is used only in error messages.
std::unique_ptr<RandomAccessFile> NewBufferFile(std::string path, Buffer data);

// Joins path segments with exactly one '/'.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace lithify::io
