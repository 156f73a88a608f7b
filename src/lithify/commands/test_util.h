// Test helpers for commands/: corpus table locations and a collecting sink. Tests only.
#pragma once

#include <string>
#include <vector>

#include "lithify/commands/scan.h"

namespace lithify::commands::testing {

inline std::string Corpus() { return std::string(LITHIFY_SOURCE_DIR) + "/../shared/corpus"; }
inline std::string Golden(const std::string& name) {
  return Corpus() + "/delta-kernel-rs/kernel/tests/golden_data/" + name + "/delta";
}
inline std::string Kernel(const std::string& name) {
  return Corpus() + "/delta-kernel-rs/kernel/tests/data/" + name;
}
inline std::string DeltaRs(const std::string& name) {
  return Corpus() + "/delta-rs/crates/test/tests/data/" + name;
}

// Renders JSON lines into a vector.
struct Lines {
  std::vector<std::string> lines;
  std::unique_ptr<ScanSink> sink = NewRenderSink(parquet::RowFormat::kJsonLines, [this](std::string_view t) {
    size_t start = 0;
    while (start < t.size()) {
      size_t nl = t.find('\n', start);
      lines.emplace_back(t.substr(start, nl - start));
      start = nl + 1;
    }
    return Status::OK();
  });
};

}  // namespace lithify::commands::testing
