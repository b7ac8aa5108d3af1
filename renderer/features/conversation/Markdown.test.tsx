import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STREAM_RENDER_MS, useThrottledText } from './Markdown';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('useThrottledText', () => {
  it('draws a streaming answer a few times, not once per token, and the finished one at once', () => {
    const { result, rerender } = renderHook(({ text, live }) => useThrottledText(text, live), { initialProps: { text: '', live: true } });
    const seen = new Set<string>([result.current]);
    let text = '';
    for (let i = 0; i < 200; i++) {
      text += `w${i} `;
      rerender({ text, live: true });
      seen.add(result.current);
      if (i % 50 === 49) act(() => vi.advanceTimersByTime(STREAM_RENDER_MS));
      seen.add(result.current);
    }
    expect(seen.size).toBeLessThanOrEqual(5);
    expect(result.current).toBe(text);
    rerender({ text: `${text}done`, live: false });
    expect(result.current).toBe(`${text}done`);
  });
});
