// The per-operation table-feature gate: what each kind of write may do on a table that
// uses a writer feature whose rules constrain data (PROTOCOL.md "Append-only Tables",
// "Column Invariants", "CHECK Constraints", "Generated Columns", "Identity Columns").
//
// The protocol gate (Snapshot::CanWrite) answers "does lithify know every writer feature
// this protocol lists"; that is per table and says nothing about what a given write does
// with the feature. A feature the protocol merely supports constrains nothing; a feature
// the table *uses* (a delta.constraints.* property, a field with delta.invariants, ...)
// constrains the operations that create rows. This gate answers per operation:
//
//   feature (when in use)  append      delete (DV / copy-on-write)  rewrite  alter  checkpoint  vacuum
//   appendOnly             allowed     refused                      allowed  allowed allowed    allowed
//   invariants             enforced    allowed                      allowed  allowed allowed    allowed
//   checkConstraints       enforced    allowed                      allowed  allowed allowed    allowed
//   generatedColumns       enforced*   allowed                      allowed  allowed allowed    allowed
//   identityColumns        enforced    allowed                      allowed  allowed allowed    allowed
//   allowColumnDefaults    refused     allowed                      allowed  allowed allowed    allowed
//
//   * enforced when lithify computes every generation expression of the table
//     (generated_columns.h, expr/scalar.h; TIMESTAMPs turned into dates, hours or text
//     in UTC), refused naming the first column whose expression it cannot compute.
//
// Why: a delete, OPTIMIZE / REORG / clustering rewrite, checkpoint or VACUUM creates no
// new values (a copy-on-write delete and a rewrite copy surviving rows unchanged), so
// constraints that held stay true; a delete is a data-changing remove, which an
// append-only table forbids. An append creates values: constraints and invariants are
// evaluated on every new row (row_constraints.h; an expression lithify cannot evaluate
// exactly refuses the append) and identity values are generated with the new high-water
// mark in the same commit (identity.h), and generation expressions are computed for rows
// that omit the column and checked (col <=> expr) on rows that give it
// (generated_columns.h) -- an expression lithify cannot compute exactly refuses the
// append naming the column; column DEFAULTs are not filled
// (lithify would store NULL where a Delta writer stores the default), so such an append
// is refused. Alter only
// changes table properties here; adding a CHECK constraint is refused by the property
// validation (ddl.h), since lithify does not validate existing rows against it. NOT NULL
// columns are not a feature: every append enforces them (ingest and the row builder).
//
// Pure functions of the snapshot's metadata; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/status.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/snapshot.h"
#include "lithify/delta/table_features.h"

namespace lithify::delta {

// WriteOperation and FeatureVerdict are declared in table_features.h, whose registry
// holds each feature's row of the table above.

// "append", "delete", "delete (copy-on-write)", "rewrite", "alter", "checkpoint", "vacuum".
std::string_view WriteOperationName(WriteOperation op);

// "allowed", "enforced", "refused".
std::string_view FeatureVerdictName(FeatureVerdict v);

// The verdict of the table above for one feature (by its Delta name) and operation;
// kAllowed for a feature that does not constrain data.
FeatureVerdict VerdictFor(std::string_view feature, WriteOperation op);

// A data-constraining feature the table uses, with what makes it used.
struct FeatureUse {
  std::string feature;  // "appendOnly", "invariants", "checkConstraints", "generatedColumns", "identityColumns"
  std::string detail;   // "constraint positive (x > 0)", "column id (delta.identity.*)", ...
};

// The data-constraining features in use: delta.appendOnly=true; a field (at any depth)
// with delta.invariants; a delta.constraints.<name> property; a field with
// delta.generationExpression; a field with delta.identity.start/step/highWaterMark/
// allowExplicitInsert. In use whatever the protocol lists (a writer that stored a
// constraint meant it to hold). One entry per constraint / column, in schema or key order.
std::vector<FeatureUse> FeaturesInUse(const StructType& schema, const std::map<std::string, std::string>& config);

// OK when every feature in use allows `op` or is enforced by it; else the refusal for
// the first feature that refuses it, naming the feature and what uses it:
//  - appendOnly on a delete: InvalidArgument "DELTA_CANNOT_MODIFY_APPEND_ONLY: ...";
//  - generatedColumns on an append whose generation expressions lithify cannot all
//    compute: NotSupported "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature
//    generatedColumns (column g GENERATED ALWAYS AS (...)): lithify cannot compute this
//    generation expression (REASON), so it refuses the append ..." (GeneratedColumns::Make);
//  - allowColumnDefaults on an append: NotSupported "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE:
//    table feature allowColumnDefaults (column c DEFAULT ...): lithify does not fill column
//    defaults, so it refuses the append ...".
Status CheckWriteOperation(const StructType& schema, const std::map<std::string, std::string>& config,
                           WriteOperation op);
Status CheckWriteOperation(const Snapshot& snapshot, WriteOperation op);

}  // namespace lithify::delta
