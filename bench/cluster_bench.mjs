// The clustering memory benchmark (issue "Z-order and liquid clustering", acceptance 4):
// OPTIMIZE ZORDER BY of one bin several times larger than the memory budget.
//
// A Delta table of --files files (`lithify create` + `lithify append --generate`, one
// unpartitioned bin of --rows rows, built once and cached in --dir) is copied (untimed)
// for each budget in --budgets and each run, and
//   lithify optimize COPY --zorder-by customer_id,amount --memory-budget B --threads 1
// is timed under /usr/bin/time -v (wall, CPU, peak RSS), next to DuckDB in its own node
// process with the same memory limit and one thread sorting the same files:
//   SET memory_limit='B'; COPY (SELECT * FROM read_parquet([...]) ORDER BY customer_id,
//   amount) TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd)
// (DuckDB sorts on the columns, lithify on the Z-order key of their range ids; both are a
// full external sort of the bin under the limit). Row counts must agree (the script fails
// otherwise). Reports lithify's sort runs spilled and its counted peak of buffered bytes
// (the budget's subject) next to both processes' peak RSS. Medians over --runs; peak
// RSS is the max. Prints Markdown.
//
// --threads N gives both sides N threads (lithify --threads N, DuckDB SET threads). --mode
// liquid creates the table with `--cluster-by customer_id,amount` and times a plain
// `optimize COPY` (liquid clustering: Hilbert curve for two columns) instead of Z-order.
// Output sizes: lithify's added files (metrics.filesAdded.totalSize) and DuckDB's file.
//
//   node bench/cluster_bench.mjs --build build-bench [--rows 2000000] [--files 64]
//        [--budgets 32mb,128mb] [--runs 3] [--threads 1] [--mode zorder|liquid]
//        [--dir /tmp/lithify-cluster-bench]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatorDigest } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);

// Child mode: print DuckDB's row count of a Parquet file.
if (argv[0] === '--duck-count') {
  const { DuckDBInstance } = await import(
    path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js'));
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  const rows = (await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${argv[1]}')`)).getRows();
  console.log(String(rows[0][0]));
  process.exit(0);
}
const args = Object.fromEntries(argv.reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]);
  return acc;
}, []));
const build = path.resolve(args.build ?? 'build-bench');
const lithify = path.join(build, 'tools/cli/lithify');
const rows = Number(args.rows ?? 2000000);
const files = Number(args.files ?? 64);
const runs = Number(args.runs ?? 3);
const budgets = String(args.budgets ?? '32mb,128mb').split(',');
const threads = Number(args.threads ?? 1);
const mode = String(args.mode ?? 'zorder');
if (mode !== 'zorder' && mode !== 'liquid') throw new Error(`--mode ${mode}: zorder or liquid`);
const dir = path.join(args.dir ?? '/tmp/lithify-cluster-bench', mode);

function run(cmd, cmdArgs) {
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...cmdArgs], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed:\n${r.stderr}`);
  const field = (name) => r.stderr.match(new RegExp(`${name}: (.*)`))?.[1];
  const [m, s] = field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)').split(':').slice(-2);
  return {
    stdout: r.stdout,
    wall: Number(m) * 60 + Number(s),
    cpu: Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)')),
    rssMiB: Number(field('Maximum resident set size \\(kbytes\\)')) / 1024,
  };
}
function lith(...a) {
  const r = spawnSync(lithify, a, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`lithify ${a.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const bytesOf = (t) => {
  const m = String(t).toLowerCase().match(/^([0-9.]+)\s*(b|kb|mb|gb)?$/);
  return Math.round(Number(m[1]) * { b: 1, kb: 1024, mb: 1 << 20, gb: 1 << 30 }[m[2] ?? 'b']);
};

// The source table, cached.
const source = path.join(dir, 'source');
const stamp = path.join(dir, `source-${mode}-${rows}-${files}-${generatorDigest()}.ok`);
if (!fs.existsSync(stamp)) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  lith('create', source, '--schema', 'customer_id long, amount double, category string, note string',
    ...(mode === 'liquid' ? ['--cluster-by', 'customer_id,amount'] : []));
  lith('append', source, '--generate', String(rows), '--files', String(files), '--no-auto-compact');
  fs.writeFileSync(stamp, '');
}
const detail = JSON.parse(lith('describe', 'detail', source, '--json'));
const tableBytes = Number(detail.sizeInBytes);
const count = (t) => Number(JSON.parse(lith('scan', t, '--count', '--json')).count ?? NaN);
const sourceRows = count(source);
if (sourceRows !== rows) throw new Error(`source has ${sourceRows} rows, wanted ${rows}`);
const inputs = fs.readdirSync(source).filter((f) => f.endsWith('.parquet')).map((f) => path.join(source, f));

