// Write-side acceptance 1: a seeded random sequence of create / append / delete /
// checkpoint / alter, run through the `lithify` CLI on a real directory and compared with an
// in-memory model after every step.
//
// After each step:
//   * `lithify scan T --format jsonl` must equal the model's rows as a multiset;
//   * the log validator (`delta_validate`, tests/delta_write) must accept the table when it is
//     built (LITHIFY_VALIDATE points at it);
// and at the end of each table, every live data file must read in DuckDB with the same rows as
// `lithify parquet cat` prints for it (the DuckDB oracle, tests/oracle/canonical.mjs).
//
// Tables cover: every Delta type, partitioning with awkward values, deletion vectors, row
// tracking with in-commit timestamps and frequent checkpoints, column mapping, clustering.
//
// With --s3 the tables live under a fresh s3:// prefix on the S3 test server (scripts/servers.sh
// env) and the same checks run there (the DuckDB oracle reads a downloaded copy of each file).
//
// Usage: node model.mjs [--seed N] [--steps N] [--tables name,...] [--s3] [--keep]
//   LITHIFY=path/to/lithify  LITHIFY_VALIDATE=path/to/delta_validate
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand, lithifyPath } from '../oracle/run.mjs';
import { mulberry32 } from './random.mjs';
import { openDuckDB, readParquetCanonical } from '../oracle/canonical.mjs';
import { compareCanonical, formatDiffs, splitLines } from '../oracle/compare.mjs';
import { openStore, s3TestRoot } from './store.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const seed = Number(opt('seed', process.env.LITHIFY_MODEL_SEED || 7));
const steps = Number(opt('steps', process.env.LITHIFY_MODEL_STEPS || 24));
const keep = args.includes('--keep');
const onS3 = args.includes('--s3');
const lithify = lithifyPath();
const validator = process.env.LITHIFY_VALIDATE || '';

// ---------- deterministic randomness ----------
let rand = mulberry32(seed);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));  // inclusive
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;

// ---------- the schema (every Delta type) ----------
const SCHEMA = [
  'id long', 'grp string', 'b boolean', 'i8 byte', 'i16 short', 'i32 int', 'i64 long',
  'f float', 'd double', 'dec decimal(10,2)', 'dec38 decimal(38,6)', 's string', 'bin binary',
  'dt date', 'ts timestamp', 'tsn timestamp_ntz', 'arr array<int>',
  'st struct<x: int, y: string>', 'm map<string, int>',
].join(', ');

const GROUPS = ['a', 'b c', 'x/y', '100%', 'é', 'a=b', '#h', 'q?r', null];
const WORDS = ['alpha', 'beta', 'gamma', 'δέλτα', 'emoji 🎉', 'quote"d', 'new\nline', 'tab\t', ''];

const pad = (n, w) => String(n).padStart(w, '0');
function dateText(days) {
  const d = new Date(days * 86400000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}
function tsText(micros, utc) {
  const ms = Math.floor(micros / 1000);
  const d = new Date(ms);
  const frac = pad(((micros % 1000000) + 1000000) % 1000000, 6);
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${frac}`;
  return utc ? `${base}Z` : base;
}
function decText(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${text}` : text;
}
const nullable = (p, f) => (chance(p) ? null : f());

let nextId = 1;
// One row in canonical JSON form (what `scan` prints), keys in schema order.
function randomRow() {
  const day0 = 19723;  // 2024-01-01
  return {
    id: nextId++,
    grp: pick(GROUPS),
    b: nullable(0.1, () => chance(0.5)),
    i8: nullable(0.1, () => randInt(-128, 127)),
    i16: nullable(0.1, () => randInt(-32768, 32767)),
    i32: nullable(0.15, () => randInt(-1000, 1000)),
    i64: nullable(0.1, () => randInt(-(2 ** 40), 2 ** 40)),
    f: nullable(0.1, () => randInt(-800, 800) / 8),
    d: nullable(0.1, () => randInt(-40000, 40000) / 4),
    dec: nullable(0.1, () => decText(BigInt(randInt(-99999999, 99999999)), 2)),
    dec38: nullable(0.1, () => decText(BigInt(randInt(-(2 ** 50), 2 ** 50)) * 1000000007n, 6)),
    s: nullable(0.1, () => pick(WORDS) + (chance(0.3) ? 'x'.repeat(randInt(30, 60)) : '')),
    bin: nullable(0.1, () => Buffer.from(Array.from({ length: randInt(0, 6) }, () => randInt(0, 255))).toString('base64')),
    dt: nullable(0.1, () => dateText(day0 + randInt(0, 60))),
    ts: nullable(0.1, () => tsText((day0 + randInt(0, 60)) * 86400000000 + randInt(0, 86399999999), true)),
    tsn: nullable(0.1, () => tsText((day0 + randInt(0, 60)) * 86400000000 + randInt(0, 86399999999), false)),
    arr: nullable(0.1, () => Array.from({ length: randInt(0, 3) }, () => (chance(0.1) ? null : randInt(-9, 9)))),
    st: nullable(0.1, () => ({ x: nullable(0.2, () => randInt(0, 99)), y: nullable(0.2, () => pick(WORDS)) })),
    m: nullable(0.1, () => {
      const keys = [...new Set(Array.from({ length: randInt(0, 3) }, () => pick(['k1', 'k2', 'k3', 'k4'])))];
      return keys.map((k) => ({ key: k, value: chance(0.2) ? null : randInt(0, 9) }));
    }),
  };
}

// ---------- predicates (SQL three-valued logic) ----------
// Each generator returns { text, eval(row) -> true | false | null }.
const cmp = (a, op, b) => {
  if (a === null || a === undefined) return null;
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    case '=': return a === b;
    case '<>': return a !== b;
  }
  throw new Error(op);
};
const and3 = (a, b) => (a === false || b === false ? false : a === null || b === null ? null : true);
const or3 = (a, b) => (a === true || b === true ? true : a === null || b === null ? null : false);
const sqlStr = (s) => `'${s.replaceAll("'", "''")}'`;

