// Delta log validator: checks, on a table as it lies in storage, every rule of the Delta
// protocol that lithify's writers rely on. Every write-side test runs it on the tables
// it writes (ValidateDeltaTable in C++, the `delta_validate TABLE` binary from shell or
// node).
//
// Rules (the id each violation carries):
//   contiguous-versions  commit versions run without a gap from 0, or from the earliest
//                        checkpoint
//   one-action-per-line  each line of each commit is exactly one JSON object with one
//                        known action key that parses as that action
//   one-commit-info      each commit has exactly one commitInfo
//   unique-txn-id        every commitInfo has a txnId and no two commits share one (a
//                        version written twice would)
//   protocol-features    the protocol in effect at each version covers the features the
//                        version uses: deletionVectors (an add with a DV), rowTracking
//                        (baseRowId / defaultRowCommitVersion), domainMetadata (a
//                        domainMetadata action), clustering (clusteringProvider),
//                        columnMapping (mode != none), inCommitTimestamp (enabled)
//   in-commit-timestamp  with in-commit timestamps enabled, commitInfo is the first
//                        action and its inCommitTimestamp increases strictly
//   relative-paths       add/remove paths are relative URIs with valid escapes, no ".."
//                        segment, inside the table
//   partition-values     each add's partitionValues keys are exactly the partition
//                        columns (physical names)
//   data-file-exists     every live add's data file exists
//   num-records          stats.numRecords equals the data file's row count (footer)
//   stats-bounds         unless tightBounds=false: each non-null minValues / maxValues
//                        bound holds against the data (min <= actual min, max >= actual
//                        max; strings as UTF-8 bytes, a truncated max may end in Delta's
//                        tie-breaker; timestamps truncated to milliseconds)
//   null-count           unless tightBounds=false: nullCount equals the data's null count
//   deletion-vector      the DV loads (size, CRC), its cardinality equals the bitmap's
//                        and every deleted row index is < the file's row count
//   loadable             the latest version loads (reported only when no other rule
//                        explains why it does not)
//   checkpoint-replay    each checkpoint alone reproduces the JSON replay at its version
//                        (protocol, metadata, live files, txns, domains; tombstones may
//                        only be missing when expired at the checkpoint's write time)
//
// Stats and DV rules are checked for live files and for the adds of every commit whose
// data file still exists. Data files are streamed one row group batch at a time.
// Stateless; thread-safe (uses only the FileSystem it is given).
#pragma once

#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::delta_write {

struct Violation {
  std::string rule;     // one of the ids above
  std::string message;  // names the file / version / path / column / value
};

// Runs every rule. Errors (not violations): NotFound when `root` has no Delta log,
// IOError from storage.
Result<std::vector<Violation>> CheckDeltaTable(io::FileSystem* fs, const std::string& root);

// OK when the table violates no rule; Corruption listing every violation, one per line
// ("<root>: 2 Delta rule violations:\n[num-records] ...\n[...] ..."); errors as above.
Status ValidateDeltaTable(io::FileSystem* fs, const std::string& root);

}  // namespace lithify::delta_write
