// VACUUM for a table of any format: Delta's (delta/vacuum.h) deletes the files no version
// within the retention needs. Apache Iceberg has no VACUUM: its counterparts are snapshot
// expiry and orphan-file removal, which lithify does not implement yet, so an Iceberg
// table is refused by name (NotSupported) before anything is listed or deleted.
// Stateless; safe to call concurrently with readers and writers of the table.
#pragma once

#include <optional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/vacuum_report.h"

namespace lithify::formats {

// `format` unset: Delta is tried first, with no format probe (the storage requests of a
// Delta run stay what they were); only a location without a Delta log is asked whether
// it holds an Iceberg table. Errors: Delta's VACUUM's; NotSupported for Iceberg.
Result<planner::VacuumResult> Vacuum(io::FileSystem* fs, const std::string& root, const planner::VacuumSpec& spec,
                                     std::optional<TableFormat> format = std::nullopt);

}  // namespace lithify::formats
