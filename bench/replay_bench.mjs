// The Delta log replay benchmark (issue "Delta tables, read side", acceptance 3).
//
// Generates (once, cached) a Delta log with N live files with bench/gen_delta_log: a
// Parquet checkpoint at version 100 plus K JSON commits. Then, in the same run,
// measures replaying that log to the live file set:
//   lithify: `lithify describe detail TABLE --json` (full replay: Snapshot::Load, then
//            numFiles / sizeInBytes from the compact live-file store), one process
//            under /usr/bin/time -v;
//   DuckDB:  its own node process (@duckdb/node-api, default threads): the checkpoint
//            with read_parquet (add, remove), the commits with read_json
//            (newline_delimited; add, remove), all adds anti-joined with all removes on
//            (path, deletion vector id), then count(*) and sum(size).
// Both answers must equal the generator's (the script fails otherwise). Each engine runs
// --runs times (default 3); the median wall and CPU (user + sys) times and the max peak
// RSS are reported, with the load average: on a shared machine compare CPU times.
// Prints a Markdown table; --append-doc adds it to docs/benchmarks.md under
// "## Delta log replay".
//
//   node bench/replay_bench.mjs --build build-rel [--files 1000000] [--commits 10]
//        [--dir /tmp/lithify-replay-1m] [--runs 3] [--append-doc]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timed } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);

// ---- child mode: run one DuckDB query and print its single row plus the query time.
if (argv[0] === '--duck-query') {
  const { DuckDBInstance } = await import(
    path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js'));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const t0 = process.hrtime.bigint();
  const reader = await con.runAndReadAll(argv[1]);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const row = reader.getRows()[0].map(v => (typeof v === 'bigint' ? v.toString() : String(v)));
  const threads = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
  console.log(JSON.stringify({ seconds, row, threads: String(threads) }));
  process.exit(0);
}

const args = Object.fromEntries(argv.reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]);
  return acc;
}, []));
const build = path.resolve(args.build ?? path.join(here, '../build-rel'));
const nfiles = Number(args.files ?? 1000000);
const ncommits = Number(args.commits ?? 10);
const runs = Number(args.runs ?? 3);
const dir = args.dir ?? `/tmp/lithify-replay-${nfiles}-${ncommits}`;
const lithify = path.join(build, 'tools/cli/lithify');
const gen = path.join(build, 'bench/gen_delta_log');


