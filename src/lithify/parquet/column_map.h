// MapColumns: whether the columns of a file written by another engine map one to one onto
// a target schema (the table's data-file schema) without changing a single value, so the
// file can be rewritten column at a time into a file of the target's schema.
//
// The walk follows the target's logical tree (NodeKind: struct, list, map, primitive) and
// looks for each target node's counterpart in the file: a struct's fields by field id when
// both the target field and some field of the file's struct carry ids, else by name; a
// list's element and a map's key and value by position (their names and the legacy
// shapes do not matter: 2-level lists, `array` / `<name>_tuple` elements, MAP_KEY_VALUE).
// File columns the target does not have are ignored (not read).
//
// Equivalent leaves: the same physical type (and FIXED_LEN_BYTE_ARRAY width) and the same
// meaning of the annotation, whether written as a converted type or a logical type:
//   UTF8 = STRING, ENUM, JSON, BSON; DECIMAL(p,s) with the same precision and scale;
//   INT_8..INT_64 / UINT_8..UINT_64 = INTEGER(bits, signedness), no annotation on
//   INT32/INT64 = INTEGER(32|64, signed); DATE; TIME_MILLIS/MICROS = TIME(unit, UTC);
//   TIMESTAMP_MILLIS/MICROS = TIMESTAMP(unit, isAdjustedToUTC=true).
// Other annotations (UUID, FLOAT16, INTERVAL, ...) must be the same on both sides.
//
// Converted leaves (LeafMap::conversion): a file leaf whose every value has exactly one
// value of the target's type meaning the same thing is read through a conversion that
// is the one the logical reader (delta/logical_reader.h) applies, so the two paths
// write the same values:
//   INT96 (Impala/Hive/Spark timestamps) -> INT64 TIMESTAMP(MICROS, UTC);
//   INT64 TIMESTAMP(MILLIS, u) -> INT64 TIMESTAMP(MICROS, u);
//   INT32 signed INTEGER(8|16|32) or unannotated -> INT64 INTEGER(64, signed) and
//   INT32 signed INTEGER(8|16|32) -> DOUBLE; FLOAT -> DOUBLE; DATE -> INT64
//   TIMESTAMP(MICROS, local) (Delta's type widening, and timestamp_ntz from date).
// Not converted (refused): INT96 for a non-UTC column, nanoseconds (precision would be
// lost), decimals of another precision, scale or physical type, integers to decimals.
//
// Levels: repetition must be the same at every step (so repetition levels are equal). A
// required file field where the target is optional is accepted when
// options.allow_required_to_optional (the file's definition levels then map through
// LeafMap::def_map, a monotone table); an optional file field where the target is required
// is refused (the file may hold nulls the target cannot).
//
// Refused, with the reason as the status message (NotSupported "column 'a.b': ..."): a
// target column missing in the file, a different physical type that is not one of the
// conversions above, different decimal precision/scale or width, other time units or
// UTC meaning, different annotations, a struct/list/map against another shape,
// an unannotated (bare) repeated field on either side, levels that do not line up.
//
// Pure function of the two schemas; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::parquet {

struct ColumnMapOptions {
  // Accept required file fields where the target's are optional (see the header).
  bool allow_required_to_optional = true;
  // Match struct fields by field id when the target field and the file's struct have
  // ids; off: always by name (e.g. Delta's column mapping mode 'name', whose readers
  // resolve physical names only).
  bool match_field_ids = true;
};

// How a leaf's values change on the way from the file to the target (see the header).
enum class ValueConversion : uint8_t {
  kNone,
  kInt96ToMicros,    // INT96 -> INT64 microseconds (Int96Micros)
  kMillisToMicros,   // INT64 milliseconds -> microseconds (saturating, MillisToMicros)
  kInt32ToInt64,     // sign-extended
  kInt32ToDouble,    // exact: every int32 is a double
  kFloatToDouble,    // exact, NaN and -0.0 included
  kDaysToMicros,     // DATE -> midnight of that day in microseconds
};

// Whether conversion `c` reads values of physical type `file` as values of `target`
// (kNone: the same type).
bool ConversionFits(ValueConversion c, PhysicalType file, PhysicalType target);

// How one target leaf is read from the file.
struct LeafMap {
  int file_leaf = -1;  // leaf index in the file's schema
  ValueConversion conversion = ValueConversion::kNone;
  // def_map[d]: the target definition level of file definition level d (file max_def + 1
  // entries); empty when the levels are the same.
  std::vector<int16_t> def_map;
};

struct ColumnMap {
  std::vector<LeafMap> leaves;  // by target leaf
  // The file's schema equals the target's (CompareSchemas: names, types, repetition,
  // annotations, field ids; the root's name aside): its row groups may be copied as
  // they are, its key-value metadata kept.
  bool same_schema = false;
  // Every leaf is the file leaf of the same index with the same levels.
  bool identity_leaves() const;
};

Result<ColumnMap> MapColumns(const Schema& file, const Schema& target, const ColumnMapOptions& options = {});

// Converts `values` (of the file leaf's physical type) in place to the target's per
// m.conversion; a no-op for kNone. `scratch` is reused memory for conversions that widen.
// Values in dictionary form are made plain first.
void ConvertLeafValues(const LeafMap& m, ColumnValues* values, Buffer* scratch);

// Applies a LeafMap's def_map to levels (in place); a no-op for an empty map. When the
// file leaf has no definition levels (max_def 0) and the target has, `num_levels` entries
// of def_map[0] are created.
void RemapDefLevels(const LeafMap& m, int64_t num_levels, std::vector<int16_t>* def_levels);

}  // namespace lithify::parquet
