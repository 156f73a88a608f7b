// Canonical JSON lines from DuckDB results: the oracle side of lithify's tests.
//
// The mapping is specified in docs/canonical-json.md. Values are taken from the typed values of
// @duckdb/node-api (never through a JS Number for 64-bit and wider integers, decimals or
// timestamps) and rendered here. Facts that DuckDB hides (INT96, nanosecond units, UTC adjustment
// of legacy converted types, FLOAT16) come from DuckDB's parquet_schema() of the file.
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';

export class OracleUnsupported extends Error {}

/** Opens an in-memory DuckDB and returns a connection. No extensions are loaded or downloaded. */
export async function openDuckDB() {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: '1',
  });
  const con = await instance.connect();
  con._lithifyInstance = instance; // keep the instance alive as long as the connection
  return con;
}

/** SQL string literal. */
export function sqlString(s) {
  return `'${String(s).replaceAll("'", "''")}'`;
}

// ---------------------------------------------------------------------------------------------
// Number rendering

/** Shortest decimal for a double (JS Number#toString is shortest round-trip); specials as strings. */
export function renderDouble(v) {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Infinity) return '"Infinity"';
  if (v === -Infinity) return '"-Infinity"';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** Shortest decimal that round-trips as a 32-bit float (v must be float32-representable). */
