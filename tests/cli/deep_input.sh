#!/usr/bin/env bash
# Deeply nested input (issue 14, defect 3): every recursive parser refuses input nested
# deeper than its limit (docs/limits in src/lithify/base/nesting.h) with a clean error
# and the documented exit code -- 2 for usage input (--where, --schema, a scenario
# file), 1 for corrupt files (a JSON Lines input, a commit file) -- never a crash. Before
# the limits, a --where nested 20,000 deep and a scenario nested 100,000 deep died with
# SIGSEGV (exit 139).
set -u
source "$(dirname "$0")/lib.sh"
short() {  # short FILE DESCRIPTION: the error quotes no megabytes of input
  (( $(wc -c <"$1") < 2000 )) || { echo "FAIL: $2: $(wc -c <"$1") bytes of error"; fail=1; }
}
rep() { printf "%${2}s" '' | sed "s/ /$1/g"; }  # rep TEXT N
D=$(mktemp -d)
T=$D/t
run 0 "create" -- "$LITHIFY" create "$T" --schema "a long, s string"
printf '{"a":1,"s":"x"}\n{"a":2,"s":"y"}\n' >"$D/rows.jsonl"
run 0 "append" -- "$LITHIFY" append "$T" --from "$D/rows.jsonl" --no-auto-compact

# --where: 200 levels of NOT scan; 201 levels and 20,000 parentheses are usage errors
# naming the flag.
run 0 "scan --where 200 levels" -- "$LITHIFY" scan "$T" --where "$(rep 'NOT ' 200)a = 1"
expect "$OUT" '"a":1' "the 200-level predicate selects the row"
run 2 "scan --where 201 levels" -- "$LITHIFY" scan "$T" --where "$(rep 'NOT ' 201)a = 1"
expect "$ERR" '--where: position [0-9]+: predicate nested deeper than 200 levels of AND, OR and NOT' \
  "201 levels message"
run 2 "scan --where 20,000 parentheses" -- "$LITHIFY" scan "$T" --where "$(rep '(' 20000)a = 1$(rep ')' 20000)"
expect "$ERR" '--where: position 401: predicate nested deeper than 400 levels of parentheses and NOTs' \
  "20,000 parentheses message"
short "$ERR" "scan --where 20,000 parentheses"
run 2 "scan --where 20,000 NOTs" -- "$LITHIFY" scan "$T" --where "$(rep 'NOT ' 20000)a = 1"
run 2 "files --where 20,000 levels" -- "$LITHIFY" files "$T" --where "$(rep '(' 20000)a = 1$(rep ')' 20000)"
run 2 "delete --where 20,000 levels" -- "$LITHIFY" delete "$T" --where "$(rep '(' 20000)a = 1$(rep ')' 20000)"
run 0 "the table is unchanged" -- "$LITHIFY" scan "$T" --json
[[ $(wc -l <"$OUT") == 2 ]] || { echo "FAIL: the refused delete changed the table"; fail=1; }

# A scenario file nested 100,000 levels is a usage error naming the file.
{ printf '{"days":'; rep '[' 100000; printf '1'; rep ']' 100000; printf '}'; } >"$D/deep.json"
run 2 "simulate a 100,000-level scenario" -- "$LITHIFY" simulate "$D/deep.json"
expect "$ERR" "$D/deep.json: scenario JSON nested deeper than 1000 levels" "simulate message"
short "$ERR" "simulate deep scenario"
rep '[' 100000 >"$D/open.json"
run 2 "simulate 100,000 unclosed brackets" -- "$LITHIFY" simulate "$D/open.json"
expect "$ERR" 'nested deeper than 1000 levels' "unclosed brackets message"

# A JSON Lines input with a deep line: refused, naming the file and line, nothing written.
{ printf '{"a":3,"s":"z"}\n{"a":'; rep '[' 100000; rep ']' 100000; printf '}\n'; } >"$D/deep.jsonl"
run 1 "append a 100,000-level JSONL line" -- "$LITHIFY" append "$T" --from "$D/deep.jsonl"
expect "$ERR" "deep.jsonl line 2: .*JSON nested deeper than 1000 levels" "append message"
short "$ERR" "append deep line"
n=$(ls "$T"/*.parquet | wc -l)
[[ $n == 1 ]] || { echo "FAIL: the refused append left $n data files"; fail=1; }

# --schema DDL nested 10,000 levels (a 20,000-level one passes the 128 KiB argument limit).
run 2 "create --schema 10,000 levels" -- "$LITHIFY" create "$D/u" --schema "a $(rep 'array<' 10000)int$(rep '>' 10000)"
expect "$ERR" 'type nested deeper than 100 levels' "create --schema message"
[[ ! -e "$D/u/_delta_log" ]] || { echo "FAIL: the refused create made a table"; fail=1; }

# A commit file with a line nested 100,000 levels: the table is corrupt (exit 1), named.
V=$D/v
run 0 "create v" -- "$LITHIFY" create "$V" --schema "a long"
{ printf '{"commitInfo":{"x":'; rep '[' 100000; rep ']' 100000; printf '}}\n'; } \
  >"$V/_delta_log/00000000000000000001.json"
for c in scan describe\ history diagnose; do
  run 1 "$c over a deep commit line" -- "$LITHIFY" $c "$V"
  expect "$ERR" '00000000000000000001.json.*nested deeper than 1000 levels' "$c names the commit"
  short "$ERR" "$c deep commit"
done
# A deep _last_checkpoint is an unreadable hint: the log is listed instead.
rm "$V/_delta_log/00000000000000000001.json"
{ rep '{"v":' 100000; printf '1'; rep '}' 100000; } >"$V/_delta_log/_last_checkpoint"
run 0 "scan with a deep _last_checkpoint" -- "$LITHIFY" scan "$V"

rm -rf "$D" "$OUT" "$ERR"
exit $fail
