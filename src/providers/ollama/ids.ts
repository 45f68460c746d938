/**
 * Ollama tool calls carry no id (newer servers may send `id` and
 * `tool_call_id`; those are used when present). The IR needs one on every
 * call, so the decoder synthesises ids deterministically from where the call
 * stands, and pairs a tool message with the earliest unanswered call of its
 * `tool_name` (or, without a name, the earliest unanswered call).
 */
import { MadeUpIds } from '../../core/tools.ts';

/** The prefix of every id interlingua synthesises for Ollama; the encoder never sends such ids. */
export const SYNTHETIC_ID_PREFIX = 'call_ollama_';

/** A deterministic id for the `callIndex`-th call of the message or response named by `scope`. */
export function syntheticCallId(scope: string | number, callIndex: number): string {
  return MADE_UP.of(scope, callIndex);
}

const MADE_UP = new MadeUpIds(SYNTHETIC_ID_PREFIX);

/**
 * The scope of a response's synthesised ids: the digits of its `created_at`
 * time of day (so two turns of one conversation get different ids), or `r`.
 */
export function responseScope(createdAt: unknown): string {
  if (typeof createdAt !== 'string') return 'r';
  const digits = createdAt.replace(/[^0-9]/g, '');
  return digits === '' ? 'r' : `r${digits.slice(8, 20)}`;
}

/** Calls waiting for their result, in order. */
export class PendingCalls {
  private readonly calls: { name: string; id: string }[] = [];

  /** Remember a call. */
  add(name: string, id: string): void {
    this.calls.push({ name, id });
  }

  /** The earliest unanswered call for `name` (any call when `name` is undefined), removed from the queue. */
  take(name: string | undefined): { name: string; id: string } | undefined {
    const calls = this.calls;
    // A loop, no closure or removed-items array per result: results mostly answer the oldest call.
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index] as { name: string; id: string };
      if (name !== undefined && call.name !== name) continue;
      if (index === 0) calls.shift();
      else calls.splice(index, 1);
      return call;
    }
    return undefined;
  }

  /** Mark the call `id` answered (a result that carried its id). */
  answer(id: string): { name: string; id: string } | undefined {
    const calls = this.calls;
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index] as { name: string; id: string };
      if (call.id !== id) continue;
      if (index === 0) calls.shift();
      else calls.splice(index, 1);
      return call;
    }
    return undefined;
  }
}
