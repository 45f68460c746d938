/**
 * What every strict vendor emulator shares: the scripted answers, the
 * refusal a rule gives, the registry of opaque state the emulator issued
 * (signatures, encrypted reasoning, item ids), and small readers of JSON
 * bodies. Each format's rules live in `<format>.ts` beside this file.
 */
import type { FormatId } from '../../../src/core/ir.ts';

/** A JSON object as received. */
export type Json = Record<string, unknown>;

/** One function call the emulator answers with. */
export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One answer of the script. `text` and `tool_calls` are built in the
 * vendor's own shape with fresh ids (and, where the vendor has them,
 * signatures the emulator issues and then expects back); `body` is a vendor
 * body served as given (its signatures are registered as issued, and a
 * Gemini body's first function call gets one, as Gemini 3 always gives).
 */
export type ScriptedAnswer =
  /** A final text, with a reasoning block before it when `reasoning` is given. */
  | { kind: 'text'; text: string; reasoning?: string }
  /** One or more (parallel) function calls, after `text` and `reasoning` when given. */
  | { kind: 'tool_calls'; calls: ScriptedCall[]; text?: string; reasoning?: string }
  /** A vendor body; a streaming request gets `stream` when given, else `body` as the format's own stream. */
  | { kind: 'body'; body: unknown; stream?: Uint8Array }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  /** Exactly these bytes with this status and content type. */
  | { kind: 'raw'; status: number; contentType: string; text: string | Uint8Array }
  /** Never answer (until the test closes the server). */
  | { kind: 'stall' }
  /** Destroy the socket before answering. */
  | { kind: 'reset' }
  /** Half of the stream of `body`, then a reset. */
  | { kind: 'truncate'; body: unknown };

/** A refusal: the vendor's status, headers and body, and the rule that gave it (for test messages). */
export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A short name of the rule, e.g. `anthropic.tool_result.unmatched`. */
  rule: string;
}

/** What the emulator knows of one request. */
export interface StrictRequest {
  url: string;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
  /** The body text as received. */
  text: string;
}

/** Kinds of opaque state an emulator issues and later checks. */
export type IssuedKind =
  | 'anthropic.signature'
  | 'anthropic.redacted'
  | 'gemini.thought_signature'
  | 'responses.encrypted_content'
  | 'responses.reasoning_id'
  | 'responses.response_id'
  | 'bedrock.signature';

/** The opaque values an emulator issued; a vendor accepts back only its own. */
export class Issued {
  readonly #values = new Map<IssuedKind, Set<string>>();
  /** Function call item ids (`fc_…`) issued together with a reasoning item, and that item's id. */
  readonly reasoningOfCall = new Map<string, string>();
  /** The function calls (`call_id`s) of each response id issued, for `previous_response_id`. */
  readonly callsOfResponse = new Map<string, string[]>();

  add(kind: IssuedKind, value: string): string {
    let set = this.#values.get(kind);
    if (set === undefined) this.#values.set(kind, (set = new Set()));
    set.add(value);
    return value;
  }

  has(kind: IssuedKind, value: string): boolean {
    return this.#values.get(kind)?.has(value) === true;
  }
}

/** `bytes` random bytes as standard base64 (the shape of every vendor's opaque state). */
export function opaque(bytes = 48): string {
  const random = new Uint8Array(bytes);
  crypto.getRandomValues(random);
  return Buffer.from(random).toString('base64');
}

/** A fresh id: `prefix` and `length` random letters and digits. */
export function freshId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const random = new Uint8Array(length);
  crypto.getRandomValues(random);
  let id = prefix;
  for (const byte of random) id += alphabet[byte % alphabet.length];
  return id;
}

/** `value` as a JSON object, or `undefined`. */
export function object(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** `value` as an array of JSON objects (non-objects left out), or `[]`. */
export function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.flatMap((item) => (object(item) === undefined ? [] : [item as Json])) : [];
}

/** The text of a header (the first value when repeated). */
export function header(request: StrictRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** True when `text` is standard or URL-safe base64 (proto `bytes` as JSON). */
export function isBase64(text: string): boolean {
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(text) && text.replace(/=+$/, '').length % 4 !== 1;
}

/** What one format's emulator does: recognise streaming requests, check a request, build and register answers. */
export interface StrictVendor {
  format: FormatId;
  /** True when the request asks for a stream (by body field or by path, as the vendor decides). */
  isStream(request: StrictRequest): boolean;
  /** True for the generation endpoint, whose rules `validate` checks (token counting and other paths are answered unchecked). */
  isGeneration(request: StrictRequest): boolean;
  /** The first rule the request breaks, as the vendor's refusal; `undefined` when the vendor would accept it. */
  validate(request: StrictRequest, issued: Issued): Refusal | undefined;
  /** A whole answer body in the vendor's shape for a `text` or `tool_calls` script item, its opaque state registered in `issued`. */
  build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, request: StrictRequest, issued: Issued, model: string): Json;
  /** Register the opaque state of a body served as given (and add what the vendor always issues); returns the body to serve. */
  adopt(body: unknown, issued: Issued): unknown;
}
