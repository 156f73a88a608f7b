// Test helpers for commands/: corpus table locations and a collecting sink. Tests only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/commands/scan.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify_test_paths.h"

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

// Commits version 0 of a new Delta table at `root`: protocol 3/7 with table features
// (deletionVectors, and delta.enableDeletionVectors, when `dvs`), metadata with
// `schema_json` and `partitions`, a fixed table id and creation time (so that two tables
// made alike compare equal).
inline void CreateDeltaTable(io::FileSystem* fs, const std::string& root, const std::string& schema_json,
                             std::vector<std::string> partitions, bool dvs) {
  auto txn = delta::Transaction::BeginNewTable(fs, root);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  delta::Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{};
  p.writer_features = std::vector<std::string>{};
  if (dvs) {
    p.reader_features->push_back("deletionVectors");
    p.writer_features->push_back("deletionVectors");
  }
  delta::Metadata m;
  m.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  m.schema_string = schema_json;
  m.partition_columns = std::move(partitions);
  m.created_time = 1;
  if (dvs) m.configuration["delta.enableDeletionVectors"] = "true";
  (*txn)->AddAction(p);
  (*txn)->AddAction(m);
  (*txn)->SetOperation("CREATE TABLE", nlohmann::json::object());
  auto r = (*txn)->Commit();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
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

// DuckDB's canonical JSON lines of one Parquet file (tests/oracle/duckdb-cat.mjs), sorted;
// nullopt when node or the DuckDB package is missing (callers GTEST_SKIP then).
inline std::optional<std::vector<std::string>> DuckDbRows(const std::string& path) {
  const std::string oracle = std::string(LITHIFY_SOURCE_DIR) + "/tests/oracle";
  if (std::system("node --version > /dev/null 2>&1") != 0 ||
      !std::filesystem::exists(oracle + "/node_modules/@duckdb/node-api")) {
    return std::nullopt;
  }
  FILE* p = popen(("node '" + oracle + "/duckdb-cat.mjs' '" + path + "'").c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << path;
  std::vector<std::string> lines;
  for (size_t start = 0; start < out.size();) {
    size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Every row of the table's latest version as canonical JSON lines, sorted (a multiset to
// compare before and after a write).
inline std::vector<std::string> ScanLines(io::FileSystem* fs, const std::string& root) {
  Lines out;
  auto r = Scan(fs, root, ScanOptions{}, out.sink.get());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::sort(out.lines.begin(), out.lines.end());
  return out.lines;
}

// The table's latest version; a failed load fails the test and gives -1.
inline int64_t LatestVersion(io::FileSystem* fs, const std::string& root) {
  auto s = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? (*s)->version() : -1;
}

// Forwards to a base FileSystem; the first commit attempt (a put-if-absent of a
// `_delta_log/*.json`) loses the race to `racer`, written at that version just before.
class RacingFileSystem final : public io::FileSystem {
 public:
  RacingFileSystem(io::FileSystem* base, std::string racer) : base_(base), racer_(std::move(racer)) {}
  Result<io::FileInfo> Head(std::string_view p) override { return base_->Head(p); }
  Result<std::vector<io::FileInfo>> ListRecursive(std::string_view d) override { return base_->ListRecursive(d); }
  Result<std::vector<io::FileInfo>> ListFrom(std::string_view d, std::string_view s) override {
    return base_->ListFrom(d, s);
  }
  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(std::string_view p) override {
    return base_->OpenForRead(p);
  }
  Result<std::unique_ptr<io::OutputStream>> Create(std::string_view p) override { return base_->Create(p); }
  Status PutIfAbsent(std::string_view p, ByteView data) override {
    if (!raced_ && p.find("_delta_log/") != std::string_view::npos && p.ends_with(".json")) {
      raced_ = true;
      Status won = base_->PutIfAbsent(p, AsBytes(racer_));
      if (!won.ok()) return won;
    }
    return base_->PutIfAbsent(p, data);
  }
  Status Delete(std::string_view p) override { return base_->Delete(p); }
  bool raced() const { return raced_; }

 private:
  io::FileSystem* base_;
  std::string racer_;
  bool raced_ = false;
};

}  // namespace lithify::commands::testing
