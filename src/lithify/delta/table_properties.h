// Delta table properties (`delta.*` keys of Metadata.configuration): each named once
// with its type and its default, so that adding a property or changing a default is
// one edit here.
//
// Contract:
//  - kTableProperties lists every property a user may set with lithify's CREATE/ALTER
//    (ValidateTableProperty, ddl.h, checks each value with the parser of the code that
//    reads it) plus the properties lithify manages itself (type kManaged: never set by a
//    user). Properties lithify only reads (kRowTrackingSuspended,
//    kUniversalFormatEnabledFormats) have their own constants and are not in the list,
//    so CREATE/ALTER keeps refusing them as unknown.
//  - `default_value` is the value a reader assumes when the key is absent, as text in the
//    property's own syntax; empty when there is no fixed default (e.g. the target file
//    size, which is autotuned).
//  - The parsers by type: kBool "true"/"false" (see IsExactlyTrue / IsTrueIgnoringCase:
//    lithify's readers differ and each keeps its behaviour), kInt decimal in [min, max],
//    kInterval ParseIntervalMs (checkpoint_writer.h), kSize ParseByteSize
//    (base/byte_size.h), kColumnList ParseStatsColumns and kInt
//    delta.dataSkippingNumIndexedCols ParseNumIndexedCols (stats_writer.h).
//
// Pure data and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "lithify/base/result.h"

namespace lithify::delta {

enum class PropertyType {
  kBool, kInt, kInterval, kSize, kIsolation, kMappingMode, kColumnList, kCheckpointPolicy, kManaged
};

struct TableProperty {
  std::string_view name;
  PropertyType type;
  std::string_view default_value;
  int64_t min = 0;                                     // kInt
  int64_t max = std::numeric_limits<int32_t>::max();  // kInt: Delta reads them with toInt

