/**
 * Gemini `streamGenerateContent?alt=sse` chunks → IR stream events.
 *
 * Each chunk is a whole `GenerateContentResponse` with only the new parts:
 * this file reads the chunk around them (its envelope, candidates, usage,
 * prompt feedback and the shape hints a trip back to Gemini rebuilds it
 * from, and the usual text chunk read without parsing); each candidate's
 * parts become events in `stream-candidate-decode.ts` (text and thought
 * pieces extend the open part of their kind, so signed text is never merged
 * with what follows; Vertex AI's streamed `functionCall` arguments). The
 * stream has no terminator: it is complete when every candidate has a
 * `finishReason`; otherwise `flush` reports it truncated.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { CodecContext } from '../../core/codec.ts';
import { DataTemplates, hasExactKeys, type Slot } from '../../core/data-template.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { expectArray, expectNumber, expectObject, expectString, hint, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeGeminiError } from './error.ts';
import { decodeGeminiBlockReason, decodeGeminiFinishReason } from './stop-reason.ts';
import { decodeGeminiUsage } from './usage.ts';
import type { PartScope } from './parts.ts';
import { idScope, PendingCalls } from './ids.ts';
import { dropCarriedGrounding } from './grounding.ts';
import type { CandidateShape, ChunkShape } from './stream-chunk.ts';
import { CandidateState } from './stream-candidate-decode.ts';

const KNOWN_CHUNK: ReadonlySet<string> = new Set(['candidates', 'usageMetadata', 'modelVersion', 'responseId', 'createTime']);
const KNOWN_CANDIDATE: ReadonlySet<string> = new Set(['content', 'finishReason', 'index']);
const KNOWN_CONTENT: ReadonlySet<string> = new Set(['role', 'parts']);

/** A fresh Gemini stream decoder. */
export function createGeminiStreamDecoder(context: CodecContext): StreamDecoder {
  return new GeminiStreamDecoder(context);
}

class GeminiStreamDecoder implements StreamDecoder {
  private started = false;
  private done = false;
  private responseId: string | undefined;
  private model: string | undefined;
  private promptBlocked = false;
  private readonly candidates = new Map<number, CandidateState>();
  private readonly pending = new PendingCalls();
  /** Same-format shape hints (`$chunk`, `$more`) are kept only when the IR may go back to Gemini. */
  private readonly hints: boolean;
  /** The id scope of each candidate (`idScope` of the response id), made once. */
  private readonly scopes = new Map<number, string>();
  private readonly partScopes = new Map<number, PartScope>();
  /** The candidate being read had grounding that its citations carry whole. */
  private grounded = false;

  /** The text of the stream's usual chunk around its one text piece (see `data-template.ts`), and its usage counts for another target. */
  private readonly templates = new DataTemplates<UsualUsage | null>();

  constructor(private readonly context: CodecContext) {
    this.hints = context.target === undefined || context.target === 'gemini';
  }

  /** A chunk that is the usual chunk with another text piece: the events `decode` makes of it, without parsing it. */
  decodeText(data: string, event: string | undefined): StreamEvent[] | undefined {
    if (this.done) return undefined;
    const read = this.templates.read(data, event);
    if (read === undefined) return undefined;
    const events: StreamEvent[] = [];
    this.state(0).textPiece({ type: 'text', text: read[0] as string }, events);
    const usual = this.templates.shape;
    if (usual !== null) {
      // The learned object with this chunk's counts, in its own key order: what parsing the chunk gives.
      const usage: JsonObject = { ...usual.usage };
      for (let index = 0; index < usual.counts.length; index++) {
        const count = read[index + 1];
        if (count !== undefined) usage[usual.counts[index] as string] = Number(count);
      }
      events.push({ type: 'usage', usage: decodeGeminiUsage(usage, '/usageMetadata') });
    }
    if (this.hints) markChunk(events, { candidates: [{ index: 0 }] }, [null], undefined);
    return events;
  }

