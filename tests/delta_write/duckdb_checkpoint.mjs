#!/usr/bin/env node
// DuckDB's view of a Delta checkpoint file (the independent oracle for the checkpoint
// writer): prints one JSON object with the row count and the number of rows of each
// action column, plus the sorted add paths.
// Usage: node duckdb_checkpoint.mjs CHECKPOINT.parquet
import { openDuckDB, sqlString } from '../oracle/canonical.mjs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: duckdb_checkpoint.mjs CHECKPOINT.parquet\n');
  process.exit(2);
}
try {
  const con = await openDuckDB();
  const src = `read_parquet(${sqlString(file)})`;
  const counts = await con.runAndReadAll(
    `SELECT count(*)::BIGINT, count(add)::BIGINT, count(remove)::BIGINT, count(metaData)::BIGINT,
            count(protocol)::BIGINT, count(txn)::BIGINT, count(domainMetadata)::BIGINT,
            count(add.deletionVector)::BIGINT, sum(add.size)::BIGINT FROM ${src}`);
  const [rows, adds, removes, metadata, protocol, txns, domains, dvs, addBytes] =
      counts.getRows()[0].map((v) => (v === null ? null : Number(v)));
  const paths = await con.runAndReadAll(
    `SELECT add.path FROM ${src} WHERE add IS NOT NULL ORDER BY add.path`);
  const out = { rows, adds, removes, metadata, protocol, txns, domains, dvs, addBytes,
                addPaths: paths.getRows().map((r) => r[0]) };
  process.stdout.write(JSON.stringify(out) + '\n');
} catch (e) {
  process.stderr.write(`duckdb_checkpoint: ${file}: ${e.message}\n`);
  process.exit(1);
}
