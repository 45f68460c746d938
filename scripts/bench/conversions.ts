/**
 * Body conversions: for every workload and source format, the floor (parse +
 * stringify of the source text), then every target: the output floor (parse
 * of the source + stringify of interlingua's output, parsed beforehand),
 * interlingua's
 * parse → convert → stringify, and llm-bridge's and llm-protocol's on the
 * conversions they support, with where each output's meaning differs from
 * the source.
 */
import { translateBetweenProviders, type ProviderType } from 'llm-bridge';
import type { ProtocolAdapter } from 'llm-protocol';
import { convertRequest, convertResponse, implementedFormats, stringifyBody } from './lib.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { cellRatios, OUTPUT_FLOOR_WEIGHT, outputFloorOf } from './floors.ts';
import { differences, wireFacts, type Facts } from './meaning.ts';
import { measureRounds, pairedRatio, type Timing } from './timing.ts';
import { BENCH_MODEL, type BodyWorkload } from './workloads.ts';

/** llm-bridge's provider names. */
/** llm-bridge's provider names; it has no Ollama provider. */
export const BRIDGE_PROVIDER: Partial<Record<FormatId, ProviderType>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai-responses',
  gemini: 'google',
};

/** llm-bridge's provider for `format`; throws (so the cell is reported as not timed) for a format it lacks. */
export function bridgeProvider(format: FormatId): ProviderType {
  const provider = BRIDGE_PROVIDER[format];
  if (provider === undefined) throw new Error(`llm-bridge has no ${format} provider`);
  return provider;
}

/** Another translator's result in one cell. */
export interface OtherResult {
  name: string;
  timing?: Timing;
  ratio?: number;
  /** Why it was not timed (it threw). */
  error?: string;
  /** Where its output's meaning differs from the source's. */
  differences: string[];
}

/** One conversion cell. */
export interface ConversionCell {
  workload: string;
  kind: 'request' | 'response';
  from: FormatId;
  to: FormatId;
  sourceBytes: number;
  outputBytes: number;
  floor: Timing;
  /** `JSON.parse` of the source + `JSON.stringify` of interlingua's output parsed beforehand (floors.ts), in the same rounds. */
  outputFloor: Timing;
  timing: Timing;
  /** interlingua ÷ floor, median over rounds: the verdict's ratio. */
  ratio: number;
  /** Output floor ÷ floor, median over rounds. */
  outputFloorRatio: number;
  /** interlingua ÷ output floor, median over rounds. */
  overOutputFloor: number;
  losses: number;
  /** Where interlingua's output's meaning differs from the source's (expected where a loss is reported). */
  differences: string[];
  others: OtherResult[];
}

/** Options of {@link runConversions}. */
export interface ConversionOptions {
  /** Measured time per cell, ms. */
  budgetMs: number;
  /** Target duration of one batch, ms (`measureRounds`'s default when absent). */
  sampleMs?: number;
  /** Called after each cell. */
  progress?: (cell: ConversionCell) => void;
}

function interlingua(workload: BodyWorkload, from: FormatId, to: FormatId): (text: string) => { text: string; losses: number } {
  const convert = workload.kind === 'request' ? convertRequest : convertResponse;
  const options = { from, to, model: BENCH_MODEL };
  return (text) => {
    const result = convert(text, options);
    return { text: stringifyBody(result.body), losses: result.losses.length };
  };
}

function bridge(from: FormatId, to: FormatId): (text: string) => string {
  return (text) => JSON.stringify(translateBetweenProviders(bridgeProvider(from), bridgeProvider(to), JSON.parse(text) as never));
}

type Adapters = Partial<Record<FormatId, () => ProtocolAdapter>>;

/** llm-protocol's adapters (Anthropic Messages and OpenAI Chat only). It is ESM only: loaded with import(), which CommonJS test runners can do too. */
async function protocolAdapters(): Promise<Adapters> {
  const { createAnthropicAdapter, createOpenAiChatAdapter } = await import('llm-protocol');
  return { anthropic: createAnthropicAdapter, 'openai-chat': createOpenAiChatAdapter };
}

/** llm-protocol's conversion, timed the same way: `JSON.parse` → parse to its canonical form → render → `JSON.stringify`; undefined where it has no adapter. */
function protocol(adapters: Adapters, kind: 'request' | 'response', from: FormatId, to: FormatId): ((text: string) => string) | undefined {
  const source = adapters[from]?.();
  const target = adapters[to]?.();
  if (source === undefined || target === undefined) return undefined;
  if (kind === 'request') {
    return (text) => {
      const payload: unknown = JSON.parse(text);
      return JSON.stringify(target.request.renderRequest(source.request.parseRequest(payload), source.request.detectStreaming(payload)));
    };
  }
  return (text) => JSON.stringify(target.response.renderResponse(source.response.parseResponse(JSON.parse(text))));
}

