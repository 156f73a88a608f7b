// The OPTIMIZE benchmark (issue "Maintenance", acceptance 5).
//
// 1. Rewrite: a Delta table of N (2,000) zstd files of about 1 MB (the demo schema,
//    `lithify create` + `lithify append --generate`, built once and cached in --dir).
//    Each run copies it (untimed) and times `lithify optimize COPY --json` (default
//    target size 1 GiB, default threads) against DuckDB, in its own node process with
//    its default threads, rewriting the same files:
//      COPY (SELECT * FROM read_parquet([...N files...])) TO 'out.parquet'
//        (FORMAT parquet, COMPRESSION zstd)
//    The two alternate within a run (order flipped every run) so both see the same load.
//    Row counts must agree: the table before, `lithify scan COPY --count` after, and
//    DuckDB's count(*) of its output (the script fails otherwise).
// 2. Planning: `lithify optimize TABLE --dry-run [--json]` on a 1,000,000-file log
//    written by bench/gen_delta_log (metadata only: no data file exists, so a dry run
//    that opened one would fail), next to `lithify describe detail TABLE --json` (the
//    log replay alone) for reference.
// Wall and CPU (user + sys) times come from /usr/bin/time -v around each process, as
// does peak RSS. Medians over --runs; peak RSS is the max. Prints Markdown; with
// --append-doc adds it to docs/benchmarks.md under "## OPTIMIZE".
//
//   node bench/optimize_bench.mjs --build build-bench [--files 2000] [--rows-per-file 32000] [--mix]
//        [--dir /tmp/lithify-optimize-bench] [--runs 3] [--plan-files 1000000]
//        [--plan-runs N (default: --runs)] [--skip-rewrite] [--skip-plan] [--append-doc]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codecLimit, codecLimitTable, generatorDigest, median, timed } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);

// ---- child mode: run SQL statements in a fresh DuckDB; print the last one's rows and the
// seconds the statement before it (the timed one) took.
if (argv[0] === '--duck') {
  const { DuckDBInstance } = await import(
    path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js'));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  // "@FILE": the SQL is in FILE (2,000 paths exceed the kernel's limit for one argument).
  const sql = argv[1].startsWith('@') ? fs.readFileSync(argv[1].slice(1), 'utf8') : argv[1];
  const t0 = process.hrtime.bigint();
  await con.run(sql);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const threads = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
  console.log(JSON.stringify({ seconds, threads: String(threads) }));
  process.exit(0);
}
if (argv[0] === '--duck-query') {
  const { DuckDBInstance } = await import(
    path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js'));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const rows = (await con.runAndReadAll(argv[1])).getRows();
  console.log(JSON.stringify(rows.map(r => r.map(v => (typeof v === 'bigint' ? v.toString() : String(v))))));
  process.exit(0);
}

const args = Object.fromEntries(argv.reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]);
  return acc;
}, []));
const repo = path.join(here, '..');
const build = path.resolve(args.build ?? path.join(repo, 'build-rel'));
const nfiles = Number(args.files ?? 2000);
const rowsPerFile = Number(args['rows-per-file'] ?? 32000);
const runs = Number(args.runs ?? 3);
const planRuns = Number(args['plan-runs'] ?? runs);
// --mix: issue 18's acceptance-1 mix (random doubles, hash strings, ids, categories,
// timestamps) instead of the demo schema; its own cached source table.
const mix = Boolean(args.mix);
const dir = args.dir ?? (mix ? '/tmp/lithify-optimize-bench-mix' : '/tmp/lithify-optimize-bench');
const planFiles = Number(args['plan-files'] ?? 1000000);
const lithify = path.join(build, 'tools/cli/lithify');
const gen = path.join(build, 'bench/gen_delta_log');
const self = fileURLToPath(import.meta.url);
const demoSchema = 'event_time timestamp, event_date date, customer_id long, amount decimal(12,2), ' +
  'category string, country string, note string';
