// The fields of the Delta log actions, defined once (PROTOCOL.md "Actions", "Deletion
// Vector Descriptor Schema", "Checkpoint Schema"): add, remove and their deletion-vector
// descriptor; metaData and its format; protocol; txn; domainMetadata; checkpointMetadata
// and sidecar (V2 checkpoints). commitInfo is free-form and cdc takes no part in replay:
// their few fields stay in actions.cc.
//
// Up to five pieces of code read or write an action: the JSON parser and writer
// (actions.cc), the fast commit scanner (live_files.cc: add and remove), the checkpoint
// reader (checkpoint_extract.cc) and the checkpoint writer (checkpoint_writer.cc: the
// actions of a classic checkpoint). Each names a field through these tables (its enum
// value indexes the table), so a field's name, its type, whether a JSON action must carry
// it and whether a checkpoint column may hold null are stated here and nowhere else; the
// checkpoint writer's struct columns are built from the tables in their order, which is
// the order of Delta's checkpoint schema.
//
// What the tables do not say stays with each piece of code: defaults of absent optional
// fields (add.dataChange true, modificationTime 0), and checks across fields or of ranges
// (add.size >= 0, a DV's storage type and offset, protocol versions fitting 32 bits).
// constexpr data only; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace lithify::delta::action_fields {

enum class Kind {
  kString,
  kInt32,           // JSON number; checkpoint INT32
  kInt64,           // JSON number; checkpoint INT64
  kBool,
  kPartitionMap,    // {"col": "value" | null}
  kTagMap,          // {"key": "value"}; null values are dropped on reading
  kDeletionVector,  // a struct of kDeletionVectorFields
  kStringList,      // ["a", "b"]
  kFormat,          // a struct of kFormatFields
};

struct Field {
  std::string_view name;
  Kind kind;
  bool json_required;        // a JSON action without it is Corruption
  bool checkpoint_nullable;  // the checkpoint column may hold null
  bool in_checkpoint;        // written to checkpoints (remove rows omit stats)
};

// The action kinds: the key of a JSON action line, the column of a checkpoint.
inline constexpr std::string_view kAddAction = "add";
inline constexpr std::string_view kRemoveAction = "remove";
inline constexpr std::string_view kMetadataAction = "metaData";
inline constexpr std::string_view kProtocolAction = "protocol";
inline constexpr std::string_view kTxnAction = "txn";
inline constexpr std::string_view kDomainMetadataAction = "domainMetadata";
inline constexpr std::string_view kCheckpointMetadataAction = "checkpointMetadata";
inline constexpr std::string_view kSidecarAction = "sidecar";

// Shorthands for the tables below.
constexpr Field Required(std::string_view name, Kind kind, bool checkpoint_nullable = true) {
  return {name, kind, true, checkpoint_nullable, true};
}
constexpr Field Optional(std::string_view name, Kind kind, bool checkpoint_nullable = true) {
  return {name, kind, false, checkpoint_nullable, true};
}

// ---- add ----------------------------------------------------------------------------
enum AddField : int {
  kAddPath,
  kAddPartitionValues,
  kAddSize,
  kAddModificationTime,
  kAddDataChange,
  kAddStats,
  kAddTags,
  kAddDeletionVector,
  kAddBaseRowId,
  kAddDefaultRowCommitVersion,
  kAddClusteringProvider,
  kNumAddFields,
};

inline constexpr std::array<Field, kNumAddFields> kAddFields = {{
    Required("path", Kind::kString),
    Optional("partitionValues", Kind::kPartitionMap),
    Required("size", Kind::kInt64, false),
    Optional("modificationTime", Kind::kInt64, false),
    Optional("dataChange", Kind::kBool, false),
    Optional("stats", Kind::kString),
    Optional("tags", Kind::kTagMap),
    Optional("deletionVector", Kind::kDeletionVector),
    Optional("baseRowId", Kind::kInt64),
    Optional("defaultRowCommitVersion", Kind::kInt64),
    Optional("clusteringProvider", Kind::kString),
}};

// ---- remove -------------------------------------------------------------------------
enum RemoveField : int {
  kRemovePath,
  kRemoveDeletionTimestamp,
  kRemoveDataChange,
  kRemoveExtendedFileMetadata,
  kRemovePartitionValues,
  kRemoveSize,
  kRemoveStats,
  kRemoveTags,
  kRemoveDeletionVector,
  kRemoveBaseRowId,
  kRemoveDefaultRowCommitVersion,
  kNumRemoveFields,
};

inline constexpr std::array<Field, kNumRemoveFields> kRemoveFields = {{
    Required("path", Kind::kString),
    Optional("deletionTimestamp", Kind::kInt64),
    Optional("dataChange", Kind::kBool, false),
    Optional("extendedFileMetadata", Kind::kBool),
    Optional("partitionValues", Kind::kPartitionMap),
    Optional("size", Kind::kInt64),
    {"stats", Kind::kString, false, true, /*in_checkpoint=*/false},
    Optional("tags", Kind::kTagMap),
    Optional("deletionVector", Kind::kDeletionVector),
    Optional("baseRowId", Kind::kInt64),
    Optional("defaultRowCommitVersion", Kind::kInt64),
}};

// ---- the deletion-vector descriptor -------------------------------------------------
enum DvField : int {
  kDvStorageType,
  kDvPathOrInlineDv,
  kDvOffset,
  kDvSizeInBytes,
  kDvCardinality,
  kDvMaxRowIndex,
  kNumDvFields,
};

