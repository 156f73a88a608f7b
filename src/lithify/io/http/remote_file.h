// What the object-store backends' files and write streams share.
//
// RemoteFile: a RandomAccessFile whose every ReadAt is one ranged GET (Fetch), except for
// the bytes the open already brought: a backend opens a file with a GET of a piece of it
// (S3: the last 64 KiB, whose reply also tells the size, so a Parquet footer costs the
// open's one request and no HEAD is sent; a small object arrives whole) and hands the
// piece over (Keep); reads inside it are served from memory for the file's lifetime
// (at most kOpenPieceBytes per open file). It reports a remote read profile (coalesce
// reads 256 KiB apart into reads of up to 16 MiB; 64 KiB is the smallest read worth a
// request) and ReadRanges sends the coalesced GETs of what the piece does not hold up to
// 8 at a time on the IO pool (base/thread_pool.h), each on its own thread and so its own
// keep-alive connection (http.h); the calling thread sends some itself.
//
// PartedOutputStream: an OutputStream that buffers what is appended and writes it with
// one request at Close when it stays below the part size, else as parts uploaded in the
// background on the IO pool while appending (at most `parts_in_flight` at once; a part
// no pool thread has taken is uploaded by the waiting writer) and made visible as one
// object only at Close. Failure, Abort or destruction before Close leave no object.
//
// Thread-safety: a RemoteFile supports concurrent ReadAt calls (the subclass must);
// a PartedOutputStream is used by one thread at a time (its part uploads may run on others).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/base/thread_pool.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/http/http.h"

namespace lithify::io::http {

// The first byte and the object's total size from a Content-Range header
// ("bytes 100-199/1000"); false when it is missing or malformed ("bytes */1000" included).
bool ParseContentRange(std::string_view header, uint64_t* first, uint64_t* total);

class RemoteFile : public RandomAccessFile {
 public:
  RemoteFile(std::string path, uint64_t size) : path_(std::move(path)), size_(size) {}
  // How much of an object a backend's open reads (and keeps) with its first GET.
  static constexpr uint64_t kOpenPieceBytes = 64 << 10;

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }
  // Served from the kept piece when inside it, else one Fetch.
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) final;
  Result<std::vector<Buffer>> ReadRanges(const std::vector<ReadRange>& ranges) override;
  ReadProfile read_profile() const override;
  uint64_t held_bytes() const override { return piece_.size(); }

  // Keeps `bytes`, the file's content at `offset`, to serve reads inside it (called by
  // the backend right after construction, before the file is shared).
  void Keep(uint64_t offset, std::string bytes) {
    piece_offset_ = offset;
    piece_ = std::move(bytes);
  }

 protected:
  // One ranged GET of [offset, offset + length), inside the file and not empty.
  virtual Status Fetch(uint64_t offset, size_t length, uint8_t* out) = 0;

  // IOError naming the path when [offset, offset + length) is not inside the file.
  Status CheckRange(uint64_t offset, uint64_t length) const;
  // Copies the bytes a ranged GET answered with into `out`: a 206's body, or the range
  // cut from a 200's whole object (a server that ignores Range). IOError naming the path
  // when the reply holds a different number of bytes.
  Status CopyRangeReply(const HttpResponse& r, uint64_t offset, size_t length, uint8_t* out) const;

 private:
  // Whether [offset, offset + length) lies inside the kept piece.
  bool InPiece(uint64_t offset, uint64_t length) const {
    return offset >= piece_offset_ && offset - piece_offset_ + length <= piece_.size();
  }

  std::string path_;
  uint64_t size_;
  uint64_t piece_offset_ = 0;
  std::string piece_;  // immutable once the file is shared
};

class PartedOutputStream : public OutputStream {
 public:
  PartedOutputStream(std::string path, uint64_t part_size, size_t parts_in_flight)
      : path_(std::move(path)), part_size_(part_size), parts_in_flight_(parts_in_flight) {}
  // Subclasses call Abort() in their own destructor (the hooks below are virtual, and
  // part uploads in flight use the subclass); this one only waits for stragglers.
  ~PartedOutputStream() override;
  Status Append(ByteView data) final;
  Status Close() final;
  void Abort() final;
  uint64_t position() const final { return position_; }

 protected:
  // The whole content in one request (content smaller than a part; may be empty).
  virtual Status PutWhole(ByteView data) = 0;
  // Called once before the first part (S3: CreateMultipartUpload).
  virtual Status BeginParts() { return Status::OK(); }
  // Uploads part `number` (1, 2, ...). Runs on an IO-pool thread (or the writer's,
  // waiting for a part no pool thread took), concurrently with other parts; `data`
  // lives until it returns.
  virtual Status UploadPart(size_t number, ByteView data) = 0;
  // After parts 1..count all succeeded: makes them visible as the object.
  virtual Status CompleteParts(size_t count) = 0;
  // Best-effort cleanup of parts after a failure or Abort (S3: AbortMultipartUpload).
  virtual void AbortParts() {}

  const std::string& path() const { return path_; }

 private:
  Status StartPart();
  Status WaitParts(size_t max_left);
  Status Fail(Status st) {
    Abort();
    return st;
  }

  std::string path_;
  uint64_t part_size_;
  size_t parts_in_flight_;
  std::string buffer_;
  uint64_t position_ = 0;
  bool parts_begun_ = false;
  size_t parts_ = 0;
  std::deque<std::unique_ptr<TaskGroup>> in_flight_;  // one upload each, oldest first
  bool closed_ = false, aborted_ = false;
};

}  // namespace lithify::io::http
