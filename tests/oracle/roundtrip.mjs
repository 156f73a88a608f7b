#!/usr/bin/env node
// Round-trip tests between lithify and DuckDB.
//
// Usage: node roundtrip.mjs duckdb-written | lithify-written | rewrite [--verbose]
//   duckdb-written   DuckDB writes a rich table with every codec it can write, dictionary on/off,
//                    page format v1/v2 and several row-group sizes; `lithify parquet cat` must equal
//                    DuckDB's canonical reading of each file.
//   lithify-written  for seeds 1..N (env LITHIFY_ROUNDTRIP_CASES, default 200):
//                    `lithify_testgen --seed S --out f --expect e`; DuckDB's reading of f and
//                    `lithify parquet cat f` must both equal e; row-group statistics of every
//                    primitive top-level column must be exact (null count, min, max).
//   rewrite          `lithify parquet rewrite OUT IN...` over DuckDB-written inputs sharing a schema:
//                    DuckDB's reading of OUT must equal the concatenation of the inputs.
// env: LITHIFY, LITHIFY_TESTGEN (binaries), LITHIFY_TIMEOUT (seconds per command, default 60),
//      LITHIFY_JOBS (default 2), LITHIFY_KEEP=1 keeps the temporary directory.
// Each mode prints one line per case and ends with "N passed, N failed"; exit 1 on any failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDB, readParquetCanonical, parquetMetadata, sqlString } from './canonical.mjs';
import { compareCanonical, formatDiffs, splitLines } from './compare.mjs';
import { lithifyPath, repoRoot, runCommand, pool, describeRun } from './run.mjs';

const mode = process.argv[2];
const verbose = process.argv.includes('--verbose');
const timeoutSec = Number(process.env.LITHIFY_TIMEOUT || 60);
const jobs = Number(process.env.LITHIFY_JOBS || 2);
const lithify = lithifyPath();
const testgen = process.env.LITHIFY_TESTGEN || path.join(repoRoot, 'build', 'tests', 'tools', 'lithify_testgen');

if (!['duckdb-written', 'lithify-written', 'rewrite'].includes(mode)) {
  console.error('usage: node roundtrip.mjs duckdb-written|lithify-written|rewrite [--verbose]');
  process.exit(2);
}
if (!fs.existsSync(lithify)) { console.error(`roundtrip: lithify binary not found: ${lithify} (set LITHIFY)`); process.exit(2); }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `lithify-${mode}-`));
const con = await openDuckDB();
const cons = [con];
for (let i = 1; i < jobs; i++) cons.push(await con._lithifyInstance.connect());

let passed = 0;
let failed = 0;
function report(name, problem, detail = '') {
  if (problem) {
    failed++;
    console.log(`FAIL ${name}\n      ${problem.split('\n').join('\n      ')}`);
  } else {
    passed++;
    console.log(`ok   ${name}${detail ? ` (${detail})` : ''}`);
  }
}

/** `lithify parquet cat f` compared with expected canonical lines; returns a problem or null. */
async function lithifyCatProblem(file, expected) {
  const r = await runCommand(lithify, ['parquet', 'cat', file], { timeoutSec });
  if (r.code !== 0 || r.signal || r.timedOut) return `lithify parquet cat: ${describeRun(r)}`;
  const c = compareCanonical(expected.lines, splitLines(r.stdout), {
    float32Paths: expected.float32Paths, float16Paths: expected.float16Paths,
  });
  return c.equal ? null : `lithify parquet cat differs from DuckDB:\n  ${formatDiffs(c).join('\n  ')}`;
}

// ---------------------------------------------------------------------------------------------
// The rich table (deterministic; nulls in every column at different rates)

