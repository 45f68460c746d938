/**
 * Fake vendors for the gateway tests: each speaks one format on 127.0.0.1
 * (the fault upstream of fault-upstream.ts) and, when healthy, replays an
 * answer recorded in test/corpus, whole or as its recorded stream; a script
 * of faults (one per request, in order) comes first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FormatId } from '../../src/core/ir.ts';
import { framingFor } from '../../src/formats/stream.ts';
import { CORPUS_DIR } from './fixtures.ts';
import { startFaultUpstream, type Fault, type FaultUpstream, type UpstreamAnswer } from './fault-upstream.ts';

/** The recordings each vendor replays: a whole answer and a stream of the same kind (plain text). */
export const RECORDED: Partial<Record<FormatId, { whole: string; stream: string }>> = {
  anthropic: { whole: 'anthropic/response/vercel-ai--anthropic-text.json', stream: 'anthropic/stream/anthropic-sdk-typescript--basic_response.sse' },
  'openai-chat': { whole: 'openai-chat/response/envoy-ai-gateway--chat-basic.json', stream: 'openai-chat/stream/envoy-ai-gateway--chat-streaming.sse' },
  // One GenerateContentResponse chunk per line, as @google/genai's recording keeps them: each is a `data:` event of the SSE stream.
  gemini: { whole: 'gemini/response/js-genai--Chats_Tests_sendMessage_Google_AI_multiple_messages.0.json', stream: 'gemini/stream/js-genai--Chats_Tests_sendMessage_Google_AI_with_text_stream.jsonl' },
};

/** The recorded answer of `format`, whole and streamed, with its events' byte lengths. */
export function recordedAnswer(format: FormatId): UpstreamAnswer {
  const recorded = RECORDED[format];
  if (recorded === undefined) throw new Error(`no recording for ${format}`);
  const json = JSON.parse(readFileSync(join(CORPUS_DIR, recorded.whole), 'utf8')) as unknown;
  const raw = readFileSync(join(CORPUS_DIR, recorded.stream), 'utf8');
  const events = recorded.stream.endsWith('.jsonl')
    ? raw.split('\n').filter((line) => line.trim() !== '').map((line) => `data: ${JSON.stringify(JSON.parse(line))}\n\n`)
    : raw.split(/(?<=\n\n)/).filter((event) => event.trim() !== '');
  const bytes = events.map((event) => Buffer.from(event, 'utf8'));
  return { json, sse: Buffer.concat(bytes), eventLengths: bytes.map((event) => event.byteLength), contentType: framingFor(format).contentType };
}

/** A fake vendor whose next requests get `script` (one fault each, then healthy answers). */
export interface ScriptedVendor {
  format: FormatId;
  upstream: FaultUpstream;
  answer: UpstreamAnswer;
  script: Fault[];
}

export async function startScriptedVendor(format: FormatId): Promise<ScriptedVendor> {
  const answer = recordedAnswer(format);
  const vendor = { format, answer, script: [] as Fault[] } as ScriptedVendor;
  vendor.upstream = await startFaultUpstream(format, answer, () => vendor.script.shift() ?? { kind: 'ok' }, { keepAlive: true });
  return vendor;
}
