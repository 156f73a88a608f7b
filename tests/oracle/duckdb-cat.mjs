#!/usr/bin/env node
// Prints DuckDB's canonical JSON lines for Parquet files (debugging aid for the oracle).
// Usage: node duckdb-cat.mjs FILE...
import { openDuckDB, readParquetCanonical } from './canonical.mjs';

const con = await openDuckDB();
let rc = 0;
for (const file of process.argv.slice(2)) {
  try {
    const out = await readParquetCanonical(con, file);
    for (const n of out.notes) process.stderr.write(`note: ${file}: ${n}\n`);
    process.stdout.write(out.lines.map((l) => `${l}\n`).join(''));
  } catch (e) {
    process.stderr.write(`duckdb-cat: ${file}: ${e.message}\n`);
    rc = 1;
  }
}
// exitCode, not exit(): stdout may be a pipe whose pending writes exit() would cut off.
process.exitCode = rc;