/** The other translators of one cell, by name, where they take the pair. */
function othersFor(adapters: Adapters, kind: 'request' | 'response', from: FormatId, to: FormatId): { name: string; run: (text: string) => string }[] {
  const list: { name: string; run: (text: string) => string }[] = [];
  if (kind === 'request') list.push({ name: 'llm-bridge', run: bridge(from, to) });
  const viaProtocol = protocol(adapters, kind, from, to);
  if (viaProtocol !== undefined) list.push({ name: 'llm-protocol', run: viaProtocol });
  return list;
}

function factsOrError(kind: 'request' | 'response', format: FormatId, text: string): Facts | string {
  try {
    return wireFacts(kind, format, JSON.parse(text));
  } catch (error) {
    return `output does not decode as ${format}: ${(error as Error).message.slice(0, 160)}`;
  }
}

/** Scale the time budget with the body size, so a 10 MB body gets enough rounds. */
function budgetFor(options: ConversionOptions, bytes: number): number {
  return bytes > 1_000_000 ? options.budgetMs * 3 : options.budgetMs;
}

/** Run every conversion cell of `workloads`: per source, the floor and every conversion timed in interleaved rounds. */
export async function runConversions(workloads: readonly BodyWorkload[], options: ConversionOptions): Promise<ConversionCell[]> {
  const formats = implementedFormats();
  const adapters = await protocolAdapters();
  const cells: ConversionCell[] = [];
  for (const workload of workloads) {
    for (const from of formats) {
      const text = workload.texts[from];
      if (text === undefined) continue;
      const expected = wireFacts(workload.kind, from, JSON.parse(text));
      const fns: (() => unknown)[] = [() => JSON.stringify(JSON.parse(text))];
      const weights: number[] = [1];
      const pending: {
        cell: Omit<ConversionCell, 'floor' | 'outputFloor' | 'timing' | 'ratio' | 'outputFloorRatio' | 'overOutputFloor'>;
        own: number;
        outputFloor: number;
        others: { result: OtherResult; index: number }[];
      }[] = [];
      for (const to of formats) {
        const run = interlingua(workload, from, to);
        const once = run(text);
        const actual = factsOrError(workload.kind, to, once.text);
        const outputFloor = fns.push(outputFloorOf([text], [once.text])) - 1;
        weights.push(OUTPUT_FLOOR_WEIGHT);
        const own = fns.push(() => run(text).text) - 1;
        weights.push(1);
        const entry: (typeof pending)[number] = {
          cell: {
            workload: workload.name,
            kind: workload.kind,
            from,
            to,
            sourceBytes: Buffer.byteLength(text),
            outputBytes: Buffer.byteLength(once.text),
            losses: once.losses,
            differences: typeof actual === 'string' ? [actual] : differences(expected, actual),
            others: [],
          },
          own,
          outputFloor,
          others: [],
        };
        for (const other of othersFor(adapters, workload.kind, from, to)) {
          try {
            const facts = factsOrError(workload.kind, to, other.run(text));
            fns.push(() => other.run(text));
            weights.push(1);
            entry.others.push({ result: { name: other.name, differences: typeof facts === 'string' ? [facts] : differences(expected, facts) }, index: fns.length - 1 });
          } catch (error) {
            entry.cell.others.push({ name: other.name, error: (error as Error).message.slice(0, 160), differences: [] });
          }
        }
        pending.push(entry);
      }
      const timings = await measureRounds(fns, { budgetMs: budgetFor(options, text.length), weights, ...(options.sampleMs === undefined ? {} : { sampleMs: options.sampleMs }) });
      const floor = timings[0]!;
      for (const entry of pending) {
        const timing = timings[entry.own]!;
        const others = [...entry.cell.others];
        for (const other of entry.others) {
          const otherTiming = timings[other.index]!;
          others.push({ ...other.result, timing: otherTiming, ratio: pairedRatio(otherTiming, floor) });
        }
        const outputFloor = timings[entry.outputFloor]!;
        const cell: ConversionCell = { ...entry.cell, others, floor, outputFloor, timing, ...cellRatios(floor, outputFloor, timing) };
        cells.push(cell);
        options.progress?.(cell);
      }
    }
  }
  return cells;
}
