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
 *
 * A Gemini caller's own client may drop thought parts from its history
 * (Gemini CLI does; `@ai-sdk/google` keeps their text, not their
 * signature), where the wrapped state of a thought part would go. Gemini
 * puts a step's signature on its first `functionCall` part, which every
 * client keeps: so the answer's other-vendor reasoning (text and state,
 * `interlingua.1c.` + base64url of `[[format, kind, value, dialect, text], …]`)
 * also rides there, and comes back as reasoning parts at the start of that
 * assistant turn, unless the turn still has them.
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

/** Whether a caller of `format` has an opaque slot that carries another vendor's reasoning state (Chat and Ollama have none). */
export function hasReasoningSlot(format: FormatId): boolean {
  return SLOT[format] !== undefined;
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

const CALL_PREFIX = 'interlingua.1c.';

/** One piece of other-vendor reasoning of an answer: its state and its text. */
interface CarriedReasoning {
  state: ReasoningState;
  text: string;
}

/** The value a Gemini caller's first call carries for `reasoning`. */
function wrapReasoningList(reasoning: readonly CarriedReasoning[]): string {
  return CALL_PREFIX + toBase64Url(JSON.stringify(reasoning.map(({ state, text }) => [state.format, state.kind, state.value, state.dialect ?? null, text])));
}

function unwrapReasoningList(value: string): CarriedReasoning[] | undefined {
  const text = fromBase64Url(value.slice(CALL_PREFIX.length));
  if (text === undefined) return undefined;
  try {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) return undefined;
    const out: CarriedReasoning[] = [];
    for (const item of list) {
      if (!Array.isArray(item) || item.length < 5 || !item.slice(0, 3).every((field) => typeof field === 'string') || typeof item[4] !== 'string') return undefined;
      const [format, kind, stateValue, dialect, reasoningText] = item as [FormatId, ReasoningState['kind'], string, unknown, string];
      const state: ReasoningState = { format, kind, value: stateValue };
      if (typeof dialect === 'string') state.dialect = dialect;
      out.push({ state, text: reasoningText });
    }
    return out;
  } catch {
    return undefined;
  }
}

/** `call` with `reasoning` on its Gemini `thoughtSignature`, unless it has one. */
function withCarriedReasoning(call: ToolCallPart, reasoning: readonly CarriedReasoning[]): ToolCallPart {
  if (reasoning.length === 0 || call.extensions?.gemini?.['thoughtSignature'] !== undefined) return call;
  return { ...call, extensions: { ...call.extensions, gemini: { ...call.extensions?.gemini, thoughtSignature: wrapReasoningList(reasoning) } } };
}

/** For a Gemini caller: the message's other-vendor reasoning also goes on its first call (in place). */
function reasoningOntoFirstCall(parts: Part[]): void {
  const first = parts.findIndex((part) => part.type === 'tool_call');
  if (first < 0) return;
  const reasoning: CarriedReasoning[] = [];
  for (const part of parts) if (part.type === 'reasoning' && part.state !== undefined && part.state.format !== 'gemini') reasoning.push({ state: part.state, text: part.text });
  parts[first] = withCarriedReasoning(parts[first] as ToolCallPart, reasoning);
}

/** The reasoning a Gemini caller's calls carried back, as reasoning parts at the start of the message, unless it has them (in place). */
function restoreCarriedReasoning(message: Message): void {
  const parts = message.parts;
  const restored: Part[] = [];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    const value = part.type === 'tool_call' ? part.extensions?.gemini?.['thoughtSignature'] : undefined;
    if (part.type !== 'tool_call' || typeof value !== 'string' || !value.startsWith(CALL_PREFIX)) continue;
    const reasoning = unwrapReasoningList(value);
    if (reasoning === undefined) continue;
    const { thoughtSignature: _carried, ...gemini } = part.extensions?.gemini ?? {};
    const call: ToolCallPart = { ...part, extensions: { ...part.extensions, gemini } };
    if (Object.keys(gemini).length === 0) delete call.extensions?.gemini;
    if (call.extensions !== undefined && Object.keys(call.extensions).length === 0) delete call.extensions;
    parts[index] = call;
    for (const { state, text } of reasoning) {
      const kept = parts.some((other) => other.type === 'reasoning' && other.state?.value === state.value);
      if (!kept) restored.push({ type: 'reasoning', text, state });
    }
  }
  if (restored.length > 0) parts.unshift(...restored);
}

/** Wrap every other vendor's reasoning state in `response` into `caller`'s slot, and Gemini call signatures into call ids (in place). */
export function carryResponseStates(response: Response, caller: FormatId): Response {
  for (const candidate of response.candidates) {
    if (caller === 'gemini') reasoningOntoFirstCall(candidate.message.parts);
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
  for (const message of messages) {
    mapParts(message.parts, carriedReasoningState, restoreCall);
    if (message.role === 'assistant') restoreCarriedReasoning(message);
  }
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

/**
 * A stream's {@link carryEventState}, which also remembers the answer's
 * other-vendor reasoning: a Gemini caller gets it on the first call of
 * each candidate as well (see {@link carryResponseStates}).
 */
export function createEventCarrier(caller: FormatId): (event: StreamEvent) => StreamEvent {
  if (caller !== 'gemini') return (event) => carryEventState(event, caller);
  const texts = new Map<string, string>();
  // Per candidate, per part: its latest state (a part may start with an empty one that its signature replaces).
  const reasoning = new Map<number, Map<string, CarriedReasoning>>();
  const called = new Set<number>();
  const signed = new Map<string, string>();
  const remember = (candidate: number, key: string, state: ReasoningState, text: string) => {
    if (state.format === 'gemini') return;
    let parts = reasoning.get(candidate);
    if (parts === undefined) reasoning.set(candidate, (parts = new Map()));
    parts.set(key, { state, text: text === '' ? (texts.get(key) ?? '') : text });
  };
  return (event) => {
    const key = 'index' in event ? `${event.candidate}:${event.index}` : '';
    switch (event.type) {
      case 'reasoning_delta': {
        texts.set(key, (texts.get(key) ?? '') + event.text);
        const known = reasoning.get(event.candidate)?.get(key);
        if (known !== undefined) known.text = texts.get(key) ?? '';
        break;
      }
      case 'reasoning_signature':
        remember(event.candidate, key, event.state, '');
        break;
      case 'part_start':
      case 'part_end': {
        const part = event.part;
        if (part?.type === 'reasoning' && part.state !== undefined) remember(event.candidate, key, part.state, part.text);
        if (part?.type !== 'tool_call') break;
        // The first call of the candidate carries what came before it; its closing part carries the same.
        let value = signed.get(key);
        if (value === undefined && !called.has(event.candidate)) {
          called.add(event.candidate);
          const list = [...(reasoning.get(event.candidate)?.values() ?? [])];
          if (list.length > 0 && part.extensions?.gemini?.['thoughtSignature'] === undefined) signed.set(key, (value = wrapReasoningList(list)));
        }
        if (value !== undefined) return carryEventState({ ...event, part: { ...part, extensions: { ...part.extensions, gemini: { ...part.extensions?.gemini, thoughtSignature: value } } } }, caller);
        break;
      }
      default:
        break;
    }
    return carryEventState(event, caller);
  };
}
