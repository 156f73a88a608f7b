#include "lithify/io/registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/io/uri.h"

namespace lithify::io {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, FileSystemFactory, std::less<>> factories;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // never destroyed: usable during exit
  return *registry;
}

std::shared_ptr<FileSystem> LocalFileSystem() {
  static const std::shared_ptr<FileSystem> local = NewLocalFileSystem();
  return local;
}

}  // namespace

void RegisterFileSystem(std::string_view scheme, FileSystemFactory factory) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[std::string(scheme)] = std::move(factory);
}

std::vector<std::string> RegisteredSchemes() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out{"file"};
  for (const auto& [scheme, factory] : r.factories) {
    if (scheme != "file") out.push_back(scheme);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<OpenedLocation> OpenFileSystem(std::string_view location) {
  if (location.empty()) return Status::InvalidArgument("empty table location");
  if (!HasScheme(location)) return OpenedLocation{LocalFileSystem(), std::string(location)};
  const std::string scheme = SchemeOf(location);
  if (scheme == "file") {
    LITHIFY_ASSIGN_OR_RETURN(std::string path, FileUriToPath(location));
    return OpenedLocation{LocalFileSystem(), std::move(path)};
  }
  FileSystemFactory factory;
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(scheme);
    if (it != r.factories.end()) factory = it->second;
  }
  if (!factory) {
    return Status::NotSupported("URIs are not supported yet: {} (no storage backend for '{}:'; supported: {})",
                                location, scheme, fmt::join(RegisteredSchemes(), ", "));
  }
  LITHIFY_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> fs, factory(location));
  std::string path(location);
  while (path.size() > 1 && path.back() == '/' && path[path.size() - 2] != '/') path.pop_back();
  return OpenedLocation{std::move(fs), std::move(path)};
}

namespace {

class RoutingFileSystem final : public FileSystem {
 public:
  Result<FileInfo> Head(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->Head(path);
  }
  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(dir));
    return fs->ListRecursive(dir);
  }
  Result<std::vector<FileInfo>> ListFrom(std::string_view dir, std::string_view start_after) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(dir));
    return fs->ListFrom(dir, start_after);
  }
  Result<FilePage> ListFilesPage(std::string_view dir, std::string_view start_after,
                                 size_t page_size) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(dir));
    return fs->ListFilesPage(dir, start_after, page_size);
  }
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->OpenForRead(path);
  }
  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->Create(path);
  }
  Status PutIfAbsent(std::string_view path, ByteView data) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->PutIfAbsent(path, data);
  }
  Status Delete(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->Delete(path);
  }
  Status DeleteMany(const std::vector<std::string>& paths) override {
    // Batched per store: consecutive paths of one store go together.
    Status first;
    for (size_t i = 0; i < paths.size();) {
      size_t j = i + 1;
      const std::string key = StoreKey(paths[i]);
      while (j < paths.size() && StoreKey(paths[j]) == key) ++j;
      Status st;
      auto fs = For(paths[i]);
      if (fs.ok()) {
        st = (*fs)->DeleteMany(std::vector<std::string>(paths.begin() + i, paths.begin() + j));
      } else {
        st = fs.status();
      }
      if (!st.ok() && first.ok()) first = std::move(st);
      i = j;
    }
    return first;
  }
  Result<std::vector<FileInfo>> ListDirectoriesRecursive(std::string_view dir) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(dir));
    return fs->ListDirectoriesRecursive(dir);
  }
  Result<std::vector<FileInfo>> ListTemporariesRecursive(std::string_view dir) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(dir));
    return fs->ListTemporariesRecursive(dir);
  }
  Result<bool> DeleteEmptyDirectory(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(FileSystem * fs, For(path));
    return fs->DeleteEmptyDirectory(path);
  }

 private:
  // "" for plain paths, else "scheme://authority".
  static std::string StoreKey(std::string_view path) {
    if (!HasScheme(path)) return std::string();
    auto parts = SplitUri(path);
    if (!parts.ok()) return SchemeOf(path);
    return parts->scheme + "://" + parts->authority;
  }

  Result<FileSystem*> For(std::string_view path) {
    if (!HasScheme(path)) return LocalFileSystem().get();
    if (SchemeOf(path) == "file") {
      return Status::NotSupported("{}: resolve file: URIs with io::OpenFileSystem first", path);
    }
    const std::string key = StoreKey(path);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = stores_.find(key);
    if (it != stores_.end()) return it->second.get();
    LITHIFY_ASSIGN_OR_RETURN(OpenedLocation opened, OpenFileSystem(path));
    FileSystem* raw = opened.fs.get();
    stores_.emplace(key, std::move(opened.fs));
    return raw;
  }

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<FileSystem>> stores_;
};

}  // namespace

std::shared_ptr<FileSystem> NewRoutingFileSystem() { return std::make_shared<RoutingFileSystem>(); }

}  // namespace lithify::io
