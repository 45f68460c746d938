/**
 * GenAI messages → IR: `gen_ai.input.messages` into messages,
 * `gen_ai.system_instructions` into a leading system message,
 * `gen_ai.output.messages` into candidates (each with its
 * `finish_reason`), and `gen_ai.tool.definitions` into tools. Values are
 * already parsed JSON; `path` is the JSON pointer of the value in what the
 * caller holds, for errors and losses.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
import type { Candidate, Message, Part, Role, Tool } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectArray, expectObject, expectString, isObject, lookupTable } from '../../core/wire.ts';
import { decodeOtelGenAiPart, PendingCalls } from './parts-decode.ts';
import { CODEC_NAME } from './shape.ts';
import { decodeOtelGenAiFinishReason } from './stop-reason.ts';

const ROLES: Readonly<Record<string, Role>> = lookupTable({ system: 'system', developer: 'system', user: 'user', assistant: 'assistant', model: 'assistant', tool: 'tool' });

function partsOf(value: unknown, path: string, scope: string, pending: PendingCalls, losses: LossCollector): Part[] {
  const parts: Part[] = [];
  for (const [index, item] of expectArray(value, path).entries()) {
    const part = decodeOtelGenAiPart(item, `${path}/${index}`, scope, index, pending, losses);
    if (part !== undefined) parts.push(part);
  }
  return parts;
}

function decodeMessage(value: unknown, path: string, scope: string, pending: PendingCalls, losses: LossCollector): Message {
  const object = expectObject(value, path);
  const rawRole = expectString(object['role'], `${path}/role`);
  let role = ROLES[rawRole];
  if (role === undefined) {
    losses.add('approximated', `${path}/role`, `${CODEC_NAME} role "${rawRole}" read as user`);
    role = 'user';
  }
  const message: Message = { role, parts: partsOf(object['parts'], `${path}/parts`, scope, pending, losses) };
  if (rawRole === 'developer') message.developer = true;
  if (typeof object['name'] === 'string') message.name = object['name'];
  return message;
}

/** The calls that input messages leave unanswered pair with results by id; one list for a whole request. */
export interface DecodeScope {
  pending: PendingCalls;
}

/** A fresh scope for one request. */
export function otelGenAiScope(): DecodeScope {
  return { pending: new PendingCalls() };
}

/** `gen_ai.system_instructions` (a list of parts) → one system message, or `undefined` when it holds none. */
export function decodeOtelGenAiSystemInstructions(value: unknown, path: string, scope: DecodeScope, losses: LossCollector): Message | undefined {
  const parts = partsOf(value, path, 's', scope.pending, losses);
  return parts.length === 0 ? undefined : { role: 'system', parts };
}

/** `gen_ai.input.messages` → IR messages. */
export function decodeOtelGenAiMessages(value: unknown, path: string, scope: DecodeScope, losses: LossCollector): Message[] {
  return expectArray(value, path).map((item, index) => decodeMessage(item, `${path}/${index}`, `m${index}`, scope.pending, losses));
}

/** `gen_ai.output.messages` → candidates, one per message, each with the stop reason of its `finish_reason`. */
export function decodeOtelGenAiOutputMessages(value: unknown, path: string, losses: LossCollector): Candidate[] {
  const pending = new PendingCalls();
  return expectArray(value, path).map((item, index) => {
    const message = decodeMessage(item, `${path}/${index}`, `o${index}`, pending, losses);
    const candidate: Candidate = { index, message };
    const reason = isObject(item) ? item['finish_reason'] : undefined;
    if (typeof reason === 'string' && reason !== '') candidate.stopReason = decodeOtelGenAiFinishReason(reason);
    return candidate;
  });
}

/** `gen_ai.tool.definitions` → tools; a definition of a type other than `function` is reported and dropped. */
export function decodeOtelGenAiToolDefinitions(value: unknown, path: string, losses: LossCollector): Tool[] {
  const tools: Tool[] = [];
  for (const [index, item] of expectArray(value, path).entries()) {
    const at = `${path}/${index}`;
    const object = expectObject(item, at);
    const type = object['type'] ?? 'function';
    if (type !== 'function') {
      losses.add('unsupported_part', at, `${CODEC_NAME} tool of type ${JSON.stringify(type)} has no neutral meaning; dropped`);
      continue;
    }
    const tool: Tool = { type: 'function', name: expectString(object['name'], `${at}/name`) };
    if (typeof object['description'] === 'string') tool.description = object['description'];
    if (isObject(object['parameters'])) tool.parameters = object['parameters'];
    tools.push(tool);
  }
  return tools;
}
