/**
 * Gemini grounding (`groundingMetadata`: supports over byte ranges of a
 * part, backed by chunks with a URI) ⇄ URL citations of the other formats.
 * Recorded grounded answers reach OpenAI Chat and Responses as
 * `url_citation`s over the very text each support names, come back to
 * Gemini as the same supports and chunks, and the official SDKs read them
 * through the proxy both ways.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import { convertResponse } from '../../src/formats/convert.ts';
import type { WireEvent } from '../../src/core/stream-events.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startUpstream } from '../support/strict/index.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';
import { convertedStream, streamFixtures } from '../support/streams.ts';
import { SpecValidators, describeErrors } from '../support/spec-schemas.ts';

type Json = Record<string, unknown>;

const validators = new SpecValidators();
const MODEL = 'gemini-2.5-flash';

interface Segment {
  partIndex?: number;
  startIndex?: number;
  endIndex: number;
  text?: string;
}
interface Support {
  segment: Segment;
  groundingChunkIndices: number[];
}
interface Metadata {
  groundingChunks: { web?: { uri: string; title?: string } }[];
  groundingSupports: Support[];
}

/** The recorded Gemini answers whose candidates have grounding supports. */
function groundedAnswers(): { name: string; body: Json }[] {
  return corpusFixtures()
    .filter((fixture) => fixture.format === 'gemini' && fixture.kind === 'response')
    .map((fixture) => ({ name: fixture.name, body: fixtureBody(fixture).body as Json }))
    .filter(({ body }) => ((body['candidates'] as Json[] | undefined) ?? []).some((candidate) => (candidate['groundingMetadata'] as Json | undefined)?.['groundingSupports'] !== undefined));
}

function metadataOf(body: Json): Metadata {
  return (body['candidates'] as Json[])[0]?.['groundingMetadata'] as Metadata;
}

/** The text of a support's segment as the segment says it. */
function citedText(body: Json, segment: Segment): string {
  return segment.text ?? segmentText(body, segment);
}

/** The text of a support's segment, cut from the part by its UTF-8 byte range. */
function segmentText(body: Json, segment: Segment): string {
  const parts = ((body['candidates'] as Json[])[0]?.['content'] as { parts: { text?: string }[] }).parts;
  const bytes = Buffer.from(parts[segment.partIndex ?? 0]?.text ?? '', 'utf8');
  return bytes.subarray(segment.startIndex ?? 0, segment.endIndex).toString('utf8');
}

/** `(text, url)` of every support and chunk, in order. */
function groundedSpans(body: Json): [string, string][] {
  const metadata = metadataOf(body);
  return metadata.groundingSupports.flatMap((support) =>
    support.groundingChunkIndices.map((index): [string, string] => [citedText(body, support.segment), metadata.groundingChunks[index]?.web?.uri ?? '']),
  );
}

/** A grounded answer of two text parts (a thought first) with text outside ASCII, its supports' byte ranges computed here. */
function multibyteAnswer(): Json {
  const thought = 'Looking up the café.';
  const text = 'Le café ☕ de Zoë ouvre à 8 h 😀. Il ferme à 18 h.';
  const first = 'Le café ☕ de Zoë ouvre à 8 h 😀.';
  const second = 'Il ferme à 18 h.';
  const startOf = (span: string) => Buffer.byteLength(text.slice(0, text.indexOf(span)), 'utf8');
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: thought, thought: true }, { text }] },
        finishReason: 'STOP',
        index: 0,
        groundingMetadata: {
          groundingChunks: [{ web: { uri: 'https://example.com/cafe', title: 'example.com' } }, { web: { uri: 'https://example.org/hours', title: 'example.org' } }],
          groundingSupports: [
            { segment: { partIndex: 1, endIndex: Buffer.byteLength(first, 'utf8'), text: first }, groundingChunkIndices: [0] },
            { segment: { partIndex: 1, startIndex: startOf(second), endIndex: startOf(second) + Buffer.byteLength(second, 'utf8'), text: second }, groundingChunkIndices: [0, 1] },
          ],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 },
    modelVersion: 'gemini-2.5-flash',
  };
}

const whole = suite('Gemini grounding: whole answers');

