/**
 * The keeper of reasoning state on its own: kept under the caller's
 * credential, restored only for it, only to the vendor and model family
 * that made it, and every miss a loss, never a failure.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Part, Request } from '../../src/core/ir.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { StoreError, type StateStore } from '../../src/store/store.ts';
import { createReasoningKeeper } from '../../src/state/reasoning-keeper.ts';
import { modelFamily, needsKeeping, type ReasoningOrigin } from '../../src/state/reasoning-record.ts';

const test = suite('reasoning state: the keeper');

const THINKING: Part = { type: 'reasoning', text: 'Look it up.', state: { format: 'anthropic', kind: 'signature', value: 'c2lnbmF0dXJl' } };
const CALL: Part = { type: 'tool_call', id: 'toolu_01A', name: 'lookup_order', arguments: { order_id: 'A-18' } };
const ANSWER: Part[] = [THINKING, CALL];
const ORIGIN: ReasoningOrigin = { format: 'anthropic', dialect: undefined, model: 'claude-sonnet-4-5-20250929' };

/** The Chat caller's next request: its question, the answer as it echoed it (no thinking), and the tool result. */
function nextRequest(call: Part = CALL): Request {
  return {
    reasoning: { effort: 'high' },
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'Where is A-18?' }] },
      { role: 'assistant', parts: [call] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_01A', content: [{ type: 'text', text: 'shipped' }] }] },
    ],
  };
}

async function keepThenRestore(store: StateStore, keptBy: string, restoredBy: string, origin = ORIGIN, request = nextRequest()): Promise<{ request: Request; losses: LossCollector }> {
  const keeper = createReasoningKeeper(store);
  await keeper.session('openai-chat', keptBy).keep([ANSWER], ORIGIN, new LossCollector());
  const losses = new LossCollector();
  await keeper.session('openai-chat', restoredBy).restore(request, origin, losses);
  return { request, losses };
}

test('the credential that got the answer gets its thinking back into the assistant turn, in the upstream\'s order', async () => {
  const { request, losses } = await keepThenRestore(createMemoryStore(), 'key-A', 'key-A');
  assert.equal(request.messages[1]?.parts, ANSWER);
  assert.equal(losses.losses, []);
});

test('another credential restores nothing, and the miss is a loss pointing at the assistant turn', async () => {
  const { request, losses } = await keepThenRestore(createMemoryStore(), 'key-A', 'key-B');
  assert.equal(request.messages[1]?.parts, [CALL]);
  assert.equal(losses.losses.map((loss) => [loss.code, loss.path]), [['reasoning_state_dropped', '/messages/1']]);
  assert.match(losses.losses[0]?.message ?? '', 'another credential');
});

test('an edited message (another argument) restores nothing', async () => {
  const edited: Part = { ...CALL, arguments: { order_id: 'A-19' } } as Part;
  const { request, losses } = await keepThenRestore(createMemoryStore(), 'key-A', 'key-A', ORIGIN, nextRequest(edited));
  assert.equal(request.messages[1]?.parts, [edited]);
  assert.is(losses.losses.length, 1);
});

test('an expired record restores nothing', async () => {
  let now = 1_000_000;
  const store = createMemoryStore({ ttlSeconds: 60, now: () => now });
  const keeper = createReasoningKeeper(store);
  await keeper.session('openai-chat', 'key-A').keep([ANSWER], ORIGIN, new LossCollector());
  now += 61_000;
  const request = nextRequest();
  const losses = new LossCollector();
  await keeper.session('openai-chat', 'key-A').restore(request, ORIGIN, losses);
  assert.equal(request.messages[1]?.parts, [CALL]);
  assert.is(losses.losses[0]?.code, 'reasoning_state_dropped');
});

test('state goes back only to the vendor, dialect and model family that made it', async () => {
  for (const origin of [
    { ...ORIGIN, format: 'bedrock-converse' as const },
    { ...ORIGIN, dialect: 'openrouter' },
    { ...ORIGIN, model: 'claude-opus-3' },
  ]) {
    const { request, losses } = await keepThenRestore(createMemoryStore(), 'key-A', 'key-A', origin);
    assert.equal(request.messages[1]?.parts, [CALL], JSON.stringify(origin));
    assert.match(losses.losses[0]?.message ?? '', 'was not sent');
  }
  // Another dated snapshot of the same family takes it.
  const { request } = await keepThenRestore(createMemoryStore(), 'key-A', 'key-A', { ...ORIGIN, model: 'claude-sonnet-4-6' });
  assert.equal(request.messages[1]?.parts, ANSWER);
});