function randomPredicate(partitioned) {
  const maxId = Math.max(1, nextId - 1);
  const gens = [
    () => { const n = randInt(1, maxId); const op = pick(['<', '<=', '>', '>=']); return { text: `id ${op} ${n}`, eval: (r) => cmp(r.id, op, n) }; },
    () => { const a = randInt(1, maxId); const b = a + randInt(0, 20); return { text: `id BETWEEN ${a} AND ${b}`, eval: (r) => and3(cmp(r.id, '>=', a), cmp(r.id, '<=', b)) }; },
    () => { const xs = Array.from({ length: randInt(1, 6) }, () => randInt(1, maxId)); return { text: `id IN (${xs.join(', ')})`, eval: (r) => xs.includes(r.id) }; },
    () => { const k = randInt(-1000, 1000); const op = pick(['<', '>', '=', '<>']); return { text: `i32 ${op} ${k}`, eval: (r) => cmp(r.i32, op, k) }; },
    () => ({ text: 'i32 IS NULL', eval: (r) => r.i32 === null }),
    () => { const w = pick(WORDS.filter((x) => !x.includes('\n') && !x.includes('\t'))); return { text: `s = ${sqlStr(w)}`, eval: (r) => cmp(r.s, '=', w) }; },
    () => { const g = pick(GROUPS.filter((x) => x !== null)); return { text: `grp = ${sqlStr(g)}`, eval: (r) => cmp(r.grp, '=', g) }; },
    () => ({ text: 'grp IS NULL', eval: (r) => r.grp === null }),
    () => { const n = randInt(1, maxId); const k = randInt(-500, 500); return { text: `NOT (id < ${n}) AND i32 > ${k}`, eval: (r) => and3(r.id === null ? null : !(r.id < n), cmp(r.i32, '>', k)) }; },
    () => { const d = dateText(19723 + randInt(0, 60)); return { text: `dt > DATE '${d}' OR b = TRUE`, eval: (r) => or3(cmp(r.dt, '>', d), cmp(r.b, '=', true)) }; },
  ];
  void partitioned;
  return pick(gens)();
}

