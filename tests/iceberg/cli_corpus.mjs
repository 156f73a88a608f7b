// The Iceberg corpus through the `lithify` CLI (issue 17, acceptance 1 and 3 at the
// command level): every table and snapshot of corpus_expected.json read by `lithify scan`
// (format detected, --location-map, --snapshot-id / --ref / --timestamp), rows compared
// as a multiset with the expected ones; snapshots that cannot be read fail with exit 1 and
// the error the expectation names. Then, per table: `files --json` and `describe detail
// --json` agree on the live data files, `describe history` lists every snapshot, and for
// a predicate on the first column `scan --where` returns exactly the rows a full scan
// filtered afterwards returns (`--no-skipping`), while `files --where` never keeps fewer
// rows than the scan returns.
//
//   LITHIFY=build/tools/cli/lithify LITHIFY_CORPUS=../shared/corpus node cli_corpus.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const lithify = process.env.LITHIFY;
const corpus = path.resolve(process.env.LITHIFY_CORPUS ?? path.join(here, '../../../shared/corpus'));
// Snapshot ids are 64-bit: read them as strings, never through a double.
const bigIds = (text) => text.replace(/("(?:select|snapshot-id|parent-snapshot-id)":\s*)(-?\d{16,})/g, '$1"id:$2"');
const idOf = (v) => (typeof v === 'string' && v.startsWith('id:') ? v.slice(3) : String(v));
const expected = JSON.parse(bigIds(readFileSync(path.join(here, 'corpus_expected.json'), 'utf8')));
const maps = expected.location_map.map((m) => m.replaceAll('${CORPUS}', corpus));
const mapFlags = maps.flatMap((m) => ['--location-map', m]);

let failures = 0;
let checks = 0;
function fail(what) {
  failures++;
  console.error(`FAIL ${what}`);
}