const table = [];
for (const budget of budgets) {
  const lt = [], dt = [], lc = [], dc = [];
  const ls = [], ds = [];
  let lrss = 0, drss = 0, spilled = 0, peak = 0, duckOom = false;
  for (let i = 0; i < runs; ++i) {
    const copy = path.join(dir, 'copy');
    const spill = path.join(dir, 'spill');
    fs.rmSync(copy, { recursive: true, force: true });
    fs.rmSync(spill, { recursive: true, force: true });
    fs.mkdirSync(spill);
    fs.cpSync(source, copy, { recursive: true });
    const out = path.join(dir, 'duck.parquet');
    fs.rmSync(out, { force: true });
    const list = inputs.map((f) => `'${f}'`).join(',');
    // DuckDB under the same limit when it can; its external sort needs more than lithify's
    // at small limits ("Out of Memory Error"), then it runs without a limit (reported).
    const duckAt = (limit) => run('node', [path.join(here, 'duckdb_run.mjs'), String(threads),
      ...(limit ? [`SET memory_limit='${limit}B'`] : []), `SET temp_directory='${spill}'`,
      'SET preserve_insertion_order=false',
      `COPY (SELECT * FROM read_parquet([${list}]) ORDER BY customer_id, amount) TO '${out}' ` +
      '(FORMAT parquet, COMPRESSION zstd)']);
    const duck = () => {
      try {
        return duckAt(bytesOf(budget));
      } catch (e) {
        if (!String(e.message).includes('Out of Memory')) throw e;
        duckOom = true;
        return duckAt(0);
      }
    };
    const mine = () => run(lithify, ['optimize', copy,
      ...(mode === 'zorder' ? ['--zorder-by', 'customer_id,amount'] : []), '--memory-budget', budget,
      '--threads', String(threads), '--spill-dir', spill, '--json']);
    const [a, b] = i % 2 ? [duck(), mine()] : [mine(), duck()];
    const [l, d] = i % 2 ? [b, a] : [a, b];
    const j = JSON.parse(l.stdout);
    if (count(copy) !== rows) throw new Error('lithify changed the row count');
    const dn = Number(spawnSync('node', [fileURLToPath(import.meta.url), '--duck-count', out],
      { encoding: 'utf8' }).stdout.trim());
    if (dn !== rows) throw new Error(`DuckDB wrote ${dn} rows, wanted ${rows}`);
    if (fs.readdirSync(spill).length !== 0) throw new Error('lithify left sort runs behind');
    lt.push(l.wall); dt.push(d.wall); lc.push(l.cpu); dc.push(d.cpu);
    ls.push(Number(j.metrics.filesAdded.totalSize)); ds.push(fs.statSync(out).size);
    lrss = Math.max(lrss, l.rssMiB); drss = Math.max(drss, d.rssMiB);
    spilled = j.clusteringSort.runsSpilled; peak = Math.max(peak, j.clusteringSort.peakBufferedBytes);
  }
  table.push({ budget, lt: median(lt), dt: median(dt), lc: median(lc), dc: median(dc), lrss, drss, spilled, peak,
    ls: median(ls), ds: median(ds),
    duckOom });
}

console.log(`\n### Clustering a bin larger than memory (${new Date().toISOString().slice(0, 10)})\n`);
console.log(`One bin: ${rows} rows in ${files} files, ${(tableBytes / 2 ** 20).toFixed(1)} MiB on disk; ` +
  `${mode === 'zorder' ? 'Z-order' : 'liquid (Hilbert)'} on (customer_id, amount), ${threads} thread(s), ` +
  `median of ${runs} runs; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} ` +
  'at the end.\n');
console.log('| budget | lithify wall s | DuckDB wall s | ratio | lithify CPU s | DuckDB CPU s | runs spilled | ' +
  'counted peak MiB | lithify RSS MiB | DuckDB RSS MiB | CPU ratio | lithify out MiB | DuckDB out MiB |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of table) {
  console.log(`| ${r.budget} | ${r.lt.toFixed(2)} | ${r.dt.toFixed(2)} | ${(r.dt / r.lt).toFixed(2)}x | ` +
    `${r.lc.toFixed(2)} | ${r.dc.toFixed(2)} | ${r.spilled} | ${(r.peak / 2 ** 20).toFixed(1)} | ` +
    `${r.lrss.toFixed(0)} | ${r.drss.toFixed(0)}${r.duckOom ? ' (OOM at the limit; ran unlimited)' : ''} | ` +
    `${(r.dc / r.lc).toFixed(2)}x | ${(r.ls / 2 ** 20).toFixed(1)} | ${(r.ds / 2 ** 20).toFixed(1)} |`);
}
