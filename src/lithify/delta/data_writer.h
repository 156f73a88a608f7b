// DataFileWriter: writes a Delta table's data files and describes them as AddFiles.
//
// Rows (logical values, partition columns included) or ready-made RowBatches (data
// columns only, e.g. a copy-on-write rewrite or OPTIMIZE) go to one Parquet file per
// partition value combination, under Hive-style directories (`col=value/` per partition
// column in table order; values escaped as Spark/Hive escape path characters; null and
// the empty string as `__HIVE_DEFAULT_PARTITION__`). File names are
// `part-00000-<uuid>-c000.<codec>.parquet` (codec named as Spark names it: zstd, snappy,
// gz, lz4raw, brotli; none for uncompressed: `part-...-c000.parquet`).
//
// Each AddFile carries the relative path URI-encoded as Delta writes it (DecodeActionPath
// gives the relative path back), partitionValues keyed by physical column name and
// serialized per PROTOCOL.md "Partition Value Serialization", size, modificationTime
// (now), dataChange=true and Delta's per-file statistics (stats_writer.h), computed from
// the values actually written.
//
// Files roll over: a partition's file is closed and a new one started once its
// estimated size reaches target_file_size_bytes or it holds max_rows_per_file rows.
// Open files are bounded: when a batch needs a file for a partition and
// max_open_files are already open, the open file with the most bytes (ties: the
// oldest) is closed first; that partition gets a new file when more rows arrive. Memory
// is therefore about max_open_files row groups (plus one batch). Optimized writes
// (DataWriterOptions::optimize_write) flush row groups instead of closing files.
//
// Nothing a writer produces is visible in the table until a Transaction commits the
// AddFiles Finish returns. Abort (or destruction without Finish) discards open files;
// files already closed (rolled over or evicted) stay on storage as orphans that no
// commit references, until the caller deletes them (closed_files()) or VACUUM does.
//
// A DataFileWriter is used by one thread. Errors are sticky: after a failure every
// call returns the first error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/file_writer.h"
#include "lithify/parquet/row_builder.h"
#include "lithify/parquet/schema.h"

namespace lithify::delta {

// What a writer needs to know about the table.
struct WriteContext {
  StructType schema;                              // the logical table schema
  std::vector<std::string> partition_columns;     // logical names, in table order
  ColumnMappingMode column_mapping_mode = ColumnMappingMode::kNone;
  std::map<std::string, std::string> configuration;  // metaData.configuration

  static WriteContext FromSnapshot(const Snapshot& snapshot);
  // Parses the schema string and the column mapping mode. Corruption for a malformed
  // schema or an unknown mode.
  static Result<WriteContext> FromMetadata(const Metadata& metadata);
};

struct DataWriterOptions {
  parquet::WriterOptions parquet;
  int64_t target_file_size_bytes = 128ll << 20;
  int64_t max_rows_per_file = 0;  // 0 = unlimited
  int max_open_files = 16;        // open Parquet files at once (>= 1)
  // Optimized writes (Delta's optimizeWrite; append --optimize-write): keep one file per
  // partition open until it reaches the target size instead of closing files to relieve
  // open-file pressure. Up to 8 x max_open_files files stay open; once max_open_files
  // are, opening another first flushes every open file's buffered row group to storage
  // (smaller row groups rather than more files); at 8 x max_open_files the biggest file
  // is closed as without this option. Memory is thus at most 8 x max_open_files row
  // groups, and usually far less because each new file flushes the others.
  bool optimize_write = false;
};

class DataFileWriter {
 public:
  // Validates the context (partition columns exist, are top-level primitives; under
  // column mapping every field has its physical name / id) and builds the data-file
  // schema. InvalidArgument / Corruption naming the column otherwise.
  static Result<std::unique_ptr<DataFileWriter>> Open(io::FileSystem* fs, std::string table_root,
                                                      WriteContext context,
                                                      DataWriterOptions options = {});
  ~DataFileWriter();

  // Writes logical rows: row[i] is the value of the schema's top-level field i
  // (partition columns included), Value conventions as in commands/ingest.h (date =
  // Int days, timestamps = Int microseconds, decimal = unscaled Decimal, ...).
  // A row that does not fit the schema (wrong arity, type, null in a non-nullable
  // field) is InvalidArgument naming the row number (counting all rows given so far),
  // the column and the value; then nothing of that call is written.
  Status WriteRows(const std::vector<std::vector<parquet::Value>>& rows);

