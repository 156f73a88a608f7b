// LocalFileSystem: the FileSystem contract over POSIX calls.
//
// Atomic visibility comes from the kernel: Create writes a hidden temporary sibling
// (".<name>.tmp-<16 hex>") and rename(2)s it over the target at Close; PutIfAbsent
// writes such a temporary completely and link(2)s it to the target, which fails with
// EEXIST if anything is there. Temporary siblings are hidden from listings so that
// in-progress writes stay invisible, as on an object store. Differences from an object
// store that callers may observe: directories are real (Create makes them and Delete
// does not prune them), and a symlink to a directory is listed by ListFrom but not
// descended into by ListRecursive (which avoids cycles).
//
// Thread-safety: the object holds no mutable state; every call is independent. A
// LocalFile reads with pread(2), which has no shared file offset, so concurrent ReadAt
// calls are safe.
#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/uri.h"

namespace lithify::io {

namespace {

// Appends above this size are written straight through; smaller ones are coalesced so
// a writer emitting many small pieces does not pay a syscall each.
constexpr size_t kWriteBufferBytes = 1 << 20;
// Bounds a single read/write syscall (Linux transfers at most ~2 GiB per call anyway).
constexpr size_t kMaxIoChunk = size_t{1} << 30;
constexpr std::string_view kTempMarker = ".tmp-";
constexpr size_t kTempRandomHexDigits = 16;
constexpr int kTempCreateAttempts = 8;

// strerror_r has a GNU (char*) and an XSI (int) signature; accept either.
[[maybe_unused]] const char* PickErrorText(int rc, const char* buf) {
  return rc == 0 ? buf : "unknown error";
}
[[maybe_unused]] const char* PickErrorText(const char* text, const char*) { return text; }

std::string ErrnoText(int err) {
  char buf[256] = {0};
  return PickErrorText(strerror_r(err, buf, sizeof(buf)), buf);
}

// Errors that describe a momentary condition of the system rather than of the path:
// retrying after a pause may well succeed.
bool IsRetryableErrno(int err) {
  switch (err) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR:
    case EBUSY:
    case ETIMEDOUT:
    case ENOBUFS:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case ESTALE:
    case ECONNRESET:
    case ECONNABORTED:
      return true;
    default:
      return false;
  }
}

Status IOErrorFromErrno(int err, std::string_view op, std::string_view path) {
  return Status(StatusCode::kIOError, fmt::format("{}: {}: {}", path, op, ErrnoText(err)),
                IsRetryableErrno(err));
}

// For lookups: a missing path (or a missing/non-directory parent) is NotFound.
Status LookupErrorFromErrno(int err, std::string_view op, std::string_view path) {
  if (err == ENOENT || err == ENOTDIR) {
    return Status::NotFound("{}: {}: {}", path, op, ErrnoText(err));
  }
  return IOErrorFromErrno(err, op, path);
}

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

FileInfo InfoFromStat(std::string path, const struct stat& st) {
  FileInfo info;
  info.path = std::move(path);
  info.is_dir = S_ISDIR(st.st_mode);
  info.size = info.is_dir ? 0 : static_cast<uint64_t>(st.st_size);
  info.mtime_ms = MtimeMs(st);
  return info;
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t RandomSeed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(seed))) {
    seed = static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
  }
  return seed;
}

// Unique enough for temporary names; O_EXCL catches the rare collision. The pid is
// mixed in on every call because a forked child inherits the counter.
uint64_t NextRandom() {
  static std::atomic<uint64_t> counter{RandomSeed()};
  uint64_t c = counter.fetch_add(1, std::memory_order_relaxed);
  return SplitMix64(c ^ (static_cast<uint64_t>(getpid()) << 40));
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  if (slash == 0) return path.substr(0, 1);  // "/x" -> "/"
  return path.substr(0, slash);
}

bool IsTempName(std::string_view name) {
  const size_t suffix = kTempMarker.size() + kTempRandomHexDigits;
  if (name.size() < 2 + suffix || name[0] != '.') return false;
  std::string_view tail = name.substr(name.size() - suffix);
  if (tail.substr(0, kTempMarker.size()) != kTempMarker) return false;
  return std::all_of(tail.begin() + kTempMarker.size(), tail.end(), [](char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
  });
}

std::string TempSiblingPath(std::string_view path) {
  std::string name = fmt::format(".{}{}{:016x}", BaseName(path), kTempMarker, NextRandom());
  std::string_view dir = DirName(path);
  return dir.empty() ? name : JoinPath(dir, name);
}

