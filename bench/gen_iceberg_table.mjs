// Generates the metadata of a large Iceberg table (no data files) for the planning
// benchmark (bench/iceberg_plan_bench.mjs), shaped like the Delta log gen_delta_log makes:
// N live data files, date-partitioned, with record counts, value and null counts and
// lower/upper bounds of 4 columns, in M data manifests of N/M entries each.
//
//   node bench/gen_iceberg_table.mjs DIR [--files 1000000] [--manifests 1000] [--codec deflate|null]
//        [--transform day|month|year|hour]   (the partition transform on ts; default day)
//
// Layout (format version 2, as Spark/Iceberg-Java write it):
//   DIR/metadata/v1.metadata.json, version-hint.text = "1";
//   DIR/metadata/snap-<id>.avro: the manifest list (partition field summaries per manifest);
//   DIR/metadata/manifest-<k>.avro: data manifests; entries ADDED with their sequence
//   numbers left null (inherited from the manifest list, as the spec's writers do);
//   manifest k holds the files of day k (spec: day(ts), or month/year/hour of it), so a
//   predicate on ts can skip whole manifests by their partition summaries.
// The Avro object container files are written here with Avro's binary encoding (zig-zag
// varints, blocks, sync marker; deflate = raw DEFLATE) and the field-id attributes the
// Iceberg spec puts on manifest schemas; lithify reads them by field id.
// Prints {"numFiles":..,"sizeInBytes":..,"numRecords":..} computed here for the benchmark's
// check.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// ---- Avro binary encoding
class Out {
  constructor() { this.chunks = []; this.buf = Buffer.alloc(1 << 20); this.pos = 0; }
  ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.alloc(Math.max(1 << 20, n)); this.pos = 0;
  }
  long(v) {  // zig-zag varint; v a Number within 2^53 or a BigInt
    let z = BigInt(v); z = (z << 1n) ^ (z >> 63n); z &= 0xffffffffffffffffn;
    this.ensure(10);
    while (z >= 0x80n) { this.buf[this.pos++] = Number(z & 0x7fn) | 0x80; z >>= 7n; }
    this.buf[this.pos++] = Number(z);
  }
  bytes(b) { this.long(b.length); this.ensure(b.length); b.copy(this.buf, this.pos); this.pos += b.length; }
  string(s) { this.bytes(Buffer.from(s, 'utf8')); }
  raw(b) { this.ensure(b.length); b.copy(this.buf, this.pos); this.pos += b.length; }
  bool(v) { this.ensure(1); this.buf[this.pos++] = v ? 1 : 0; }
  done() { return Buffer.concat([...this.chunks, this.buf.subarray(0, this.pos)]); }
}

/** An Avro object container file: header (schema, codec, extra metadata), blocks, sync. */
function container(schema, meta, codec, blocks) {
  const sync = crypto.randomBytes(16);
  const o = new Out();
  o.raw(Buffer.from('Obj\x01', 'latin1'));
  const all = { 'avro.schema': JSON.stringify(schema), 'avro.codec': codec, ...meta };
  o.long(Object.keys(all).length);
  for (const [k, v] of Object.entries(all)) { o.string(k); o.bytes(Buffer.from(v, 'utf8')); }
  o.long(0);
  o.raw(sync);
  for (const { count, data } of blocks) {
    const body = codec === 'deflate' ? zlib.deflateRawSync(data) : data;
    o.long(count); o.long(body.length); o.raw(body); o.raw(sync);
  }
  return o.done();
}

// ---- the table
const argv = process.argv.slice(2);
const dir = argv[0];
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
if (!dir) { console.error('usage: gen_iceberg_table.mjs DIR [--files N] [--manifests M] [--codec deflate|null]'); process.exit(2); }
const nfiles = Number(opt('files', 1000000));
const nmanifests = Number(opt('manifests', 1000));
const codec = opt('codec', 'deflate');
const transform = opt('transform', 'day');
if (!['day', 'month', 'year', 'hour'].includes(transform)) { console.error(`unknown --transform ${transform}`); process.exit(2); }
const perManifest = Math.ceil(nfiles / nmanifests);
const snapshotId = 4611686018427387903n;  // above 2^53: readers must keep it exact
const day0 = 19000;                        // 2022-01-08, as days since the epoch
const meta = path.join(dir, 'metadata');
fs.mkdirSync(meta, { recursive: true });

