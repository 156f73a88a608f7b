// Where the write-side drivers' tables live: a local directory or an s3:// prefix on the S3
// test server (scripts/servers.sh env: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION). The drivers check tables behind lithify's back (read
// the log, see that files exist, hand a data file to DuckDB), so for S3 this is a small
// client of its own: SigV4-signed GET, HEAD and ListObjectsV2, path-style, nothing else.
//
//   const store = openStore(root)      root: a directory or s3://bucket/prefix
//   store.join(table, rel)             a path or URI below a table
//   await store.list(dir)              names directly below dir (files only), sorted
//   await store.read(p)                Buffer, or null when absent
//   await store.exists(p)              boolean
//   await store.localCopy(p, tmpDir)   a local file with p's bytes (p itself when local)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (k, s) => crypto.createHmac('sha256', k).update(s).digest();
// RFC 3986 encoding as SigV4 wants it ('/' kept in keys).
const enc = (s, keepSlash) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  .replace(keepSlash ? /%2F/g : /$^/, '/');

function s3Client() {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL || '');
  const key = process.env.AWS_ACCESS_KEY_ID; const secret = process.env.AWS_SECRET_ACCESS_KEY;
  const region = process.env.AWS_REGION || 'us-east-1';
  if (!key || !secret) throw new Error('store.mjs: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are not set');
  return async function request(method, bucket, objectKey, query = {}) {
    const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const canonicalUri = `/${enc(bucket)}${objectKey ? `/${enc(objectKey, true)}` : ''}`;
    const canonicalQuery = Object.keys(query).sort().map((k) => `${enc(k)}=${enc(query[k])}`).join('&');
    const payload = sha256('');
    const headers = { host: endpoint.host, 'x-amz-content-sha256': payload, 'x-amz-date': amzDate };
    const signed = Object.keys(headers).sort();
    const canonical = [method, canonicalUri, canonicalQuery, signed.map((h) => `${h}:${headers[h]}\n`).join(''),
      signed.join(';'), payload].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
    const kSigning = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 's3'), 'aws4_request');
    const signature = crypto.createHmac('sha256', kSigning).update(toSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${key}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`;
    delete headers.host;
    const url = `${endpoint.origin}${canonicalUri}${canonicalQuery ? `?${canonicalQuery}` : ''}`;
    const r = await fetch(url, { method, headers });
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, body };
  };
}

function splitS3(uri) {
  const m = /^s3a?:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!m) throw new Error(`store.mjs: not an s3:// URI: ${uri}`);
  return { bucket: m[1], key: m[2].replace(/\/+$/, '') };
}

function s3Store() {
  const request = s3Client();
  const fail = (what, p, r) => { throw new Error(`${what} ${p}: S3 answered ${r.status}: ${r.body.toString().slice(0, 300)}`); };
  return {
    join: (table, rel) => `${table.replace(/\/+$/, '')}/${rel}`,
    async list(dir) {
      const { bucket, key } = splitS3(dir);
      const prefix = key ? `${key}/` : '';
      const names = [];
      let token = '';
      for (;;) {
        const q = { 'list-type': '2', prefix, delimiter: '/' };
        if (token) q['continuation-token'] = token;
        const r = await request('GET', bucket, '', q);
        if (r.status !== 200) fail('LIST', dir, r);
        const xml = r.body.toString();
        for (const m of xml.matchAll(/<Contents>.*?<Key>(.*?)<\/Key>/gs)) names.push(unxml(m[1]).slice(prefix.length));
        const next = /<NextContinuationToken>(.*?)<\/NextContinuationToken>/s.exec(xml);
        if (!/<IsTruncated>true<\/IsTruncated>/.test(xml) || !next) break;
        token = unxml(next[1]);
      }
      return names.sort();
    },
    async read(p) {
      const { bucket, key } = splitS3(p);
      const r = await request('GET', bucket, key);
      if (r.status === 404) return null;
      if (r.status !== 200) fail('GET', p, r);
      return r.body;
    },
    async exists(p) {
      const { bucket, key } = splitS3(p);
      const r = await request('HEAD', bucket, key);
      if (r.status !== 200 && r.status !== 404) fail('HEAD', p, r);
      return r.status === 200;
    },
    async localCopy(p, tmpDir) {
      const data = await this.read(p);
      if (!data) throw new Error(`${p}: not found`);
      const file = path.join(tmpDir, `copy-${crypto.randomUUID()}.parquet`);
      fs.writeFileSync(file, data);
      return file;
    },
  };
}

const unxml = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

function localStore() {
  return {
    join: (table, rel) => path.join(table, rel),
    async list(dir) { return fs.readdirSync(dir).filter((n) => fs.statSync(path.join(dir, n)).isFile()).sort(); },
    async read(p) { return fs.existsSync(p) ? fs.readFileSync(p) : null; },
    async exists(p) { return fs.existsSync(p); },
    async localCopy(p) { return p; },
  };
}

export function isRemote(root) { return /^[a-z][a-z0-9+.-]*:\/\//i.test(root); }

export function openStore(root) {
  if (!isRemote(root)) return localStore();
  if (/^s3a?:\/\//.test(root)) return s3Store();
  throw new Error(`store.mjs: no checker for ${root} (local directories and s3:// only)`);
}

// A fresh s3:// root for one run (LITHIFY_TEST_S3_BUCKET from scripts/servers.sh env); fails
// naming how to start the server when it is not configured.
export function s3TestRoot(what) {
  const bucket = process.env.LITHIFY_TEST_S3_BUCKET;
  if (!bucket || !process.env.AWS_ENDPOINT_URL) {
    throw new Error('no S3 test server: LITHIFY_TEST_S3_BUCKET / AWS_ENDPOINT_URL are not set (start it with ' +
      'scripts/servers.sh start and source build/servers/env; or leave it out with ctest -LE s3)');
  }
  return `s3://${bucket}/${what}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
}
