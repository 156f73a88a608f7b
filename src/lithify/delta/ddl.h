// Table creation and alteration, as pure planning: DDL text -> schema, schema -> the
// schemaString JSON, and (spec, snapshot) -> the Protocol / Metadata / DomainMetadata
// actions a CREATE TABLE or ALTER TABLE commit carries. Nothing here does IO; the
// commands layer (commands/create_alter.h) commits the plans through delta::Transaction.
//
// Protocol selection is minimal, as Delta's: (1,2) for a plain table; a legacy protocol
// when every feature the table uses is a legacy one (columnMapping alone: (2,5)); else
// writer version 7 with writerFeatures listing every feature, and reader version 3 with
// readerFeatures listing the reader-writer ones only when there is one (deletionVectors,
// columnMapping, timestampNtz), reader version 1 otherwise (a clustered or row-tracking
// table is (1,7), like Delta's). Features come from properties
// (delta.enableDeletionVectors, delta.enableRowTracking (+domainMetadata),
// delta.enableInCommitTimestamps, delta.columnMapping.mode, delta.appendOnly), from
// clustering (clustering + domainMetadata), from the schema (timestamp_ntz), and from
// explicit `delta.feature.<name>=supported|enabled` properties (which are not stored).
// Protocols are never downgraded: ALTER only adds features, and an upgrade from a legacy
// protocol to table features lists the features the legacy versions implied.
//
// Validation errors are InvalidArgument whose message starts with Delta's error class
// where Delta has one (DELTA_CLUSTER_BY_WITH_PARTITIONED_BY, ...), and names the
// column, property or value. Features lithify cannot honour are NotSupported.
//
// All functions are stateless and thread-safe (UUIDs come from lithify::NewUuid).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/ddl_parser.h"
#include "lithify/delta/schema.h"
#include "lithify/delta/snapshot.h"

namespace lithify::delta {

// Schema DDL: ddl_parser.h; schema JSON (SchemaToJson, SameType): schema.h.

// ---- create ------------------------------------------------------------------------

struct NewTableSpec {
  StructType schema;
  std::vector<std::string> partition_columns;   // top-level column names
  std::vector<std::string> clustering_columns;  // dotted paths for nested fields: "s.x"
  std::map<std::string, std::string> properties;
  std::optional<std::string> name, description;
};

// Protocol + Metadata (+ DomainMetadata "delta.clustering" when clustered), in that
// order. Validations (InvalidArgument unless noted):
//  - duplicate column names (case-insensitive, at any struct level), empty names;
//  - partition columns: unknown, duplicated, non-primitive type, or every column;
//  - DELTA_CLUSTER_BY_WITH_PARTITIONED_BY, DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS (> 4),
//    unknown / duplicated clustering columns, DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED
//    (struct, array, map, variant), DELTA_CLUSTERING_COLUMN_MISSING_STATS (boolean,
//    binary, or outside the first delta.dataSkippingNumIndexedCols leaf columns /
//    delta.dataSkippingStatsColumns);
//  - properties: unknown `delta.` keys, bad values (see ValidateTableProperty), keys
//    lithify manages itself (delta.columnMapping.maxColumnId, delta.rowTracking.*,
//    delta.inCommitTimestampEnablement*); delta.enableChangeDataFeed=true is NotSupported.
// `delta.` keys are matched case-insensitively and stored in Delta's spelling; boolean
// values are stored lower-case. Column mapping (name|id) assigns field metadata
// delta.columnMapping.id (1..n, depth-first) and delta.columnMapping.physicalName
// ("col-<uuid>") and sets delta.columnMapping.maxColumnId; row tracking sets the
// materialized column names. Partition and clustering names are normalized to the
// schema's spelling; the clustering domain holds physical name paths.
Result<std::vector<Action>> PlanCreateTable(const NewTableSpec& spec, int64_t now_ms);

// Operation name and operationParameters of the CREATE TABLE commit.
struct PlannedOperation {
  std::string name;
  nlohmann::json parameters;
};
// {"isManaged":"false","description":null|"...","partitionBy":"[...]","clusterBy":"[...]",
//  "properties":"{...}"}: every value but description a JSON text, as Delta stores it.
// `actions` are PlanCreateTable's result (properties, partition and clustering columns
// come from its Metadata and clustering domain; clusterBy lists dotted logical names).
PlannedOperation CreateTableOperation(const std::vector<Action>& actions);

// ---- alter -------------------------------------------------------------------------

struct AlterSpec {
  std::map<std::string, std::string> set_properties;
  std::vector<std::string> unset_properties;
  // UNSET TBLPROPERTIES IF EXISTS: unsetting a missing key is then a no-op instead of
  // DELTA_UNSET_NON_EXISTENT_PROPERTY. Default false, as in Delta's SQL.
  bool unset_if_exists = false;
  // nullopt: clustering unchanged; an empty vector: CLUSTER BY NONE.
  std::optional<std::vector<std::string>> clustering_columns;
  // Clock for delta.inCommitTimestampEnablementTimestamp (ms since the epoch).
  int64_t now_ms = 0;

