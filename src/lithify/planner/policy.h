// TablePolicy: what a table format decides that the planning mechanism does not.
//
// The planners (compaction.h, clustering.h, vacuum.h, target_size.h) own the mechanism:
// scope, grouping by partition, the bin loop, batches, ZCube bookkeeping, the curves,
// VACUUM's set arithmetic and the decision log. A format's rules come in through this
// interface, which every planning entry point is given:
//   - which files are compaction candidates, and the verdict that explains the others;
//   - the name of the table property that sets the target file size (for the plan's
//     target_size_source and error messages);
//   - how a file records the clustering cube it belongs to (its id and the columns it was
//     clustered by), and whether another clustering provider wrote it;
//   - which path components VACUUM never considers (hidden paths), and the retention
//     horizon check with the format's error names.
// Delta's implementation is delta::DeltaMaintenancePolicy (delta/maintenance_policy.h);
// planner/ itself names no format.
//
// Implementations must be pure (no IO, no clock) and safe to call concurrently: the
// planners call them once or more per file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/plan.h"
#include "lithify/planner/vacuum.h"
#include "lithify/table/file_entry.h"

namespace lithify::planner {

// The thresholds one compaction run resolved for its mode (REORG PURGE already has
// minFileSize 0 and ratio 0 here).
struct CandidateThresholds {
  PlanMode mode = PlanMode::kCompaction;
  int64_t min_file_size = 0;
  double max_deleted_rows_ratio = 0;
};

class TablePolicy {
 public:
  virtual ~TablePolicy() = default;

  // Compaction, REORG PURGE and auto compaction: nullopt when `file` is a candidate
  // under `t`, else the verdict the decision log records for it (kTooLarge,
  // kTooFewDeletedRows, kNoDeletedRows, ...). Files the command forces (must_rewrite)
  // and files outside the scope never reach this.
  virtual std::optional<FileVerdict> CompactionVerdict(const table::FileEntry& file,
                                                       const CandidateThresholds& t) const = 0;

  // The table property that sets the target file size, e.g. "delta.targetFileSize".
  virtual std::string_view TargetFileSizeProperty() const = 0;

  // Clustering cubes. The id of the cube `file` belongs to (nullptr = none), the text
  // that records the columns the cube was clustered by (nullptr = none; kept verbatim in
  // the decision log), and that text parsed (InvalidArgument when malformed).
  virtual const std::string* CubeId(const table::FileEntry& file) const = 0;
  virtual const std::string* CubeColumnsText(const table::FileEntry& file) const = 0;
  virtual Result<std::vector<std::string>> ParseCubeColumns(std::string_view text) const = 0;
  // The name under which the columns text is recorded (for Corruption messages).
  virtual std::string_view CubeColumnsName() const = 0;
  // Whether `file` was clustered by a provider other than the planner's own (such files
  // are left alone by incremental clustering).
  virtual bool ClusteredByOtherProvider(const table::FileEntry& file) const = 0;
  // The columns text a cube clustered by `columns` records (what CubeColumnsText reads
  // back and ParseCubeColumns parses), and the marks a file written into cube `cube_id`
  // carries (Delta: the ZCUBE_ID and ZCUBE_ZORDER_BY tags and the "liquid" clustering
  // provider). The simulator writes its synthetic cubes with them.
  virtual std::string CubeColumnsValue(const std::vector<std::string>& columns) const = 0;
  virtual void MarkCubeMember(table::FileEntry* file, const std::string& cube_id,
                              const std::string& columns_text) const = 0;

  // VACUUM: whether one path component is hidden (never considered, nor anything under
  // it). `partition_columns` are the table's partition column names as they appear in
  // directory names.
  virtual bool IsHiddenName(std::string_view name,
                            const std::vector<std::string>& partition_columns) const = 0;
  // VACUUM's horizon check on a requested retention (options.retention_ms), with the
  // format's error names. OK when no retention was requested.
  virtual Status CheckVacuumRetention(const VacuumOptions& options) const = 0;
};

}  // namespace lithify::planner
