// Where a test finds the source tree (the corpus beside it, scripts, oracles under tests/)
// and the build tree (the lithify binary).
//
// Why not a compile definition: an absolute path compiled into every test file makes each
// of them miss the compiler cache in every other clone (CI builds a fresh clone each run);
// the paths are defined once, in a file CMake generates (test_paths.cc), and only that small
// file is recompiled per clone. Both are absolute and without a trailing slash.
#pragma once

namespace lithify_tests {
const char* SourceDir();
const char* BinaryDir();
}  // namespace lithify_tests

#define LITHIFY_SOURCE_DIR (::lithify_tests::SourceDir())
#define LITHIFY_BINARY_DIR (::lithify_tests::BinaryDir())
