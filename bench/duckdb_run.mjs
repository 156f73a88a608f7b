// Runs SQL statements in a fresh in-memory DuckDB and prints the seconds the LAST one took
// as JSON. Used by rewrite_bench.mjs under /usr/bin/time so that DuckDB's peak memory is
// measured in its own process, like lithify's.
//   node duckdb_run.mjs THREADS "SQL1" ["SQL2" ...]
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { DuckDBInstance } = await import(
  path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js'));

const [threads, ...stmts] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await inst.connect();
let seconds = 0;
for (const sql of stmts) {
  const t0 = process.hrtime.bigint();
  await con.run(sql);
  seconds = Number(process.hrtime.bigint() - t0) / 1e9;
}
console.log(JSON.stringify({ seconds }));
