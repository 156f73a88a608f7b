// Which table format a location holds, so that the read-side commands (scan, files,
// describe, diagnose) open Delta and Iceberg tables alike without a flag.
//
// A location is a Delta table when `_delta_log/` holds at least one file; an Iceberg
// table when it names a metadata file (`*.metadata.json`, gzip forms too) or its
// `metadata/` folder holds `version-hint.text` or a `*.metadata.json` file. A folder
// with both (Delta UniForm writes Iceberg metadata beside its log) is Delta: the Delta
// log is the table's source of truth there. Neither is NotFound naming the location and
// what was looked for. At most two bounded listings; no file is read.
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::formats {

enum class TableFormat { kDelta, kIceberg };

std::string_view TableFormatName(TableFormat f);  // "delta", "iceberg"

Result<TableFormat> DetectTableFormat(io::FileSystem* fs, const std::string& location);

// `known` when the caller knows the format (nothing is read), else DetectTableFormat.
Result<TableFormat> FormatOf(io::FileSystem* fs, const std::string& location, std::optional<TableFormat> known);

// For the commands that open Delta first without a probe (their storage requests stay
// Delta's): after that open failed with `delta_error`, whether the location holds an
// Iceberg table instead. Only a NotFound (no Delta log) is looked into.
bool HoldsIcebergInstead(io::FileSystem* fs, const std::string& location, const Status& delta_error);

}  // namespace lithify::formats