  /**
   * The usual chunk: one text piece of candidate 0, the stream's model and
   * response id (see {@link usualChunk}). When the IR goes to another
   * format, the chunk may also carry `createTime` and `usageMetadata`, as
   * real Gemini streams send with every chunk: the counts that grow as the
   * answer does are read from the text, the rest of the usage is as learned.
   */
  learn(data: string, wire: WireEvent): void {
    if (!this.started || this.done || !this.templates.learning) return;
    const model = this.model;
    const responseId = this.responseId;
    const lenient = !this.hints;
    const text = usualChunk(wire.data, model, responseId, lenient);
    if (text === undefined) return;
    const usage = lenient ? (wire.data as JsonObject)['usageMetadata'] : undefined;
    if (usage === undefined) {
      this.templates.learn(data, wire.event, [{ kind: 'read', value: text }], (value, [probe]) =>
        usualChunk(value, model, responseId, lenient) === probe && (value as JsonObject)['usageMetadata'] === undefined ? null : undefined,
      );
      return;
    }
    if (!isObject(usage)) return;
    const counts = GROWING_COUNTS.filter((key) => typeof usage[key] === 'number');
    const slots: Slot[] = [{ kind: 'read', value: text }];
    // A count written twice (the total while nothing is generated equals the prompt's count) stays literal.
    for (const key of counts) slots.push({ kind: 'read-number', value: usage[key] as number, optional: true });
    this.templates.learn(data, wire.event, slots, (value, probes) => {
      if (usualChunk(value, model, responseId, true) !== probes[0]) return undefined;
      const probed = (value as JsonObject)['usageMetadata'];
      if (!isObject(probed)) return undefined;
      for (let index = 0; index < counts.length; index++) {
        const key = counts[index] as string;
        if (probed[key] !== (probes[index + 1] ?? usage[key])) return undefined;
      }
      return { usage, counts };
    });
  }

  decode(event: WireEvent): StreamEvent[] {
    if (this.done) return [];
    if (event.invalid !== undefined) {
      throw new InterlinguaError('invalid_json', `a Gemini stream chunk is not JSON (${event.invalid})`, { format: 'gemini' });
    }
    const chunk = expectObject(event.data, '', 'gemini');
    if (chunk['error'] !== undefined && chunk['candidates'] === undefined) {
      this.done = true;
      return [{ type: 'error', error: decodeGeminiError(chunk, this.context) }];
    }
    const events: StreamEvent[] = [];
    const shape: ChunkShape = {};
    this.readEnvelope(chunk, shape, events);
    const fields: (JsonObject | null)[] = [];
    const candidates = chunk['candidates'];
    if (candidates !== undefined) {
      const list = expectArray(candidates, '/candidates', 'gemini');
      shape.candidates = [];
      for (let position = 0; position < list.length; position++) {
        const path = `/candidates/${position}`;
        const wire = expectObject(list[position], path, 'gemini');
        this.grounded = false;
        shape.candidates.push(this.readCandidate(wire, path, position, events));
        const extra = unknownKeys(wire, KNOWN_CANDIDATE);
        // Headed elsewhere, grounding the citations carry is not the target's to report (as for a whole answer).
        if (this.grounded && !this.hints && extra !== undefined) dropCarriedGrounding(extra);
        fields.push(extra === undefined || Object.keys(extra).length === 0 ? null : extra);
      }
    }
    const usage = chunk['usageMetadata'];
    if (usage !== undefined) events.push({ type: 'usage', usage: decodeGeminiUsage(usage, '/usageMetadata') });
    this.readPromptBlock(chunk, events);
    // A chunk with nothing neutral in it still needs an event to carry its shape.
    if (events.length === 0) events.push({ type: 'usage', usage: {}, extensions: { gemini: { $carrier: true } } });
    const rest = unknownKeys(chunk, KNOWN_CHUNK);
    if (this.hints) markChunk(events, shape, fields, rest);
    else markFields(events, fields, rest);
    return events;
  }

  flush(): StreamEvent[] {
    if (this.done) return [];
    this.done = true;
    const states = [...this.candidates.values()];
    const complete = this.promptBlocked || (states.length > 0 && states.every((state) => state.finished));
    if (!complete) {
      return [
        {
          type: 'error',
          error: { type: 'server', message: 'the Gemini stream ended before every candidate had a finishReason (truncated stream)' },
          extensions: { gemini: { $truncated: true } },
        },
      ];
    }
    const events: StreamEvent[] = [];
    for (const state of this.candidates.values()) state.closeOpen(events);
    events.push({ type: 'end' });
    return events;
  }

