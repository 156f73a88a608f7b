#include "lithify/formats/open_table.h"

#include <utility>

#include "lithify/base/macros.h"
#include "lithify/delta/rewrite_target.h"
#include "lithify/delta/table_scan.h"
#include "lithify/formats/table_format.h"
#include "lithify/iceberg/table_scan.h"

namespace lithify::formats {

Result<std::unique_ptr<table::TableScan>> OpenTableScan(io::FileSystem* fs, const std::string& location,
                                                        const table::ScanRequest& request,
                                                        std::optional<TableFormat> format) {
  if (!format) {
    // A request may name what only Iceberg has (a ref, a location map), which Delta's
    // open would refuse before finding no log: probe first.
    Result<TableFormat> found = DetectTableFormat(fs, location);
    format = found.ok() ? *found : TableFormat::kDelta;
  }
  if (*format == TableFormat::kIceberg) return iceberg::OpenIcebergTableScan(fs, location, request);
  return delta::OpenDeltaTableScan(fs, location, request);
}

Result<std::unique_ptr<exec::RewriteTarget>> OpenRewriteTarget(io::FileSystem* fs, const std::string& root,
                                                               std::optional<int64_t> version,
                                                               const exec::RewriteRequest& request,
                                                               table::CommitOptions commit) {
  // Delta first, without a format probe (see the header); only a location without a
  // Delta log is asked whether it holds an Iceberg table.
  Result<std::unique_ptr<exec::RewriteTarget>> opened =
      delta::OpenDeltaRewriteTarget(fs, root, version, request, std::move(commit));
  if (opened.ok() || !HoldsIcebergInstead(fs, root, opened.status())) return opened;
  return Status::NotSupported("{}: {} of Apache Iceberg tables is not implemented yet (lithify reads them: scan, "
                              "files, describe, diagnose)",
                              root, request.operation);
}

}  // namespace lithify::formats
