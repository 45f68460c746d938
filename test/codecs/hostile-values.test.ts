/**
 * Values a hostile or careless caller hands in that JSON itself cannot say
 * or that JavaScript reads specially: array holes, non-finite numbers and
 * `__proto__` keys (issue 38, findings 18, 19 and 20). Each is a typed
 * error naming its path, or plain data; never a TypeError, a silently
 * changed value or a foreign prototype.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, decodeRequest, encodeRequest, parseBody } from '../../src/formats/convert.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { Request } from '../../src/core/ir.ts';

const test = suite('hostile values');

/** Does every object in `value` have `Object.prototype` as its prototype (arrays theirs)? */
function plainPrototypes(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(plainPrototypes);
}

function typedAt(run: () => unknown, path: string, what: string): void {
  try {
    run();
  } catch (error) {
    assert.ok(isInterlinguaError(error), `${what}: ${String(error)}`);
    assert.is((error as { path: string }).path, path, what);
    return;
  }
  assert.unreachable(`${what}: no error`);
}

/** An IR request with a system prompt, a tool, a tool call and its result: every array the encoders walk. */
function irRequest(): Request {
  return {
    model: 'm',
    messages: [
      { role: 'system', parts: [{ type: 'text', text: 'be brief' }, { type: 'text', text: 'and kind' }] },
      { role: 'user', parts: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'there' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: { a: 1 } }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'ok' }, { type: 'text', text: 'done' }] }] },
    ],
    tools: [
      { type: 'function', name: 'f', parameters: { type: 'object' } },
      { type: 'function', name: 'g', parameters: { type: 'object' } },
    ],
  } as Request;
}

const HOLES: [string, (request: Request) => void][] = [
  ['/tools/0', (request) => delete request.tools![0]],
  ['/messages/0/parts/1', (request) => delete request.messages[0]!.parts[1]],
  ['/messages/1/parts/0', (request) => delete request.messages[1]!.parts[0]],
  ['/messages/3/parts/0/content/1', (request) => delete (request.messages[3]!.parts[0] as { content: unknown[] }).content[1]],
  ['/messages/2', (request) => delete request.messages[2]],
];

test('an IR array with a hole is a typed error naming the slot, for every encoder', () => {
  for (const format of implementedFormats()) {
    for (const [path, makeHole] of HOLES) {
      const request = irRequest();
      makeHole(request);
      typedAt(() => encodeRequest(format, request), path, `${format} ${path}`);
    }
  }
});

test('an output modality that is not a string the IR knows is a typed error naming it, for every encoder (fuzz input 4545)', () => {
  for (const bad of [null, 7, 'smell']) {
    const request = { ...irRequest(), outputModalities: ['text', bad] } as unknown as Request;
    for (const format of implementedFormats()) typedAt(() => encodeRequest(format, request), '/outputModalities/1', `${format}, ${String(bad)}`);
  }
});

test('a wire body with a hole is a typed error naming the slot, whatever the conversion', () => {
  const anthropic = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }], tools: [{ name: 'f', input_schema: { type: 'object' } }] };
  const bedrock = { messages: [{ role: 'user', content: [{ text: 'a' }, { text: 'b' }] }], toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] } };
  for (const to of implementedFormats()) {
    const first = structuredClone(anthropic);
    delete first.messages[0]!.content[1];
    typedAt(() => convertRequest(first, { from: 'anthropic', to }), '/messages/0/content/1', `anthropic → ${to}`);
    const second = structuredClone(bedrock);
    delete second.messages[0]!.content[0];
    typedAt(() => convertRequest(second, { from: 'bedrock-converse', to, model: 'm' }), '/messages/0/content/0', `bedrock-converse → ${to}`);
    const third = structuredClone(bedrock);
    delete third.toolConfig.tools[0];
    typedAt(() => convertRequest(third, { from: 'bedrock-converse', to, model: 'm' }), '/toolConfig/tools/0', `bedrock-converse tools → ${to}`);
  }
});

test('a number JSON.parse makes infinite is a typed error naming its path, never sent as null', () => {
  const text = '{"model":"m","max_tokens":10,"temperature":1e999,"messages":[{"role":"user","content":"hi"}]}';
  typedAt(() => parseBody(text), '/temperature', 'parseBody');
  for (const to of implementedFormats()) typedAt(() => convertRequest(text, { from: 'anthropic', to }), '/temperature', `anthropic → ${to}`);
  typedAt(() => parseBody('{"a":[1,-' + '9'.repeat(400) + ']}'), '/a/1', '400 digits');
  typedAt(() => convertRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], top_p: Number.NaN }, { from: 'openai-chat', to: 'anthropic' }), '/top_p', 'NaN in an object body');
  const ir = irRequest();
  ir.generation = { temperature: Number.POSITIVE_INFINITY };
  typedAt(() => encodeRequest('anthropic', ir), '/generation/temperature', 'Infinity in the IR');
  // Digits and exponents inside strings are text: no false alarm.
  assert.equal(parseBody('{"a":"1e999","b":1e300,"c":"' + '7'.repeat(400) + '"}'), { a: '1e999', b: 1e300, c: '7'.repeat(400) });
});

test('a "__proto__" key inside a Gemini schema stays data, in both directions', () => {
  const text = '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"__proto__":{"type":"STRING"},"a":{"type":"OBJECT","__proto__":{"polluted":true}}}}}]}]}';
  const decoded = decodeRequest('gemini', text, { model: 'g' }).ir;
  const tool = decoded.tools![0] as { parameters: Record<string, Record<string, unknown>> };
  const properties = tool.parameters['properties']!;
  assert.is(Object.getPrototypeOf(properties), Object.prototype);
  assert.ok(Object.hasOwn(properties, '__proto__'));
  assert.equal(Object.getOwnPropertyDescriptor(properties, '__proto__')!.value, { type: 'string' });
  const inner = properties['a'] as Record<string, unknown>;
  assert.is(Object.getPrototypeOf(inner), Object.prototype);
  assert.is((inner as { polluted?: unknown }).polluted, undefined);
  for (const to of implementedFormats()) {
    const body = convertRequest(text, { from: 'gemini', to, model: 'g' }).body;
    assert.ok(plainPrototypes(body), `${to}: no foreign prototype`);
    assert.ok(JSON.stringify(body).includes('"__proto__"'), `${to} keeps the property named __proto__`);
  }
  const back = convertRequest(convertRequest(text, { from: 'gemini', to: 'openai-chat', model: 'g' }).body, { from: 'openai-chat', to: 'gemini', model: 'g' }).body;
  assert.ok(plainPrototypes(back), 'every object of the trip back has the plain prototype');
  assert.match(JSON.stringify(back), /"__proto__":\{"type":"(STRING|string)"\}/);
});

test.run();