// ---------- running lithify ----------
async function lith(argv, { expectOk = true } = {}) {
  const r = await runCommand(lithify, argv, { timeoutSec: 300 });
  if (expectOk && r.code !== 0) {
    throw new Error(`lithify ${argv.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  }
  return r;
}

// Multiset form of JSONL rows: each line parsed and re-serialized with sorted keys.
function normalize(obj) {
  if (Array.isArray(obj)) return obj.map(normalize);
  if (obj && typeof obj === 'object') {
    const out = {};
    for (const k of Object.keys(obj).sort()) out[k] = normalize(obj[k]);
    return out;
  }
  return obj;
}
const rowKey = (row) => JSON.stringify(normalize(row));
function multiset(rows) {
  const m = new Map();
  for (const r of rows) { const k = rowKey(r); m.set(k, (m.get(k) || 0) + 1); }
  return m;
}
function diffMultisets(want, got) {
  const missing = []; const extra = [];
  for (const [k, n] of want) { const g = got.get(k) || 0; if (g < n) missing.push(k); }
  for (const [k, n] of got) { const w = want.get(k) || 0; if (n > w) extra.push(k); }
  return { missing, extra };
}

async function checkScan(table, model, label) {
  const r = await lith(['scan', table, '--format', 'jsonl']);
  const rows = r.stdout.split('\n').filter((l) => l.length).map((l) => JSON.parse(l));
  const { missing, extra } = diffMultisets(multiset(model), multiset(rows));
  if (missing.length || extra.length) {
    throw new Error(`${label}: scan differs from the model (${model.length} expected, ${rows.length} read)\n` +
      `missing: ${missing.slice(0, 3).join('\n')}\nextra: ${extra.slice(0, 3).join('\n')}`);
  }
}

async function checkValidator(table, label) {
  if (!validator) return;
  const r = await runCommand(validator, [table], { timeoutSec: 300 });
  if (r.code !== 0) throw new Error(`${label}: delta_validate rejected the table:\n${r.stdout}${r.stderr}`);
}

// Every live data file: DuckDB's reading equals `lithify parquet cat`.
async function checkFilesWithDuckDB(con, store, table, tmp, label) {
  const r = await lith(['files', table, '--json']);
  const listing = JSON.parse(r.stdout);
  const files = (listing.files || listing).map((f) => f.path);
  for (const rel of files) {
    const file = store.join(table, rel);
    const ours = await lith(['parquet', 'cat', file, '--format', 'jsonl']);
    const theirs = await readParquetCanonical(con, await store.localCopy(file, tmp));
    const c = compareCanonical(theirs.lines, splitLines(ours.stdout),
      { float32Paths: theirs.float32Paths, float16Paths: theirs.float16Paths });
    if (!c.equal) throw new Error(`${label}: ${rel}: DuckDB and lithify differ:\n${formatDiffs(c).join('\n')}`);
  }
  return files.length;
}

// ---------- the tables ----------
const TABLES = {
  plain: { create: [] },
  partitioned_dv: {
    create: ['--partitioned-by', 'grp', '--property', 'delta.enableDeletionVectors=true'],
    partitioned: true,
  },
  rowtracking_ict: {
    create: ['--property', 'delta.enableRowTracking=true', '--property', 'delta.enableDeletionVectors=true',
      '--property', 'delta.enableInCommitTimestamps=true', '--property', 'delta.checkpointInterval=3'],
  },
  column_mapping: {
    create: ['--partitioned-by', 'grp', '--property', 'delta.columnMapping.mode=name'],
    partitioned: true,
  },
  clustered: { create: ['--cluster-by', 'id,i32', '--property', 'delta.enableDeletionVectors=true'] },
};

async function runTable(name, spec, root, tmp, con) {
  const store = openStore(root);
  const table = store.join(root, name);
  let model = [];
  await lith(['create', table, '--schema', SCHEMA, ...spec.create]);
  await checkScan(table, model, `${name} after create`);
  const log = [];
  for (let step = 1; step <= steps; step++) {
    const r = rand();
    let label;
    if (r < 0.45 || model.length === 0) {
      const rows = Array.from({ length: randInt(1, 40) }, randomRow);
      const input = path.join(tmp, `${name}-${step}.jsonl`);
      fs.writeFileSync(input, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
      await lith(['append', table, '--from', input]);
      // A partition value that is the empty string reads back as null (Delta's rule).
      model.push(...rows);
      label = `append ${rows.length}`;
    } else if (r < 0.75) {
      const p = randomPredicate(spec.partitioned);
      const res = await lith(['delete', table, '--where', p.text]);
      void res;
      const before = model.length;
      model = model.filter((row) => p.eval(row) !== true);
      label = `delete where ${p.text} (${before - model.length} rows)`;
    } else if (r < 0.87) {
      await lith(['checkpoint', table]);
      label = 'checkpoint';
    } else {
      const choice = pick(['delta.checkpointInterval=' + randInt(2, 5), 'lithify.model.step=' + step,
        'delta.appendOnly=false']);
      await lith(['alter', table, '--set', choice]);
      label = `alter --set ${choice}`;
    }
    log.push(label);
    const where = `${name} step ${step} (${label})`;
    await checkScan(table, model, where);
    await checkValidator(table, where);
  }
  const files = await checkFilesWithDuckDB(con, store, table, tmp, name);
  return { steps: log.length, rows: model.length, files };
}

async function main() {
  const only = opt('tables', '');
  const names = only ? only.split(',') : Object.keys(TABLES);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-model-'));
  const root = onS3 ? s3TestRoot('model') : tmp;
  const con = await openDuckDB();
  let failed = 0;
  try {
    for (const name of names) {
      rand = mulberry32(seed * 1000 + names.indexOf(name));
      try {
        const r = await runTable(name, TABLES[name], root, tmp, con);
        console.log(`PASS ${name}: ${r.steps} steps, ${r.rows} live rows, ${r.files} data files checked with DuckDB`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${name}: ${e.message}`);
      }
    }
  } finally {
    con.closeSync?.();
    if (!keep && !failed) fs.rmSync(tmp, { recursive: true, force: true });
    else console.log(`tables kept in ${root}`);
  }
  console.log(`${names.length - failed} of ${names.length} tables passed (seed ${seed}, ${steps} steps each)`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => { console.error(e); process.exit(1); });
