// TempDir: a fresh, empty directory under the system temp dir, removed with everything
// in it when the object is destroyed. For tests and benchmarks (a test that cannot make
// its directory fails at once rather than writing somewhere else).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace lithify {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "lithify-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The conventional table root inside it (not created).
  std::string table() const { return path_ + "/table"; }

 private:
  std::string path_;
};

}  // namespace lithify
