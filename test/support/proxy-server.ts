/** The proxy of `config` served by the Node adapter on a free port of 127.0.0.1 for the length of `run`. */
import type { Server } from 'node:http';
import { createProxy, type ProxyConfig } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';

export async function withProxy<T>(config: ProxyConfig, run: (url: string) => Promise<T>): Promise<T> {
  const server: Server = await serve(createProxy(config), { port: 0 });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
