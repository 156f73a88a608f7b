#include "lithify/commands/diagnose.h"

#include "lithify/base/macros.h"
#include "lithify/formats/diagnose.h"

namespace lithify::commands {

Result<TableDiagnosis> DiagnoseTable(io::FileSystem* fs, const std::string& location,
                                     const DiagnoseOptions& options) {
  TableDiagnosis out;
  LITHIFY_ASSIGN_OR_RETURN(out.format, formats::FormatOf(fs, location, options.format));
  formats::DiagnoseRequest request;
  request.now_ms = options.now_ms;
  request.target_file_size = options.target_file_size;
  request.autotune = options.autotune;
  request.min_cube_size = options.min_cube_size;
  request.target_cube_size = options.target_cube_size;
  request.location_map = options.location_map;
  LITHIFY_ASSIGN_OR_RETURN(out.document, formats::Diagnose(fs, location, request, out.format));
  return out;
}

}  // namespace lithify::commands
