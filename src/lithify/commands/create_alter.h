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

// Errors: AlreadyExists "a Delta table already exists at ROOT" when the log has any
// version; the planner's InvalidArgument / NotSupported; the commit's errors.
Result<delta::CommitResult> CreateTable(io::FileSystem* fs, const std::string& root,
                                        const delta::NewTableSpec& spec,
                                        delta::TransactionOptions options = {});

// Returns the last commit's result. Errors: NotFound (no table), the planner's
// InvalidArgument / NotSupported, the commit's errors (Conflict, IOError, ...).
Result<delta::CommitResult> AlterTable(io::FileSystem* fs, const std::string& root,
                                       const delta::AlterSpec& spec,
                                       delta::TransactionOptions options = {});

}  // namespace lithify::commands
