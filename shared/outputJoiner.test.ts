import { describe, expect, it } from 'vitest';
import { OutputJoiner, type JoinerTimers } from './outputJoiner.js';

function setup(maxChars = 1000, intervalMs = 33) {
  let now = 1000;
  const due: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 1;
  const timers: JoinerTimers = {
    now: () => now,
    set: (fn, ms) => {
      const id = next++;
      due.push({ at: now + ms, fn, id });
      return id;
    },
    clear: (h) => {
      const i = due.findIndex((t) => t.id === h);
      if (i >= 0) due.splice(i, 1);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const t of due.filter((d) => d.at <= now).sort((a, b) => a.at - b.at)) {
      due.splice(due.indexOf(t), 1);
      t.fn();
    }
  };
  const sent: string[] = [];
  const joined: boolean[] = [];
  const joiner = new OutputJoiner(
    (d, j) => {
      sent.push(d);
      joined.push(j);
    },
    { intervalMs, maxChars },
    timers,
  );
  return { joiner, sent, joined, advance };
}

describe('OutputJoiner', () => {
  it('sends output after a pause at once, so typing echoes immediately', () => {
    const { joiner, sent, advance } = setup();
    joiner.push('l');
    advance(100);
    joiner.push('s');
    expect(sent).toEqual(['l', 's']);
  });

  it('joins a flood into one piece per interval, sent within it', () => {
    const { joiner, sent, advance } = setup();
    joiner.push('a');
    for (let i = 0; i < 50; i++) joiner.push('b');
    expect(sent).toEqual(['a']);
    advance(32);
    expect(sent).toEqual(['a']);
    advance(1);
    expect(sent).toEqual(['a', 'b'.repeat(50)]);
  });

  it('says which pieces waited because output kept coming (a flood) and which went at once after a quiet spell', () => {
    const { joiner, joined, advance } = setup(10);
    joiner.push('a'); // after a quiet spell: at once
    joiner.push('b'); // follows closely: waits for the interval
    advance(33);
    joiner.push('0123456789'); // too much waiting: at once, but part of the flood
    advance(100);
    joiner.push('c'); // a quiet spell again
    expect(joined).toEqual([false, true, true, false]);
  });

  it('sends at once when too much waits; drop() forgets what waits and says how much', () => {
    const { joiner, sent, advance } = setup(10);
    joiner.push('x');
    joiner.push('12345');
    joiner.push('67890');
    expect(sent).toEqual(['x', '1234567890']);
    joiner.push('lost');
    expect(joiner.waiting).toBe(4);
    expect(joiner.drop()).toBe(4);
    advance(100);
    expect(sent).toEqual(['x', '1234567890']);
  });

  it('flush sends what waits at once', () => {
    const { joiner, sent } = setup();
    joiner.push('x');
    joiner.push('y');
    joiner.flush();
    expect(sent).toEqual(['x', 'y']);
  });

  it('keeps every character in order, whatever the timing', () => {
    const { joiner, sent, advance } = setup(97, 4);
    let expected = '';
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 3000; i++) {
      const chunk = `${i},`;
      expected += chunk;
      joiner.push(chunk);
      if (rnd() < 0.3) advance(Math.floor(rnd() * 8));
    }
    joiner.flush();
    expect(sent.join('')).toBe(expected);
    expect(sent.length).toBeLessThan(3000);
  });
});
