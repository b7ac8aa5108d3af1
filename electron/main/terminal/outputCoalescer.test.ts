import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/support/manualClock.js';
import { OutputCoalescer } from './outputCoalescer.js';

function setup(maxChars = 100) {
  const clock = new ManualClock();
  const sent: string[] = [];
  const c = new OutputCoalescer((d) => sent.push(d), { delayMs: 4, maxChars }, clock);
  return { clock, sent, c };
}

describe('OutputCoalescer', () => {
  it('sends the first output after a quiet spell at once (typing stays immediate)', () => {
    const { clock, sent, c } = setup();
    c.push('a');
    expect(sent).toEqual(['a']);
    clock.advance(10);
    c.push('b');
    expect(sent).toEqual(['a', 'b']);
  });

  it('joins output that follows closely and sends it within the delay', () => {
    const { clock, sent, c } = setup();
    c.push('1');
    c.push('2');
    c.push('3');
    expect(sent).toEqual(['1']);
    clock.advance(3);
    expect(sent).toEqual(['1']);
    clock.advance(1);
    expect(sent).toEqual(['1', '23']);
  });

  it('sends at once when the waiting output reaches the size limit', () => {
    const { sent, c } = setup(5);
    c.push('x');
    c.push('abc');
    c.push('de');
    expect(sent).toEqual(['x', 'abcde']);
  });

  it('flush sends what waits; dispose drops it', () => {
    const { clock, sent, c } = setup();
    c.push('x');
    c.push('y');
    c.flush();
    expect(sent).toEqual(['x', 'y']);
    c.push('z');
    c.dispose();
    clock.advance(100);
    expect(sent).toEqual(['x', 'y']);
  });

  it('keeps every byte in order, whatever the timing (random schedule)', () => {
    const { clock, sent, c } = setup(37);
    let expected = '';
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 2000; i++) {
      const chunk = String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(rnd() * 20));
      expected += chunk;
      c.push(chunk);
      if (rnd() < 0.3) clock.advance(Math.floor(rnd() * 8));
    }
    clock.advance(10);
    expect(sent.join('')).toBe(expected);
    expect(sent.length).toBeLessThan(2000);
  });
});
