/**
 * Tool-call arguments travel as a JSON string (OpenAI) or a JSON object
 * (Anthropic, Gemini). The IR keeps both: the parsed object and, where the
 * source sent text, that text, so a string → string trip never re-serialises
 * and invalid JSON is never thrown away.
 */
import type { LossCollector } from './losses.ts';
import type { ToolCallPart } from './ir.ts';
import { isObject, mayNestTooDeep, tooDeep } from './wire.ts';

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
 * The arguments as a JSON object, for formats that send an object. Text that
 * is not a JSON object is kept under {@link RAW_ARGUMENTS_KEY} and reported.
 */
export function argumentsAsObject(part: ToolCallPart, losses: LossCollector, path: string): Record<string, unknown> {
  if (part.arguments !== undefined) return part.arguments;
  losses.add(
    'invalid_arguments',
    path,
    `arguments of tool call "${part.name}" are not a JSON object; sent as text under "${RAW_ARGUMENTS_KEY}"`,
  );
  return { [RAW_ARGUMENTS_KEY]: part.rawArguments ?? '' };
}
