#include "lithify/delta/table_features.h"

#include <algorithm>

#include "lithify/base/text.h"

namespace lithify::delta {
namespace {

using K = FeatureKind;
using V = FeatureVerdict;

// Verdict rows (write_gate.h gives the reasons). A row lists the verdict per
// WriteOperation, in its order.
constexpr V A = V::kAllowed;
constexpr V E = V::kEnforced;
constexpr V R = V::kRefused;
// No rule on data: every operation allowed.
constexpr OperationVerdicts kNoDataRules{};
//                                          append  delete DV  delete COW  rewrite  alter  checkpoint  vacuum
// Deletes remove rows, which an append-only table forbids.
constexpr OperationVerdicts kDeletesRefused{A,      R,         R,          A,       A,     A,          A};
// Rules on values: checked, or values generated, on every appended row.
constexpr OperationVerdicts kAppendEnforced{E,      A,         A,          A,       A,     A,          A};
// Values lithify does not compute: the DEFAULT of a column an insert omits (lithify would
// store NULL there).
constexpr OperationVerdicts kAppendRefused{R,       A,         A,          A,       A,     A,          A};

// Table cells: yes / no.
constexpr bool y = true;
constexpr bool n = false;

constexpr TableFeature kTableFeatures[] = {
    // name                      kind              legacy   read write set  verdicts
    //                                             r  w
    {"appendOnly",               K::kWriterOnly,   1, 2,    y,   y,    y,   kDeletesRefused},
    {"invariants",               K::kWriterOnly,   1, 2,    y,   y,    y,   kAppendEnforced},
    {"checkConstraints",         K::kWriterOnly,   1, 3,    y,   y,    n,   kAppendEnforced},
    {"changeDataFeed",           K::kWriterOnly,   1, 4,    y,   y,    n,   kNoDataRules},
    // Enforced when every generation expression compiles (generated_columns.h); the gate
    // refuses the append naming the column otherwise.
    {"generatedColumns",         K::kWriterOnly,   1, 4,    y,   y,    n,   kAppendEnforced},
    {"columnMapping",            K::kReaderWriter, 2, 5,    y,   y,    y,   kNoDataRules},
    {"identityColumns",          K::kWriterOnly,   1, 6,    y,   y,    n,   kAppendEnforced},
    // Table-features protocols only (reader 3 / writer 7).
    {"allowColumnDefaults",      K::kWriterOnly,   0, 0,    y,   y,    n,   kAppendRefused},
    {"deletionVectors",          K::kReaderWriter, 0, 0,    y,   y,    y,   kNoDataRules},
    {"rowTracking",              K::kWriterOnly,   0, 0,    y,   y,    y,   kNoDataRules},
    {"timestampNtz",             K::kReaderWriter, 0, 0,    y,   y,    y,   kNoDataRules},
    {"domainMetadata",           K::kWriterOnly,   0, 0,    y,   y,    y,   kNoDataRules},
    {"v2Checkpoint",             K::kReaderWriter, 0, 0,    y,   y,    n,   kNoDataRules},
    {"icebergCompatV1",          K::kWriterOnly,   0, 0,    y,   y,    n,   kNoDataRules},
    {"icebergCompatV2",          K::kWriterOnly,   0, 0,    y,   y,    n,   kNoDataRules},
    {"clustering",               K::kWriterOnly,   0, 0,    y,   y,    y,   kNoDataRules},
    {"vacuumProtocolCheck",      K::kReaderWriter, 0, 0,    y,   y,    n,   kNoDataRules},
    {"inCommitTimestamp",        K::kWriterOnly,   0, 0,    y,   y,    y,   kNoDataRules},
    {"checkpointProtection",     K::kWriterOnly,   0, 0,    y,   y,    n,   kNoDataRules},
    // Read, but lithify's writers do not put partition values into the data files.
    {"materializePartitionColumns", K::kWriterOnly, 0, 0,   y,   n,    n,   kNoDataRules},
    // Known to CREATE/ALTER's protocol arithmetic only: lithify reads and writes none of
    // them (new types, type changes, commits through a catalog).
    {"typeWidening",             K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
    {"typeWidening-preview",     K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
    {"variantType",              K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
    {"variantType-preview",      K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
    {"variantShredding",         K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
    {"catalogManaged",           K::kReaderWriter, 0, 0,    n,   n,    n,   kNoDataRules},
};

}  // namespace

bool TableFeature::constrains_data() const {
  return std::any_of(verdicts.begin(), verdicts.end(), [](V v) { return v != V::kAllowed; });
}

std::span<const TableFeature> KnownTableFeatures() { return kTableFeatures; }

const TableFeature* FindTableFeature(std::string_view name) {
  for (const TableFeature& f : kTableFeatures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const TableFeature* FindSettableFeature(std::string_view name) {
  const std::string lower = AsciiLower(name);
  for (const TableFeature& f : kTableFeatures) {
    if (f.settable && AsciiLower(f.name) == lower) return &f;
  }
  return nullptr;
}

bool IsReadableFeature(std::string_view name) {
  const TableFeature* f = FindTableFeature(name);
  return f != nullptr && f->readable;
}

bool IsWritableFeature(std::string_view name) {
  const TableFeature* f = FindTableFeature(name);
  return f != nullptr && f->writable;
}

}  // namespace lithify::delta