const schema = {
  type: 'struct', 'schema-id': 0, fields: [
    { id: 1, name: 'id', required: false, type: 'long' },
    { id: 2, name: 'category', required: false, type: 'string' },
    { id: 3, name: 'ts', required: false, type: 'timestamp' },
    { id: 4, name: 'amount', required: false, type: 'double' },
  ],
};
const partName = `ts_${transform}`;
const specFields = [{ name: partName, transform, 'source-id': 3, 'field-id': 1000 }];
// The partition value of the files of `day` (days since the epoch): Iceberg's transforms
// count years, months, days or hours since 1970-01-01 (hour: the first hour of the day).
function partitionValue(day) {
  if (transform === 'day') return day;
  if (transform === 'hour') return day * 24;
  const d = new Date(day * 86400000);
  const years = d.getUTCFullYear() - 1970;
  return transform === 'year' ? years : years * 12 + d.getUTCMonth();
}
const kv = (name, k, v, vt) => ({ type: 'array', logicalType: 'map',
  items: { type: 'record', name, fields: [{ name: 'key', type: 'int', 'field-id': k }, { name: 'value', type: vt, 'field-id': v }] } });
const opt_ = (t, id, name) => ({ name, type: ['null', t], default: null, 'field-id': id });
const entrySchema = {
  type: 'record', name: 'manifest_entry', fields: [
    { name: 'status', type: 'int', 'field-id': 0 },
    opt_('long', 1, 'snapshot_id'),
    opt_('long', 3, 'sequence_number'),
    opt_('long', 4, 'file_sequence_number'),
    { name: 'data_file', 'field-id': 2, type: { type: 'record', name: 'r2', fields: [
      { name: 'content', type: 'int', 'field-id': 134 },
      { name: 'file_path', type: 'string', 'field-id': 100 },
      { name: 'file_format', type: 'string', 'field-id': 101 },
      { name: 'partition', 'field-id': 102, type: { type: 'record', name: 'r102', fields: [opt_('int', 1000, partName)] } },
      { name: 'record_count', type: 'long', 'field-id': 103 },
      { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
      opt_(kv('k119_v120', 119, 120, 'long'), 109, 'value_counts'),
      opt_(kv('k121_v122', 121, 122, 'long'), 110, 'null_value_counts'),
      opt_(kv('k126_v127', 126, 127, 'bytes'), 125, 'lower_bounds'),
      opt_(kv('k129_v130', 129, 130, 'bytes'), 128, 'upper_bounds'),
    ] } },
  ],
};
const summarySchema = { type: 'record', name: 'r508', fields: [
  { name: 'contains_null', type: 'boolean', 'field-id': 509 },
  opt_('boolean', 518, 'contains_nan'),
  opt_('bytes', 510, 'lower_bound'),
  opt_('bytes', 511, 'upper_bound'),
] };
const listSchema = {
  type: 'record', name: 'manifest_file', fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    opt_({ type: 'array', items: summarySchema, 'element-id': 508 }, 507, 'partitions'),
  ],
};

// Single-value binary forms (the spec's Appendix D).
const le64 = (v) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); return b; };
const le32 = (v) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; };
const f64 = (v) => { const b = Buffer.alloc(8); b.writeDoubleLE(v); return b; };
const cats = ['books', 'games', 'garden', 'music', 'sports', 'tools', 'toys', 'video'];
function map(o, pairs, enc) {
  o.long(1);  // union branch: the map (as an array of key/value records)
  o.long(pairs.length);
  for (const [k, v] of pairs) { o.long(k); enc(v); }
  o.long(0);
}

