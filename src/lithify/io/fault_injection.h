// FaultInjectingFileSystem: a FileSystem decorator that fails chosen operations.
//
// Storage fails in ways tests rarely see: a read that errors halfway through a file, a
// Close that never lands, a put-if-absent whose write succeeded but whose response was
// lost (the caller sees an error although the object now exists). Tests wrap a real
// FileSystem (usually the memory one), arm faults with Inject(), and check that callers
// neither corrupt state nor report success wrongly. Faults match by operation and a
// path substring and fire a bounded number of times, after an optional number of
// matching calls pass through.
//
// Thread-safety: like every FileSystem, usable from many threads; faults are armed and
// consumed under a mutex. Streams and files it returns follow the base's rules.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lithify/io/filesystem.h"
#include "lithify/io/fs_op.h"

namespace lithify::io {

struct Fault {
  FsOp op = FsOp::kReadAt;
  // Matches any path containing this ("" matches every path).
  std::string path_contains;
  // The error returned when the fault fires.
  Status error = Status(StatusCode::kIOError, "injected fault", /*retryable=*/true);
  // Matching calls let through before the fault starts firing.
  int skip = 0;
  // How many times it fires (then it is spent); negative: forever.
  int times = 1;
  // For kPutIfAbsent and kClose: perform the operation on the base first and report
  // `error` only if it succeeded (a lost response: the object exists, the caller is told
  // otherwise). For other operations the base is never called when the fault fires.
  bool after_success = false;
};

class FaultInjectingFileSystem final : public FileSystem {
 public:
  // `base` must outlive this object and everything it returns.
  explicit FaultInjectingFileSystem(FileSystem* base);
  ~FaultInjectingFileSystem() override;

  void Inject(Fault fault);
  // Simulates a crash of the writing process: the first `n` calls (of every operation,
  // counted together) behave normally; call n+1 and every later call fail with IOError
  // "simulated crash" without reaching the base, so nothing after the crash point lands.
  // With `lands`, call n+1 itself still reaches the base when it is a PutIfAbsent or a
  // Close (the crash came after the write but before its reply). CrashAfter(-1) disarms.
  void CrashAfter(int64_t n, bool lands = false);
  // Calls of every operation so far.
  int64_t total_calls() const;
  // Disarms every fault (counters are kept).
  void Clear();
  // Calls of `op` seen so far (including those that failed by injection).
  int64_t calls(FsOp op) const;
  // Faults fired so far.
  int64_t fired() const;

  Result<FileInfo> Head(std::string_view path) override;
  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override;
  Result<std::vector<FileInfo>> ListFrom(std::string_view dir,
                                         std::string_view start_after) override;
  Result<FilePage> ListFilesPage(std::string_view dir, std::string_view start_after,
                                 size_t page_size) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override;
  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override;
  Status PutIfAbsent(std::string_view path, ByteView data) override;
  Status Delete(std::string_view path) override;
  Result<std::vector<FileInfo>> ListDirectoriesRecursive(std::string_view dir) override;
  Result<bool> DeleteEmptyDirectory(std::string_view path) override;
  Result<std::vector<FileInfo>> ListTemporariesRecursive(std::string_view dir) override;

  // Used by the wrapped files/streams. Returns the fault that fires for this call, if
  // any (counting the call either way).
  struct Decision {
    bool fire = false;
    bool after_success = false;
    Status error;
  };
  Decision Decide(FsOp op, std::string_view path);

 private:
  FileSystem* const base_;
  mutable std::mutex mu_;
  std::vector<Fault> faults_;
  int64_t calls_[kNumFsOps] = {};
  int64_t fired_ = 0;
  int64_t total_calls_ = 0;
  int64_t crash_after_ = -1;
  bool crash_lands_ = false;
};

}  // namespace lithify::io
