/**
 * The Gemini chunk being built and how it is written: the wire parts of each
 * candidate, its finish reasons and usage, rebuilt from a decoded chunk's
 * shape (see `stream-chunk.ts`) or, for the usual chunk of one text piece,
 * from a template made once. Which events fill it is `stream-encode.ts`'s.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { SseMessage } from '../../core/stream-events.ts';
import { isObject, jsonString, type JsonObject } from '../../core/wire.ts';
import { respell } from './spelling.ts';
import type { CandidateShape, ChunkShape } from './stream-chunk.ts';

/** A text no stream holds, marking where the text goes in a chunk template. */
const TEXT_MARK = '\u0000interlingua-text\u0000';
const TEXT_MARK_JSON = JSON.stringify(TEXT_MARK);

/** One wire part in the chunk being built, with its snake_case spelling hint. */
export interface WirePart {
  wire: JsonObject;
  snake?: unknown;
}

/** The last wire part written for an IR part, and the chunk (by generation) it is in. */
export interface LastWire {
  wire: JsonObject;
  generation: number;
}

/** The chunk being built, and what every chunk of the stream repeats (model, response id). */
export class ChunkWriter {
  model: string | undefined;
  id: string | undefined;
  /** The template of {@link textChunk}, and what it was made from. */
  private textTemplate: { model: string | undefined; id: string | undefined; createTime: string | undefined; thought: unknown; parts: readonly [string, string] } | undefined;
  /** The chunk being built: wire parts, finish reasons and usage. */
  parts = new Map<number, WirePart[]>();
  finishes = new Map<number, string | number>();
  usage: JsonObject | undefined;
  /** Counts the chunks written: a part's last wire part is in the open chunk while its generation is this one. */
  generation = 0;

  constructor(model: string | undefined) {
    this.model = model;
  }

  /** Nothing in the chunk yet. */
  isEmpty(): boolean {
    return this.parts.size === 0 && this.finishes.size === 0 && this.usage === undefined;
  }

  /** Add a wire part to `candidate`'s in the chunk; `state` (its IR part's) remembers it as the part's last. */
  push(candidate: number, entry: WirePart, state: { last?: LastWire } | undefined): void {
    let list = this.parts.get(candidate);
    if (list === undefined) {
      list = [];
      this.parts.set(candidate, list);
    }
    list.push(entry);
    if (state !== undefined) state.last = { wire: entry.wire, generation: this.generation };
  }

  private takeParts(candidate: number): JsonObject[] {
    const list = this.parts.get(candidate) ?? [];
    return list.map((entry) => (entry.snake === undefined ? entry.wire : respell(entry.wire, entry.snake)));
  }

  private reset(): void {
    this.parts = new Map();
    this.finishes = new Map();
    this.usage = undefined;
    this.generation++;
  }

  /** The chunk a decoded Gemini chunk came from, rebuilt from its shape. */
  emit(shape: ChunkShape, gemini: JsonObject | undefined): SseMessage {
    // The usual chunk (one piece of text for candidate 0, the stream's model and id) from the template.
    if (plainShape(shape) && gemini?.['candidateFields'] === undefined && gemini?.['chunkFields'] === undefined) {
      const text = this.textChunk(undefined);
      if (text !== undefined) return text;
    }
    const chunk: JsonObject = {};
    const fields = gemini?.['candidateFields'];
    if (shape.candidates !== undefined) {
      chunk['candidates'] = shape.candidates.map((candidate, position) => {
        const extra = Array.isArray(fields) ? fields[position] : undefined;
        return this.candidateWire(candidate, isObject(extra) ? extra : undefined);
      });
    }
    if (this.usage !== undefined) chunk['usageMetadata'] = this.usage;
    if (shape.noModelVersion !== true) setDefined(chunk, 'modelVersion', shape.modelVersion ?? this.model);
    if (shape.noResponseId !== true) setDefined(chunk, 'responseId', shape.responseId ?? this.id);
    if (shape.createTime !== undefined) chunk['createTime'] = shape.createTime;
    const chunkFields = gemini?.['chunkFields'];
    if (isObject(chunkFields)) copyFields(chunk, chunkFields);
    this.reset();
    return { data: JSON.stringify(chunk) };
  }

