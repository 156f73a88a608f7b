// Manifest pruning by partition summaries (issue 17: skipping by partition, conservatively).
//
// For each order-preserving transform on a timestamp (day, month, year, hour), a table made
// by bench/gen_iceberg_table.mjs (10 data manifests, one per day from 2022-01-08, 10 files
// each, every file's ts inside the first hour of its day) is planned by `lithify files
// --where` with range predicates on ts that fall on and beside the transforms' boundaries.
// Asserted, per predicate:
//   * the files kept are exactly those whose ts bounds overlap the predicate's range (no
//     file that may match is ever skipped, and file bounds skip the rest);
//   * the files skipped with a "manifest partition summary" reason are exactly those of the
//     manifests whose partition range (the transform inverted: a whole day, month, year or
//     hour) cannot meet the predicate's range;
//   * when every manifest is pruned, `scan --count` answers 0 with the manifests moved away
//     (it plans from the manifest list alone; the data files do not exist either).
//
//   LITHIFY=build/tools/cli/lithify node tests/iceberg/manifest_pruning.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const lithify = process.env.LITHIFY;
if (!lithify) { console.error('LITHIFY is not set'); process.exit(2); }
const gen = path.join(here, '../../bench/gen_iceberg_table.mjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-manifest-pruning-'));

const DAY0 = 19000, DAYS = 10, PER = 10;
const US_DAY = 86400000000n, US_HOUR = 3600000000n;
const usOf = (iso) => BigInt(Date.parse(iso + 'Z')) * 1000n + BigInt(/\.\d{3}(\d{3})/.exec(iso)?.[1] ?? 0);
// Each file as the generator writes it: day k, index i; ts in [lo, lo + 50 min].
const files = [];
for (let k = 0; k < DAYS; ++k) {
  for (let i = 0; i < PER; ++i) {
    const lo = BigInt(DAY0 + k) * US_DAY + BigInt(i) * 1000n;
    files.push({ day: DAY0 + k, lo, hi: lo + 3000000000n });
  }
}
// The source range [first, last] of a day's partition value under a transform.
function partitionRange(day, transform) {
  const d = new Date(day * 86400000);
  const y = d.getUTCFullYear(), m = d.getUTCMonth();
  const us = (ms) => BigInt(ms) * 1000n;
  switch (transform) {
    case 'day': return [BigInt(day) * US_DAY, BigInt(day + 1) * US_DAY - 1n];
    case 'hour': return [BigInt(day) * US_DAY, BigInt(day) * US_DAY + US_HOUR - 1n];
    case 'month': return [us(Date.UTC(y, m, 1)), us(Date.UTC(y, m + 1, 1)) - 1n];
    case 'year': return [us(Date.UTC(y, 0, 1)), us(Date.UTC(y + 1, 0, 1)) - 1n];
  }
  throw new Error(transform);
}
// Predicates as text and as the closed range [from, to] of ts they accept.
const MIN = -(2n ** 62n), MAX = 2n ** 62n;
const ts = (iso) => `TIMESTAMP_NTZ '${iso.replace('T', ' ')}'`;
const predicates = [
  ['2022-01-09T00:00:00', '2022-01-10T00:00:00'],  // one day, half open
  [null, '2022-01-01T00:00:00'],                    // before January
  ['2022-02-01T00:00:00', null],                    // after January
  [null, '2022-01-08T00:00:00.000001'],             // the first microsecond of the first day
  [null, '2022-01-08T00:00:00'],                    // nothing
  ['2022-01-17T00:50:00.009', null],                // the last file's last microseconds
  ['2022-01-17T00:50:00.009001', null],             // just after every file
  ['2022-01-12T01:00:00', '2022-01-13T00:00:00'],   // after the first hour of a day: files skip by bounds
  ['2021-12-31T23:59:59.999999', '2022-01-08T00:00:00'],
  ['2023-01-01T00:00:00', null],                    // next year
].map(([from, to]) => ({
  text: [from && `ts >= ${ts(from)}`, to && `ts < ${ts(to)}`].filter(Boolean).join(' AND '),
  from: from ? usOf(from) : MIN,
  to: to ? usOf(to) - 1n : MAX,
}));

let failures = 0, checks = 0;
const fail = (msg) => { failures++; console.error(`FAIL ${msg}`); };
function run(args) {
  return spawnSync(lithify, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
}
for (const transform of ['day', 'month', 'year', 'hour']) {
  const dir = path.join(work, transform);
  const g = spawnSync('node', [gen, dir, '--files', String(DAYS * PER), '--manifests', String(DAYS), '--transform', transform],
                      { encoding: 'utf8' });
  if (g.status !== 0) { fail(`generator (${transform}): ${g.stderr}`); continue; }
  for (const p of predicates) {
    const r = run(['files', dir, '--json', '--where', p.text]);
    if (r.status !== 0) { fail(`${transform} ${p.text}: files exited ${r.status}: ${r.stderr}`); continue; }
    const out = JSON.parse(r.stdout);
    const overlaps = (lo, hi) => lo <= p.to && hi >= p.from;
    const wantKept = files.filter((f) => overlaps(f.lo, f.hi)).length;
    const wantByManifest = files.filter((f) => !overlaps(...partitionRange(f.day, transform))).length;
    const gotByManifest = out.files.filter((f) => (f.reason ?? '').startsWith('manifest partition summary')).length;
    checks += 2;
    if (out.summary.kept !== wantKept) fail(`${transform} ${p.text}: kept ${out.summary.kept}, expected ${wantKept}`);
    if (gotByManifest !== wantByManifest) {
      fail(`${transform} ${p.text}: ${gotByManifest} files skipped by manifest summaries, expected ${wantByManifest}`);
    }
    if (wantByManifest === files.length) {
      // Every manifest pruned: scan plans from the manifest list alone. The manifests are
      // moved away first, so reading any of them (or a data file) would fail the scan.
      const meta = path.join(dir, 'metadata');
      const manifests = fs.readdirSync(meta).filter((f) => f.startsWith('manifest-'));
      for (const m of manifests) fs.renameSync(path.join(meta, m), path.join(meta, `${m}.away`));
      const s = run(['scan', dir, '--count', '--where', p.text]);
      for (const m of manifests) fs.renameSync(path.join(meta, `${m}.away`), path.join(meta, m));
      checks++;
      if (s.status !== 0 || s.stdout.trim() !== '0') fail(`${transform} ${p.text}: scan --count gave ${s.status} ${s.stdout}${s.stderr}`);
    }
  }
  console.log(`ok ${transform}`);
}
fs.rmSync(work, { recursive: true, force: true });
console.log(`manifest pruning: ${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
