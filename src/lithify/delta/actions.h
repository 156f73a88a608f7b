// Delta log actions (PROTOCOL.md "Actions") and their JSON form.
//
// A commit file `_delta_log/<v>.json` holds one action per line; checkpoints hold the
// same actions as rows of struct columns (checkpoint.h turns them into these structs).
// This header defines one plain struct per action kind, a variant over them, the
// parser of one JSON action (from a commit line, or from the canonical JSON rendering
// of a checkpoint row, whose maps are arrays of {key,value}), the whole-commit-file
// parser with line-numbered errors, and the serializer (one line per action) used by
// round-trip tests and the committer.
//
// Unknown action kinds and unknown fields are ignored (PROTOCOL.md "Protocol
// Evolution": clients must ignore unrecognized actions and fields). Paths are kept as
// written (URI-encoded); DecodeActionPath / RelativizeDataPath turn them into table-
// relative file paths. All functions are stateless and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/deletion_vector.h"

namespace lithify::delta {

// "Protocol Evolution".
struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  // Present only with reader version 3 / writer version 7 ("Table Features").
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;

  bool HasReaderFeature(std::string_view f) const;
  bool HasWriterFeature(std::string_view f) const;
  friend bool operator==(const Protocol&, const Protocol&) = default;
};

// "Change Metadata" / "Format Specification".
struct Format {
  std::string provider = "parquet";
  std::map<std::string, std::string> options;
  friend bool operator==(const Format&, const Format&) = default;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::optional<int64_t> created_time;
  std::map<std::string, std::string> configuration;
  friend bool operator==(const Metadata&, const Metadata&) = default;
};

// "Add File and Remove File".
struct AddFile {
  std::string path;  // as in the log: a URI, percent-encoded
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;         // the JSON string as stored
  std::optional<std::string> stats_parsed;  // checkpoints: JSON rendering of stats_parsed
  std::map<std::string, std::string> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
  friend bool operator==(const AddFile&, const AddFile&) = default;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<std::map<std::string, std::optional<std::string>>> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::map<std::string, std::string> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  friend bool operator==(const RemoveFile&, const RemoveFile&) = default;
};

// "Add CDC File": parsed for completeness; it does not take part in replay.
struct AddCdcFile {
  std::string path;
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t size = 0;
  bool data_change = false;
  std::map<std::string, std::string> tags;
  friend bool operator==(const AddCdcFile&, const AddCdcFile&) = default;
};

// "Transaction Identifiers".
struct Txn {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
  friend bool operator==(const Txn&, const Txn&) = default;
};

// "Commit Provenance Information": free-form; the fields lithify reads are extracted,
// the whole object is kept as JSON text.
struct CommitInfo {
  std::optional<int64_t> timestamp;
  std::optional<int64_t> in_commit_timestamp;  // "In-Commit Timestamps"
  std::optional<std::string> operation;
  std::string json = "{}";  // the complete commitInfo object
  friend bool operator==(const CommitInfo&, const CommitInfo&) = default;
};

// "Domain Metadata".
struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
  friend bool operator==(const DomainMetadata&, const DomainMetadata&) = default;
};

// "Checkpoint Metadata" (V2 checkpoints only).
struct CheckpointMetadata {
  int64_t version = 0;
  std::map<std::string, std::string> tags;
  friend bool operator==(const CheckpointMetadata&, const CheckpointMetadata&) = default;
};

// "Sidecar File Information" (V2 checkpoints only).
struct Sidecar {
  std::string path;  // URI-encoded; usually a bare file name under _delta_log/_sidecars
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
  std::map<std::string, std::string> tags;
  friend bool operator==(const Sidecar&, const Sidecar&) = default;
};

using Action = std::variant<AddFile, RemoveFile, Metadata, Protocol, Txn, CommitInfo,
                            DomainMetadata, CheckpointMetadata, Sidecar, AddCdcFile>;

// Parses one action line of a commit file (or of a V2 JSON checkpoint). A blank line or
// an object with no known action key yields nullopt. Corruption (without location) for
// malformed JSON, a non-object, or a known action with missing/mistyped required fields.
Result<std::optional<Action>> ParseActionLine(std::string_view line);

// Parses every line of a commit file. `name` (e.g. "_delta_log/00000000000000000012.json")
// prefixes errors: "<name> line 3: malformed JSON".
Result<std::vector<Action>> ParseCommitFile(std::string_view content, std::string_view name);

// One line of JSON (no trailing newline), e.g. {"add":{...}}. ParseActionLine of the
// result yields an equal action.
std::string ActionToJson(const Action& action);

// Percent-decodes an action path (PROTOCOL.md: "The path is a URI ... which needs to be
// decoded"). Corruption for a malformed escape.
Result<std::string> DecodeActionPath(std::string_view uri_path);

// Turns an action path into a path relative to `table_root`: decodes it; an absolute
// URI (`file:/...`, `file:///...`) or absolute path must lie inside `table_root` and is
// made relative; a relative path must not contain ".." segments. Corruption naming the
// path otherwise (a file outside the table cannot be maintained by lithify).
Result<std::string> RelativizeDataPath(std::string_view table_root, std::string_view uri_path);

// Whether an action path is absolute: a URI ("s3://...", "file:/...") or a '/' path.
bool IsAbsoluteActionPath(std::string_view uri_path);

// The canonical key of a path outside the table root: `/x`, `file:/x`, `file:///x` and
// `file://localhost/x` are the decoded local path "/x"; a relative path with ".." is
// resolved against the root; URIs of other stores keep their decoded canonical URI
// (io::CanonicalLocation) with "." / ".." / empty segments of the path resolved. Such a
// key is always io::IsAbsoluteLocation, so it never collides with a table-relative key.
std::string OutsideRootKey(std::string_view root, std::string_view uri);

// The key under which a table knows the data file an action names: the table-relative
// path (RelativizeDataPath) for a file inside the root; for an absolute path or URI
// outside it -- which PROTOCOL.md allows ("an absolute path to a file that should be
// added to the table"; shallow clones) -- its OutsideRootKey. Corruption for a relative
// path escaping the root and for malformed escapes. EncodeActionPath writes either kind
// back.
Result<std::string> DataFileKey(std::string_view table_root, std::string_view uri_path);

}  // namespace lithify::delta