let totalBytes = 0, totalRecords = 0, written = 0;
const manifests = [];
for (let k = 0; k < nmanifests && written < nfiles; ++k) {
  const day = day0 + k;
  const n = Math.min(perManifest, nfiles - written);
  const o = new Out();
  let rows = 0;
  for (let i = 0; i < n; ++i, ++written) {
    const records = 1000 + (written * 7919) % 9000;
    const size = 100000 + (written * 104729) % 900000;
    rows += records; totalBytes += size; totalRecords += records;
    o.long(1);                       // status ADDED
    o.long(1); o.long(snapshotId);   // snapshot_id
    o.long(0);                       // sequence_number: null, inherited
    o.long(0);                       // file_sequence_number: null, inherited
    o.long(0);                       // content: data
    o.string(`s3://bench-bucket/warehouse/t/data/${partName}=${partitionValue(day)}/part-${String(written).padStart(8, '0')}-0000.parquet`);
    o.string('PARQUET');
    o.long(1); o.long(partitionValue(day));  // partition {ts_<transform>}
    o.long(records); o.long(size);
    map(o, [[1, records], [2, records], [3, records], [4, records]], (v) => o.long(v));
    map(o, [[1, 0], [2, i % 3], [3, 0], [4, 0]], (v) => o.long(v));
    const idLo = written * 10000, micros = BigInt(day) * 86400000000n;
    // ts of file i of a day: from i ms after midnight, for 50 minutes (inside the first
    // hour, so that every transform's partition value holds for the whole file).
    const tsLo = micros + BigInt(i % 1000) * 1000n;
    map(o, [[1, le64(idLo)], [2, Buffer.from(cats[i % 8])], [3, le64(tsLo)], [4, f64(0.5)]], (v) => o.bytes(v));
    map(o, [[1, le64(idLo + records - 1)], [2, Buffer.from(cats[(i + 3) % 8])],
            [3, le64(tsLo + 3000000000n)], [4, f64(999.5)]], (v) => o.bytes(v));
  }
  const file = path.join(meta, `manifest-${String(k).padStart(5, '0')}.avro`);
  const bytes = container(entrySchema, {
    schema: JSON.stringify(schema), 'partition-spec': JSON.stringify(specFields),
    'partition-spec-id': '0', 'format-version': '2', content: 'data',
  }, codec, [{ count: n, data: o.done() }]);
  fs.writeFileSync(file, bytes);
  manifests.push({ file, length: bytes.length, day, n, rows });
}

const lo = new Out();
for (const m of manifests) {
  lo.string(m.file); lo.long(m.length); lo.long(0); lo.long(0);
  lo.long(1); lo.long(1); lo.long(snapshotId);
  lo.long(m.n); lo.long(0); lo.long(0);
  lo.long(m.rows); lo.long(0); lo.long(0);
  lo.long(1); lo.long(1);              // partitions: one summary
  lo.bool(false); lo.long(0);          // contains_null, contains_nan null
  lo.long(1); lo.bytes(le32(partitionValue(m.day))); lo.long(1); lo.bytes(le32(partitionValue(m.day)));
  lo.long(0);
}
const listFile = path.join(meta, `snap-${snapshotId}-1.avro`);
fs.writeFileSync(listFile, container(listSchema, { 'snapshot-id': String(snapshotId), 'sequence-number': '1',
  'format-version': '2' }, codec, [{ count: manifests.length, data: lo.done() }]));

const now = 1764547200000;
const metadata = `{
  "format-version": 2, "table-uuid": "${crypto.randomUUID()}", "location": ${JSON.stringify(dir)},
  "last-sequence-number": 1, "last-updated-ms": ${now}, "last-column-id": 4,
  "current-schema-id": 0, "schemas": [${JSON.stringify(schema)}],
  "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": ${JSON.stringify(specFields)}}],
  "last-partition-id": 1000, "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
  "properties": {}, "current-snapshot-id": ${snapshotId},
  "snapshots": [{"snapshot-id": ${snapshotId}, "sequence-number": 1, "timestamp-ms": ${now},
                 "summary": {"operation": "append", "added-data-files": "${written}"},
                 "manifest-list": ${JSON.stringify(listFile)}, "schema-id": 0}],
  "snapshot-log": [{"snapshot-id": ${snapshotId}, "timestamp-ms": ${now}}], "metadata-log": []
}
`;
fs.writeFileSync(path.join(meta, 'v1.metadata.json'), metadata);
fs.writeFileSync(path.join(meta, 'version-hint.text'), '1');
console.log(JSON.stringify({ numFiles: written, sizeInBytes: totalBytes, numRecords: totalRecords,
                             manifests: manifests.length }));