const N_ROWS = 5000;
const nul = (k, expr) => `CASE WHEN i % ${k} = ${k - 1} THEN NULL ELSE ${expr} END`;
const RICH_COLUMNS = [
  ['id', 'i::BIGINT'],
  ['b', nul(5, 'i % 3 = 0')],
  ['i8', nul(7, "CASE i % 4 WHEN 0 THEN -128 WHEN 1 THEN 127 ELSE (i % 255) - 127 END::TINYINT")],
  ['i16', nul(11, 'CASE i % 4 WHEN 0 THEN -32768 WHEN 1 THEN 32767 ELSE (i * 37) % 65535 - 32767 END::SMALLINT')],
  ['i32', nul(13, 'CASE i % 4 WHEN 0 THEN -2147483648 WHEN 1 THEN 2147483647 ELSE (i * 7919) % 4294967295 - 2147483647 END::INTEGER')],
  ['i64', nul(17, "CASE i % 5 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807 WHEN 2 THEN 9007199254740993 ELSE (i * 1000003)::BIGINT * -1000000007 END::BIGINT")],
  ['u8', nul(19, 'CASE i % 3 WHEN 0 THEN 255 ELSE i % 256 END::UTINYINT')],
  ['u16', nul(23, 'CASE i % 3 WHEN 0 THEN 65535 ELSE (i * 31) % 65536 END::USMALLINT')],
  ['u32', nul(29, 'CASE i % 3 WHEN 0 THEN 4294967295 ELSE (i * 2654435761) % 4294967296 END::UINTEGER')],
  ['u64', nul(31, "CASE i % 4 WHEN 0 THEN 18446744073709551615 WHEN 1 THEN 9223372036854775808 ELSE (i * 11400714819323198485::UBIGINT % 18446744073709551615) END::UBIGINT")],
  ['f32', nul(9, "CASE i % 9 WHEN 0 THEN 'NaN'::FLOAT WHEN 1 THEN 'inf'::FLOAT WHEN 2 THEN '-inf'::FLOAT WHEN 3 THEN '-0.0'::FLOAT WHEN 4 THEN 3.4028235e38::FLOAT WHEN 5 THEN 1.4e-45::FLOAT ELSE (i / 7.0 - 300)::FLOAT END")],
  ['f64', nul(10, "CASE i % 10 WHEN 0 THEN 'NaN'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN '-0.0'::DOUBLE WHEN 4 THEN 1.7976931348623157e308 WHEN 5 THEN 5e-324 WHEN 6 THEN 0.1 ELSE (i / 3.0 - 777) * 1e10 END::DOUBLE")],
  ['d4_2', nul(6, '((i % 19999) - 9999) / 100.0)::DECIMAL(4,2)'.replace(/^/, '('))],
  ['d9_3', nul(8, '((i * 7919) % 1999999999 - 999999999)::DECIMAL(18,0) / 1000)::DECIMAL(9,3)'.replace(/^/, '('))],
  ['d18_6', nul(12, "(((i * 1000003)::HUGEINT * 999983) % 999999999999999999 * CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END)::DECIMAL(38,0) / 1000000)::DECIMAL(18,6)".replace(/^/, '('))],
  ['d38_10', nul(14, "(CASE i % 3 WHEN 0 THEN '9999999999999999999999999999.9999999999' WHEN 1 THEN '-9999999999999999999999999999.9999999999' ELSE (i * 123456789.0123)::VARCHAR END)::DECIMAL(38,10)")],
  ['s', nul(4, "CASE i % 6 WHEN 0 THEN '' WHEN 1 THEN repeat('long-' || i::VARCHAR, 200) WHEN 2 THEN 'héllo wörld ✓ 𝄞 ' || i::VARCHAR WHEN 3 THEN E'quote\" backslash\\\\ tab\\t nl\\n' ELSE 'v' || (i % 50)::VARCHAR END")],
  ['bl', nul(15, "CASE i % 3 WHEN 0 THEN ''::BLOB WHEN 1 THEN '\\x00\\xFF\\x10abc'::BLOB ELSE ('b' || i::VARCHAR)::BLOB END")],
  ['dt', nul(16, "CASE i % 5 WHEN 0 THEN DATE '0001-01-01' WHEN 1 THEN DATE '9999-12-31' WHEN 2 THEN DATE '1970-01-01' WHEN 3 THEN DATE '1900-02-28' ELSE DATE '2000-02-29' + (i % 4000)::INTEGER END")],
  ['tm', nul(18, "CASE i % 3 WHEN 0 THEN TIME '00:00:00' WHEN 1 THEN TIME '23:59:59.999999' ELSE TIME '00:00:00' + to_microseconds((i * 1234567)::BIGINT % 86400000000) END")],
  ['ts', nul(20, "CASE i % 4 WHEN 0 THEN TIMESTAMP '1970-01-01 00:00:00' WHEN 1 THEN TIMESTAMP '1677-09-22 00:00:00.000001' WHEN 2 THEN TIMESTAMP '2262-04-11 23:47:16.854775' ELSE TIMESTAMP '2024-02-29 12:34:56.789012' + to_microseconds(i * 3600000007) END")],
  ['ts_ms', nul(21, "(TIMESTAMP '2001-01-01' + to_milliseconds(i * 86400123))::TIMESTAMP_MS")],
  ['ts_ns', nul(22, "make_timestamp_ns(1704067200000000001 + i::BIGINT * 1000003007)")],
  ['tstz', nul(24, "(TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds(i * 999999937))")],
  ['u', nul(25, "('00000000-0000-4000-8000-' || lpad(printf('%x', i * 2654435761), 12, '0'))::UUID")],
  ['st', nul(26, "{'a': " + nul(3, 'i::INTEGER') + ", 'b': " + nul(4, "'x' || i::VARCHAR") + ", 'c': {'d': " + nul(5, '[i, NULL, -i]::INTEGER[]') + ", 'e': " + nul(2, '(i / 8.0)::DOUBLE') + '}}')],
  ['li', nul(27, "CASE i % 4 WHEN 0 THEN []::INTEGER[][] WHEN 1 THEN [NULL]::INTEGER[][] ELSE [[i, i + 1], [], NULL, [NULL, i]]::INTEGER[][] END")],
  ['lst', nul(28, "[{'k': 'a' || i::VARCHAR, 'v': [i::BIGINT, NULL]}, NULL]")],
  ['mp', nul(30, "CASE i % 3 WHEN 0 THEN MAP {}::MAP(VARCHAR, INTEGER[]) ELSE MAP {'k' || i::VARCHAR: [i, NULL]::INTEGER[], 'z': NULL::INTEGER[]} END")],
  ['js', nul(32, `('{"n": ' || i::VARCHAR || ', "s": "t"}')::JSON`)],
];
const RICH_SQL = `SELECT ${RICH_COLUMNS.map(([n, e]) => `${e} AS ${n}`).join(',\n  ')}\nFROM (SELECT range AS i FROM range(${N_ROWS}))`;

