#!/usr/bin/env node
// Corpus conformance: `lithify parquet cat FILE` against the expected values of every Parquet file
// under <corpus>/parquet-testing/data, <corpus>/parquet-testing/bad_data and <corpus>/duckdb.
//
// Usage: node conformance.mjs [CORPUS] [--only SUBSTRING] [--verbose]
//   env LITHIFY (binary), LITHIFY_CORPUS (corpus root; default <repo>/../shared/corpus),
//   LITHIFY_JOBS (parallel files, default 2), LITHIFY_TIMEOUT (seconds per file, default 60).
// Output: one line per file (ok / FAIL / expected-error / gap), then "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import { openDuckDB, readParquetCanonical, parquetLeafHints, queryCanonical, sqlString, renderDecimalString } from './canonical.mjs';
import { compareCanonical, formatDiffs, splitLines } from './compare.mjs';
import { expectationFor } from './corpus-expectations.mjs';
import { lithifyPath, repoRoot, runCommand, pool, describeRun } from './run.mjs';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? args[onlyIdx + 1] : null;
const positional = args.filter((a, i) => !a.startsWith('--') && (onlyIdx < 0 || i !== onlyIdx + 1));
const corpus = path.resolve(positional[0] || process.env.LITHIFY_CORPUS || path.join(repoRoot, '..', 'shared', 'corpus'));
const lithify = lithifyPath();
const jobs = Number(process.env.LITHIFY_JOBS || 2);
const defaultTimeout = Number(process.env.LITHIFY_TIMEOUT || 60);

if (!fs.existsSync(corpus)) { console.error(`conformance: corpus not found: ${corpus}`); process.exit(2); }
if (!fs.existsSync(lithify)) { console.error(`conformance: lithify binary not found: ${lithify} (set LITHIFY)`); process.exit(2); }

function listParquet(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listParquet(p));
    else if (e.name.endsWith('.parquet') || e.name.endsWith('.parquet.encrypted')) out.push(p);
  }
  return out;
}

const files = ['parquet-testing/data', 'parquet-testing/bad_data', 'duckdb']
  .flatMap((d) => listParquet(path.join(corpus, d)))
  .map((f) => path.relative(corpus, f))
  .filter((f) => !only || f.includes(only))
  .sort();

// ---------------------------------------------------------------------------------------------
// Expected values

/** Minimal RFC 4180 reader; unquoted empty fields are null, quoted ones are strings. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let field;
    if (text[i] === '"') {
      let s = ''; i++;
      for (;;) {
        if (i >= n) break;
        if (text[i] === '"') { if (text[i + 1] === '"') { s += '"'; i += 2; continue; } i++; break; }
        s += text[i++];
      }
      field = { quoted: true, text: s };
    } else {
      let s = '';
      while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') s += text[i++];
      field = { quoted: false, text: s };
    }
    row.push(field);
    if (text[i] === ',') { i++; continue; }
    if (text[i] === '\r') i++;
    if (text[i] === '\n' || i >= n) { i++; rows.push(row); row = []; }
  }
  return rows.filter((r) => !(r.length === 1 && !r[0].quoted && r[0].text === ''));
}

/** Canonical JSON for one CSV cell, given the DuckDB column type (primitive columns only). */
function csvCell(cell, typeName) {
  if (!cell.quoted && cell.text === '') return 'null';
  const t = cell.text;
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/.test(typeName)) {
    if (!/^-?[0-9]+$/.test(t)) throw new Error(`CSV value ${t} is not an integer`);
    return BigInt(t).toString();
  }
  if (typeName === 'VARCHAR') return JSON.stringify(t);
  if (typeName === 'BOOLEAN') return /^(true|1)$/i.test(t) ? 'true' : 'false';
  if (typeName === 'FLOAT' || typeName === 'DOUBLE') return String(Number(t));
  const dec = /^DECIMAL\((\d+),(\d+)\)$/.exec(typeName);
  if (dec) {
    const scale = Number(dec[2]);
    const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(t);
    const frac = (m[3] || '').padEnd(scale, '0');
    return JSON.stringify(renderDecimalString(BigInt(`${m[1]}${m[2] || '0'}${frac}`), scale));
  }
  if (typeName === 'DATE') return JSON.stringify(t);
  throw new Error(`CSV column type ${typeName} not handled`);
}

