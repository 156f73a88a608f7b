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
  // Values of dictionary-encoded pages are handed out in dictionary form (ColumnValues:
  // indices into the chunk's dictionary, which this reader keeps) instead of gathered.
  // A page of another encoding turns what is pending into plain values first.
  bool dictionary_indices = false;
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

  // --- Page access, for copying pages unchanged (FileReader::OpenColumnPages). ---
  // Additive to the row interface above; both may be mixed within a chunk.

  // Decoded rows not yet taken whose end is known (a following row start, or the end
  // of the chunk's levels).
  int64_t CompleteRowsPending() const;
  // MeasureRows that stops at page boundaries: when nothing is pending it decodes one
  // page (dictionary and index pages are consumed on the way), and it never asks for
  // more rows than are complete in the pending data (unless none is: a row spanning
  // pages is decoded on as MeasureRows does).
  Result<int64_t> MeasurePageRows(int64_t max_rows, int64_t budget, int64_t* cost);
  // At a page boundary (every decoded level taken): consumes dictionary and index
  // pages that come next and parses the header of the next data page without
  // decoding its body. *header is null when levels are pending or the chunk's levels
  // are all read. *header and *payload (the page's stored bytes after its header)
  // stay valid until the next call other than TakePeekedPage.
  Status PeekDataPage(const PageHeader** header, ByteView* payload);
  // Decodes the peeked page (CRC verified, levels and values checked as in the row
  // path) into `out` (Reset first) and counts its rows as taken; *rows receives them
  // (rows starting in the page). Precondition: PeekDataPage returned a header.
  Status TakePeekedPage(ColumnData* out, int64_t* rows);

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
  // Decodes n indices into `out`, checked against the dictionary's size.
  Status DecodeDictionaryIndices(ByteView in, int64_t n, uint32_t* out);
  // Appends indices_[0..n)'s entries to the pending values, counting them.
  Status GatherFromDictionary(int64_t n);
  Status ChargeMemory(int64_t bytes);
  // Returns the page bytes after decompression (`page` itself when uncompressed).
  Result<ByteView> Decompressed(ByteView page, int64_t uncompressed_size);

  // Per-chunk state.
  io::RandomAccessFile* file_ = nullptr;
  int64_t chunk_offset_ = 0;
  int64_t chunk_length_ = 0;
  int64_t read_ahead_ = 0;      // bytes read at least per window refill (see Start)
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
  // Run-form levels: when a page's definition levels are a few RLE runs and its
  // repetition levels (if any) all 0 -- a column null in all or part of the page, or
  // never null -- the pending levels are kept as those runs instead of one int16 per
  // value: `level_runs_` holds (end level, definition level) with increasing ends
  // covering [0, pending_levels_), and pending_.def_levels / rep_levels stay empty.
  // ScanRows, TakeRows and Compact handle this form; anything else that needs the
  // levels calls MaterializeLevels first. Saves decoding, checking, counting and copying
  // a level per value of mostly-null columns (most of a Delta checkpoint's).
  struct LevelRun {
    int64_t end;
    int16_t def;
  };
  bool run_levels_ = false;
  std::vector<LevelRun> level_runs_;
  std::vector<std::pair<uint64_t, uint32_t>> run_scratch_;
  void MaterializeLevels();
  // Values (def == max_def) among pending levels [begin, end) in run form.
  int64_t RunValues(int64_t begin, int64_t end) const;
  // DecodeLevels' run form; false when the page does not qualify.
  bool TryRunLevels(int64_t n, ByteView rep, Encoding rep_encoding, ByteView def,
                    Encoding def_encoding, int64_t* non_null);
  Cursor consumed_;
  Cursor measured_;

  // A data page parsed by PeekDataPage and not yet decoded (its body is in window_).
  bool peeked_ = false;
  PageHeader peek_header_;
  ByteView peek_body_;

  // Reused across chunks.
  Buffer window_;
  Buffer scratch_;
  ColumnValues dict_;
  uint64_t dict_id_ = 0;  // of dict_ (ColumnValues::dictionary_id), new per dictionary page
  std::vector<uint32_t> indices_;
};

}  // namespace lithify::parquet::internal