  private candidateWire(shape: CandidateShape, extra: JsonObject | undefined): JsonObject {
    const wire: JsonObject = {};
    const parts = this.takeParts(shape.index);
    if (shape.noContent !== true || parts.length > 0) {
      const content: JsonObject = {};
      if (shape.role === undefined) content['role'] = 'model';
      else if (shape.role !== null) content['role'] = shape.role;
      if (shape.noParts !== true || parts.length > 0) content['parts'] = parts;
      if (shape.content !== undefined) Object.assign(content, shape.content);
      wire['content'] = content;
    }
    const finish = this.finishes.get(shape.index);
    if (finish !== undefined) wire['finishReason'] = finish;
    if (shape.noIndex !== true) wire['index'] = shape.index;
    if (extra !== undefined) Object.assign(wire, extra);
    return wire;
  }

  /**
   * The chunk of one text or thought piece of candidate 0 (`{text}` or `{text, thought}`), written as
   * `emit` would write it from a template made once per model, response id and piece shape; `undefined`
   * for any other chunk.
   */
  textChunk(createTime: string | undefined): SseMessage | undefined {
    if (this.finishes.size !== 0 || this.usage !== undefined || this.parts.size !== 1) return undefined;
    const list = this.parts.get(0);
    const entry = list?.length === 1 ? list[0] : undefined;
    if (entry === undefined || entry.snake !== undefined) return undefined;
    const wire = entry.wire;
    const text = wire['text'];
    const thought = wire['thought'];
    let keys = 0;
    for (const _key in wire) keys++;
    if (typeof text !== 'string' || keys !== (thought === undefined ? 1 : 2) || (thought !== undefined && typeof thought !== 'boolean')) return undefined;
    const t = this.textTemplate;
    let template: readonly [string, string];
    if (t !== undefined && t.model === this.model && t.id === this.id && t.createTime === createTime && t.thought === thought) template = t.parts;
    else {
      const piece: JsonObject = { text: TEXT_MARK };
      if (thought !== undefined) piece['thought'] = thought;
      const chunk: JsonObject = { candidates: [{ content: { role: 'model', parts: [piece] }, index: 0 }] };
      setDefined(chunk, 'modelVersion', this.model);
      setDefined(chunk, 'responseId', this.id);
      if (createTime !== undefined) chunk['createTime'] = createTime;
      const parts = JSON.stringify(chunk).split(TEXT_MARK_JSON);
      if (parts.length !== 2) return undefined;
      template = [parts[0]!, parts[1]!];
      this.textTemplate = { model: this.model, id: this.id, createTime, thought, parts: template };
    }
    this.reset();
    return { data: template[0] + jsonString(text) + template[1] };
  }
}

/** Event extension keys that belong to the chunk, not to the event's own wire part. */
const CHUNK_KEYS: ReadonlySet<string> = new Set(['chunkFields', 'candidateFields']);

/** Copy the non-`$` fields of `source` onto `target`, leaving out the chunk's own. */
export function copyFields(target: JsonObject, source: JsonObject | undefined): void {
  if (source === undefined) return;
  for (const key in source) {
    if (key.charCodeAt(0) === 36 /* $ */ || CHUNK_KEYS.has(key)) continue;
    target[key] = source[key];
  }
}

/** True for the shape `{ candidates: [{ index: 0 }] }`: nothing about the chunk differs from the stream's defaults. */
function plainShape(shape: ChunkShape): boolean {
  for (const key in shape) if (key !== 'candidates') return false;
  const candidates = shape.candidates;
  if (candidates?.length !== 1) return false;
  const only = candidates[0]!;
  for (const key in only) if (key !== 'index') return false;
  return only.index === 0;
}

function setDefined(target: JsonObject, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}
