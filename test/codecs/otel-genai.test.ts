/**
 * The otel-genai codec (the OpenTelemetry GenAI conventions' message shape):
 * every golden cross case's conversation goes IR → GenAI → IR with the same
 * roles, texts, reasoning, tool calls and results, media sources and tools;
 * what the conventions cannot carry is a loss; decoding makes up ids for
 * calls that have none and pairs results with them; bad values are typed
 * errors with their path.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import type { Message, Part, Request } from '../../src/core/ir.ts';
import { LossCollector } from '../../src/core/losses.ts';
import {
  decodeOtelGenAiFinishReason,
  decodeOtelGenAiMessages,
  decodeOtelGenAiOutputMessages,
  decodeOtelGenAiSystemInstructions,
  decodeOtelGenAiToolDefinitions,
  encodeOtelGenAiMessages,
  encodeOtelGenAiOutputMessages,
  encodeOtelGenAiToolDefinitions,
  otelGenAiScope,
} from '../../src/providers/otel-genai/index.ts';
import { crossCases, crossSource, readJson } from '../support/fixtures.ts';

const test = suite('otel-genai');

/** A part as the conventions can say it. */
function said(part: Part): unknown {
  switch (part.type) {
    case 'text':
    case 'refusal':
      return { text: part.text };
    case 'reasoning':
      return { reasoning: part.text };
    case 'tool_call':
      return { call: part.name, id: part.id, arguments: part.arguments ?? part.rawArguments };
    case 'tool_result':
      return { result: part.callId, content: part.content.map(said) };
    case 'image':
    case 'audio':
    case 'video':
    case 'document': {
      const source = part.source as { kind: string; data?: string; url?: string; id?: string; mediaType?: string };
      return { media: part.type, kind: source.kind, value: source.data ?? source.url ?? source.id, mediaType: source.mediaType };
    }
    default:
      return undefined;
  }
}

function conversation(messages: readonly Message[]): unknown {
  return messages.map((message) => ({ role: message.role, parts: message.parts.map(said).filter((part) => part !== undefined) }));
}

