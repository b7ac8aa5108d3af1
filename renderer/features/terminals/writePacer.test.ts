import { describe, expect, it } from 'vitest';
import type { Timers } from './ackBatcher';
import { WritePacer } from './writePacer';

function setup(maxChars = 1000) {
  let now = 1000;
  const due: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 1;
  const timers: Timers = {
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
  const writes: string[] = [];
  const pacer = new WritePacer((d) => writes.push(d), { intervalMs: 33, maxChars }, timers, () => now);
  return { pacer, writes, advance };
}

describe('WritePacer', () => {
  it('writes output after a pause at once, so typing echoes immediately', () => {
    const { pacer, writes, advance } = setup();
    pacer.push('l');
    advance(100);
    pacer.push('s');
    expect(writes).toEqual(['l', 's']);
  });

  it('joins a flood into one write per interval', () => {
    const { pacer, writes, advance } = setup();
    pacer.push('a');
    for (let i = 0; i < 50; i++) pacer.push('b');
    expect(writes).toEqual(['a']);
    advance(33);
    expect(writes).toEqual(['a', 'b'.repeat(50)]);
  });

  it('writes at once when too much waits, and drop() forgets what waits', () => {
    const { pacer, writes, advance } = setup(10);
    pacer.push('x');
    pacer.push('12345');
    pacer.push('67890');
    expect(writes).toEqual(['x', '1234567890']);
    pacer.push('lost');
    expect(pacer.drop()).toBe(4);
    advance(100);
    expect(writes).toEqual(['x', '1234567890']);
  });

  it('keeps every character in order', () => {
    const { pacer, writes, advance } = setup(97);
    let expected = '';
    for (let i = 0; i < 3000; i++) {
      const chunk = `${i},`;
      expected += chunk;
      pacer.push(chunk);
      if (i % 7 === 0) advance(i % 40);
    }
    pacer.flush();
    expect(writes.join('')).toBe(expected);
    expect(writes.length).toBeLessThan(3000);
  });
});
