/** The comparable shape of losses in golden files: code, path (and the IR pointer it was translated from), severity (messages are prose and may change). */
import type { Loss } from '../../src/core/losses.ts';

export interface LossKey {
  code: string;
  path: string;
  irPath?: string;
  severity: string;
}

export function lossKeys(losses: readonly Loss[]): LossKey[] {
  return losses.map(({ code, path, irPath, severity }) => (irPath === undefined ? { code, path, severity } : { code, path, irPath, severity }));
}
