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

export async function startServer(tables) {
  const args = ['--json', 'serve', '--port', '0'];
  for (const t of tables) args.push('--table', t);
  const proc = spawn(LITHIFY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const lines = readline.createInterface({ input: proc.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once('line', resolve)),
    exited.then((e) => { throw new Error(`lithify serve exited early (${JSON.stringify(e)}): ${stderr}`); }),
    new Promise((_, reject) => setTimeout(() => reject(new Error('lithify serve did not print its URL in 20 s')), 20000).unref()),
  ]);
  const { url } = JSON.parse(first);
  return {
    url: url.replace(/\/$/, ''),
    // Ctrl-C: the server must stop by itself and exit 0.
    async stop() {
      proc.kill('SIGINT');
      const timeout = setTimeout(() => proc.kill('SIGKILL'), 10000);
      const e = await exited;
      clearTimeout(timeout);
      return e;
    },
  };
}

export async function api(base, pathAndQuery, init) {
  const res = await fetch(base + pathAndQuery, init);
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON: left null for the caller to assert */ }
  return { status: res.status, body, text, headers: res.headers };
}
