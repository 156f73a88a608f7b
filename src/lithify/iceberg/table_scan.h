// Iceberg's TableScan (table/table_scan.h): an Iceberg snapshot prepared for a scan.
//
//   open     the table (a folder or a metadata file; the location map rewrites recorded
//            paths), the snapshot (current / id / as of a time / ref), its live rows in
//            the current schema (the row-lineage columns only when named, as engines
//            expose them); --columns by exact name; the predicate bound against the
//            output's flat primitive leaves.
//   plan     nothing up front: PlanFiles streams the manifests (delete index first) as
//            the files are read, so memory holds one manifest block, never the file list.
//   read     each planned data file with its deletes through IcebergLiveRows.
//
// A count with no columns still reads one leaf: the live rows come from the deletes,
// which equality deletes apply to values.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/expr/expr.h"
#include "lithify/iceberg/table.h"
#include "lithify/io/filesystem.h"
#include "lithify/parquet/schema.h"
#include "lithify/table/table_scan.h"

namespace lithify::iceberg {

// Opens the table at `location` (a folder or a metadata file) with the "FROM=TO" location
// map. `fs` is borrowed: it must outlive the table. A bad map entry is InvalidArgument.
Result<std::shared_ptr<const IcebergTable>> OpenIcebergTable(io::FileSystem* fs, const std::string& location,
                                                             const std::vector<std::string>& location_map);

// The snapshot a neutral selector names: latest = current, a version = a snapshot id.
SnapshotSelector SnapshotSelectorOf(const table::VersionSelector& v);

// `where` parsed; InvalidArgument prefixed "predicate: ".
Result<expr::Expr> ParseScanPredicate(const std::string& where);

// Whether `where` binds against the output schema `schema` (InvalidArgument prefixed
// "predicate: " when it does not): a scan's binding, for callers that plan without
// reading (files --where).
Status CheckScanPredicate(const parquet::Schema& schema, const std::string& where);

// Errors: the table's and the snapshot's (naming the metadata file, the id or the ref);
// "predicate: " and "columns: " InvalidArgument for mistakes in the request.
Result<std::unique_ptr<table::TableScan>> OpenIcebergTableScan(io::FileSystem* fs, const std::string& location,
                                                               const table::ScanRequest& request);

}  // namespace lithify::iceberg
