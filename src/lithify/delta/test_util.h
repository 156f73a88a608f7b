// Test helpers for the delta module: corpus locations and temporary table copies.
// Tests only; not part of lithify_delta.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include "lithify_test_paths.h"

namespace lithify::delta::testing {

// Delta schema JSON builders: a struct field, a primitive type, a struct type.
inline std::string Field(const std::string& name, const std::string& type_json, bool nullable = true,
                         const std::string& metadata = "{}") {
  return fmt::format(R"({{"name":"{}","type":{},"nullable":{},"metadata":{}}})", name, type_json,
                     nullable ? "true" : "false", metadata);
}
inline std::string Prim(const std::string& t) { return "\"" + t + "\""; }
inline std::string Struct(const std::vector<std::string>& fields) {
  std::string s = R"({"type":"struct","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i) s += (i ? "," : "") + fields[i];
  return s + "]}";
}

inline std::string CorpusDir() { return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus"; }
inline std::string GoldenTable(const std::string& name) {
  return CorpusDir() + "/delta-kernel-rs/kernel/tests/golden_data/" + name + "/delta";
}
inline std::string KernelTable(const std::string& name) {
  return CorpusDir() + "/delta-kernel-rs/kernel/tests/data/" + name;
}
inline std::string DeltaRsTable(const std::string& name) {
  return CorpusDir() + "/delta-rs/crates/test/tests/data/" + name;
}

// A writable copy of a corpus table in a fresh temporary directory, removed on
// destruction. Corpus files are read-only, so copies are made owner-writable.
class TempTable {
 public:
  explicit TempTable(const std::string& source) {
    char tmpl[] = "/tmp/lithify-delta-test-XXXXXX";
    char* dir = mkdtemp(tmpl);
    EXPECT_NE(dir, nullptr);
    root_ = std::string(dir) + "/table";
    namespace fs = std::filesystem;
    fs::copy(source, root_, fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(root_)) {
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    }
    fs::permissions(root_, fs::perms::owner_write, fs::perm_options::add);
  }
  ~TempTable() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(root_).parent_path(), ec);
  }
  const std::string& root() const { return root_; }
  std::string log(const std::string& name) const { return root_ + "/_delta_log/" + name; }

 private:
  std::string root_;
};

}  // namespace lithify::delta::testing
