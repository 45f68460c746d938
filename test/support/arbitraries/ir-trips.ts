/**
 * The normalised view of the IR under which a same-format trip must be the
 * identity, the trip itself, and one sample of an arbitrary.
 */
import fc from 'fast-check';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../../src/formats/convert.ts';
import type { FormatId, Message, Request as IrRequest, Response as IrResponse, StopReason } from '../../../src/core/ir.ts';
import { isTypedError, describeError } from './outcomes.ts';
import { jsonText } from './mutations.ts';
import { CAPABILITIES } from './ir-capabilities.ts';

export function normaliseIr(value: unknown, format?: FormatId): unknown {
  const normalised = normaliseNode(value);
  if (typeof normalised !== 'object' || normalised === null) return normalised;
  const record = normalised as Record<string, unknown>;
  if (Array.isArray(record['messages'])) record['messages'] = mergeToolMessages(record['messages'] as Message[]);
  if (format !== undefined && !CAPABILITIES[format].callIds) renameCallIds(record);
  // Chat asks a stream's usage for a request that does not say (every other format's stream reports it unasked).
  if (format === 'openai-chat' && record['stream'] === true && record['streamUsage'] === true) delete record['streamUsage'];
  return record;
}

/** Consecutive `tool` messages as one (Chat sends one tool message per result). */
function mergeToolMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (message.role === 'tool' && last?.role === 'tool') last.parts = [...last.parts, ...message.parts];
    else out.push({ ...message });
  }
  return out;
}

/** Tool-call ids renamed `#1`, `#2`, … in order of appearance, results following their calls (for formats whose ids are made up on decode). */
function renameCallIds(root: Record<string, unknown>): void {
  const names = new Map<string, string>();
  const stack: unknown[] = [root];
  const visit: Record<string, unknown>[] = [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (let index = node.length - 1; index >= 0; index--) stack.push(node[index]);
    else if (typeof node === 'object' && node !== null) {
      visit.push(node as Record<string, unknown>);
      const values = Object.values(node);
      for (let index = values.length - 1; index >= 0; index--) stack.push(values[index]);
    }
  }
  for (const node of visit) {
    const key = node['type'] === 'tool_call' ? 'id' : node['type'] === 'tool_result' ? 'callId' : undefined;
    if (key === undefined || typeof node[key] !== 'string') continue;
    const id = node[key] as string;
    if (!names.has(id)) names.set(id, `#${names.size + 1}`);
    node[key] = names.get(id);
  }
}

const USAGE_BREAKDOWNS: ReadonlySet<string> = new Set(['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens']);

function normaliseNode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseNode);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined || key === 'extensions' || key === 'rawArguments' || key === 'syntheticId') continue;
    if (key === 'raw' && typeof item === 'object' && item !== null && 'format' in item) continue;
    if (key === 'stopReason' && typeof item === 'object' && item !== null) {
      out[key] = { unified: (item as StopReason).unified };
      continue;
    }
    if (key === 'name' && record['type'] === 'tool_result') continue;
    if (USAGE_BREAKDOWNS.has(key) && item === 0) continue;
    out[key] = normaliseNode(item);
  }
  return out;
}

/** Outcome of one same-format IR trip. */
export interface TripResult {
  ok: boolean;
  /** The trip ended in an `InterlinguaError` (a typed error: reported, not a crash). */
  typed: boolean;
  problem: string;
  detail: string;
}

function firstDifference(left: unknown, right: unknown, path = ''): string | undefined {
  if (Object.is(left, right) || (left === 0 && right === 0)) return undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null || Array.isArray(left) !== Array.isArray(right)) {
    return `${path || '/'}: ${jsonText(left).slice(0, 80)} ≠ ${jsonText(right).slice(0, 80)}`;
  }
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    const difference = firstDifference((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key], `${path}/${key}`);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

/**
 * encode → decode → encode through one format. Holds when: no step throws
 * anything but an `InterlinguaError`; neither encode nor decode reports a
 * loss; the decoded IR equals the source under {@link normaliseIr}; and the
 * second encode gives the same wire body as the first.
 */
export function irRoundTrip(format: FormatId, kind: 'request' | 'response', ir: IrRequest | IrResponse): TripResult {
  const encode = kind === 'request' ? (value: unknown) => encodeRequest(format, value as IrRequest) : (value: unknown) => encodeResponse(format, value as IrResponse);
  const decode = kind === 'request' ? (body: unknown) => decodeRequest(format, body, { model: 'model-a' }) : (body: unknown) => decodeResponse(format, body, { model: 'model-a' });
  const fail = (problem: string, detail: string): TripResult => ({ ok: false, typed: false, problem, detail });
  try {
    const first = encode(ir);
    const allowed = CAPABILITIES[format].infoLosses;
    const unexpected = first.losses.filter((loss) => !(loss.severity === 'info' && allowed.includes(loss.code)));
    if (unexpected.length > 0) return fail('encode reported losses', lossList(unexpected));
    const decoded = decode(first.body);
    if (decoded.losses.length > 0) return fail('decode reported losses', lossList(decoded.losses));
    const difference = firstDifference(normaliseIr(decoded.ir, format), normaliseIr(ir, format));
    if (difference !== undefined) return fail('decode(encode(ir)) differs from ir', difference);
    const second = encode(decoded.ir);
    const wireDifference = firstDifference(second.body, first.body);
    if (wireDifference !== undefined) return fail('the second encode differs from the first', wireDifference);
    if (second.losses.length > 0) return fail('the second encode reported losses', lossList(second.losses));
    JSON.stringify(second.body);
    return { ok: true, typed: false, problem: '', detail: '' };
  } catch (error) {
    if (isTypedError(error)) return { ok: false, typed: true, problem: 'typed error', detail: (error as Error).message.slice(0, 200) };
    return fail(describeError(error), '');
  }
}

function lossList(losses: readonly { code: string; path: string; message: string }[]): string {
  return losses.map((loss) => `${loss.code} at ${loss.path}: ${loss.message}`).join('; ').slice(0, 300);
}

/** Sample one value of an arbitrary from a seed (the fuzz script's way in). */
export function sampleOne<T>(arbitrary: fc.Arbitrary<T>, seed: number): T {
  return fc.sample(arbitrary, { seed, numRuns: 1 })[0] as T;
}
