/**
 * Child process of the proxy benchmark: a fake vendor on 127.0.0.1 that
 * answers every POST at once with a fixed body chosen by path (OpenAI Chat,
 * Anthropic, OpenAI Responses or Gemini). A request whose body asks for a
 * stream (`"stream":true`, or Gemini's `:streamGenerateContent`) gets the
 * format's SSE text at once instead. Any path under `/overloaded/` gets
 * Anthropic's 529 `overloaded_error` (the gateway's fallback row). Prints
 * `{"port":N}` when listening.
 *
 * Usage: node upstream-child.mjs BODIES_JSON_FILE (plain JavaScript: no loader in the
 * upstream's way)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: upstream-child.mjs BODIES_JSON_FILE');
const { responses, streams = {} } = JSON.parse(readFileSync(file, 'utf8'));
const encoded = {};
for (const [format, body] of Object.entries(responses)) encoded[format] = Buffer.from(body);
const streamed = {};
for (const [format, body] of Object.entries(streams)) streamed[format] = Buffer.from(body);

function formatOf(url) {
  if (url.endsWith('/chat/completions')) return 'openai-chat';
  if (url.endsWith('/messages')) return 'anthropic';
  if (url.includes(':streamGenerateContent')) return 'gemini';
  if (url.endsWith('/responses')) return 'openai-responses';
  return 'gemini';
}

/** What an Anthropic upstream answers when overloaded (the gateway benchmark's failing primary, at /overloaded/…). */
const OVERLOADED = Buffer.from(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if ((request.url ?? '').startsWith('/overloaded/')) {
      response.writeHead(529, { 'content-type': 'application/json', 'content-length': OVERLOADED.length });
      response.end(OVERLOADED);
      return;
    }
    const format = formatOf(request.url ?? '');
    const wantsStream = (request.url ?? '').includes(':streamGenerateContent') || /"stream"\s*:\s*true/.test(Buffer.concat(chunks).toString('utf8'));
    if (wantsStream && streamed[format] !== undefined) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(streamed[format]);
      return;
    }
    const body = encoded[format] ?? Buffer.from('{}');
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
