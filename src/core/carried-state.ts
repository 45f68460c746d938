/**
 * Reasoning state of one vendor carried through a client of another.
 *
 * A proxy caller keeps its conversation in its own format and sends it back
 * on the next turn. Reasoning state that the upstream needs back (DeepSeek's
 * `reasoning_content`, OpenRouter's `reasoning_details`, a Gemini thought
 * signature, an Anthropic signature) would be lost on the way, since the
 * caller's format cannot carry another vendor's state. The proxy therefore
 * wraps it into the caller's own opaque slot (an Anthropic thinking
 * `signature`, a Responses `encrypted_content`, a Gemini `thoughtSignature`,
 * a Bedrock `reasoningText.signature`),
 * which the caller's SDK returns untouched, and unwraps it when the caller's
 * next request comes in. Only the proxy does this: a wrapped value is not
 * something the caller's own vendor would accept, so plain conversions never
 * wrap. The wrapping is `interlingua.1.` plus base64url of a JSON array
 * `[format, kind, value, dialect?]`.
 *
 * A Gemini 3 `functionCall` part carries its own `thoughtSignature`, which
 * Gemini needs back on that call. Every caller returns a call's id
 * untouched (it pairs the result with it), so the signature rides in the
 * id: `<id>__il1_` plus base64url of `[extensions.gemini, syntheticId]`,
 * letters, digits, `_` and `-` only, as every format's ids allow. The
 * caller's result answers that id, and both are restored on the way back.
 * An Ollama caller gets the id on the wire (`tool_calls[].id`, which its
 * encoder sends only for ids marked as Ollama's).
 */
import type { Extensions, FormatId, Message, Part, ReasoningState, Request, Response, ToolCallPart } from './ir.ts';
import type { StreamEvent } from './stream-events.ts';

const PREFIX = 'interlingua.1.';

/** The opaque reasoning slot of each format a caller may use, if it has one. */
const SLOT: { readonly [F in FormatId]: ReasoningState['kind'] | undefined } = {
  anthropic: 'signature',
  'openai-responses': 'encrypted',
  gemini: 'thought_signature',
  'openai-chat': undefined,
  ollama: undefined,
  // A Bedrock caller's SDK returns reasoningText.signature untouched.
  'bedrock-converse': 'signature',
};

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

