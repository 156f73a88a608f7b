// Write-side acceptance 3: several writer processes appending and deleting on one table at
// once (real `lithify` processes, a real directory or an s3:// prefix) for a bounded number of
// operations, with OPTIMIZE processes compacting the same table meanwhile.
//
// Each writer owns its batches: it appends batch ids nobody else uses, and deletes only
// batches it appended earlier and saw acknowledged. At the end:
//   * every acknowledged append is present exactly once (all its rows, no duplicates);
//   * every acknowledged delete is applied (its batch has no rows);
//   * a failed append left no rows; a failed operation failed with a named conflict
//     ("...Exception") and exit code 1, never anything else;
//   * the log has versions 0..N without gaps, one commitInfo per commit and a unique txnId
//     per commit (no version overwritten), and N = 1 + acknowledged commits + the OPTIMIZE
//     commits, each of which an OPTIMIZE run reported (OPTIMIZE changes no row);
//   * every data file the log's live adds name exists;
//   * the log validator accepts the table (when LITHIFY_VALIDATE is set).
//
// --s3: the table lives under a fresh s3:// prefix on the S3 test server (scripts/servers.sh
// env). --faults "FLAGS": the writers and OPTIMIZE reach it through tests/cli/fault_proxy.mjs
// started with FLAGS (e.g. "--error 0.05 --drop-after 0.05"); the checks afterwards go to the
// server directly, and every fault kind FLAGS asks for must have been injected.
//
// Usage: node concurrency.mjs [--writers 4] [--ops 30] [--optimizers 1] [--seed 1] [--s3]
//        [--faults "FLAGS"] [--keep]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, lithifyPath } from '../oracle/run.mjs';
import { mulberry32 } from './random.mjs';
import { openStore, s3TestRoot } from './store.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const writers = opt('writers', 4);
const opsPerWriter = opt('ops', 30);
const seed = opt('seed', 1);
const optimizers = opt('optimizers', 1);
const onS3 = args.includes('--s3');
const faultFlags = args.includes('--faults') ? args[args.indexOf('--faults') + 1] : '';
let childEnv;  // the writers' environment (AWS_ENDPOINT_URL of the fault proxy)
let store;
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
      const r = await runCommand(lithify, ['delete', table, '--where', `batch = ${victim.batch}`], { timeoutSec: 120, env: childEnv });
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
      const r = await runCommand(lithify, ['append', table, '--from', file, '--no-auto-compact'], { timeoutSec: 120, env: childEnv });
      if (r.code === 0) acked.push({ batch, rows });
      else if (r.code === 1 && /Concurrent\w*Exception|\w+ChangedException/.test(r.stderr)) { conflicts++; failedAppends.push(batch); }
      else { fail(`writer ${w}: append batch ${batch} exited ${r.code}: ${r.stderr.trim()}`); failedAppends.push(batch); }
    }
  }
  return { acked, deleted, failedAppends, conflicts };
}

// OPTIMIZE runs until the writers are done; the versions they report committing.
async function optimizer(table, done) {
  const versions = [];
  while (!done.value) {
    const r = await runCommand(lithify, ['optimize', table, '--threads', '1'], { timeoutSec: 120, env: childEnv });
    const m = /version (\d+)/.exec(r.stdout);
    if (r.code === 0) { if (m && /optimized/.test(r.stdout)) versions.push(Number(m[1])); }
    else if (!(r.code === 1 && /Concurrent\w*Exception|\w+ChangedException/.test(r.stderr))) {
      fail(`optimize exited ${r.code}: ${r.stderr.trim()}`);
    }
  }
  return versions;
}

