// `lithify serve` over real HTTP: every endpoint validates its input (400 with a message
// for malformed or out-of-range values, 404 for a table not given at start, 405 for a
// wrong method, 413 for a large body), the server keeps answering after bad requests, the
// panel's files are served from the binary, and SIGINT stops the server with exit code 0.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tempDir, buildTable, startServer, api } from './common.mjs';

let dir, table, server;
before(async () => {
  dir = tempDir('lithify-web-endpoints-');
  table = buildTable(dir);
  server = await startServer([table]);
});
after(async () => {
  if (server) {
    const e = await server.stop();
    assert.deepEqual(e, { code: 0, signal: null }, 'SIGINT stops lithify serve cleanly');
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

const q = (params) => new URLSearchParams(params).toString();

async function expectError(pathAndQuery, status, needle, init) {
  const r = await api(server.url, pathAndQuery, init);
  assert.equal(r.status, status, `${pathAndQuery}: ${r.text}`);
  assert.equal(r.body?.error?.status, status, r.text);
  assert.match(r.body.error.message, needle, r.text);
}

test('valid requests answer 200 with the table', async () => {
  const t = await api(server.url, '/api/tables');
  assert.equal(t.status, 200);
  assert.deepEqual(t.body.tables, [table]);
  const d = await api(server.url, `/api/describe?${q({ table })}`);
  assert.equal(d.status, 200, d.text);
  assert.equal(d.body.history[0].operation, 'DELETE');
  const f = await api(server.url, `/api/files?${q({ table })}`);
  assert.equal(f.status, 200);
  assert.equal(f.body.numFiles, d.body.detail.numFiles);
  const o = await api(server.url, `/api/optimize?${q({ table, target_file_size: '64mb' })}`);
  assert.equal(o.status, 200, o.text);
  assert.ok(o.body.filesToRewrite > 0, 'small files are OPTIMIZE candidates');
});

test('malformed and out-of-range values are 400 with a message', async () => {
  await expectError(`/api/describe?${q({ table, limit: 'ten' })}`, 400, /limit.*not an integer/);
  await expectError(`/api/describe?${q({ table, limit: '100000' })}`, 400, /out of range/);
  await expectError(`/api/files?${q({ table, limit: '-5' })}`, 400, /out of range/);
  await expectError(`/api/optimize?${q({ table, target_file_size: '12 parsecs' })}`, 400, /target_file_size/);
  await expectError(`/api/optimize?${q({ table, max_deleted_rows_ratio: '2' })}`, 400, /out of range/);
  await expectError(`/api/optimize?${q({ table, where: 'event_date = ' })}`, 400, /predicate/);
  await expectError(`/api/optimize?${q({ table, where: 'amount > 1' })}`, 400, /partition column/);
  await expectError(`/api/files?${q({ table, bogus: '1' })}`, 400, /unknown parameter 'bogus'/);
  await expectError('/api/describe', 400, /'table' is required/);
  const post = (body) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  await expectError('/api/simulate', 400, /not valid JSON/, post('{"days": '));
  await expectError('/api/simulate', 400, /JSON object/, post('42'));
  const sim = (await api(server.url, '/api/tables')).body.simulator;
  if (sim) {
    await expectError('/api/simulate', 400, /files_per_batch/, post('{"files_per_batch": 0}'));
    await expectError('/api/simulate', 400, /days/, post('{"days": "many"}'));
  }
});

test('tables not given at start are 404 and never opened', async () => {
  await expectError(`/api/describe?${q({ table: '/etc' })}`, 404, /not served/);
  await expectError(`/api/files?${q({ table: `${table}/../events` })}`, 404, /not served/);
  await expectError('/api/nothing', 404, /no endpoint/);
});

test('wrong methods are 405, large bodies 413', async () => {
  await expectError(`/api/describe?${q({ table })}`, 405, /takes GET/,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  await expectError('/api/simulate', 405, /takes POST/);
  const big = JSON.stringify({ days: 1, pad: 'x'.repeat(200 * 1024) });
  const r = await api(server.url, '/api/simulate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
  assert.equal(r.status, 413, r.text);
});

test('a second server on a port in use fails to bind (exit 1) instead of sharing it', async () => {
  const { spawnSync } = await import('node:child_process');
  const port = new URL(server.url).port;
  const r = spawnSync(process.env.LITHIFY, ['serve', '--port', port], { encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /cannot bind/);
});

test('the panel is served from the binary, self-contained', async () => {
  const index = await api(server.url, '/');
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type'), /text\/html/);
  assert.match(index.headers.get('content-security-policy'), /default-src 'self'/);
  const js = await api(server.url, '/src/app.js');
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type'), /javascript/);
  assert.equal((await api(server.url, '/src/../../etc/passwd')).status, 404);
  assert.equal((await api(server.url, '/nope.html')).status, 404);
  // Still healthy after every bad request above.
  assert.equal((await api(server.url, '/api/tables')).status, 200);
});