async function createRichTable(c) {
  await c.run(`CREATE OR REPLACE TABLE rich AS ${RICH_SQL}`);
}

// ---------------------------------------------------------------------------------------------
// (a) DuckDB-written files read by lithify

async function duckdbWritten() {
  await createRichTable(con);
  const codecs = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'lz4', 'brotli'];
  const variants = [];
  for (const codec of codecs) variants.push({ codec, rg: 100000, dict: true, v: 'V1' });
  for (const codec of ['snappy', 'zstd', 'uncompressed']) variants.push({ codec, rg: 2048, dict: false, v: 'V1' });
  for (const codec of ['zstd', 'gzip', 'uncompressed', 'lz4_raw']) variants.push({ codec, rg: 3000, dict: true, v: 'V2' });
  variants.push({ codec: 'snappy', rg: 2048, dict: false, v: 'V2' });
  const cases = variants.map((v) => ({
    ...v,
    name: `${v.codec} v=${v.v} dict=${v.dict ? 'on' : 'off'} row_group_size=${v.rg}${v.rgBytes ? ` row_group_size_bytes=${v.rgBytes}` : ''}`,
    file: path.join(tmp, `rich_${v.codec}_${v.v}_${v.dict ? 'dict' : 'plain'}_${v.rg}${v.rgBytes ? `_${v.rgBytes}` : ''}.parquet`),
  }));
  for (const k of cases) {
    const opts = [`FORMAT parquet`, `COMPRESSION '${k.codec}'`, `ROW_GROUP_SIZE ${k.rg}`, `PARQUET_VERSION ${k.v}`];
    if (!k.dict) opts.push('DICTIONARY_SIZE_LIMIT 0');
    if (k.rgBytes) opts.push(`ROW_GROUP_SIZE_BYTES '${k.rgBytes}'`);
    await con.run(`COPY (SELECT * FROM rich ORDER BY id) TO ${sqlString(k.file)} (${opts.join(', ')})`);
  }
  await pool(cases, jobs, async (k, w) => {
    const c = cons[w];
    let problem = null;
    let detail = '';
    try {
      const expected = await readParquetCanonical(c, k.file);
      if (expected.lines.length !== N_ROWS) problem = `oracle: DuckDB read ${expected.lines.length} rows, wrote ${N_ROWS}`;
      const md = await parquetMetadata(c, k.file);
      const rgs = new Set(md.map((m) => m.row_group_id)).size;
      const encodings = [...new Set(md.flatMap((m) => String(m.encodings).split(',').map((s) => s.trim())))].sort();
      detail = `${rgs} row groups; ${encodings.join(' ')}`;
      if (!problem) problem = await lithifyCatProblem(k.file, expected);
    } catch (e) { problem = `oracle: ${e.message}`; }
    report(`duckdb-written ${k.name}`, problem, detail);
  });
}

