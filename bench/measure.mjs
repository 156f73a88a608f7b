// What every benchmark script measures a process with: /usr/bin/time -v around it, giving
// wall and CPU (user + sys) seconds and the peak resident set size.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * The codecs alone on a rewrite (bench/codec_limit): decompressing every page of `inputs`
 * plus compressing every page of `outputs` again with their codec at `level` (0 = the
 * default), one thread. Returns its JSON; `needed_seconds` leaves out the compression of
 * pages the writer copied as stored. The codec-limit ratio of a rewrite is its CPU time over that.
 * Measured `runs` times, keeping each time's minimum: the codecs' work is fixed and noise
 * only adds to it (one measurement of the same inputs varied by a third), and the smaller
 * floor can only raise the ratio.
 */
export function codecLimit(build, inputs, outputs, level = 0, runs = 3) {
  let best = null;
  for (let i = 0; i < runs; ++i) {
    const c = codecLimitOnce(build, inputs, outputs, level);
    if (best === null) {
      best = c;
      continue;
    }
    for (const k of ['decompress_seconds', 'compress_seconds', 'codec_seconds', 'needed_seconds']) {
      best[k] = Math.min(best[k], c[k]);
    }
  }
  return best;
}

function codecLimitOnce(build, inputs, outputs, level) {
  const list = (name, files) => {
    const f = path.join(os.tmpdir(), `lithify-codec-${process.pid}-${name}.txt`);
    fs.writeFileSync(f, files.join('\n') + '\n');
    return f;
  };
  const i = list('in', inputs), o = list('out', outputs);
  try {
    const r = spawnSync(path.join(build, 'bench/codec_limit'),
      ['--level', String(level), '--inputs', '@' + i, '--outputs', '@' + o], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`codec_limit failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    fs.rmSync(i, { force: true });
    fs.rmSync(o, { force: true });
  }
}

// The codec-limit lines: each writer's CPU time against the codecs alone on its own
// output (issue 18, acceptance 4: at most 1.3x).
export function codecLimitTable(l, lCpu, d, dCpu) {
  const line = (name, c, cpu) => `| ${name} | ${c.decompress_seconds.toFixed(2)} s | ` +
    `${c.compress_seconds.toFixed(2)} s | ${c.copied_pages} of ${c.output_pages} | ${c.needed_seconds.toFixed(2)} s | ` +
    `${cpu.toFixed(2)} s | ${(cpu / c.needed_seconds).toFixed(2)} |`;
  return [
    '| codec limit (bench/codec_limit, 1 thread) | decompress inputs | compress outputs | output pages copied as stored | codec time needed | rewrite CPU | ratio (CPU / codec) |',
    '|---|---|---|---|---|---|---|',
    line('lithify OPTIMIZE', l, lCpu),
    line('DuckDB COPY', d, dCpu),
  ].join('\n');
}

// A digest of the sources `lithify append --generate` draws its rows from: cached benchmark
// tables record it and are made anew when it differs, so a generator change never leaves
// figures measured on a table the current generator would not write.
export function generatorDigest() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const h = crypto.createHash('sha256');
  for (const f of ['generator.h', 'generator.cc']) {
    h.update(fs.readFileSync(path.join(here, '../src/lithify/commands', f)));
  }
  return h.digest('hex').slice(0, 16);
}
