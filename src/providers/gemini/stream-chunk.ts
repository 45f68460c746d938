/**
 * What the Gemini stream decoder and encoder agree on besides the IR events:
 * the shape hints that let a Gemini → IR → Gemini trip rebuild every chunk
 * exactly, and the Vertex `partialArgs` arithmetic.
 *
 * A Gemini stream chunk is a whole `GenerateContentResponse` holding only the
 * new parts. The decoder turns one chunk into a group of IR events; every
 * event of the group but the last carries the hint `$more`, and the last
 * carries `$chunk` ({@link ChunkShape}): what the chunk looked like beyond
 * its neutral content. Events without these hints come from another format's
 * decoder; the encoder then chooses the chunking itself.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { Extensible, ToolCallPart } from '../../core/ir.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';

/** How one candidate of a chunk was spelled. */
export interface CandidateShape {
  index: number;
  /** The wire had no `index` (candidate 0 of most Gemini API chunks). */
  noIndex?: true;
  /** `content.role` when it was not `model`; `null` when absent. */
  role?: string | null;
  noContent?: true;
  noParts?: true;
  /** Unknown keys of `content`. */
  content?: JsonObject;
}

/** How one chunk was spelled, beyond its parts, finish reasons and usage. */
export interface ChunkShape {
  /** Absent when the chunk had no `candidates` array. */
  candidates?: CandidateShape[];
  noResponseId?: true;
  /** The chunk's `responseId` when it differs from the stream's. */
  responseId?: string;
  noModelVersion?: true;
  /** The chunk's `modelVersion` when it differs from the stream's. */
  modelVersion?: string;
  /** Vertex AI `createTime`, verbatim. */
  createTime?: string;
}

/** The Gemini extensions of an event (or `undefined`). */
export function geminiOf(node: Extensible): JsonObject | undefined {
  return node.extensions?.gemini;
}

/** The chunk shape an event closes, if it is the last event of a decoded chunk. */
export function chunkShapeOf(node: Extensible): ChunkShape | undefined {
  const shape = geminiOf(node)?.['$chunk'];
  return isObject(shape) ? (shape as ChunkShape) : undefined;
}

/** One step of a JSON path: an object key or an array index. */
type PathStep = string | number;

/** Parse a Vertex `jsonPath` (`$.recipe.ingredients[0].name`); `undefined` when it is not one. */
function parseJsonPath(path: string): PathStep[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const steps: PathStep[] = [];
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/gy;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (match === null) return undefined;
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else steps.push(match[3] ?? '');
  }
  return steps;
}

function scalarOf(item: JsonObject): { value: unknown } | undefined {
  if (typeof item['stringValue'] === 'string') return { value: item['stringValue'] };
  if (typeof item['numberValue'] === 'number') return { value: item['numberValue'] };
  if (typeof item['boolValue'] === 'boolean') return { value: item['boolValue'] };
  if ('nullValue' in item) return { value: null };
  return undefined;
}

/**
 * Folds Vertex AI streamed function-call arguments (`functionCall.partialArgs`)
 * into an arguments object. A string value whose previous piece said
 * `willContinue` is appended to; other values are set.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#streaming
 */
export class PartialArguments {
  readonly value: Record<string, unknown> = {};
  private readonly continuing = new Set<string>();

  /** Apply one `partialArgs` list (malformed entries are skipped: the wire part travels verbatim anyway). */
  apply(list: unknown): void {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (!isObject(item) || typeof item['jsonPath'] !== 'string') continue;
      const steps = parseJsonPath(item['jsonPath']);
      const scalar = scalarOf(item);
      if (steps === undefined || steps.length === 0 || scalar === undefined) continue;
      const append = this.continuing.has(item['jsonPath']) && typeof scalar.value === 'string';
      this.set(steps, scalar.value, append);
      if (item['willContinue'] === true) this.continuing.add(item['jsonPath']);
      else this.continuing.delete(item['jsonPath']);
    }
  }

  private set(steps: PathStep[], value: unknown, append: boolean): void {
    let container: Record<string | number, unknown> = this.value;
    for (let position = 0; position < steps.length - 1; position++) {
      const step = steps[position] as PathStep;
      let next = container[step];
      if (typeof next !== 'object' || next === null) {
        next = typeof steps[position + 1] === 'number' ? [] : {};
        container[step] = next;
      }
      container = next as Record<string | number, unknown>;
    }
    const last = steps[steps.length - 1] as PathStep;
    const existing = container[last];
    container[last] = append && typeof existing === 'string' ? existing + (value as string) : value;
  }
}

/**
 * A whole call that carries its arguments as `partialArgs` and no `args`
 * (Vertex AI with `streamFunctionCallArguments`, all pieces in one part): the
 * folded arguments become the neutral ones, the list travels as the hint
 * `$partialArgs`.
 */
export function foldPartialArguments(part: ToolCallPart): ToolCallPart {
  const gemini = part.extensions?.gemini;
  const call = gemini?.['functionCall'];
  if (gemini === undefined || gemini['$noArgs'] !== true || !isObject(call) || call['partialArgs'] === undefined) return part;
  const { partialArgs, ...callRest } = call;
  const { $noArgs: _noArgs, functionCall: _call, ...rest } = gemini;
  if (Object.keys(callRest).length > 0) rest['functionCall'] = callRest;
  rest['$partialArgs'] = partialArgs;
  const folded = new PartialArguments();
  folded.apply(partialArgs);
  return { ...part, arguments: folded.value, extensions: { ...part.extensions, gemini: rest } };
}

/** The inverse of {@link foldPartialArguments}, for the Gemini encoder. */
export function unfoldPartialArguments(part: ToolCallPart): ToolCallPart {
  const gemini = part.extensions?.gemini;
  if (gemini === undefined || gemini['$partialArgs'] === undefined) return part;
  const { $partialArgs: partialArgs, ...rest } = gemini;
  const call = rest['functionCall'];
  rest['functionCall'] = { ...(isObject(call) ? call : {}), partialArgs };
  rest['$noArgs'] = true;
  return { ...part, arguments: {}, extensions: { ...part.extensions, gemini: rest } };
}