  // The data-file schema: the non-partition columns in table order, physical names,
  // Parquet field ids on every field under column mapping id/name.
  const parquet::Schema& file_schema() const;

  // Writes a batch of data columns (every leaf of file_schema(), in leaf order) into the
  // partition `partition_values` (physical partition column name -> serialized value,
  // nullopt = null; exactly the table's partition columns). InvalidArgument when the
  // keys do not match or the batch does not fit file_schema().
  Status WriteBatch(const std::map<std::string, std::optional<std::string>>& partition_values,
                    const parquet::RowBatch& batch);

  // Closes every open file now (later rows start new files): splits output into more
  // files, e.g. `append --files N`.
  Status CloseOpenFiles();

  // Closes every open file and returns one AddFile per file written (files with no
  // rows are never created), in the order they were closed. The writer is done after.
  Result<std::vector<AddFile>> Finish();

  // Discards open files (closed ones remain as orphans, see above). Idempotent.
  void Abort();

  // Rows in files closed so far plus rows buffered in open ones.
  int64_t rows_written() const;
  // Files closed so far (they exist on storage; orphans unless committed).
  int64_t files_closed() const;
  // Their paths relative to the table root (not encoded), in the order they were closed;
  // still valid after Finish, so a caller whose commit failed can delete them.
  const std::vector<std::string>& closed_files() const;

 private:
  struct Impl;
  explicit DataFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---- Building blocks (stateless, thread-safe), exposed for other writers and tests ----

// The Parquet schema Delta writes for `context`'s non-partition columns (see
// file_schema()).
Result<parquet::Schema> BuildDataFileSchema(const WriteContext& context);

// The `add.partitionValues` text of a logical value of `type` (Value conventions as
// above); nullopt for null. Timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC for
// timestamp), dates "YYYY-MM-DD", decimals plain text at the column's scale, booleans
// "true"/"false", binary the raw bytes. An empty string serializes to nullopt (Delta
// cannot tell them apart). InvalidArgument for a value of the wrong kind.
Result<std::optional<std::string>> SerializePartitionValue(const DataType& type,
                                                           const parquet::Value& value);

// Hive path escaping of one partition value (Spark's ExternalCatalogUtils.escapePathName):
// control characters, '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', DEL, '{', '[',
// ']', '^' as %XX (uppercase hex); everything else (including non-ASCII) as is.
std::string EscapePartitionPathValue(std::string_view value);

// "col=value/" segments for the partition columns (names escaped too), null ->
// __HIVE_DEFAULT_PARTITION__. Empty when unpartitioned.
std::string PartitionDirectory(const std::vector<std::string>& physical_names,
                               const std::vector<std::optional<std::string>>& values);

// (Action paths are percent-encoded with EncodeActionPath from checkpoint_writer.h.)

// The file-name codec part Spark uses ("zstd", "snappy", "gz", ...); "" for none.
std::string_view CodecFileNameTag(parquet::CompressionCodec codec);

// The following let another writer (OPTIMIZE's column-at-a-time rewrite) produce files
// indistinguishable from a DataFileWriter's.

// Physical names of the partition columns, in table order. InvalidArgument for a
// partition column that is not a top-level primitive column of the schema.
Result<std::vector<std::string>> PhysicalPartitionColumns(const WriteContext& context);

// The Parquet options a DataFileWriter writes with, given the caller's: string
// statistics kept exact in the footer up to 1 MiB (Delta's truncation comes later).
parquet::WriterOptions DataFileParquetOptions(parquet::WriterOptions options);

// A fresh data file name: "part-00000-<uuid>-c000[.<codec tag>].parquet".
std::string NewDataFileName(parquet::CompressionCodec codec);

// The AddFile describing a finished data file at `rel_path` (relative to the table root,
// not encoded): path encoded, partition values as given ("" stored as null),
// modificationTime now, dataChange=true, `stats` as given.
AddFile MakeDataFileAdd(const std::string& rel_path,
                        const std::map<std::string, std::optional<std::string>>& partition_values,
                        int64_t size, std::string stats);

}  // namespace lithify::delta
