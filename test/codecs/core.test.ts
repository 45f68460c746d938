/** The core that every codec shares: media sniffing, data URLs, detection, losses, errors, the API's format checks. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { base64Prefix, expectMediaType, formatDataUrl, parseDataUrl, sniffBase64 } from '../../src/core/media.ts';
import { detectFormat, formatFromPath } from '../../src/core/detect.ts';
import { LossCollector, throwIfStrict } from '../../src/core/losses.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import { convertRequest, parseBody } from '../../src/formats/convert.ts';
import { convertRequest as engineConvertRequest } from '../../src/core/engine.ts';
import type { CodecContext } from '../../src/core/codec.ts';
import type { Request } from '../../src/core/ir.ts';
import { codecFor } from '../../src/formats/registry.ts';
import { expectObject, pointer, required, unknownKeys } from '../../src/core/wire.ts';
import { parseArguments, argumentsAsObject } from '../../src/core/tools.ts';

const media = suite('media');
const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');

media('sniffs every listed signature from the first bytes', () => {
  const cases: [number[], string][] = [
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0], 'image/png'],
    [[0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'image/jpeg'],
    [[...Buffer.from('GIF89a'), 1, 0], 'image/gif'],
    [[...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8 ')], 'image/webp'],
    [[...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WAVEfmt ')], 'audio/wav'],
    [[...Buffer.from('%PDF-1.7\n')], 'application/pdf'],
    [[...Buffer.from('ID3'), 4, 0, 0], 'audio/mpeg'],
    [[0xff, 0xfb, 0x90, 0x64], 'audio/mpeg'],
    [[...Buffer.from('OggS'), 0, 2], 'audio/ogg'],
    [[...Buffer.from('fLaC'), 0, 0, 0, 0x22], 'audio/flac'],
  ];
  for (const [bytes, expected] of cases) assert.is(sniffBase64(b64(bytes)), expected, expected);
});

media('falls back to a default or a given type for unknown bytes', () => {
  assert.is(sniffBase64(b64([1, 2, 3, 4, 5])), 'application/octet-stream');
  assert.is(sniffBase64('', 'image/png'), 'image/png');
  assert.is(sniffBase64('!!!!', 'text/plain'), 'text/plain');
});

media('decodes only the prefix it needs, across line breaks and URL-safe text', () => {
  const data = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal([...base64Prefix(`${data.slice(0, 4)}\n${data.slice(4)}`, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.equal([...base64Prefix('_-8=', 2)], [0xff, 0xef]);
  const huge = `iVBORw0KGgo${'A'.repeat(10_000_000)}`;
  assert.is(sniffBase64(huge), 'image/png');
});

media('parses and formats data URLs', () => {
  assert.equal(parseDataUrl('data:image/png;base64,AAAA'), { mediaType: 'image/png', base64: true, data: 'AAAA' });
  assert.equal(parseDataUrl('data:,hello'), { mediaType: 'text/plain', base64: false, data: 'hello' });
  assert.equal(parseDataUrl('data:application/pdf;name=a.pdf;base64,JVBE'), { mediaType: 'application/pdf', base64: true, data: 'JVBE' });
  assert.is(parseDataUrl('https://example.com/a.png'), undefined);
  assert.is(formatDataUrl('image/jpeg', '/9j/'), 'data:image/jpeg;base64,/9j/');
});

media('rejects malformed media types with the path', () => {
  assert.is(expectMediaType('image/png', '/x'), 'image/png');
  try {
    expectMediaType('png', '/messages/0/content/1/source/media_type');
    assert.unreachable('should throw');
  } catch (error) {
    assert.instance(error, InterlinguaError);
    assert.is((error as InterlinguaError).code, 'invalid_value');
    assert.is((error as InterlinguaError).path, '/messages/0/content/1/source/media_type');
  }
});

media.run();

const detect = suite('detect');

detect('uses the URL path first', () => {
  assert.is(formatFromPath('/v1/messages'), 'anthropic');
  assert.is(formatFromPath('/v1/chat/completions'), 'openai-chat');
  assert.is(formatFromPath('/v1/responses'), 'openai-responses');
  assert.is(formatFromPath('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'), 'gemini');
  assert.is(formatFromPath('/v1/models/gemini-3-pro:generateContent'), 'gemini');
  assert.is(formatFromPath('/v1/embeddings'), undefined);
  assert.equal(detectFormat({ model: 'x', messages: [] }, { path: '/v1/messages' }), { format: 'anthropic', kind: 'request', certain: true });
});

detect('tells requests apart by shape', () => {
  assert.equal(detectFormat({ contents: [] }), { format: 'gemini', kind: 'request', certain: true });
  assert.equal(detectFormat({ model: 'gpt-5', input: 'hi' }), { format: 'openai-responses', kind: 'request', certain: true });
  assert.equal(
    detectFormat({ model: 'c', max_tokens: 5, system: 's', messages: [{ role: 'user', content: 'hi' }] }),
    { format: 'anthropic', kind: 'request', certain: true },
  );
  assert.equal(
    detectFormat({ model: 'g', messages: [{ role: 'system', content: 's' }, { role: 'tool', tool_call_id: 'a', content: 'x' }] }),
    { format: 'openai-chat', kind: 'request', certain: true },
  );
  const ambiguous = detectFormat({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
  assert.is(ambiguous?.certain, false);
});

detect('tells responses and errors apart by shape', () => {
  assert.is(detectFormat({ type: 'message', content: [] })?.format, 'anthropic');
  assert.is(detectFormat({ object: 'chat.completion', choices: [] })?.format, 'openai-chat');
  assert.is(detectFormat({ object: 'response', output: [], status: 'completed' })?.format, 'openai-responses');
  assert.is(detectFormat({ candidates: [] })?.format, 'gemini');
  assert.equal(detectFormat({ type: 'error', error: { type: 'overloaded_error', message: 'x' } }), { format: 'anthropic', kind: 'error', certain: true });
  assert.equal(detectFormat({ error: { code: 429, message: 'x', status: 'RESOURCE_EXHAUSTED' } }), { format: 'gemini', kind: 'error', certain: true });
  assert.is(detectFormat({ error: { message: 'x', type: 'invalid_request_error' } })?.kind, 'error');
  assert.is(detectFormat('a string'), undefined);
  assert.is(detectFormat({ hello: 1 }), undefined);
});

detect.run();

const core = suite('losses, errors and the API');

core('strict turns losses into one error naming the first path', () => {
  const losses = new LossCollector();
  throwIfStrict(losses.losses, true);
  losses.add('dropped_field', '/generation/seed', 'seed has no equivalent');
  throwIfStrict(losses.losses, false);
  try {
    throwIfStrict(losses.losses, true);
    assert.unreachable('should throw');
  } catch (error) {
    assert.is((error as InterlinguaError).code, 'strict_loss');
    assert.is((error as InterlinguaError).path, '/generation/seed');
    assert.match((error as Error).message, 'seed has no equivalent');
  }
});

core('encode loss paths are the same whether the pair records origins from the start or decodes again', () => {
  // Gemini has no call ids: each tool call sent to Chat gets a synthesised id and a loss at its part.
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 18 } } }, { functionResponse: { name: 'get_weather', response: { temp: 21 } } }] },
    ],
  };
  const options = { from: 'gemini', to: 'openai-chat', model: 'gemini-2.5-pro' } as const;
  // Fresh codec functions start without the pair's history (a second decode), then have it (origins recorded while decoding).
  const gemini = codecFor('gemini');
  const chat = codecFor('openai-chat');
  const pair = {
    from: { decodeRequest: (wire: unknown, context: CodecContext) => gemini.decodeRequest(wire, context) },
    to: { encodeRequest: (ir: Request, context: CodecContext) => chat.encodeRequest(ir, context) },
    model: options.model,
  };
  const first = engineConvertRequest(body, pair).losses;
  const again = engineConvertRequest(body, pair).losses;
  const byId = convertRequest(body, options).losses;
  assert.ok(first.length >= 2, 'synthesised ids are reported');
  assert.equal(again, first);
  assert.equal(byId, first);
  assert.ok(first.some((loss) => loss.path === '/contents/1/parts/1' && loss.irPath !== undefined), JSON.stringify(first));
});

core('losses on anchored nodes point where a recording decode would', () => {
  // A Chat part's own field, a dialect's reasoning and a strict tool: every other target reports them, placed through anchors.
  const body = {
    model: 'm',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b', x_label: 'kept' }] },
      { role: 'assistant', content: 'c', reasoning_content: 'thinking' },
      { role: 'user', content: 'd' },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
  };
  const recorded = (to: 'gemini' | 'anthropic') => {
    // Decoding with origins recorded and translating every encode loss through them: the placement anchors must match.
    const decoder = new LossCollector({ recordOrigins: true });
    const ir = codecFor('openai-chat').decodeRequest(body, { losses: decoder, target: to });
    const encoder = new LossCollector();
    codecFor(to).encodeRequest(ir, { losses: encoder, model: 'm' });
    encoder.losses.forEach((loss, index) => (encoder.losses[index] = { ...loss, path: decoder.sourceOf(ir, loss.path) }));
    encoder.pointAtFields(body);
    return encoder.losses;
  };
  for (const to of ['gemini', 'anthropic'] as const) {
    const placed = convertRequest(body, { from: 'openai-chat', to, model: 'm' }).losses;
    const expected = recorded(to);
    assert.equal(
      placed.map(({ code, path, message }) => ({ code, path, message })),
      expected.map(({ code, path, message }) => ({ code, path, message })),
      to,
    );
    assert.ok(placed.some((loss) => loss.path === '/messages/0/content/1/x_label' && loss.irPath === '/messages/0/parts/1'), JSON.stringify(placed));
    assert.ok(placed.some((loss) => loss.code === 'reasoning_state_dropped' && loss.path === '/messages/1'), JSON.stringify(placed));
  }
});

core('foreign extensions are reported, shape hints and own extensions are not', () => {
  const losses = new LossCollector();
  losses.foreignExtensions(
    { anthropic: { cache_control: { type: 'ephemeral' }, $contentString: true }, gemini: { thoughtSignature: 'abc' }, 'openai-chat': { name: 'x' } },
    'openai-chat',
    '/messages/1',
  );
  assert.equal(
    losses.losses.map((loss) => [loss.code, loss.path]),
    [['dropped_field', '/messages/1'], ['reasoning_state_dropped', '/messages/1']],
  );
});

core('unknown and unimplemented formats give clear errors', () => {
  try {
    codecFor('cohere');
    assert.unreachable('should throw');
  } catch (error) {
    assert.is((error as InterlinguaError).code, 'unknown_format');
    assert.match((error as Error).message, 'anthropic, openai-chat, openai-responses, gemini');
  }
  try {
    convertRequest({}, { from: 'nope' as never, to: 'anthropic' });
    assert.unreachable('should throw');
  } catch (error) {
    assert.instance(error, InterlinguaError);
  }
});

core('JSON text that is not JSON is an invalid_json error at the root', () => {
  try {
    parseBody('{"model": ');
    assert.unreachable('should throw');
  } catch (error) {
    assert.is((error as InterlinguaError).code, 'invalid_json');
    assert.is((error as InterlinguaError).path, '');
  }
  assert.equal(parseBody('{"a":1}'), { a: 1 });
});

core('wire helpers name the pointer of the offending value', () => {
  assert.is(pointer('/tools', 0, 'a/b~c'), '/tools/0/a~1b~0c');
  try {
    expectObject([], '/messages/2');
    assert.unreachable('should throw');
  } catch (error) {
    assert.is((error as InterlinguaError).code, 'invalid_type');
    assert.is((error as InterlinguaError).path, '/messages/2');
    assert.match((error as Error).message, 'expected an object, got array');
  }
  try {
    required({}, 'role', '/messages/0');
    assert.unreachable('should throw');
  } catch (error) {
    assert.is((error as InterlinguaError).code, 'missing_field');
    assert.is((error as InterlinguaError).path, '/messages/0/role');
  }
  assert.equal(unknownKeys({ a: 1, b: 2, c: 3 }, new Set(['a'])), { b: 2, c: 3 });
  assert.is(unknownKeys({ a: 1 }, new Set(['a'])), undefined);
});

core('tool arguments keep invalid JSON as text and report it', () => {
  assert.equal(parseArguments('{"city":"Oslo"}'), { arguments: { city: 'Oslo' }, rawArguments: '{"city":"Oslo"}' });
  assert.equal(parseArguments(''), { arguments: {}, rawArguments: '' });
  assert.equal(parseArguments('{"city":'), { arguments: undefined, rawArguments: '{"city":' });
  assert.equal(parseArguments('[1]'), { arguments: undefined, rawArguments: '[1]' });
  const losses = new LossCollector();
  const object = argumentsAsObject({ type: 'tool_call', id: 'c', name: 'f', arguments: undefined, rawArguments: '{"city":' }, losses, '/messages/1/parts/0');
  assert.equal(object, { _raw_arguments: '{"city":' });
  assert.is(losses.losses[0]?.code, 'invalid_arguments');
});

core.run();
