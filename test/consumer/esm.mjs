// Plain Node ESM consumer: the package's main entry, no loader, no TypeScript.
import { readFile } from 'node:fs/promises';
import { convertRequest, convertStream, implementedFormats } from 'interlingua';

const [requestPath, streamPath] = process.argv.slice(2);
const request = JSON.parse(await readFile(requestPath, 'utf8'));
const { body, losses } = convertRequest(request, { from: 'openai-chat', to: 'anthropic' });
const bytes = new Response(await readFile(streamPath)).body;
const converted = convertStream(bytes, { from: 'anthropic', to: 'openai-chat' });
const stream = await new Response(converted).text();
console.log(JSON.stringify({ formats: implementedFormats(), body, losses, stream, streamLosses: await converted.losses }));
