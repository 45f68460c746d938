/**
 * What a body means, reduced to a few comparable facts, so the outputs of two
 * translators can be compared with the source without assuming either is
 * right: decode each output with interlingua's decoder of its format and
 * compare the facts with the source's.
 */
import { decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import type { FormatId, Message, Part, Request, Response } from '../../src/core/ir.ts';
import { BENCH_MODEL } from './workloads.ts';

/** Comparable facts about one body, by name. */
export type Facts = Record<string, string>;

function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  return (value >>> 0).toString(16).padStart(8, '0');
}

function digest(text: string): string {
  return text.length <= 48 ? JSON.stringify(text) : `${text.length} chars #${hash(text)}`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function partFacts(messages: readonly Message[], facts: Facts): void {
  const conversation = messages.filter((message) => message.role !== 'system');
  const parts = conversation.flatMap((message) => message.parts);
  const texts: string[] = [];
  const calls: string[] = [];
  const callIds: string[] = [];
  const results: string[] = [];
  const images: string[] = [];
  const reasoning: string[] = [];
  let states = 0;
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'tool_call':
        calls.push(`${part.name}(${canonical(part.arguments ?? part.rawArguments)})`);
        callIds.push(part.id);
        break;
      case 'tool_result':
        results.push(`${part.callId}:${textOf(part.content)}`);
        break;
      case 'image':
        images.push(part.source.kind === 'base64' ? `${part.source.mediaType}:${part.source.data.length}:${hash(part.source.data.slice(0, 4096))}` : `${part.source.kind}`);
        break;
      case 'reasoning':
        reasoning.push(part.text);
        if (part.state !== undefined) states++;
        break;
      default:
        break;
    }
  }
  const roles = conversation.map((message) => (message.role === 'tool' ? 'user' : message.role));
  const turns = roles.filter((role, index) => index === 0 || role !== roles[index - 1]).length;
  facts['turns'] = String(turns);
  facts['text'] = digest(texts.join('\n'));
  facts['tool calls'] = calls.length === 0 ? 'none' : `${calls.length} #${hash(calls.join('|'))}`;
  facts['tool call ids'] = callIds.length === 0 ? 'none' : `${callIds.length} #${hash(callIds.join('|'))}`;
  facts['tool results'] = results.length === 0 ? 'none' : `${results.length} #${hash(results.join('|'))}`;
  facts['images'] = images.length === 0 ? 'none' : images.join(', ');
  facts['reasoning'] = reasoning.length === 0 ? 'none' : `${reasoning.length} × ${digest(reasoning.join('\n'))}`;
  facts['reasoning state'] = String(states);
}

/** The facts of an IR request. */
export function requestFacts(request: Request): Facts {
  const facts: Facts = {};
  facts['model'] = String(request.model);
  facts['system'] = digest(request.messages.filter((message) => message.role === 'system').map((message) => textOf(message.parts)).join('\n'));
  partFacts(request.messages, facts);
  const tools = (request.tools ?? []).map((tool) => (tool.type === 'function' ? `${tool.name}:${canonical(tool.parameters)}` : tool.type === 'custom' ? `custom:${tool.name}` : tool.type === 'web_search' ? 'web_search' : `opaque:${tool.toolType}`));
  facts['tools'] = tools.length === 0 ? 'none' : `${tools.length} #${hash(tools.join('|'))}`;
  facts['tool choice'] = request.toolChoice === undefined ? 'unset' : request.toolChoice.type;
  facts['max tokens'] = String(request.generation?.maxTokens);
  facts['temperature'] = String(request.generation?.temperature);
  return facts;
}

/** The facts of an IR response. */
export function responseFacts(response: Response): Facts {
  const candidate = response.candidates[0];
  const facts: Facts = { candidates: String(response.candidates.length) };
  if (candidate !== undefined) {
    partFacts([candidate.message], facts);
    facts['stop reason'] = candidate.stopReason?.unified ?? 'unset';
  }
  facts['input tokens'] = String(response.usage?.inputTokens);
  facts['output tokens'] = String(response.usage?.outputTokens);
  return facts;
}

/** The facts of a wire body of `format`, decoded by interlingua; throws when it does not decode. */
export function wireFacts(kind: 'request' | 'response', format: FormatId, body: unknown): Facts {
  return kind === 'request'
    ? requestFacts(decodeRequest(format, body, { model: BENCH_MODEL }).ir)
    : responseFacts(decodeResponse(format, body, { model: BENCH_MODEL }).ir);
}

/** The facts that differ between `expected` and `actual`, as `name: expected → actual`. */
export function differences(expected: Facts, actual: Facts): string[] {
  const out: string[] = [];
  for (const key of Object.keys(expected)) {
    if (expected[key] !== actual[key]) out.push(`${key}: ${expected[key]} → ${actual[key] ?? 'missing'}`);
  }
  return out;
}
