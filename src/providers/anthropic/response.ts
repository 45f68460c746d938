/**
 * Anthropic Messages responses (`type: "message"`).
 *
 * @see https://docs.anthropic.com/en/api/messages#response
 */
import type { CodecContext } from '../../core/codec.ts';
import { randomAnswerIds } from '../../core/answer-ids.ts';
import type { Candidate, Message, Part, Response } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, pointer, required, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeAnthropicBlockAt, keepsHints, type BlockScope } from './parts-decode.ts';
import { encodeAnthropicParts } from './parts-encode.ts';
import { ANTHROPIC, anthropicHint, hasHint } from './shape.ts';
import { decodeAnthropicStopReason, encodeAnthropicStopReason } from './stop-reason.ts';
import { decodeAnthropicUsage, encodeAnthropicUsage } from './usage.ts';

const RESPONSE_KEYS: ReadonlySet<string> = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);
const RESPONSE_KEYS_NULL_DETAILS: ReadonlySet<string> = new Set([...RESPONSE_KEYS, 'stop_details']);

function decodeStop(object: JsonObject, candidate: Candidate, hints: boolean): void {
  const raw = object['stop_reason'];
  if (raw !== null && raw !== undefined) candidate.stopReason = decodeAnthropicStopReason(expectString(raw, '/stop_reason', ANTHROPIC));
  else if (raw === undefined && hints) anthropicHint(candidate, '$stopReasonAbsent', true);
  const sequence = object['stop_sequence'];
  if (sequence === undefined) {
    if (hints) anthropicHint(candidate, '$stopSequenceAbsent', true);
  } else if (sequence !== null) {
    const text = expectString(sequence, '/stop_sequence', ANTHROPIC);
    if (candidate.stopReason !== undefined) candidate.stopReason.sequence = text;
    else if (hints) anthropicHint(candidate, '$stopSequence', text);
  }
}

/**
 * Decode an Anthropic Messages response body into the IR.
 *
 * @see https://docs.anthropic.com/en/api/messages#response
 */
export function decodeAnthropicResponse(body: unknown, context: CodecContext): Response {
  const object = expectObject(body, '', ANTHROPIC);
  const hints = keepsHints(context.target);
  const losses = context.losses;
  const scope: BlockScope = { losses, hints };
  const content = expectArray(required(object, 'content', '', ANTHROPIC), '/content', ANTHROPIC);
  const parts = new Array<Part>(content.length);
  for (let index = 0; index < content.length; index++) parts[index] = decodeAnthropicBlockAt(content[index], '/content', index, scope);
  const message: Message = { role: 'assistant', parts };
  const candidate: Candidate = { index: 0, message };
  decodeStop(object, candidate, hints);
  if (candidate.stopReason !== undefined) losses.origin(candidate.stopReason, '/stop_reason');
  const response: Response = { candidates: [candidate] };
  if (object['id'] !== undefined) response.id = expectString(object['id'], '/id', ANTHROPIC);
  if (object['model'] !== undefined) response.model = expectString(object['model'], '/model', ANTHROPIC);
  if (hints) {
    if (object['type'] !== undefined && object['type'] !== 'message') anthropicHint(response, '$type', object['type']);
    if (object['type'] === undefined) anthropicHint(response, '$typeAbsent', true);
    if (object['role'] !== undefined && object['role'] !== 'assistant') anthropicHint(response, '$role', object['role']);
    if (object['role'] === undefined) anthropicHint(response, '$roleAbsent', true);
  }
  if (object['usage'] !== undefined) response.usage = losses.anchor(decodeAnthropicUsage(object['usage'], '/usage'), '/usage');
  if (hints && (object['id'] === undefined || object['model'] === undefined || object['usage'] === undefined)) {
    anthropicHint(response, '$absent', (['id', 'model', 'usage'] as const).filter((key) => object[key] === undefined));
  }
  // `stop_details` says why a refusal stopped; `null` (any other stop) says nothing, so it is a shape hint, not a field other formats lose.
  if (object['stop_details'] === null) {
    if (hints) anthropicHint(response, '$stopDetailsNull', true);
    extend(response, ANTHROPIC, unknownKeys(object, RESPONSE_KEYS_NULL_DETAILS));
  } else extend(response, ANTHROPIC, unknownKeys(object, RESPONSE_KEYS));
  return response;
}

