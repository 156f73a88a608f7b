// ColumnChunkWriter: encodes one leaf column of one row group into Parquet pages.
//
// Levels and dense values arrive in the levels form of column_batch.h and are encoded
// straight into data pages (v1): repetition then definition levels (RLE hybrid with a
// 4-byte length prefix, absent when the max level is 0), then the values. Values are
// dictionary-encoded (RLE_DICTIONARY, dictionary of distinct value bytes in an
// open-addressing hash table) until the dictionary's PLAIN size passes
// dictionary_page_size_limit; later pages are PLAIN (pages already written keep the
// dictionary; the format allows mixing). A chunk whose first page would not be smaller
// dictionary-encoded (indices + dictionary vs PLAIN) is PLAIN from the start. BOOLEAN is always PLAIN. Pages are cut at row
// boundaries once they reach about page_size_bytes uncompressed, compressed one by
// one and kept in memory until FinishChunk writes the chunk (dictionary page first) so
// that the chunk is contiguous in the file. Statistics are kept per chunk.
//
// Streaming mode (BeginStreamingChunk, used by FileWriter's column-at-a-time API):
// nothing else is written to the stream while the chunk is open, so pages go straight
// to it as soon as their place is final. That is the case for every page once the chunk
// can no longer use the dictionary (PLAIN from the start: BOOLEAN or dictionary
// disabled; or after the fallback to PLAIN, when the dictionary page is written
// followed by the buffered pages). While the chunk still dictionary-encodes, its pages
// stay buffered because the dictionary page must precede them and is not final yet.
// Buffered memory is thus bounded by the dictionary-encoded pages of one chunk
// (indices: at most ~17 bits per value before a 1 MiB dictionary of 8-byte values
// overflows, compressed) plus the dictionary (<= dictionary_page_size_limit + one
// mini-batch) plus one page; high-cardinality columns fall back early and stream.
//
// Dictionary form (ColumnValues, from a rewrite's reader): each input dictionary entry
// is looked up in (or added to) the chunk's dictionary once, on its first use in the
// chunk, and its output index remembered per input index; statistics take each entry
// once too (min/max do not depend on repeats; NaN counts do, so FLOAT/DOUBLE/FLOAT16
// count per value). Values are then never gathered or hashed one by one. After the
// fallback to PLAIN the entries' bytes are copied out as PLAIN values.
//
// Page copy (AppendEncodedPage, used by RewriteFiles): once the chunk is PLAIN, a PLAIN
// data page of another file in this writer's codec can be appended as stored; its
// decoded values still go through the chunk's statistics.
//
// The hot path has no virtual calls and no per-value allocations. Not thread-safe;
// one writer per column, reused across row groups.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/encoding.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"
#include "lithify/parquet/statistics.h"

namespace lithify::parquet {

class ColumnChunkWriter {
 public:
  // `descr` must outlive the writer. `options` is copied.
  ColumnChunkWriter(const ColumnDescriptor& descr, const WriterOptions& options);

  // Appends level entries [level_begin, level_end) of `col`, whose first non-null value
  // is col.values[value_begin]. level_begin must start a row. Sets *values_consumed to
  // the number of values those levels define. The caller has validated `col`.
  Status Write(const ColumnData& col, int64_t level_begin, int64_t level_end,
               int64_t value_begin, int64_t* values_consumed);

  // Encoded size of the chunk so far: compressed pages, the dictionary and the page
  // being filled (uncompressed).
  int64_t EstimatedSize() const;
  // Level entries written to the current chunk.
  int64_t num_levels() const { return chunk_levels_; }

  // Ends the chunk: flushes the open page, appends the dictionary page (if any data
  // page used it) and the data pages to `out`, and fills `chunk` (offsets are absolute
  // file positions taken from out->position()). The writer is then ready for the next
  // row group's chunk.
  Status FinishChunk(io::OutputStream* out, ColumnChunk* chunk);

  // Starts a chunk whose pages may be appended to `out` while it is written (see the
  // header comment); the chunk begins at out->position() now. Precondition: the current
  // chunk is empty, and until FinishChunk(out, ...) (same `out`) nothing else appends
  // to `out`. After that FinishChunk the writer's large buffers are released, so idle
  // writers of other columns hold no memory.
  void BeginStreamingChunk(io::OutputStream* out);

  // Page copy (RewriteFiles): whether a PLAIN data page may be appended now, i.e. the
  // chunk no longer dictionary-encodes (fallback happened, dictionaries are off, or
  // BOOLEAN), so the page neither reorders values nor makes encodings untrue.
  bool AcceptsPlainPages() const { return !dict_mode_; }
  // Appends an already encoded data page (v1 or v2) unchanged after the page being
  // filled (which is flushed first, so pages stay in row order). `header` is the
  // page's header as stored elsewhere; a fresh one is written with its statistics
  // dropped and its CRC kept (computed when absent and checksums are on, dropped when
  // they are off). `payload` is its stored body, which the caller guarantees is in
  // this writer's codec. `page` holds its decoded levels and values, from which the
  // chunk statistics and counts are updated exactly as if the values had been written.
  // InvalidArgument unless AcceptsPlainPages(), the page is a PLAIN data page whose
  // v1 levels are RLE, no repeated v1 page, and `page` holds the header's num_values
  // levels.
  Status AppendEncodedPage(const PageHeader& header, ByteView payload, const ColumnData& page);

