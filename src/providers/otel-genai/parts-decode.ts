/**
 * GenAI message parts → IR parts: `text`, `reasoning`, `tool_call`,
 * `tool_call_response`, and media as `blob` (base64), `uri` or `file` (a
 * provider file id). A part of another type (the schema's `GenericPart`,
 * such as a server tool call) has no neutral meaning and is reported.
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-input-messages.json
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { MediaSource, Part, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { mediaKind, sniffBase64 } from '../../core/media.ts';
import { MadeUpIds, parseArguments } from '../../core/tools.ts';
import { expectObject, expectString, isObject, type JsonObject } from '../../core/wire.ts';
import { CODEC_NAME } from './shape.ts';

/** The prefix of ids made up for tool calls that the span recorded without one. */
export const SYNTHETIC_ID_PREFIX = 'call_otel_';
const MADE_UP = new MadeUpIds(SYNTHETIC_ID_PREFIX);

/** Tool calls waiting for their results, so a result without an id answers the earliest one (as in one message list). */
export class PendingCalls {
  readonly #calls: ToolCallPart[] = [];

  add(call: ToolCallPart): void {
    this.#calls.push(call);
  }

  /** The call with `id`, or the earliest unanswered one when `id` is absent; removed from the list. */
  take(id: string | undefined): ToolCallPart | undefined {
    const index = id === undefined ? 0 : this.#calls.findIndex((call) => call.id === id);
    if (index < 0 || index >= this.#calls.length) return undefined;
    return this.#calls.splice(index, 1)[0];
  }
}

function optionalString(object: JsonObject, key: string, path: string): string | undefined {
  const value = object[key];
  return value === undefined || value === null ? undefined : expectString(value, `${path}/${key}`);
}

function toolCall(object: JsonObject, path: string, scope: string, index: number, pending: PendingCalls, losses: LossCollector): ToolCallPart {
  const name = expectString(object['name'], `${path}/name`);
  const raw = object['arguments'];
  const parsed = typeof raw === 'string' ? parseArguments(raw) : { arguments: isObject(raw) ? raw : raw === undefined || raw === null ? {} : undefined };
  const part: ToolCallPart = { type: 'tool_call', id: '', name, ...parsed };
  if (parsed.arguments === undefined && typeof raw !== 'string') {
    part.rawArguments = JSON.stringify(raw);
    losses.add('invalid_arguments', `${path}/arguments`, `arguments of tool call "${name}" are not a JSON object; kept as text`);
  }
  const id = optionalString(object, 'id', path);
  if (id === undefined || id === '') {
    part.id = MADE_UP.of(scope, index);
    part.syntheticId = true;
    losses.add('synthesised_id', path, `tool call "${name}" has no id; made up ${part.id}`, 'info');
  } else part.id = id;
  pending.add(part);
  return part;
}

function toolResult(object: JsonObject, path: string, pending: PendingCalls): Part {
  const id = optionalString(object, 'id', path);
  const call = pending.take(id === '' ? undefined : id);
  const response = object['response'];
  const text = typeof response === 'string' ? response : JSON.stringify(response ?? null);
  const part: ToolResultPart = { type: 'tool_result', callId: id ?? call?.id ?? '', content: text === '' ? [] : [{ type: 'text', text }] };
  if (call !== undefined) part.name = call.name;
  if (id === undefined || id === '') {
    if (call === undefined) throw new InterlinguaError('missing_field', 'a tool_call_response without an id answers no earlier tool_call', { path });
    part.callId = call.id;
    if (call.syntheticId === true) part.syntheticId = true;
  }
  return part;
}

function mediaPart(object: JsonObject, source: MediaSource): Part {
  const modality = typeof object['modality'] === 'string' ? object['modality'] : undefined;
  const kind = modality === 'image' || modality === 'audio' || modality === 'video' || modality === 'document' ? modality : mediaKind(source.mediaType ?? '');
  return { type: kind, source } as Part;
}

/**
 * One GenAI part → an IR part, or `undefined` for a part with no neutral
 * meaning (reported as `unsupported_part`). `scope` and `index` make the id
 * of a tool call that has none.
 */
export function decodeOtelGenAiPart(value: unknown, path: string, scope: string, index: number, pending: PendingCalls, losses: LossCollector): Part | undefined {
  const object = expectObject(value, path);
  const type = expectString(object['type'], `${path}/type`);
  switch (type) {
    case 'text':
      return { type: 'text', text: expectString(object['content'], `${path}/content`) };
    case 'reasoning':
      return { type: 'reasoning', text: expectString(object['content'], `${path}/content`) };
    case 'tool_call':
      return toolCall(object, path, scope, index, pending, losses);
    case 'tool_call_response':
      return toolResult(object, path, pending);
    case 'blob': {
      const data = expectString(object['content'], `${path}/content`);
      return mediaPart(object, { kind: 'base64', data, mediaType: optionalString(object, 'mime_type', path) ?? sniffBase64(data) });
    }
    case 'uri': {
      const mediaType = optionalString(object, 'mime_type', path);
      const url = expectString(object['uri'], `${path}/uri`);
      return mediaPart(object, mediaType === undefined ? { kind: 'url', url } : { kind: 'url', url, mediaType });
    }
    case 'file':
    case 'file_data': {
      const mediaType = optionalString(object, 'mime_type', path);
      const id = optionalString(object, 'file_id', path);
      if (id === undefined) {
        const uri = optionalString(object, 'uri', path);
        if (uri === undefined) throw new InterlinguaError('missing_field', `a ${type} part needs a file_id or a uri`, { path });
        return mediaPart(object, mediaType === undefined ? { kind: 'url', url: uri } : { kind: 'url', url: uri, mediaType });
      }
      return mediaPart(object, mediaType === undefined ? { kind: 'file', id } : { kind: 'file', id, mediaType });
    }
    default:
      losses.add('unsupported_part', path, `${CODEC_NAME} part of type "${type}" has no neutral meaning; dropped`);
      return undefined;
  }
}
