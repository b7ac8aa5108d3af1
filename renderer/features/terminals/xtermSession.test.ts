import type { Terminal } from '@xterm/xterm';
import { describe, expect, it } from 'vitest';
import { throttleScrollbarReveal } from './xtermSession';

/** The part of xterm 6.0's internals the throttle touches (jsdom cannot open a real xterm). */
function xtermShaped() {
  let hides = 0;
  const scrollable = {
    _reveal(this: { _scheduleHide(): void }) {
      this._scheduleHide();
    },
    _scheduleHide: () => void hides++,
  };
  return { term: { _core: { _viewport: { _scrollableElement: scrollable } } } as unknown as Terminal, scrollable, hides: () => hides };
}

describe('throttleScrollbarReveal', () => {
  it('lets the scrollbar reveal itself (and re-arm its hide timer) at most every 100 ms while output scrolls', () => {
    const { term, scrollable, hides } = xtermShaped();
    let now = 1000;
    expect(throttleScrollbarReveal(term, () => now)).toBe(true);
    for (let i = 0; i < 50; i++) scrollable._reveal();
    expect(hides()).toBe(1);
    now += 99;
    scrollable._reveal();
    expect(hides()).toBe(1);
    now += 1;
    scrollable._reveal();
    expect(hides()).toBe(2);
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(throttleScrollbarReveal({} as Terminal)).toBe(false);
    expect(throttleScrollbarReveal({ _core: { _viewport: {} } } as unknown as Terminal)).toBe(false);
  });
});
