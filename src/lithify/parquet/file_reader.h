// FileReader: reads one Parquet file through io::RandomAccessFile.
//
// Open() reads and validates the footer only. Data is read per row group and per
// projected leaf column, page by page; peak memory is bounded by the projected columns
// of one row group (the compressed chunk plus its decoded values), never the file.
// Errors name the file and, where relevant, the row group, column and page:
// "x.parquet: row group 2: column 'a.b': page 3: ...". Malformed input is Corruption;
// valid but unimplemented features (encryption, LZO, ...) are NotSupported naming the
// feature. A FileReader may be used by one thread at a time; distinct readers are
// independent.
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
  // Upper bound of one column chunk's decoded levels + values (and of one decompressed
  // page). A few bytes of RLE can claim billions of values, so hostile input is cut off
  // here with NotSupported instead of exhausting memory. Fuzz targets set it lower.
  int64_t max_decoded_chunk_bytes = int64_t{2} << 30;
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
};

// Resolves user column names ("a", "a.b") to leaf indices: a group name selects every
// leaf under it. NotFound naming the unknown column.
Result<std::vector<int>> ResolveColumns(const Schema& schema,
                                        const std::vector<std::string>& names);

}  // namespace lithify::parquet