  private readEnvelope(chunk: JsonObject, shape: ChunkShape, events: StreamEvent[]): void {
    const responseId = chunk['responseId'] === undefined ? undefined : expectString(chunk['responseId'], '/responseId', 'gemini');
    const model = chunk['modelVersion'] === undefined ? undefined : expectString(chunk['modelVersion'], '/modelVersion', 'gemini');
    const createTime = chunk['createTime'] === undefined ? undefined : expectString(chunk['createTime'], '/createTime', 'gemini');
    if (!this.started) {
      this.started = true;
      this.responseId = responseId;
      this.model = model ?? this.context.model;
      const start: StreamEvent = { type: 'start' };
      if (responseId !== undefined) start.id = responseId;
      if (this.model !== undefined) start.model = this.model;
      if (createTime !== undefined && Number.isFinite(Date.parse(createTime))) start.created = Math.floor(Date.parse(createTime) / 1000);
      if (chunk['usageMetadata'] !== undefined) start.usage = decodeGeminiUsage(chunk['usageMetadata'], '/usageMetadata');
      events.push(start);
    }
    if (responseId === undefined) shape.noResponseId = true;
    else if (responseId !== this.responseId) shape.responseId = responseId;
    if (model === undefined) shape.noModelVersion = true;
    else if (model !== this.model) shape.modelVersion = model;
    if (createTime !== undefined) shape.createTime = createTime;
  }

  private readPromptBlock(chunk: JsonObject, events: StreamEvent[]): void {
    const feedback = chunk['promptFeedback'];
    if (this.candidates.size > 0 || this.promptBlocked || !isObject(feedback)) return;
    const stopReason = decodeGeminiBlockReason(feedback['blockReason'], '/promptFeedback/blockReason');
    if (stopReason === undefined) return;
    this.promptBlocked = true;
    events.push({ type: 'finish', candidate: 0, stopReason, extensions: { gemini: { $promptBlocked: true } } });
  }

  private state(candidate: number): CandidateState {
    let state = this.candidates.get(candidate);
    if (state === undefined) {
      state = new CandidateState(candidate);
      this.candidates.set(candidate, state);
    }
    return state;
  }

  /** The part scope of a candidate, made once (its fields do not change during the stream). */
  private scope(candidate: number): PartScope {
    let scope = this.partScopes.get(candidate);
    if (scope === undefined) {
      scope = { losses: this.context.losses, role: 'model', idScope: this.idScope(candidate), pending: this.pending };
      this.partScopes.set(candidate, scope);
    }
    return scope;
  }

  private idScope(candidate: number): string {
    let scope = this.scopes.get(candidate);
    if (scope === undefined) {
      scope = idScope(this.responseId, candidate);
      this.scopes.set(candidate, scope);
    }
    return scope;
  }

  private readCandidate(wire: JsonObject, path: string, position: number, events: StreamEvent[]): CandidateShape {
    const indexValue = wire['index'];
    const candidate = indexValue === undefined ? position : expectNumber(indexValue, pointer(path, 'index'), 'gemini');
    const shape: CandidateShape = { index: candidate };
    if (indexValue === undefined) shape.noIndex = true;
    const state = this.state(candidate);
    const content = wire['content'];
    if (content === undefined) shape.noContent = true;
    else {
      const contentPath = `${path}/content`;
      const object = expectObject(content, contentPath, 'gemini');
      if (object['role'] !== 'model') shape.role = object['role'] === undefined ? null : expectString(object['role'], pointer(contentPath, 'role'), 'gemini');
      const parts = object['parts'];
      if (parts === undefined) shape.noParts = true;
      else {
        const list = Array.isArray(parts) ? parts : expectArray(parts, pointer(contentPath, 'parts'), 'gemini');
        const scope = this.scope(candidate);
        for (let index = 0; index < list.length; index++) {
          state.readPart(list[index], `${contentPath}/parts/${index}`, scope, events);
        }
      }
      const rest = unknownKeys(object, KNOWN_CONTENT);
      if (rest !== undefined) shape.content = rest;
    }
    const grounding = wire['groundingMetadata'];
    if (grounding !== undefined) this.grounded = state.ground(grounding, `${path}/groundingMetadata`, this.context.losses);
    const finish = wire['finishReason'];
    if (finish !== undefined) {
      const stopReason = decodeGeminiFinishReason(finish, pointer(path, 'finishReason'), state.hasToolCalls);
      state.closeOpen(events);
      state.finished = true;
      events.push({ type: 'finish', candidate, stopReason });
    }
    return shape;
  }
}

