import { describe, expect, it } from 'vitest';
import { pressureOf } from './sandboxPressure.js';

describe('a sandbox near its limits', () => {
  it('is near at 90 % of its memory or process limit, never without a limit', () => {
    const mib = 1024 * 1024;
    expect(pressureOf({ memoryBytes: 89 * mib, memoryLimitBytes: 100 * mib, pids: 10, pidsLimit: 100 })).toEqual({ memory: false, pids: false });
    expect(pressureOf({ memoryBytes: 90 * mib, memoryLimitBytes: 100 * mib, pids: 90, pidsLimit: 100 })).toEqual({ memory: true, pids: true });
    expect(pressureOf({ memoryBytes: 90 * mib, memoryLimitBytes: null, pids: 5000, pidsLimit: null })).toEqual({ memory: false, pids: false });
  });
});
