/**
 * The floor of the proxy benchmark: a bare Node proxy that does what any
 * JSON proxy must and nothing else. node:http in; the request body read whole,
 * `JSON.parse` + `JSON.stringify`; node:http keep-alive out to the same path
 * under the upstream; the answer read whole, `JSON.parse` + `JSON.stringify`,
 * written once with a content-length; a streamed (SSE) answer piped through
 * as it comes. No conversion, no validation, no timeouts. Plain JavaScript, so no loader takes part.
 *
 * Usage: node floor-proxy-child.mjs UPSTREAM_ORIGIN (http://127.0.0.1:PORT)
 * Prints "proxy listening on http://127.0.0.1:PORT" like `interlingua serve`.
 */
import { Agent, createServer, request } from 'node:http';

const origin = new URL(process.argv[2] ?? '');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function readAll(stream, done) {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

const server = createServer((incoming, answer) => {
  readAll(incoming, (text) => {
    const body = JSON.stringify(JSON.parse(text));
    const outgoing = request(
      { host: origin.hostname, port: origin.port, path: incoming.url, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (upstream) => {
        // A streamed answer is piped as it comes (the yardstick for the time to the first byte); a whole one parsed and re-serialised.
        if ((upstream.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          answer.writeHead(upstream.statusCode ?? 502, { 'content-type': upstream.headers['content-type'] });
          upstream.pipe(answer);
          return;
        }
        readAll(upstream, (reply) => {
          const out = JSON.stringify(JSON.parse(reply));
          answer.writeHead(upstream.statusCode ?? 502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
          answer.end(out);
        });
      },
    );
    outgoing.on('error', () => {
      answer.writeHead(502);
      answer.end();
    });
    outgoing.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stderr.write(`floor: proxy listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