whole('every recorded grounded answer: each support and chunk is a Chat url_citation over the support\'s own text, valid for the spec', () => {
  const answers = groundedAnswers();
  assert.ok(answers.length >= 3, `grounded answers in the corpus: ${answers.length}`);
  for (const { name, body } of answers) {
    const out = convertResponse(body, { from: 'gemini', to: 'openai-chat' }).body as { choices: { message: { content: string; annotations?: { url_citation: { url: string; start_index: number; end_index: number } }[] } }[] };
    const message = out.choices[0]!.message;
    const spans = (message.annotations ?? []).map((annotation): [string, string] => [message.content.slice(annotation.url_citation.start_index, annotation.url_citation.end_index), annotation.url_citation.url]);
    assert.equal(spans, groundedSpans(body), name);
    const errors = validators.validate('openai-chat', 'response', out);
    assert.is(errors, undefined, errors === undefined ? '' : `${name}: ${describeErrors(errors)}`);
  }
});

whole('to OpenAI Responses: url_citation annotations on the output text, over the same spans', () => {
  for (const { name, body } of groundedAnswers()) {
    const out = convertResponse(body, { from: 'gemini', to: 'openai-responses' }).body as { output: { type: string; content?: { type: string; text: string; annotations: Json[] }[] }[] };
    const spans: [string, string][] = [];
    for (const item of out.output) {
      if (item.type !== 'message') continue;
      for (const content of item.content ?? []) {
        for (const annotation of content.annotations) spans.push([content.text.slice(annotation['start_index'] as number, annotation['end_index'] as number), annotation['url'] as string]);
      }
    }
    assert.equal(spans, groundedSpans(body), name);
    const errors = validators.validate('openai-responses', 'response', out);
    assert.is(errors, undefined, errors === undefined ? '' : `${name}: ${describeErrors(errors)}`);
  }
});

whole('Gemini → Chat → Gemini gives back the same supports and chunks, each range holding its text; Gemini → Gemini is untouched and loses nothing of them', () => {
  for (const { name, body } of groundedAnswers()) {
    const chat = convertResponse(body, { from: 'gemini', to: 'openai-chat' }).body;
    const back = convertResponse(chat, { from: 'openai-chat', to: 'gemini' });
    const original = metadataOf(body);
    const rebuilt = metadataOf(back.body as Json);
    // The same supports, each range holding its text (recorded URL context ranges are a character or two off theirs).
    assert.equal(rebuilt.groundingSupports.map((support) => [support.segment.text, support.groundingChunkIndices]), original.groundingSupports.map((support) => [citedText(body, support.segment), support.groundingChunkIndices]), name);
    for (const support of rebuilt.groundingSupports) assert.is(segmentText(back.body as Json, support.segment), support.segment.text, name);
    assert.equal(rebuilt.groundingChunks, original.groundingChunks.map((chunk) => ({ web: chunk.web })), name);
    assert.equal(back.losses.filter((loss) => loss.path.includes('annotations')), [], name);
    const errors = validators.validate('gemini', 'response', back.body);
    assert.is(errors, undefined, errors === undefined ? '' : `${name}: ${describeErrors(errors)}`);
    const same = convertResponse(body, { from: 'gemini', to: 'gemini' });
    assert.equal(same.body, body, name);
    assert.equal(same.losses.filter((loss) => loss.path.includes('grounding')), [], name);
  }
});

whole('byte ranges over text outside ASCII and a second part become character ranges, and bytes again on the way back', () => {
  const answer = multibyteAnswer();
  const chat = convertResponse(answer, { from: 'gemini', to: 'openai-chat' }).body as { choices: { message: { content: string; annotations: { url_citation: { url: string; start_index: number; end_index: number } }[] } }[] };
  const message = chat.choices[0]!.message;
  const cited = message.annotations.map((annotation) => [message.content.slice(annotation.url_citation.start_index, annotation.url_citation.end_index), annotation.url_citation.url]);
  assert.equal(cited, [
    ['Le café ☕ de Zoë ouvre à 8 h 😀.', 'https://example.com/cafe'],
    ['Il ferme à 18 h.', 'https://example.com/cafe'],
    ['Il ferme à 18 h.', 'https://example.org/hours'],
  ]);
  // Responses keeps the thought as a reasoning item: the text is output part 1 there too, and back in Gemini.
  const responses = convertResponse(answer, { from: 'gemini', to: 'openai-responses' }).body;
  const back = convertResponse(responses, { from: 'openai-responses', to: 'gemini' }).body as Json;
  const parts = ((back['candidates'] as Json[])[0]?.['content'] as { parts: Json[] }).parts;
  const textIndex = parts.findIndex((part) => part['thought'] !== true);
  const supports = metadataOf(back).groundingSupports;
  assert.equal(supports.map((support) => segmentText(back, support.segment)), ['Le café ☕ de Zoë ouvre à 8 h 😀.', 'Il ferme à 18 h.']);
  assert.ok(supports.every((support) => (support.segment.partIndex ?? 0) === textIndex));
  assert.equal(supports.map((support) => support.groundingChunkIndices), [[0], [0, 1]]);
});

