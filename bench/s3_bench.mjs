// Tables on S3 against the same tables on local disk (issue 16, acceptance 3 and 4).
//
// 1. OPTIMIZE of N (2,000) small files: a Delta table made with `lithify create` +
//    `lithify append --generate` (the demo schema, --rows-per-file rows a file, seed 1),
//    once on local disk and once under a fresh s3:// prefix (made again for every run:
//    OPTIMIZE rewrites it), then `lithify optimize TABLE --json` timed on each.
// 2. Replay of a 100,000-file log (bench/gen_delta_log: checkpoint + 10 commits, no data
//    files) written to local disk and to S3: `lithify describe detail TABLE --json` (the
//    replay) and `lithify optimize TABLE --dry-run --json` (planning) on each.
// Every lithify process runs with LITHIFY_REQUEST_STATS=1, so its HTTP requests by kind
// are printed (tools/cli/main.cc) and reported. Wall and CPU (user + sys) from
// /usr/bin/time -v; medians over --runs. The ratio is local wall / S3 wall: the share
// of local speed reached from S3 (the goals: >= 80% for OPTIMIZE, >= 50% for the replay).
// The S3 endpoint and credentials come from the environment (source build/servers/env);
// the bucket from LITHIFY_TEST_S3_BUCKET (or --bucket). Objects written are removed at
// the end (gen_delta_log --remove).
//
//   node bench/s3_bench.mjs --build build [--files 2000] [--rows-per-file 500]
//        [--replay-files 100000] [--runs 1] [--dir /tmp/lithify-s3-bench] [--bucket B]
//        [--skip-optimize] [--skip-replay]
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
const build = path.resolve(args.build ?? path.join(here, '..', 'build'));
const nfiles = Number(args.files ?? 2000);
const rowsPerFile = Number(args['rows-per-file'] ?? 500);
const replayFiles = Number(args['replay-files'] ?? 100000);
const runs = Number(args.runs ?? 1);
const dir = args.dir ?? '/tmp/lithify-s3-bench';
const bucket = args.bucket ?? process.env.LITHIFY_TEST_S3_BUCKET;
if (!bucket) throw new Error('no bucket: set LITHIFY_TEST_S3_BUCKET (source build/servers/env) or pass --bucket');
const lithify = path.join(build, 'tools/cli/lithify');
const gen = path.join(build, 'bench/gen_delta_log');
const prefix = `s3://${bucket}/s3bench-${process.pid}-${Date.now()}`;
const demoSchema = 'event_time timestamp, event_date date, customer_id long, amount decimal(12,2), ' +
  'category string, country string, note string';
process.env.LITHIFY_REQUEST_STATS = '1';

function run(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.slice(0, 3).join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  return r.stdout;
}
// The request counts a lithify process printed on stderr.
const requestsOf = (stderr) => {
  const m = /lithify requests: (\{.*\})/.exec(stderr);
  return m ? JSON.parse(m[1]) : null;
};
const fmtReq = (q) => (q ? `${q.total} (GET ${q.get}, PUT ${q.put}, HEAD ${q.head}, LIST ${q.list}, DELETE ${q.delete}, POST ${q.post})` : '?');
const load = () => os.loadavg()[0].toFixed(1);
const loads = [`start ${load()}`];

// Times `args` on the local table and on the S3 one, `runs` times each, alternating;
// `prepare(where)` (untimed) makes the table before each run when given.
function compare(name, localTable, s3Table, cmdArgs, prepare, check) {
  const res = { local: [], s3: [] };
  for (let i = 0; i < runs; ++i) {
    for (const where of (i % 2 === 0 ? ['local', 's3'] : ['s3', 'local'])) {
      if (prepare) prepare(where);
      const table = where === 'local' ? localTable : s3Table;
      // The table goes after the command words (`describe detail TABLE`, `optimize TABLE`).
      const words = cmdArgs.filter(a => !a.startsWith('--'));
      const r = timed(lithify, [...words, table, ...cmdArgs.filter(a => a.startsWith('--'))]);
      if (check) check(where, JSON.parse(r.stdout));
      r.requests = requestsOf(r.stderr);
      res[where].push(r);
    }
  }
  const pick = (xs, k) => median(xs.map(x => x[k]));
  const row = (where) => {
    const xs = res[where];
    const mid = xs.find(x => x.wall === pick(xs, 'wall')) ?? xs[0];
    return { wall: pick(xs, 'wall'), cpu: pick(xs, 'cpu'), rss: Math.max(...xs.map(x => x.rss_mb)), requests: mid.requests };
  };
  const l = row('local');
  const s = row('s3');
  return { name, local: l, s3: s, ratio: l.wall / s.wall };
}