inline constexpr std::array<Field, kNumDvFields> kDeletionVectorFields = {{
    Required("storageType", Kind::kString),
    Required("pathOrInlineDv", Kind::kString),
    Optional("offset", Kind::kInt32),
    Required("sizeInBytes", Kind::kInt32, false),
    Required("cardinality", Kind::kInt64, false),
    Optional("maxRowIndex", Kind::kInt64),
}};

// ---- metaData and its format --------------------------------------------------------
// schemaString is optional in JSON: some writers (Delta Live Tables) commit a first
// metaData without one and replace it later; Snapshot requires it of the winning one.
enum MetadataField : int {
  kMetadataId,
  kMetadataName,
  kMetadataDescription,
  kMetadataFormat,
  kMetadataSchemaString,
  kMetadataPartitionColumns,
  kMetadataConfiguration,
  kMetadataCreatedTime,
  kNumMetadataFields,
};

inline constexpr std::array<Field, kNumMetadataFields> kMetadataFields = {{
    Required("id", Kind::kString),
    Optional("name", Kind::kString),
    Optional("description", Kind::kString),
    Optional("format", Kind::kFormat),
    Optional("schemaString", Kind::kString),
    Optional("partitionColumns", Kind::kStringList),
    Optional("configuration", Kind::kTagMap),
    Optional("createdTime", Kind::kInt64),
}};

enum FormatField : int { kFormatProvider, kFormatOptions, kNumFormatFields };

inline constexpr std::array<Field, kNumFormatFields> kFormatFields = {{
    Optional("provider", Kind::kString),
    Optional("options", Kind::kTagMap),
}};

// ---- protocol -----------------------------------------------------------------------
enum ProtocolField : int {
  kProtocolMinReaderVersion,
  kProtocolMinWriterVersion,
  kProtocolReaderFeatures,
  kProtocolWriterFeatures,
  kNumProtocolFields,
};

inline constexpr std::array<Field, kNumProtocolFields> kProtocolFields = {{
    Required("minReaderVersion", Kind::kInt32, false),
    Required("minWriterVersion", Kind::kInt32, false),
    Optional("readerFeatures", Kind::kStringList),
    Optional("writerFeatures", Kind::kStringList),
}};

// ---- txn ----------------------------------------------------------------------------
enum TxnField : int { kTxnAppId, kTxnVersion, kTxnLastUpdated, kNumTxnFields };

inline constexpr std::array<Field, kNumTxnFields> kTxnFields = {{
    Required("appId", Kind::kString),
    Required("version", Kind::kInt64, false),
    Optional("lastUpdated", Kind::kInt64),
}};

// ---- domainMetadata -----------------------------------------------------------------
enum DomainMetadataField : int { kDomainDomain, kDomainConfiguration, kDomainRemoved, kNumDomainFields };

inline constexpr std::array<Field, kNumDomainFields> kDomainMetadataFields = {{
    Required("domain", Kind::kString),
    Optional("configuration", Kind::kString),
    Optional("removed", Kind::kBool, false),
}};

// ---- checkpointMetadata and sidecar (V2 checkpoints; lithify writes classic ones) ----
enum CheckpointMetadataField : int { kCheckpointMetadataVersion, kCheckpointMetadataTags, kNumCheckpointMetadataFields };

inline constexpr std::array<Field, kNumCheckpointMetadataFields> kCheckpointMetadataFields = {{
    Required("version", Kind::kInt64, false),
    Optional("tags", Kind::kTagMap),
}};

enum SidecarField : int { kSidecarPath, kSidecarSizeInBytes, kSidecarModificationTime, kSidecarTags, kNumSidecarFields };

inline constexpr std::array<Field, kNumSidecarFields> kSidecarFields = {{
    Required("path", Kind::kString),
    Required("sizeInBytes", Kind::kInt64, false),
    Optional("modificationTime", Kind::kInt64, false),
    Optional("tags", Kind::kTagMap),
}};

constexpr std::string_view Name(AddField f) { return kAddFields[f].name; }
constexpr std::string_view Name(RemoveField f) { return kRemoveFields[f].name; }
constexpr std::string_view Name(DvField f) { return kDeletionVectorFields[f].name; }
constexpr std::string_view Name(MetadataField f) { return kMetadataFields[f].name; }
constexpr std::string_view Name(FormatField f) { return kFormatFields[f].name; }
constexpr std::string_view Name(ProtocolField f) { return kProtocolFields[f].name; }
constexpr std::string_view Name(TxnField f) { return kTxnFields[f].name; }
constexpr std::string_view Name(DomainMetadataField f) { return kDomainMetadataFields[f].name; }
constexpr std::string_view Name(CheckpointMetadataField f) { return kCheckpointMetadataFields[f].name; }
constexpr std::string_view Name(SidecarField f) { return kSidecarFields[f].name; }

// The index of the field named `name` in `fields`, or nullopt.
constexpr std::optional<int> IndexOf(std::span<const Field> fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

// One bit per field that a JSON action must carry (bit i = fields[i]).
constexpr uint32_t JsonRequiredMask(std::span<const Field> fields) {
  uint32_t mask = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].json_required) mask |= 1u << i;
  }
  return mask;
}

}  // namespace lithify::delta::action_fields
