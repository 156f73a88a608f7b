// Delta's RewriteTarget (exec/rewrite_target.h): one Delta version as OPTIMIZE, REORG,
// auto compaction and clustering see it.
//
//   checks      Delta's verifyPartitionPredicates (--where names partition columns
//               only), what lithify cannot write, the write gate's rewrite rule (data
//               features allow rewrites: they change no row), catalog-managed tables,
//               REORG / auto compaction on liquid tables, row tracking it cannot keep.
//   clustering  Delta's mode choice and validation (delta-maintenance-facts.md §1.1-§1.2):
//               a table with the `clustering` feature and clustering columns is liquid;
//               there --where is DELTA_CLUSTERING_WITH_PARTITION_PREDICATE and
//               --zorder-by DELTA_CLUSTERING_WITH_ZORDER_BY; --full elsewhere is
//               DELTA_OPTIMIZE_FULL_NOT_SUPPORTED; --zorder-by columns must exist
//               (DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST), not be partition columns
//               (DELTA_ZORDERING_ON_PARTITION_COLUMN) and have statistics
//               (DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS); liquid outputs carry
//               clusteringProvider "liquid", ZCUBE_ID and ZCUBE_ZORDER_BY.
//   execution   DeltaBinIo (delta/bin_io.h) over the snapshot's live rows, the
//               DeltaCommitter (delta/committer.h), Delta's operationMetrics.
//
// Library lithify_delta_exec. Opened through formats/open_table.h by the commands.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lithify/base/result.h"
#include "lithify/exec/rewrite_target.h"
#include "lithify/io/filesystem.h"
#include "lithify/table/commit_intent.h"

namespace lithify::delta {

// Loads version `version` (latest when unset) of the Delta table at `root` with the
// statistics planning needs (numRecords only) and binds `request.where`. Errors: the
// snapshot's (NotFound, Corruption, NotSupported naming a reader feature); a bad
// predicate InvalidArgument prefixed "predicate: ".
Result<std::unique_ptr<exec::RewriteTarget>> OpenDeltaRewriteTarget(io::FileSystem* fs, const std::string& root,
                                                                    std::optional<int64_t> version,
                                                                    const exec::RewriteRequest& request,
                                                                    table::CommitOptions commit);

}  // namespace lithify::delta
