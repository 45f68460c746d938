/**
 * A small, independent reader of what an answer means, for the replay test:
 * visible text, tool calls with their arguments, the stop class and the
 * token counts, read straight from each format's wire JSON (whole bodies and
 * stream events). It imports nothing from src/: it must not share a mistake
 * with the codecs it checks.
 */

/** What a caller takes from an answer. */
export interface Meaning {
  text: string;
  /** Function calls with their arguments as read ({@link readArguments}); custom (free-text) calls with their text as it came, marked `custom`. */
  calls: { name: string; arguments: unknown; custom?: true }[];
  /** `stop`, `tool_calls`, `length`, `filtered`, `error`, or undefined when the answer says none. */
  stop: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

export type WireFormat = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const sum = (...values: unknown[]): number | undefined => {
  const numbers = values.filter((value): value is number => typeof value === 'number');
  return numbers.length === 0 ? undefined : numbers.reduce((total, value) => total + value, 0);
};

/** Arguments as a caller reads them: a JSON object, else the text (also when it arrived wrapped as `{"_raw_arguments": …}`). */
export function readArguments(value: unknown): unknown {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (isJson(parsed)) {
    const keys = Object.keys(parsed);
    if (keys.length === 1 && keys[0] === '_raw_arguments' && typeof parsed['_raw_arguments'] === 'string') return parsed['_raw_arguments'];
    return parsed;
  }
  return typeof value === 'string' ? value : parsed;
}

/** A custom (free-text) call: its text is the text, never parsed. */
function customCall(name: unknown, input: unknown): Meaning['calls'][number] {
  return { name: String(name), arguments: typeof input === 'string' ? input : '', custom: true };
}

function finish(meaning: Omit<Meaning, 'stop'>, base: string | undefined): Meaning {
  // Formats disagree on whether a turn with calls stopped "normally" or "for tools": with calls, both are tool_calls.
  const stop = base === 'stop' || base === 'tool_calls' ? (meaning.calls.length > 0 ? 'tool_calls' : 'stop') : base;
  return { ...meaning, stop };
}

// ---------------------------------------------------------------------------
// Anthropic

const ANTHROPIC_STOP: Record<string, string> = {
  end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length',
  model_context_window_exceeded: 'length', refusal: 'filtered',
};

function anthropicUsage(usage: unknown): { inputTokens: number | undefined; outputTokens: number | undefined } {
  if (!isJson(usage)) return { inputTokens: undefined, outputTokens: undefined };
  return {
    inputTokens: sum(usage['input_tokens'], usage['cache_read_input_tokens'], usage['cache_creation_input_tokens']),
    outputTokens: number(usage['output_tokens']),
  };
}

function readAnthropic(body: Json): Meaning {
  let text = '';
  const calls: Meaning['calls'] = [];
  for (const block of list(body['content'])) {
    if (!isJson(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') text += block['text'];
    if (block['type'] === 'tool_use' && typeof block['name'] === 'string') calls.push({ name: block['name'], arguments: readArguments(block['input'] ?? {}) });
  }
  const reason = body['stop_reason'];
  return finish({ text, calls, ...anthropicUsage(body['usage']) }, typeof reason === 'string' ? (ANTHROPIC_STOP[reason] ?? 'stop') : undefined);
}

function readAnthropicStream(events: Json[]): Meaning {
  const blocks = new Map<number, { type: string; text: string; name: string; json: string; input: unknown }>();
  let usage: Json = {};
  let reason: unknown;
  for (const event of events) {
    const index = number(event['index']) ?? 0;
    switch (event['type']) {
      case 'message_start': {
        const message = isJson(event['message']) ? event['message'] : {};
        if (isJson(message['usage'])) usage = { ...usage, ...message['usage'] };
        break;
      }
      case 'content_block_start': {
        const block = isJson(event['content_block']) ? event['content_block'] : {};
        blocks.set(index, { type: String(block['type']), text: typeof block['text'] === 'string' ? block['text'] : '', name: String(block['name'] ?? ''), json: '', input: block['input'] });
        break;
      }
      case 'content_block_delta': {
        const delta = isJson(event['delta']) ? event['delta'] : {};
        const block = blocks.get(index);
        if (block === undefined) break;
        if (delta['type'] === 'text_delta') block.text += String(delta['text'] ?? '');
        if (delta['type'] === 'input_json_delta') block.json += String(delta['partial_json'] ?? '');
        break;
      }
      case 'message_delta': {
        const delta = isJson(event['delta']) ? event['delta'] : {};
        if (delta['stop_reason'] !== undefined) reason = delta['stop_reason'];
        if (isJson(event['usage'])) for (const [key, value] of Object.entries(event['usage'])) if (value !== null) usage[key] = value;
        break;
      }
      default:
        break;
    }
  }
  const content: Json[] = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) =>
    block.type === 'tool_use' ? { type: 'tool_use', name: block.name, input: block.json === '' ? (block.input ?? {}) : block.json } : { type: block.type, text: block.text },
  );
  const meaning = readAnthropic({ content, stop_reason: reason ?? null, usage });
  return events.some((event) => event['type'] === 'error') ? { ...meaning, stop: 'error' } : meaning;
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions

const CHAT_STOP: Record<string, string> = { stop: 'stop', length: 'length', tool_calls: 'tool_calls', function_call: 'tool_calls', content_filter: 'filtered' };

function chatUsage(usage: unknown): { inputTokens: number | undefined; outputTokens: number | undefined } {
  return isJson(usage) ? { inputTokens: number(usage['prompt_tokens']), outputTokens: number(usage['completion_tokens']) } : { inputTokens: undefined, outputTokens: undefined };
}

function readChat(body: Json): Meaning {
  const choice = list(body['choices']).find((item) => isJson(item) && (item['index'] ?? 0) === 0) as Json | undefined;
  const message = isJson(choice?.['message']) ? choice['message'] : {};
  let text = typeof message['content'] === 'string' ? message['content'] : '';
  if (Array.isArray(message['content'])) for (const part of message['content']) if (isJson(part) && typeof part['text'] === 'string') text += part['text'];
  const refused = typeof message['refusal'] === 'string' && message['refusal'] !== '';
  if (typeof message['refusal'] === 'string') text += message['refusal'];
  const calls: Meaning['calls'] = [];
  for (const call of list(message['tool_calls'])) {
    if (!isJson(call)) continue;
    const fn = isJson(call['function']) ? call['function'] : undefined;
    const custom = isJson(call['custom']) ? call['custom'] : undefined;
    if (fn !== undefined) calls.push({ name: String(fn['name']), arguments: readArguments(fn['arguments']) });
    else if (custom !== undefined) calls.push(customCall(custom['name'], custom['input']));
  }
  if (isJson(message['function_call'])) calls.push({ name: String(message['function_call']['name']), arguments: readArguments(message['function_call']['arguments']) });
  const reason = choice?.['finish_reason'];
  // A refusal message is a refusal, whatever finish_reason says (OpenAI sends `stop`).
  const base = typeof reason === 'string' ? (CHAT_STOP[reason] ?? 'stop') : undefined;
  return finish({ text, calls, ...chatUsage(body['usage']) }, refused && base === 'stop' ? 'filtered' : base);
}

function readChatStream(chunks: Json[]): Meaning {
  let text = '';
  let reason: unknown;
  let usage: unknown;
  let refused = false;
  const calls = new Map<number, { name: string; text: string; custom: boolean }>();
  for (const chunk of chunks) {
    if (isJson(chunk['usage'])) usage = chunk['usage'];
    for (const choice of list(chunk['choices'])) {
      if (!isJson(choice) || (choice['index'] ?? 0) !== 0) continue;
      if (typeof choice['finish_reason'] === 'string') reason = choice['finish_reason'];
      const delta = isJson(choice['delta']) ? choice['delta'] : {};
      if (typeof delta['content'] === 'string') text += delta['content'];
      if (typeof delta['refusal'] === 'string') {
        text += delta['refusal'];
        if (delta['refusal'] !== '') refused = true;
      }
      list(delta['tool_calls']).forEach((fragment, position) => {
        if (!isJson(fragment)) return;
        const index = number(fragment['index']) ?? position;
        const body = isJson(fragment['custom']) ? fragment['custom'] : isJson(fragment['function']) ? fragment['function'] : {};
        const call = calls.get(index) ?? { name: '', text: '', custom: isJson(fragment['custom']) };
        if (typeof body['name'] === 'string') call.name = body['name'];
        const piece = body[isJson(fragment['custom']) ? 'input' : 'arguments'];
        if (typeof piece === 'string') call.text += piece;
        calls.set(index, call);
      });
    }
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => (call.custom ? customCall(call.name, call.text) : { name: call.name, arguments: readArguments(call.text) }));
  const failed = chunks.some((chunk) => isJson(chunk['error']));
  const base = typeof reason === 'string' ? (CHAT_STOP[reason] ?? 'stop') : undefined;
  return finish({ text, calls: toolCalls, ...chatUsage(usage) }, failed ? 'error' : refused && base === 'stop' ? 'filtered' : base);
}

// ---------------------------------------------------------------------------
// OpenAI Responses

function readResponses(body: Json): Meaning {
  let text = '';
  const calls: Meaning['calls'] = [];
  for (const item of list(body['output'])) {
    if (!isJson(item)) continue;
    if (item['type'] === 'message' || (item['type'] === undefined && item['role'] === 'assistant')) {
      for (const part of list(item['content'])) {
        if (!isJson(part)) continue;
        if (part['type'] === 'output_text' && typeof part['text'] === 'string') text += part['text'];
        if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') text += part['refusal'];
      }
    }
    if (item['type'] === 'function_call') calls.push({ name: String(item['name']), arguments: readArguments(item['arguments']) });
    if (item['type'] === 'custom_tool_call') calls.push(customCall(item['name'], item['input']));
  }
  const status = body['status'];
  const details = isJson(body['incomplete_details']) ? body['incomplete_details'] : {};
  const refused = list(body['output']).some((item) => isJson(item) && list(item['content']).some((part) => isJson(part) && part['type'] === 'refusal'));
  let stop: string | undefined;
  if ((status === 'completed' || status === undefined) && refused) stop = 'filtered';
  else if (status === 'completed' || status === undefined) stop = 'stop';
  else if (status === 'incomplete') stop = details['reason'] === 'content_filter' ? 'filtered' : 'length';
  else if (status === 'failed') stop = 'error';
  else if (typeof status === 'string') stop = 'stop';
  const usage = isJson(body['usage']) ? body['usage'] : undefined;
  return finish({ text, calls, inputTokens: number(usage?.['input_tokens']), outputTokens: number(usage?.['output_tokens']) }, stop);
}

function readResponsesStream(events: Json[]): Meaning {
  const done: unknown[] = [];
  let terminal: Json | undefined;
  for (const event of events) {
    if (event['type'] === 'response.output_item.done') done[number(event['output_index']) ?? done.length] = event['item'];
    if (event['type'] === 'response.completed' || event['type'] === 'response.incomplete' || event['type'] === 'response.failed') {
      terminal = isJson(event['response']) ? event['response'] : {};
    }
  }
  const body = { ...terminal };
  if (list(body['output']).length === 0) body['output'] = done.filter((item) => item !== undefined);
  const meaning = readResponses(body);
  // An error event, or a stream cut before its terminal event, ends in failure whatever came before.
  return events.some((event) => event['type'] === 'error') || terminal === undefined ? { ...meaning, stop: 'error' } : meaning;
}

// ---------------------------------------------------------------------------
// Gemini

const GEMINI_STOP: Record<string, string> = {
  STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'filtered', RECITATION: 'filtered', BLOCKLIST: 'filtered', PROHIBITED_CONTENT: 'filtered',
  SPII: 'filtered', IMAGE_SAFETY: 'filtered', IMAGE_PROHIBITED_CONTENT: 'filtered', IMAGE_RECITATION: 'filtered', MODEL_ARMOR: 'filtered',
  MALFORMED_FUNCTION_CALL: 'error', UNEXPECTED_TOOL_CALL: 'error',
};

function geminiUsage(usage: unknown): { inputTokens: number | undefined; outputTokens: number | undefined } {
  if (!isJson(usage)) return { inputTokens: undefined, outputTokens: undefined };
  return { inputTokens: number(usage['promptTokenCount']), outputTokens: sum(usage['candidatesTokenCount'], usage['thoughtsTokenCount']) };
}

/** Set `value` at a Vertex `jsonPath` (`$.a.b[0].c`) inside `root`; strings continue what is there. */
function setAtPath(root: Json, path: string, value: unknown, append: boolean): void {
  const segments = [...path.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] === undefined ? match[1] : Number(match[2])));
  let node: Record<string | number, unknown> = root;
  segments.forEach((segment, index) => {
    if (segment === undefined) return;
    if (index === segments.length - 1) {
      const current = node[segment];
      node[segment] = append && typeof current === 'string' && typeof value === 'string' ? current + value : value;
      return;
    }
    const next = segments[index + 1];
    if (typeof node[segment] !== 'object' || node[segment] === null) node[segment] = typeof next === 'number' ? [] : {};
    node = node[segment] as Record<string | number, unknown>;
  });
}

