// OPTIMIZE of tables whose data files another engine wrote (issue 18, acceptance 2).
//
// Two Delta tables, built once and cached in --dir (never in the repository), each
// registered by one hand-written _delta_log commit (protocol, metaData, one add action
// per file with numRecords stats, as lithify's OPTIMIZE needs nothing more):
//   duckdb:   --duck-files (200) files written by DuckDB (`COPY ... (FORMAT parquet,
//             COMPRESSION snappy)`, its defaults otherwise: all columns optional, logical
//             types only), --duck-rows (16,000) rows each, about 1 MB: ids, two
//             low-cardinality strings, random doubles, md5 hash strings, timestamps
//             (TIMESTAMPTZ), decimals, small ints.
//   sparkmr:  the two parquet-mr 1.13.1 files (Spark via Iceberg: converted + logical
//             annotations, field ids, zstd, about 1.3 MB each) of the corpus table
//             duckdb-iceberg/.../lineitem_iceberg, read in place and copied --clones (100)
//             times each into the benchmark table (a larger table of the same files).
// Each run copies the table (untimed) and times `lithify optimize COPY --json --threads T`
// (default target size 1 GiB: one bin per table) against DuckDB in its own node process
// with SET threads = T over the same files:
//   COPY (SELECT * FROM read_parquet([...])) TO 'out.parquet'
//     (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3)
// zstd level 3 is what lithify writes by default (parquet/compression.h), so both use
// the same codec and level. The two alternate within a run (order flipped every run).
// Checked (the script fails otherwise): numBinsRewrittenColumnar == numBins, every file
// removed, row counts (table before, `lithify scan --count` after, DuckDB's count(*) of
// its output). Wall and CPU (user + sys) and peak RSS come from /usr/bin/time -v around
// each process (bench/measure.mjs). Medians over --runs; peak RSS is the max. Prints
// Markdown; with --append-doc adds it to docs/benchmarks.md under its own heading.
//
//   node bench/foreign_optimize_bench.mjs --build build [--threads 2] [--runs 3]
//        [--duck-files 200] [--duck-rows 16000] [--clones 100]
//        [--dir /tmp/lithify-foreign-bench] [--only duckdb|sparkmr] [--keep-outputs]
//        [--duck-row-group-size ROWS]
//        [--append-doc]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codecLimit, codecLimitTable, median, timed } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const duckApi = path.join(here, '../tests/oracle/node_modules/@duckdb/node-api/lib/index.js');

// ---- child mode: run the SQL statements of FILE (one per line) in a fresh DuckDB with
// THREADS threads; print the last statement's seconds and rows.
if (argv[0] === '--duck') {
  const { DuckDBInstance } = await import(duckApi);
  const inst = await DuckDBInstance.create(':memory:', {
    threads: argv[1], autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const con = await inst.connect();
  const stmts = fs.readFileSync(argv[2], 'utf8').split('\n').filter(s => s.trim());
  let seconds = 0, rows = [];
  for (const sql of stmts) {
    const t0 = process.hrtime.bigint();
    rows = (await con.runAndReadAll(sql)).getRows();
    seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  const threads = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
  console.log(JSON.stringify({ seconds, threads: String(threads),
    rows: rows.map(r => r.map(v => (typeof v === 'bigint' ? v.toString() : String(v)))) }));
  process.exit(0);
}

const args = Object.fromEntries(argv.reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]);
  return acc;
}, []));
const repo = path.join(here, '..');
const build = path.resolve(args.build ?? path.join(repo, 'build'));
const threads = Number(args.threads ?? 2);
// lithify's CPU pool (a bin's column tasks) has as many threads as DuckDB (children inherit it).
process.env.LITHIFY_THREADS = String(threads);
const runs = Number(args.runs ?? 3);
const duckFiles = Number(args['duck-files'] ?? 200);
const duckRows = Number(args['duck-rows'] ?? 16000);
const clones = Number(args.clones ?? 100);
// DuckDB's ROW_GROUP_SIZE (rows; default: DuckDB's own, 122,880): lithify's row groups
// are cut by bytes (file_writer.h), so on cloned data, whose values repeat across the
// clones, its much larger row groups amortise each dictionary over more rows.
const duckRowGroup = args['duck-row-group-size'] ? Number(args['duck-row-group-size']) : 0;
const dir = args.dir ?? '/tmp/lithify-foreign-bench';
const lithify = path.join(build, 'tools/cli/lithify');
const self = fileURLToPath(import.meta.url);
const corpus = path.resolve(repo, '../shared/corpus');
const lineitemDir = path.join(corpus, 'duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg/data');

