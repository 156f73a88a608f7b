#!/usr/bin/env node
// DuckDB as the independent reader of OPTIMIZE's value conversions (parquet/column_map.h):
// Spark-written Delta tables whose files hold INT96 or millisecond timestamps are copied to
// a temporary directory, DuckDB reads every live data file before and after `lithify
// optimize`, and the two row multisets must be equal, timestamps compared as microseconds
// since the epoch (DuckDB decodes INT96 and TIMESTAMP_MILLIS itself, so a conversion error of
// ours shows up as a different instant). Every bin must have taken the columnar path
// (numBinsRewrittenColumnar == numBins), which is where the conversions are.
//
//   LITHIFY=build/tools/cli/lithify LITHIFY_CORPUS=../shared/corpus node optimize_converted.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openDuckDB, sqlString } from './canonical.mjs';

const lithify = process.env.LITHIFY;
const corpus = process.env.LITHIFY_CORPUS;
if (!lithify || !corpus) {
  console.error('optimize_converted: set LITHIFY and LITHIFY_CORPUS');
  process.exit(2);
}
const golden = (name) => path.join(corpus, 'delta-kernel-rs/kernel/tests/golden_data', name, 'delta');
const tables = ['kernel-timestamp-int96', 'kernel-timestamp-timestamp_millis', 'table-with-columnmapping-mode-name'];

const con = await openDuckDB();
let failures = 0;
const fail = (table, msg) => {
  console.error(`FAIL ${table}: ${msg}`);
  failures++;
};

function run(args) {
  return execFileSync(lithify, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

function liveFiles(root) {
  const doc = JSON.parse(run(['files', root, '--json']));
  return doc.files.map((f) => path.join(root, f.path));  // relative, as on disk
}

// The rows of the files as sorted text lines: timestamps as epoch microseconds, the rest as
// DuckDB's VARCHAR; columns by name (union_by_name), in name order.
async function rows(files) {
  const list = `[${files.map(sqlString).join(', ')}]`;
  const from = `read_parquet(${list}, union_by_name = true, hive_partitioning = false)`;
  const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRowObjects();
  const exprs = described
    .map((c) => ({ name: String(c.column_name), type: String(c.column_type) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, type }) => {
      const q = `"${name.replaceAll('"', '""')}"`;
      return type.startsWith('TIMESTAMP') ? `epoch_us(${q})::VARCHAR` : `${q}::VARCHAR`;
    });
  const result = await con.runAndReadAll(`SELECT ${exprs.join(', ')} FROM ${from}`);
  return { columns: described.length, lines: result.getRows().map((r) => JSON.stringify(r)).sort() };
}

for (const table of tables) {
  const src = golden(table);
  if (!fs.existsSync(src)) {
    fail(table, `${src} is missing (the corpus)`);
    continue;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-optconv-'));
  try {
    const root = path.join(dir, 'table');
    fs.cpSync(src, root, { recursive: true });
    const before = await rows(liveFiles(root));
    const out = JSON.parse(run(['optimize', root, '--json']));
    const m = out.metrics ?? out;
    if (!(m.numBins > 0) || m.numBinsRewrittenColumnar !== m.numBins) {
      fail(table, `expected every bin columnar, got numBins ${m.numBins}, columnar ${m.numBinsRewrittenColumnar}`);
    }
    const after = await rows(liveFiles(root));
    if (before.columns !== after.columns) fail(table, `${before.columns} columns before, ${after.columns} after`);
    if (JSON.stringify(before.lines) !== JSON.stringify(after.lines)) {
      const missing = before.lines.filter((l) => !after.lines.includes(l)).slice(0, 3);
      fail(table, `DuckDB reads other rows after OPTIMIZE; e.g. before only: ${missing.join(' | ')}`);
    } else {
      console.log(`ok ${table}: ${before.lines.length} rows read the same by DuckDB, ${m.numBins} bin(s) columnar`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
process.exitCode = failures === 0 ? 0 : 1;