/**
 * For another target: a chunk's fields of its own and of its candidates
 * (`groundingMetadata`, `safetyRatings`, …) on its last event under their
 * own names, so the target reports each by name; an empty object (the
 * `groundingMetadata: {}` of every chunk but the last) carries nothing.
 */
function markFields(events: StreamEvent[], fields: (JsonObject | null)[], rest: JsonObject | undefined): void {
  const last = events[events.length - 1] as StreamEvent;
  for (const source of fields) if (source !== null) markFieldsOf(last, source);
  if (rest !== undefined) markFieldsOf(last, rest);
}

function markFieldsOf(event: StreamEvent, source: JsonObject): void {
  for (const key in source) {
    const value = source[key];
    if (isObject(value) && Object.keys(value).length === 0) continue;
    ((event.extensions ??= {}).gemini ??= {})[key] = value;
  }
}

/** Mark a chunk's events: `$more` on all but the last, the chunk's shape and unknown fields on the last. */
function markChunk(events: StreamEvent[], shape: ChunkShape, fields: (JsonObject | null)[], rest: JsonObject | undefined): void {
  for (let index = 0; index < events.length - 1; index++) hint(events[index] as StreamEvent, 'gemini', '$more', true);
  const last = events[events.length - 1] as StreamEvent;
  hint(last, 'gemini', '$chunk', shape);
  const gemini = last.extensions?.gemini as JsonObject;
  // Kept apart from the event's own fields (a delta's `thoughtSignature` is not the chunk's).
  if (fields.some((field) => field !== null)) gemini['candidateFields'] = fields;
  if (rest !== undefined) gemini['chunkFields'] = rest;
}

/** A usual chunk's `usageMetadata` as learned, and which of its counts (in read order) each chunk's text gives. */
interface UsualUsage {
  usage: JsonObject;
  counts: readonly string[];
}

/** The usage counts that change from chunk to chunk while text streams. */
const GROWING_COUNTS: readonly string[] = ['candidatesTokenCount', 'totalTokenCount'];

/**
 * The text of a usual chunk: `{candidates: [{content: {role: "model", parts:
 * [{text}]}, index: 0}], modelVersion, responseId}` with exactly these keys,
 * the stream's model and response id (what `decode` reads as one text piece
 * of candidate 0 with nothing else to say); else `undefined`. `lenient`
 * (the IR goes to another format, so no shape hints) also allows an object
 * `usageMetadata`, a string `createTime` and a candidate without `index`.
 */
function usualChunk(value: unknown, model: string | undefined, responseId: string | undefined, lenient: boolean): string | undefined {
  if (model === undefined || responseId === undefined) return undefined;
  const chunk = (lenient ? chunkKeys(value) : hasExactKeys(value, 'candidates', 'modelVersion', 'responseId')) ? (value as JsonObject) : undefined;
  if (chunk === undefined || chunk['modelVersion'] !== model || chunk['responseId'] !== responseId) return undefined;
  const candidates = chunk['candidates'];
  if (!Array.isArray(candidates) || candidates.length !== 1) return undefined;
  const candidate: unknown = candidates[0];
  // `decode` takes a candidate without `index` as the one at its position.
  const withoutIndex = lenient && hasExactKeys(candidate, 'content');
  if (!withoutIndex && (!hasExactKeys(candidate, 'content', 'index') || !Object.is(candidate['index'], 0))) return undefined;
  const content = candidate['content'];
  if (!hasExactKeys(content, 'role', 'parts') || content['role'] !== 'model') return undefined;
  const parts = content['parts'];
  if (!Array.isArray(parts) || parts.length !== 1) return undefined;
  const part: unknown = parts[0];
  if (!hasExactKeys(part, 'text')) return undefined;
  const text = part['text'];
  return typeof text === 'string' ? text : undefined;
}

/** `value` is a chunk of `candidates`, `modelVersion`, `responseId` and perhaps an object `usageMetadata` and a string `createTime`, nothing else. */
function chunkKeys(value: unknown): value is JsonObject {
  if (!isObject(value)) return false;
  let count = 0;
  for (const key in value) {
    switch (key) {
      case 'candidates':
      case 'modelVersion':
      case 'responseId':
        count++;
        continue;
      case 'usageMetadata':
        if (!isObject(value[key])) return false;
        continue;
      case 'createTime':
        if (typeof value[key] !== 'string') return false;
        continue;
      default:
        return false;
    }
  }
  return count === 3;
}