  std::string key() const { return std::string(name); }
};

namespace prop {
using T = PropertyType;
inline constexpr TableProperty kAppendOnly{"delta.appendOnly", T::kBool, "false"};
// The legacy auto-compaction switch: when "true" it wins over kAutoCompact.
inline constexpr TableProperty kAutoOptimize{"delta.autoOptimize", T::kBool, "false"};
inline constexpr TableProperty kAutoCompact{"delta.autoOptimize.autoCompact", T::kBool, "false"};
inline constexpr TableProperty kOptimizeWrite{"delta.autoOptimize.optimizeWrite", T::kBool, "false"};
inline constexpr TableProperty kCheckpointInterval{"delta.checkpointInterval", T::kInt, "10", 1};
inline constexpr TableProperty kCheckpointPolicy{"delta.checkpointPolicy", T::kCheckpointPolicy, "classic"};
inline constexpr TableProperty kColumnMappingMode{"delta.columnMapping.mode", T::kMappingMode, "none"};
inline constexpr TableProperty kDataSkippingNumIndexedCols{"delta.dataSkippingNumIndexedCols", T::kInt, "32", -1};
inline constexpr TableProperty kDataSkippingStatsColumns{"delta.dataSkippingStatsColumns", T::kColumnList, ""};
inline constexpr TableProperty kDeletedFileRetentionDuration{"delta.deletedFileRetentionDuration", T::kInterval,
                                                             "interval 1 week"};
inline constexpr TableProperty kEnableChangeDataFeed{"delta.enableChangeDataFeed", T::kBool, "false"};
inline constexpr TableProperty kEnableDeletionVectors{"delta.enableDeletionVectors", T::kBool, "false"};
inline constexpr TableProperty kEnableInCommitTimestamps{"delta.enableInCommitTimestamps", T::kBool, "false"};
inline constexpr TableProperty kEnableRowTracking{"delta.enableRowTracking", T::kBool, "false"};
// The only level Delta tables accept is Serializable; lithify assumes no default.
inline constexpr TableProperty kIsolationLevel{"delta.isolationLevel", T::kIsolation, ""};
inline constexpr TableProperty kLogRetentionDuration{"delta.logRetentionDuration", T::kInterval, "interval 30 days"};
inline constexpr TableProperty kRandomizeFilePrefixes{"delta.randomizeFilePrefixes", T::kBool, "false"};
inline constexpr TableProperty kRandomPrefixLength{"delta.randomPrefixLength", T::kInt, "2", 1};
// No fixed default: OPTIMIZE autotunes the target when absent.
inline constexpr TableProperty kTargetFileSize{"delta.targetFileSize", T::kSize, ""};
inline constexpr TableProperty kTuneFileSizesForRewrites{"delta.tuneFileSizesForRewrites", T::kBool, ""};
// Written by lithify itself; users may not set or unset them.
inline constexpr TableProperty kColumnMappingMaxColumnId{"delta.columnMapping.maxColumnId", T::kManaged, ""};
inline constexpr TableProperty kMaterializedRowIdColumnName{"delta.rowTracking.materializedRowIdColumnName",
                                                            T::kManaged, ""};
inline constexpr TableProperty kMaterializedRowCommitVersionColumnName{
    "delta.rowTracking.materializedRowCommitVersionColumnName", T::kManaged, ""};
inline constexpr TableProperty kInCommitTimestampEnablementVersion{"delta.inCommitTimestampEnablementVersion",
                                                                   T::kManaged, ""};
inline constexpr TableProperty kInCommitTimestampEnablementTimestamp{"delta.inCommitTimestampEnablementTimestamp",
                                                                     T::kManaged, ""};

// Read by lithify but not settable through its CREATE/ALTER (not in kTableProperties).
inline constexpr TableProperty kRowTrackingSuspended{"delta.rowTrackingSuspended", T::kBool, "false"};
inline constexpr TableProperty kUniversalFormatEnabledFormats{"delta.universalFormat.enabledFormats",
                                                              T::kManaged, ""};
}  // namespace prop

// Every property CREATE/ALTER knows (settable ones, then the managed ones).
std::span<const TableProperty> KnownTableProperties();
// The known property named `name`, compared ASCII case-insensitively; nullptr if none.
const TableProperty* FindTableProperty(std::string_view name);

// Key prefixes that are not single properties.
inline constexpr std::string_view kConstraintPrefix = "delta.constraints.";  // CHECK constraints
inline constexpr std::string_view kFeaturePrefix = "delta.feature.";          // delta.feature.<name>

using TableConfig = std::map<std::string, std::string>;

// The value set for `p`, or nullptr when absent.
const std::string* FindProperty(const TableConfig& config, const TableProperty& p);
// The value set for `p`, else its default_value.
std::string PropertyOr(const TableConfig& config, const TableProperty& p);
// True iff `p` is set to exactly "true" (how Delta writers store it; the protocol-level
// readers -- ddl, transaction, snapshot -- use this form).
bool IsExactlyTrue(const TableConfig& config, const TableProperty& p);
// True iff `p` is set to "true" in any ASCII case (the command-level readers: write
// gate, delete, bin outputs).
bool IsTrueIgnoringCase(const TableConfig& config, const TableProperty& p);

// Whether table properties enable auto compaction, with Delta's precedence (without the
// session layer): delta.autoOptimize = true (legacy, any case) enables; else
// delta.autoOptimize.autoCompact = true / false (any case); absent = disabled. `source`
// names the property that decided: "delta.autoOptimize", "delta.autoOptimize.autoCompact"
// or "default".
struct AutoCompactSwitch {
  bool enabled = false;
  std::string source;
};
// InvalidArgument "DELTA_INVALID_AUTO_COMPACT_TYPE: ..." for any other value of
// delta.autoOptimize.autoCompact.
Result<AutoCompactSwitch> ResolveAutoCompactSwitch(const TableConfig& table_properties);
Result<bool> AutoCompactEnabled(const TableConfig& table_properties);

}  // namespace lithify::delta
