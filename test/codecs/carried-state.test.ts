/**
 * Reasoning state carried through a caller of another format
 * (src/core/carried-state.ts), at the codec level: the answer is carried
 * into the caller's format, encoded for it, read back as the caller would
 * send it on its next turn, restored, and encoded for the upstream again.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../src/formats/convert.ts';
import { carryEventState, carryResponseStates, createEventCarrier, restoreRequestStates } from '../../src/core/carried-state.ts';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import type { FormatId, Message, Part, Request } from '../../src/core/ir.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { decodeEvents, encodeEvents, messagesAsWireEvents } from '../support/streams.ts';

const test = suite('carried state');
const SIGNATURE = 'CiQBjz1rX2Zyb20tZ2VtaW5pLTMtcHJvLXByZXZpZXc=';

/** A Gemini 3 answer: two parallel calls, the first signed (as Gemini signs the first call of a step). */
const GEMINI_CALLS = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { functionCall: { name: 'lookup_order', args: { order_id: 'A' } }, thoughtSignature: SIGNATURE },
          { functionCall: { name: 'lookup_order', args: { order_id: 'B' } } },
        ],
      },
      finishReason: 'STOP',
    },
  ],
  usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13 },
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'resp-1',
};

/** The request a caller of `caller`'s format sends next: the question, the answer as it got it, and the results of its calls. */
function nextTurn(caller: FormatId, answer: Part[]): Request {
  const calls = answer.filter((part) => part.type === 'tool_call');
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Where are orders A and B?' }] },
    { role: 'assistant', parts: answer },
    ...calls.map((call, index): Message => ({ role: 'tool', parts: [{ type: 'tool_result', callId: call.type === 'tool_call' ? call.id : '', name: 'lookup_order', content: [{ type: 'text', text: `order ${index}` }] }] })),
  ];
  // Through the caller's own request codec, as its SDK would send it.
  const wire = encodeRequest(caller, { model: 'm', messages }).body;
  return decodeRequest(caller, wire, { model: 'm' }).ir;
}

/** The Gemini function call parts of a request encoded for Gemini. */
function geminiCallParts(request: Request): Record<string, unknown>[] {
  const body = encodeRequest('gemini', request).body as { contents: { parts: Record<string, unknown>[] }[] };
  return body.contents.flatMap((content) => content.parts).filter((part) => part['functionCall'] !== undefined);
}

const callers = implementedFormats().filter((format) => format !== 'gemini');

for (const caller of callers) {
  test(`a Gemini 3 call's thoughtSignature goes through a ${caller} caller and back onto its functionCall (whole)`, () => {
    const response = carryResponseStates(decodeResponse('gemini', GEMINI_CALLS).ir, caller);
    const encoded = encodeResponse(caller, response);
    assert.equal(encoded.losses.filter((loss) => loss.code === 'reasoning_state_dropped'), [], 'nothing dropped');
    const answer = decodeResponse(caller, encoded.body, { model: 'm' }).ir.candidates[0]?.message.parts ?? [];
    const request = restoreRequestStates(nextTurn(caller, answer));
    const parts = geminiCallParts(request);
    assert.is(parts.length, 2);
    assert.is(parts[0]?.['thoughtSignature'], SIGNATURE, 'the first call gets its signature back');
    assert.is(parts[1]?.['thoughtSignature'], undefined);
    const results = request.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool_result');
    const ids = request.messages.flatMap((message) => message.parts).flatMap((part) => (part.type === 'tool_call' ? [part.id] : []));
    assert.equal(results.map((part) => (part.type === 'tool_result' ? part.callId : '')), ids, 'each result answers its restored call');
  });

  test(`a Gemini 3 call's thoughtSignature goes through a ${caller} caller and back onto its functionCall (streamed)`, () => {
    const events = responseToEvents(decodeResponse('gemini', GEMINI_CALLS).ir).map((event) => carryEventState(event, caller));
    // Through the caller's own stream encoder, and read back as its SDK reads the stream.
    const encoded = encodeEvents(caller, events, 'm');
    assert.equal(encoded.losses.losses.filter((loss) => loss.code === 'reasoning_state_dropped'), [], 'nothing dropped');
    const decoded = decodeEvents(caller, messagesAsWireEvents(encoded.messages), 'm');
    const carried = accumulate(decoded.events).response;
    const request = restoreRequestStates(nextTurn(caller, carried.candidates[0]?.message.parts ?? []));
    assert.is(geminiCallParts(request)[0]?.['thoughtSignature'], SIGNATURE);
  });
}

