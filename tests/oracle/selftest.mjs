#!/usr/bin/env node
// Self-test of the oracle library: canonical rendering and the semantic comparator.
// Each check states a concrete expectation that a wrong implementation would fail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  openDuckDB, queryCanonical, readParquetCanonical, renderFloat32, renderDouble, renderDecimalString,
  renderTimestampNanos, renderDateDays, roundFloat16, sqlString,
} from './canonical.mjs';
import { compareCanonical, parseJson, numbersEqual } from './compare.mjs';

let passed = 0;
let failed = 0;
function check(name, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`}`);
}

// --- number rendering
check('float32 0.1 shortest', renderFloat32(Math.fround(0.1)), '0.1');
check('float32 1/3 shortest', renderFloat32(Math.fround(1 / 3)), '0.33333334');
check('float32 max', renderFloat32(Math.fround(3.4028234663852886e38)), '3.4028235e+38');
check('float32 NaN', renderFloat32(NaN), '"NaN"');
check('float32 -0', renderFloat32(-0), '-0');
check('double -Infinity', renderDouble(-Infinity), '"-Infinity"');
check('double 0.1', renderDouble(0.1), '0.1');
check('float16 rounding 0.1', roundFloat16(0.1), 0.0999755859375);
check('float16 overflow', roundFloat16(65520), Infinity);
check('float16 max', roundFloat16(65504), 65504);
check('decimal 12.30', renderDecimalString(1230n, 2), '12.30');
check('decimal -0.05', renderDecimalString(-5n, 2), '-0.05');
check('decimal scale 0', renderDecimalString(-7n, 0), '-7');
// --- dates and times
check('date epoch', renderDateDays(0), '1970-01-01');
check('date leap', renderDateDays(11016), '2000-02-29');
check('date year 1', renderDateDays(-719162), '0001-01-01');
check('date year 0', renderDateDays(-719162 - 366), '0000-01-01');
check('date negative year', renderDateDays(-719162 - 366 - 365), '-0001-01-01');
check('timestamp before epoch', renderTimestampNanos(-1n, 9, false), '1969-12-31T23:59:59.999999999');
check('timestamp utc micros', renderTimestampNanos(1704141296123456000n, 6, true), '2024-01-01T20:34:56.123456Z');

// --- comparator
const eq = (a, b, o) => compareCanonical([a], [b], o).equal;
check('int64 exact: 2^63-1 vs 2^63-2 differ', eq('{"a":9223372036854775807}', '{"a":9223372036854775806}'), false);
check('uint64 exact equal', eq('{"a":18446744073709551615}', '{"a":18446744073709551615}'), true);
check('double spelled differently', eq('{"a":1e+21}', '{"a":1000000000000000000000.0}'), true);
check('double differs in last digit', eq('{"a":0.30000000000000004}', '{"a":0.3}'), false);
check('-0 vs 0 differ', eq('{"a":-0}', '{"a":0}'), false);
check('float32 path tolerant of widening', eq('{"f":0.1}', '{"f":0.10000000149011612}', { float32Paths: new Set(['f']) }), true);
check('double path not tolerant', eq('{"f":0.1}', '{"f":0.10000000149011612}'), false);
check('float16 path', eq('{"h":[0.1]}', '{"h":[0.099975586]}', { float16Paths: new Set(['h[]']) }), true);
check('key order matters', eq('{"a":1,"b":2}', '{"b":2,"a":1}'), false);
check('string exact', eq('{"s":"\\u00e9"}', '{"s":"é"}'), true);
check('string differs', eq('{"s":"a"}', '{"s":"A"}'), false);
check('number vs string', eq('{"x":1}', '{"x":"1"}'), false);
check('nested diff path', compareCanonical(['{"m":[{"key":1,"value":{"z":[1,2]}}]}'], ['{"m":[{"key":1,"value":{"z":[1,3]}}]}']).diffs[0].path, 'm[0].value.z[1]');
check('missing line reported', compareCanonical(['{}', '{}'], ['{}']).equal, false);
check('parse keeps big literal', parseJson('{"a":123456789012345678901234567890}').obj[0][1].num, '123456789012345678901234567890');
check('invalid JSON rejected', compareCanonical(['{"a":1}'], ['{"a":1,}']).equal, false);
check('numbersEqual float32', numbersEqual('3.4028235e+38', '3.4028234663852886e+38', 32), true);

// --- DuckDB-backed rendering of every supported type (values typed via SQL, exact)
const con = await openDuckDB();
const q = await queryCanonical(con, `SELECT 18446744073709551615::UBIGINT u, (-9223372036854775808)::BIGINT i,
  170141183460469231731687303715884105727::HUGEINT h, 0.1::FLOAT f, '1.5'::DECIMAL(5,2) d, '\\x00\\xff'::BLOB b,
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::UUID g, DATE '2024-02-29' dt, TIME '01:02:03.5' t,
  TIMESTAMP '2024-01-01 10:00:00.123456' ts, TIMESTAMPTZ '2024-01-01 10:00:00+00' tz,
  TIMESTAMP_NS '2024-01-01 10:00:00.123456789' tn, [1, NULL]::INTEGER[] l, {'x': NULL, 'y': 'é'} s,
  MAP {'k': [1]} m, NULL::INTEGER n`);
check('duckdb types', q.lines[0], '{"u":18446744073709551615,"i":-9223372036854775808,"h":170141183460469231731687303715884105727,'
  + '"f":0.1,"d":"1.50","b":"AP8=","g":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","dt":"2024-02-29","t":"01:02:03.500000",'
  + '"ts":"2024-01-01T10:00:00.123456","tz":"2024-01-01T10:00:00.000000Z","tn":"2024-01-01T10:00:00.123456789",'
  + '"l":[1,null],"s":{"x":null,"y":"é"},"m":[{"key":"k","value":[1]}],"n":null}');

// --- Parquet facts: binary stays binary, float16 detected, UTC from the schema
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lithify-selftest-'));
try {
  const f = path.join(tmp, 'a.parquet');
  await con.run(`COPY (SELECT 'abc'::BLOB AS b, 'abc' AS s, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS tz) TO ${sqlString(f)} (FORMAT parquet)`);
  const r = await readParquetCanonical(con, f);
  check('parquet binary/string/tz', r.lines[0], '{"b":"YWJj","s":"abc","tz":"2024-01-01T00:00:00.000000Z"}');
  const corpusFloat16 = path.resolve(process.env.LITHIFY_CORPUS || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'shared', 'corpus'),
    'parquet-testing/data/float16_nonzeros_and_nans.parquet');
  if (fs.existsSync(corpusFloat16)) {
    const h = await readParquetCanonical(con, corpusFloat16);
    check('float16 path detected', [...h.float16Paths], ['x']);
    check('float16 values', h.lines.slice(0, 4), ['{"x":null}', '{"x":1}', '{"x":-2}', '{"x":"NaN"}']);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