// ---------------------------------------------------------------------------------------------
// (b) lithify-written files (lithify_testgen) read by DuckDB, plus statistics exactness

const STATS_TYPES = /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|HUGEINT|FLOAT|DOUBLE|DATE|TIMESTAMP|TIMESTAMP_MS|TIMESTAMP_S|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE|VARCHAR|DECIMAL\(\d+,\d+\))$/;

/** Statistics of every primitive top-level column, per row group; returns a list of problems. */
async function statsProblems(c, file) {
  const problems = [];
  const f = sqlString(file);
  const d = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${f}, binary_as_string=false)`);
  const types = Object.fromEntries(d.getRowObjectsJson().map((r) => [r.column_name, r.column_type]));
  const md = await parquetMetadata(c, file);
  // first row of each row group
  const rgRows = new Map();
  for (const m of md) rgRows.set(Number(m.row_group_id), Number(m.row_group_num_rows));
  const starts = new Map();
  let acc = 0;
  for (const id of [...rgRows.keys()].sort((a, b) => a - b)) { starts.set(id, acc); acc += rgRows.get(id); }
  let checked = 0;
  let omitted = 0;
  let unverifiable = 0;
  for (const m of md) {
    const col = m.path_in_schema;
    const type = types[col];
    if (type === undefined || !STATS_TYPES.test(type)) continue; // nested leaf or unordered type
    const rg = Number(m.row_group_id);
    const lo = starts.get(rg);
    const hi = lo + rgRows.get(rg);
    const q = `"${col.replaceAll('"', '""')}"`;
    const isFloat = type === 'FLOAT' || type === 'DOUBLE';
    const valid = isFloat ? `${q} IS NOT NULL AND NOT isnan(${q})` : `${q} IS NOT NULL`;
    const sql = `SELECT count(*) FILTER (WHERE ${q} IS NULL)::BIGINT AS nulls,
        ${isFloat ? `count(*) FILTER (WHERE isnan(${q}))::BIGINT` : '0::BIGINT'} AS nans,
        count(*) FILTER (WHERE ${valid})::BIGINT AS n,
        min(${q}) FILTER (WHERE ${valid}) AS mn, max(${q}) FILTER (WHERE ${valid}) AS mx,
        TRY_CAST(${sqlString(m.stats_min_value ?? '')} AS ${type}) AS smin,
        TRY_CAST(${sqlString(m.stats_max_value ?? '')} AS ${type}) AS smax,
        (mn = smin OR (${isFloat} AND mn = 0 AND smin = 0)) AS min_ok,
        (mx = smax OR (${isFloat} AND mx = 0 AND smax = 0)) AS max_ok,
        mn::VARCHAR AS mn_s, mx::VARCHAR AS mx_s
      FROM read_parquet(${f}, binary_as_string=false, file_row_number=true)
      WHERE file_row_number >= ${lo} AND file_row_number < ${hi}`;
    const [t] = (await c.runAndReadAll(sql)).getRowObjectsJson();
    const where = `row group ${rg} column ${col}`;
    checked++;
    if (m.stats_null_count === null || m.stats_null_count === undefined) problems.push(`${where}: no null_count`);
    else if (String(m.stats_null_count) !== String(t.nulls)) problems.push(`${where}: null_count ${m.stats_null_count}, true ${t.nulls}`);
    if (Number(t.n) === 0) continue; // all null (or all NaN): min/max may be absent
    if (m.stats_min_value === null && m.stats_max_value === null && Number(t.nans) > 0) {
      omitted++; // omitting min/max is allowed where the order is unclear: a float chunk holding NaN
      continue;
    }
    for (const [side, stat, ok, truth, exact] of [['min', m.stats_min_value, t.min_ok, t.mn_s, m.min_is_exact],
      ['max', m.stats_max_value, t.max_ok, t.mx_s, m.max_is_exact]]) {
      if (stat === null || stat === undefined) {
        // DuckDB's parquet_metadata shows infinite float statistics as NULL: not verifiable here.
        if (isFloat && /inf/i.test(String(truth))) { unverifiable++; continue; }
        problems.push(`${where}: ${side} missing though ${t.n} non-null values`);
      } else if (exact !== false && !ok) problems.push(`${where}: ${side} ${stat}, true ${truth}`);
    }
  }
  return { problems, checked, omitted, unverifiable };
}

