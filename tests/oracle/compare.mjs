// Semantic comparison of two canonical-JSON-lines texts (see docs/canonical-json.md).
//
// Each line is parsed by the small parser below, which keeps number literals as text
// (JSON.parse would lose 64-bit precision). Rules:
//  - structure, object keys and key order must be equal; strings exact;
//  - two integer literals are compared exactly (as big integers, sign of zero included);
//  - otherwise numbers are compared as doubles (Object.is, so -0 != 0); on paths listed in
//    float32Paths / float16Paths both sides are first rounded to that width.
// Usage as a program: node compare.mjs EXPECTED.jsonl ACTUAL.jsonl

export class JsonSyntaxError extends Error {}

/** Parses one JSON text. Numbers become {num: 'literal'}; objects {obj: [[key, value], ...]}. */
export function parseJson(text) {
  let i = 0;
  const n = text.length;
  const fail = (msg) => { throw new JsonSyntaxError(`${msg} at offset ${i}`); };
  const ws = () => { while (i < n && ' \t\r\n'.includes(text[i])) i++; };
  const value = () => {
    ws();
    if (i >= n) fail('unexpected end');
    const c = text[i];
    if (c === '{') {
      i++; const entries = []; ws();
      if (text[i] === '}') { i++; return { obj: entries }; }
      for (;;) {
        ws(); if (text[i] !== '"') fail('expected key');
        const k = string(); ws();
        if (text[i] !== ':') fail("expected ':'"); i++;
        entries.push([k, value()]); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return { obj: entries }; }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++; const items = []; ws();
      if (text[i] === ']') { i++; return items; }
      for (;;) {
        items.push(value()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return items; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') fail('unexpected character');
    i += m[0].length;
    return { num: m[0] };
  };
  const string = () => {
    i++; let out = '';
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text[i++];
      if (c === '"') return out;
      if (c === '\\') {
        const e = text[i++];
        const map = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in map) out += map[e];
        else if (e === 'u') {
          const h = text.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('bad \\u escape');
          out += String.fromCharCode(parseInt(h, 16)); i += 4;
        } else fail('bad escape');
      } else if (c < ' ') fail('control character in string');
      else out += c;
    }
  };
  const v = value(); ws();
  if (i !== n) fail('trailing characters');
  return v;
}

const isIntLiteral = (s) => /^-?[0-9]+$/.test(s);

function roundF16(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  const ulp = e < -14 ? 2 ** -24 : 2 ** (e - 10);
  const q = a / ulp;
  let r = Math.round(q);
  if (q - Math.floor(q) === 0.5 && r % 2 !== 0) r -= 1;
  const out = r * ulp;
  if (out > 65504) return x > 0 ? Infinity : -Infinity;
  return x < 0 ? -out : out;
}

/** Equality of two number literals under the rules above. */
export function numbersEqual(a, b, width = 64) {
  if (isIntLiteral(a) && isIntLiteral(b)) {
    return BigInt(a) === BigInt(b) && (a.startsWith('-') === b.startsWith('-') || BigInt(a) !== 0n);
  }
  let x = Number(a);
  let y = Number(b);
  if (width === 32) { x = Math.fround(x); y = Math.fround(y); }
  if (width === 16) { x = roundF16(x); y = roundF16(y); }
  return Object.is(x, y);
}

const show = (v) => {
  if (v === undefined) return '<missing>';
  if (v !== null && typeof v === 'object') {
    if ('num' in v) return v.num;
    const s = JSON.stringify(v, (k, x) => (x && typeof x === 'object' && 'num' in x ? Number(x.num) : x));
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
  }
  return JSON.stringify(v);
};

const kindOf = (v) => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'num' in v ? 'number' : 'object';
  return typeof v; // string, boolean
};