function readGeminiChunks(chunks: Json[]): Meaning {
  let text = '';
  const calls: Meaning['calls'] = [];
  // Vertex streams a call's arguments in pieces (`partialArgs`) after a head with its name and `willContinue`.
  let open: { name: string; args: Json } | undefined;
  let reason: unknown;
  let usage: unknown;
  let blocked = false;
  let failed = false;
  for (const chunk of chunks) {
    if (isJson(chunk['error'])) failed = true;
    if (isJson(chunk['usageMetadata'])) usage = chunk['usageMetadata'];
    const feedback = chunk['promptFeedback'];
    if (isJson(feedback) && feedback['blockReason'] !== undefined && list(chunk['candidates']).length === 0) blocked = true;
    for (const candidate of list(chunk['candidates'])) {
      if (!isJson(candidate) || (candidate['index'] ?? 0) !== 0) continue;
      if (candidate['finishReason'] !== undefined) reason = candidate['finishReason'];
      const content = isJson(candidate['content']) ? candidate['content'] : {};
      for (const part of list(content['parts'])) {
        if (!isJson(part)) continue;
        if (typeof part['text'] === 'string' && part['thought'] !== true) text += part['text'];
        const call = part['functionCall'];
        if (!isJson(call)) continue;
        if (typeof call['name'] === 'string') {
          const args = isJson(call['args']) ? { ...call['args'] } : {};
          open = { name: call['name'], args };
          calls.push({ name: call['name'], arguments: args });
        }
        for (const piece of list(call['partialArgs'])) {
          if (!isJson(piece) || open === undefined || typeof piece['jsonPath'] !== 'string') continue;
          const value = piece['stringValue'] ?? piece['numberValue'] ?? piece['boolValue'] ?? (piece['nullValue'] !== undefined ? null : undefined);
          if (value !== undefined) setAtPath(open.args, piece['jsonPath'], value, typeof piece['stringValue'] === 'string');
        }
        if (call['willContinue'] !== true && typeof call['name'] !== 'string') open = undefined;
      }
    }
  }
  const stop = failed ? 'error' : blocked ? 'filtered' : typeof reason === 'string' ? (GEMINI_STOP[reason] ?? 'stop') : undefined;
  const read = calls.map((call) => ({ name: call.name, arguments: readArguments(call.arguments) }));
  return finish({ text, calls: read, ...geminiUsage(usage) }, stop);
}

// ---------------------------------------------------------------------------

/** The meaning of a whole response body of `format`. */
export function readWhole(format: WireFormat, body: unknown): Meaning {
  const json = isJson(body) ? body : {};
  switch (format) {
    case 'anthropic':
      return readAnthropic(json);
    case 'openai-chat':
      return readChat(json);
    case 'openai-responses':
      return readResponses(json);
    case 'gemini':
      return readGeminiChunks([json]);
  }
}

/** The meaning of a stream of `format`, given its event payloads in order. */
export function readStream(format: WireFormat, events: unknown[]): Meaning {
  const payloads = events.filter(isJson);
  switch (format) {
    case 'anthropic':
      return readAnthropicStream(payloads);
    case 'openai-chat':
      return readChatStream(payloads);
    case 'openai-responses':
      return readResponsesStream(payloads);
    case 'gemini':
      return readGeminiChunks(payloads);
  }
}
