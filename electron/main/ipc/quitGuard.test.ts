import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQuitGuard } from './quitGuard.js';

const quitEvent = () => ({ preventDefault: vi.fn() });
const flush = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('createQuitGuard', () => {
  it('holds the first quit back until the core is disposed, then exits once', async () => {
    let finish!: () => void;
    const dispose = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const exit = vi.fn();
    const guard = createQuitGuard({ dispose, exit });

    const first = quitEvent();
    guard.onBeforeQuit(first);
    expect(first.preventDefault).toHaveBeenCalledOnce();
    await flush();
    expect(dispose).toHaveBeenCalledOnce();
    expect(exit).not.toHaveBeenCalled();

    // Quitting again while the sandboxes stop: still held, no second dispose.
    const second = quitEvent();
    guard.onBeforeQuit(second);
    expect(second.preventDefault).toHaveBeenCalledOnce();

    finish();
    await flush();
    expect(dispose).toHaveBeenCalledOnce();
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);

    // After that, a quit goes through.
    const late = quitEvent();
    guard.onBeforeQuit(late);
    expect(late.preventDefault).not.toHaveBeenCalled();
  });

  it('exits even when disposing fails, and says why', async () => {
    const exit = vi.fn();
    const log = vi.fn();
    const guard = createQuitGuard({ dispose: async () => Promise.reject(new Error('engine gone')), exit, log });
    guard.onBeforeQuit(quitEvent());
    await flush();
    await flush();
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('engine gone'));
  });

  it('exits even when disposing throws synchronously', async () => {
    const exit = vi.fn();
    const guard = createQuitGuard({
      dispose: () => {
        throw new Error('sync');
      },
      exit,
    });
    guard.onBeforeQuit(quitEvent());
    await flush();
    await flush();
    expect(exit).toHaveBeenCalledOnce();
  });

  it('does not let a dispose that never settles hang quitting', async () => {
    vi.useFakeTimers();
    const exit = vi.fn();
    const log = vi.fn();
    const guard = createQuitGuard({ dispose: () => new Promise<void>(() => undefined), exit, log, timeoutMs: 1000 });
    guard.onBeforeQuit(quitEvent());
    await vi.advanceTimersByTimeAsync(999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/quit anyway/));
  });
});
