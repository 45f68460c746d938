/**
 * OpenAI custom (free-text) tools on the formats whose tools take JSON
 * objects: a function of the same name taking the text as `input`, its
 * calls in the history as calls of it, and, through the proxy, the answer's
 * calls of it back as custom calls for the OpenAI SDK that declared the
 * tool custom (Codex's `apply_patch` on Claude, Gemini or Bedrock).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { convertRequest, convertStream, customToolNames, CustomCallRestorer, decodeRequest, decodeResponse, encodeResponse, restoreCustomCalls } from '../../src/index.ts';
import type { Response } from '../../src/core/ir.ts';
import type { StreamEvent } from '../../src/core/stream-events.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { startStrictUpstream, startUpstream } from '../support/strict/index.ts';
import { SpecValidators, describeErrors } from '../support/spec-schemas.ts';

type Json = Record<string, unknown>;

const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';
const PATCH = '*** Begin Patch\n*** Update File: a.txt\n-"old" \\ é\n+new 🙂\n*** End Patch';
const REQUEST = {
  model: 'gpt-5-codex',
  input: [
    { role: 'user', content: 'Fix a.txt.' },
    { type: 'custom_tool_call', call_id: 'call_1', name: 'apply_patch', input: PATCH },
    { type: 'custom_tool_call_output', call_id: 'call_1', output: 'Done.' },
    { role: 'user', content: 'Again.' },
  ],
  tools: [
    { type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: GRAMMAR } },
    { type: 'custom', name: 'note' },
    { type: 'function', name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  ],
};
const OBJECT_FORMATS: FormatId[] = ['anthropic', 'gemini', 'ollama', 'bedrock-converse'];
const validators = new SpecValidators();

const request = suite('custom tools: the request to formats whose tools take JSON');

request('a function taking the text as "input" (the grammar in its description), reported; a custom call in the history goes as a call of it', () => {
  for (const to of OBJECT_FORMATS) {
    const { body, losses } = convertRequest(REQUEST, { from: 'openai-responses', to, model: 'claude-x' });
    const text = JSON.stringify(body);
    assert.ok(text.includes('"apply_patch"') && text.includes('"note"') && text.includes('"read"'), `${to}: all three tools go out`);
    assert.ok(text.includes(JSON.stringify(GRAMMAR).slice(1, -1)), `${to}: the grammar is in the input's description`);
    // The history's custom call is the function's call, its text as input.
    assert.ok(text.includes(JSON.stringify({ input: PATCH }).slice(1, -1)) || text.includes(JSON.stringify(PATCH).slice(1, -1)), `${to}: the patch travels`);
    const reported = losses.filter((loss) => loss.message.startsWith('custom tool "')).map((loss) => `${loss.code} ${loss.path}`);
    assert.equal(reported, ['approximated /tools/0', 'approximated /tools/1'], to);
    if (to === 'anthropic' || to === 'gemini') {
      const errors = validators.validate(to, 'request', body);
      assert.is(errors, undefined, errors === undefined ? '' : `${to}: ${describeErrors(errors)}`);
    }
  }
  const anthropic = convertRequest(REQUEST, { from: 'openai-responses', to: 'anthropic' }).body as Json;
  const tools = anthropic['tools'] as Json[];
  assert.equal(tools[1], { name: 'note', input_schema: { type: 'object', properties: { input: { type: 'string', description: 'The tool\'s input, free text.' } }, required: ['input'] } });
  const messages = anthropic['messages'] as { content: Json[] }[];
  assert.equal(messages[1]?.content, [{ type: 'tool_use', id: 'call_1', name: 'apply_patch', input: { input: PATCH } }]);
});

const answer = suite('custom tools: the answer back as custom calls');

answer('a whole answer: a call of the function becomes a custom call, its text the input (or, of another shape, the arguments\' JSON); other calls stay', () => {
  const response: Response = {
    candidates: [{
      index: 0,
      message: {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: { input: PATCH } },
          { type: 'tool_call', id: 'b', name: 'apply_patch', arguments: { input: PATCH, extra: 1 } },
          { type: 'tool_call', id: 'c', name: 'read', arguments: { input: 'x' } },
        ],
      },
    }],
  };
  restoreCustomCalls(response, new Set(['apply_patch']));
  assert.equal(response.candidates[0]?.message.parts, [
    { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: undefined, rawArguments: PATCH, kind: 'custom' },
    { type: 'tool_call', id: 'b', name: 'apply_patch', arguments: undefined, rawArguments: JSON.stringify({ input: PATCH, extra: 1 }), kind: 'custom' },
    { type: 'tool_call', id: 'c', name: 'read', arguments: { input: 'x' } },
  ]);
});

answer('a stream: the input string decoded as its JSON arrives, an escape cut between deltas held for the next', () => {
  const json = JSON.stringify({ input: PATCH }).replace('é', '\\u00e9');
  // Every cut of the argument text into two and into single characters gives the same text, piece by piece.
  const cuts = [[json], [...json], ...Array.from({ length: json.length - 1 }, (_, at) => [json.slice(0, at + 1), json.slice(at + 1)])];
  for (const pieces of cuts) {
    const restorer = new CustomCallRestorer(new Set(['apply_patch']));
    const start = restorer.map({ type: 'part_start', candidate: 0, index: 0, part: { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: {} } });
    assert.equal(start.type === 'part_start' && start.part, { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: undefined, rawArguments: '', kind: 'custom' });
    let text = '';
    for (const piece of pieces) {
      const event = restorer.map({ type: 'tool_call_delta', candidate: 0, index: 0, arguments: piece });
      text += event.type === 'tool_call_delta' ? event.arguments : '';
    }
    assert.is(text, PATCH, JSON.stringify(pieces.slice(0, 2)));
    const end = restorer.map({ type: 'part_end', candidate: 0, index: 0, part: { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: { input: PATCH }, rawArguments: json } });
    assert.equal(end.type === 'part_end' && end.part, { type: 'tool_call', id: 'a', name: 'apply_patch', arguments: undefined, rawArguments: PATCH, kind: 'custom' });
  }
  // A call that starts whole (its arguments in the start event) is custom with its text at once.
  const started = new CustomCallRestorer(new Set(['apply_patch'])).map({ type: 'part_start', candidate: 0, index: 2, part: { type: 'tool_call', id: 'c', name: 'apply_patch', arguments: { input: PATCH } } });
  assert.equal(started.type === 'part_start' && started.part, { type: 'tool_call', id: 'c', name: 'apply_patch', arguments: undefined, rawArguments: PATCH, kind: 'custom' });
  // Arguments of another shape give no text while they stream, and stay a function call.
  const other = new CustomCallRestorer(new Set(['apply_patch']));
  other.map({ type: 'part_start', candidate: 0, index: 1, part: { type: 'tool_call', id: 'b', name: 'apply_patch', arguments: {} } });
  const delta = other.map({ type: 'tool_call_delta', candidate: 0, index: 1, arguments: '{"patch": "x"}' }) as StreamEvent & { arguments: string };
  assert.is(delta.arguments, '');
});

answer('the library: the exports restore a whole answer and a stream', async () => {
  const names = customToolNames(decodeRequest('openai-responses', REQUEST).ir);
  assert.equal([...(names ?? [])], ['apply_patch', 'note']);
  const claude = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'tool_use', stop_sequence: null, content: [{ type: 'tool_use', id: 'toolu_1', name: 'apply_patch', input: { input: PATCH } }], usage: { input_tokens: 1, output_tokens: 1 } };
  const ir = restoreCustomCalls(decodeResponse('anthropic', claude).ir, names ?? new Set());
  const body = encodeResponse('openai-responses', ir).body as { output: Json[] };
  assert.equal(body.output.map((item) => [item['type'], item['input']]), [['custom_tool_call', PATCH]]);
  const json = JSON.stringify({ input: PATCH });
  const restorer = new CustomCallRestorer(names ?? new Set());
  const source = new ReadableStream<Uint8Array>({ start(controller) { controller.enqueue(anthropicStream([json.slice(0, 9), json.slice(9)])); controller.close(); } });
  const converted = convertStream(source, { from: 'anthropic', to: 'openai-responses', mapEvent: (event) => restorer.map(event) });
  const text = await new Response(converted).text();
  const deltas = text.split('\n').filter((line) => line.startsWith('data: ') && line.includes('custom_tool_call_input.delta')).map((line) => (JSON.parse(line.slice(6)) as { delta: string }).delta);
  assert.is(deltas.join(''), PATCH);
});

const proxied = suite('custom tools through the proxy: the OpenAI SDKs in front of the other vendors');

/** Anthropic SSE of one answer calling `apply_patch`, its input JSON cut into `pieces`. */
function anthropicStream(pieces: string[]): Uint8Array {
  const events: Json[] = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'apply_patch', input: {} } },
    ...pieces.map((partial_json) => ({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
    { type: 'message_stop' },
  ];
  return new TextEncoder().encode(events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}

proxied('responses.create, whole and streamed: the patch comes back as a custom_tool_call with its text', async () => {
  const upstream = await startUpstream('anthropic');
  const json = JSON.stringify({ input: PATCH });
  const pieces = [json.slice(0, 7), json.slice(7, 20), json.slice(20, 41), json.slice(41)];
  upstream.behaviour = {
    kind: 'answer',
    body: {
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'apply_patch', input: { input: PATCH } }],
      usage: { input_tokens: 10, output_tokens: 30 },
    },
    stream: anthropicStream(pieces),
  };
  try {
    await withProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'claude-x' }, fetch: createNodeFetch() }, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
      const whole = await client.responses.create(REQUEST as never);
      const sent = upstream.received.at(-1)?.body as Json;
      assert.equal((sent['tools'] as Json[]).map((tool) => tool['name']), ['apply_patch', 'note', 'read']);
      const call = whole.output.find((item) => item.type === 'custom_tool_call');
      assert.ok(call !== undefined && call.type === 'custom_tool_call', JSON.stringify(whole.output));
      assert.is(call.input, PATCH);
      assert.is(call.name, 'apply_patch');

      const stream = await client.responses.create({ ...(REQUEST as object), stream: true } as never) as unknown as AsyncIterable<{ type: string; delta?: string; input?: string; response?: { output: { type: string; input?: string }[] } }>;
      let deltas = '';
      let done: string | undefined;
      let completed: { type: string; input?: string }[] | undefined;
      for await (const event of stream) {
        if (event.type === 'response.custom_tool_call_input.delta') deltas += event.delta ?? '';
        if (event.type === 'response.custom_tool_call_input.done') done = event.input;
        if (event.type === 'response.completed') completed = event.response?.output;
      }
      assert.is(deltas, PATCH);
      assert.is(done, PATCH);
      assert.equal(completed?.map((item) => [item.type, item.input]), [['custom_tool_call', PATCH]]);
    });
  } finally {
    await upstream.close();
  }
});

