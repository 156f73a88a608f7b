// FileReader: reads one Parquet file through io::RandomAccessFile.
//
// Open() reads and validates the footer only; on a remote file (io::ReadProfile) it reads
// the last 64 KiB speculatively, so one request usually brings the footer, and skips
// the check of the leading magic unless those bytes came along. Data is read per
// projected leaf column, page by page with ranged reads; on a remote file a row group's
// projected chunks are fetched with one vectored read when they fit
// ReadOptions::max_prefetch_bytes. OpenRowGroup() streams a row group in batches of whole
// rows, so peak memory is bounded by one batch (rows and bytes, see ReadOptions) plus
// about one page per projected column, the dictionaries and a small read-ahead window;
// ReadRowGroup() returns a whole row group at once (bounded by the row group).
// Errors name the file and, where relevant, the row group, column and page:
// "x.parquet: row group 2: column 'a.b': page 3: ...". Malformed input is Corruption;
// valid but unimplemented features (encryption, LZO, ...) are NotSupported naming the
// feature. A FileReader may be used by one thread at a time, except that OpenRowGroup
// and OpenColumnPages may be called from several threads at once (they read the footer
// and start streams whose reads are ReadAt calls, which an io::RandomAccessFile takes
// concurrently; RewriteFiles' column tasks rely on it); each stream is used by one
// thread at a time. Distinct readers are independent.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

struct ReadOptions {
  // Verify page CRCs when present (Corruption on mismatch).
  bool verify_checksums = true;
  // Upper bound of the decoded levels + values of one page (and of one decompressed
  // page), and of one column's share of one batch: for ReadRowGroup the whole column
  // chunk, for a stream one batch (so a single row above it cannot be read). A few
  // bytes of RLE can claim billions of values, so hostile input is cut off here with
  // NotSupported instead of exhausting memory. Fuzz targets set it lower.
  int64_t max_decoded_chunk_bytes = int64_t{2} << 30;
  // Byte budget of one streamed batch (OpenRowGroup): decoded levels + values of all
  // projected columns, BYTE_ARRAY offsets included. A batch is cut before the row that
  // would exceed it, but always holds at least one row (which may exceed it alone).
  int64_t max_batch_bytes = int64_t{64} << 20;
  // Files whose reads are network requests (io::ReadProfile::remote): a row group's
  // projected column chunks are read ahead with one vectored read (few coalesced
  // requests) when together they are at most this many bytes; larger ones stream
  // through each column's read-ahead window. 0 disables it.
  int64_t max_prefetch_bytes = int64_t{32} << 20;
};

// How a stream hands out the values of dictionary-encoded pages: gathered (plain), or
// as indices into the chunk's dictionary (ColumnValues' dictionary form).
enum class ValueForm { kValues, kDictionaryIndices };

// Streams the rows of one row group in batches (FileReader::OpenRowGroup). Each column
// decodes its pages lazily and hands out exactly the levels and values of the batch's
// rows; a row of a repeated column may span pages. Borrows the FileReader's file: the
// reader must outlive the stream, and the two are used by one thread at a time. The
// first error is sticky: later calls return it.
class RowGroupStream {
 public:
  virtual ~RowGroupStream() = default;
  // Fills `out` with the next batch: at most max_rows_per_batch whole rows, cut earlier
  // by ReadOptions::max_batch_bytes, with first_row_index the file row index of its
  // first row and the projected columns in order. Returns false (with `out` holding the
  // projected columns and no rows) once every row was returned. Reuses `out`'s buffers.
  // Corruption if a column chunk holds more or fewer rows than the row group; those
  // checks complete with the batch holding the last row.
  virtual Result<bool> Next(RowBatch* out) = 0;
  // Rows of the row group not yet returned.
  virtual int64_t rows_remaining() const = 0;
};

