// `lithify serve` against hostile clients, over real sockets (issue 14, defects 4 and 5):
// only its own Host names are answered (DNS rebinding), cross-origin POSTs and non-JSON
// bodies are refused, a chunked upload over the limit is refused without the server's
// memory growing with it, and stalled clients neither hold back normal requests nor stay
// connected past their deadlines. No assertion is on elapsed time: normal requests must be
// answered at all within a generous client timeout, stalled ones closed at all.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { tempDir, buildTable, startServer, LITHIFY } from './common.mjs';

let dir, table;
const servers = [];
before(() => {
  dir = tempDir('lithify-web-hardening-');
  table = buildTable(dir);
});
after(async () => {
  for (const s of servers) {
    const e = await s.stop();
    assert.deepEqual(e, { code: 0, signal: null }, 'SIGINT stops lithify serve cleanly');
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(options) {
  const s = await startServer([table], options);
  servers.push(s);
  return s;
}

// One request with exactly the given headers (node:http does not add a Host of its own
// with setHost: false). Rejects after `timeoutMs` without an answer.
function request(server, { method = 'GET', path = '/api/tables', headers = {}, body, timeoutMs = 5000 }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path, headers, setHost: false, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { text += d; });
        res.on('end', () => {
          let json = null;
          try { json = JSON.parse(text); } catch { /* left null */ }
          resolve({ status: res.statusCode, text, json });
        });
      });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to ${method} ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function procStatusKb(pid, field) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return Number(m[1]);
}

const openFds = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;

test('Host must name this server: localhost forms with the bound port, nothing else', async () => {
  const s = await serve();
  for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `[::1]:${s.port}`, 'localhost', 'LocalHost']) {
    const r = await request(s, { headers: { Host: host } });
    assert.equal(r.status, 200, `${host}: ${r.text}`);
  }
  for (const host of ['evil.example', `evil.example:${s.port}`, `localhost:${Number(s.port) + 1}`, `127.0.0.1.nip.io:${s.port}`]) {
    const r = await request(s, { headers: { Host: host } });
    assert.equal(r.status, 403, `${host}: ${r.text}`);
    assert.equal(r.json?.error?.status, 403, r.text);
    assert.match(r.json.error.message, /DNS rebinding/);
    // The panel's files too, not only the API.
    assert.equal((await request(s, { path: '/', headers: { Host: host } })).status, 403);
  }
  assert.equal((await request(s, { headers: {} })).status, 400, 'no Host header');
});

test('--allow-host adds a name; --host 0.0.0.0 warns that the panel has no authentication', async () => {
  const s = await serve({ args: ['--allow-host', 'panel.example'] });
  assert.equal((await request(s, { headers: { Host: `panel.example:${s.port}` } })).status, 200);
  assert.equal((await request(s, { headers: { Host: `other.example:${s.port}` } })).status, 403);
  const wide = await serve({ args: ['--host', '0.0.0.0'] });
  // Bound to every interface, still only this machine's names.
  assert.equal((await request(wide, { headers: { Host: `127.0.0.1:${wide.port}` } })).status, 200);
  assert.equal((await request(wide, { headers: { Host: `evil.example:${wide.port}` } })).status, 403);
  // stderr is complete once the servers have stopped.
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
  assert.deepEqual(await wide.stop(), { code: 0, signal: null });
  assert.doesNotMatch(s.stderr(), /warning/, 'no warning on loopback');
  assert.match(wide.stderr(), /warning: --host 0\.0\.0\.0 .*no authentication/);
  const bad = spawnSync(LITHIFY, ['serve', '--port', '0', '--allow-host', 'http://x/'], { encoding: 'utf8', timeout: 10000 });
  assert.equal(bad.status, 2, bad.stderr);
});