function run(cmd, cmdArgs, opts = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.slice(0, 3).join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  return r.stdout;
}
const mib = b => b / 1048576;
const load = () => os.loadavg()[0].toFixed(1);
const dataFiles = d => fs.readdirSync(d).filter(f => f.endsWith('.parquet')).sort();
const sq = s => `'${s.replaceAll("'", "''")}'`;
function duck(stmts) {
  const f = path.join(dir, `duck-${process.pid}.sql`);
  fs.writeFileSync(f, stmts.join('\n') + '\n');
  return JSON.parse(run('node', [self, '--duck', String(threads), f]).trim().split('\n').pop());
}

// The Delta schema string of one struct field.
const field = (name, type) => ({ name, type, nullable: true, metadata: {} });

// Writes _delta_log/00000000000000000000.json registering every .parquet file of `root`
// (numRecords from the footer, as `lithify parquet inspect` prints it).
function writeLog(root, fields) {
  const log = path.join(root, '_delta_log');
  fs.mkdirSync(log, { recursive: true });
  const now = Date.now();
  const lines = [
    { commitInfo: { timestamp: now, operation: 'WRITE', operationParameters: { mode: 'Append' }, engineInfo: 'foreign_optimize_bench' } },
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: '00000000-0000-4000-8000-00000000f0e1', format: { provider: 'parquet', options: {} },
      schemaString: JSON.stringify({ type: 'struct', fields }), partitionColumns: [], configuration: {}, createdTime: now } },
  ];
  // Clones of one file have its size and row count: one `parquet inspect` per size (the
  // files of a table built here differ in size whenever they differ in rows).
  const rowsBySize = new Map();
  for (const f of dataFiles(root)) {
    const p = path.join(root, f);
    const size = fs.statSync(p).size;
    if (!rowsBySize.has(size)) rowsBySize.set(size, Number(/^rows: (\d+)$/m.exec(run(lithify, ['parquet', 'inspect', p]))[1]));
    lines.push({ add: { path: f, partitionValues: {}, size, modificationTime: now,
      dataChange: true, stats: JSON.stringify({ numRecords: rowsBySize.get(size) }) } });
  }
  fs.writeFileSync(path.join(log, '00000000000000000000.json'), lines.map(l => JSON.stringify(l)).join('\n') + '\n');
}

function buildDuckTable(root) {
  fs.mkdirSync(root, { recursive: true });
  const stmts = ['SELECT 1'];
  for (let k = 0; k < duckFiles; ++k) {
    const lo = k * duckRows, hi = lo + duckRows;
    const out = path.join(root, `part-${String(k).padStart(5, '0')}-duckdb.snappy.parquet`);
    stmts.push(`COPY (SELECT i::BIGINT AS id, ` +
      `['books','games','garden','music','tools','toys','food','sport'][(hash(i * 3) % 8)::INT + 1] AS category, ` +
      `['DE','FR','US','JP','BR','IN','GB','ES','IT','NL','SE','PL'][(hash(i * 5) % 12)::INT + 1] AS country, ` +
      `(hash(i) >> 11)::DOUBLE / 9007199254740992.0 AS score, ` +
      `md5(i::VARCHAR) AS hash, ` +
      `TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds(i * 1000 + (hash(i * 7) % 1000)::BIGINT) AS ts, ` +
      `((hash(i * 11) % 1000000)::DECIMAL(12,2) / 100)::DECIMAL(12,2) AS amount, ` +
      `(hash(i * 13) % 50)::INT AS qty ` +
      `FROM range(${lo}, ${hi}) t(i)) TO ${sq(out)} (FORMAT parquet, COMPRESSION snappy)`);
  }
  duck(stmts);
  writeLog(root, [field('id', 'long'), field('category', 'string'), field('country', 'string'),
    field('score', 'double'), field('hash', 'string'), field('ts', 'timestamp'),
    field('amount', 'decimal(12,2)'), field('qty', 'integer')]);
}

function buildSparkTable(root) {
  fs.mkdirSync(root, { recursive: true });
  const srcs = dataFiles(lineitemDir).map(f => path.join(lineitemDir, f));
  if (srcs.length !== 2) throw new Error(`expected the 2 lineitem files in ${lineitemDir}`);
  for (let c = 0; c < clones; ++c) {
    srcs.forEach((s, j) => fs.copyFileSync(s, path.join(root,
      `part-${String(c * srcs.length + j).padStart(5, '0')}-parquet-mr.zstd.parquet`)));
  }
  const dec = 'decimal(15,2)';
  writeLog(root, [field('l_orderkey', 'long'), field('l_partkey', 'long'), field('l_suppkey', 'long'),
    field('l_linenumber', 'long'), field('l_quantity', dec), field('l_extendedprice', dec),
    field('l_discount', dec), field('l_tax', dec), field('l_returnflag', 'string'),
    field('l_linestatus', 'string'), field('l_shipdate', 'date'), field('l_commitdate', 'date'),
    field('l_receiptdate', 'date'), field('l_shipinstruct', 'string'), field('l_shipmode', 'string'),
    field('l_comment', 'string')]);
}