async function lithifyWritten() {
  if (!fs.existsSync(testgen)) { console.error(`roundtrip: lithify_testgen not found: ${testgen} (set LITHIFY_TESTGEN)`); process.exit(2); }
  const n = Number(process.env.LITHIFY_ROUNDTRIP_CASES || 200);
  const seeds = Array.from({ length: n }, (_, i) => i + 1);
  let statsChecked = 0;
  await pool(seeds, jobs, async (seed, w) => {
    const c = cons[w];
    const file = path.join(tmp, `gen_${seed}.parquet`);
    const expect = path.join(tmp, `gen_${seed}.jsonl`);
    const problems = [];
    const g = await runCommand(testgen, ['--seed', String(seed), '--out', file, '--expect', expect], { timeoutSec });
    if (g.code !== 0 || g.signal || g.timedOut) {
      report(`lithify-written seed ${seed}`, `lithify_testgen: ${describeRun(g)}`);
      return;
    }
    const expectedLines = splitLines(fs.readFileSync(expect, 'utf8'));
    let duck = null;
    try {
      duck = await readParquetCanonical(c, file);
      const cmp = compareCanonical(expectedLines, duck.lines, { float32Paths: duck.float32Paths, float16Paths: duck.float16Paths });
      if (!cmp.equal) problems.push(`DuckDB's reading differs from the generator's expectation:\n  ${formatDiffs(cmp).join('\n  ')}`);
    } catch (e) { problems.push(`DuckDB cannot read the file: ${e.message.split('\n')[0]}`); }
    const r = await runCommand(lithify, ['parquet', 'cat', file], { timeoutSec });
    if (r.code !== 0 || r.signal || r.timedOut) problems.push(`lithify parquet cat: ${describeRun(r)}`);
    else {
      const cmp = compareCanonical(expectedLines, splitLines(r.stdout), { float32Paths: duck?.float32Paths, float16Paths: duck?.float16Paths });
      if (!cmp.equal) problems.push(`lithify parquet cat differs from the generator's expectation:\n  ${formatDiffs(cmp).join('\n  ')}`);
    }
    let detail = `${expectedLines.length} rows`;
    if (duck) {
      try {
        const s = await statsProblems(c, file);
        statsChecked += s.checked;
        detail += `, ${s.checked} column-chunk statistics checked${s.omitted ? ` (${s.omitted} float chunks with NaN carry no min/max)` : ''}${s.unverifiable ? `, ${s.unverifiable} infinite float bounds not verifiable` : ''}`;
        if (s.problems.length) problems.push(`statistics:\n  ${s.problems.slice(0, 8).join('\n  ')}${s.problems.length > 8 ? `\n  ... ${s.problems.length - 8} more` : ''}`);
      } catch (e) { problems.push(`statistics check failed: ${e.message.split('\n')[0]}`); }
    }
    report(`lithify-written seed ${seed}`, problems.join('\n') || null, detail);
  });
  console.log(`statistics: ${statsChecked} column chunks checked`);
}

// ---------------------------------------------------------------------------------------------
// (c) lithify parquet rewrite

