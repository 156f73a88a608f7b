// One big bin on 1 and on 2 threads (issue 18, "every core on one bin": at least 1.7x
// its single-thread speed on 2 cores).
//
// Generates N DuckDB-written input files (zstd) of a mix of high-entropy and
// low-cardinality columns -- ids, random doubles, hash strings, categories, timestamps
// -- together about --mb MiB, then times `lithify parquet rewrite OUT IN...` (the
// compaction inner loop that OPTIMIZE's columnar bins run: all inputs into one file)
// with LITHIFY_THREADS=1 and LITHIFY_THREADS=2 (the CPU pool's size, which is the
// number of column chunks encoded at once), alternating, --runs times each. Reports the
// median wall, CPU (user + sys) and peak RSS of each, the speed-up (1-thread wall /
// 2-thread wall) and the load average before and after: on a shared machine the wall
// ratio is only meaningful next to the CPU times and the load. Also checks that both
// outputs are byte for byte the same file.
//
//   node bench/one_bin_bench.mjs --build build [--mb 1024] [--files 40] [--runs 2] [--dir /tmp/lithify-one-bin]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { median, timed } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const build = path.resolve(args.build ?? path.join(here, '../build'));
const targetMb = Number(args.mb ?? 1024);
const nfiles = Number(args.files ?? 40);
const runs = Number(args.runs ?? 2);
const dir = args.dir ?? `/tmp/lithify-one-bin-${targetMb}`;
const lithify = path.join(build, 'tools/cli/lithify');
const duckRun = path.join(here, 'duckdb_run.mjs');
// About 22 bytes per row once compressed (measured on these columns).
const rowsPerFile = Math.round((targetMb * 1048576) / nfiles / 22);

// ---- inputs
fs.mkdirSync(dir, { recursive: true });
const inputs = [...Array(nfiles).keys()].map(i => path.join(dir, `in-${String(i).padStart(3, '0')}.parquet`));
if (!inputs.every(f => fs.existsSync(f))) {
  console.error(`generating ${nfiles} input files of ${rowsPerFile} rows in ${dir} ...`);
  const stmts = inputs.map((f, i) => `COPY (SELECT (${i}::BIGINT * ${rowsPerFile} + range) AS id,
      hash(range * 7 + ${i}) / 18446744073709551615.0 * 1e6 AS amount,
      md5((range * 31 + ${i})::VARCHAR)[1:16] AS token,
      'cat-' || (hash(range + ${i}) % 40)::VARCHAR AS category,
      (hash(range * 3 + ${i}) % 1000)::INTEGER AS qty,
      TIMESTAMP '2026-01-01' + to_microseconds(((range * 997 + ${i} * 13) % 86400000000)::BIGINT) AS ts
    FROM range(${rowsPerFile})) TO '${f}' (FORMAT parquet, COMPRESSION zstd)`);
  for (let i = 0; i < stmts.length; i += 10) {
    execFileSync('node', [duckRun, '2', ...stmts.slice(i, i + 10)], { stdio: 'inherit' });
  }
}
const inBytes = inputs.reduce((s, f) => s + fs.statSync(f).size, 0);

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = loadavg();
const results = { 1: [], 2: [] };
const outs = { 1: path.join(dir, 'out-1.parquet'), 2: path.join(dir, 'out-2.parquet') };
for (let r = 0; r < runs; ++r) {
  for (const threads of [1, 2]) {
    fs.rmSync(outs[threads], { force: true });
    process.env.LITHIFY_THREADS = String(threads);
    results[threads].push(timed(lithify, ['parquet', 'rewrite', outs[threads], ...inputs, '--codec', 'zstd', '--json']));
  }
}
delete process.env.LITHIFY_THREADS;
const loadAfter = loadavg();
const same = spawnSync('cmp', ['-s', outs[1], outs[2]]).status === 0;

const summary = (t) => ({
  wall: median(results[t].map(x => x.wall)),
  cpu: median(results[t].map(x => x.cpu)),
  rss: median(results[t].map(x => x.rss_mb)),
});
const s1 = summary(1), s2 = summary(2);
const mb = inBytes / 1048576;
console.log(`inputs: ${nfiles} files, ${mb.toFixed(0)} MiB, ${rowsPerFile} rows each; output ${(fs.statSync(outs[2]).size / 1048576).toFixed(0)} MiB; ${runs} runs each (medians); outputs identical: ${same}`);
console.log(`load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}`);
console.log('| threads | wall | CPU (user + sys) | CPU / wall | peak RSS | every wall |');
console.log('|---|---|---|---|---|---|');
for (const [t, s] of [[1, s1], [2, s2]]) {
  console.log(`| ${t} | ${s.wall.toFixed(2)} s (${(mb / s.wall).toFixed(0)} MiB/s) | ${s.cpu.toFixed(2)} s | ${(s.cpu / s.wall).toFixed(2)} | ${s.rss.toFixed(0)} MiB | ${results[t].map(x => x.wall.toFixed(2)).join(', ')} |`);
}
console.log(`speed-up (1-thread wall / 2-thread wall): ${(s1.wall / s2.wall).toFixed(2)}x; CPU 2 threads / 1 thread: ${(s2.cpu / s1.cpu).toFixed(2)}`);
