#include "lithify/formats/vacuum.h"

#include "lithify/delta/vacuum.h"

namespace lithify::formats {

namespace {

Status IcebergRefused(const std::string& root) {
  return Status::NotSupported("{}: VACUUM is Delta's; Apache Iceberg tables are cleaned by snapshot expiry and "
                              "orphan-file removal (expire-snapshots, remove-orphans), which lithify does not "
                              "implement yet. Nothing was deleted",
                              root);
}

}  // namespace

Result<planner::VacuumResult> Vacuum(io::FileSystem* fs, const std::string& root, const planner::VacuumSpec& spec,
                                     std::optional<TableFormat> format) {
  if (format == TableFormat::kIceberg) return IcebergRefused(root);
  Result<planner::VacuumResult> r = delta::Vacuum(fs, root, spec);
  if (format || r.ok() || !HoldsIcebergInstead(fs, root, r.status())) return r;
  return IcebergRefused(root);
}

}  // namespace lithify::formats
