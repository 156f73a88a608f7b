#include "lithify/delta/table_properties.h"

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

}  // namespace lithify::delta
