// FileWriter: writes one Parquet file from RowBatches (levels form).
//
// Lifecycle in the leveldb TableBuilder shape: Open -> WriteBatch* -> Close, or
// Abandon. Batches accumulate into the current row group (each column chunk encoded
// page by page as values arrive); a row group is closed when its estimated encoded size
// reaches row_group_size_bytes, so memory is bounded by one row group. Statistics are
// computed from the values written (exact min/max/null_count per the format's sort
// orders; long binary min/max truncated and flagged inexact). The first error is sticky:
// later calls return it. Nothing becomes visible unless Close() returns OK.
// Not thread-safe (but for column buffers, below).
//
// Column-at-a-time writing (for rewrites that read one column chunk at a time):
//   BeginRowGroup(n) { BeginColumn(leaf) WriteColumn(col, rows)* EndColumn() }* EndRowGroup()
// with leaves 0..num_leaves-1 in order, each receiving exactly n rows. Because nothing
// else is written while a column is open, its chunk is contiguous and pages go to the
// stream as they are encoded instead of being buffered per row group: memory is about
// one page plus, while a chunk is still dictionary-encoded, that chunk's (compressed)
// dictionary-encoded pages and its dictionary (see column_writer.h), whatever the
// row group size. WriteBatch/FlushRowGroup/Close are InvalidArgument while a
// column-mode row group is open; both modes may be mixed between row groups. Any
// error in column mode is sticky (a partial chunk may already be in the stream).
//
// Page copy (AppendEncodedPage): within column-at-a-time writing, a PLAIN data page of
// another file in the same codec is appended unchanged behind a fresh header once the
// column's chunk is PLAIN (its dictionary fell back or is off); its decoded values
// still pass through the chunk's statistics, so footer statistics stay exact.
//
// Column buffers (BeginColumnBuffer / AppendColumnBuffer: RewriteFiles on several
// threads): inside a column-at-a-time row group, a leaf's chunk may instead be encoded
// into memory through a ColumnBuffer, on any thread and concurrently with other leaves'
// buffers, and is appended afterwards, in leaf order. Its bytes and footer metadata are
// exactly what BeginColumn/WriteColumn/EndColumn would have written (the leaf's own
// column writer encodes it, with its state carried from the previous row group; only
// the offsets move to where the chunk lands). A leaf's chunk of the NEXT row group may
// be begun as soon as its chunk of the open one is appended (BeginNextRowGroupBuffer:
// the next row group's row count given up front), so that encoding need not wait for
// the open row group's slowest leaf; it is appended after that row group's
// BeginRowGroup. Memory: the chunk's compressed pages and
// its dictionary, held from BeginColumnBuffer until AppendColumnBuffer; an appended
// buffer's memory is kept (emptied) for the next one until Close, so at most as many
// buffers as were ever out at once stay allocated.
//
// Row group copy (AppendRowGroupCopy): a row group of another file with the same schema
// is appended without decoding: its column chunks' bytes (dictionary and data pages,
// headers and CRCs included) go to the output unchanged, and its footer metadata is
// carried over with the offsets moved (statistics are the chunk's own, hence exact for
// its values; column/offset indexes and bloom filters are dropped because they live
// outside the chunk). Memory: one copy block (8 MiB) plus one page header.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/compression.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

struct WriterOptions {
  CompressionCodec codec = CompressionCodec::kZstd;
  int compression_level = 0;                       // 0 = codec default
  int64_t row_group_size_bytes = 128ll << 20;      // target encoded size of a row group
  int64_t page_size_bytes = 1ll << 20;             // target uncompressed data page size
  // Target for PLAIN BYTE_ARRAY pages (never below page_size_bytes: see
  // PlainByteArrayPageSize). Larger because text
  // compresses better in larger inputs (zstd -3 of 3 MB of TPC-H comments: +35% in 1 MiB
  // pieces) and PLAIN string pages are where the bytes are; at most one open page per
  // column is buffered, so the bound is this times the columns written at once.
  int64_t byte_array_page_size_bytes = 4ll << 20;
  int64_t PlainByteArrayPageSize() const { return std::max(page_size_bytes, byte_array_page_size_bytes); }
  bool enable_dictionary = true;
  int64_t dictionary_page_size_limit = 1ll << 20;  // fall back to PLAIN past this
  // Binary/string statistics longer than this are truncated (and flagged inexact).
  int32_t max_statistics_size = 64;
  bool write_page_checksums = true;
  std::vector<KeyValue> key_value_metadata;
  std::string created_by;                          // empty = lithify's kCreatedBy
};