  bool empty() const {
    return set_properties.empty() && unset_properties.empty() && !clustering_columns;
  }
};

// New Metadata (when properties change), a Protocol when a feature is newly needed,
// and DomainMetadata "delta.clustering" when clustering changes. Errors:
//  - InvalidArgument: an empty spec; a bad property (as for create);
//    DELTA_UNSET_NON_EXISTENT_PROPERTY; DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED;
//    the clustering-column checks of create; CLUSTER BY NONE on a table that is not
//    clustered;
//  - NotSupported: changing or unsetting delta.columnMapping.mode; enabling row tracking
//    on a table that has files (Delta backfills; lithify does not);
//    delta.enableChangeDataFeed=true; unsetting a key lithify manages.
// Enabling in-commit timestamps records delta.inCommitTimestampEnablementVersion =
// snapshot version + 1 and ...EnablementTimestamp = spec.now_ms; delta::Transaction
// replaces both with the commit's actual version and inCommitTimestamp. Disabling them
// removes both.
Result<std::vector<Action>> PlanAlterTable(const Snapshot& snapshot, const AlterSpec& spec);

// Operation of an alter that changes exactly one kind of thing (only sets, only unsets,
// or only clustering): "SET TBLPROPERTIES" {"properties":"{...}"}, "UNSET TBLPROPERTIES"
// {"properties":"[...]","ifExists":"false"}, "CLUSTER BY" {"oldClusteringColumns":"[...]",
// "newClusteringColumns":"[...]"} (logical names as JSON arrays). InvalidArgument
// otherwise.
Result<PlannedOperation> AlterTableOperation(const Snapshot& snapshot, const AlterSpec& spec);

// ---- helpers shared with the commands ----------------------------------------------

// Checks one property with the parser of the code that reads it, so that a value set
// here never breaks a later command: intervals (delta.deletedFileRetentionDuration,
// delta.logRetentionDuration) with ParseIntervalMs, as VACUUM, checkpoints and diagnose
// read them (months, negative totals and totals that overflow 64-bit microseconds are
// refused: DELTA_INVALID_INTERVAL naming the property and value); delta.targetFileSize
// with ParseByteSize (positive), as OPTIMIZE reads it; delta.dataSkippingNumIndexedCols
// and delta.dataSkippingStatsColumns with the statistics writer's parsers; integers
// within [min, 2^31-1] (Delta reads them as 32-bit ints); booleans true/false;
// delta.isolationLevel only Serializable; delta.columnMapping.mode none|name|id;
// delta.checkpointPolicy classic (v2: NotSupported). InvalidArgument for a bad value or an
// unknown `delta.` key (DELTA_UNKNOWN_CONFIGURATION, as Delta without
// spark.databricks.delta.allowArbitraryProperties: a typo must not be stored silently);
// NotSupported for delta.enableChangeDataFeed=true. Returns the (key, value) as stored
// (Delta's key spelling, lower-case booleans). Keys without the `delta.` prefix pass.
Result<std::pair<std::string, std::string>> ValidateTableProperty(std::string_view key,
                                                                  std::string_view value);

// Logical clustering column paths of a snapshot (from the delta.clustering domain,
// physical names mapped back through the schema); empty when not clustered.
std::vector<std::vector<std::string>> ClusteringColumnsOf(const Snapshot& snapshot);

// The features a protocol supports: its explicit lists, or the ones its legacy versions
// imply. Sorted, unique.
std::vector<std::string> SupportedFeatures(const Protocol& protocol);

}  // namespace lithify::delta
