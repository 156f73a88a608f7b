// What the ingest readers (ingest_jsonl, ingest_csv, ingest_parquet) share: column paths
// for error messages, case-insensitive column lookup, the value conventions' range
// checks, and the two streaming pieces every format runs on (ChunkReader: a file in
// 1 MiB chunks; RowBatcher: rows handed to the RowSink in batches). Internal to
// lithify_commands; the public contract is ingest.h.
//
// Thread-safety: functions are pure; a ChunkReader or RowBatcher belongs to one reader.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/commands/ingest.h"  // and delta/schema.h, the table schema
#include "lithify/io/filesystem.h"
#include "lithify/parquet/row_builder.h"

namespace lithify::commands::ingest_internal {

using parquet::Value;
using delta::DataType;
using TypeKind = delta::DataType::Kind;

// Column path for error messages: a chain of frames on the stack.
struct PathFrame {
  const PathFrame* parent = nullptr;
  std::string_view name;
  int64_t index = -1;  // >= 0: an array element
};


// ASCII case-insensitive equality (column names match as in Spark).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Index of the field named `name`: an exact match first, else the one case-insensitive
// match; -1 when there is none, -2 when several fields match case-insensitively.
int FindField(const std::vector<delta::StructField>& fields, std::string_view name);

// "a.b[3].c" of a path chain.
std::string PathText(const PathFrame* f);

// `st` with "column '<path>': " before its message, same code.
Status ColumnError(const PathFrame* path, const Status& st);

// `text` as messages quote it: at most 80 bytes ("..." after), in quotes when `quoted`.
std::string Shown(std::string_view text, bool quoted);

// 10^n, n in 0..38.
__int128 Pow10(int n);

// The inclusive value range of an integer type kind (byte, short, integer; anything
// else is long's).
std::pair<int64_t, int64_t> IntRange(TypeKind k);

// Null where `nullable`; else InvalidArgument naming the column.
Result<Value> NullValue(bool nullable, const PathFrame* path);

// Reads a file in fixed-size chunks.
class ChunkReader {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;
  static Result<ChunkReader> Open(io::FileSystem* fs, const std::string& path) {
    LITHIFY_ASSIGN_OR_RETURN(auto f, fs->OpenForRead(path));
    return ChunkReader(std::move(f));
  }
  // Next chunk; empty at the end.
  Result<std::string_view> Next() {
    uint64_t left = file_->size() - offset_;
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
    buf_.resize(n);
    if (n == 0) return std::string_view();
    LITHIFY_RETURN_NOT_OK(file_->ReadAt(offset_, n, reinterpret_cast<uint8_t*>(buf_.data())));
    offset_ += n;
    return std::string_view(buf_);
  }

 private:
  explicit ChunkReader(std::unique_ptr<io::RandomAccessFile> f) : file_(std::move(f)) {}
  std::unique_ptr<io::RandomAccessFile> file_;
  uint64_t offset_ = 0;
  std::string buf_;
};

// Collects rows and hands them to `sink` (referenced, not copied) `batch_rows` at a time.
class RowBatcher {
 public:
  RowBatcher(const RowSink& sink, size_t batch_rows) : sink_(sink), batch_rows_(batch_rows) {
    rows_.reserve(std::min<size_t>(batch_rows_, 65536));
  }
  Status Add(std::vector<Value>&& row) {
    rows_.push_back(std::move(row));
    if (rows_.size() >= batch_rows_) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (rows_.empty()) return Status::OK();
    std::vector<std::vector<Value>> out;
    out.swap(rows_);
    rows_.reserve(std::min<size_t>(batch_rows_, 65536));
    return sink_(std::move(out));
  }

 private:
  const RowSink& sink_;
  size_t batch_rows_;
  std::vector<std::vector<Value>> rows_;
};

}  // namespace lithify::commands::ingest_internal