// The generator fills these by name (commands/generator.h): sequential ids, Zipf customer
// ids, uniform random doubles, 32-hex-digit hashes, small vocabularies.
const mixSchema = 'event_time timestamp, event_date date, id long, customer_id long, reading double, ' +
  'row_hash string, category string, country string, amount decimal(12,2)';
const schema = mix ? mixSchema : demoSchema;
const schemaName = mix ? `the high-entropy mix (${mixSchema})` : 'the demo schema';

function run(cmd, cmdArgs, opts = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.slice(0, 3).join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  return r.stdout;
}

// One process under /usr/bin/time -v; stdout to `stdoutFile` when given (large outputs).
const mib = b => b / 1048576;
const load = () => os.loadavg()[0].toFixed(1);
const dataFiles = d => fs.readdirSync(d).filter(f => f.endsWith('.parquet')).map(f => path.join(d, f)).sort();

const sections = [];

const loads = [`start ${load()}`];

// ---- 1. rewrite ---------------------------------------------------------------------
if (!args['skip-rewrite']) {
  const src = path.join(dir, 'source');
  const stamp = path.join(dir, 'source.json');
  // What the cached table was made of: another shape or generator makes it anew.
  const key = JSON.stringify({ files: nfiles, rows: nfiles * rowsPerFile, schema, generator: generatorDigest() });
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() !== key) {
    console.error(`generating ${nfiles} files of ${rowsPerFile} rows in ${src} ...`);
    fs.rmSync(src, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    run(lithify, ['create', src, '--schema', schema]);
    // Two appenders at once (a blind append commits over the other's): half the files each.
    const half = Math.floor(nfiles / 2);
    const parts = [[half, 1], [nfiles - half, 2]].filter(([n]) => n > 0);
    const procs = parts.map(([n, seed]) => new Promise((resolve, reject) => {
      import('node:child_process').then(({ execFile }) => execFile(lithify,
        ['append', src, '--generate', String(n * rowsPerFile), '--files', String(n), '--seed', String(seed),
          '--span', '30d', '--json'], { maxBuffer: 1 << 26 }, (err, out) => (err ? reject(err) : resolve(out))));
    }));
    await Promise.all(procs);
    const files = dataFiles(src);
    if (files.length !== nfiles) throw new Error(`expected ${nfiles} data files, found ${files.length}`);
    fs.writeFileSync(stamp, key + '\n');
  }
  const inputs = dataFiles(src);
  const inBytes = inputs.reduce((s, f) => s + fs.statSync(f).size, 0);
  const rowsBefore = Number(JSON.parse(run(lithify, ['scan', src, '--count', '--json'])).count);
  const list = `[${inputs.map(f => `'${f}'`).join(',')}]`;
  const work = path.join(dir, 'run');
  const outD = path.join(dir, 'out-duckdb.parquet');
  const sqlFile = path.join(dir, 'duckdb-copy.sql');
  fs.writeFileSync(sqlFile, `COPY (SELECT * FROM read_parquet(${list})) TO '${outD}' (FORMAT parquet, COMPRESSION zstd)`);

  const lith = [];
  const duck = [];
  let duckThreads = '?';
  let lithMetrics = null;
  let outL = 0;
  let outDBytes = 0;
  const runLithify = () => {
    fs.rmSync(work, { recursive: true, force: true });
    run('cp', ['-r', src, work]);
    run('sync', []);
    const r = timed(lithify, ['optimize', work, '--json']);
    const j = JSON.parse(r.stdout);
    const count = Number(JSON.parse(run(lithify, ['scan', work, '--count', '--json'])).count);
    if (count !== rowsBefore) throw new Error(`lithify: ${count} rows after OPTIMIZE, ${rowsBefore} before`);
    if (j.metrics.numFilesRemoved !== nfiles) throw new Error(`lithify removed ${j.metrics.numFilesRemoved} files, not ${nfiles}`);
    lithMetrics = j.metrics;
    outL = j.metrics.filesAdded.totalSize;
    lith.push(r);
  };
  const runDuck = () => {
    fs.rmSync(outD, { force: true });
    run('sync', []);
    const r = timed('node', [self, '--duck', '@' + sqlFile]);
    const o = JSON.parse(r.stdout.trim().split('\n').pop());
    duckThreads = o.threads;
    const count = Number(JSON.parse(run('node', [self, '--duck-query', `SELECT count(*) FROM read_parquet('${outD}')`]))[0][0]);
    if (count !== rowsBefore) throw new Error(`DuckDB: ${count} rows written, ${rowsBefore} read`);
    outDBytes = fs.statSync(outD).size;
    duck.push({ ...r, inner: o.seconds });
  };
  for (let i = 0; i < runs; ++i) {
    console.error(`rewrite run ${i + 1}/${runs} (load ${load()})`);
    if (i % 2 === 0) { runLithify(); runDuck(); } else { runDuck(); runLithify(); }
  }
  // The codec limit (issue 18): the last run's outputs, next to the same inputs.
  const inputNames = new Set(inputs.map(f => path.basename(f)));
  const lithOutputs = dataFiles(work).filter(f => !inputNames.has(path.basename(f)));
  const codecL = codecLimit(build, inputs, lithOutputs);
  const codecD = codecLimit(build, inputs, [outD]);
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(outD, { force: true });
  loads.push(`after rewrite ${load()}`);

  const mb = mib(inBytes);
  const lW = median(lith.map(r => r.wall)), dW = median(duck.map(r => r.wall));
  const dI = median(duck.map(r => r.inner));
  const lC = median(lith.map(r => r.cpu)), dC = median(duck.map(r => r.cpu));
  const lR = Math.max(...lith.map(r => r.rss_mb)), dR = Math.max(...duck.map(r => r.rss_mb));
  const row = (name, l, d) => `| ${name} | ${l.toFixed(2)} s (${(mb / l).toFixed(0)} MiB/s) | ` +
    `${d.toFixed(2)} s (${(mb / d).toFixed(0)} MiB/s) | ${(d / l).toFixed(2)} | ${lR.toFixed(0)} MiB | ${dR.toFixed(0)} MiB |`;
  sections.push([
    `Input: ${nfiles} files, ${mb.toFixed(0)} MiB (${(inBytes / nfiles / 1e6).toFixed(2)} MB each, zstd, one row group each), ` +
    `${rowsBefore.toLocaleString('en-US')} rows of ${schemaName}. Output: lithify ${lithMetrics.numFilesAdded} files ` +
    `(${lithMetrics.numBins} bins, target 1 GiB), ${mib(outL).toFixed(0)} MiB; DuckDB 1 file, ${mib(outDBytes).toFixed(0)} MiB; ` +
    `both row counts checked. Threads: lithify ${lithMetrics.totalClusterParallelism} (its default), DuckDB ${duckThreads} (its default). ` +
    `Median of ${runs} runs, alternating; peak RSS is the max.`,
    '',
    '| workload | lithify | DuckDB | speed ratio (DuckDB time / lithify time) | lithify peak RSS | DuckDB peak RSS |',
    '|---|---|---|---|---|---|',
    row('OPTIMIZE vs COPY (wall, whole process)', lW, dW),
    row('OPTIMIZE vs COPY (DuckDB query time only)', lW, dI),
    row('OPTIMIZE vs COPY (CPU time, user + sys)', lC, dC),
    '',
    codecLimitTable(codecL, lC, codecD, dC),
  ].join('\n'));
}