async function rewrite() {
  await createRichTable(con);
  // Inputs share the schema; different slices, codecs, page versions and row-group sizes.
  const slices = [
    { where: 'id < 1500', opts: "COMPRESSION 'snappy', ROW_GROUP_SIZE 100000" },
    { where: 'id >= 1500 AND id < 1501', opts: "COMPRESSION 'uncompressed'" },
    { where: 'id >= 1501 AND id < 4000', opts: "COMPRESSION 'zstd', ROW_GROUP_SIZE 2048, PARQUET_VERSION V2" },
    { where: 'id >= 4000', opts: "COMPRESSION 'gzip', DICTIONARY_SIZE_LIMIT 0" },
  ];
  const inputs = [];
  for (const [i, s] of slices.entries()) {
    const f = path.join(tmp, `in_${i}.parquet`);
    await con.run(`COPY (SELECT * FROM rich WHERE ${s.where} ORDER BY id) TO ${sqlString(f)} (FORMAT parquet, ${s.opts})`);
    inputs.push(f);
  }
  const expected = { lines: [] };
  for (const f of inputs) {
    const r = await readParquetCanonical(con, f);
    expected.lines.push(...r.lines);
    expected.float32Paths = r.float32Paths;
    expected.float16Paths = r.float16Paths;
  }
  const cases = [
    { name: 'default codec', args: [] },
    ...['zstd', 'snappy', 'gzip', 'lz4_raw', 'brotli', 'none'].map((c) => ({ name: `--codec ${c}`, args: ['--codec', c] })),
    { name: '--no-dictionary', args: ['--no-dictionary'] },
    // in_3 is gzip without dictionary: its PLAIN pages are copied unchanged (page copy).
    // Page copy: in_3 is gzip without dictionary (PLAIN v1 pages), in_2 zstd v2 pages;
    // small output pages make their pages large enough to be worth copying.
    { name: '--codec gzip --no-dictionary --page-size 1KB (page copy)', args: ['--codec', 'gzip', '--no-dictionary', '--page-size', '1KB', '--json'], pageCopy: true },
    { name: '--no-dictionary --page-size 1KB (page copy of v2 pages)', args: ['--no-dictionary', '--page-size', '1KB', '--json'], pageCopy: true },
    { name: '--row-group-size 65536', args: ['--row-group-size', '65536'] },
    { name: 'single input', args: [], inputs: [inputs[2]] },
  ];
  await pool(cases, jobs, async (k, w) => {
    const c = cons[w];
    const out = path.join(tmp, `out_${k.name.replace(/[^a-z0-9]+/gi, '_')}.parquet`);
    const ins = k.inputs ?? inputs;
    let problem = null;
    let detail = '';
    const r = await runCommand(lithify, ['parquet', 'rewrite', out, ...ins, ...k.args], { timeoutSec });
    if (r.code !== 0 || r.signal || r.timedOut) problem = `lithify parquet rewrite: ${describeRun(r)}`;
    else {
      try {
        const got = await readParquetCanonical(c, out);
        const want = k.inputs ? await readParquetCanonical(c, ins[0]) : expected;
        const cmp = compareCanonical(want.lines, got.lines, { float32Paths: want.float32Paths, float16Paths: want.float16Paths });
        if (!cmp.equal) problem = `DuckDB's reading of the output differs from the inputs:\n  ${formatDiffs(cmp).join('\n  ')}`;
        const md = await parquetMetadata(c, out);
        const codecs = [...new Set(md.map((m) => m.compression))].join(',');
        detail = `${got.lines.length} rows, ${new Set(md.map((m) => m.row_group_id)).size} row groups, ${codecs}`;
        const want2 = { zstd: 'ZSTD', snappy: 'SNAPPY', gzip: 'GZIP', lz4_raw: 'LZ4_RAW', brotli: 'BROTLI', none: 'UNCOMPRESSED' }[k.args[1]];
        if (!problem && k.args[0] === '--codec' && codecs !== want2) problem = `output codec ${codecs}, asked for ${want2}`;
        if (!problem) {
          const st = await statsProblems(c, out);
          detail += `, ${st.checked} column-chunk statistics checked`;
          if (st.problems.length) problem = `statistics:\n  ${st.problems.slice(0, 8).join('\n  ')}`;
        }
        if (!problem && k.pageCopy) {
          const copied = JSON.parse(r.stdout).pages_copied;
          if (!(copied > 0)) problem = `no page was copied (pages_copied ${copied})`;
          else detail += `, ${copied} pages copied`;
        }
        if (!problem && k.args.includes('--no-dictionary')) {
          const dict = md.filter((m) => /DICTIONARY/.test(String(m.encodings)));
          if (dict.length) problem = `--no-dictionary output has dictionary-encoded chunks: ${dict.map((m) => m.path_in_schema).slice(0, 5).join(', ')}`;
        }
        if (!problem && k.args[0] === '--row-group-size') {
          const rgs = new Set(md.map((m) => m.row_group_id)).size;
          if (rgs < 2) problem = `--row-group-size 65536 produced ${rgs} row group for ${got.lines.length} rows`;
        }
      } catch (e) { problem = `DuckDB cannot read the output: ${e.message.split('\n')[0]}`; }
    }
    report(`rewrite ${k.name}`, problem, detail);
  });
}

try {
  if (mode === 'duckdb-written') await duckdbWritten();
  else if (mode === 'lithify-written') await lithifyWritten();
  else await rewrite();
} finally {
  if (process.env.LITHIFY_KEEP !== '1') fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`kept ${tmp}`);
}
if (verbose) console.log(`lithify ${lithify}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
