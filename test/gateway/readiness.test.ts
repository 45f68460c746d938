/**
 * `GET /readyz` probes the upstreams: a models list with the key (a 5xx,
 * a refused key, no answer: down), the API root for Bedrock; 503 when a
 * route has no live upstream, listing which are down; probes cached.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { GatewayConfig } from '../../src/gateway/config.ts';

interface Probed {
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A vendor answering every GET with `status`, keeping what it was asked. */
async function vendor(status: number): Promise<{ origin: string; probes: Probed[]; server: Server }> {
  const probes: Probed[] = [];
  const server = createServer((request, response) => {
    probes.push({ url: request.url ?? '', headers: request.headers });
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, probes, server };
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const test = suite('gateway: /readyz probes the upstreams');

const readyz = async (config: GatewayConfig) => {
  const response = await createGateway(config)(new Request('http://gateway/readyz'));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test('a route with a live fallback is served; a route with none makes the gateway not ready, naming what is down', async () => {
  const anthropic = await vendor(200);
  const broken = await vendor(500);
  const refusing = await vendor(401);
  const bedrock = await vendor(403);
  try {
    const config: GatewayConfig = {
      upstreams: {
        anthropic: { format: 'anthropic', url: anthropic.origin, key: 'sk-ant-probe' },
        openai: { format: 'openai-chat', url: `${broken.origin}/v1`, key: 'sk-openai-probe' },
        gemini: { format: 'gemini', url: refusing.origin, key: 'gemini-probe' },
        bedrock: { format: 'bedrock-converse', url: bedrock.origin, region: 'us-east-1' },
        local: { format: 'ollama', url: await closedPort() },
      },
      routes: [
        { match: 'claude-*', targets: [{ upstream: 'openai' }, { upstream: 'anthropic' }] },
        { match: 'gemini-*', targets: [{ upstream: 'gemini' }, { upstream: 'local' }] },
        { match: 'us.*', targets: [{ upstream: 'bedrock' }] },
      ],
      env: { AWS_ACCESS_KEY_ID: 'AKIDPROBE', AWS_SECRET_ACCESS_KEY: 'secret' },
    };
    const { status, body } = await readyz(config);
    assert.is(status, 503);
    assert.is(body['status'], 'not_ready');
    assert.equal(body['down'], ['openai', 'gemini', 'local']);
    assert.equal(body['unserved_routes'], ['gemini-*']);
    const upstreams = body['upstreams'] as Record<string, { up: boolean; status?: number; reason?: string }>;
    assert.equal(upstreams['anthropic'], { up: true, status: 200 });
    assert.equal(upstreams['openai'], { up: false, status: 500, reason: 'answered HTTP 500' });
    assert.equal(upstreams['gemini'], { up: false, status: 401, reason: 'refused the configured key (HTTP 401)' });
    assert.equal(upstreams['bedrock'], { up: true, status: 403 }, 'Bedrock is probed for reachability: unsigned, a 403 is its answer');
    assert.match(upstreams['local']?.reason ?? '', /^could not be reached/);
    assert.equal(anthropic.probes.map((probe) => [probe.url, probe.headers['x-api-key'], probe.headers['anthropic-version']]), [['/v1/models', 'sk-ant-probe', '2023-06-01']]);
    assert.equal(broken.probes.map((probe) => [probe.url, probe.headers['authorization']]), [['/v1/models', 'Bearer sk-openai-probe']]);
    assert.equal(refusing.probes.map((probe) => [probe.url, probe.headers['x-goog-api-key']]), [['/v1beta/models', 'gemini-probe']]);
    assert.equal(bedrock.probes.map((probe) => [probe.url, probe.headers['authorization']]), [['/', undefined]]);
    assert.not.match(JSON.stringify(body), /sk-|gemini-probe|secret/, 'no key in the answer');
  } finally {
    for (const server of [anthropic, broken, refusing, bedrock]) server.server.close();
  }
});

test('every route served: ready; a round of probes answers for cacheMs, then the next one probes again', async () => {
  const anthropic = await vendor(200);
  let clock = 0;
  try {
    const config: GatewayConfig = { upstreams: { anthropic: { format: 'anthropic', url: anthropic.origin, key: 'sk' } }, routes: [{ match: '*', targets: [{ upstream: 'anthropic' }] }], readiness: { cacheMs: 1000 } };
    const handler = createGateway(config);
    const { createReadiness } = await import('../../src/gateway/readiness.ts');
    const readiness = createReadiness(config, 0, () => clock);
    assert.is((await readiness.answer()).status, 200);
    const [first, second] = await Promise.all([readiness.answer(), readiness.answer()]);
    assert.is(first.status, 200);
    assert.is(second.status, 200);
    assert.is(anthropic.probes.length, 1, 'one probe within cacheMs, however many checks');
    clock = 1000;
    await readiness.answer();
    assert.is(anthropic.probes.length, 2);
    const response = await handler(new Request('http://gateway/readyz'));
    assert.is(response.status, 200);
    assert.equal(((await response.json()) as Record<string, unknown>)['status'], 'ready');
  } finally {
    anthropic.server.close();
  }
});

test('readiness.probe false: ready once the configuration is loaded, no upstream called', async () => {
  const anthropic = await vendor(500);
  try {
    const { status, body } = await readyz({ upstreams: { anthropic: { format: 'anthropic', url: anthropic.origin, key: 'sk' } }, readiness: { probe: false } });
    assert.is(status, 200);
    assert.is(body['status'], 'ready');
    assert.is(anthropic.probes.length, 0);
  } finally {
    anthropic.server.close();
  }
});

test.run();