// Builds (or reuses) table `name`; returns its root.
function table(name, builder, key) {
  const root = path.join(dir, name);
  const stamp = path.join(dir, `${name}.json`);
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() !== JSON.stringify(key)) {
    console.error(`building ${root} ...`);
    fs.rmSync(root, { recursive: true, force: true });
    builder(root);
    fs.writeFileSync(stamp, JSON.stringify(key) + '\n');
  }
  return root;
}

function bench(name, src, describe) {
  const inputs = dataFiles(src).map(f => path.join(src, f));
  const inBytes = inputs.reduce((s, f) => s + fs.statSync(f).size, 0);
  const rowsBefore = Number(JSON.parse(run(lithify, ['scan', src, '--count', '--json'])).count);
  const work = path.join(dir, `run-${name}`);
  const outD = path.join(dir, `out-duckdb-${name}.parquet`);
  const sqlFile = path.join(dir, `copy-${name}.sql`);
  fs.writeFileSync(sqlFile, `COPY (SELECT * FROM read_parquet([${inputs.map(sq).join(',')}])) TO ${sq(outD)} ` +
    `(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3${duckRowGroup ? `, ROW_GROUP_SIZE ${duckRowGroup}` : ''})\n`);
  const lith = [], dk = [];
  let m = null, outL = 0, outDBytes = 0, duckThreads = '?';
  const runLithify = () => {
    fs.rmSync(work, { recursive: true, force: true });
    run('cp', ['-r', src, work]);
    run('sync', []);
    const r = timed(lithify, ['optimize', work, '--json', '--threads', String(threads)]);
    m = JSON.parse(r.stdout).metrics;
    if (m.numBinsRewrittenColumnar !== m.numBins) throw new Error(`${name}: ${m.numBinsRewrittenColumnar} of ${m.numBins} bins columnar`);
    if (m.numFilesRemoved !== inputs.length) throw new Error(`${name}: ${m.numFilesRemoved} files removed, not ${inputs.length}`);
    const count = Number(JSON.parse(run(lithify, ['scan', work, '--count', '--json'])).count);
    if (count !== rowsBefore) throw new Error(`${name}: lithify ${count} rows after, ${rowsBefore} before`);
    outL = m.filesAdded.totalSize;
    lith.push(r);
  };
  const runDuck = () => {
    fs.rmSync(outD, { force: true });
    run('sync', []);
    const r = timed('node', [self, '--duck', String(threads), sqlFile]);
    duckThreads = JSON.parse(r.stdout.trim().split('\n').pop()).threads;
    const count = Number(duck([`SELECT count(*) FROM read_parquet(${sq(outD)})`]).rows[0][0]);
    if (count !== rowsBefore) throw new Error(`${name}: DuckDB wrote ${count} rows, read ${rowsBefore}`);
    outDBytes = fs.statSync(outD).size;
    dk.push({ ...r, inner: JSON.parse(r.stdout.trim().split('\n').pop()).seconds });
  };
  for (let i = 0; i < runs; ++i) {
    console.error(`${name} run ${i + 1}/${runs} (load ${load()})`);
    if (i % 2 === 0) { runLithify(); runDuck(); } else { runDuck(); runLithify(); }
  }
  // The codec limit (issue 18): the last run's outputs, next to the same inputs.
  const inputNames = new Set(inputs.map(f => path.basename(f)));
  const lithOutputs = dataFiles(work).filter(f => !inputNames.has(f)).map(f => path.join(work, f));
  const codecL = codecLimit(build, inputs, lithOutputs, 3);
  const codecD = codecLimit(build, inputs, [outD], 3);
  if (!args['keep-outputs']) {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(outD, { force: true });
  }
  const mb = mib(inBytes);
  const lW = median(lith.map(r => r.wall)), dW = median(dk.map(r => r.wall)), dI = median(dk.map(r => r.inner));
  const lC = median(lith.map(r => r.cpu)), dC = median(dk.map(r => r.cpu));
  const lR = Math.max(...lith.map(r => r.rss_mb)), dR = Math.max(...dk.map(r => r.rss_mb));
  const sizeRatio = outL / outDBytes;
  const row = (what, l, d) => `| ${what} | ${l.toFixed(2)} s (${(mb / l).toFixed(0)} MiB/s) | ` +
    `${d.toFixed(2)} s (${(mb / d).toFixed(0)} MiB/s) | ${(d / l).toFixed(2)} |`;
  return [
    `**${name}**: ${describe}. Input: ${inputs.length} files, ${mb.toFixed(0)} MiB, ${rowsBefore.toLocaleString('en-US')} rows. ` +
    `lithify: ${m.numBins} bin(s), numBinsRewrittenColumnar ${m.numBinsRewrittenColumnar}, ${m.numFilesAdded} file(s), ` +
    `${mib(outL).toFixed(1)} MiB, peak RSS ${lR.toFixed(0)} MiB. DuckDB: 1 file, ${mib(outDBytes).toFixed(1)} MiB, ` +
    `peak RSS ${dR.toFixed(0)} MiB. Output size lithify / DuckDB: ${sizeRatio.toFixed(3)} ` +
    `(${Math.abs(sizeRatio - 1) <= 0.05 ? 'within' : 'NOT within'} 5%). Threads: lithify ${threads}, DuckDB ${duckThreads}. ` +
    `Row counts checked. Median of ${runs} runs, alternating; peak RSS is the max.`,
    '',
    '| measure | lithify | DuckDB | ratio (DuckDB / lithify) |',
    '|---|---|---|---|',
    row('wall, whole process', lW, dW),
    row('wall, DuckDB query time only', lW, dI),
    row('CPU, user + sys', lC, dC),
    `| peak RSS | ${lR.toFixed(0)} MiB | ${dR.toFixed(0)} MiB | ${(dR / lR).toFixed(2)} |`,
    `| output bytes | ${outL.toLocaleString('en-US')} | ${outDBytes.toLocaleString('en-US')} | ${(outDBytes / outL).toFixed(3)} |`,
    '',
    codecLimitTable(codecL, lC, codecD, dC),
  ].join('\n');
}

