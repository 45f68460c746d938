/**
 * Never silent: a field of a recorded body or stream that a decoder keeps
 * for a trip back (an extension of the source format, not a `$` hint) is
 * carried or reported by every other target: a loss names the field, or
 * the node that holds it was dropped with a loss of its own. Before these
 * tests, the Responses, Ollama and Converse stream encoders dropped the
 * fields of `start`, `usage`, `finish` and `end` events (a Chat
 * `system_fingerprint`, a Responses `service_tier`, a Gemini candidate's
 * `groundingMetadata`) and of deltas (a Gemini text's `thoughtSignature`),
 * and the whole encoders a Gemini text's `thoughtSignature` in a Chat
 * answer's string content, a Chat choice's `logprobs` and other
 * candidate fields for Converse, and a citation's fields for Converse.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codecFor } from '../../src/formats/registry.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { StreamEvent } from '../../src/core/stream-events.ts';
import { encodeEvents, streamFixtures, wireEvents } from '../support/streams.ts';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';

const TARGETS: readonly FormatId[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock-converse'];

/** The source's events as `convertStream` decodes them for `target`, up to an error (what follows an error is not sent). */
function decodedFor(format: FormatId, target: FormatId, wire: Awaited<ReturnType<typeof wireEvents>>): StreamEvent[] | undefined {
  const decoder = codecFor(format).createStreamDecoder!({ losses: new LossCollector(), model: 'test-model', target });
  const events: StreamEvent[] = [];
  try {
    for (const event of wire) events.push(...decoder.decode(event));
    events.push(...decoder.flush());
  } catch {
    return undefined;
  }
  const error = events.findIndex((event) => event.type === 'error');
  return error === -1 ? events : events.slice(0, error + 1);
}

const silence = suite('streams: foreign fields carried or reported');

silence('every recorded stream, to every other format: each field kept on an event is named by a loss', async () => {
  const unreported: string[] = [];
  let checked = 0;
  for (const fixture of streamFixtures()) {
    const wire = await wireEvents(fixture);
    for (const target of TARGETS) {
      if (target === fixture.format) continue;
      const events = decodedFor(fixture.format, target, wire);
      if (events === undefined) continue;
      const fields = new Set<string>();
      for (const event of events) {
        const own = event.extensions?.[fixture.format];
        if (own !== undefined) for (const key in own) if (key.charCodeAt(0) !== 36) fields.add(key);
      }
      if (fields.size === 0) continue;
      checked++;
      const reported = JSON.stringify(encodeEvents(target, events, 'test-model').losses.losses);
      for (const field of fields) if (!reported.includes(`\\"${field}\\"`)) unreported.push(`${fixture.name} → ${target}: ${field}`);
    }
  }
  assert.ok(checked >= 100, `conversions with kept fields: ${checked}`);
  assert.equal(unreported.slice(0, 20), [], `${unreported.length} fields dropped in silence`);
});

silence.run();

const whole = suite('whole bodies: foreign fields carried or reported');

/** IR pointers of the nodes holding a non-`$` extension of `format`, with its keys. */
function keptFields(node: unknown, format: FormatId, path: string, out: [string, string][]): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => keptFields(item, format, `${path}/${index}`, out));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const own = (node as { extensions?: Record<string, Record<string, unknown>> }).extensions?.[format];
  if (own !== undefined) for (const key in own) if (key.charCodeAt(0) !== 36) out.push([path, key]);
  for (const [key, value] of Object.entries(node)) if (key !== 'extensions') keptFields(value, format, `${path}/${key}`, out);
}

whole('every recorded request and answer, to every other format: each kept field is named by a loss, or its node dropped with one', () => {
  const unreported: string[] = [];
  let checked = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind === 'error') continue;
    const body = fixtureBody(fixture).body;
    for (const target of TARGETS) {
      if (target === fixture.format) continue;
      const codec = codecFor(fixture.format);
      let ir: object;
      let losses: { path: string; irPath?: string; message: string }[];
      try {
        // Decoded as the conversion decodes it, for this target (which may carry a field another way, as Gemini grounding becomes citations).
        const context = { losses: new LossCollector(), model: 'test-model', target };
        ir = fixture.kind === 'request' ? codec.decodeRequest(JSON.parse(JSON.stringify(body)), context) : codec.decodeResponse(JSON.parse(JSON.stringify(body)), context);
        losses = (fixture.kind === 'request' ? convertRequest : convertResponse)(body, { from: fixture.format, to: target, model: 'test-model' }).losses;
      } catch {
        continue;
      }
      const fields: [string, string][] = [];
      keptFields(ir, fixture.format, '', fields);
      const text = JSON.stringify(losses);
      for (const [path, key] of fields) {
        checked++;
        if (text.includes(`\\"${key}\\"`)) continue;
        // The node that held it was dropped (or the part or message around it), with a loss at that node.
        if (losses.some((loss) => loss.irPath !== undefined && loss.irPath !== '' && (path === loss.irPath || path.startsWith(`${loss.irPath}/`)))) continue;
        unreported.push(`${fixture.name} → ${target}: ${key} at ${path}`);
      }
    }
  }
  assert.ok(checked >= 3000, `kept fields checked: ${checked}`);
  assert.equal(unreported.slice(0, 20), [], `${unreported.length} fields dropped in silence`);
});

whole.run();
