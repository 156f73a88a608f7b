// The Iceberg planning benchmark (issue 17, acceptance 5): planning the files of an Iceberg
// table with N data files in M manifests, against lithify's own replay of a Delta log
// holding the same number of files, in the same run.
//
// Tables (generated once, cached in --dir):
//   iceberg: bench/gen_iceberg_table.mjs: format v2, day(ts)-partitioned, one data
//            manifest per day, every entry with record count, value/null counts and
//            lower/upper bounds of 4 columns, deflate-compressed Avro;
//   delta:   bench/gen_delta_log --commits 0: one Parquet checkpoint with the same number
//            of adds, date-partitioned over 1,000 days, JSON stats of 4 columns.
// Measured, each --runs times (median wall and CPU, max peak RSS), one process each under
// /usr/bin/time -v:
//   full:  `lithify describe detail TABLE --json`: every live file planned and counted
//          (Iceberg: manifest list, then every manifest streamed; Delta: the replay);
//   scan, no partition matches: `lithify scan TABLE --count --where <before the table>`:
//          planning a scan with pruning (Iceberg: manifests skipped from the manifest
//          list's partition summaries; Delta: the replay, then partition values).
// Both answers are checked against the generators'. Goal: Iceberg no slower than 1.5x
// the Delta replay, in bounded memory. Prints a Markdown table; --append-doc adds it to
// docs/benchmarks.md under "## Iceberg planning".
//
//   node bench/iceberg_plan_bench.mjs --build build [--files 1000000] [--manifests 1000]
//        [--dir /tmp/lithify-iceberg-plan] [--runs 3] [--append-doc]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timed } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const args = Object.fromEntries(argv.reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]);
  return acc;
}, []));
const build = path.resolve(args.build ?? path.join(here, '../build'));
const nfiles = Number(args.files ?? 1000000);
const nmanifests = Number(args.manifests ?? 1000);
const runs = Number(args.runs ?? 3);
const dir = args.dir ?? `/tmp/lithify-iceberg-plan-${nfiles}-${nmanifests}`;
const lithify = path.join(build, 'tools/cli/lithify');
const iceDir = path.join(dir, 'iceberg');
const deltaDir = path.join(dir, 'delta');

// ---- tables (cached)
function generate(name, cmd, cmdArgs) {
  const expectedFile = path.join(dir, `${name}.expected.json`);
  if (!fs.existsSync(expectedFile)) {
    console.error(`generating the ${name} table in ${dir} ...`);
    const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`${name} generator failed: ${r.stderr}`);
    fs.writeFileSync(expectedFile, r.stdout.trim() + '\n');
  }
  return JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
}
fs.mkdirSync(dir, { recursive: true });
const iceExpected = generate('iceberg', 'node', [path.join(here, 'gen_iceberg_table.mjs'), iceDir,
                                                 '--files', String(nfiles), '--manifests', String(nmanifests)]);
const deltaExpected = generate('delta', path.join(build, 'bench/gen_delta_log'),
                               [deltaDir, '--files', String(nfiles), '--commits', '0']);
const du = (d) => fs.readdirSync(d).reduce((s, f) => s + fs.statSync(path.join(d, f)).size, 0);

// ---- measurements
function measure(label, cmdArgs, check) {
  const rs = [];
  for (let i = 0; i < runs; ++i) {
    const r = timed(lithify, cmdArgs);
    check(JSON.parse(r.stdout));
    rs.push(r);
  }
  return { label, wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)),
           rss: Math.max(...rs.map((r) => r.rss_mb)) };
}
const expectEq = (what, got, want) => {
  if (got !== want) throw new Error(`${what}: got ${got}, expected ${want}`);
};
const loadBefore = os.loadavg()[0];
const rows = [];
rows.push([
  measure('full', ['describe', 'detail', iceDir, '--json'], (d) => {
    expectEq('iceberg numFiles', d.numFiles, iceExpected.numFiles);
  }),
  measure('full', ['describe', 'detail', deltaDir, '--json'], (d) => {
    expectEq('delta numFiles', d.numFiles, deltaExpected.numFiles);
  }),
]);
// A scan planned with a predicate that no partition matches (a day before the table):
// the answer, 0 rows, needs no data file, so what is timed is planning with pruning
// (Iceberg: the manifest list's partition summaries; Delta: the replay, then partition
// values). The data files do not exist, so a scan that opened one would fail.
rows.push([
  measure('scan, no partition matches', ['scan', iceDir, '--count', '--json', '--where', "ts < '2021-01-01T00:00:00'"],
          (d) => expectEq('iceberg count', d.count, 0)),
  measure('scan, no partition matches', ['scan', deltaDir, '--count', '--json', '--where', "date < '2021-01-01'"],
          (d) => expectEq('delta count', d.count, 0)),
]);
const loadAfter = os.loadavg()[0];

const fmt = (x) => `${x.toFixed(2)} s`;
const lines = [];
const cmdline = `node bench/iceberg_plan_bench.mjs --build ${path.relative(path.join(here, '..'), build) || '.'} ` +
                `--files ${nfiles} --manifests ${nmanifests} --runs ${runs}`;
lines.push(`### ${new Date().toISOString().slice(0, 10)}, \`${cmdline}\``, '');
lines.push(`Iceberg: ${iceExpected.numFiles} data files in ${iceExpected.manifests} manifests ` +
           `(${(du(path.join(iceDir, 'metadata')) / 1048576).toFixed(1)} MiB of metadata); Delta: ` +
           `${deltaExpected.numFiles} files in one checkpoint (${(du(path.join(deltaDir, '_delta_log')) / 1048576).toFixed(1)} MiB). ` +
           `${runs} runs each, medians; load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; ` +
           `${os.cpus().length} cores.`, '');
lines.push('| planning | Iceberg wall | Delta wall | wall ratio (Iceberg/Delta) | Iceberg CPU | Delta CPU | CPU ratio | Iceberg peak | Delta peak |');
lines.push('|---|---|---|---|---|---|---|---|---|');
for (const [i, d] of rows) {
  lines.push(`| ${i.label} | ${fmt(i.wall)} | ${fmt(d.wall)} | ${(i.wall / d.wall).toFixed(2)} | ${fmt(i.cpu)} | ${fmt(d.cpu)} | ` +
             `${(i.cpu / d.cpu).toFixed(2)} | ${i.rss.toFixed(0)} MiB | ${d.rss.toFixed(0)} MiB |`);
}
const table = lines.join('\n') + '\n';
console.log(table);
if (args['append-doc']) {
  const doc = path.join(here, '../docs/benchmarks.md');
  let text = fs.readFileSync(doc, 'utf8');
  if (!text.includes('\n## Iceberg planning\n')) text += '\n## Iceberg planning\n\n';
  const at = text.indexOf('\n## Iceberg planning\n') + '\n## Iceberg planning\n'.length;
  const next = text.indexOf('\n## ', at);
  const end = next < 0 ? text.length : next;
  text = text.slice(0, end).replace(/\n*$/, '\n\n') + table + text.slice(end);
  fs.writeFileSync(doc, text);
}