test('cross-origin POSTs are 403, non-JSON bodies 415; the panel\'s own requests pass', async () => {
  const s = await serve();
  const host = `127.0.0.1:${s.port}`;
  const json = { Host: host, 'Content-Type': 'application/json' };
  // '[1]' passes every access rule and is then refused by the endpoint itself (400).
  const passes = async (headers) => {
    const r = await request(s, { method: 'POST', path: '/api/simulate', headers, body: '[1]' });
    assert.equal(r.status, 400, `${JSON.stringify(headers)}: ${r.text}`);
    assert.match(r.json.error.message, /JSON object/);
  };
  const refused = async (headers, status, needle, method = 'POST') => {
    const r = await request(s, { method, path: '/api/simulate', headers, body: '[1]' });
    assert.equal(r.status, status, `${JSON.stringify(headers)}: ${r.text}`);
    assert.equal(r.json?.error?.status, status, r.text);
    assert.match(r.json.error.message, needle);
  };
  await passes(json);  // curl and scripts send no Origin
  await passes({ ...json, Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' });  // the panel
  await passes({ ...json, 'Content-Type': 'application/json; charset=utf-8', Origin: `http://localhost:${s.port}` });
  await refused({ ...json, Origin: 'http://evil.example' }, 403, /cross-origin POST refused/);
  await refused({ ...json, Origin: `http://127.0.0.1:${Number(s.port) + 1}` }, 403, /cross-origin/);
  await refused({ ...json, Origin: 'null' }, 403, /cross-origin/);
  await refused({ ...json, 'Sec-Fetch-Site': 'cross-site' }, 403, /cross-site/);
  await refused({ ...json, Origin: 'http://evil.example' }, 403, /cross-origin PUT/, 'PUT');
  await refused({ ...json, Origin: 'http://evil.example' }, 403, /cross-origin DELETE/, 'DELETE');
  await refused({ Host: host, 'Content-Type': 'text/plain' }, 415, /must be JSON/);
  await refused({ Host: host, 'Content-Type': 'application/x-www-form-urlencoded' }, 415, /must be JSON/);
  await refused({ Host: host, 'Content-Type': 'multipart/form-data; boundary=x' }, 415, /must be JSON/);
  await refused({ Host: host }, 415, /none given/);
  // A cross-origin GET is answered (the browser keeps the answer from the page: no CORS).
  const g = await request(s, { headers: { Host: host, Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' } });
  assert.equal(g.status, 200);
  assert.equal(g.text.includes('Access-Control'), false);
});

test('a 200 MB chunked POST is refused with 413 and the server does not grow with it', async () => {
  const limit = 64 * 1024;
  const s = await serve({ env: { LITHIFY_SERVE_MAX_BODY_BYTES: String(limit) } });
  await request(s, { headers: { Host: `127.0.0.1:${s.port}` } });  // warm up
  const rssBefore = procStatusKb(s.pid, 'VmRSS');
  const total = 200 * 1024 * 1024;
  const answer = await new Promise((resolve, reject) => {
    const sock = net.connect(Number(s.port), '127.0.0.1');
    let text = '';
    let sent = 0;
    let done = false;
    const finish = (v) => { if (!done) { done = true; sock.destroy(); resolve(v); } };
    // 1 MiB per write, in 16 KiB chunks: the limit is crossed by counting, not by one size.
    const piece = Buffer.concat([Buffer.from('4000\r\n'), Buffer.alloc(16 * 1024, 'x'), Buffer.from('\r\n')]);
    const frame = Buffer.concat(Array(64).fill(piece));
    const pump = () => {
      while (!done && sent < total) {
        sent += 64 * 16 * 1024;
        if (!sock.write(frame)) return sock.once('drain', pump);
      }
      if (!done) sock.write('0\r\n\r\n');
    };
    sock.on('connect', () => {
      sock.write(`POST /api/simulate HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\n` +
                 'Transfer-Encoding: chunked\r\n\r\n');
      pump();
    });
    sock.on('data', (d) => {
      text += d;
      if (text.includes('\r\n\r\n') && text.includes('}}')) finish({ text, sent });
    });
    sock.on('error', (e) => (text ? finish({ text, sent }) : reject(e)));
    sock.on('close', () => finish({ text, sent }));
    setTimeout(() => reject(new Error(`no answer after ${sent} bytes`)), 60000).unref();
  });
  assert.match(answer.text, /^HTTP\/1\.1 413 /, answer.text.slice(0, 200));
  assert.match(answer.text, /exceeds the limit of 65536 bytes/);
  const hwm = procStatusKb(s.pid, 'VmHWM');
  assert.ok(hwm < rssBefore + (limit + 64 * 1024 * 1024) / 1024,
    `peak RSS ${hwm} kB, was ${rssBefore} kB before ${answer.sent} bytes were sent`);
  // Still serving.
  assert.equal((await request(s, { headers: { Host: `127.0.0.1:${s.port}` } })).status, 200);
});

// Opens a connection that sends `first` and then, if `drip`, one more byte every 200 ms
// forever. Resolves `closed` with what the server sent once the server closes it.
function stalledClient(port, first, drip) {
  const sock = net.connect(port, '127.0.0.1');
  let text = '';
  let timer = null;
  const connected = new Promise((resolve) => sock.once('connect', () => { sock.write(first); resolve(); }));
  if (drip) timer = setInterval(() => { if (!sock.destroyed) sock.write('a'); }, 200);
  sock.on('data', (d) => { text += d; });
  sock.on('error', () => {});
  const closed = new Promise((resolve) => sock.on('close', () => { clearInterval(timer); resolve(text); }));
  return { sock, connected, closed };
}

test('100 stalled clients: normal requests are answered, stalled ones cut off at their deadlines', async () => {
  const s = await serve({ env: { LITHIFY_SERVE_HEADER_TIMEOUT_MS: '1500', LITHIFY_SERVE_BODY_TIMEOUT_MS: '1500' } });
  const port = Number(s.port);
  const host = `127.0.0.1:${port}`;
  const clients = [];
  for (let i = 0; i < 40; i++) clients.push(stalledClient(port, `GET /api/tables HTTP/1.1\r\nHost: ${host}\r\n`, false));
  for (let i = 0; i < 30; i++) {
    clients.push(stalledClient(port, `POST /api/simulate HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
                                     'Content-Length: 1000\r\n\r\n{"days"', false));
  }
  // Header drips: a byte every 200 ms never completes the headers.
  for (let i = 0; i < 30; i++) clients.push(stalledClient(port, `GET /api/tables HTTP/1.1\r\nHost: ${host}\r\nX-Drip: `, true));
  await Promise.all(clients.map((c) => c.connected));
  try {
    for (let i = 0; i < 5; i++) {
      const r = await request(s, { headers: { Host: host }, timeoutMs: 5000 });
      assert.equal(r.status, 200, r.text);
      const p = await request(s, { method: 'POST', path: '/api/simulate', headers: { Host: host, 'Content-Type': 'application/json' },
        body: '[1]', timeoutMs: 5000 });
      assert.equal(p.status, 400, p.text);
    }
    // Every stalled client is closed by the server (408), the drippers while still dripping.
    const answers = await Promise.all(clients.map((c) => c.closed));
    for (const a of answers) assert.match(a, /^HTTP\/1\.1 408 /, a.slice(0, 100));
    assert.ok(answers.slice(0, 40).every((a) => a.includes('headers not received')));
    assert.ok(answers.slice(40, 70).every((a) => a.includes('body not received')));
    assert.ok(answers.slice(70).every((a) => a.includes('headers not received')));
  } finally {
    for (const c of clients) c.sock.destroy();
  }
  assert.equal((await request(s, { headers: { Host: host } })).status, 200);
});

test('connections are bounded: at the bound the longest unfinished request makes room', async () => {
  const max = 20;
  const s = await serve({ env: { LITHIFY_SERVE_MAX_CONNECTIONS: String(max) } });  // default 10 s deadlines
  const port = Number(s.port);
  const host = `127.0.0.1:${port}`;
  const fdsBefore = openFds(s.pid);
  const clients = [];
  for (let i = 0; i < 100; i++) clients.push(stalledClient(port, 'GET /api/tables HTTP/1.1\r\n', false));
  await Promise.all(clients.map((c) => c.connected));
  try {
    const r = await request(s, { headers: { Host: host }, timeoutMs: 5000 });
    assert.equal(r.status, 200, r.text);
    const fds = openFds(s.pid);
    assert.ok(fds <= fdsBefore + max, `${fds} descriptors open, ${fdsBefore} before 100 clients (bound ${max})`);
  } finally {
    for (const c of clients) c.sock.destroy();
  }
});