const results = [];
let optimizeFiles = null;
try {
  // ---- 1. OPTIMIZE of small files --------------------------------------------------
  if (!args['skip-optimize']) {
    const localSrc = path.join(dir, 'optimize');
    const s3Src = `${prefix}/optimize`;
    const make = (table) => {
      run(lithify, ['create', table, '--schema', demoSchema]);
      run(lithify, ['append', table, '--generate', String(nfiles * rowsPerFile), '--files', String(nfiles),
        '--seed', '1', '--span', '30d', '--json']);
    };
    const prepare = (where) => {
      console.error(`making ${nfiles} files of ${rowsPerFile} rows (${where}) ...`);
      if (where === 'local') {
        fs.rmSync(localSrc, { recursive: true, force: true });
        fs.mkdirSync(dir, { recursive: true });
        make(localSrc);
        run('sync', []);
      } else {
        run(gen, ['--remove', s3Src]);
        make(s3Src);
      }
    };
    const check = (where, j) => {
      if (j.metrics.numFilesRemoved !== nfiles) throw new Error(`${where}: removed ${j.metrics.numFilesRemoved} files, not ${nfiles}`);
    };
    results.push(compare(`OPTIMIZE of ${nfiles} files of ${rowsPerFile} rows`, localSrc, s3Src, ['optimize', '--json'],
      prepare, check));
    const sizes = fs.readdirSync(localSrc).filter(f => f.endsWith('.parquet'));
    optimizeFiles = sizes.length;
    loads.push(`after OPTIMIZE ${load()}`);
  }

  // ---- 2. replay of a large log ------------------------------------------------------
  if (!args['skip-replay']) {
    const localLog = path.join(dir, `replay-${replayFiles}`);
    const s3Log = `${prefix}/replay`;
    console.error(`writing a ${replayFiles}-file log locally and to S3 ...`);
    fs.rmSync(localLog, { recursive: true, force: true });
    const info = JSON.parse(run(gen, [localLog, '--files', String(replayFiles)]));
    run(gen, [s3Log, '--files', String(replayFiles)]);
    const check = (where, j) => {
      const n = j.numFiles ?? j.detail?.numFiles;
      if (n !== undefined && Number(n) !== info.numFiles) throw new Error(`${where}: ${n} files, not ${info.numFiles}`);
    };
    results.push(compare(`replay of a ${replayFiles}-file log (describe detail)`, localLog, s3Log,
      ['describe', 'detail', '--json'], null, check));
    results.push(compare(`planning OPTIMIZE of it (optimize --dry-run)`, localLog, s3Log,
      ['optimize', '--dry-run', '--json'], null, null));
    loads.push(`after replay ${load()}`);
  }
} finally {
  run(gen, ['--remove', prefix]);
}

const f2 = (x) => x.toFixed(2);
const lines = [];
lines.push(`| what | local wall s | local CPU s | S3 wall s | S3 CPU s | S3 / local speed | S3 requests | local peak MiB | S3 peak MiB |`);
lines.push('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  lines.push(`| ${r.name} | ${f2(r.local.wall)} | ${f2(r.local.cpu)} | ${f2(r.s3.wall)} | ${f2(r.s3.cpu)} | ` +
    `${(100 * r.ratio).toFixed(0)}% | ${fmtReq(r.s3.requests)} | ${r.local.rss.toFixed(0)} | ${r.s3.rss.toFixed(0)} |`);
}
lines.push('');
lines.push(`Medians of ${runs} run(s); load average ${loads.join(', ')}; ${os.cpus().length} CPUs.` +
  (optimizeFiles !== null ? ` OPTIMIZE left ${optimizeFiles} live + removed data files on disk.` : ''));
console.log(lines.join('\n'));
console.log(JSON.stringify(results));
