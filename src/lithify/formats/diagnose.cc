#include "lithify/formats/diagnose.h"

#include <algorithm>

#include "lithify/base/macros.h"
#include "lithify/delta/diagnose.h"
#include "lithify/iceberg/diagnose.h"

namespace lithify::formats {

Result<nlohmann::ordered_json> Diagnose(io::FileSystem* fs, const std::string& location,
                                        const DiagnoseRequest& request, TableFormat format) {
  if (format == TableFormat::kIceberg) {
    if (request.autotune || request.min_cube_size || request.target_cube_size) {
      return Status::InvalidArgument("--min-cube-size and --autotune are for Delta tables; {} is an Iceberg table",
                                     location);
    }
    iceberg::DiagnoseOptions o;
    o.location_map = request.location_map;
    o.now_ms = request.now_ms;
    o.target_file_size = request.target_file_size;
    return iceberg::Diagnose(fs, location, o);
  }
  delta::DiagnoseOptions o;
  o.now_ms = request.now_ms;
  o.target_file_size = request.target_file_size;
  o.autotune = request.autotune;
  if (request.min_cube_size) {
    o.min_cube_size = *request.min_cube_size;
    o.target_cube_size = std::max(o.target_cube_size, o.min_cube_size);  // bins never below a sealed cube
  }
  if (request.target_cube_size) o.target_cube_size = *request.target_cube_size;
  LITHIFY_ASSIGN_OR_RETURN(delta::Diagnosis d, delta::Diagnose(fs, location, o));
  return delta::DiagnosisToJson(d);
}

}  // namespace lithify::formats