function run(args) {
  const r = spawnSync(lithify, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function json(args, what) {
  const r = run([...args, '--json']);
  if (r.code !== 0) {
    fail(`${what}: exit ${r.code}: ${r.err.trim()}`);
    return null;
  }
  return JSON.parse(bigIds(r.out));
}

function rows(text) {
  return text.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

// `row` restricted to the keys of `like` (as corpus_test.cc compares).
function project(row, like) {
  const out = {};
  for (const k of Object.keys(like)) out[k] = k in row ? row[k] : '<absent>';
  return out;
}

const canon = (v) => JSON.stringify(v);
const sorted = (list) => list.map(canon).sort();

function selectFlags(select, history) {
  if (typeof select === 'number') return ['--snapshot-id', String(select)];
  if (select.startsWith('id:')) return ['--snapshot-id', idOf(select)];
  if (select === 'current') return [];
  if (select === 'first') {
    const first = [...history].sort((a, b) => a['sequence-number'] - b['sequence-number'] ||
                                               a['timestamp-ms'] - b['timestamp-ms'])[0];
    return ['--snapshot-id', idOf(first['snapshot-id'])];
  }
  if (select.startsWith('ref:')) return ['--ref', select.slice(4)];
  if (select.startsWith('as-of:')) {
    return ['--timestamp', new Date(Number(select.slice(6))).toISOString().replace('T', ' ').replace('Z', 'Z')];
  }
  throw new Error(`bad select ${select}`);
}

let tablesPassed = 0;
for (const t of expected.tables) {
  const dir = path.join(corpus, t.table);
  const where = t.metadata ? path.join(dir, 'metadata', t.metadata) : dir;
  const history = json(['describe', 'history', where, ...mapFlags], `${t.table}: history`);
  if (history === null) continue;
  let ok = true;
  for (const s of t.snapshots) {
    checks++;
    const what = `${t.table} @ ${JSON.stringify(s.select)}`;
    // --timestamp takes milliseconds precision; the expectation's as-of is in ms.
    const r = run(['scan', where, ...mapFlags, ...selectFlags(s.select, history)]);
    if (s.error) {
      if (r.code !== 1) { fail(`${what}: expected exit 1 (${s.error}), got ${r.code}`); ok = false; }
      if (s.error_says && !r.err.includes(s.error_says)) {
        fail(`${what}: error does not say '${s.error_says}': ${r.err.trim()}`);
        ok = false;
      }
      continue;
    }
    if (r.code !== 0) { fail(`${what}: exit ${r.code}: ${r.err.trim()}`); ok = false; continue; }
    const got = rows(r.out);
    if ('count' in s && got.length !== s.count) { fail(`${what}: ${got.length} rows, expected ${s.count}`); ok = false; }
    if (s.rows) {
      const want = sorted(s.rows);
      const have = sorted(got.map((row) => project(row, s.rows[0])));
      if (canon(want) !== canon(have)) { fail(`${what}: rows differ\n  want ${want}\n  have ${have}`); ok = false; }
    }
    for (const c of s.contains ?? []) {
      if (!got.some((row) => canon(project(row, c)) === canon(c))) { fail(`${what}: missing ${canon(c)}`); ok = false; }
    }
  }
  // Cross-command consistency at the current snapshot, and pushdown against a full scan.
  const current = t.snapshots.find((s) => s.select === 'current' && !s.error);
  if (current) {
    checks++;
    const files = json(['files', where, ...mapFlags], `${t.table}: files`);
    const detail = json(['describe', 'detail', where, ...mapFlags], `${t.table}: detail`);
    if (files && detail && files.summary.files !== detail.numFiles) {
      fail(`${t.table}: files lists ${files.summary.files} data files, describe detail says ${detail.numFiles}`);
      ok = false;
    }
    if (detail && detail['format'] !== 'iceberg') { fail(`${t.table}: describe detail format ${detail.format}`); ok = false; }
    if (detail && history.length !== detail.snapshots) {
      fail(`${t.table}: history has ${history.length} snapshots, detail ${detail.snapshots}`);
      ok = false;
    }
    const full = run(['scan', where, ...mapFlags]);
    const first = rows(full.out).find((row) => Object.values(row)[0] !== null && typeof Object.values(row)[0] !== 'object');
    if (first) {
      const [col, value] = Object.entries(first)[0];
      const literal = typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value);
      const pred = `\`${col}\` >= ${literal}`;
      const pushed = run(['scan', where, ...mapFlags, '--where', pred]);
      const filtered = run(['scan', where, ...mapFlags, '--where', pred, '--no-skipping']);
      if (pushed.code !== 0 || filtered.code !== 0) {
        // A column type the predicate language cannot compare is refused as a usage error.
        if (pushed.code !== 2 || filtered.code !== 2) {
          fail(`${t.table}: --where ${pred}: exit ${pushed.code}/${filtered.code}: ${pushed.err.trim()}`);
          ok = false;
        }
      } else {
        const a = sorted(rows(pushed.out));
        const b = sorted(rows(filtered.out));
        if (canon(a) !== canon(b)) { fail(`${t.table}: --where ${pred}: pushdown returns ${a.length} rows, full scan ${b.length}`); ok = false; }
        const explained = json(['files', where, ...mapFlags, '--where', pred], `${t.table}: files --where`);
        if (explained && explained.lookupCost.rowsInOpenedFiles < a.length) {
          fail(`${t.table}: files --where keeps ${explained.lookupCost.rowsInOpenedFiles} rows but the scan returns ${a.length}`);
          ok = false;
        }
      }
    }
  }
  if (ok) tablesPassed++;
}

// Row lineage (v3): `scan --columns` names the metadata columns; on the Spark-written v3
// table every value is inherited (first_row_id 0..4 by manifest order + position 0, data
// sequence number 1; rows i = 2, 4 deleted). Below format version 3 naming them is a usage error.
{
  const v3 = path.join(corpus, 'impala/testdata/data/iceberg_test/iceberg_v3/iceberg_v3_deletion_vectors');
  checks++;
  const r = run(['scan', v3, ...mapFlags, '--columns', 'i,_row_id,_last_updated_sequence_number']);
  const want = sorted([{ i: 1, _row_id: 0, _last_updated_sequence_number: 1 },
    { i: 3, _row_id: 2, _last_updated_sequence_number: 1 }, { i: 5, _row_id: 4, _last_updated_sequence_number: 1 }]);
  if (r.code !== 0) fail(`row lineage scan: exit ${r.code}: ${r.err.trim()}`);
  else if (canon(sorted(rows(r.out))) !== canon(want)) fail(`row lineage scan: got ${r.out.trim()}`);
  checks++;
  const v2 = path.join(corpus, 'impala/testdata/data/iceberg_test/hadoop_catalog/ice/iceberg_v2_positional_delete_all_rows');
  const refused = run(['scan', v2, ...mapFlags, '--columns', '_row_id']);
  if (refused.code !== 2 || !refused.err.includes('format version 3')) {
    fail(`row lineage on a v2 table: exit ${refused.code} (want 2, naming format version 3): ${refused.err.trim()}`);
  }
}
console.log(`iceberg cli corpus: ${tablesPassed}/${expected.tables.length} tables, ${checks} checks, ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