export function renderFloat32(v) {
  if (!Number.isFinite(v) || v === 0) return renderDouble(v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

/** Rounds a double to the nearest IEEE binary16 value (ties to even), returned as a double. */
export function roundFloat16(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  const ulp = e < -14 ? 2 ** -24 : 2 ** (e - 10);
  const q = a / ulp; // exact: scaling by a power of two
  let r = Math.round(q);
  if (q - Math.floor(q) === 0.5 && r % 2 !== 0) r -= 1; // ties to even
  const out = r * ulp;
  if (out >= 65520 || out > 65504) return x > 0 ? Infinity : -Infinity;
  return x < 0 ? -out : out;
}

/**
 * FLOAT16 values are widened to float32 (exact) and printed like FLOAT: the shortest decimal
 * that round-trips as a 32-bit float. (compare.mjs compares float16 columns at 16-bit width,
 * so a renderer printing the shortest 16-bit round-trip form also matches.)
 */
export function renderFloat16(v) {
  return renderFloat32(v);
}

/** Decimal from its unscaled integer: exactly `scale` fraction digits. */
export function renderDecimalString(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return (neg ? '-' : '') + digits;
}

// ---------------------------------------------------------------------------------------------
// Date and time rendering (proleptic Gregorian, no time zone conversion)

const pad = (n, w) => String(n).padStart(w, '0');

function floorDiv(a, b) { // bigint
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** Civil date (y, m, d) from days since 1970-01-01 (H. Hinnant's algorithm). */
export function civilFromDays(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y, m, d];
}

/** Year: at least 4 digits; negative years (astronomical numbering) get a leading '-'. */
export function renderYear(y) {
  return y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
}

export function renderDateDays(days) {
  const [y, m, d] = civilFromDays(days);
  return `${renderYear(y)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** HH:MM:SS.fffffffff... from nanoseconds of the day; `digits` is 6 or 9. */
export function renderTimeOfDayNanos(nanos, digits) {
  const ns = BigInt(nanos);
  const h = ns / 3600000000000n;
  const mi = (ns / 60000000000n) % 60n;
  const s = (ns / 1000000000n) % 60n;
  const frac = pad(ns % 1000000000n, 9);
  return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${digits === 9 ? frac : frac.slice(0, 6)}`;
}

/** YYYY-MM-DDTHH:MM:SS.ffffff[fff][Z] from nanoseconds since the epoch. */
export function renderTimestampNanos(nanos, digits, utc) {
  const dayNs = 86400000000000n;
  const days = floorDiv(nanos, dayNs);
  const rem = nanos - days * dayNs;
  return `${renderDateDays(Number(days))}T${renderTimeOfDayNanos(rem, digits)}${utc ? 'Z' : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Parquet schema facts

/**
 * Leaf (primitive) columns of a Parquet file in schema order, with the facts DuckDB hides.
 * Each: { name, physical, logical, converted, int96, float16, unit ('MILLIS'|'MICROS'|'NANOS'|null),
 *         utc (bool|null for timestamps), timeUnit, binary }
 */
export async function parquetLeafHints(con, file) {
  const r = await con.runAndReadAll(
    `SELECT name, type, converted_type, logical_type, num_children FROM parquet_schema(${sqlString(file)})`);
  const rows = r.getRowObjectsJson();
  const leaves = [];
  for (const row of rows.slice(1)) {
    if (row.type === null || row.type === undefined) continue; // group
    const logical = row.logical_type ?? '';
    const converted = row.converted_type ?? '';
    const unitMatch = /(MILLIS|MICROS|NANOS)=(MilliSeconds|MicroSeconds|NanoSeconds)/.exec(logical);
    const h = {
      name: row.name,
      physical: row.type,
      logical,
      converted,
      int96: row.type === 'INT96',
      float16: logical.startsWith('Float16Type'),
      unit: unitMatch ? unitMatch[1] : null,
      utc: null,
    };
    if (logical.startsWith('TimestampType')) {
      h.utc = /isAdjustedToUTC=(1|true)/.test(logical);
    } else if (!logical && (converted === 'TIMESTAMP_MILLIS' || converted === 'TIMESTAMP_MICROS')) {
      // Legacy converted types are defined as UTC-adjusted by the Parquet spec.
      h.utc = true;
      h.unit = converted === 'TIMESTAMP_MILLIS' ? 'MILLIS' : 'MICROS';
    } else if (h.int96) {
      h.utc = true;
      h.unit = 'NANOS';
    }
    if (!logical && converted === 'TIME_MILLIS') h.unit = 'MILLIS';
    leaves.push(h);
  }
  return leaves;
}

// ---------------------------------------------------------------------------------------------
// Type tree annotated with the hints of its leaves

function isNested(typeId) {
  return typeId === DuckDBTypeId.STRUCT || typeId === DuckDBTypeId.LIST || typeId === DuckDBTypeId.MAP
    || typeId === DuckDBTypeId.ARRAY;
}

/** Annotates a DuckDB type with the next leaf hints from `it` (depth-first, schema order). */
function annotate(type, it) {
  const node = { type, typeId: type.typeId };
  switch (type.typeId) {
    case DuckDBTypeId.STRUCT:
      node.fields = type.entryNames.map((n, i) => ({ name: n, node: annotate(type.entryTypes[i], it) }));
      break;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      node.child = annotate(type.valueType, it);
      break;
    case DuckDBTypeId.MAP:
      node.key = annotate(type.keyType, it);
      node.value = annotate(type.valueType, it);
      break;
    default:
      node.hint = it ? it.next() : null;
  }
  return node;
}

function leafIterator(hints) {
  let i = 0;
  return { next: () => (hints && i < hints.length ? hints[i++] : null), get count() { return i; } };
}

/** Key paths of float32 / float16 leaves (list items as "[]", map parts as "[].key"/"[].value"). */
export function floatPaths(columns) {
  const f32 = new Set();
  const f16 = new Set();
  const walk = (node, path) => {
    if (node.fields) node.fields.forEach((f) => walk(f.node, `${path}.${f.name}`));
    else if (node.child) walk(node.child, `${path}[]`);
    else if (node.key) { walk(node.key, `${path}[].key`); walk(node.value, `${path}[].value`); }
    else if (node.typeId === DuckDBTypeId.FLOAT) (node.hint?.float16 ? f16 : f32).add(path);
  };
  for (const c of columns) walk(c.node, c.name);
  return { float32Paths: f32, float16Paths: f16 };
}

// ---------------------------------------------------------------------------------------------
// Value rendering

function timestampNanosOf(value, typeId) {
  switch (typeId) {
    case DuckDBTypeId.TIMESTAMP_S: return value.seconds * 1000000000n;
    case DuckDBTypeId.TIMESTAMP_MS: return value.millis * 1000000n;
    case DuckDBTypeId.TIMESTAMP_NS: return value.nanos;
    default: return value.micros * 1000n;
  }
}

/** Renders one DuckDB value of annotated type `node` as canonical JSON text. */
export function renderValue(value, node) {
  if (value === null || value === undefined) return 'null';
  const id = node.typeId;
  const hint = node.hint;
  switch (id) {
    case DuckDBTypeId.BOOLEAN: return value ? 'true' : 'false';
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT: case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT: case DuckDBTypeId.UBIGINT: case DuckDBTypeId.HUGEINT: case DuckDBTypeId.UHUGEINT:
      if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new OracleUnsupported('unsafe integer');
      return value.toString();
    case DuckDBTypeId.FLOAT: return hint?.float16 ? renderFloat16(value) : renderFloat32(value);
    case DuckDBTypeId.DOUBLE: return renderDouble(value);
    case DuckDBTypeId.DECIMAL: return JSON.stringify(renderDecimalString(value.value, value.scale));
    case DuckDBTypeId.VARCHAR: case DuckDBTypeId.ENUM:
      return JSON.stringify(typeof value === 'string' ? value : value.toString());
    case DuckDBTypeId.BLOB: return JSON.stringify(Buffer.from(value.bytes).toString('base64'));
    case DuckDBTypeId.UUID: return JSON.stringify(value.toString().toLowerCase());
    case DuckDBTypeId.DATE:
      if (!value.isFinite) throw new OracleUnsupported('infinite date');
      return JSON.stringify(renderDateDays(value.days));
    case DuckDBTypeId.TIME: {
      const digits = hint?.unit === 'NANOS' ? 9 : 6;
      return JSON.stringify(renderTimeOfDayNanos(value.micros * 1000n, digits));
    }
    case DuckDBTypeId.TIME_NS: return JSON.stringify(renderTimeOfDayNanos(value.nanos, 9));
    case DuckDBTypeId.TIMESTAMP: case DuckDBTypeId.TIMESTAMP_S: case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS: case DuckDBTypeId.TIMESTAMP_TZ: {
      if (value.isFinite === false) throw new OracleUnsupported('infinite timestamp');
      const digits = (id === DuckDBTypeId.TIMESTAMP_NS || hint?.unit === 'NANOS' || hint?.int96) ? 9 : 6;
      const utc = id === DuckDBTypeId.TIMESTAMP_TZ || hint?.utc === true;
      return JSON.stringify(renderTimestampNanos(timestampNanosOf(value, id), digits, utc));
    }
    case DuckDBTypeId.LIST: case DuckDBTypeId.ARRAY:
      return `[${value.items.map((v) => renderValue(v, node.child)).join(',')}]`;
    case DuckDBTypeId.STRUCT:
      return `{${node.fields.map((f) => `${JSON.stringify(f.name)}:${renderValue(value.entries[f.name], f.node)}`).join(',')}}`;
    case DuckDBTypeId.MAP:
      return `[${value.entries.map((e) => `{"key":${renderValue(e.key, node.key)},"value":${renderValue(e.value, node.value)}}`).join(',')}]`;
    default:
      throw new OracleUnsupported(`DuckDB type ${node.type.toString()} has no canonical form`);
  }
}

/** Checks a whole annotated type for types without canonical form; returns a reason or null. */
function unsupportedIn(node) {
  if (node.fields) { for (const f of node.fields) { const r = unsupportedIn(f.node); if (r) return r; } return null; }
  if (node.child) return unsupportedIn(node.child);
  if (node.key) return unsupportedIn(node.key) || unsupportedIn(node.value);
  const ok = [DuckDBTypeId.BOOLEAN, DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER,
    DuckDBTypeId.BIGINT, DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER,
    DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE,
    DuckDBTypeId.DECIMAL, DuckDBTypeId.VARCHAR, DuckDBTypeId.ENUM, DuckDBTypeId.BLOB, DuckDBTypeId.UUID,
    DuckDBTypeId.DATE, DuckDBTypeId.TIME, DuckDBTypeId.TIME_NS, DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_S,
    DuckDBTypeId.TIMESTAMP_MS, DuckDBTypeId.TIMESTAMP_NS, DuckDBTypeId.TIMESTAMP_TZ, DuckDBTypeId.SQLNULL];
  return ok.includes(node.typeId) ? null : `DuckDB type ${node.type.toString()} has no canonical form`;
}

// ---------------------------------------------------------------------------------------------
// Queries

/**
 * Runs `sql` and renders every row as a canonical JSON line.
 * `hints`: optional leaf hints (see parquetLeafHints) matched to the result's leaves in order.
 * Returns { lines, columns: [{name, node}], float32Paths, float16Paths, notes }.
 */
export async function queryCanonical(con, sql, hints = null) {
  const result = await con.runAndReadAll(sql);
  const names = result.columnNames();
  const types = result.columnTypes();
  const it = leafIterator(hints);
  const columns = names.map((name, i) => ({ name, node: annotate(types[i], it) }));
  const notes = [];
  if (hints && it.count !== hints.length) {
    notes.push(`parquet has ${hints.length} leaf columns, DuckDB result ${it.count}; hints not applied`);
    const plain = names.map((name, i) => ({ name, node: annotate(types[i], null) }));
    columns.splice(0, columns.length, ...plain);
  }
  for (const c of columns) {
    const why = unsupportedIn(c.node);
    if (why) throw new OracleUnsupported(`column ${c.name}: ${why}`);
  }
  const rows = result.getRows();
  const lines = rows.map((row) =>
    `{${columns.map((c, i) => `${JSON.stringify(c.name)}:${renderValue(row[i], c.node)}`).join(',')}}`);
  return { lines, columns, ...floatPaths(columns), notes };
}

/** DuckDB's canonical reading of a whole Parquet file (binary stays binary). */
export async function readParquetCanonical(con, file) {
  const hints = await parquetLeafHints(con, file);
  const out = await queryCanonical(con,
    `SELECT * FROM read_parquet(${sqlString(file)}, binary_as_string=false, hive_partitioning=false)`, hints);
  out.hints = hints;
  if (hints.some((h) => h.int96)) {
    out.notes.push('INT96 read by DuckDB at microsecond precision: last 3 of 9 fraction digits are 000');
  }
  if (hints.some((h) => h.unit === 'NANOS' && !h.int96 && /TimeType/.test(h.logical))) {
    out.notes.push('TIME(NANOS) read by DuckDB at microsecond precision');
  }
  return out;
}

/** Parquet column-chunk metadata rows (statistics) of a file. */
export async function parquetMetadata(con, file) {
  const r = await con.runAndReadAll(`SELECT * FROM parquet_metadata(${sqlString(file)})`);
  return r.getRowObjectsJson();
}

export { isNested };