async function expectedFromCsv(con, abs, csvAbs) {
  const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(abs)}, binary_as_string=false)`);
  const cols = d.getRowObjectsJson().map((r) => ({ name: r.column_name, type: r.column_type }));
  const rows = parseCsv(fs.readFileSync(csvAbs, 'utf8'));
  const header = rows.shift().map((c) => c.text.trim());
  const notes = [];
  if (header.length !== cols.length) throw new Error(`CSV has ${header.length} columns, parquet ${cols.length}`);
  const renamed = header.filter((h, i) => h !== cols[i].name).length;
  if (renamed) notes.push(`${renamed} CSV header names differ from the Parquet column names (e.g. ${JSON.stringify(header.find((h, i) => h !== cols[i].name))}); Parquet names used`);
  const lines = rows.map((r, li) => {
    if (r.length !== cols.length) throw new Error(`CSV row ${li + 2} has ${r.length} fields`);
    return `{${cols.map((c, i) => `${JSON.stringify(c.name)}:${csvCell(r[i], c.type)}`).join(',')}}`;
  });
  const float32Paths = new Set(cols.filter((c) => c.type === 'FLOAT').map((c) => c.name));
  return { lines, float32Paths, float16Paths: new Set(), notes };
}

/** DuckDB reading; GEOMETRY columns are read back as their WKB bytes (ST_AsWKB). */
async function expectedFromDuckDB(con, abs) {
  try {
    return await readParquetCanonical(con, abs);
  } catch (e) {
    if (!/GEOMETRY/.test(e.message)) throw e;
  }
  const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(abs)}, binary_as_string=false)`);
  const cols = d.getRowObjectsJson();
  const select = cols.map((c) => {
    const q = `"${c.column_name.replaceAll('"', '""')}"`;
    return c.column_type.startsWith('GEOMETRY') ? `ST_AsWKB(${q}) AS ${q}` : q;
  }).join(', ');
  const hints = await parquetLeafHints(con, abs);
  const out = await queryCanonical(con, `SELECT ${select} FROM read_parquet(${sqlString(abs)}, binary_as_string=false)`, hints);
  out.notes.push('GEOMETRY/GEOGRAPHY columns compared as the WKB DuckDB returns (ST_AsWKB)');
  return out;
}

/** Rows built from twin columns of the same file (each target column takes its twin's values). */
async function expectedFromTwinColumns(con, abs, twinColumns) {
  const hints = await parquetLeafHints(con, abs);
  const byName = Object.fromEntries(hints.map((h) => [h.name, h]));
  const names = hints.map((h) => h.name); // flat schema expected here
  const select = names.map((n) => {
    const src = twinColumns[n] ?? n;
    return `"${src}" AS "${n}"`;
  }).join(', ');
  const srcHints = names.map((n) => byName[twinColumns[n] ?? n]);
  const out = await queryCanonical(con, `SELECT ${select} FROM read_parquet(${sqlString(abs)}, binary_as_string=false)`, srcHints);
  out.notes.push('expected values of the BYTE_STREAM_SPLIT columns taken from their PLAIN twin columns');
  return out;
}

async function expectedFor(con, rel, exp) {
  const abs = path.join(corpus, rel);
  if (exp.csv) return { source: 'csv', ...(await expectedFromCsv(con, abs, path.join(corpus, exp.csv))) };
  if (exp.twinColumns) return { source: 'twin columns', ...(await expectedFromTwinColumns(con, abs, exp.twinColumns)) };
  let direct = null;
  let directErr = null;
  try { direct = await expectedFromDuckDB(con, abs); } catch (e) { directErr = e; }
  if (direct) {
    direct.source = 'duckdb';
    if (exp.twin) { // oracle self-check against the twin
      try {
        const t = await readParquetCanonical(con, path.join(corpus, exp.twin));
        const c = compareCanonical(t.lines, direct.lines, { float32Paths: direct.float32Paths, float16Paths: direct.float16Paths });
        direct.notes.push(c.equal ? `oracle cross-check: equals twin ${path.basename(exp.twin)}` : `ORACLE DISAGREES with twin ${exp.twin}: ${formatDiffs(c)[0]}`);
      } catch (e) { direct.notes.push(`twin unreadable: ${e.message}`); }
    }
    return direct;
  }
  if (exp.twin) {
    const t = await readParquetCanonical(con, path.join(corpus, exp.twin));
    t.source = `twin ${exp.twin}`;
    t.notes.push(`DuckDB rejects the file itself: ${directErr.message.split('\n')[0].slice(0, 160)}`);
    return t;
  }
  throw directErr;
}

// ---------------------------------------------------------------------------------------------
// Checks

function cleanErrorProblem(r, rel, need = []) {
  if (r.spawnError || r.timedOut || r.signal) return describeRun(r);
  if (r.code !== 1) return `exit ${r.code}, wanted 1`;
  const err = r.stderr;
  if (!/^lithify: error: /m.test(err)) return `stderr lacks "lithify: error: ": ${err.slice(0, 200)}`;
  if (!err.includes(path.basename(rel))) return `error does not name the file: ${err.trim().slice(0, 200)}`;
  for (const n of need) {
    if (!new RegExp(n, 'i').test(err)) return `error does not mention /${n}/i: ${err.trim().slice(0, 200)}`;
  }
  return null;
}

