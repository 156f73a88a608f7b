#include "tools/cli/storage.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/io/registry.h"
#include "lithify/io/azure/azure_filesystem.h"
#include "lithify/io/s3/s3_filesystem.h"

namespace lithify::cli {

OpenedLocation::OpenedLocation(std::shared_ptr<io::FileSystem> fs, std::string path, std::string location,
                               std::unique_ptr<io::CountingFileSystem> counting)
    : fs_(std::move(fs)), path_(std::move(path)), location_(std::move(location)), counting_(std::move(counting)) {}

OpenedLocation::~OpenedLocation() {
  if (!counting_) return;
  const char* out = std::getenv("LITHIFY_IO_STATS");
  if (out == nullptr || *out == '\0') return;
  std::string line = counting_->CountsJson();
  line.insert(1, "\"location\":" + nlohmann::json(location_).dump() + ",");
  if (FILE* f = std::fopen(out, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

Result<OpenedLocation> OpenLocation(const std::string& location) {
  RegisterStorageBackends();
  LITHIFY_ASSIGN_OR_RETURN(io::OpenedLocation opened, io::OpenFileSystem(location));
  std::unique_ptr<io::CountingFileSystem> counting;
  const char* stats = std::getenv("LITHIFY_IO_STATS");
  if (stats != nullptr && *stats != '\0') counting = std::make_unique<io::CountingFileSystem>(opened.fs.get());
  return OpenedLocation(std::move(opened.fs), std::move(opened.path), location, std::move(counting));
}

void RegisterStorageBackends() {
  io::s3::RegisterS3FileSystem();
  io::azure::RegisterAzureFileSystem();
}

}  // namespace lithify::cli
