// Vacuum: deletes the files of a table that no version within the retention window
// needs. The format runs it (formats/vacuum.h): Delta's VACUUM with Delta's rules
// (delta/vacuum.h says how: retention, LITE and FULL, the foreign-files guard, the
// guard rails, VACUUM START / END); an Apache Iceberg table is refused by name, nothing
// listed or deleted (its counterparts, snapshot expiry and orphan removal, are not
// implemented yet). The request and the report are format-neutral
// (planner/vacuum_report.h). Stateless; safe to call concurrently with readers and
// writers of the table (a file written after the horizon is never deleted).
#pragma once

#include <optional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/formats/vacuum.h"
#include "lithify/planner/vacuum_report.h"

namespace lithify::commands {

using planner::VacuumProtected;
using planner::VacuumResult;
using planner::VacuumSpec;

// Vacuum(fs, root, spec, format = unset): `format` when the caller knows it. Errors: the
// format's (Delta's: see delta/vacuum.h's Vacuum); NotSupported for an Iceberg table.
using formats::Vacuum;

}  // namespace lithify::commands
