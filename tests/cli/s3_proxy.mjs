// An HTTP proxy in front of the S3 or the Azure test server that misbehaves in one chosen way:
//   ignore-condition  a conditional PUT (If-None-Match: *) the server refused with 412 is
//                     answered 200, as by a server that ignores the condition;
//   lose-replies      the reply of the first successful PUT (200, Azure's 201) of each key is lost: the
//                     connection is cut after the server applied the write (a client must
//                     not assume it failed).
// Everything else passes through unchanged; requests are forwarded byte for byte, Host
// included, so signatures stay valid (RGW serves path-style requests whatever the Host).
// Usage: node s3_proxy.mjs http://127.0.0.1:PORT MODE
// Prints the port it listens on (127.0.0.1), then serves until killed.
import http from 'node:http';

const target = new URL(process.argv[2]);
const mode = process.argv[3];
if (mode !== 'ignore-condition' && mode !== 'lose-replies') {
  console.error('usage: node s3_proxy.mjs URL ignore-condition|lose-replies');
  process.exit(2);
}
const lost = new Set();
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers } },
      (r) => {
        const out = [];
        r.on('data', (c) => out.push(c));
        r.on('end', () => {
          const conditional = req.method === 'PUT' && req.headers['if-none-match'] === '*';
          if (mode === 'ignore-condition' && conditional && r.statusCode === 412) {
            res.writeHead(200, { etag: '"ignored-condition"', 'content-length': 0 });
            res.end();
            return;
          }
          const key = req.url.split('?')[0];
          if (mode === 'lose-replies' && req.method === 'PUT' && (r.statusCode === 200 || r.statusCode === 201) && !lost.has(key)) {
            lost.add(key);
            req.socket.destroy();
            return;
          }
          res.writeHead(r.statusCode, r.headers);
          res.end(Buffer.concat(out));
        });
      });
    up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    up.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
