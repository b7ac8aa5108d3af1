import { describe, expect, it } from 'vitest';
import { toDisposable } from './disposables.js';

describe('toDisposable', () => {
  it('releases on the first dispose only', () => {
    let released = 0;
    const lease = toDisposable(() => released++);
    expect(released).toBe(0);
    lease.dispose();
    lease.dispose();
    expect(released).toBe(1);
  });
});