function toBase64Url(text: string): string {
  const bytes = utf8.encode(text);
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string | undefined {
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return fromUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `state` wrapped into `caller`'s own reasoning slot; `undefined` when the caller's format has none, or the state is already the caller's. */
export function carryReasoningState(state: ReasoningState, caller: FormatId): ReasoningState | undefined {
  const kind = SLOT[caller];
  if (kind === undefined || state.format === caller) return undefined;
  const fields = state.dialect === undefined ? [state.format, state.kind, state.value] : [state.format, state.kind, state.value, state.dialect];
  return { format: caller, kind, value: PREFIX + toBase64Url(JSON.stringify(fields)) };
}

/** The state a wrapped value stands for; `undefined` when `state` is not one interlingua wrapped. */
export function carriedReasoningState(state: ReasoningState): ReasoningState | undefined {
  if (!state.value.startsWith(PREFIX)) return undefined;
  const text = fromBase64Url(state.value.slice(PREFIX.length));
  if (text === undefined) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length < 3 || !fields.slice(0, 3).every((field) => typeof field === 'string')) return undefined;
  const [format, kind, value, dialect] = fields as [FormatId, ReasoningState['kind'], string, unknown];
  const restored: ReasoningState = { format, kind, value };
  if (typeof dialect === 'string') restored.dialect = dialect;
  return restored;
}

const CALL_MARK = '__il1_';

/** `part` with its Gemini call state (a `thoughtSignature`) moved into its id, for `caller`; the part itself when there is none to move. */
export function carryCallState(part: ToolCallPart, caller: FormatId): ToolCallPart {
  const gemini = part.extensions?.gemini;
  if (caller === 'gemini' || typeof gemini?.['thoughtSignature'] !== 'string') return part;
  const { gemini: _gemini, ...others } = part.extensions as Extensions;
  const id = `${part.id}${CALL_MARK}${toBase64Url(JSON.stringify([gemini, part.syntheticId === true ? 1 : 0]))}`;
  const carried: ToolCallPart = { ...part, id };
  delete carried.syntheticId;
  const extensions: Extensions = others;
  if (caller === 'ollama') extensions.ollama = { ...extensions.ollama, $id: true };
  if (Object.keys(extensions).length > 0) carried.extensions = extensions;
  else delete carried.extensions;
  return carried;
}

/** What a carried call id stands for: the id, whether it was synthesised, and the Gemini extensions it carried. */
function carriedCall(id: string): { id: string; syntheticId: boolean; gemini: Record<string, unknown> } | undefined {
  const at = id.indexOf(CALL_MARK);
  if (at < 0) return undefined;
  const text = fromBase64Url(id.slice(at + CALL_MARK.length));
  if (text === undefined) return undefined;
  try {
    const [gemini, synthetic] = JSON.parse(text) as [unknown, unknown];
    if (typeof gemini !== 'object' || gemini === null || Array.isArray(gemini)) return undefined;
    return { id: id.slice(0, at), syntheticId: synthetic === 1, gemini: gemini as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

function restoreCall(part: ToolCallPart): ToolCallPart {
  const carried = carriedCall(part.id);
  if (carried === undefined) return part;
  const restored: ToolCallPart = { ...part, id: carried.id, extensions: { ...part.extensions, gemini: { ...part.extensions?.gemini, ...carried.gemini } } };
  if (carried.syntheticId) restored.syntheticId = true;
  return restored;
}

function mapParts(parts: Part[], map: (state: ReasoningState) => ReasoningState | undefined, call: (part: ToolCallPart) => ToolCallPart): void {
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.type === 'reasoning' && part.state !== undefined) {
      const mapped = map(part.state);
      if (mapped !== undefined) parts[index] = { ...part, state: mapped };
    } else if (part.type === 'tool_call') {
      parts[index] = call(part);
    } else if (part.type === 'tool_result') {
      // A result answers the carried id: it answers the restored one (only requests carry such results).
      const carried = carriedCall(part.callId);
      const result = carried === undefined ? part : { ...part, callId: carried.id, ...(carried.syntheticId ? { syntheticId: true } : {}) };
      parts[index] = result;
      mapParts(result.content, map, call);
    }
  }
}

/** Wrap every other vendor's reasoning state in `response` into `caller`'s slot, and Gemini call signatures into call ids (in place). */
export function carryResponseStates(response: Response, caller: FormatId): Response {
  for (const candidate of response.candidates) {
    mapParts(
      candidate.message.parts,
      (state) => carryReasoningState(state, caller),
      (part) => carryCallState(part, caller),
    );
  }
  return response;
}

/** Unwrap every reasoning state and call id in `request` that interlingua wrapped (in place). */
export function restoreRequestStates(request: Request): Request {
  const messages: Message[] = request.messages;
  for (const message of messages) mapParts(message.parts, carriedReasoningState, restoreCall);
  return request;
}

/** A stream event with other vendors' reasoning state wrapped into `caller`'s slot. */
export function carryEventState(event: StreamEvent, caller: FormatId): StreamEvent {
  switch (event.type) {
    case 'reasoning_signature': {
      const state = carryReasoningState(event.state, caller);
      return state === undefined ? event : { ...event, state };
    }
    case 'part_start':
    case 'part_end': {
      const part = event.part;
      if (part?.type === 'tool_call') {
        const carried = carryCallState(part, caller);
        return carried === part ? event : { ...event, part: carried };
      }
      if (part?.type !== 'reasoning' || part.state === undefined) return event;
      const state = carryReasoningState(part.state, caller);
      return state === undefined ? event : { ...event, part: { ...part, state } };
    }
    default:
      return event;
  }
}
