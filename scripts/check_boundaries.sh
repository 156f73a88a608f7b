#!/usr/bin/env bash
# Module boundary check (issue 15): fails when
#   1. a library source of a module includes a header of a module it may not depend on
#      (one above it, or one beside it), or
#   2. a file in commands/ includes a delta/ header, or names `delta::` (reaching Delta
#      through another commands/ header), without being on the allow-list below;
#   3. a header of formats/ (the one opener of tables by format) includes a delta/ or
#      iceberg/ header: what the commands get from there must be format-neutral.
# Grep only, no build: it runs first in .ci/run and as the ctest `boundaries`.
#
# The allowed graph mirrors the dependency line in docs/architecture.md; change both together.
# Library sources only: a module's tests (*_test.cc, test_util.h) may use the modules above
# that give it real inputs (planner tests run under Delta's policy, sim's plan-equality test
# builds real tables).
set -euo pipefail
cd "$(dirname "$0")/.."
src=src/lithify

# Module -> the modules its library sources may include (itself always). A module is a
# directory under src/lithify, except the object-store libraries under io/ (io/http and the
# backends on it), expr's batch evaluator (lithify_expr_batch, which sits above the Parquet
# reader), table's live-rows and scan seam (lithify_table_rows: table/live_rows, table/table_scan;
# above the Parquet reader and the batch evaluator), the Delta side of the executor
# (lithify_delta_exec: delta/bin_io, delta/committer, delta/rewrite_target, above delta
# and exec), and formats (the opener of tables by format, above every format).
declare -A ALLOWED=(
  [base]=""
  [io]="base"
  [io/http]="base io"
  [io/s3]="base io io/http"
  [io/azure]="base io io/http"
  [parquet]="base io"
  [expr]="base"
  [expr_batch]="base expr parquet"
  [table]="base"
  [table_rows]="base io parquet expr expr_batch table"
  [planner]="base table"
  [delta]="base io parquet expr expr_batch table table_rows planner"
  [iceberg]="base io parquet expr expr_batch table table_rows"
  [exec]="base io parquet table planner"
  [delta_exec]="base io parquet expr expr_batch table table_rows planner delta exec"
  [formats]="base io parquet expr expr_batch table table_rows planner delta delta_exec iceberg exec"
  [sim]="base table planner"
  [commands]="base io parquet expr expr_batch table table_rows planner delta delta_exec iceberg exec formats"
  [server]="base io parquet expr expr_batch table table_rows planner exec formats commands sim"
)

# commands/ files that include delta/ headers or name delta:: today: only the Delta-only
# commands (writes, checkpoint, create/alter) and append's input parsing. The generic ones
# (scan, files, describe, optimize, reorg, vacuum, diagnose) reach a format through formats/. THIS LIST CAN ONLY SHRINK: a file that no longer
# includes delta/ must be removed from it (the check fails on a stale entry), and no file
# may be added -- a new command reaches Delta through the seam.
COMMANDS_DELTA_ALLOWED=(
  # Delta-only (writes and Delta's own maintenance): named in docs/architecture.md.
  commands/append.cc commands/append.h
  commands/checkpoint.cc commands/checkpoint.h
  commands/create_alter.cc commands/create_alter.h
  commands/delete.cc commands/delete.h
  commands/generator.h
  commands/ingest.h
  commands/auto_compact.h
  # Delta-only input parsing for append (Delta schemas), through ingest.h.
  commands/generator.cc
  commands/ingest.cc
  commands/ingest_common.cc commands/ingest_common.h
  commands/ingest_csv.cc commands/ingest_csv.h
  commands/ingest_jsonl.cc commands/ingest_jsonl.h
  commands/ingest_parquet.cc commands/ingest_parquet.h
)

# Sets `mod` to the module of a path relative to src/lithify (a source file, or an
# included header without its "lithify/" prefix). No subshells: the loop below runs once
# per include line.
module_of() {
  case $1 in
    io/http/*) mod=io/http ;;
    io/s3/*) mod=io/s3 ;;
    io/azure/*) mod=io/azure ;;
    table/live_rows*|table/table_scan*) mod=table_rows ;;
    delta/bin_io*|delta/committer*|delta/rewrite_target*) mod=delta_exec ;;
    expr/batch_eval*) mod=expr_batch ;;
    *) mod=${1%%/*} ;;
  esac
}

failures=0
fail() { echo "check_boundaries: $*" >&2; failures=$((failures + 1)); }

# Rule 1. One grep over every library source: "path:#include "lithify/m/x.h"".
while IFS= read -r line; do
  file=${line%%:*}
  inc=${line#*\"lithify/}
  inc=${inc%%\"*}
  module_of "${file#"$src"/}"; from=$mod
  module_of "$inc"; to=$mod
  [[ $from == "$to" ]] && continue
  if [[ -z ${ALLOWED[$from]+set} ]]; then
    fail "$file: module '$from' is not in the table of scripts/check_boundaries.sh"
    continue
  fi
  if [[ " ${ALLOWED[$from]} " != *" $to "* ]]; then
    fail "$file includes lithify/$inc: module '$from' may not depend on '$to' (allowed: ${ALLOWED[$from]:-nothing}; docs/architecture.md)"
  fi
done < <(grep -rHE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"lithify/' "$src" \
           --include='*.cc' --include='*.h' --exclude='*_test.cc' --exclude='*test_util.h' || true)

# Rule 2. commands/ reaching into delta/.
declare -A listed=()
for f in "${COMMANDS_DELTA_ALLOWED[@]}"; do listed[$src/$f]=1; done
declare -A reaching=()
while IFS= read -r file; do
  reaching[$file]=1
  [[ -n ${listed[$file]+set} ]] && continue
  fail "$file includes delta/ headers or names delta::: a command reaches Delta through the table seam (the allow-list in scripts/check_boundaries.sh can only shrink)"
done < <(grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"lithify/delta/|delta::' "$src/commands" \
           --include='*.cc' --include='*.h' --exclude='*_test.cc' --exclude='*test_util.h' || true)
for f in "${!listed[@]}"; do
  if [[ -z ${reaching[$f]+set} ]]; then
    fail "$f no longer includes delta/ nor names delta:: (or is gone): remove it from COMMANDS_DELTA_ALLOWED in scripts/check_boundaries.sh"
  fi
done

# Rule 3. formats/ headers stay format-neutral.
while IFS= read -r line; do
  fail "${line%%:*}: a formats/ header includes ${line#*\"lithify/}: what the opener hands the commands must name no format's types"
done < <(grep -rHE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"lithify/(delta|iceberg)/' "$src/formats" --include='*.h' || true)

if (( failures > 0 )); then
  echo "check_boundaries: $failures violation(s)" >&2
  exit 1
fi
echo "check_boundaries: ok (${#ALLOWED[@]} modules, ${#listed[@]} commands/ files allowed to include delta/ or name delta::)"