whole('losses: only what the citations do not carry is reported, and a target without URL citations points at each support', () => {
  const answer = multibyteAnswer();
  const metadata = (answer['candidates'] as Json[])[0]!['groundingMetadata'] as Json;
  metadata['webSearchQueries'] = ['café hours'];
  const chat = convertResponse(answer, { from: 'gemini', to: 'openai-chat' });
  const grounding = chat.losses.filter((loss) => loss.path.startsWith('/candidates/0/groundingMetadata'));
  assert.is(grounding.length, 1, JSON.stringify(chat.losses));
  assert.is(grounding[0]!.path, '/candidates/0/groundingMetadata');
  // With nothing but supports and chunks, nothing of the metadata is lost.
  const bare = multibyteAnswer();
  assert.equal(convertResponse(bare, { from: 'gemini', to: 'openai-chat' }).losses.filter((loss) => loss.path.includes('grounding')), []);
  const anthropic = convertResponse(bare, { from: 'gemini', to: 'anthropic' });
  const dropped = anthropic.losses.filter((loss) => loss.irPath?.includes('/citations/'));
  assert.equal(dropped.map((loss) => loss.path), ['/candidates/0/groundingMetadata/groundingSupports/0', '/candidates/0/groundingMetadata/groundingSupports/1', '/candidates/0/groundingMetadata/groundingSupports/1']);
});

