import { describe, expect, it } from 'vitest';
import { FlowControl, HIGH_WATER_CHARS, LOW_WATER_CHARS } from './flowControl.js';
import { ReplayBuffer } from './replayBuffer.js';

describe('FlowControl', () => {
  it('pauses once unacknowledged output passes the high mark, resumes below the low mark', () => {
    const flow = new FlowControl();
    expect(flow.sent(HIGH_WATER_CHARS)).toBe(false);
    expect(flow.sent(1)).toBe(true);
    expect(flow.sent(1000)).toBe(false);
    expect(flow.acked(HIGH_WATER_CHARS - LOW_WATER_CHARS)).toBe(false);
    expect(flow.acked(1002)).toBe(true);
    expect(flow.paused).toBe(false);
  });
});

describe('ReplayBuffer', () => {
  it('keeps the most recent output, starting at a line boundary when cut', () => {
    const replay = new ReplayBuffer(20);
    replay.push('line one\n');
    replay.push('line two\n');
    replay.push('line three\n');
    // The oldest chunk goes once the newer ones alone fill the limit.
    expect(replay.text()).toBe('line two\nline three\n');
    replay.push('four\n');
    expect(replay.text()).toBe('line three\nfour\n');
    const small = new ReplayBuffer(100);
    small.push('a\nb');
    expect(small.text()).toBe('a\nb');
  });
});