proxied('a streamed call with arguments of another shape still comes back as a custom call, its text the arguments\' JSON', async () => {
  const upstream = await startUpstream('anthropic');
  upstream.behaviour = { kind: 'answer', body: {}, stream: anthropicStream(['{"patch": ', '"x"}']) };
  try {
    await withProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'claude-x' }, fetch: createNodeFetch() }, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
      const stream = await client.responses.create({ ...(REQUEST as object), stream: true } as never) as unknown as AsyncIterable<{ type: string; input?: string; response?: { output: { type: string; input?: string }[] } }>;
      let done: string | undefined;
      let completed: { type: string; input?: string }[] | undefined;
      for await (const event of stream) {
        if (event.type === 'response.custom_tool_call_input.done') done = event.input;
        if (event.type === 'response.completed') completed = event.response?.output;
      }
      assert.is(done, '{"patch": "x"}');
      assert.equal(completed?.map((item) => [item.type, item.input]), [['custom_tool_call', '{"patch": "x"}']]);
    });
  } finally {
    await upstream.close();
  }
});

proxied('chat.completions in front of Gemini: the call comes back as a custom tool call', async () => {
  const upstream = await startUpstream('gemini');
  upstream.behaviour = {
    kind: 'answer',
    body: {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'apply_patch', args: { input: PATCH } } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 30, totalTokenCount: 40 },
    },
  };
  try {
    await withProxy({ upstream: { format: 'gemini', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'gemini-x' }, fetch: createNodeFetch() }, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
      const completion = await client.chat.completions.create({
        model: 'gpt-5',
        messages: [{ role: 'user', content: 'Fix a.txt.' }],
        tools: [{ type: 'custom', custom: { name: 'apply_patch', format: { type: 'grammar', grammar: { definition: GRAMMAR, syntax: 'lark' } } } }],
      });
      const call = completion.choices[0]?.message.tool_calls?.[0];
      assert.ok(call !== undefined && call.type === 'custom', JSON.stringify(completion.choices[0]?.message));
      assert.is(call.custom.input, PATCH);
      const sent = upstream.received.at(-1)?.body as { tools: { functionDeclarations: Json[] }[] };
      assert.is(sent.tools[0]?.functionDeclarations[0]?.['name'], 'apply_patch');
    });
  } finally {
    await upstream.close();
  }
});

