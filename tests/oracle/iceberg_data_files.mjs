// DuckDB as a third Iceberg reader (issue 17, acceptance 2): DuckDB reads the data files
// and the delete files of every corpus Iceberg table lithify can read, and the live rows
// it finds must equal `lithify scan`'s, value for value in the canonical JSON rendering
// (docs/canonical-json.md; the DuckDB side rendered by canonical.mjs, as the Parquet
// conformance test does).
//
// What comes from lithify is only the list of files: `lithify files --json` names the data
// files of the snapshot and, for each, the delete files that apply to it (Iceberg's
// sequence-number and partition rules). Everything about rows is DuckDB's: it reads the
// data file with its row positions, reads the position delete files (file_path, pos) and
// drops the rows they name, and drops the rows that an equality delete file matches on
// all of its columns (NULL equal to NULL, as the spec says). No Iceberg extension is
// loaded: DuckDB's own Iceberg reader rejects partition evolution and v3.
//
// Compared are the columns of the current schema that every data file stores under the
// same name; columns renamed, added later with defaults, or identity-partition values
// that live only in the manifests are lithify's alone (cli_corpus.mjs checks those
// against the corpus README). Tables whose deletes DuckDB cannot read (deletion vectors in
// Puffin files) are listed with the reason, never counted as agreement; a table where
// both read but disagree fails the test.
//
//   LITHIFY=build/tools/cli/lithify LITHIFY_CORPUS=../shared/corpus node iceberg_data_files.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDuckDB, parquetLeafHints, queryCanonical, sqlString } from './canonical.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const lithify = process.env.LITHIFY;
if (!lithify) { console.error('LITHIFY is not set'); process.exit(2); }
const corpus = path.resolve(process.env.LITHIFY_CORPUS ?? path.join(here, '../../../shared/corpus'));
if (!existsSync(corpus)) { console.error(`no corpus at ${corpus}`); process.exit(1); }
const expected = JSON.parse(readFileSync(path.join(here, '../iceberg/corpus_expected.json'), 'utf8'));
const maps = expected.location_map.map((m) => m.replaceAll('${CORPUS}', corpus));
const mapArgs = maps.flatMap((m) => ['--location-map', m]);
const rules = maps.map((m) => m.split('=')).map(([from, ...to]) => [from, to.join('=')])
  .sort((a, b) => b[0].length - a[0].length);

