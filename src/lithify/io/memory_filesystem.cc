// MemoryFileSystem: the FileSystem contract over an in-process sorted map.
//
// Files are immutable shared buffers keyed by normalized path (repeated '/' collapsed,
// trailing '/' dropped); directories exist only as prefixes of file paths, as on an
// object store. Replacing a file swaps in a new buffer, so a RandomAccessFile opened
// earlier keeps reading the content it opened (like the local file system's open file
// descriptor). Errors mirror LocalFileSystem's codes so the contract tests hold for
// both.
//
// Thread-safety: one mutex guards the map; file contents are immutable once published,
// so reads need no lock. Streams hold the shared state, so they may outlive the
// FileSystem object.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"

namespace lithify::io {

namespace {

struct MemoryEntry {
  std::shared_ptr<const Buffer> data;
  int64_t mtime_ms = 0;
};

std::string Normalize(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    if (ch == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(ch);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// The key prefix shared by everything inside directory `dir` ("" for the root of
// relative paths).
std::string DirPrefix(std::string_view dir) {
  std::string norm = Normalize(dir);
  if (norm.empty() || norm == "/") return norm;
  norm.push_back('/');
  return norm;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

Status CheckFilePath(std::string_view path) {
  if (path.empty() || path.back() == '/') {
    return Status::InvalidArgument("'{}' is not a file path (empty file name)", path);
  }
  return Status::OK();
}

class MemoryState {
 public:
  using Map = std::map<std::string, MemoryEntry, std::less<>>;

  std::mutex mu;
  Map files;

  // Strictly increasing wall-clock milliseconds, so later writes always look newer.
  int64_t NextMtimeLocked() {
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    last_mtime_ = std::max(now, last_mtime_ + 1);
    return last_mtime_;
  }

  // Files under `prefix`: [begin, end) of the map.
  std::pair<Map::const_iterator, Map::const_iterator> RangeLocked(const std::string& prefix) const {
    auto begin = files.lower_bound(prefix);
    auto end = begin;
    while (end != files.end() && StartsWith(end->first, prefix)) ++end;
    return {begin, end};
  }

  bool IsDirLocked(const std::string& key) const {
    if (key.empty()) return false;
    std::string prefix = key == "/" ? key : key + "/";
    auto it = files.lower_bound(prefix);
    return it != files.end() && StartsWith(it->first, prefix);
  }

  // The local file system cannot create a file below a file.
  Status CheckAncestorsLocked(const std::string& key, std::string_view path) const {
    for (size_t slash = key.find('/', 1); slash != std::string::npos;
         slash = key.find('/', slash + 1)) {
      if (files.count(key.substr(0, slash)) != 0) {
        return Status::IOError("{}: parent '{}' is a file, not a directory", path,
                               key.substr(0, slash));
      }
    }
    return Status::OK();
  }

  // A file can be published at `key` unless an ancestor is a file or `key` is a
  // directory (the local file system refuses both).
  Status CheckPublishableLocked(const std::string& key, std::string_view path) const {
    LITHIFY_RETURN_NOT_OK(CheckAncestorsLocked(key, path));
    if (IsDirLocked(key)) return Status::IOError("{}: is a directory", path);
    return Status::OK();
  }

 private:
  int64_t last_mtime_ = 0;
};

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string path, std::shared_ptr<const Buffer> data)
      : path_(std::move(path)), data_(std::move(data)) {}

  uint64_t size() const override { return data_->size(); }
  const std::string& path() const override { return path_; }

  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    const uint64_t size = data_->size();
    if (offset > size || length > size - offset) {
      return Status::IOError(
          "{}: read of {} bytes at offset {} is past the end of the file ({} bytes)", path_,
          length, offset, size);
    }
    if (length > 0) std::memcpy(out, data_->data() + offset, length);
    return Status::OK();
  }

 private:
  const std::string path_;
  const std::shared_ptr<const Buffer> data_;
};

class MemoryOutputStream final : public OutputStream {
 public:
  MemoryOutputStream(std::shared_ptr<MemoryState> state, std::string path)
      : state_(std::move(state)), path_(std::move(path)) {}
  ~MemoryOutputStream() override { Abort(); }

  uint64_t position() const override { return data_.size(); }

  Status Append(ByteView data) override {
    LITHIFY_RETURN_NOT_OK(CheckOpen("append to"));
    data_.Append(data);
    return Status::OK();
  }

  Status Close() override {
    if (phase_ == Phase::kClosed) return Status::OK();
    LITHIFY_RETURN_NOT_OK(CheckOpen("close"));
    auto content = std::make_shared<const Buffer>(std::move(data_));
    std::string key = Normalize(path_);
    std::lock_guard<std::mutex> lock(state_->mu);
    Status st = state_->CheckPublishableLocked(key, path_);
    if (!st.ok()) {
      phase_ = Phase::kAborted;
      return st;
    }
    state_->files[key] = MemoryEntry{std::move(content), state_->NextMtimeLocked()};
    phase_ = Phase::kClosed;
    return Status::OK();
  }

