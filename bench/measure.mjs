// What every benchmark script measures a process with: /usr/bin/time -v around it, giving
// wall and CPU (user + sys) seconds and the peak resident set size.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Runs `cmd cmdArgs` under /usr/bin/time -v; throws (with the end of stderr) when it fails.
 * stdoutFile: where its standard output goes (else it is returned as `stdout`).
 * Returns { wall, cpu, rss_mb, stdout, stderr } (stderr without time's report).
 */
export function timed(cmd, cmdArgs, stdoutFile) {
  const out = stdoutFile ? fs.openSync(stdoutFile, 'w') : 'pipe';
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...cmdArgs],
    { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', out, 'pipe'] });
  if (stdoutFile) fs.closeSync(out);
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.slice(0, 3).join(' ')} failed (${r.status}): ${r.error ?? r.stderr.slice(-2000)}`);
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)[1]) / 1024;
  const m = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const wall = (Number(m[1] ?? 0) * 3600) + Number(m[2]) * 60 + Number(m[3]);
  const user = Number(/User time \(seconds\): ([\d.]+)/.exec(r.stderr)[1]);
  const sys = Number(/System time \(seconds\): ([\d.]+)/.exec(r.stderr)[1]);
  const stderr = r.stderr.slice(0, Math.max(0, r.stderr.lastIndexOf('\tCommand being timed')));
  return { wall, cpu: user + sys, rss_mb: rss, stdout: stdoutFile ? '' : r.stdout, stderr };
}

/** The median of a list of numbers (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
