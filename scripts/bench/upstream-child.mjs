/**
 * Child process of the proxy benchmark: a fake vendor on 127.0.0.1 that
 * answers every POST at once with a fixed body chosen by path (OpenAI Chat,
 * Anthropic, OpenAI Responses or Gemini). Prints `{"port":N}` when listening.
 *
 * Usage: node upstream-child.mjs BODIES_JSON_FILE (plain JavaScript: no loader in the
 * upstream's way)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: upstream-child.mjs BODIES_JSON_FILE');
const bodies = JSON.parse(readFileSync(file, 'utf8'));
const encoded = {};
for (const [format, body] of Object.entries(bodies)) encoded[format] = Buffer.from(body);

function formatOf(url) {
  if (url.endsWith('/chat/completions')) return 'openai-chat';
  if (url.endsWith('/messages')) return 'anthropic';
  if (url.endsWith('/responses')) return 'openai-responses';
  return 'gemini';
}

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = encoded[formatOf(request.url ?? '')] ?? Buffer.from('{}');
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
