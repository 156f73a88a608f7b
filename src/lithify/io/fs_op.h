// FsOp: the kinds of FileSystem call, as the decorators count and fault them
// (fault_injection.h, counting.h).
#pragma once

#include <string_view>

namespace lithify::io {

enum class FsOp : int {
  kHead,
  kList,         // ListRecursive, ListFrom, ListFilesPage, ListDirectoriesRecursive,
                 // ListTemporariesRecursive
  kOpenForRead,
  kReadAt,       // reads through a file opened by this FileSystem
  kCreate,
  kAppend,       // appends to a stream created by this FileSystem
  kClose,
  kPutIfAbsent,
  kDelete,       // Delete, DeleteMany (per path) and DeleteEmptyDirectory
  kReadRanges,   // vectored reads through a file opened by this FileSystem
};
inline constexpr int kNumFsOps = 10;

// "head", "list", "open", "read", "create", "append", "close", "putIfAbsent",
// "delete", "readRanges".
std::string_view FsOpName(FsOp op);

}  // namespace lithify::io