whole('Responses url_citations become a groundingMetadata valid for the Gemini spec; citations without a URL are reported', () => {
  const text = 'Paris is the capital of France. It has 2.1 million people.';
  const second = 'It has 2.1 million people.';
  const responses = {
    id: 'resp_1', object: 'response', created_at: 1764547200, status: 'completed', model: 'gpt-5', output: [
      {
        type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [
          {
            type: 'output_text', text, logprobs: [], annotations: [
              { type: 'url_citation', url: 'https://en.wikipedia.org/wiki/Paris', title: 'Paris', start_index: 0, end_index: 31 },
              { type: 'url_citation', url: 'https://insee.fr/paris', title: 'INSEE', start_index: text.indexOf(second), end_index: text.length },
              { type: 'url_citation', url: 'https://en.wikipedia.org/wiki/Paris', title: 'Paris', start_index: text.indexOf(second), end_index: text.length },
              { type: 'file_citation', file_id: 'file_1', filename: 'notes.pdf', index: 3 },
            ],
          },
        ],
      },
    ],
    usage: { input_tokens: 5, output_tokens: 20, total_tokens: 25, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
  const out = convertResponse(responses, { from: 'openai-responses', to: 'gemini' });
  const body = out.body as Json;
  assert.equal(metadataOf(body), {
    groundingChunks: [{ web: { uri: 'https://en.wikipedia.org/wiki/Paris', title: 'Paris' } }, { web: { uri: 'https://insee.fr/paris', title: 'INSEE' } }],
    groundingSupports: [
      { segment: { endIndex: 31, text: 'Paris is the capital of France.' }, groundingChunkIndices: [0] },
      { segment: { startIndex: text.indexOf(second), endIndex: text.length, text: second }, groundingChunkIndices: [1, 0] },
    ],
  });
  const noUrl = out.losses.filter((loss) => loss.irPath === '/candidates/0/message/parts/0/citations/3');
  assert.is(noUrl.length, 1, JSON.stringify(out.losses));
  assert.is(noUrl[0]!.path, '/output/0/content/0/annotations/3');
  const errors = validators.validate('gemini', 'response', body);
  assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
});

whole.run();

const streams = suite('Gemini grounding: streams');

/** The recorded Gemini streams whose last chunk has grounding supports, as SSE bytes, with their chunks. */
function groundedStreams(): { name: string; sse: Uint8Array; chunks: Json[] }[] {
  return streamFixtures()
    .filter((fixture) => fixture.format === 'gemini' && fixture.framing === 'jsonl' && readFileSync(fixture.file, 'utf8').includes('groundingSupports'))
    .map((fixture) => {
      const lines = readFileSync(fixture.file, 'utf8').split('\n').filter((line) => line.trim() !== '');
      return { name: fixture.name, sse: new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join('')), chunks: lines.map((line) => JSON.parse(line) as Json) };
    });
}

/** The parsed data of a converted stream's events. */
function dataOf(events: WireEvent[]): Json[] {
  return events.map((event) => event.data as Json);
}

/** A streamed answer's grounded spans: its candidate's text as streamed and the last chunk's supports, each segment's own text. */
function streamedSpans(chunks: Json[]): [string, string][] {
  const last = chunks.findLast((chunk) => (chunk['candidates'] as Json[])[0]?.['groundingMetadata'] !== undefined && 'groundingSupports' in ((chunk['candidates'] as Json[])[0]!['groundingMetadata'] as Json))!;
  const metadata = metadataOf(last);
  return metadata.groundingSupports.flatMap((support) => support.groundingChunkIndices.map((index): [string, string] => [support.segment.text ?? '', metadata.groundingChunks[index]?.web?.uri ?? '']));
}

/** The spans of a Responses stream's annotations, over the final text of their content part. */
function responsesSpans(events: Json[]): [string, string][] {
  const texts = new Map<string, string>();
  for (const event of events) if (event['type'] === 'response.output_text.done') texts.set(`${event['output_index']}:${event['content_index']}`, event['text'] as string);
  return events
    .filter((event) => event['type'] === 'response.output_text.annotation.added')
    .map((event) => {
      const annotation = event['annotation'] as Json;
      const text = texts.get(`${event['output_index']}:${event['content_index']}`) ?? '';
      return [text.slice(annotation['start_index'] as number, annotation['end_index'] as number), annotation['url'] as string];
    });
}

streams('recorded grounded streams to OpenAI Responses: annotation events over the very text each support names', async () => {
  const recorded = groundedStreams();
  assert.ok(recorded.length >= 3, `grounded streams in the corpus: ${recorded.length}`);
  for (const { name, sse, chunks } of recorded) {
    const { events } = await convertedStream(sse, 'gemini', 'openai-responses', MODEL);
    assert.equal(responsesSpans(dataOf(events)), streamedSpans(chunks), name);
  }
});

streams('every other target reports the grounding it cannot carry by its name, once; no empty metadata, no internal key', async () => {
  for (const { name, sse } of groundedStreams()) {
    for (const to of ['openai-chat', 'openai-responses', 'anthropic', 'ollama', 'bedrock-converse'] as const) {
      const { losses } = await convertedStream(sse, 'gemini', to, MODEL);
      const messages = losses.map((loss) => loss.message);
      assert.not.ok(messages.some((message) => message.includes('candidateFields') || message.includes('chunkFields')), `${name} → ${to}: ${messages.join('; ')}`);
      const metadata = messages.filter((message) => message.includes('"groundingMetadata"'));
      // What the citations do not carry (search queries, the search entry point) is reported once; URL context answers have nothing else.
      assert.ok(metadata.length <= 1, `${name} → ${to}: ${metadata.join('; ')}`);
      // Responses and Converse stream URL citations (annotation events, citation deltas); the others report them dropped.
      if (to !== 'openai-responses' && to !== 'bedrock-converse') assert.ok(losses.some((loss) => loss.irPath?.includes('/citations') || /citation/.test(loss.message)), `${name} → ${to}: the citations' drop is reported`);
    }
  }
});

streams('an Anthropic stream with web search citations to Gemini: the last chunk\'s groundingMetadata names byte ranges of the streamed text, which Gemini → Responses reads back', async () => {
  const fixture = streamFixtures().find((item) => item.format === 'anthropic' && item.name.includes('llm-anthropic--test_anthropic--test_web_search'))!;
  const { bytes: gemini, events } = await convertedStream(new Uint8Array(readFileSync(fixture.file)), 'anthropic', 'gemini', MODEL);
  const chunks = dataOf(events);
  let streamedText = '';
  for (const chunk of chunks) {
    for (const part of (((chunk['candidates'] as Json[] | undefined)?.[0]?.['content'] as Json | undefined)?.['parts'] as Json[] | undefined) ?? []) {
      if (typeof part['text'] === 'string' && part['thought'] !== true) streamedText += part['text'];
    }
  }
  const last = chunks.at(-1)!;
  const metadata = metadataOf(last);
  assert.ok(metadata.groundingSupports.length >= 3, JSON.stringify(metadata).slice(0, 300));
  const bytes = Buffer.from(streamedText, 'utf8');
  for (const support of metadata.groundingSupports) {
    assert.is(support.segment.partIndex, undefined);
    assert.is(bytes.subarray(support.segment.startIndex ?? 0, support.segment.endIndex).toString('utf8'), support.segment.text);
  }
  const back = await convertedStream(gemini, 'gemini', 'openai-responses', MODEL);
  assert.equal(responsesSpans(dataOf(back.events)), streamedSpans(chunks));
});

streams.run();

const sdks = suite('Gemini grounding: the official SDKs through the proxy');

/** Run `call` against the proxy in front of a fake `format` upstream answering `answer`. */
async function through(format: FormatId, answer: unknown, model: string, call: (url: string) => Promise<void>): Promise<void> {
  const upstream = await startUpstream(format);
  upstream.behaviour = { kind: 'answer', body: answer };
  try {
    await withProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': model }, fetch: createNodeFetch() }, call);
  } finally {
    await upstream.close();
  }
}

sdks('chat.completions in front of Gemini: a grounded answer arrives with its url_citation annotations', async () => {
  const { body } = groundedAnswers()[0]!;
  await through('gemini', body, 'gemini-2.5-flash', async (url) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'Latest OpenAI news?' }] });
    const message = completion.choices[0]!.message;
    const spans = (message.annotations ?? []).map((annotation): [string, string] => [(message.content ?? '').slice(annotation.url_citation.start_index, annotation.url_citation.end_index), annotation.url_citation.url]);
    assert.equal(spans, groundedSpans(body));
  });
});

