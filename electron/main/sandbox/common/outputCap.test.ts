import { describe, expect, it } from 'vitest';
import { OutputCap } from './outputCap.js';

function feed(text: string, chunkSize: number, head: number, tail: number): OutputCap {
  const cap = new OutputCap(head, tail);
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += chunkSize) cap.push(bytes.subarray(i, i + chunkSize));
  return cap;
}

const alphabet = (n: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

describe('OutputCap', () => {
  it('passes small output through whole', () => {
    const cap = feed('hello\nworld\n', 4, 100, 100);
    expect(cap.text()).toBe('hello\nworld\n');
    expect(cap.total).toBe(12);
    expect(cap.truncated).toBe(false);
  });

  it('passes output of exactly head+tail bytes through whole', () => {
    const text = alphabet(20);
    const cap = feed(text, 3, 10, 10);
    expect(cap.truncated).toBe(false);
    expect(cap.text()).toBe(text);
  });

  it('keeps the head and the tail of big output with a marker counting what was left out', () => {
    const text = alphabet(100);
    const cap = feed(text, 7, 10, 10);
    expect(cap.truncated).toBe(true);
    expect(cap.total).toBe(100);
    expect(cap.text()).toBe(`${text.slice(0, 10)}\n[… 80 bytes omitted of 100 …]\n${text.slice(90)}`);
  });

  it('omits a single byte when one byte over the budget', () => {
    const text = alphabet(21);
    const cap = feed(text, 21, 10, 10);
    expect(cap.text()).toBe(`${text.slice(0, 10)}\n[… 1 bytes omitted of 21 …]\n${text.slice(11)}`);
  });

  it('gives the same result whatever the chunk boundaries', () => {
    const text = `${alphabet(5000)}\nlast line ✓ ünïcödé\n`;
    const whole = feed(text, Buffer.byteLength(text), 100, 200);
    for (const size of [1, 2, 3, 7, 64, 99, 100, 101, 199, 200, 201, 4096]) {
      const cap = feed(text, size, 100, 200);
      expect(cap.text()).toBe(whole.text());
      expect(cap.total).toBe(Buffer.byteLength(text));
    }
    expect(whole.text().endsWith('last line ✓ ünïcödé\n')).toBe(true);
  });

  it('keeps a multibyte character whole when it is split across chunks', () => {
    expect(feed('ü✓', 1, 100, 100).text()).toBe('ü✓');
  });

  it('counts the total across many large chunks and keeps memory to the tail', () => {
    const cap = new OutputCap(4, 4);
    for (let i = 0; i < 1000; i++) cap.push(Buffer.alloc(1000, i === 999 ? 'z' : 'a'));
    expect(cap.total).toBe(1_000_000);
    expect(cap.text()).toBe(`aaaa\n[… 999992 bytes omitted of 1000000 …]\nzzzz`);
  });
});

describe('OutputCap on multi-byte text', () => {
  it('never cuts a character in half at the head/tail boundary', () => {
    const cap = new OutputCap(5, 5);
    // 'é' is two bytes and '✓' three: the byte limits fall inside them.
    cap.push(Buffer.from('ééé' + 'x'.repeat(50) + '✓✓✓'));
    const text = cap.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('éé\n')).toBe(true);
    expect(text.endsWith('\n✓')).toBe(true);
  });
});