async function checkLog(table, expectedCommits, optimizeVersions) {
  const log = store.join(table, '_delta_log');
  const versions = (await store.list(log)).filter((n) => /^\d{20}\.json$/.test(n)).map((n) => Number(n.slice(0, 20))).sort((a, b) => a - b);
  versions.forEach((v, i) => { if (v !== i) fail(`log: version ${i} missing (found ${v})`); });
  const txnIds = new Set();
  const live = new Map();  // path -> version of its add
  const optimizeCommits = [];
  for (const v of versions) {
    const text = (await store.read(store.join(log, `${String(v).padStart(20, '0')}.json`))).toString('utf8');
    const actions = text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    for (const a of actions) {
      if (a.add) live.set(a.add.path, v);
      if (a.remove) live.delete(a.remove.path);
    }
    const infos = actions.filter((a) => a.commitInfo);
    if (infos.length !== 1) { fail(`log: version ${v} has ${infos.length} commitInfo actions`); continue; }
    if (infos[0].commitInfo.operation === 'OPTIMIZE') optimizeCommits.push(v);
    const id = infos[0].commitInfo.txnId;
    if (!id || txnIds.has(id)) fail(`log: version ${v} txnId ${id} missing or repeated`);
    txnIds.add(id);
  }
  const reported = [...optimizeVersions].sort((a, b) => a - b);
  if (JSON.stringify(reported) !== JSON.stringify(optimizeCommits)) {
    fail(`log: OPTIMIZE commits at versions [${optimizeCommits}], OPTIMIZE runs reported [${reported}]`);
  }
  const want = expectedCommits + optimizeCommits.length;
  if (versions.length !== want) fail(`log: ${versions.length} commits, expected ${want} (create + acknowledged operations + OPTIMIZE)`);
  // Every data file a live add names exists (paths in the log are URI-encoded).
  let missing = 0;
  for (const [p, v] of live) {
    if (!(await store.exists(store.join(table, decodeURIComponent(p))))) { missing++; fail(`data file ${p} (added at version ${v}) is missing`); }
  }
  return { versions: versions.length, optimizeCommits: optimizeCommits.length, liveFiles: live.size, missing };
}

// Starts tests/cli/fault_proxy.mjs in front of AWS_ENDPOINT_URL; resolves { endpoint, child, log }.
// The table's random key prefix is left out of the proxy's rolls (--strip), so that the seed
// picks the same faults for the same requests in every run.
function startProxy(dir, table) {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'fault_proxy.mjs');
  const log = path.join(dir, 'faults.log');
  const child = spawn(process.execPath, [script, process.env.AWS_ENDPOINT_URL, ...faultFlags.split(/\s+/).filter((x) => x),
    '--strip', table.split('/')[3], '--log', log], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (b) => resolve({ endpoint: `http://127.0.0.1:${String(b).trim()}`, child, log }));
    child.once('exit', (code) => reject(new Error(`fault_proxy.mjs exited ${code}`)));
  });
}

function checkFaultsInjected(log) {
  const kinds = { '--error': 'error', '--slowdown': 'slowdown', '--delay': 'delay', '--drop-before': 'drop-before',
    '--drop-after': 'drop-after', '--lose-put': 'lose-put' };
  const counts = {};
  const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
  for (const line of text.split('\n').filter((l) => l)) { const f = JSON.parse(line).fault; counts[f] = (counts[f] || 0) + 1; }
  for (const flag of faultFlags.split(/\s+/)) {
    if (kinds[flag] && !counts[kinds[flag]]) fail(`the fault proxy injected no ${kinds[flag]} (${flag} was asked for)`);
  }
  return counts;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-concurrency-'));
  const table = onS3 ? `${s3TestRoot('concurrency')}/table` : path.join(dir, 'table');
  store = openStore(table);
  let proxy = null;
  if (faultFlags) {
    if (!onS3) throw new Error('--faults needs --s3');
    proxy = await startProxy(dir, table);
    childEnv = { AWS_ENDPOINT_URL: proxy.endpoint };
  }
  const c = await runCommand(lithify, ['create', table, '--schema', 'writer int, batch long, seq int, note string',
    '--property', 'delta.enableDeletionVectors=true', '--property', 'delta.checkpointInterval=7']);
  if (c.code !== 0) throw new Error(`create failed: ${c.stderr}`);

  const done = { value: false };
  const optimizing = Array.from({ length: optimizers }, () => optimizer(table, done));
  const results = await Promise.all(Array.from({ length: writers }, (_, w) => writer(w, table, dir)));
  done.value = true;
  const optimizeVersions = (await Promise.all(optimizing)).flat();
  let faults = {};
  if (proxy) {
    proxy.child.kill();
    faults = checkFaultsInjected(proxy.log);
  }

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
  const logged = await checkLog(table, commits, optimizeVersions);
  if (validator) {
    const v = await runCommand(validator, [table], { timeoutSec: 300 });
    if (v.code !== 0) fail(`delta_validate: ${v.stdout}${v.stderr}`);
  }
  console.log(`${writers} writers x ${opsPerWriter} operations: ${appends} appends and ${deletes} deletes acknowledged, ` +
    `${conflicts} named conflicts, ${logged.optimizeCommits} OPTIMIZE commits, ${logged.versions} versions, ` +
    `${logged.liveFiles} live files present` + (proxy ? `; faults injected: ${JSON.stringify(faults)}` : ''));
  if (!failures.length && !args.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`table kept in ${table} (inputs in ${dir})`);
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((e) => { console.error(e); process.exit(1); });
