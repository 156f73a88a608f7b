// Per-file expectations for the corpus conformance run (tests/oracle/conformance.mjs).
// Built from /work/shared/corpus/README.md (sections 1.1 and 1.2). Paths are relative to the corpus root.
//
// kind:
//   match             (default) `lithify parquet cat` must exit 0 and equal the expected values:
//                     the *_expect.csv named in the README (csv), else DuckDB's canonical reading,
//                     else the twin file (twin) or twin columns (twinColumns) read by DuckDB.
//   error             exit code 1, no signal, stderr "lithify: error: ..." naming the file and
//                     containing every `need` pattern (case-insensitive regular expressions).
//   reject-or-recover malformed on purpose: either a clean `error` as above (without `need`) or
//                     exit 0 with output equal to DuckDB's reading (the README allows both).
//   clean             no oracle values: no crash within the timeout; exit 0 passes (with the row count
//                     check if maxLines is given), a clean exit 1 is reported as a gap, not a pass.
//   check             no oracle values: exit 0 and check(rows) (rows parsed with JSON.parse) returns null.
//   gap               a documented lithify gap: run and reported separately (never counted as passed).
// ignore: cells ("line:path") the oracle cannot verify (reason in note).

const PT = 'parquet-testing/data';
const BAD = 'parquet-testing/bad_data';
const DDB = 'duckdb/data/parquet-testing/compression';

const expectations = {
  // --- values given by companion CSV files (README 1.1 "Expected-value companions")
  [`${PT}/delta_binary_packed.parquet`]: { csv: `${PT}/delta_binary_packed_expect.csv` },
  [`${PT}/delta_byte_array.parquet`]: { csv: `${PT}/delta_byte_array_expect.csv` },
  [`${PT}/delta_encoding_optional_column.parquet`]: { csv: `${PT}/delta_encoding_optional_column_expect.csv` },
  [`${PT}/delta_encoding_required_column.parquet`]: { csv: `${PT}/delta_encoding_required_column_expect.csv` },

  // --- twins: DuckDB reads the plain twin where it cannot (or should be cross-checked)
  [`${PT}/alltypes_tiny_pages.parquet`]: { twin: `${PT}/alltypes_tiny_pages_plain.parquet`, note: 'README: same data, PLAIN only' },
  [`${PT}/hadoop_lz4_compressed.parquet`]: {
    twin: `${PT}/lz4_raw_compressed.parquet`,
    note: 'DuckDB 1.5.6 cannot read Hadoop-framed LZ4; twin chosen because schema, row count and every column statistic are identical (README names no twin)',
  },
  [`${PT}/non_hadoop_lz4_compressed.parquet`]: {
    twin: `${PT}/lz4_raw_compressed.parquet`,
    note: 'DuckDB 1.5.6 cannot read this LZ4 file; same writer, schema (nullability aside), rows and statistics as lz4_raw_compressed (README names no twin)',
  },
  [`${PT}/hadoop_lz4_compressed_larger.parquet`]: {
    twin: `${PT}/lz4_raw_compressed_larger.parquet`,
    note: 'DuckDB 1.5.6 cannot read Hadoop-framed LZ4; twin has identical schema, rows and statistics (README names no twin)',
  },
  [`${PT}/byte_stream_split_extended.gzip.parquet`]: {
    twinColumns: {
      float16_byte_stream_split: 'float16_plain', float_byte_stream_split: 'float_plain',
      double_byte_stream_split: 'double_plain', int32_byte_stream_split: 'int32_plain',
      int64_byte_stream_split: 'int64_plain', flba5_byte_stream_split: 'flba5_plain',
      decimal_byte_stream_split: 'decimal_plain',
    },
    note: 'DuckDB rejects BYTE_STREAM_SPLIT for non-float types; README: each BSS column has a PLAIN twin column with identical values',
  },
  ...Object.fromEntries(['1', '2'].flatMap((v) => ['BROTLI', 'GZIP', 'LZ4', 'SNAPPY', 'ZSTD', ...(v === '2' ? ['NONE'] : [])]
    .map((c) => [`${DDB}/generated/data_page=${v}_${c}.parquet`, { twin: `${DDB}/generated/data_page=1_NONE.parquet`, note: 'README 1.2: all 12 files identical; files named LZ4 use LZ4_RAW' }]))),

  // --- INT96: DuckDB reads at microsecond precision and overflows outside the int64-micros range
  [`${PT}/int96_from_spark.parquet`]: {
    ignore: ['6:a'],
    note: 'row 6 is far outside the int64-microsecond range and DuckDB wraps it around; that one cell is not verifiable by the oracle (README gives only rows 1-2)',
  },

  // --- checksums: readers that verify page CRCs must fail
  [`${PT}/datapage_v1-corrupt-checksum.parquet`]: { kind: 'error', need: ['crc|checksum'], note: 'page CRC mismatch on purpose' },
  [`${PT}/rle-dict-uncompressed-corrupt-checksum.parquet`]: { kind: 'error', need: ['crc|checksum'], note: 'dictionary page CRC mismatch on purpose' },

  // --- malformed files
  [`${PT}/nation.dict-malformed.parquet`]: { kind: 'reject-or-recover', note: 'malformed dictionary page header (DuckDB recovers 25 rows)' },
  [`${BAD}/ARROW-GH-41317.parquet`]: { kind: 'error', note: 'malformed; DuckDB: TProtocolException (with geoparquet conversion off)' },
  [`${BAD}/ARROW-GH-41321.parquet`]: { kind: 'error', note: 'malformed; DuckDB: TProtocolException (with geoparquet conversion off)' },
  [`${BAD}/ARROW-GH-43605.parquet`]: { kind: 'reject-or-recover', note: 'malformed; DuckDB reads 21186 rows' },
  [`${BAD}/ARROW-GH-45185.parquet`]: { kind: 'reject-or-recover', note: 'malformed; DuckDB reads 5 rows' },
  [`${BAD}/ARROW-GH-47662.parquet`]: { kind: 'error', note: 'malformed; DuckDB: Out of buffer' },
  [`${BAD}/ARROW-RS-GH-6229-DICTHEADER.parquet`]: { kind: 'error', note: 'malformed dictionary header; DuckDB: TProtocolException' },
  [`${BAD}/ARROW-RS-GH-6229-LEVELS.parquet`]: { kind: 'reject-or-recover', note: 'malformed levels; DuckDB reads 1 row' },
  [`${BAD}/PARQUET-1481.parquet`]: { kind: 'error', note: 'malformed; DuckDB: TProtocolException' },

  // --- no usable oracle
  [`${PT}/map_no_value.parquet`]: {
    kind: 'check',
    note: 'MAP without value field: DuckDB 1.5.6 rejects it and the README names no twin; checked for internal consistency instead (3 rows; the keys of my_map and my_map_no_v equal my_list, as the upstream arrow-rs test asserts)',
    check(rows) {
      if (rows.length !== 3) return `${rows.length} rows, wanted 3`;
      for (const [i, r] of rows.entries()) {
        const keys = (m) => JSON.stringify((m ?? []).map((e) => e.key));
        if (!Array.isArray(r.my_list) || r.my_list.length !== 3) return `row ${i + 1}: my_list ${JSON.stringify(r.my_list)}`;
        if (keys(r.my_map) !== JSON.stringify(r.my_list)) return `row ${i + 1}: my_map keys ${keys(r.my_map)} vs my_list ${JSON.stringify(r.my_list)}`;
        if (keys(r.my_map_no_v) !== JSON.stringify(r.my_list)) return `row ${i + 1}: my_map_no_v keys ${keys(r.my_map_no_v)} vs my_list ${JSON.stringify(r.my_list)}`;
      }
      return null;
    },
  },
  [`${PT}/large_string_map.brotli.parquet`]: {
    kind: 'clean', timeout: 240, maxLines: 2,
    note: 'two 1 GiB map keys (decoded chunk > 2 GiB), read by streaming one row per batch; JS strings cannot hold a key, so the runner checks exit 0 and 2 rows (verified by hand against DuckDB: key length and md5 per row, value 1)',
  },
};

