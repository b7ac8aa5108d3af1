import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeApi } from '../../test/fakeApi';
import { ACK_POLICY, AckBatcher, planAck } from './ackBatcher';
import { TerminalOutputHub } from './outputHub';

describe('planAck', () => {
  it('waits for the timer while under the batch size, arming it once', () => {
    expect(planAck(0, 100, false)).toEqual({ pending: 100, send: 0, arm: true });
    expect(planAck(100, 100, true)).toEqual({ pending: 200, send: 0, arm: false });
  });

  it('acknowledges at once when a batch is waiting', () => {
    expect(planAck(ACK_POLICY.maxChars - 10, 10, true)).toEqual({ pending: 0, send: ACK_POLICY.maxChars, arm: false });
    expect(planAck(0, ACK_POLICY.maxChars + 5, false)).toEqual({ pending: 0, send: ACK_POLICY.maxChars + 5, arm: false });
  });

  it('does nothing for nothing', () => {
    expect(planAck(0, 0, false)).toEqual({ pending: 0, send: 0, arm: false });
  });
});

describe('AckBatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends one ack per interval however many writes land in it', () => {
    const sent: number[] = [];
    const batcher = new AckBatcher((n) => sent.push(n));
    for (let i = 0; i < 100; i++) batcher.add(10);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(16);
    expect(sent).toEqual([1000]);
    batcher.add(5);
    vi.advanceTimersByTime(15);
    expect(sent).toEqual([1000]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([1000, 5]);
  });

  it('a flood is acknowledged in batch-size steps without waiting for the timer', () => {
    const sent: number[] = [];
    const batcher = new AckBatcher((n) => sent.push(n));
    const step = ACK_POLICY.maxChars;
    for (let i = 0; i < (2.5 * step) / 4096; i++) batcher.add(4096);
    expect(sent).toEqual([step, step]);
    vi.advanceTimersByTime(16);
    expect(sent).toEqual([step, step, step / 2]);
    expect(sent.reduce((x, y) => x + y, 0)).toBe(2.5 * step);
  });

  it('flushes what is waiting when disposed, then stops', () => {
    const sent: number[] = [];
    const batcher = new AckBatcher((n) => sent.push(n));
    batcher.add(7);
    batcher.dispose();
    batcher.add(9);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([7]);
  });
});

describe('TerminalOutputHub', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands output to the attached screen and acknowledges unattached output at once (batched)', async () => {
    const api = createFakeApi();
    const hub = new TerminalOutputHub(api);
    const seen: string[] = [];
    hub.attach('t1', (data) => seen.push(data));
    api.emit('terminal.data', { terminalId: 't1', data: 'hello' });
    api.emit('terminal.data', { terminalId: 't2', data: 'background' });
    expect(seen).toEqual(['hello']);
    vi.advanceTimersByTime(16);
    await vi.runAllTimersAsync();
    // Only the background terminal's output is acknowledged by the hub; the screen acks its own.
    expect(api.callsTo('terminal.ack')).toEqual([{ terminalId: 't2', chars: 'background'.length }]);
  });
});
