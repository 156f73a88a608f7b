// BatchConformer: turns batches read under one Parquet schema into batches of a write
// schema of the same shape whose nullability may be stricter.
//
// A rewrite reads every input through a *reading* schema that makes every field
// nullable (so that any file's nulls fit, whatever engine wrote it), and writes through
// the table's *data-file* schema, which keeps the table's NOT NULL fields required.
// Both schemas have the same leaves, nesting and physical types; only optional vs
// required steps differ, so each leaf's definition levels are renumbered through a
// small table built once per leaf. Repetition levels and values are moved unchanged
// (no copy of value bytes). A null at a step the write schema requires cannot be
// written: Corruption naming the column (the caller adds the file).
//
// Immutable after Make; Conform may be called from many threads at once.
#pragma once

#include <cstdint>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/parquet/column_batch.h"
#include "lithify/parquet/schema.h"

namespace lithify::exec {

class BatchConformer {
 public:
  // `source_leaves[i]` is the leaf of `source` that becomes leaf i of `target`; every
  // target leaf appears once, in order. NotSupported naming the column when a pair
  // differs in physical type, width or nesting (the write schema is not the read
  // schema's shape); InvalidArgument when the counts differ. Both schemas must outlive
  // the conformer.
  static Result<BatchConformer> Make(const parquet::Schema& source,
                                     const std::vector<int>& source_leaves,
                                     const parquet::Schema& target);

  // `in.columns[i]` holds source leaf source_leaves[i]. Returns the batch as target
  // leaves (descr pointing into the target schema). Corruption "column 'a.b' is NOT
  // NULL in the table but holds a null" when a level cannot be represented.
  Result<parquet::RowBatch> Conform(parquet::RowBatch in) const;

  int num_leaves() const { return static_cast<int>(maps_.size()); }

 private:
  struct LeafMap {
    int target_leaf = -1;
    // source def level -> target def level; -1 = not representable (null where the
    // target requires a value).
    std::vector<int16_t> def_map;
    bool identity = false;  // levels need no renumbering
  };
  const parquet::Schema* target_ = nullptr;
  std::vector<LeafMap> maps_;
};

}  // namespace lithify::exec
