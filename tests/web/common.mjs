// Shared by the panel tests: a small Delta table built with the lithify CLI, and a
// `lithify serve` process on a free port (started with --port 0, its URL read from the
// --json line it prints), stopped with SIGINT like Ctrl-C.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export const LITHIFY = process.env.LITHIFY;
if (!LITHIFY) throw new Error('set LITHIFY to the lithify binary');

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// A day-partitioned table with small files: 3 appends of 4 files each over 2 days, and a
// delete (deletion vectors) so history has several operations.
export function buildTable(dir) {
  const t = path.join(dir, 'events');
  const run = (...args) => execFileSync(LITHIFY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  run('create', t, '--schema', 'event_time timestamp, event_date date, customer_id long, amount decimal(12,2), category string',
    '--partitioned-by', 'event_date', '--property', 'delta.enableDeletionVectors=true');
  for (let i = 1; i <= 3; i++) run('append', t, '--generate', '600', '--seed', String(i), '--files', '4', '--span', '2d');
  run('delete', t, '--where', 'amount < 20');
  return t;
}

// `options.args`: more `serve` arguments; `options.env`: added to the environment (the
// server's test knobs, e.g. LITHIFY_SERVE_HEADER_TIMEOUT_MS).
export async function startServer(tables, options = {}) {
  const args = ['--json', 'serve', '--port', '0', ...(options.args ?? [])];
  for (const t of tables) args.push('--table', t);
  const proc = spawn(LITHIFY, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(options.env ?? {}) } });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise((resolve) => proc.on('close', resolve));  // stdout and stderr read to the end
  const lines = readline.createInterface({ input: proc.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once('line', resolve)),
    exited.then((e) => { throw new Error(`lithify serve exited early (${JSON.stringify(e)}): ${stderr}`); }),
    new Promise((_, reject) => setTimeout(() => reject(new Error('lithify serve did not print its URL in 20 s')), 20000).unref()),
  ]);
  const { url } = JSON.parse(first);
  return {
    url: url.replace(/\/$/, ''),
    port: new URL(url).port,
    pid: proc.pid,
    stderr: () => stderr,  // complete once stop() has returned
    // Ctrl-C: the server must stop by itself and exit 0. Safe to call again.
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGINT');
      const timeout = setTimeout(() => proc.kill('SIGKILL'), 10000);
      const e = await exited;
      await closed;
      clearTimeout(timeout);
      return e;
    },
  };
}

// A body is sent as JSON (Content-Type: application/json, as the panel's api.js does: the
// server refuses other bodies with 415) unless `init.headers` says otherwise.
export async function api(base, pathAndQuery, init) {
  if (init?.body !== undefined && !Object.keys(init.headers ?? {}).some((k) => k.toLowerCase() === 'content-type')) {
    init = { ...init, headers: { ...(init.headers ?? {}), 'Content-Type': 'application/json' } };
  }
  const res = await fetch(base + pathAndQuery, init);
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON: left null for the caller to assert */ }
  return { status: res.status, body, text, headers: res.headers };
}
