// Checkpoint writer: a classic single-file Parquet checkpoint (PROTOCOL.md
// "Checkpoints", Appendix "Checkpoint Schema") and the `_last_checkpoint` file.
//
// The checkpoint holds the snapshot's state as rows of struct columns: protocol,
// metaData, txn, add (live files, dataChange=false, stats as the JSON string),
// remove (tombstones not yet expired under delta.deletedFileRetentionDuration),
// domainMetadata. It is written with FileSystem::Create, so readers never see a partial
// checkpoint; `_last_checkpoint` is replaced after it. Spark, delta-rs, DuckDB and
// lithify's own reader read it back to the same replay.
//
// Layout (what Spark writes for a classic checkpoint, without commitInfo/cdc): top-level
// nullable struct columns txn, add, remove, metaData, protocol, domainMetadata in that
// order; one action per row, every other column null. Rows are protocol, metaData, txns,
// domain metadata, adds (in the snapshot's path order), then tombstones. Rows are
// written in batches of at most kCheckpointWriteBatchRows, so memory is bounded by a
// batch plus one Parquet row group whatever the number of files.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/delta/actions.h"
#include "lithify/delta/snapshot.h"
#include "lithify/parquet/schema_builder.h"

namespace lithify::delta {

struct CheckpointWriteResult {
  int64_t version = -1;
  std::string path;          // the checkpoint file
  int64_t num_actions = 0;   // rows written
  int64_t num_add_files = 0;
  int64_t size_bytes = 0;
};

// Writes `<version>.checkpoint.parquet` for `snapshot` (loaded with StatsMode kRaw or
// kParsed, so stats text is kept) and then `_last_checkpoint`
// ({"version":v,"size":num_actions,"sizeInBytes":n,"numOfAddFiles":k}). `now_ms` decides
// which tombstones have expired: a remove is kept iff its deletionTimestamp (absent = 0)
// is > now_ms - delta.deletedFileRetentionDuration.
// Errors: IOError from storage; InvalidArgument for a malformed
// delta.deletedFileRetentionDuration (named). Nothing is visible on error (the
// checkpoint is only published by a successful Close; `_last_checkpoint` is written
// after it, and a stale hint is harmless to readers).
// Limitation: a snapshot loaded with StatsMode::kNone cannot be told from a table
// without statistics (Snapshot does not record its load options), so its checkpoint
// would silently lack stats: callers must load with kRaw or kParsed.
Result<CheckpointWriteResult> WriteCheckpoint(const Snapshot& snapshot, int64_t now_ms);

// Rows per Parquet batch handed to the writer.
inline constexpr int64_t kCheckpointWriteBatchRows = 4096;

// Delta's interval strings (CalendarInterval syntax as table properties use it):
// "interval 1 week", "interval 2 days 3 hours", "1 week"; units week(s), day(s),
// hour(s), minute(s), second(s), millisecond(s), microsecond(s) (rounded down to ms),
// case-insensitive. InvalidArgument for anything else, months/years (Delta refuses
// month-based retention) or a negative total.
Result<int64_t> ParseIntervalMs(std::string_view text);

// delta.deletedFileRetentionDuration of `metadata` in ms ("interval 1 week" when
// absent). InvalidArgument naming the property and the value when malformed.
Result<int64_t> TombstoneRetentionMs(const Metadata& metadata);

// A decoded table-relative path (FileEntry::path) as Delta writes it in an action:
// java.net.URI path quoting, i.e. '%', space, control characters, Unicode space
// characters, invalid UTF-8 and the ASCII characters outside unreserved / punct / "/@"
// ("\"#<>?[\\]^`{|}") are percent-encoded (upper-case hex); other UTF-8 is kept. A ':'
// in the first segment is encoded too, so the path never reads as a URI scheme. A key
// outside the table root (DataFileKey: "s3://bucket/key", "/abs/path") is written as the
// absolute location it is: "scheme://authority" kept, the rest quoted the same way.
// DecodeActionPath(EncodeActionPath(p)) == p.
std::string EncodeActionPath(std::string_view decoded_path);

// The checkpoint's Parquet schema (top-level fields txn, add, remove, metaData,
// protocol, domainMetadata).
std::vector<parquet::FieldSpec> CheckpointSchemaFields();

}  // namespace lithify::delta
