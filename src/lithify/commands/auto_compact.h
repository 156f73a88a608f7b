// Auto compaction: the post-commit hook of append and delete (Delta's AutoCompact,
// delta-maintenance-facts.md §5.1).
//
// After a write commits, when the table enables it, the partitions the commit added files
// to are compacted with OPTIMIZE's executor: candidates below autoCompact.minFileSize
// (unset = maxFileSize / 2 = 64 MiB) or with too many deleted rows, bins up to
// autoCompact.maxFileSize (128 MiB), single-file bins dropped, one commit recorded as
// operation OPTIMIZE with operationParameters auto=true and the touched partitions as
// the predicate.
//
// Enablement (Delta's precedence without the session layer, which `allowed` stands in
// for): table `delta.autoOptimize` = true (legacy) enables; else table
// `delta.autoOptimize.autoCompact` = true / false (case-insensitive); absent = disabled.
// Any other value of delta.autoOptimize.autoCompact is InvalidArgument starting
// "DELTA_INVALID_AUTO_COMPACT_TYPE".
//
// Trigger, and how it differs from Delta: Delta counts small files per partition in
// driver memory since the process started (so a fresh driver's first write to a
// partition always compacts). lithify has no long-lived driver; the trigger is derived
// from the latest snapshot (planner::PlanAutoCompaction): a touched partition is
// compacted when it holds at least autoCompact.minNumFiles (50) candidate files. Every
// process gives the same answer for the same table state.
//
// The predicate recorded is `col = 'value' AND ...` per partition (`col IS NULL` for a
// null value), partitions joined by OR, physical column names; Delta records its
// expression's SQL (`col <=> CAST('value' AS type)`), which lithify does not imitate.
//
// Stateless; thread-safe for distinct calls. Memory as commands::Optimize.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/commands/optimize.h"
#include "lithify/delta/table_properties.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"
#include "lithify/planner/compaction.h"

namespace lithify::commands {

struct AutoCompactOptions {
  // false = never run (`--no-auto-compact`); true = follow the table's properties.
  bool allowed = true;
  // Delta's autoCompact.* settings (maxFileSize, minFileSize, minNumFiles,
  // maxNumModifiedPartitions); Delta's defaults. Tests lower them.
  planner::AutoCompactionOptions planner;
  int threads = 0;  // bins rewritten at once; 0 = exec::DefaultThreads()
  delta::TransactionOptions transaction;
};

// Whether table properties enable it (precedence above): Delta's property, read in
// delta/table_properties.h.
using delta::AutoCompactEnabled;
using delta::AutoCompactSwitch;
using delta::ResolveAutoCompactSwitch;

// The recorded predicate text of `partitions` (see above); "" for none or for {{}}.
std::string AutoCompactPredicateText(const std::vector<planner::PartitionValues>& partitions);

// Runs auto compaction after a commit that added files to `touched` partitions
// (partition values as in the AddFiles; {{}} for an unpartitioned table; duplicates are
// fine). `table_properties` are those of the committed version (a blind append or a
// delete never changes them, so the writer's read snapshot's properties do).
// nullopt when it does not run: not allowed, disabled by the table, or no partition
// touched. Otherwise the OPTIMIZE result (no commit when no touched partition
// qualified: result.versions empty). Errors: AutoCompactEnabled's, Optimize's.
Result<std::optional<OptimizeResult>> MaybeAutoCompact(io::FileSystem* fs, const std::string& root,
                                                       const std::map<std::string, std::string>& table_properties,
                                                       const std::vector<planner::PartitionValues>& touched,
                                                       const AutoCompactOptions& options);

// Outcome of the hook as append/delete report it: a failure never fails the write that
// already committed, it becomes `warning`.
struct AutoCompactOutcome {
  std::optional<OptimizeResult> result;  // it ran
  std::optional<std::string> warning;    // it failed (the write is committed anyway)
};
AutoCompactOutcome RunAutoCompactHook(io::FileSystem* fs, const std::string& root,
                                      const std::map<std::string, std::string>& table_properties,
                                      const std::vector<planner::PartitionValues>& touched,
                                      const AutoCompactOptions& options);

}  // namespace lithify::commands