function encodeStop(candidate: Candidate | undefined, wire: JsonObject, context: CodecContext): void {
  const reason = candidate?.stopReason;
  if (candidate === undefined || !hasHint(candidate, '$stopReasonAbsent')) {
    wire['stop_reason'] = reason === undefined ? null : encodeAnthropicStopReason(reason, '/candidates/0/stopReason', context.losses);
  }
  if (candidate !== undefined && hasHint(candidate, '$stopSequenceAbsent')) return;
  const kept = candidate?.extensions?.anthropic?.['$stopSequence'];
  wire['stop_sequence'] = reason?.sequence ?? (typeof kept === 'string' ? kept : null);
}

/**
 * Encode an IR response as an Anthropic Messages response body. Anthropic has
 * one answer: candidates after the first are reported and dropped.
 *
 * @see https://docs.anthropic.com/en/api/messages#response
 */
export function encodeAnthropicResponse(response: Response, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(response.extensions, ANTHROPIC, '');
  const candidate = response.candidates[0];
  for (let index = 1; index < response.candidates.length; index++) {
    losses.add('dropped_field', pointer('/candidates', index), 'Anthropic responses have one answer; this candidate was dropped');
  }
  const wire: JsonObject = {};
  const absentHint = response.extensions?.anthropic?.['$absent'];
  const absent: readonly unknown[] = Array.isArray(absentHint) ? absentHint : [];
  // The Message schema requires `id`, `model` and `usage`: filled for a source that had none (an Anthropic body that lacked them stays as it was).
  const native = response.extensions?.anthropic !== undefined;
  if (response.id !== undefined) wire['id'] = response.id;
  else if (!absent.includes('id') && !native) {
    wire['id'] = (context.ids ?? randomAnswerIds).id('msg_');
    losses.add('synthesised_id', '/id', `Anthropic responses need an id; "${String(wire['id'])}" was made up`, 'info');
  }
  const type = response.extensions?.anthropic?.['$type'];
  if (!hasHint(response, '$typeAbsent')) wire['type'] = type ?? 'message';
  const role = response.extensions?.anthropic?.['$role'];
  if (!hasHint(response, '$roleAbsent')) wire['role'] = role ?? 'assistant';
  if (response.model !== undefined) wire['model'] = response.model;
  else if (!absent.includes('model') && !native) {
    wire['model'] = context.model ?? 'unknown';
    losses.add('defaulted', '/model', `Anthropic responses need a model; "${String(wire['model'])}" was used`, 'info');
  }
  if (candidate !== undefined) {
    losses.foreignExtensions(candidate.extensions, ANTHROPIC, '/candidates/0');
    losses.foreignExtensions(candidate.message.extensions, ANTHROPIC, '/candidates/0/message');
  }
  wire['content'] = candidate === undefined ? [] : encodeAnthropicParts(candidate.message.parts, '/candidates/0/message/parts', losses, true);
  encodeStop(candidate, wire, context);
  if (hasHint(response, '$stopDetailsNull')) wire['stop_details'] = null;
  if (response.usage !== undefined) wire['usage'] = encodeAnthropicUsage(response.usage, '/usage', losses);
  else if (!absent.includes('usage') && !native) {
    wire['usage'] = { input_tokens: 0, output_tokens: 0 };
    losses.add('defaulted', '/usage', 'Anthropic responses need usage; the source had none, so zero tokens were sent', 'info');
  }
  return spreadExtensions(wire, response, ANTHROPIC);
}
