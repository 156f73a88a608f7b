// SortRun: one sorted run of an external sort on local disk, written once as blocks of
// rows with their sort keys and read back once, block by block, in the order written.
//
// Why not Parquet: a run lives for seconds and is read by this process only, so encoding,
// statistics, page headers and decoding are pure cost (they were a third of a 10M-row
// clustering), and the keys (range ids, curve interleaving) would be recomputed on the
// way back. A block is the batch's own buffers (levels, values, offsets, payload) after
// a small header, so writing is a write(2) from the batch's buffers (small pieces
// gathered in a write buffer first) and reading is a read(2) into the batch's buffers.
//
// Lifetime: the file is created in `dir` without a name (O_TMPFILE), or where the
// filesystem cannot, with a unique name unlinked at once; only the descriptor keeps it. Nothing is left on disk when the process ends in any way (an
// error, abandonment, a crash or a kill), and there is no fsync: nothing here outlives
// the sort.
//
// Block layout (native byte order; the same process writes and reads it):
//   u32 magic, u32 columns, i64 rows, i64 key bytes,
//   per column: i64 levels, def count, rep count, value count, fixed bytes, offset count,
//               data bytes,
//   then the keys and, per column, def levels, rep levels, fixed values, offsets, data.
// Reading checks the header against the schema and the file's size, so a damaged run is
// an IOError naming it, never an out-of-bounds read.
//
// Not thread-safe; one writer, then one reader.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::exec {

class SortRun {
 public:
  // Creates the run's file in `dir`, nameless or as dir/name (O_EXCL) unlinked at once.
  // dir/name appears in errors.
  // Writes go through a buffer of `buffer_bytes` (>= 1).
  static Result<std::unique_ptr<SortRun>> Create(const std::string& dir, const std::string& name,
                                                 int64_t buffer_bytes);
  ~SortRun();
  SortRun(const SortRun&) = delete;
  SortRun& operator=(const SortRun&) = delete;

  // Writing: appends one block, the rows of `batch` (columns: the schema's leaves) and
  // their keys (`keys.size()` bytes, key width x rows).
  Status Append(const parquet::RowBatch& batch, std::string_view keys);
  // Ends writing (flushes the write buffer); reading may start.
  Status FinishWriting();

  // Reading: the next block into `batch` (reset to `schema`'s leaves, buffers reused) and
  // `keys`; false after the last block.
  Result<bool> Next(const parquet::Schema& schema, parquet::RowBatch* batch, std::string* keys);

  const std::string& name() const { return name_; }
  int64_t size() const { return size_; }
  // The open descriptor, for tests that damage a run.
  int descriptor_for_test() const { return fd_; }
  // Bytes held in memory by the run itself (its write buffer).
  int64_t held_bytes() const { return static_cast<int64_t>(buffer_.capacity()); }

 private:
  SortRun(int fd, std::string name, size_t buffer_bytes)
      : fd_(fd), name_(std::move(name)), buffer_bytes_(buffer_bytes) {}
  Status Write(const void* p, size_t n);
  Status Flush();
  Status WriteAll(const uint8_t* p, size_t n);
  Status ReadExact(void* p, size_t n);

  int fd_ = -1;
  std::string name_;
  int64_t size_ = 0;       // bytes written (flushed or buffered)
  int64_t read_pos_ = 0;   // next byte to read
  size_t buffer_bytes_;
  bool writing_ = true;
  Buffer buffer_;          // the write buffer
};

}  // namespace lithify::exec
