/**
 * A reference for the proxy benchmark, below the floor: a TCP relay that
 * reads no HTTP at all. Each connection it accepts gets a connection of its
 * own to the upstream, and the bytes are piped both ways as they come
 * (`noDelay` on both sockets). Whatever it adds to a request's latency is
 * what one more Node process on the path costs on this machine (two loopback
 * hops and its event loop), the least any proxy written for Node can add.
 * Plain JavaScript, so no loader takes part.
 *
 * Usage: node relay-child.mjs UPSTREAM_ORIGIN (http://127.0.0.1:PORT)
 * Prints "proxy listening on http://127.0.0.1:PORT" like `interlingua serve`.
 */
import { connect, createServer } from 'node:net';

const origin = new URL(process.argv[2] ?? '');

const server = createServer((caller) => {
  const upstream = connect(Number(origin.port), origin.hostname);
  caller.setNoDelay(true);
  upstream.setNoDelay(true);
  caller.pipe(upstream);
  upstream.pipe(caller);
  caller.on('error', () => upstream.destroy());
  upstream.on('error', () => caller.destroy());
  caller.on('close', () => upstream.destroy());
  upstream.on('close', () => caller.destroy());
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`proxy listening on http://127.0.0.1:${port}\n`);
});
