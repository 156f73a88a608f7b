// Delta's maintenance policy: the rules the format-neutral planners (planner/) are given
// for a Delta table (planner::TablePolicy, planner/policy.h), and the Delta names they
// come with (ZCube tags, clustering provider, property names, defaults).
//
// Rules (delta-maintenance-facts.md §1.3, §4.4, §9):
//  - Compaction candidate: size < minFileSize, OR a deletion vector without numRecords
//    (its ratio is unknown), OR deleted/physical rows > maxDeletedRowsRatio; strict < and
//    >. Others: REORG PURGE "no_deleted_rows"; else "too_few_deleted_rows" with a DV,
//    "too_large" without.
//  - Target size property: delta.targetFileSize.
//  - Cubes: the file's ZCUBE_ID tag, its ZCUBE_ZORDER_BY tag (a JSON array of logical
//    column names); a file whose clusteringProvider is set and not "liquid" belongs to
//    another provider.
//  - VACUUM hidden paths: a component starting with '_' or '.', except names starting
//    with `_delta_index`, `_change_data` or `<partitionColumn>=`; on UniForm-Iceberg
//    tables also `metadata`.
//  - VACUUM retention: DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE for a negative retention,
//    DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT for one below the table's
//    delta.deletedFileRetentionDuration while the check is enabled.
//
// Pure and thread-safe; a policy object holds only what it was constructed with.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/planner/policy.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {

// AddFile tags of liquid clustering's outputs.
inline constexpr char kZCubeIdTag[] = "ZCUBE_ID";
inline constexpr char kZCubeZOrderByTag[] = "ZCUBE_ZORDER_BY";
// Declared by Delta but never written; Delta clears it with the other two.
inline constexpr char kZCubeZOrderCurveTag[] = "ZCUBE_ZORDER_CURVE";
// AddFile.clusteringProvider of liquid clustering's outputs.
inline constexpr char kLiquidClusteringProvider[] = "liquid";

// Table properties the maintenance commands read.
// (Named once in table_properties.h; these are the planner-facing spellings.)
inline constexpr const char* kTargetFileSizeProperty = prop::kTargetFileSize.name.data();
inline constexpr const char* kDeletedFileRetentionProperty = prop::kDeletedFileRetentionDuration.name.data();
inline constexpr const char* kUniversalFormatProperty = prop::kUniversalFormatEnabledFormats.name.data();
// delta.deletedFileRetentionDuration's default (prop::kDeletedFileRetentionDuration's
// "interval 1 week") in ms.
inline constexpr int64_t kDefaultDeletedFileRetentionMs = int64_t{7} * 24 * 3600 * 1000;

// The ZCUBE_ZORDER_BY tag value for logical column names: compact JSON array text, e.g.
// ["a","b"] (what Delta's JsonUtils writes for a Seq[String]).
std::string ZCubeZOrderByValue(const std::vector<std::string>& logical_columns);
// Inverse: InvalidArgument unless `value` is a JSON array of strings.
Result<std::vector<std::string>> ParseZCubeZOrderBy(std::string_view value);

class DeltaMaintenancePolicy final : public planner::TablePolicy {
 public:
  // `uniform_iceberg`: the table also carries Iceberg metadata (UniForm), whose
  // `metadata` directory VACUUM must then leave alone.
  explicit DeltaMaintenancePolicy(bool uniform_iceberg = false) : uniform_iceberg_(uniform_iceberg) {}

  // The policy for a table with these properties (reads kUniversalFormatProperty).
  static DeltaMaintenancePolicy ForProperties(const std::map<std::string, std::string>& properties);

  std::optional<planner::FileVerdict> CompactionVerdict(
      const table::FileEntry& file, const planner::CandidateThresholds& t) const override;
  std::string_view TargetFileSizeProperty() const override { return kTargetFileSizeProperty; }
  const std::string* CubeId(const table::FileEntry& file) const override;
  const std::string* CubeColumnsText(const table::FileEntry& file) const override;
  Result<std::vector<std::string>> ParseCubeColumns(std::string_view text) const override;
  std::string_view CubeColumnsName() const override { return kZCubeZOrderByTag; }
  bool ClusteredByOtherProvider(const table::FileEntry& file) const override;
  std::string CubeColumnsValue(const std::vector<std::string>& columns) const override {
    return ZCubeZOrderByValue(columns);
  }
  void MarkCubeMember(table::FileEntry* file, const std::string& cube_id,
                      const std::string& columns_text) const override;
  bool IsHiddenName(std::string_view name,
                    const std::vector<std::string>& partition_columns) const override;
  Status CheckVacuumRetention(const planner::VacuumOptions& options) const override;

 private:
  bool uniform_iceberg_;
};

// The policy of a Delta table without UniForm (one shared instance): what planning other
// than VACUUM uses.
const DeltaMaintenancePolicy& DeltaPolicy();

}  // namespace lithify::delta