// Where a rewrite writes one leaf of a column-at-a-time row group: the open column of a
// FileWriter (BeginColumn) or a ColumnBuffer. The calls and their contracts are
// FileWriter's WriteColumn / ColumnAcceptsEncodedPages / AppendEncodedPage.
class ColumnSink {
 public:
  virtual ~ColumnSink() = default;
  virtual Status WriteColumn(const ColumnData& col, int64_t num_rows) = 0;
  virtual bool AcceptsEncodedPages() const = 0;
  virtual Status AppendEncodedPage(const PageHeader& header, ByteView payload, const ColumnData& page,
                                   int64_t num_rows) = 0;
};

// One leaf's chunk of the open column-at-a-time row group, or of the next one, encoded
// into memory (see the header comment). Used by one thread at a time; buffers of distinct leaves may be
// used concurrently, with nothing else of their FileWriter. The first error is sticky.
class ColumnBuffer : public ColumnSink {
 public:
  // Ends the chunk (its last page compressed here, on the buffer's thread).
  // InvalidArgument unless it received exactly the row group's row count.
  virtual Status Finish() = 0;
};

class FileWriter {
 public:
  static Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                  Schema schema, WriterOptions options = {});
  virtual ~FileWriter() = default;

  // Appends all rows of `batch`. Its columns must be every leaf of the schema, in leaf
  // order, with levels and values consistent with the schema (InvalidArgument otherwise).
  virtual Status WriteBatch(const RowBatch& batch) = 0;
  // Ends the current row group now (no-op when empty).
  virtual Status FlushRowGroup() = 0;
  // Finishes the file (footer) and makes it visible. Returns the final metadata.
  virtual Result<FileMetaData> Close() = 0;
  // Discards everything; nothing is left behind.
  virtual void Abandon() = 0;
  virtual const Schema& schema() const = 0;
  // Bytes written so far plus buffered, for size-targeted file rolling. After Close:
  // the file's final size.
  virtual int64_t EstimatedFileSize() const = 0;

  // Starts a row group of `num_rows` (> 0) rows written column by column. Rows given to
  // WriteBatch and not yet in a row group are flushed into their own row group first.
  // Buffers begun for it by BeginNextRowGroupBuffer become its buffers: InvalidArgument
  // unless `num_rows` is the row count they were begun for.
  virtual Status BeginRowGroup(int64_t num_rows) = 0;
  // Starts leaf `leaf`'s chunk. Precondition (InvalidArgument): leaf is the next leaf
  // in schema order, no column is open and no buffer of the leaf is out.
  virtual Status BeginColumn(int leaf) = 0;
  // Appends all `num_rows` rows of `col` (levels form, validated like a WriteBatch
  // column; col.leaf_index must be -1 or the open leaf) to the open column.
  // InvalidArgument if the column would exceed the row group's row count.
  virtual Status WriteColumn(const ColumnData& col, int64_t num_rows) = 0;
  // Finishes the open chunk. InvalidArgument unless it received exactly the row
  // group's row count.
  virtual Status EndColumn() = 0;
  // Finishes the row group. InvalidArgument unless every leaf was written.
  virtual Status EndRowGroup() = 0;

  // Page copy into the open column (RewriteFiles): whether its chunk can take an
  // encoded PLAIN page now (ColumnChunkWriter::AcceptsPlainPages; false when no column
  // is open).
  virtual bool ColumnAcceptsEncodedPages() const = 0;
  // Appends one encoded data page holding `num_rows` rows to the open column without
  // re-encoding it (ColumnChunkWriter::AppendEncodedPage: `payload` must be in this
  // writer's codec, `page` is its decoded content, validated like a WriteColumn
  // column; statistics are computed from it). InvalidArgument as WriteColumn or when
  // the page cannot be appended; errors are sticky.
  virtual Status AppendEncodedPage(const PageHeader& header, ByteView payload,
                                   const ColumnData& page, int64_t num_rows) = 0;

  // Column buffers (see the header comment). BeginColumnBuffer: precondition
  // (InvalidArgument) a column-at-a-time row group is open, no column is open
  // (BeginColumn), `leaf` is not yet written and has no buffer outstanding. The buffer
  // borrows this writer, which must outlive it and, until the buffer is appended or
  // destroyed, is used on one thread through nothing but other buffers,
  // BeginColumnBuffer, BeginNextRowGroupBuffer, AppendColumnBuffer, EndRowGroup and
  // BeginRowGroup (these touch no column writer of a buffer that is out).
  // `size_hint`: the chunk's expected size in bytes (0: unknown), which its memory is
  // reserved to up front; a wrong hint costs memory or a regrowth, never correctness.
  virtual Result<std::unique_ptr<ColumnBuffer>> BeginColumnBuffer(int leaf, size_t size_hint = 0) = 0;
  // A buffer for leaf `leaf`'s chunk of the row group after the open one, which will
  // have `num_rows` rows (see the header comment); otherwise as BeginColumnBuffer.
  // Precondition (InvalidArgument): a column-at-a-time row group is open, no column is
  // open, leaf `leaf` of the open row group is written (appended or streamed: its
  // column writer is free), the leaf has no buffer of the next row group out, and
  // `num_rows` (> 0) is the row count every buffer of the next row group was begun for.
  // Until the next BeginRowGroup, WriteBatch, FlushRowGroup, AppendRowGroupCopy and Close
  // are InvalidArgument.
  virtual Result<std::unique_ptr<ColumnBuffer>> BeginNextRowGroupBuffer(int leaf, int64_t num_rows,
                                                                        size_t size_hint = 0) = 0;
  // Appends a finished buffer of this writer as the next leaf's chunk: precondition
  // (InvalidArgument) it belongs to the open row group (a buffer of the next one only
  // after its BeginRowGroup), its leaf is the next leaf in schema order and Finish()
  // returned OK; a buffer's error is returned (and sticky here too).
  virtual Status AppendColumnBuffer(std::unique_ptr<ColumnBuffer> buffer) = 0;

  // Appends `row_group` (the footer metadata of a row group of `source`) as a row group
  // of its own by copying its column chunks' bytes (see the header comment). The
  // caller guarantees that `source` has this writer's schema (CompareSchemas); the
  // chunks' types and paths are checked against the leaves. Rows given to WriteBatch
  // and not yet in a row group are flushed first. Before anything is written, every
  // chunk is checked: NotSupported for encrypted chunks or chunks in another file
  // (file_path), Corruption (naming the source, row group and column) when the chunk's
  // range is outside the file or its page headers do not add up to exactly its
  // total_compressed_size and num_values. Such a failure leaves the writer usable;
  // errors while copying are sticky.
  virtual Status AppendRowGroupCopy(io::RandomAccessFile* source, const RowGroup& row_group) = 0;
};

// Checks that `row_group` of `source` can be copied by AppendRowGroupCopy into a file of
// `schema` (the checks listed there, page headers walked with ranged reads). Returns
// the byte range [start, start + length) of each column chunk in `source`.
struct ChunkRange {
  int64_t start = 0;
  int64_t length = 0;
};
Result<std::vector<ChunkRange>> CheckRowGroupCopy(io::RandomAccessFile* source, const Schema& schema,
                                                  const RowGroup& row_group);

}  // namespace lithify::parquet
