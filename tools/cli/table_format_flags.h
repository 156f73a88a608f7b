// The flags that choose what an Iceberg table read sees (--snapshot-id, --ref,
// --location-map), and the format detection every read-side command runs first.
//
// Delta and Iceberg tables are told apart by what the location holds
// (formats::DetectTableFormat); the Iceberg-only flags on a Delta table, and Delta's
// --version on an Iceberg table, are usage errors that say which flag fits instead.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/formats/table_format.h"
#include "lithify/table/version_selector.h"
#include "tools/cli/storage.h"

namespace lithify::cli {

struct IcebergFlags {
  std::vector<std::string> location_map;
  int64_t snapshot_id = 0;
  bool snapshot_given = false;
  std::string ref;
  bool ref_given = false;
};

// Adds --location-map (always) and, with `with_snapshot`, --snapshot-id and --ref.
void AddIcebergFlags(CLI::App* cmd, IcebergFlags* f, bool with_snapshot);
// Call from the subcommand's callback: records which flags were given.
void ReadIcebergFlags(CLI::App* cmd, IcebergFlags* f);

// Detects the format of the opened location and refuses flags of the other format.
// `delta_version_given`: Delta's --version was given. `timestamp_given` is allowed for
// both.
Result<formats::TableFormat> DetectFormat(const OpenedLocation& loc, const IcebergFlags& f,
                                           bool delta_version_given);

// The snapshot the flags select (a version = a snapshot id; iceberg::SnapshotSelectorOf
// turns it into Iceberg's selector); `timestamp_ms` from --timestamp.
Result<table::VersionSelector> IcebergSelector(const IcebergFlags& f, std::optional<int64_t> timestamp_ms);

}  // namespace lithify::cli
