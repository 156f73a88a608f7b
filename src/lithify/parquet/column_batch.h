// Columnar batches: the in-memory form of Parquet data inside lithify.
//
// A batch holds some whole rows of a set of leaf columns in the *levels* form that
// Parquet itself uses (Dremel shredding): for each leaf, definition and repetition
// levels plus the dense non-null values. This is what the reader produces without any
// per-value boxing, what the writer consumes directly (so a rewrite never assembles
// records), and what row-level operations work on: a row starts at every rep level 0,
// so filtering rows by file row index (deletion vectors) or reordering rows (curve
// sorting) is a gather of level/value ranges. Record assembly into nested values
// happens only for display (rows_json.h).
//
// Values are stored physically: fixed-width types packed little-endian (BOOLEAN one
// byte per value, INT96 12 bytes, FIXED_LEN_BYTE_ARRAY type_length bytes), BYTE_ARRAY
// as int64 offsets (size n+1, starting at 0) into one data buffer.
//
// Batches are move-only values; not thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/parquet/metadata.h"

namespace lithify::parquet {

struct ColumnDescriptor;

// Bytes of one value of physical type `type`: FIXED_LEN_BYTE_ARRAY takes `type_length`
// (0 when not positive), BYTE_ARRAY (variable width) 0.
size_t PhysicalTypeWidth(PhysicalType type, int32_t type_length);

// Dense non-null values of one leaf column.
//
// Dictionary form: only a consumer that asked a reader for it (ValueForm::
// kDictionaryIndices, a rewrite) ever sees it. Value i is then entry indices[i] of
// *dictionary (plain form, every index < dictionary->count), and fixed/offsets/data are
// empty. The dictionary belongs to the reader and stays valid until the reader decodes
// its next page or chunk, so a batch in this form is consumed before the next read and
// never kept; dictionary_id (unique in the process, never 0) tells dictionaries apart
// without keeping them. A rewrite passes dictionary-encoded input straight through:
// the writer maps each input entry once instead of hashing every value.
struct ColumnValues {
  PhysicalType type = PhysicalType::kInt32;
  int32_t type_length = 0;        // FIXED_LEN_BYTE_ARRAY width
  int64_t count = 0;              // number of values
  Buffer fixed;                   // fixed-width types: count * width bytes
  std::vector<int64_t> offsets;   // BYTE_ARRAY: count + 1 entries (empty when count == 0 is fine)
  Buffer data;                    // BYTE_ARRAY payload
  const ColumnValues* dictionary = nullptr;  // dictionary form (see above)
  uint64_t dictionary_id = 0;
  std::vector<uint32_t> indices;             // dictionary form: count entries

  bool is_dictionary() const { return dictionary != nullptr; }

  // Byte width of one fixed-width value (0 for BYTE_ARRAY).
  size_t width() const { return PhysicalTypeWidth(type, type_length); }
  bool is_byte_array() const { return type == PhysicalType::kByteArray; }
  // i-th BYTE_ARRAY value. Precondition: is_byte_array(), i < count.
  std::string_view binary(int64_t i) const {
    return {reinterpret_cast<const char*>(data.data()) + offsets[i],
            static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
  // Pointer to the i-th fixed-width value.
  const uint8_t* fixed_at(int64_t i) const { return fixed.data() + i * width(); }
  template <typename T>
  T value(int64_t i) const {
    T v;
    std::memcpy(&v, fixed.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  // Empties the values (keeping capacity); plain form.
  void Clear();
  // Appends values [begin, end) of `other` (same type). The result stays in dictionary
  // form when both are of the same dictionary (or this is empty); otherwise it is plain.
  void AppendRange(const ColumnValues& other, int64_t begin, int64_t end);
  // Appends entries idx[0..n) of `dict` (plain form, same type, every index checked
  // < dict.count by the caller) as plain values. Precondition: this is in plain form.
  // `data_bytes`: for BYTE_ARRAY, the entries' total length when the caller has summed it
  // already (-1: summed here).
  void AppendGathered(const ColumnValues& dict, const uint32_t* idx, int64_t n, int64_t data_bytes = -1);
  // Turns the dictionary form into the plain form (no-op for plain values).
  void Materialize();
};

// One leaf column's slice of a batch.
struct ColumnData {
  int leaf_index = -1;                 // leaf number in the file's Schema
  const ColumnDescriptor* descr = nullptr;
  int64_t num_levels = 0;              // level entries (== rows for flat columns)
  std::vector<int16_t> def_levels;     // num_levels entries, empty when max_def == 0
  std::vector<int16_t> rep_levels;     // num_levels entries, empty when max_rep == 0
  ColumnValues values;                 // entries with def == max_def, in order

  // Empties the slice (keeping capacity) to hold values of the leaf `d`; leaf_index is
  // left as it is.
  void Reset(const ColumnDescriptor& d);

  // For a flat column (max_rep == 0) whether row i is non-null.
  bool IsValid(int64_t i, int16_t max_def) const {
    return def_levels.empty() || def_levels[i] == max_def;
  }
};

struct RowBatch {
  int64_t num_rows = 0;
  // File row index of the batch's first row (position within the file, counting all
  // earlier row groups); rows are consecutive.
  int64_t first_row_index = 0;
  std::vector<ColumnData> columns;     // in requested projection order
};

// Row r of column c spans levels [RowLevelStarts(c)[r], RowLevelStarts(c)[r+1]).
// For flat columns this is the identity; for repeated ones it scans rep levels.
std::vector<int64_t> RowLevelStarts(const ColumnData& c, int64_t num_rows);

// Keeps only rows whose `keep[r]` is true (r in [0, batch.num_rows)); the result's
// first_row_index is meaningless afterwards (set to -1) because rows are no longer
// consecutive.
void FilterRows(RowBatch* batch, const std::vector<bool>& keep);

}  // namespace lithify::parquet