/** An answer calling `apply_patch` with the patch as `input`, in each upstream format whose tools take objects. */
const CALLING: Partial<Record<FormatId, unknown>> = {
  gemini: {
    candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'apply_patch', args: { input: PATCH } } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 30, totalTokenCount: 40 },
  },
  ollama: {
    model: 'qwen3', created_at: '2026-11-28T00:00:00Z', done: true, done_reason: 'stop',
    message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'apply_patch', arguments: { input: PATCH } } }] },
  },
  'bedrock-converse': {
    output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'apply_patch', input: { input: PATCH } } }] } },
    stopReason: 'tool_use', usage: { inputTokens: 10, outputTokens: 30, totalTokens: 40 }, metrics: { latencyMs: 5 },
  },
};

for (const format of ['gemini', 'ollama', 'bedrock-converse'] as const) {
  proxied(`responses.create in front of ${format}, whole and streamed: a custom_tool_call with the patch`, async () => {
    const upstream = await startUpstream(format);
    upstream.behaviour = { kind: 'answer', body: CALLING[format] };
    const settings = format === 'bedrock-converse' ? { region: 'us-east-1', aws: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } } : { apiKey: 'k' };
    try {
      await withProxy({ upstream: { format, baseUrl: upstream.url, ...settings }, modelMap: { '*': 'model-x' }, fetch: createNodeFetch() }, async (url) => {
        const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
        const whole = await client.responses.create(REQUEST as never);
        assert.equal(whole.output.map((item) => [item.type, item.type === 'custom_tool_call' ? item.input : undefined]), [['custom_tool_call', PATCH]]);
        const stream = await client.responses.create({ ...(REQUEST as object), stream: true } as never) as unknown as AsyncIterable<{ type: string; delta?: string; response?: { output: { type: string; input?: string }[] } }>;
        let deltas = '';
        let completed: { type: string; input?: string }[] | undefined;
        for await (const event of stream) {
          if (event.type === 'response.custom_tool_call_input.delta') deltas += event.delta ?? '';
          if (event.type === 'response.completed') completed = event.response?.output;
        }
        assert.is(deltas, PATCH);
        assert.equal(completed?.map((item) => [item.type, item.input]), [['custom_tool_call', PATCH]]);
      });
    } finally {
      await upstream.close();
    }
  });
}