/** Compares two parsed values; pushes {path, expected, actual, why} into diffs. */
function compareValues(exp, act, path, normPath, opts, diffs) {
  if (diffs.length >= opts.maxDiffs) return;
  const ke = kindOf(exp);
  const ka = kindOf(act);
  if (ke !== ka) { diffs.push({ path, expected: show(exp), actual: show(act), why: `${ke} vs ${ka}` }); return; }
  switch (ke) {
    case 'number': {
      const width = opts.float16Paths?.has(normPath) ? 16 : opts.float32Paths?.has(normPath) ? 32 : 64;
      if (!numbersEqual(exp.num, act.num, width)) diffs.push({ path, expected: exp.num, actual: act.num, why: 'number' });
      return;
    }
    case 'array':
      if (exp.length !== act.length) {
        diffs.push({ path, expected: show(exp), actual: show(act), why: `array length ${exp.length} vs ${act.length}` });
        return;
      }
      exp.forEach((e, i) => compareValues(e, act[i], `${path}[${i}]`, `${normPath}[]`, opts, diffs));
      return;
    case 'object': {
      const ek = exp.obj.map(([k]) => k);
      const ak = act.obj.map(([k]) => k);
      if (ek.join('\u0000') !== ak.join('\u0000')) {
        diffs.push({ path: path || '<row>', expected: `keys ${JSON.stringify(ek)}`, actual: `keys ${JSON.stringify(ak)}`, why: 'keys/order' });
        return;
      }
      exp.obj.forEach(([k, v], i) => {
        const p = path === '' ? k : `${path}.${k}`;
        const np = normPath === '' ? k : `${normPath}.${k}`;
        compareValues(v, act.obj[i][1], p, np, opts, diffs);
      });
      return;
    }
    default:
      if (exp !== act) diffs.push({ path, expected: show(exp), actual: show(act), why: ke });
  }
}

export function splitLines(text) {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Compares expected vs actual canonical JSON lines (text or arrays of lines).
 * opts: { maxDiffs (default 5), float32Paths, float16Paths, ignore: Set of "line:path" to skip }.
 * Returns { equal, diffs: [{line, path, expected, actual, why}], expectedLines, actualLines }.
 */
export function compareCanonical(expected, actual, opts = {}) {
  const o = { maxDiffs: 5, ...opts };
  const el = Array.isArray(expected) ? expected : splitLines(expected);
  const al = Array.isArray(actual) ? actual : splitLines(actual);
  const diffs = [];
  const n = Math.max(el.length, al.length);
  for (let i = 0; i < n && diffs.length < o.maxDiffs; i++) {
    if (i >= el.length) { diffs.push({ line: i + 1, path: '', expected: '<no line>', actual: al[i].slice(0, 120), why: 'extra line' }); break; }
    if (i >= al.length) { diffs.push({ line: i + 1, path: '', expected: el[i].slice(0, 120), actual: '<no line>', why: 'missing line' }); break; }
    if (el[i] === al[i]) continue;
    let e; let a;
    try { e = parseJson(el[i]); } catch (err) { diffs.push({ line: i + 1, path: '', expected: el[i].slice(0, 120), actual: '', why: `expected side: ${err.message}` }); continue; }
    try { a = parseJson(al[i]); } catch (err) { diffs.push({ line: i + 1, path: '', expected: '', actual: al[i].slice(0, 120), why: `invalid JSON: ${err.message}` }); continue; }
    const lineDiffs = [];
    compareValues(e, a, '', '', { ...o, maxDiffs: o.maxDiffs - diffs.length }, lineDiffs);
    for (const d of lineDiffs) {
      if (o.ignore?.has(`${i + 1}:${d.path}`)) continue;
      diffs.push({ line: i + 1, ...d });
    }
  }
  if (el.length !== al.length && !diffs.some((d) => d.why === 'extra line' || d.why === 'missing line')) {
    diffs.push({ line: Math.min(el.length, al.length) + 1, path: '', expected: `${el.length} lines`, actual: `${al.length} lines`, why: 'line count' });
  }
  return { equal: diffs.length === 0, diffs, expectedLines: el.length, actualLines: al.length };
}

/** Human-readable lines for a comparison's differences. */
export function formatDiffs(result) {
  const out = [];
  if (result.expectedLines !== result.actualLines) out.push(`line count: expected ${result.expectedLines}, actual ${result.actualLines}`);
  for (const d of result.diffs) {
    out.push(`line ${d.line}${d.path ? ` at ${d.path}` : ''}: expected ${d.expected}, actual ${d.actual} (${d.why})`);
  }
  return out;
}

// Command-line use.
import { fileURLToPath } from 'node:url';
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { readFileSync } = await import('node:fs');
  const [ef, af] = process.argv.slice(2);
  if (!ef || !af) { console.error('usage: node compare.mjs EXPECTED.jsonl ACTUAL.jsonl'); process.exit(2); }
  const r = compareCanonical(readFileSync(ef, 'utf8'), readFileSync(af, 'utf8'), { maxDiffs: 10 });
  for (const l of formatDiffs(r)) console.log(l);
  console.log(r.equal ? 'equal' : 'different');
  process.exit(r.equal ? 0 : 1);
}
