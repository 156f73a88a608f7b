// The table formats behind the seam: one place that knows every format and opens a
// table by what its location holds (table_format.h), returning the format-neutral
// interfaces the generic commands are written against. Nothing in this header names a
// format's own types, so a command that includes it stays format-neutral
// (scripts/check_boundaries.sh keeps it so).
//
//   OpenTableScan      a table version prepared for a scan (table/table_scan.h): Delta's
//                      (delta/table_scan.h) or Iceberg's (iceberg/table_scan.h).
//   OpenRewriteTarget  a table version as OPTIMIZE / REORG / clustering see it
//                      (exec/rewrite_target.h): Delta's (delta/rewrite_target.h). An
//                      Iceberg table is NotSupported until Iceberg's rewrite lands.
//
// OpenRewriteTarget tries Delta first, without a format probe: its load lists
// _delta_log/ anyway, so a Delta table costs no request more than before the seam
// (commands_counting_test); only a location without a Delta log is asked whether it is an
// Iceberg table. A location that is neither gets Delta's error.
//
// Library lithify_formats, above delta, delta_exec and iceberg; below commands.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/exec/rewrite_target.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/commit_intent.h"
#include "lithify/table/table_scan.h"

namespace lithify::formats {

// Opens the version `request` selects at `location` (a table folder; for Iceberg also a
// metadata file) for a scan. Errors: the format's (load, snapshot selection, "predicate: "
// and "columns: " InvalidArgument for mistakes in the request).
// `format`: the format when the caller knows it already (the CLI detects it to refuse the
// other format's flags); unset, the location is probed (DetectTableFormat) and a location
// that is neither format gets Delta's error.
Result<std::unique_ptr<table::TableScan>> OpenTableScan(io::FileSystem* fs, const std::string& location,
                                                        const table::ScanRequest& request,
                                                        std::optional<TableFormat> format = std::nullopt);

// Opens version `version` (latest when unset) of the table at `root` for `request`
// (its --where bound against the table). Errors: the format's (the table's load, a bad
// predicate prefixed "predicate: "); NotFound naming the location when it holds no
// table; NotSupported naming the format when lithify cannot rewrite it.
Result<std::unique_ptr<exec::RewriteTarget>> OpenRewriteTarget(io::FileSystem* fs, const std::string& root,
                                                               std::optional<int64_t> version,
                                                               const exec::RewriteRequest& request,
                                                               table::CommitOptions commit = {});

}  // namespace lithify::formats