/** A Gemini SSE answer calling `apply_patch` (Gemini streams a call whole, here in the chunk that ends the answer). */
function geminiStream(): Uint8Array {
  const chunks: Json[] = [
    { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'apply_patch', args: { input: PATCH } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 30, totalTokenCount: 40 }, modelVersion: 'gemini-x' },
  ];
  return new TextEncoder().encode(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(''));
}

/** The Anthropic and Gemini answers (whole and streamed, in each vendor's documented shape) calling the function that stands for `apply_patch`. */
function callingAnswer(format: 'anthropic' | 'gemini'): { kind: 'answer'; body: unknown; stream: Uint8Array } {
  if (format === 'gemini') return { kind: 'answer', body: CALLING['gemini'], stream: geminiStream() };
  const json = JSON.stringify({ input: PATCH });
  return {
    kind: 'answer',
    body: {
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'apply_patch', input: { input: PATCH } }],
      usage: { input_tokens: 10, output_tokens: 30 },
    },
    stream: anthropicStream([json.slice(0, 5), json.slice(5, 33), json.slice(33)]),
  };
}

const CHAT_REQUEST = {
  model: 'gpt-5',
  messages: [{ role: 'user' as const, content: 'Fix a.txt.' }],
  tools: [{ type: 'custom' as const, custom: { name: 'apply_patch', format: { type: 'grammar' as const, grammar: { definition: GRAMMAR, syntax: 'lark' as const } } } }],
};

