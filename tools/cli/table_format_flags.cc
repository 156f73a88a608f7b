#include "tools/cli/table_format_flags.h"

#include "lithify/base/macros.h"
#include "tools/cli/cli.h"

namespace lithify::cli {

void AddIcebergFlags(CLI::App* cmd, IcebergFlags* f, bool with_snapshot) {
  cmd->add_option("--location-map", f->location_map,
                  "Iceberg: read a location the metadata records (FROM) at another place (TO); repeatable, FROM=TO");
  if (!with_snapshot) return;
  cmd->add_option("--snapshot-id", f->snapshot_id, "Iceberg: read this snapshot (time travel)");
  cmd->add_option("--ref", f->ref, "Iceberg: read the snapshot of this branch or tag");
}

void ReadIcebergFlags(CLI::App* cmd, IcebergFlags* f) {
  auto given = [cmd](const char* name) {
    return cmd->get_option_no_throw(name) != nullptr && cmd->count(name) > 0;
  };
  f->snapshot_given = given("--snapshot-id");
  f->ref_given = given("--ref");
}

Result<formats::TableFormat> DetectFormat(const OpenedLocation& loc, const IcebergFlags& f,
                                           bool delta_version_given) {
  LITHIFY_ASSIGN_OR_RETURN(formats::TableFormat format, formats::DetectTableFormat(loc.fs(), loc.path()));
  if (format == formats::TableFormat::kDelta) {
    if (f.snapshot_given) return UsageError("--snapshot-id is for Iceberg tables; this is a Delta table: use --version");
    if (f.ref_given) return UsageError("--ref is for Iceberg tables; this is a Delta table: use --version");
    if (!f.location_map.empty()) return UsageError("--location-map is for Iceberg tables; this is a Delta table");
  } else if (delta_version_given) {
    return UsageError("--version is for Delta tables; this is an Iceberg table: use --snapshot-id, --ref or --timestamp");
  }
  return format;
}

Result<table::VersionSelector> IcebergSelector(const IcebergFlags& f, std::optional<int64_t> timestamp_ms) {
  const int given = (f.snapshot_given ? 1 : 0) + (f.ref_given ? 1 : 0) + (timestamp_ms ? 1 : 0);
  if (given > 1) return UsageError("--snapshot-id, --ref and --timestamp cannot be used together");
  if (f.snapshot_given) return table::VersionSelector::AtVersion(f.snapshot_id);
  if (f.ref_given) {
    if (f.ref.empty()) return UsageError("--ref must name a branch or tag");
    return table::VersionSelector::Ref(f.ref);
  }
  if (timestamp_ms) return table::VersionSelector::AtTimestamp(*timestamp_ms);
  return table::VersionSelector::Latest();
}

}  // namespace lithify::cli