/** A recorded location -> the local file (the --location-map rules, then file: URIs). */
function localPath(location) {
  let p = location;
  for (const [from, to] of rules) {
    if (p.startsWith(from)) { p = to + p.slice(from.length); break; }
  }
  p = p.replace(/^file:\/\/\//, '/').replace(/^file:\/\//, '').replace(/^file:/, '');
  return path.isAbsolute(p) ? path.normalize(p) : path.resolve(corpus, 'duckdb-iceberg', p);
}

/**
 * Parses one canonical JSON line into { column: value text }, keeping every value as the
 * exact text it was written with (JSON.parse would round 64-bit integers and decimals).
 */
function parseLine(line) {
  let i = 0;
  const ws = () => { while (' \t\n\r'.includes(line[i]) && i < line.length) i++; };
  const str = () => {
    const start = i++;
    while (line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
    i++;
    return line.slice(start, i);
  };
  const value = () => {
    ws();
    const start = i;
    if (line[i] === '"') return str();
    if (line[i] === '{' || line[i] === '[') {
      const close = line[i] === '{' ? '}' : ']';
      i++; ws();
      while (line[i] !== close) {
        value(); ws();
        if (line[i] === ':') { i++; value(); ws(); }
        if (line[i] === ',') { i++; ws(); }
      }
      i++;
      return line.slice(start, i);
    }
    while (i < line.length && !',}]'.includes(line[i])) i++;
    return line.slice(start, i).trim();
  };
  const out = {};
  i = line.indexOf('{') + 1; ws();
  while (line[i] !== '}') {
    ws();
    const k = JSON.parse(str());
    ws(); i++;  // ':'
    out[k] = value();
    ws();
    if (line[i] === ',') i++;
    ws();
  }
  return out;
}

function run(args) {
  return spawnSync(lithify, [...args, ...mapArgs], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

const con = await openDuckDB();
await con.run('SET enable_geoparquet_conversion = false');

/** The top-level columns of a Parquet file: [{ name, type (DuckDB's), id (Parquet field id) }]. */
async function fileColumns(file) {
  const r = await con.runAndReadAll(
    `DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, binary_as_string=false, hive_partitioning=false)`);
  const cols = r.getRowObjectsJson().map((c) => ({ name: String(c.column_name), type: String(c.column_type) }));
  // parquet_schema lists the root, then every node depth first; top-level nodes are the
  // root's children, found by skipping each child's subtree.
  const s = (await con.runAndReadAll(
    `SELECT name, field_id, num_children FROM parquet_schema(${sqlString(file)})`)).getRowObjectsJson();
  const ids = new Map();
  let i = 1;
  const skip = () => { const n = Number(s[i++].num_children ?? 0); for (let k = 0; k < n; k++) skip(); };
  while (i < s.length) {
    if (s[i].field_id !== null && s[i].field_id !== undefined) ids.set(String(s[i].name), Number(s[i].field_id));
    skip();
  }
  for (const c of cols) c.id = ids.get(c.name) ?? null;
  return cols;
}

/** The positions of `dataFile` that the position delete files name (DuckDB reads them). */
async function deletedPositions(dataFile, posDeletes) {
  const positions = new Set();
  for (const d of posDeletes) {
    const r = await con.runAndReadAll(
      `SELECT file_path, pos FROM read_parquet(${sqlString(localPath(d.file_path))})`);
    for (const [fp, pos] of r.getRows()) {
      if (localPath(String(fp)) === dataFile) positions.add(BigInt(pos));
    }
  }
  return positions;
}

/** DuckDB's canonical live rows of one data file with its deletes applied. */
async function liveRows(entry) {
  const file = localPath(entry.file_path);
  const pos = entry.deletes.filter((d) => d.content === 'position_deletes');
  const eq = entry.deletes.filter((d) => d.content === 'equality_deletes');
  const other = entry.deletes.filter((d) => !['position_deletes', 'equality_deletes'].includes(d.content));
  if (other.length) throw new Error(`${other[0].content} in ${other[0].file_path}: DuckDB reads no Puffin deletion vectors`);
  const fileCols = await fileColumns(file);
  const cols = fileCols.map((c) => c.name);
  const deleted = [...await deletedPositions(file, pos)];
  const conds = [];
  if (deleted.length) conds.push(`file_row_number NOT IN (${deleted.join(',')})`);
  for (const d of eq) {
    const eqFile = localPath(d.file_path);
    // The equality fields by field id: names may differ between the files (renames), and
    // a delete file may store columns that are not among its equality fields.
    const delCols = await fileColumns(eqFile);
    const pairs = d.equality_ids.map((id) => [delCols.find((c) => c.id === id), fileCols.find((c) => c.id === id)]);
    const missing = d.equality_ids.filter((id, k) => !pairs[k][0] || !pairs[k][1]);
    if (missing.length) {
      throw new Error(`equality delete ${d.file_path}: field ids ${missing} are not in both it and ${entry.file_path}`);
    }
    const match = pairs.map(([e, f]) => `e."${e.name}" IS NOT DISTINCT FROM d."${f.name}"`).join(' AND ');
    conds.push(`NOT EXISTS (SELECT 1 FROM read_parquet(${sqlString(eqFile)}, binary_as_string=false) e WHERE ${match})`);
  }
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  // Iceberg's time is Parquet TIME adjusted to UTC, which DuckDB reads as TIME WITH TIME
  // ZONE (no canonical form); as TIME it is the same wall-clock value.
  const timetz = fileCols.filter((c) => c.type === 'TIME WITH TIME ZONE').map((c) => `CAST("${c.name}" AS TIME) AS "${c.name}"`);
  const replace = timetz.length ? ` REPLACE (${timetz.join(', ')})` : '';
  const hints = await parquetLeafHints(con, file);
  const out = await queryCanonical(con,
    `SELECT * EXCLUDE (file_row_number)${replace} FROM read_parquet(${sqlString(file)}, binary_as_string=false, ` +
    `hive_partitioning=false, file_row_number=true) d ${where}`, hints);
  return { cols, rows: out.lines.map(parseLine) };
}

const key = (row, cols) => cols.map((c) => row[c] ?? 'null').join('\u0001');

let agree = 0, failures = 0;
const notComparable = [];
for (const t of expected.tables) {
  const dir = path.join(corpus, t.table);
  const where = t.metadata ? path.join(dir, 'metadata', t.metadata) : dir;
  const scan = run(['scan', where]);
  if (scan.status !== 0) continue;  // lithify's refusals are asserted by cli_corpus.mjs
  const files = run(['files', where, '--json']);
  if (files.status !== 0) {
    failures++;
    console.error(`FAIL ${t.table}: scan reads it but files fails: ${files.stderr.trim()}`);
    continue;
  }
  const ours = scan.stdout.split('\n').filter((l) => l).map(parseLine);
  let theirs = [];
  let shared = null;
  try {
    for (const entry of JSON.parse(files.stdout).files) {
      const { cols, rows } = await liveRows(entry);
      shared = shared ? shared.filter((c) => cols.includes(c)) : cols;
      theirs = theirs.concat(rows);
    }
  } catch (e) {
    notComparable.push(`${t.table}: ${String(e.message ?? e).split('\n')[0]}`);
    continue;
  }
  const current = ours.length ? Object.keys(ours[0]) : shared ?? [];
  const cols = (shared ?? []).filter((c) => current.includes(c)).sort();
  const a = ours.map((r) => key(r, cols)).sort();
  const b = theirs.map((r) => key(r, cols)).sort();
  if (a.length === b.length && a.every((x, i) => x === b[i])) {
    agree++;
    console.log(`ok ${t.table}: ${a.length} rows agree on [${cols}]`);
  } else {
    failures++;
    const onlyOurs = a.filter((x) => !b.includes(x)).slice(0, 3);
    const onlyTheirs = b.filter((x) => !a.includes(x)).slice(0, 3);
    console.error(`FAIL ${t.table}: lithify ${a.length} rows, DuckDB ${b.length} rows on [${cols}]`);
    console.error(`  only lithify: ${JSON.stringify(onlyOurs)}\n  only DuckDB: ${JSON.stringify(onlyTheirs)}`);
  }
}
for (const n of notComparable) console.log(`not compared ${n}`);
console.log(`DuckDB data-file cross-check: ${agree} tables agree, ${failures} disagree, ` +
            `${notComparable.length} not comparable`);
process.exit(failures === 0 && agree * 2 >= expected.tables.length ? 0 : 1);
