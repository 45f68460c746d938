/**
 * The CPU that keeping and restoring reasoning state adds per request
 * (issue 41 part 3): the proxy's fetch handler in this process, an OpenAI
 * Chat caller in front of an in-process Anthropic upstream that answers
 * with thinking and a tool call, without a store and with a memory store,
 * timed in interleaved rounds of the same run. One cycle is two requests:
 * the question (whose answer the store keeps) and the tool result turn
 * that echoes the answer (whose thinking the store restores). The upstream
 * answers from a prepared text with a fresh call id per cycle, so every
 * keep writes a new entry.
 *
 *   npx tsx scripts/bench/reasoning-state.ts [--budget=2000]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createProxy } from '../../src/proxy/index.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { createReasoningKeeper } from '../../src/state/reasoning-keeper.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { decodeResponse } from '../../src/formats/convert.ts';
import type { Part, Request as IrRequest } from '../../src/core/ir.ts';
import { measureRounds, type RoundTiming } from './timing.ts';
import { reasoningStateSection, type ReasoningStateCell } from './reasoning-state-report.ts';

const SIGNATURE = 'EqQBCkgIARABGAIiQL'.padEnd(344, 'x');

function answer(id: string): string {
  return JSON.stringify({
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'The user wants the order status; I should look it up before answering. '.repeat(8), signature: SIGNATURE },
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id: `toolu_01${id}`, name: 'lookup_order', input: { order_id: 'A-18' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 80 },
  });
}

const TOOLS = [{ type: 'function', function: { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } }];
const QUESTION = { role: 'user', content: 'Where is order A-18?' };

/** A proxy handler, with or without a memory store, whose upstream answers call `next()`'s id; `seen` gets each upstream request body. */
function handler(store: boolean, next: () => string, seen: (body: string) => void = () => {}) {
  const upstreamFetch = (async (_url: unknown, init?: RequestInit) => {
    seen(typeof init?.body === 'string' ? init.body : new TextDecoder().decode(init?.body as Uint8Array));
    return new Response(answer(next()), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return createProxy({ upstream: { format: 'anthropic', baseUrl: 'http://upstream.invalid', apiKey: 'bench-key' }, modelMap: { '*': 'claude-sonnet-4-5' }, fetch: upstreamFetch, telemetry: false, ...(store ? { store: createMemoryStore() } : {}) });
}

async function post(proxy: (request: Request) => Promise<Response>, body: unknown): Promise<string> {
  const response = await proxy(new Request('http://proxy.local/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer caller-key' }, body: JSON.stringify(body) }));
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the proxy answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** One cycle: the question, then the tool result turn echoing the answer. */
function cycle(store: boolean, seen?: (body: string) => void): () => Promise<void> {
  let count = 0;
  let current = '';
  const proxy = handler(store, () => current, seen);
  return async () => {
    current = `bench${++count}`;
    const first = JSON.parse(await post(proxy, { model: 'gpt-5', reasoning_effort: 'high', tools: TOOLS, messages: [QUESTION] })) as { choices: { message: { content: string | null; tool_calls: unknown[] } }[] };
    const message = first.choices[0]?.message;
    await post(proxy, {
      model: 'gpt-5',
      reasoning_effort: 'high',
      tools: TOOLS,
      messages: [QUESTION, { role: 'assistant', content: message?.content ?? null, tool_calls: message?.tool_calls ?? [] }, { role: 'tool', tool_call_id: `toolu_01${current}`, content: 'shipped on Monday' }],
    });
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** The second turn's upstream body carries the thinking back with a store, and goes without thinking without one; else the cell would time something else. */
async function checkCycles(): Promise<void> {
  for (const store of [false, true]) {
    const bodies: string[] = [];
    await cycle(store, (body) => bodies.push(body))();
    const restored = bodies[1]?.includes('"type":"thinking"') === true && bodies[1].includes('"thinking":{');
    if (restored !== store) throw new Error(`the ${store ? 'store' : 'storeless'} cycle's second turn ${restored ? 'carried' : 'lacked'} its thinking: ${bodies[1]?.slice(0, 300) ?? 'no request'}`);
  }
}

/** The keeper's own work of one cycle: keep the answer's IR, then restore it into the echoed turn. */
function keeperCycle(): () => Promise<void> {
  const keeper = createReasoningKeeper(createMemoryStore());
  const origin = { format: 'anthropic' as const, dialect: undefined, model: 'claude-sonnet-4-5' };
  let count = 0;
  return async () => {
    const id = `bench${++count}`;
    const parts = (decodeResponse('anthropic', JSON.parse(answer(id))).ir.candidates[0]?.message.parts ?? []) as Part[];
    await keeper.session('openai-chat', 'caller-key').keep([parts], origin, new LossCollector());
    const call = parts.find((part) => part.type === 'tool_call') as Part;
    const request: IrRequest = {
      reasoning: { effort: 'high' },
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Where is order A-18?' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'Let me look that up.' }, call] },
        { role: 'tool', parts: [{ type: 'tool_result', callId: `toolu_01${id}`, content: [{ type: 'text', text: 'shipped on Monday' }] }] },
      ],
    };
    await keeper.session('openai-chat', 'caller-key').restore(request, origin, new LossCollector());
    if (request.messages[1]?.parts[0]?.type !== 'reasoning') throw new Error('the keeper cell restored nothing');
  };
}

/** The keeper cell's decode of the answer alone, which {@link keeperCycle} subtracts. */
function decodeOnly(): () => void {
  let count = 0;
  return () => void decodeResponse('anthropic', JSON.parse(answer(`bench${++count}`)));
}

/** {@link measureRounds}'s CPU rounds of each function, run half in the order given and half in the reverse: the first batch of a round pays for the garbage of the round before, whichever function it is (about +200 µs per call here). */
async function bothOrders(fns: readonly (() => unknown)[], budgetMs: number): Promise<{ cpuRounds: number[] }[]> {
  const options = { budgetMs: budgetMs / 2, sampleMs: 20, weights: [1, 1, 0.5, 0.5] };
  const forward = await measureRounds(fns, options);
  const backward = (await measureRounds([...fns].reverse(), { ...options, weights: [...options.weights].reverse() })).reverse();
  return forward.map((timing: RoundTiming, index) => ({ cpuRounds: [...timing.cpuRounds, ...(backward[index] as RoundTiming).cpuRounds] }));
}

/** Time both in interleaved rounds for about `budgetMs` each. */
export async function runReasoningState(budgetMs: number): Promise<ReasoningStateCell> {
  await checkCycles();
  const [without, withStore, keeper, decode] = (await bothOrders([cycle(false), cycle(true), keeperCycle(), decodeOnly()], budgetMs)) as [{ cpuRounds: number[] }, { cpuRounds: number[] }, { cpuRounds: number[] }, { cpuRounds: number[] }];
  // A cycle is two requests.
  const withoutUs = median(without.cpuRounds) / 2e3;
  const withUs = median(withStore.cpuRounds) / 2e3;
  const cpuRatio = median(withStore.cpuRounds.map((value, index) => value / (without.cpuRounds[index] as number)));
  // Differences taken round by round, where both sides saw the same moment of the machine.
  const addedUs = median(withStore.cpuRounds.map((value, index) => value - (without.cpuRounds[index] as number))) / 2e3;
  const keeperUs = median(keeper.cpuRounds.map((value, index) => value - (decode.cpuRounds[index] as number))) / 2e3;
  return { withoutUs, withUs, addedUs, ratio: cpuRatio, keeperUs, rounds: without.cpuRounds.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { budget: { type: 'string' } } });
  // No top-level await: the bench's report is loaded by tests as CommonJS.
  void runReasoningState(Number(values.budget ?? 2000)).then((cell) => process.stdout.write(reasoningStateSection(cell)));
}
