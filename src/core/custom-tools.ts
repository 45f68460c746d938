/**
 * OpenAI custom (free-text) tools on formats whose tools take JSON objects
 * (Anthropic, Gemini, Converse, Ollama): such a target gets a function of
 * the same name with one string parameter, `input`, and a custom call in
 * the history goes out as a call of it with its text as `input`. An answer
 * calls that function; {@link restoreCustomCalls} (a whole answer) and
 * {@link CustomCallRestorer} (a stream) turn those calls back into custom
 * calls for a caller that declared the tool custom, given the request's
 * custom tool names ({@link customToolNames}): the proxy passes them.
 */
import type { CustomTool, FunctionTool, Part, Request, Response, ToolCallPart } from './ir.ts';
import type { LossCollector } from './losses.ts';
import type { StreamEvent } from './stream-events.ts';

/** The one parameter of the function that stands for a custom tool. */
export const CUSTOM_INPUT_KEY = 'input';

/** The function a target whose tools take JSON objects gets for custom tool `tool`, reported at `path` (`target`: the format's display name). */
export function customAsFunction(tool: CustomTool, losses: LossCollector, path: string, target: string): FunctionTool {
  const grammar = tool.format?.type === 'grammar' ? tool.format : undefined;
  const description =
    grammar === undefined
      ? 'The tool\'s input, free text.'
      : `The tool's input: text that this ${grammar.syntax} grammar accepts.\n${grammar.definition}`;
  const fn: FunctionTool = {
    type: 'function',
    name: tool.name,
    parameters: { type: 'object', properties: { [CUSTOM_INPUT_KEY]: { type: 'string', description } }, required: [CUSTOM_INPUT_KEY] },
  };
  if (tool.description !== undefined) fn.description = tool.description;
  losses.addAt(
    tool,
    'approximated',
    path,
    `custom tool "${tool.name}" sent as a ${target} function taking its text as "${CUSTOM_INPUT_KEY}"${grammar === undefined ? '' : ` (its ${grammar.syntax} grammar in that parameter's description, not enforced)`}; its calls come back as function calls unless the answer is converted with the request's custom tools, as the proxy does`,
  );
  return fn;
}

/** The opening and the closing of a custom call's JSON arguments as written (see {@link customArgumentsPiece}). */
const CUSTOM_JSON_OPENING = `{"${CUSTOM_INPUT_KEY}":"`;
export const CUSTOM_JSON_CLOSING = '"}';

/**
 * The next piece of a streamed custom call's arguments where tools take JSON
 * (`{"input": "…"}`): `text` escaped as JSON string characters, after the
 * opening for the `first` piece. Escaped apart, the pieces join into the
 * string's JSON even where a surrogate pair is cut between them (each half
 * is then a `\u` escape); {@link CUSTOM_JSON_CLOSING} ends it.
 */
export function customArgumentsPiece(text: string, first: boolean): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return first ? CUSTOM_JSON_OPENING + escaped : escaped;
}

/** The names of `request`'s custom tools; `undefined` when it has none. */
export function customToolNames(request: Request): ReadonlySet<string> | undefined {
  let names: Set<string> | undefined;
  for (const tool of request.tools ?? []) if (tool.type === 'custom') (names ??= new Set()).add(tool.name);
  return names;
}

/** The text of a call of a custom tool's function: the string `input` of arguments that hold nothing else; `undefined` for any other arguments. */
function inputOf(part: ToolCallPart): string | undefined {
  const args = part.arguments;
  if (args === undefined) return undefined;
  let input: unknown;
  for (const key in args) {
    if (key !== CUSTOM_INPUT_KEY) return undefined;
    input = args[key];
  }
  return typeof input === 'string' ? input : undefined;
}

/** `part` (a call of one of `names`, not yet custom) as a custom call with text `text`. */
function customCall(part: ToolCallPart, text: string): ToolCallPart {
  const { rawArguments: _raw, ...rest } = part;
  return { ...rest, arguments: undefined, rawArguments: text, kind: 'custom' };
}

/** Whether `part` calls the function that stood for one of the custom tools `names`. */
function callsCustom(part: Part, names: ReadonlySet<string>): part is ToolCallPart {
  return part.type === 'tool_call' && part.kind !== 'custom' && names.has(part.name);
}

/** The text of such a call: its `input`, or, when the model gave arguments of another shape, their JSON. */
function customText(part: ToolCallPart): string {
  return inputOf(part) ?? part.rawArguments ?? JSON.stringify(part.arguments ?? {});
}

/**
 * Turn the calls in `response` of the functions that stood for custom tools
 * `names` back into custom calls (in place): the text is the string
 * `input`, or the arguments' JSON when the model gave another shape (as a
 * stream, which has begun the call as custom by then, ends it).
 */
export function restoreCustomCalls(response: Response, names: ReadonlySet<string>): Response {
  for (const candidate of response.candidates) {
    const parts = candidate.message.parts;
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index] as Part;
      if (callsCustom(part, names)) parts[index] = customCall(part, customText(part));
    }
  }
  return response;
}

/** How the text of one streamed call's `{"input": "…"}` arguments is being read. */
interface OpenCall {
  /** The argument text received so far. */
  raw: string;
  /** Before the `input` string's opening quote; in the string; done (the string has closed, or the arguments do not open as `{"input": "`). */
  state: 'opening' | 'string' | 'done';
  /** How far `raw` has been decoded. */
  at: number;
}

/** The opening of the arguments, as any writer may space it. */
const INPUT_OPENING = new RegExp(`^\\s*\\{\\s*"${CUSTOM_INPUT_KEY}"\\s*:\\s*"`);
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A stream's calls of the functions that stood for custom tools, back as
 * custom calls: the call's start says it is custom, each argument delta
 * becomes the next characters of the `input` string (its JSON escapes
 * decoded, an escape cut between deltas held for the next one), and the
 * call's end carries the whole text. Arguments that do not open as
 * `{"input": "` give no text while they stream; the end carries the input
 * when the whole arguments are `{"input": …}`, else the arguments' JSON as
 * the call's text (it began as a custom call and stays one).
 */
export class CustomCallRestorer {
  readonly #names: ReadonlySet<string>;
  readonly #open = new Map<string, OpenCall>();

  constructor(names: ReadonlySet<string>) {
    this.#names = names;
  }

  map(event: StreamEvent): StreamEvent {
    switch (event.type) {
      case 'part_start': {
        const part = event.part;
        if (!callsCustom(part, this.#names)) return event;
        // A call that starts with its whole arguments (a decoder may send one so) has its text at once.
        const input = inputOf(part);
        this.#open.set(`${event.candidate}:${event.index}`, { raw: '', state: input === undefined ? 'opening' : 'done', at: 0 });
        return { ...event, part: customCall(part, input ?? '') };
      }
      case 'tool_call_delta': {
        const call = this.#open.get(`${event.candidate}:${event.index}`);
        if (call === undefined) return event;
        call.raw += event.arguments;
        return { ...event, arguments: decodeMore(call) };
      }
      case 'part_end': {
        const key = `${event.candidate}:${event.index}`;
        const call = this.#open.get(key);
        if (call === undefined) return event;
        this.#open.delete(key);
        const part = event.part;
        if (part === undefined || !callsCustom(part, this.#names)) return event;
        // Arguments of another shape (the model did not keep to the one string): the call has begun as custom, so its text is the arguments' JSON as streamed.
        return { ...event, part: customCall(part, inputOf(part) ?? (call.raw !== '' ? call.raw : customText(part))) };
      }
      default:
        return event;
    }
  }
}

/** The characters of `call`'s `input` string that its new argument text completes. */
function decodeMore(call: OpenCall): string {
  if (call.state === 'done') return '';
  const raw = call.raw;
  if (call.state === 'opening') {
    const opening = INPUT_OPENING.exec(raw);
    if (opening === null) {
      // Not yet enough text to tell, or arguments of another shape.
      if (!CUSTOM_JSON_OPENING.startsWith(raw.replace(/\s+/g, ''))) call.state = 'done';
      return '';
    }
    call.state = 'string';
    call.at = opening[0].length;
  }
  let out = '';
  let at = call.at;
  while (at < raw.length) {
    const quote = raw.indexOf('"', at);
    const slash = raw.indexOf('\\', at);
    if (slash === -1 || (quote !== -1 && quote < slash)) {
      if (quote === -1) {
        out += raw.slice(at);
        at = raw.length;
        break;
      }
      out += raw.slice(at, quote);
      at = quote + 1;
      call.state = 'done';
      break;
    }
    out += raw.slice(at, slash);
    at = slash;
    const kind = raw[at + 1];
    if (kind === undefined) break;
    if (kind === 'u') {
      if (at + 6 > raw.length) break;
      out += String.fromCharCode(Number.parseInt(raw.slice(at + 2, at + 6), 16));
      at += 6;
    } else {
      out += SIMPLE_ESCAPES[kind] ?? kind;
      at += 2;
    }
  }
  call.at = at;
  return out;
}
