#!/usr/bin/env node
// Stand-in for the lithify CLI built on DuckDB, to exercise the oracle drivers themselves
// (LITHIFY=tests/oracle/duckdb-lithify.mjs node conformance.mjs). Supports
// `parquet cat FILE` and `parquet rewrite OUT IN... [--codec C] [--row-group-size BYTES]`.
import { openDuckDB, readParquetCanonical, sqlString } from './canonical.mjs';

const [group, cmd, ...rest] = process.argv.slice(2);
const fail = (msg) => { process.stderr.write(`lithify: error: ${msg}\n`); process.exit(1); };
if (group !== 'parquet' || !['cat', 'rewrite'].includes(cmd)) { process.stderr.write('usage\n'); process.exit(2); }
const con = await openDuckDB();
await con.run('SET enable_geoparquet_conversion = false');
if (cmd === 'cat') {
  const file = rest[0];
  try {
    const out = await readParquetCanonical(con, file);
    process.stdout.write(out.lines.map((l) => `${l}\n`).join(''));
  } catch (e) { fail(`${file}: ${e.message.split('\n')[0]}`); }
} else {
  const pos = [];
  let codec = 'zstd';
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--codec') codec = rest[++i];
    else if (rest[i] === '--row-group-size') i++;
    else pos.push(rest[i]);
  }
  const [out, ...ins] = pos;
  try {
    const src = ins.map((f) => `SELECT * FROM read_parquet(${sqlString(f)}, binary_as_string=false)`).join(' UNION ALL ');
    await con.run(`COPY (${src}) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION '${codec === 'none' ? 'uncompressed' : codec}')`);
  } catch (e) { fail(`${out}: ${e.message.split('\n')[0]}`); }
}