// ---- table (cached)
const expectedFile = path.join(dir, 'expected.json');
if (!fs.existsSync(expectedFile)) {
  console.error(`generating ${nfiles} live files, ${ncommits} commits in ${dir} ...`);
  fs.rmSync(dir, { recursive: true, force: true });
  const r = spawnSync(gen, [dir, '--files', String(nfiles), '--commits', String(ncommits)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gen_delta_log failed: ${r.stderr}`);
  fs.writeFileSync(expectedFile, r.stdout.trim() + '\n');
}
const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
const log = path.join(dir, '_delta_log');
const checkpoint = fs.readdirSync(log).find(f => f.endsWith('.checkpoint.parquet'));
const logBytes = fs.readdirSync(log).reduce((s, f) => s + fs.statSync(path.join(log, f)).size, 0);

// ---- lithify
const loadBefore = os.loadavg()[0];
const lith = [];
for (let i = 0; i < runs; ++i) {
  const r = timed(lithify, ['describe', 'detail', dir, '--json']);
  const d = JSON.parse(r.stdout);
  if (d.numFiles !== expected.numFiles || d.sizeInBytes !== expected.sizeInBytes || d.version !== expected.version) {
    throw new Error(`lithify disagrees: ${JSON.stringify({ numFiles: d.numFiles, sizeInBytes: d.sizeInBytes })} vs ${JSON.stringify(expected)}`);
  }
  lith.push(r);
}

// ---- DuckDB
const dvType = 'STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, "offset" INTEGER)';
const dvId = s => `coalesce(${s}.deletionVector.storageType || ${s}.deletionVector.pathOrInlineDv || coalesce('@' || ${s}.deletionVector."offset", ''), '')`;
const sql = `
WITH cp AS (SELECT add, remove FROM read_parquet('${path.join(log, checkpoint)}')),
commits AS (SELECT add, remove FROM read_json('${log}/*.json', format = 'newline_delimited',
    columns = {add: 'STRUCT(path VARCHAR, size BIGINT, deletionVector ${dvType})',
               remove: 'STRUCT(path VARCHAR, deletionVector ${dvType})'})),
adds AS (SELECT add.path AS path, ${dvId('add')} AS dv, add.size AS size FROM cp WHERE add IS NOT NULL
         UNION ALL
         SELECT add.path, ${dvId('add')}, add.size FROM commits WHERE add IS NOT NULL),
removes AS (SELECT remove.path AS path, ${dvId('remove')} AS dv FROM cp WHERE remove IS NOT NULL
            UNION ALL
            SELECT remove.path, ${dvId('remove')} FROM commits WHERE remove IS NOT NULL)
SELECT count(*), sum(size)::BIGINT FROM adds ANTI JOIN removes USING (path, dv)`;
const duck = [];
let duckThreads = '?';
for (let i = 0; i < runs; ++i) {
  const r = timed('node', [fileURLToPath(import.meta.url), '--duck-query', sql]);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  if (Number(out.row[0]) !== expected.numFiles || Number(out.row[1]) !== expected.sizeInBytes) {
    throw new Error(`DuckDB disagrees: ${out.row} vs ${JSON.stringify(expected)}`);
  }
  duckThreads = out.threads;
  duck.push({ ...r, inner: out.seconds });
}

const loadAfter = os.loadavg()[0];
const lWall = median(lith.map(r => r.wall));
const lCpu = median(lith.map(r => r.cpu));
const dCpu = median(duck.map(r => r.cpu));
const dWall = median(duck.map(r => r.wall));
const dInner = median(duck.map(r => r.inner));
const lRss = Math.max(...lith.map(r => r.rss_mb));
const dRss = Math.max(...duck.map(r => r.rss_mb));
const cmd = `node bench/replay_bench.mjs --build ${path.relative(path.join(here, '..'), build)} --files ${nfiles} --commits ${ncommits} --runs ${runs}`;
const lines = [
  `Log: ${nfiles} live files at version ${expected.version} (checkpoint at 100 + ${ncommits} commits, ${(logBytes / 1048576).toFixed(0)} MiB of log); ` +
  `both engines found numFiles=${expected.numFiles}, sizeInBytes=${expected.sizeInBytes}. ` +
  `lithify: 2 threads (checkpoint decoding overlapped with extraction, commits parsed ahead of their application); DuckDB: ${duckThreads} threads (its default on this ${os.cpus().length}-core machine). ` +
  `Median of ${runs} runs; peak RSS is the max. Load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after.`,
  '',
  '| workload | lithify | DuckDB | speed ratio (DuckDB time / lithify time) | lithify peak RSS | DuckDB peak RSS |',
  '|---|---|---|---|---|---|',
  `| replay (wall, whole process) | ${lWall.toFixed(2)} s | ${dWall.toFixed(2)} s | ${(dWall / lWall).toFixed(2)} | ${lRss.toFixed(0)} MiB | ${dRss.toFixed(0)} MiB |`,
  `| replay (DuckDB query time only) | ${lWall.toFixed(2)} s | ${dInner.toFixed(2)} s | ${(dInner / lWall).toFixed(2)} | ${lRss.toFixed(0)} MiB | ${dRss.toFixed(0)} MiB |`,
  `| replay (CPU time, user + sys, whole process) | ${lCpu.toFixed(2)} s | ${dCpu.toFixed(2)} s | ${(dCpu / lCpu).toFixed(2)} | ${lRss.toFixed(0)} MiB | ${dRss.toFixed(0)} MiB |`,
];
console.log(lines.join('\n'));

if (args['append-doc']) {
  const doc = path.join(here, '../docs/benchmarks.md');
  let text = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n';
  const header = '## Delta log replay';
  const intro = `${header}\n\nReplaying a Delta log to its live file set (issue "Delta tables, read side", acceptance 3). ` +
    'lithify runs `lithify describe detail TABLE --json` (Snapshot::Load: checkpoint extracted directly from ' +
    'the Parquet levels, commits parsed, reconciliation by (path, DV id)); DuckDB reads the checkpoint with ' +
    '`read_parquet`, the commits with `read_json` and anti-joins removes on (path, DV id). ' +
    'The log comes from `bench/gen_delta_log` (date-partitioned paths, JSON stats for 4 columns, tombstones, ' +
    'DV updates).\n';
  const entry = `\n### ${new Date().toISOString().slice(0, 10)}, \`${cmd}\`\n\n${lines.join('\n')}\n`;
  if (!text.includes(header)) {
    text = text.replace(/\s*$/, '\n\n') + intro;
  }
  // Append the run at the end of the section (before the next "## " heading, if any).
  const start = text.indexOf(header);
  const next = text.indexOf('\n## ', start + header.length);
  text = next < 0 ? text.replace(/\s*$/, '\n') + entry : text.slice(0, next) + entry + text.slice(next);
  fs.writeFileSync(doc, text);
  console.error(`appended to ${doc}`);
}
