#include "lithify/io/fault_injection.h"

#include <utility>

#include "lithify/base/macros.h"

namespace lithify::io {

namespace {

class FaultyFile final : public RandomAccessFile {
 public:
  FaultyFile(FaultInjectingFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
      : fs_(fs), base_(std::move(base)) {}
  uint64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override {
    auto d = fs_->Decide(FsOp::kReadAt, base_->path());
    if (d.fire) return d.error;
    return base_->ReadAt(offset, length, out);
  }
  // Faultable as a whole (kReadRanges) and per read: the base class splits it into
  // ReadAt calls of this file, each of which may fail too.
  Result<std::vector<Buffer>> ReadRanges(const std::vector<ReadRange>& ranges) override {
    auto d = fs_->Decide(FsOp::kReadRanges, base_->path());
    if (d.fire) return d.error;
    return RandomAccessFile::ReadRanges(ranges);
  }
  ReadProfile read_profile() const override { return base_->read_profile(); }
  uint64_t held_bytes() const override { return base_->held_bytes(); }

 private:
  FaultInjectingFileSystem* const fs_;
  const std::unique_ptr<RandomAccessFile> base_;
};

class FaultyStream final : public OutputStream {
 public:
  FaultyStream(FaultInjectingFileSystem* fs, std::string path, std::unique_ptr<OutputStream> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}
  uint64_t position() const override { return base_->position(); }
  Status Append(ByteView data) override {
    auto d = fs_->Decide(FsOp::kAppend, path_);
    if (d.fire) return d.error;
    return base_->Append(data);
  }
  Status Close() override {
    auto d = fs_->Decide(FsOp::kClose, path_);
    if (!d.fire) return base_->Close();
    if (d.after_success) {
      LITHIFY_RETURN_NOT_OK(base_->Close());
    } else {
      base_->Abort();  // a Close that never landed leaves nothing, per the contract
    }
    return d.error;
  }
  void Abort() override { base_->Abort(); }

 private:
  FaultInjectingFileSystem* const fs_;
  const std::string path_;
  const std::unique_ptr<OutputStream> base_;
};

}  // namespace

FaultInjectingFileSystem::FaultInjectingFileSystem(FileSystem* base) : base_(base) {}
FaultInjectingFileSystem::~FaultInjectingFileSystem() = default;

void FaultInjectingFileSystem::Inject(Fault fault) {
  // An OK "error" would make a failing Result; treat it as the default fault.
  if (fault.error.ok()) fault.error = Fault().error;
  std::lock_guard<std::mutex> lock(mu_);
  faults_.push_back(std::move(fault));
}

void FaultInjectingFileSystem::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.clear();
}

int64_t FaultInjectingFileSystem::calls(FsOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_[static_cast<int>(op)];
}

void FaultInjectingFileSystem::CrashAfter(int64_t n, bool lands) {
  std::lock_guard<std::mutex> lock(mu_);
  crash_after_ = n;
  crash_lands_ = lands;
}

int64_t FaultInjectingFileSystem::total_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_calls_;
}

int64_t FaultInjectingFileSystem::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

FaultInjectingFileSystem::Decision FaultInjectingFileSystem::Decide(FsOp op,
                                                                    std::string_view path) {
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_[static_cast<int>(op)];
  ++total_calls_;
  if (crash_after_ >= 0 && total_calls_ > crash_after_) {
    ++fired_;
    bool lands = crash_lands_ && total_calls_ == crash_after_ + 1 &&
                 (op == FsOp::kPutIfAbsent || op == FsOp::kClose);
    return {true, lands, Status::IOError("{}: simulated crash", path)};
  }
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->op != op || path.find(it->path_contains) == std::string_view::npos) continue;
    if (it->skip > 0) {
      --it->skip;
      continue;
    }
    Decision d{true, it->after_success, it->error.WithContextF("{}", path)};
    if (it->times > 0 && --it->times == 0) faults_.erase(it);
    ++fired_;
    return d;
  }
  return {};
}

Result<FileInfo> FaultInjectingFileSystem::Head(std::string_view path) {
  auto d = Decide(FsOp::kHead, path);
  if (d.fire) return d.error;
  return base_->Head(path);
}

Result<std::vector<FileInfo>> FaultInjectingFileSystem::ListRecursive(std::string_view dir) {
  auto d = Decide(FsOp::kList, dir);
  if (d.fire) return d.error;
  return base_->ListRecursive(dir);
}

Result<std::vector<FileInfo>> FaultInjectingFileSystem::ListFrom(std::string_view dir,
                                                                 std::string_view start_after) {
  auto d = Decide(FsOp::kList, dir);
  if (d.fire) return d.error;
  return base_->ListFrom(dir, start_after);
}

Result<FileSystem::FilePage> FaultInjectingFileSystem::ListFilesPage(std::string_view dir,
                                                                     std::string_view start_after,
                                                                     size_t page_size) {
  auto d = Decide(FsOp::kList, dir);
  if (d.fire) return d.error;
  return base_->ListFilesPage(dir, start_after, page_size);
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectingFileSystem::OpenForRead(
    std::string_view path) {
  auto d = Decide(FsOp::kOpenForRead, path);
  if (d.fire) return d.error;
  LITHIFY_ASSIGN_OR_RETURN(auto file, base_->OpenForRead(path));
  return std::unique_ptr<RandomAccessFile>(std::make_unique<FaultyFile>(this, std::move(file)));
}

Result<std::unique_ptr<OutputStream>> FaultInjectingFileSystem::Create(std::string_view path) {
  auto d = Decide(FsOp::kCreate, path);
  if (d.fire) return d.error;
  LITHIFY_ASSIGN_OR_RETURN(auto stream, base_->Create(path));
  return std::unique_ptr<OutputStream>(
      std::make_unique<FaultyStream>(this, std::string(path), std::move(stream)));
}

Status FaultInjectingFileSystem::PutIfAbsent(std::string_view path, ByteView data) {
  auto d = Decide(FsOp::kPutIfAbsent, path);
  if (!d.fire) return base_->PutIfAbsent(path, data);
  if (d.after_success) LITHIFY_RETURN_NOT_OK(base_->PutIfAbsent(path, data));
  return d.error;
}

Status FaultInjectingFileSystem::Delete(std::string_view path) {
  auto d = Decide(FsOp::kDelete, path);
  if (d.fire) return d.error;
  return base_->Delete(path);
}

Result<std::vector<FileInfo>> FaultInjectingFileSystem::ListDirectoriesRecursive(std::string_view dir) {
  auto d = Decide(FsOp::kList, dir);
  if (d.fire) return d.error;
  return base_->ListDirectoriesRecursive(dir);
}

Result<std::vector<FileInfo>> FaultInjectingFileSystem::ListTemporariesRecursive(std::string_view dir) {
  auto d = Decide(FsOp::kList, dir);
  if (d.fire) return d.error;
  return base_->ListTemporariesRecursive(dir);
}

Result<bool> FaultInjectingFileSystem::DeleteEmptyDirectory(std::string_view path) {
  auto d = Decide(FsOp::kDelete, path);
  if (d.fire) return d.error;
  return base_->DeleteEmptyDirectory(path);
}

}  // namespace lithify::io
