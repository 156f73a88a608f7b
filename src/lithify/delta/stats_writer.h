// Delta per-file statistics, written (PROTOCOL.md Appendix "Per-file Statistics",
// Delta's StatisticsCollection).
//
// The JSON object has numRecords and, for the statistics columns, minValues /
// maxValues / nullCount nested like the schema, keyed by physical names:
//  - statistics columns: the first `delta.dataSkippingNumIndexedCols` (default 32;
//    -1 = all) leaf columns of the data schema (partition columns excluded) in schema
//    order, where a struct is walked into and any other field -- arrays and maps
//    included -- counts as one leaf; or, when `delta.dataSkippingStatsColumns` is set,
//    exactly the listed columns (comma-separated logical names, dotted for nested,
//    backquoted when needed; a struct stands for all its leaves), in schema order.
//  - nullCount for every statistics column: rows where the field is null (a field of a
//    null struct is null; an array/map counts null arrays/maps, not null elements).
//  - minValues/maxValues only for byte, short, int, long, float, double, decimal
//    (JSON numbers), date ("YYYY-MM-DD"), timestamp (ISO-8601 with milliseconds and
//    'Z'), timestamp_ntz (the same without zone) and string; never for boolean,
//    binary, arrays, maps (Delta's SkippingEligibleDataType). A column whose values
//    are all null has no min/max.
//  - strings: min truncated to 32 UTF-16 units (Delta's unit; a surrogate pair is
//    never split); max truncated with Delta's tie-breaker (append U+007F when the next
//    character is below it, else U+10FFFF, extending the prefix up to 64 units; no max
//    at all when that is impossible), so that it stays an upper bound in UTF-8 byte
//    order.
//  - float/double: a file whose column holds a NaN gets no min/max for that column
//    (nullCount stays). NaN has no place in a numeric min/max, and engines disagree on
//    where it sorts: Spark orders NaN above every value, so a max that left NaN out
//    would let it skip a file holding NaN (delta-io/delta#7101 drops float bounds for
//    that reason). Otherwise -0.0/+0.0 compare equal, and a zero bound is always
//    written as 0, whichever zero was seen first, so that the text does not depend on
//    row order and equals what a Parquet footer, which cannot tell the zeros apart,
//    gives. Floats are printed as their exact double value (17 significant digits) so
//    that a reader parsing them as double still gets a bound; an infinite bound is
//    left out (JSON has no infinity).
//  - timestamps: min and max are truncated to milliseconds, as PROTOCOL.md says
//    ("Timestamp columns are truncated down to milliseconds"): a max with
//    sub-millisecond digits is then below the true maximum, and readers treat it as
//    "every value < max + 1 ms" (expr/stats_eval.h does). Rounding the max up instead
//    would leave the type's range at 9999-12-31T23:59:59.999999.
//  - tightBounds is never written: fresh files have exact bounds and Delta omits it.
// Bounds are accumulated from the values written (levels form batches), never taken
// from inputs -- or, for a file lithify has just written, read back from that file's own
// footer (StatsJsonFromFooter) where the footer's statistics are exact.
//
// A StatsPlan is immutable and shareable across threads; a StatsCollector belongs to
// one writer thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/decimal_text.h"
#include "lithify/base/result.h"
#include "lithify/delta/schema.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/metadata.h"
#include "lithify/parquet/schema.h"

namespace lithify::delta {

inline constexpr int kDefaultNumIndexedCols = 32;
inline constexpr int kStatsStringPrefixLength = 32;

// The table properties that choose statistics columns, parsed as StatsPlan::Make parses
// them (create/alter validate with these, so a value they accept never breaks a write):
// delta.dataSkippingNumIndexedCols (default kDefaultNumIndexedCols; InvalidArgument unless
// an integer in [-1, 2^30]) and delta.dataSkippingStatsColumns ("a.b, `x.y`.z" -> paths;
// InvalidArgument for an empty name or an unclosed backquote).
Result<int> ParseNumIndexedCols(const std::map<std::string, std::string>& configuration);
Result<std::vector<std::vector<std::string>>> ParseStatsColumns(std::string_view text);
// Every check StatsPlan::Make makes of `configuration` without a data-file schema: both
// properties parse, and every listed stats column names a data column (not a partition
// column) of `table_schema`.
Status CheckStatsConfiguration(const StructType& table_schema, const std::vector<std::string>& partition_columns,
                               const std::map<std::string, std::string>& configuration);

// Which columns get statistics and how to find them in a data file.
class StatsPlan {
 public:
  // `table_schema` is the logical schema, `partition_columns` its partition columns
  // (excluded), `file_schema` the data-file Parquet schema built for them (physical
  // names). InvalidArgument for a malformed delta.dataSkippingNumIndexedCols (not an
  // integer >= -1) or a delta.dataSkippingStatsColumns entry naming no column (or a
  // partition column).
  static Result<std::shared_ptr<const StatsPlan>> Make(
      const StructType& table_schema, const std::vector<std::string>& partition_columns,
      ColumnMappingMode mode, const std::map<std::string, std::string>& configuration,
      const parquet::Schema& file_schema);

