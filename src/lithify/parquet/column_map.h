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
// Levels: repetition must be the same at every step (so repetition levels are equal). A
// required file field where the target is optional is accepted when
// options.allow_required_to_optional (the file's definition levels then map through
// LeafMap::def_map, a monotone table); an optional file field where the target is required
// is refused (the file may hold nulls the target cannot).
//
// Refused, with the reason as the status message (NotSupported "column 'a.b': ..."): a
// target column missing in the file, a different physical type (e.g. INT96 timestamps
// for an INT64 micros column), different decimal precision/scale or width, different time
// units or UTC meaning, different annotations, a struct/list/map against another shape,
// an unannotated (bare) repeated field on either side, levels that do not line up.
//
// Pure function of the two schemas; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/result.h"
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

// How one target leaf is read from the file.
struct LeafMap {
  int file_leaf = -1;  // leaf index in the file's schema
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

// Applies a LeafMap's def_map to levels (in place); a no-op for an empty map. When the
// file leaf has no definition levels (max_def 0) and the target has, `num_levels` entries
// of def_map[0] are created.
void RemapDefLevels(const LeafMap& m, int64_t num_levels, std::vector<int16_t>* def_levels);

}  // namespace lithify::parquet
