// Plain Node ESM consumer: the package's entries, no loader, no TypeScript.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { convertRequest, convertStream, implementedFormats } from 'interlingua';
import { convertRequest as convertWith } from 'interlingua/core';
import { openaiChatCodec } from 'interlingua/openai-chat';
import { anthropicCodec } from 'interlingua/anthropic';

const [requestPath, streamPath] = process.argv.slice(2);
const request = JSON.parse(await readFile(requestPath, 'utf8'));
const { body, losses } = convertRequest(request, { from: 'openai-chat', to: 'anthropic' });
const lean = convertWith(request, { from: openaiChatCodec, to: anthropicCodec });
const bytes = new Response(await readFile(streamPath)).body;
const converted = convertStream(bytes, { from: 'anthropic', to: 'openai-chat' });
const stream = await new Response(converted).text();

// Every subpath the package exports loads, and names what it exports.
const manifest = createRequire(import.meta.url)('interlingua/package.json');
const subpaths = {};
for (const subpath of Object.keys(manifest.exports)) {
  if (subpath === './package.json') continue;
  const specifier = subpath === '.' ? 'interlingua' : `interlingua/${subpath.slice(2)}`;
  try {
    subpaths[specifier] = Object.keys(await import(specifier)).sort();
  } catch (error) {
    subpaths[specifier] = `${error.code ?? error.name}: ${error.message}`;
  }
}
console.log(JSON.stringify({ formats: implementedFormats(), body, losses, lean, stream, streamLosses: await converted.losses, subpaths }));
