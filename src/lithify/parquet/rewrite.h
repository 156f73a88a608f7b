// RewriteFiles: concatenates Parquet files with one schema into a new file, column by
// column, with memory bounded by about one column chunk (the compaction inner loop).
//
// Output row groups are planned up front from the inputs' footers at input-row-group
// granularity: consecutive input row groups are packed into one output row group while
// the sum of their compressed sizes stays within writer.row_group_size_bytes. An input
// row group larger than the target forms its own output row group, unless
// split_row_groups is set: then it is cut into ceil(size / target) slices of nearly
// equal row counts (at least kMinSliceRows rows each, 1024; sizes estimated in
// proportion to rows), each packed like a row group of its own. A split row group's leaf
// is streamed once across its slices: one page stream per leaf stays open from one
// output row group to the next (about a page, its dictionary and a read window each),
// so no chunk is decoded twice. Copied row groups (below) are never split.
// Each output row group is then written column by column (FileWriter's column-at-a-time
// API): for leaf c, leaf c of every input row group of the group is streamed
// (FileReader::OpenRowGroup(rg, {c}): just that column chunk, in batches of whole rows),
// optionally filtered, and encoded with pages appended straight to the output. Every
// input column chunk is read and decoded exactly once.
//
// Memory bound: one input batch of one column (batch_rows rows, at most
// reader.max_batch_bytes decoded) plus that column's page/dictionary buffers in the
// input stream + one output page + the output chunk's dictionary and, while the output
// chunk is still dictionary-encoded, its compressed dictionary-encoded pages
// (column_writer.h) + the footers of at most `max_open_inputs` open inputs + one bit per
// row of the current output row group when a row filter is set. It does not grow with
// row_group_size_bytes for columns that fall back to PLAIN or never use a dictionary.
//
// Errors: InvalidArgument for no inputs, the output among the inputs, or inputs whose
// schemas differ (naming the first mismatching file and column); errors of reading
// carry the input path. The output is created with fs->Create and becomes visible only
// if everything succeeded; on any failure it is aborted and nothing is left behind.
//
// Copy fast path (copy_row_group_min_bytes > 0): an input row group whose compressed size
// is at least that many bytes, and whose chunks are all in the output's codec (any codec
// with copy_other_codecs), is not decoded: it becomes an output row group of its own,
// its column chunks copied byte for byte (FileWriter::AppendRowGroupCopy: footer
// statistics carried over, exact because they are the chunk's own; its codec, encodings
// and page size stay the input's). Where the row filter drops any of its rows it is
// decoded and filtered as usual (on its own row group still).
//
// Page copy (copy_plain_pages, on by default): while output leaf c is written from an
// input chunk with the output's codec, a PLAIN data page (v1 with RLE levels, of a
// flat column; or v2 of any column) whose rows the row filter keeps entirely is not
// re-encoded once the output chunk is PLAIN (its dictionary fell back, or dictionaries
// are off, or the column is BOOLEAN): its stored bytes are appended unchanged behind a
// fresh page header (page statistics dropped, CRC kept), after the output's buffered
// values, so page order is row order. The page is still decompressed and decoded so
// that the chunk's footer statistics and counts come from the data written, exactly
// as on the decode path. Dictionary-encoded pages, pages the filter thins and pages
// while the output chunk still dictionary-encodes are decoded and re-encoded as
// usual. Copied pages keep their input page size and compression level.
//
// Output schema (output_schema set): the output carries that schema (e.g. the table's,
// with its names, annotations and field ids) and each input is read through its
// ColumnMap (column_map.h: output leaf -> input leaf, definition levels remapped where a
// required input field is optional in the output, values converted where the map says
// so: LeafMap::conversion, e.g. INT96 timestamps to INT64 microseconds, exactly as the
// logical reader converts them). Only inputs whose leaves MapColumns accepts can be
// given. Statistics are computed from the values written with the output's annotations.
// An input whose schema is not the output schema itself (ColumnMap::same_schema) is
// never row-group copied (its chunks' paths and statistics are its own), pages are
// copied only for leaves with the same levels and no conversion, and
// the inputs' key-value metadata (ARROW:schema, Spark's schema) is kept only when every
// input has the output schema.
//
// Column chunks in parallel (threads > 1; issue 18): within an output row group the
// leaves are encoded as tasks on the CPU pool (base/thread_pool.h), each into a column
// buffer of its own (FileWriter::BeginColumnBuffer: the leaf's own column writer,
// dictionary, compression and scratch batch; no decoder, batch or buffer is shared
// between tasks running at once), and appended to the output in leaf order, so the file
// is byte for byte the one-thread file. Each task reads its leaf through the inputs'
// readers (FileReader::OpenRowGroup / OpenColumnPages may be called from several
// threads: they only read the footer and issue ReadAt calls, which every
// io::RandomAccessFile, RemoteFile included, takes concurrently); readers are opened
// beforehand on the calling thread, or per leaf by the task past max_open_inputs.
// A window of 2 x threads leaves is in flight at once (encoding, or done and waiting
// for an earlier leaf), and it spans output row groups: leaf c of a row group starts as
// soon as leaf c of the row group before is appended (the leaf's column writer carries
// its dictionary and statistics from one to the next; FileWriter::BeginNextRowGroupBuffer),
// so a row group's last long leaf does not idle the other threads. Chunks are appended
// strictly in file order: every leaf of a row group, its end, then the next one's.
// A row group holding slices of two split row groups is written on one thread (their
// streams share one cursor), as are copied row groups; these, row groups whose rows
// are all filtered out and a row group that starts another split row group first wait
// for everything in flight. Errors: the first failure in (row group, leaf) order is
// returned, as on one thread; every task is waited for before the rewrite returns.
// Nested use is safe: a rewrite
// running as a CPU- or IO-pool task (an executor bin) waits for its leaves by running
// the queued ones itself, so progress never depends on a free pool thread.
//
// Memory bound with threads > 1: the one-thread bound above for each of up to 2 x
// threads leaves in flight (its input batch and page buffers, its output dictionary),
// plus the compressed chunks of those leaves, held until appended -- at most 2 x
// threads chunks, at most one per leaf (of two consecutive output row groups), so
// about one output row group's encoded size (writer.row_group_size_bytes, the same
// bound as the row-oriented writer's). The readers opened for a row group (see
// max_open_inputs) stay open until its last leaf is appended. The chunk buffers are
// kept, emptied, for later chunks (no page faults per chunk), so their memory is at
// most about twice the largest 2 x threads chunks in flight at once. Nothing scales
// with the number of inputs or row groups. A caller with a memory budget (OPTIMIZE's bins:
// `threads` bins at once) multiplies this by its concurrent rewrites; threads = 1 keeps
// the streaming bound of about one column chunk's batch.
//
// Thread-safety: RewriteFiles is reentrant. Callbacks (row filter, progress) are
// invoked on the calling thread, each in the one-thread order with the same arguments;
// with threads > 1 the row filter of an output row group may be called before the
// progress reports of the previous row group's last columns (its row count is needed
// to start its first leaves).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_map.h"
#include "lithify/parquet/file_reader.h"
#include "lithify/parquet/file_writer.h"

