#!/usr/bin/env node
// Writes DuckDB-written Parquet files for tests (files of another engine, made at test
// time instead of being stored): node duckdb-copy.mjs OUT.parquet 'SELECT ...' [COPY options]
import { openDuckDB, sqlString } from './canonical.mjs';

const [out, query, options = "FORMAT parquet"] = process.argv.slice(2);
if (!out || !query) {
  process.stderr.write('usage: duckdb-copy.mjs OUT.parquet QUERY [COPY options]\n');
  process.exit(2);
}
const con = await openDuckDB();
await con.run(`COPY (${query}) TO ${sqlString(out)} (${options})`);
