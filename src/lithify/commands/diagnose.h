// Diagnose: what is wrong with a table's layout, why, and what to do about it, for a
// table of any format. The format answers in its own document (formats/diagnose.h):
// Delta's layout facts, what OPTIMIZE and auto compaction would do, clustering,
// deletion vectors and tombstones (delta/diagnose.h); Iceberg's small files, delete
// files and snapshots awaiting expiry (iceberg/diagnose.h). Findings are numbered most
// important first and carry stable codes (docs/diagnose.md). Reads metadata only, never
// a data file. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

struct DiagnoseOptions {
  int64_t now_ms = 0;                       // the clock; 0 = the system clock (tests inject)
  std::optional<int64_t> target_file_size;  // as `optimize --target-file-size`
  bool autotune = false;                    // Delta: as `optimize --autotune`
  std::optional<int64_t> min_cube_size;     // Delta's liquid clustering (default 100 GiB)
  std::optional<int64_t> target_cube_size;  // (default 150 GiB, at least min_cube_size)
  std::vector<std::string> location_map;    // Iceberg: "FROM=TO" rewrites of recorded paths
  // The table's format when the caller knows it (else the location is probed).
  std::optional<formats::TableFormat> format;
};

struct TableDiagnosis {
  formats::TableFormat format = formats::TableFormat::kDelta;
  nlohmann::ordered_json document;  // the format's: table, layout facts, findings
};

// Errors: the format's (NotFound for a path that is no table, Corruption, ...);
// InvalidArgument for a Delta-only option on an Iceberg table.
Result<TableDiagnosis> DiagnoseTable(io::FileSystem* fs, const std::string& location,
                                     const DiagnoseOptions& options);

}  // namespace lithify::commands
