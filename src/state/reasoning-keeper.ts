/**
 * Opaque reasoning state kept for callers that cannot carry it.
 *
 * A Chat or Ollama caller has no slot for another vendor's reasoning state
 * (`src/core/carried-state.ts` wraps it into the slots the other formats
 * have), so an Anthropic signature or a Gemini thought signature would not
 * come back with the caller's next turn, and the vendor refuses a tool
 * loop's turn without it. With a store, the proxy keeps the upstream's
 * assistant message ({@link ReasoningRecord}) under the caller's
 * credential scope and the hash of the message as the caller sees it
 * (`reasoning-hash.ts`: text and tool calls, normalised against what
 * clients change when they echo it), and puts it back into the IR when the
 * caller sends that assistant turn again, before the request is encoded
 * for the upstream. It goes back only to the format, dialect and model
 * family that made it; what cannot be restored (expired, kept under
 * another credential, edited, made elsewhere) is a loss, and the request
 * goes on as it would without a store.
 */
import type { FormatId, Message, Part, Request, Response } from '../core/ir.ts';
import type { LossCollector } from '../core/losses.ts';
import { credentialScope, scopedKey } from '../store/scope.ts';
import { StoreError, type StateStore } from '../store/store.ts';
import { hasReasoningSlot } from '../core/carried-state.ts';
import { assistantMessageHash, hasVisibleContent } from './reasoning-hash.ts';
import { decodeRecord, encodeRecord, needsKeeping, originMismatch, restoredParts, type ReasoningOrigin } from './reasoning-record.ts';

/** The store key kind of kept reasoning state. */
const KIND = 'reasoning';

/** One request's view of the kept state: its caller's scope and where it goes. */
export interface ReasoningSession {
  /** Put kept state back into the caller's assistant turns of the current tool loop (in place), reporting what cannot be. */
  restore(request: Request, origin: ReasoningOrigin, losses: LossCollector): Promise<void>;
  /** Keep the state of each candidate message (the upstream's parts, before any were carried for the caller) that the caller will not carry back. */
  keep(candidates: readonly (readonly Part[])[], origin: ReasoningOrigin, losses: LossCollector): Promise<void>;
  /** Whether an answer to this caller may need keeping at all (a stream accumulates its events only then). */
  readonly watches: (upstream: FormatId) => boolean;
}

/** The kept state of one proxy: sessions per request over one store. */
export interface ReasoningKeeper {
  /** A session for a request from `caller` that presented `credential`. */
  session(caller: FormatId, credential: string | undefined): ReasoningSession;
}

/** The indices of the assistant messages after the last user message: the current tool loop, whose state vendors check. */
function currentTurn(messages: readonly Message[]): number[] {
  const found: number[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const role = (messages[index] as Message).role;
    if (role === 'user') break;
    if (role === 'assistant') found.push(index);
  }
  return found;
}

/** Whether the request asks for reasoning (a miss is then worth reporting). */
function wantsReasoning(request: Request): boolean {
  const reasoning = request.reasoning;
  return reasoning !== undefined && reasoning.mode !== 'disabled' && reasoning.effort !== 'none';
}

/** What a store's failure says in a loss: its code only, since a backend's message may name its address and credentials, and losses reach the caller (strict mode). */
function storeFault(error: unknown): string {
  return error instanceof StoreError ? `the store is ${error.code === 'too_large' ? 'over its size bound' : 'unavailable'}` : 'the store failed';
}

/** Credentials whose scope is remembered at most (the map is emptied when full). */
const SCOPES_KEPT = 1000;

/** A keeper over `store`; its entries live `ttlSeconds` (default: the store's own). */
export function createReasoningKeeper(store: StateStore, ttlSeconds?: number): ReasoningKeeper {
  const setOptions = ttlSeconds === undefined ? undefined : { ttlSeconds };
  // A scope is a SHA-256 over Web Crypto: worked out once per credential, not per request.
  const scopes = new Map<string, Promise<string>>();
  const scopeOf = (credential: string | undefined): Promise<string> => {
    const key = credential ?? '';
    let scope = scopes.get(key);
    if (scope === undefined) {
      if (scopes.size >= SCOPES_KEPT) scopes.clear();
      scopes.set(key, (scope = credentialScope(credential)));
    }
    return scope;
  };
  // Keeps not yet written, by message hash: a restore of that message waits for its write, so a caller's next turn finds what its last answer kept.
  const pending = new Map<string, Promise<void>>();

  return {
    session(caller, credential) {
      const scoped = async (hash: string) => scopedKey(KIND, await scopeOf(credential), hash);
      const slot = hasReasoningSlot(caller);

      const restoreOne = async (request: Request, index: number, origin: ReasoningOrigin, losses: LossCollector) => {
        const message = request.messages[index] as Message;
        if (!hasVisibleContent(message.parts)) return;
        const path = `/messages/${index}`;
        const hash = assistantMessageHash(message.parts, caller);
        let text: string | undefined;
        try {
          await pending.get(hash);
          text = await store.get(await scoped(hash));
        } catch (error) {
          losses.add('reasoning_state_dropped', path, `the reasoning state kept for this assistant turn could not be read from the store (${storeFault(error)}); sent without it`);
          return;
        }
        const record = decodeRecord(text);
        if (record === undefined) {
          // Callers with a slot bring their state back themselves: a miss is theirs to have.
          if (!slot && wantsReasoning(request) && message.parts.some((part) => part.type === 'tool_call')) {
            losses.add('reasoning_state_dropped', path, `no reasoning state is kept for this assistant turn (it expired, was kept under another credential, or the message was edited since), and ${caller} cannot carry it: sent without it`);
          }
          return;
        }
        const mismatch = originMismatch(record, origin);
        if (mismatch !== undefined) {
          losses.add('reasoning_state_dropped', path, `the reasoning state kept for this assistant turn was not sent: ${mismatch}`);
          return;
        }
        const parts = restoredParts(message.parts, record.parts);
        if (parts === undefined) losses.add('reasoning_state_dropped', path, 'the reasoning state kept for this assistant turn does not line up with its tool calls; sent without it');
        else message.parts = parts;
      };

      return {
        watches: (upstream) => upstream !== caller && (!slot || upstream === 'gemini'),
        async restore(request, origin, losses) {
          // A caller with a slot brings its state back itself, but for a Gemini signature on text, which rides in none.
          if (origin.format === caller || (slot && origin.format !== 'gemini')) return;
          const turn = currentTurn(request.messages);
          if (turn.length === 0) return;
          await Promise.all(turn.map((index) => restoreOne(request, index, origin, losses)));
        },
        async keep(candidates, origin, losses) {
          const writes: Promise<void>[] = [];
          for (const parts of candidates) {
            if (!needsKeeping(parts, caller, origin.format) || !hasVisibleContent(parts)) continue;
            const hash = assistantMessageHash(parts, caller);
            const write = (async () => {
              try {
                await store.set(await scoped(hash), encodeRecord(parts, origin), setOptions);
              } catch (error) {
                losses.add('reasoning_state_dropped', '', `the answer's reasoning state could not be kept in the store (${storeFault(error)}), and ${caller} cannot carry it: the next turn goes without it`);
              }
            })();
            pending.set(hash, write);
            void write.then(() => {
              if (pending.get(hash) === write) pending.delete(hash);
            });
            writes.push(write);
          }
          if (writes.length > 0) await Promise.all(writes);
        },
      };
    },
  };
}

/** The candidates' message parts of `response`, copied before the caller's carrying changes them. */
export function candidateParts(response: Response): Part[][] {
  return response.candidates.map((candidate) => [...candidate.message.parts]);
}
