/**
 * Citations in streams beyond Gemini's grounding: Converse's citation
 * deltas (recorded from Claude on Bedrock, document locations) reach an
 * Anthropic stream as its own `citations_delta`s, and URL citations of
 * another format reach a Converse stream as web citation deltas, which the
 * AWS SDK reads through the proxy. A whole Converse answer's web location
 * is a URL and its domain, as the SDK's `WebLocation` has it.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { convertResponse } from '../../src/formats/convert.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startUpstream } from '../support/strict/index.ts';
import { bedrockClient } from '../support/clients.ts';
import { convertedStream, streamFixtures, wireEvents } from '../support/streams.ts';

type Json = Record<string, unknown>;

const MODEL = 'us.anthropic.claude-test-v1:0';

const DOCUMENT_KINDS: Record<string, [string, string, string]> = {
  documentChar: ['char_location', 'start_char_index', 'end_char_index'],
  documentPage: ['page_location', 'start_page_number', 'end_page_number'],
  documentChunk: ['content_block_location', 'start_block_index', 'end_block_index'],
};

const converse = suite('stream citations: Converse');

converse('recorded Converse document citations streamed to Anthropic: citations_delta of its own kind, same document, range and cited text', async () => {
  let seen = 0;
  for (const fixture of streamFixtures()) {
    if (fixture.format !== 'bedrock-converse' || fixture.framing !== 'eventstream') continue;
    const source = (await wireEvents(fixture))
      .filter((event) => event.event === 'contentBlockDelta')
      .map((event) => ((event.data as Json)['delta'] as Json)['citation'] as Json | undefined)
      .filter((citation): citation is Json => citation !== undefined && Object.keys(citation['location'] as Json)[0]! in DOCUMENT_KINDS);
    if (source.length === 0) continue;
    seen++;
    const expected = source.map((citation) => {
      const [kind, inner] = Object.entries(citation['location'] as Json)[0] as [string, Json];
      const [type, startKey, endKey] = DOCUMENT_KINDS[kind]!;
      const cited = ((citation['sourceContent'] as Json[] | undefined) ?? []).map((item) => item['text']).join('');
      return { type, cited_text: cited, document_index: inner['documentIndex'], document_title: citation['title'] ?? null, [startKey]: inner['start'], [endKey]: inner['end'] };
    });
    const out = (await convertedStream(new Uint8Array(readFileSync(fixture.file)), 'bedrock-converse', 'anthropic', MODEL)).events.map((event) => event.data as Json);
    const written = out.filter((event) => (event['delta'] as Json | undefined)?.['type'] === 'citations_delta').map((event) => (event['delta'] as Json)['citation']);
    assert.equal(written, expected, fixture.name);
  }
  assert.ok(seen >= 5, `recorded Converse streams with document citations: ${seen}`);
});

converse('a Gemini grounded stream to Converse: each URL citation is a citation delta of its text block, a web location of URL and domain', async () => {
  const fixture = streamFixtures().find((item) => item.format === 'gemini' && item.name.includes('webSearchToolParam--response-streaming'))!;
  const lines = readFileSync(fixture.file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const sse = new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join(''));
  const metadata = (((JSON.parse(lines.at(-1)!) as Json)['candidates'] as Json[])[0]!['groundingMetadata']) as { groundingChunks: { web: { uri: string; title: string } }[]; groundingSupports: { groundingChunkIndices: number[] }[] };
  const expected = metadata.groundingSupports.flatMap((support) => support.groundingChunkIndices.map((index) => metadata.groundingChunks[index]!.web));
  const { events } = await convertedStream(sse, 'gemini', 'bedrock-converse', MODEL);
  const deltas = events.filter((event) => event.event === 'contentBlockDelta' && ((event.data as Json)['delta'] as Json)['citation'] !== undefined);
  const cited = deltas.map((event) => (((event.data as Json)['delta'] as Json)['citation'] as Json));
  assert.equal(cited.map((citation) => [((citation['location'] as Json)['web'] as Json)['url'], citation['title']]), expected.map((web) => [web.uri, web.title]));
  for (const citation of cited) assert.equal((citation['location'] as Json)['web'], { url: ((citation['location'] as Json)['web'] as Json)['url'], domain: 'vertexaisearch.cloud.google.com' });
  // In the text block the Gemini text went into.
  const textBlock = events.find((event) => event.event === 'contentBlockDelta' && typeof ((event.data as Json)['delta'] as Json)['text'] === 'string')!;
  assert.ok(deltas.every((event) => (event.data as Json)['contentBlockIndex'] === (textBlock.data as Json)['contentBlockIndex']));
});

converse('a whole answer: another format\'s URL citation is a web location of URL and domain (no title inside it)', () => {
  const text = 'Ruby 3.4 is the latest stable version.';
  const responses = {
    id: 'resp_1', object: 'response', created_at: 1764547200, status: 'completed', model: 'gpt-5', output: [
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, logprobs: [], annotations: [{ type: 'url_citation', url: 'https://www.ruby-lang.org/en/downloads/', title: 'Ruby Releases', start_index: 0, end_index: text.length }] }] },
    ],
    usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
  const out = convertResponse(responses, { from: 'openai-responses', to: 'bedrock-converse' }).body as { output: { message: { content: Json[] } } };
  const block = out.output.message.content.find((item) => item['citationsContent'] !== undefined)!['citationsContent'] as { citations: Json[] };
  assert.equal(block.citations[0], { location: { web: { url: 'https://www.ruby-lang.org/en/downloads/', domain: 'ruby-lang.org' } }, title: 'Ruby Releases' });
});

converse.run();

const sdk = suite('stream citations: the AWS SDK through the proxy');

sdk('ConverseStream in front of a streaming Gemini: the grounded answer\'s citations arrive as citation deltas', async () => {
  const fixture = streamFixtures().find((item) => item.format === 'gemini' && item.name.includes('webSearchToolParam--response-streaming'))!;
  const lines = readFileSync(fixture.file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const upstream = await startUpstream('gemini');
  upstream.behaviour = { kind: 'answer', body: {}, stream: new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join('')) };
  try {
    await withProxy({ upstream: { format: 'gemini', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'gemini-2.5-flash' }, fetch: createNodeFetch() }, async (url) => {
      const response = await bedrockClient(url).send(new ConverseStreamCommand({ modelId: 'us.amazon.nova-2-lite-v1:0', messages: [{ role: 'user', content: [{ text: 'Latest OpenAI news?' }] }] }));
      const urls: string[] = [];
      let text = '';
      for await (const event of response.stream ?? []) {
        const delta = event.contentBlockDelta?.delta;
        if (delta?.text !== undefined) text += delta.text;
        const web = delta?.citation?.location?.web;
        if (web?.url !== undefined) urls.push(web.url);
      }
      assert.ok(text.includes('OpenAI'), text.slice(0, 80));
      assert.ok(urls.length >= 10, `citation deltas: ${urls.length}`);
      assert.ok(urls.every((item) => item.startsWith('https://vertexaisearch.cloud.google.com/')));
    });
  } finally {
    await upstream.close();
  }
});

sdk.run();
