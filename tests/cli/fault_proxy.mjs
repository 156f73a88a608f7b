// A seeded fault-injecting HTTP proxy between lithify and the S3 (RGW) or Azure (Azurite)
// test server, so that retry and crash tests run against real storage.
//
// Requests are forwarded byte for byte, Host included, so signatures stay valid (RGW and
// Azurite serve path-style requests whatever the Host). Faults, each with its own rate
// (0..1) chosen by a flag:
//   --error P          answer 500 InternalError without forwarding
//   --slowdown P       answer 503 SlowDown (Azure: ServerBusy) without forwarding
//   --delay P          hold the request --delay-ms (default 150) before forwarding
//   --drop-before P    cut the connection without forwarding (nothing reached the server)
//   --drop-after P     forward, then cut the connection instead of replying (the server
//                      applied the request; its reply is lost)
//   --lose-put P       like --drop-after, only for a PUT the server answered 200/201
//   --ignore-condition answer 200 when the server refused a conditional PUT
//                      (If-None-Match: *) with 412, like a server ignoring the condition
//   --reply STATUS:CODE:MESSAGE  answer every request (within --match) with this error
//                      without forwarding, as S3 writes errors (Azure: also the
//                      x-ms-error-code header): answers of AWS that the test server cannot
//                      give, e.g. 400:ExpiredToken:The provided token has expired.
//   --gone-after-complete  once the reply of a CompleteMultipartUpload (POST ?uploadId=) was
//                      lost here, answer later copies of it 404 NoSuchUpload, as AWS S3 does
//                      for a completed upload (RGW answers such a repeat 200 again)
// Scope and bounds:
//   --match REGEX      inject only into requests whose "METHOD /path?query" matches
//   --max-repeat N     fault one request (method + path + query) at most N times in a row
//                      (default 2), so that a client retrying more often always gets through
//   --once-per-key     fault each path (without query) at most once in all
// Determinism: whether a fault fires is a hash of --seed (default 1), the fault, the request
// (method, path, query) and how many times that request was seen, not of arrival order: the
// same requests get the same faults however concurrent clients interleave. What differs from
// run to run is left out of the identity, so that a seed gives the same faults in every run
// (two data files' uploads are then the first and second occurrence of one identity):
//   --strip TEXT       (repeatable) this text, as given and URL-encoded, e.g. a test's random
//                      key prefix
//   UUIDs (8-4-4-4-12 hex, as in data file names) and runs of 16 or more hex digits (random
//                      names such as the commit probe's) each count as one and the same text.
// --log FILE appends one JSON line per injected fault ({seq, fault, method, url, status}),
// written synchronously, so that a test can count what really happened.
//
// Usage: node fault_proxy.mjs URL [flags]   (URL: the server, e.g. http://127.0.0.1:PORT)
//   Shorthands kept for older callers: `URL ignore-condition`, `URL lose-replies`
//   (= --lose-put 1 --once-per-key: the first successful PUT of each key loses its reply).
// Prints the port it listens on (127.0.0.1), then serves until killed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

function parseArgs(argv) {
  const o = {
    target: null, seed: 1, error: 0, slowdown: 0, delay: 0, delayMs: 150, dropBefore: 0, dropAfter: 0,
    losePut: 0, ignoreCondition: false, goneAfterComplete: false, match: null, maxRepeat: 2, oncePerKey: false, log: null,
    reply: null, strip: [],
  };
  const rates = { '--error': 'error', '--slowdown': 'slowdown', '--delay': 'delay', '--drop-before': 'dropBefore',
    '--drop-after': 'dropAfter', '--lose-put': 'losePut' };
  const usage = (msg) => {
    console.error(`fault_proxy: ${msg}\nusage: node fault_proxy.mjs URL [--seed N] [--error P] [--slowdown P] ` +
      '[--delay P] [--delay-ms MS] [--drop-before P] [--drop-after P] [--lose-put P] [--ignore-condition] ' +
      '[--match REGEX] [--max-repeat N] [--once-per-key] [--strip TEXT] [--log FILE]');
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
    const number = () => { const v = Number(value()); if (!Number.isFinite(v)) usage(`${a}: not a number`); return v; };
    if (rates[a]) { o[rates[a]] = number(); if (o[rates[a]] < 0 || o[rates[a]] > 1) usage(`${a}: a rate in 0..1`); }
    else if (a === '--seed') o.seed = number();
    else if (a === '--delay-ms') o.delayMs = number();
    else if (a === '--max-repeat') o.maxRepeat = number();
    else if (a === '--match') o.match = new RegExp(value());
    else if (a === '--log') o.log = value();
    else if (a === '--strip') o.strip.push(value());
    else if (a === '--reply') {
      const m = /^(\d{3}):([A-Za-z]+):(.+)$/s.exec(value());
      if (!m) usage('--reply: STATUS:CODE:MESSAGE');
      o.reply = { status: Number(m[1]), code: m[2], message: m[3] };
    }
    else if (a === '--ignore-condition' || a === 'ignore-condition') o.ignoreCondition = true;
    else if (a === '--once-per-key') o.oncePerKey = true;
    else if (a === '--gone-after-complete') o.goneAfterComplete = true;
    else if (a === 'lose-replies') { o.losePut = 1; o.oncePerKey = true; }
    else if (!a.startsWith('-') && !o.target) o.target = new URL(a);
    else usage(`unknown argument ${a}`);
  }
  if (!o.target) usage('the server URL is missing');
  return o;
}

