// `diagnose` for a table of any format: what is wrong with its layout, why, and what to
// do, as the format's document (Delta's: delta/diagnose.h, Iceberg's: iceberg/diagnose.h;
// the finding codes are listed in docs/diagnose.md). Metadata only, never a data file.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/io/filesystem.h"

namespace lithify::formats {

struct DiagnoseRequest {
  int64_t now_ms = 0;                       // the clock; 0 = the system clock (tests inject)
  std::optional<int64_t> target_file_size;  // unset: the table's property, else its format's default
  bool autotune = false;                    // Delta: as `optimize --autotune`
  // Delta's liquid clustering: a ZCube is sealed at or above min_cube_size (unset:
  // Delta's 100 GiB); clustering bins are packed to target_cube_size (unset: 150 GiB,
  // or min_cube_size when that is larger).
  std::optional<int64_t> min_cube_size;
  std::optional<int64_t> target_cube_size;
  std::vector<std::string> location_map;  // Iceberg: "FROM=TO" rewrites of recorded paths
};

// Both documents carry table, summary-like layout facts and `findings` (code, severity,
// title, detail, recommendation, ...). A Delta-only request (autotune, cube sizes) on an
// Iceberg table is InvalidArgument. Errors: the format's.
Result<nlohmann::ordered_json> Diagnose(io::FileSystem* fs, const std::string& location,
                                        const DiagnoseRequest& request, TableFormat format);

}  // namespace lithify::formats
