// A table format's maintenance policy (planner::TablePolicy: candidate rules, property
// names, cube marks, VACUUM's hidden paths) for callers that plan without opening a
// table: the simulator. Commands that open a table get it from their format's
// RewriteTarget instead. Thread-safe (the policies are immutable).
#pragma once

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/planner/policy.h"

namespace lithify::formats {

// Delta's policy (a table without UniForm); NotSupported for Iceberg, whose maintenance
// is not implemented yet. The policy lives as long as the process.
Result<const planner::TablePolicy*> MaintenancePolicy(TableFormat format);

}  // namespace lithify::formats
