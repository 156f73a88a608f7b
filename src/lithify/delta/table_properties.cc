#include "lithify/delta/table_properties.h"

#include "lithify/base/macros.h"
#include "lithify/base/text.h"

namespace lithify::delta {
namespace {

bool IEquals(std::string_view a, std::string_view b) { return AsciiLower(a) == AsciiLower(b); }

// CREATE/ALTER's list, in the order its "lithify knows: ..." message names them.
constexpr TableProperty kTableProperties[] = {
    prop::kAppendOnly,
    prop::kAutoOptimize,
    prop::kAutoCompact,
    prop::kOptimizeWrite,
    prop::kCheckpointInterval,
    prop::kCheckpointPolicy,
    prop::kColumnMappingMode,
    prop::kDataSkippingNumIndexedCols,
    prop::kDataSkippingStatsColumns,
    prop::kDeletedFileRetentionDuration,
    prop::kEnableChangeDataFeed,
    prop::kEnableDeletionVectors,
    prop::kEnableInCommitTimestamps,
    prop::kEnableRowTracking,
    prop::kIsolationLevel,
    prop::kLogRetentionDuration,
    prop::kRandomizeFilePrefixes,
    prop::kRandomPrefixLength,
    prop::kTargetFileSize,
    prop::kTuneFileSizesForRewrites,
    prop::kColumnMappingMaxColumnId,
    prop::kMaterializedRowIdColumnName,
    prop::kMaterializedRowCommitVersionColumnName,
    prop::kInCommitTimestampEnablementVersion,
    prop::kInCommitTimestampEnablementTimestamp,
};

}  // namespace

std::span<const TableProperty> KnownTableProperties() { return kTableProperties; }

const TableProperty* FindTableProperty(std::string_view name) {
  for (const auto& p : kTableProperties) {
    if (IEquals(p.name, name)) return &p;
  }
  return nullptr;
}

const std::string* FindProperty(const TableConfig& config, const TableProperty& p) {
  auto it = config.find(p.key());
  return it == config.end() ? nullptr : &it->second;
}

std::string PropertyOr(const TableConfig& config, const TableProperty& p) {
  const std::string* v = FindProperty(config, p);
  return v != nullptr ? *v : std::string(p.default_value);
}

bool IsExactlyTrue(const TableConfig& config, const TableProperty& p) {
  const std::string* v = FindProperty(config, p);
  return v != nullptr && *v == "true";
}

bool IsTrueIgnoringCase(const TableConfig& config, const TableProperty& p) {
  const std::string* v = FindProperty(config, p);
  return v != nullptr && AsciiLower(*v) == "true";
}

Result<AutoCompactSwitch> ResolveAutoCompactSwitch(const TableConfig& props) {
  // The legacy switch wins when it says true (Delta's precedence).
  const std::string legacy(prop::kAutoOptimize.name), name(prop::kAutoCompact.name);
  if (auto it = props.find(legacy); it != props.end() && AsciiLower(it->second) == "true") {
    return AutoCompactSwitch{true, legacy};
  }
  auto it = props.find(name);
  if (it == props.end()) return AutoCompactSwitch{false, "default"};
  const std::string v = AsciiLower(it->second);
  if (v == "true" || v == "false") return AutoCompactSwitch{v == "true", name};
  return Status::InvalidArgument(
      "DELTA_INVALID_AUTO_COMPACT_TYPE: invalid value '{}' for table property delta.autoOptimize.autoCompact "
      "(allowed: true, false)",
      it->second);
}

Result<bool> AutoCompactEnabled(const TableConfig& props) {
  LITHIFY_ASSIGN_OR_RETURN(AutoCompactSwitch sw, ResolveAutoCompactSwitch(props));
  return sw.enabled;
}

}  // namespace lithify::delta