// ---- 2. planning over 1M files ------------------------------------------------------
if (!args['skip-plan']) {
  const pdir = args['plan-dir'] ?? `/tmp/lithify-replay-${planFiles}-10`;
  const expectedFile = path.join(pdir, 'expected.json');
  if (!fs.existsSync(expectedFile)) {
    console.error(`generating a ${planFiles}-file log in ${pdir} ...`);
    fs.rmSync(pdir, { recursive: true, force: true });
    const out = run(gen, [pdir, '--files', String(planFiles), '--commits', '10']);
    fs.writeFileSync(expectedFile, out.trim() + '\n');
  }
  const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
  const jsonOut = path.join(os.tmpdir(), `lithify-plan-${process.pid}.json`);
  const human = [], json = [], replay = [];
  let plan = null;
  for (let i = 0; i < planRuns; ++i) {
    console.error(`planning run ${i + 1}/${planRuns} (load ${load()})`);
    const d = timed(lithify, ['describe', 'detail', pdir, '--json']);
    if (JSON.parse(d.stdout).numFiles !== expected.numFiles) throw new Error('describe detail disagrees with the generator');
    replay.push(d);
    human.push(timed(lithify, ['optimize', pdir, '--dry-run']));
    const j = timed(lithify, ['optimize', pdir, '--dry-run', '--json'], jsonOut);
    const parsed = JSON.parse(fs.readFileSync(jsonOut, 'utf8'));
    plan = { ...parsed.metrics, jsonBytes: fs.statSync(jsonOut).size };
    if (parsed.dryRun !== true || parsed.versions.length !== 0) throw new Error('dry run committed');
    json.push(j);
  }
  fs.rmSync(jsonOut, { force: true });
  loads.push(`after planning ${load()}`);
  const line = (name, rs) => `| ${name} | ${median(rs.map(r => r.wall)).toFixed(2)} s | ` +
    `${median(rs.map(r => r.cpu)).toFixed(2)} s | ${Math.max(...rs.map(r => r.rss_mb)).toFixed(0)} MiB |`;
  sections.push([
    `Log: ${expected.numFiles.toLocaleString('en-US')} live files (bench/gen_delta_log: 1,000 date partitions, ` +
    `50-150 MB files, some with DVs; checkpoint + 10 commits), no data files. Plan: ` +
    `${plan.totalConsideredFiles.toLocaleString('en-US')} files considered, ${plan.numBins.toLocaleString('en-US')} bins in ` +
    `${plan.partitionsOptimized} partitions; the --json plan is ${mib(plan.jsonBytes).toFixed(0)} MiB (every file of every bin). ` +
    `Median of ${planRuns} run(s); peak RSS is the max.`,
    '',
    '| command | wall | CPU (user + sys) | peak RSS |',
    '|---|---|---|---|',
    line('`describe detail --json` (log replay only, reference)', replay),
    line('`optimize --dry-run` (replay + plan, summary output)', human),
    line('`optimize --dry-run --json` (replay + plan + full plan JSON)', json),
  ].join('\n'));
}

