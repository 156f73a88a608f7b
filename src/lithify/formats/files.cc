#include "lithify/formats/files.h"

#include "lithify/base/macros.h"
#include "lithify/delta/files_report.h"
#include "lithify/iceberg/files_report.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::formats {

Result<nlohmann::ordered_json> ListFiles(io::FileSystem* fs, const std::string& location, const FilesRequest& request,
                                         TableFormat format) {
  if (format == TableFormat::kIceberg) {
    LITHIFY_ASSIGN_OR_RETURN(iceberg::FilesReport r,
                             iceberg::ListFiles(fs, location, iceberg::SnapshotSelectorOf(request.version),
                                                request.location_map, request.where));
    return iceberg::FilesReportToJson(r);
  }
  LITHIFY_ASSIGN_OR_RETURN(delta::FilesReport r, delta::ListFiles(fs, location, {request.version, request.where}));
  return delta::FilesReportToJson(r);
}

}  // namespace lithify::formats
