// create / alter: commit the plans of delta/ddl.h through delta::Transaction.
//
// CreateTable writes version 0 (Protocol, Metadata, the clustering domain when
// clustered) with operation "CREATE TABLE". AlterTable applies an AlterSpec to the
// latest version as Delta's separate ALTER statements would: one commit each for the
// property sets ("SET TBLPROPERTIES"), the unsets ("UNSET TBLPROPERTIES") and the
// clustering change ("CLUSTER BY"), in that order. The whole spec is validated against
// the table before the first commit, so a bad request commits nothing; a later commit
// can still fail (e.g. a concurrent metadata change), leaving the earlier ones in place.
//
// Stateless; thread-safe as far as the FileSystem is (concurrent writers are resolved by
// the transaction's put-if-absent commits).
#pragma once

#include <string>

#include "lithify/base/result.h"
#include "lithify/delta/ddl.h"
#include "lithify/delta/transaction.h"
#include "lithify/io/filesystem.h"

namespace lithify::commands {

// The location must be new or empty, as Delta requires, so that no user folder becomes
// a table whose VACUUM deletes the folder's files as untracked. The one exception is what
// a create killed before its commit leaves: an empty `_delta_log` directory (its commit
// temporary, if any, is hidden from listings; io::FileSystem). Anything else -- a file or
// directory beside `_delta_log`, or a file in `_delta_log` that is no commit or
// checkpoint -- is refused. A location whose log holds a commit or checkpoint is an
// existing table, refused as such (re-running a create that committed is not silently
// accepted: the request may differ from what was committed).
//
// Errors: AlreadyExists "a Delta table already exists at ROOT" when the log has any
// version; AlreadyExists "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION: ..." naming an
// entry found; the planner's InvalidArgument / NotSupported; the commit's errors.
Result<delta::CommitResult> CreateTable(io::FileSystem* fs, const std::string& root,
                                        const delta::NewTableSpec& spec,
                                        delta::TransactionOptions options = {});

// Returns the last commit's result. Errors: NotFound (no table), the planner's
// InvalidArgument / NotSupported, the commit's errors (Conflict, IOError, ...).
Result<delta::CommitResult> AlterTable(io::FileSystem* fs, const std::string& root,
                                       const delta::AlterSpec& spec,
                                       delta::TransactionOptions options = {});

}  // namespace lithify::commands
