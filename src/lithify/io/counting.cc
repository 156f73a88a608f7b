#include "lithify/io/counting.h"

#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"

namespace lithify::io {

std::string_view FsOpName(FsOp op) {
  switch (op) {
    case FsOp::kHead: return "head";
    case FsOp::kList: return "list";
    case FsOp::kOpenForRead: return "open";
    case FsOp::kReadAt: return "read";
    case FsOp::kCreate: return "create";
    case FsOp::kAppend: return "append";
    case FsOp::kClose: return "close";
    case FsOp::kPutIfAbsent: return "putIfAbsent";
    case FsOp::kDelete: return "delete";
    case FsOp::kReadRanges: return "readRanges";
  }
  return "?";
}

namespace {

class CountingFile final : public RandomAccessFile {
 public:
  CountingFile(CountingFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
      : fs_(fs), base_(std::move(base)) {}
  uint64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }
  ReadProfile read_profile() const override { return base_->read_profile(); }
  uint64_t held_bytes() const override { return base_->held_bytes(); }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    Status st = base_->ReadAt(offset, length, out);
    fs_->Count(FsOp::kReadAt, st.ok() ? length : 0);
    return st;
  }
  Result<std::vector<Buffer>> ReadRanges(const std::vector<ReadRange>& ranges) override {
    auto r = base_->ReadRanges(ranges);
    uint64_t bytes = 0;
    if (r.ok()) {
      for (const Buffer& b : *r) bytes += b.size();
    }
    fs_->Count(FsOp::kReadRanges, bytes);
    return r;
  }

 private:
  CountingFileSystem* const fs_;
  const std::unique_ptr<RandomAccessFile> base_;
};

class CountingStream final : public OutputStream {
 public:
  CountingStream(CountingFileSystem* fs, std::unique_ptr<OutputStream> base)
      : fs_(fs), base_(std::move(base)) {}
  uint64_t position() const override { return base_->position(); }
  Status Append(ByteView data) override {
    fs_->Count(FsOp::kAppend);
    return base_->Append(data);
  }
  Status Close() override {
    fs_->Count(FsOp::kClose);
    return base_->Close();
  }
  void Abort() override { base_->Abort(); }

 private:
  CountingFileSystem* const fs_;
  const std::unique_ptr<OutputStream> base_;
};

}  // namespace

CountingFileSystem::CountingFileSystem(FileSystem* base) : base_(base) {}
CountingFileSystem::CountingFileSystem(std::shared_ptr<FileSystem> base)
    : owned_(std::move(base)), base_(owned_.get()) {}

void CountingFileSystem::Count(FsOp op, uint64_t bytes) {
  calls_[static_cast<int>(op)].fetch_add(1, std::memory_order_relaxed);
  if (bytes > 0) bytes_read_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

int64_t CountingFileSystem::total_calls() const {
  int64_t n = 0;
  for (const auto& c : calls_) n += c.load();
  return n;
}

std::vector<std::string> CountingFileSystem::opened_paths() const {
  std::lock_guard<std::mutex> lock(mu_);
  return opened_;
}

std::string CountingFileSystem::CountsJson() const {
  std::string out = "{";
  for (int i = 0; i < kNumFsOps; ++i) {
    out += fmt::format("\"{}\":{},", FsOpName(static_cast<FsOp>(i)), calls_[i].load());
  }
  out += fmt::format("\"bytesRead\":{}}}", bytes_read_.load());
  return out;
}

void CountingFileSystem::Reset() {
  for (auto& c : calls_) c.store(0);
  bytes_read_.store(0);
  std::lock_guard<std::mutex> lock(mu_);
  opened_.clear();
}

Result<FileInfo> CountingFileSystem::Head(std::string_view path) {
  Count(FsOp::kHead);
  return base_->Head(path);
}

Result<std::vector<FileInfo>> CountingFileSystem::ListRecursive(std::string_view dir) {
  Count(FsOp::kList);
  return base_->ListRecursive(dir);
}

Result<std::vector<FileInfo>> CountingFileSystem::ListFrom(std::string_view dir,
                                                           std::string_view start_after) {
  Count(FsOp::kList);
  return base_->ListFrom(dir, start_after);
}

Result<FileSystem::FilePage> CountingFileSystem::ListFilesPage(std::string_view dir,
                                                               std::string_view start_after,
                                                               size_t page_size) {
  Count(FsOp::kList);
  return base_->ListFilesPage(dir, start_after, page_size);
}

Result<std::unique_ptr<RandomAccessFile>> CountingFileSystem::OpenForRead(std::string_view path) {
  Count(FsOp::kOpenForRead);
  {
    std::lock_guard<std::mutex> lock(mu_);
    opened_.emplace_back(path);
  }
  LITHIFY_ASSIGN_OR_RETURN(auto file, base_->OpenForRead(path));
  return std::unique_ptr<RandomAccessFile>(std::make_unique<CountingFile>(this, std::move(file)));
}

Result<std::unique_ptr<OutputStream>> CountingFileSystem::Create(std::string_view path) {
  Count(FsOp::kCreate);
  LITHIFY_ASSIGN_OR_RETURN(auto stream, base_->Create(path));
  return std::unique_ptr<OutputStream>(std::make_unique<CountingStream>(this, std::move(stream)));
}

Status CountingFileSystem::PutIfAbsent(std::string_view path, ByteView data) {
  Count(FsOp::kPutIfAbsent);
  return base_->PutIfAbsent(path, data);
}

Status CountingFileSystem::Delete(std::string_view path) {
  Count(FsOp::kDelete);
  return base_->Delete(path);
}

Status CountingFileSystem::DeleteMany(const std::vector<std::string>& paths) {
  calls_[static_cast<int>(FsOp::kDelete)].fetch_add(static_cast<int64_t>(paths.size()));
  return base_->DeleteMany(paths);
}

Result<std::vector<FileInfo>> CountingFileSystem::ListDirectoriesRecursive(std::string_view dir) {
  Count(FsOp::kList);
  return base_->ListDirectoriesRecursive(dir);
}

Result<std::vector<FileInfo>> CountingFileSystem::ListTemporariesRecursive(std::string_view dir) {
  Count(FsOp::kList);
  return base_->ListTemporariesRecursive(dir);
}

Result<bool> CountingFileSystem::DeleteEmptyDirectory(std::string_view path) {
  Count(FsOp::kDelete);
  return base_->DeleteEmptyDirectory(path);
}

}  // namespace lithify::io
