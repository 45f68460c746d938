/**
 * Whose fault is it: an upstream answer the proxy cannot read (a whole body,
 * an error body or a stream) reaches the caller's official SDK as a 502 (or,
 * inside a stream already started, the caller format's error event) whose
 * message names the upstream and what was wrong, never as a 400 about a
 * body the caller never sent. A bad request, on the other hand, stays the
 * caller's 400.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { Ollama, type Message as OllamaMessage } from 'ollama';
import { createProxy } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { streamingFormats } from '../support/streams.ts';
import { framingFor } from '../../src/formats/stream.ts';
import { ConverseCommand, ConverseStreamCommand, type Message as BedrockMessage } from '@aws-sdk/client-bedrock-runtime';
import { bedrockClient } from '../support/clients.ts';
import { startUpstream, type FakeUpstream } from '../support/strict/index.ts';

const formats = implementedFormats();
const streaming = new Set(streamingFormats());

/** A whole response of each format with one field of the wrong type: the codec refuses it with a typed error. */
const UNREADABLE_BODY: Record<FormatId, unknown> = {
  anthropic: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: 'not a list', stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } },
  'openai-chat': { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: 7 },
  'openai-responses': { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'completed', output: 7 },
  gemini: { candidates: 7 },
  ollama: { model: 'm', created_at: '2025-01-01T00:00:00Z', message: 7, done: true },
  'bedrock-converse': { output: { message: { role: 'assistant', content: 7 } }, stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
};

/** A stream of each format that starts well ("Hello") and then sends an event the codec refuses (Bedrock's in binary event-stream frames). */
const UNREADABLE_STREAM: Record<FormatId, string | Uint8Array> = {
  'bedrock-converse': framingFor('bedrock-converse').write([
    { event: 'messageStart', data: '{"role":"assistant"}' },
    { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hello"}}' },
    { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":7}' },
  ]),
  anthropic: [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":7}',
  ].join('\n\n'),
  'openai-chat': [
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}',
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":7}',
  ].join('\n\n'),
  'openai-responses': [
    'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r","object":"response","created_at":1,"model":"m","status":"in_progress","output":[]}}',
    'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"m1","role":"assistant","status":"in_progress","content":[]}}',
    'event: response.content_part.added\ndata: {"type":"response.content_part.added","sequence_number":2,"output_index":0,"content_index":0,"item_id":"m1","part":{"type":"output_text","text":"","annotations":[]}}',
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":3,"output_index":0,"content_index":0,"item_id":"m1","delta":"Hello"}',
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"output_index":0,"content_index":0,"item_id":"m1","delta":7}',
  ].join('\n\n'),
  gemini: ['data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"Hello"}]}}]}', 'data: {"candidates":7}'].join('\n\n'),
  ollama: ['{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hello"},"done":false}', '{"model":"m","created_at":"2025-01-01T00:00:01Z","message":7,"done":false}'].join('\n'),
};

/** The content type each format streams with. */
const STREAM_TYPE: Record<FormatId, string> = {
  anthropic: 'text/event-stream',
  'openai-chat': 'text/event-stream',
  'openai-responses': 'text/event-stream',
  gemini: 'text/event-stream',
  ollama: 'application/x-ndjson',
  'bedrock-converse': 'application/vnd.amazon.eventstream',
};

/** What the caller's SDK made of one call: the error it threw (status and text), and any text it saw before. */
interface Outcome {
  status: number | undefined;
  message: string;
  text: string;
}

