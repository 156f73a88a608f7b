// Where a command's TABLE (or FILE) lives: the location resolved to a FileSystem.
//
// Every command opens its location through OpenLocation, which asks io::OpenFileSystem
// (plain paths, file: URIs and the registered object stores) and, when the environment
// variable LITHIFY_IO_STATS names a file, wraps the FileSystem in an
// io::CountingFileSystem and appends one JSON line with the counts to that file when
// the command is done ({"location":...,"head":N,...,"bytesRead":N}): the request counts
// of a command without a profiler (bench/ uses it).
#pragma once

#include <memory>
#include <string>

#include "lithify/base/result.h"
#include "lithify/io/counting.h"
#include "lithify/io/filesystem.h"

namespace lithify::cli {

class OpenedLocation {
 public:
  OpenedLocation(std::shared_ptr<io::FileSystem> fs, std::string path, std::string location,
                 std::unique_ptr<io::CountingFileSystem> counting);
  ~OpenedLocation();
  OpenedLocation(OpenedLocation&&) = default;
  OpenedLocation& operator=(OpenedLocation&&) = delete;

  // The FileSystem to use (the counting decorator when stats are asked for).
  io::FileSystem* fs() const { return counting_ ? counting_.get() : fs_.get(); }
  // The location as fs() addresses it (a local path or the whole URI).
  const std::string& path() const { return path_; }

 private:
  std::shared_ptr<io::FileSystem> fs_;
  std::string path_;
  std::string location_;
  std::unique_ptr<io::CountingFileSystem> counting_;
};

// Opens `location` (a command's TABLE or FILE argument).
Result<OpenedLocation> OpenLocation(const std::string& location);

// Registers the object-store backends with io's registry (once; idempotent).
void RegisterStorageBackends();

}  // namespace lithify::cli