const cmd = `node bench/optimize_bench.mjs --build ${path.relative(repo, build)} --files ${nfiles} ` +
  `--rows-per-file ${rowsPerFile} --runs ${runs}` + (planRuns !== runs ? ` --plan-runs ${planRuns}` : '') + (args['skip-rewrite'] ? ' --skip-rewrite' : '') +
  (args['skip-plan'] ? ' --skip-plan' : '');
const text = `Load average (1 min, 2 cores): ${loads.join(', ')}.\n\n${sections.join('\n\n')}`;
console.log(text);

if (args['append-doc']) {
  const doc = path.join(repo, 'docs/benchmarks.md');
  let t = fs.readFileSync(doc, 'utf8');
  const header = '## OPTIMIZE';
  const intro = `${header}\n\nIssue "Maintenance", acceptance 5: OPTIMIZE of a table of 2,000 files of about 1 MB (zstd) ` +
    'against DuckDB rewriting the same files with `COPY (SELECT * FROM read_parquet([...])) TO ... ' +
    '(FORMAT parquet, COMPRESSION zstd)` in the same run; and planning over 1,000,000 files. ' +
    'Driver: `bench/optimize_bench.mjs` (its header describes the method).\n';
  const entry = `\n### ${new Date().toISOString().slice(0, 10)}, \`${cmd}\`\n\n${text}\n`;
  if (!t.includes(header + '\n')) t = t.replace(/\s*$/, '\n\n') + intro;
  const start = t.indexOf(header + '\n');
  const next = t.indexOf('\n## ', start + header.length);
  t = next < 0 ? t.replace(/\s*$/, '\n') + entry : t.slice(0, next) + entry + t.slice(next);
  fs.writeFileSync(doc, t);
  console.error(`appended to ${doc}`);
}