sdks('the Gemini SDK in front of OpenAI Chat: a search model\'s annotations arrive as groundingMetadata', async () => {
  const content = 'Le café ☕ ouvre à 8 h. Il ferme à 18 h.';
  const answer = {
    id: 'chatcmpl-1', object: 'chat.completion', created: 1764547200, model: 'gpt-4o-search-preview',
    choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content, refusal: null, annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/cafe', title: 'Café', start_index: 0, end_index: 22 } }] } }],
    usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
  };
  await through('openai-chat', answer, 'gpt-4o-search-preview', async (url) => {
    const client = new GoogleGenAI({ apiKey: 'caller-key', httpOptions: { baseUrl: url } });
    const response = await client.models.generateContent({ model: 'gemini-test', contents: [{ role: 'user', parts: [{ text: 'When does the café open?' }] }] });
    const metadata = response.candidates?.[0]?.groundingMetadata;
    assert.equal(metadata?.groundingChunks, [{ web: { uri: 'https://example.com/cafe', title: 'Café' } }]);
    const segment = metadata?.groundingSupports?.[0]?.segment;
    assert.is(segment?.text, 'Le café ☕ ouvre à 8 h.');
    assert.is(segment?.endIndex, Buffer.byteLength('Le café ☕ ouvre à 8 h.', 'utf8'));
  });
});

sdks('responses.stream in front of a streaming Gemini: the final response has the url_citation annotations', async () => {
  const { sse, chunks } = groundedStreams().find((item) => item.name.includes('webSearchToolParam--response'))!;
  const upstream = await startUpstream('gemini');
  upstream.behaviour = { kind: 'answer', body: {}, stream: sse };
  try {
    await withProxy({ upstream: { format: 'gemini', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'gemini-2.5-flash' }, fetch: createNodeFetch() }, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
      const final = await client.responses.stream({ model: 'gpt-5', input: 'Latest OpenAI news?' }).finalResponse();
      const spans: [string, string][] = [];
      for (const item of final.output) {
        if (item.type !== 'message') continue;
        for (const content of item.content) {
          if (content.type !== 'output_text') continue;
          for (const annotation of content.annotations) if (annotation.type === 'url_citation') spans.push([content.text.slice(annotation.start_index, annotation.end_index), annotation.url]);
        }
      }
      assert.equal(spans, streamedSpans(chunks));
    });
  } finally {
    await upstream.close();
  }
});

sdks.run();
