// FileEntry: one live data file of a table version, in format-neutral terms.
//
// The planner (compaction, clustering, DV purge, vacuum sets) and the scan engine see a
// table version as a list of FileEntry values: where the file is, how big, how many
// rows, its partition values, its per-column statistics, the deletion vector attached to
// it and its tags. Everything here exists in both Delta and Iceberg; format specifics
// (Delta's action JSON, Iceberg's manifests) stay in their modules, which fill these
// structs. A deletion vector is opaque to the planner except for its cardinality and
// identity: only the format module knows how to load it.
//
// Plain value types; thread-safe as any const value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/table/value.h"

namespace lithify::table {

// Statistics of one column of one file. Bounds are typed by the statistics' own encoding
// (Delta JSON: kBoolean/kInt64/kDouble/kString); absent when the writer did not record
// them. `null_count` absent = unknown.
struct ColumnStats {
  std::optional<Value> min;
  std::optional<Value> max;
  std::optional<int64_t> null_count;
};

// Per-file statistics.
struct FileStats {
  // The writer's statistics text as stored (Delta: the `stats` JSON string, or the JSON
  // rendering of a checkpoint's `stats_parsed` struct); empty when absent.
  std::string raw;
  // Physical row count (rows deleted by a DV are still counted).
  std::optional<int64_t> num_records;
  // Whether min/max are exact for the live rows; Delta's default is true when absent.
  std::optional<bool> tight_bounds;
  // Keyed by the column path as recorded (Delta: physical names, nested structs as
  // separate path elements), ordered lexicographically by path.
  std::map<std::vector<std::string>, ColumnStats> columns;

  // nullptr when the column has no statistics.
  const ColumnStats* Find(const std::vector<std::string>& path) const {
    auto it = columns.find(path);
    return it == columns.end() ? nullptr : &it->second;
  }
};

// Where a file's deletion vector lives and what it deletes. Only the format module
// interprets `storage_type`, `location`, `offset` and `size_in_bytes`; the planner uses
// `cardinality` and `unique_id`.
struct DeletionVectorRef {
  std::string storage_type;       // Delta: "u" (uuid-relative), "i" (inline), "p" (absolute)
  std::string location;           // Delta: pathOrInlineDv as in the log
  std::optional<int32_t> offset;  // byte offset in the DV file (absent: inline / 0)
  int32_t size_in_bytes = 0;      // serialized bitmap size
  int64_t cardinality = 0;        // rows deleted
  std::string unique_id;          // identity of this DV for the file (Delta: uniqueId)

  friend bool operator==(const DeletionVectorRef&, const DeletionVectorRef&) = default;
};

struct FileEntry {
  // Decoded path relative to the table root ('/'-separated, never starting with '/' and
  // never containing "." or ".." segments).
  std::string path;
  int64_t size = 0;                  // bytes
  int64_t modification_time_ms = 0;  // as recorded by the writer
  // Partition column (as recorded: Delta physical names) -> value text; nullopt = null.
  std::map<std::string, std::optional<std::string>> partition_values;
  std::optional<FileStats> stats;    // absent when the writer recorded none
  std::optional<DeletionVectorRef> deletion_vector;
  std::map<std::string, std::string> tags;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;

  // Physical rows (stats.num_records) or nullopt when unknown.
  std::optional<int64_t> num_records() const {
    if (stats && stats->num_records) return stats->num_records;
    return std::nullopt;
  }
  // Rows a scan returns: physical rows minus DV cardinality; nullopt when unknown.
  std::optional<int64_t> num_live_records() const {
    auto n = num_records();
    if (!n) return std::nullopt;
    return *n - (deletion_vector ? deletion_vector->cardinality : 0);
  }
  // The reconciliation key's DV part: "" when there is no DV.
  const std::string& dv_unique_id() const {
    static const std::string kNone;
    return deletion_vector ? deletion_vector->unique_id : kNone;
  }
};

}  // namespace lithify::table