// One column chunk read either in batches of whole rows or page by page, so that a
// rewrite can copy some pages unchanged and decode the others (FileReader::
// OpenColumnPages). Batches never cross a page boundary needlessly: Next returns at
// most the complete rows of the pages decoded so far (decoding one more page when none
// is left, or more when a row spans pages), so the stream is at a page boundary after
// every page's last row was returned. Borrows the FileReader's file like a
// RowGroupStream. Errors name file, row group and column; the first error is sticky.
class ColumnPageStream {
 public:
  struct Page {
    const PageHeader* header = nullptr;  // as stored (statistics included)
    ByteView payload;                    // the stored bytes after the header
    int64_t first_row = 0;               // row index within the row group
    // Rows in the page when the header tells: a v1 page of a flat column (num_values)
    // or a v2 page (num_rows); -1 for a v1 page of a repeated column.
    int64_t num_rows = -1;
  };
  virtual ~ColumnPageStream() = default;
  // The chunk's footer metadata (codec, encodings, encoding_stats).
  virtual const ColumnMetaData& metadata() const = 0;
  // At a page boundary: the next data page, header parsed but body not decoded
  // (dictionary pages before it are read as the row path reads them). Returns false
  // when rows of decoded pages remain to be returned by Next, or no page is left.
  // page->header and page->payload stay valid until the next PeekPage or Next.
  virtual Result<bool> PeekPage(Page* page) = 0;
  // Takes the page PeekPage returned: its levels and values are decoded into `out`
  // (CRC, level and value checks as in Next) and its rows count as returned. Returns
  // the rows. Corruption when they disagree with the header's num_rows, exceed the
  // row group, or the page starts inside a row.
  virtual Result<int64_t> TakePage(ColumnData* out) = 0;
  // Like RowGroupStream::Next for this one column, within the page bound above.
  virtual Result<bool> Next(RowBatch* out) = 0;
  // Next with at most max_rows (>= 1) rows instead of the stream's batch size, so that a
  // caller reading a row range stops exactly at its end (RewriteFiles' row group slices).
  virtual Result<bool> NextAtMost(RowBatch* out, int64_t max_rows) = 0;
};

class FileReader {
 public:
  // Reads the footer. Corruption for a file that is not Parquet (bad magic, footer
  // length out of range, unparseable metadata); NotSupported for encrypted footers.
  static Result<std::unique_ptr<FileReader>> Open(std::unique_ptr<io::RandomAccessFile> file,
                                                  ReadOptions options = {});
  static Result<std::unique_ptr<FileReader>> Open(io::FileSystem* fs, std::string_view path,
                                                  ReadOptions options = {});

  virtual ~FileReader() = default;
  virtual const FileMetaData& metadata() const = 0;
  virtual const Schema& schema() const = 0;
  virtual const std::string& path() const = 0;
  int num_row_groups() const { return static_cast<int>(metadata().row_groups.size()); }
  // File row index of the first row of row group `rg`.
  virtual int64_t RowGroupFirstRow(int rg) const = 0;

  // Reads all rows of row group `rg` for the given leaf columns (empty = all leaves),
  // in that order.
  virtual Result<RowBatch> ReadRowGroup(int rg, const std::vector<int>& leaves) = 0;

  static constexpr int64_t kDefaultBatchRows = 64 * 1024;
  // Streams row group `rg` for the given leaf columns (empty = all leaves) in batches
  // of at most `max_rows_per_batch` (>= 1) rows. Nothing is decoded until Next().
  // InvalidArgument for an out-of-range row group, leaf or batch size. With
  // ValueForm::kDictionaryIndices the values of dictionary-encoded pages come in
  // ColumnValues' dictionary form, valid until the stream's next call (for a consumer
  // that handles it: a rewrite).
  virtual Result<std::unique_ptr<RowGroupStream>> OpenRowGroup(
      int rg, const std::vector<int>& leaves, int64_t max_rows_per_batch = kDefaultBatchRows,
      ValueForm form = ValueForm::kValues) = 0;
  // Streams leaf `leaf` of row group `rg` page by page or in batches of at most
  // `max_rows_per_batch` rows (see ColumnPageStream). InvalidArgument like OpenRowGroup.
  virtual Result<std::unique_ptr<ColumnPageStream>> OpenColumnPages(
      int rg, int leaf, int64_t max_rows_per_batch = kDefaultBatchRows,
      ValueForm form = ValueForm::kValues) = 0;
};

// Resolves user column names ("a", "a.b") to leaf indices: a group name selects every
// leaf under it. NotFound naming the unknown column.
Result<std::vector<int>> ResolveColumns(const Schema& schema,
                                        const std::vector<std::string>& names);

}  // namespace lithify::parquet