async function outcome(run: (onText: (text: string) => void) => Promise<unknown>): Promise<Outcome> {
  let text = '';
  try {
    await run((delta) => (text += delta));
  } catch (error) {
    // The Ollama client calls it status_code, the AWS SDK $metadata.httpStatusCode.
    const status = (error as { status?: unknown }).status ?? (error as { status_code?: unknown }).status_code ?? (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
    return { status: typeof status === 'number' ? status : undefined, message: error instanceof Error ? error.message : String(error), text };
  }
  throw new Error('the SDK call succeeded, but the upstream answer was unreadable');
}

/** One question through the official SDK of `format`, whole or streamed, with a bad body of the caller's own when `badRequest`. */
function ask(format: FormatId, baseUrl: string, stream: boolean, badRequest = false): Promise<Outcome> {
  switch (format) {
    case 'anthropic': {
      const client = new Anthropic({ apiKey: 'caller-key', baseURL: baseUrl, maxRetries: 0 });
      const messages = badRequest ? ([{ role: 'user', content: 7 }] as unknown as Anthropic.MessageParam[]) : [{ role: 'user' as const, content: 'hi' }];
      const params = { model: 'claude-test', max_tokens: 64, messages };
      return outcome(async (onText) => {
        if (!stream) return client.messages.create(params);
        const events = client.messages.stream(params).on('text', onText);
        return events.finalMessage();
      });
    }
    case 'openai-chat': {
      const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
      const messages = badRequest ? ([{ role: 'user', content: 7 }] as unknown as OpenAI.ChatCompletionMessageParam[]) : [{ role: 'user' as const, content: 'hi' }];
      return outcome(async (onText) => {
        if (!stream) return client.chat.completions.create({ model: 'gpt-test', messages });
        for await (const chunk of await client.chat.completions.create({ model: 'gpt-test', messages, stream: true })) onText(chunk.choices[0]?.delta.content ?? '');
        return undefined;
      });
    }
    case 'openai-responses': {
      const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${baseUrl}/v1`, maxRetries: 0 });
      const input = badRequest ? (7 as unknown as string) : 'hi';
      return outcome(async (onText) => {
        if (!stream) return client.responses.create({ model: 'gpt-test', input });
        for await (const event of await client.responses.create({ model: 'gpt-test', input, stream: true })) {
          if (event.type === 'response.output_text.delta') onText(event.delta);
        }
        return undefined;
      });
    }
    case 'gemini': {
      const client = new GoogleGenAI({ apiKey: 'caller-key', httpOptions: { baseUrl } });
      const contents = badRequest ? ([{ role: 'user', parts: [{ text: 7 }] }] as unknown as string) : 'hi';
      return outcome(async (onText) => {
        if (!stream) return client.models.generateContent({ model: 'gemini-test', contents });
        for await (const chunk of await client.models.generateContentStream({ model: 'gemini-test', contents })) onText(chunk.text ?? '');
        return undefined;
      });
    }
    case 'bedrock-converse': {
      const client = bedrockClient(baseUrl);
      const modelId = 'us.anthropic.claude-test-v1:0';
      const messages = badRequest ? ([{ role: 'user', content: 7 }] as unknown as BedrockMessage[]) : [{ role: 'user' as const, content: [{ text: 'hi' }] }];
      return outcome(async (onText) => {
        if (!stream) return client.send(new ConverseCommand({ modelId, messages }));
        const output = await client.send(new ConverseStreamCommand({ modelId, messages }));
        for await (const event of output.stream ?? []) {
          if (event.contentBlockDelta?.delta?.text !== undefined) onText(event.contentBlockDelta.delta.text);
        }
        return undefined;
      });
    }
    case 'ollama': {
      const client = new Ollama({ host: baseUrl });
      const messages = badRequest ? ([{ role: 'user', content: 7 }] as unknown as OllamaMessage[]) : [{ role: 'user', content: 'hi' }];
      return outcome(async (onText) => {
        if (!stream) return client.chat({ model: 'llama-test', messages, stream: false });
        for await (const part of await client.chat({ model: 'llama-test', messages, stream: true })) onText(part.message.content);
        return undefined;
      });
    }
  }
}

async function withProxy<T>(upstream: FakeUpstream, format: FormatId, run: (url: string) => Promise<T>): Promise<T> {
  const handler = createProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, timeoutMs: 5000 });
  const server: Server = await serve(handler, { port: 0 });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The caller is not blamed: no 4xx, no wording of a bad request. */
function notBlamed(result: Outcome, what: string): void {
  assert.ok(result.status === undefined || result.status >= 500, `${what}: status ${result.status} blames the caller (${result.message})`);
  assert.not.match(result.message, /invalid_request|INVALID_ARGUMENT/, `${what}: ${result.message}`);
}

const blame = suite('proxy: an unreadable upstream answer is the upstream’s fault');

for (const ingress of formats) {
  for (const upstreamFormat of formats) {
    blame(`${ingress} SDK, ${upstreamFormat} upstream: unreadable whole body → 502 naming the upstream`, async () => {
      const upstream = await startUpstream(upstreamFormat);
      try {
        upstream.behaviour = { kind: 'raw', status: 200, contentType: 'application/json', text: JSON.stringify(UNREADABLE_BODY[upstreamFormat]) };
        await withProxy(upstream, upstreamFormat, async (url) => {
          // A same-format whole answer passes through untouched: the caller's SDK reads it as it is.
          if (ingress !== upstreamFormat) {
            const whole = await ask(ingress, url, false);
            assert.is(whole.status, 502, whole.message);
            assert.match(whole.message, `the upstream (${upstreamFormat})`);
            notBlamed(whole, 'whole');
          }
          // A stream asked for, a whole body answered: converted into a stream, so read first, and refused before any byte.
          if (streaming.has(ingress)) {
            const streamed = await ask(ingress, url, true);
            assert.is(streamed.status, 502, streamed.message);
            assert.match(streamed.message, `the upstream (${upstreamFormat})`);
            notBlamed(streamed, 'stream asked, whole answered');
          }
        });
      } finally {
        await upstream.close();
      }
    });

    blame(`${ingress} SDK, ${upstreamFormat} upstream: error body that is no ${upstreamFormat} error → upstream status, message naming the upstream`, async () => {
      const upstream = await startUpstream(upstreamFormat);
      try {
        upstream.behaviour = { kind: 'raw', status: 500, contentType: 'text/html', text: '<html>upstream exploded</html>' };
        await withProxy(upstream, upstreamFormat, async (url) => {
          const result = await ask(ingress, url, false);
          if (ingress === upstreamFormat) return;
          assert.is(result.status, 500, result.message);
          assert.match(result.message, `the upstream (${upstreamFormat}) answered HTTP 500`);
          assert.match(result.message, 'upstream exploded');
          notBlamed(result, 'error body');
        });
      } finally {
        await upstream.close();
      }
    });

    if (!streaming.has(ingress) || !streaming.has(upstreamFormat) || ingress === upstreamFormat) continue;
    blame(`${ingress} SDK, ${upstreamFormat} upstream: a stream that breaks after it started → the caller's error event naming the upstream`, async () => {
      const upstream = await startUpstream(upstreamFormat);
      try {
        const stream = UNREADABLE_STREAM[upstreamFormat];
        upstream.behaviour = { kind: 'raw', status: 200, contentType: STREAM_TYPE[upstreamFormat], text: typeof stream === 'string' ? `${stream}\n\n` : stream };
        await withProxy(upstream, upstreamFormat, async (url) => {
          const result = await ask(ingress, url, true);
          assert.is(result.text, 'Hello', 'what came before the bad event reached the caller');
          assert.match(result.message, `the ${upstreamFormat} stream could not be read`);
          notBlamed(result, 'stream');
        });
      } finally {
        await upstream.close();
      }
    });
  }

  blame(`${ingress} SDK: a bad request stays the caller's 400`, async () => {
    const upstreamFormat = formats.find((format) => format !== ingress) ?? ingress;
    const upstream = await startUpstream(upstreamFormat);
    try {
      upstream.behaviour = { kind: 'raw', status: 200, contentType: 'application/json', text: JSON.stringify(UNREADABLE_BODY[upstreamFormat]) };
      await withProxy(upstream, upstreamFormat, async (url) => {
        const result = await ask(ingress, url, false, true);
        assert.is(result.status, 400, result.message);
        assert.is(upstream.received.length, 0, 'the upstream was never called');
      });
    } finally {
      await upstream.close();
    }
  });
}

blame.run();
