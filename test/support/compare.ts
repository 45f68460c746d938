/** The comparable shape of losses in golden files: code, path and severity (messages are prose and may change). */
import type { Loss } from '../../src/core/losses.ts';

export interface LossKey {
  code: string;
  path: string;
  severity: string;
}

export function lossKeys(losses: readonly Loss[]): LossKey[] {
  return losses.map(({ code, path, severity }) => ({ code, path, severity }));
}