// A URI handed to the local file system is a mistake upstream (a location that was
// never resolved by OpenFileSystem, or a table log naming another store): refuse it
// rather than create a directory named "s3:".
Status CheckLocalPath(std::string_view path) {
  if (!HasScheme(path)) return Status::OK();
  return Status::NotSupported("{}: a URI is not a local path (URIs are opened through io::OpenFileSystem)", path);
}

Status CheckFilePath(std::string_view path) {
  LITHIFY_RETURN_NOT_OK(CheckLocalPath(path));
  if (BaseName(path).empty()) {
    return Status::InvalidArgument("'{}' is not a file path (empty file name)", path);
  }
  return Status::OK();
}

// mkdir -p. Recursion depth is bounded by the number of '/' in `dir`.
Status MakeDirs(std::string_view dir) {
  if (dir.empty() || dir == "/") return Status::OK();
  std::string d(dir);
  if (mkdir(d.c_str(), 0777) == 0) return Status::OK();
  int err = errno;
  if (err == ENOENT) {
    LITHIFY_RETURN_NOT_OK(MakeDirs(DirName(dir)));
    if (mkdir(d.c_str(), 0777) == 0) return Status::OK();
    err = errno;
  }
  if (err == EEXIST) {
    struct stat st;
    if (stat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
    return IOErrorFromErrno(ENOTDIR, "create directory", dir);
  }
  return IOErrorFromErrno(err, "create directory", dir);
}

Status WriteAll(int fd, const uint8_t* data, size_t n, std::string_view path) {
  while (n > 0) {
    ssize_t w = write(fd, data, std::min(n, kMaxIoChunk));
    if (w < 0) {
      if (errno == EINTR) continue;
      return IOErrorFromErrno(errno, "write", path);
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

// Makes a completed rename/link durable. Best effort: some file systems refuse fsync
// on directories and the data itself is already safe.
void SyncDirBestEffort(std::string_view file_path) {
  std::string dir(DirName(file_path));
  if (dir.empty()) dir = ".";
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

// Creates the parents of `path` and a fresh temporary sibling; returns its fd.
Result<int> CreateTempSibling(std::string_view path, std::string* tmp_path) {
  LITHIFY_RETURN_NOT_OK(MakeDirs(DirName(path)));
  int err = 0;
  for (int attempt = 0; attempt < kTempCreateAttempts; ++attempt) {
    *tmp_path = TempSiblingPath(path);
    int fd = open(tmp_path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    err = errno;
    if (err != EEXIST && err != EINTR) break;
  }
  return IOErrorFromErrno(err, "create temporary file", *tmp_path);
}

// fsync + close, reporting either failure (close can surface deferred write errors).
Status SyncAndClose(int fd, std::string_view path) {
  Status st;
  if (fsync(fd) != 0) st = IOErrorFromErrno(errno, "fsync", path);
  if (close(fd) != 0 && st.ok() && errno != EINTR) st = IOErrorFromErrno(errno, "close", path);
  return st;
}

class LocalFile final : public RandomAccessFile {
 public:
  LocalFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalFile() override { close(fd_); }
  LocalFile(const LocalFile&) = delete;
  LocalFile& operator=(const LocalFile&) = delete;

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    if (offset > size_ || length > size_ - offset) {
      return Status::IOError(
          "{}: read of {} bytes at offset {} is past the end of the file ({} bytes)", path_,
          length, offset, size_);
    }
    while (length > 0) {
      ssize_t r = pread(fd_, out, std::min(length, kMaxIoChunk), static_cast<off_t>(offset));
      if (r < 0) {
        if (errno == EINTR) continue;
        return IOErrorFromErrno(errno, "read", path_);
      }
      if (r == 0) {
        // The size was fixed at open; a file that shrank since is not the file we opened.
        return Status::IOError("{}: unexpected end of file at offset {} (file truncated?)",
                               path_, offset);
      }
      out += r;
      offset += static_cast<uint64_t>(r);
      length -= static_cast<size_t>(r);
    }
    return Status::OK();
  }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

class LocalOutputStream final : public OutputStream {
 public:
  LocalOutputStream(std::string path, std::string tmp_path, int fd)
      : path_(std::move(path)), tmp_path_(std::move(tmp_path)), fd_(fd) {}
  ~LocalOutputStream() override { Abort(); }
  LocalOutputStream(const LocalOutputStream&) = delete;
  LocalOutputStream& operator=(const LocalOutputStream&) = delete;

  uint64_t position() const override { return position_; }

  Status Append(ByteView data) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen("append to"));
    // Every byte goes through the write buffer, even from a large append: on this project's
    // VMs write(2) from a large buffer the process filled earlier (a column chunk
    // encoded in memory) cost ten times the copy from a small reused one (kernel time in
    // copy_folio_from_iter_atomic: 0.7 s of a 4.9 s rewrite; docs/benchmarks.md, one bin).
    Status st;
    const size_t total = data.size();
    while (st.ok() && !data.empty()) {
      const size_t n = std::min(data.size(), kWriteBufferBytes - buffer_.size());
      buffer_.Append(data.subspan(0, n));
      data = data.subspan(n);
      if (buffer_.size() == kWriteBufferBytes) st = Flush();
    }
    if (!st.ok()) return Fail(std::move(st));
    position_ += total;
    return Status::OK();
  }

  Status Close() override {
    if (state_ == State::kClosed) return Status::OK();
    LITHIFY_RETURN_NOT_OK(CheckOpen("close"));
    Status st = Flush();
    if (!st.ok()) return Fail(std::move(st));
    int fd = std::exchange(fd_, -1);
    st = SyncAndClose(fd, tmp_path_);
    if (!st.ok()) return Fail(std::move(st));
    if (rename(tmp_path_.c_str(), path_.c_str()) != 0) {
      return Fail(IOErrorFromErrno(errno, "rename into place", path_));
    }
    SyncDirBestEffort(path_);
    state_ = State::kClosed;
    return Status::OK();
  }

  void Abort() override {
    if (state_ != State::kOpen) return;
    state_ = State::kAborted;
    if (fd_ >= 0) close(std::exchange(fd_, -1));
    unlink(tmp_path_.c_str());
    buffer_ = Buffer();
  }

 private:
  enum class State { kOpen, kClosed, kAborted };

  Status CheckOpen(std::string_view what) const {
    if (state_ == State::kOpen) return Status::OK();
    return Status::InvalidArgument("{}: cannot {} a stream that was already {}", path_, what,
                                   state_ == State::kClosed ? "closed" : "aborted or failed");
  }

  Status Flush() {
    Status st = WriteAll(fd_, buffer_.data(), buffer_.size(), tmp_path_);
    buffer_.Clear();
    return st;
  }

  // A failed stream leaves nothing behind and accepts no further calls.
  Status Fail(Status st) {
    Abort();
    return st;
  }

  const std::string path_;
  const std::string tmp_path_;
  int fd_;
  State state_ = State::kOpen;
  Buffer buffer_;
  uint64_t position_ = 0;
};

// Which entries ForEachEntry yields besides directories.
enum class Entries { kVisible, kTemporaries };

// Calls `fn(name, info)` for each entry of `dir` except "." and "..": temporaries are
// skipped (kVisible), or only temporaries and directories are yielded (kTemporaries).
// A missing directory (or a path that is not a directory) has no entries.
template <typename Fn>
Status ForEachEntry(const std::string& dir, Fn&& fn, Entries which = Entries::kVisible) {
  DIR* d = opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::OK();
    return IOErrorFromErrno(errno, "list directory", dir);
  }
  struct Closer {
    DIR* d;
    ~Closer() { closedir(d); }
  } closer{d};
  while (true) {
    errno = 0;
    struct dirent* e = readdir(d);
    if (e == nullptr) {
      if (errno != 0) return IOErrorFromErrno(errno, "list directory", dir);
      return Status::OK();
    }
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    const bool temp = IsTempName(name);
    if (temp && which == Entries::kVisible) continue;
    struct stat lst;
    if (fstatat(dirfd(d), e->d_name, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // deleted while we were listing
      return IOErrorFromErrno(errno, "stat", JoinPath(dir, name));
    }
    bool is_symlink = S_ISLNK(lst.st_mode);
    struct stat st = lst;
    if (is_symlink && fstatat(dirfd(d), e->d_name, &st, 0) != 0) continue;  // dangling
    if (which == Entries::kTemporaries) {
      // A temporary is a regular file of the exact shape (a link or directory of that
      // name is not one of ours); other directories are yielded to be descended into.
      const bool ours = temp && S_ISREG(lst.st_mode);
      const bool descend = !temp && S_ISDIR(st.st_mode);
      if (!ours && !descend) continue;
    }
    LITHIFY_RETURN_NOT_OK(fn(name, InfoFromStat(JoinPath(dir, name), st), is_symlink));
  }
}

void SortByPath(std::vector<FileInfo>* infos) {
  std::sort(infos->begin(), infos->end(),
            [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
}

class LocalFileSystem final : public FileSystem {
 public:
  Result<FileInfo> Head(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(path));
    std::string p(path);
    struct stat st;
    if (stat(p.c_str(), &st) != 0) return LookupErrorFromErrno(errno, "stat", path);
    return InfoFromStat(std::move(p), st);
  }

  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(dir));
    return Walk(dir, Want::kFiles);
  }

  Result<std::vector<FileInfo>> ListDirectoriesRecursive(std::string_view dir) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(dir));
    return Walk(dir, Want::kDirectories);
  }

  Result<std::vector<FileInfo>> ListTemporariesRecursive(std::string_view dir) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(dir));
    return Walk(dir, Want::kTemporaries);
  }

  Result<bool> DeleteEmptyDirectory(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(path));
    std::string p(path);
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return true;
      return IOErrorFromErrno(errno, "stat", path);
    }
    if (!S_ISDIR(st.st_mode)) return Status::NotSupported("{}: not a directory", path);
    if (rmdir(p.c_str()) == 0 || errno == ENOENT) {
      SyncDirBestEffort(path);
      return true;
    }
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    return IOErrorFromErrno(errno, "remove directory", path);
  }

  Result<std::vector<FileInfo>> ListFrom(std::string_view dir,
                                         std::string_view start_after) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(dir));
    std::vector<FileInfo> out;
    LITHIFY_RETURN_NOT_OK(ForEachEntry(
        std::string(dir), [&](std::string_view, FileInfo info, bool) -> Status {
          if (info.path > start_after) out.push_back(std::move(info));
          return Status::OK();
        }));
    SortByPath(&out);
    return out;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(path));
    std::string p(path);
    int fd;
    do {
      fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return LookupErrorFromErrno(errno, "open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int err = errno;
      close(fd);
      return IOErrorFromErrno(err, "stat", path);
    }
    if (S_ISDIR(st.st_mode)) {
      close(fd);
      return IOErrorFromErrno(EISDIR, "open", path);
    }
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<LocalFile>(std::move(p), fd, static_cast<uint64_t>(st.st_size)));
  }

  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckFilePath(path));
    std::string tmp;
    LITHIFY_ASSIGN_OR_RETURN(int fd, CreateTempSibling(path, &tmp));
    return std::unique_ptr<OutputStream>(
        std::make_unique<LocalOutputStream>(std::string(path), std::move(tmp), fd));
  }

  Status PutIfAbsent(std::string_view path, ByteView data) override {
    LITHIFY_RETURN_NOT_OK(CheckFilePath(path));
    std::string tmp;
    LITHIFY_ASSIGN_OR_RETURN(int fd, CreateTempSibling(path, &tmp));
    Status st = WriteAll(fd, data.data(), data.size(), tmp);
    if (st.ok()) {
      st = SyncAndClose(fd, tmp);
    } else {
      close(fd);
    }
    if (st.ok()) st = LinkIntoPlace(tmp, path);
    unlink(tmp.c_str());
    return st;
  }

  Status Delete(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckLocalPath(path));
    std::string p(path);
    if (unlink(p.c_str()) == 0 || errno == ENOENT || errno == ENOTDIR) return Status::OK();
    return IOErrorFromErrno(errno, "delete", path);
  }

 private:
  enum class Want { kFiles, kDirectories, kTemporaries };

  // Everything under `dir` at any depth, sorted: the visible files, the directories or
  // the temporaries. Symbolic links to directories are neither followed nor listed.
  static Result<std::vector<FileInfo>> Walk(std::string_view dir, Want want) {
    std::vector<FileInfo> out;
    std::vector<std::string> pending{std::string(dir)};
    const Entries which = want == Want::kTemporaries ? Entries::kTemporaries : Entries::kVisible;
    while (!pending.empty()) {
      std::string current = std::move(pending.back());
      pending.pop_back();
      LITHIFY_RETURN_NOT_OK(ForEachEntry(
          current,
          [&](std::string_view, FileInfo info, bool is_symlink) -> Status {
            if (!info.is_dir) {
              if (want != Want::kDirectories) out.push_back(std::move(info));
            } else if (!is_symlink) {
              pending.push_back(info.path);
              if (want == Want::kDirectories) out.push_back(std::move(info));
            }
            return Status::OK();
          },
          which));
    }
    SortByPath(&out);
    return out;
  }

  static Status LinkIntoPlace(const std::string& tmp, std::string_view path) {
    std::string p(path);
    if (link(tmp.c_str(), p.c_str()) == 0) {
      SyncDirBestEffort(path);
      return Status::OK();
    }
    int err = errno;
    if (err == EEXIST) return Status::AlreadyExists("{}: already exists", path);
    if (err == EPERM || err == EOPNOTSUPP) {
      // Without hard links there is no atomic create-if-absent that never exposes a
      // partial file, so refuse rather than weaken the guarantee.
      return Status::NotSupported("{}: put-if-absent needs hard links (link(2): {})", path,
                                  ErrnoText(err));
    }
    return IOErrorFromErrno(err, "link into place", path);
  }
};

}  // namespace

std::unique_ptr<FileSystem> NewLocalFileSystem() { return std::make_unique<LocalFileSystem>(); }

}  // namespace lithify::io