  struct Column {
    std::vector<std::string> physical_path;  // from the top level down
    DataType::Kind kind = DataType::Kind::kLong;  // the logical type of the field
    int precision = 0, scale = 0;            // decimals
    bool min_max = false;                    // min/max collected (eligible type)
    int leaf = -1;                           // a Parquet leaf under the field
    int16_t null_def = 0;                    // def level below which the field is null
    // The field is that leaf itself and nothing above it repeats: the leaf's footer
    // statistics (null_count, min/max) describe exactly the field's rows.
    bool flat_leaf = false;
  };
  const std::vector<Column>& columns() const { return columns_; }

 private:
  std::vector<Column> columns_;
};

class StatsCollector {
 public:
  explicit StatsCollector(std::shared_ptr<const StatsPlan> plan);

  // Accumulates a batch whose columns are every leaf of the plan's file schema in leaf
  // order (as given to parquet::FileWriter::WriteBatch).
  void Update(const parquet::RowBatch& batch);
  int64_t num_records() const { return num_records_; }
  // Takes a whole data file's statistics from its footer instead of its values (it
  // replaces whatever was accumulated): numRecords from the row groups, per statistics column the
  // row groups' null_count summed and min_value/max_value merged. Returns false, and
  // changes nothing, unless the footer gives exactly what Update would have computed:
  // every statistics column a flat_leaf; every row group's chunk with statistics and a
  // null_count; for chunks holding non-null values of a min/max column, min_value and
  // max_value present (the deprecated min/max are never used), of the physical width
  // the type needs, flagged exact (is_*_value_exact) for byte arrays, and never NaN;
  // for float/double chunks holding non-null values, a nan_count (Parquet's field 9,
  // which lithify's writer sets): min/max leave NaN out, so without it the footer
  // cannot tell a NaN-free chunk from one whose column must get no bounds.
  // InvalidArgument when a row group has fewer column chunks than the plan's leaves.
  Result<bool> UpdateFromFooter(const parquet::FileMetaData& footer);
  // The stats JSON text (one object, no whitespace).
  std::string ToJson() const;
  // Forgets everything (a new file).
  void Reset();

 private:
  struct Acc;
  std::shared_ptr<const StatsPlan> plan_;
  int64_t num_records_ = 0;
  std::vector<std::shared_ptr<Acc>> accs_;  // per plan column
};

// The stats JSON of a data file from its footer alone (UpdateFromFooter + ToJson on a
// fresh collector): equal to the text StatsCollector gives on the file's rows, or
// nullopt when the footer cannot give exact answers (then read the rows back through
// a StatsCollector). Meant for files written by lithify's own Parquet writer, whose
// statistics follow the same sort orders and NaN rule (parquet/statistics.h).
Result<std::optional<std::string>> StatsJsonFromFooter(std::shared_ptr<const StatsPlan> plan,
                                                       const parquet::FileMetaData& footer);

// ---- Building blocks (stateless, thread-safe) ----

// Delta's string min truncation (see above). Input and output are UTF-8 (invalid UTF-8
// is treated byte-wise as Latin-1 and truncated to prefix_len bytes).
std::string TruncateStatsMin(std::string_view utf8, int prefix_len = kStatsStringPrefixLength);
// Delta's string max truncation; nullopt when no bound can be built.
std::optional<std::string> TruncateStatsMax(std::string_view utf8,
                                            int prefix_len = kStatsStringPrefixLength);
// "YYYY-MM-DDTHH:MM:SS.sssZ" (utc) / without 'Z' (ntz) of microseconds since the epoch,
// truncated (floored) to milliseconds.
std::string FormatStatsTimestamp(int64_t micros, bool utc);
// Plain decimal text of an unscaled value at `scale` ("-12.30", "0.05", "7"): base's.
using ::lithify::DecimalText;

}  // namespace lithify::delta