const o = parseArgs(process.argv.slice(2));
const seen = new Map();      // stable request identity -> times seen
const streak = new Map();    // request identity -> faults in a row
const faultedKeys = new Set();
const completed = new Set();  // Completes whose reply was lost (--gone-after-complete)
const isComplete = (req) => req.method === 'POST' && /[?&]uploadId=/.test(req.url);
let seq = 0;

// The request's identity without what differs from run to run (--strip, UUIDs).
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const HEX = /[0-9a-f]{16,}/gi;
function stable(identity) {
  let s = identity;
  for (const t of o.strip) s = s.split(t).join('').split(encodeURIComponent(t)).join('');
  return s.replace(UUID, 'UUID').replace(HEX, 'HEX');
}

// A number in [0, 1) fixed by the seed, the fault and the request's place `at`: its stable
// identity and how many times that identity was seen ({key, n}, computed once on arrival).
function roll(fault, at) {
  const h = crypto.createHash('sha256').update(`${o.seed}\0${fault}\0${at.key}\0${at.n}`).digest();
  return h.readUInt32BE(0) / 4294967296;
}

function record(fault, req, status) {
  seq++;
  if (o.log) {
    fs.appendFileSync(o.log, JSON.stringify({ seq, fault, method: req.method, url: req.url, status }) + '\n');
  }
}

// The faults this request may still receive (bounds: --match, --max-repeat, --once-per-key).
function eligible(req, identity) {
  if (o.match && !o.match.test(`${req.method} ${req.url}`)) return false;
  if ((streak.get(identity) || 0) >= o.maxRepeat) return false;
  if (o.oncePerKey && faultedKeys.has(req.url.split('?')[0])) return false;
  return true;
}

function injected(req, identity, fault, status) {
  if (fault === 'drop-after' && status === 200 && isComplete(req)) completed.add(identity);
  streak.set(identity, (streak.get(identity) || 0) + 1);
  faultedKeys.add(req.url.split('?')[0]);
  record(fault, req, status);
}

function errorReply(req, res, status, given = null) {
  const azure = 'x-ms-version' in req.headers;
  const code = given ? given.code : status === 503 ? (azure ? 'ServerBusy' : 'SlowDown') : 'InternalError';
  const message = given ? given.message : status === 503 ? 'Please reduce your request rate (injected by fault_proxy)'
    : 'We encountered an internal error (injected by fault_proxy)';
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  const headers = { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) };
  if (azure) headers['x-ms-error-code'] = code;
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

function forward(req, res, body, identity, may, at) {
  const up = http.request(
    { host: o.target.hostname, port: o.target.port, method: req.method, path: req.url, headers: { ...req.headers } },
    (r) => {
      const out = [];
      r.on('data', (c) => out.push(c));
      r.on('end', () => {
        const conditional = req.method === 'PUT' && req.headers['if-none-match'] === '*';
        if (o.ignoreCondition && conditional && r.statusCode === 412) {
          record('ignore-condition', req, 200);
          res.writeHead(200, { etag: '"ignored-condition"', 'content-length': 0 });
          res.end();
          return;
        }
        const putOk = req.method === 'PUT' && (r.statusCode === 200 || r.statusCode === 201);
        if (may && putOk && o.losePut > 0 && roll('lose-put', at) < o.losePut) {
          injected(req, identity, 'lose-put', r.statusCode);
          req.socket.destroy();
          return;
        }
        if (may && o.dropAfter > 0 && roll('drop-after', at) < o.dropAfter) {
          injected(req, identity, 'drop-after', r.statusCode);
          req.socket.destroy();
          return;
        }
        streak.delete(identity);
        res.writeHead(r.statusCode, r.headers);
        res.end(Buffer.concat(out));
      });
    });
  up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  up.end(body);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const identity = `${req.method} ${req.url}`;
    const key = stable(identity);
    const at = { key, n: (seen.get(key) || 0) + 1 };
    seen.set(key, at.n);
    const may = eligible(req, identity);
    if (o.goneAfterComplete && completed.has(identity)) {
      record('gone-after-complete', req, 404);
      const body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified ' +
        'upload does not exist (completed; answered by fault_proxy)</Message></Error>';
      res.writeHead(404, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (o.reply && (!o.match || o.match.test(identity))) {
      record('reply', req, o.reply.status);
      errorReply(req, res, o.reply.status, o.reply);
      return;
    }
    if (may && roll('error', at) < o.error) { injected(req, identity, 'error', 500); errorReply(req, res, 500); return; }
    if (may && roll('slowdown', at) < o.slowdown) { injected(req, identity, 'slowdown', 503); errorReply(req, res, 503); return; }
    if (may && roll('drop-before', at) < o.dropBefore) { injected(req, identity, 'drop-before', 0); req.socket.destroy(); return; }
    // A delay is no failure: it does not count against --max-repeat.
    if (o.delay > 0 && (!o.match || o.match.test(identity)) && roll('delay', at) < o.delay) {
      record('delay', req, 0);
      setTimeout(() => forward(req, res, body, identity, may, at), o.delayMs);
      return;
    }
    forward(req, res, body, identity, may, at);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