test('model families: the name up to its first number', () => {
  assert.is(modelFamily('claude-sonnet-4-5-20250929'), 'claude-sonnet-4');
  assert.is(modelFamily('models/gemini-3-pro-preview'), 'gemini-3');
  assert.is(modelFamily('gemini-2.5-flash'), 'gemini-2');
  assert.is(modelFamily('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), 'us.anthropic.claude-sonnet-4');
  assert.is(modelFamily(undefined), '');
});

test('a store that fails is a loss on either side, never a failed request', async () => {
  const broken: StateStore = {
    get: () => Promise.reject(new StoreError('unavailable', 'redis is down')),
    set: () => Promise.reject(new StoreError('unavailable', 'redis is down')),
    delete: () => Promise.resolve(false),
  };
  const keeper = createReasoningKeeper(broken);
  const kept = new LossCollector();
  await keeper.session('openai-chat', 'key-A').keep([ANSWER], ORIGIN, kept);
  assert.match(kept.losses[0]?.message ?? '', 'the store is unavailable');
  assert.not.match(kept.losses[0]?.message ?? '', 'redis', 'the backend\'s own message, which may name its address, stays out');
  const restored = new LossCollector();
  const request = nextRequest();
  await keeper.session('openai-chat', 'key-A').restore(request, ORIGIN, restored);
  assert.equal(request.messages[1]?.parts, [CALL]);
  assert.match(restored.losses[0]?.message ?? '', 'the store is unavailable');
});

test('nothing is kept for a caller that carries the state itself, for a final answer, or for an answer without state', async () => {
  const writes: string[] = [];
  const store = createMemoryStore();
  const counting: StateStore = { ...store, set: (key, value) => (writes.push(key), store.set(key, value)) };
  const keeper = createReasoningKeeper(counting);
  await keeper.session('anthropic', 'k').keep([ANSWER], { ...ORIGIN, format: 'bedrock-converse' }, new LossCollector());
  await keeper.session('openai-chat', 'k').keep([[THINKING, { type: 'text', text: 'Done.' }]], ORIGIN, new LossCollector());
  await keeper.session('openai-chat', 'k').keep([[CALL]], ORIGIN, new LossCollector());
  assert.equal(writes, []);
  await keeper.session('openai-chat', 'k').keep([ANSWER], ORIGIN, new LossCollector());
  assert.is(writes.length, 1);
  assert.match(writes[0] ?? '', /^interlingua:reasoning:[0-9a-f]{32}:[0-9a-f]{64}$/);
});

test('which answers need keeping: any state for a caller with no slot; for a caller with one, only a Gemini signature on text, which rides in none', () => {
  const signedText: Part = { type: 'text', text: 'Checking.', extensions: { gemini: { thoughtSignature: 'c2ln' } } };
  const signedCall: Part = { ...CALL, extensions: { gemini: { thoughtSignature: 'c2ln' } } } as Part;
  assert.ok(needsKeeping([signedCall], 'openai-chat', 'gemini'));
  assert.ok(needsKeeping([signedCall], 'ollama', 'gemini'));
  assert.not.ok(needsKeeping([signedCall], 'anthropic', 'gemini'), 'the call id carries it');
  assert.ok(needsKeeping([signedText, signedCall], 'anthropic', 'gemini'));
  assert.not.ok(needsKeeping([signedText, signedCall], 'gemini', 'gemini'));
  assert.not.ok(needsKeeping(ANSWER, 'openai-responses', 'anthropic'), 'wrapped into encrypted_content');
  assert.ok(needsKeeping([{ type: 'reasoning', text: '', id: 'rs_1' }, CALL], 'openai-chat', 'openai-responses'), 'a stored reasoning item by id');
});

test('a restore waits for a keep still being written (the next turn can come before the write ends)', async () => {
  const store = createMemoryStore();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow: StateStore = { ...store, set: async (key, value) => (await gate, store.set(key, value)) };
  const keeper = createReasoningKeeper(slow);
  const keeping = keeper.session('openai-chat', 'k').keep([ANSWER], ORIGIN, new LossCollector());
  const request = nextRequest();
  const restoring = keeper.session('openai-chat', 'k').restore(request, ORIGIN, new LossCollector());
  release();
  await Promise.all([keeping, restoring]);
  assert.equal(request.messages[1]?.parts, ANSWER);
});

test.run();
