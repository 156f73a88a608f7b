// OpenFileSystem: the FileSystem for a location, chosen by its URI scheme.
//
// A location is a plain local path or a URI (uri.h). Plain paths and file: URIs open
// the local file system, addressed by the local path; every other scheme opens the
// FileSystem registered for it, addressed by the whole URI (so paths joined onto it
// stay URIs, see filesystem.h). Object-store backends register themselves
// (RegisterFileSystem) from their own libraries, so io itself depends on no network
// library; a program calls their Register...() functions once at start (the CLI does).
// A scheme nobody registered is NotSupported: "URIs are not supported yet: <uri> ...".
//
// Thread-safety: registration and lookups may happen from any thread (a mutex guards
// the table); a factory may be called concurrently.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::io {

struct OpenedLocation {
  std::shared_ptr<FileSystem> fs;
  // The location as `fs` addresses it: the local path for plain paths and file: URIs,
  // the URI itself (trailing '/' removed) for other schemes.
  std::string path;
};

// Makes the FileSystem for one URI of its scheme (the factory may share one instance
// between calls). It reports bad URIs of its scheme (a missing bucket name, ...) as
// InvalidArgument and missing configuration as InvalidArgument naming the setting.
using FileSystemFactory = std::function<Result<std::shared_ptr<FileSystem>>(std::string_view uri)>;

// Registers (or replaces) the factory for `scheme` (lower case, without ':').
void RegisterFileSystem(std::string_view scheme, FileSystemFactory factory);

// The schemes registered so far, sorted ("file" is always there).
std::vector<std::string> RegisteredSchemes();

// The FileSystem and path for `location`. InvalidArgument for an empty location or a
// malformed file: URI; NotSupported for a scheme without a backend.
Result<OpenedLocation> OpenFileSystem(std::string_view location);

// A FileSystem that serves every registered scheme at once: each call goes to the
// FileSystem of its path's scheme (plain paths: the local one), opened on first use
// and kept per scheme and authority. For programs that address several locations
// through one FileSystem (the server's --table list). Paths must be resolved already:
// a file: URI is NotSupported here (pass OpenFileSystem's path instead).
std::shared_ptr<FileSystem> NewRoutingFileSystem();

}  // namespace lithify::io
