// An HTTP proxy in front of the S3 test server that makes it look like a server ignoring
// If-None-Match: a conditional PUT the server refuses (412) is answered 200 as if it had
// been written. Everything else passes through unchanged (signatures stay valid: the
// request is forwarded byte for byte). Usage: node ignoring_proxy.mjs http://127.0.0.1:PORT
// Prints the port it listens on (127.0.0.1), then serves until killed.
import http from 'node:http';

const target = new URL(process.argv[2]);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    // The Host header stays as signed (the proxy's address): RGW serves path-style requests
    // whatever the Host, and the signature covers it.
    const headers = { ...req.headers };
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (r) => {
        const out = [];
        r.on('data', (c) => out.push(c));
        r.on('end', () => {
          if (req.method === 'PUT' && req.headers['if-none-match'] === '*' && r.statusCode === 412) {
            res.writeHead(200, { etag: '"ignored-condition"', 'content-length': 0 });
            res.end();
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