// Encryption (Parquet modular encryption): the error must name the feature.
const encrypted = [
  'encrypt_columns_and_footer', 'encrypt_columns_and_footer_aad', 'encrypt_columns_and_footer_bloom_filter',
  'encrypt_columns_and_footer_ctr', 'encrypt_columns_and_footer_disable_aad_storage',
  'encrypt_columns_plaintext_footer', 'external_key_material_java', 'uniform_encryption',
];
for (const e of encrypted) {
  expectations[`${PT}/${e}.parquet.encrypted`] = { kind: 'error', need: ['encrypt'], note: 'Parquet modular encryption is not supported' };
}
for (const e of ['encrypt_columns_and_footer', 'encrypt_columns_and_footer_ctr', 'encrypt_columns_and_footer_disable_aad_storage',
  'encrypt_columns_plaintext_footer', 'uniform_encryption']) {
  expectations[`${PT}/aes256/${e}.parquet.encrypted`] = { kind: 'error', need: ['encrypt'], note: 'Parquet modular encryption (AES-256) is not supported' };
}

// Documented lithify gaps (keep this short and honest; docs/corpus-conformance.md explains each).
export const gaps = {
};

export function expectationFor(rel) {
  const e = { kind: 'match', ...(expectations[rel] ?? {}) };
  if (gaps[rel]) return { ...e, kind: 'gap', gapOf: e.kind, note: gaps[rel] };
  return e;
}

export default expectations;