  // Page bookkeeping of the current chunk (for tests and diagnostics).
  int dictionary_pages_used() const { return dict_data_pages_; }
  int plain_pages() const { return plain_data_pages_ + plain_v2_pages_; }
  int copied_pages() const { return copied_pages_; }

 private:
  Status AppendValues(const ColumnValues& values, int64_t begin, int64_t end);
  // AppendValues and the statistics for values in dictionary form.
  void AppendIndexed(const ColumnValues& values, int64_t begin, int64_t end);
  // Output dictionary index of input dictionary entry e (added when new); statistics
  // take the entry on its first use in the chunk.
  uint32_t MapEntry(const ColumnValues& dict, uint32_t e);
  template <int kWidth>
  void DictEncodeFixed(const uint8_t* p, int64_t n);
  void DictEncodeByteArray(const ColumnValues& values, int64_t begin, int64_t end);
  // The dictionary index of a value (added when new): fixed width, or BYTE_ARRAY bytes.
  template <int kWidth>
  uint32_t LookupFixed(const uint8_t* p, size_t w);
  uint32_t LookupBytes(const uint8_t* p, uint32_t len);
  uint32_t InsertEntry(uint64_t hash, size_t slot);
  // Room for n more dictionary indices in the open page.
  void ReserveIndices(int64_t n);
  void GrowTable();
  int64_t PageEstimate() const;
  // Uncompressed size at which the open page is cut: page_size_bytes, or
  // byte_array_page_size_bytes for PLAIN BYTE_ARRAY pages.
  int64_t PageLimit() const;
  // First dictionary page of the chunk: whether indices + dictionary beat PLAIN (by size,
  // or when that is not clear, compressed: DictionaryWinsCompressed).
  bool DictionaryPaysOff() const;
  bool DictionaryWinsCompressed() const;
  // Bytes of dictionary entry `index` in dict_plain_ (PLAIN form).
  size_t EntrySize(uint32_t index) const;
  // Drops the dictionary (no page used it yet) and re-encodes the open page PLAIN.
  void FallBackToPlain();
  // The rest of the chunk is PLAIN: the hash table is freed (the dictionary bytes stay
  // for the pages that use them).
  void EndDictionaryMode();
  Status FlushPage();
  Status WritePage(PageType type, ByteView body, Encoding encoding, int32_t num_values,
                   Buffer* sink);
  void ResetChunk();
  // Streaming mode: appends the dictionary page (once, if a data page used it) and the
  // buffered data pages to stream_, when no later page can be dictionary-encoded.
  Status DrainToStream();
  Status WriteDictionaryPage(io::OutputStream* out);
  void ReleaseMemory();

  const ColumnDescriptor& descr_;
  WriterOptions options_;
  PhysicalType type_;
  int32_t value_width_;  // bytes per fixed-width value; 0 for BYTE_ARRAY
  int16_t max_def_;
  int16_t max_rep_;

  // Page being filled.
  RleBitPackedEncoder def_encoder_;
  RleBitPackedEncoder rep_encoder_;
  int64_t page_levels_ = 0;
  std::vector<uint32_t> indices_;  // dictionary mode
  int64_t page_plain_bytes_ = 0;   // dictionary mode: the open page's values' PLAIN size
  Buffer plain_values_;            // PLAIN mode (BOOLEAN: one byte per value)

  // Dictionary of the current chunk: PLAIN bytes (the dictionary page body), the start
  // of each entry in it (BYTE_ARRAY: of its length prefix), and the open-addressing
  // table of entry index + 1 (0 = empty slot).
  bool dict_mode_ = false;
  Buffer dict_plain_;
  std::vector<int64_t> entry_pos_;
  std::vector<uint64_t> entry_hash_;
  std::vector<uint32_t> slots_;
  uint64_t slot_mask_ = 0;
  // Dictionary form: by input dictionary entry, its output index (dictionary mode) or
  // kSeen (PLAIN), kUnmapped before its first use in the chunk; for the input dictionary
  // dict_map_id_ (0: none).
  static constexpr uint32_t kUnmapped = UINT32_MAX;
  static constexpr uint32_t kSeen = UINT32_MAX - 1;
  std::vector<uint32_t> dict_map_;
  uint64_t dict_map_id_ = 0;
  bool stats_per_value_ = false;  // NaN counts need every value

  // Encoded pages of the current chunk (not yet in the file) and its metadata
  // accumulators.
  Buffer data_pages_;
  int64_t data_compressed_ = 0;    // data pages, headers included, buffered or written
  // Streaming mode state (stream_ == nullptr: buffered mode).
  io::OutputStream* stream_ = nullptr;
  int64_t chunk_start_ = 0;        // file offset of the chunk's first page
  int64_t first_data_page_ = -1;   // file offset of the first data page once written
  bool dict_page_written_ = false;
  int64_t dict_page_compressed_ = 0;    // header + payload
  int64_t dict_page_uncompressed_ = 0;  // header + body
  int64_t chunk_levels_ = 0;
  int64_t data_uncompressed_ = 0;  // data pages, headers included
  int dict_data_pages_ = 0;
  int plain_data_pages_ = 0;
  int plain_v2_pages_ = 0;   // copied DATA_PAGE_V2 pages (all PLAIN)
  int copied_pages_ = 0;     // of plain_data_pages_ + plain_v2_pages_
  ColumnStatistics stats_;

  // Scratch, reused across pages.
  Buffer page_body_;
  Buffer compressed_;
  Buffer header_;
};

}  // namespace lithify::parquet
