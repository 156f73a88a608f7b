#include "lithify/formats/policy.h"

#include "lithify/delta/maintenance_policy.h"

namespace lithify::formats {

Result<const planner::TablePolicy*> MaintenancePolicy(TableFormat format) {
  if (format == TableFormat::kIceberg) {
    return Status::NotSupported("the maintenance policy of Apache Iceberg tables is not implemented yet");
  }
  return &delta::DeltaPolicy();
}

}  // namespace lithify::formats
