/** The proxy of `config` served by the Node adapter on a free port of 127.0.0.1 for the length of `run`, and what an upstream behind it received. */
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { FormatId } from '../../src/core/ir.ts';
import { createProxy, type ProxyConfig } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { startUpstream } from './strict/index.ts';
import { GOLDEN_DIR, readJson } from './fixtures.ts';

export async function withProxy<T>(config: ProxyConfig, run: (url: string) => Promise<T>): Promise<T> {
  const server: Server = await serve(createProxy(config), { port: 0 });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The body a strict `upstreamFormat` emulator on 127.0.0.1 (test/support/strict: it refuses what the vendor refuses; answering with the
 * plain-chat golden answer; in `dialect` if given) received when `call`
 * went through the proxy in front of it, every model mapped to `model`.
 */
export async function receivedThrough(
  upstreamFormat: Exclude<FormatId, 'bedrock-converse'>,
  model: string,
  call: (url: string) => Promise<unknown>,
  dialect?: string,
): Promise<Record<string, unknown>> {
  const upstream = await startUpstream(upstreamFormat);
  try {
    upstream.behaviour = { kind: 'answer', body: readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', `${upstreamFormat}.response.json`)) };
    const config: ProxyConfig = { upstream: { format: upstreamFormat, baseUrl: upstream.url, apiKey: 'upstream-secret', ...(dialect === undefined ? {} : { dialect }) }, modelMap: { '*': model }, fetch: createNodeFetch() };
    await withProxy(config, call);
    return upstream.received.at(-1)?.body as Record<string, unknown>;
  } finally {
    await upstream.close();
  }
}