test('a Gemini caller keeps the signature on the call itself: nothing is wrapped', () => {
  const response = carryResponseStates(decodeResponse('gemini', GEMINI_CALLS).ir, 'gemini');
  const call = response.candidates[0]?.message.parts[0];
  assert.ok(call?.type === 'tool_call' && !call.id.includes('__il1_'));
  assert.equal(encodeResponse('gemini', response).body, GEMINI_CALLS);
});

/** Claude with thinking, answering with a call. */
const ANTHROPIC_CALL = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [
    { type: 'thinking', thinking: 'I should look the order up.', signature: 'EqQBCkYIBxgCKkA+c2lnbmF0dXJl' },
    { type: 'tool_use', id: 'toolu_01A', name: 'lookup_order', input: { order_id: 'A-18' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 4 },
};

/** The next Gemini request as Gemini CLI sends it: its history without the thought parts, and the function response. */
function geminiCliTurn(modelParts: Record<string, unknown>[]): unknown {
  return {
    contents: [
      { role: 'user', parts: [{ text: 'Where is order A-18?' }] },
      { role: 'model', parts: modelParts.filter((part) => part['thought'] !== true) },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup_order', response: { output: 'shipped' } } }] },
    ],
    generationConfig: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
  };
}

/** The first assistant turn of `request` encoded for Anthropic. */
function anthropicAssistant(request: Request): Record<string, unknown>[] {
  const body = encodeRequest('anthropic', request, { model: 'claude-test' }).body as { messages: { role: string; content: Record<string, unknown>[] }[] };
  return body.messages.find((message) => message.role === 'assistant')?.content ?? [];
}

test("a Gemini caller gets Claude's thinking on its first functionCall too, where Gemini CLI keeps it (whole)", () => {
  const response = carryResponseStates(decodeResponse('anthropic', ANTHROPIC_CALL).ir, 'gemini');
  const body = encodeResponse('gemini', response).body as { candidates: { content: { parts: Record<string, unknown>[] } }[] };
  const parts = body.candidates[0]?.content.parts ?? [];
  const call = parts.find((part) => part['functionCall'] !== undefined);
  assert.match(String(call?.['thoughtSignature']), /^interlingua\.1c\./);
  const request = restoreRequestStates(decodeRequest('gemini', geminiCliTurn(parts), { model: 'gemini-test' }).ir);
  const assistant = anthropicAssistant(request);
  assert.equal(assistant[0], { type: 'thinking', thinking: 'I should look the order up.', signature: 'EqQBCkYIBxgCKkA+c2lnbmF0dXJl' });
  assert.is(assistant[1]?.['type'], 'tool_use');
  // A client that keeps the thought part too sends the thinking once.
  const kept = restoreRequestStates(decodeRequest('gemini', { ...(geminiCliTurn(parts) as object), contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { name: 'lookup_order', response: { output: 'shipped' } } }] }] }, { model: 'gemini-test' }).ir);
  assert.equal(anthropicAssistant(kept).filter((block) => block['type'] === 'thinking').length, 1);
});

test("a Gemini caller gets Claude's thinking on its first functionCall too, where Gemini CLI keeps it (streamed)", () => {
  const carry = createEventCarrier('gemini');
  // Claude's own stream, as the Anthropic decoder reads it (a thinking block starts with an empty signature).
  const claude = encodeEvents('anthropic', responseToEvents(decodeResponse('anthropic', ANTHROPIC_CALL).ir), 'claude-test').messages;
  const events = decodeEvents('anthropic', messagesAsWireEvents(claude), 'claude-test').events.map(carry);
  const encoded = encodeEvents('gemini', events, 'gemini-test');
  const chunks = messagesAsWireEvents(encoded.messages).map((event) => event.data as { candidates?: { content?: { parts?: Record<string, unknown>[] } }[] });
  const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
  const call = parts.find((part) => part['functionCall'] !== undefined);
  assert.match(String(call?.['thoughtSignature']), /^interlingua\.1c\./);
  const request = restoreRequestStates(decodeRequest('gemini', geminiCliTurn(parts), { model: 'gemini-test' }).ir);
  assert.equal(anthropicAssistant(request)[0], { type: 'thinking', thinking: 'I should look the order up.', signature: 'EqQBCkYIBxgCKkA+c2lnbmF0dXJl' });
});

test.run();
