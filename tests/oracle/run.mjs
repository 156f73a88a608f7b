// Shared helpers for the oracle drivers: running lithify, worker pools, paths.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const oracleDir = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(oracleDir, '..', '..');

/** Path of the lithify binary: env LITHIFY, else the usual build directories. */
export function lithifyPath() {
  return process.env.LITHIFY || path.join(repoRoot, 'build', 'tools', 'cli', 'lithify');
}

/**
 * Runs a command; resolves { code, signal, stdout (string), stderr, timedOut, stdoutBytes, truncated }.
 * stdout beyond maxBytes is counted (and newlines counted) but not kept. `env`: variables added to
 * (or replacing) this process's environment for the child.
 */
export function runCommand(cmd, args, { timeoutSec = 60, maxBytes = 256 * 1024 * 1024, env = undefined } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env });
    const chunks = [];
    let kept = 0;
    let total = 0;
    let newlines = 0;
    let truncated = false;
    const errChunks = [];
    let errBytes = 0;
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutSec * 1000);
    child.stdout.on('data', (b) => {
      total += b.length;
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) newlines++;
      if (kept + b.length <= maxBytes) { chunks.push(b); kept += b.length; } else truncated = true;
    });
    child.stderr.on('data', (b) => { if (errBytes < 1 << 20) { errChunks.push(b); errBytes += b.length; } });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout: '', stderr: String(e.message), timedOut: false, spawnError: true, stdoutBytes: 0, newlines: 0, truncated: false });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code, signal, timedOut, truncated, stdoutBytes: total, newlines,
        stdout: truncated ? '' : Buffer.concat(chunks).toString('utf8'),
        stderr: Buffer.concat(errChunks).toString('utf8'),
      });
    });
  });
}

/** Runs `fn(item, workerIndex)` over items with `n` concurrent workers, preserving result order. */
export async function pool(items, n, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async (w) => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], w);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, (_, w) => worker(w)));
  return results;
}

/** One-line description of a failed process run. */
export function describeRun(r) {
  if (r.spawnError) return `cannot run: ${r.stderr}`;
  if (r.timedOut) return 'timeout';
  if (r.signal) return `crashed with ${r.signal}`;
  const err = r.stderr.trim().split('\n').slice(0, 2).join(' | ');
  return `exit ${r.code}${err ? `: ${err.slice(0, 300)}` : ''}`;
}