async function checkFile(rel, con) {
  const exp = expectationFor(rel);
  const abs = path.join(corpus, rel);
  const kind = exp.kind === 'gap' ? exp.gapOf : exp.kind;
  const timeoutSec = exp.timeout ?? defaultTimeout;
  const run = runCommand(lithify, ['parquet', 'cat', abs], { timeoutSec, maxBytes: exp.maxLines ? 1 << 20 : 512 << 20 });
  let expected = null;
  let oracleError = null;
  if (kind === 'match' || kind === 'reject-or-recover') {
    try { expected = await expectedFor(con, rel, exp); } catch (e) { oracleError = e; }
  }
  const r = await run;
  const res = { rel, exp, notes: [...(expected?.notes ?? [])] };
  if (exp.note) res.notes.unshift(exp.note);

  const compareOut = () => {
    if (r.truncated) return 'output too large to compare';
    const c = compareCanonical(expected.lines, splitLines(r.stdout), {
      float32Paths: expected.float32Paths, float16Paths: expected.float16Paths, ignore: new Set(exp.ignore ?? []),
    });
    return c.equal ? null : formatDiffs(c).join('\n      ');
  };

  let problem = null;
  let status = 'ok';
  switch (kind) {
    case 'match':
      if (oracleError) problem = `oracle failed: ${oracleError.message.split('\n')[0]}`;
      else if (r.code !== 0 || r.signal || r.timedOut) problem = describeRun(r);
      else problem = compareOut();
      break;
    case 'error':
      problem = cleanErrorProblem(r, rel, exp.need);
      status = 'expected-error';
      if (!problem) res.detail = r.stderr.trim().split('\n')[0].slice(0, 160);
      break;
    case 'reject-or-recover':
      if (r.code === 0 && !r.signal && !r.timedOut) {
        if (oracleError) problem = `recovered but no oracle values: ${oracleError.message.split('\n')[0]}`;
        else { problem = compareOut(); res.detail = `recovered ${r.newlines} rows`; }
      } else {
        problem = cleanErrorProblem(r, rel);
        status = 'expected-error';
        if (!problem) res.detail = r.stderr.trim().split('\n')[0].slice(0, 160);
      }
      break;
    case 'clean':
      if (r.spawnError || r.timedOut || r.signal) problem = describeRun(r);
      else if (r.code === 0) {
        res.detail = `exit 0, ${r.newlines} rows`;
        if (exp.maxLines !== undefined && r.newlines !== exp.maxLines) problem = `exit 0 with ${r.newlines} rows, wanted ${exp.maxLines}`;
      } else {
        problem = cleanErrorProblem(r, rel);
        // a clean refusal is not a pass: it is reported as a gap (lithify cannot read the file)
        if (!problem) { status = 'gap'; res.detail = r.stderr.trim().split('\n')[0].slice(0, 200); }
      }
      break;
    case 'check':
      if (r.code !== 0 || r.signal || r.timedOut) problem = describeRun(r);
      else {
        try { problem = exp.check(splitLines(r.stdout).map((l) => JSON.parse(l))); } catch (e) { problem = `output: ${e.message}`; }
        res.detail = `consistency check, ${r.newlines} rows`;
      }
      break;
    default:
      problem = `unknown expectation kind ${kind}`;
  }
  if (exp.kind === 'gap') res.status = problem ? 'gap' : 'ok';
  else res.status = problem ? 'FAIL' : status;
  res.problem = problem;
  res.source = expected?.source;
  return res;
}

// ---------------------------------------------------------------------------------------------

const con0 = await openDuckDB();
await con0.run('SET enable_geoparquet_conversion = false');
const cons = [con0];
for (let i = 1; i < jobs; i++) {
  const c = await con0._lithifyInstance.connect();
  await c.run('SET enable_geoparquet_conversion = false');
  cons.push(c);
}

console.log(`conformance: ${files.length} files, lithify ${lithify}, corpus ${corpus}`);
const results = await pool(files, jobs, async (rel, w) => {
  const res = await checkFile(rel, cons[w]);
  let line = `${res.status.padEnd(14)} ${rel}`;
  if (res.detail) line += ` (${res.detail})`;
  if (res.problem) line += `\n      ${res.problem.split('\n').join('\n      ')}`;
  if (res.status === 'gap' && res.exp.kind === 'gap') line += `\n      gap: ${res.exp.note}`;
  if (verbose || res.status !== 'ok') for (const n of res.notes) if (!(res.exp.kind === 'gap' && n === res.exp.note)) line += `\n      note: ${n}`;
  console.log(line);
  return res;
});

const passed = results.filter((r) => r.status === 'ok' || r.status === 'expected-error').length;
const failed = results.filter((r) => r.status === 'FAIL').length;
const gaps = results.filter((r) => r.status === 'gap');
const gapsNowPassing = results.filter((r) => r.exp.kind === 'gap' && r.status === 'ok');
if (gaps.length) console.log(`${gaps.length} documented gaps: ${gaps.map((g) => path.basename(g.rel)).join(', ')}`);
if (gapsNowPassing.length) console.log(`listed as gap but passing now (update corpus-expectations.mjs): ${gapsNowPassing.map((g) => g.rel).join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
