/**
 * Never silent, in streams: a field of a recorded stream that a decoder
 * keeps on an event for a trip back (an extension of the source format,
 * not a `$` hint) is carried or reported by every other target's stream
 * encoder. Before this test, the Responses, Ollama and Converse encoders
 * dropped the fields of `start`, `usage`, `finish` and `end` events (a
 * Chat `system_fingerprint`, a Responses `service_tier`, a Gemini
 * candidate's `groundingMetadata`) and of deltas (a Gemini text's
 * `thoughtSignature`) without a word.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codecFor } from '../src/core/registry.ts';
import { LossCollector } from '../src/core/losses.ts';
import type { FormatId } from '../src/core/ir.ts';
import type { StreamEvent } from '../src/core/stream-events.ts';
import { encodeEvents, streamFixtures, wireEvents } from './support/streams.ts';

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
