/**
 * Child process of the proxy benchmark: an OTLP/HTTP receiver on 127.0.0.1
 * for `interlingua serve --otlp-endpoint` with telemetry on. It reads each
 * export to its end and answers 200 with an empty export response in the
 * export's encoding (`{}` in JSON, no bytes in protobuf: what a collector
 * answers to a full success), keeping nothing; it counts the
 * bytes received and prints them to stderr on SIGTERM. Prints `{"port":N}`
 * when listening.
 *
 * Usage: node otlp-sink-child.mjs
 */
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk) => (bytes += chunk.length));
  request.on('end', () => {
    exports++;
    const protobuf = (request.headers['content-type'] ?? '').startsWith('application/x-protobuf');
    response.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' });
    response.end(protobuf ? '' : '{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => {
  process.stderr.write(`otlp sink: ${exports} exports, ${bytes} bytes\n`);
  process.exit(0);
});
