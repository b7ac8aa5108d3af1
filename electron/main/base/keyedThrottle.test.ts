import { describe, expect, it } from 'vitest';
import type { Clock } from './clock.js';
import { KeyedThrottle } from './keyedThrottle.js';

function manualClock() {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(next, { at: now + ms, fn });
      return next++;
    },
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at > now || !timers.has(id)) continue;
      timers.delete(id);
      t.fn();
    }
  };
  return { clock, advance, pending: () => timers.size };
}

describe('KeyedThrottle', () => {
  it('runs the first call at once and folds a burst into one more run at the end of the interval', () => {
    const { clock, advance } = manualClock();
    const runs: string[] = [];
    const t = new KeyedThrottle((k) => runs.push(k), 100, clock);
    for (let i = 0; i < 500; i++) t.call('a');
    expect(runs).toEqual(['a']);
    advance(99);
    expect(runs).toEqual(['a']);
    advance(1);
    expect(runs).toEqual(['a', 'a']);
    // Quiet since: nothing more, and the next call runs at once again.
    advance(100);
    expect(runs).toEqual(['a', 'a']);
    t.call('a');
    expect(runs).toEqual(['a', 'a', 'a']);
  });

  it('keeps keys apart and leaves no timer behind after dispose', () => {
    const { clock, advance, pending } = manualClock();
    const runs: string[] = [];
    const t = new KeyedThrottle((k) => runs.push(k), 100, clock);
    t.call('a');
    t.call('b');
    t.call('a');
    expect(runs).toEqual(['a', 'b']);
    t.dispose();
    expect(pending()).toBe(0);
    advance(1000);
    expect(runs).toEqual(['a', 'b']);
  });
});
