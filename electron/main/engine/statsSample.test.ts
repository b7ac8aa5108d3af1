import { describe, expect, it } from 'vitest';
import { statsSample } from './statsSample.js';

describe('a reading of the engine stats stream', () => {
  it('counts CPU as cores in use, memory without the page cache, and processes against their limit, as the docker CLI does', () => {
    const s = statsSample(
      {
        read: '2026-12-01T03:00:00.000000000Z',
        cpu_stats: { cpu_usage: { total_usage: 3_000_000_000 }, system_cpu_usage: 20_000_000_000, online_cpus: 4 },
        precpu_stats: { cpu_usage: { total_usage: 2_000_000_000 }, system_cpu_usage: 16_000_000_000, online_cpus: 4 },
        memory_stats: { usage: 150 * 1024 * 1024, limit: 256 * 1024 * 1024, stats: { inactive_file: 50 * 1024 * 1024 } },
        pids_stats: { current: 7, limit: 128 },
      },
      1,
    );
    // 1 s of CPU over 4 s of all 4 cores' time: one core busy.
    expect(s).toEqual({ at: Date.parse('2026-12-01T03:00:00Z'), cpus: 1, memoryBytes: 100 * 1024 * 1024, memoryLimitBytes: 256 * 1024 * 1024, pids: 7, pidsLimit: 128 });
  });

  it('has no CPU rate on the first reading, and no process limit when the engine reports none', () => {
    const s = statsSample({ read: '0001-01-01T00:00:00Z', cpu_stats: { cpu_usage: { total_usage: 5 }, system_cpu_usage: 9 }, precpu_stats: {}, memory_stats: {}, pids_stats: { current: 1, limit: 0 } }, 42);
    expect(s).toEqual({ at: 42, cpus: null, memoryBytes: 0, memoryLimitBytes: null, pids: 1, pidsLimit: null });
  });
});