namespace lithify::parquet {

// Rows of one input row group to keep: called once per input row group that has rows
// (once per slice of a split one), with the input's index in `inputs`, the file row index
// of the first row (FileReader::RowGroupFirstRow, the numbering deletion vectors use) and
// the row count.
// Must return exactly num_rows flags (InvalidArgument otherwise); an error aborts the
// rewrite.
using RowFilter =
    std::function<Result<std::vector<bool>>(int input, int64_t first_row, int64_t num_rows)>;

struct RewriteProgress {
  int row_groups_done = 0;    // output row groups finished
  int row_groups_total = 0;   // planned output row groups (some may end up empty)
  int columns_done = 0;       // leaves finished in the current output row group
  int columns_total = 0;      // leaves of the schema
  int64_t rows_written = 0;   // rows in finished output row groups
};

struct RewriteOptions {
  // Output encoding. key_value_metadata: these pairs, then every pair that all inputs
  // carry with the same value (schema-derived entries such as ARROW:schema stay valid
  // because the schema is unchanged) whose key is not already present.
  WriterOptions writer;
  ReadOptions reader;
  // Optional: rows to keep per input row group (deletion vectors plug in here). When
  // set, the masks of an output row group are computed before it is written, so its row
  // count is exact; an output row group whose rows are all dropped is not written.
  RowFilter row_filter;
  // Optional: called after every finished column and row group.
  std::function<void(const RewriteProgress&)> progress;
  // Inputs kept open at once (each holds a file handle and its footer): readers opened
  // while planning stay open for the rewrite up to this many; inputs opened later (past
  // it) are kept per output row group up to this many (counting those of a row group
  // still in flight before it, threads > 1) and reopened per column beyond (a footer
  // read each). Readers the caller hands over (RewriteInput) are always kept:
  // the caller bounds them.
  int max_open_inputs = 256;
  // Rows per input batch (>= 1).
  int64_t batch_rows = FileReader::kDefaultBatchRows;
  // Input row groups of at least this many compressed bytes are copied without decoding
  // (see the header comment); 0 = never.
  int64_t copy_row_group_min_bytes = 0;
  // Also copy row groups whose chunks use another codec than writer.codec (they keep
  // theirs: the output then mixes codecs).
  bool copy_other_codecs = false;
  // Cut input row groups larger than writer.row_group_size_bytes (see the header
  // comment); off: they are kept whole.
  bool split_row_groups = false;
  // Leaves encoded at once (see the header comment): 0 = the
  // CPU pool's size (CpuPool(), LITHIFY_THREADS), 1 = leaf after leaf on the calling
  // thread, pages streamed to the output. The output is the same either way.
  int threads = 0;
  // Append PLAIN input pages in the output's codec unchanged (see the header comment).
  // Off when the output must be recompressed, e.g. at another compression level.
  bool copy_plain_pages = true;
  // The output's schema (see the header comment); unset: the first input's, and every
  // input must have it (CompareSchemas).
  std::optional<Schema> output_schema;
  // With output_schema: one map per input (MapColumns(input schema, *output_schema)), or
  // empty to have RewriteFiles compute them (InvalidArgument naming the input and the
  // reason when one does not map).
  std::vector<ColumnMap> column_maps;
};

struct RewriteResult {
  int64_t files = 0;         // inputs
  int64_t rows_in = 0;       // rows in the inputs
  int64_t rows = 0;          // rows written
  int64_t row_groups = 0;    // output row groups
  int64_t row_groups_copied = 0;  // of which copied without decoding
  int64_t pages_copied = 0;  // data pages appended without re-encoding (page copy)
  int64_t bytes_in = 0;      // sum of the input file sizes
  int64_t bytes_out = 0;     // output file size
  FileMetaData footer;       // the output's footer, as written (callers need not reread it)
};

Result<RewriteResult> RewriteFiles(io::FileSystem* fs, const std::vector<std::string>& inputs,
                                   const std::string& output, const RewriteOptions& options = {});

// One input of RewriteFiles, possibly open already. A caller that has read an input's
// footer (to check its schema, say) hands the reader over: its footer is not read again
// and the file is not reopened -- the rewrite reads through it and closes it after the
// last output row group that needs it -- so an input on an object store costs one open
// (one request for a small file, see io/http/remote_file.h) for the whole rewrite.
// Inputs without a reader are opened as above; those opened while planning stay open
// for the rewrite too while fewer than max_open_inputs readers are held.
struct RewriteInput {
  std::string path;
  std::unique_ptr<FileReader> reader;  // optional; opened on `path`
  int64_t size = 0;                    // the file's size when `reader` is given
};
Result<RewriteResult> RewriteInputs(io::FileSystem* fs, std::vector<RewriteInput> inputs, const std::string& output,
                                   const RewriteOptions& options = {});

// InvalidArgument "<path>: schema differs from <first_path>: column 'a.b' is ... there
// but ... here" when `s` differs from `first` (names, types, repetition, annotations and
// field ids; the root's name may differ); OK otherwise.
Status CompareSchemas(const Schema& first, const std::string& first_path, const Schema& s,
                      const std::string& path);

}  // namespace lithify::parquet
