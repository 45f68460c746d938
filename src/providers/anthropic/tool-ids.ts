/**
 * Tool-call ids: Anthropic requires `^[a-zA-Z0-9_-]+$`. Ids from other
 * formats are rewritten by one deterministic function, applied to both the
 * call and its result so pairs stay matched.
 */
import type { LossCollector } from '../../core/losses.ts';

const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/** The id as Anthropic accepts it; reports an `approximated` loss when it had to change. */
export function anthropicToolId(id: string, path: string, losses: LossCollector): string {
  if (VALID_ID.test(id)) return id;
  const rewritten = id === '' ? 'toolu_empty' : id.replace(/[^a-zA-Z0-9_-]/g, '_');
  losses.add('approximated', path, `tool call id "${id}" has characters Anthropic rejects; sent as "${rewritten}"`, 'info');
  return rewritten;
}
