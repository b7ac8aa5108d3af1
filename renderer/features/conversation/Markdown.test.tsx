import { act, render, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MarkdownText, STREAM_RENDER_MS, useThrottledText } from './Markdown';

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

describe('raw HTML in an answer', () => {
  it('is shown as the text it is, with the lines after it, and never becomes markup', () => {
    vi.useRealTimers();
    const { container } = render(<MarkdownText text={'<h1>Hello</h1>\nand the text after it\n\nA <b>bold</b> claim. <script>alert(1)</script>'} />);
    expect(container.querySelector('h1, b, script')).toBeNull();
    expect(container.textContent).toContain('<h1>Hello</h1>');
    expect(container.textContent).toContain('and the text after it');
    expect(container.textContent).toContain('A <b>bold</b> claim. <script>alert(1)</script>');
    // The block keeps its lines.
    expect(container.querySelector('p br')).not.toBeNull();
  });
});