  void Abort() override {
    if (phase_ != Phase::kOpen) return;
    phase_ = Phase::kAborted;
    data_ = Buffer();
  }

 private:
  enum class Phase { kOpen, kClosed, kAborted };

  Status CheckOpen(std::string_view what) const {
    if (phase_ == Phase::kOpen) return Status::OK();
    return Status::InvalidArgument("{}: cannot {} a stream that was already {}", path_, what,
                                   phase_ == Phase::kClosed ? "closed" : "aborted or failed");
  }

  const std::shared_ptr<MemoryState> state_;
  const std::string path_;
  Buffer data_;
  Phase phase_ = Phase::kOpen;
};

class MemoryFileSystem final : public FileSystem {
 public:
  Result<FileInfo> Head(std::string_view path) override {
    std::string key = Normalize(path);
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->files.find(key);
    if (it != state_->files.end()) {
      return FileInfo{std::string(path), it->second.data->size(), it->second.mtime_ms, false};
    }
    if (!state_->IsDirLocked(key)) return Status::NotFound("{}: no such file or directory", path);
    FileInfo info{std::string(path), 0, 0, true};
    auto [begin, end] = state_->RangeLocked(DirPrefix(path));
    for (auto i = begin; i != end; ++i) info.mtime_ms = std::max(info.mtime_ms, i->second.mtime_ms);
    return info;
  }

  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override {
    std::string prefix = DirPrefix(dir);
    std::vector<FileInfo> out;
    std::lock_guard<std::mutex> lock(state_->mu);
    auto [begin, end] = state_->RangeLocked(prefix);
    // Every path shares `dir` as its prefix, so map order is path order.
    for (auto i = begin; i != end; ++i) {
      out.push_back(FileInfo{JoinPath(dir, std::string_view(i->first).substr(prefix.size())),
                             i->second.data->size(), i->second.mtime_ms, false});
    }
    return out;
  }

  Result<std::vector<FileInfo>> ListFrom(std::string_view dir,
                                         std::string_view start_after) override {
    std::string prefix = DirPrefix(dir);
    // Keyed by output path: dedupes a directory's many files and sorts children
    // ("a" before "a.b", even though key "a.b" precedes "a/x").
    std::map<std::string, FileInfo> children;
    std::lock_guard<std::mutex> lock(state_->mu);
    auto [begin, end] = state_->RangeLocked(prefix);
    for (auto i = begin; i != end; ++i) {
      std::string_view rest = std::string_view(i->first).substr(prefix.size());
      size_t slash = rest.find('/');
      bool is_dir = slash != std::string_view::npos;
      std::string path = JoinPath(dir, rest.substr(0, slash));
      if (path <= start_after) continue;
      auto [it, inserted] = children.try_emplace(path);
      FileInfo& info = it->second;
      if (inserted) {
        info.path = path;
        info.is_dir = is_dir;
        info.size = is_dir ? 0 : i->second.data->size();
      }
      info.mtime_ms = std::max(info.mtime_ms, i->second.mtime_ms);
    }
    std::vector<FileInfo> out;
    out.reserve(children.size());
    for (auto& [path, info] : children) out.push_back(std::move(info));
    return out;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    std::string key = Normalize(path);
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->files.find(key);
    if (it == state_->files.end()) {
      if (state_->IsDirLocked(key)) return Status::IOError("{}: open: is a directory", path);
      return Status::NotFound("{}: open: no such file or directory", path);
    }
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<MemoryFile>(std::string(path), it->second.data));
  }

  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override {
    LITHIFY_RETURN_NOT_OK(CheckFilePath(path));
    std::string key = Normalize(path);
    {
      // Fail early like the local file system, whose Create makes the parents.
      std::lock_guard<std::mutex> lock(state_->mu);
      LITHIFY_RETURN_NOT_OK(state_->CheckAncestorsLocked(key, path));
    }
    return std::unique_ptr<OutputStream>(
        std::make_unique<MemoryOutputStream>(state_, std::string(path)));
  }

  Status PutIfAbsent(std::string_view path, ByteView data) override {
    LITHIFY_RETURN_NOT_OK(CheckFilePath(path));
    std::string key = Normalize(path);
    auto content = std::make_shared<const Buffer>(Buffer::CopyOf(data));
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->files.count(key) != 0 || state_->IsDirLocked(key)) {
      return Status::AlreadyExists("{}: already exists", path);
    }
    LITHIFY_RETURN_NOT_OK(state_->CheckPublishableLocked(key, path));
    state_->files.emplace(std::move(key), MemoryEntry{std::move(content), state_->NextMtimeLocked()});
    return Status::OK();
  }

  Status Delete(std::string_view path) override {
    std::string key = Normalize(path);
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->files.erase(key) == 0 && state_->IsDirLocked(key)) {
      return Status::IOError("{}: delete: is a directory", path);
    }
    return Status::OK();
  }

 private:
  std::shared_ptr<MemoryState> state_ = std::make_shared<MemoryState>();
};

}  // namespace

std::unique_ptr<FileSystem> NewMemoryFileSystem() { return std::make_unique<MemoryFileSystem>(); }

}  // namespace lithify::io
