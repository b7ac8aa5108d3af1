import { describe, expect, it } from 'vitest';
import { RenderPacer, type ScreenHold } from './renderPacer';

/** A screen that records holds and releases, and a clock whose timers run when advanced. */
function setup(intervalMs = 100) {
  let now = 0;
  const due: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 1;
  const log: string[] = [];
  let held = false;
  let waiting = false;
  const screen: ScreenHold & { change(): void } = {
    hold() {
      held = true;
      log.push('hold');
    },
    release() {
      held = false;
      const had = waiting;
      waiting = false;
      log.push(had ? 'draw' : 'release');
      return had;
    },
    /** xterm asks for a redraw (a parsed chunk changed rows): drawn at once unless held. */
    change() {
      if (held) waiting = true;
      else log.push('draw');
    },
  };
  const pacer = new RenderPacer(screen, intervalMs, {
    set: (fn, ms) => {
      const id = next++;
      due.push({ at: now + ms, fn, id });
      return id;
    },
    clear: (h) => {
      const i = due.findIndex((t) => t.id === h);
      if (i >= 0) due.splice(i, 1);
    },
  });
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const t = due.filter((d) => d.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!t) break;
      due.splice(due.indexOf(t), 1);
      now = t.at;
      t.fn();
    }
    now = end;
  };
  return { pacer, screen, log, advance, timers: () => due.length };
}

describe('RenderPacer', () => {
  it('never holds output after a quiet spell: an echo or a prompt is drawn at once', () => {
    const { pacer, screen, log } = setup();
    pacer.written(false);
    screen.change();
    pacer.idle();
    expect(log).toEqual(['draw']);
    expect(pacer.held).toBe(false);
  });

  it('holds a flood and lets it draw once per interval, holding again after each frame', () => {
    const { pacer, screen, log, advance } = setup(100);
    pacer.written(false); // the first bytes: drawn
    screen.change();
    for (let t = 0; t < 300; t += 33) {
      pacer.written(true);
      screen.change(); // xterm parses the piece: its redraw request waits
      advance(33);
      if (log.at(-1) === 'draw') pacer.drawn(); // the frame it was let through for
    }
    // One frame at the start, then one per 100 ms of flood (not one per piece or per frame).
    expect(log.filter((l) => l === 'draw')).toHaveLength(1 + 2);
    expect(pacer.held).toBe(true);
  });

  it('draws the end of a flood at once, and holds no more', () => {
    const { pacer, screen, log, advance, timers } = setup(100);
    pacer.written(true);
    screen.change();
    advance(40);
    expect(log).toEqual(['hold']);
    pacer.idle(); // everything written, nothing waits
    expect(log).toEqual(['hold', 'draw']);
    expect(timers()).toBe(0);
    screen.change();
    expect(log.at(-1)).toBe('draw');
  });

  it('stays held when a flood interval passes with nothing to draw', () => {
    const { pacer, log, advance } = setup(100);
    pacer.written(true);
    advance(100);
    expect(log).toEqual(['hold', 'release', 'hold']);
    expect(pacer.held).toBe(true);
  });

  it('after the frame a flood was let through for, later pieces wait for the next interval', () => {
    const { pacer, screen, log, advance } = setup(100);
    pacer.written(true);
    screen.change();
    advance(100); // let through
    expect(log).toEqual(['hold', 'draw']);
    pacer.written(true); // while the frame is pending: no second hold yet
    expect(log).toEqual(['hold', 'draw']);
    pacer.drawn();
    expect(pacer.held).toBe(true);
    screen.change();
    advance(99);
    expect(log).toEqual(['hold', 'draw', 'hold']);
    advance(1);
    expect(log).toEqual(['hold', 'draw', 'hold', 'draw']);
  });

  it('dispose releases a held screen and cancels its timer', () => {
    const { pacer, screen, log, timers } = setup();
    pacer.written(true);
    screen.change();
    pacer.dispose();
    expect(log).toEqual(['hold', 'draw']);
    expect(timers()).toBe(0);
  });
});
