// Bun and Deno consumer: convert a request and a recorded stream with the
// installed package, then serve `createProxy` with the runtime's own server
// and print one JSON line (results and port). Runs until stdin closes.
import { convertRequest, convertStream } from 'interlingua';
import { createProxy } from 'interlingua/proxy';

const bun = globalThis.Bun;
const deno = globalThis.Deno;
const [requestPath, streamPath, upstreamUrl] = bun ? bun.argv.slice(2) : deno.args;

const readText = (path) => (bun ? bun.file(path).text() : deno.readTextFile(path));
const readStream = async (path) => (bun ? bun.file(path).stream() : (await deno.open(path)).readable);

const { body, losses } = convertRequest(JSON.parse(await readText(requestPath)), { from: 'openai-chat', to: 'anthropic' });
const converted = convertStream(await readStream(streamPath), { from: 'anthropic', to: 'openai-chat' });
const stream = await new Response(converted).text();
const streamLosses = await converted.losses;

const proxy = createProxy({ upstream: { format: 'anthropic', baseUrl: upstreamUrl, apiKey: 'upstream-key' }, modelMap: { '*': 'claude-opus-4-8' }, env: {} });
const report = (port) => console.log(JSON.stringify({ runtime: bun ? `bun ${bun.version}` : `deno ${deno.version.deno}`, body, losses, stream, streamLosses, port }));

let server;
if (bun) {
  server = bun.serve({ hostname: '127.0.0.1', port: 0, fetch: proxy });
  report(server.port);
} else {
  server = deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => report(port) }, proxy);
}

// Stop when the test closes our stdin (or dies), so no server outlives it.
const stdin = bun ? bun.stdin.stream() : deno.stdin.readable;
for await (const _ of stdin);
await (bun ? server.stop(true) : server.shutdown());
(bun ? process : deno).exit(0);
