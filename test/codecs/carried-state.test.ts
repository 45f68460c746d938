/**
 * Reasoning state carried through a caller of another format
 * (src/core/carried-state.ts), at the codec level: the answer is carried
 * into the caller's format, encoded for it, read back as the caller would
 * send it on its next turn, restored, and encoded for the upstream again.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../src/core/convert.ts';
import { carryEventState, carryResponseStates, restoreRequestStates } from '../../src/core/carried-state.ts';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import type { FormatId, Message, Part, Request } from '../../src/core/ir.ts';
import { implementedFormats } from '../../src/core/registry.ts';
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

test.run();