fs.mkdirSync(dir, { recursive: true });
const loads = [`start ${load()}`];
const sections = [];
if (args.only !== 'sparkmr') {
  const root = table('duckdb', buildDuckTable, { duckFiles, duckRows });
  const version = duck(['SELECT version()']).rows[0][0];
  sections.push(bench('duckdb', root, `${duckFiles} DuckDB ${version}-written snappy files of ${duckRows.toLocaleString('en-US')} rows ` +
    '(id, category, country, random double, md5 string, timestamp, decimal(12,2), int)'));
  loads.push(`after duckdb ${load()}`);
}
if (args.only !== 'duckdb') {
  const root = table('sparkmr', buildSparkTable, { clones });
  sections.push(bench('sparkmr', root, `the 2 parquet-mr 1.13.1 zstd files of the corpus's lineitem_iceberg ` +
    `(16 columns: longs, decimal(15,2), strings, dates; field ids) cloned ${clones} times each`));
  loads.push(`after sparkmr ${load()}`);
}
const cmd = `node bench/foreign_optimize_bench.mjs --build ${path.relative(repo, build)} --threads ${threads} --runs ${runs} ` +
  `--duck-files ${duckFiles} --duck-rows ${duckRows} --clones ${clones}` + (args.only ? ` --only ${args.only}` : '') +
  (duckRowGroup ? ` --duck-row-group-size ${duckRowGroup}` : '');
const text = `Load average (1 min, 2 cores): ${loads.join(', ')}.\n\n${sections.join('\n\n')}`;
console.log(text);

if (args['append-doc']) {
  const doc = path.join(repo, 'docs/benchmarks.md');
  let t = fs.readFileSync(doc, 'utf8');
  const header = '## OPTIMIZE of foreign files (issue 18 acceptance 2)';
  const intro = `${header}\n\nOPTIMIZE of Delta tables whose data files other engines wrote (DuckDB; Spark/parquet-mr ` +
    'files of the corpus cloned into a larger table), registered directly in a Delta log, against DuckDB rewriting the ' +
    'same files with `COPY (SELECT * FROM read_parquet([...])) TO ... (FORMAT parquet, COMPRESSION zstd, ' +
    'COMPRESSION_LEVEL 3)` (lithify\'s default codec and level) in the same run with the same thread count. ' +
    'Driver: `bench/foreign_optimize_bench.mjs` (its header describes the method).\n';
  const entry = `\n### ${new Date().toISOString().slice(0, 10)}, \`${cmd}\`\n\n${text}\n`;
  if (!t.includes(header + '\n')) t = t.replace(/\s*$/, '\n\n') + intro;
  const start = t.indexOf(header + '\n');
  const next = t.indexOf('\n## ', start + header.length);
  t = next < 0 ? t.replace(/\s*$/, '\n') + entry : t.slice(0, next) + entry + t.slice(next);
  fs.writeFileSync(doc, t);
  console.error(`appended to ${doc}`);
}