/** OpenAI's own Chat stream of a custom call (openai/openai-openapi#576: `type: "custom"`, the text in `custom.input`), as JSON lines. */
function openaiCustomStream(): ReadableStream<Uint8Array> {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-5' };
  const chunks = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'custom', custom: { name: 'apply_patch', input: '' } }] }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, custom: { input: PATCH } }] }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  ];
  return new Response(chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join('')).body as ReadableStream<Uint8Array>;
}

/** How the openai SDK's ChatCompletionStream helper ends on `stream`: its final completion's calls, or its error. */
async function helperOutcome(stream: ChatCompletionStream): Promise<string> {
  try {
    return JSON.stringify((await stream.finalChatCompletion()).choices[0]?.message.tool_calls);
  } catch (error) {
    return `threw ${(error as Error).message.split('\n')[0]}`;
  }
}

for (const format of ['anthropic', 'gemini'] as const) {
  proxied(`every OpenAI SDK call in front of ${format}: responses.create and responses.stream, chat.completions.create whole and streamed, the .stream() helper as on OpenAI`, async () => {
    const upstream = await startStrictUpstream({ format, behaviour: callingAnswer(format) });
    try {
      await withProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'model-x' }, fetch: createNodeFetch() }, async (url) => {
        const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
        const whole = await client.responses.create(REQUEST as never);
        assert.equal(whole.output.map((item) => [item.type, item.type === 'custom_tool_call' ? item.input : undefined]), [['custom_tool_call', PATCH]]);
        // The item gets the id OpenAI would have given it (ctc_…), the same whole and streamed.
        assert.is(whole.output[0]?.id, 'ctc_interlingua_0');
        assert.equal(validators.validate('openai-responses', 'response', whole) ?? [], []);

        // The Responses stream helper: the deltas and the done event carry the text, the final response the call.
        const helper = client.responses.stream(REQUEST as never);
        let deltas = '';
        let done: string | undefined;
        helper.on('response.custom_tool_call_input.delta', (event) => (deltas += event.delta));
        helper.on('response.custom_tool_call_input.done', (event) => (done = event.input));
        const final = await helper.finalResponse();
        assert.is(deltas, PATCH);
        assert.is(done, PATCH);
        assert.equal(final.output.map((item) => [item.type, item.id, item.type === 'custom_tool_call' ? [item.name, item.input] : undefined]), [['custom_tool_call', 'ctc_interlingua_0', ['apply_patch', PATCH]]]);

        const completion = await client.chat.completions.create(CHAT_REQUEST);
        const call = completion.choices[0]?.message.tool_calls?.[0];
        assert.ok(call?.type === 'custom', JSON.stringify(completion.choices[0]?.message));
        assert.equal([call.custom.name, call.custom.input], ['apply_patch', PATCH]);

        // The raw chunks are OpenAI's shape: the first fragment of the call says type "custom" and its name, the text comes in custom.input, no function.
        const fragments: Json[] = [];
        let finish: string | null | undefined;
        for await (const chunk of await client.chat.completions.create({ ...CHAT_REQUEST, stream: true })) {
          for (const choice of chunk.choices) {
            fragments.push(...((choice.delta.tool_calls ?? []) as unknown as Json[]));
            finish = choice.finish_reason ?? finish;
          }
        }
        assert.equal(fragments.map((fragment) => Object.keys(fragment).sort()), [['custom', 'id', 'index', 'type'], ...fragments.slice(1).map(() => ['custom', 'index'])]);
        assert.equal([fragments[0]?.['type'], (fragments[0]?.['custom'] as Json)['name']], ['custom', 'apply_patch']);
        assert.is(fragments.map((fragment) => (fragment['custom'] as Json)['input']).join(''), PATCH);
        assert.is(finish, 'tool_calls');

        // The .stream() helper of openai 6.30.1 takes function calls only: it ends on the proxy's stream exactly as on OpenAI's own.
        const chunks: unknown[] = [];
        const stream = client.chat.completions.stream(CHAT_REQUEST);
        stream.on('chunk', (chunk) => chunks.push(chunk));
        const outcome = await helperOutcome(stream);
        assert.is(outcome, await helperOutcome(ChatCompletionStream.fromReadableStream(openaiCustomStream())));
        assert.ok(chunks.length > 0);
      });
      assert.equal(upstream.refusals(), []);
    } finally {
      await upstream.close();
    }
  });
}

request.run();
answer.run();
proxied.run();
