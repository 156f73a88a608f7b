// The Parquet rewrite benchmark (issue: Parquet codec, acceptance 6).
//
// Generates N input files of about 2 MB (int, double, string, timestamp; zstd) with
// DuckDB, then measures in the same run, with the same thread count (1):
//   rewrite: `lithify parquet rewrite OUT IN...` vs DuckDB
//            COPY (SELECT * FROM read_parquet([...])) TO OUT (FORMAT parquet, COMPRESSION zstd)
//   decode:  parquet_bench decode IN...   vs DuckDB reading every column (aggregates)
//   encode:  parquet_bench encode OUT IN... (inputs decoded in memory first, untimed)
//            vs DuckDB COPY from an in-memory table
// and peak RSS of each process (/usr/bin/time -v). Prints a Markdown table.
//
//   node bench/rewrite_bench.mjs --build build [--files 500] [--dir /tmp/lithify-bench]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const build = path.resolve(args.build ?? path.join(here, '../build'));
const nfiles = Number(args.files ?? 500);
const dir = args.dir ?? '/tmp/lithify-bench';
const rowsPerFile = Number(args.rows ?? 90000);
const lithify = path.join(build, 'tools/cli/lithify');
const bench = path.join(build, 'bench/parquet_bench');
const duckRun = path.join(here, 'duckdb_run.mjs');
// One thread for lithify too: the CPU pool, which sizes a rewrite's column tasks (children inherit it).
process.env.LITHIFY_THREADS = '1';

function runTimed(cmd, argv) {
  const r = require_spawn(cmd, argv);
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)[1]) / 1024;
  const m = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const wall = (Number(m[1] ?? 0) * 3600) + Number(m[2]) * 60 + Number(m[3]);
  return { wall, rss_mb: rss, stdout: r.stdout };
}
import { spawnSync } from 'node:child_process';
function require_spawn(cmd, argv) {
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r;
}

// ---- inputs
fs.mkdirSync(dir, { recursive: true });
const inputs = [...Array(nfiles).keys()].map(i => path.join(dir, `in-${String(i).padStart(4, '0')}.parquet`));
if (!inputs.every(f => fs.existsSync(f))) {
  console.error(`generating ${nfiles} input files in ${dir} ...`);
  const stmts = inputs.map((f, i) => `COPY (SELECT (${i}::BIGINT * ${rowsPerFile} + range) AS id,
      hash(range * 7 + ${i}) % 1000000 / 100.0 AS amount,
      'customer-' || (hash(range + ${i}) % 50000)::VARCHAR || '-' || repeat('x', (range % 7)::INT) AS name,
      TIMESTAMP '2026-01-01' + to_microseconds(((range * 997 + ${i} * 13) % 86400000000)::BIGINT) AS ts
    FROM range(${rowsPerFile})) TO '${f}' (FORMAT parquet, COMPRESSION zstd)`);
  for (let i = 0; i < stmts.length; i += 50) {
    execFileSync('node', [duckRun, '2', ...stmts.slice(i, i + 50)], { stdio: 'inherit' });
  }
}
const inBytes = inputs.reduce((s, f) => s + fs.statSync(f).size, 0);
const list = `[${inputs.map(f => `'${f}'`).join(',')}]`;
const outL = path.join(dir, 'out-lithify.parquet');
const outD = path.join(dir, 'out-duckdb.parquet');

// ---- rewrite
const lr = runTimed(lithify, ['parquet', 'rewrite', outL, ...inputs, '--codec', 'zstd', '--json']);
const dr = runTimed('node', [duckRun, '1',
  `COPY (SELECT * FROM read_parquet(${list})) TO '${outD}' (FORMAT parquet, COMPRESSION zstd)`]);
const dInner = JSON.parse(dr.stdout.trim().split('\n').pop()).seconds;

// ---- decode only
const ld = runTimed(bench, ['decode', ...inputs]);
const ldInner = JSON.parse(ld.stdout).seconds;
const dd = runTimed('node', [duckRun, '1',
  `SELECT sum(id), sum(amount), max(length(name)), max(ts) FROM read_parquet(${list})`]);
const ddInner = JSON.parse(dd.stdout.trim().split('\n').pop()).seconds;

// ---- encode only
const le = runTimed(bench, ['encode', outL + '.enc', ...inputs]);
const leInner = JSON.parse(le.stdout).seconds;
const de = runTimed('node', [duckRun, '1',
  `CREATE TABLE t AS SELECT * FROM read_parquet(${list})`,
  `COPY t TO '${outD}.enc' (FORMAT parquet, COMPRESSION zstd)`]);
const deInner = JSON.parse(de.stdout.trim().split('\n').pop()).seconds;

const mb = inBytes / (1 << 20);
const row = (name, l, d, lrss, drss) =>
  `| ${name} | ${l.toFixed(2)} s (${(mb / l).toFixed(0)} MiB/s) | ${d.toFixed(2)} s (${(mb / d).toFixed(0)} MiB/s) | ${(d / l).toFixed(2)} | ${lrss.toFixed(0)} MiB | ${drss.toFixed(0)} MiB |`;
console.log(`inputs: ${nfiles} files, ${mb.toFixed(0)} MiB, ${rowsPerFile} rows each; threads: 1`);
console.log(`output sizes: lithify ${(fs.statSync(outL).size / 1048576).toFixed(1)} MiB, duckdb ${(fs.statSync(outD).size / 1048576).toFixed(1)} MiB`);
console.log('| workload | lithify | DuckDB | speed ratio (DuckDB time / lithify time) | lithify peak RSS | DuckDB peak RSS |');
console.log('|---|---|---|---|---|---|');
console.log(row('rewrite (wall, whole process)', lr.wall, dr.wall, lr.rss_mb, dr.rss_mb));
console.log(row('rewrite (DuckDB query time only)', lr.wall, dInner, lr.rss_mb, dr.rss_mb));
console.log(row('decode only', ldInner, ddInner, ld.rss_mb, dd.rss_mb));
console.log(row('encode only', leInner, deInner, le.rss_mb, de.rss_mb));
