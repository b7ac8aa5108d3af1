/**
 * When a sandbox is near its limits: the sidebar marks the chat before the
 * kernel kills its processes (memory) or refuses new ones (processes).
 */
import type { SandboxStatsSample } from '../../../../shared/contract.js';

/** Near: at or above this share of the limit. */
export const NEAR_LIMIT = 0.9;

export interface Pressure {
  memory: boolean;
  pids: boolean;
}

export function pressureOf(sample: Pick<SandboxStatsSample, 'memoryBytes' | 'memoryLimitBytes' | 'pids' | 'pidsLimit'>): Pressure {
  const near = (used: number, limit: number | null) => limit !== null && limit > 0 && used >= limit * NEAR_LIMIT;
  return { memory: near(sample.memoryBytes, sample.memoryLimitBytes), pids: near(sample.pids, sample.pidsLimit) };
}

export function samePressure(a: Pressure, b: Pressure): boolean {
  return a.memory === b.memory && a.pids === b.pids;
}
