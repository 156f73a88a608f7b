// ColumnChunkReader (private to the reader library): decodes the pages of one column
// chunk lazily, handing out whole rows in levels form.
//
// Pages are read from the file on demand (a small read-ahead window, never the whole
// chunk), their headers parsed, CRCs verified, bodies decompressed into a reused
// scratch buffer, and levels + values decoded into a buffer of "pending" data. The
// caller first asks how many of the next rows fit a byte budget (MeasureRows), then
// takes exactly that many rows (TakeRows), which copies level and value ranges out of
// the pending buffer (or moves the buffer when everything is taken). Row boundaries are
// rep level 0; a row of a repeated column may span pages, so finding the end of a row
// can decode the following page ahead of time. The dictionary is kept for the chunk.
//
// Memory: pending data is at most what the last MeasureRows asked for plus one page.
// Every page, and every set of rows measured at once, is limited by
// ChunkReadOptions::max_decoded_bytes (NotSupported beyond it), so hostile headers or
// RLE runs claiming billions of values never exhaust memory.
//
// The file must outlive the reader. One instance is used by one thread at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/base/status.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet::internal {

struct ChunkReadOptions {
  bool verify_checksums = true;
  // Upper bound of the decoded levels + values of one page and of the rows measured
  // by one MeasureRows call (a hostile page can claim billions of RLE-encoded values in
  // a few bytes).
  int64_t max_decoded_bytes = int64_t{2} << 30;
};

class ColumnChunkReader {
 public:
  // Starts reading the chunk stored at [offset, offset + length) of `file`; `num_rows`
  // is the row group's row count, which the chunk must hold exactly. Nothing is read
  // yet. Errors here and below are "page P: problem" (P counts every page of the chunk
  // from 0) or a chunk-level problem; the caller adds file/row group/column context.
  Status Start(io::RandomAccessFile* file, int64_t offset, int64_t length,
               const ColumnDescriptor& descr, const ColumnMetaData& meta, int64_t num_rows,
               const ChunkReadOptions& options);

  // How many of the next `max_rows` rows (>= 1; the caller guarantees that many rows
  // remain in the row group) to take so that their decoded bytes stay within `budget`:
  // the largest such count, but at least 1 (a single row may exceed the budget).
  // Decodes pages as needed. *cost receives the decoded bytes of that many rows
  // (levels + values, BYTE_ARRAY offsets included). Corruption when the chunk ends
  // before `max_rows` rows.
  Result<int64_t> MeasureRows(int64_t max_rows, int64_t budget, int64_t* cost);

  // Appends the next `rows` rows to `out`, which must belong to this column. Precondition:
  // the last MeasureRows returned at least `rows`.
  void TakeRows(int64_t rows, ColumnData* out);

  // After the row group's last row was taken: Corruption if the chunk holds more.
  Status Finish();

  // Frees buffers grown large by one big chunk, so an idle reader kept for reuse does
  // not pin them; small buffers stay for the next chunk.
  void TrimMemory();

 private:
  // A position in the pending buffer (level and value index); `rows` counts the row
  // starts between the consumed position and it.
  struct Cursor {
    int64_t level = 0;
    int64_t value = 0;
    int64_t rows = 0;
  };

  bool ChunkExhausted() const { return levels_read_ >= expected_levels_; }
  // Advances `c` over whole rows until it has `rows` rows followed by a row start (or
  // the end of pending data). Returns true when the `rows`-th row is known complete
  // (the next level starts a row, or the chunk has no more levels).
  bool ScanRows(Cursor* c, int64_t rows) const;
  // Decoded bytes of pending levels/values between the consumed position and `c`.
  int64_t CostTo(const Cursor& c) const;
  // Reads and decodes the next page (data pages append to the pending buffer).
  Status DecodeNextPage();
  // Drops the consumed prefix of the pending buffer.
  void Compact();
  Status ReadPage(PageHeader* header, ByteView* body);
  Status EnsureWindow(size_t n);

  Status ReadDictionaryPage(const PageHeader& header, ByteView page);
  Status ReadDataPageV1(const PageHeader& header, ByteView page);
  Status ReadDataPageV2(const PageHeader& header, ByteView page);
  // Decodes the levels of a page: `rep`/`def` hold the level bytes without prefix.
  Status DecodeLevels(int32_t num_values, ByteView rep, Encoding rep_encoding, ByteView def,
                      Encoding def_encoding, int64_t* non_null);
  Status DecodeValues(Encoding encoding, ByteView in, int64_t n);
  Status DecodeDictionaryIndices(ByteView in, int64_t n);
  Status GatherFromDictionary(int64_t n);
  Status ChargeMemory(int64_t bytes);
  // Returns the page bytes after decompression (`page` itself when uncompressed).
  Result<ByteView> Decompressed(ByteView page, int64_t uncompressed_size);

  // Per-chunk state.
  io::RandomAccessFile* file_ = nullptr;
  int64_t chunk_offset_ = 0;
  int64_t chunk_length_ = 0;
  int64_t chunk_pos_ = 0;       // bytes of the chunk consumed by parsed pages
  int64_t window_start_ = 0;    // chunk position of window_[0]
  int page_index_ = 0;
  const ColumnDescriptor* descr_ = nullptr;
  CompressionCodec codec_ = CompressionCodec::kUncompressed;
  ChunkReadOptions options_;
  int64_t levels_read_ = 0;     // levels decoded from pages
  int64_t rows_read_ = 0;       // row starts decoded from pages
  int64_t expected_levels_ = 0; // the chunk's num_values
  int64_t expected_rows_ = 0;   // the row group's num_rows
  int64_t rows_taken_ = 0;
  int64_t page_decoded_bytes_ = 0;
  bool has_dictionary_ = false;
  bool has_levels_ = false;     // max_def > 0 or max_rep > 0

  // Pending decoded data: levels [consumed_.level, pending_levels_) and the matching
  // values of pending_. `measured_` is where the last MeasureRows ended.
  ColumnData pending_;
  int64_t pending_levels_ = 0;
  Cursor consumed_;
  Cursor measured_;

  // Reused across chunks.
  Buffer window_;
  Buffer scratch_;
  ColumnValues dict_;
  std::vector<uint32_t> indices_;
};

}  // namespace lithify::parquet::internal
