// Log segment: the minimal set of `_delta_log/` files that reconstructs one version.
//
// A version v is reconstructed from the newest complete checkpoint at or below v plus
// every commit after it up to v, with no gap (PROTOCOL.md "Checkpoints", "Delta Log
// Entries", "Last Checkpoint File"). This header names and parses log file names,
// reads the `_last_checkpoint` hint, lists the log and selects the segment. Selection
// (BuildLogSegment) is a pure function of a listing so it can be tested without IO.
// Log compaction files and `.crc` files are recognized and ignored (both are optional
// for readers).
//
// All functions are stateless and thread-safe; results are plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta {

enum class LogFileType {
  kCommit,               // <v>.json
  kCheckpointClassic,    // <v>.checkpoint.parquet
  kCheckpointMultiPart,  // <v>.checkpoint.<part>.<parts>.parquet
  kCheckpointUuidJson,   // <v>.checkpoint.<uuid>.json (V2 spec)
  kCheckpointUuidParquet,// <v>.checkpoint.<uuid>.parquet (V2 spec)
  kCompaction,           // <v>.<end>.compacted.json
  kChecksum,             // <v>.crc
};

struct LogFileName {
  LogFileType type = LogFileType::kCommit;
  int64_t version = 0;
  int32_t part = 0;         // multi-part: 1-based part number
  int32_t num_parts = 0;    // multi-part: total parts
  int64_t end_version = 0;  // compaction: last version covered
  std::string uuid;         // UUID-named checkpoints

  bool is_checkpoint() const {
    return type == LogFileType::kCheckpointClassic || type == LogFileType::kCheckpointMultiPart ||
           type == LogFileType::kCheckpointUuidJson || type == LogFileType::kCheckpointUuidParquet;
  }
};

// Parses a bare file name (no directory). nullopt for anything that is not a log file
// of the listed kinds (`_last_checkpoint`, hidden `.x.crc` files, temporary files, ...).
// Versions must be exactly 20 digits, part numbers 10 digits, 1 <= part <= parts.
std::optional<LogFileName> ParseLogFileName(std::string_view name);

// "00000000000000000012.json" etc.
std::string CommitFileName(int64_t version);
std::string ClassicCheckpointFileName(int64_t version);
std::string MultiPartCheckpointFileName(int64_t version, int32_t part, int32_t num_parts);

struct LogFile {
  std::string path;      // full path as listed (under <table_root>/_delta_log)
  LogFileName name;
  uint64_t size = 0;
  int64_t mtime_ms = 0;
};

// The files that reconstruct `version`.
struct LogSegment {
  std::string log_dir;  // <table_root>/_delta_log
  int64_t version = -1;
  // The checkpoint the replay starts from: empty for none; one file for classic and
  // UUID-named checkpoints; all parts, in part order, for multi-part checkpoints.
  std::vector<LogFile> checkpoint;
  std::optional<int64_t> checkpoint_version;
  // Commits checkpoint_version+1 .. version (0 .. version without checkpoint), ascending.
  std::vector<LogFile> commits;
  // The commit file of `version` itself when present (it may be absent when the
  // version is reached by a checkpoint alone and its commit was cleaned up).
  std::optional<LogFile> latest_commit;
};

// The `_last_checkpoint` hint (Appendix "Last Checkpoint File Schema"; only the fields
// lithify uses).
struct LastCheckpointHint {
  int64_t version = 0;
  std::optional<int64_t> size;
  std::optional<int64_t> parts;
};

// Reads `<log_dir>/_last_checkpoint`. nullopt when absent, empty or unparseable: the
// hint is an optimization and a reader falls back to listing (golden table
// corrupted-last-checkpoint-kernel). IOError only for storage failures.
Result<std::optional<LastCheckpointHint>> ReadLastCheckpoint(io::FileSystem* fs,
                                                             std::string_view log_dir);

// Lists `log_dir` (non-recursively) and returns the recognized log files sorted by
// (version, type, part). With `from_version`, only files of versions >= from_version
// (the listing starts after them: an object store lists only what follows). With
// `until_version`, listing stops at the first page holding a version past it (those
// files are still returned), so time travel does not list the whole newer log.
Result<std::vector<LogFile>> ListLogFiles(io::FileSystem* fs, std::string_view log_dir,
                                          std::optional<int64_t> from_version = std::nullopt,
                                          std::optional<int64_t> until_version = std::nullopt);

// Selects the segment for `version` (nullopt = latest) from a listing. Rules:
// - The latest version is the highest commit or complete-checkpoint version.
// - NotFound: an empty log ("no Delta table"), `version` beyond the latest, or a version
//   before the earliest reconstructable one.
// - The newest complete checkpoint <= version is used; a multi-part checkpoint missing
//   parts is skipped ("readers must ignore multi-part checkpoints with missing parts");
//   when skipping it leaves the version unreachable, Corruption names the checkpoint.
// - Commits after the checkpoint must be contiguous up to `version`; a gap is
//   Corruption naming the first missing version.
Result<LogSegment> BuildLogSegment(std::string_view log_dir, const std::vector<LogFile>& files,
                                   std::optional<int64_t> version);

// Lists (starting at the `_last_checkpoint` hint when it is usable for `version`) and
// builds the segment; falls back to a full listing when the hinted checkpoint is absent
// or incomplete.
Result<LogSegment> LoadLogSegment(io::FileSystem* fs, std::string_view table_root,
                                  std::optional<int64_t> version);

}  // namespace lithify::delta
