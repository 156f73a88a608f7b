// Write-side acceptance 3: several writer processes appending and deleting on one table at
// once (real `lithify` processes, a real directory) for a bounded number of operations.
//
// Each writer owns its batches: it appends batch ids nobody else uses, and deletes only
// batches it appended earlier and saw acknowledged. At the end:
//   * every acknowledged append is present exactly once (all its rows, no duplicates);
//   * every acknowledged delete is applied (its batch has no rows);
//   * a failed append left no rows; a failed operation failed with a named conflict
//     ("...Exception") and exit code 1, never anything else;
//   * the log has versions 0..N without gaps, one commitInfo per commit and a unique txnId
//     per commit (no version overwritten), and N = 1 + acknowledged commits;
//   * the log validator accepts the table (when LITHIFY_VALIDATE is set).
//
// Usage: node concurrency.mjs [--writers 4] [--ops 30] [--seed 1] [--keep]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand, lithifyPath } from '../oracle/run.mjs';
import { mulberry32 } from './random.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const writers = opt('writers', 4);
const opsPerWriter = opt('ops', 30);
const seed = opt('seed', 1);
const lithify = lithifyPath();
const validator = process.env.LITHIFY_VALIDATE || '';

const failures = [];
const fail = (msg) => { failures.push(msg); console.log(`FAIL ${msg}`); };

async function writer(w, table, dir) {
  const rand = mulberry32(seed * 100 + w);
  const acked = [];      // { batch, rows }
  const deleted = [];    // batch ids
  const failedAppends = [];
  let conflicts = 0;
  for (let k = 0; k < opsPerWriter; k++) {
    const live = acked.filter((a) => !deleted.includes(a.batch));
    if (live.length && rand() < 0.3) {
      const victim = live[Math.floor(rand() * live.length)];
      const r = await runCommand(lithify, ['delete', table, '--where', `batch = ${victim.batch}`], { timeoutSec: 120 });
      if (r.code === 0) deleted.push(victim.batch);
      else if (r.code === 1 && /Concurrent\w*Exception|\w+ChangedException/.test(r.stderr)) conflicts++;
      else fail(`writer ${w}: delete batch ${victim.batch} exited ${r.code}: ${r.stderr.trim()}`);
    } else {
      const batch = w * 1000000 + k;
      const rows = 1 + Math.floor(rand() * 20);
      const file = path.join(dir, `w${w}-${k}.jsonl`);
      const lines = [];
      for (let i = 0; i < rows; i++) lines.push(JSON.stringify({ writer: w, batch, seq: i, note: `w${w} k${k} i${i}` }));
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const r = await runCommand(lithify, ['append', table, '--from', file], { timeoutSec: 120 });
      if (r.code === 0) acked.push({ batch, rows });
      else if (r.code === 1 && /Concurrent\w*Exception|\w+ChangedException/.test(r.stderr)) { conflicts++; failedAppends.push(batch); }
      else { fail(`writer ${w}: append batch ${batch} exited ${r.code}: ${r.stderr.trim()}`); failedAppends.push(batch); }
    }
  }
  return { acked, deleted, failedAppends, conflicts };
}

function checkLog(table, expectedCommits) {
  const log = path.join(table, '_delta_log');
  const versions = fs.readdirSync(log).filter((n) => /^\d{20}\.json$/.test(n)).map((n) => Number(n.slice(0, 20))).sort((a, b) => a - b);
  versions.forEach((v, i) => { if (v !== i) fail(`log: version ${i} missing (found ${v})`); });
  if (versions.length !== expectedCommits) fail(`log: ${versions.length} commits, expected ${expectedCommits} (create + acknowledged operations)`);
  const txnIds = new Set();
  for (const v of versions) {
    const lines = fs.readFileSync(path.join(log, `${String(v).padStart(20, '0')}.json`), 'utf8').split('\n').filter((l) => l.trim());
    const infos = lines.map((l) => JSON.parse(l)).filter((a) => a.commitInfo);
    if (infos.length !== 1) { fail(`log: version ${v} has ${infos.length} commitInfo actions`); continue; }
    const id = infos[0].commitInfo.txnId;
    if (!id || txnIds.has(id)) fail(`log: version ${v} txnId ${id} missing or repeated`);
    txnIds.add(id);
  }
  return versions.length;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-concurrency-'));
  const table = path.join(dir, 'table');
  const c = await runCommand(lithify, ['create', table, '--schema', 'writer int, batch long, seq int, note string',
    '--property', 'delta.enableDeletionVectors=true', '--property', 'delta.checkpointInterval=7']);
  if (c.code !== 0) throw new Error(`create failed: ${c.stderr}`);

  const results = await Promise.all(Array.from({ length: writers }, (_, w) => writer(w, table, dir)));

  const scan = await runCommand(lithify, ['scan', table, '--format', 'jsonl'], { timeoutSec: 300 });
  if (scan.code !== 0) throw new Error(`scan failed: ${scan.stderr}`);
  const counts = new Map();
  const seen = new Set();
  for (const line of scan.stdout.split('\n').filter((l) => l)) {
    const r = JSON.parse(line);
    const key = `${r.batch}:${r.seq}`;
    if (seen.has(key)) fail(`row batch ${r.batch} seq ${r.seq} appears twice`);
    seen.add(key);
    counts.set(r.batch, (counts.get(r.batch) || 0) + 1);
  }
  let commits = 1;
  let appends = 0; let deletes = 0; let conflicts = 0;
  for (const r of results) {
    conflicts += r.conflicts;
    for (const a of r.acked) {
      commits++; appends++;
      const want = r.deleted.includes(a.batch) ? 0 : a.rows;
      const got = counts.get(a.batch) || 0;
      if (got !== want) fail(`batch ${a.batch}: ${got} rows, expected ${want}`);
      counts.delete(a.batch);
    }
    commits += r.deleted.length; deletes += r.deleted.length;
    for (const b of r.failedAppends) if (counts.has(b)) fail(`failed append of batch ${b} left rows`);
  }
  for (const [b, n] of counts) fail(`batch ${b}: ${n} rows that no acknowledged append wrote`);
  const versions = checkLog(table, commits);
  if (validator) {
    const v = await runCommand(validator, [table], { timeoutSec: 300 });
    if (v.code !== 0) fail(`delta_validate: ${v.stdout}${v.stderr}`);
  }
  console.log(`${writers} writers x ${opsPerWriter} operations: ${appends} appends and ${deletes} deletes acknowledged, ` +
    `${conflicts} named conflicts, ${versions} versions`);
  if (!failures.length && !args.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`table kept in ${table}`);
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((e) => { console.error(e); process.exit(1); });
