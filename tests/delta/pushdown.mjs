// Predicate pushdown by counting (acceptance 2).
//
// For corpus tables with partition columns and with statistics, `lithify files --where P`
// must skip exactly the files whose partition values or statistics exclude P. The
// expectation is computed here, independently of lithify's planner: partition values come
// from the file listing and statistics from the add actions in the JSON commits (only
// tables without checkpoints are used, so every live add is in a commit file), and each
// case states its exclusion rule in plain JavaScript. Then `lithify scan --where P` must
// return the same multiset of rows as `lithify scan --where P --no-skipping` (every file
// read, the predicate applied to rows only), and both must be the rows of a full scan
// that satisfy P (evaluated here).
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, describeRun, lithifyPath, repoRoot } from '../oracle/run.mjs';

const corpus = process.env.LITHIFY_CORPUS || path.resolve(repoRoot, '..', 'shared', 'corpus');
const lithify = lithifyPath();
const kernel = path.join(corpus, 'delta-kernel-rs/kernel/tests');

// Live add actions' stats by path, replaying JSON commits only.
function statsByPath(dir) {
  const log = path.join(dir, '_delta_log');
  const out = new Map();
  for (const name of fs.readdirSync(log).filter((n) => /^\d{20}\.json$/.test(n)).sort()) {
    for (const line of fs.readFileSync(path.join(log, name), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const a = JSON.parse(line);
      if (a.add) out.set(decodeURIComponent(a.add.path), a.add.stats ? JSON.parse(a.add.stats) : null);
      if (a.remove) out.delete(decodeURIComponent(a.remove.path));
    }
  }
  return out;
}

const within = (s, col, pred) => s && s.minValues && col in s.minValues && col in s.maxValues && pred(s.minValues[col], s.maxValues[col]);

const cases = [
  {
    table: path.join(kernel, 'data/basic_partitioned'),
    where: "letter = 'a'",
    partition: (pv) => pv.letter !== 'a',
    stats: () => false,
    row: (r) => r.letter === 'a',
  },
  {
    table: path.join(kernel, 'data/basic_partitioned'),
    where: 'letter IS NULL OR number >= 5',
    partition: () => false, // a data column in the OR: partition values cannot decide
    stats: (pv, s) => pv.letter !== null && within(s, 'number', (min, max) => max < 5),
    row: (r) => r.letter === null || (r.number !== null && r.number >= 5),
  },
  {
    table: path.join(kernel, 'data/basic_partitioned'),
    where: "letter IN ('b', 'c', 'e') AND a_float < 3",
    partition: (pv) => !['b', 'c', 'e'].includes(pv.letter),
    stats: (pv, s) => within(s, 'a_float', (min) => min >= 3),
    row: (r) => ['b', 'c', 'e'].includes(r.letter) && r.a_float !== null && r.a_float < 3,
  },
  {
    table: path.join(kernel, 'golden_data/data-skipping-partition-and-data-column/delta'),
    where: 'part = 1 AND id > 0',
    partition: () => false,
    stats: (pv, s) => within(s, 'part', (min, max) => max < 1 || min > 1) || within(s, 'id', (min, max) => max <= 0),
    row: (r) => r.part === 1 && r.id > 0,
  },
  {
    table: path.join(kernel, 'data/cdf-table'),
    where: "birthday >= DATE '2023-12-23'",
    partition: (pv) => pv.birthday === null || pv.birthday < '2023-12-23',
    stats: () => false,
    row: (r) => r.birthday !== null && r.birthday >= '2023-12-23',
  },
  {
    table: path.join(kernel, 'data/cdf-table'),
    where: "name = 'Ada' OR id < 3",
    partition: () => false,
    stats: (pv, s) => within(s, 'name', (min, max) => max < 'Ada' || min > 'Ada') && within(s, 'id', (min) => min >= 3),
    row: (r) => r.name === 'Ada' || (r.id !== null && r.id < 3),
  },
];

const lines = (out) => out.split('\n').filter(Boolean);
const sorted = (ls) => [...ls].sort();

let passed = 0;
let failed = 0;
const fail = (c, msg) => { failed++; console.log(`FAIL ${path.basename(c.table)} [${c.where}]: ${msg}`); };

for (const c of cases) {
  const lf = await runCommand(lithify, ['--json', 'files', c.table, '--where', c.where]);
  if (lf.code !== 0) { fail(c, `files: ${describeRun(lf)}`); continue; }
  const listing = JSON.parse(lf.stdout);
  const stats = statsByPath(c.table);
  let bad = [];
  let skippedP = 0; let skippedS = 0;
  for (const f of listing.files) {
    const pv = f.partitionValues;
    const byPartition = c.partition(pv);
    const byStats = !byPartition && c.stats(pv, stats.get(f.path));
    const want = byPartition ? 'skipped-partition' : byStats ? 'skipped-stats' : 'kept';
    if (want === 'skipped-partition') skippedP++;
    if (want === 'skipped-stats') skippedS++;
    if (f.verdict !== want) bad.push(`${f.path}: expected ${want}, got ${f.verdict} ${f.reason ?? ''}`);
  }
  if (listing.summary.skippedByPartition !== skippedP || listing.summary.skippedByStats !== skippedS) {
    bad.push(`summary ${JSON.stringify(listing.summary)} vs expected ${skippedP}/${skippedS}`);
  }
  if (skippedP + skippedS === 0 && c.partition !== undefined && listing.files.length > 1) {
    // Every case is chosen so that something is skipped; a case that skips nothing tests nothing.
    bad.push('nothing skipped: the case does not exercise pruning');
  }
  const pushed = await runCommand(lithify, ['scan', c.table, '--where', c.where]);
  const unpushed = await runCommand(lithify, ['scan', c.table, '--where', c.where, '--no-skipping']);
  const full = await runCommand(lithify, ['scan', c.table]);
  if (pushed.code || unpushed.code || full.code) {
    bad.push(`scan failed: ${describeRun(pushed.code ? pushed : unpushed.code ? unpushed : full)}`);
  } else {
    const a = sorted(lines(pushed.stdout));
    const b = sorted(lines(unpushed.stdout));
    const expected = sorted(lines(full.stdout).filter((l) => c.row(JSON.parse(l))));
    if (a.join('\n') !== b.join('\n')) bad.push(`pushdown rows (${a.length}) differ from no-skipping rows (${b.length})`);
    if (b.join('\n') !== expected.join('\n')) bad.push(`rows (${b.length}) differ from the full scan filtered here (${expected.length})`);
    if (expected.length === 0) bad.push('predicate selects no row: the case tests nothing');
  }
  if (bad.length) fail(c, bad.slice(0, 4).join(' | '));
  else { passed++; console.log(`PASS ${path.basename(c.table)} [${c.where}]: ${skippedP} skipped by partition, ${skippedS} by stats of ${listing.files.length}`); }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
