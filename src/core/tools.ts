/**
 * Tool-call arguments travel as a JSON string (OpenAI) or a JSON object
 * (Anthropic, Gemini). The IR keeps both: the parsed object and, where the
 * source sent text, that text, so a string → string trip never re-serialises
 * and invalid JSON is never thrown away. Also: the tool-call names and
 * made-up ids encoders share, and what a target gets when none of a
 * request's tools could be sent.
 */
import type { LossCollector } from './losses.ts';
import type { Request, ToolCallPart } from './ir.ts';
import { isObject, mayNestTooDeep, tooDeep } from './wire.ts';
import { CUSTOM_INPUT_KEY } from './custom-tools.ts';

/** The IR fields for argument text from the wire: parsed when it is a JSON object, always kept raw. */
export function parseArguments(text: string): Pick<ToolCallPart, 'arguments' | 'rawArguments'> {
  return { arguments: argumentsObject(text), rawArguments: text };
}

/** The `arguments` that {@link parseArguments} gives for `text`, without the object around it. */
export function argumentsObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    // Text nested too deep to walk safely stays text, like any other argument text that is not a usable object.
    return isObject(parsed) && (!mayNestTooDeep(text) || tooDeep(parsed) === undefined) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The arguments as JSON text, for formats that send a string. */
export function argumentsAsText(part: ToolCallPart): string {
  if (part.rawArguments !== undefined) return part.rawArguments;
  return JSON.stringify(part.arguments ?? {});
}

/** Key under which argument text that is not a JSON object travels to object-only formats. */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

/**
 * The arguments as a JSON object, for formats that send an object. A custom
 * tool's call gives its text as `input`, the parameter of the function that
 * stands for the tool there (`customAsFunction`); other text that is not a
 * JSON object is kept under {@link RAW_ARGUMENTS_KEY} and reported.
 */
export function argumentsAsObject(part: ToolCallPart, losses: LossCollector, path: string): Record<string, unknown> {
  if (part.arguments !== undefined) return part.arguments;
  if (part.kind === 'custom') {
    losses.add('approximated', path, `custom tool call "${part.name}" sent as a call of the function that stands for the tool, its text as "${CUSTOM_INPUT_KEY}"`, 'info');
    return { [CUSTOM_INPUT_KEY]: part.rawArguments ?? '' };
  }
  losses.add(
    'invalid_arguments',
    path,
    `arguments of tool call "${part.name}" are not a JSON object; sent as text under "${RAW_ARGUMENTS_KEY}"`,
  );
  return { [RAW_ARGUMENTS_KEY]: part.rawArguments ?? '' };
}

/** How many of the latest calls {@link CallNames.of} compares ids with before entering every call into a map. */
const RECENT_CALLS = 16;

/**
 * The names of the tool calls an encoder has written, by call id (the
 * latest call with an id wins), for a tool result that carries no name of
 * its own where the target needs one (Gemini, Ollama), or a decoder has
 * read, for the results that answer them (Anthropic). Calls are queued,
 * and entered into a map only when a result looks up an id that is not
 * among the last few: a result mostly answers one of the calls just before
 * it (most bodies, every response, never look one up), and comparing a few
 * ids costs less than hashing every call id.
 */
export class CallNames {
  readonly #calls: { readonly id: string; readonly name: string }[] = [];
  #byId: Map<string, string> | undefined;

  /** Queue a call: an IR tool call, or the id and name of one a decoder keeps opaque. */
  add(call: { readonly id: string; readonly name: string }): void {
    this.#calls.push(call);
  }

  of(callId: string): string | undefined {
    const calls = this.#calls;
    if (calls.length > 0) {
      const stop = calls.length > RECENT_CALLS ? calls.length - RECENT_CALLS : 0;
      for (let index = calls.length - 1; index >= stop; index--) {
        const call = calls[index]!;
        if (call.id === callId) return call.name;
      }
      const byId = (this.#byId ??= new Map());
      for (let index = 0; index < calls.length; index++) {
        const call = calls[index]!;
        byId.set(call.id, call.name);
      }
      calls.length = 0;
    }
    return this.#byId?.get(callId);
  }
}

/** Scopes and indexes below these get their made-up call ids from {@link MadeUpIds}'s table. */
const TABLE_SCOPES = 1024;
const TABLE_INDEXES = 32;

/**
 * Made-up call ids `<prefix><scope>_<index>` (the Gemini and Ollama
 * decoders' synthesised ids), for a numeric scope (a message's index) made
 * once per process and kept: a string built by concatenation is a rope that
 * every target's id check (Anthropic's character check) or `JSON.stringify`
 * flattens again per conversion, while a kept one is flat already and
 * allocates nothing. Beyond the table the id is built per call.
 */
export class MadeUpIds {
  readonly #prefix: string;
  readonly #table: (string | undefined)[][] = [];

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  of(scope: string | number, index: number): string {
    if (typeof scope !== 'number' || scope >= TABLE_SCOPES || index >= TABLE_INDEXES) return `${this.#prefix}${scope}_${index}`;
    const row = (this.#table[scope] ??= []);
    let id = row[index];
    if (id === undefined) {
      // Joined: a flat string (a template literal of this length makes a rope).
      id = [this.#prefix, scope, '_', index].join('');
      row[index] = id;
    }
    return id;
  }
}

/**
 * True when `request` offered tools and the target could send none of them
 * (each reported as it was dropped): the target gets no tools list, since
 * the APIs refuse an empty one (OpenAI `empty_array`, Converse's minimum of
 * one), and no tool choice or parallel switch, which they refuse without
 * tools; this reports those two.
 */
export function allToolsDropped(request: Request, sent: number, losses: LossCollector, target: string): boolean {
  if (sent > 0 || request.tools === undefined || request.tools.length === 0) return false;
  const choice = request.toolChoice;
  if (choice !== undefined) {
    // Without tools the model calls none, which is what auto and none come to.
    const moot = choice.type === 'auto' || choice.type === 'none';
    losses.add('dropped_field', '/toolChoice', `${target} takes a tool choice only with tools, and none of this request's went out as one; dropped`, moot ? 'info' : 'warning');
  }
  if (request.parallelToolCalls !== undefined) losses.add('dropped_field', '/parallelToolCalls', `${target} takes the parallel tool-call switch only with tools; dropped`, 'info');
  return true;
}