function roundTrip(ir: Request): { messages: Message[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoded = encodeOtelGenAiMessages(ir.messages, losses);
  const wire = JSON.parse(JSON.stringify(encoded)) as typeof encoded;
  const scope = otelGenAiScope();
  const back = new LossCollector();
  const system = wire.systemInstructions === undefined ? undefined : decodeOtelGenAiSystemInstructions(wire.systemInstructions, '', scope, back);
  const messages = [...(system === undefined ? [] : [system]), ...decodeOtelGenAiMessages(wire.inputMessages, '', scope, back)];
  assert.equal(back.losses, [], 'decoding what the encoder wrote reports nothing');
  return { messages, losses };
}

test('every golden cross request: IR → GenAI messages → IR keeps the conversation; what is not carried is a loss', () => {
  let checked = 0;
  for (const crossCase of crossCases()) {
    for (const format of ['anthropic', 'openai-chat', 'gemini'] as const) {
      const file = crossSource(crossCase, format, 'request');
      if (file === undefined) continue;
      const ir = decodeRequest(format, readJson(file)).ir;
      const { messages, losses } = roundTrip(ir);
      const kept = (list: readonly Message[]) => (conversation(list) as { role: string; parts: unknown[] }[]).map((message) => ({ ...message, parts: message.parts }));
      const hasOpaque = ir.messages.some((message) => message.parts.some((part) => part.type === 'opaque' || (part.type === 'document' && (part.source.kind === 'text' || part.source.kind === 'content'))));
      if (!hasOpaque) assert.equal(kept(messages), kept(ir.messages), `${crossCase.name} ${format}`);
      const cached = ir.messages.some((message) => message.parts.some((part) => part.cache !== undefined));
      if (cached) assert.ok(losses.losses.some((loss) => loss.code === 'dropped_field'), `${crossCase.name} ${format}: cache breakpoints are reported`);
      const states = ir.messages.some((message) => message.parts.some((part) => part.type === 'reasoning' && part.state !== undefined));
      if (states) assert.ok(losses.losses.some((loss) => loss.code === 'reasoning_state_dropped'), `${crossCase.name} ${format}: reasoning state is reported`);
      checked++;
    }
  }
  assert.ok(checked >= 30, `checked ${checked}`);
});

test('candidates and tools: finish reasons and function definitions round-trip', () => {
  for (const crossCase of crossCases()) {
    const file = crossSource(crossCase, 'openai-chat', 'response');
    const requestFile = crossSource(crossCase, 'openai-chat', 'request');
    if (file === undefined || requestFile === undefined) continue;
    const response = decodeResponse('openai-chat', readJson(file)).ir;
    const losses = new LossCollector();
    const output = decodeOtelGenAiOutputMessages(JSON.parse(JSON.stringify(encodeOtelGenAiOutputMessages(response.candidates, losses))), '', new LossCollector());
    assert.equal(conversation(output.map((candidate) => candidate.message)), conversation(response.candidates.map((candidate) => candidate.message)), crossCase.name);
    assert.equal(output.map((candidate) => candidate.stopReason?.unified ?? 'end_turn'), response.candidates.map((candidate) => (candidate.stopReason?.unified === 'stop_sequence' ? 'end_turn' : candidate.stopReason?.unified ?? 'end_turn')), crossCase.name);
    const request = decodeRequest('openai-chat', readJson(requestFile)).ir;
    const functions = (request.tools ?? []).filter((tool) => tool.type === 'function');
    const tools = decodeOtelGenAiToolDefinitions(encodeOtelGenAiToolDefinitions(functions, new LossCollector()), '', new LossCollector());
    assert.equal(tools, functions.map(({ strict: _strict, cache: _cache, extensions: _extensions, ...tool }) => tool), crossCase.name);
  }
});

test('decoding: a call without an id gets a made-up one and the result without one answers it; an unknown part is a loss', () => {
  const losses = new LossCollector();
  const messages = decodeOtelGenAiMessages(
    [
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Oslo"}' }, { type: 'server_tool_call', name: 'search' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', response: { temperature: 4 } }] },
      { role: 'user', parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0KGgo=' }, { type: 'uri', modality: 'video', uri: 'gs://bucket/clip.mp4' }] },
    ],
    '/messages',
    otelGenAiScope(),
    losses,
  );
  const call = messages[0]?.parts[0];
  const result = messages[1]?.parts[0];
  assert.ok(call?.type === 'tool_call' && call.syntheticId === true && call.id.startsWith('call_otel_'));
  assert.equal(call.arguments, { city: 'Oslo' });
  assert.ok(result?.type === 'tool_result' && result.callId === call.id && result.name === 'get_weather');
  assert.equal(result.content, [{ type: 'text', text: '{"temperature":4}' }]);
  assert.equal(messages[2]?.parts.map((part) => part.type), ['image', 'video']);
  assert.equal(losses.losses.map((loss) => [loss.code, loss.path]), [['synthesised_id', '/messages/0/parts/0'], ['unsupported_part', '/messages/0/parts/1']]);
  assert.equal(decodeOtelGenAiFinishReason('tool_call'), { unified: 'tool_calls', raw: 'tool_call' });
  assert.equal(decodeOtelGenAiFinishReason('whatever'), { unified: 'other', raw: 'whatever' });
});

test('bad values are typed errors naming their path', () => {
  const attempt = (value: unknown): InterlinguaError => {
    try {
      decodeOtelGenAiMessages(value, '/messages', otelGenAiScope(), new LossCollector());
    } catch (error) {
      if (error instanceof InterlinguaError) return error;
      throw error;
    }
    throw new Error('no error');
  };
  assert.is(attempt({}).path, '/messages');
  assert.is(attempt([{ role: 'user', parts: [{ content: 'x' }] }]).path, '/messages/0/parts/0/type');
  assert.is(attempt([{ role: 'user', parts: [{ type: 'text', content: 3 }] }]).path, '/messages/0/parts/0/content');
  assert.is(attempt([{ role: 'tool', parts: [{ type: 'tool_call_response', response: 'x' }] }]).code, 'missing_field');
});

test.run();
